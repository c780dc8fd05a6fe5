"""Retrieval over stored chunks: global, local (encounter or date window) and hybrid (CLI-RAG)."""

from graphkit.retrieve.search import Hit, Scope, ensure_embeddings, search

__all__ = ["Hit", "Scope", "ensure_embeddings", "search"]
