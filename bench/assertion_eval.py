"""Assertion classification (present / negated / possible / historical / family) of graphkit's pipeline,
on gold mention spans, against a naive cue-word baseline.

    .venv/bin/python bench/assertion_eval.py [--gold bench/data/assertion/assertion_gold.jsonl] [--errors 20]

What it measures
----------------
Only the ASSERTION component, not entity recognition: every gold item (one sentence from an ACI-Bench
or MTS-Dialog note, one annotated mention span, its kind and its assertion; see
``bench/data/assertion/ANNOTATION_GUIDELINE.md``) is given to graphkit's own pipeline
(``ingest.nlp.build_pipeline()``) with the gold span as the doc's ONLY entity:

1. ``doc = nlp.make_doc(sentence)`` (graphkit's tokenizer);
2. ``doc.ents = [doc.char_span(start, end, label=Kind)]`` — Kind is the gold kind in the pipeline's
   spelling (Problem, Procedure, Medication, Test); a span that does not fall on token boundaries is
   widened to the enclosing tokens (counted as ``misaligned``);
3. every pipeline component except the target matcher runs, in ``nlp.pipe_names`` order — the
   one-sentence marker ``graphkit_one_sentence`` and ConText ``medspacy_context``;
4. the entity's ConText attributes become a class through ``ingest.nlp.assertion.assertion_of(ent,
   kind, (), section=None)``, exactly the mapping ``extract_mentions`` uses (no section context and no
   codes are given: the gold sentences come without graphkit section names). graphkit's ``planned``
   counts as ``present``, as this guideline labels ordered and planned care (R9).

The baseline, scored in the same run on the same items, is a naive cue rule (whole words,
case-insensitive): ``negated`` if no / denies / without / negative / not occurs in the sentence BEFORE
the mention; else ``family`` if mother / father / sister / brother / family occurs anywhere in the
sentence; else ``historical`` if history / previous / prior / s/p does; else ``possible`` if
possible / may / if / rule out / likely does; else ``present``.

Reported: per class precision, recall, F1 and support; accuracy; macro F1 (unweighted mean of the
five class F1s); the confusion matrix (gold rows × predicted columns); and, on stderr, the most
instructive errors of graphkit's pipeline (one per confusion type in turn, most frequent confusion
first, preferring items the naive baseline gets right), each with ConText's cue and the annotator's.
The gold set is CC BY 4.0 public data (no PHI), so sentences are printed.

stdout: one JSON line with negation_f1, historical_f1, family_f1, possible_f1, present_f1, accuracy,
macro_f1, n, per_class, confusion, and baseline {the same keys}.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

from _common import clip, emit, log, ratio

from ingest.nlp import build_pipeline
from ingest.nlp.assertion import assertion_of

REPO = Path(__file__).resolve().parents[1]
CLASSES = ("present", "negated", "possible", "historical", "family")
JSON_KEY = {"negated": "negation_f1", "historical": "historical_f1", "family": "family_f1",
            "possible": "possible_f1", "present": "present_f1"}
KIND = {"problem": "Problem", "procedure": "Procedure", "medication": "Medication", "test": "Test"}
TARGET_MATCHER = "medspacy_target_matcher"


def _words(*cues: str) -> re.Pattern:
    return re.compile(r"(?<![\w/])(?:" + "|".join(re.escape(c) for c in cues) + r")(?![\w/])", re.I)


NAIVE_NEGATION = _words("no", "denies", "without", "negative", "not")
NAIVE_FAMILY = _words("mother", "father", "sister", "brother", "family")
NAIVE_HISTORICAL = _words("history", "previous", "prior", "s/p")
NAIVE_POSSIBLE = _words("possible", "may", "if", "rule out", "likely")


def naive(item: dict) -> str:
    sentence, start = item["sentence"], item["start"]
    if NAIVE_NEGATION.search(sentence[:start]):
        return "negated"
    for label, pattern in (("family", NAIVE_FAMILY), ("historical", NAIVE_HISTORICAL), ("possible", NAIVE_POSSIBLE)):
        if pattern.search(sentence):
            return label
    return "present"


def graphkit_assertions(nlp, items: list[dict]) -> tuple[list[tuple[str, str | None]], int]:
    """(class, ConText cue) per item, and how many gold spans had to be widened to token boundaries."""
    components = [(name, proc) for name, proc in nlp.pipeline if name != TARGET_MATCHER]
    out, misaligned = [], 0
    for item in items:
        doc = nlp.make_doc(item["sentence"])
        label = KIND.get(item["kind"], item["kind"].title())
        span = doc.char_span(item["start"], item["end"], label=label)
        if span is None:
            misaligned += 1
            span = doc.char_span(item["start"], item["end"], label=label, alignment_mode="expand")
        doc.ents = [span]
        for _, proc in components:
            doc = proc(doc)
        got, cue = assertion_of(doc.ents[0], label, (), None)
        out.append(("present" if got == "planned" else got, cue))
    return out, misaligned


def metrics(gold: list[str], pred: list[str]) -> dict:
    confusion = {g: {p: 0 for p in CLASSES} for g in CLASSES}
    for g, p in zip(gold, pred):
        confusion[g][p] += 1
    per_class = {}
    for c in CLASSES:
        tp = confusion[c][c]
        predicted = sum(confusion[g][c] for g in CLASSES)
        support = sum(confusion[c].values())
        p, r = ratio(tp, predicted), ratio(tp, support)
        f1 = round(2 * p * r / (p + r), 4) if p and r else 0.0
        per_class[c] = {"precision": p, "recall": r, "f1": f1, "support": support, "predicted": predicted}
    out = {JSON_KEY[c]: per_class[c]["f1"] for c in CLASSES}
    out.update({"accuracy": ratio(sum(confusion[c][c] for c in CLASSES), len(gold)),
                "macro_f1": round(sum(per_class[c]["f1"] for c in CLASSES) / len(CLASSES), 4),
                "n": len(gold), "per_class": per_class, "confusion": confusion})
    return out


def show(name: str, m: dict) -> None:
    log(f"{name}: accuracy {m['accuracy']}  macro F1 {m['macro_f1']}  (n={m['n']})")
    log(f"  {'class':11s} {'P':>6s} {'R':>6s} {'F1':>6s} {'support':>8s} {'pred':>6s}")
    for c in CLASSES:
        pc = m["per_class"][c]
        log(f"  {c:11s} {pc['precision'] or 0:6.3f} {pc['recall'] or 0:6.3f} {pc['f1']:6.3f} {pc['support']:8d} "
            f"{pc['predicted']:6d}")
    log("  confusion (rows gold, columns predicted): " + " ".join(f"{c[:4]:>5s}" for c in CLASSES))
    for g in CLASSES:
        log(f"  {g:>41s}: " + " ".join(f"{m['confusion'][g][p]:5d}" for p in CLASSES))


def instructive_errors(items, ours, base, k: int) -> list[int]:
    """Indices of k errors: round-robin over confusion types (most frequent first), baseline-right first."""
    by_type: dict[tuple, list[int]] = defaultdict(list)
    for i, (item, (pred, _)) in enumerate(zip(items, ours)):
        if pred != item["assertion"]:
            by_type[(item["assertion"], pred)].append(i)
    for idx in by_type.values():
        idx.sort(key=lambda i: (base[i] != items[i]["assertion"], len(items[i]["sentence"])))
    types = sorted(by_type, key=lambda t: -len(by_type[t]))
    picked, depth = [], 0
    while len(picked) < k and any(len(by_type[t]) > depth for t in types):
        picked.extend(by_type[t][depth] for t in types if len(by_type[t]) > depth)
        depth += 1
    return picked[:k]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gold", type=Path, default=REPO / "bench" / "data" / "assertion" / "assertion_gold.jsonl")
    ap.add_argument("--errors", type=int, default=20, help="how many instructive errors to print on stderr")
    args = ap.parse_args()

    items = [json.loads(line) for line in args.gold.read_text(encoding="utf-8").splitlines() if line.strip()]
    bad = [it["id"] for it in items if it["sentence"][it["start"]:it["end"]] != it["mention"]]
    if bad:
        raise SystemExit(f"gold spans do not match their mention text: {bad[:5]}")
    log(f"{len(items)} gold items; classes {dict(Counter(it['assertion'] for it in items))}; "
        f"kinds {dict(Counter(it['kind'] for it in items))}")
    nlp = build_pipeline()
    log(f"pipeline {nlp.pipe_names}; running every component except {TARGET_MATCHER} on the gold span")
    ours, misaligned = graphkit_assertions(nlp, items)
    base = [naive(it) for it in items]
    gold = [it["assertion"] for it in items]
    if misaligned:
        log(f"{misaligned} gold spans did not fall on token boundaries (widened to the enclosing tokens)")

    result = metrics(gold, [p for p, _ in ours])
    baseline = metrics(gold, base)
    show("graphkit (ConText)", result)
    show("naive cue baseline", baseline)
    textual = [i for i, it in enumerate(items) if not str(it.get("cue") or "").startswith(("section:", "context:"))]
    log(f"accuracy on the {len(textual)} items whose label needs no section header or previous sentence: "
        f"graphkit {ratio(sum(ours[i][0] == gold[i] for i in textual), len(textual))}, "
        f"baseline {ratio(sum(base[i] == gold[i] for i in textual), len(textual))}")

    log(f"{args.errors} instructive errors of graphkit (gold → predicted; ConText cue | annotator cue | baseline):")
    for i in instructive_errors(items, ours, base, args.errors):
        it, (pred, cue) = items[i], ours[i]
        log(f"  {it['id']:18s} {it['assertion']:>10s} → {pred:10s} cue={cue!r} | gold cue={it.get('cue')!r} | "
            f"baseline={base[i]}")
        log(f"      {clip(it['sentence'], it['start'], it['end'])}")

    result["misaligned_spans"] = misaligned
    result["baseline"] = baseline
    emit(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
