"""Evaluation of budgeted context: extractive coverage (ROUGE) of packed dialogue text against the
reference notes of MTS-Dialog and ACI-Bench, for every selector, the router, and CPTF.

Used by ``graphkit eval context`` and ``bench/context_eval.py``. Reads the datasets' CSV files only.
"""

from __future__ import annotations

import csv
import functools
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Callable

import numpy as np

from graphkit.context.cptf import CPTF
from graphkit.context.relevance import NOTE_TASK_QUERIES, relevance
from graphkit.context.select import SELECTORS, Router, select
from graphkit.context.tokens import token_counter
from graphkit.context.units import render, section_units, sentence_units
from graphkit.errors import BadInputError

BUDGETS = (128, 256, 512, 1024, 2048)
MTS_SECTIONS = {
    "GENHX": "history of present illness", "FAM/SOCHX": "family history and social history",
    "ROS": "review of systems", "PASTSURGICAL": "past surgical history", "MEDICATIONS": "current medications",
    "PASTMEDICALHX": "past medical history", "CC": "chief complaint", "ASSESSMENT": "assessment",
    "ALLERGY": "allergies", "EDCOURSE": "emergency department course", "PLAN": "plan",
    "DISPOSITION": "disposition", "DIAGNOSIS": "diagnosis", "LABS": "laboratory results",
    "GYNHX": "gynecologic history", "EXAM": "physical examination", "OTHER_HISTORY": "other history",
    "PROCEDURES": "procedures", "IMAGING": "imaging results", "IMMUNIZATIONS": "immunizations"}


def _read(path: Path) -> list[dict]:
    if not path.exists():
        raise BadInputError(f"{path} not found", fix="pass --data DIR holding aci-bench/ and mts-dialog/")
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def load_aci(data: Path, split: str) -> list[dict]:
    """ACI-Bench: the task is the whole visit note (selection queries: its parts; CPTF: the default
    instruction)."""
    return [{"id": r["encounter_id"], "source": r["dialogue"], "reference": r["note"], "task": list(NOTE_TASK_QUERIES),
             "instruction": None} for r in _read(data / "aci-bench" / f"{split}.csv")]


def load_mts(data: Path, split: str, limit: int | None = None) -> list[dict]:
    """MTS-Dialog: the task is one named section of the note."""
    rows = _read(data / "mts-dialog" / f"{split}.csv")[:limit]
    out = []
    for r in rows:
        section = f"the {MTS_SECTIONS.get(r['section_header'], r['section_header'].lower())} section of the clinical note"
        out.append({"id": r["ID"], "source": r["dialogue"], "reference": r["section_text"], "task": [section],
                    "instruction": f"The doctor now writes {section} for this visit."})
    return out


class Rouge:
    """ROUGE-1/2/L recall and F1 in points (rouge-score, Porter stemming)."""

    def __init__(self):
        from rouge_score import rouge_scorer

        self._s = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)

    def __call__(self, reference: str, packed: str) -> dict[str, float]:
        s = self._s.score(reference, packed)
        return {f"{k}_{m}": round(getattr(v, a) * 100, 2) for k, v in s.items()
                for m, a in (("recall", "recall"), ("f1", "fmeasure"))}


def prepare(docs: list[dict], embedder, counter) -> None:
    """Units, embeddings and task relevance, once per document."""
    for d in docs:
        d["units"] = sentence_units(d["source"], counter)
        d["costs"] = np.array([u.cost for u in d["units"]])
        d["tokens"] = int(d["costs"].sum())
        d["emb"] = embedder.encode([u.text for u in d["units"]])
        d["rel"] = relevance(d["emb"], embedder.encode(d["task"]))
        d["sections"] = section_units(d["units"], counter)
        d["s_costs"] = np.array([u.cost for u in d["sections"]])
        d["s_emb"] = embedder.encode([u.text for u in d["sections"]])
        d["s_rel"] = relevance(d["s_emb"], embedder.encode(d["task"]))


def selector_records(docs, rouge, methods=SELECTORS, budgets=BUDGETS) -> list[dict]:
    out = []
    for d in docs:
        for b in budgets:
            for m in methods:
                chosen = select(m, d["costs"], b, emb=d["emb"], rel=d["rel"])
                out.append({"doc": d["id"], "budget": b, "method": m, "ratio": b / max(d["tokens"], 1),
                            **rouge(d["reference"], render(d["units"], chosen))})
    return out


def mean_table(records: list[dict]) -> dict:
    groups = defaultdict(list)
    for r in records:
        groups[(r["method"], r["budget"])].append(r)
    table: dict = defaultdict(dict)
    for (m, b), rs in groups.items():
        table[m][str(b)] = {k: round(float(np.mean([r[k] for r in rs])), 2) for k in rs[0] if k.startswith("rouge")}
        table[m][str(b)]["n"] = len(rs)
    return dict(table)


def cptf_records(docs, rouge, cptf, counter, name: str, budgets=BUDGETS, with_selection: bool = False,
                 stats: dict | None = None) -> list[dict]:
    """CPTF down to each budget (ratio = budget / tokens); with_selection: RCD at twice the budget
    first. Scores are computed once per text and task (cached) and re-thresholded per budget; in
    task mode the document's instruction (its note section, or the whole note) is the task."""
    if not hasattr(cptf.token_scores, "cache_info"):
        cptf.token_scores = functools.lru_cache(maxsize=256)(cptf.token_scores)
    out = []
    for d in docs:
        task = d.get("instruction")
        t = time.perf_counter()
        cptf.token_scores(d["source"], task)  # the cache key filter() uses
        if stats is not None:
            stats["seconds"] = stats.get("seconds", 0.0) + time.perf_counter() - t
            stats["tokens"] = stats.get("tokens", 0) + cptf.count_tokens(d["source"])
        for b in budgets:
            if with_selection:
                chosen = select("rcd", d["costs"], min(2 * b, d["tokens"]), emb=d["emb"], rel=d["rel"])
                text = render(d["units"], chosen)
            else:
                text = d["source"]
            n = counter.count(text)
            packed = text if n <= b else cptf.filter(text, ratio=b / n, task=task).text
            out.append({"doc": d["id"], "budget": b, "method": name, "ratio": b / max(d["tokens"], 1),
                        "tokens_out": counter.count(packed), **rouge(d["reference"], packed)})
    return out


def protected_retention(docs, cptf, ratio: float = 0.5) -> float:
    """Share of protected words kept by CPTF at ``ratio`` over the documents (target: 1.0)."""
    total = kept = 0
    for d in docs:
        r = cptf.filter(d["source"], ratio=ratio, task=d.get("instruction"))
        total += r.protected_total
        kept += r.protected_kept
    return kept / total if total else 1.0


def evaluate_context(data: Path, embedder, budgets=BUDGETS, mts_calibration: int = 300, cptf_fast=None,
                     cptf_gemma=None, gemma_docs: int = 20, ablations: bool = False,
                     log: Callable[[str], None] = lambda m: None) -> dict:
    """The whole evaluation; returns tables per dataset, router gaps, protected-span retention and
    CPTF throughput. Router thresholds are calibrated on the TRAIN splits (ACI-Bench train, the
    first ``mts_calibration`` MTS-Dialog train dialogues) and applied to the valid splits.

    Rows: the selectors, ``router``, ``oracle`` (best selector per budget), ``mmr_section`` (MMR over
    turns/sections), ``cptf_fast`` (``cptf_fast``'s config, MiniLM), ``cptf_rcd`` (RCD at twice the
    budget, then ``cptf_fast``), ``cptf_gemma`` (ACI-Bench, first ``gemma_docs`` dialogues). With
    ``ablations``, the same CPTF models in the other importance mode, on ACI-Bench
    (``cptf_fast_received`` / ``cptf_fast_task``, ``cptf_gemma_...``).
    """
    counter = token_counter("minilm")
    rouge = Rouge()
    out: dict = {"tables": {}, "router_gap_to_oracle": {}, "router": {}, "cptf": {}}
    speed: dict[str, dict] = {"fast": {}, "gemma": {}}
    retention = []
    for label, c in (("cptf_fast", cptf_fast), ("cptf_gemma", cptf_gemma)):
        if c is not None:
            out["cptf"][label] = {"model": c.config.model, "importance": c.config.importance}

    def other_mode(c: CPTF) -> tuple[str, CPTF]:
        mode = "received" if c.config.importance == "task" else "task"
        return mode, CPTF(replace(c.config, importance=mode))

    for name, calib, evals in (("aci-bench", load_aci(data, "train"), load_aci(data, "valid")),
                               ("mts-dialog", load_mts(data, "train", mts_calibration), load_mts(data, "valid"))):
        t = time.perf_counter()
        prepare(calib + evals, embedder, counter)
        log(f"{name}: {len(calib)} calibration + {len(evals)} evaluation dialogues prepared in "
            f"{time.perf_counter() - t:.0f} s (mean {np.mean([d['tokens'] for d in evals]):.0f} tokens)")
        router = Router.calibrate(selector_records(calib, rouge, ("lead", "mmr", "rcd"), budgets), key="rouge1_f1")
        out["router"][name] = {"thresholds": [round(x, 4) for x in router.thresholds], "choices": router.choices,
                               "calibration": "train split"}
        records = selector_records(evals, rouge, SELECTORS, budgets)
        for d in evals:
            for b in budgets:
                chosen = select(router.route(b, d["tokens"]), d["costs"], b, emb=d["emb"], rel=d["rel"])
                records.append({"doc": d["id"], "budget": b, "method": "router", "ratio": b / d["tokens"],
                                **rouge(d["reference"], render(d["units"], chosen))})
        for d in evals:  # the same selector over whole turns / sections instead of sentences
            for b in budgets:
                chosen = select("mmr", d["s_costs"], b, emb=d["s_emb"], rel=d["s_rel"])
                records.append({"doc": d["id"], "budget": b, "method": "mmr_section", "ratio": b / d["tokens"],
                                **rouge(d["reference"], render(d["sections"], chosen))})
        if cptf_fast is not None:
            records += cptf_records(evals, rouge, cptf_fast, counter, "cptf_fast", budgets, stats=speed["fast"])
            records += cptf_records(evals, rouge, cptf_fast, counter, "cptf_rcd", budgets, with_selection=True)
            retention.append(protected_retention(evals, cptf_fast))
            if ablations and name == "aci-bench":
                mode, alt = other_mode(cptf_fast)
                records += cptf_records(evals, rouge, alt, counter, f"cptf_fast_{mode}", budgets)
        if cptf_gemma is not None and gemma_docs and name == "aci-bench":
            docs = evals[:gemma_docs]
            records += cptf_records(docs, rouge, cptf_gemma, counter, "cptf_gemma", budgets, stats=speed["gemma"])
            if ablations:
                mode, alt = other_mode(cptf_gemma)
                records += cptf_records(docs, rouge, alt, counter, f"cptf_gemma_{mode}", budgets)
        table = mean_table(records)
        table["oracle"] = {str(b): max((table[m][str(b)] for m in SELECTORS), key=lambda x: x["rouge1_f1"])
                           for b in budgets}
        out["router_gap_to_oracle"][name] = round(max(table["oracle"][str(b)]["rouge1_f1"]
                                                      - table["router"][str(b)]["rouge1_f1"] for b in budgets), 2)
        out["tables"][name] = table
        for m in [k for k in table if k != "oracle"] + ["oracle"]:
            log(f"  {m:20} " + "  ".join(f"{b}:{table[m][str(b)]['rouge1_f1']:5.1f}" for b in budgets)
                + "   (ROUGE-1 F1)")
    out["protected_spans_kept"] = round(float(np.mean(retention)), 4) if retention else None
    for key, st in (("cptf_fast_tokens_per_s", speed["fast"]), ("cptf_gemma_tokens_per_s", speed["gemma"])):
        out[key] = round(st["tokens"] / st["seconds"], 1) if st.get("seconds") else None
    return out
