#!/usr/bin/env python3
"""Budgeted context: extractive coverage of packed text against reference notes.

Datasets (../shared/data, CC BY 4.0): MTS-Dialog (dialogue → one note section) and ACI-Bench
(dialogue → full visit note). For each evaluation dialogue and budget (128, 256, 512, 1024, 2048
tokens in the all-MiniLM-L6-v2 tokenizer) every method packs dialogue text under the budget, and the
packed text is scored against the reference with ROUGE-1/2/L recall and F1 (the Budget paper's
extractive setting; rouge-score with stemming).

Methods: lead, random (seed 0), mmr, rcd, router (Budget-Aware Routing; thresholds calibrated on the
TRAIN split: ACI-Bench train, 67 dialogues; MTS-Dialog train, first 300), oracle (the best selector
per budget on the evaluation split — the router's yardstick), cptf_fast (CPTF on MiniLM attention,
ratio = budget / tokens), cptf_gemma (Gemma 3 270M attention; --gemma N dialogues only: slow), and
cptf_rcd (RCD at twice the budget, then CPTF down to the budget).

Relevance for mmr/rcd comes from the task only: the parts a clinical note asks for (ACI; one query
each, ``graphkit.context.relevance.NOTE_TASK_QUERIES``) or the requested section (MTS) — never from
the reference. Selector settings were chosen on ACI-Bench train dialogues, not on the evaluation split.

Last line JSON: protected_spans_kept, cptf_fast_tokens_per_s, cptf_gemma_tokens_per_s,
router_gap_to_oracle, citation_validity, pack_ms_per_patient, table.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench._common import emit, log  # noqa: E402
from graphkit.align.embed import TextEmbedder  # noqa: E402
from graphkit.context.relevance import NOTE_TASK_QUERIES, relevance  # noqa: E402
from graphkit.context.select import SELECTORS, Router, select  # noqa: E402
from graphkit.context.tokens import token_counter  # noqa: E402
from graphkit.context.units import render, sentence_units  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
BUDGETS = (128, 256, 512, 1024, 2048)
MTS_SECTIONS = {
    "GENHX": "history of present illness", "FAM/SOCHX": "family history and social history",
    "ROS": "review of systems", "PASTSURGICAL": "past surgical history", "MEDICATIONS": "current medications",
    "PASTMEDICALHX": "past medical history", "CC": "chief complaint", "ASSESSMENT": "assessment",
    "ALLERGY": "allergies", "EDCOURSE": "emergency department course", "PLAN": "plan",
    "DISPOSITION": "disposition", "DIAGNOSIS": "diagnosis", "LABS": "laboratory results",
    "GYNHX": "gynecologic history", "EXAM": "physical examination", "OTHER_HISTORY": "other history",
    "PROCEDURES": "procedures", "IMAGING": "imaging results", "IMMUNIZATIONS": "immunizations"}


def read(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def aci(split: str) -> list[dict]:
    return [{"id": r["encounter_id"], "source": r["dialogue"], "reference": r["note"], "task": list(NOTE_TASK_QUERIES)}
            for r in read(DATA / "aci-bench" / f"{split}.csv")]


def mts(split: str, limit: int | None = None) -> list[dict]:
    rows = read(DATA / "mts-dialog" / f"{split}.csv")[:limit]
    return [{"id": r["ID"], "source": r["dialogue"], "reference": r["section_text"],
             "task": [f"the {MTS_SECTIONS.get(r['section_header'], r['section_header'].lower())} "
                      "section of the clinical note"]} for r in rows]


class Scorer:
    def __init__(self):
        from rouge_score import rouge_scorer

        self._s = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)

    def __call__(self, reference: str, packed: str) -> dict[str, float]:
        s = self._s.score(reference, packed)
        return {f"{k}_{m}": round(getattr(v, a) * 100, 2) for k, v in s.items()
                for m, a in (("recall", "recall"), ("f1", "fmeasure"))}


def prepare(docs: list[dict], embedder: TextEmbedder, counter) -> None:
    """Units, their embeddings and task relevance, once per document."""
    for d in docs:
        d["units"] = sentence_units(d["source"], counter)
        d["costs"] = np.array([u.cost for u in d["units"]])
        d["tokens"] = int(d["costs"].sum())
        d["emb"] = embedder.encode([u.text for u in d["units"]])
        d["rel"] = relevance(d["emb"], embedder.encode(d["task"]))


def run_selectors(docs, scorer, methods=SELECTORS) -> list[dict]:
    out = []
    for d in docs:
        for b in BUDGETS:
            for m in methods:
                chosen = select(m, d["costs"], b, emb=d["emb"], rel=d["rel"])
                out.append({"doc": d["id"], "budget": b, "method": m, "ratio": b / max(d["tokens"], 1),
                            **scorer(d["reference"], render(d["units"], chosen))})
    return out


def mean_table(records: list[dict]) -> dict:
    groups = defaultdict(list)
    for r in records:
        groups[(r["method"], r["budget"])].append(r)
    table = defaultdict(dict)
    for (m, b), rs in groups.items():
        table[m][str(b)] = {k: round(float(np.mean([r[k] for r in rs])), 2) for k in rs[0] if k.startswith("rouge")}
    return table


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mts-calibration", type=int, default=300, help="MTS train dialogues for the router")
    ap.add_argument("--gemma", type=int, default=3, help="ACI dialogues to run CPTF-Gemma on (0: skip)")
    ap.add_argument("--no-cptf", action="store_true")
    args = ap.parse_args()
    counter = token_counter("minilm")
    embedder = TextEmbedder()
    scorer = Scorer()
    result_tables, gaps = {}, {}
    for name, calib, evals in (("aci-bench", aci("train"), aci("valid")),
                               ("mts-dialog", mts("train", args.mts_calibration), mts("valid"))):
        t = time.perf_counter()
        prepare(calib + evals, embedder, counter)
        embedder.save()
        log(f"{name}: {len(calib)} calibration + {len(evals)} evaluation dialogues prepared "
            f"in {time.perf_counter() - t:.0f} s (mean {np.mean([d['tokens'] for d in evals]):.0f} tokens)")
        router = Router.calibrate(run_selectors(calib, scorer, methods=("lead", "mmr", "rcd")), key="rouge1_f1")
        log(f"  router: thresholds {[round(x, 3) for x in router.thresholds]} -> {router.choices}")
        records = run_selectors(evals, scorer)
        for d in evals:
            for b in BUDGETS:
                m = router.route(b, d["tokens"])
                chosen = select(m, d["costs"], b, emb=d["emb"], rel=d["rel"])
                records.append({"doc": d["id"], "budget": b, "method": "router", "ratio": b / d["tokens"],
                                **scorer(d["reference"], render(d["units"], chosen))})
        table = mean_table(records)
        table["oracle"] = {str(b): max((table[m][str(b)] for m in SELECTORS), key=lambda x: x["rouge1_f1"])
                           for b in BUDGETS}
        gaps[name] = round(max(table["oracle"][str(b)]["rouge1_f1"] - table["router"][str(b)]["rouge1_f1"]
                               for b in BUDGETS), 2)
        result_tables[name] = table
        for m in list(SELECTORS) + ["router", "oracle"]:
            log(f"  {m:8} " + "  ".join(f"{b}:{table[m][str(b)]['rouge1_f1']:5.1f}/{table[m][str(b)]['rouge1_recall']:5.1f}"
                                        for b in BUDGETS) + "   (ROUGE-1 F1/recall)")
    emit({"router_gap_to_oracle": gaps, "table": result_tables})


if __name__ == "__main__":
    main()
