"""Clinical text processing: normalization that maps back, sections, sentences, chunks."""

from __future__ import annotations

from ingest.text import chunk_sections, normalize, split_sections, split_sentences

NOTE = ("HISTORY OF PRESENT ILLNESS:  Ms. [**Known lastname 123**] is a 54 y.o. woman seen by Dr. Smith.\r\n"
        "She denies fever, chills.\r\n\r\n\r\n\r\n"
        "# Medications\n  • Letrozole 2.5 mg daily\n* Ibuprofen 400 mg p.o. prn\n"
        "Assessment and Plan: Stage IIA ER+ HER2- IDC. Plan lumpectomy on 03/20/2024.\n## Plan\n- Radiation oncology.\n")


def _sentences(text):
    norm = normalize(text)
    out = []
    for sec in split_sections(norm.text):
        for s in split_sentences(norm.text, sec.start, sec.end):
            a, b = norm.to_original(s.start, s.end)
            out.append((sec.name, norm.text[s.start:s.end], text[a:b]))
    return norm, out


def test_normalization_keeps_a_map_to_the_original_characters():
    norm, _ = _sentences(NOTE)
    assert "[DEID]" in norm.text and "[**" not in norm.text
    assert "HISTORY OF PRESENT ILLNESS:" in norm.text  # capitals kept (sections are found case-blind)
    assert "\n- Letrozole" in norm.text and "\r" not in norm.text and "\n\n\n" not in norm.text
    i = norm.text.index("[DEID]")
    a, b = norm.to_original(i, i + len("[DEID]"))
    assert NOTE[a:b] == "[**Known lastname 123**]"
    j = norm.text.index("Letrozole 2.5 mg daily")
    a, b = norm.to_original(j, j + len("Letrozole 2.5 mg daily"))
    assert NOTE[a:b] == "Letrozole 2.5 mg daily"


def test_sections_sentences_and_abbreviations():
    _, sents = _sentences(NOTE)
    names = [s[0] for s in sents]
    assert names[0] == "History of Present Illness" and "Medications" in names and "Assessment and Plan" in names
    assert names[-1] == "Plan"  # a plan of its own: its treatments are planned unless a cue says otherwise
    originals = [s[2] for s in sents]
    assert "Ms. [**Known lastname 123**] is a 54 y.o. woman seen by Dr. Smith." in originals  # no split at Ms./Dr.
    assert "Ibuprofen 400 mg p.o. prn" in originals  # one list item, one sentence
    assert "Radiation oncology." in originals and not any(o.startswith("#") for o in originals)


def test_a_result_line_under_an_acronym_keeps_its_capitals():
    text = "Molecular:\nKRAS G12C mutated.\nEGFR: wild-type.\nCEA: 6.2 ng/mL"
    norm = normalize(text)
    assert norm.text == text  # "Egfr:", "Cea:" would no longer name the gene or the test


def test_text_before_any_header_is_unlabeled():
    norm = normalize("Seen today for follow up.\n\nPLAN: continue letrozole.")
    secs = split_sections(norm.text)
    assert [s.name for s in secs] == ["Unlabeled", "Plan"]


def test_hierarchical_chunks_overlap_and_carry_their_context():
    text = "# Hospital Course\n" + " ".join(f"Sentence number {i} is here." for i in range(40))
    norm = normalize(text)
    secs = [(s, split_sentences(norm.text, s.start, s.end)) for s in split_sections(norm.text)]
    chunks = chunk_sections(secs, patient="p", encounter="e", note="n", note_type="Discharge summary",
                            max_chars=200, overlap=1)
    assert chunks[0].level == "section" and len(chunks[0].sentences) == 40
    subs = [c for c in chunks if c.level == "sub"]
    assert len(subs) > 3 and all(c.end - c.start <= 200 for c in subs)
    assert all(a.sentences[-1] == b.sentences[0] for a, b in zip(subs, subs[1:]))  # one sentence overlap
    assert {c.section for c in chunks} == {"Hospital Course"} and chunks[-1].index == len(chunks) - 1


def test_hard_wrapped_lines_are_one_sentence_and_list_items_are_not_joined():
    text = ("He has not\nreceived any chemotherapy. Labs were drawn and the results were\n"
            "normal.\n- Letrozole 2.5 mg daily\n- Tamoxifen stopped\nPlan: start AC-T")
    norm = normalize(text)
    got = [norm.text[s.start:s.end] for sec in split_sections(norm.text)
           for s in split_sentences(norm.text, sec.start, sec.end)]
    assert "He has not\nreceived any chemotherapy." in got
    assert "Labs were drawn and the results were\nnormal." in got
    assert "Letrozole 2.5 mg daily" in got and "Tamoxifen stopped" in got


def test_an_options_list_is_a_section_of_its_own_and_the_plan_goes_on():
    from ingest.text import split_sections

    text = ("Stage: cT2 cN0 M0.\nP: Reviewed options in detail:\n   (a) neoadjuvant TCHP x6 -> surgery\n"
            "       then T-DM1 if residual disease\n   (b) upfront lumpectomy + SLNB -> adjuvant chemo.\n"
            "   Pt declines neoadjuvant therapy.\n")
    secs = [(s.name, text[s.start:s.end].strip()[:12]) for s in split_sections(text)]
    assert ("Options", "(a) neoadjuv") in secs
    assert secs[-1][1].startswith("Pt declines") and secs[-1][0] != "Options"


def test_assessment_and_plan_headers_written_with_spaces_or_without_a_colon():
    from ingest.text.sections import canonical_name, split_sections

    assert canonical_name("Assessment / Plan") == canonical_name("A / P") == "Assessment and Plan"
    assert canonical_name("Assessment & Plan") == "Assessment and Plan"
    text = "Path reviewed.\nA/P 61F stage IA breast ca.\n- letrozole after RT\n"
    assert [s.name for s in split_sections(text)][-1] == "Assessment and Plan"


def test_a_problem_oriented_hospital_course_keeps_its_hash_entries():
    text = ("Hospital course:\n# Hypercalcemia: presented with confusion. Calcium 13.8 mg/dL.\n"
            "# AKI: Cr 1.9, prerenal.\n\n## Discharge plan\n- F/u in 1 week.")
    secs = split_sections(text)
    assert [s.name for s in secs] == ["Hospital Course", "Plan"]  # "# AKI: Cr 1.9" is no header
    course = [text[s.start:s.end] for s in split_sentences(text, secs[0].start, secs[0].end)]
    assert course[0].startswith("Hypercalcemia: presented") and course[-1] == "AKI: Cr 1.9, prerenal."


def test_a_marker_label_opens_a_result_line_not_a_section():
    from ingest.text.sections import split_sections

    text = "MOLECULAR REPORT\nKRAS: c.35G>T p.(Gly12Val) - DETECTED\nBRAF: V600E not detected\nPLAN: restage\n"
    assert [s.name for s in split_sections(text)] == ["MOLECULAR REPORT", "Plan"]


def test_a_family_history_list_ends_at_a_result_labelled_with_its_day():
    text = ("FHx: no colorectal ca. Father - bladder ca at 80.\n"
            "Colonoscopy (05/02/24): ulcerating tumour 7 cm from AV, biopsied.\n"
            "Assessment (RN): arthralgia.\n")
    names = [(s.name, text[s.start:s.end].split(":")[0]) for s in split_sections(text)]
    assert names[0][0] == "Family History"
    assert names[1] == ("Unlabeled", "Colonoscopy (05/02/24)")  # the label stays in the text: it is a finding



def test_a_prescription_s_form_before_the_drug_ends_no_sentence():
    _, out = _sentences("Discussed: standard would be Tab. Osimertinib 80 mg OD. Inj. Zoledronic acid 4 mg q12w.\n")
    assert [s for _, s, _ in out] == ["Discussed: standard would be Tab. Osimertinib 80 mg OD.",
                                      "Inj. Zoledronic acid 4 mg q12w."]
