"""graphkit.store — the one module that talks to Neo4j.

>>> store = GraphStore.connect()              # NEO4J_URI, else the local server graphkit started
>>> store.apply_schema()                       # ordered, idempotent migrations from cypher/schema.cypher
>>> store.write_batches("tkg.merge_patients", [{"id": "p1", "props": {}}])
>>> store.read("tkg.patient_timeline", patient="p1")
"""

from graphkit.store.graph_store import GraphStore, WriteReport
from graphkit.store.schema import Migration, parse_migrations

__all__ = ["GraphStore", "WriteReport", "Migration", "parse_migrations"]
