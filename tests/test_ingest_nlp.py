"""Clinical entities, values, codes and assertion, on sentences like the ones in real notes."""

from __future__ import annotations

from functools import partial

from ingest.link import load_lexicon
from ingest.nlp import extract_mentions, resolve_note


def _one(nlp, sentence, section=None):
    [mentions] = extract_mentions(nlp, [sentence], [section])
    return [(m.text, m.kind, m.assertion, m.value) for m in mentions]


def _assertion(nlp, sentence, word):
    """The assertion of the mention written ``word`` in ``sentence``."""
    return next(x[2] for x in _one(nlp, sentence) if x[0] == word)


def _codes(m) -> set[str]:
    return {f"{c.system}|{c.code}" for c in m.concepts}


def test_assertion_classes(nlp):
    assert ("fever", "Problem", "negated", None) in _one(nlp, "Patient denies chest pain or fever.")
    assert ("breast cancer", "Cancer", "family", None) in _one(nlp, "Mother had breast cancer at 62.")
    assert ("colonoscopy", "Test", "possible", None) in _one(nlp, "If bleeding recurs, consider colonoscopy.")
    assert ("anemia", "Problem", "historical", None) in _one(nlp, "She had pneumonia and anemia in the past.")
    assert ("Anemia", "Problem", "family", None) in _one(nlp, "Anemia in her sister.", "Family History")
    assert ("ovarian cancer", "Cancer", "negated", None) in _one(
        nlp, "FHx: no family history of breast or ovarian cancer.")


def test_chronic_disease_in_history_stays_present_and_an_episode_is_over(nlp):
    got = _one(nlp, "Past medical history of hypertension and a remote MI.")
    assert ("hypertension", "Problem", "present", None) in got
    assert ("MI", "Problem", "historical", None) in got


def test_months_ago_ends_care_but_not_a_recent_complaint_or_what_began_then(nlp):
    assert _assertion(nlp, "Lumpectomy 3 months ago.", "Lumpectomy") == "historical"
    assert _assertion(nlp, "Noticed R breast lump ~2 months ago, enlarging.", "breast lump") == "present"
    assert _assertion(nlp, "Started letrozole 2 months ago.", "letrozole") == "present"
    assert _assertion(nlp, "MI 5 years ago.", "MI") == "historical"


def test_a_parenthesis_names_the_phase_of_a_course(nlp):
    [m] = [m for m in extract_mentions(nlp, ["Total received: 6 doses of trastuzumab (neoadjuvant only)."], [None])[0]]
    assert m.detail.get("phase") == "neoadjuvant"


def test_planned_completed_and_declined_treatment(nlp):
    assert _one(nlp, "Will start osimertinib 80 mg daily.")[0][2] == "planned"
    assert _one(nlp, "s/p L lumpectomy + SLNB.")[0][2] == "historical"
    assert _one(nlp, "She declined radiation.")[0][2] == "negated"
    assert _one(nlp, "Continue letrozole.")[0][2] == "present"


def test_the_cue_is_kept(nlp):
    [mentions] = extract_mentions(nlp, ["Patient denies fever."], [None])
    assert mentions[0].cue == "denies"


def test_general_language_brands_inflections_and_longest_match(nlp):
    [ms] = extract_mentions(nlp, ["He has hypertension and diabetes, takes Norvasc and metformin; "
                                  "Hemoglobin A1c 7.2; neck pain and wheezes."], [None])
    got = {m.text: m for m in ms}
    assert got["hypertension"].kind == got["diabetes"].kind == "Problem"
    assert "RxNorm|17767" in _codes(got["Norvasc"]) and "RxNorm|6809" in _codes(got["metformin"])
    assert "Hemoglobin A1c" in got and "neck pain" in got  # the longest term, never "hemoglobin", "pain"
    assert "wheezes" in got
    assert _one(nlp, "The patient had all of the above.") == []  # "all" is never the leukemia


def test_cancer_as_histology_and_site_is_coded_and_rolls_up(nlp):
    [ms] = extract_mentions(nlp, ["Biopsy: adenocarcinoma of the right lower lobe; squamous NSCLC in the other."],
                            [None])
    cancers = [m for m in ms if m.kind == "Cancer"]
    assert "DOID|DOID:3910" in _codes(cancers[0])  # lung adenocarcinoma
    assert "DOID|DOID:3907" in _codes(cancers[1])  # lung squamous cell carcinoma
    from ingest.link.hierarchy import ancestors

    assert "DOID:3908" in {c.code for c in ancestors("DOID", "DOID:3910")}  # ⊂ NSCLC
    assert "L01EB" in {c.code for c in ancestors("RxNorm", "1721560")}  # osimertinib ∈ EGFR TKI


def test_a_histology_alone_takes_the_site_of_its_note(nlp):
    sents = ["Specimen: sigmoid colon, resection.", "Moderately differentiated adenocarcinoma, 4.5 cm."]
    ms = resolve_note(sents, extract_mentions(nlp, sents, [None, None]))
    [cancer] = [m for m in ms[1] if m.kind == "Cancer"]
    assert "DOID|DOID:234" in _codes(cancer) and cancer.detail["site_from"] == "note"  # colon adenocarcinoma


def test_biomarkers_and_stage_with_normalized_values(nlp):
    values = {v for *_, v in _one(nlp, "ER 80% / PR 5%, HER2 2+ by IHC, FISH amplified; EGFR L858R mutated; "
                                       "ALK rearranged; PD-L1 60%; MLH1 loss; MSS.") if v}
    assert {"ER=positive", "PR=positive", "HER2=positive", "EGFR=mutated", "ALK=positive", "PD-L1=high",
            "MMR=deficient", "MSI=stable"} <= values
    assert "ER=negative;PR=negative;HER2=negative" in {v for *_, v in _one(nlp, "Dx: TNBC.")}
    stages = {v for *_, v in _one(nlp, "pT2N1aM0; ypT1N0; cT4aN2; stage IIIA2; stage IB.")}
    assert {"pT2N1aM0", "ypT1N0", "cT4aN2", "IIIA2", "IB"} <= stages
    assert _one(nlp, "The following procedures were conducted.") == []  # "PR" inside a word is no marker


def test_tnm_gets_its_ajcc_group_when_the_note_names_the_cancer(nlp):
    sents = ["Invasive ductal carcinoma of the left breast.", "Pathologic stage pT2N1aM0."]
    ms = resolve_note(sents, extract_mentions(nlp, sents, [None, None]))
    [stage] = [m for m in ms[1] if m.kind == "Stage"]
    assert stage.detail["derived_group"] == "IIB" and "derived-group:IIB" in stage.flags


def test_bad_values_are_flagged_never_coded_as_something_else(nlp):
    [ms] = extract_mentions(nlp, ["PD-L1 140%; stage VI; on anastrazole."], [None])
    got = {m.kind: m for m in ms}
    assert got["Biomarker"].value == "PD-L1=invalid" and got["Biomarker"].flags
    assert got["Stage"].value == "invalid" and got["Stage"].flags
    assert "RxNorm|84857" in _codes(got["Medication"])  # anastrozole, with the spelling flagged
    assert any(f.startswith("spelling:") for f in got["Medication"].flags)
    sents = ["ER positive (90%).", "ER negative."]
    flagged = [m for ms in resolve_note(sents, extract_mentions(nlp, sents, [None, None])) for m in ms]
    assert all(any(f.startswith("conflict:ER") for f in m.flags) for m in flagged)


def test_treatment_details_dose_fractions_and_start(nlp):
    [ms] = extract_mentions(nlp, ["Whole-breast irradiation 42.5 Gy/16 fx, on letrozole since 3/2023."], [None])
    rt, drug = ms
    assert rt.detail == {"dose_gy": 42.5, "fractions": 16}
    assert drug.detail["start"] == "2023-03" and "RxNorm|72965" in _codes(drug)


def test_mentions_are_coded_from_the_terminologies(nlp):
    [mentions] = extract_mentions(nlp, ["Patient has non-small cell lung cancer (disorder); cisplatin 50 mg injection given."], [None])
    codes = {(c.system, c.code) for m in mentions for c in m.concepts}
    assert ("DOID", "DOID:3908") in codes
    from ingest.link.hierarchy import ancestors

    [drug] = [m for m in mentions if m.kind == "Medication"]  # the clinical drug rolls up to its ingredient
    assert any(("RxNorm", "2555") in {(a.system, a.code) for a in ancestors(c.system, c.code)} | {(c.system, c.code)}
               for c in drug.concepts)
    lex = load_lexicon()
    assert "254837009" in {c.code for c in lex.lookup("Malignant neoplasm of breast (disorder)")}
    assert lex.lookup("white") == []  # LOINC answer codes and SNOMED qualifiers are not events


def test_an_installed_ner_pipeline_can_be_added_by_configuration(tmp_path):
    """Any spaCy pipeline with entities (here one saved to disk with an entity ruler) joins the rules."""
    import spacy

    from ingest.nlp import NlpConfig, build_pipeline

    extra = spacy.blank("en")
    extra.add_pipe("entity_ruler").add_patterns([{"label": "DISEASE", "pattern": "zorblax syndrome"}])
    extra.to_disk(tmp_path / "my_ner")
    nlp = build_pipeline(NlpConfig(extra_ner=str(tmp_path / "my_ner")))
    [mentions] = extract_mentions(nlp, ["Known zorblax syndrome and anemia."], [None])
    assert {(m.text, m.kind) for m in mentions} == {("zorblax syndrome", "Problem"), ("anemia", "Problem")}


def test_named_regimens_are_coded_as_regimens_with_their_components(nlp):
    [mentions] = extract_mentions(nlp, ["Adjuvant FOLFOX for 6 months, then surveillance."], [None])
    [m] = [m for m in mentions if m.kind == "Medication"]
    assert m.text == "FOLFOX" and "regimen|FOLFOX" in _codes(m)
    from ingest.link.hierarchy import ancestors

    assert {"L01XA03", "L01BC02"} <= {c.code for c in ancestors("regimen", "FOLFOX")}  # oxaliplatin, 5-FU


def test_a_treatment_that_ended_before_the_note_is_history_a_started_one_goes_on(nlp):
    from datetime import date

    sents = ["FOLFOX x 12 cycles 11/2023-5/2024 with PR, then capecitabine 1000 mg bid since 6/2024.",
             "Left VATS LUL lobectomy 4/2022: ypT1N0.", "Pembrolizumab until 6/2023.", "CT chest 5/2/2024: stable."]
    ms = resolve_note(sents, extract_mentions(nlp, sents, [None] * 4), note_day=date(2025, 1, 10))
    got = {m.text.split()[0].lower(): m.assertion for row in ms for m in row}
    assert got["folfox"] == "historical" and got["capecitabine"] == "present"
    assert got["left"] == "historical" and got["pembrolizumab"] == "historical"
    assert got["ct"] == "present"  # a dated scan may belong to the current episode of care (R9)
    same_day = resolve_note(sents[2:3], extract_mentions(nlp, sents[2:3], [None]), note_day=date(2023, 6, 1))
    assert same_day[0][0].assertion == "present"  # the period ends after the note: still on it


def test_care_said_not_to_have_happened_and_choices_not_made(nlp):
    # the negation comes after the care, across "but"; a later clause does not reach back over ";"
    assert _one(nlp, "T-DM1 was discussed after surgery but never ordered.")[0][2] == "negated"
    assert _one(nlp, "Bevacizumab was never started.")[0][2] == "negated"
    got = {t: a for t, _, a, _ in _one(nlp, "Plan: CT-guided core bx LLL; EBUS not needed.")}
    assert got["core bx"] == "planned" and got["EBUS"] == "negated"
    got = {t: a for t, _, a, _ in _one(nlp, "Options (1) neoadjuvant ddAC-T; (2) L mastectomy first.")}
    assert got["ddAC-T"] == "possible" and got["L mastectomy"] == "possible"
    assert _one(nlp, "PFTs adequate, fit for lobectomy.")[-1][2] == "possible"
    assert _one(nlp, "Osimertinib 80 mg daily - prior auth submitted, start when approved.")[0][2] == "planned"
    # a drug class named by its target is no biomarker result; a test's "no ..." is its result
    assert "Biomarker" not in [k for _, k, _, _ in _one(nlp, "No HER2-directed therapy since surgery.")]
    assert ("MRI pelvis", "Test", "present", None) in _one(nlp, "MRI pelvis: no residual tumor.")
    assert _one(nlp, "Reviewing records: no HER2-directed therapy.")[0][2] == "negated"


def test_markers_listed_under_a_negative_label_take_its_result(nlp):
    values = {v for *_, v in _one(nlp, "Not detected: EGFR, ALK, ROS1, MET ex14") if v}
    assert values == {"EGFR=wild-type", "ALK=negative", "ROS1=negative", "MET=wild-type"}
    [row] = extract_mentions(nlp, ["Detected: KRAS G12C\nNegative / not detected: BRAF, NRAS"], [None])
    assert [m.value for m in row] == ["KRAS=mutated", "BRAF=wild-type", "NRAS=wild-type"]


def test_a_course_dated_by_a_later_cycle_is_history_dated_by_it(nlp):
    from datetime import date

    sents = ["cT2N1 -> TCHP x6 (C6 6/27/24) -> R lumpectomy 8/12/24."]
    [row] = resolve_note(sents, extract_mentions(nlp, sents, [None]), note_day=date(2025, 1, 27))
    tchp = next(m for m in row if m.text.startswith("TCHP"))
    assert tchp.assertion == "historical" and tchp.detail["end"] == "2024-06-27"


def test_care_dated_after_the_note_is_planned(nlp):
    from datetime import date

    sents = ["mFOLFOX6 q14d x12, C1 5/21/24; port placed 5/17.", "Colonoscopy 3/2026.", "Letrozole since 3/2023."]
    rows = resolve_note(sents, extract_mentions(nlp, sents, [None] * 3), note_day=date(2024, 5, 14))
    got = {m.text.split()[0]: m.assertion for row in rows for m in row}
    assert got["mFOLFOX6"] == "planned" and got["Colonoscopy"] == "planned" and got["Letrozole"] == "present"


def test_care_in_a_sentence_that_dates_a_course_belongs_to_it(nlp):
    from datetime import date

    sents = ["Neoadjuvant cis/pem/pembro x4 given 2/22/24-4/26/24 (C3 cis -> carbo for creatinine bump)."]
    [row] = resolve_note(sents, extract_mentions(nlp, sents, [None]), note_day=date(2024, 6, 24))
    drugs = {m.text.split()[0]: (m.assertion, m.detail.get("end")) for m in row if m.kind == "Medication"}
    assert drugs["carbo"] == ("historical", "2024-04-26") and drugs["pem"] == ("historical", "2024-04-26")


def test_results_after_a_dash_and_a_response_that_is_no_receptor(nlp):
    values = {v for *_, v in _one(nlp, "NGS: EGFR — no mutation; ALK — no fusion; no mutations in KRAS or BRAF.") if v}
    assert {"EGFR=wild-type", "ALK=negative", "KRAS=wild-type", "BRAF=wild-type"} <= values
    assert [k for _, k, _, _ in _one(nlp, "CT chest: nodes decreased, no new lesions — PR.") if k == "Biomarker"] == []
    # a question, a condition or a visit's reason is not care given
    assert _one(nlp, "Pt asked about osimertinib because his sister is on it.")[0][2] == "possible"
    assert _one(nlp, "Reason: PMRT evaluation.")[0][2] == "possible"
    assert ("dMMR", "Biomarker", "possible", "MMR=deficient") in _one(nlp, "TNT unless dMMR, in which case dostarlimab.")


def test_care_for_another_cancer_is_tagged_with_it(nlp):
    sents = ["h/o Hodgkin lymphoma 1985 (ABVD + mantle field RT).", "Dx: L breast IDC s/p lumpectomy 3/2024."]
    rows = resolve_note(sents, extract_mentions(nlp, sents, [None, None]))
    rt = next(m for m in rows[0] if m.text == "RT")
    idc, lump = (next(m for m in rows[1] if m.text.startswith(t)) for t in ("L breast IDC", "lumpectomy"))
    assert rt.detail["for_cancer"] == "other" and lump.detail["for_cancer"] == "breast"
    assert idc.assertion == "present"  # "IDC s/p lumpectomy": the operation is over, not the cancer


def test_a_cancer_treated_years_ago_with_no_disease_now_is_history_and_a_current_one_is_not(nlp):
    from datetime import date

    sents = ["PMH: L breast DCIS 2015 s/p lumpectomy + RT, tamoxifen x5 yr (completed 2020).",
             "s/p RLL lobectomy 8/2024 for stage IA lung adenocarcinoma, NED.",
             "IDC dx 2018 s/p lumpectomy, on anastrozole."]
    rows = resolve_note(sents, extract_mentions(nlp, sents, [None] * 3), note_day=date(2025, 2, 24))
    cancers = {m.text: m for row in rows for m in row if m.kind == "Cancer"}
    assert "past-cancer" in cancers["L breast DCIS"].flags
    assert "past-cancer" not in cancers["lung adenocarcinoma"].flags  # treated months ago: this episode
    assert "past-cancer" not in cancers["IDC"].flags  # its care goes on


def test_a_diagnosis_ruled_out_after_it_is_named_and_a_nondiagnostic_biopsy(nlp):
    assert ("Lung cancer", "Cancer", "negated", None) in _one(nlp, "RUL histoplasmoma. Lung cancer ruled out - no NSCLC.")
    assert ("malignancy", "Cancer", "possible", None) in _one(nlp, "Biopsy was nondiagnostic for malignancy.")
    assert _one(nlp, "Stage IIIA NSCLC, N2 disease not excluded, plan EBUS.")[1][2] == "present"


def test_marker_lists_past_a_variant_and_results_that_are_no_result(nlp):
    got = {v for *_, v in _one(nlp, "Guardant360: NO EGFR, ALK, ROS1, BRAF, MET ex14, RET, NTRK, KRAS alterations "
                                    "detected.") if v}
    assert {"RET=negative", "NTRK=negative", "KRAS=wild-type", "MET=wild-type"} <= got
    assert _one(nlp, "PD-L1 22C3: QNS.") == [("PD-L1 22C3: QNS", "Biomarker", "present", "PD-L1=not-tested")]
    # "+" between two words is "and": no result, and "PD" of "PD-L1" is no problem of its own
    assert _one(nlp, "Core bx of pleural nodule for PD-L1 + tissue NGS.")[-1][1] != "Biomarker"
    assert not [m for m in _one(nlp, "PD-L1 (22C3) attempted - insufficient tumor cells.") if m[1] == "Problem"
                and m[0] == "PD"]


def test_day_first_dates_and_a_regimen_read_as_one(nlp):
    from datetime import date

    sents = ["Specimen received 29/08/2024.", "R WLE + SLNB 08/10/2024 (pT1c pN0) -> weekly paclitaxel x12."]
    rows = resolve_note(sents, extract_mentions(nlp, sents, [None] * 2), note_day=date(2024, 11, 12))
    wle = next(m for m in rows[1] if m.text.endswith("WLE"))
    assert wle.assertion == "historical" and wle.detail["end"] == "2024-10-08"  # 8 October, not 10 August
    from datetime import datetime

    from ingest.tkg.build import sentence_date

    assert sentence_date(sents[1], datetime(2024, 11, 12), day_first=True) == datetime(2024, 10, 8)
    drugs = [m[2] for m in _one(nlp, "If PD-L1 <50%: carbo/pem/pembro.") if m[1] == "Medication"]
    assert drugs == ["possible"] * 3


def test_progression_named_as_a_time_or_a_risk_is_no_finding(nlp):
    assert _one(nlp, "Repeat liquid bx at progression.")[-1][2] == "possible"
    assert _one(nlp, "High risk of recurrence.")[0][2] == "possible"
    assert ("PROGRESSION", "Problem", "present", None) in _one(nlp, "3 new liver lesions => PROGRESSION.")


def test_a_wrapped_line_a_tumour_type_s_usual_result_and_results_not_back_yet(nlp):
    # a cue phrase split by a line wrap still reads; what a tumour type usually shows is no result
    got = _one(nlp, "Classic ILC is almost\nalways ER-positive, but this has to be confirmed.")
    assert [a for t, k, a, _ in got if k == "Biomarker"] == ["possible"]
    assert [m[0] for m in got if m[1] == "Cancer"] == ["ILC"]  # the mention keeps its text as written
    assert {v for *_, v in _one(nlp, "Still no ER/PR/HER2: the block never arrived.") if v} == \
        {"ER=not-tested;PR=not-tested;HER2=not-tested"}
    assert _one(nlp, "no HER2 amplification")[0][3] == "HER2=negative"


def test_care_not_yet_given_advised_weighed_or_named_as_a_time_point(nlp):
    assert _one(nlp, "Adjuvant chemotherapy has NOT yet been given.")[0][2] == "negated"
    assert _one(nlp, "Adjuvant chemotherapy is not indicated at this stage.")[0][2] == "negated"
    assert ("TME", "Procedure", "planned", None) in _one(nlp, "Incomplete response, TME advised.")
    assert ("radiation", "Procedure", "possible", None) in _one(nlp, "She'll think about radiation.")
    got = _one(nlp, "No surgery has been performed; no further chemotherapy given since CRT.")
    assert ("CRT", "Procedure", "historical", None) in got
    assert all(a == "planned" for _, k, a, _ in _one(
        nlp, "Recommend concurrent chemoradiotherapy: 60 Gy/30 fx with weekly carboplatin AUC2/paclitaxel.")
        if k in ("Procedure", "Medication"))


def test_a_board_or_clinic_named_after_a_cancer_and_relatives_with_one(nlp):
    assert not [m for m in _one(nlp, "THORACIC TUMOR BOARD 21-Jul-2025") if m[1] == "Cancer"]
    assert not [m for m in _one(nlp, "Cancer genetics - results visit") if m[1] == "Cancer"]
    got = _one(nlp, "FDR dx <60 -> colonoscopy now. Two paternal relatives with CRC.")
    assert ("colonoscopy", "Test", "present", None) in got and ("CRC", "Cancer", "family", None) in got


def test_small_cell_lung_cancer_is_coded_as_the_lung_s_and_responses_are_read(nlp):
    [ms] = extract_mentions(nlp, ["Dx: limited-stage SCLC."], [None])
    assert "DOID|DOID:5409" in _codes(ms[-1])  # lung small cell carcinoma, not small cell of any organ
    got = _one(nlp, "Flex sig: residual ulcerated tumour - NOT a clinical complete response.")
    assert [v for _, k, _, v in got if k == "Response"] == ["response=incomplete"] * 2
    assert [v for _, k, _, v in _one(nlp, "Clinical complete response; ypT0N0 pathologic complete response.")
            if k == "Response"] == ["response=complete"]


def test_shorthand_terms_doses_full_stops_and_assumed_results(nlp):
    assert ("sentinel node bx", "Procedure", "historical", None) in _one(nlp, "s/p lumpectomy + sentinel node bx.")
    assert [k for _, k, _, _ in _one(nlp, "Treatment: whole breast 40.05 Gy in 15 fractions.")] == ["Procedure"]
    got = _one(nlp, "Surgical path: 0/2 sentinel nodes, no LVI. pT1c pN0(sn).")
    assert [a for _, k, a, _ in got if k == "Stage"] == ["present"]  # the negation ends at the full stop
    assert ("NSCLC", "Cancer", "negated", None) in _one(nlp, "Morphology and IHC exclude NSCLC.")
    assert [a for _, k, a, _ in _one(nlp, "Panitumumab added on the assumption of RAS wild type.")
            if k == "Biomarker"] == ["possible"]
    assert [v for *_, v in _one(nlp, "BRCA2 carrier, high risk for breast cancer.") if v] == ["BRCA2=mutated"]
    assert not [m for m in _one(nlp, "Started PD-1 blockade with dostarlimab.") if m[0] == "PD"]


def test_care_named_as_a_time_point_a_revised_result_and_a_missed_appointment(nlp):
    got = _one(nlp, "No chemo given before or during RT.")
    assert ("chemo", "Procedure", "negated", None) in got and ("RT", "Procedure", "present", None) in got
    assert {a for _, k, a, _ in _one(nlp, 'Problem list still reads "ER+/HER2-neg stage IIA" -> outdated.')
            if k in ("Biomarker", "Stage")} == {"possible"}
    got = _one(nlp, "Originally reported HER2 1+; our review shows HER2 3+ and FISH amplified.")
    assert [(a, v) for _, k, a, v in got if k == "Biomarker"] == [("possible", "HER2=negative"),
                                                                   ("present", "HER2=positive")]
    assert [a for _, k, a, _ in _one(nlp, "Restaging CT: originally 4/15 - pt no-show (transport).")
            if k == "Test"][-1] == "negated"
    assert ("CT", "Test", "planned", None) in _one(nlp, "MD to decide on restart after CT.")
    assert ("cancer", "Cancer", "possible", None) in [
        (t.split()[-1], k, a, v) for t, k, a, v in _one(nlp, "New primary lung cancer on the ddx.")]


def test_a_metastasis_of_a_named_origin_and_a_cancer_word_that_names_a_programme(nlp):
    [ms] = extract_mentions(nlp, ["Lung, RUL core: METASTATIC ADENOCARCINOMA, consistent with colorectal origin."],
                            [None])
    cancer = next(m for m in ms if m.kind == "Cancer")
    assert cancer.detail["site"] == "colorectal" and "DOID|DOID:3910" not in _codes(cancer)  # not lung adenoca
    assert not [m for m in _one(nlp, "Not a NSCLC case; lung cancer pathway not applicable.")
                if m[1] == "Cancer" and m[2] == "present"]


def test_a_treatment_summary_dates_its_course_by_its_start(nlp):
    from datetime import date

    sents = ["Site: R whole breast, 40.05 Gy / 15 fx, then tumour bed boost 10 Gy / 4 fx.",
             "Start 2024-04-15      End 2024-05-08"]
    rows = resolve_note(sents, extract_mentions(nlp, sents, [None] * 2), note_day=date(2024, 5, 10))
    rt = [m for m in rows[0] if m.kind == "Procedure"]
    assert rt and all(m.detail.get("course_start") == "2024-04-15" and m.assertion == "historical" for m in rt)
    assert all("for_cancer" not in m.detail for m in rt)  # "tumour bed" names no other cancer


def test_care_that_did_not_happen_could_not_be_run_or_was_set_aside(nlp):
    assert ("Surgery", "Procedure", "negated", None) in _one(nlp, "Surgery has NOT happened.")
    assert {a for _, k, a, _ in _one(nlp, "Tissue is INSUFFICIENT for PD-L1 IHC and for NGS.") if k == "Test"} \
        == {"negated"}
    got = _one(nlp, "Chemo-IO not favored given the EGFR mutation; not a candidate for lobectomy given severe COPD.")
    assert ("Chemo-IO", "Procedure", "negated", None) in got and ("COPD", "Problem", "present", None) in got
    assert ("TME", "Procedure", "possible", None) in _one(nlp, "Discussed risk of regrowth making TME harder.")
    assert ("pembro", "Medication", "possible", None) in _one(nlp, "Pt leaning to single-agent pembro.")
    got = _one(nlp, "Adjuvant CAPOX since 03/06/2025: oxaliplatin 130 mg/m2 D1; discontinue oxaliplatin; capecitabine alone.")
    assert [a for t, k, a, _ in got if t.startswith("oxaliplatin")] == ["present", "historical"]
    assert ("capecitabine", "Medication", "present", None) in got  # the stop stays in its clause


def test_a_stain_with_no_result_a_lab_named_like_a_drug_and_a_word_that_is_no_drug(nlp):
    got = _one(nlp, "EGFR / ALK status unknown, no PD-L1.")
    assert ("PD-L1", "Biomarker", "present", "PD-L1=not-tested") in got
    assert ("No PD-L1", "Biomarker", "present", "PD-L1=negative") in _one(nlp, "No PD-L1 expression.")
    assert [v for *_, v in _one(nlp, "NGS: no EGFR, ALK.") if v] == ["EGFR=wild-type", "ALK=negative"]
    assert [k for t, k, _, _ in _one(nlp, "Calcium 13.8 mg/dL, PTH suppressed.")] == ["Test", "Test"]
    assert [k for t, k, _, _ in _one(nlp, "Calcium 600 mg daily with vitamin D.")] == ["Medication", "Medication"]
    assert not [m for m in _one(nlp, "Colonoscopy: fungating mass in mid rectum.") if m[1] == "Medication"]


def test_a_bare_tumour_word_in_a_note_that_names_its_cancer_is_no_new_problem(nlp):
    sents = ["Invasive adenocarcinoma of the sigmoid colon.", "Tumor invades through the muscularis propria."]
    rows = resolve_note(sents, extract_mentions(nlp, sents, [None] * 2))
    assert not [m for m in rows[1] if m.kind == "Problem"]
    [alone] = resolve_note(sents[1:], extract_mentions(nlp, sents[1:], [None]))
    assert [m.text for m in alone if m.kind == "Problem"] == ["Tumor"]  # no cancer named: the finding stays


def test_a_course_is_dated_by_its_own_start_before_the_sentence_s_first_date(nlp):
    from datetime import date, datetime

    from ingest.tkg.build import own_date

    sent = "Tx: R lumpectomy 9/17/24; paclitaxel x12 wk from 10/22/24; letrozole since 3/2025."
    [row] = resolve_note([sent], extract_mentions(nlp, [sent], [None]), note_day=date(2025, 6, 1))
    day = {m.text.split()[0]: own_date(m.detail, datetime(2025, 6, 1)) for m in row if m.kind == "Medication"}
    assert day["paclitaxel"] == datetime(2024, 10, 22) and day["letrozole"] == datetime(2025, 3, 1)
    from ingest.nlp.oncology import start_date

    assert start_date(" since 4/29, taking daily") is None  # April 29th or April 2029: no guess
    assert start_date(" since 11/98") == "1998-11"


def test_booked_then_postponed_not_yet_done_part_of_a_plan_and_a_first_dose_taken(nlp):
    got = _one(nlp, "Low anterior resection (TME) was booked 6/24/25 -- postponed at pt request.")
    assert {a for _, k, a, _ in got if k == "Procedure"} == {"negated"}  # the abbreviation goes with its name
    sents = ["Colonoscopy: the 1-year surveillance colonoscopy has NOT been done."]
    [row] = resolve_note(sents, extract_mentions(nlp, sents, [None]))
    assert [(m.text, m.assertion) for m in row if m.kind == "Test"] == [("surveillance colonoscopy", "negated")]
    assert ("RT", "Procedure", "planned", None) in _one(nlp, "Understands RT was part of the plan.")
    got = _one(nlp, "Start alectinib 600 mg BID -- first dose taken in clinic today.")
    assert [a for _, k, a, _ in got if k == "Medication"] == ["present"]


def test_a_regimen_line_is_dated_by_the_cycle_line_under_it(nlp):
    from datetime import date

    sents = ["Adjuvant TC (docetaxel + cyclophosphamide) q21d x 4:", "C1 3/17/25, C2 4/7/25, C3 4/28/25, C4 5/19/25."]
    rows = resolve_note(sents, extract_mentions(nlp, sents, [None] * 2), note_day=date(2025, 5, 22))
    assert {m.detail.get("course_start") for m in rows[0] if m.kind == "Medication"} == {"2025-03-17"}
    assert all(m.assertion == "historical" for m in rows[0] if m.kind == "Medication")
    # or by a table of cycles, a row a line (its header row's drug too)
    sents = ["Adjuvant CAPOX x 4 cycles:", "| cycle | date | oxali 130 mg/m2 |", "| C1 | 15/04/24 | 100 % |",
             "| C2 | 06/05/24 | 100 % |"]
    rows = resolve_note(sents, extract_mentions(nlp, sents, [None] * 4), note_day=date(2024, 9, 30))
    assert {m.detail.get("course_start") for r in rows[:2] for m in r if m.kind == "Medication"} == {"2024-04-15"}


def test_spelled_out_care_shares_its_head_s_fate_and_marker_details_in_parentheses_are_read_past(nlp):
    sents = ["Neoadjuvant chemo-IO (nivolumab + platinum doublet) was offered; pt declined, preferring surgery.",
             "Molecular testing (EGFR, ALK) was not sent."]
    rows = resolve_note(sents, extract_mentions(nlp, sents, [None] * 2))
    assert {m.assertion for m in rows[0] if m.kind in ("Medication", "Procedure")} == {"possible"}  # surgery not declined
    assert [m.assertion for m in rows[1] if m.kind == "Test"] == ["negated"]
    assert [v for *_, v in _one(nlp, "ALK IHC (D5F3) negative; KRAS (codons 12, 13, 61): no mutation detected.")
            if v] == ["ALK=negative", "KRAS=wild-type"]
    assert [v for *_, v in _one(nlp, "ROS1, BRAF and KRAS alterations not detected.") if v] == [
        "ROS1=negative", "BRAF=wild-type", "KRAS=wild-type"]


def test_a_day_written_with_its_month_name_dates_the_care_on_that_day(nlp):
    from datetime import date, datetime

    from ingest.nlp import when
    from ingest.nlp.oncology import start_date
    from ingest.tkg.build import own_date, sentence_date

    # one reader for every written form; "3 Mar 2025" is a day, not the month of March
    assert {when.exact_day(t) for t in ("3 Mar 2025", "03-Mar-2025", "Mar 3, 2025", "3rd March 2025", "03.03.2025",
                                        "3/3/25", "2025-03-03")} == {date(2025, 3, 3)}
    assert when.period_end("Mar 2025") == date(2025, 3, 31)
    assert list(when.periods("CEA decreased 2024")) == [(date(2024, 1, 1), date(2024, 12, 31))]  # a year, no December
    # a dotted day that ends a sentence
    assert list(when.periods("Letrozole since 02.04.2025.", True)) == [(date(2025, 4, 2), date(2025, 4, 2))]
    assert start_date(" started 7 Feb 2025.") == "2025-02-07" and start_date(" since Mar 2023") == "2023-03"
    sent = "SURGICAL PATHOLOGY - Laparoscopic sigmoid colectomy (3 Mar 2025)"
    [row] = resolve_note([sent], extract_mentions(nlp, [sent], [None]), note_day=date(2025, 3, 31))
    [op] = [m for m in row if m.kind == "Procedure"]
    assert op.assertion == "historical" and own_date(op.detail, datetime(2025, 3, 31)) == datetime(2025, 3, 3)
    assert sentence_date("Started tamoxifen 20 mg daily on 26 May 2025.", datetime(2025, 5, 31)) == datetime(2025, 5, 26)
    sent = "Tx: CRT 1/29/24 - 3/6/24 (50.4 Gy + cape)."  # a period dates its course by its start
    [row] = resolve_note([sent], extract_mentions(nlp, [sent], [None]), note_day=date(2024, 6, 24))
    assert [own_date(m.detail, datetime(2024, 6, 24)) for m in row if m.text == "CRT"] == [datetime(2024, 1, 29)]
    assert list(when.days("CRT 28 Dec - 9 Jan 2025")) == [date(2024, 12, 28), date(2025, 1, 9)]  # the range's year
    sent = "Hx: completed 6 cycles TCHP (C1 1 Jul 2024, C6 14/10/2024)."  # history by its cue, dated by its first cycle
    [row] = resolve_note([sent], extract_mentions(nlp, [sent], [None]), note_day=date(2025, 3, 1))
    assert [own_date(m.detail, datetime(2025, 3, 1)) for m in row if m.text == "TCHP"] == [datetime(2024, 7, 1)]


def test_results_analytes_places_and_schedules_are_read_for_what_they_are(nlp):
    got = _one(nlp, "Blood cultures x2 no growth at 5 d, UA negative, CXR without infiltrate.")
    assert {t: a for t, k, a, _ in got if k == "Test"} == {"Blood cultures": "present", "UA": "present",
                                                           "CXR": "present"}  # each test's own result
    got = _one(nlp, "LABS: TSH 12.4 (H), free T4 0.6 (L).")
    assert {t: a for t, k, a, _ in got if k == "Test"} == {"LABS": "present", "TSH": "present", "free T4": "present"}
    got = _one(nlp, "Specimen sent for frozen section: squamous cell carcinoma, bronchial margin free.")
    assert [a for _, k, a, _ in got if k == "Cancer"] == ["present"]  # the margin is free, not the tumour
    assert [k for _, k, _, _ in _one(nlp, "chemo day unit list: no Kadcyla booking found.")] == ["Medication"]
    assert [a for _, k, a, _ in _one(nlp, "3-month CT chest not attended.") if k == "Test"] == ["negated"]
    assert [a for _, k, a, _ in _one(nlp, "Repeat colonoscopy in 1 year.") if k == "Test"] == ["planned"]
    got = _one(nlp, "C2 AC + pembrolizumab postponed 1 wk, now 6/17/24.")
    assert {a for _, k, a, _ in got if k == "Medication"} == {"planned"}  # put off to a new day, still to come
    got = _one(nlp, "Continue zoledronic acid, but next dose deferred until dental evaluation.")
    assert [a for _, k, a, _ in got if k == "Medication"] == ["present"]
    assert [a for _, k, a, _ in _one(nlp, "SD on 1L letrozole.", "Assessment and Plan") if k == "Medication"] == [
        "present"]
    assert [k for _, k, _, _ in _one(nlp, "Attending: thoracic surgery (K. Amari).")] == []
    assert [a for _, k, a, _ in _one(nlp, "Liver resection not feasible.") if k == "Procedure"] == ["negated"]
    got = _one(nlp, "Stage IVB with a T7 vertebral body met and a 9 mm brain met. Pt met with the liver surgeon.")
    assert [t for t, k, _, _ in got if k == "Problem"] == ["vertebral body met", "brain met"]
    got = _one(nlp, "Cannot exclude metastasis vs cyst; no perforation or free air.")
    assert {t: a for t, k, a, _ in got if k == "Problem"} == {"metastasis": "possible", "cyst": "possible",
                                                              "perforation": "negated", "free air": "negated"}
    got = _one(nlp, "Then restage, discuss durvalumab consolidation; revisit endocrine therapy in 2 wks.")
    assert {t: a for t, k, a, _ in got if k in ("Medication", "Procedure")} == {"durvalumab": "possible",
                                                                               "endocrine therapy": "possible"}
    assert [a for t, k, a, _ in _one(nlp, "Oncotype DX to guide chemo decision.") if t == "chemo"] == ["possible"]


def test_family_abbreviations_criteria_alternatives_and_plans_after_history(nlp):
    from datetime import date

    got = _one(nlp, "Indication: FHx breast ca (mother 41, sister DCIS 45) + ovarian ca (MGM 55).")
    assert {(t, a) for t, _, a, _ in got} == {("breast ca", "family"), ("DCIS", "family"), ("ovarian ca", "family")}
    assert ("Colon cancer", "Cancer", "family", None) in _one(nlp, "Colon cancer in father at 60.")
    # a cancer naming a test is no diagnosis; "not indicated" reaches past a parenthesized target list
    got = _one(nlp, "Comment: NSCLC biomarker testing (EGFR/ALK/PD-L1) not indicated for pure SCLC.")
    assert [t for t, k, _, _ in got if k == "Cancer"] == ["SCLC"]
    assert ("biomarker testing", "Test", "negated", None) in got
    assert ("chemotherapy", "Procedure", "planned", None) in _one(nlp, "Stage IIIB (pT3N2a) - chemotherapy indicated.")
    assert ("TME", "Procedure", "planned", None) in _one(nlp, "Second opinion, who also recommended TME.")
    assert ("FOLFOX", "Medication", "present", None) in _one(nlp, "FOLFOX given as recommended.")
    assert ("letrozole", "Medication", "planned", None) in _one(nlp, "Completed RT, plan to start letrozole.")
    assert ("chemotherapy", "Procedure", "historical", None) in _one(nlp, "He received all planned chemotherapy pre-op.")
    # an alternative is as conditional as the first choice; a stage a rule is written for is no finding
    got = _one(nlp, "If pMMR/MSS -> adjuvant CAPOX x3 mo (or capecitabine).")
    assert [a for t, _, a, _ in got if t == "capecitabine"] == ["possible"]
    got = _one(nlp, "Adjuvant chemo is standard for stage II-IIIA and not for IA.")
    assert [a for _, k, a, _ in got if k == "Stage"] == ["possible"]
    assert [v for _, k, _, v in _one(nlp, "No MSI PCR either.") if k == "Biomarker"] == ["MSI=not-tested"]
    assert ("Keppra", "Medication", "historical", None) in _one(nlp, "Off Keppra since 1/2025.")
    got = _one(nlp, "Risks incl. bleeding, prolonged air leak, pneumonia and atrial fibrillation were reviewed.")
    assert {a for _, k, a, _ in got if k == "Problem"} == {"possible"}
    assert ("amlodipine", "Medication", "present", None) in _one(nlp, "Cont amlodipine.", "Plan")
    assert ("TSH", "Test", "present", None) in _one(nlp, "Hypothyroidism - TSH 2.1 (5/2025).", "Plan")
    # the phase a clause names places a retold course on its side of the operation
    [[m]] = extract_mentions(nlp, ["Received chemotherapy pre-op."], [None])
    assert m.detail.get("phase") == "neoadjuvant"
    # a history line that opens with its date tells an operation that is over
    sent = "* 04/2024 lap sigmoid colectomy: pT4a pN2a."
    [row] = resolve_note([sent], extract_mentions(nlp, [sent], [None]), note_day=date(2025, 5, 1))
    assert [m.assertion for m in row if m.kind == "Procedure"] == ["historical"]


def test_outcomes_by_result_permissions_oughts_and_hgvs_variants(nlp):
    from datetime import date

    got = _one(nlp, "Relevance: stage IB EGFR ex19del/L858R -> adjuvant osimertinib x 3 yrs; if EGFR wild-type -> "
                    "surveillance.")
    assert {a for _, k, a, _ in got if k in ("Biomarker", "Medication")} == {"possible"}
    assert ("trastuzumab", "Medication", "planned", None) in _one(nlp, "OK to resume trastuzumab with 3-monthly echo.")
    assert ("RT", "Procedure", "planned", None) in _one(nlp, "Informed her RT should ideally not be delayed further.")
    assert ("Chemoradiation", "Procedure", "negated", None) in _one(nlp, "Chemoradiation is therefore NOT the pathway.")
    assert ("CRT", "Procedure", "historical", None) in _one(nlp, "ypT2 N1a after long-course CRT + TME.")
    got = _one(nlp, "KRAS: c.35G>T p.(Gly12Val) - DETECTED (VAF 31%)")
    assert [(k, v) for _, k, _, v in got] == [("Biomarker", "KRAS=mutated")]  # no "Val" (valine) drug
    sents = ["P: Adjuvant chemotherapy recommended: ddAC x 4, then weekly paclitaxel x 12.", "Port placement 7/5.",
             "Then whole-breast RT."]
    rows = resolve_note(sents, extract_mentions(nlp, sents, [None] * 3), note_day=date(2023, 6, 27))
    assert [m.assertion for m in rows[2] if m.kind == "Procedure"] == ["planned"]


def test_report_layouts_dot_leaders_table_cells_and_combined_positive_scores(nlp):
    assert [v for _, k, _, v in _one(nlp, "Estrogen receptor ........ POSITIVE, 90% (strong)") if k == "Biomarker"] \
        == ["ER=positive"]
    # a table's next cell is another column: "1.2% unstable loci" is not MSI-high
    got = _one(nlp, "| MSI                | stable (MSS)                  | 1.2% unstable loci |")
    assert [v for _, k, _, v in got if k == "Biomarker"] == ["MSI=stable"]
    got = _one(nlp, "NEGATIVE for reportable alterations in: ALK, ROS1, RET and NTRK1-3.")
    assert {v for _, k, _, v in got if k == "Biomarker"} == {"ALK=negative", "ROS1=negative", "RET=negative",
                                                              "NTRK=negative"}
    [[m]] = extract_mentions(nlp, ["PD-L1 22C3 CPS 15."], [None])
    assert m.value == "PD-L1=positive" and m.detail.get("cps") == 15.0  # a score, not a percent of cells


def test_a_decision_table_names_conditions_and_options_not_results(nlp):
    got = _one(nlp, "Therapy decision deferred until receptor status known (TNBC / HER2+: neoadjuvant systemic "
                    "therapy; HR+/HER2-: primary breast-conserving surgery + SLNB).")
    assert {a for _, k, a, _ in got if k in ("Biomarker", "Procedure")} == {"possible"}
    report = _one(nlp, "ER: positive; PR: negative; HER2: 1+")  # a report's results, not a table
    assert [a for _, k, a, _ in report if k == "Biomarker"] == ["present"] * 3


def test_care_that_did_not_go_ahead_or_is_told_to_come(nlp):
    got = _one(nlp, "Durvalumab C1 on 03/06/2025 did NOT go ahead - patient admitted with pneumonia.")
    assert ("Durvalumab", "Medication", "negated", None) in got and ("pneumonia", "Problem", "present", None) in got
    assert {a for _, k, a, _ in _one(nlp, "Pt instructed to go to ED now for CBC, blood cultures x2, CXR, UA.")
            if k == "Test"} == {"planned"}
    assert _one(nlp, "Surveillance CT chest q6 months x 2-3 yrs.")[0][2] == "planned"
    assert _one(nlp, "Trastuzumab q3w continues, C9 given 1/6/25.")[0][2] == "present"  # a dosing interval
    assert ("Osimertinib", "Medication", "negated", None) in _one(nlp, "Osimertinib not applicable (EGFR wt).")
    assert ("segmentectomy", "Procedure", "negated", None) in _one(nlp, "FEV1 38%, prohibitive risk even for segmentectomy.")


def test_a_status_post_is_of_the_care_not_of_a_chronic_disease_and_list_items_end_a_cue(nlp):
    got = _one(nlp, "CAD s/p LAD stent 2019, hypothyroidism.")
    assert ("CAD", "Problem", "present", None) in got and ("hypothyroidism", "Problem", "present", None) in got
    items = _one(nlp, "2. Prolonged air leak, resolved 3. COPD, mild")
    assert ("Prolonged air leak", "Problem", "historical", None) in items and ("COPD", "Problem", "present", None) in items


def test_a_deposit_named_by_its_histology_is_a_metastasis_and_the_cancer_it_proves(nlp):
    got = _one(nlp, "Cell block: METASTATIC ADENOCARCINOMA.")
    assert {k for _, k, _, _ in got} == {"Problem", "Cancer"}
    assert ("metastatic carcinoma", "Problem", "negated", None) in _one(nlp, "One lymph node, negative for metastatic carcinoma (0/1).")
    [ms] = extract_mentions(nlp, ["Hx: prostate ca, treated."], [None])
    assert next(m for m in ms if m.kind == "Cancer").detail.get("site") == "prostate"  # never takes another site
    sents = ["Prostate ca in father.", "CT chest: LUL mass.", "EBUS: adenocarcinoma."]
    ms = resolve_note(sents, extract_mentions(nlp, sents, [None] * 3))
    assert [m.detail.get("site") for s in ms for m in s if m.kind == "Cancer"] == ["prostate", "lung"]  # a relative's organ is not his
    sents = ["Frozen section (R ovary): high-grade serous carcinoma."]
    [ms] = resolve_note(sents, extract_mentions(nlp, sents, [None]))
    assert [c.code for m in ms if m.kind == "Cancer" for c in m.concepts if c.system == "DOID"] == ["DOID:0050933"]


def test_marker_lists_with_variants(nlp):
    values = lambda s: [v for _, k, _, v in _one(nlp, s) if k == "Biomarker"]  # noqa: E731
    assert values("pT3 pN1b, MSS, KRAS G12D, BRAF wt.") == ["MSI=stable", "KRAS=mutated", "BRAF=wild-type"]
    assert values("KRAS, BRAF V600E, MET exon 14 skipping: not detected") == ["KRAS=wild-type", "BRAF=wild-type",
                                                                              "MET=wild-type"]
    assert "KRAS=mutated" not in values("No EGFR, ALK, ROS1, BRAF V600E, MET ex14, RET, or KRAS G12C alterations detected.")


def test_an_ambiguous_numeric_date_reads_the_way_that_puts_it_near_the_note():
    from datetime import date

    from ingest.nlp import when

    assert when.day_first(["C1 on 03/06/2025 did not go ahead"], date(2025, 6, 10))  # 3 June, a week before
    assert not when.day_first(["CT 03/06/2025"], date(2025, 3, 10))  # 6 March
    assert when.day_first(["CT 20/02/2025 and 03/06/2025"], date(2025, 3, 10))  # the note's own convention decides
    # fewer days after the note first: March to August, not April to a December still to come
    assert not when.day_first(["completed regimen 3/4/24 - 8/12/24 (last AC+pembro 8/12)."], date(2024, 9, 16))


def test_a_topic_line_takes_its_status_from_the_scheduling_sentence_after_it(nlp):
    sents = ["Surgery: laparoscopic low anterior resection + TME.", "Originally listed for 05/06/2025 - cancelled."]
    rows = resolve_note(sents, extract_mentions(nlp, sents, [None, None]))
    assert {m.assertion for m in rows[0] if m.kind == "Procedure"} == {"planned"}


def test_care_still_owed_ordered_cancelled_or_only_discussed_is_not_care_given(nlp):
    a = partial(_assertion, nlp)
    assert a("She will also need post-mastectomy radiotherapy (pN1a, LVI+).", "radiotherapy") == "planned"
    assert a('"Surveillance chest CT at 6 months to be arranged by the lung CNS team."', "chest CT") == "planned"
    assert a("Echo requested by cardiology was normal.", "Echo") == "present"  # a request with its result
    assert a("Pt phoned to cancel restaging CT (2/10) and durvalumab C1 (2/17).", "durvalumab") == "negated"
    assert a("Rebooked CT 3/3 & durva 3/10.", "durva") == "planned"
    assert a("Anthracyclines will be avoided given her cardiac history.", "Anthracyclines") == "negated"
    assert a("LAURA supports osimertinib after CRT.", "osimertinib") == "possible"
    assert a("Re: Mrs Patricia H. - post-mastectomy radiotherapy", "radiotherapy") == "possible"
    assert a("Rad onc referral re: whole-breast RT after BCS.", "RT") == "planned"
    assert a("Surgeon: deep margin at the fascia is the anatomical limit, re-excision not possible.",
             "re-excision") == "negated"
    # a hyphen joins a cue to its own word; "never" stops at a comma; a stage is negated only right after a cue
    assert a("For a small, node-negative HER2-positive cancer my recommendation is surgery first.", "cancer") == "present"
    assert a("63F never smoker, stage IVB lung adenocarcinoma", "stage IVB") == "present"
    assert a("Rad onc: no PMRT - cN0 at presentation.", "cN0") == "present"
    assert a("NOT stage IV.", "stage IV") == "negated"


def test_a_cue_in_a_parenthesis_reaches_out_only_to_the_care_right_before_it(nlp):
    sents = ["Adjuvant RT: whole breast + nodal RT after chemo (if given)"]
    [row] = resolve_note(sents, extract_mentions(nlp, sents, [None]))
    assert [(m.text, m.assertion) for m in row] == [("RT", "planned"), ("chemo", "possible")]


def test_table_cells_dot_leaders_and_capital_lines():
    from graphkit.clinical.values import find_biomarkers
    from ingest.link import load_lexicon
    from ingest.text import split_sentences

    values = lambda t: [v for f in find_biomarkers(t) for v in f.values]  # noqa: E731
    assert values("| BRAF V600E | not detected | not detected |") == ["BRAF=wild-type"]
    assert values("| ALK fusion | not detected |") == ["ALK=negative"]
    assert values("| MET | - | - |") == []
    assert values("with PD-L1 >= 50%, atezolizumab") == ["PD-L1=high"]
    text = "Estrogen receptor (ER) ........... POSITIVE, 95% of nuclei, strong\nMLH1 ...... LOSS of nuclear expression"
    assert [text[s.start:s.end] for s in split_sentences(text)] == text.split("\n")
    kinds = {m.kind for m in load_lexicon().find("A. BREAST, RIGHT: 2.1 CM. ALL MARGINS NEGATIVE; CT CHEST CLEAR.")}
    assert "Cancer" not in kinds and "Test" in kinds  # "ALL" is a word there, "CT CHEST" still a test


def test_questions_plans_before_care_holds_and_unsuitability(nlp):
    a = partial(_assertion, nlp)
    assert a('Asks: "am I still supposed to do the radiation? nobody ever called me".', "radiation") == "possible"
    assert a("Prior chemotherapy? Yes, FOLFOX 2019.", "chemotherapy") != "possible"  # a form's answered question
    assert a("Pre-op/pre-chemo work-up done: Hb 12.1, ECG NSR.", "chemo") == "planned"
    assert a('He has "heard nothing about the immunotherapy" since January.', "immunotherapy") == "possible"
    assert a("Neurosurgical opinion: not for resection (multiple mets, PS 2).", "resection") == "negated"
    assert a("Capecitabine held during admission.", "Capecitabine") == "negated"
    assert a("ECOG 0, PFT adequate for lobectomy.", "lobectomy") == "possible"
    assert a("Adjuvant platinum chemotherapy is not routinely given in stage IB.", "chemotherapy") == "possible"
    assert a("- Pegfilgrastim on-body injector applied today.", "Pegfilgrastim") == "present"
    assert a("AFib on apixaban (held periop).", "apixaban") == "present"  # still on it
    assert a("- Mucositis, chest pain, fever >=38 C -> call 24-h acute oncology line.", "fever") == "possible"
    assert a("MRI: 3.6 cm R breast NME + suspicious R axillary LN.", "R axillary LN") == "possible"
    assert a("Haemoptysis settled by D4.", "Haemoptysis") == "historical"


def test_node_findings_lists_past_a_semicolon_and_conjunction_plus():
    from graphkit.clinical.values import find_biomarkers
    from ingest.nlp.findings import find_node_findings

    text = "CT: enlarged L hilar nodes and AP window nodes. Axillary nodes: 0/13. No supraclavicular nodes."
    assert [text[f.start:f.end] for f in find_node_findings(text)] == ["enlarged L hilar nodes", "AP window nodes",
                                                                        "supraclavicular nodes"]
    values = lambda t: [v for f in find_biomarkers(t) for v in f.values]  # noqa: E731
    assert values("NOT DETECTED: ALK, ROS1 fusions; KRAS, BRAF V600E, MET exon 14 skipping mutations.") == [
        "ALK=negative", "ROS1=negative", "KRAS=wild-type", "BRAF=wild-type", "MET=wild-type"]
    assert "KRAS=mutated" in values("Negative: ALK, ROS1; KRAS G12C detected.")
    assert values("Plan: request EGFR + NGS on the resection block.") == []  # "+" joins two tests
    assert values("ER + PR + HER2 -") == ["ER=positive", "PR=positive", "HER2=negative"]
    assert values("pT2 pN1a, ER 8/8, PR 2/8, HER2 neg.") == ["ER=positive", "PR=negative", "HER2=negative"]  # Allred


def test_vocabulary_reads_abbreviations_as_written_and_histories_as_history(nlp):
    from ingest.link import load_lexicon
    from ingest.nlp import when
    from ingest.text.sections import split_sections

    lex = load_lexicon()
    assert [c.code for c in lex.lookup("eGFR")] == ["33914-3"] and not lex.lookup("EGFR")  # the gene stays a marker
    assert lex.lookup("EtOH")[0].code == "F10.90"  # use, not abuse
    assert lex.lookup("diagnostic laparoscopy")[0].code == "73632009"  # not a laparotomy
    text = "Background:\n- Breast ca 2008 - L WLE + RT, tamoxifen x5 yrs; NED.\nDecisión: VATS lobectomy."
    assert [s.name for s in split_sections(text)] == ["Past Medical History", "Plan"]
    assert [s.name for s in split_sections("Follow-up:\n- CT TAP at 12 months")] == ["Plan"]
    assert list(when.ranges("thoracic RT 45 Gy/30# BD (17/02 - 14/03/2025).", True))[0][0].isoformat() == "2025-02-17"
    cancers = lambda t: [m.text for m in extract_mentions(nlp, [t], [None])[0] if m.kind == "Cancer"]  # noqa: E731
    assert cancers("CLINICAL HISTORY: Colon ca - ascending colon adenocarcinoma, R hemicolectomy.") == [
        "Colon ca", "ascending colon adenocarcinoma"]  # a term straddling both is neither
    assert cancers("Hypermetabolic LUL primary with N2 nodal disease.") == ["LUL primary"]
    assert cancers("Primary care follow-up; primary surgery planned.") == []
    sents = ["EBUS: adenocarcinoma of the right lower lobe.", "Plan: SBRT to the RLL primary."]
    rows = resolve_note(sents, extract_mentions(nlp, sents, [None, None]))
    assert {c.code for m in rows[1] if m.kind == "Cancer" for c in m.concepts} >= {"DOID:3910"}  # the note's tumour
    [ms] = extract_mentions(nlp, ["INVASIVE BREAST CARCINOMA OF NO SPECIAL TYPE (IDC-NST)"], [None])
    assert {(m.detail.get("histology"), m.assertion) for m in ms if m.kind == "Cancer"} == {
        ("invasive ductal carcinoma", "present")}


def test_biomarker_statements_of_clinical_shorthand():
    from graphkit.clinical.values import find_biomarkers

    def values(text):
        return [v for f in find_biomarkers(text) for v in f.values]
    # one statement per protein, as the annotation guideline labels them ("all" is a filler word)
    assert values("MMR IHC: MLH1, PMS2, MSH2, MSH6 all intact (proficient).") == ["MMR=proficient"] * 4
    assert values("anti-EGFR not an option given KRAS mutation.") == ["KRAS=mutated"]
    assert values("KRAS mutation testing sent.") == ["KRAS=pending"] and values("EGFR mutations: none.") == []
    assert values("mCRPC progressing on enzalutamide. BRCA2m.") == ["BRCA2=mutated"]
    assert values("lung adeno with ALK fusion") == ["ALK=positive"]  # "adeno" holds no "no"
    assert values("2nd line KRAS G12C inhibitor") == []  # a drug class, not a result


def test_paperwork_consent_queries_and_visit_doses(nlp):
    assert _assertion(nlp, "PA for durvalumab approved 7/31.", "durvalumab") == "planned"
    assert _assertion(nlp, "Pt understands and is willing to have chemotherapy.", "chemotherapy") == "planned"
    assert _assertion(nlp, "Note: pt reports T-DM1 still has NOT started.", "T-DM1") == "negated"
    assert _assertion(nlp, 'Reason for referral: "2WW - ?breast ca, R breast lump".', "breast ca") == "possible"
    assert _assertion(nlp, "Proceed w/ C5 today: oxaliplatin 65 mg/m2.", "oxaliplatin 65 mg/m2") == "present"
    assert _assertion(nlp, "Med onc seen today: cisplatin to start ~10/28.", "cisplatin") == "planned"
    assert _assertion(nlp, "Plan: re-discuss at MDT; decide on durvalumab start.", "durvalumab") == "planned"
    assert _assertion(nlp, "A/P: ALK+ NSCLC on alectinib, ongoing response.", "alectinib") == "present"
    assert _assertion(nlp, "Next echo due after C4.", "echo") == "planned"
    assert _assertion(nlp, "Annual mammogram was normal.", "mammogram") == "present"


def test_lists_of_what_was_looked_for_and_stages_of_other_diseases(nlp):
    from graphkit.clinical.values import find_biomarkers, find_stages

    def values(text):
        return [v for f in find_biomarkers(text) for v in f.values]
    # two driver variants in one list sharing a negative result: what the panel looked for
    assert values("BRAF V600E, MET ex14 skipping, KRAS, ERBB2 not detected.") == [
        "BRAF=wild-type", "MET=wild-type", "KRAS=wild-type", "HER2=negative"]
    # one variant stays the result it is
    assert values("EGFR L858R, ALK, ROS1 negative.") == ["EGFR=mutated", "ALK=negative", "ROS1=negative"]
    assert values("KRAS G12D, BRAF V600E not detected.") == ["KRAS=mutated", "BRAF=wild-type"]
    # a group given to a TNM without the word "stage"
    assert [f.value for f in find_stages("Stage cT2b N2 M1c - IVB.")] == ["cT2bN2M1c", "IVB"]
    assert [f.value for f in find_stages("pT1c N0 - I discussed")] == ["pT1cN0"]
    # CKD's stage is no cancer's; a mass's is
    kinds = [x[1] for x in _one(nlp, "PMH: CKD stage 3, COPD.")]
    assert "Stage" not in kinds
    assert ("stage IIIA", "Stage", "present", "IIIA") in _one(nlp, "LUL mass stage IIIA.")


def test_care_for_other_conditions_beginnings_and_joined_drugs(nlp):
    def resolved(sentence, section=None):
        [ms] = resolve_note([sentence], extract_mentions(nlp, [sentence], [section]))
        return {m.text: m for m in ms}
    by = resolved("PMH: rheumatoid arthritis on methotrexate 15mg weekly + folic acid.")
    assert by["methotrexate 15mg weekly"].detail.get("indication") == "ICD-10-CM|M06.9"
    assert by["folic acid"].detail.get("indication") == "ICD-10-CM|M06.9"
    assert not resolved("Bone mets on denosumab.")["denosumab"].detail.get("indication")  # the cancer's care
    assert _assertion(nlp, "Durvalumab NOT yet commenced - appt cancelled.", "Durvalumab") == "negated"
    assert _assertion(nlp, "- Withhold metformin until eating normally.", "metformin") == "negated"
    assert resolved("- Continue ribociclib 400 mg d1-21 q28d + letrozole.", "Plan")["letrozole"].assertion == "present"
    assert _assertion(nlp, "EGFR on resection requested (? adjuvant osimertinib / alectinib).", "alectinib") == "possible"
    assert _assertion(nlp, "Family: mother d. ovarian ca at 45.", "ovarian ca") == "family"
    # a "not" inside the condition is the condition's
    assert _assertion(nlp, "If no response, consider docetaxel.", "docetaxel") == "possible"
    assert _assertion(nlp, "If not fit, no surgery.", "surgery") == "negated"
    texts = [x[0] for x in _one(nlp, "Type 2 diabetes mellitus, non-insulin-dependent. Mammogram - NAD. Oncomine panel.")]
    assert "insulin" not in texts and "NAD" not in texts and "Oncomine" not in texts


def test_a_clause_s_subject_conditions_of_a_plan_advice_and_reflex_tests(nlp):
    from graphkit.clinical.values import find_biomarkers

    def values(text):
        return [v for f in find_biomarkers(text) for v in f.values]
    # "cannot be excluded" reaches the whole subject of its clause, care only right before it
    assert _assertion(nlp, "Primary lung neoplasm with hilar nodal spread cannot be excluded.", "neoplasm") == "possible"
    said = _one(nlp, "New RLL GGO; osimertinib-related pneumonitis cannot be excluded.")
    assert ("osimertinib", "Medication", "present", None) in said and ("pneumonitis", "Problem", "possible", None) in said
    # the condition of a plan is no past event; "Advice:" is the plan; a course "complete" is over
    assert _assertion(nlp, "Osimertinib 80 mg OD to start once drug received.", "Osimertinib 80 mg") == "planned"
    from ingest.text import split_sections

    assert [s.name for s in split_sections("Imp: ?Ca lung.\nAdvice: CECT thorax, bronchoscopy.\n")][-1] == "Plan"
    assert _assertion(nlp, "Stage IIIB sigmoid colon ca, adjuvant chemo complete.", "chemo") == "historical"
    assert _assertion(nlp, "Continue adjuvant pembrolizumab to complete 1 year.", "pembrolizumab") == "present"
    # a visit named by its care, an origin named by "primary", a hyphenated NSCLC subtype
    assert "Radiotherapy" not in [x[0] for x in _one(nlp, "Radiotherapy intake - Dr. Jansen")]
    assert "Cancer" not in [x[1] for x in _one(nlp, "Favour SCC, consistent with primary lung origin.")
                            if x[0].lower().startswith("primary")]
    [m] = [m for m in extract_mentions(nlp, ["EBUS: NSCLC-SCC."], [None])[0] if m.kind == "Cancer"]
    assert "DOID|DOID:3907" in _codes(m)  # lung squamous cell carcinoma, not NSCLC alone
    # a loss named before proteins is theirs; a reflex test awaited is no result; a fusion partner is read past
    assert values("MMR IHC: loss of MLH1 and PMS2 nuclear expression, MSH2/MSH6 retained.") == ["MMR=deficient"]
    assert values("HER2: IHC 2+ (equivocal), reflex FISH NOT AMPLIFIED.") == ["HER2=negative"]
    assert values("HER2 IHC 2+ (equivocal), reflex FISH sent and pending.")[0] == "HER2=equivocal"
    assert values("ALK rearrangement (EML4-ALK v3) POSITIVE.") == ["ALK=positive"]


def test_one_context_rule_per_phrase():
    from collections import Counter

    from ingest.nlp.assertion import context_rules

    phrases = Counter(r.literal.lower() for r in context_rules() if not isinstance(r.pattern, list))
    assert [p for p, n in phrases.items() if n > 1] == []
    # the twin with the wider reach gives its reach to the first definition
    [risks] = [r for r in context_rules() if r.literal.lower() == "risks reviewed"]
    assert risks.max_scope == 24


def test_nil_argues_against_grade_zero_non_and_care_that_was_meant_to_happen(nlp):
    from graphkit.clinical.values import find_biomarkers, find_stages

    said = _one(nlp, "- Nil peripheral neuropathy. Nil fevers/rigors.")
    assert {a for _, _, a, _ in said} == {"negated"}
    cases = [  # (sentence, mention, assertion)
        ("Profile argues against metastatic colorectal carcinoma.", "metastatic colorectal carcinoma", "negated"),
        ("Retired bank officer, non-smoker, from Pune.", "smoker", "negated"),
        ("- Hand-foot syndrome gr 0. Fatigue gr 1.", "Hand-foot syndrome", "negated"),
        ("- Hand-foot syndrome gr 0. Fatigue gr 1.", "Fatigue", "present"),
        ("Oxaliplatin not advisable given baseline neuropathy.", "Oxaliplatin", "negated"),
        ("Molecular testing was not requested as the treatment is local.", "Molecular testing", "negated"),
        ("Kadcyla was meant to run concurrently per med onc.", "Kadcyla", "planned"),
    ]
    assert [_assertion(nlp, sentence, word) for sentence, word, _ in cases] == [a for _, _, a in cases]
    assert "negated" not in {a for _, _, a, _ in _one(nlp, "Non-small cell lung cancer, nil by mouth from midnight.")}
    # a reflex ISH after a semicolon decides the IHC 2+; an MRI-staged T is a clinical T
    assert [v for f in find_biomarkers("HER2: IHC 2+ (equivocal); reflex FISH not amplified.") for v in f.values] == [
        "HER2=negative"]
    assert [v for f in find_biomarkers("HER2: IHC 2+ (equivocal); reflex FISH sent.") for v in f.values] == [
        "HER2=equivocal"]
    assert [f.value for f in find_stages("mid rectal tumour, mrT3c, EMVI positive")] == ["cT3c"]


def test_british_signs_methods_in_brackets_tables_and_checklist_answers(nlp):
    from graphkit.clinical.values import find_biomarkers, find_stages

    def values(text):
        return [v for f in find_biomarkers(text) for v in f.values]

    assert values("ER-ve/PR-ve/HER2-ve (triple negative).")[:3] == ["ER=negative", "PR=negative", "HER2=negative"]
    assert values("ER +ve, PR -ve.") == ["ER=positive", "PR=negative"]
    assert values("ER 0, PR 0, HER2 0.") == ["ER=negative", "PR=negative", "HER2=negative"]
    assert values("Pembrolizumab not indicated (ALK+).") == ["ALK=positive"]  # no synonym of another marker
    assert values("EGFR (RT-PCR, exons 18-21): NO mutation detected") == ["EGFR=wild-type"]
    assert values("ALK (IHC D5F3, Ventana): NEGATIVE") == ["ALK=negative"]
    assert values("BRAF V600E (VE1 IHC): negative.") == ["BRAF=wild-type"]
    assert values("KRAS exon 2 (codons 12/13) real-time PCR: not detected.") == ["KRAS=wild-type"]
    # a table's middle cell says what was tested, not the result
    assert values("| KRAS | 2, 3, 4        | wild-type                      |") == ["KRAS=wild-type"]
    assert values("| HER2 | amplification  | not amplified                  |") == ["HER2=negative"]
    assert [f.value for f in find_stages("IDC gr III, pT1c N0 (sn) M0, Stage IA.")] == ["pT1cN0M0", "IA"]
    cases = [  # (sentence, mention, assertion)
        ("FHx: BRCA1 carrier. Mum had ovarian ca at 49, MGM breast ca.", "ovarian ca", "family"),
        ("FHx: BRCA1 carrier. Mum had ovarian ca at 49, MGM breast ca.", "breast ca", "family"),
        ("- Mucositis - none. No fever.", "Mucositis", "negated"),
        ("Tumour board: upfront BCS + SLNB f/b adjuvant chemo with trastuzumab x 1 yr.", "trastuzumab x 1 yr",
         "planned"),
        ("Tumour board: upfront BCS + SLNB f/b adjuvant chemo with trastuzumab x 1 yr.", "Tumour board", "present"),
        ("No treatment started. Provisional chemo-day slot 10.06 held.", "chemo", "planned"),
        ("MDT: all systemic therapy already delivered pre-op -> no adjuvant chemotherapy.", "systemic therapy",
         "historical"),
        ("Our staging: cT3 N1 M0 = stage IIIA. Please assess for lobectomy.", "lobectomy", "possible"),
        ("Rash gr 2 - on doxycycline, using emollients. Loperamide PRN effective.", "emollients", "present"),
    ]
    assert [_assertion(nlp, sentence, word) for sentence, word, _ in cases] == [a for _, _, a in cases]
    assert _one(nlp, "MLH1 promoter methylation: not detected.")[0][2] == "present"  # a test's result (R11)
    # the patient's performance status under a family history list; room air after "weaned to"
    assert _one(nlp, "ECOG 1.", "Family History")[0][2] == "present"
    assert all(k != "Problem" for _, k, _, _ in _one(nlp, "Required 4 L NC, weaned to RA by day 6."))
    # misspelt findings and drugs: one edit, the word's end kept; never a cancer's shorthand
    said = {(t, k) for t, k, _, _ in _one(nlp, "Mild fatigeu, constipaton. Weekly carboplatn. Sigmoid adenoca.")}
    assert {("fatigeu", "Problem"), ("constipaton", "Problem"), ("carboplatn", "Medication")} <= said
    assert all(k != "Problem" for t, k, _, _ in _one(nlp, "Sigmoid adenoca (pT3N1bM0) dx 1/2022.") if t == "adenoca")
    assert all(k != "Medication" for _, k, _, _ in _one(nlp, "Two diminutive polyps - cold snare."))


def test_a_list_on_its_header_line_ends_at_the_paragraph_and_first_cycles_date_a_course():
    from datetime import date

    from ingest.nlp import when
    from ingest.text.sections import split_sections

    text = "FHx: none relevant.\n\nColonoscopy 05.03.2025: two sigmoid polyps.\n"
    names = [(s.name, text[s.start:s.end].strip()[:11]) for s in split_sections(text)]
    assert names == [("Family History", "none releva"), ("Unlabeled", "Colonoscopy")]
    assert when.first_cycle_line("  C1 28/08: ", date(2025, 9, 22), day_first=True) == date(2025, 8, 28)
    assert when.first_cycle_line("  C1 28/12: ", date(2025, 9, 22), day_first=True) == date(2024, 12, 28)
    assert when.first_cycle_line("  C2 18/09: ", date(2025, 9, 22), day_first=True) is None
    assert list(when.days("Cisplatin/etoposide C1 10-03-2025 to C4 23-05-2025", day_first=True)) == [
        date(2025, 3, 10), date(2025, 5, 23)]


def test_differentials_genomic_report_lines_staff_lists_labels_specimens_and_zero_grades(nlp):
    from graphkit.clinical.values import find_biomarkers

    cases = [  # (sentence, mention, assertion)
        ("Imp: ? anal canal malignancy, DDx low rectal ca.", "low rectal ca", "possible"),
        ("EGFR exon 19 deletion -> FDA-approved therapies: osimertinib, erlotinib.", "osimertinib", "possible"),
        ("Not for first-line chemo-immunotherapy.", "chemo-immunotherapy", "negated"),
        ("Alectinib 600 mg BD - PBS approved; first dose taken in clinic today.", "Alectinib 600 mg", "present"),
        ("81 y/o woman, former 30 pk-yr smoker, with severe COPD.", "smoker", "historical"),
        ("Her former oncologist noted fatigue.", "fatigue", "present"),
        ("| Hand-foot syndrome | 0 | |", "Hand-foot syndrome", "negated"),
        ("| Fatigue | 1 | |", "Fatigue", "present"),
    ]
    assert [_assertion(nlp, sentence, word) for sentence, word, _ in cases] == [a for _, _, a in cases]
    # "LOW" opening the next line is not the marker's level
    assert [v for f in find_biomarkers("ER 90%, blood PR,\nLOW ~8 kg weight loss") for v in f.values] == ["ER=positive"]
    # a field label names no operation of its own; the teams present are no care
    kinds = {t: k for t, k, _, _ in _one(nlp, "Operation: Robotic ultra-low anterior resection with TME, stapled.")}
    assert "Operation" not in kinds and kinds.get("TME") == "Procedure"
    assert not [t for t, k, _, _ in _one(nlp, "pulmonology, thoracic surgery, radiation oncology.", "Attending")
                if k == "Procedure"]
    assert {(t, k) for t, k, _, _ in _one(nlp, "Grade 2 radiation dermatitis, settling.")} >= {
        ("radiation dermatitis", "Problem")}
    said = {t: k for t, k, _, _ in _one(nlp, 'Sister had "cancer of the gullet", mother "cancer of the womb".')}
    assert said.get("cancer of the gullet") == said.get("cancer of the womb") == "Cancer"
    # a capitalized title names the document; "PE:" heads the examination; "faint" before a finding
    assert not _one(nlp, "SURGICAL PATHOLOGY REPORT")
    assert not _one(nlp, "TELEPHONE ENCOUNTER - Breast Oncology NP")
    from ingest.text.sections import canonical_name
    assert canonical_name("PE") == canonical_name("O/E") == "Physical Exam"
    assert [k for t, k, _, _ in _one(nlp, "Faint erythema of the fold.") if t.lower() == "faint"] == []
    # deposits named by their site's disease; nodal micrometastases are findings of their own
    said = {t: (k, a) for t, k, a, _ in _one(nlp, "No peritoneal disease or extrahepatic disease; liver disease.")}
    assert said.get("peritoneal disease") == said.get("extrahepatic disease") == ("Problem", "negated")
    assert "liver disease" not in said or said["liver disease"][1] != "negated"
    assert ("micrometastasis", "Problem") in {(t, k) for t, k, _, _ in _one(nlp, "One node with a micrometastasis.")}


def test_working_assumptions_comparisons_report_columns_and_dated_cycles(nlp):
    from datetime import date

    from graphkit.clinical.values import find_biomarkers

    def values(text):
        return [v for f in find_biomarkers(text) for v in f.values]
    # a diagnosis still to exclude, a working assumption, a diagnosis until proven otherwise
    assert _assertion(nlp, "Imp: ?Koch's ?Ca lung (bronchogenic ca to be r/o).", "bronchogenic ca") == "possible"
    assert _assertion(nlp, "Plan: treat as HER2 +ve given 2+ and high grade.", "HER2 +ve") == "possible"
    assert _assertion(nlp, "Imp: rectal adenocarcinoma until proven otherwise.", "rectal adenocarcinoma") == "possible"
    # the earlier specimen's result a new one is compared with; not the newer one after the cue
    assert _assertion(nlp, "ER result DISCORDANT with core biopsy (ER 0%).", "ER 0%") == "historical"
    assert _assertion(nlp, "ER 0% on core, discordant with excision ER 40%.", "ER 40%") == "present"
    # "did not attend" in British notes; the molecule stays a molecule
    assert _assertion(nlp, "Pt DNA CT chest 14/04/25 and resp clinic.", "CT chest") == "negated"
    assert _assertion(nlp, "The right consolidation is osimertinib 80mg daily.", "osimertinib 80mg daily") == "planned"
    assert _assertion(nlp, "Weight gain 7 kg since starting alectinib.", "alectinib") == "present"
    assert _assertion(nlp, "PMH: COPD, AF on warfarin, previous TIA 2019.", "warfarin") == "present"
    # a genomic report's variant-class column, a "negative for" list, what a panel covers
    assert values("EGFR         SNV/indel          no pathogenic variant detected") == ["EGFR=wild-type"]
    assert "BRAF=wild-type" in values("NEGATIVE FOR: EGFR mutations, KRAS, BRAF V600E, MET exon 14 skipping.")
    assert values("Requested EGFR (NGS panel incl ALK fusion) + PD-L1 today") == ["EGFR=pending", "ALK=pending",
                                                                                 "PD-L1=pending"]
    # a table column of therapy options; year-less cycles of a course given, but not those still to come
    sents = ["| Gene | Alteration | Therapies with clinical benefit |",
             "| ALK | EML4-ALK fusion | alectinib, lorlatinib |",
             "Concurrent chemo: cisplatin + etoposide, 2 cycles (C1 21/10, C2 18/11) - given.",
             "Plan: continue TC to complete 4 cycles (C3 09/12, C4 30/12)."]
    ms = resolve_note(sents, extract_mentions(nlp, sents, [None] * 4), note_day=date(2024, 12, 2))
    assert {m.text: m.assertion for m in ms[1] if m.kind == "Medication"} == {"alectinib": "possible",
                                                                               "lorlatinib": "possible"}
    cis = next(m for m in ms[2] if m.text.startswith("cisplatin"))
    assert cis.assertion == "historical" and cis.detail["course_start"] == "2024-10-21"
    assert "course_start" not in next(m for m in ms[3] if m.text == "TC").detail


def test_an_immunoprofile_names_the_organ_and_other_organs_cancers_stay_theirs(nlp):
    from datetime import date

    def cancers(sents):
        ms = resolve_note(sents, extract_mentions(nlp, sents, [None] * len(sents)), note_day=date(2025, 6, 13))
        return [(m.text, m.detail.get("site")) for row in ms for m in row if m.kind == "Cancer"]
    # an EBUS report that names no organ: the stains do
    assert cancers(["4L, 7: POSITIVE for malignant cells - adenocarcinoma (TTF-1+, napsin A+)."]) == [
        ("adenocarcinoma", "lung")]
    # the endometrium's cell type never takes the note's colon; a lymphoma's site is no breast cancer
    got = cancers(["Colonoscopy: normal colon.", "Endometrial biopsy: endometrioid adenocarcinoma, grade 1."])
    assert got == [("endometrioid adenocarcinoma", "uterus")]
    assert all(text != "primary breast" for text, _ in cancers(["Dx: primary breast DLBCL (non-GCB), left breast."]))
    # a rectal neuroendocrine tumour is a neoplasm of its own kind, never "rectum cancer"
    from ingest.nlp.oncology import do_code
    assert do_code("neuroendocrine carcinoma", "rectum") == "DOID:1800"
    assert do_code("adenocarcinoma", "rectum") == "DOID:1996"


def test_denials_after_the_finding_habits_nouns_of_decline_and_reasons(nlp):
    a = partial(_assertion, nlp)
    # a habit's "never" is the habit's only; "decline" as a noun refuses nothing
    assert a("Ms H is a 54 yo never-smoker who developed a dry cough in June.", "dry cough") == "present"
    assert a("Osteopenia with decline on AI: start zoledronic acid 4 mg IV q6mo.", "AI") != "negated"
    assert a("She does not want to stop endocrine therapy.", "endocrine therapy") != "negated"
    # the finding denied by what follows it, not the test or the drugs before
    assert a("Nausea days 2-4, vomiting none. Fatigue grade 1.", "vomiting") == "negated"
    assert a("BAL was negative for infection, including PJP.", "infection") == "negated"
    assert a("Rash on the face, no secondary infection.", "infection") == "negated"
    assert a("HIV negative (tested 2023).", "HIV") == "negated"
    assert a("Tamoxifen + apixaban: no major interaction.", "apixaban") != "negated"
    assert a("CT pulmonary angiogram excluded a pulmonary embolism.", "pulmonary embolism") == "negated"
    assert a("CT pulmonary angiogram excluded a pulmonary embolism.", "CT pulmonary angiogram") == "present"
    assert a("Recurrence score 12, so chemotherapy was not recommended.", "chemotherapy") == "negated"
    assert a("7. Tab. Calcium + vitamin D3 - HOLD till review", "Calcium") == "negated"
    assert a("Pneumonitis, likely immune-related (durvalumab) - hold durvalumab.", "durvalumab") != "negated"
    assert a("WLE and SLNB. Clips to cavity for radiotherapy boost.", "radiotherapy boost") == "planned"  # a device for later care
    # a bracket after "not performed" gives its reason
    assert a("EBUS not performed (N0 on PET, peripheral < 2 cm).", "PET") == "present"
    assert a("Defer SRS unless no response on MRI brain at 6 weeks.", "MRI brain") != "negated"
    # a relative's reach ends where the patient is named
    assert a("Testing for children; surveillance plan for patient - colonoscopy annually.", "colonoscopy") != "family"
    assert a("Given father's CRC at 52 -> genetics referral.", "CRC") == "family"
    # a marker sent and not back is possible (pending); a consult's reason is care to weigh, not given
    got = _one(nlp, "EGFR, ALK, ROS1 on NGS panel - awaited.")
    assert ("EGFR", "Biomarker", "possible", "EGFR=pending") in got
    assert a("Reason: post-mastectomy radiotherapy, L breast ca pT2 pN1a.", "radiotherapy") != "present"
    # a concentration in a lab unit is a test's analyte, not the drug; a capitalised specialty is a department
    assert [m[1] for m in _one(nlp, "Labs: vitamin D 24 ng/mL (low).") if m[0] == "vitamin D"] == ["Test"]
    assert not [m for m in _one(nlp, "Prof. G. Murphy, Colorectal Surgery") if m[1] == "Procedure"]


def test_fusions_by_partner_codons_tested_and_other_genes_of_a_panel():
    from graphkit.clinical.values import find_biomarkers

    def values(s):
        return [f.values for f in find_biomarkers(s)]
    assert values("An EML4-ALK rearrangement (variant 3) was detected by RNA-based fusion analysis.") == [
        ("ALK=positive",)]
    assert values("KRAS: no mutation in codons 12, 13, 61, 117, 146.") == [("KRAS=wild-type",)]
    assert values("BRCA1 and other panel genes: no variant detected.") == [("BRCA1=wild-type",)]
    assert values("MET: no exon 14 skipping, no amplification") == [("MET=wild-type",)]
    assert values("BRAF V600E is absent.") == [("BRAF=wild-type",)]  # the "sent" of "absent" is no send-out


def test_a_negative_label_on_its_own_line_consents_bridges_and_phases_named_by_the_care(nlp):
    from datetime import date

    from ingest.nlp.oncology import treatment_phase
    sents = ["Negative for:", "EGFR (exons 18-21), BRAF V600E and non-V600, MET exon 14 skipping,\n  ALK, ROS1 fusions (RNA)."]
    rows = resolve_note(sents, extract_mentions(nlp, sents, [None, None]), note_day=date(2025, 3, 1))
    got = {v for m in rows[1] if m.kind == "Biomarker" for v in m.values}
    assert got == {"EGFR=wild-type", "BRAF=wild-type", "MET=wild-type", "ALK=negative", "ROS1=negative"}
    a = partial(_assertion, nlp)
    assert a("KRAS G12D mutant; MSS; BRAF wild-type; HER2 not tested yet.", "KRAS G12D mutant") == "present"
    assert not [m for m in _one(nlp, "No PR bleeding. Best response PR (-58% at 6 mo).") if m[1] == "Biomarker"]
    assert a("Mrs LANE - consented for FOLFOX + panitumumab q2w, palliative intent.", "FOLFOX") == "planned"
    assert a("Colonic stent as bridge to palliative chemo.", "chemo") == "planned"
    assert a("Explained chance of organ preservation with TNT, extra toxicity.", "TNT") != "present"
    text = "4 wks post RUL lobectomy after neoadjuvant nivo-chemo x3; post NACT + WLE 14/04/25."
    assert treatment_phase(text, text.index("chemo"), text.index("chemo") + 5) == "neoadjuvant"
    assert treatment_phase(text, text.index("NACT"), text.index("NACT") + 4) == "neoadjuvant"
    from graphkit.clinical.values import find_biomarkers
    assert [f.values for f in find_biomarkers("gBRCA1/2, PALB2: no pathogenic variant detected.")] == [
        ("BRCA1=wild-type", "BRCA2=wild-type")]


def test_contractions_conditionals_board_labels_schedules_and_other_primaries(nlp):
    a = partial(_assertion, nlp)
    # a written cue with "was not" also reads "wasn't"; care as the subject of a conditional is weighed
    assert a('Pt assumed RT "wasn\'t needed".', "RT") == "negated"
    assert a("Small breast: WLE now would leave poor cosmesis.", "WLE") != "present"
    assert a("Sotorasib would be a later-line option.", "Sotorasib") != "present"
    assert a("After surgery she would be seen in clinic.", "surgery") == "historical"
    assert a("Given bulky N2 disease, lean towards chemo-immunotherapy.", "chemo-immunotherapy") != "present"
    assert a("Well-differentiated adenocarcinoma cannot be entirely excluded on limited sample.",
             "Well-differentiated adenocarcinoma") == "possible"
    # a board's decision under its label; a cycle given today; a schedule's time point; a booking system
    assert a("Decision: NACT EC90 x4 -> weekly paclitaxel x12, then surgery.", "surgery") == "planned"
    assert a("C1 today (oxaliplatin 130 mg/m2 + capecitabine 1000 mg/m2 bd).", "oxaliplatin 130 mg/m2") == "present"
    assert a("Follow-up: CEA 6-monthly; colonoscopy at 1 year.", "colonoscopy") == "planned"
    assert a("Colonoscopy at 1 year showed a 4 mm polyp.", "Colonoscopy") == "present"
    assert not [m for m in _one(nlp, "The e-referral was rejected by the RT booking system.") if m[1] == "Procedure"]
    # the reading a report favours another over, and a disease evidence is borrowed from, are not findings
    assert a("Favour primary terminal ileal adenocarcinoma over caecal primary.", "caecal primary") == "possible"
    assert a("Rare small bowel cancer (data extrapolated from colon cancer).", "colon cancer") != "present"
    # a pre-treatment review proceeds with the cycle it gives; an option that remains is not taken
    assert a("1. Proceed C3 TCHP at full dose: docetaxel 75 mg/m2, carboplatin AUC 6, trastuzumab 6 mg/kg, "
             "pertuzumab 420 mg.", "pertuzumab 420 mg") == "present"
    assert a("Upfront mastectomy + ALND remains a reasonable alternative.", "mastectomy") != "present"
    assert a("C1 given today 05/06/24: oxaliplatin 130 mg/m2 D1 + capecitabine.", "oxaliplatin 130 mg/m2") == "present"
    assert a("Surgery first (WLE or mastectomy + axillary surgery) followed by adjuvant chemo-HER2 is an "
             "acceptable alternative at this size.", "mastectomy") != "present"
    assert a("Discussed in detail: standard rec is neoadjuvant TCHP x6, then surgery.", "surgery") == "planned"
    assert a("Plan: CT sim 8/13, WBI 26 Gy/5 fx; continue anastrozole during RT.", "RT") == "planned"
    assert a("Continue letrozole and palbociclib.", "palbociclib") == "present"
    assert a("Sotorasib/adagrasib kept for 2nd line.", "adagrasib") != "present"
    assert a("MMR IHC not performed (non-colorectal primary).", "colorectal primary") == "negated"
    # ("non-mucinous adenocarcinoma" is the plain adenocarcinoma, not the mucinous one)
    assert a("Invasive non-mucinous adenocarcinoma, acinar predominant.", "adenocarcinoma") == "present"
    # drug classes as clinicians name them
    assert a("DPYD genotype sent today - must be back before any fluoropyrimidine.", "fluoropyrimidine") == "planned"
    got = _one(nlp, "KRAS-mutant, so anti-EGFR therapy not indicated.")
    assert ("anti-EGFR therapy", "Medication", "negated") in [m[:3] for m in got]


def test_small_bowel_and_head_and_neck_primaries_and_a_panels_negatives():
    from graphkit.clinical.values import find_biomarkers
    from ingest.nlp.oncology import find_cancers, site_mentions
    assert [c.site for c in find_cancers("small bowel adenocarcinoma (ileum)")] == ["small intestine"]
    assert [c.site for c in find_cancers("L tonsil SCC, p16-positive, treated 2022")] == ["oropharynx"]
    assert [c.site for c in find_cancers("metastatic high-grade serous carcinoma, Mullerian (tubo-ovarian) origin")] == [
        "ovary"]
    text = "Metastatic squamous cell carcinoma, consistent with origin from the known oropharyngeal primary."
    assert find_cancers(text)[0].site == "oropharynx"
    # clause by clause: the normal colon beside does not hide the lesion's organ
    assert site_mentions("Ulcerated lesion extending into the terminal ileum; rest of colon normal")[
        "small intestine"] > 0
    got = [v for f in find_biomarkers("Negative results: no pathogenic alterations detected in KRAS, BRAF, "
                                      "MET (incl. exon 14 skipping), ALK, ROS1.") for v in f.values]
    assert got == ["KRAS=wild-type", "BRAF=wild-type", "MET=wild-type", "ALK=negative", "ROS1=negative"]
    assert [f.values for f in find_biomarkers("HER2: IHC 2+ (equivocal); reflex dual ISH AMPLIFIED")] == [
        ("HER2=positive",)]


def test_refusals_pointing_back_sides_of_the_family_labels_of_what_is_to_come_and_operations_with_no_course(nlp):
    from graphkit.clinical.values import find_biomarkers
    a = partial(_assertion, nlp)
    assert a("- Bevacizumab not planned - anti-EGFR preferred for left-sided disease.", "Bevacizumab") == "negated"
    assert a("2. Consolidation durvalumab not available - PD-L1 <1%.", "durvalumab") == "negated"
    assert a("- Lung nodules too small to biopsy.", "biopsy") == "negated"
    assert a(" c) Completion mastectomy - she does not want this.", "Completion mastectomy") == "negated"
    assert a("With a paternal pancreatic cancer, she qualifies for surveillance.", "pancreatic cancer") == "family"
    assert a("Pending: HPE of the resected specimen; staging CECT thorax as outpatient.", "HPE") == "planned"
    assert a("Rec TNT with organ-preservation intent, then consolidation CAPOX x4.", "CAPOX x4") == "planned"
    assert a("Rec'd CAPOX x4 in 2023.", "CAPOX x4") != "planned"
    # an operation is over the day it is done: the drug's "since ... (taking it)" is not the surgery's
    sent = "R breast pT1c pN0, lumpectomy + SLNB 2/20/25, anastrozole since 3/10/25 (taking it)."
    [row] = extract_mentions(nlp, [sent], [None])
    surgery = next(m for m in row if m.text == "lumpectomy")
    assert "status" not in surgery.detail and "start" not in surgery.detail
    assert next(m for m in row if m.text == "anastrozole").detail.get("status") == "ongoing"
    # the list under "no" ends at a marker with its own measure
    found = find_biomarkers("KRAS G12C, no EGFR/ALK/ROS1/BRAF, PD-L1 75%.")
    assert [f.detail.get("percent") for f in found if f.values[0].startswith(("EGFR", "ALK"))] == [None, None]
    got = [v for f in find_biomarkers("Fusions (RNA): none detected in ALK, ROS1, RET or NTRK1/2/3.") for v in f.values]
    assert got == ["ALK=negative", "ROS1=negative", "RET=negative", "NTRK=negative"]


def test_an_operation_names_its_organ_and_a_word_for_several_organs_takes_the_notes(nlp):
    from datetime import date
    sents = ["Anterior resection: residual adenocarcinoma ypT2, regression AJCC TRG 2.", "ypT2 ypN1a - ypStage IIIA."]
    rows = resolve_note(sents, extract_mentions(nlp, sents, [None] * 2), note_day=date(2025, 4, 8))
    cancer = next(m for m in rows[0] if m.kind == "Cancer")
    assert cancer.detail.get("site") == "rectum"
    sents = ["Breast cancer pT2 pN2a.", "OP 24 Feb 2025: wire-guided breast-conserving segmentectomy R + axillary dissection."]
    rows = resolve_note(sents, extract_mentions(nlp, sents, [None] * 2), note_day=date(2025, 3, 4))
    assert "SNOMED-CT|392021009" in _codes(next(m for m in rows[1] if m.text.endswith("segmentectomy")))
    sents = ["RUL adenocarcinoma of the lung.", "s/p VATS segmentectomy 2/2025."]
    rows = resolve_note(sents, extract_mentions(nlp, sents, [None] * 2), note_day=date(2025, 3, 4))
    assert _codes(next(m for m in rows[1] if m.text.endswith("segmentectomy"))) == {"SNOMED-CT|173172000"}


def test_overdue_care_the_week_to_come_a_drug_reviewed_and_a_part_of_an_organ(nlp):
    from ingest.nlp.oncology import find_cancers
    a = partial(_assertion, nlp)
    assert a("Imp: overdue adjuvant WBRT after BCS.", "WBRT") == "planned"
    assert a("Imp: overdue adjuvant WBRT after BCS.", "BCS") != "planned"
    assert a("To med onc next week for adjuvant chemo, then RT.", "RT") == "planned"
    assert a("She had surgery in May and will be seen again next week.", "surgery") != "planned"
    assert a("Reviewed osimertinib 80 mg daily x3 yrs (ADAURA: DFS and OS benefit).",
             "osimertinib 80 mg daily x3 yrs") == "possible"
    assert a("Reviewed meds: metformin, lisinopril.", "metformin") == "present"
    assert [c.site for c in find_cancers("Diagnosis: Adenocarcinoma of the distal rectum, 4 cm from AV")] == ["rectum"]


def test_clearances_routes_no_shows_corrected_readings_and_lists_on_the_next_line(nlp):
    from graphkit.clinical.values import find_biomarkers
    from ingest.text.sections import canonical_name, split_sections
    a = partial(_assertion, nlp)
    assert [v for f in find_biomarkers("No alterations in\nEGFR, ALK, BRAF.") for v in f.values] == \
        ["EGFR=wild-type", "ALK=negative", "BRAF=wild-type"]
    assert [v for f in find_biomarkers("Not a candidate for anti-EGFR (KRAS mut).") for v in f.values] == ["KRAS=mutated"]
    assert [v for f in find_biomarkers("TMB 2 mut/Mb.") for v in f.values] == []
    assert a("Renal team: OK for contrast CT with pre-hydration.", "CT") == "possible"
    assert a("Counts ok for paclitaxel today.", "paclitaxel") == "present"
    assert a("DVT prophylaxis: enoxaparin 40 mg SC daily.", "DVT") != "present"
    assert not [m for m in _one(nlp, "Cores infiltrated by nests of atypical squamous cells.") if m[1] == "Cancer"]
    assert ("squamous NSCLC", "Cancer", "present", None) in _one(nlp, "Stage IIIB squamous NSCLC.")
    assert a("N category changed from pN1b to pN2a.", "pN1b") == "possible"
    assert a("N category changed from pN1b to pN2a.", "pN2a") == "present"
    assert a("The letter incorrectly gave the stage as stage IIIA.", "stage IIIA") == "possible"
    assert a("C1 TCHP is provisionally pencilled for 09/10.", "TCHP") == "planned"
    assert a("We went through both routes: TCHP then surgery, or upfront surgery then adjuvant trastuzumab.",
             "trastuzumab") == "possible"
    assert a("Pt was due for CECT thorax in July 2025 - did not turn up.", "CECT") == "negated"
    assert a("6 mm hypodensity, too small to characterise - MRI liver 07/2023 confirmed a simple cyst.",
             "MRI liver") == "present"
    assert a("Nodule too small to sample by EBUS.", "EBUS") == "negated"
    assert canonical_name("Follow-up / plan:") == "Plan"
    text = "Background: asthma.\nPlan, as agreed at MDT: right wide local excision and sentinel node biopsy.\n"
    assert [s.name for s in split_sections(text)][-1] == "Plan"
    assert _one(nlp, "Pleural effusion: indwelling pleural catheter placed 10.01.", "Plan")[-1][2] == "historical"
    [mentions] = extract_mentions(nlp, ["Hx of renal cell cancer, MSI-H cecal cancer."], [None])
    cancers = [_codes(m) for m in mentions if m.kind == "Cancer"]
    assert "DOID|DOID:4450" in cancers[0] and "DOID|DOID:1521" in cancers[1]  # a site's carcinoma stays its cancer
    assert _one(nlp, "- Meds: warfarin, metoprolol 50 mg daily.", "Plan")[0][2] == "present"
    assert _one(nlp, "T-DM1 may continue concurrently.", "Assessment and Plan")[0][2] == "present"
    assert a("Adjuvant chemo was permitted in CheckMate 816.", "chemo") == "possible"
    sents = ["If no driver -> carboplatin/pemetrexed/pembrolizumab."]
    assert [m.assertion for m in resolve_note(sents, extract_mentions(nlp, sents, ["Plan"]))[0]] == ["possible"] * 3
    from ingest.nlp.findings import find_described_problems
    assert not find_described_problems("SCRT 25 Gy/5, for symptom and local control.")
    from graphkit.clinical.values import find_stages
    assert [(f.value, f.basis) for f in find_stages("pT1c pN0 - pStage IA3; ypStage IIA.") if f.kind == "group"] == \
        [("IA3", "pathological"), ("IIA", "pathological")]
    assert not find_stages("upstage IIIA")
    from ingest.nlp.oncology import treatment_status
    text = "C1 cisplatin/vinorelbine given today. FOLFOX C6 given 28/04."
    assert treatment_status(text, 3, 12) == "started"
    assert treatment_status(text, text.index("FOLFOX"), text.index("FOLFOX") + 6) == "ongoing"


def test_a_judgement_of_operability_and_a_prescription_written_today(nlp):
    a = partial(_assertion, nlp)
    assert a("Surgeon considers disease technically resectable (RUL lobectomy + MLND).", "RUL lobectomy") == "possible"
    assert a("Resectable disease - lobectomy (VATS) planned.", "VATS") == "planned"
    assert a("Plan: will e-prescribe osimertinib 80 mg daily today.", "osimertinib 80 mg daily") == "planned"
    assert a("Osimertinib 80 mg daily today.", "Osimertinib 80 mg daily") == "present"


def test_options_taught_choices_passed_over_care_awaited_and_a_course_dated_at_the_sentence_end(nlp):
    from datetime import date

    from graphkit.clinical.values import find_biomarkers
    from ingest.text.sections import split_sections
    a = partial(_assertion, nlp)
    assert a("Mastectomy + SLNB (+/- reconstruction) also discussed as an option.", "Mastectomy") == "possible"
    assert a("Understands that WLE + SLNB and mastectomy give the same survival.", "mastectomy") == "possible"
    assert a("She is aware that she had a mastectomy in 2019.", "mastectomy") != "possible"
    assert a("Adjuvant osimertinib was flagged at tumour board, but it was never prescribed.", "osimertinib") == "negated"
    assert a("MRI brain not booked yet (awaiting PET first).", "PET") == "planned"
    assert a("Awaiting biopsy results.", "biopsy") != "planned"
    assert a("She elected mastectomy over lumpectomy and declined immediate reconstruction.", "mastectomy") != "negated"
    assert a("She elected mastectomy over lumpectomy and declined immediate reconstruction.", "lumpectomy") == "negated"
    assert a("Offered tamoxifen and declined.", "tamoxifen") == "negated"
    sents = ["Impression: suspected lung cancer."]
    assert [m.assertion for m in resolve_note(sents, extract_mentions(nlp, sents, [None]))[0]] == ["possible"]
    assert not [m for m in _one(nlp, "NSCLC predictive biomarker panel (EGFR/ALK/PD-L1) not performed.")
                if m[1] == "Cancer"]
    assert _one(nlp, "Current: goserelin 3.6 mg q4w + exemestane 25 mg daily - continue.", "Plan")[0][2] == "present"
    assert [v for f in find_biomarkers("HER2: IHC 2+ (equivocal); reflex ISH: HER2/CEP17 ratio 1.3, mean HER2 copy "
                                       "number 3.4 signals/cell - NOT AMPLIFIED") for v in f.values] == ["HER2=negative"]
    # a problem-list entry opened by "#" is read, a Markdown title is a header
    text = "# Assessment and Plan\n# mCRC, KRAS G12D, MSS - responding on FOLFIRI\n"
    assert [s.name for s in split_sections(text)] == ["Assessment and Plan"]
    sents = ["He received long-course chemoradiotherapy locally - 50.4 Gy in 28\nfractions with concurrent "
             "capecitabine - 17/03/2025 to 24/04/2025."]
    [row] = resolve_note(sents, extract_mentions(nlp, sents, [None]), note_day=date(2025, 6, 30))
    crt = next(m for m in row if m.text == "long-course chemoradiotherapy")
    assert (crt.assertion, crt.detail.get("course_start"), crt.detail.get("end")) == \
        ("historical", "2025-03-17", "2025-04-24")
    sents = ["Plan: goserelin 3.6 mg q4w since 15 Sep 2025 - continue."]
    [row] = resolve_note(sents, extract_mentions(nlp, sents, ["Plan"]), note_day=date(2025, 11, 3))
    assert row[0].assertion == "present"


def test_prescriptions_never_written_comparisons_conditional_sequences_and_a_sentence_s_own_organ(nlp):
    from graphkit.clinical.values import find_biomarkers
    from ingest.text.sections import split_sections
    a = partial(_assertion, nlp)
    assert a("Osimertinib NOT prescribed.", "Osimertinib") == "negated"
    assert a("Tamoxifen was never prescribed by the GP.", "Tamoxifen") == "negated"
    assert a("Osimertinib prescribed today.", "Osimertinib") != "negated"
    assert a("IO is less effective and raises pneumonitis risk.", "IO") == "possible"
    assert a("If HER2-negative: whole-breast RT followed by letrozole.", "letrozole") == "possible"
    assert a("Whole-breast RT completed, followed by letrozole since May.", "letrozole") != "possible"
    assert a('Left-sided primary, "RAS wt" -> proposal: FOLFOX + cetuximab first line.', "cetuximab") == "planned"
    sents = ["CRT/TNT + TME if incomplete response."]  # one choice: the hedge after it reaches back
    assert [m.assertion for m in resolve_note(sents, extract_mentions(nlp, sents, [None]))[0]
            if m.kind == "Procedure"] == ["possible"] * 3
    assert [s.name for s in split_sections("Policy: lumpectomy + sentinel node procedure.\n")] == ["Plan"]
    assert [v for f in find_biomarkers("KRAS (repeat, 27/02): exon 2 p.G12V MUTATED") for v in f.values] == \
        ["KRAS=mutated"]
    # the one organ a sentence names refines the note's site within its group
    sents = ["Colonoscopy - complete to caecum.", "4 mm sigmoid polyp - cold snare.",
             "Histology: rectum - moderately differentiated adenocarcinoma.", "Sigmoid polyp: tubular adenoma."]
    rows = resolve_note(sents, extract_mentions(nlp, sents, [None] * 4))
    assert [m.detail.get("site") for m in rows[2] if m.kind == "Cancer"] == ["rectum"]


def test_talk_partners_drug_access_comparisons_routes_syndromes_and_a_first_cycle_given(nlp):
    a = partial(_assertion, nlp)
    # a relative taking part in the talk is no experiencer
    assert a("Discussed with pt + daughter: best option tepotinib (or capmatinib).", "tepotinib") == "possible"
    assert a("Mother had breast cancer at 45.", "breast cancer") == "family"
    # access to a drug is no dose of it
    assert a("Pembrolizumab not on the state formulary; carboplatin/pemetrexed available.", "Pembrolizumab") == "negated"
    assert a("Pembrolizumab not on the state formulary; carboplatin/pemetrexed available.", "carboplatin") == "possible"
    assert a("Application for capmatinib submitted to the regulator.", "capmatinib") == "planned"
    # a comparison names another phenotype; the department is no radiotherapy
    found = _one(nlp, "Discussion: ER-low behaves like TNBC.")
    assert ("TNBC", "Biomarker", "possible", None) in [(t, k, s, None) for t, k, s, _ in found]
    assert not [x for x in _one(nlp, "GSH Radiation & Clinical Oncology - first visit.") if x[1] == "Procedure"]
    # a stoma used as a route was made before; a syndrome named after an operation is no operation
    assert a("Colonoscopy via end colostomy to caecum.", "end colostomy") == "historical"
    assert [x[1] for x in _one(nlp, "We talked about low anterior resection syndrome.")] == ["Problem"]
    # a course said to go on is under way, whatever its next dose's day; the visit's topic is no care
    sents = ["Continue zoledronic acid 4 mg IV q6 months (next due Jan 2026)."]
    [row] = resolve_note(sents, extract_mentions(nlp, sents, [None]), note_day="2025-11-03")
    assert [m.assertion for m in row if m.kind == "Medication"] == ["present"]
    assert a("Seen re adjuvant endocrine therapy.", "adjuvant endocrine therapy") == "possible"
    assert a("Pembrolizumab or carboplatin/pemetrexed; patient to choose at clinic.", "carboplatin") == "possible"
    # the referral is what was placed today; a drug-less "cycle 1 given today" begins the regimen planned
    assert a("Plan: RT after chemo - referral to Radiation Oncology placed today.", "RT") != "present"
    sents = ["Plan: paclitaxel weekly x12 + trastuzumab.", "Cycle 1 day 1 given today, tolerated well."]
    rows = resolve_note(sents, extract_mentions(nlp, sents, ["Plan", "Plan"]))
    assert [m.assertion for m in rows[0] if m.kind == "Medication"] == ["present", "present"]
    sents = ["Plan: cisplatin/pemetrexed x4 followed by osimertinib 80 mg daily.", "Cycle 1 given today."]
    rows = resolve_note(sents, extract_mentions(nlp, sents, ["Plan", "Plan"]))
    assert [m.assertion for m in rows[0] if m.kind == "Medication"] == ["present", "present", "planned"]
    sents = ["Plan: FOLFOX to start next week.", "C1 not given today due to neutropenia."]
    rows = resolve_note(sents, extract_mentions(nlp, sents, ["Plan", "Plan"]))
    assert [m.assertion for m in rows[0] if m.kind == "Medication"] == ["planned"]


def test_a_comparison_study_s_day_dates_no_finding_of_this_one():
    from datetime import datetime

    from ingest.tkg.build import mention_date, sentence_date
    text = "BILATERAL BREAST MRI W/WO CONTRAST - post neoadjuvant chemotherapy\nComparison 8/22/2024."
    assert sentence_date(text, datetime(2025, 1, 13)) is None
    assert mention_date("CT C/A/P compared with 12/23/2024: progressive disease.", 3, datetime(2025, 4, 21)) is None
    assert sentence_date("Breast MRI 8/22/2024: 1.8 cm mass.", datetime(2025, 1, 13)) == datetime(2024, 8, 22)


def test_a_discussion_s_content_and_care_the_patient_is_judged_unfit_for(nlp):
    from graphkit.clinical.treatments import RULED_OUT
    sents = ["We discussed adjuvant chemotherapy: 3 months of CAPOX (capecitabine + oxaliplatin) per IDEA."]
    [row] = resolve_note(sents, extract_mentions(nlp, sents, [None]))
    assert {m.assertion for m in row if m.kind == "Medication"} == {"possible"}
    sents = ["Not a candidate for hepatic resection.", "Adjuvant chemotherapy not given yet."]
    rows = resolve_note(sents, extract_mentions(nlp, sents, [None, None]))
    assert [RULED_OUT in m.flags for r in rows for m in r if m.kind == "Procedure"] == [True, False]


def test_asides_in_brackets_later_care_scans_named_in_romance_languages_and_who_requested_a_report(nlp):
    from datetime import date

    from ingest.nlp import when
    a = partial(_assertion, nlp)
    # a bracketed aside counts as one word between care and its denial
    assert a("Annual mammogram (1st post-treatment) scheduled 10/07/2024 at 09:40: NOT PERFORMED.",
             "mammogram") == "negated"
    # what a finding does not look like; care called later is to come, an event some time later is not
    assert a("Flow cytometry sent as appearances atypical for carcinoma.", "carcinoma") == "negated"
    assert a("ER/PR not reported. Will influence later endocrine therapy - chase again.", "endocrine therapy") == "planned"
    assert a("3 months later CT showed new nodules.", "CT") == "present"
    # "TC tórax": the Spanish chest CT (read through its gloss, region and all), not the
    # docetaxel-cyclophosphamide regimen, which stays a regimen
    said = {t: k for t, k, _, _ in _one(nlp, "TC tórax y abdomen superior con contraste.")}
    assert said.get("TC tórax") == "Test"
    assert {t: k for t, k, _, _ in _one(nlp, "Adjuvant TC x4 completed.")}.get("TC x4") == "Medication"
    # a report's header names who asked for the study; an order placed today is still a plan
    assert a("CT CHEST W/ IV CONTRAST (requested by cardiology after an incidental finding)",
             "CT CHEST W/ IV CONTRAST") == "present"
    assert a("CT chest requested today.", "CT chest") == "planned"
    # a cycle line whose first day has a year and the rest not; "given" between a cycle and its day
    assert when.cycle_period("(C1 given 17/02/25, C2 10/03, C3 31/03)", True, date(2025, 4, 21)) == (
        date(2025, 2, 17), date(2025, 3, 31))


def test_a_bare_primary_beside_a_neoplasm_of_another_kind_is_that_neoplasm(nlp):
    from ingest.nlp.oncology import site_mentions
    # where a cancer spread is not its primary site; a tumour named in an organ still is
    assert not site_mentions("Lungs: 3 solid nodules (RLL 14 mm, LUL 9 mm), suspicious for metastases.")
    assert site_mentions("Primary: hepatic flexure mass ~5 cm.")["colon"] == 2
    sents = ["Primary breast DLBCL (non-GCB).", "CNS-IPI low but breast primary -> discuss CNS prophylaxis."]
    rows = resolve_note(sents, extract_mentions(nlp, sents, [None, None]))
    dlbcl = next(m for m in rows[0] if m.kind == "Cancer")
    primary = next(m for m in rows[1] if m.kind == "Cancer")
    assert primary.concepts == dlbcl.concepts and primary.detail.get("site") is None
    sents = ["RUL adenocarcinoma, 3 cm.", "The RUL primary is PET avid."]
    rows = resolve_note(sents, extract_mentions(nlp, sents, [None, None]))
    assert next(m for m in rows[1] if m.kind == "Cancer").detail["histology"] == "adenocarcinoma"


def test_prescriptions_never_collected_a_course_s_planned_length_decisions_to_proceed_and_risk_statements(nlp):
    from datetime import date

    from ingest.nlp import when
    a = partial(_assertion, nlp)
    assert a("Letrozole: it turns out she never collected the prescription (Aug).", "Letrozole") == "negated"
    # a course begun "planned 2 yrs" is under way; a course not begun, or timed after other care, is planned
    assert a("Alectinib 600 mg BID started 8/19/25 per ALINA - planned 2 yrs.", "Alectinib 600 mg BID") == "present"
    assert a("Letrozole planned for 5 years.", "Letrozole") == "planned"
    assert a("Surgery planned 2 weeks after RT.", "Surgery") == "planned"
    # a decision to go on to care; care done
    assert a("C3 cancelled. Proceed directly to surgery; adjuvant alectinib afterwards.", "alectinib") == "planned"
    assert a("Proceeded to surgery the following morning.", "surgery") == "present"
    # care as the subject of a general risk statement; care the patient is on whose risk is named
    assert a("IO before ALK TKI raises hepatotoxicity risk.", "ALK TKI") == "possible"
    assert a("She is on letrozole, which raises her fracture risk.", "letrozole") == "present"
    # MRI and CT in French, Spanish, Italian; a dotted day with a two-digit year (not a version number)
    said = {t: k for t, k, _, _ in _one(nlp, "IRM pelvienne 18/03/2025: tumeur du moyen rectum.")}
    assert said.get("IRM pelvienne") == "Test"
    assert when.exact_day("24.02.25", True) == date(2025, 2, 24)
    assert not list(when.periods("PREDICT v2.1.25", False))


def test_a_drug_s_start_day_is_read_in_the_order_its_note_writes_dates(nlp):
    from datetime import date

    # "C2 13/05" can only be day first: the start "01/07/2024" is 1 July, not 7 January
    sents = ["Cis/pem: C1 22/04, C2 13/05, C3 03/06/24.", "Osimertinib 80 mg od STARTED 01/07/2024."]
    ms = resolve_note(sents, extract_mentions(nlp, sents, [None, None]), note_day=date(2024, 7, 15))
    assert next(m for m in ms[1] if m.kind == "Medication").detail["start"] == "2024-07-01"
    # a note that writes "10/15/2024" keeps the month first
    sents = ["Seen 10/15/2024.", "On letrozole since 01/07/2024."]
    ms = resolve_note(sents, extract_mentions(nlp, sents, [None, None]), note_day=date(2024, 10, 20))
    assert next(m for m in ms[1] if m.kind == "Medication").detail["start"] == "2024-01-07"


def test_a_telephone_contact_is_no_regimen(nlp):
    said = lambda s: {t: k for t, k, _, _ in _one(nlp, s)}  # noqa: E731
    assert "TC" not in said("Specialty pharmacy - TC w/ pt.")
    assert "TC" not in said("TC to daughter re results.")
    assert said("Plan TC with pegfilgrastim support.").get("TC") == "Medication"


def test_an_exon_deletion_written_with_hyphens_is_an_alteration(nlp):
    [ms] = extract_mentions(nlp, ["NGS: EGFR Exon-19-Deletion, TP53-Mutation"], [None], languages=["de"])
    assert any("EGFR=mutated" in m.values for m in ms)


def test_a_start_only_the_note_can_read_dates_the_course(nlp):
    from datetime import date

    # the sentence alone cannot read 19/08/24 month first; the note's other dates say day first
    sents = ["Completed concurrent chemoRT 27/09/24 (started 19/08/24): 60 Gy/30# L hilum; weekly carbo/paclitaxel x5."]
    [row] = resolve_note(sents, extract_mentions(nlp, sents, [None]), note_day=date(2024, 10, 10))
    by = {m.text: m for m in row}
    assert by["chemoRT"].detail.get("start") == "2024-08-19" and by["chemoRT"].detail.get("end") == "2024-09-27"
    assert by["carbo"].assertion == "historical"  # the course's parts stay in the course
    sents = ["Tx: paclitaxel x12 wk + trastuzumab from 10/22/24; trastuzumab completed 10/14/25 (1 yr)."]
    [row] = resolve_note(sents, extract_mentions(nlp, sents, [None]), note_day=date(2025, 11, 1))
    assert next(m for m in row if m.text.startswith("paclitaxel")).assertion == "historical"


def test_consent_after_the_care_plans_it_and_wishes_and_orders_are_not_care_given(nlp):
    assert _assertion(nlp, "durvalumab 1500 mg q4w x12 mo - consented today.", "durvalumab 1500 mg q4w x12") == "planned"
    assert _assertion(nlp, "Frozen section positive, therefore proceeded to ALND as consented.", "ALND") == "present"
    assert _assertion(nlp, "Pt does not want to delay RT further.", "RT") != "negated"
    assert _assertion(nlp, "We discussed the order: chemo can follow RT once med onc sees her.", "chemo") == "possible"


def test_a_course_dated_by_whole_months_is_history_and_a_next_dose_is_care_under_way(nlp):
    from datetime import date

    sents = ["- 4 cycles Carbo/Pem/Pembro (Apr-Jun 2024) -> PR on CT 07/2024",
             "- 05-06/2022 whole breast RT 40 Gy in 15 fractions", "Zoledronic acid next due 10/2024.",
             "Start denosumab 10/2024."]
    ms = resolve_note(sents, extract_mentions(nlp, sents, [None] * 4), note_day=date(2024, 8, 1))
    got = {m.text.split()[0].lower(): m.assertion for row in ms for m in row}
    assert got["carbo"] == got["pembro"] == got["rt"] == "historical"
    assert got["zoledronic"] == "present"  # a next dose: given before, not a plan to begin
    assert got["denosumab"] == "planned"   # a start dated after the note stays a plan


def test_a_habit_given_up_is_history_and_adjectives_name_their_condition(nlp):
    assert _assertion(nlp, "Social: ex-smoker 60 pack-years, quit 2012.", "ex-smoker") == "historical"
    got = {m[0]: m for m in _one(nlp, "She is anemic and tachycardic, hypothyroid on levothyroxine; no tuberculosis.")}
    assert got["anemic"][1] == got["tachycardic"][1] == got["hypothyroid"][1] == "Problem"
    assert got["tuberculosis"][2] == "negated"  # an ICD-10-CM block's title ("Tuberculosis", A15-A19)
    # a derived adjective that qualifies the finding after it is part of it, not a finding of its own
    assert [m[0] for m in _one(nlp, "Acute hypoxemic respiratory failure.")] == ["respiratory failure"]


def test_a_day_named_without_its_year_takes_the_year_nearest_the_note(nlp):
    from datetime import date

    from ingest.nlp import when

    day = date(2025, 9, 8)
    assert when.dated(" chest Mar 31 / CT A/P Mar 20.", 0, day) == date(2025, 3, 31)
    assert when.dated(" booked Sept 16", 0, day) == date(2025, 9, 16)  # a week ahead: still to come
    assert when.dated(" on Jan 2", 0, date(2025, 12, 20)) == date(2026, 1, 2)
    assert when.dated(" reversed Feb 11/25.", 0, day) is None  # "/25" is its year: not read as this year's


def test_bookings_referrals_other_people_and_readings_offered(nlp):
    a = partial(_assertion, nlp)
    assert a("Seen 12/06 -> booked lap ULAR/TME + loop ileostomy 03/07/25.", "TME") == "planned"
    assert a("Rad onc consult booked 7/8/25 after last paclitaxel (7/1).", "paclitaxel") != "planned"
    assert a("Creat 88, hearing OK (audiogram booked).", "Creat") == "present"
    assert a("Then med onc for adj chemo as per MDM.", "chemo") == "planned"
    assert a("Patient was taken to surgery for a right hemicolectomy on 3/4/2024.", "right hemicolectomy") != "planned"
    assert a("Worried about joint pains (her friend stopped anastrozole for this).", "anastrozole") == "family"
    assert a("Indeterminate nodule, could represent peritoneal carcinomatosis.", "peritoneal carcinomatosis") == "possible"
    assert a("No evidence of lung cancer; the initial concern for malignancy was not borne out.", "malignancy") == "negated"
    assert _one(nlp, "Primary lung malignancy.", "Differential Diagnosis")[0][2] == "possible"


def test_a_marker_named_beside_its_result_in_a_foreign_note(nlp):
    got = {m[0]: m for m in _one(nlp, "Tumeur RAS sauvage. KRAS, BRAF : absence d'altération.")}
    assert got["RAS sauvage"][3] == "KRAS=wild-type;NRAS=wild-type"
    assert got["BRAF : absence d'altération"][3] == "BRAF=wild-type"
    # a noun acronym of the glossary is still glossed: the Spanish "RH" is the hormone receptors
    assert ("RH negativos", "Biomarker", "present", "HR=negative") in _one(nlp, "Ca. mama HER2+ RH negativos, estadio IIA.")


def test_a_course_s_finish_and_a_foreign_month_date_the_care(nlp):
    from datetime import date, datetime

    from ingest.nlp import when
    from ingest.tkg.build import english_dates, sentence_date

    assert when.course_period(["- Start 10/03/2025   Finish 16/04/2025 (1 missed #)"], True) == \
        (date(2025, 3, 10), date(2025, 4, 16))
    around = datetime(2025, 5, 29)
    for foreign, day in [("PET-TC (20 de mayo de 2025): masa LID SUVmáx 11,3.", date(2025, 5, 20)),
                         ("Operation am 5. Mai 2025 ohne Komplikationen.", date(2025, 5, 5)),
                         ("Scanner TAP le 12 mars 2025 : pas de métastase.", date(2025, 3, 12))]:
        assert sentence_date(foreign, around) is None  # the foreign words alone: no day
        assert sentence_date(english_dates(foreign).text, around).date() == day
    assert english_dates("CT 20 May 2025: no mass.") is None  # English dates are read as written



def test_a_requested_list_plans_every_line(nlp):
    from ingest.text import split_sections
    from ingest.text.sections import canonical_name

    text = "Impression: suspicious RUL mass.\nRequested:\n- CT chest/abdomen/pelvis\n- MRI brain\n"
    [plan] = [s for s in split_sections(text) if s.name == "Plan"]
    lines = text[plan.start:plan.end].strip().splitlines()
    assert [m[2] for line in lines for m in _one(nlp, line, "Plan")] == ["planned", "planned"]
    assert canonical_name("Si richiede:") == "Plan"  # the Italian, glossed
    assert canonical_name("Test requested: solid tumour panel") is None  # a report's label, not a plan


def test_a_regimen_written_with_plus_is_one_choice(nlp):
    got = [m[2] for m in _one(nlp, "If TPS <50%: carboplatin + pemetrexed + pembrolizumab.") if m[1] == "Medication"]
    assert got == ["possible"] * 3


def test_a_drug_s_english_name_with_a_romance_ending_is_that_drug(nlp):
    lexicon = load_lexicon()
    assert lexicon.misspelled("pemetrexedo")[1:2] == ("Medication",)
    assert lexicon.misspelled("carboplatina")[1:2] == ("Medication",)
    assert lexicon.misspelled("pemetrexede")[1:2] == ("Medication",)
    assert lexicon.misspelled("tratamento") is None  # no drug under it


def test_a_care_label_takes_what_its_topic_says_of_that_care_later(nlp):
    from datetime import date

    sents = ["Radioterapia: revisada la historia — no consta valoración por Oncología Radioterápica.",
             "La interconsulta no se llegó a enviar tras la cirugía.", "NO ha recibido RT."]
    rows = resolve_note(sents, extract_mentions(nlp, sents, [None] * 3), note_day=date(2025, 1, 20))
    assert [m.assertion for m in rows[0] if m.text == "Radioterapia"] == ["negated"]
    dated = ["LUNG MDT 28/03/25: upstaged to pIIB.", "Referral to be sent by MDT coordinator."]
    rows = resolve_note(dated, extract_mentions(nlp, dated, [None] * 2), note_day=date(2025, 3, 28))
    assert [m.assertion for m in rows[0] if m.text == "MDT"] == ["present"]  # a dated label reports the event


def test_a_start_planned_is_one_cue(nlp):
    assert _assertion(nlp, "RT start planned early June.", "RT") == "planned"
    assert _assertion(nlp, "Chemo start date 12/06.", "Chemo") == "planned"


def test_care_kept_for_a_later_event_is_an_option(nlp):
    assert _assertion(nlp, "KRAS G12C inhibitor (sotorasib) is NOT 1st line - only at progression.", "sotorasib") \
        == "possible"
    assert _assertion(nlp, "At progression: docetaxel.", "docetaxel") == "possible"
    assert _assertion(nlp, "Started docetaxel at progression in 2023.", "docetaxel") == "present"  # told done
    assert _assertion(nlp, "Continue pembrolizumab until progression.", "pembrolizumab") != "possible"
    # an alternative named on a line of its own, after the care recommended, in English or glossed
    got = [m[2] for m in _one(nlp, "Alternative: carboplatin/pemetrexed/pembrolizumab.") if m[1] == "Medication"]
    assert got == ["possible"] * 3


def test_a_decision_in_another_language_plans_its_care(nlp):
    # "Decisão:" (Portuguese) glossed "decision:" like the English label; "seguida de" is "followed by"
    got = _one(nlp, "Decisão: Terapêutica Neoadjuvante Total (TNT) — RT curta 5 x 5 Gy seguida de CAPOX x6.")
    assert {m[2] for m in got if m[1] in ("Medication", "Procedure")} == {"planned"}


def test_care_the_patient_was_informed_about_is_talked_over(nlp):
    assert _assertion(nlp, "Patient informed about short-course RT 25 Gy/5 fr (acute/late effects).",
                      "short-course RT 25 Gy/5 ") == "possible"
    assert _assertion(nlp, "Patient informed of the results of the lumpectomy.", "lumpectomy") == "present"
    # glossed: "Doente informado sobre RT curta", "CAPOX a iniciar ~2 semanas após fim da RT"
    assert _assertion(nlp, "Doente informado sobre RT curta 25 Gy/5 fr.", "RT") == "possible"
    assert _assertion(nlp, "CAPOX a iniciar ~2 semanas após fim da RT.", "CAPOX") == "planned"


def test_a_consultation_named_by_its_department_is_no_care_given(nlp):
    # "Consulta de Radioterapia — 15/05/2025" (glossed "consultation of radiotherapy"): the consult's topic
    assert _assertion(nlp, "Consulta de Radioterapia — 15/05/2025", "Radioterapia") == "possible"
    assert _assertion(nlp, "Department of Radiation Oncology - RT started 3/4.", "RT") == "present"


def test_a_year_less_dotted_day_close_to_care_dates_it(nlp):
    from datetime import date

    from ingest.nlp import when

    # "Termin Strahlentherapie (Dr. Hoffmann) 28.05.": a day after the note plans the care (a title's dot ends
    # no clause); dotted cycle days without their year date a course ("C1 10.03., C2 31.03., C3 21.04.2025")
    for sent in ("Appointment radiotherapy (Dr. Hoffmann) 28.05. for planning CT.",
                 "Termin Strahlentherapie (Dr. Hoffmann) 28.05. zum Planungs-CT."):
        [row] = resolve_note([sent], extract_mentions(nlp, [sent], [None]), note_day=date(2025, 5, 20))
        assert [m.assertion for m in row if m.kind == "Procedure"] == ["planned"]
    sent = "Bisherige Therapie: TC C1 10.03., C2 31.03., C3 21.04.2025 jeweils MIT Trastuzumab."
    [row] = resolve_note([sent], extract_mentions(nlp, [sent], [None]), note_day=date(2025, 4, 24))
    assert {(m.assertion, m.detail.get("course_start")) for m in row if m.kind == "Medication"} == {
        ("historical", "2025-03-10")}
    # a value with a closing dot is no day ("Hb 11.8."), nor is a day far from the care
    assert when.cycle_period("Hb 11.8. C1 given") is None
    sent = "Post-op: ileostomy active day 1, oral diet day 2, discharged day 6 (18.11. planned)."
    [row] = resolve_note([sent], extract_mentions(nlp, [sent], [None]), note_day=date(2025, 11, 14))
    assert [m.assertion for m in row if m.text == "ileostomy"] != ["planned"]


def test_care_said_also_shares_the_phase_of_the_sentence_before(nlp):
    from datetime import date

    sents = ["Total recibido: 6 dosis de trastuzumab (solo neoadyuvancia).", "Pertuzumab tb 6 dosis."]
    rows = resolve_note(sents, extract_mentions(nlp, sents, [None] * 2), note_day=date(2025, 11, 20))
    assert [m.detail.get("phase") for m in rows[1] if m.kind == "Medication"] == ["neoadjuvant"]
    sents = ["Adjuvant letrozole since 03/2024.", "Also on denosumab 60mg 6-monthly for osteoporosis."]  # one more item
    rows = resolve_note(sents, extract_mentions(nlp, sents, [None] * 2), note_day=date(2025, 11, 20))
    assert [m.detail.get("phase") for m in rows[1] if m.kind == "Medication"] == [None]


def test_care_the_patient_asked_about_is_not_given(nlp):
    assert _assertion(nlp, "Pt asked re starting pembrolizumab now given PD-L1 70%.", "pembrolizumab") == "possible"
    assert _assertion(nlp, "Asked re breast ca meds - says she finished everything.", "breast ca") != "possible"


def test_care_labelled_then_discussed_is_talked_over(nlp):
    got = _assertion(nlp, "Adjuvant capecitabine for residual disease: discussed, patient does NOT wish to add it.",
                     "capecitabine")
    assert got == "possible"
    assert _assertion(nlp, "Capecitabina adyuvante por enfermedad residual: comentada, la paciente NO desea añadirla.",
                      "Capecitabina") == "possible"  # glossed
    # the verb with an object of its own talks of something else
    assert _assertion(nlp, "AI-associated arthralgia: discussed switch to letrozole; start duloxetine 30 mg daily.",
                      "duloxetine 30 mg daily") != "possible"


def test_a_short_abbreviation_before_a_stage_group_is_its_label(nlp):
    # "EC IIA" (estádio clínico), "ACT II-type" (a trial): not the EC regimen, not a drug; "TCAR" is an HRCT
    assert not [m for m in _one(nlp, "Adenocarcinoma de ceco cT3 N0 M0 - EC IIA (clínico).") if m[1] == "Medication"]
    assert not [m for m in _one(nlp, "TCAR tórax (29/01): opacidades em vidro fosco bilaterais.") if m[1] == "Medication"]
    assert [m[1] for m in _one(nlp, "Adjuvant EC x4 then paclitaxel.") if m[0].startswith("EC")] == ["Medication"]


def test_a_named_variant_ruled_out_beside_a_found_one_is_no_conflict(nlp):
    from graphkit.clinical.values import variant_found_wins

    # "EGFR L858R: DETECTED" beside "EGFR T790M / exon 20 insertion: not detected": the gene is mutated
    assert variant_found_wins([("mutated", {"alteration": "L858R"}),
                               ("wild-type", {"alteration": "T790M exon 20 insertion"})]) == [0]
    assert variant_found_wins([("mutated", {"alteration": "L858R"}), ("wild-type", {})]) == [0, 1]  # a conflict
    sents = ["- EGFR exon 21 p.(L858R): DETECTED (VAF 34%).", "- EGFR T790M / exon 20 insertion: not detected"]
    rows = resolve_note(sents, extract_mentions(nlp, sents, [None] * 2))
    assert not [f for ms in rows for m in ms for f in m.flags if f.startswith("conflict:")]


def test_a_degree_of_suspicion_or_a_relative_named_after_the_disease(nlp):
    assert _assertion(nlp, "Ca lung - low suspicion (never smoker, no red flags) but pt anxious.", "Ca lung") == "possible"
    assert _assertion(nlp, "Lung nodule, high suspicion for malignancy.", "malignancy") == "possible"
    assert _assertion(nlp, "Lung nodule, high suspicion for malignancy.", "Lung nodule") == "present"
    got = _one(nlp, "Pt has NOT been diagnosed with breast ca; the breast ca in her chart is her mother's.")
    assert [m[2] for m in got if m[1] == "Cancer"] == ["negated", "family"]


def test_a_name_restated_in_brackets_stays_in_reach_of_its_cue(nlp):
    got = _one(nlp, "Stereotactic radiotherapy (SBRT) discussed, but not appropriate as the patient is operable.")
    assert {m[2] for m in got if m[1] == "Procedure" and m[0] != "surgery"} == {"possible"}
    # Norwegian: "drøftet, men ikke aktuelt" (discussed, but not applicable)
    got = _one(nlp, "Stereotaktisk strålebehandling (SBRT) drøftet, men ikke aktuelt da pasienten er operabel.")
    assert {m[2] for m in got if m[1] == "Procedure"} == {"possible"}


def test_a_line_item_s_label_speaks_for_its_whole_item(nlp):
    from ingest.nlp.assertion import opens_item

    note = ("P:\n- If HER2 amplified: for neoadjuvant TCHP x 6\n  -> surgery. 2D echo before trastuzumab.\n"
            "- If tolerated: continue letrozole. Recheck in 3 months.\n"
            "FHx:\n- Sister (41 y): adenocarcinoma of the ascending colon. Right hemicolectomy June 2024. "
            "Currently on adjuvant CAPOX.\nMeds: Synthroid.")
    sents, at = [], 0
    for piece in ("If HER2 amplified: for neoadjuvant TCHP x 6", "-> surgery.", "2D echo before trastuzumab.",
                  "If tolerated: continue letrozole.", "Recheck in 3 months.",
                  "Sister (41 y): adenocarcinoma of the ascending colon.", "Right hemicolectomy June 2024.",
                  "Currently on adjuvant CAPOX.", "Synthroid."):
        at = note.index(piece, at)
        sents.append((piece, opens_item(note, at)))
    texts = [t for t, _ in sents]
    rows = resolve_note(texts, extract_mentions(nlp, texts, [None] * len(texts)), opens=[o for _, o in sents])
    said = {m.text: m.assertion for ms in rows for m in ms}
    assert said["surgery"] == said["trastuzumab"] == "possible"  # one branch of a plan waiting on HER2
    assert said["letrozole"] != "possible"  # "If tolerated" names no result
    assert said["Right hemicolectomy"] == said["CAPOX"] == "family"  # the sister's
    assert said["Synthroid"] == "present"  # a new item, the patient's


def test_a_prescription_not_started_yet_and_funding_sought_leave_the_drug_to_come(nlp):
    from datetime import date

    sents = ["Prescription written: Alecensa 150 mg capsules, 4 capsules x 2 with food.",
             "Has NOT started the treatment yet."]
    rows = resolve_note(sents, extract_mentions(nlp, sents, [None] * 2), note_day=date(2025, 10, 14))
    assert [m.assertion for m in rows[0] if m.kind == "Medication"] == ["planned"]
    assert _assertion(nlp, "Osimertinib cost ~1.2 lakh/month - mediclaim (TPA) approval sought.", "Osimertinib") == \
        "planned"


def test_a_scan_of_chained_regions_and_a_clinic_named_for_a_cancer(nlp):
    from graphkit.clinical.sites import imaging_regions, scan_span

    text = "chest and abdomen CT with contrast"
    a, b = scan_span(text, text.index("abdomen"), text.index("CT") + 2)
    assert imaging_regions(text[a:b]) == ("chest", "abdomen")
    assert not [m for m in _one(nlp, "Medical genetics service - clinic of hereditary cancers.") if m[1] == "Cancer"]


def test_hiv_care_tuberculosis_and_a_therapy_the_patient_is_on(nlp):
    got = {m[0]: (m[1], m[2]) for m in _one(nlp, "PMH: HIV on ART (TLD) since 2015, CD4 420, viral load undetectable.",
                                             "Past Medical History")}
    assert got["ART"] == ("Procedure", "present") and got["TLD"][0] == "Medication"
    assert got["CD4"][0] == got["viral load"][0] == "Test"
    assert _assertion(nlp, "No h/o TB / asthma.", "TB") == "negated"
    # a tumour board and a tuberculosis test are no tuberculosis
    for sent in ("Discuss at thoracic TB 8/29.", "Plan (per GI TB 6/7): FOLFOX.", "TB culture sent - pending."):
        assert "TB" not in [m[0] for m in _one(nlp, sent)]
    assert _assertion(nlp, "Hypothyroid on Thyronorm 50 mcg OD; OSA on CPAP.", "CPAP") == "present"
    # an operation's specimen and the days of a course are not a therapy the patient is on
    assert _assertion(nlp, "Plan: HER2 ISH on excision requested.", "excision") != "present"
    assert _assertion(nlp, "Plan: LCCRT with capecitabine 825 mg/m2 BID on RT days.", "RT") == "planned"
    # a disease kept in check by a drug under a plan's heading: the drug is taken now
    assert [m[2] for m in _one(nlp, "4. HTN: controlled on lisinopril.", "Plan") if m[0] == "lisinopril"] == ["present"]


def test_care_not_attempted_is_not_done_and_its_reason_is_left_alone(nlp):
    got = {m[0]: m[2] for m in _one(nlp, "Talc pleurodesis not attempted as post-drainage CXR showed trapped lung.")}
    assert got["Talc pleurodesis"] == "negated" and got["CXR"] == "present"
    assert _assertion(nlp, "A biopsy was not attempted given his lung function.", "biopsy") == "negated"


def test_scenario_items_a_board_s_dated_decision_and_care_called_for(nlp):
    from ingest.nlp.assertion import opens_item
    from ingest.text.sections import canonical_name, split_sections

    # sibling items that give one marker different results are the branches of a plan waiting on it
    note = ("Discussed both scenarios:\n (a) HER2 amplified -> neoadjuvant TCHP x6, then surgery.\n"
            " (b) HER2 not amplified -> surgery first; RT after BCS.\n")
    pieces = ["Discussed both scenarios:", "(a) HER2 amplified -> neoadjuvant TCHP x6, then surgery.",
              "(b) HER2 not amplified -> surgery first; RT after BCS."]
    opens = [opens_item(note, note.index(p)) for p in pieces]
    rows = resolve_note(pieces, extract_mentions(nlp, pieces, [None] * 3), opens=opens)
    said = [(m.text, m.assertion) for ms in rows for m in ms]
    assert ("TCHP x6", "possible") in said and ("BCS", "possible") in said and ("RT", "possible") in said
    assert ("HER2 amplified", "possible") in said  # a condition, not her result
    # one item with a result is a history line, not a scenario
    rows = resolve_note(["- ER+ -> letrozole since 2020."], extract_mentions(nlp, ["- ER+ -> letrozole since 2020."],
                                                                            [None]), opens=[True])
    assert {m.text: m.assertion for m in rows[0]}["ER+"] == "present"
    # a board's decision named by its first word, also dated by its meeting, opens a plan to its paragraph's end
    assert canonical_name("Decisão da RMD") == canonical_name("Decyzja zespołu") == "Plan"
    assert canonical_name("Rad onc consulted") is None and canonical_name("Advice on discharge") is None
    text = "MDT outcome (24/04/2025): total neoadjuvant therapy\n\nI saw him today. Colonoscopy showed a tumour."
    assert [s.name for s in split_sections(text)] == ["Plan", "Unlabeled"]
    # care called for, counterfactual, or the topic of a talk is not care given
    assert _assertion(nlp, "Indication for PMRT: node positive, LVI +.", "PMRT") == "planned"
    assert _assertion(nlp, "Stage IIIB -> would normally have had CAPOX started within 8 wks.", "CAPOX") == "possible"
    assert _assertion(nlp, "Osimertinib conversation to be picked up again at the results clinic.",
                      "Osimertinib") == "possible"
    assert _assertion(nlp, "Says nobody talked to him about chemo.", "chemo") == "negated"
    assert _assertion(nlp, "Next visit w/ surgery is Sept w/ CT.", "CT") == "planned"
    assert _assertion(nlp, "Thereafter PMRT, then letrozole 2.5 mg OD.", "PMRT") == "planned"
    assert _assertion(nlp, "Thereafter she received PMRT.", "PMRT") == "historical"
    # a relative speaking for the patient, a doctor's specialty, and a Portuguese heart exam are no care of hers
    assert _assertion(nlp, "Son requested trastuzumab since HER2 is 2+.", "trastuzumab") != "family"
    assert not [m for m in _one(nlp, "Present: dr. Maes (PA), dr. Goossens (radiotherapy).") if m[1] == "Procedure"]
    assert not [m for m in _one(nlp, "AC: rítmica, sem sopros. AP e AC sem alterações.") if m[1] == "Medication"]
    assert [m[2] for m in _one(nlp, "Plan: AC x4 then paclitaxel.") if m[0] == "AC x4"] == ["planned"]


def test_a_course_named_in_brackets_after_its_phase_and_an_ultrasound_abbreviated(nlp):
    got = {m[0]: m for m in _one(nlp, "s/p neoadjuvant (TCHP x6).")}
    assert got["TCHP x6"][2] == "historical"
    [m] = [m for m in extract_mentions(nlp, ["s/p neoadjuvant (TCHP x6)."], [None])[0] if m.text == "TCHP x6"]
    assert m.detail.get("phase") == "neoadjuvant"
    assert ("Breast U/S", "Test") in [(m[0], m[1]) for m in _one(nlp, "Breast U/S (done today): BIRADS 5.")]
