"""Trajectory–guideline alignment: the pure parts as examples, then a run against the real Neo4j."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys

import numpy as np
import pytest

from graphkit.align.bootstrap import bootstrap, neighborhood
from graphkit.align.conformance import conformance
from graphkit.align.model import AlignParams, Event, Guideline, Pair, Path as GPath, Profile, Step, Unit
from graphkit.align.rerank import parse_ranking, rerank
from graphkit.align.score import condition_factor, score_paths
from graphkit.align.trajectory import build_profile, build_units
from graphkit.llm import FunctionChat

D = dt.date


def ev(i, kind, text, day, codes=(), assertion="present", value=None, values=()):
    return Event(f"e{i}", kind, text, assertion, day, i, "note", value, tuple(codes), (), tuple(values))


# -- trajectory → units ---------------------------------------------------------------------------
def test_units_join_events_sharing_a_code_and_split_episodes_after_a_long_gap():
    events = [
        ev(1, "Cancer", "breast cancer", D(2020, 1, 5), ["DOID|DOID:1612", "ICD-10-CM|C50"]),
        ev(2, "Cancer", "Malignant neoplasm of breast", D(2020, 1, 6), ["SNOMED-CT|254837009", "DOID|DOID:1612"]),
        ev(3, "Procedure", "mammography", D(2020, 1, 1), ["SNOMED-CT|71651007"]),
        ev(4, "Procedure", "mammography", D(2021, 6, 1), ["SNOMED-CT|71651007"]),  # a year later: new episode
        ev(5, "Cancer", "lymph node metastasis", D(2020, 1, 5), ["SNOMED-CT|1"], assertion="negated"),
        ev(6, "Problem", "ovarian cancer", D(2020, 1, 5), ["SNOMED-CT|2"], assertion="family"),
    ]
    units = build_units(events, episode_gap_days=180)
    keys = [sorted(u.events) for u in units]
    assert ["e1", "e2"] in keys                 # one concept through the shared DOID code
    assert ["e3"] in keys and ["e4"] in keys    # two mammography episodes
    assert not any("e5" in k or "e6" in k for k in keys)  # negated / family never align
    assert [u.first for u in units] == sorted(u.first for u in units)


def test_drugs_started_the_same_day_are_one_regimen():
    day = D(2021, 7, 28)
    units = build_units([ev(1, "Medication", "Cisplatin", day, ["RxNorm|1"]),
                         ev(2, "Medication", "Paclitaxel", day, ["RxNorm|2"]),
                         ev(3, "Medication", "Tamoxifen", D(2022, 1, 1), ["RxNorm|3"])])
    assert len(units) == 2
    assert units[0].text == "Cisplatin + Paclitaxel" and units[0].codes == {"RxNorm|1", "RxNorm|2"}


def test_profile_reads_the_stored_normalized_stage_and_biomarkers():
    """Ingestion stores values normalized (graphkit.clinical.values); the profile reads them, never text."""
    events = [ev(1, "Stage", "Non-small cell carcinoma of lung, TNM stage 1 (disorder)", D(2021, 1, 1),
                 values=("I",)),
              ev(2, "Biomarker", "HER2 [Presence] in Breast cancer specimen by FISH", D(2021, 1, 2),
                 value="greater than 2.2", values=("HER2=positive",)),
              ev(3, "Biomarker", "Estrogen receptor Ag [Presence]", D(2021, 1, 2), value="Negative (qualifier value)",
                 values=("ER=negative",)),
              ev(4, "Biomarker", "PR", D(2021, 1, 2), values=("PR=negative",))]
    p = build_profile(events)
    assert p.stage == "I" and dict(p.biomarkers) == {"HER2": "positive", "ER": "negative", "PR": "negative",
                                                     "HR": "negative"}
    assert build_profile([ev(1, "Stage", "Stage group", D(2020, 1, 1), values=("IIIA",))]).stage == "IIIA"


# -- path scores ----------------------------------------------------------------------------------
def _guideline():
    steps = [Step(f"g@1/{s}", s, "Treatment", "other", s, s, i) for i, s in enumerate("abcdefg")]
    short = GPath("short", 0, tuple(f"g@1/{s}" for s in "abc"), stage_min="I", stage_max="II")
    long = GPath("long", 1, tuple(f"g@1/{s}" for s in "abcdefg"), stage_min="III", stage_max="IV")
    return Guideline("g", "1", "G", frozenset(), steps, [short, long])


def test_a_longer_path_does_not_win_by_length():
    g = _guideline()
    # three units realize a, b, c well; d..g are weakly matched by one unrelated unit
    S = np.zeros((4, 7), dtype=np.float32)
    S[0, 0] = S[1, 1] = S[2, 2] = 0.95
    S[3, 3:] = 0.56
    dates = np.array([0.0, 10.0, 20.0, 30.0])
    ranked = score_paths(S, dates, g, Profile(), AlignParams())
    assert ranked[0].path == "short"
    # CliCARE's released scorer (a plain sum of per-step best similarities) would pick the long one
    assert S[:, :7].max(0).sum() > S[:, :3].max(0).sum()


def test_order_and_record_conditions_lower_a_path_score():
    g = _guideline()
    S = np.zeros((3, 7), dtype=np.float32)
    S[0, 0] = S[1, 1] = S[2, 2] = 0.95
    in_order = score_paths(S, np.array([0.0, 10, 20]), g, Profile(), AlignParams())[0]
    reversed_ = score_paths(S, np.array([20.0, 10, 0]), g, Profile(), AlignParams())[0]
    assert in_order.order_consistency == 1.0 and reversed_.order_consistency == pytest.approx(1 / 3)
    # evidence against the path's order does not count for it: one step of three is left
    assert reversed_.recall == pytest.approx(in_order.recall / 3) and reversed_.score < in_order.score
    assert condition_factor(g.paths[0], Profile(stage="IIIA"), AlignParams()) < 1.0
    assert condition_factor(g.paths[0], Profile(stage="IA"), AlignParams()) == 1.0


# -- bootstrapping --------------------------------------------------------------------------------
def test_neighborhood_agreement_is_high_for_pairs_in_order_with_the_aligned_ones():
    dates = np.array([0.0, 50.0, 100.0, 150.0])
    positions = np.array([0.0, 1.0, 2.0])
    N = neighborhood(dates, positions, {0: 0, 2: 2}, tol_days=1)
    assert N[1, 1] == 1.0      # between its aligned neighbours in time and on the path
    assert N[3, 0] == 0.0      # after the unit aligned to step 2, but step 0 comes before step 2
    assert N[3, 1] == 0.5      # agrees with one neighbour, contradicts the other


def test_bootstrap_is_one_to_one_logs_iterations_and_attaches_support_events():
    # units: biopsy, diagnosis (same concept step), drug A, drug B (same step), an unrelated exam
    S = np.array([[0.95, 0.1, 0.0],
                  [0.90, 0.1, 0.0],
                  [0.0, 0.2, 0.92],
                  [0.0, 0.1, 0.70],
                  [0.1, 0.2, 0.10]], dtype=np.float32)
    dates = np.array([0.0, 1.0, 40.0, 40.0, 5.0])
    pairs, decisions, _ = bootstrap(S, dates, np.array([0.0, 1.0, 2.0]), ["biopsy", "dx", "A", "B", "exam"],
                                    ["s0", "s1", "s2"], AlignParams())
    primary = {p.unit: p.step for p in pairs if p.role == "primary"}
    assert primary == {"biopsy": "s0", "A": "s2"}            # one event per step
    assert len(set(primary.values())) == len(primary)
    support = {p.unit for p in pairs if p.role == "support"}
    assert support == {"dx", "B"}                             # other events of the aligned steps
    assert "exam" not in {p.unit for p in pairs}               # abstains: off-guideline
    assert decisions[0].action == "seed" and all(d.iteration >= 0 for d in decisions)


def test_bootstrap_edits_a_seed_that_its_neighbours_contradict():
    # unit 0 and unit 1 both fit step 0 and step 2 equally; time order says unit 0 is the early one
    S = np.array([[0.9, 0.0, 0.9],
                  [0.9, 0.0, 0.9],
                  [0.0, 0.95, 0.0]], dtype=np.float32)
    dates = np.array([0.0, 100.0, 50.0])
    pairs, decisions, _ = bootstrap(S, dates, np.array([0.0, 1.0, 2.0]), ["u0", "u1", "u2"], ["s0", "s1", "s2"],
                                    AlignParams(seed_theta=0.85))
    primary = {p.unit: p.step for p in pairs if p.role == "primary"}
    assert primary == {"u0": "s0", "u2": "s1", "u1": "s2"}


# -- conformance ----------------------------------------------------------------------------------
def test_conformance_reports_missing_pending_order_and_timing_with_evidence():
    steps = [Step("g@1/dx", "dx", "Assessment", "biopsy", "Biopsy", "", 0),
             Step("g@1/surgery", "surgery", "Treatment", "surgery", "Surgery", "", 1),
             Step("g@1/chemo", "chemo", "Treatment", "chemotherapy", "Adjuvant chemo", "", 2,
                  timing_after="surgery", max_days=84),
             Step("g@1/followup", "followup", "FollowUp", "surveillance", "Follow-up", "", 3)]
    g = Guideline("g", "1", "G", frozenset(), steps, [])
    path = GPath("p", 0, tuple(s.uid for s in steps))
    units = [Unit("dx", "Cancer", "cancer", frozenset(), ["e1"], D(2020, 1, 1), D(2020, 1, 1)),
             Unit("chemo", "Medication", "oxaliplatin", frozenset(), ["e2"], D(2020, 9, 1), D(2020, 12, 1)),
             Unit("surg", "Procedure", "colectomy", frozenset(), ["e3"], D(2020, 2, 1), D(2020, 2, 1)),
             Unit("dental", "Procedure", "dental exam", frozenset(), ["e4"], D(2020, 3, 1), D(2020, 3, 1))]
    pairs = [Pair("dx", "g@1/dx", 0.9, 0.9, 0.5, 0), Pair("chemo", "g@1/chemo", 0.9, 0.9, 0.5, 1),
             Pair("surg", "g@1/surgery", 0.9, 0.9, 0.5, 1)]
    items = conformance(g, path, units, pairs, {"dental": ("g@1/followup", 0.2)}, theta=0.55)
    by_type = {}
    for it in items:
        by_type.setdefault(it.type, []).append(it)
    assert {it.step for it in by_type["matched"]} == {"dx", "surgery", "chemo"}
    assert [it.step for it in by_type["pending"]] == ["followup"]
    timing = by_type["timing_violation"][0]
    assert timing.step == "chemo" and timing.days == 213 and timing.limit_days == 84 and timing.events == ["e2", "e3"]
    assert by_type["off_guideline"][0].events == ["e4"]
    assert "order_violation" not in by_type


# -- LLM rerank -----------------------------------------------------------------------------------
def test_rerank_validates_the_answer_and_falls_back_otherwise():
    from graphkit.align.model import PathScore

    g = _guideline()
    cands = [PathScore("short", "g", "1", 0.9, 1, 1, 1, 1, rank=1), PathScore("long", "g", "1", 0.5, 1, 1, 1, 1, rank=2)]
    ok = FunctionChat(lambda system, prompt: 'Sure: {"ranking": ["long", "short"]}')
    out, info = rerank(cands, ok, {"g": g}, Profile(), [])
    assert info == "ok" and [c.path for c in out] == ["long", "short"] and out[0].reranked
    for answer, why in [("no idea", "no JSON"), ('{"ranking": ["long", "nope"]}', "unknown"),
                        ('{"ranking": ["long"]}', "every candidate"), ('{"ranking": [1, 2]}', "not a list")]:
        out, info = rerank(cands, FunctionChat(lambda s, p, a=answer: a), {"g": g}, Profile(), [])
        assert [c.path for c in out] == ["short", "long"] and info.startswith("fallback") and why in info
    assert rerank(cands, None, {"g": g}, Profile(), [])[1] == "skipped"
    assert parse_ranking('{"ranking": ["a", "a"]}', ["a", "b"])[0] is None


# -- against Neo4j --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def breast_guideline(store):
    from conftest import load_repo_guideline

    return load_repo_guideline(store, "breast-early")


def test_align_run_is_stored_resumable_and_never_overwrites(store, breast_guideline, embedder, cli_env):
    from graphkit.align.job import run_alignment
    from graphkit.demo.sample import load_sample
    from graphkit.errors import BadInputError

    load_sample(store)
    first = run_alignment(store, patients=["demo-p001"], guidelines=["breast-early"], embedder=embedder)
    second = run_alignment(store, patients=["demo-p001"], guidelines=["breast-early"], embedder=embedder)
    try:
        assert first.status == second.status == "completed" and first.aligned == 1
        assert first.run != second.run
        for run in (first.run, second.run):  # both runs keep their own results
            follows = store.read("align.patient_follows", patient="demo-p001", run=run)
            assert follows and follows[0]["rank"] == 1 and follows[0]["guideline"] == "breast-early"
            items = store.read("align.conformance_report", patient="demo-p001", run=run)
            matched = [i for i in items if i["type"] == "matched"]
            assert matched and all(i["evidence"] for i in matched)
            # evidence chain: event -> sentence span -> note
            assert any(e["note"] and e["start"] is not None for i in matched for e in i["evidence"])
        aligned = store.read("align.run_alignments", run=first.run)
        assert aligned and all(a["patient"] == "demo-p001" for a in aligned)
        negated = {r["id"] for r in store.read("tkg.patient_timeline", patient="demo-p001")
                   if r["assertion"] in ("negated", "family")}
        assert negated and not negated & {a["event"] for a in aligned}

        # resuming a finished run does nothing more
        again = run_alignment(store, run_id=first.run, embedder=embedder)
        assert again.done_before == 1 and again.aligned == 0 and again.status == "completed"

        with pytest.raises(BadInputError, match="no patient"):
            run_alignment(store, patients=["nobody-here"], embedder=embedder)

        proc = subprocess.run([sys.executable, "-m", "graphkit.cli.app", "conformance", "demo-p001", "--json"],
                              env=cli_env, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        report = json.loads(proc.stdout)
        assert report["run"] == second.run and report["paths"][0]["rank"] == 1
        assert {"matched", "off_guideline"} <= {i["type"] for i in report["items"]}
    finally:
        for run in (first.run, second.run):
            store.write("align.delete_run", id=run)


def test_a_patient_without_events_or_guideline_gets_a_reason(store, breast_guideline, embedder, prefix):
    from graphkit.align.job import run_alignment

    store.write("tkg.merge_patients", rows=[{"id": f"{prefix}empty", "props": {}}])
    summary = run_alignment(store, patients=[f"{prefix}empty"], embedder=embedder)
    try:
        assert summary.skipped == {"no_events": 1}
        cover = store.read("align.latest_run_for_patient", patient=f"{prefix}empty")[0]
        assert cover["status"] == "no_events" and "no events" in cover["reason"]
    finally:
        store.write("align.delete_run", id=summary.run)


def test_ordered_matching_keeps_evidence_in_path_order():
    from graphkit.align.score import ordered_matching

    # a colonoscopy (day 0) fits both the diagnostic (pos 0) and the surveillance (pos 2) colonoscopy;
    # the diagnosis (day 20) fits only the diagnostic one; the resection (day 60) is pos 1
    W = np.array([[0.45, 0.0, 0.45],
                  [0.45, 0.0, 0.0],
                  [0.0, 0.45, 0.0]])
    rows, cols, share = ordered_matching(W, np.array([0.0, 20.0, 60.0]), np.array([0.0, 1.0, 2.0]), tol=1)
    pairs = dict(zip(rows.tolist(), cols.tolist()))
    assert 2 not in pairs.values()          # no surveillance colonoscopy before the resection
    assert pairs.get(2) == 1 and len(pairs) == 2
    assert share < 1.0                      # the unconstrained matching had put one out of order


def test_a_path_whose_conditions_the_record_contradicts_is_reported():
    from graphkit.align.conformance import condition_items

    path = GPath("p", 0, (), stage_min="II", stage_max="III", biomarkers=("ER=negative",))
    items = condition_items(path, Profile(stage="IA", biomarkers=(("ER", "positive"),)))
    assert [i.type for i in items] == ["condition_mismatch", "condition_mismatch"]
    assert "ER negative" in items[1].detail and "ER positive" in items[1].detail
    assert condition_items(path, Profile(stage="IIB", biomarkers=(("ER", "negative"),))) == []


def test_two_processes_can_share_a_run_by_shards(store, aligned_sample, embedder, prefix):
    from graphkit.align.job import run_alignment, shard_of

    # a second patient: a copy of the sample's trajectory, in the other shard than demo-p001
    other = next(f"{prefix}p{i}" for i in range(50) if shard_of(f"{prefix}p{i}", 2) != shard_of("demo-p001", 2))
    store.write("bench.clone_patient_trajectory", src="demo-p001", dst=other, limit=100)
    patients = ["demo-p001", other]
    first = run_alignment(store, patients=patients, guidelines=["breast-early"], embedder=embedder,
                          shard=(shard_of("demo-p001", 2), 2))
    try:
        assert first.status == "partial" and first.aligned == 1       # half the patients: partial
        second = run_alignment(store, run_id=first.run, embedder=embedder, shard=(shard_of(other, 2), 2))
        assert second.status == "completed" and second.aligned == 1 and second.done_before == 1
        covered = {r["patient"] for r in store.read("align.run_done_patients", id=first.run)}
        assert covered == set(patients)
    finally:
        store.write("align.delete_run", id=first.run)
