"""Patient state and normative guideline reasoning: pure functions on hand-made facts, and one patient
end to end through ingestion, the graph and the recommendation."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from graphkit.guidelines.paths import enumerate_paths
from graphkit.guidelines.validate import validate_file
from graphkit.reason.normative import assess
from graphkit.state.build import build_state
from graphkit.state.model import Fact

ROOT = Path(__file__).resolve().parent.parent
D = dt.date.fromisoformat


def fact(i, kind, text, date, *, assertion="present", values=(), detail=None, codes=(), ancestors=(), flags=()):
    return Fact(f"f{i}", kind, text, assertion, D(date), None, tuple(values), detail or {}, tuple(flags),
                tuple(codes), tuple(ancestors), order=i)


BREAST = ("DOID|DOID:3008", "NCIT|C4017")
BREAST_UP = ("DOID|DOID:1612", "DOID|DOID:162")


def _breast(extra=(), *, her2="positive", er="positive"):
    """An IDC of the breast, stage IIA, lumpectomy and SLNB, radiotherapy; no systemic therapy."""
    base = [
        fact(1, "Test", "mammogram", "2024-01-10", codes=("SNOMED-CT|71651007",)),
        fact(2, "Test", "core bx", "2024-01-12", codes=("SNOMED-CT|9911007",)),
        fact(3, "Cancer", "IDC", "2024-01-15", detail={"histology": "invasive ductal carcinoma", "site": "breast"},
             codes=BREAST, ancestors=BREAST_UP),
        fact(4, "Biomarker", "ER 90%", "2024-01-15", values=(f"ER={er}",)),
        fact(5, "Biomarker", "PR 10%", "2024-01-15", values=(f"PR={er}",)),
        fact(6, "Biomarker", "HER2 3+", "2024-01-15", values=(f"HER2={her2}",)),
        fact(7, "Stage", "cT2N0M0", "2024-01-20", values=("cT2N0M0",),
             detail={"basis": "clinical", "t": "T2", "n": "N0", "m": "M0", "derived_group": "IIA", "site": "breast"}),
        fact(8, "Procedure", "lumpectomy", "2024-02-20", codes=("SNOMED-CT|392021009",)),
        fact(9, "Procedure", "SLNB", "2024-02-20", codes=("SNOMED-CT|396487001",)),
        fact(10, "Procedure", "WBI 40 Gy/15 fx", "2024-04-01", codes=("SNOMED-CT|33195004",),
             detail={"status": "completed"}),
    ]
    return base + list(extra)


def _spec(name):
    spec = validate_file(ROOT / "guidelines" / f"{name}.yaml").spec
    codes = frozenset(f"{c.system}|{c.code}" for c in spec.condition_codes)
    return spec, enumerate_paths(spec), codes


def test_state_derives_hr_combines_tnm_and_reports_conflicts_without_resolving_them():
    facts = _breast([fact(20, "Biomarker", "ER negative", "2024-01-15", values=("ER=negative",)),
                     fact(21, "Stage", "stage IIIA", "2024-01-20", values=("IIIA",), detail={"basis": "clinical"})])
    st = build_state("p", facts, D("2024-06-01"))
    assert st.markers["ER"].status == "conflicting" and st.marker("ER") is None  # never resolved silently
    assert st.markers["HR"].status == "positive" and st.markers["HR"].derived_from == ("PR",)
    assert {i.fact for i in st.issues if i.kind == "conflict"} == {"ER", "stage"}
    assert st.cancers[0].site == "breast"
    assert sorted(t.name for t in st.treatments) == ["SLNB", "WBI 40 Gy/15 fx", "lumpectomy"]


def test_state_reads_one_lost_mmr_protein_as_deficient_but_keeps_system_level_conflicts():
    proteins = [fact(40 + i, "Biomarker", f"{p} {s}", "2024-01-15", values=(f"MMR={v}",), detail={"protein": p})
                for i, (p, s, v) in enumerate([("MLH1", "intact", "proficient"), ("PMS2", "intact", "proficient"),
                                                ("MSH2", "intact", "proficient"), ("MSH6", "loss", "deficient")])]
    st = build_state("p", _breast(proteins), D("2024-06-01"))
    assert st.markers["MMR"].status == "deficient" and st.markers["MSI"].status == "high"
    both = [fact(50, "Biomarker", "dMMR", "2024-01-15", values=("MMR=deficient",)),
            fact(51, "Biomarker", "pMMR", "2024-01-15", values=("MMR=proficient",))]
    assert build_state("p", _breast(both), D("2024-06-01")).markers["MMR"].status == "conflicting"


def test_care_for_another_condition_realizes_no_step():
    from graphkit.reason.normative import other_cancer_care

    mtx = fact(60, "Medication", "methotrexate 15 mg weekly", "2024-01-10", codes=("RxNorm|6851",),
               detail={"indication": "ICD-10-CM|M06.9"})
    pem = fact(61, "Medication", "pemetrexed", "2024-03-10", codes=("RxNorm|68446",))
    assert other_cancer_care([mtx, pem], "lung") == {"f60"}


def test_state_at_a_date_ignores_later_facts_and_others_facts():
    facts = _breast([fact(30, "Medication", "letrozole", "2024-05-01", codes=("RxNorm|72965",),
                          ancestors=("ATC|L02BG04", "ATC|L02BG", "ATC|L02")),
                     fact(31, "Cancer", "ovarian ca", "2024-01-10", assertion="family", codes=("DOID|DOID:2394",))])
    early = build_state("p", facts, D("2024-03-01"))
    assert [c.site for c in early.cancers] == ["breast"]  # the relative's cancer is not the patient's
    assert not any(t.name == "letrozole" for t in early.treatments)
    assert any(t.name == "letrozole" for t in build_state("p", facts, D("2024-06-01")).treatments)


def test_er_her2_positive_without_anti_her2_or_endocrine_therapy_is_told_what_is_missing():
    """The issue's case: surgery and radiotherapy only, on an ER+/HER2+ stage II breast cancer."""
    spec, paths, codes = _spec("breast-early")
    st = build_state("p", _breast(), D("2024-12-01"))
    a = assess(spec, paths, st, D("2024-12-01"), codes)
    status = {i.step: i.status for i in a.items}
    assert a.applies and status["breast-conserving-surgery"] == "done" and status["adjuvant-radiotherapy"] == "done"
    assert status["adjuvant-anti-her2-therapy"] in ("missing", "overdue")
    assert status["adjuvant-endocrine-therapy"] in ("missing", "overdue")
    assert "adjuvant-anti-her2-therapy" in [i.step for i in a.next_steps]


def test_trastuzumab_for_her2_negative_disease_is_done_but_not_indicated():
    spec, paths, codes = _spec("breast-early")
    tras = fact(40, "Medication", "trastuzumab", "2024-03-15", codes=("RxNorm|224905",),
                ancestors=("ATC|L01FD01", "ATC|L01FD", "ATC|L01F", "ATC|L01"))
    st = build_state("p", _breast([tras], her2="negative"), D("2024-12-01"))
    a = assess(spec, paths, st, D("2024-12-01"), codes)
    deviant = {i.step for i in a.items if i.status == "done-not-indicated"}
    assert "adjuvant-anti-her2-therapy" in deviant


def test_undocumented_her2_is_missing_information_not_a_guess_and_branches_are_options():
    spec, paths, codes = _spec("breast-early")
    facts = [f for f in _breast() if f.id not in ("f6", "f8", "f9", "f10")]  # no HER2, nothing done yet
    st = build_state("p", facts, D("2024-01-25"))
    a = assess(spec, paths, st, D("2024-01-25"), codes)
    assert [m.fact for m in a.missing_info] == ["HER2"] and a.missing_info[0].step == "receptor-testing"
    assert any(i.status == "option" for i in a.items)  # neoadjuvant therapy or upfront surgery


def test_family_history_or_negated_cancer_gets_no_guideline():
    spec, paths, codes = _spec("breast-early")
    facts = [fact(1, "Cancer", "breast cancer", "2024-01-10", assertion="family", codes=BREAST, ancestors=BREAST_UP),
             fact(2, "Cancer", "breast cancer", "2024-01-10", assertion="negated", codes=BREAST, ancestors=BREAST_UP)]
    a = assess(spec, paths, build_state("p", facts, D("2024-02-01")), D("2024-02-01"), codes)
    assert not a.applies and not a.items


def test_metastatic_breast_cancer_is_outside_the_early_guideline():
    spec, paths, codes = _spec("breast-early")
    facts = _breast([fact(50, "Stage", "stage IV", "2024-01-21", values=("IV",), detail={"basis": "clinical"})])
    a = assess(spec, paths, build_state("p", facts, D("2024-02-01")), D("2024-02-01"), codes)
    assert not a.applies and "scope" in a.reason


def test_a_timing_window_makes_a_step_overdue_only_after_it_closes():
    spec, paths, codes = _spec("breast-early")
    facts = [f for f in _breast() if f.id != "f10"]  # no radiotherapy yet
    soon = assess(spec, paths, build_state("p", facts, D("2024-03-01")), D("2024-03-01"), codes)
    late = assess(spec, paths, build_state("p", facts, D("2024-09-01")), D("2024-09-01"), codes)
    rt = lambda a: next(i for i in a.items if i.step == "adjuvant-radiotherapy")  # noqa: E731
    assert rt(soon).status != "overdue" and rt(late).status in ("overdue", "missing")


def test_recommendation_comes_from_the_normative_result_and_every_sentence_cites(store, nlp, prefix, tmp_path):
    """Notes → ingestion → graph → state → eligibility → recommendation, stored with its citations."""
    from conftest import load_repo_guideline
    from graphkit.align.embed import TextEmbedder
    from graphkit.recommend.job import recommend_patient
    from graphkit.state.io import save_snapshot
    from ingest.job import ingest_paths

    load_repo_guideline(store, "breast-early")
    notes = {
        "a": ("2024-01-15", "Pathology", "Core bx L breast 1/12/24: invasive ductal carcinoma, grade 2. "
                                         "ER 90%, PR 20%, HER2 3+ by IHC."),
        "b": ("2024-01-20", "Consult", "L breast IDC, cT2 cN0 cM0, stage IIA. Plan: lumpectomy and SLNB."),
        "c": ("2024-02-20", "Operative", "Procedure: L lumpectomy and sentinel lymph node biopsy performed."),
        "d": ("2024-05-01", "Radiation oncology", "Completed whole breast irradiation 40 Gy in 15 fractions."),
    }
    rows = ["patient_id,note_id,time,type,path"]
    for k, (day, typ, text) in notes.items():
        (tmp_path / f"{k}.txt").write_text(text)
        rows.append(f"{prefix}p,{prefix}{k},{day}T10:00,{typ},{k}.txt")
    (tmp_path / "manifest.csv").write_text("\n".join(rows) + "\n")
    ingest_paths(store, [tmp_path], quarantine_path=tmp_path / "q.jsonl", nlp=nlp)

    rec = recommend_patient(store, f"{prefix}p", TextEmbedder(cache_file=tmp_path / "e.npz"), at=D("2024-12-01"))
    assert rec.reasoning.applicable, [(x.guideline, x.reason) for x in rec.reasoning.assessments] + [(c.name, c.site, c.codes) for c in rec.reasoning.state.cancers]
    a = rec.reasoning.applicable[0]
    late = {i.step for i in a.by_status("overdue", "missing")}
    assert {"adjuvant-anti-her2-therapy", "adjuvant-endocrine-therapy"} <= late
    assert rec.status == "ok" and not rec.uncited and not rec.unknown
    assert "HER2-directed" in rec.text and "[N" in rec.text  # cites the patient's care items
    snap = save_snapshot(store, rec.reasoning.state)
    stored = json.loads(store.read("testing.patient_state", id=snap)[0]["json"])
    assert stored["markers"]["HER2"]["status"] == "positive" and stored["stage"]["group"] == "IIA"


def test_a_deviating_drug_is_evidence_for_the_step_that_names_it_before_one_that_names_its_class():
    from graphkit.guidelines.spec import Code, Step
    from graphkit.reason.normative import specificity

    tras = fact(40, "Medication", "trastuzumab", "2024-03-15", codes=("RxNorm|224905",),
                ancestors=("ATC|L01FD01", "ATC|L01FD", "ATC|L01F", "ATC|L01"))
    named = Step("anti-her2", "Treatment", "Trastuzumab", "", codes=(Code("RxNorm", "224905", "trastuzumab"),))
    by_class = Step("chemo", "Treatment", "Antineoplastics", "", codes=(Code("ATC", "L01", "antineoplastic agents"),))
    other = Step("rt", "Treatment", "Radiotherapy", "", codes=(Code("SNOMED-CT", "33195004", "RT"),))
    assert [specificity(tras, s) for s in (named, by_class, other)] == [2, 1, 0]


def test_capecitabine_alone_not_indicated_is_the_fluoropyrimidine_step_not_the_doublet():
    spec, paths, codes = _spec("colorectal")
    colon = ("DOID|DOID:234",)
    up = ("DOID|DOID:219", "DOID|DOID:9256", "DOID|DOID:162")
    facts = [
        fact(1, "Test", "colonoscopy", "2024-02-01", codes=("SNOMED-CT|73761001",)),
        fact(2, "Cancer", "adenocarcinoma of the transverse colon", "2024-02-01", codes=colon, ancestors=up,
             detail={"site": "colon"}),
        fact(3, "Test", "CT C/A/P", "2024-02-10", codes=("SNOMED-CT|77477000",)),
        fact(4, "Stage", "pT3N0M0", "2024-03-20", values=("pT3N0M0",),
             detail={"basis": "pathological", "t": "T3", "n": "N0", "m": "M0", "derived_group": "IIA", "site": "colon"}),
        fact(5, "Biomarker", "MSI-H", "2024-03-20", values=("MSI=high",)),
        fact(6, "Procedure", "right hemicolectomy", "2024-03-10", codes=("SNOMED-CT|43075005",)),
        fact(7, "Medication", "capecitabine", "2024-04-29", codes=("RxNorm|194000",),
             ancestors=("ATC|L01BC06", "ATC|L01BC", "ATC|L01B", "ATC|L01")),
    ]
    res = assess(spec, paths, build_state("p", facts, D("2024-12-16")), D("2024-12-16"), codes)
    off = [i.step for i in res.items if i.status == "done-not-indicated"]
    assert off == ["adjuvant-fluoropyrimidine"]


def test_a_deviating_drug_goes_to_the_branch_nearest_the_patients_state():
    """Osimertinib in stage IV EGFR wild-type disease is a wrong first-line branch (EGFR-TKI), not the
    stage III consolidation step that names the same drug."""
    spec, paths, codes = _spec("nsclc")
    adeno = ("DOID|DOID:3910",)
    up = ("DOID|DOID:3908", "DOID|DOID:1324", "DOID|DOID:162")
    facts = [
        fact(1, "Test", "CT chest", "2025-02-14", codes=("SNOMED-CT|77477000",)),
        fact(2, "Cancer", "lung adenocarcinoma", "2025-03-04", codes=adeno, ancestors=up, detail={"site": "lung"}),
        fact(3, "Biomarker", "EGFR wild-type", "2025-03-21", values=("EGFR=wild-type",)),
        fact(4, "Biomarker", "ALK negative", "2025-03-21", values=("ALK=negative", "ROS1=negative")),
        fact(5, "Biomarker", "PD-L1 20%", "2025-03-21", values=("PD-L1=low",)),
        fact(6, "Stage", "cT2bN2M1b", "2025-04-08", values=("IVA",), detail={"basis": "clinical", "site": "lung"}),
        fact(7, "Medication", "osimertinib 80 mg daily", "2025-04-08", codes=("RxNorm|1721560",),
             ancestors=("ATC|L01EB04", "ATC|L01EB", "ATC|L01E", "ATC|L01")),
    ]
    res = assess(spec, paths, build_state("p", facts, D("2025-05-30")), D("2025-05-30"), codes)
    assert [i.step for i in res.items if i.status == "done-not-indicated"] == ["egfr-tki"]


def test_a_written_group_with_its_tnm_wins_and_an_equivocal_ihc_yields_to_its_ish():
    facts = _breast([
        fact(20, "Stage", "cT2N0", "2024-01-25", values=("cT2N0",),
             detail={"basis": "clinical", "t": "T2", "n": "N0", "derived_group": "IIA"}),
        fact(21, "Stage", "cT2 cN3 M0", "2024-01-25", values=("cT2N3M0",),
             detail={"basis": "clinical", "t": "T2", "n": "N3", "m": "M0", "derived_group": "IIIC"}),
        fact(22, "Stage", "stage IIIC", "2024-01-25", values=("IIIC",), detail={"basis": "clinical"}),
        fact(23, "Biomarker", "HER2 IHC 2+", "2024-01-26", values=("HER2=equivocal",)),
        fact(24, "Biomarker", "FISH not amplified", "2024-01-26", values=("HER2=negative",)),
    ])
    st = build_state("p", facts, D("2024-06-01"))
    assert st.stage.group == "IIIC" and not [i for i in st.issues if i.fact == "stage"]
    assert st.markers["HER2"].status == "negative"


def test_an_ihc_2_plus_restated_after_its_ish_result_undoes_nothing():
    facts = _breast([
        fact(23, "Biomarker", "HER2 IHC 2+", "2024-01-16", values=("HER2=equivocal",)),
        fact(24, "Biomarker", "FISH not amplified", "2024-01-20", values=("HER2=negative",)),
        fact(25, "Biomarker", "HER2 2+", "2024-03-01", values=("HER2=equivocal",)),
    ])
    assert build_state("p", facts, D("2024-06-01")).markers["HER2"].status == "negative"


def test_a_past_cancer_makes_no_guideline_apply_and_a_current_one_does():
    spec, paths, codes = _spec("breast-early")
    past = [f if f.kind != "Cancer" else Fact(f.id, f.kind, f.text, "historical", f.date, None, (), f.detail,
                                                ("past-cancer",), f.codes, f.ancestors, order=f.order)
            for f in _breast()]
    assert not assess(spec, paths, build_state("p", past, D("2025-06-01")), D("2025-06-01"), codes).applies
    assert assess(spec, paths, build_state("p", _breast(), D("2025-06-01")), D("2025-06-01"), codes).applies


def _egfr_stage_iv(extra=()):
    adeno = ("DOID|DOID:3910",)
    up = ("DOID|DOID:3908", "DOID|DOID:1324", "DOID|DOID:162")
    osi = dict(codes=("RxNorm|1721560",), ancestors=("ATC|L01EB04", "ATC|L01EB", "ATC|L01E", "ATC|L01"))
    return [
        fact(1, "Test", "CT chest", "2024-02-06", codes=("SNOMED-CT|77477000",)),
        fact(2, "Cancer", "lung adenocarcinoma", "2024-02-13", codes=adeno, ancestors=up, detail={"site": "lung"}),
        fact(3, "Test", "PET-CT", "2024-02-20", codes=("SNOMED-CT|450436003",)),
        fact(4, "Biomarker", "EGFR L858R", "2024-02-27", values=("EGFR=mutated",)),
        fact(5, "Biomarker", "ALK negative", "2024-02-27", values=("ALK=negative", "ROS1=negative")),
        fact(6, "Stage", "cT2aN2M1c", "2024-02-29", values=("IVB",), detail={"basis": "clinical", "site": "lung"}),
        fact(7, "Medication", "osimertinib 80 mg daily", "2024-03-04", **osi),
        fact(8, "Test", "CT CAP", "2024-05-06", codes=("SNOMED-CT|77477000",)),
        *extra,
    ]


def test_progression_on_first_line_therapy_makes_the_next_line_the_next_step():
    spec, paths, codes = _spec("nsclc")
    stable = assess(spec, paths, build_state("p", _egfr_stage_iv(), D("2025-05-12")), D("2025-05-12"), codes)
    assert "subsequent-line-therapy" not in [i.step for i in stable.items if i.status in ("due", "option")]
    moved = _egfr_stage_iv([fact(9, "Problem", "PROGRESSION", "2025-05-06",
                                 codes=("graphkit-problem|disease-progression",))])
    res = assess(spec, paths, build_state("p", moved, D("2025-05-12")), D("2025-05-12"), codes)
    assert [i.step for i in res.items if i.status in ("due", "option")] == ["subsequent-line-therapy"]


def test_a_first_line_stopped_for_good_makes_the_next_line_the_next_step():
    """"osimertinib stopped permanently (grade 3 pneumonitis)": a line ended by toxicity is over, as by
    progression; a drug merely named again since is not a stop."""
    spec, paths, codes = _spec("nsclc")
    osi = dict(codes=("RxNorm|1721560",), ancestors=("ATC|L01EB04", "ATC|L01EB", "ATC|L01E", "ATC|L01"))
    stopped = _egfr_stage_iv([fact(9, "Medication", "osimertinib", "2024-05-20", detail={"status": "stopped"},
                                   **osi)])
    res = assess(spec, paths, build_state("p", stopped, D("2024-06-10")), D("2024-06-10"), codes)
    assert [i.step for i in res.items if i.status in ("due", "option")] == ["subsequent-line-therapy"]
    going = _egfr_stage_iv([fact(9, "Medication", "osimertinib", "2024-05-20", detail={"status": "ongoing"}, **osi)])
    res = assess(spec, paths, build_state("p", going, D("2024-06-10")), D("2024-06-10"), codes)
    assert "subsequent-line-therapy" not in [i.step for i in res.items if i.status in ("due", "option")]


def test_a_therapy_class_named_beside_the_drugs_of_a_done_step_is_that_course_retold():
    spec, paths, codes = _spec("nsclc")
    sq = ("DOID|DOID:3907",)
    up = ("DOID|DOID:3908", "DOID|DOID:1324", "DOID|DOID:162")
    facts = [
        fact(1, "Test", "CT chest", "2024-11-08", codes=("SNOMED-CT|77477000",)),
        fact(2, "Cancer", "squamous cell carcinoma of lung", "2024-11-22", codes=sq, ancestors=up,
             detail={"site": "lung"}),
        fact(3, "Stage", "cT3N3M0", "2024-11-22", values=("IIIC",), detail={"basis": "clinical", "site": "lung"}),
        fact(4, "Biomarker", "PD-L1 15%", "2024-12-05", values=("PD-L1=low",)),
        Fact("n3:s0:t1:m10", "Medication", "carbo", "historical", D("2025-03-04"), None, (), {}, (),
             ("RxNorm|40048",), ("ATC|L01XA02", "ATC|L01XA", "ATC|L01"), order=5),
        Fact("n3:s0:t1:m20", "Procedure", "RT", "historical", D("2025-03-04"), None, (), {}, (),
             ("SNOMED-CT|33195004",), (), order=6),
        Fact("n3:s0:t1:m40", "Procedure", "chemo", "present", D("2025-03-04"), None, (), {}, (),
             ("SNOMED-CT|367336001",), (), order=7),
    ]
    res = assess(spec, paths, build_state("p", facts, D("2025-04-28")), D("2025-04-28"), codes)
    assert "concurrent-chemoradiation" in [i.step for i in res.items if i.status == "done"]
    assert "subsequent-line-therapy" not in [i.step for i in res.items if i.status == "done-not-indicated"]


def test_a_generic_lung_cancer_beside_small_cell_histology_is_not_nsclc():
    spec, paths, codes = _spec("nsclc")
    generic = fact(1, "Cancer", "lung malignancy", "2025-07-08", detail={"histology": "cancer", "site": "lung"},
                   codes=("DOID|DOID:1324", "ICD-10-CM|C34.1"), ancestors=("DOID|DOID:162",))
    sclc = fact(2, "Cancer", "small cell carcinoma", "2025-07-11",
                detail={"histology": "small cell carcinoma", "site": "lung"},
                codes=("DOID|DOID:5409",), ancestors=("DOID|DOID:3905", "DOID|DOID:1324", "DOID|DOID:162"))
    day = D("2025-08-20")
    assert assess(spec, paths, build_state("p", [generic], day), day, codes).applies  # type unknown: may be NSCLC
    assert not assess(spec, paths, build_state("p", [generic, sclc], day), day, codes).applies


def _rectal_iiib(colonoscopy, diagnosis, ct, mmr, mri):
    """A pMMR rectal adenocarcinoma worked up on the given days, clinical stage cT3c N1 (IIIB) by its MRI."""
    return [
        fact(1, "Test", "colonoscopy", colonoscopy, codes=("SNOMED-CT|73761001",)),
        fact(2, "Cancer", "rectal adenocarcinoma", diagnosis, codes=("DOID|DOID:1996",),
             ancestors=("DOID|DOID:1993", "DOID|DOID:9256", "DOID|DOID:162"), detail={"site": "rectum"}),
        fact(3, "Test", "CT CAP", ct, codes=("SNOMED-CT|77477000",)),
        fact(4, "Biomarker", "pMMR", mmr, values=("MMR=proficient", "MSI=stable")),
        fact(5, "Test", "MRI pelvis", mri, codes=("SNOMED-CT|241615005",)),
        fact(6, "Stage", "cT3cN1M0", mri, values=("IIIB",), detail={"basis": "clinical", "site": "rectum"}),
    ]


def test_watch_and_wait_needs_a_documented_clinical_complete_response():
    spec, paths, codes = _spec("colorectal")
    base = _rectal_iiib("2024-12-12", "2024-12-16", "2024-12-19", "2024-12-20", "2024-12-23") + [
        fact(7, "Procedure", "long-course chemoradiation", "2025-01-20", codes=("SNOMED-CT|703423002",)),
        fact(8, "Medication", "consolidation CAPOX", "2025-03-03", codes=("regimen|CAPOX",)),  # total neoadjuvant
        fact(10, "Test", "flexible sigmoidoscopy", "2025-06-17", codes=("SNOMED-CT|44441009",)),
    ]
    day = D("2025-07-01")
    known = base + [fact(9, "Response", "NOT a clinical complete response", "2025-06-17",
                         values=("response=incomplete",))]
    res = assess(spec, paths, build_state("p", known, day), day, codes)
    assert "watch-and-wait" not in [i.step for i in res.items if i.status == "done"]
    assert "total-mesorectal-excision" in [i.step for i in res.items if i.status in ("due", "overdue")]
    complete = base + [fact(9, "Response", "clinical complete response", "2025-06-17", values=("response=complete",))]
    res = assess(spec, paths, build_state("p", complete, day), day, codes)
    assert "watch-and-wait" in [i.step for i in res.items if i.status in ("due", "option")]
    # the restaging sigmoidoscopy that found the response is not yet watch-and-wait; the next one is, though
    # its note restates the response ("surveillance after cCR")
    later = complete + [fact(11, "Test", "flexible sigmoidoscopy", "2025-09-20", codes=("SNOMED-CT|44441009",)),
                        fact(12, "Response", "cCR", "2025-09-20", values=("response=complete",))]
    day = D("2025-09-30")
    res = assess(spec, paths, build_state("p", later, day), day, codes)
    assert "watch-and-wait" in [i.step for i in res.items if i.status == "done"]


def test_a_step_s_defining_element_a_later_line_and_drivers_that_exclude_each_other():
    spec, paths, codes = _spec("nsclc")
    adeno, up = ("DOID|DOID:3910",), ("DOID|DOID:3908", "DOID|DOID:1324", "DOID|DOID:162")
    chemo_io = [fact(20, "Medication", "carbo", "2024-05-28", codes=("RxNorm|40048",), ancestors=("ATC|L01XA02", "ATC|L01XA")),
                fact(21, "Medication", "pem", "2024-05-28", codes=("RxNorm|68446",), ancestors=("ATC|L01BA04", "ATC|L01BA")),
                fact(22, "Medication", "pembro", "2024-05-28", codes=("RxNorm|1547545",), ancestors=("ATC|L01FF02", "ATC|L01FF"))]
    facts = [
        fact(1, "Test", "CT chest", "2024-05-08", codes=("SNOMED-CT|77477000",)),
        fact(2, "Cancer", "lung adenocarcinoma", "2024-05-08", codes=adeno, ancestors=up, detail={"site": "lung"}),
        fact(3, "Test", "PET-CT", "2024-05-24", codes=("SNOMED-CT|450436003",)),
        fact(4, "Stage", "cT4N3M1c", "2024-05-24", values=("IVB",), detail={"basis": "clinical", "site": "lung"}),
        *chemo_io,
        fact(5, "Biomarker", "EGFR L858R", "2024-06-12", values=("EGFR=mutated",)),
        fact(6, "Biomarker", "ALK neg", "2024-06-12", values=("ALK=negative", "ROS1=negative", "PD-L1=high")),
    ]
    day = D("2024-06-21")
    res = assess(spec, paths, build_state("p", facts, day), day, codes)
    status = {i.step: i.status for i in res.items}
    # carboplatin/pemetrexed are not "osimertinib ± chemotherapy", nor a later line after a TKI never given
    assert status.get("egfr-tki") in ("due", "overdue", "option") and status.get("subsequent-line-therapy") != "done"
    # the three drugs of one day are one deviation: chemo-immunotherapy, not pembrolizumab alone
    assert [i.step for i in res.items if i.status == "done-not-indicated"] == ["chemo-immunotherapy"]
    # EGFR-mutant: an NTRK fusion branch is not open, so NTRK is no missing information
    assert "NTRK" not in [m.fact for m in res.missing_info]
    # osimertinib begun weeks after them: the TKI is done, and the earlier chemotherapy stays chemo-immunotherapy
    osi = fact(7, "Medication", "osimertinib", "2024-06-20", codes=("RxNorm|1721560",), ancestors=("ATC|L01EB04", "ATC|L01EB"))
    res = assess(spec, paths, build_state("p", [*facts, osi], day), day, codes)
    status = {i.step: i for i in res.items}
    assert status["egfr-tki"].status == "done" and list(status["egfr-tki"].evidence) == ["f7"]
    assert [i.step for i in res.items if i.status == "done-not-indicated"] == ["chemo-immunotherapy"]


def test_first_line_options_wait_for_the_biomarker_result_that_decides_them():
    spec, paths, codes = _spec("nsclc")
    adeno, up = ("DOID|DOID:3910",), ("DOID|DOID:3908", "DOID|DOID:1324", "DOID|DOID:162")
    facts = [
        fact(1, "Test", "CT chest", "2024-04-02", codes=("SNOMED-CT|77477000",)),
        fact(2, "Cancer", "lung adenocarcinoma", "2024-04-16", codes=adeno, ancestors=up, detail={"site": "lung"}),
        fact(3, "Test", "PET-CT", "2024-04-29", codes=("SNOMED-CT|450436003",)),
        fact(4, "Stage", "cT2N2M1c", "2024-04-29", values=("IVB",), detail={"basis": "clinical", "site": "lung"}),
    ]
    day = D("2024-08-30")
    res = assess(spec, paths, build_state("p", facts, day), day, codes)
    overdue = {i.step for i in res.items if i.status == "overdue"}
    assert overdue == {"biomarker-testing"}


def test_a_summary_states_the_cancer_and_its_first_stage_as_two_claims():
    from types import SimpleNamespace

    from graphkit.documents.summary import claims_from

    state = build_state("p", _breast(), D("2025-06-01"))
    claims = [c for c in claims_from(SimpleNamespace(state=state, applicable=[])) if c.aspect == "oncologic history"]
    assert [c.text.split(" was ")[0] for c in claims][:1] == ["IDC"] and "stage" not in claims[0].text
    assert any(c.text.startswith("The first recorded stage is IIA") for c in claims)


def test_neoadjuvant_therapy_under_way_times_surgery_from_the_response_and_keeps_its_chemo_components():
    spec, paths, codes = _spec("breast-early")
    base = [f for f in _breast(her2="positive") if f.kind not in ("Procedure", "Stage")] + [
        fact(7, "Stage", "cT2N1M0", "2024-01-20", values=("cT2N1M0",),
             detail={"basis": "clinical", "t": "T2", "n": "N1", "m": "M0", "derived_group": "IIB", "site": "breast"})]
    line = [("m1", "docetaxel", ("RxNorm|72962",), ("ATC|L01CD02", "ATC|L01CD", "ATC|L01")),
            ("m2", "carbo", ("RxNorm|40048",), ("ATC|L01XA02", "ATC|L01XA", "ATC|L01")),
            ("m3", "trastuzumab", ("RxNorm|224905",), ("ATC|L01FD01", "ATC|L01FD", "ATC|L01")),
            ("m4", "pertuzumab", ("RxNorm|1298944",), ("ATC|L01FD02", "ATC|L01FD", "ATC|L01"))]
    given = [Fact(f"n3:s0:t6:{m}", "Medication", t, "present", D("2024-02-20"), None, (), {}, (), c, a, order=20 + i)
             for i, (m, t, c, a) in enumerate(line)]
    # "C1 TCHP": the regimen concept is-a each of its components' ATC substances
    given.append(Fact("n3:s0:t1:m1", "Medication", "TCHP", "present", D("2024-02-20"), None, (), {}, (),
                      ("regimen|TCHP",), tuple(a[0] for *_, a in line) + ("ATC|L01",), order=30))
    at = D("2024-04-15")  # staging + 62 days has passed; the response assessment is not due yet
    res = assess(spec, paths, build_state("p", base + given, at), at, codes)
    status = {i.step: i.status for i in res.items}
    assert status["neoadjuvant-her2-therapy"] == "done"
    assert status.get("breast-conserving-surgery") != "overdue" and status.get("mastectomy") != "overdue"
    assert "neoadjuvant-chemotherapy" not in [i.step for i in res.items if i.status == "done-not-indicated"]


def test_restaging_after_first_line_immunotherapy_is_no_sign_the_kras_inhibitor_was_skipped():
    spec, paths, codes = _spec("nsclc")
    facts = [f for f in _egfr_stage_iv() if f.kind not in ("Biomarker", "Medication")] + [
        fact(4, "Biomarker", "KRAS G12C", "2024-02-27", values=("KRAS=mutated",), detail={"alteration": "G12C"}),
        fact(5, "Biomarker", "EGFR wt, ALK neg", "2024-02-27", values=("EGFR=wild-type", "ALK=negative", "ROS1=negative")),
        fact(9, "Biomarker", "PD-L1 70%", "2024-02-27", values=("PD-L1=high",), detail={"tps": 70.0}),
        fact(7, "Medication", "pembrolizumab", "2024-03-04", codes=("RxNorm|1547545",),
             ancestors=("ATC|L01FF02", "ATC|L01FF", "ATC|L01F", "ATC|L01"))]
    res = assess(spec, paths, build_state("p", facts, D("2024-06-01")), D("2024-06-01"), codes)
    assert "pembrolizumab-monotherapy" in [i.step for i in res.items if i.status == "done"]
    assert "kras-g12c-inhibitor" not in [i.step for i in res.items if i.status in ("missing", "overdue", "due")]
    # the second line the team plans after the first began is the branch taken; an option named before it
    # began is not
    for day, moved in (("2024-05-20", True), ("2024-02-28", False)):
        plan = fact(30, "Medication", "sotorasib", day, assertion="planned", codes=("RxNorm|2550714",),
                    ancestors=("ATC|L01XX73", "ATC|L01XX", "ATC|L01X", "ATC|L01"))
        res = assess(spec, paths, build_state("p", facts + [plan], D("2024-06-01")), D("2024-06-01"), codes)
        assert ("kras-g12c-inhibitor" in [i.step for i in res.items if i.status in ("due", "overdue")]) is moved


def test_a_plan_is_known_from_the_day_its_note_was_written():
    """"hepatectomy scheduled 10/06/2025" written on 14/05: on 20/05 the plan is known, though its day is
    still to come; care that happened is still read by its own day."""
    from dataclasses import replace
    from graphkit.state.build import own_facts
    plan = replace(fact(1, "Procedure", "partial hepatectomy", "2025-06-10", assertion="planned",
                        codes=("SNOMED-CT|71273005",)), recorded=D("2025-05-14"))
    done = replace(fact(2, "Procedure", "colectomy", "2025-06-10", codes=("SNOMED-CT|43075005",)),
                   recorded=D("2025-05-14"))
    happened, planned = own_facts([plan, done], D("2025-05-20"))
    assert planned == [plan] and happened == []
    assert own_facts([plan], D("2025-05-10"))[1] == []  # not yet written


def test_a_group_written_beside_a_tnm_without_m_is_the_day_s_stage():
    from graphkit.state.build import stage_of
    facts = [fact(1, "Stage", "cT3 N1", "2025-03-17", values=("cT3N1",),
                  detail={"basis": "clinical", "t": "T3", "n": "N1", "derived_group": "IIIB", "site": "colorectal"}),
             fact(2, "Stage", "stage IVA", "2025-03-17", values=("IVA",), detail={"site": "colorectal"})]
    stage, history, issues = stage_of(facts, "colorectal")
    assert stage.group == "IVA" and stage.basis == "clinical" and len(history) == 1 and not issues
    full = [fact(1, "Stage", "cT3 N1 M0", "2025-03-17", values=("cT3N1M0",), detail={
        "basis": "clinical", "t": "T3", "n": "N1", "m": "M0", "derived_group": "IIIB", "site": "colorectal"}), facts[1]]
    assert stage_of(full, "colorectal")[2]  # a full TNM that says otherwise is a conflict, as before
    coarse = [fact(1, "Stage", "cT3N3M0", "2024-12-05", values=("cT3N3M0",), detail={
        "basis": "clinical", "t": "T3", "n": "N3", "m": "M0", "derived_group": "IIIC", "site": "lung"}),
              fact(2, "Stage", "unresectable stage III", "2024-12-05", values=("III",), detail={"site": "lung"})]
    assert stage_of(coarse, "lung")[0].group == "IIIC"  # the TNM refines the group written beside it


def test_a_cancer_of_another_organ_never_takes_the_patients_lung_site():
    spec, paths, codes = _spec("nsclc")
    facts = [fact(1, "Stage", "cT1bN0", "2025-02-01", values=("cT1bN0",), detail={"basis": "clinical", "site": "lung"}),
             fact(2, "Cancer", "prostate ca", "2025-02-01", detail={"histology": "cancer", "site": None, "organ": "prostate"},
                  codes=("DOID|DOID:10283",), ancestors=("DOID|DOID:162",))]
    state = build_state("p", facts, D("2025-03-01"))
    assert [c.site for c in state.cancers] == [None]
    assert not assess(spec, paths, state, D("2025-03-01"), codes).applies


def test_a_treatment_a_later_note_says_was_never_started_is_not_given_by_earlier_bookings():
    from graphkit.clinical.treatments import NEVER_STARTED

    durva = dict(codes=("ATC|L01FF03",), ancestors=("ATC|L01FF", "ATC|L01"))
    booked = fact(40, "Medication", "durva", "2025-02-18", **durva)
    never = fact(41, "Medication", "Durvalumab", "2025-03-20", assertion="negated", flags=(NEVER_STARTED,), **durva)
    given = fact(42, "Medication", "durvalumab", "2025-04-01", detail={"status": "started"}, **durva)
    names = lambda facts, at: [t.name for t in build_state("p", _breast(facts), D(at)).treatments]  # noqa: E731
    assert "durva" in names([booked], "2025-03-01")  # before the note that says otherwise
    assert not any(n.lower().startswith("durva") for n in names([booked, never], "2025-03-25"))
    assert "durvalumab" in names([booked, never, given], "2025-04-02")  # a course later started stays


def test_imaging_of_another_region_is_no_care_of_the_cancer():
    from graphkit.clinical.sites import imaging_regions, other_region

    assert imaging_regions("CT abdomen/pelvis") == ("abdomen", "pelvis")
    assert set(imaging_regions("CT C/A/P")) == {"chest", "abdomen", "pelvis"}
    assert other_region(imaging_regions("CT abdomen/pelvis"), "lung")  # a kidney-stone CT is no lung surveillance
    assert not other_region(imaging_regions("CT chest w/ contrast"), "lung")
    assert not other_region(imaging_regions("CT abdomen/pelvis"), "colorectal")
    assert not other_region((), "lung")  # a test with no region written may be any
    assert other_region(imaging_regions("CT angiography"), "colorectal")  # a stroke work-up surveys no cancer


def test_a_marker_sent_with_its_result_pending_is_a_test_that_happened():
    facts = [f for f in _breast() if f.id != "f6"] + [
        fact(11, "Biomarker", "HER2 pending", "2024-01-15", assertion="possible", values=("HER2=pending",))]
    st = build_state("p", facts, D("2024-01-25"))
    assert st.markers["HER2"].status == "pending" and st.marker("HER2") is None


def test_care_given_off_every_eligible_path_still_counts_for_not_indicated_and_brings_its_assessment():
    """Neoadjuvant trastuzumab + docetaxel at stage IA (no eligible path holds it): adjuvant chemotherapy
    is not needed after it (``not_indicated: prior_step``), and its response MRI is not indicated either."""
    spec, paths, codes = _spec("breast-early")
    her2 = dict(codes=("RxNorm|224905",), ancestors=("ATC|L01FD01", "ATC|L01FD", "ATC|L01F", "ATC|L01"))
    doce = dict(codes=("RxNorm|72962",), ancestors=("ATC|L01CD02", "ATC|L01CD", "ATC|L01C", "ATC|L01"))
    base = _breast()[:6] + [
        fact(7, "Stage", "cT1cN0M0", "2024-01-20", values=("cT1cN0M0",),
             detail={"basis": "clinical", "t": "T1c", "n": "N0", "m": "M0", "derived_group": "IA", "site": "breast"}),
        fact(20, "Medication", "trastuzumab", "2024-02-01", **her2),
        fact(21, "Medication", "docetaxel", "2024-02-01", **doce),
        fact(22, "Test", "breast MRI", "2024-05-10", codes=("SNOMED-CT|241615005",)),
        fact(8, "Procedure", "lumpectomy", "2024-06-01", codes=("SNOMED-CT|392021009",)),
        fact(9, "Procedure", "SLNB", "2024-06-01", codes=("SNOMED-CT|396487001",)),
    ]
    a = assess(spec, paths, build_state("p", base, D("2024-12-01")), D("2024-12-01"), codes)
    status = {i.step: i.status for i in a.items}
    assert status["neoadjuvant-her2-therapy"] == "done-not-indicated"
    assert status["adjuvant-chemotherapy"] == "not-applicable"
    assert status.get("neoadjuvant-response-assessment") == "done-not-indicated"


def test_without_progression_a_first_line_under_way_goes_on_to_its_response_scan_not_a_second_line():
    spec, paths, codes = _spec("nsclc")
    no_scan = [f for f in _egfr_stage_iv() if f.text != "CT CAP"]
    res = assess(spec, paths, build_state("p", no_scan, D("2024-08-01")), D("2024-08-01"), codes)
    late = [i.step for i in res.items if i.status in ("due", "overdue", "missing", "option")]
    assert late and late[0] == "advanced-disease-monitoring"
    assert "subsequent-line-therapy" not in late


def test_an_emergency_hartmanns_stoma_its_completion_colonoscopy_and_a_post_operative_cea():
    """Hartmann's (colectomy + end colostomy in one operation note), a CEA before adjuvant capecitabine, a
    completion colonoscopy after the operation: the colostomy is the resection's own part, the colonoscopy
    the work-up done late, and surveillance has not begun."""
    from dataclasses import replace
    spec, paths, codes = _spec("colorectal")
    colon = ("DOID|DOID:234",)
    up = ("DOID|DOID:219", "DOID|DOID:9256", "DOID|DOID:162")
    cape = dict(codes=("RxNorm|194000",), ancestors=("ATC|L01BC06", "ATC|L01BC", "ATC|L01B", "ATC|L01"))
    facts = [
        fact(1, "Test", "CT abdo/pelvis", "2025-01-11", codes=("SNOMED-CT|77477000",)),
        replace(fact(2, "Procedure", "sigmoid colectomy", "2025-01-12", codes=("SNOMED-CT|43075005",)),
                id="op:s0:t0:m10"),
        replace(fact(3, "Procedure", "end colostomy", "2025-01-12", codes=("SNOMED-CT|398740003",)),
                id="op:s1:t0:m40"),
        fact(4, "Cancer", "sigmoid adenocarcinoma", "2025-01-20", codes=colon, ancestors=up, detail={"site": "colon"}),
        fact(5, "Stage", "pT4aN0M0", "2025-01-20", values=("pT4aN0M0",),
             detail={"basis": "pathological", "t": "T4a", "n": "N0", "m": "M0", "derived_group": "IIB", "site": "colon"}),
        fact(6, "Biomarker", "MMR proficient", "2025-01-20", values=("MMR=proficient",)),
        fact(7, "Test", "CEA", "2025-01-21", codes=("LOINC|2039-6",)),
        fact(8, "Test", "colonoscopy", "2025-03-04", codes=("SNOMED-CT|73761001",)),
        fact(9, "Medication", "capecitabine", "2025-03-10", **cape),
    ]
    res = assess(spec, paths, build_state("p", facts, D("2025-06-02")), D("2025-06-02"), codes)
    status = {i.step: i.status for i in res.items}
    assert "palliative-diverting-colostomy" not in status
    assert status["diagnostic-colonoscopy"] == "done"
    assert status["surveillance-cea-ct"] != "done"


def test_an_option_the_record_rules_out_is_closed_while_another_stays_open():
    """BRAF V600E mCRC progressing on first-line FOLFOXIRI/bevacizumab, "not a candidate for hepatic
    resection": liver metastasectomy is no longer an option; the later lines are."""
    from graphkit.clinical.treatments import RULED_OUT
    spec, paths, codes = _spec("colorectal")
    colon = ("DOID|DOID:234",)
    up = ("DOID|DOID:219", "DOID|DOID:9256", "DOID|DOID:162")
    drug = lambda i, name, rx, atc, day: fact(i, "Medication", name, day, codes=(f"RxNorm|{rx}",),  # noqa: E731
                                             ancestors=(f"ATC|{atc}", f"ATC|{atc[:5]}", f"ATC|{atc[:4]}", "ATC|L01"))
    facts = [
        fact(1, "Test", "colonoscopy", "2024-10-01", codes=("SNOMED-CT|73761001",)),
        fact(2, "Cancer", "sigmoid adenocarcinoma", "2024-10-01", codes=colon, ancestors=up, detail={"site": "colon"}),
        fact(3, "Test", "CT C/A/P", "2024-10-08", codes=("SNOMED-CT|77477000",)),
        fact(4, "Stage", "cT3N1M1c", "2024-10-08", values=("IVC",), detail={"basis": "clinical", "site": "colon"}),
        fact(5, "Biomarker", "BRAF V600E", "2024-10-15", values=("BRAF=mutated", "KRAS=wild-type", "NRAS=wild-type")),
        fact(6, "Biomarker", "MSS", "2024-10-15", values=("MSI=stable",)),
        drug(7, "oxaliplatin", "32592", "L01XA03", "2024-10-21"),
        drug(8, "fluorouracil", "4492", "L01BC02", "2024-10-21"),
        drug(9, "irinotecan", "51499", "L01CE02", "2024-10-21"),
        drug(10, "bevacizumab", "253337", "L01FG01", "2024-10-21"),
        fact(11, "Test", "CT C/A/P", "2024-12-23", codes=("SNOMED-CT|77477000",)),
        fact(12, "Problem", "progressive disease", "2025-04-21", codes=("graphkit-problem|disease-progression",)),
    ]
    ruled = fact(13, "Procedure", "hepatic resection", "2025-04-28", assertion="negated",
                 codes=("SNOMED-CT|71273005",), flags=(RULED_OUT,))
    at = D("2025-05-01")
    before = assess(spec, paths, build_state("p", facts, at), at, codes)
    after = assess(spec, paths, build_state("p", facts + [ruled], at), at, codes)
    options = lambda a: {i.step for i in a.items if i.status == "option"}  # noqa: E731
    assert "liver-metastasectomy" in options(before)
    assert "liver-metastasectomy" not in options(after) and options(after)
    assert {i.step: i.status for i in after.items}["liver-metastasectomy"] == "not-applicable"


def test_care_given_is_judged_by_the_stage_known_when_it_was_given():
    spec, paths, codes = _spec("colorectal")
    facts = _rectal_iiib("2024-02-05", "2024-02-09", "2024-02-12", "2024-02-21", "2024-02-21") + [
        fact(7, "Procedure", "SCPRT 25 Gy/5#", "2024-03-04", codes=("SNOMED-CT|33195004",)),
        fact(8, "Medication", "CAPOX", "2024-03-25", codes=("regimen|CAPOX",)),
        fact(9, "Procedure", "anterior resection (TME)", "2024-08-20", codes=("SNOMED-CT|265414003",)),
        # after the TNT the tumour is smaller: ypT2 N0 is stage I, which would make TNT "not indicated"
        fact(10, "Stage", "ypT2N0", "2024-08-30", values=("I",), detail={"basis": "pathological", "site": "rectum"}),
    ]
    day = D("2024-10-01")
    res = assess(spec, paths, build_state("p", facts, day), day, codes)
    assert "total-neoadjuvant-therapy" not in [i.step for i in res.items if i.status == "done-not-indicated"]
    assert "total-neoadjuvant-therapy" in [i.step for i in res.items if i.status == "done"]


def test_paths_that_part_after_the_last_care_done_are_both_still_ahead():
    from graphkit.reason.normative import parts_after_care

    a = ("dx", "chemo", "anti-egfr", "monitoring")
    b = ("dx", "chemo", "anti-egfr", "resection")
    assert parts_after_care(a, b, {"dx", "chemo", "anti-egfr"})
    assert not parts_after_care(a, b, {"dx", "chemo", "resection"})  # care went down one branch
    assert not parts_after_care(("x",), ("y",), set())  # nothing shared: no branch point


def test_a_pathological_stage_with_unassessed_nodes_stages_no_axilla():
    from graphkit.clinical.values import nodes_unassessed

    assert nodes_unassessed("pT2NxM0") and nodes_unassessed("ypT1NX")
    assert not nodes_unassessed("pT1cN0") and not nodes_unassessed("IIA") and not nodes_unassessed(None)
