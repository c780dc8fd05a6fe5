#!/usr/bin/env python3
"""Alignment quality on the demo cohort: graphkit's aligner against the CliCARE-code baseline.

Gold alignments come from the structured FHIR resources only (``bench/data/align/gold_steps.yaml``):
which guideline step each coded procedure / medication / test / condition realizes, and which path
the patient followed (the feasible paths covering the most gold steps with the fewest steps the
record never shows; ties kept as a set, broken by the structured stage). Notes, embeddings and the
aligner play no part in it.

Metrics, for both systems, on the same input (units, step texts, embeddings):

- path_top1: the top path is in the patient's gold path set;
- step precision / recall / F1 (micro over patients): steps the system marks done vs gold steps;
- hits1 / mrr: for each gold-mapped FHIR event, whether the system aligned it to its gold step /
  the reciprocal rank of the gold step in the system's ranking for that event (its aligned step
  first, then the rest by score);
- abstention_precision: of the FHIR events the system left unaligned, the share with no gold step.

Ablations (graphkit only): ``semantic_only`` ignores codes (meaning alone); ``notes_only`` withholds
the structured facts, so the aligner sees only what the notes say (path and step metrics only: the
gold events are the withheld facts).

Needs the demo graph: run ``graphkit demo`` first (or point NEO4J_URI at a server that has it).
Usage: python bench/align_eval.py [--details]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench._common import emit, log, ratio  # noqa: E402
from graphkit.align.aligner import Aligner  # noqa: E402
from graphkit.align.baseline import clicare_align  # noqa: E402
from graphkit.align.embed import TextEmbedder  # noqa: E402
from graphkit.align.job import load_guidelines, load_trajectories  # noqa: E402
from graphkit.align.model import AlignParams, Event, Guideline  # noqa: E402
from graphkit.guidelines.spec import stage_rank  # noqa: E402
from graphkit.reason.eligibility import evaluate  # noqa: E402
from graphkit.reason.job import load_guideline_specs, reason_about  # noqa: E402
from graphkit.state.build import build_state  # noqa: E402
from graphkit.state.io import load_facts  # noqa: E402
from graphkit.store import GraphStore  # noqa: E402

HERE = Path(__file__).resolve().parent
GOLD = HERE / "data" / "align" / "gold_steps.yaml"
MANIFEST = HERE.parent / "ingest" / "demo" / "cohort" / "MANIFEST.json"
ARM_GUIDELINE = {"breast": "breast-early", "lung": "nsclc", "colorectal": "colorectal"}


def gold_for_patient(events: list[Event], g: Guideline, spec: dict, stage: str | None,
                     eligible: set[str] | None = None):
    """(event id -> gold step uid) for the structured facts, and the gold path set: among the paths
    whose biomarker and stage conditions the STRUCTURED record satisfies (``eligible``; all paths
    when none is), those covering the most gold steps with the fewest steps the record never shows."""
    uid = {s.id: s.uid for s in g.steps}
    code_step = {c: step for step, codes in spec.get("steps", {}).items() for c in codes}
    facts = [e for e in events if (e.source or "").startswith("fhir:") and e.assertion == "present"]
    gold: dict[str, str] = {}
    first: dict[str, object] = {}
    for e in sorted(facts, key=lambda e: (e.valid_time is None, e.valid_time)):
        step = next((code_step[c] for c in e.codes if c in code_step), None)
        if step:
            gold[e.id] = uid[step]
            if e.valid_time and step not in first:
                first[step] = e.valid_time
    for rule in spec.get("timed", []):
        anchor = min((first[a] for a in rule["anchor"] if a in first), default=None)
        for e in facts:
            if any(c in rule["codes"] for c in e.codes):
                if anchor is None:
                    step = rule.get("none", rule["after"])
                else:
                    step = rule["before"] if e.valid_time and e.valid_time < anchor else rule["after"]
                if step:
                    gold[e.id] = uid[step]
    steps = set(gold.values())
    observable = {s.uid for s in g.steps if s.kind != "Decision" or s.codes}

    def fits_stage(p) -> bool:
        if not stage:
            return True
        r = stage_rank(stage)
        lo = stage_rank(p.stage_min) if p.stage_min else -1
        hi = stage_rank(p.stage_max, upper=True) if p.stage_max else 99
        return lo <= r <= hi

    candidates = [p for p in g.paths if not eligible or p.id in eligible]
    keyed = [((len(steps & set(p.steps)), -len((set(p.steps) & observable) - steps), fits_stage(p)), p.id)
             for p in candidates]
    best_cov = max(k[0][0] for k in keyed)
    best_extra = max(k[0][1] for k in keyed if k[0][0] == best_cov)
    tied = [(k, pid) for k, pid in keyed if k[0] == best_cov and k[1] == best_extra]
    if any(k[2] for k, _ in tied):
        tied = [(k, pid) for k, pid in tied if k[2]]
    return gold, steps, {pid for _, pid in tied}


def metrics(per_patient: list[dict]) -> dict:
    tp = fp = fn = 0
    top1 = hits = rr = n_gold = abst = abst_ok = 0
    for r in per_patient:
        pred, gold = r["pred_steps"], r["gold_steps"]
        tp += len(pred & gold)
        fp += len(pred - gold)
        fn += len(gold - pred)
        top1 += r["path"] in r["gold_paths"]
        for ev, g in r["gold_events"].items():
            n_gold += 1
            ranking = r["ranking"].get(ev, [])
            hits += r["aligned"].get(ev) == g
            rr += 1.0 / (ranking.index(g) + 1) if g in ranking else 0.0
        for ev in r["fact_events"]:
            if ev not in r["aligned"]:
                abst += 1
                abst_ok += ev not in r["gold_events"]
    p, rc = ratio(tp, tp + fp), ratio(tp, tp + fn)
    return {"path_top1": ratio(top1, len(per_patient)), "step_precision": p, "step_recall": rc,
            "step_f1": round(2 * p * rc / (p + rc), 4) if p and rc else 0.0,
            "hits1": ratio(hits, n_gold), "mrr": ratio(rr, n_gold), "abstention_precision": ratio(abst_ok, abst),
            "gold_events": n_gold, "abstained_events": abst}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--details", action="store_true", help="per-patient lines on stderr")
    args = ap.parse_args()
    spec = yaml.safe_load(GOLD.read_text())
    manifest = json.loads(MANIFEST.read_text())
    arms = {f"fhir-{p['id']}": (p["arm"], p.get("stage")) for p in manifest["patients"]}
    with GraphStore.connect() as store:
        guidelines = load_guidelines(store)
        by_id = {g.id: g for g in guidelines}
        missing = [g for g in ARM_GUIDELINE.values() if g not in by_id]
        present = {r["id"] for r in store.read("tkg.patients_existing", patients=list(arms))}
        if missing or len(present) < len(arms):
            sys.exit("the demo cohort or its guidelines are not in the graph: run `graphkit demo` first")
        patients = sorted(arms)
        trajectories = load_trajectories(store, patients)
        facts = load_facts(store, patients)
        specs = {x.spec.id: x for x in load_guideline_specs(store)}
    embedder = TextEmbedder()
    params = AlignParams()
    aligner = Aligner(guidelines, embedder, params)
    # ablations: meaning only (codes ignored), and notes only (the structured facts withheld)
    semantic_only = Aligner(guidelines, embedder, replace(params, code_match=0.0, code_category_match=0.0,
                                                          code_conflict=1.0))
    rows = {"graphkit": [], "baseline": [], "semantic_only": [], "notes_only": [], "normative": [],
            "graphkit_previous_gold": []}
    t0 = time.perf_counter()
    for pid in patients:
        events = trajectories[pid]
        arm, stage = arms[pid]
        g = by_id[ARM_GUIDELINE[arm]]
        structured = build_state(pid, [f for f in facts[pid] if (f.source or "").startswith("fhir:")])
        eligible = {p.id for p in specs[g.id].paths
                    if all(c.verdict != "violated" for c in evaluate(p.conditions, structured, {}))}
        gold_events, gold_steps, gold_paths = gold_for_patient(events, g, spec[g.id], stage, eligible)
        _, _, previous_gold_paths = gold_for_patient(events, g, spec[g.id], stage)  # the rule before #15
        reasoning = reason_about(pid, facts[pid], [specs[g.id]])
        a = reasoning.assessments[0]
        followed = [p for p in a.followed_paths if p in gold_paths] or a.followed_paths  # options: any one
        rows["normative"].append({
            "path": followed[0] if followed else None, "gold_paths": gold_paths,
            "pred_steps": {i.step_uid for i in a.items if i.status in ("done", "done-not-indicated")},
            "gold_steps": gold_steps, "gold_events": {}, "aligned": {}, "fact_events": [], "ranking": {}})
        facts_ids = [e.id for e in events if (e.source or "").startswith("fhir:")]
        res = aligner.align(pid, events)
        unit_of = {ev: u.key for u in res.units for ev in u.events}
        aligned = {ev: p.step for ev, p in res.aligned_events().items()}
        rows["graphkit"].append({
            "path": res.top_path.path if res.top_path else None, "gold_paths": gold_paths,
            "pred_steps": {p.step for p in res.pairs}, "gold_steps": gold_steps, "gold_events": gold_events,
            "aligned": aligned, "fact_events": facts_ids,
            "ranking": {ev: res.rankings.get(unit_of.get(ev), []) for ev in gold_events}})
        rows["graphkit_previous_gold"].append({**rows["graphkit"][-1], "gold_paths": previous_gold_paths})
        base = clicare_align(pid, events, guidelines, embedder, params.episode_gap_days)
        b_unit_of = {ev: u.key for u in base.units for ev in u.events}
        b_aligned = {ev: base.aligned[k] for ev, k in b_unit_of.items() if k in base.aligned}
        rows["baseline"].append({
            "path": base.path, "gold_paths": gold_paths, "pred_steps": set(base.aligned.values()),
            "gold_steps": gold_steps, "gold_events": gold_events, "aligned": b_aligned, "fact_events": facts_ids,
            "ranking": {ev: base.rankings.get(b_unit_of.get(ev), []) for ev in gold_events}})
        for name, al, evs in (("semantic_only", semantic_only, events),
                              ("notes_only", aligner, [e for e in events if e.source == "note"])):
            r = al.align(pid, evs)
            u_of = {ev: u.key for u in r.units for ev in u.events}
            rows[name].append({
                "path": r.top_path.path if r.top_path else None, "gold_paths": gold_paths,
                "pred_steps": {p.step for p in r.pairs}, "gold_steps": gold_steps, "gold_events": gold_events,
                "aligned": {ev: p.step for ev, p in r.aligned_events().items()}, "fact_events": facts_ids,
                "ranking": {ev: r.rankings.get(u_of.get(ev), []) for ev in gold_events}})
        if args.details:
            r = rows["graphkit"][-1]
            log(f"{pid[:13]} {arm:10} stage={stage} top={'OK ' if r['path'] in gold_paths else 'BAD'} "
                f"prev={'OK ' if r['path'] in previous_gold_paths else 'BAD'} "
                f"pred={sorted(s.split('/')[1] for s in r['pred_steps'] - gold_steps)} "
                f"missed={sorted(s.split('/')[1] for s in gold_steps - r['pred_steps'])}")
    embedder.save()
    out = {k: {m: v for m, v in metrics(v).items()} for k, v in rows.items()}
    log(f"{len(patients)} patients in {time.perf_counter() - t0:.1f} s")
    for k, v in out.items():
        log(f"{k:9} " + " ".join(f"{m}={x}" for m, x in v.items()))
    step_keys = ("path_top1", "step_precision", "step_recall", "step_f1")
    emit({"graphkit": out["graphkit"], "baseline": out["baseline"], "patients": len(patients),
          "normative": {k: out["normative"][k] for k in step_keys},
          "graphkit_previous_gold_rule": {k: out["graphkit_previous_gold"][k] for k in step_keys},
          "ablations": {"semantic_only": out["semantic_only"],
                        "notes_only": {k: out["notes_only"][k] for k in step_keys}},
          "params": json.loads(params.to_json())})


if __name__ == "__main__":
    main()
