"""Patient temporal knowledge graph rows: notes → sections → sentences → events with provenance."""

from ingest.tkg.build import NoteGraph, fact_rows, note_graph

__all__ = ["NoteGraph", "note_graph", "fact_rows"]
