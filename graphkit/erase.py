"""Erase a patient: every node derived from them, their lines in quarantine files, their cached
embeddings. The graph part runs in ONE transaction (all of it or nothing).

What is derived from a patient carries a ``patient`` property (see ``cypher/erase.cypher``), so a new
layer's nodes are erased without touching this module; alignment runs that named the patient in their
scope keep the run but lose the id.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from graphkit.store import GraphStore


@dataclass
class ErasureReport:
    patient: str
    nodes: dict[str, int] = field(default_factory=dict)  # deleted, by label
    runs_scrubbed: int = 0
    quarantine_lines: dict[str, int] = field(default_factory=dict)  # removed, by file
    cached_embeddings: int = 0

    @property
    def total_nodes(self) -> int:
        return sum(self.nodes.values())

    def as_dict(self) -> dict:
        return {"patient": self.patient, "deleted_nodes": self.total_nodes, "by_label": self.nodes,
                "runs_scrubbed": self.runs_scrubbed, "quarantine_lines": self.quarantine_lines,
                "cached_embeddings": self.cached_embeddings}


def _scrub_params(params: str, patient: str) -> str:
    """A run's JSON scope without the patient in its ``patients`` list."""
    try:
        scope = json.loads(params)
    except json.JSONDecodeError:
        return params.replace(patient, "[erased]")
    if isinstance(scope.get("patients"), list):
        scope["patients"] = [p for p in scope["patients"] if p != patient]
    text = json.dumps(scope)
    return text.replace(patient, "[erased]")


def erase_patient(store: GraphStore, patient: str, quarantine: list[Path] | None = None,
                  embedder=None) -> ErasureReport:
    """Delete everything derived from ``patient``. ``quarantine``: files to purge of the patient's
    lines (None: leave quarantine files alone). ``embedder``: a TextEmbedder whose cache forgets the
    patient's event texts. Raises BadInputError when the graph has no such patient."""
    store.require_patients([patient])
    texts = [r["text"] for r in store.read("erase.event_texts", patient=patient) if r["text"]]

    def work(tx) -> tuple[Counter, int]:
        owned = tx.run("erase.patient_owned_nodes", patient=patient)
        for i in range(0, len(owned), 10_000):
            tx.run("erase.delete_nodes", ids=[r["id"] for r in owned[i:i + 10_000]])
        runs = tx.run("erase.runs_naming_patient", patient=patient)
        for r in runs:
            tx.run("erase.set_run_params", id=r["id"], params=_scrub_params(r["params"], patient))
        return Counter(r["label"] for r in owned), len(runs)

    nodes, runs = store.transaction(work)
    report = ErasureReport(patient, dict(sorted(nodes.items())), runs)
    if quarantine is not None:
        from ingest.quarantine import purge_patient

        report.quarantine_lines = purge_patient(quarantine, patient)
    if embedder is not None:
        report.cached_embeddings = embedder.forget(texts)
        embedder.save()
    return report


def references(store: GraphStore, patient: str) -> list[str]:
    """Every node or relationship (by label/type) that still holds the patient's id in a property
    value: what an erasure must leave empty. O(size of the graph)."""
    out = []
    for row in store.read("erase.property_scan"):
        for key, value in (row["props"] or {}).items():
            values = value if isinstance(value, list) else [value]
            if any(isinstance(v, str) and patient in v for v in values):
                out.append(f"{':'.join(row['labels'])}.{key}")
    return out
