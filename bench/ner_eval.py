"""Shared evaluation of graphkit's mentions against a gold set (``bench/gold.py``): the in-memory
ingestion steps up to the graph rows, overlap and exact-span matching per kind, value and code checks.

A prediction and a gold mention match when they overlap and map to the same gold kind; each is used
once (largest overlap first). Exact-span figures count only identical offsets.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from ingest.job import process_notes
from ingest.model import Note


@dataclass
class Pred:
    start: int
    end: int
    text: str
    kind: str  # graphkit kind
    assertion: str
    values: tuple[str, ...] = ()
    value: str | None = None
    detail: dict = field(default_factory=dict)
    codes: tuple[str, ...] = ()  # "system|code"
    flags: tuple[str, ...] = ()


def predict(nlp, notes: list) -> dict[str, list[Pred]]:
    """Mentions graphkit extracts from each gold note's text, in original-text offsets."""
    # the note's own date where the gold gives one (oncology notes): dated tests and treatments are read
    # against it; else a fixed day
    recs = [Note(patient="gold", encounter=f"e-{n.id}", id=n.id, type=n.meta.get("note_type") or "Note",
                 authored_at=datetime.fromisoformat(n.meta["date"]) if n.meta.get("date") else datetime(2024, 1, 1),
                 text=n.text) for n in notes]
    out: dict[str, list[Pred]] = {}
    batch = 16
    for i in range(0, len(recs), batch):
        part = recs[i:i + batch]
        graphs = process_notes(nlp, part, {r.encounter: datetime(2024, 1, 1) for r in part})
        for r, g in zip(part, graphs):
            starts = {s["id"]: s["start"] for s in g.sentences}
            codes = defaultdict(list)
            for link in g.instance_of:
                codes[link["event"]].append(f"{link['system']}|{link['code']}")
            ev_by_id = {e["id"]: e for e in g.events}
            preds = []
            for ev in g.evidence:
                e = ev_by_id[ev["event"]]
                a = starts[ev["sentence"]] + ev["start"]
                b = starts[ev["sentence"]] + ev["end"]
                preds.append(Pred(a, b, r.text[a:b], e["kind"], e["assertion"], tuple(e.get("values") or ()),
                                  e.get("value"), json.loads(e["detail"]) if e.get("detail") else {},
                                  tuple(codes[e["id"]]), tuple(e.get("flags") or ())))
            out[r.id] = preds
    return out


def match(gold: list, preds: list[Pred], kind_map: dict[str, str]) -> tuple[list[tuple], list, list[Pred]]:
    """(matched (gold, pred) pairs, unmatched gold, unmatched preds) by overlap within the same gold kind."""
    cands = []
    for gi, g in enumerate(gold):
        for pi, p in enumerate(preds):
            if kind_map.get(p.kind) == g.kind and p.start < g.end and g.start < p.end:
                overlap = min(p.end, g.end) - max(p.start, g.start)
                cands.append((-overlap, abs(p.start - g.start) + abs(p.end - g.end), gi, pi))
    used_g, used_p, pairs = set(), set(), []
    for _, _, gi, pi in sorted(cands):
        if gi in used_g or pi in used_p:
            continue
        used_g.add(gi)
        used_p.add(pi)
        pairs.append((gold[gi], preds[pi]))
    return pairs, [g for i, g in enumerate(gold) if i not in used_g], \
        [p for i, p in enumerate(preds) if i not in used_p and p.kind in kind_map]


def prf(tp: int, gold: int, pred: int) -> dict:
    p = tp / pred if pred else None
    r = tp / gold if gold else None
    f = 2 * p * r / (p + r) if p and r else (0.0 if p is not None and r is not None else None)
    return {"precision": round(p, 4) if p is not None else None, "recall": round(r, 4) if r is not None else None,
            "f1": round(f, 4) if f is not None else None, "gold": gold, "pred": pred, "tp": tp}


def per_kind(results: list[tuple[list, list, list]], kinds: list[str], exact: bool = False) -> dict:
    """Precision and recall per gold kind; ``exact``: a match counts only with identical offsets."""
    out = {}
    for k in kinds:
        matched = [(g, p) for pairs, _, _ in results for g, p in pairs if g.kind == k]
        tp = sum(1 for g, p in matched if not exact or (g.start, g.end) == (p.start, p.end))
        gold = len(matched) + sum(1 for _, fn, _ in results for g in fn if g.kind == k)
        pred = len(matched) + sum(1 for _, _, fp in results for p in fp if p._gold_kind == k)
        out[k] = prf(tp, gold, pred)
    return out


def annotate(preds: list[Pred], kind_map: dict[str, str]) -> None:
    for p in preds:
        p._gold_kind = kind_map.get(p.kind)


def error_table(results, limit: int = 20) -> list[tuple[str, int]]:
    """The commonest errors: missed gold mentions and spurious predictions, by kind and lower-cased text."""
    errors = Counter()
    for pairs, fn, fp in results:
        for g in fn:
            errors[f"missed {g.kind}: {g.text.lower()[:40]}"] += 1
        for p in fp:
            errors[f"spurious {p._gold_kind} ({p.kind}): {p.text.lower()[:40]}"] += 1
        for g, p in pairs:
            if g.assertion != p.assertion and not (g.assertion == "planned" and p.assertion == "present"):
                errors[f"assertion {g.kind}: gold {g.assertion} → {p.assertion}"] += 1
    return errors.most_common(limit)
