"""One patient's alignment: trajectory → candidate paths → (LLM rerank) → bootstrap → conformance.

Pure apart from the embedder (a cached model): reading and writing the graph is ``graphkit.align.job``.
"""

from __future__ import annotations

import datetime as dt

import numpy as np

from graphkit.align.bootstrap import bootstrap
from graphkit.align.conformance import condition_items, conformance
from graphkit.align.embed import TextEmbedder
from graphkit.align.model import AlignParams, Event, Guideline, PatientAlignment, PathScore
from graphkit.align.rerank import rerank
from graphkit.align.score import code_matrix, conflict_matrix, kind_matrix, pair_scores, score_paths, semantic_matrix, step_texts
from graphkit.align.trajectory import applicable_guidelines, build_profile, build_units

_EPOCH = dt.date(1970, 1, 1)


class Aligner:
    """Aligns patients to a fixed set of guideline editions with fixed parameters (one run)."""

    def __init__(self, guidelines: list[Guideline], embedder: TextEmbedder, params: AlignParams | None = None,
                 llm=None):
        self.guidelines = {g.id: g for g in guidelines}
        self.embedder = embedder
        self.params = params or AlignParams()
        self.llm = llm
        self._steps: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for g in guidelines:
            texts, owner = step_texts(g.steps)
            self._steps[g.id] = (embedder.encode(texts), owner)

    def matrix(self, g: Guideline, units, unit_vecs: np.ndarray) -> np.ndarray:
        """(units × steps) base scores for one guideline; ``unit_vecs``: the units' embeddings."""
        vecs, owner = self._steps[g.id]
        sem = semantic_matrix(unit_vecs, vecs, owner, len(g.steps), self.params.cos_floor)
        codes = code_matrix(units, g.steps, self.params)
        return pair_scores(sem, codes, kind_matrix(units, g.steps, self.params), g.steps,
                           conflict_matrix(units, g.steps, codes, self.params))

    def align(self, patient: str, events: list[Event], only: list[str] | None = None) -> PatientAlignment:
        """Align one patient. ``only``: score these guidelines whether or not the record names their
        condition (``--guideline``); otherwise the guidelines whose condition codes the record carries."""
        p = self.params
        result = PatientAlignment(patient=patient, status="aligned", n_events=len(events))
        if not events:
            result.status, result.reason = "no_events", "the patient has no events in the graph (ingest notes first)"
            return result
        result.profile = profile = build_profile(events)
        if only:
            candidates = [self.guidelines[g] for g in only if g in self.guidelines]
        else:
            candidates = [g for g, _ in applicable_guidelines(events, list(self.guidelines.values()))]
        if not candidates:
            cancer = sorted({c for e in events if e.kind == "Cancer" for c in e.codes})[:6]
            result.status = "no_guideline"
            result.reason = ("no loaded guideline applies: the record's cancer codes "
                             f"({', '.join(cancer) or 'none'}) match none of the guidelines' condition codes "
                             f"({', '.join(sorted(self.guidelines)) or 'none loaded'})")
            return result
        with_paths = [g for g in candidates if g.paths]
        if not with_paths:
            result.status = "no_paths"
            result.reason = f"guideline(s) {', '.join(g.id for g in candidates)} apply but have no feasible path"
            return result

        units = build_units(events, p.episode_gap_days)
        result.units = units
        dates = np.array([(u.first - _EPOCH).days if u.first else np.nan for u in units], dtype=np.float64)
        unit_vecs = self.embedder.encode([u.text for u in units])
        matrices = {g.id: self.matrix(g, units, unit_vecs) for g in with_paths}
        scored: list[PathScore] = []
        for g in with_paths:
            scored += score_paths(matrices[g.id], dates, g, profile, p)
        scored.sort(key=lambda s: (-round(s.score, 6), s.rank))
        top = [PathScore(**{**s.__dict__, "rank": r + 1}) for r, s in enumerate(scored[: p.top_n])]
        top, result.rerank = rerank(top, self.llm, self.guidelines, profile, units)
        result.paths = top
        best = top[0]
        g = self.guidelines[best.guideline]
        result.guideline, result.version = g.id, g.version
        path = next(x for x in g.paths if x.id == best.path)

        S = matrices[g.id]
        col = {s.uid: j for j, s in enumerate(g.steps)}
        path_cols = [col[uid] for uid in path.steps if g.steps[col[uid]].observable]
        positions = np.array([path.steps.index(g.steps[j].uid) for j in path_cols], dtype=np.float64)
        pairs, decisions, _ = bootstrap(S[:, path_cols], dates, positions, [u.key for u in units],
                                        [g.steps[j].uid for j in path_cols], p)
        result.pairs, result.decisions = pairs, decisions

        # per unit: the guideline's steps by score, its aligned step first (evaluation and reports)
        aligned = {pr.unit: pr.step for pr in pairs}
        uids = [s.uid for s in g.steps]
        best_step = {}
        if len(units):
            order = np.argsort(-S, axis=1, kind="stable")
            for i, u in enumerate(units):
                ranking = [uids[j] for j in order[i]]
                if u.key in aligned:
                    ranking.remove(aligned[u.key])
                    ranking.insert(0, aligned[u.key])
                result.rankings[u.key] = ranking
                best_step[u.key] = (uids[order[i][0]], float(S[i, order[i][0]]))
        result.conformance = conformance(g, path, units, pairs, best_step, p.theta, p.same_day_days)
        result.conformance += condition_items(path, profile)
        return result
