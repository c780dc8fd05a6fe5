"""Hybrid retrieval over a patient's stored chunks (CLI-RAG §2.3): global over the whole record, local
over one encounter or a date window, and the two combined.

Three candidate lists — the Neo4j vector index (MiniLM embeddings of the chunks), the full-text index,
and the graph neighbourhood of the question (chunks holding the evidence sentences of the patient's
events whose concepts the question names) — are fused by reciprocal rank (RRF, k = 60), then reranked
by maximal marginal relevance under a token budget (:mod:`graphkit.context.select`), so near-duplicate
chunks (a copied-forward HPI) do not crowd out the rest.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

import numpy as np

from graphkit.context.select import mmr
from graphkit.errors import BadInputError
from graphkit.store import GraphStore

RRF_K = 60
_LUCENE_SPECIAL = re.compile(r'[+\-&|!(){}\[\]^"~*?:\\/]')
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]{2,}")
_STOP = frozenset("the and for with was were are has have had what which when who how did does this that from "
                  "into any all not but her his she him they them their there about over under".split())


@dataclass(frozen=True)
class Scope:
    """Where to look: the whole record (global), one encounter, or a date window (local)."""

    encounter: str | None = None
    start: dt.date | None = None
    end: dt.date | None = None

    @property
    def local(self) -> bool:
        return bool(self.encounter or self.start or self.end)

    def params(self) -> dict:
        return {"encounter": self.encounter, "from": self.start.isoformat() if self.start else None,
                "to": self.end.isoformat() if self.end else None}


@dataclass
class Hit:
    id: str
    text: str
    note: str
    encounter: str
    note_type: str | None
    section: str | None
    time: str | None
    score: float
    ranks: dict = field(default_factory=dict)  # source -> rank (1-based)
    sentences: list[dict] = field(default_factory=list)  # [{id, text}] in order


def ensure_embeddings(store: GraphStore, embedder, patients: list[str] | None = None, batch: int = 256) -> int:
    """Embed the chunks that have no embedding yet (new or changed notes). Returns how many. O(new chunks)."""
    done = 0
    while True:
        rows = store.read("retrieve.chunks_without_embedding", patients=patients, limit=batch)
        if not rows:
            return done
        vecs = embedder.encode([r["text"] or "" for r in rows])
        store.write("retrieve.set_chunk_embeddings",
                    rows=[{"id": r["id"], "embedding": [float(x) for x in v]} for r, v in zip(rows, vecs)])
        done += len(rows)


def fulltext_query(question: str) -> str:
    """The question as a Lucene OR-query of its content words (special characters removed)."""
    words = [w for w in _WORD.findall(_LUCENE_SPECIAL.sub(" ", question)) if w.lower() not in _STOP]
    return " OR ".join(dict.fromkeys(words)) or "*"


def question_codes(question: str) -> list[str]:
    """Concept codes the question names, through the same terminology ingestion uses."""
    from ingest.link.lexicon import load_lexicon

    return sorted({f"{c.system}|{c.code}" for m in load_lexicon().find(question) for c in m.concepts})


def rrf(lists: dict[str, list[str]]) -> dict[str, tuple[float, dict]]:
    """Reciprocal rank fusion: id -> (sum of 1 / (60 + rank), {source: rank})."""
    out: dict[str, tuple[float, dict]] = {}
    for source, ids in lists.items():
        for rank, i in enumerate(ids, start=1):
            score, ranks = out.get(i, (0.0, {}))
            out[i] = (score + 1.0 / (RRF_K + rank), {**ranks, source: rank})
    return out


def candidates(store: GraphStore, patient: str, question: str, qvec: np.ndarray, scope: Scope,
               keep: int = 40) -> dict[str, list[str]]:
    """The three ranked candidate lists (chunk ids) for one scope."""
    p = {"patient": patient, **scope.params(), "keep": keep}
    vector = [r["id"] for r in store.read("retrieve.vector_hits", vector=[float(x) for x in qvec],
                                          k=max(keep * 25, 500), **p)]
    text = [r["id"] for r in store.read("retrieve.fulltext_hits", query=fulltext_query(question), **p)]
    graph = [r["id"] for r in store.read("retrieve.graph_hits", codes=question_codes(question), **p)]
    return {"vector": vector, "fulltext": text, "graph": graph}


def search(store: GraphStore, patient: str, question: str, embedder, scope: Scope = Scope(), k: int = 10,
           budget: int | None = None, counter=None, combine_global: bool = False, lam: float = 0.5) -> list[Hit]:
    """The ``k`` best chunks for ``question`` in ``scope`` (and, with ``combine_global``, fused with the
    global ranking: CLI-RAG's global + local retrieval), MMR-reranked, within ``budget`` tokens when
    given. Raises BadInputError for an unknown patient or encounter."""
    store.require_patients([patient])
    if scope.encounter and not store.read("retrieve.encounter_exists", patient=patient, encounter=scope.encounter):
        raise BadInputError(f"patient {patient!r} has no encounter {scope.encounter!r}",
                            fix="list them with `graphkit timeline PATIENT`")
    ensure_embeddings(store, embedder, [patient])
    qvec = embedder.encode([question])[0]
    lists = candidates(store, patient, question, qvec, scope)
    if combine_global and scope.local:
        lists.update({f"global-{k_}": v for k_, v in candidates(store, patient, question, qvec, Scope()).items()})
    fused = rrf(lists)
    if not fused:
        return []
    top = sorted(fused, key=lambda i: -fused[i][0])[:max(4 * k, 40)]
    rows = {r["id"]: r for r in store.read("retrieve.chunk_details", ids=top)}
    seen: set[str] = set()
    unique = []
    for i in top:  # a copied-forward passage counts once (its first, best-ranked copy)
        key = " ".join((rows.get(i) or {}).get("text", "").lower().split())
        if i in rows and key not in seen:
            seen.add(key)
            unique.append(i)
    top = unique
    emb = np.array([rows[i]["embedding"] or np.zeros(len(qvec)) for i in top], dtype=np.float32)
    rel = np.array([fused[i][0] for i in top])
    rel = rel / rel.max() if rel.max() > 0 else rel
    costs = np.array(counter.count_many([rows[i]["text"] for i in top]) if counter else [1] * len(top))
    chosen = mmr(costs, budget if budget else k, emb=emb, rel=rel, lam=lam, min_cost=0)
    chosen = sorted(chosen, key=lambda j: -rel[j])[:k]
    return [Hit(i, rows[i]["text"], rows[i]["note"], rows[i]["encounter"], rows[i]["note_type"], rows[i]["section"],
                rows[i]["time"], float(fused[i][0]), fused[i][1], [s for s in rows[i]["sentences"] if s["id"]])
            for i in (top[j] for j in chosen)]
