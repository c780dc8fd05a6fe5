"""Ingestion jobs: EHR note exports → patient temporal knowledge graphs.

Data flows one way: readers → text → nlp → link → tkg → graphkit.store.
"""
