"""Section detection: Markdown headers, ``Header:`` lines and ALL-CAPS headers, mapped to canonical
section names; text before the first header is "Unlabeled"."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from dataclasses import dataclass

from graphkit.clinical.values import names_marker
from ingest.text.languages import english_header

# a Markdown header is a title alone on its line; "# Hypercalcemia: presented with confusion." is a
# problem-oriented hospital course entry, not a header
_MD = re.compile(r"^#{1,6}[ \t]*(?P<name>[^\n:.;]{2,80}?)[ \t]*:?[ \t]*$", re.M)
_CAPS_LINE = re.compile(r"^(?P<name>[A-Z][A-Z /&()\-]{2,60})[ \t]*$", re.M)  # "FAMILY HISTORY" alone on a line
# "Summary of treatment\n- NACT EC x4 ...": a known header alone on its line over a bulleted list
_TITLE_OVER_LIST = re.compile(r"^(?P<name>[A-Z][A-Za-z /&()\-]{2,50}?)[ \t]*$(?=\n[ \t]*(?:[-•*]|\d{1,2}[.)])[ \t])", re.M)
# "A/P 61F stage IA ...": the assessment-and-plan abbreviation opens its section without a colon
_AP_INLINE = re.compile(r"^(?P<name>A/P|A&P|Assessment/Plan|Impression/Plan)[ \t]+(?=\S)", re.M)
# "Plan, as agreed at MDT: right WLE ...": a known header with a remark after a comma
_COMMA_REMARK = re.compile(r"^(?P<name>[^\W\d_]+(?:[ /&-][^\W\d_]+){0,3}),[ \t]+[^:\n]{1,50}:[ \t]*(?=\S|$)", re.M)
# "Decisión:" too; "Plan (with pt + daughter):" (a bracketed remark on who was there; "Biomarkers
# (FoundationOne CDx, rib bx):", "Imaging today (bilat mammo + targeted US):" stay lines of results)
_COLON = re.compile(r"^(?P<name>[^\W\d_](?:[^\W\d_]|[ /&()\-]|\((?:with|w/|d/w|discussed\s+with|seen\s+with)\s[^()\n:]{0,40}\)){1,50}):"
                    r"[ \t]*(?=\S|$)", re.M)
# "Colonoscopy (05/02/24): ...", "Histology (09/02/24): ...": a result labelled with its day (ends a history list)
_DATED_LABEL = re.compile(r"^(?P<name>[^\W\d_]+(?:[ /&\-][^\W\d_]+){0,4})[ \t]*\([^()\d\n]{0,20}\d[^()\n]{0,20}\):[ \t]*(?=\S|$)", re.M)

#: headers of what came before this visit
_HISTORY_HEADERS = (
    "background", "oncology history", "oncologic history", "oncological history", "cancer history",
    "treatment history", "past oncologic history", "past oncological history", "prior treatment",
    "prior treatments", "previous treatment", "previous treatments", "treatment so far", "treatment to date",
    "treatments to date", "therapy to date", "prior therapy", "prior therapies", "previous therapy",
    "previous therapies", "prior systemic therapy", "prior lines", "prior lines of therapy",
    "previous lines of therapy", "prior tx", "previous tx",
    # "Summary of treatment\n- NACT EC x4 -> wkly paclitaxel x12 ...": a follow-up letter's recap
    "summary of treatment", "summary of treatments", "treatment summary", "cancer treatment summary",
    "oncology summary", "oncological summary", "oncologic summary",
)
#: headers of a pathology report's specimens and gross description
_SPECIMEN_HEADERS = (
    "specimen", "specimens", "specimen(s)", "specimens submitted", "specimen submitted", "specimen received",
    "specimens received", "macroscopy", "macroscopic description", "gross description",
)

CANONICAL = {
    "chief complaint": "Chief Complaint", "cc": "Chief Complaint", "reason for visit": "Chief Complaint",
    "history of present illness": "History of Present Illness", "hpi": "History of Present Illness",
    "history": "History of Present Illness", "subjective": "History of Present Illness",
    "past medical history": "Past Medical History", "pmh": "Past Medical History",
    "past surgical history": "Past Surgical History", "psh": "Past Surgical History",
    "family history": "Family History", "fh": "Family History", "social history": "Social History",
    "sh": "Social History", "medications": "Medications", "current medications": "Medications",
    "medications on admission": "Medications", "discharge medications": "Discharge Medications",
    "discharge meds": "Discharge Medications", "meds on discharge": "Discharge Medications",
    "medications on discharge": "Discharge Medications", "d/c meds": "Discharge Medications",
    "allergies": "Allergies", "review of systems": "Review of Systems", "ros": "Review of Systems",
    "physical exam": "Physical Exam", "physical examination": "Physical Exam", "exam": "Physical Exam",
    # "PE: ECOG 0, chest clear" is the examination, not a pulmonary embolism; "O/E:" British
    "pe": "Physical Exam", "p/e": "Physical Exam", "o/e": "Physical Exam", "on examination": "Physical Exam",
    "examination": "Physical Exam",
    "vital signs": "Vital Signs", "vitals": "Vital Signs", "results": "Results", "labs": "Results",
    "pertinent results": "Results", "imaging": "Imaging", "findings": "Findings", "impression": "Impression",
    "assessment": "Assessment and Plan", "plan": "Plan", "recommendation": "Plan", "recommendations": "Plan",
    "recommend": "Plan", "plan of care": "Plan", "treatment plan": "Plan", "assessment and plan": "Assessment and Plan",
    "assessment & plan": "Assessment and Plan", "a/p": "Assessment and Plan", "hospital course": "Hospital Course",
    "brief hospital course": "Hospital Course", "procedures": "Procedures", "major surgical or invasive procedure":
    "Procedures", "discharge diagnosis": "Discharge Diagnosis", "discharge instructions": "Discharge Instructions",
    "diagnosis": "Diagnosis", "pathology": "Pathology", "assessment and plan:": "Assessment and Plan",
    "medical history": "Past Medical History", "surgical history": "Past Surgical History",
    "vitals reviewed": "Vital Signs", "results reviewed": "Results", "biomarkers": "Biomarkers",
    "instructions": "Instructions", "fhx": "Family History", "family hx": "Family History",
    "family h/o": "Family History", "fam h/o": "Family History", "f/h": "Family History", "family hist": "Family History",
    "fam hx": "Family History", "shx": "Social History", "social hx": "Social History",
    "pmhx": "Past Medical History", "pshx": "Past Surgical History", "meds": "Medications",
    "assessment/plan": "Assessment and Plan", "a&p": "Assessment and Plan", "impression/plan": "Assessment and Plan",
    "consensus": "Plan", "tumor board recommendation": "Plan", "tumor board recommendations": "Plan",
    "discussion": "Discussion", "options": "Options", "treatment options": "Options", "alternatives": "Options",
    "options discussed": "Options", "options reviewed": "Options", "management options": "Options",
    "rec": "Plan", "recs": "Plan",
    "ddx": "Differential Diagnosis", "d/dx": "Differential Diagnosis", "differential": "Differential Diagnosis",
    "differential diagnosis": "Differential Diagnosis", "differential diagnoses": "Differential Diagnosis",
    "differentials": "Differential Diagnosis", "dd": "Differential Diagnosis",
    # "Advice: CECT thorax ...", "Adv: concurrent chemoradiotherapy": the plan, in British and Indian usage
    "advice": "Plan", "adv": "Plan", "advised": "Plan", "advise": "Plan", "next steps": "Plan", "discharge plan": "Plan",
    # a tumour board's "Outcome:" is its decision, care still to come
    "outcome": "Plan", "mdt outcome": "Plan", "tumor board outcome": "Plan", "tumour board outcome": "Plan",
    # a European MDT's "Proposition:" / "Proposal:": what the board proposes
    "proposition": "Plan", "proposal": "Plan", "proposed plan": "Plan", "suggested plan": "Plan",
    "decision": "Plan", "mdt decision": "Plan", "agreed plan": "Plan", "discussion points": "Plan",
    # a meeting's "Actions:" / "Action points:" list what each member is to do next
    "actions": "Plan", "action": "Plan", "action points": "Plan", "action plan": "Plan", "actions agreed": "Plan",
    "to do": "Plan", "todo": "Plan",
    # "Requested:" over a list of tests: every line of it is still to be done
    "requested": "Plan", "ordered": "Plan", "orders": "Plan", "investigations requested": "Plan",
    "investigations ordered": "Plan", "tests requested": "Plan", "tests ordered": "Plan",
    # a Dutch or Flemish note's "Beleid:", written "Policy:" in English: what will be done
    "policy": "Plan", "beleid": "Plan",
    # a report's "COMPARISON: CT C/A/P 04/01/2025" names the earlier studies read beside this one
    "comparison": "Comparison", "comparisons": "Comparison", "prior studies": "Comparison",
    "comparison studies": "Comparison",
    # "Follow-up: CT TAP at 12 months": the arrangements still to come
    "follow-up": "Plan", "follow up": "Plan", "followup": "Plan", "f/u": "Plan", "follow-up plan": "Plan",
    "f/u plan": "Plan",
    # an infusion record's "Administered:" lists what was given at this visit, not a plan
    **dict.fromkeys(("administered", "given", "treatment given", "treatment administered", "drugs administered",
                     "medications administered", "medications given", "chemotherapy administered",
                     "chemotherapy given", "chemo given", "chemo administered", "treatment today",
                     "today's treatment"), "Treatment Given"),
    # a letter's "Background:", an oncology history and the treatment so far list what came before this visit
    **dict.fromkeys(_HISTORY_HEADERS, "Past Medical History"),
    # a pathology report's specimen list and gross description name the operation that yielded the tissue
    **dict.fromkeys(_SPECIMEN_HEADERS, "Specimen"),
}
UNLABELED = "Unlabeled"
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
_LIST_SECTIONS = {"Family History", "Social History", "Past Medical History", "Past Surgical History", "Allergies"}
_RELATIVES = {"mother", "father", "mom", "mum", "dad", "sister", "brother", "sibling", "siblings", "aunt", "uncle",
              "daughter", "son", "grandmother", "grandfather", "cousin", "niece", "nephew", "maternal", "paternal",
              "parents", "children", "twin"}


@dataclass(frozen=True)
class Section:
    idx: int
    name: str  # canonical when known, else the header as written
    header: str | None
    start: int  # body span in the normalized text
    end: int


@lru_cache(maxsize=1 << 14)
def canonical_name(header: str) -> str | None:
    """The canonical section of a header, also when a remark follows it ("Recommendation - either
    acceptable:", "Plan (discussed with pt):", "Options d/w pt at length:"), or written in another
    language ("Antecedentes familiares:", "Procedere:", read through the glossary). Remembered: a note's
    labels repeat across notes."""
    found = _english_name(header)
    if found is None and (english := english_header(header.strip().strip(":"))):
        found = _english_name(english)
    if found is None and (words := header.strip().strip(":").split()) and 1 < len(words) <= 4 \
            and len(words[0]) >= 5 and (english_header(words[0]) or words[0]).lower() in _DECISIONS:
        # "Decisão da RMD", "Decyzja zespołu", "Decision of MDT": a board's decision named by its first word
        # (a word long enough to tell: "Rad onc consulted" is no Norwegian "råd")
        return "Plan"
    return found


_DECISIONS = frozenset({"decision", "decisions", "recommendation", "recommendations", "proposal", "proposition"})


def _english_name(header: str) -> str | None:
    key = re.sub(r"\s+", " ", _plain_letters(header.strip().strip(":").lower()))
    tight = re.sub(r"\s*/\s*", "/", key)  # "Assessment / Plan", "A / P"
    found = CANONICAL.get(key) or CANONICAL.get(tight) or CANONICAL.get(_REMARK.split(key, maxsplit=1)[0].strip())
    if found is None and (parts := {CANONICAL.get(p.strip()) for p in _JOINED.split(tight)} - {None}) \
            and parts & {"Plan", "Assessment and Plan"}:
        # "Follow-up / plan", "Discussion and plan": a header of two parts, one of them a plan, opens a plan
        return "Plan" if parts == {"Plan"} else "Assessment and Plan"
    if found is None and (m := _MEDICATION_LIST.match(key)):
        # "Medication at discharge", "Meds upon admission", "Home medications": a list of what is taken
        return "Discharge Medications" if "discharge" in (m.group("when") or m.group("before") or "") else "Medications"
    return found


_MEDICATION_LIST = re.compile(r"^(?:(?P<before>discharge|admission|home|current|regular|usual)\s+)?(?:medications?|meds|"
                              r"drugs)(?:\s+(?:at|on|upon)\s+(?P<when>discharge|admission))?$")


def _plain_letters(text: str) -> str:
    """"decisión" → "decision": a header written with accents names the same section."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


_JOINED = re.compile(r"/|\s+(?:and|&)\s+")
_REMARK = re.compile(r"\s+(?:[-–(]|(?:d/w|discussed|reviewed|per|with|today|at\s+length)\b)")


_ENTRY = re.compile(r",|\s[-–]\s")  # what a title never holds: a list of findings, a remark after a dash


def _headers(text: str) -> list[tuple[int, int, str]]:
    """(header start, body start, name) for each detected header, in order."""
    found = []
    for m in _MD.finditer(text):
        name = m.group("name")
        # "# mCRC, KRAS G12D, MSS - responding on 2L FOLFIRI/bev": a problem-list entry, not a title
        if canonical_name(name) or not (_ENTRY.search(name) or len(name.split()) > 6):
            found.append((m.start(), m.end(), name))
    labels = []
    for m in _COLON.finditer(text):
        name = m.group("name")
        # "Name:" lines count as headers only when the name is known or written as a header (caps); a
        # two-letter one only when known ("SH:", "FH:", "CC:"; not "CT: no mass")
        if names_marker(name) or len(name.strip()) < 3 and not canonical_name(name):
            continue  # "KRAS: c.35G>T ... DETECTED", "ER: 90%": a result line, not a header
        if canonical_name(name) or name.isupper():
            found.append((m.start(), m.end(), name))
        elif name.split()[0].lower() not in _RELATIVES:
            labels.append((m.start(), m.end(), name))
    # (the dated label stays in the text that follows: "Colonoscopy (05/02/24)" is itself a finding)
    dated = [m for m in _DATED_LABEL.finditer(text) if m.group("name").split()[0].lower() not in _RELATIVES]
    labels += [(m.start(), m.start(), "") for m in dated]
    # "MDT decision (05/06/2025): WLE + SLNB": a decision dated by its meeting opens a plan all the same
    found += [(m.start(), m.end(), m.group("name")) for m in dated if canonical_name(m.group("name")) == "Plan"]
    # a short history list ("FHx: ...") ends at the next "Label:" line ("Stage: cT2 cN0"): what follows
    # is not a relative's history
    for start, body, name in labels:
        before = [f for f in found if f[0] < start]
        if any(f[0] == start for f in found):
            continue  # "Assessment (RN):" is a header already
        if before and canonical_name(max(before)[2]) in _LIST_SECTIONS:
            found.append((start, body, name))
    for m in _AP_INLINE.finditer(text):
        found.append((m.start(), m.end(), m.group("name")))
    for m in _COMMA_REMARK.finditer(text):
        if canonical_name(m.group("name")):
            found.append((m.start(), m.end(), m.group("name")))
    for m in _TITLE_OVER_LIST.finditer(text):
        if canonical_name(m.group("name")):
            found.append((m.start(), m.end(), m.group("name")))
    for m in _CAPS_LINE.finditer(text):
        name = m.group("name").strip()
        if canonical_name(name) or len(name.split()) >= 2:
            found.append((m.start(), m.end(), name))
    found.sort()
    out, last = [], -1
    for start, body, name in found:
        if start > last:
            out.append((start, body, name))
            last = body
    return out


# "Reviewed options in detail:" / "Options d/w pt:" then an enumerated list: each item is a choice
_OPTION_LEAD = re.compile(r"\b(?:options?|alternatives|choices)\b[^\n:]{0,80}:[ \t]*\n", re.I)
_ITEM = re.compile(r"[ \t]*(?P<e>\([a-z]\)|[a-z]\)|\(\d{1,2}\)|\d{1,2}[.)]|[-•*])[ \t]+", re.I)


def _item_style(enumerator: str) -> str:
    """The kind of an enumerator ("(a)", "1.", "-"): a list goes on while its items share one kind."""
    return re.sub(r"[a-z]", "a", re.sub(r"\d+", "1", enumerator.lower()))


def option_lists(text: str) -> list[tuple[int, int]]:
    """Spans of enumerated lists introduced by an options lead-in line: the items and their wrapped
    lines, up to the first line that is neither (a statement of what was chosen, a blank line, another
    kind of list). O(len(text))."""
    spans = []
    for lead in _OPTION_LEAD.finditer(text):
        pos = end = lead.end()
        style = indent = None
        prev = ""
        for line in text[pos:].split("\n"):
            item = _ITEM.match(line)
            depth = len(line) - len(line.lstrip())
            if item and (style is None or _item_style(item.group("e")) == style):
                style, indent = _item_style(item.group("e")), depth
            elif not (indent is not None and line.strip() and (depth > indent or not prev.endswith((".", "!", "?")))):
                break  # an item's wrapped line is indented deeper, or follows a line that ends mid-sentence
            prev = line.rstrip()
            end = pos + len(line)
            pos = end + 1
        if style is not None:
            spans.append((lead.end(), end))
    return spans


def split_sections(text: str) -> list[Section]:
    """Sections of a (normalized) note, covering all its text; an options list inside a section is an
    "Options" section of its own, after which the enclosing section goes on. O(len(text))."""
    sections = _split(text)
    for a, b in option_lists(text):
        out = []
        for sec in sections:
            if sec.start <= a and b <= sec.end and sec.name != "Options":
                parts = [(sec.name, sec.header, sec.start, a), ("Options", None, a, b), (sec.name, None, b, sec.end)]
                out += [Section(0, n, h, x, y) for n, h, x, y in parts if text[x:y].strip()]
            else:
                out.append(sec)
        sections = [Section(i, s.name, s.header, s.start, s.end) for i, s in enumerate(out)]
    return sections


def _split(text: str) -> list[Section]:
    heads = _headers(text)
    sections: list[Section] = []
    first = heads[0][0] if heads else len(text)
    if text[:first].strip():
        sections.append(Section(0, UNLABELED, None, 0, first))
    for i, (start, body, raw) in enumerate(heads):
        end = heads[i + 1][0] if i + 1 < len(heads) else len(text)
        name = canonical_name(raw) or raw.strip().strip(":") or UNLABELED
        if sections and name == "Assessment and Plan" and sections[-1].name == name:
            # "## Plan" inside "# Assessment and Plan": one section
            prev = sections.pop()
            sections.append(Section(prev.idx, name, prev.header, prev.start, end))
            continue
        # a report's title ("MRI BREASTS BILATERAL W/WO CONTRAST") names what was done: it is read too
        title = canonical_name(raw) is None and raw.strip().strip(":").isupper() and not raw.rstrip().endswith(":")
        # "FHx: none relevant." then a blank line: a list written on its header's line ends at the paragraph
        # (the colonoscopy report after it is no relative's)
        # (so does a board's dated decision: "MDT outcome (24/04/2025): TNT ..." then the letter goes on)
        line_end = text.find("\n", body, end)
        dated_plan = name == "Plan" and _DATED_LABEL.match(text, start) is not None
        if (name in _LIST_SECTIONS or dated_plan) and text[body:line_end if line_end >= 0 else end].strip():
            gap = _PARAGRAPH_BREAK.search(text, body, end)
            if gap and text[gap.end():end].strip():
                sections.append(Section(len(sections), name, raw, body, gap.start()))
                sections.append(Section(len(sections), UNLABELED, None, gap.end(), end))
                continue
        sections.append(Section(len(sections), name, raw, start if title else body, end))
    return sections
