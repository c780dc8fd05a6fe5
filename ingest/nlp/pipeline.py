"""The entity pipeline: mentions from the terminology and oncology components → medspaCy ConText.

Per sentence (sentences come from :mod:`ingest.text`, so ConText scopes never cross one and offsets
are sentence-relative):

1. terminology: longest matches of the lexicon (:mod:`ingest.link.lexicon`) — problems, drugs (generic,
   brand, regimens), procedures, tests, cancers by name;
2. oncology: biomarkers and stages with normalized values (:mod:`graphkit.clinical.values`, the one
   owner of those facts), cancers written as histology × site, radiotherapy dose and fractions, drug
   dose/route/frequency and start dates (:mod:`ingest.nlp.oncology`);
3. ConText assertion: present, negated, possible, historical, family, planned — a property, never a
   reason to drop a mention (:mod:`ingest.nlp.assertion`).

Per note (:func:`resolve_note`): a histology written without a site takes the note's cancer site and
its code; a TNM classification gets its AJCC 8 group where the table for the note's cancer makes it
unambiguous (marked as derived); contradictory biomarker statements are flagged, never resolved.

A stronger NER model installed on the user's machine (a scispaCy model, any spaCy pipeline with
entities) can be added by name in :class:`NlpConfig`; nothing hard-wires one.
"""

from __future__ import annotations

import json
import re
import warnings
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import takewhile

from graphkit.clinical.course import PAST_CANCER, is_progression
from graphkit.clinical.sites import imaging_regions, scan_region_follows, scan_span, site_group, site_of
from graphkit.clinical.treatments import NEVER_STARTED, RULED_OUT, is_systemic_class
from graphkit.clinical.values import (
    STAGE_GROUP, Tnm, find_biomarkers, find_performance_status, find_responses, find_stages, group_exists, group_from_tnm,
    marker_name_spans, may_hold_biomarker, may_hold_stage, mmr_loss_wins, negative_label_only, results_pending,
    variant_found_wins)
from ingest.link.hierarchy import ancestors, parents
from ingest.link.lexicon import NON_BEFORE, Concept, Lexicon, Match, load_lexicon, select_longest
from ingest.nlp import oncology, when
from ingest.nlp.assertion import (CARE, PLANNED_KINDS, as_phrases, assertion_of, context_rules, default_context_rules,
                                  back_to_patient, condition_item, label_assertion, relative_item)
from ingest.nlp.findings import find_described_problems, find_node_findings
from ingest.text.languages import Glossed, gloss, own_word

# Every stock ConText rule is a phrase now (assertion.as_phrases): medspaCy still calls its empty token
# Matcher, and spaCy warns about that on each call.
warnings.filterwarnings("ignore", message=r"\[W036\]")

# PyRuSH/medspaCy log tokens at DEBUG through loguru: note text must never reach a log.
try:
    from loguru import logger as _loguru

    for _name in ("PyRuSH", "medspacy"):
        _loguru.disable(_name)
except ImportError:  # pragma: no cover
    pass


@dataclass(frozen=True)
class Mention:
    start: int  # character offsets within the sentence
    end: int
    text: str = field(repr=False)
    kind: str  # Problem | Cancer | Stage | Procedure | Medication | Test | Biomarker
    assertion: str  # present | negated | possible | historical | family | planned
    concepts: tuple[Concept, ...] = ()
    value: str | None = None  # normalized: "ER=positive;PR=positive", "IIA", "pT2N1aM0"
    cue: str | None = None  # the ConText modifier that decided the assertion
    values: tuple[str, ...] = ()
    detail: dict = field(default_factory=dict, hash=False, compare=False)
    flags: tuple[str, ...] = ()  # "invalid:...", "conflict:...", "spelling:...", "derived-group:..."

    @property
    def detail_json(self) -> str | None:
        return json.dumps(self.detail, sort_keys=True) if self.detail else None


@dataclass
class NlpConfig:
    """Pipeline settings (one place, like a spaCy config)."""

    extra_ner: str | None = None  # name of an installed spaCy pipeline with an NER, e.g. "en_core_sci_md"
    extra_ner_labels: dict = field(default_factory=lambda: {"DISEASE": "Problem", "CHEMICAL": "Medication",
                                                            "ENTITY": "Problem"})
    batch_size: int = 256


PIPELINE_VERSION = "8"  # bump when extraction logic changes: stored notes are then re-processed


def pipeline_fingerprint(config: NlpConfig | None = None) -> str:
    """Identifies what produced a note's events: code version, the lexicon (terminology files and
    package versions), configuration. A note is skipped on re-ingestion only when its text AND this
    fingerprint are unchanged."""
    import hashlib

    from ingest.link.lexicon import fingerprint

    h = hashlib.sha256(PIPELINE_VERSION.encode())
    h.update(fingerprint().encode())
    # the extraction code itself: a changed rule re-processes stored notes even if nobody bumped the version
    from pathlib import Path

    import graphkit.clinical.values as values
    import ingest.text as text

    for path in sorted(Path(__file__).parent.glob("*.py")) + sorted(Path(text.__file__).parent.glob("*.py")) + \
            sorted((Path(text.__file__).parent / "data").glob("*")) + \
            [Path(values.__file__), Path(__file__).parent.parent / "tkg" / "build.py"]:
        h.update(path.read_bytes())
    h.update(repr(config.extra_ner if config else None).encode())
    return h.hexdigest()[:16]


def _register_components() -> None:
    from spacy.language import Language

    if "graphkit_one_sentence" in Language.factories:
        return

    @Language.component("graphkit_one_sentence")
    def one_sentence(doc):
        """Each doc is one sentence already (ingest.text split it): mark it so for ConText."""
        for i, token in enumerate(doc):
            token.is_sent_start = i == 0
        return doc


def build_pipeline(config: NlpConfig | None = None, lexicon: Lexicon | None = None):
    """A spaCy ``Language``: blank English tokenizer, one-sentence marker, ConText with graphkit's
    extra cues. Mentions are found by :func:`find_mentions` (terminology + oncology) and handed to
    ConText as entities."""
    import medspacy  # noqa: F401 - registers the medspacy_context factory
    import spacy

    _register_components()
    config = config or NlpConfig()
    nlp = spacy.blank("en")
    nlp.add_pipe("graphkit_one_sentence", first=True)
    context = nlp.add_pipe("medspacy_context", config={"rules": None})
    # medspaCy 1.3.1 checks modifier/target overlap one-sidedly, so a cue INSIDE a mention
    # ("CT of chest without contrast") would modify it: drop such modifiers.
    context.prune_on_target_overlap = True
    # keep "No" (forward) beside ": no" (backward) in "SKIN: No jaundice" instead of the longer one only
    context.prune_on_modifier_overlap = False
    # graphkit's cue for a phrase replaces medspaCy's for the same phrase: with both, the matcher kept
    # one of the two by rule-id order, which any added rule could change
    own = [x for r in context_rules() for x in as_phrases(r, nlp, limit=2048)]  # the token Matcher scans every token
    phrases = {r.literal.lower() for r in own}
    context.add([r for r in default_context_rules(context) if r.literal.lower() not in phrases] + own)
    nlp._graphkit_config = config
    nlp._graphkit_fingerprint = pipeline_fingerprint(config)
    nlp._graphkit_lexicon = lexicon or load_lexicon()
    nlp._graphkit_extra = None
    if config.extra_ner:
        import spacy

        nlp._graphkit_extra = spacy.load(config.extra_ner)  # an installed package only: no download
    # The lexicon and pipeline (millions of objects) live as long as the process: moved out of the
    # garbage collector's sight, they are not rescanned by every full collection (≈ +10-30% notes/s,
    # most in Spark workers, whose task loop allocates a lot).
    import gc

    gc.freeze()
    return nlp


@dataclass(frozen=True)
class Found:
    """A mention before assertion: span, kind, concepts, values."""

    start: int
    end: int
    kind: str
    concepts: tuple[Concept, ...] = ()
    values: tuple[str, ...] = ()
    detail: dict = field(default_factory=dict, hash=False, compare=False)
    flags: tuple[str, ...] = ()
    priority: int = 50


# cheap gates: the costlier finders run only on sentences that could hold what they look for
_HISTOLOGY_DEPOSIT = re.compile(r"carcinoma\s*$", re.I)  # a metastasis named by its histology
_MAY_PERFORMANCE = re.compile(r"ECOG|Zubrod|WHO|KPS|Karnofsky|PS\s*[:=]?\s*[0-5]|[Pp]erformance\s+status")
_NEVER = re.compile(r"never|not\s+(?:yet\s+)?(?:started|taken|taking|given|received|begun|initiated|filled)|"
                    r"has not|have not|did not|didn't", re.I)
_NOT_BEGUN = re.compile(r"\bnever\b|\bnot\s+(?:yet\s+)?(?:been\s+)?(?:started|begun|initiated|commenced)\b", re.I)
_LABEL = re.compile(r"^\s*:\s*")  # a mention that opens its line and is followed by a colon is a topic label


def _opens_label(text: str, start: int, end: int):
    """The colon after a mention ``text[start:end]`` that opens its line ("Colonoscopy: ..."): the mention is
    the statement's topic label (its qualifier may come first: "Adjuvant RT: ..."). The match, or None."""
    return _LABEL.match(text[end:]) if _LABEL_LEAD.fullmatch(text[:start]) else None


_LABEL_LEAD = re.compile(r"\s*(?:[A-Za-z][A-Za-z-]*\s+){0,2}")


# "on RA", "95% RA", "weaned to RA", "back to room air": the oxygen a patient breathes
_ROOM_AIR = re.compile(r"(?:\bon|%|\bsats?|\bsaturation|SpO2|O2|\b(?:weaned|back|down|returned)\s+to)\s*$", re.I)


_SERVICE_BEFORE = re.compile(r"\b(?:thoracic|breast|colorectal|general|surgical|plastic|vascular|cardiac|"
                             r"cardiothoracic|hepatobiliary|HPB|neuro|orthopedic|ortho|GI|oncologic|transplant|ENT)\s+$",
                             re.I)
# a specialty written as a name, capitalised with its "Surgery" ("Breast & Endocrine Surgery", "THORACIC SURGERY")
_NAMED_SPECIALTY_BEFORE = re.compile(r"(?-i:\b(?:Thoracic|Breast|Colorectal|Rectal|Colon|General|Surgical|Plastic|Vascular|"
                                     r"Cardiac|Cardiothoracic|Hepatobiliary|HPB|Endocrine|Upper\s+GI|Lower\s+GI|GI|"
                                     r"Oncologic(?:al)?|Transplant|ENT|Pancreatic|Gastrointestinal|Head\s+and\s+Neck|"
                                     r"THORACIC|BREAST|COLORECTAL|RECTAL|GENERAL|SURGICAL|PLASTIC|VASCULAR|CARDIAC|"
                                     r"CARDIOTHORACIC|HEPATOBILIARY|ENDOCRINE|ONCOLOGIC(?:AL)?|TRANSPLANT))\s+$")
_SERVICE_WORD = re.compile(r"(?:seen by|per|by|referred to|referral to|ref to|discussed with|d/w|consulted|"
                           r"service\s*:|attending\s*:)\s+\S+\s+$", re.I)
_SERVICE_AFTER = re.compile(r"^\s*(?::|\(\s*(?:dr|prof|mr|ms|mrs)\b|(?:consult|consultation|clinic|note|f/u|follow-up|"
                            r"outpatients?|OPD|ward|unit|department|dept|co-?management|registrar|consultant|"
                            r"team|appt|appointment|visit|service|input|eval|evaluation|opinion|referral|to see|will|"
                            r"feels?|felt|recommends?|recommended|agrees?|agreed|thinks|reviewed|to review)\b)", re.I)


# ("Radiation & Clinical Oncology", "Radiation and Medical Oncology": one department of two names)
_ONCOLOGY_AFTER = re.compile(r"\s*(?:(?:&|and|/)\s*(?:clinical|medical|surgical)\s+)?(?:oncology|oncologist|onc)\b",
                             re.I)


# "chemo day unit list", "infusion suite", "chemotherapy education", "Radiotherapy intake - Dr. Jansen": a
# place, a service or its visit named by its care
_CARE_PLACE_AFTER = re.compile(r"\s*(?:day\s+)?(?:unit|suite|ward|bay|chairs?|nurses?|nursing|education|teach(?:ing)?|"
                               r"scheduler|scheduling|coordinator|pharmacy|department|dept|intake|clinic|outpatients?|OPD|"
                               # "rejected by the RT booking system", "the chemo team", "RT waiting list"
                               r"booking(?:s|\s+(?:system|office|team))?|bookings?\s+office|office|team|service|"
                               r"waiting\s+list|wait-?list|referral\s+system)\b", re.I)
# "Division of Thoracic Surgery", "Department of General Surgery"
_DEPARTMENT_OF = re.compile(r"\b(?:division|department|dept\.?|service|unit|institute|school|faculty)\s+of\s+"
                            r"(?:[A-Za-z&,]+\s+){0,3}$", re.I)
_SURGICAL_PLACE_AFTER = re.compile(r"\s+(?:unit|department|dept|division|outpatients|OPD|ward|registrar|service)\b",
                                   re.I)
_CARE_WORDS = {"chemo", "chemotherapy", "infusion", "radiation", "radiotherapy", "rt", "systemic therapy"}
_TEAM_WORDS = _CARE_WORDS | {"surgery", "oncology"}  # also the names of teams ("thoracic surgery, radiotherapy")


# "dr. Goossens (radiotherapie)", "Dr J. Patel (surgery)": a doctor's specialty in brackets after the name
_DOCTOR_BRACKET = re.compile(r"\b(?:dr|prof|mr|ms|mrs|miss)\.?\s+(?:[A-Z]\.\s*)*[A-Z][\w'’-]+(?:[ -][A-Z][\w'’-]+)?\s*\(\s*"
                             r"(?:[^\W\d][\w.]*\s+){0,2}$", re.I)


def service(text: str, m) -> bool:
    """"seen by thoracic surgery", "breast surgery consult", "checked with radiation oncology", "chemo
    day unit", "Dr Goossens (radiotherapy)": a department or a place, not an operation or a course of treatment."""
    if m.kind == "Procedure" and text[m.end:m.end + 1] == ")" and _DOCTOR_BRACKET.search(text[max(0, m.start - 60):m.start]):
        return True
    if text[m.start:m.end].lower() in ("radiation", "rad") and _ONCOLOGY_AFTER.match(text, m.end):
        return True
    if text[m.start:m.end].lower() in _CARE_WORDS and _CARE_PLACE_AFTER.match(text, m.end):
        return True
    word = text[m.start:m.end].lower()
    line = text[text.rfind("\n", 0, m.start) + 1:m.start]
    # (a header's fields share a line: "Chair: Mr. Kavanagh   Present: Surgery, Medical Oncology")
    if word in _TEAM_WORDS and (_STAFF_LABEL.match(line) or _TEAMS_LISTED.search(line)):
        return True  # "Attendees: pulmonology, thoracic surgery, radiotherapy, pathology": the teams
    if word not in ("surgery", "surgeon", "surgeons"):
        return False
    if _SURGICAL_PLACE_AFTER.match(text, m.end) or _DEPARTMENT_OF.search(text[max(0, m.start - 50):m.start]):
        return True  # "Breast & Endocrine Surgery Unit", "Surgery Department": the place, not an operation
    before = text[max(0, m.start - 40):m.start]
    if text[m.start].isupper() and _NAMED_SPECIALTY_BEFORE.search(before):
        return True  # "Prof. G. Murphy, Colorectal Surgery", "MD, FACS - Colon & Rectal Surgery": a specialty's name
    # "Thoracic surgery: resectable by RUL lobectomy": the department's opinion; "Consultant: Miss A. Barton
    # (Breast Surgery)", "Referring: Dr. S. Amin, Thoracic Surgery", "... - CARDIOTHORACIC SURGERY": a team
    return bool(_SERVICE_BEFORE.search(before)) and bool(
        _SERVICE_WORD.search(before) or _SERVICE_AFTER.match(text[m.end:m.end + 25])
        or re.search(r"\(\s*\S+\s+$", before) and text[m.end:m.end + 2].strip().startswith(")")
        or _STAFF_LABEL.match(line) or _title_line(text, m.start))


_STAFF_LABEL = re.compile(r"^\W*(?:consultant|(?:referring|requesting)(?:\s+(?:physician|doctor|clinician|provider))?|"
                          r"referred\s+by|referrer|attendees?|attending|present|in\s+attendance|(?:team\s+)?members|"
                          r"surgeon|assistant|requested\s+by|ordering\s+(?:physician|provider|clinician)|cc|"
                          r"copy\s+to)\s*:", re.I)


_TEAMS_LISTED = re.compile(r"(?<!\w)(?:present|attendees?|in\s+attendance)\s*:[\w\s,&/]*$", re.I)


def _title_line(text: str, start: int) -> bool:
    """Is ``start`` in the note's first line, its title: written in capitals ("OPERATION REPORT -
    CARDIOTHORACIC SURGERY"), or signed by its clinician ("Radiotherapy intake - Dr. Jansen")?"""
    first = text.lstrip()
    offset = len(text) - len(first)
    end = first.find("\n")
    end = len(first) if end < 0 else end
    line = first[:end]
    letters = [c for c in line if c.isalpha()]
    if not (offset <= start < offset + end and len(letters) >= 8):
        return False
    if sum(c.isupper() for c in letters) >= 0.8 * len(letters):
        return bool(_DOCUMENT_WORD.search(line))
    # "OPERATION REPORT - Breast & Endocrine Surgery Unit": a capitals title, then its department
    head = re.split(r"\s[-–—/|]\s", line, maxsplit=1)[0]
    head_letters = [c for c in head if c.isalpha()]
    if len(head_letters) >= 6 and all(c.isupper() for c in head_letters) and _DOCUMENT_WORD.search(head):
        return True
    return bool(_SIGNED_TITLE.search(line)) and bool(_DOCUMENT_WORD.search(line.upper()))


_DOCUMENT_WORD = re.compile(r"\b(?:REPORT|NOTE|CONSULT(?:ATION)?|LETTER|SUMMARY|CLINIC|MDT|MDM|MEETING|DEPARTMENT|DEPT|"
                            r"UNIT|SERVICE|CONFERENCE|BOARD|INTAKE|VISIT|REVIEW|FOLLOW-?UP|F/U)\b")
_SIGNED_TITLE = re.compile(r"\s[-–—]\s*(?:Dr|Prof|Mr|Ms|Mrs|Miss)\.?\s+[A-Z]")


# "CHEMOTHERAPY - PROGRESS NOTE": a dash and up to two more words of the title may come between
_DOCUMENT_AFTER = re.compile(r"\s+(?:[-–—]\s+)?(?:[A-Z][A-Z-]*\s+){0,2}"
                             r"(?:REPORT|NOTE|CONSULT(?:ATION)?|LETTER|SUMMARY|VISIT|ENCOUNTER|REVIEW)\b")
_DOCUMENT_END = re.compile(r"(?:CONSULT(?:ATION)?|ENCOUNTER|VISIT|NOTE|REVIEW)$")


def document_title(text: str, m) -> bool:
    """"SURGICAL PATHOLOGY REPORT", "OPERATION NOTE", "NEW PATIENT CONSULTATION", "TELEPHONE ENCOUNTER": a
    care or test word in the note's capitalized title names the kind of document, not an event of its own
    (the report's body says what was done)."""
    word = text[m.start:m.end]
    if m.kind not in ("Procedure", "Test") or not word.isupper():
        return False
    if not text[:m.start].strip() and _DOCUMENT_END.search(word):
        return True  # the first words of the note: "TELEPHONE ENCOUNTER - Breast Oncology NP"
    return _title_line(text, m.start) and bool(_DOCUMENT_AFTER.match(text, m.end) or _DOCUMENT_END.search(word))


_INSTITUTION_AFTER = re.compile(r"^\s*(?:(?:predictive|prognostic|genomic|molecular|comprehensive|standard|routine|"
                                # "NSCLC predictive biomarker panel (EGFR/ALK/PD-L1) not performed"
                                r"reflex|targeted|NGS|germline|somatic)\s+(?=\w+\s*(?:panels?|biomarkers?|markers?|"
                                r"testing|tests?)\b))?(?:board|cent(?:er|re)|institute|clinic|program(?:me)?|conference|registry|"
                                r"society|foundation|navigator|network|alliance|committee|genetics|prevention|"
                                r"pathways?|protocols?|guidelines?|team|service|screening|mdt|risk|"
                                # "testing for NSCLC drivers", "a hereditary breast cancer panel", "NSCLC biomarker
                                # testing not indicated for pure SCLC", "a lung cancer trial"
                                r"drivers?|driver\s+(?:mutations?|alterations?|genes?)|panels?|awareness|education|"
                                r"biomarkers?|molecular|testing|trials?|work-?up|"
                                # "SHREE VINAYAK CANCER HOSPITAL", "GOLDEN WATTLE CANCER CARE - RADIATION ONCOLOGY"
                                r"hospitals?|infirmary|trust|"
                                r"care(?=[ \t]*(?:[-–,(\n]|$|cent(?:er|re)|unit|coordinat|navigat|team|service|network)))\b",
                                re.I)


# "Clinic of hereditary cancers", "Centre for Lung Cancer", "Institute of Cancer Research": the place named first
_INSTITUTION_BEFORE = re.compile(r"\b(?:clinic|cent(?:er|re)|institute|program(?:me)?|service|unit|department|dept|"
                                 r"society|foundation|registry|network|alliance)\s+(?:of|for)\s+(?:the\s+)?"
                                 r"(?:(?:hereditary|familial|inherited|genetic)\s+)?$", re.I)


# "discuss at thoracic TB", "Plan (per GI TB 6/7)", "for TB 12/12": the tumour board, not tuberculosis
# (not "treated for TB", "breast TB", "lung TB": the disease)
_BOARD_BEFORE = re.compile(r"\b(?:thoracic|GI|HPB|colorectal|multidisciplinary|MDT|weekly|next|per|"
                           r"(?:discuss\w*|present\w*|review\w*|brought)\s+(?:at|to)\s+(?:the\s+)?(?:\w+\s+)?)\s*$", re.I)
_BOARD_AFTER = re.compile(r"^\s*(?:\d{1,2}[/ ]\d{1,2}\b|\d{1,2}\s+[A-Z][a-z]{2}|on\s+\d|meeting|review|discussion|"
                          r"recommend\w*|recs?\b|plan\b|options?\b|consensus|decision|outcome)", re.I)
# "TB culture", "TB clinic", "TB Services", "QuantiFERON-TB Gold": a test or a service of tuberculosis care
_TB_NOT_DISEASE = re.compile(r"^\s*(?:cultures?|clinic|services?|screening|tests?|testing|PCR|Gold|Xpert|notified|"
                             r"notification|programme|program|unit|ward|DOT)\b", re.I)


def tumour_board(text: str, m) -> bool:
    """Is this "TB" a tumour board ("discuss at thoracic TB", "per GI TB 6/7", "-> TB plan:"), or a test or
    service of tuberculosis care ("TB culture", "QuantiFERON-TB")? A clinician's "TB" is the disease otherwise
    ("old pulmonary TB", "No h/o TB")."""
    return text[m.start:m.end] == "TB" and bool(_BOARD_BEFORE.search(text[max(0, m.start - 30):m.start])
                                                  or _BOARD_AFTER.match(text[m.end:m.end + 20])
                                                  or _TB_NOT_DISEASE.match(text[m.end:m.end + 20])
                                                  or text[max(0, m.start - 1):m.start] == "-")


def names_institution(text: str, start: int, end: int) -> bool:
    """"Thoracic Tumor Board", "Cancer Center", "breast cancer clinic", "lung cancer pathway", "lung cancer
    screening", "clinic of hereditary cancers": a cancer word at ``start:end`` that names a meeting, an
    institution, a care programme or a risk, not a diagnosis of the patient."""
    return bool(_INSTITUTION_AFTER.match(text[end:end + 40]) or _INSTITUTION_BEFORE.search(text[max(0, start - 50):start]))


_DEGREE_BEFORE = re.compile(r"\b(?:MD|MBBS|MS|DNB|FRCP\w*|FRACP|MRCP)[,\s]+$")


def degree_letters(text: str, m) -> bool:
    """"Dr S. Kulkarni, MD DM (Med Onc)": letters after a doctor's degree are another degree, not diabetes."""
    return text[m.start:m.end] == "DM" and bool(_DEGREE_BEFORE.search(text[max(0, m.start - 12):m.start]))


# "Estadiamento: cT2b N2 M1c — EC IVB": a short capital abbreviation right before a stage group is the stage's
# label ("estádio/estadio clínico"), not a regimen (EC, epirubicin + cyclophosphamide)
_NEXT_WORD = re.compile(r"\s+(\w+)")


def stage_label(text: str, m) -> bool:
    """A short capital abbreviation of a drug or regimen written right before a stage group (the group as
    :data:`graphkit.clinical.values.STAGE_GROUP` reads it; a bare "IV" may be intravenous) is its label."""
    word = text[m.start:m.end]
    if m.kind != "Medication" or len(word) > 3 or not word.isupper():
        return False
    after = _NEXT_WORD.match(text, m.end)
    group = STAGE_GROUP.match(after.group(1)) if after else None
    return bool(group) and not (group.group(1) == "IV" and not group.group(2))


_UNIT_BEFORE = re.compile(r"\d\s?(?:mmol|mol|mg|mcg|ug|µg|μg|g|kg|ml|mL|l|L|umol|µmol|μmol|iu|IU|U|mm|cm|m)/$")


def number_part(text: str, m) -> bool:
    """A term that is part of a number: "US 1/10" (ultrasound on 10 January; a term ending in a digit
    that a date goes on from is no "type 1" disease), "HbA1c 54 mmol/mol" (a unit's denominator)."""
    if text[m.end - 1:m.end].isdigit() and re.match(r"[/.\-]\d", text[m.end:m.end + 2]):
        return True
    return bool(_UNIT_BEFORE.search(text[max(0, m.start - 12):m.start]))


def compound_part(text: str, m) -> bool:
    """"PD" of "PD-1 blockade", "CD" of "CD-20": a short capitalized abbreviation joined by a hyphen to
    what follows is part of another name (here a drug target), not the abbreviation (progressive
    disease); "insulin" of "non-insulin-dependent" names a disease's kind."""
    word = text[m.start:m.end]
    if m.kind == "Medication" and re.search(r"\bnon-$", text[max(0, m.start - 4):m.start], re.I):
        return True  # "non-insulin-dependent diabetes": a kind of disease, no drug
    return len(word) <= 4 and word.isupper() and bool(re.match(r"-[A-Za-z0-9]", text[m.end:m.end + 2]))


# "middle colic vessels", "wound protector": a problem's word naming a structure or a device
_NAMES_STRUCTURE = re.compile(r"\s+(?:vessels?|artery|arteries|vein|veins|pedicles?|protector|retractor)\b", re.I)


_FAINT_OF = re.compile(r"\s+(?:erythema|uptake|enhancement|opacit(?:y|ies)|densit(?:y|ies)|calcifications?|lines?|shadow(?:ing)?|"
                       r"rash|murmur|pulses?|bruit|ground[- ]glass|nodules?|staining|positivity|expression|bands?|signal|"
                       r"pinkness|redness|tenderness|wheeze|crackles|FDG|avidity)\b", re.I)


_ORIENTING = re.compile(r"(?:orient(?:ed|ated|ing)?\s+(?:with|by)\s+(?:a\s+|two\s+|\d\s+)?$)", re.I)
_STITCH_WORD = re.compile(r"sutures?|stitch(?:es)?", re.I)
_STITCH_CODE = re.compile(r"\s*(?:short|long|x\s?\d|at\s+\d{1,2}\s*o'?clock|marking|superior|inferior|lateral|medial)\b", re.I)


def orienting_stitch(text: str, m) -> bool:
    """"orientated with sutures", "(stitch short superior, long lateral)": the stitches that orient a
    specimen for the pathologist are no operation of their own."""
    return m.kind == "Procedure" and bool(_STITCH_WORD.fullmatch(text, m.start, m.end)) and bool(
        _ORIENTING.search(text, 0, m.start) or _STITCH_CODE.match(text, m.end))


def structure_word(text: str, m) -> bool:
    """A problem term that only qualifies the anatomy or device named after it ("colic vessels"), or the
    finding after it ("faint erythema" is no syncope)."""
    if m.kind != "Problem":
        return False
    return bool(_NAMES_STRUCTURE.match(text, m.end)) or text[m.start:m.end].lower() == "faint" and bool(
        _FAINT_OF.match(text, m.end))


#: the generic "surgical procedure" concept: "surgery", "operation" with no operation named
GENERIC_OPERATION = "387713003"
_LABEL_WORDS = ("surgery", "operation", "surgical procedure", "procedure")
_LABEL_COLON = re.compile(r"(?:\s+(?:note|notes|details|performed|done|report|name))?\s*:", re.I)


def _is_operation(concepts) -> bool:
    """An operation (a child of SNOMED CT's "surgical procedure"), which has no course to be under way."""
    return any(c.code == GENERIC_OPERATION or any(p.code == GENERIC_OPERATION for p in parents(c.system, c.code))
               for c in concepts[:1])


def operation_label(text: str, m, terms) -> bool:
    """A generic operation word used as a field label before the operation it introduces ("Operation:
    Robotic ultra-low anterior resection with TME", "Surgery: R partial mastectomy + SLNB 6/18/2024"): the
    operation is the one named after it. (A specimen's "resection", "on excision" stay: labellers take them
    as the patient's operation.) O(terms)."""
    if m.kind != "Procedure" or not m.concepts or m.concepts[0].code != GENERIC_OPERATION \
            or text[m.start:m.end].lower() not in _LABEL_WORDS or not _LABEL_COLON.match(text, m.end):
        return False
    line_end = _line_end(text, m.end)
    return any(t.kind == "Procedure" and t.concepts and t.concepts[0].code != GENERIC_OPERATION
               and m.end < t.start < line_end for t in terms)


def _line_end(text: str, start: int) -> int:
    """Where the line holding ``start`` ends (the text's end when no line break follows)."""
    end = text.find("\n", start)
    return len(text) if end < 0 else end


_UNDER = re.compile(r"\bunder\s+(?:real[- ]time\s+)?$", re.I)
_GUIDANCE_AFTER = re.compile(r"[\s-]*(?:guidance|guided|control)\b", re.I)


def guidance(text: str, m) -> bool:
    """"clip placed under US", "drain inserted under CT guidance": the imaging guides a procedure; it is
    not an examination of its own (it must not count as a response assessment)."""
    return m.kind == "Test" and bool(_UNDER.search(text, 0, m.start)) and (
        m.end - m.start <= 12 or bool(_GUIDANCE_AFTER.match(text, m.end)))


_MEASURE_AFTER = re.compile(r"\s*[:=]?\s*[<>≤≥~]?\s*\d+(?:\.\d+)?\s*(?:c?Gy|%|mg|mcg|µg|g/dl|g/l|mm|cm|ml|l\b|mmol|"
                            r"µmol|umol|u/l|iu|ms\b|bpm|kg|mmhg)", re.I)


def measure_label(text: str, m) -> bool:
    """"MLD 16 Gy" (mean lung dose), "PE 45%": an acronym right before a measured value labels the value;
    it is not the disease the same letters name."""
    word = text[m.start:m.end]
    return m.kind in ("Problem", "Cancer") and word.isupper() and len(word) <= 5 and bool(_MEASURE_AFTER.match(text, m.end))


# a concentration in a laboratory unit, or a serology's result: "vitamin D 24 ng/mL", "Calcium normalised to
# 10.1 mg/dL", "HBsAg negative" (a dose is written in mg, IU or mcg, never per litre)
_ANALYTE_AFTER = re.compile(r"\s*(?:levels?\s*)?(?:[:=]\s*)?(?:(?:was|is|of|normali[sz]ed\s+to|corrected|now)\s+)?"
                            r"(?:[<>≤≥~]\s*)?\d+(?:\.\d+)?\s*(?:ng|mg|mmol|µmol|umol|nmol|pmol|u|iu|meq|mcg|µg|ug|g)/(?:[dm]?l)\b|"
                            r"\s*(?:[:=]\s*)?(?:negative|positive|undetectable|not\s+detected|non-?reactive|reactive)\b", re.I)


def analyte_value(text: str, m) -> bool:
    """"vitamin D 24 ng/mL (low)", "HBsAg negative": a substance measured in the blood is a test's analyte
    here, not a medication given."""
    return m.kind == "Medication" and bool(_ANALYTE_AFTER.match(text, m.end))


_SYNDROME_AFTER = re.compile(r"\s+(?:pain\s+)?syndrome\b", re.I)


def named_syndrome(text: str, m):
    """"low anterior resection syndrome", "post-mastectomy pain syndrome": a condition named after an
    operation, no operation done (the match of the words that make it a syndrome, else None)."""
    return _SYNDROME_AFTER.match(text, m.end) if m.kind == "Procedure" else None


_IDENTIFIER_AFTER = re.compile(r"\s*(?:no\.?|number|nr\.?|#|id|ref(?:erence)?)\s*[:#]", re.I)


def identifier_label(text: str, m) -> bool:
    """"Lab No: H24/18833", "Path #: S25-1234": a word naming a record's number, not a test done."""
    return bool(_IDENTIFIER_AFTER.match(text, m.end))


def room_air(text: str, m) -> bool:
    """"SpO2 95% on RA": room air, a vital sign's condition, not rheumatoid arthritis."""
    return text[m.start:m.end] == "RA" and bool(_ROOM_AIR.search(text[max(0, m.start - 20):m.start]))


_SCAN_ACRONYMS = frozenset({"TC", "TAC"})
# "TC w/ pt", "TC to daughter re results", "TC from GP": a telephone contact with a person, not a regimen
_CALLED_PERSON = re.compile(
    r"\s*(?:w/|with|to|from|fr)\s+(?:the\s+)?(?:pt'?s?|patient'?s?|his|her|their|family|daughter|son|wife|husband|"
    r"partner|spouse|mother|father|sister|brother|carer|caregiver|GP|PCP|nurse|pharmacy|pharmacist)\b", re.I)


def telephone_contact(text: str, m) -> bool:
    """"Specialty pharmacy - TC w/ pt.": a telephone contact, not the docetaxel-cyclophosphamide regimen,
    when a person it was with follows."""
    return m.kind == "Medication" and text[m.start:m.end] == "TC" and bool(_CALLED_PERSON.match(text, m.end))


# "AP e AC sem alterações", "AC: rítmica, sem sopros", "AC: RCR 2T BNF": Portuguese and Spanish notes' cardiac
# auscultation (auscultação / auscultación cardíaca) beside the pulmonary one, not doxorubicin-cyclophosphamide
_AUSCULTATION_PAIR = re.compile(r"\bA[PR]\s*(?:e|y|,|/|and|\+)\s*$")
_AUSCULTATION_FINDING = re.compile(r"\s*(?::\s*(?:normal|nl)\b|(?::|-)?\s*(?:r[ií]tmic[ao]s?|regular|RCR|BRNF|BNF|"
                                   r"s1\s*(?:e|y|and|\+)?\s*s2|(?:sem|sin|no|without)\s+(?:sopros?|soplos?|murmurs?|"
                                   r"altera[cç]|extrass)|s/a\b|sopro|soplo))", re.I)


def auscultation(text: str, m) -> bool:
    """"AC: rítmica, sem sopros", "AP e AC sem alterações": the examination's cardiac auscultation, not the
    AC regimen, when the lung's is written beside it or a heart-sound finding follows."""
    return (m.kind == "Medication" and text[m.start:m.end] == "AC"
            and bool(_AUSCULTATION_PAIR.search(text[max(0, m.start - 8):m.start])
                     or _AUSCULTATION_FINDING.match(text, m.end)))


def scan_acronym(text: str, m) -> bool:
    """"TC tórax y abdomen superior con contraste", "TAC de cráneo": the Romance languages' CT (tomografía /
    tomografia computarizada), not the docetaxel-cyclophosphamide regimen, when a body region or contrast follows."""
    return m.kind == "Medication" and text[m.start:m.end] in _SCAN_ACRONYMS and scan_region_follows(text, m.end)


def _ct_concepts(lexicon: Lexicon) -> tuple[Concept, ...]:
    return tuple(c for c in lexicon.lookup("CT") if c.kind == "Test")[:3]


def _primary_named(primary: Mention, own: list[Mention]) -> Mention | None:
    """The cancer a bare "<site> primary" is: the note's cancer of that site with a histology ("the LUL
    primary" of a lung adenocarcinoma), else the one neoplasm of another kind the note names, which has no
    site of its own ("Primary breast DLBCL ... CNS-IPI low but breast primary": the lymphoma's site)."""
    site = primary.detail.get("site")
    same = next((c for c in own if c.kind == "Cancer" and c.detail.get("site") == site
                 and c.detail.get("histology") not in (None, "cancer") and c.concepts), None)
    if same is not None:
        return same
    sited = [c for c in own if c.kind == "Cancer" and c is not primary and c.detail.get("site")]
    other = [c for c in own if c.kind == "Cancer" and c.assertion == "present" and c.concepts
             and not c.detail.get("histology") and not c.detail.get("site")]
    return other[0] if not sited and len({c.concepts[:1] for c in other}) == 1 else None


def find_mentions(text: str, lexicon: Lexicon) -> list[Found]:
    """Every mention of one sentence, before assertion. Biomarker and stage statements and composed
    cancers win over the terminology matches they overlap; terminology matches among themselves by
    longest span. O(len(text))."""
    found: list[Found] = []
    also: list[Found] = []  # same span, another kind: "TNBC" is a cancer and a biomarker statement
    for b in (find_biomarkers(text) if may_hold_biomarker(text) else ()):
        found.append(Found(b.start, b.end, "Biomarker", (), b.values, dict(b.detail), b.flags, 0))
        if text[b.start:b.end].strip().upper() == "TNBC":
            also.append(Found(b.start, b.end, "Cancer", tuple(lexicon.lookup("triple-negative breast cancer")),
                              (), {"histology": "carcinoma", "site": "breast"}, (), 0))
    for s in (find_stages(text) if may_hold_stage(text) else ()):
        detail = {"basis": s.basis} if s.basis else {}
        if s.tnm:
            detail.update({k: v for k, v in (("t", s.tnm.t), ("n", s.tnm.n), ("m", s.tnm.m)) if v})
        flags = ("invalid:stage " + text[s.start:s.end],) if s.value == "invalid" else ()
        found.append(Found(s.start, s.end, "Stage", (), (s.value,), detail, flags, 0))
    for p in (find_performance_status(text) if _MAY_PERFORMANCE.search(text) else ()):
        found.append(Found(p.start, p.end, "Problem", _performance_concepts(), (p.value,), {},
                           ("invalid:performance status",) if p.value == "invalid" else (), 0))
    # "whole breast 40.05 Gy in 15 fractions": a dose in gray is radiotherapy even when no word names it
    for d in _GY_DOSE.finditer(text):
        if _DOSIMETRY_BEFORE.search(text[max(0, d.start() - 24):d.start()]):
            continue  # "MLD 16 Gy, esophagus mean 31 Gy", "cord max < 45 Gy": a plan's dose to an organ, not a course
        found.append(Found(d.start(), d.end(), "Procedure", _radiotherapy_concepts(lexicon), (), {}, (), 90))
    for r in find_responses(text):
        found.append(Found(r.start, r.end, "Response", (), (r.value,), {}, (), 0))
    for m in (oncology.find_metastases(text) if oncology.MAY_METASTASIS.search(text) else ()):
        found.append(Found(m.start, m.end, "Problem", _metastasis_concepts(m.icd), (), {"metastasis": m.site or "unspecified"},
                           (), 0))
    special = [(f.start, f.end) for f in found]
    # "pleural fluid: METASTATIC ADENOCARCINOMA": a deposit, and the one tissue proof of the cancer too
    deposits = [(f.start, f.end) for f in found if f.kind == "Problem" and _HISTOLOGY_DEPOSIT.search(text[f.start:f.end])]
    described = [Found(d.start, d.end, "Problem", (), priority=60) for d in find_described_problems(text)]
    for c in oncology.find_cancers(text):
        deposit = next(((a, b) for a, b in deposits if a < c.end and c.start < b), None)
        if deposit:  # "METASTATIC ADENOCARCINOMA, consistent with colorectal origin": the cancer, with its site
            site = c.site or oncology.HISTOLOGY[c.histology][2]
            also.append(Found(min(deposit[0], c.start), max(deposit[1], c.end), "Cancer",
                              _cancer_concepts(c.histology, site, lexicon, c.site_text) if site else (), (),
                              {"histology": c.histology, "site": c.site}, (), 1))
            continue
        if any(a < c.end and c.start < b for a, b in special) or names_institution(text, c.start, c.end):
            continue
        # a histology without a site is coded per note (resolve_note), from the note's cancer site
        site = c.site or oncology.HISTOLOGY[c.histology][2]
        generic = c.histology in ("cancer",) and site is None  # "cancer", "malignancy": DOID:162 as written
        concepts = _cancer_concepts(c.histology, site, lexicon, c.site_text) if site or generic else ()
        # an organ named that no guideline site covers ("prostate ca"): kept, so that the patient's other
        # cancer never takes this one's place
        organ = {"organ": c.site_text.lower()} if c.site_text and not c.site else {}
        found.append(Found(c.start, c.end, "Cancer", concepts, (), {"histology": c.histology, "site": c.site, **organ},
                           (), 1))
    all_terms = lexicon.find(text)
    # a cancer term that holds a stage statement ("Non-small cell carcinoma of lung, TNM stage 1") stays
    # beside it: both facts are in the text
    for m in all_terms:
        if m.kind != "Cancer" or not any(m.start <= a and b <= m.end and (a, b) != (m.start, m.end) for a, b in special):
            continue
        inner = next((f for f in found if f.kind == "Cancer" and m.start <= f.start and f.end <= m.end), None)
        if inner is not None:
            # "HER2+ breast cancer": the marker and the cancer are two mentions (annotation guideline 2); the
            # cancer keeps its composed code first, then the term's more specific one (HER2-positive breast
            # carcinoma), which the stored event drops (one code per system: see the stop-33 note)
            merged = tuple(dict.fromkeys(inner.concepts[:1] + m.concepts + inner.concepts[1:]))
            found = [replace(f, concepts=merged) if f is inner else f for f in found]
            continue
        also.append(Found(m.start, m.end, m.kind, m.concepts, priority=m.priority))
    names = marker_name_spans(text)  # "PD" of "PD-L1 attempted" is no problem of its own
    terms = [m for m in all_terms if not any(a < m.end and m.start < b for a, b in special)
             and not any(a <= m.start and m.end <= b and m.end - m.start < b - a for a, b in names)
             and not room_air(text, m) and not telephone_contact(text, m) and not auscultation(text, m) and not measure_label(text, m) and not identifier_label(text, m) and not service(text, m) and not (m.kind == "Cancer" and names_institution(text, m.start, m.end))
             and not compound_part(text, m) and not structure_word(text, m) and not operation_label(text, m, all_terms)
             and not document_title(text, m) and not guidance(text, m) and not orienting_stitch(text, m)
             and not number_part(text, m) and not degree_letters(text, m) and not stage_label(text, m)
             and not tumour_board(text, m)]
    terms = [replace(m, kind="Test", concepts=()) if analyte_value(text, m) else m for m in terms]
    terms = [replace(m, kind="Test", concepts=_ct_concepts(lexicon)) if scan_acronym(text, m) else m for m in terms]
    terms = [replace(m, kind="Problem", concepts=(), end=m.end + len(syn.group(0)))
             if (syn := named_syndrome(text, m)) else m for m in terms]
    repairs = _spelling_repairs(text, lexicon, special + [(m.start, m.end) for m in terms] + [(f.start, f.end) for f in found])
    terms = _grow(text, terms)
    composed = [f for f in found if f.kind == "Cancer"]
    for m in terms:
        overlap = [c for c in composed if c.start < m.end and m.start < c.end]
        same = [c for c in overlap if (c.start, c.end) == (m.start, m.end) and m.kind == "Cancer"]
        if same and not same[0].concepts:
            continue  # a histology alone: coded with the note's site (resolve_note), not as written
        if same:  # one span, two namings: keep the composed cancer with the term's codes too
            c = same[0]
            merged = tuple(dict.fromkeys(c.concepts + tuple(x for x in m.concepts if x not in c.concepts)))
            found = [replace(f, concepts=merged) if f is c else f for f in found]
            composed = [f for f in found if f.kind == "Cancer"]
            continue
        if overlap:
            # a cancer named by the terminology ("invasive ductal carcinoma") inside a composed span
            # ("... of the left breast") keeps the composed span; a longer term wins otherwise
            if all(m.end - m.start <= c.end - c.start for c in overlap) or not all(
                    m.start <= c.start and c.end <= m.end for c in overlap):
                continue  # nor does a term that only straddles composed cancers ("Colon ca - ascending colon adeno…")
            found = [f for f in found if f not in overlap]
        found.append(_with_details(text, Found(m.start, m.end, m.kind, m.concepts, priority=m.priority)))
    found += [_with_details(text, r) for r in repairs]
    # a lymph-node finding ("enlarged L hilar nodes") is the finding its site or look words are part of
    found += [Found(d.start, d.end, "Problem", _node_concepts(lexicon), detail={"doubt": True} if d.doubt else {},
                    priority=55) for d in find_node_findings(text) if not any(a < d.end and d.start < b for a, b in special)]
    # a described problem ("knee problems") only where no term was found: terms name things better
    found += [d for d in described if not any(f.start < d.end and d.start < f.end for f in found)]
    found = [f for f in found if f.kind != "Stage" or not disease_stage(text, f, found)]
    return sorted(select_longest(found) + also, key=lambda f: (f.start, f.kind))


_STAGE_GAP_BEFORE = re.compile(r"[ \t]*[:(]?[ \t]*")


def disease_stage(text: str, stage: Found, found: list[Found]) -> bool:
    """Is the stage another disease's ("CKD stage 3", "stage 2 COPD"): a problem right beside it that is
    no neoplasm? Those diseases have stages of their own; a cancer's stage is never written against them.
    O(mentions)."""
    for f in found:
        if f.kind != "Problem" or not f.concepts:
            continue
        keys = [f"{c.system}|{c.code}" for c in f.concepts]
        if _names_neoplasm(keys) or f.concepts[0].code in _FINDING_CODES:
            continue  # "LUL mass stage IIIA" is the tumour's
        if f.end <= stage.start and _STAGE_GAP_BEFORE.fullmatch(text, f.end, stage.start) or \
                stage.end <= f.start and not text[stage.end:f.start].strip():
            return True
    return False


_PRIMARY = re.compile(r"\bprimary\b", re.I)
_DOSIMETRY_BEFORE = re.compile(r"(?:\b(?:mean|MLD|MHD|Dmax|Dmean|Dmin|D\d{1,2}(?:cc|%)?|V\d{1,2}|max(?:imum)?|min(?:imum)?|"
                               r"constraints?|limit|tolerance|cord|brainstem|heart|esophag\w*|oesophag\w*|rectum|"
                               r"bladder|lungs?)\s*(?:dose\s*)?(?:of\s*)?[:=]?\s*|[<>≤≥]=?\s*)$", re.I)
_GY_DOSE = re.compile(r"(?<![\w.])\d{1,3}(?:\.\d{1,2})?\s?c?Gy(?:\s?(?:/|in|x)\s?\d{1,2}\s?(?:fx|fractions?))?\b")


def _node_concepts(lexicon: Lexicon) -> tuple[Concept, ...]:
    return tuple(c for c in lexicon.lookup("lymphadenopathy") if c.kind == "Problem")[:3]


def _radiotherapy_concepts(lexicon: Lexicon) -> tuple[Concept, ...]:
    return tuple(c for c in lexicon.lookup("radiotherapy") if c.kind == "Procedure")[:3]


def _performance_concepts() -> tuple[Concept, ...]:
    return (Concept("LOINC", "89247-1", "ECOG Performance Status score", "Problem", "LOINC (graphkit value parser)"),)


def _metastasis_concepts(icd_code: str) -> tuple[Concept, ...]:
    return (Concept("ICD-10-CM", icd_code, oncology.SECONDARY_NEOPLASM[icd_code], "Problem", "ICD-10-CM April 2026"),)


def _cancer_concepts(histology: str, site: str | None, lexicon: Lexicon,
                     site_text: str | None = None) -> tuple[Concept, ...]:
    from ingest.link.sources import do_terms

    doid = oncology.do_code(histology, site, site_text)
    if doid is None:
        return ()
    name = do_terms()[doid].name
    concepts = [c for c in lexicon.lookup(name) if c.kind == "Cancer"]
    return tuple(concepts) or (Concept("DOID", doid, name, "Cancer"),)


_IMAGING_CODES = {"77477000", "113091000", "16310003", "82918005", "168537006", "71651007", "1571000087109",
                  "241615005", "41747008"}


def _spelling_repairs(text: str, lexicon: Lexicon, taken: list[tuple[int, int]]) -> list[Found]:
    """Misspelled drug and finding names ("anastrazole", "constipaton"): coded as the one term they are
    a letter or two from, and flagged (``spelling:``) so the ingest summary reports them."""
    out = []
    for m in _WORD.finditer(text):
        if any(a < m.end() and m.start() < b for a, b in taken) or _INNER_CAPITAL.search(m.group()):
            continue  # a product's CamelCase name ("ChemoCare", "PowerChart") is no misspelled drug
        hit = _misspelled(lexicon, m.group())
        if hit:
            out.append(Found(m.start(), m.end(), hit[1], hit[2], flags=(f"spelling:{m.group()}~{hit[0]}",),
                             priority=9))
    return out


_TEST_RESULT_NO = re.compile(r"\W*(?:no|not\s+detected|none\s+detected|negative|neg)\b", re.I)
_WORD = re.compile(r"[A-Za-z]{7,}")
_INNER_CAPITAL = re.compile(r"[a-z][A-Z]")


@lru_cache(maxsize=200_000)
def _misspelled(lexicon: Lexicon, word: str):
    """:meth:`Lexicon.misspelled`, remembered: the same long words recur in every note and each costs a
    word-frequency lookup and edit distances."""
    return lexicon.misspelled(word)
_FINDING_CODES = {"R22.9", "R91.1", "lesion", "R59.9", "K63.5", "J90", "ulcer"}


_PROCEDURE_HEADS = re.compile(r"^(?:repair|replacement|transplant(?:ation)?|removal|reconstruction|resection|"
                              r"release|fusion|ablation|excision|injection|drainage|decompression|biopsy)$", re.I)


_SALT = re.compile(r"(?:succinate|tartrate|hydrochloride|HCl|sodium|potassium|calcium|sulfate|citrate|mesylate|"
                   r"maleate|besylate|fumarate|phosphate|acetate|bromide|magnesium|bitartrate|hyclate)\b", re.I)


def _grow(text: str, terms: list[Match]) -> list[Match]:
    """Imaging tests over their body site; procedures over their approach, side and extent — absorbing a
    procedure term written as a modifier ("VATS LLL lobectomy" is one lobectomy) and the condition a
    generic procedure acts on ("aortic aneurysm repair", "rotator cuff repair")."""
    terms = sorted(terms, key=lambda m: m.start)
    merged: list[Match] = []
    for m in terms:
        prev = merged[-1] if merged else None
        if prev is not None and m.kind in ("Procedure", "Test") and prev.kind == "Problem" and \
                not text[prev.end:m.start].strip() and _PROCEDURE_HEADS.match(text[m.start:m.end]):
            merged[-1] = replace(m, start=prev.start)
            continue
        merged.append(m)
    terms = merged
    out = []
    for m in terms:
        start, end = m.start, m.end
        if m.kind == "Test" and any(c.code in _IMAGING_CODES for c in m.concepts):
            start, end = oncology.imaging_extent(text, start, end)
        elif m.kind == "Procedure":
            start = oncology.procedure_start(text, start)
        elif m.kind == "Problem" and any(c.code in _FINDING_CODES for c in m.concepts):
            start, end = oncology.finding_extent(text, start, end)
        elif m.kind == "Medication":  # "metoprolol succinate": one drug (longer than "succinate" alone)
            salt = re.match(r"\s+" + _SALT.pattern, text[end:end + 20], re.I)
            end = end + salt.end() if salt else end
        out.append(replace(m, start=start, end=end) if (start, end) != (m.start, m.end) else m)
    return select_longest(out)


def _with_details(text: str, f: Found) -> Found:
    """Radiotherapy dose/fractions, drug dose/route/frequency (the span grows over them), start date."""
    detail = dict(f.detail)
    end = f.end
    systems = {c.system for c in f.concepts}
    if f.kind == "Procedure" and any(c.code in ("108290001", "33195004", "703423002") for c in f.concepts):
        got = oncology.rt_dose(text, f.start, f.end)
        if got:
            end, extra = got
            detail.update(extra)
    if f.kind == "Medication" and systems & {"RxNorm", "ATC", "DrugBank", "MeSH", "regimen", "graphkit-drug"}:
        got = oncology.drug_detail(text, f.end)
        if got:
            end, extra = got
            detail.update(extra)
    if f.kind in ("Medication", "Procedure"):
        # an operation is over the day it is done, no course under way: "lumpectomy + SLNB 2/20/25, anastrozole
        # since 3/10/25 (taking it)" started and continues the drug only
        operation = f.kind == "Procedure" and _is_operation(f.concepts)
        started = None if operation else oncology.start_date(text[end:])
        if started:
            detail["start"] = started
        status = oncology.treatment_status(text, f.start, end)
        if status in ("ongoing", "started") and operation:
            status = None
        if status:
            detail["status"] = status
        phase = oncology.treatment_phase(text, f.start, end)
        if phase:
            detail["phase"] = phase
    if f.kind == "Test" and any(c.code in _IMAGING_CODES for c in f.concepts):
        regions = imaging_regions(text[slice(*scan_span(text, f.start, end))])
        if regions:  # "CT abdomen/pelvis": which cancer's imaging it can be (the state reads it)
            detail["regions"] = list(regions)
    if detail == f.detail and end == f.end:
        return f
    return replace(f, end=end, detail=detail)


# a line break inside a sentence that only wraps it (not before a list item, a "Label:" or after a colon)
_WRAP = re.compile(r"(?<=[^\n:])[ \t]*\n(?=[ \t]*[^\s\-*•\d(])(?![ \t]*[A-Za-z][\w /]{0,30}:)")


def _unwrap(sentence: str) -> str:
    """The sentence with its wrapping line breaks as spaces, same length (offsets unchanged): ConText's
    cue phrases ("almost\nalways", "not\nindicated") and scopes read across a wrapped line. O(len)."""
    return _WRAP.sub(lambda m: " " * len(m.group()), sentence)


def extract_mentions(nlp, sentences: Iterable[str], sections: Iterable[str | None],
                     lexicon: Lexicon | None = None, languages: Iterable[str] | None = None) -> list[list[Mention]]:
    """Mentions per sentence, with their assertion. Batched through ``nlp.pipe``; ConText runs only on
    sentences with a mention. ``languages``: each sentence's note language
    (:func:`ingest.text.languages.note_language`), English when not given. O(total text)."""
    lexicon = lexicon or getattr(nlp, "_graphkit_lexicon", None) or load_lexicon()
    config: NlpConfig = getattr(nlp, "_graphkit_config", NlpConfig())
    sources, sections = list(sentences), list(sections)
    # a sentence in another language is read in its English gloss; its mentions point back at the source
    priors = list(languages) if languages is not None else ["en"] * len(sources)
    glossed = [gloss(s, prior) for s, prior in zip(sources, priors)]
    sentences = [g.text if g else s for g, s in zip(glossed, sources)]
    found = [find_mentions(s, lexicon) for s in sentences]
    context = nlp.get_pipe("medspacy_context")
    out: list[list[Mention]] = []
    docs = nlp.pipe([_unwrap(s) for s in sentences], batch_size=config.batch_size, disable=["medspacy_context"])
    extra = getattr(nlp, "_graphkit_extra", None)
    for doc, text, section, fs, glossing, source in zip(docs, sentences, sections, found, glossed, sources):
        spans = []
        for f in fs:
            span = doc.char_span(f.start, f.end, label=f.kind, alignment_mode="expand")
            if span is not None and all(span.end <= s.start or span.start >= s.end for s in spans):
                spans.append(span)
        doc.ents = spans
        if spans:
            doc = context(doc)
        by_span = {(e.start_char, e.end_char): e for e in doc.ents}
        mentions = []
        for f in fs:
            ent = next((e for (a, b), e in by_span.items() if a <= f.start < b), None)
            assertion, cue = assertion_of(ent, f.kind, f.concepts, section) if ent is not None else ("present", None)
            if f.detail.get("doubt") and assertion == "present":
                assertion, cue = "possible", cue or "suspicious or indeterminate"  # "suspicious R axillary LN"
            if f.kind == "Biomarker" and assertion == "present" and results_pending(f.values):
                assertion, cue = "possible", cue or "result pending"  # "EGFR, ALK on NGS panel - awaited"
            label = _opens_label(text, f.start, f.end) if f.kind in PLANNED_KINDS else None
            if label:
                rest = text[f.end + label.end():]
                said = label_assertion(rest)
                # "MRI pelvis: no residual tumor", "MLH1 promoter methylation: not detected" are the test's
                # result, not "no MRI" (guideline R11)
                if not (said == "negated" and f.kind == "Test" and _TEST_RESULT_NO.match(rest)):
                    assertion = said or assertion
            value = ";".join(f.values) if f.values else None
            mentions.append(Mention(f.start, f.end, text[f.start:f.end], f.kind, assertion, f.concepts, value,
                                    cue, f.values, f.detail, f.flags))
        if extra is not None:
            for ent in extra(doc.text).ents:
                kind = config.extra_ner_labels.get(ent.label_)
                if not kind:
                    continue
                overlap = [m for m in mentions if m.start < ent.end_char and ent.start_char < m.end]
                if all(m.end - m.start < ent.end_char - ent.start_char for m in overlap):
                    # the installed model's longer entity wins over the terms inside it
                    mentions = [m for m in mentions if m not in overlap]
                    mentions.append(Mention(ent.start_char, ent.end_char, ent.text, kind, "present",
                                            tuple(lexicon.lookup(ent.text))))
        if section and _STAFF_LABEL.match(section + ":"):
            # "Attending: pulmonology, thoracic surgery, ..." read as a section of its own: the teams present
            first_line = _line_end(text, 0)
            mentions = [m for m in mentions if not (m.end <= first_line and m.text.lower() in _TEAM_WORDS)]
        mentions = [_awaited_event(text, m) for m in sorted(mentions, key=lambda m: m.start)]
        mentions = _set_aside(text, _by_result(text, _lead_plan(text, _plan_chains(text, _one_regimen(text, mentions)))))
        out.append(_in_source(mentions, glossing, source) if glossing else mentions)
    return out


def _in_source(mentions: list[Mention], glossing: Glossed, source: str) -> list[Mention]:
    """Mentions found in a sentence's English gloss, placed on the source words they stand for (the
    text is the source's: "métastases hépatiques", not "hepatic metastases"). Pure. O(mentions)."""
    out = []
    for m in mentions:
        start, end = glossing.to_source(m.start, m.end)
        if glossing.text[m.start:m.end] == source[start:end] and own_word(source[start:end], glossing.language):
            continue  # a word of the sentence's own language, kept as written: "completar" is no drug
        out.append(replace(m, start=start, end=end, text=source[start:end]))
    return out


_FAVOURED = re.compile(r"\b(?:favou?rs?|favou?red|favou?ring|prefer(?:s|red)?|more\s+likely|likelier)\b", re.I)
_OVER_BEFORE = re.compile(r"\bover\s+(?:an?\s+|the\s+)?(?:[\w-]+\s+){0,2}$", re.I)


def _set_aside(text: str, mentions: list[Mention]) -> list[Mention]:
    """"Favour primary terminal ileal adenocarcinoma over caecal primary": the reading a report favours
    another over is a possibility, not a finding; "(non-colorectal primary)" denies the cancer it
    prefixes. Pure. O(mentions)."""
    # (an organ's cancer only: "non-mucinous adenocarcinoma", "non-keratinizing SCC" name a cell type)
    mentions = [replace(m, assertion="negated", cue="non-")
                if m.kind == "Cancer" and m.assertion == "present" and m.detail.get("site")
                and m.detail.get("histology") in (None, "cancer") and not m.detail.get("site_from")
                and NON_BEFORE.search(text[max(0, m.start - 5):m.start]) else m for m in mentions]
    fav = _FAVOURED.search(text)
    if not fav:
        return mentions
    return [replace(m, assertion="possible", cue="over")
            if m.kind in ("Cancer", "Problem") and m.assertion == "present" and m.start > fav.end()
            and _OVER_BEFORE.search(text[max(fav.end(), m.start - 40):m.start]) else m for m in mentions]


_REGIMEN_JOIN = re.compile(r"\s*[/+]\s*")
# "If pMMR -> adjuvant CAPOX x3 mo (or capecitabine)": an alternative is as (un)certain as the first choice
_ALTERNATIVE = re.compile(r"(?:\s+[\w.]+){0,2}?\s*[,(]?\s*\bor\s+", re.I)


def _one_regimen(text: str, mentions: list[Mention]) -> list[Mention]:
    """"if <50%: carbo/pem/pembro": drugs joined by "/" or "+" are one regimen, so a part the cue's
    word scope did not reach takes the assertion of the part before it; so does an alternative ("CAPOX
    x3 mo (or capecitabine)"). O(mentions)."""
    out: list[Mention] = []
    for m in mentions:
        prev = out[-1] if out else None
        if prev is not None and m.kind in PLANNED_KINDS and prev.kind in PLANNED_KINDS and m.cue is None \
                and m.assertion == "present" and prev.assertion != "present" \
                and (_REGIMEN_JOIN.fullmatch(text[prev.end:m.start]) or _ALTERNATIVE.fullmatch(text[prev.end:m.start])):
            m = replace(m, assertion=prev.assertion, cue=prev.cue)
        out.append(m)
    return out


_IF_ARROW = re.compile(r"^\W*(?:if|when|should)\b[^;]*(?:->|→)", re.I)


def _by_result(text: str, mentions: list[Mention]) -> list[Mention]:
    """"stage IB EGFR ex19del/L858R -> adjuvant osimertinib; if EGFR wild-type -> surveillance": a line of
    outcomes by result, one of them written with "if", is conditional throughout; each clause's result
    and care are possible, not found or given. Pure. O(mentions)."""
    if "->" not in text and "→" not in text:
        return mentions
    spans, start = [], 0
    for part in re.split(r"(;)", text):
        if part != ";":
            spans.append((start, start + len(part), part))
        start += len(part)
    arrows = [(a, b) for a, b, t in spans if "->" in t or "→" in t]
    if len(arrows) < 2 or not any(_IF_ARROW.match(t) for _, _, t in spans):
        return mentions
    kinds = PLANNED_KINDS | {"Biomarker", "Stage"}
    return [replace(m, assertion="possible", cue="outcome by result")
            if m.kind in kinds and m.assertion in ("present", "planned") and m.cue is None
            and any(a <= m.start < b for a, b in arrows) else m for m in mentions]


_AWAITED = re.compile(r"\b(?:at|upon|on|until|till|before|if|when|time\s+to|risk\s+of|(?:assess|evaluate|monitor|watch|"
                      r"look|screen)(?:ing)?\s+for|for)\s+(?:(?:further|disease|radiographic|clinical|any)\s+)?$", re.I)


def _awaited_event(text: str, m: Mention) -> Mention:
    """"Repeat liquid bx at progression", "continue until progression", "risk of recurrence": a disease
    event named as a time or a risk, not as a finding (the cue holds the event, so ConText cannot
    modify it). Pure."""
    if m.kind == "Problem" and m.assertion == "present" and is_progression(_keys(m.concepts)) \
            and _AWAITED.search(text[max(0, m.start - 30):m.start]):
        return replace(m, assertion="possible", cue=text[max(0, m.start - 30):m.start].split()[-1])
    return m


_LEAD_PLAN = re.compile(r"^\W*(?:(?:(?:we|I|MDT|board|team)\s+)?(?:would\s+)?(?:recommends?|recommended|recommendation|"
                        r"proposes?|proposed|advises?|advised|plan(?:s|\s+is)?|suggests?)\b"
                        # "Tumour board: upfront BCS + SLNB f/b adjuvant chemo with trastuzumab": the board's
                        # decision, written after its name
                        r"|(?:(?:multidisciplinary\s+)?tumou?r\s+board|MDT|MDM|board)(?:\s+(?:\d{1,2}[/.]\d{1,2}(?:[/.]\d{2,4})?|"
                        r"outcome|decision|consensus|opinion))?\s*[:–-](?!\s*(?:discussed|reviewed|presented)\b)"
                        # "Decision: NACT EC90 x4 -> weekly paclitaxel x12, then surgery", "Outcome: lap sigmoid
                        # colectomy": a board's decision, written under its label
                        r"|(?:decision|outcome|consensus|agreed\s+plan|plan\s+agreed)\s*:)", re.I)


def _lead_plan(text: str, mentions: list[Mention]) -> list[Mention]:
    """"Recommend concurrent chemoradiotherapy: 60 Gy/30 fx with weekly carboplatin/paclitaxel": a
    sentence that opens with a recommendation is one, to its end (a word-counted cue scope stops
    short of a long regimen). Care with no cue of its own becomes planned. Pure."""
    lead = _LEAD_PLAN.match(text)
    if not lead:
        return mentions
    # the board that decided is no plan of its own ("Tumour board: ..." met)
    return [m for m in mentions if m.start < lead.end()] + _plan_uncued(
        [m for m in mentions if m.start >= lead.end()], lead.group().strip())


def _sentence_site(text: str, site: str | None) -> str | None:
    """"Histology: rectum - moderately differentiated adenocarcinoma" in a colonoscopy report that also names
    the caecum and a sigmoid polyp: the one organ the sentence names refines the note's site within its
    group (rectum for colorectal), never widens it ("consistent with colorectal origin" in a sigmoid cancer's
    report) or moves it to another organ (a liver biopsy's adenocarcinoma stays the note's colorectal
    cancer). Pure. O(len(text))."""
    group = oncology.SITE_GROUP.get(site) if site else None
    named = [k for k in oncology.site_mentions(text) if group and oncology.SITE_GROUP.get(k) == group]
    return named[0] if len(named) == 1 and named[0] != group else site


def _plan_uncued(mentions: list[Mention], cue: str) -> list[Mention]:
    """Care and tests that are present with no cue of their own, planned by ``cue``. Pure."""
    return [replace(m, assertion="planned", cue=cue)
            if m.kind in PLANNED_KINDS and m.assertion == "present" and m.cue is None else m for m in mentions]


_CHAIN = re.compile(r"(?:\bthen\b|\bfollowed by\b|->|→|\bafter which\b)", re.I)


_LINK_ONLY = re.compile(r"^[^,;.()]{0,30}$")  # the link and a word or two, no clause or list between


def _plan_chains(text: str, mentions: list[Mention]) -> list[Mention]:
    """A plan goes on through "then", "followed by", "->": "cisplatin/pemetrexed x4 to start 10/28, then
    adjuvant immunotherapy" plans the immunotherapy too. A treatment with no cue of its own that follows
    a planned one through such a link is planned; one joined straight to a conditional one ("If
    HER2-negative: whole-breast RT followed by letrozole") is as conditional. O(mentions)."""
    out, hedged = [], None
    for m in mentions:
        if m.kind in PLANNED_KINDS and m.assertion == "present" and m.cue is None and hedged is not None:
            gap = text[hedged[0]:m.start]
            if hedged[1] == "planned" and _CHAIN.search(gap) and len(gap) < 60:
                m = replace(m, assertion="planned", cue="then")
            elif hedged[1] == "possible" and _CHAIN.search(gap) and _LINK_ONLY.match(gap):
                m = replace(m, assertion="possible", cue="then (a conditional sequence)")
        if m.kind in PLANNED_KINDS and m.assertion in ("planned", "possible"):
            hedged = (m.end, m.assertion)
        out.append(m)
    return out


# "Not a candidate for hepatic resection/ablation", "SBRT not feasible": the patient is judged unfit for the
# care, which is more than its not having happened yet
_INELIGIBLE = re.compile(r"\b(?:not\s+(?:a\s+)?candidate|not\s+(?:technically\s+)?feasible|infeasible|not\s+suitable|"
                         r"unsuitable|unfit|ineligible|not\s+eligible|contraindicated|not\s+amenable)\b", re.I)
# "We discussed adjuvant chemotherapy: for low-risk stage III, 3 months of CAPOX (capecitabine + oxaliplatin)":
# what a discussion's colon opens is its content
# ("Discussed with Dr Lee: switched to apixaban" reports a decision: a discussion *with* someone is no topic)
_DISCUSSED_COLON = re.compile(r"^\W*(?:(?:we|i)\s+(?:have\s+)?)?(?:discussed|talked\s+(?:about|through)|explained|"
                              r"went\s+through|counsell?ed\s+(?:on|about|re))\b(?!\s+with\b)[^:.;\n]{0,60}:", re.I)


def discussed_content(text: str, row: list[Mention]) -> list[Mention]:
    """Care named after the colon of "We discussed X: ..." with no cue of its own is an option talked
    about, not care given. Pure. O(mentions)."""
    m0 = _DISCUSSED_COLON.match(text)
    if not m0:
        return row
    return [replace(m, assertion="possible", cue="discussed (its content)")
            if m.kind in ("Medication", "Procedure") and m.assertion == "present" and m.cue is None
            and m.start >= m0.end() else m
            for m in row]


_FIRST_GIVEN = re.compile(r"\b(?:C1\s*D1|C1|cycle\s*(?:1|one)(?:\s*,?\s*day\s*1)?|first\s+(?:cycle|dose|infusion|"
                          r"fraction))\b[^.;]{0,30}?\b(?:given|administered|infused|started|commenced|delivered)\b",
                          re.I)
_NOT_GIVEN = re.compile(r"\b(?:not|n't|never|held|deferred|postponed|delayed|cancell?ed|unable)\b", re.I)
FIRST_CYCLE_REACH = 3  # sentences back a drug-less "Cycle 1 day 1 given today" reaches for the plan it begins


def first_cycle_given(texts: list[str], rows: list[list[Mention]]) -> list[list[Mention]]:
    """"Plan: APT - paclitaxel weekly x12 + trastuzumab ... Cycle 1 day 1 given today": a sentence saying the
    first cycle was given, naming no drug, begins the regimen planned in the sentences just before it (its
    drugs are given, not planned). Pure. O(sentences × reach × mentions)."""
    out = list(rows)
    for i, (text, ms) in enumerate(zip(texts, rows)):
        if any(m.kind == "Medication" for m in ms) or not _FIRST_GIVEN.search(text) or _NOT_GIVEN.search(text):
            continue
        for j in range(max(0, i - FIRST_CYCLE_REACH), i):
            # (only the regimen begun: "cisplatin/pemetrexed x4 followed by osimertinib" keeps osimertinib to come)
            later = _CHAIN.search(texts[j])
            cut = later.start() if later else len(texts[j])
            out[j] = [replace(m, assertion="present", cue="first cycle given")
                      if m.kind == "Medication" and m.assertion == "planned" and m.start < cut else m for m in out[j]]
    return out


# "Has NOT started the treatment yet": the drug the sentences before name, not begun (no care named here)
_NOT_STARTED_IT = re.compile(r"\b(?:has|have|had|is|was)\s+not\s+(?:yet\s+)?(?:started|begun|commenced|initiated|taken)\s+"
                             r"(?:(?:the|her|his|this|that|any)\s+)?(?:treatment|therapy|medication|medicine|drug|tablets|"
                             r"capsules|it)\b|\bnot\s+(?:yet\s+)?(?:started|begun)\s+(?:yet|still)\b", re.I)
NOT_STARTED_REACH = 2  # sentences back


def not_started_yet(texts: list[str], rows: list[list[Mention]], language: str = "en") -> list[list[Mention]]:
    """A sentence that names no care and says treatment has not begun ("Prescription written: Alecensa
    150 mg ... Start planned Monday 20/10. Has NOT started the treatment yet.") leaves the drugs of the
    sentences just before planned (another ``language`` read in its gloss). Pure. O(mentions)."""
    out = [list(ms) for ms in rows]
    for i, (text, ms) in enumerate(zip(texts, rows)):
        if any(m.kind in ("Medication", "Procedure") for m in ms):
            continue
        english = gloss(text, language) if language != "en" else None
        if not _NOT_STARTED_IT.search(english.text if english else text):
            continue
        for j in range(max(0, i - NOT_STARTED_REACH), i):
            out[j] = [replace(m, assertion="planned", cue="not started yet")
                      if m.kind == "Medication" and m.assertion == "present" else m for m in out[j]]
    return out


_ITEM_LABEL = re.compile(r"^[^:\n]{1,50}?(?::|\s[-–]\s)")


def _item_kind(text: str, ms: list[Mention], language: str) -> tuple[str | None, int]:
    """What a sentence that opens a line item makes of the item: "family" (a relative's, from the end of its
    label on), "possible" (a branch under a condition) or None."""
    label = _ITEM_LABEL.match(text)
    if label is not None:
        glossed = gloss(label.group(), language) if language != "en" else None
        if relative_item(glossed.text if glossed else label.group()):
            return "family", label.end()
    english = gloss(text, language) if language != "en" else None
    if condition_item(text, [(m.start, m.end, m.kind) for m in ms], english.text if english else None) is not None:
        return "possible", len(text)  # the opening sentence's own branch is read with it (assertion_of)
    return None, 0


# "(a) HER2 amplified -> neoadjuvant TCHP x6", "- pMMR -> CAPOX x3": an item whose label is a result and whose
# arrow leads to what to do (a colon is a report's result line: "- HER2 IHC: 2+", "- HER2 ISH: not amplified")
_RESULT_ITEM = re.compile(r"^[ \t]*(?:\(?[a-z]\)|\(?\d{1,2}[.)]|[-*•·](?!>))?[ \t]*([^\n]{1,40}?)[ \t]*(?:->|→|=>)", re.I)
SCENARIO_REACH = 6  # sentences between sibling scenario items


def scenario_items(texts: list[str], rows: list[list[Mention]], opens: list[bool]) -> set[int]:
    """Indices of the sentences that open scenario items: sibling items whose labels give the same marker
    different results ("(a) HER2 amplified -> TCHP ... (b) HER2 not amplified -> surgery first") are the
    branches of a plan that waits on that result, not results. O(sentences × mentions)."""
    labelled: dict[str, dict[str, list[int]]] = {}
    for i, (text, ms, new) in enumerate(zip(texts, rows, opens)):
        label = _RESULT_ITEM.match(text) if new else None
        if label is None:
            continue
        for m in ms:
            if m.kind == "Biomarker" and label.start(1) <= m.start and m.end <= label.end(1):
                for v in m.values:
                    marker, _, status = v.partition("=")
                    labelled.setdefault(marker, {}).setdefault(status, []).append(i)
    out = set()
    for statuses in labelled.values():
        at = sorted((i, status) for status, rows_ in statuses.items() for i in rows_)
        for (i, a), (j, b) in zip(at, at[1:]):
            if a != b and j - i <= SCENARIO_REACH:
                out |= {i, j}
    return out


def list_items(texts: list[str], rows: list[list[Mention]], opens: list[bool], language: str = "en") -> list[list[Mention]]:
    """What a line item's label says of its whole item, the sentences that go on it included (``opens``: whether
    each sentence opens a new item): care under a condition ("- If HER2 amplified: neoadjuvant TCHP -> surgery.
    2D echo before trastuzumab.") is that branch's option (:func:`ingest.nlp.assertion.condition_item`), and so is
    the care of sibling items that give one marker different results (:func:`scenario_items`); what is
    listed under a relative ("- Sister (41 y): adenocarcinoma of the ascending colon. Right hemicolectomy June
    2024. Currently on adjuvant CAPOX.") is the relative's (:func:`ingest.nlp.assertion.relative_item`; a label
    in another ``language`` read in its gloss) until the item turns to the patient
    (:func:`ingest.nlp.assertion.back_to_patient`); a test there stays the patient's, most often her own
    screening ("Last screening colonoscopy 2019"). Pure. O(mentions)."""
    out, inside = [], None
    scenarios = scenario_items(texts, rows, opens)
    for i, (text, ms, new) in enumerate(zip(texts, rows, opens)):
        after = 0
        if i in scenarios:
            # the label's result is the branch's condition, not the patient's result
            cut = _RESULT_ITEM.match(text).end()
            ms = [replace(m, assertion="possible", cue="scenario") if m.kind == "Biomarker" and m.end <= cut else m
                  for m in ms]
            inside, after = "possible", 0
        elif new:
            inside, after = _item_kind(text, ms, language)
        elif inside == "family" and back_to_patient(text):
            inside = None
        if inside == "possible":
            out.append([replace(m, assertion="possible", cue=m.cue or "if ...:")
                        if m.start >= after and m.kind in ("Medication", "Procedure")
                        and m.assertion in ("present", "planned", "historical") else m for m in ms])
        elif inside == "family":
            out.append([replace(m, assertion="family", cue=m.cue or "relative's item")
                        if m.start >= after and m.kind != "Test"
                        and m.assertion in ("present", "historical", "planned", "possible") else m for m in ms])
        else:
            out.append(ms)
    return out


def resolve_note(texts: list[str], mentions: list[list[Mention]], lexicon: Lexicon | None = None,
                 note_day=None, opens: list[bool] | None = None, language: str = "en") -> list[list[Mention]]:
    """Note-level facts: a treatment that ended before ``note_day`` (the note's date) is historical, and
    care (or a test) dated after it is planned (:mod:`ingest.nlp.when`); a cancer of the patient's
    history is flagged (:func:`past_cancer`); histology-only cancers take the note's site (and code),
    never a past cancer's; TNM classifications get their AJCC 8 group when the note's cancer makes it
    unambiguous (``detail.derived_group``, flagged ``derived-group``); a biomarker stated with
    contradictory statuses in the note is flagged ``conflict`` on each statement; markers listed under a
    negative label on the line before take its result (:func:`under_negative_label`); with ``opens`` (whether
    each sentence opens a line item), what an item's label says holds for the whole item (:func:`list_items`);
    drugs a later sentence says are not started yet are planned (:func:`not_started_yet`). ``language``: the
    note's, for the labels and sentences read in their gloss. Pure. O(mentions)."""
    lexicon = lexicon or load_lexicon()
    # "osimertinib was prescribed ... never started": a treatment the note says was never taken is not
    # given by its bare mentions elsewhere in the same note
    never = {c.code for ms in mentions for m in ms
             if m.kind in ("Medication", "Procedure") and m.assertion == "negated" and _NEVER.search(m.cue or "")
             for c in m.concepts[:1]}
    dmy = when.day_first(texts, when.as_day(note_day))
    mentions = [under_negative_label(texts[i - 1] if i else "", text, ms)
                for i, (text, ms) in enumerate(zip(texts, mentions))]
    rows = [past_cancer(text, [_dated(text, m, note_day, never, dmy) for m in ms], note_day, dmy)
            for text, ms in zip(texts, mentions)]
    rows = first_cycle_given(texts, [discussed_content(t, ms) for t, ms in zip(texts, rows)])
    if opens is not None:
        rows = list_items(texts, rows, opens, language)
    rows = not_started_yet(texts, rows, language)
    current = [(t, ms) for t, ms in zip(texts, rows) if not any(PAST_CANCER in m.flags for m in ms)]
    own = [m for _, ms in current for m in ms if m.assertion in ("present", "historical")]
    def sites_of(ms: list[Mention]) -> list[str]:
        return [s for m in ms if m.kind == "Cancer" for s in [m.detail.get("site") or _site_of_concepts(m.concepts)] if s]

    # the cancer the note is about, not one "h/o papillary thyroid ca s/p thyroidectomy 2011, NED"
    cancer_sites = sites_of([m for m in own if m.assertion == "present"]) or sites_of(own)
    counts = Counter()
    for t, ms in current:
        # "Prostate ca in father": a relative's (or a ruled-out) cancer names no site of the patient's
        others = {m.detail.get("site") or _site_of_concepts(m.concepts) for m in ms
                  if m.kind == "Cancer" and m.assertion in ("family", "negated")}
        counts.update({k: n for k, n in oncology.site_mentions(t).items() if k not in others})
    # "Anterior resection: residual adenocarcinoma", "then TME": an operation on one organ names the tumour's
    counts.update(s for ms in rows for m in ms
                  if m.kind == "Procedure" and m.assertion not in ("family", "negated")
                  for s in [_procedure_site(m.concepts)] if s in oncology.GUIDELINE_SITES)
    site = oncology.note_site(counts, cancer_sites)
    group_site = oncology.SITE_GROUP.get(site) if site else None
    # an earlier result the note recalls ("DISCORDANT with core biopsy (ER 0%)") does not contradict this
    # note's own: a marker's historical statements count only where the note states none as present
    said_now = {v.partition("=")[0] for m in own if m.kind == "Biomarker" and m.assertion == "present" for v in m.values}
    stated: dict[str, list[tuple[str, dict]]] = {}
    for m in own:
        if m.kind == "Biomarker":
            for v in m.values:
                marker, _, status = v.partition("=")
                if m.assertion == "historical" and marker in said_now:
                    continue
                if status not in ("pending", "invalid"):
                    stated.setdefault(marker, []).append((status, m.detail))
    # one protein's loss beside the others' intact staining, one variant found beside others ruled out: no conflict
    statuses = {k: {items[i][0] for i in (mmr_loss_wins if k == "MMR" else variant_found_wins)(items)}
                for k, items in stated.items()}
    # an equivocal IHC beside its reflex ISH result is no contradiction: the ISH decides
    conflicts = {k for k, v in statuses.items() if len(v - {"equivocal"}) > 1}
    names_cancer = any(m.kind == "Cancer" for m in own)
    out = []
    for text, ms in zip(texts, rows):
        row = []
        for m in ms:
            if names_cancer and m.kind == "Problem" and _bare_neoplasm(m):
                continue  # "Tumor invades the muscularis", "tumor bed": the note's cancer again, no new fact
            if _label_restated(text, m, ms):
                continue  # "Colonoscopy: the 1-year colonoscopy has NOT been done": the line's topic, restated
            if m.kind == "Cancer" and not m.concepts and m.detail.get("histology") and m.assertion != "family":
                own_site = _sentence_site(text, site)
                concepts = _cancer_concepts(m.detail["histology"], own_site, lexicon)
                m = replace(m, concepts=concepts, detail={**m.detail, "site": own_site, "site_from": "note"}
                            if own_site else m.detail)
            elif m.kind == "Cancer" and m.detail.get("histology") == "cancer" and _PRIMARY.search(m.text) and (
                    named := _primary_named(m, own)):
                # "the LUL primary" is the tumour the note names: its histology's code, not a generic lung cancer
                m = replace(m, concepts=named.concepts, detail={**m.detail, "histology": named.detail.get("histology"),
                                                                "site": named.detail.get("site")})
            elif m.kind == "Stage" and group_site and m.value and STAGE_GROUP.match(m.value) and \
                    not group_exists(group_site, m.value):
                m = replace(m, value="invalid", values=("invalid",),
                            flags=m.flags + (f"invalid:stage {m.value} does not exist for {group_site} cancer (AJCC 8)",))
            elif m.kind == "Stage" and m.detail.get("t") and group_site:
                tnm = Tnm("", m.detail.get("t"), m.detail.get("n"), m.detail.get("m"))
                group = group_from_tnm(group_site, tnm) if m.value != "invalid" else None
                if group:
                    m = replace(m, detail={**m.detail, "derived_group": group, "derived_from": f"AJCC 8 anatomic "
                                           f"{group_site} table"}, flags=m.flags + (f"derived-group:{group}",))
            elif m.kind == "Biomarker" and m.assertion in ("present", "historical"):
                hit = sorted({v.partition("=")[0] for v in m.values} & conflicts)
                if hit:
                    m = replace(m, flags=m.flags + tuple(f"conflict:{k}" for k in hit))
            if m.kind == "Procedure" and site and _procedure_site(m.concepts) is None:
                # "breast-conserving segmentectomy": a word that names an operation on several organs is
                # the one on the note's organ
                m = replace(m, concepts=tuple(c for c in m.concepts if _site_of_concepts((c,)) == site) or m.concepts)
            if m.kind == "Stage" and group_site and "site" not in m.detail:
                m = replace(m, detail={**m.detail, "site": group_site})  # the stage of the note's cancer
            if m.kind in ("Medication", "Procedure") and m.assertion == "negated" and _NOT_BEGUN.search(m.cue or ""):
                m = replace(m, flags=m.flags + (NEVER_STARTED,))  # the state reads it against earlier bookings
            if m.kind in ("Medication", "Procedure") and m.assertion == "negated" and _INELIGIBLE.search(m.cue or ""):
                m = replace(m, flags=m.flags + (RULED_OUT,))  # the reasoning closes that option
            row.append(m)
        out.append(for_condition(text, for_cancer(same_course(joined_drugs(text, one_regimen(text, after_unfinished(
            text, appositions(text, row))))))))
    out = [_continued_plan(t, row, [m for r in out[max(0, i - 3):i] for m in r]) if i else row
           for i, (t, row) in enumerate(zip(texts, out))]
    out = [_also_phase(t, row, out[i - 1]) if i else row for i, (t, row) in enumerate(zip(texts, out))]
    out = [_plan_uncued(row, "recommendation (the line before)") if i and _PLAN_LABEL_END.search(texts[i - 1]) else row
           for i, row in enumerate(out)]
    out = [_scheduled_next(t, row, texts[i + 1]) if i + 1 < len(texts) else row
           for i, (t, row) in enumerate(zip(texts, out))]
    out = label_told_later(texts, out)
    # "Adjuvant TC (docetaxel + cyclophosphamide) q21d x 4:" then "C1 3/17/25, ..., C4 5/19/25": the regimen
    # line's course is the cycle line's
    # (or a table of cycles, a row a line: its header row's drugs too)
    courses = cycle_courses(texts, dmy)
    out = [in_course(t, row, courses[i], note_day) if i in courses else row for i, (t, row) in enumerate(zip(texts, out))]
    out = option_columns(texts, out)
    out = [closing_period(t, own_cycles(t, row, note_day, dmy), note_day, dmy) for t, row in zip(texts, out)] \
        if note_day is not None else out
    out = [stage_appositions(t, negative_panel(t, named_suspicion(row))) for t, row in zip(texts, out)]
    period = when.course_period(texts, dmy)
    return [in_course(t, row, period, note_day) for t, row in zip(texts, out)] if period else out


# "respiratory viral PCR (incl. COVID-19 and influenza) negative": the bracket lists what the test looked for
_PANEL_NEGATIVE = re.compile(r"\((?P<items>[^()\n]{1,160})\)\s*(?:(?:was|were|all|both)\s+)?(?:negative|neg\b|"
                             r"not\s+detected|none\s+detected|undetected)", re.I)


def under_negative_label(previous: str, text: str, row: list[Mention]) -> list[Mention]:
    """"Negative for:" alone on its line, then "EGFR (exons 18-21), BRAF V600E ..., MET exon 14 skipping" on the
    lines under it (split into two sentences): the markers listed take the label's result, read by
    :func:`graphkit.clinical.values.find_biomarkers` over the two as one statement. Pure. O(len(text))."""
    if not previous or not negative_label_only(previous) or not any(m.kind == "Biomarker" for m in row):
        return row
    head = previous.strip() + "\n  "
    found = [(b.start - len(head), b.end - len(head), b) for b in find_biomarkers(head + text)]
    out = []
    for m in row:
        b = next((b for a, e, b in found if m.kind == "Biomarker" and a < m.end and m.start < e), None)
        out.append(replace(m, values=b.values, value=";".join(b.values), detail=dict(b.detail))
                   if b is not None and b.values != m.values else m)
    # the markers of the list that stated no result of their own were no mentions yet ("ALK, ROS1, RET")
    for a, e, b in found:
        if 0 <= a and not any(x.start < e and a < x.end for x in out):
            out.append(Mention(a, e, text[a:e], "Biomarker", "present", (), ";".join(b.values), "negative label",
                               b.values, dict(b.detail), b.flags))
    return sorted(out, key=lambda m: m.start)


def negative_panel(text: str, row: list[Mention]) -> list[Mention]:
    """Problems named in a bracket that a negative result follows are looked for and not found (the
    result word stands after the bracket, out of ConText's reach from inside it). Pure. O(len(text))."""
    spans = [m.span("items") for m in _PANEL_NEGATIVE.finditer(text)]
    if not spans:
        return row
    return [replace(m, assertion="negated", cue="negative (the bracket's test)")
            if m.kind == "Problem" and m.assertion == "present" and any(a <= m.start and m.end <= b for a, b in spans)
            else m for m in row]


_STAGE_GAP = re.compile(r"\s*[,;(:\-–]?\s*")


def stage_appositions(text: str, row: list[Mention]) -> list[Mention]:
    """"if the adrenal lesion is metastatic this is cT3 N1 M1b, stage IVA": a stage group written right after
    a TNM restates it, and is as conditional (or denied) as it. Pure. O(mentions)."""
    out = list(row)
    stages = sorted((k for k, m in enumerate(row) if m.kind == "Stage"), key=lambda k: row[k].start)
    for i, j in zip(stages, stages[1:]):
        a, b = out[i], out[j]
        if a.assertion in ("possible", "negated") and b.assertion == "present" and a.end <= b.start \
                and _STAGE_GAP.fullmatch(text, a.end, b.start):
            out[j] = replace(b, assertion=a.assertion, cue=a.cue)
    return out


# a table column of what a result would support: "| Gene | Alteration | Therapies with clinical benefit |",
# "FDA-approved therapies", "Potential treatment options" (not a history's "| Date | Treatment | Response |")
_OPTION_HEADER = re.compile(r"^(?=.*\b(?:therap(?:y|ies)|treatments?|drugs?|agents?)\b)(?=.*\b(?:approved|benefit|"
                            r"potential|options?|matched|relevant|sensitivity|resistance|associated|available|"
                            r"possible|trials?)\b)", re.I)


def option_columns(texts: list[str], rows: list[list[Mention]]) -> list[list[Mention]]:
    """Care named in a table column whose header lists therapy options (a genomic report's "Therapies with
    clinical benefit") is possible, never given: the header row is a sentence of its own, so ConText
    cannot reach the cells. Pure. O(sentences + mentions)."""
    out, columns = [], set()
    for text, row in zip(texts, rows):
        line = text.strip()
        if not line.startswith("|"):
            columns = set()
            out.append(row)
            continue
        cells = line.strip("|").split("|")
        header = {i for i, c in enumerate(cells) if _OPTION_HEADER.match(c.strip())}
        if header:
            columns = header
        lead = len(text) - len(text.lstrip()) + 1  # past the row's opening "|"
        out.append([replace(m, assertion="possible", cue="therapy options column")
                    if columns and m.kind in PLANNED_KINDS and m.assertion in ("present", "historical", "planned")
                    and text[lead:m.start].count("|") in columns else m for m in row])
    return out


# "MDT 15/04/2024: incomplete response. Recommendation:" / "LAR with TME and loop ileostomy.": a line that
# ends on a recommendation label hands it to the next
_PLAN_LABEL_END = re.compile(r"\b(?:recommendations?|recommend|plan|proposal|outcome|decision|recs?|proposed|suggested|"
                             r"advised|planned|agreed|requested|ordered|to\s+do|booked|as\s+follows|opted\s+for\s+the\s+(?:latter|former))\s*:\s*$", re.I)
_THEN_LEAD = re.compile(r"^\W*(?:and\s+)?(?:then|followed\s+by|thereafter|after\s+(?:that|which|this))\b", re.I)


def _continued_plan(text: str, row: list[Mention], previous: list[Mention]) -> list[Mention]:
    """"P: Adjuvant chemotherapy recommended: ddAC x4, then weekly paclitaxel x12." / "Then whole-breast
    RT.": a sentence that opens with "then" goes on with the plan just before it (``previous``: the
    mentions of the last few sentences); its care with no cue of its own is planned too. Pure. O(mentions)."""
    if not _THEN_LEAD.match(text) or not any(m.kind in PLANNED_KINDS and m.assertion == "planned" for m in previous):
        return row
    return _plan_uncued(row, "then (the plan before)")


# "Total received: 6 doses of trastuzumab (neoadjuvant only). Pertuzumab also 6 doses.": what a sentence says
# "also" of is said of the care of the sentence before (not a sentence that opens "Also ...": one more item,
# "Also on denosumab for osteoporosis")
_ALSO = re.compile(r"^(?!\W*(?:also|too|likewise|as\s+well|idem)\b).*?\b(?:also|too|likewise|as\s+well|idem)\b",
                   re.I | re.S)


def _also_phase(text: str, row: list[Mention], previous: list[Mention]) -> list[Mention]:
    """Care with no phase of its own, in a sentence that says "also", takes the one phase of the care of the
    sentence before (``previous``). Pure. O(mentions)."""
    phases = {m.detail.get("phase") for m in previous if m.kind in when.KINDS and m.detail.get("phase")}
    if len(phases) != 1 or not (_ALSO.search(text) or (glossed := gloss(text)) and _ALSO.search(glossed.text)):
        return row  # (read in English: "Pertuzumab tb 6 dosis", the Spanish "también")
    [phase] = phases
    return [replace(m, detail={**m.detail, "phase": phase}) if m.kind in when.KINDS and not m.detail.get("phase")
            and m.assertion in ("present", "historical") else m for m in row]


_TOPIC_LINE = re.compile(r"^\W*[A-Za-z][\w /&-]{0,30}:\s")
_SCHEDULED_LEAD = re.compile(r"^\W*(?:(?:originally|initially|now|currently|provisionally|tentatively)\s+)?"
                             r"(?:(?:is|was|has\s+been)\s+)?(?:listed|booked|scheduled|planned|wait-?listed|"
                             r"set)\s+(?:for|on)\b", re.I)


def _scheduled_next(text: str, row: list[Mention], following: str) -> list[Mention]:
    """"Surgery: laparoscopic LAR + TME." / "Originally listed for 05/06 - cancelled; new date 01/07.": a
    topic line that only names its care takes its status from the next sentence when that one opens
    by scheduling it; its care with no cue of its own is planned. Pure. O(mentions)."""
    if not _TOPIC_LINE.match(text) or not _SCHEDULED_LEAD.match(following):
        return row
    return _plan_uncued(row, "scheduled (the next sentence)")


def label_told_later(texts: list[str], rows: list[list[Mention]]) -> list[list[Mention]]:
    """"Radiotherapy: chart reviewed - no rad onc assessment on file. ... She has NOT received RT.": a care
    label whose own sentence reports no care and no date takes what the next sentences of its topic (up to
    three, until another label) say of the same care with a cue of their own — refused, not given, planned.
    Pure. O(sentences · mentions)."""
    out = [list(r) for r in rows]
    for i, (text, row) in enumerate(zip(texts, rows)):
        label = _TOPIC_LINE.match(text)
        # (a dated label reports the event: "LUNG MDT 28/03/25: upstaged to pIIB")
        if not label or when.has_date(text):
            continue
        if any(m.kind in ("Medication", "Procedure") and m.assertion in ("present", "historical")
               and m.start >= label.end() for m in row):
            continue  # the label's own sentence tells its care
        for j, m in enumerate(row):
            if m.kind not in ("Medication", "Procedure") or m.assertion != "present" or m.cue or m.end > label.end():
                continue
            codes = {c.code for c in m.concepts}
            for k in range(i + 1, min(i + 4, len(texts))):
                if _TOPIC_LINE.match(texts[k]):
                    break
                told = next((x for x in rows[k] if x.kind == m.kind and x.cue and x.assertion in ("negated", "planned")
                             and codes & {c.code for c in x.concepts}), None)
                if told:
                    out[i][j] = replace(m, assertion=told.assertion, cue=f"{told.cue} (later in its topic)")
                    break
    return out


_SUSPICION_NAME = re.compile(r"(?:suspected|suspicious|suspicion\s+of|possible|probable|presumed|query|\?)\s*\w", re.I)


def named_suspicion(row: list[Mention]) -> list[Mention]:
    """"Impression: suspected lung cancer": a vocabulary term that names the suspicion itself (SNOMED's
    "Suspected lung cancer (situation)") is a possible diagnosis, not a present one. Pure. O(mentions)."""
    return [replace(m, assertion="possible", cue=m.cue or "suspicion named by the term")
            if m.kind in ("Cancer", "Problem") and m.assertion == "present" and _SUSPICION_NAME.match(m.text) else m
            for m in row]


def cycle_courses(texts: list[str], day_first: bool) -> dict[int, tuple]:
    """Sentence index → the course (first day, last day) that the dated cycles under a label ending in ":"
    report, for the label and each table row under it. O(sentences × rows)."""
    out: dict[int, tuple] = {}
    for i, t in enumerate(texts[:-1]):
        if not t.rstrip().endswith(":"):
            continue
        rows = _rows_after(texts, i)
        cycles = when.cycle_period("\n".join(rows), day_first)
        if cycles:
            out.update((j, cycles) for j in range(i, i + 1 + len(rows)))
    return out


def _rows_after(texts: list[str], i: int) -> list[str]:
    """The line after a label, or the rows of the table right after it ("| C1 | 15/04/24 | 100 % |", a line
    each). O(rows)."""
    return list(takewhile(lambda t: t.lstrip().startswith("|"), texts[i + 1:i + 25])) or texts[i + 1:i + 2]


def in_course(text: str, row: list[Mention], period, note_day) -> list[Mention]:
    """"Rx: pelvis 45 Gy/25 fx ... concurrent capecitabine" in a summary whose "Dates: 5 Feb 2024 -> 14 Mar
    2024" reports the course: care given in a sentence with no date of its own is that course's
    (``detail.course_start``, its start, dates the event; ``end``; historical once it ended before the
    note). Pure. O(mentions)."""
    if when.has_date(text):
        return row
    return _in_period(row, period, when.as_day(note_day), "course", ("start", "end"))


def _in_period(row: list[Mention], period, day, label: str, dated_by: tuple[str, ...]) -> list[Mention]:
    """The care of ``row`` (given, or over) dated by a course ``period``: ``detail.course_start`` and ``end``,
    historical once the course ended before ``day``; care already dated by one of ``dated_by`` keeps its
    dates. Pure. O(mentions)."""
    start, end = period
    over = day is not None and end < day
    return [replace(m, assertion="historical" if over else m.assertion,
                    cue=f"{label} {start.isoformat()} to {end.isoformat()}" if over and m.cue is None else m.cue,
                    detail={**m.detail, "course_start": start.isoformat(), "end": end.isoformat()})
            if m.kind in when.KINDS and m.assertion in ("present", "historical") and
            not any(m.detail.get(k) for k in dated_by) else m for m in row]


def own_cycles(text: str, row: list[Mention], note_day, day_first: bool) -> list[Mention]:
    """"cisplatin + etoposide, 2 cycles (C1 21/10, C2 18/11) - given": a sentence that dates its own cycles,
    year-less too, all on or before the note, dates the course of the care it names
    (``detail.course_start``, ``end``; historical once over before the note). Pure. O(len(text) + mentions)."""
    day = when.as_day(note_day)
    period = when.cycle_period(text, day_first, day) if "C" in text.upper() else None
    if period is None or period[1] > day:
        return row  # "continue TC (C3 09/10, C4 30/10)": cycles still to come are the plan's, not a course given
    return _in_period(row, period, day, "cycles", ("start", "end", "course_start"))


def closing_period(text: str, row: list[Mention], note_day, day_first: bool) -> list[Mention]:
    """"he received long-course chemoradiotherapy locally - 50.4 Gy in 28 fractions with concurrent
    capecitabine - 17/03/2025 to 24/04/2025.": a period over before the note that closes a sentence and is
    its only date dates the care given before it in the same clause, however far back (a mention's own
    window stops after a few words). Pure. O(len(text) + mentions)."""
    found = when.closing_range(text, day_first)
    day = when.as_day(note_day)
    if found is None or found[1] > day:
        return row
    start, end, at = found
    dated = iter(_in_period([m for m in row if m.end <= at and not _CLAUSE_BREAK.search(text, m.end, at)],
                            (start, end), day, "period", ("start", "end", "course_start")))
    return [next(dated) if m.end <= at and not _CLAUSE_BREAK.search(text, m.end, at) else m for m in row]


_CLAUSE_BREAK = re.compile(r"[;]|\.\s|->|→|\bthen\b|\bnow\b", re.I)  # the line's date no longer speaks


def _dated(text: str, m: Mention, note_day, never: set[str], day_first: bool = False) -> Mention:
    """One mention with what its own clause's date says: care over before the note is historical, care
    or a test dated after it planned; a drug the note says was never taken is not given. Pure."""
    if m.kind in ("Medication", "Procedure") and m.assertion == "present" and m.cue is None and \
            m.concepts and m.concepts[0].code in never:
        return replace(m, assertion="negated", cue="never taken (same note)")
    if day_first and m.kind in ("Medication", "Procedure") and not (m.kind == "Procedure" and _is_operation(m.concepts)):
        # "Osimertinib 80 mg od STARTED 01/07/2024" in a note that writes "C3 03/06/24": 1 July, not 7 January;
        # "chemoRT 27/09/24 (started 19/08/24)": a start the sentence alone could not read month first at all
        # (the note tells its order)
        again = oncology.start_date(text[m.end:], True)
        if again and again != m.detail.get("start"):
            m = replace(m, detail={**m.detail, "start": again})
    if m.kind == "Medication" and m.assertion == "planned" and m.detail.get("status") == "ongoing" and \
            note_day is not None and (m.detail.get("start") or "9") <= when.as_day(note_day).isoformat():
        # "Plan: ... goserelin 3.6 mg q4w since 15 Sep 2025 - continue": a drug taken since a day gone by, in a plan
        return replace(m, assertion="present", cue=f"taken since {m.detail['start']}")
    if m.kind in when.KINDS + ("Test",) and m.assertion == "present":
        over = when.over_before(text, m.end, note_day, single_date=_one_day(m), day_first=day_first) \
            if m.kind in when.KINDS else None
        if over is None and m.kind in when.KINDS and note_day is not None:
            # "* 04/2024 lap sigmoid colectomy", "10/15/24-01/07/25: weekly paclitaxel": a line dated before
            # the note tells an operation (one date) or a course (a period) that is over
            lead = when.leading_date(text[:m.start], day_first)
            day = when.as_day(note_day)
            if lead and lead[0] < day and (lead[1] or m.kind == "Procedure") and \
                    not _CLAUSE_BREAK.search(text[:m.start]):
                over = lead[0]
        if over is None and m.kind in when.KINDS and note_day is not None and not m.detail.get("start"):
            # "C1 28/08: docetaxel + cyclophosphamide": the line's first cycle dates the course's start
            line = text[text.rfind("\n", 0, m.start) + 1:m.start]
            began = when.first_cycle_line(line, note_day, day_first)
            if began is not None and began <= when.as_day(note_day) and not _CLAUSE_BREAK.search(line):
                m = replace(m, detail={**m.detail, "start": began.isoformat()})
        # (a course said to go on is under way: "Continue zoledronic acid q6 months (next due Jan 2026)" dates
        # its next dose, not its start)
        later = None if over or m.detail.get("status") == "ongoing" else \
            when.starts_after(text, m.end, note_day, day_first)
        if later:
            return replace(m, assertion="planned", cue=f"dated {later.isoformat()}, after the note")
        if over:
            return replace(m, assertion="historical", cue=f"dated {over.isoformat()}",
                           detail={**m.detail, **_course_dates(text, m, note_day, over, day_first)})
    if m.kind in when.KINDS and m.assertion == "historical" and not m.detail.get("end"):
        # "completed 6 cycles TCHP (C1 1 Jul 2024, C6 14/10/2024)": history by its cue, dated by its clause
        # (a start it already has, "chemoRT 27/09/24 (started 19/08/24)", stays)
        over = when.over_before(text, m.end, note_day, single_date=_one_day(m), day_first=day_first)
        dates = {k: v for k, v in _course_dates(text, m, note_day, over, day_first).items() if k not in m.detail}
        return replace(m, detail={**m.detail, **dates}) if dates else m
    return m


def _one_day(m: Mention) -> bool:
    """Is one date after this care the day it was over? An operation's, yes; a course of systemic therapy,
    like a drug, no ("post NACT (KN-522) + WLE/TAD 14/04/25": the day of the operation)."""
    return m.kind == "Procedure" and not is_systemic_class(tuple(f"{c.system}|{c.code}" for c in m.concepts))


def _course_dates(text: str, m: Mention, note_day, over, day_first: bool) -> dict:
    """``end`` (the day care was over, when known) and ``start`` (its clause's period start or first cycle:
    "CRT 1/29/24 - 3/6/24", "C1 1 Jul 2024") for a mention's detail. Pure."""
    began = when.clause_period(text, m.end, note_day, day_first)
    out = {"end": over.isoformat()} if over else {}
    if began and (over is None or began <= over) and not m.detail.get("start"):
        out["start"] = began.isoformat()
    return out


# a sentence saying no disease remains ("NED", "no evidence of recurrence", "in remission", "cured")
_NO_DISEASE = re.compile(r"\b(?:NED|no\s+evidence\s+of\s+(?:disease|recurrence|relapse)|no\s+(?:recurrence|relapse)|"
                         r"(?:in|complete)\s+remission|disease[- ]free|cured|survivor(?:ship)?)\b", re.I)
_ACTIVE = re.compile(r"recurr|relaps|metasta|progress", re.I)
REMOTE_DAYS = 3 * 365  # a cancer dated this long before the note, its care over, is the patient's history


def past_cancer(text: str, row: list[Mention], note_day, day_first: bool = False) -> list[Mention]:
    """"h/o colon ca 2010, NED", "L breast IDC stage I (2016) s/p lumpectomy, WBI, tamoxifen x5 yrs
    (completed 2021)": a cancer dated years before the note, in a sentence that says its care is over
    (all the sentence's care historical) or that no disease remains, is history, not a current cancer
    (oncology annotation guideline §4: "a cancer that was treated with no current disease"), so no
    guideline applies to it by this mention. Disease or care going on in the sentence (a present
    recurrence or metastasis, care given now or planned) keeps it current. Flagged ``past-cancer``
    (a cancer named "s/p" its surgery is historical too, but may be the current one). Pure. O(mentions)."""
    if note_day is None or not any(m.kind == "Cancer" and m.assertion == "present" for m in row):
        return row
    day = when.as_day(note_day)
    care = [m for m in row if m.kind in when.KINDS and m.assertion not in ("negated", "family", "possible")]
    active = any(m.assertion != "historical" or m.detail.get("status") in ("ongoing", "started") for m in care) or any(
        m.kind in ("Problem", "Cancer") and m.assertion == "present" and
        (m.detail.get("metastasis") or _ACTIVE.search(m.text) or is_progression(_keys(m.concepts)))
        for m in row)
    over = bool(_NO_DISEASE.search(text)) or bool(care)
    if active or not over:
        return row
    out = []
    for m in row:
        d = when.dated(text, m.end, note_day, day_first) if m.kind == "Cancer" and m.assertion == "present" else None
        if d is not None and (day - d).days >= REMOTE_DAYS:
            m = replace(m, assertion="historical", cue=f"dated {d.year}, treated, no current disease",
                        flags=m.flags + (PAST_CANCER,))
        out.append(m)
    return out


def _keys(concepts: tuple[Concept, ...]) -> tuple[str, ...]:
    return tuple(f"{c.system}|{c.code}" for c in concepts)


_NEOPLASM = "HPO|HP:0002664"
# "tumour bed", "a malignancy": a neoplasm named with no type and no site is no particular cancer
_ANY_NEOPLASM = frozenset({_NEOPLASM, "DOID|DOID:162"})


def appositions(text: str, row: list[Mention]) -> list[Mention]:
    """A parenthesis right after care spells it out ("Chemo-IO (nivolumab + platinum doublet) not favored",
    "Molecular testing (EGFR, ALK) was not sent"): the care inside shares what is said of the care before
    it, and a test whose markers inside are all "not tested" was not done. Past the care's target ("discuss
    radiotherapy to the chest wall and SCF (40 Gy in 15 fractions)") only the same care is spelled out. Pure.
    O(mentions²) per sentence."""
    out = list(row)
    for h, head in enumerate(row):
        start = _apposition_start(text, head, row)
        if start is None:
            continue
        close = text.find(")", start)
        inner = [k for k, m in enumerate(row) if start < m.start and (close < 0 or m.start < close)]
        # "SLNB/TAD (targeted axillary dissection)": one more abbreviation before the parenthesis is still the
        # same list of care
        if start > head.end + 3 and not _ABBREVIATION_GAP.fullmatch(text[head.end:start]):
            inner = [k for k in inner if row[k].concepts[:1] and row[k].concepts[:1] == head.concepts[:1]]
        markers = [row[k] for k in inner if row[k].kind == "Biomarker"]
        if head.kind == "Test" and head.assertion == "present" and markers and all(
                v.endswith("=not-tested") for m in markers for v in m.values):
            out[h] = replace(head, assertion="negated", cue="markers not tested")
        elif head.assertion in ("negated", "possible", "planned"):
            for k in inner:
                # "If ISH is amplified I would recommend neoadjuvant TCHP (docetaxel, carboplatin, ...)": the
                # components are as conditional as their regimen, whatever plan word reached them too
                if row[k].kind in CARE and (row[k].assertion == "present" or row[k].assertion == "planned"
                                            and head.assertion in ("negated", "possible")):
                    out[k] = replace(row[k], assertion=head.assertion, cue=head.cue)
    return out


_ABBREVIATION_GAP = re.compile(r"\s*[/+,&]\s*[A-Z][A-Za-z0-9]{1,6}\s*")
_TARGET_GAP = re.compile(r"[^().;:\n]{0,60}?\s*\(")  # "to the right chest wall and SCF (": no clause break


def _apposition_start(text: str, head: Mention, row: list[Mention]) -> int | None:
    """Where the parenthesis that spells out ``head`` opens: right after it, or past words naming its target
    with no other mention and no clause break between. O(row)."""
    if head.kind not in CARE:
        return None
    gap = _TARGET_GAP.match(text.replace("\n", " "), head.end)
    if gap is None:
        return None
    start = gap.end() - 1
    if any(head.end <= m.start < start for m in row):
        return None
    return start


_AFTER_WORD = re.compile(r"\s*(?:after|following|post)\s+(?:(?:completion|the\s+end)\s+of\s+)?(?:the\s+|her\s+|his\s+)?$", re.I)


def after_unfinished(text: str, row: list[Mention]) -> list[Mention]:
    """Care stated with no cue of its own but placed after care still to come or only possible ("whole breast
    + nodal RT after chemo (if given)", "RT after the planned chemotherapy") is to come too. Pure. O(row)."""
    out = list(row)
    for i, m in enumerate(row):
        if m.kind not in CARE or m.assertion != "present" or m.cue or i + 1 >= len(row):
            continue
        nxt = row[i + 1]
        if nxt.kind in CARE and nxt.assertion in ("planned", "possible") and _AFTER_WORD.fullmatch(text[m.end:nxt.start]):
            out[i] = replace(m, assertion="planned", cue=f"after {nxt.text} ({nxt.assertion})")
    return out


def _label_restated(text: str, m: Mention, row: list[Mention]) -> bool:
    """A statement's label ("Colonoscopy: ...") whose concept the statement names again: the label is its
    topic, the later mention carries what is said of it (done, not done, planned). O(row)."""
    if not m.concepts or not _opens_label(text, m.start, m.end):
        return False
    code = (m.concepts[0].system, m.concepts[0].code)
    return any(o is not m and o.start > m.end and o.concepts and (o.concepts[0].system, o.concepts[0].code) == code
               for o in row)


def _bare_neoplasm(m: Mention) -> bool:
    """A neoplasm word alone ("tumor", "tumours"): no type, no site, no finding of its own."""
    return bool(m.concepts) and f"{m.concepts[0].system}|{m.concepts[0].code}" == _NEOPLASM and \
        len(m.text.split()) == 1 and not m.detail.get("site")


def for_cancer(row: list[Mention]) -> list[Mention]:
    """"PMH: testicular seminoma 2008 -> orchiectomy + carboplatin": care in a sentence that names one
    own cancer (and no other) is care for that cancer's site group (``detail.for_cancer``: breast | lung |
    colorectal | other), so a guideline for another cancer does not count it. Pure. O(mentions)."""
    groups = set()
    for m in row:
        if m.kind not in ("Cancer", "Problem") or m.assertion not in ("present", "historical"):
            continue
        keys = [f"{c.system}|{c.code}" for c in m.concepts]
        if keys and keys[0] in _ANY_NEOPLASM and not m.detail.get("site"):
            continue
        keys += [f"{a.system}|{a.code}" for c in m.concepts[:3] for a in ancestors(c.system, c.code)]
        if m.kind == "Problem" and _NEOPLASM not in keys:
            continue  # a neoplasm the phenotype ontology names ("testicular seminoma") counts, other problems not
        group = site_group(m.detail.get("site") or site_of(tuple(keys), (), m.text))
        groups.add(group or ("other" if m.concepts else None))
    if len(groups) != 1 or None in groups:
        return row
    group = groups.pop()
    return [replace(m, detail={**m.detail, "for_cancer": group}) if m.kind in when.KINDS else m for m in row]


_ICD_NEOPLASM = re.compile(r"ICD-10-CM\|(?:C|D[0-4])")  # ICD-10-CM chapter II, neoplasms (C00-D49)


def _names_neoplasm(keys: list[str]) -> bool:
    """Does any of these "SYSTEM|code" keys name a neoplasm (DO/NCIt/SNOMED neoplasm roots or ICD-10-CM C00-D49)?"""
    return any(k in _ANY_NEOPLASM or _ICD_NEOPLASM.match(k) for k in keys)

#: "rheumatoid arthritis on methotrexate", "hypothyroidism (levothyroxine 88 mcg)", "RA: methotrexate"
_CONDITION_THEN_DRUG = re.compile(r"\s*(?:[(:]|[-–]|,?\s*(?:on|treated\s+with|managed\s+with|controlled\s+(?:on|with)|"
                                  r"maintained\s+on|taking|takes|requiring))\s*", re.I)
#: "methotrexate 15 mg weekly for RA", "(for RA)"
_DRUG_THEN_CONDITION = re.compile(r"\s*\(?\s*for\s+(?:(?:his|her|their|the|known)\s+)?", re.I)
#: more drugs for the same condition: "on methotrexate + folic acid", "metformin and sitagliptin"
_DRUG_AND_DRUG = re.compile(r"\s*(?:\+|,|/|&|and|plus|with)\s*", re.I)


def for_condition(text: str, row: list[Mention]) -> list[Mention]:
    """"PMH: rheumatoid arthritis on methotrexate 15mg weekly + folic acid": a drug written as the treatment
    of a condition that is no neoplasm is care for that condition (``detail.indication``: the condition's
    code), so a guideline step whose drug class it shares (methotrexate is a folic acid analogue, as
    pemetrexed) does not count it. Only medications: "colectomy for obstruction" may be the cancer's own
    surgery. Pure. O(mentions) per sentence."""
    out = list(row)
    for i, m in enumerate(row):
        if m.kind != "Problem" or m.assertion not in ("present", "historical") or not m.concepts:
            continue
        keys = [f"{c.system}|{c.code}" for c in m.concepts]
        keys += [f"{a.system}|{a.code}" for c in m.concepts[:3] for a in ancestors(c.system, c.code)]
        if m.detail.get("metastasis") or _names_neoplasm(keys):
            continue  # "bone mets on denosumab" is the cancer's care
        drugs = []
        nxt = row[i + 1] if i + 1 < len(row) else None
        prev = row[i - 1] if i else None
        if nxt is not None and nxt.kind == "Medication" and _CONDITION_THEN_DRUG.fullmatch(text, m.end, nxt.start):
            drugs.append(i + 1)
            k = i + 2
            while k < len(row) and row[k].kind == "Medication" and _DRUG_AND_DRUG.fullmatch(text, row[k - 1].end, row[k].start):
                drugs.append(k)
                k += 1
        elif prev is not None and prev.kind == "Medication" and _DRUG_THEN_CONDITION.fullmatch(text, prev.end, m.start):
            drugs.append(i - 1)
        for k in drugs:
            out[k] = replace(out[k], detail={**out[k].detail, "indication": keys[0]})
    return out


_JOINED = re.compile(r"[^;.\n]{0,30}?(?:\+|\band\b|\bplus\b|\bwith\b|/)\s*", re.I)


def joined_drugs(text: str, row: list[Mention]) -> list[Mention]:
    """"Continue ribociclib 400 mg d1-21 q28d + letrozole": a drug joined by "+" / "and" / "with" to a drug
    taken now, with no cue of its own, is taken now too (a long dosing schedule puts it beyond the cue's
    reach, and a plan section would make it planned). Pure. O(mentions)."""
    out = list(row)
    for i in range(1, len(row)):
        prev, m = out[i - 1], row[i]
        if m.kind == "Medication" and prev.kind == "Medication" and m.cue is None and m.assertion != "present" \
                and prev.assertion == "present" and prev.detail.get("status") == "ongoing" \
                and _JOINED.fullmatch(text, prev.end, m.start):
            out[i] = replace(m, assertion="present", cue=f"with {prev.text}",
                             detail={**m.detail, "status": "ongoing"})
    return out


_SLASH = re.compile(r"[ \t]*/[ \t]*")
#: "if TPS <50%: carboplatin + pemetrexed + pembrolizumab": a regimen written with "+" is one choice too; a
#: member with no cue of its own beyond the hedge's reach takes it (forward only)
_PLUS = re.compile(r"[ \t]*\+[ \t]*")


def one_regimen(text: str, row: list[Mention]) -> list[Mention]:
    """"if no driver -> carboplatin/pemetrexed/pembrolizumab": drugs (or treatments: "CRT/TNT + TME if
    incomplete response") written a/b/c (or a + b + c, forward, uncued) are one regimen or one choice, one
    statement; a member beyond its hedge's or denial's reach takes its neighbour's, the first member's
    forward and, for a hedge written after the list, the last member's back. Pure. O(mentions)."""
    out = list(row)

    def shares(a: Mention, b: Mention) -> bool:
        """b takes a's hedge or denial: a drug whatever its own cue, another treatment only with none."""
        return a.kind == b.kind and a.kind in ("Medication", "Procedure") and a.assertion in ("possible", "negated") \
            and b.assertion in ("planned", "present") and (b.cue is None or a.kind == "Medication")
    for i in range(1, len(out)):
        prev, m = out[i - 1], out[i]
        if shares(prev, m) and (_SLASH.fullmatch(text, prev.end, m.start)
                                or m.cue is None and _PLUS.fullmatch(text, prev.end, m.start)):
            out[i] = replace(m, assertion=prev.assertion, cue=prev.cue)
    for i in range(len(out) - 1, 0, -1):
        prev, m = out[i - 1], out[i]
        if shares(m, prev) and prev.cue is None and prev.assertion == "present" \
                and _SLASH.fullmatch(text, prev.end, m.start):
            out[i - 1] = replace(prev, assertion=m.assertion, cue=m.cue)
    return out


def same_course(row: list[Mention]) -> list[Mention]:
    """"Neoadjuvant cis/pem/pembro x4 given 2/22/24-4/26/24 (C3 cis -> carbo)": care named without a cue
    or a date of its own after the course's end, in a sentence that dates a course as over, belongs to that
    course (historical, with its end). Pure. O(mentions)."""
    ends = [m.detail["end"] for m in row if m.kind in when.KINDS and m.assertion == "historical" and m.detail.get("end")]
    if not ends:
        return row
    end = max(ends)
    return [replace(m, assertion="historical", cue=f"dated {end} (same course)", detail={**m.detail, "end": end})
            if m.kind in when.KINDS and m.assertion == "present" and m.cue is None
            and _began_in_course(m.detail.get("start"), end) and not m.detail.get("status") else m for m in row]


def _began_in_course(start: str | None, end: str) -> bool:
    """No start of its own, or a day before the course's end ("paclitaxel x12 wk + trastuzumab from 10/22/24;
    ... completed 10/14/25", "60Gy/30#, started 16/12/24"); a month alone ("since 2021-10") is how a long
    treatment that goes on is dated, and stays its own."""
    return start is None or len(start) == 10 and start <= end


# a coded cancer's site from its display names: whole words ("colorectal" holds "rect"), the guideline sites
# first, then any other organ of the site vocabulary
_SITE_WORDS = [(site, re.compile("|".join(rf"\b{w}" for w in oncology.SITE_NAMES[site])))
               for site in dict.fromkeys(("colorectal", "breast", "lung", "rectum", "colon", *oncology.SITE_NAMES))]


def _site_of_concepts(concepts: tuple[Concept, ...]) -> str | None:
    names = " ".join(c.display.lower() for c in concepts)
    return next((site for site, rx in _SITE_WORDS if rx.search(names)), None)


def _procedure_site(concepts: tuple[Concept, ...]) -> str | None:
    """The one organ an operation's codes name ("Anterior resection of rectum"), else None: none, or
    several (a word that names an operation on more than one organ, as "segmentectomy")."""
    sites = {_site_of_concepts((c,)) for c in concepts} - {None}
    return sites.pop() if len(sites) == 1 else None


__all__ = ["Mention", "NlpConfig", "build_pipeline", "extract_mentions", "resolve_note", "find_mentions",
           "Match"]
