"""Clinical documents from the graph: SOAP notes per encounter and aspect summaries, every sentence
cited, every citation checked (ConTextual, CLI-RAG, PCoA)."""
