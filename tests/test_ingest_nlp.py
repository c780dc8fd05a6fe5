"""Clinical entities, codes and assertion, on sentences like the ones in real notes."""

from __future__ import annotations

from ingest.link import load_lexicon
from ingest.nlp import extract_mentions


def _one(nlp, sentence, section=None):
    [mentions] = extract_mentions(nlp, [sentence], [section])
    return [(m.text, m.kind, m.assertion, m.value) for m in mentions]


def test_assertion_classes(nlp):
    assert ("fever", "Problem", "negated", None) in _one(nlp, "Patient denies chest pain or fever.")
    assert ("breast cancer", "Cancer", "family", None) in _one(nlp, "Mother had breast cancer at 62.")
    assert ("colonoscopy", "Procedure", "possible", None) in _one(nlp, "If bleeding recurs, consider colonoscopy.")
    assert ("anemia", "Problem", "historical", None) in _one(nlp, "She has a history of anemia.")
    assert ("Anemia", "Problem", "historical", None) in _one(nlp, "Anemia.", "Past Medical History")
    assert ("Anemia", "Problem", "family", None) in _one(nlp, "Anemia in her sister.", "Family History")


def test_the_cue_is_kept(nlp):
    [mentions] = extract_mentions(nlp, ["Patient denies fever."], [None])
    assert mentions[0].cue == "denies"


def test_a_negated_finding_is_kept_and_not_merged_with_a_present_one(nlp):
    found = extract_mentions(nlp, ["No evidence of anemia.", "Anemia on labs today."], [None, None])
    assert [(m.text, m.assertion) for m in found[0]] == [("anemia", "negated")]
    assert [(m.text, m.assertion) for m in found[1]] == [("Anemia", "present")]


def test_biomarkers_and_stage_with_values(nlp):
    got = _one(nlp, "ER positive (90%), PR negative, HER2 negative (IHC 1+). EGFR mutation detected; PD-L1 high.")
    values = {v for *_, v in got}
    assert {"ER=positive", "PR=negative", "HER2=negative", "EGFR=mutated", "PD-L1=high"} <= values
    assert ("Stage IIA", "Stage", "present", "IIA") in _one(nlp, "Stage IIA (pT2 pN0) disease.")
    assert any(v == "pT2pN0" for *_, v in _one(nlp, "Pathology: pT2 pN0."))
    assert _one(nlp, "The following procedures were conducted.") == []  # "PR" inside a word is not a marker


def test_mentions_are_coded_from_the_terminologies(nlp):
    [mentions] = extract_mentions(nlp, ["Patient has non-small cell lung cancer (disorder); cisplatin 50 mg injection given."], [None])
    codes = {(c.system, c.code) for m in mentions for c in m.concepts}
    assert {("SNOMED-CT", "254637007"), ("DOID", "DOID:3908"), ("RxNorm", "1736854")} <= codes
    lex = load_lexicon()
    assert lex.lookup("Malignant neoplasm of breast (disorder)")[0].code == "254837009"
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


def test_named_regimens_are_medications_without_invented_codes(nlp):
    [mentions] = extract_mentions(nlp, ["Adjuvant FOLFOX for 6 months, then surveillance."], [None])
    assert [(m.text, m.kind, m.concepts) for m in mentions] == [("FOLFOX", "Medication", ())]
