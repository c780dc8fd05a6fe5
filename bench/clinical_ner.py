"""General clinical mention extraction on clinician-written visit notes, against the hand-labelled gold set.

    python bench/clinical_ner.py [--split test|dev|all] [--errors 20]

Gold: ``bench/data/clinical_ner/clinical_ner_gold.jsonl`` — every problem, medication (generic and brand),
procedure and test in 20 ACI-Bench **valid** notes (the test split, set aside before any tuning) and in 10
ACI-Bench train notes + 40 MTS-Dialog train sections (dev). Note texts are read from ``../shared/data``.

Per kind: precision and recall with overlap matching (longest-span predictions; each gold and predicted
mention used once), exact-span figures beside them. Also ``common_words_as_disease``: predicted problem
mentions whose whole text is one common English word (wordfreq Zipf >= 5, e.g. "all", "well", "may") that
match no gold mention — graphkit must never code such a word as a disease. Graphkit kinds map to gold kinds
as Problem/Cancer→problem, Medication→medication, Procedure→procedure, Test/Biomarker→test.
Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import emit, log  # noqa: E402
from gold import load  # noqa: E402
from ner_eval import annotate, error_table, match, per_kind, predict  # noqa: E402

GOLD = Path(__file__).resolve().parent / "data" / "clinical_ner" / "clinical_ner_gold.jsonl"
KIND_MAP = {"Problem": "problem", "Cancer": "problem", "Medication": "medication", "Procedure": "procedure",
            "Test": "test", "Biomarker": "test"}
KINDS = ["problem", "medication", "procedure", "test"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--split", default="test", choices=["test", "dev", "all"])
    ap.add_argument("--errors", type=int, default=20)
    args = ap.parse_args()
    from wordfreq import zipf_frequency

    from ingest.nlp import build_pipeline

    notes = [n for n in load(GOLD, oncology=False) if args.split == "all" or n.split == args.split]
    log(f"{len(notes)} {args.split} notes, {sum(len(n.mentions) for n in notes)} gold mentions")
    nlp = build_pipeline()
    preds = predict(nlp, notes)
    results, common = [], []
    for n in notes:
        ps = preds[n.id]
        annotate(ps, KIND_MAP)
        pairs, fn, fp = match(n.mentions, ps, KIND_MAP)
        results.append((pairs, fn, fp))
        common += [p.text for p in fp if p._gold_kind == "problem" and " " not in p.text.strip()
                   and zipf_frequency(p.text.lower(), "en") >= 5.0]
    overlap = per_kind(results, KINDS)
    exact = per_kind(results, KINDS, exact=True)
    for k in KINDS:
        o, e = overlap[k], exact[k]
        log(f"{k:10s} P {o['precision']} R {o['recall']} (gold {o['gold']}, pred {o['pred']}) | exact P "
            f"{e['precision']} R {e['recall']}")
    log(f"common English words predicted as problems: {sorted(set(common))}")
    log("commonest errors:")
    for text, count in error_table(results, args.errors):
        log(f"  {count:3d}  {text}")
    emit({"split": args.split, "notes": len(notes),
          "per_kind": {k: {"precision": overlap[k]["precision"], "recall": overlap[k]["recall"],
                           "gold": overlap[k]["gold"], "pred": overlap[k]["pred"]} for k in KINDS},
          "exact_span": {k: {"precision": exact[k]["precision"], "recall": exact[k]["recall"]} for k in KINDS},
          "overlap": {k: {"precision": overlap[k]["precision"], "recall": overlap[k]["recall"]} for k in KINDS},
          "common_words_as_disease": len(common)})


if __name__ == "__main__":
    main()
