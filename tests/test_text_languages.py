"""Notes partly written in another language: the sentence's language, its English gloss, and the mentions
read from the gloss but placed on the source words."""

from __future__ import annotations

import pytest

from ingest.nlp import extract_mentions
from ingest.text.languages import gloss, language_of, note_language
from ingest.text.sections import canonical_name


@pytest.mark.parametrize("sentence", [
    "Pre-op CEA 8.9, post-op 2.0.",  # "op" is Dutch, but joined to an English word
    "Neuro exam non-focal.",
    "dMMR / MSI-H, BRAF V600E mutated.",  # acronyms tell no language
    "Margins negative; closest 3 mm (posterior).",
    "Patient denies fever. Seen by Dr de Vries.",
    "Walking 3 mi/day.",
])
def test_english_sentences_are_not_glossed(sentence):
    assert language_of(sentence) == "en"
    assert gloss(sentence) is None


@pytest.mark.parametrize(("sentence", "language"), [
    ("Sin evidencia de recidiva local ni a distancia.", "es"),
    ("Pas de métastase hépatique, pas d'adénopathie.", "fr"),
    ("Kein Anhalt für Fernmetastasen.", "de"),
    ("Nessuna lesione sospetta all'esame.", "it"),
    ("Sem evidência de doença metastática.", "pt"),
    ("Geen aanwijzingen voor metastasen op afstand.", "nl"),
    ("HER2 negativo", "es"),  # one word English never writes is enough when nothing English is there
])
def test_language_of(sentence, language):
    assert language_of(sentence) == language


def test_romance_adjectives_come_before_their_noun_but_results_stay_after():
    assert gloss("Carcinoma ductal infiltrante de mama izquierda.").text.startswith(
        "invasive ductal carcinoma of left breast")
    assert "HER2 negative" in gloss("RE 90%, RP 20%, HER2 negativo.").text


def test_german_compounds_split_into_glossary_words():
    assert gloss("V.a. Lebermetastasen, keine Fernmetastasen.").text == \
        "suspicion of liver metastases, no distant metastases."


def test_accents_tell_words_apart_before_they_are_folded():
    assert gloss("Tumorectomía hace 2 años.").text.endswith("2 years ago.")  # "años", not "anos" (anus)


@pytest.mark.parametrize(("sentence", "english"), [
    ("Mastectomía izquierda hace dos años.", "two years ago"),
    ("Colectomie droite il y a trois mois.", "three months ago"),
    ("Lobektomie vor 2 Jahren.", "2 years ago"),
    ("Mastectomia há um ano.", "a year ago"),
    ("Chirurgia 3 anni fa.", "3 years ago"),
])
def test_ago_follows_its_span_as_in_english(sentence, english):
    assert english in gloss(sentence).text
    assert "before the surgery" in gloss("Vor der Operation: Chemotherapie.").text  # no span: "vor" is "before"


def test_an_english_sentence_of_a_foreign_note_glosses_only_its_foreign_terms():
    assert gloss("Röntgen-Thorax: no infiltrates, no effusion.", "de").text == "chest X-ray: no infiltrates, no effusion."
    assert gloss("Patient seen with his wife, discussed the plan.", "de") is None
    assert gloss("Röntgen-Thorax: no infiltrates.") is None  # an English note: nothing to gloss


def test_care_some_years_ago_is_history(nlp):
    [ms] = extract_mentions(nlp, ["Lobectomía superior derecha hace 3 años por adenocarcinoma."], [None])
    assert {m.kind: m.assertion for m in ms}.get("Procedure") == "historical"


def test_a_glossed_span_maps_back_to_the_source_words():
    source = "Métastases hépatiques synchrones, pas de carcinose péritonéale."
    g = gloss(source)
    start = g.text.index("hepatic metastases")
    a, b = g.to_source(start, start + len("hepatic metastases"))
    assert source[a:b] == "Métastases hépatiques"


def test_mentions_of_a_foreign_sentence_point_at_its_own_words(nlp):
    [ms] = extract_mentions(nlp, ["Pas de métastase hépatique; adénocarcinome pulmonaire, EGFR non muté."], [None])
    by_text = {m.text: m for m in ms}
    assert by_text["métastase hépatique"].assertion == "negated"
    assert by_text["adénocarcinome pulmonaire"].kind == "Cancer"
    assert by_text["adénocarcinome pulmonaire"].assertion == "present"
    assert any(m.kind == "Biomarker" and "EGFR" in (m.value or "") for m in ms)


def test_family_history_in_german(nlp):
    [ms] = extract_mentions(nlp, ["FA: Mutter Ovarial-Ca, Tante mütterlicherseits Mamma-Ca mit 51."], [None])
    assert {m.text: m.assertion for m in ms if m.kind == "Cancer"} == {"Ovarial-Ca": "family", "Mamma-Ca": "family"}


def test_short_lines_take_the_note_language(nlp):
    note = ["Pathologie: HER2 IHC 2+ mit negativer ISH, keine Indikation für Trastuzumab.",
            "Bisherige Therapie: drei Zyklen mit Trastuzumab.", "TC C4 ohne Trastuzumab"]
    assert note_language(note) == "de"
    assert language_of(note[2]) == "en"  # alone, one function word is not enough
    [ms] = extract_mentions(nlp, note[2:], [None], languages=["de"])
    assert next(m for m in ms if m.text == "Trastuzumab").assertion == "negated"


def test_a_header_in_another_language_names_its_section():
    assert canonical_name("Antecedentes familiares") == "Family History"
    assert canonical_name("Procedere") == "Plan"
    assert canonical_name("Conclusie") == "Impression"


def test_markers_none_resulted_to_date_are_not_tested_in_any_language(nlp):
    from graphkit.clinical.values import find_biomarkers

    # "no <markers> to date": nothing resulted yet, not a negative result
    said = [v for b in find_biomarkers("No EGFR/ALK/ROS1/PD-L1 to date.") for v in b.values]
    assert said == ["EGFR=not-tested", "ALK=not-tested", "ROS1=not-tested", "PD-L1=not-tested"]
    assert [v for b in find_biomarkers("No EGFR mutation detected.") for v in b.values] == ["EGFR=wild-type"]
    assert gloss("SIN EGFR/ALK/ROS1/PD-L1 hasta la fecha.", "es").text.endswith("to date.")
    ms = extract_mentions(nlp, ["SIN EGFR/ALK/ROS1/PD-L1 hasta la fecha."], [None], languages=["es"])[0]
    assert "EGFR=not-tested" in ms[0].values


def test_a_course_retold_in_spanish_keeps_its_phase_and_its_past(nlp):
    [ms] = extract_mentions(nlp, ["Total recibido: 6 dosis de trastuzumab (solo neoadyuvancia)."], [None], languages=["es"])
    drug = next(m for m in ms if m.text == "trastuzumab")
    assert drug.assertion == "historical" and drug.detail.get("phase") == "neoadjuvant"
    [ms] = extract_mentions(nlp, ["Recibe trastuzumab cada 3 semanas."], [None], languages=["es"])
    assert ms[0].assertion == "present"  # "recibe": receives, under way


@pytest.mark.parametrize("sentence, language", [
    ("La paciente rechaza la quimioterapia adyuvante.", "es"),
    ("La patiente refuse la chimiothérapie adjuvante.", "fr"),
    ("Chemotherapie wurde abgelehnt.", "de"),
    ("La paziente rifiuta la chemioterapia adiuvante.", "it"),
    ("A paciente recusou a quimioterapia adjuvante.", "pt"),
    ("Patiënte weigert adjuvante chemotherapie.", "nl"),
])
def test_care_the_patient_refuses_is_not_given_in_any_language(nlp, sentence, language):
    [ms] = extract_mentions(nlp, [sentence], [None], languages=[language])
    assert [m.assertion for m in ms if m.kind == "Procedure"] == ["negated"]


def test_care_only_discussed_is_not_given_and_an_english_header_stays_english(nlp):
    [ms] = extract_mentions(nlp, ["Alternativa discutida: QRT longa (50,4 Gy + capecitabina)."], [None], languages=["pt"])
    assert {m.text: m.assertion for m in ms if m.kind == "Procedure"}["QRT"] == "possible"
    assert canonical_name("Evaluation") is None  # French "évaluation" is the same word, not an assessment section


@pytest.mark.parametrize("sentence, language", [
    ("Hormonoterapia adyuvante NO iniciada.", "es"),
    ("Die Hormontherapie wurde nicht begonnen.", "de"),
    ("Hormonoterapia não iniciada.", "pt"),
])
def test_care_not_started_is_not_given_in_any_language(nlp, sentence, language):
    [ms] = extract_mentions(nlp, [sentence], [None], languages=[language])
    assert [m.assertion for m in ms] == ["negated"]


def test_an_acronym_in_capitals_is_the_notes_language_in_an_english_line():
    # "PET-TC total body con 18F-FDG" reads as English words in an Italian note: its "TC" is a CT scan,
    # never the docetaxel-cyclophosphamide regimen
    g = gloss("- PET-TC total body con 18F-FDG", "it")
    assert g is not None and "PET-CT" in g.text
    assert gloss("- PET-TC total body con 18F-FDG") is None  # an English note keeps its words


@pytest.mark.parametrize(("sentence", "language", "english"), [
    ("CT thorax/abdomen: ingen tegn til nye metastaser.", "da", "no signs of new metastases"),
    ("Lungekreft i venstre overlapp, stadium IVA (cT3N2M1a).", "nb", "(cT3N2M1a)"),
    ("Rak piersi prawej, bez przerzutów odległych.", "pl", "breast"),
    ("Pt. ønsker pembrolizumab alene.", "da", "wants pembrolizumab"),  # a wish, not care given
])
def test_nordic_and_polish_notes_are_glossed(sentence, language, english):
    g = gloss(sentence, language)
    assert g is not None and english in g.text


def test_an_english_header_is_not_read_as_a_foreign_one():
    assert canonical_name("Disposition") is None  # a Danish "disposition" is a family history; English's is not
    assert canonical_name("Hereditet") == "Family History"


def test_a_condition_in_french_italian_german_or_dutch_reads_as_if():
    assert gloss("RT antalgique T7 si douleur non contrôlée.").text.startswith("RT")
    assert " if pain" in gloss("RT antalgique T7 si douleur non contrôlée.").text
    assert gloss("Indien progressie: docetaxel.").text.startswith("if progression")
    # the Spanish "si" is left alone: folded, it is also "sí" (yes) — "Fumador: sí"
    smoker = gloss("Fumador: sí, 20 cigarrillos al día.")
    assert smoker is None or " if" not in smoker.text


def test_the_portuguese_se_is_if_only_where_it_opens_a_clause_and_the_spanish_si_unaccented():
    assert "if proficient mismatch repair" in gloss(
        "Decisão sobre QT adjuvante depende do status MMR: se pMMR -> discutir risco de fluoropirimidina.").text
    assert " if " not in " " + gloss("Não se observam metástases hepáticas.").text + " "
    assert gloss("Si citología no concluyente -> EBUS.").text.startswith("if ")
    assert gloss("Fumador: sí, 20 cigarrillos al día.").text.startswith("smoker: yes")


def test_a_header_of_two_foreign_parts_and_swedish_is_not_a_year():
    assert canonical_name("Bedömning/beslut") == "Assessment and Plan"  # impression / decision
    assert gloss("Patienten är 67 år.", "sv").text.startswith("patient is 67 year")


def test_a_note_of_short_foreign_lines_is_read_in_its_language():
    from ingest.text.languages import note_language

    # most lines say nothing of their language; the ones that do are Dutch
    sents = ["Reden: adjuvante behandeling na rechter hemicolectomie.", "Wonde genezen.", "Eetlust goed.",
             "Stoelgang 2x/d, zacht.", "Bespreking met pte en dochter: voor- en nadelen overlopen.", "Pte akkoord.",
             "WHO-PS 0."]
    assert note_language(sents) == "nl"
    # an English note with one foreign quote stays English
    assert note_language(["The patient was seen with her daughter.", "She has no pain and is eating well.",
                          "Reden: adjuvante behandeling na rechter hemicolectomie."]) == "en"
