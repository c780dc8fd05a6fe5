"""Graph fingerprints: node and relationship counts by label/type and a property checksum, to show
that two ingestion paths (single process, Spark, bulk import) built the same graph."""

from __future__ import annotations

import hashlib
import json
from collections import Counter

from graphkit.store import GraphStore

#: Properties that legitimately differ between two loads of the same input (when it was loaded).
VOLATILE = {"loaded_at", "computed_at", "created_at", "heartbeat", "needs_relink"}


def _canon(value):
    if isinstance(value, dict):
        return {k: _canon(v) for k, v in sorted(value.items()) if k not in VOLATILE}
    if isinstance(value, list):
        return [_canon(v) for v in value]
    return str(value) if not isinstance(value, (int, float, bool, str, type(None))) else value


def fingerprint(store: GraphStore, prefix: str) -> dict:
    """{nodes: {label: n}, relationships: {type: n}, checksum} of the patients whose id starts with
    ``prefix``, with the concepts their events reach (and those concepts' ancestors). O(their nodes +
    relationships)."""
    h = hashlib.sha256()
    nodes: Counter = Counter()
    rows = store.read("bench.nodes_with_prefix", prefix=prefix)
    for key in sorted(json.dumps([r["label"], _canon(r["props"])], sort_keys=True) for r in rows):
        h.update(key.encode())
    for r in rows:
        nodes[r["label"]] += 1
    rels: Counter = Counter()
    edges = store.read("bench.relationships_with_prefix", prefix=prefix)
    for key in sorted(json.dumps([e["type"], e["src"], e["dst"], _canon(e["props"])], sort_keys=True) for e in edges):
        h.update(key.encode())
    for e in edges:
        rels[e["type"]] += 1
    # the shared vocabulary they reach: concepts and their IS_A edges
    concepts = store.read("bench.concepts_with_prefix", prefix=prefix)
    for key in sorted(json.dumps([_canon(c["props"]), sorted(c["parents"])], sort_keys=True) for c in concepts):
        h.update(key.encode())
    nodes["Concept"] += len(concepts)
    rels["IS_A"] += sum(len(c["parents"]) for c in concepts)
    return {"nodes": dict(sorted(nodes.items())), "relationships": dict(sorted(rels.items())),
            "checksum": h.hexdigest()[:16]}
