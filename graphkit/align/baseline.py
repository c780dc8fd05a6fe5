"""A reimplementation of the alignment in CliCARE's released code (``KG_Alignment/alignment.py``) —
the baseline to beat. What that code does, and this module repeats on purpose:

1. ``bert_semantic_align``: every trajectory node is paired with its single most similar guideline
   node (over all nodes, no path, no one-to-one) when the cosine is at least 0.70;
2. ``bootea_iterative_alignment``: up to five rounds with the threshold 0.70, 0.65, 0.60, 0.55, 0.55;
   in each round only nodes aligned in no earlier round take part, on both sides; each unaligned
   trajectory node takes its most similar unaligned guideline node when
   ``0.7 · cosine + 0.3 · neighbor`` reaches the threshold, where ``neighbor`` is the share of the
   node's neighbours already aligned to the guideline node's neighbours. As released, the nodes carry
   no neighbour lists (the attribute is read with ``hasattr`` and never set), so the neighbour term is
   0 and a pair needs ``cosine ≥ threshold / 0.7``;
3. the released code returns pairs, not a path: for the path metrics this module reports the
   guideline path holding the most aligned steps (first in path order on ties) — graphkit's addition.

ClinicalBERT is not shipped offline; MiniLM (the model graphkit aligns with) stands in, on exactly the
input graphkit's aligner sees (the same units, step texts and embeddings).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from graphkit.align.embed import TextEmbedder
from graphkit.align.model import Event, Guideline, Unit
from graphkit.align.score import best_text_cosine, step_texts
from graphkit.align.trajectory import applicable_guidelines, build_units

INITIAL_THRESHOLD = 0.70
ROUND_THRESHOLDS = (0.70, 0.65, 0.60, 0.55, 0.55)
SEMANTIC_WEIGHT, NEIGHBOR_WEIGHT = 0.7, 0.3


@dataclass
class BaselineResult:
    patient: str
    guideline: str | None = None
    path: str | None = None
    units: list[Unit] = field(default_factory=list)
    aligned: dict[str, str] = field(default_factory=dict)  # unit key -> step uid
    rankings: dict[str, list[str]] = field(default_factory=dict)


def cosine_matrix(units: list[Unit], g: Guideline, embedder: TextEmbedder) -> np.ndarray:
    """(units × steps) raw cosine of each unit with the step's best text."""
    texts, owner = step_texts(g.steps)
    return best_text_cosine(embedder.encode([u.text for u in units]), embedder.encode(texts), owner, len(g.steps))


def released_alignment(C: np.ndarray) -> dict[int, int]:
    """unit index -> step index, as the released code pairs them (see the module docstring)."""
    pairs: dict[int, int] = {}
    if not C.size:
        return pairs
    for i in range(C.shape[0]):  # 1. initial semantic alignment, no one-to-one
        j = int(np.argmax(C[i]))
        if C[i, j] >= INITIAL_THRESHOLD:
            pairs[i] = j
    for threshold in ROUND_THRESHOLDS:  # 2. BootEA rounds over the nodes still unaligned on both sides
        free_steps = [j for j in range(C.shape[1]) if j not in pairs.values()]
        free_units = [i for i in range(C.shape[0]) if i not in pairs]
        if not free_steps or not free_units:
            break
        new = {}
        for i in free_units:
            j = max(free_steps, key=lambda c: C[i, c])
            neighbor = 0.0  # as released: no node carries neighbours
            if SEMANTIC_WEIGHT * C[i, j] + NEIGHBOR_WEIGHT * neighbor >= threshold:
                new[i] = j
        pairs.update(new)
    return pairs


def clicare_align(patient: str, events: list[Event], guidelines: list[Guideline], embedder: TextEmbedder,
                  episode_gap_days: int = 180) -> BaselineResult:
    res = BaselineResult(patient)
    cands = [g for g, _ in applicable_guidelines(events, guidelines) if g.paths]
    if not cands or not events:
        return res
    units = build_units(events, episode_gap_days)
    res.units = units
    best = None
    for g in cands:  # the guideline whose steps take the most pairs
        C = cosine_matrix(units, g, embedder)
        pairs = released_alignment(C)
        if best is None or len(pairs) > len(best[1]):
            best = (g, pairs, C)
    g, pairs, C = best
    uids = [s.uid for s in g.steps]
    res.guideline = g.id
    res.aligned = {units[i].key: uids[j] for i, j in pairs.items()}
    steps = set(res.aligned.values())
    res.path = max(g.paths, key=lambda p: (len(steps & set(p.steps)), -p.index)).id
    order = np.argsort(-C, axis=1, kind="stable") if len(units) else []
    for i, u in enumerate(units):
        ranking = [uids[j] for j in order[i]]
        if u.key in res.aligned:
            ranking.remove(res.aligned[u.key])
            ranking.insert(0, res.aligned[u.key])
        res.rankings[u.key] = ranking
    return res
