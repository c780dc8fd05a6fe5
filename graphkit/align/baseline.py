"""A faithful reimplementation of the alignment in CliCARE's released code — the baseline to beat.

What that code does (and what this module repeats on purpose):

- path choice: each candidate path scores the **sum** over its steps of the best event cosine, so a
  longer path wins by length;
- "BootEA": rounds with a cosine threshold decaying 0.70 → 0.65 → 0.60 → 0.55; in each round every
  unaligned event joins its most similar step when above the threshold; **no one-to-one constraint**;
- its neighborhood term is always zero, so the combined score is the cosine alone.

It sees exactly the input graphkit's aligner sees (the same units, step texts and embeddings) so the
comparison isolates the method.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from graphkit.align.embed import TextEmbedder
from graphkit.align.model import Event, Guideline, Unit
from graphkit.align.score import best_text_cosine, step_texts
from graphkit.align.trajectory import applicable_guidelines, build_units

THRESHOLDS = (0.70, 0.65, 0.60, 0.55)


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


def clicare_align(patient: str, events: list[Event], guidelines: list[Guideline], embedder: TextEmbedder,
                  episode_gap_days: int = 180) -> BaselineResult:
    res = BaselineResult(patient)
    cands = [g for g, _ in applicable_guidelines(events, guidelines) if g.paths]
    if not cands or not events:
        return res
    units = build_units(events, episode_gap_days)
    res.units = units
    best = None
    for g in cands:
        C = cosine_matrix(units, g, embedder)
        col = {s.uid: j for j, s in enumerate(g.steps)}
        m = C.max(0) if len(units) else np.zeros(len(g.steps))
        for p in g.paths:
            total = float(sum(m[col[uid]] for uid in p.steps))  # Eq. 4 as released: a plain sum
            if best is None or total > best[0]:
                best = (total, g, p, C)
    _, g, p, C = best
    res.guideline, res.path = g.id, p.id
    uids = [s.uid for s in g.steps]
    path_cols = [uids.index(uid) for uid in p.steps]
    for threshold in THRESHOLDS:
        for i, u in enumerate(units):
            if u.key in res.aligned or not len(path_cols):
                continue
            j = max(path_cols, key=lambda c: C[i, c])
            if C[i, j] >= threshold:
                res.aligned[u.key] = uids[j]
    order = np.argsort(-C, axis=1, kind="stable") if len(units) else []
    for i, u in enumerate(units):
        ranking = [uids[j] for j in order[i]]
        if u.key in res.aligned:
            ranking.remove(res.aligned[u.key])
            ranking.insert(0, res.aligned[u.key])
        res.rankings[u.key] = ranking
    return res
