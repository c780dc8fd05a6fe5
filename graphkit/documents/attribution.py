"""Attribution check (PCoA): does a cited source sentence support the claim that cites it?

A citation is kept only when the claim and the sentence share a normalized clinical fact — a concept
of the terminology (or one of its is-a ancestors), a biomarker result, a stage, a number with its unit,
a date — that the sentence asserts the way the claim does (a treatment the sentence only plans does
not support a claim that it was given; a biomarker "unlikely" supports no result), AND their sentence
embeddings are close enough (cosine at least ``threshold``; any cosine above a floor when the shared
fact is a value), or when the embeddings alone are very close (``strong``). Thresholds are calibrated on a labelled set
(``bench/documents_eval.py``, dev half) and evaluated on the other half.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache

import numpy as np

from graphkit.clinical.values import STAGE_GROUP, find_biomarkers, find_stages, stated_stage_groups

DEFAULT_THRESHOLD = 0.15  # chosen on the labelled claims' dev half (bench/documents_eval.py)
DEFAULT_STRONG = 0.75
# a shared value (a marker's result, a stage, a dose, a date) needs only a non-negative cosine: on the used
# label sets 0.1 cost 1.6 points of recall for no precision (short claims embed far from long sentences)
SPECIFIC_FLOOR = 0.0
_NUMBER = re.compile(r"(?<![A-Za-z0-9.])(\d+(?:\.\d+)?)\s*(mg|mcg|g|ml|mmhg|%|gy|cm|mm|kg|lb|lbs|cycles?|fx|"
                     r"fractions?|weeks?|wks?|months?|mos?|years?|yrs?|days?)?(?![A-Za-z0-9])", re.I)
# the date a generated claim gives its fact ("from 2025-03-03", "first recorded on ...", "as of ...")
_CLAIM_DATE = re.compile(r"\b(?:from|on|as of)\s+(\d{4}-\d{2}-\d{2})\b")
DATE_SLACK_DAYS = 2  # days either side: an event dated by its admission or report, not a different event


@dataclass(frozen=True)
class Support:
    supported: bool
    cosine: float
    shared: tuple[str, ...]  # the facts both texts state


def _roll_up(system: str, code: str, ancestors) -> set[str]:
    """Disease ancestors (a lung adenocarcinoma is a lung cancer); never drug classes: two drugs of one
    class are different facts."""
    if system in ("ATC", "regimen", "RxNorm", "DrugBank", "MeSH"):
        return set()
    return {f"{a.system}|{a.code}" for a in ancestors(system, code)[:6]}


def claim_head(claim: str) -> str:
    """The claim's subject as written: what comes before its verb, parenthesis or first comma."""
    return re.split(r"\b(?:is|was|were|are)\b|\(|,", claim, maxsplit=1)[0]


def leading_fact(claim: str) -> frozenset[str]:
    """The facts of the claim's subject (its first mention): what a citation must state."""

    values = {f for f in facts_of(claim) if "=" in f or f.startswith("stage|")}
    head = claim_head(claim)
    if values and not head.lower().split()[0:1] == ["the"] and not re.search(r"recorded", claim):
        return frozenset(values)  # "HR is positive": the result is the subject (not "HR" heart rate)
    return facts_of(head) or facts_of(claim)


@lru_cache(maxsize=4096)
def facts_of(text: str) -> frozenset[str]:
    """Normalized facts a text states: concept codes (and their ancestors), biomarker values, stages,
    numbers with units, dates. O(len(text))."""
    from ingest.link.hierarchy import ancestors
    from ingest.link.lexicon import load_lexicon
    from ingest.nlp import when

    out: set[str] = set()
    for m in load_lexicon().find(text):
        for c in m.concepts[:3]:
            out.add(f"{c.system}|{c.code}")
            out.update(_roll_up(c.system, c.code, ancestors))
    # cancers named by histology and site ("Rectal adenoca", "SCLC") come from ingestion's own parser
    out.update(k for k in stated_facts(text) if "|" in k and not k.startswith(("stage|", "n|", "d|")))
    out.update(v for b in find_biomarkers(text) for v in b.values)
    out.update(f"stage|{s.value}" for s in find_stages(text) if s.value != "invalid")
    out.update(f"stage|{g}" for g in stated_stage_groups(text))
    out.update(f"n|{float(n):g}{(u or '').lower().rstrip('s')}" for n, u in _NUMBER.findall(text) if u)
    out.update(f"d|{d.isoformat()}" for d in when.days(text, when.day_first([text])))
    return frozenset(out)


@lru_cache(maxsize=4096)
def named_codes(text: str) -> frozenset[str]:
    """The concepts a text names itself, without their ancestors. O(len(text))."""
    from ingest.link.lexicon import load_lexicon

    out = {f"{c.system}|{c.code}" for m in load_lexicon().find(text) for c in m.concepts[:3]}
    out.update(f"{c.system}|{c.code}" for m in _mentions(text) for c in m.concepts[:3])
    return frozenset(out)


_PLANNED_CLAIM = re.compile(r"\bis planned\b|\bplanned\b", re.I)
_ABSENT_CLAIM = re.compile(r"\bis overdue\b|\bnot documented\b|\bis due\b|\bto be tested\b", re.I)
_GIVEN = {"present", "historical"}


def claim_polarity(claim: str) -> str:
    """What the claim says of its fact: given (it happened / is the result), planned, or absent."""
    if _ABSENT_CLAIM.search(claim):
        return "absent"
    return "planned" if _PLANNED_CLAIM.search(claim) else "given"


@lru_cache(maxsize=1)
def _nlp():
    from ingest.nlp import build_pipeline

    return build_pipeline()


@lru_cache(maxsize=8192)
def _mentions(text: str) -> tuple:
    """What ingestion's extraction finds in a text, read once per text (claims and sentences recur)."""
    from ingest.nlp import extract_mentions

    return tuple(extract_mentions(_nlp(), [" ".join(text.split())], [None])[0])


@lru_cache(maxsize=8192)
def stated_facts(sentence: str) -> dict[str, set[str]]:
    """fact -> the assertions the sentence makes of it ("letrozole" planned, "ER=positive" present),
    through the same extraction ingestion uses. O(len(sentence))."""
    return _statements((m.kind, m.values, tuple(f"{c.system}|{c.code}" for c in m.concepts[:3]), m.assertion, m.detail)
                       for m in _mentions(sentence))


def stored_facts(facts) -> dict[str, set[str]]:
    """:func:`stated_facts` from the facts ingestion stored for a sentence (``state.model.Fact``): read
    with the whole note (its date, section, earlier lines), so a plan line dated after the note is
    planned here too, as it is in the patient's state. O(facts)."""
    return _statements((f.kind, f.values, f.codes[:3], f.assertion, f.detail) for f in facts)


def _statements(rows) -> dict[str, set[str]]:
    """fact key -> assertions (and course statuses) from (kind, values, codes, assertion, detail) rows;
    a code stands with its disease ancestors. O(rows)."""
    from ingest.link.hierarchy import ancestors

    out: dict[str, set[str]] = {}
    for kind, values, codes, assertion, detail in rows:
        keys = set(values) | {f"stage|{v}" for v in values if kind == "Stage"} | set(codes)
        for c in codes:
            system, _, code = c.partition("|")
            keys.update(_roll_up(system, code, ancestors))
        status = (detail or {}).get("status")
        if not status and kind == "Procedure" and assertion == "present" and not (
                (detail or {}).get("fractions") or (detail or {}).get("dose_gy")):
            status = "completed"  # "Procedure: R breast wire-localized lumpectomy": an operation stated is done
        for k in keys:
            out.setdefault(k, set()).add(assertion)
            if status:
                out[k].add(f"status:{status}")
    return out


_CLAIM_STATUS = re.compile(r"\((completed|ongoing|started|stopped)\)")
_DONE_CUES = {"status:completed", "historical"}


def _compatible(polarity: str, assertions: set[str], status: str | None = None, fact: str = "") -> bool:
    if polarity == "absent" and fact.endswith(("=pending", "=not-tested")):
        # "MSI/MMR unknown" shows why "MSI is pending: to be tested" is said; so does a marker sent with its
        # result awaited, which ingestion stores as possible ("ER/PR/HER2 IHC requested - results next week")
        return bool(assertions & (_GIVEN | ({"possible"} if fact.endswith("=pending") else set())))
    if polarity == "given":
        if status == "completed":
            return bool(assertions & _DONE_CUES)
        if status in ("ongoing", "started", "stopped"):
            return f"status:{status}" in assertions or (status == "ongoing" and "status:started" in assertions)
        return bool(assertions & _GIVEN)
    if polarity == "planned":
        return bool(assertions & {"planned", "possible"})
    return bool(assertions & {"negated", "planned", "possible"}) or not assertions


def _specific(fact: str) -> bool:
    """A value, not just a topic: a biomarker result, a stage, a number with its unit, a date."""
    return "=" in fact or fact.startswith(("stage|", "n|", "d|"))


def supports(claim: str, source: str, cosine: float, threshold: float = DEFAULT_THRESHOLD,
             strong: float = DEFAULT_STRONG, floor: float = SPECIFIC_FLOOR, stated: dict[str, set[str]] | None = None) -> Support:
    """Supported when the texts share a specific value (and are not unrelated, cosine >= ``floor``), or
    share a concept and are close (cosine >= ``threshold``), or are very close (>= ``strong``).
    ``stated``: what the sentence asserts of each fact as ingestion stored it (:func:`stored_facts`);
    without it the bare sentence is read again (:func:`stated_facts`)."""
    polarity = claim_polarity(claim)
    status = _CLAIM_STATUS.search(claim)
    stated = stated if stated is not None else stated_facts(source)
    # the sentence says the opposite of the claim about its subject ("Adjuvant chemotherapy has NOT yet
    # been given" for "adjuvant chemotherapy (documented)"): no closeness of wording makes it support it
    contradicted = polarity == "given" and any(
        f in stated and not stated[f] & (_GIVEN | {"planned"}) and stated[f] & {"negated", "possible"}
        for f in leading_fact(claim))
    # what the sentence states: re-read, and as ingestion stored it with its note (a histology's site)
    shared = tuple(sorted(f for f in facts_of(claim) & (facts_of(source) | set(stated))
                          if f not in stated or _compatible(polarity, stated[f], status.group(1) if status else None, f)))
    if not set(shared) & leading_fact(claim):
        shared = ()  # the sentence states something else the claim mentions, not the claim's subject
    head = claim_head(claim)
    named = {f for f in named_codes(head) if f.startswith(("DOID|", "NCIT|"))}
    # as written, and as stored with its note ("adenocarcinoma" in a colon specimen's report is the colon's)
    said = {f for f in named_codes(source) | set(stated) if f.startswith(("DOID|", "NCIT|"))}
    if shared and named and said and not said & named and not named <= facts_of(source):
        # "R breast IDC" is not stated by "metastatic carcinoma c/w breast" (a broader name of it), nor
        # "Invasive carcinoma" by "Metastatic carcinoma" (another); "breast cancer" is by "IDC of the breast"
        shared = ()
    subject = facts_of(head) | {k for k in stated_facts(head) if "=" not in k and not k.startswith("stage|")}
    stages = {f for f in facts_of(claim) if f.startswith("stage|")}
    if shared and subject and stages and not (set(shared) & subject and set(shared) & stages):
        shared = ()  # "IDC was first recorded ..., stage IA": the sentence must name the cancer and its stage
    groups = {f for f in stages if STAGE_GROUP.match(f.partition("|")[2])}
    if shared and groups and not groups & (facts_of(source) | set(stated)):
        shared = ()  # "stage IIA (cT2N0)" needs the group said: a TNM alone is the reader's grouping (rule 2)
    basis = re.search(r"\b(pathological|clinical)\b", claim)
    if basis and shared and not re.search(r"(?<![A-Za-z])" + ("y?p" if basis.group(1) == "pathological" else "c")
                                          + r"[TN]\d|" + basis.group(1)[:9], source, re.I):
        shared = ()  # a pathological stage is not supported by a clinical one
    if shared and _only_as_time_point(head, source, set(named_codes(head))):
        shared = ()  # "skin healed after RT", "post-chemo": the care names a time, the sentence does not state it
    if _SPREAD.search(head) and not _says_spread(source):
        contradicted = True  # "Metastatic ILC" is not what "invasive lobular carcinoma, classic type" states (rule 2)
    # "tamoxifen (started) from 2025-05-31" is not what "Started tamoxifen on 26 May 2025" says, however close
    contradicted = contradicted or dated_otherwise(claim, source) or value_disagrees(claim, source)
    # the claim's subject named by its own codes ("ILC" for "Invasive lobular carcinoma, classic type"): as
    # specific as a value, however far apart the wording (an abbreviation the embedder does not know)
    specific = any(_specific(f) for f in shared) or bool(named and named <= set(shared))
    ok = not contradicted and (
        cosine >= strong or (specific and cosine >= floor) or (bool(shared) and cosine >= threshold))
    return Support(ok, round(float(cosine), 4), shared)


# a cancer claimed as spread needs a sentence that says it has spread
_SPREAD = re.compile(r"\b(?:metastatic|metastases|metastasis|recurrent)\b", re.I)
_SPREAD_SAID = re.compile(r"metasta|\bmets?\b|secondar|deposits?|recurr|relaps|spread|disseminat|oligo", re.I)


def _says_spread(source: str) -> bool:
    """Does the sentence say the cancer spread: in words, or by a stage IV or an M1 (read by the stage
    parser, the one owner of stage)? O(len(source))."""
    return bool(_SPREAD_SAID.search(source)) or any(
        f.value.startswith("IV") or (f.tnm is not None and (f.tnm.m or "").startswith("M1"))
        for f in find_stages(source))
_CLAIM_DETAIL = re.compile(r",\s*(percent|tps|cps|ihc|alteration)\s+([^,;]+)")


def value_disagrees(claim: str, source: str) -> bool:
    """Does the sentence give the claim's marker another value than the claim adds ("PD-L1 is low, tps
    1.0" against "PD-L1 40%"; labelling rule 2: an added value must agree where the sentence gives
    one)? O(len(source))."""
    wanted = {k: v.strip() for k, v in _CLAIM_DETAIL.findall(claim)}
    markers = {f.partition("=")[0] for f in leading_fact(claim) if "=" in f}
    if not wanted or not markers:
        return False
    for b in find_biomarkers(source):
        if not {v.partition("=")[0] for v in b.values} & markers:
            continue
        for key, said in b.detail.items():
            if key in wanted and not _same_value(str(said), wanted[key]):
                return True
    return False


def _same_value(a: str, b: str) -> bool:
    try:
        return abs(float(a) - float(b)) < 0.5
    except ValueError:
        return a.strip().lower() == b.strip().lower()


def dated_otherwise(claim: str, source: str) -> bool:
    """Does the sentence date the claim's event otherwise (labelling rule 4: a sentence giving a clearly
    different date for the event does not support the claim)? Only when the sentence writes dates and
    none falls on the claim's day (or holds it, for a month or year written): then an earlier date
    contradicts any claim, and a later one a claim of a point in time ("first recorded on", "as of",
    "(started) from"), not a course's "from" (a later date may be its end: "Completed RT 16 May" for
    "RT (completed) from 5 May"). A sentence with no date of its own says nothing against it.
    O(len(source))."""
    from ingest.nlp import when

    m = _CLAIM_DATE.search(claim)
    if not m:
        return False
    day = date.fromisoformat(m.group(1))
    source = _DOCUMENT_DATE.sub(lambda d: d.group(0)[:d.start(1) - d.start(0)] + " " * len(d.group(1)), source)
    slack = timedelta(days=DATE_SLACK_DAYS)
    order = when.date_order([source])
    readings = (order,) if order is not None else (False, True)  # a sentence alone may not say which comes first
    spans = [p for dmy in readings for p in when.periods(source, dmy)]
    if " as of " not in claim:  # (a state "as of" a day holds after the report that gave it: dates of other events)
        spans += [(d, d) for dmy in readings for d in when.days_without_year(source, day, dmy)]
    ranges = [r for dmy in readings for r in when.ranges(source, dmy)]
    if ranges and re.search(r"\) from\b", claim) and all(a + slack < day <= b + slack for a, b in ranges):
        return True  # "RT 25/11/2024 to 31/12/2024" for "RT (documented) from 2024-12-31": it began earlier
    if not spans or any(a - slack <= day <= b + slack for a, b in spans):
        return False
    point = not re.search(r"\((?:completed|documented|ongoing|stopped)\) from\b", claim) or bool(
        re.search(r"\((?:ongoing|started)\) from\b", claim) and _STARTED.search(source))  # "started letrozole on 11 Aug"
    # a course written as a period that began after the claim's day did not run from it ("Concurrent CRT
    # ..., 11/11/2024 - 12/20/2024" for "CRT (documented) from 2024-10-29")
    late_start = all(any(a - slack > day for a, _ in when.ranges(source, dmy)) for dmy in readings)
    # "Completed CAPOX x 4: C1 03/25/2025, ... C4 05/27/2025": the first cycle dates the course's start
    first_cycle = bool(when.FIRST_CYCLE.search(source)) and all(a - slack > day for a, _ in spans)
    return point or late_start or first_cycle or any(b + slack < day for _, b in spans)



# "Lung MDM 20/02/2025", "GI TUMOR BOARD 03/14/2024": the date of the meeting or document, not of an event it names
_DOCUMENT_DATE = re.compile(r"\b(?:MDM|MDT|MCC|tumou?r\s+board|board|clinic|meeting|conference|letter|note|report|"
                            r"consult(?:ation)?|visit)\b[\s:–-]*(\d{1,2}[/.]\d{1,2}[/.]\d{2,4}|\d{4}-\d{2}-\d{2})", re.I)


_TIME_POINT = (r"(?:after|post|post-|following|since|once|until|before|prior\s+to|pre|pre-|re-look\s+after|"
               r"(?:towards\s+)?(?:the\s+)?(?:end|start|completion)\s+of|during)\s*(?:the\s+|her\s+|his\s+)?"
               r"(?:(?:chest\s+wall|whole[- ]breast|palliative|adjuvant|neoadjuvant|pelvic|thoracic|breast)\s+)?")
_STARTED = re.compile(r"\b(?:start(?:ed|s)?|began|begun|commenced|initiated)\b", re.I)


def _only_as_time_point(subject: str, source: str, codes: set[str] = frozenset()) -> bool:
    """Is the claim's subject named in the sentence only as a time point ("after RT", "post-chemo",
    "5 wks post CRT" for "radical chemoradiotherapy")? Found by the subject's last word as the claim
    writes it and by the sentence's mentions of the subject's ``codes``. O(len(source))."""
    words = re.findall(r"[A-Za-z][\w-]*", subject)
    if not words:
        return False
    text = " ".join(source.split())  # as :func:`_mentions` reads it
    said = {m.start() for m in re.finditer(rf"(?<!\w){re.escape(words[-1])}(?![\w])", text, re.I)}
    said |= {m.start for m in _mentions(source) if {f"{c.system}|{c.code}" for c in m.concepts} & codes} if codes else set()
    # the subject's own words may stand between ("since sigmoid colectomy" for "laparoscopic sigmoid colectomy")
    own = "|".join(re.escape(w) for w in words[:-1] if len(w) > 1)
    tail = rf"(?:(?:{own})\s+){{0,3}}$" if own else "$"
    return bool(said) and all(re.search(_TIME_POINT + tail, text[max(0, s - 50):s], re.I) for s in said)


def check_pairs(pairs: list[tuple[str, str]], embedder, threshold: float = DEFAULT_THRESHOLD,
                strong: float = DEFAULT_STRONG, stated: list[dict[str, set[str]] | None] | None = None) -> list[Support]:
    """Support for each (claim, source sentence) pair, with one embedding batch; ``stated``: per pair,
    the sentence's stored facts (:func:`stored_facts`) where known. O(pairs)."""
    if not pairs:
        return []
    texts = list(dict.fromkeys(t for p in pairs for t in p))
    index = {t: i for i, t in enumerate(texts)}
    emb = embedder.encode(texts)
    stated = stated or [None] * len(pairs)
    return [supports(c, s, float(np.dot(emb[index[c]], emb[index[s]])), threshold, strong, stated=st)
            for (c, s), st in zip(pairs, stated)]
