"""Chunks in the graph, global/local retrieval, SOAP notes and aspect summaries with checked citations."""

from __future__ import annotations

import pytest

from graphkit.errors import BadInputError
from graphkit.llm.chat import FunctionChat
from ingest.job import ingest_paths

VISITS = {
    "v1": ("2024-01-10", "Oncology consult",
           "HPI: 61F with a palpable L breast mass, no pain.\nExam: 2 cm firm mass L breast 2:00, no adenopathy.\n"
           "Core bx: invasive ductal carcinoma, ER 90%, PR 30%, HER2 1+.\nAssessment: L breast IDC, cT2 cN0, stage IIA.\n"
           "Plan: lumpectomy and sentinel node biopsy; will start letrozole after radiation."),
    "v2": ("2024-03-20", "Follow-up",
           "HPI: doing well two weeks after L lumpectomy and SLNB, mild incisional soreness.\n"
           "Exam: incision healing well, no erythema.\nAssessment: pT1c pN0, stage IA, margins clear.\n"
           "Plan: whole breast radiotherapy referral; start letrozole 2.5 mg daily after radiotherapy."),
}


@pytest.fixture
def two_visits(store, nlp, prefix, tmp_path):
    rows = ["patient_id,note_id,time,type,path,encounter_id"]
    for k, (day, typ, text) in VISITS.items():
        (tmp_path / f"{k}.txt").write_text(text)
        rows.append(f"{prefix}p,{prefix}{k},{day}T10:00,{typ},{k}.txt,{prefix}{k}")
    (tmp_path / "manifest.csv").write_text("\n".join(rows) + "\n")
    ingest_paths(store, [tmp_path], quarantine_path=tmp_path / "q.jsonl", nlp=nlp)
    return f"{prefix}p", tmp_path


def test_chunks_are_stored_with_their_sentences_and_replaced_with_their_note(store, nlp, two_visits, prefix):
    patient, folder = two_visits
    chunks = store.read("testing.chunks_of_encounter", encounter=f"{prefix}v1")
    assert chunks and all("letrozole" not in c["text"] or "radiation" in c["text"] for c in chunks)
    (folder / "v1.txt").write_text(VISITS["v1"][2].replace("letrozole", "anastrozole"))
    ingest_paths(store, [folder], quarantine_path=folder / "q.jsonl", nlp=nlp)
    texts = " ".join(c["text"] for c in store.read("testing.chunks_of_encounter", encounter=f"{prefix}v1"))
    assert "anastrozole" in texts and "letrozole" not in texts  # the old chunks went with the old note


def test_search_is_global_or_local_and_names_its_sources(store, two_visits, embedder, prefix):
    from graphkit.retrieve import Scope, search

    patient, _ = two_visits
    everywhere = search(store, patient, "letrozole after radiotherapy", embedder, k=5)
    assert {h.encounter for h in everywhere} == {f"{prefix}v1", f"{prefix}v2"}
    local = search(store, patient, "letrozole after radiotherapy", embedder, Scope(encounter=f"{prefix}v2"), k=5)
    assert local and {h.encounter for h in local} == {f"{prefix}v2"} and all(h.sentences for h in local)
    with pytest.raises(BadInputError):
        search(store, patient, "anything", embedder, Scope(encounter="no-such-encounter"))
    assert search(store, patient, "zzzz qqqq", embedder, Scope(encounter=f"{prefix}v2"), k=3) is not None


def test_soap_has_every_section_and_every_sentence_cites(store, two_visits, embedder, prefix):
    from graphkit.documents.job import soap_for_encounter

    patient, _ = two_visits
    doc, note = soap_for_encounter(store, patient, f"{prefix}v1", embedder, save=True)
    assert [line.split(":")[0] for line in doc.text.splitlines()] == ["SUBJECTIVE", "OBJECTIVE", "ASSESSMENT", "PLAN"]
    assert not doc.uncited and doc.citations
    assert "mass" in doc.text.split("OBJECTIVE:")[1].split("ASSESSMENT:")[0]  # the exam is objective
    assert "lumpectomy" in doc.text.split("PLAN:")[1]
    with pytest.raises(BadInputError):
        soap_for_encounter(store, patient, "no-such-encounter", embedder)


def test_llm_soap_citing_a_fact_it_was_not_given_falls_back(store, two_visits, embedder, prefix):
    from graphkit.documents.job import soap_for_encounter

    patient, _ = two_visits
    liar = FunctionChat(lambda s, p: "SUBJECTIVE: Fine [S99].\nOBJECTIVE: x [S1].\nASSESSMENT: y [S1].\nPLAN: z [S1].",
                        name="liar")
    doc, _ = soap_for_encounter(store, patient, f"{prefix}v1", embedder, llm=liar, save=False)
    assert doc.mode == "llm-fallback" and "not given" in doc.note


def test_summary_keeps_only_citations_that_support_their_claim(store, two_visits, embedder):
    from graphkit.documents.attribution import supports
    from graphkit.documents.job import summary_for_patient

    patient, _ = two_visits
    doc, claims = summary_for_patient(store, patient, embedder)
    marker = next(c for c in claims if c.aspect == "biomarkers" and c.text.startswith("ER"))
    assert marker.sentences and "ER 90%" in marker.sentences[0][1]
    assert not supports("ER is positive", "Exam: incision healing well, no erythema.", 0.3).supported
    assert not supports("letrozole (completed)", "Plan: start letrozole 2.5 mg daily after radiotherapy.", 0.6).supported


def test_a_sentence_that_dates_the_event_otherwise_does_not_support_the_claim():
    from graphkit.documents.attribution import dated_otherwise

    said = "Started tamoxifen 20 mg daily on 26 May 2025 (perimenopausal)."
    assert dated_otherwise("tamoxifen 20 mg daily (started) from 2025-05-31", said)
    assert not dated_otherwise("tamoxifen 20 mg daily (started) from 2025-05-26", said)
    assert not dated_otherwise("tamoxifen (started) from 2025-05-31", "Started tamoxifen.")  # no date of its own
    # a course's later date may be its end; a point in time has one date
    assert not dated_otherwise("RT (completed) from 2025-05-05", "Completed chest wall RT 16 May 2025.")
    assert dated_otherwise("IDC was first recorded on 2025-01-06", "Core biopsy (14-Jan-2025): IDC, grade 2.")
    # a course written as a period that began later did not run from the claim's day
    crt = "Concurrent CRT: IMRT 60 Gy/30 fx, 11/11/2024 - 12/20/2024."
    assert dated_otherwise("CRT (documented) from 2024-10-29", crt)
    assert not dated_otherwise("CRT (documented) from 2024-11-11", crt)
    # a dashed day ("10-03-2025", European notes) dates a course as a slashed one does
    said = "Cisplatin/etoposide C1 10-03-2025 to C4 23-05-2025; thoracic RT 45 Gy BID concurrent with C2."
    assert dated_otherwise("Cisplatin (documented) from 2025-06-24", said)
    assert not dated_otherwise("Cisplatin (documented) from 2025-03-10", said)
    # a day written without its year after a word that dates the event, read in the claim's year; a
    # score's "8/8" is no day
    assert dated_otherwise("Colon ca was first recorded on 2025-05-20", "Histology 26/5: adenocarcinoma.")
    assert not dated_otherwise("Colon ca was first recorded on 2025-05-26", "Histology 26/5: adenocarcinoma.")
    assert dated_otherwise("L WLE (documented) from 2023-08-01", "Results clinic (surgery 11.07.23: L WLE + SLNB)")
    assert not dated_otherwise("ER positive as of 2025-05-20", "ER positive (Allred 8/8).")


def test_a_cancer_claimed_as_spread_needs_a_sentence_that_says_it_spread():
    from graphkit.documents.attribution import supports

    claim = "Metastatic invasive lobular carcinoma L breast was first recorded on 2025-09-08"
    assert not supports(claim, "invasive lobular carcinoma of the breast, classic type, G2.", 0.9).supported
    assert supports(claim, "Liver biopsy: metastatic invasive lobular carcinoma, breast primary.", 0.9).supported


def test_a_course_begun_earlier_a_value_that_differs_and_care_named_as_a_time_point_support_nothing():
    from graphkit.documents.attribution import dated_otherwise, value_disagrees

    course = "Treatment: pelvic chemoradiotherapy, 45 Gy in 25 fractions, 25/11/2024 to 31/12/2024, no gaps."
    assert dated_otherwise("CRT (documented) from 2024-12-31", course)  # it began in November
    assert not dated_otherwise("CRT (documented) from 2024-11-25", course)
    assert dated_otherwise("RT 45 Gy/30 (completed) from 2025-01-28", "thoracic RT 45 Gy/30# BD (17/02 - 14/03/2025).")
    assert value_disagrees("PD-L1 is low, tps 1.0", "PD-L1 40%, EGFR/ALK negative.")
    assert not value_disagrees("PD-L1 is low, tps 40.0", "PD-L1 (SP263): TPS 40%")


def test_a_marker_result_written_as_a_sentence_and_an_operation_stated_support_their_claims():
    from graphkit.documents.attribution import facts_of, stated_facts, supports

    assert "RET=negative" in facts_of("RET is negative") and "MET=wild-type" in facts_of("MET is wild-type")
    assert "EGFR=wild-type" in stated_facts("NGS: EGFR - no pathogenic variant (wild-type); ALK - no rearrangement.")
    said = "Procedure: R breast wire-localized lumpectomy; R axillary sentinel node bx (blue dye + radiotracer)."
    assert supports("lumpectomy (completed) from 2025-03-18", said, 0.55).supported


def test_a_first_cycle_dates_a_course_and_a_histology_is_read_with_its_note_s_site():
    from graphkit.documents.attribution import dated_otherwise, supports

    said = "Completed CAPOX x 4: C1 03/25/2025, C2 04/15, C3 05/06, C4 05/27/2025."
    assert dated_otherwise("CAPOX (completed) from 2025-03-18", said)
    assert not dated_otherwise("CAPOX (completed) from 2025-03-25", said)
    # the sentence alone names a generic adenocarcinoma; ingestion stored it with the colon site of its note
    histology = "Histology: adenocarcinoma, moderately differentiated (G2)."
    stored = {"DOID|DOID:234": {"present"}, "DOID|DOID:219": {"present"}, "DOID|DOID:162": {"present"}}
    assert supports("Colon adenocarcinoma was first recorded on 2025-04-17", histology, 0.6, stated=stored).supported
    assert not supports("Colon adenocarcinoma was first recorded on 2025-04-17", histology, 0.6,
                        stated={"DOID|DOID:3910": {"present"}}).supported


def test_a_meetings_date_an_anchor_named_with_its_own_words_a_sent_marker_and_an_unknown_abbreviation():
    from graphkit.documents.attribution import _only_as_time_point, dated_otherwise, supports

    # the date of the board is not the date of the cancer it discusses
    assert not dated_otherwise("RLL adenocarcinoma was first recorded on 2025-02-10",
                               "Lung MDM 20/02/2025 62M - RLL adenocarcinoma.")
    assert dated_otherwise("RLL adenocarcinoma was first recorded on 2025-02-10",
                           "EBUS-TBNA 20/02/2025: RLL adenocarcinoma.")
    # the operation named as the time since which nothing was done, with its own words between
    said = "Records confirm no surveillance CT and no colonoscopy since sigmoid colectomy 12/03/2024."
    assert _only_as_time_point("laparoscopic sigmoid colectomy", said)
    assert not _only_as_time_point("laparoscopic sigmoid colectomy", "He had a laparoscopic sigmoid colectomy.")
    # a marker sent with its result awaited shows why it is still to be tested
    assert supports("HER2 is pending: to be tested or documented",
                    "ER/PR/HER2 IHC requested in our lab 01/04 - results expected next week.", 0.5).supported
    # the claim's subject named by its own codes, whatever the wording's closeness
    assert supports("ILC was first recorded on 2025-03-04", "Invasive lobular carcinoma, classic type, L breast.",
                    0.04).supported
