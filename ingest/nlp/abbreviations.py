"""Unknown abbreviations: acronyms a clinician wrote that no vocabulary here knows.

They are kept as text (the sentence is stored) and flagged on their note, never guessed at: a wrong
expansion of "PCP" or "CKD3b" is worse than none. An acronym counts as known when the terminology has
it (any kind), when a mention already covers it, or when it is documentation shorthand that names no
clinical fact (section headers, units, dosing times, roman numerals, titles).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from graphkit.clinical.values import MARKERS
from ingest.link.lexicon import Lexicon, norm_token

# 2-6 capitals, optionally with digits after the first two letters ("CKD3", "DM2"); not inside a word.
_ACRONYM = re.compile(r"(?<![A-Za-z0-9/-])([A-Z]{2,6}[0-9]{0,2}[a-z]?)(?![A-Za-z0-9-])")

# Shorthand of the document itself: headers, dosing, units, roles, time, laterality, roman numerals.
DOCUMENT_SHORTHAND = frozenset("""
HPI ROS PE PMH PSH PMHX FH FHX SH SHX CC ID AP HEENT CV RESP ABD EXT NEURO PSYCH SKIN MSK GU GI LABS VS
PLAN ASSESSMENT IMPRESSION HISTORY EXAM NOTE DATE TIME SUBJECTIVE OBJECTIVE
BID TID QID QD QHS QAM QPM PRN PO IV IM SC SQ SL PR NPO QOD QW QWK AC PC HS STAT
MG MCG ML CC KG CM MM GY CGY MIU IU MEQ MMOL DL NG HR MIN SEC HRS WK WKS MO MOS YR YRS YO
MD DO RN NP PA PT OT SLP CNA MA DR MR MRS MS RD PHD MBBS FACS FACP
AM PM ET EST UTC
II III IV VI VII VIII IX XI XII
OK NA NAD WNL NKDA NKA RRR CTA CTAB NT ND BS NL WDWN AAO AOX AO PERRL PERRLA EOMI
US USA UK EU FDA CMS HIPAA EHR EMR ICD CPT SNOMED LOINC RXNORM NCI NCCN ASCO ESMO AJCC TNM WHO ECOG KPS
RTC FU FUP CALL ASAP ED ER ICU OR PACU ICU CCU NICU SNF LTAC ALF PCP
L R LT RT BIL BILAT LLE RLE LUE RUE LLQ RLQ LUQ RUQ
""".split())


def unknown_abbreviations(text: str, covered: Iterable[tuple[int, int]], lexicon: Lexicon) -> list[str]:
    """Acronyms of one sentence outside every mention span that neither the terminology nor the
    documentation shorthand knows, in order, without repeats. O(len(text))."""
    spans = list(covered)
    out: list[str] = []
    for m in _ACRONYM.finditer(text):
        tok = m.group(1)
        if any(a < m.end() and m.start() < b for a, b in spans) or tok in out:
            continue
        base = tok.rstrip("0123456789abcdefghijklmnopqrstuvwxyz") or tok
        if tok.upper() in DOCUMENT_SHORTHAND or base.upper() in DOCUMENT_SHORTHAND:
            continue
        if base.upper() in MARKERS or tok.upper() in MARKERS or (len(tok) >= 4 and _english(tok)):
            continue  # a gene named outside a result statement; a word written in capitals
        if (tok,) in lexicon.exact or (norm_token(tok),) in lexicon.terms or lexicon.kind_of(tok):
            continue
        if text.isupper():  # a line in capitals is a header or shouting, not a list of acronyms
            continue
        out.append(tok)
    return out


def _english(tok: str) -> bool:
    from wordfreq import zipf_frequency

    return zipf_frequency(tok.lower(), "en") >= 3.5
