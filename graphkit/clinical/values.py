"""The one owner of stage and biomarker values: how they are found in text, normalized, ranked and
compared. Ingestion stores what this module returns; alignment, state, eligibility and the guideline
specs read the stored normalized values and call the comparison functions here, never re-parse text.

Biomarkers (``MARKER=STATUS``; ASCO/CAP and IASLC reporting conventions):

========  ==============================================  ================================================
marker    statuses                                        rules
========  ==============================================  ================================================
ER, PR    positive, negative                              >= 1 % stained nuclei positive; Allred 0-2 neg
HR        positive, negative                              "hormone receptor positive" when ER/PR unnamed
HER2      positive, equivocal, negative                   IHC 3+ pos, 2+ equivocal unless ISH given, 0/1+
                                                          neg; ISH amplified (or ratio >= 2.0) pos
EGFR ...  mutated, wild-type (EGFR KRAS NRAS BRAF MET)     ``detail.alteration`` for the variant
ALK ...   positive, negative (ALK ROS1 RET NTRK)          rearranged / fusion / translocation = positive
PD-L1     high, low, negative, positive                   TPS >= 50 high, 1-49 low, < 1 negative
MSI       high, low, stable
MMR       deficient, proficient                           loss of MLH1/PMS2/MSH2/MSH6 = deficient
BRCA1/2   mutated, wild-type
========  ==============================================  ================================================

Stage: a group ("IIIA", sub-letters and a sub-digit kept: "IA2") with its basis (clinical or
pathological), or a TNM classification in one canonical string (``pT2N1aM0``: the T category's prefix,
then T, N, M with sub-letters, no spaces, no parenthesized suffixes). A value that cannot exist (stage VI,
T7, PD-L1 140 %) is returned with status ``invalid`` and never coded as something else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from graphkit.clinical.ajcc import derive_group

# -- stage -------------------------------------------------------------------------------------------------
_ROMAN = {"0": 0, "I": 1, "II": 2, "III": 3, "IV": 4}
_ARABIC = {"0": "0", "1": "I", "2": "II", "3": "III", "4": "IV", "zero": "0", "one": "I", "two": "II",
           "three": "III", "four": "IV"}
STAGE_GROUP = re.compile(r"^(0|IV|III|II|I)([ABC])?([1-3])?$")
_STAGE_TEXT = re.compile(
    r"(?P<basis>\b(?:AJCC\s+(?:8(?:th)?\s+)?)?(?:clinical(?:ly)?|pathologic(?:al)?|prognostic|anatomic|"
    r"post-?neoadjuvant|y?[cp](?=stage|\s*stage))?\s*)"
    # "pStage IA3", "ypStage IIA", "cStage IIIA": the basis letter written onto the word
    r"(?:\b|(?<=[cp]))(?P<word>stage|stg)\s*:?\s*"
    r"(?P<group>IV|III|II|I|V|VI|VII|0|[0-9]|zero|one|two|three|four)(?P<sub>[ABCabc])?(?P<digit>[1-3])?"
    r"(?![A-Za-z0-9])", re.I)
_TNM_TEXT = re.compile(
    r"(?<![A-Za-z0-9])(?P<prefix>ymr|mr|yp|yc|y|p|c|u|r|a)?T(?P<t>is|x|X|mi|\d{1,2}(?:mi|[a-d])?)(?:\([^)]{1,6}\))?"
    # "N0(sn)", "N0 (sn) M0", "N1 (2/14)": the node category's method or count in brackets, spaced or not
    r"(?:[\s,]*(?P<np>ymr|mr|yp|p|c|u)?N(?P<n>x|X|\d(?:mi|[a-c])?)(?:[ \t]?\([^)\n]{1,8}\))?)?"
    r"(?:[\s,]*(?P<mp>p|c)?M(?P<m>x|X|\d[a-d]?)(?:\([^)]{1,6}\))?)?(?![A-Za-z0-9])")
_N_ALONE = re.compile(r"(?<![A-Za-z0-9])(?P<np>ymr|mr|yp|p|c)N(?P<n>x|X|\d(?:mi|[a-c])?)(?:\([^)]{1,8}\))?(?![A-Za-z0-9])")
# T3a-d: the rectal MRI sub-stages (extramural depth, ESMO) beside AJCC 8's T categories
_VALID_T = re.compile(r"^(is|x|X|0|1mi|1[a-c]?|2[ab]?|3[a-d]?|4[a-d]?)$")
_VALID_N = re.compile(r"^(x|X|0|1mi|1[a-c]?|2[a-c]?|3[a-c]?)$")
_VALID_M = re.compile(r"^(x|X|0|1[a-d]?)$")


def stage_rank(stage: str, upper: bool = False) -> int:
    """Order stage groups: 0 < I < IA < IA1 < IB < ... < IV. A bare group used as an upper bound covers
    its sub-groups ("II" as max covers IIC). Raises ValueError for anything else. O(1)."""
    m = STAGE_GROUP.match(stage or "")
    if not m:
        raise ValueError(f"not a stage group: {stage!r}")
    sub = {"A": 1, "B": 4, "C": 7}.get(m.group(2) or "", 9 if upper else 0)
    if m.group(3):
        sub += int(m.group(3)) - 1
    elif m.group(2) and upper:
        sub += 2
    return _ROMAN[m.group(1)] * 10 + sub


def stage_in_range(stage: str, lo: str | None, hi: str | None) -> bool:
    """Whether a stage group lies in [lo, hi] (bare bounds cover their sub-groups)."""
    r = stage_rank(stage)
    return (lo is None or r >= stage_rank(lo)) and (hi is None or r <= stage_rank(hi, upper=True))


def stage_major(stage: str) -> str:
    """"IIIA2" -> "III"."""
    return STAGE_GROUP.match(stage).group(1)


@dataclass(frozen=True)
class Tnm:
    prefix: str  # "", "c", "p", "yp", "r", "u"...
    t: str | None  # "T2", "T1c", "Tis", "Tx"
    n: str | None  # "N1a", "N1mi"
    m: str | None  # "M0", "M1b"

    @property
    def value(self) -> str:
        return self.prefix + "".join(x for x in (self.t, self.n, self.m) if x)

    @property
    def basis(self) -> str | None:
        return {"c": "clinical", "u": "clinical", "yc": "clinical", "mr": "clinical", "ymr": "clinical",
                "p": "pathological", "yp": "pathological"}.get(self.prefix)

    @property
    def valid(self) -> bool:
        return all(rx.match(x[1:] if x[0] in "TNM" and not x.startswith("Tis") else x[1:])
                   for rx, x in ((_VALID_T, self.t), (_VALID_N, self.n), (_VALID_M, self.m)) if x)


@dataclass(frozen=True)
class StageFinding:
    """A stage statement in text: ``start``/``end`` offsets, its normalized ``value`` (group or
    canonical TNM, or "invalid"), ``basis`` (clinical / pathological / None), and for TNM the parts."""

    start: int
    end: int
    kind: str  # "group" | "tnm"
    value: str
    basis: str | None = None
    tnm: Tnm | None = None


def find_stages(text: str) -> list[StageFinding]:
    """Every stage group and TNM classification in ``text``. O(len(text))."""
    out: list[StageFinding] = []
    for m in _STAGE_TEXT.finditer(text):
        group = m.group("group")
        roman = _ARABIC.get(group.lower(), group.upper())
        sub = (m.group("sub") or "").upper()
        digit = m.group("digit") or ""
        value = roman + sub + digit
        if not STAGE_GROUP.match(value):
            value = "invalid"
        basis_word = (m.group("basis") or "").strip().lower()
        basis_word = basis_word[1:] if basis_word in ("yp", "yc") else basis_word
        if basis_word.startswith(("prognostic", "anatomic")):
            # AJCC has a clinical and a pathological prognostic stage: the word before says which
            before = re.search(r"\b(clinical|pathologic)\w*\s*$", text[:m.start("basis")], re.I)
            basis_word = before.group(1).lower() if before else ""
        basis = ("clinical" if basis_word.startswith(("clinical", "c")) else
                 "pathological" if basis_word.startswith(("pathologic", "p", "post")) else None)
        start = m.start("basis") + (len(m.group("basis")) - len(m.group("basis").lstrip())) if basis_word \
            else m.start("word")
        out.append(StageFinding(start, m.end(), "group", value, basis))
    taken = [(f.start, f.end) for f in out]
    for m in _TNM_TEXT.finditer(text):
        if m.group("n") is None and m.group("m") is None and not m.group("prefix"):
            continue  # "T2" alone is too ambiguous (a vertebra, an MRI weighting); "pT2" is not
        if any(a <= m.start() < b for a, b in taken):
            continue
        tnm = Tnm(_as_clinical(m.group("prefix")), "T" + m.group("t"), "N" + m.group("n") if m.group("n") else None,
                  "M" + m.group("m") if m.group("m") else None)
        out.append(StageFinding(m.start(), m.end(), "tnm", tnm.value if tnm.valid else "invalid", tnm.basis, tnm))
        taken.append((m.start(), m.end()))
    for m in _N_ALONE.finditer(text):
        if any(a <= m.start() < b for a, b in taken):
            continue
        tnm = Tnm(_as_clinical(m.group("np")), None, "N" + m.group("n"), None)
        out.append(StageFinding(m.start(), m.end(), "tnm", tnm.value if tnm.valid else "invalid", tnm.basis, tnm))
    # "cT2b N2 M1c - IVB", "cT3 N2 (multistation, bulky) M0 = IIIB": the group the TNM is given, without "stage"
    for f in [f for f in out if f.kind == "tnm" and f.value != "invalid"]:
        g = _GROUP_AFTER_TNM.match(text, f.end)
        if g and not any(a <= g.start("group") < b for a, b in taken):
            value = g.group("group") + (g.group("sub") or "") + (g.group("digit") or "")
            if STAGE_GROUP.match(value) and value != "I":
                out.append(StageFinding(g.start("group"), g.end(), "group", value, f.basis))
                taken.append((g.start("group"), g.end()))
    return sorted(out, key=lambda f: f.start)


# after a TNM: its remark in brackets, the M category the TNM pattern left out, then "=" / "-" / "->" and a group
_GROUP_AFTER_TNM = re.compile(r"[ \t]*(?:\([^)\n]{0,30}\)[ \t]*)?(?:[cp]?M(?:x|X|\d[a-d]?)[ \t]*)?(?:=|-|–|—|->|→)[ \t]*"
                              r"(?P<group>IV|III|II|I|0)(?P<sub>[ABC])?(?P<digit>[1-3])?(?![A-Za-z0-9])")


def _as_clinical(prefix: str | None) -> str:
    """An imaging prefix is a clinical stage (AJCC 8 knows c, p, yc, yp, r, a): "mrT3c" (staged on MRI) is
    stored as cT3c, "ymrT2" as ycT2; the basis stays clinical."""
    return {"mr": "c", "ymr": "yc"}.get(prefix or "", prefix or "")


def parse_tnm(value: str) -> Tnm | None:
    """A stored canonical TNM string back into its parts."""
    m = _TNM_TEXT.fullmatch(value or "")
    if m:
        return Tnm(m.group("prefix") or "", "T" + m.group("t"), "N" + m.group("n") if m.group("n") else None,
                   "M" + m.group("m") if m.group("m") else None)
    m = _N_ALONE.fullmatch(value or "")
    return Tnm(m.group("np"), None, "N" + m.group("n"), None) if m else None


def nodes_unassessed(value: str | None) -> bool:
    """Whether a stored TNM says its regional nodes could not be assessed ("pT2pNx": no node in the
    specimen), so it stages no nodes. O(1)."""
    tnm = parse_tnm(value or "")
    return bool(tnm and tnm.n and tnm.n[1:].lower() == "x")


def group_exists(site: str, group: str) -> bool:
    """Whether a stage group exists in the AJCC 8 table of ``site`` ("IVC" does for colorectal, not for
    lung). A coarser group ("IV") or a finer one ("IIIA2" under IIIA) counts."""
    from graphkit.clinical.ajcc import TABLES

    table = TABLES.get(site)
    if table is None:
        return True
    groups = {row[3] for row in table}
    return any(g.startswith(group) or group.startswith(g) for g in groups)


def group_from_tnm(site: str | None, tnm: Tnm) -> str | None:
    """AJCC 8 anatomic group for a TNM of a cancer at ``site`` (breast | lung | colorectal), when the
    table makes it unambiguous; else None."""
    if not site or not tnm.valid:
        return None
    return derive_group(site, tnm.t, tnm.n, tnm.m)


# -- performance status -----------------------------------------------------------------------------------------
# Cheap gates: the costlier finders run only on text that could hold what they look for.
_MAY_BIOMARKER = re.compile(r"(?-i:ER|PR|HR|HER|EGFR|[KN]-?RAS|RAS|BRAF|MET|ALK|ROS|RET|NTRK|PD|MSI|MSS|MMR|MLH|PMS|MSH|"
                            r"BRCA|TNBC|ERBB)|receptor|triple|microsatellite|mismatch|programmed|deficient|proficient", re.I)
_MAY_STAGE = re.compile(r"stage|stg|(?<![A-Za-z])(?:[cpyuram]{0,3})T(?:is|x|X|mi|\d)|(?<![A-Za-z])[cp]?N\d", re.I)
_STAGE_IS = re.compile(r"\bstage\s+(?:is|was|of)\s+((?:0|IV|III|II|I)[ABC]?\d?)\b")


def marker_name_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` names a biomarker, result or not ("PD-L1 attempted"): a shorter term inside such a
    name ("PD" of "PD-L1") is no mention of its own. O(len(text))."""
    if not may_hold_biomarker(text):
        return []
    return [(m.start(), m.end()) for m in _TOKEN.finditer(text) if (m.lastgroup or "").startswith("M_")]


def may_hold_biomarker(text: str) -> bool:
    """False only when ``text`` cannot hold a biomarker statement (a gate before :func:`find_biomarkers`)."""
    return _MAY_BIOMARKER.search(text) is not None


def may_hold_stage(text: str) -> bool:
    """False only when ``text`` cannot hold a stage statement (a gate before :func:`find_stages`)."""
    return _MAY_STAGE.search(text) is not None


def stated_stage_groups(text: str) -> list[str]:
    """Stage groups written as "stage is/was/of IIA" (generated summaries), beside :func:`find_stages`."""
    return _STAGE_IS.findall(text)


# "ECOG 1", "WHO PS 2", "PS 0" and "performance status 1" (a bare PS score is ECOG's: Karnofsky is written KPS)
_PERFORMANCE = re.compile(r"(?<![A-Za-z])(?P<scale>ECOG|Zubrod|WHO|PS|[Pp]erformance\s+status)(?:\s+(?:PS|performance\s+status))?"
                          r"\s*(?:of|:|=|is)?\s*"
                          r"(?P<ecog>[0-5])(?:\s*-\s*(?P<ecog2>[0-5]))?(?![0-9])|(?<![A-Za-z])(?P<kps>KPS|Karnofsky)"
                          r"(?:\s+(?:PS|performance\s+status|score))?\s*(?:of|:|=|is)?\s*(?P<kpsv>\d{2,3})\s*%?")


@dataclass(frozen=True)
class PerformanceFinding:
    start: int
    end: int
    value: str  # "ECOG=1", "KPS=80", or "invalid"


@dataclass(frozen=True)
class ResponseFinding:
    start: int
    end: int
    value: str  # "response=complete" | "response=incomplete"


# the clinical (not pathological) response to neoadjuvant treatment, as organ preservation needs it; a
# negation written into the phrase ("NOT a clinical complete response") is its value, so it is in the span
_RESPONSE = re.compile(
    r"(?P<neg>\b(?:not|no|without)\s+(?:an?\s+|yet\s+(?:an?\s+)?)?(?:clinical(?:ly)?\s+)?complete\s+(?:clinical\s+)?"
    r"response\b|\b(?:not|no)\s+(?:an?\s+)?(?-i:cCR)\b)"
    r"|(?P<inc>\b(?:incomplete|partial|near[- ]complete)\s+(?:clinical\s+)?response\b|(?-i:\b(?:iCR|nCR)\b)|"
    r"\bresidual\s+(?:[\w-]+\s+){0,2}?(?:tumou?r|disease)\b|\bregrowth\b)"
    r"|(?P<cr>(?<!pathologic )(?<!pathological )\b(?:clinical(?:ly)?\s+)?complete\s+(?:clinical\s+|endoscopic\s+|"
    r"radiologic(?:al)?\s+)?response\b|(?-i:\bcCR\b))", re.I)
_MAY_RESPONSE = re.compile(r"respon|cCR|iCR|nCR|residual|regrowth", re.I)


def find_responses(text: str) -> list[ResponseFinding]:
    """Clinical response statements: "clinical complete response", "cCR" (complete); "NOT a clinical
    complete response", "partial response", "residual tumour", "regrowth" (incomplete). A pathological
    complete response (pCR, on the resection specimen) is not one. O(len(text))."""
    if not _MAY_RESPONSE.search(text):
        return []
    out = []
    for m in _RESPONSE.finditer(text):
        value = "complete" if m.lastgroup == "cr" else "incomplete"
        out.append(ResponseFinding(m.start(), m.end(), f"response={value}"))
    return out


def find_performance_status(text: str) -> list[PerformanceFinding]:
    """ECOG (0-5; a range "1-2" keeps its worse end) and Karnofsky (0-100, steps of 10) scores."""
    out = []
    for m in _PERFORMANCE.finditer(text):
        if m.group("ecog") is not None:
            worst = max(int(m.group("ecog")), int(m.group("ecog2") or 0))
            out.append(PerformanceFinding(m.start(), m.end(), f"ECOG={worst}"))
        else:
            v = int(m.group("kpsv"))
            out.append(PerformanceFinding(m.start(), m.end(), f"KPS={v}" if 0 <= v <= 100 and v % 10 == 0 else "invalid"))
    return out


# -- biomarkers ----------------------------------------------------------------------------------------------
MARKERS = ("ER", "PR", "HR", "HER2", "EGFR", "KRAS", "NRAS", "BRAF", "MET", "ALK", "ROS1", "RET", "NTRK",
           "PD-L1", "MSI", "MMR", "BRCA1", "BRCA2")
#: Oncogenic driver alterations that (almost) never occur together in one tumour (NSCLC: EGFR, ALK, ROS1,
#: BRAF, RET, MET, NTRK, KRAS; colorectal: KRAS/NRAS vs BRAF): once one is found, a branch that needs
#: another is not open, and the other need not be tested for that branch.
DRIVERS = frozenset({"EGFR", "ALK", "ROS1", "BRAF", "RET", "MET", "NTRK", "KRAS", "NRAS"})
DRIVER_FOUND = frozenset({"mutated", "positive"})
MUTATION_MARKERS = {"EGFR", "KRAS", "NRAS", "BRAF", "MET", "BRCA1", "BRCA2"}
FUSION_MARKERS = {"ALK", "ROS1", "RET", "NTRK"}
STATUSES = {
    "ER": {"positive", "negative"}, "PR": {"positive", "negative"}, "HR": {"positive", "negative"},
    "HER2": {"positive", "equivocal", "negative", "mutated", "wild-type"},
    **{m: {"mutated", "wild-type"} for m in MUTATION_MARKERS},
    **{m: {"positive", "negative"} for m in FUSION_MARKERS},
    "PD-L1": {"high", "low", "negative", "positive"}, "MSI": {"high", "low", "stable"},
    "MMR": {"deficient", "proficient"},
}

# Marker names as written. Short all-caps names are matched case-sensitively ("PR", never "pr" of "procedure").
_MARKER_NAMES = [
    ("ER", r"(?-i:ER(?:-?alpha|α)?)|estrogen[- ]receptors?|oestrogen[- ]receptors?"),
    # (not "no PR bleeding" (per rectum), not "best response PR" (a partial response))
    ("PR", r"(?-i:(?<!response\s)(?<!response:\s)(?<!RECIST\s)PR(?!\s*(?:bleed\w*|blood|exam\w*|discharge|mucus|mass)\b)"
           r"|PgR|PGR)|progesterone[- ]receptors?"),
    ("HR", r"(?-i:HR)|hormone[- ]receptors?"),
    ("HER2", r"(?-i:HER-?2(?:/?neu)?|Her-?2(?:/?neu)?|her2|HER\s2|ERBB2|c-erbB-?2)"),
    ("EGFR", r"(?-i:EGFR)"), ("KRAS", r"(?-i:K-?RAS)"), ("NRAS", r"(?-i:N-?RAS)"), ("BRAF", r"(?-i:BRAF)"),
    ("MET", r"(?-i:c?-?MET)(?=\s*(?:exon|ex\s?\d|amplif|mutat|alteration|ampl|fusion|positive|negative|neg\b|pos\b|wt\b|"
            r"wild|not\s+detected|:|,|/|\|(?!\s*-)|or\b|and\b|results?|--|—|(?:is|was)\s+(?:positive|negative|wild|mutat|amplif|"
            r"not\s+detected|detected)|\((?:incl|including|exon|ex\s?\d)))"),
    ("ALK", r"(?-i:ALK)"), ("ROS1", r"(?-i:ROS-?1)"),
    ("RET", r"(?-i:RET)(?=\s*(?:fusion|rearrang|translocation|positive|negative|neg\b|pos\b|mutat|not\s+detected|:|\+|-|\|(?!\s*-)|"
            r",|/|or\b|and\b|—|(?:is|was)\s+(?:positive|negative|rearrang|fusion|not\s+detected|detected|wild)))"),
    ("NTRK", r"(?-i:NTRK(?:[1-3](?:[/-][1-3])*)?)"),
    ("PD-L1", r"(?-i:PD-?L1|PDL-?1)|programmed death[- ]ligand[- ]1"),
    ("MSI", r"(?-i:MSI-?H|MSI-?L|MSI|MSS)|microsatellite[- ](?:instability(?:[- ]high)?|stable|stability)(?:\s+status)?"),
    ("MMR", r"(?-i:[dp]MMR|MMR)|mismatch[- ]repair(?:\s+proteins?)?|(?-i:MLH-?1|PMS-?2|MSH-?2|MSH-?6)"),
    # ("gBRCA1/2": germline, "tBRCA": tumour)
    ("BRCA", r"(?-i:[gst]?BRCA(?:-?1/2)?)(?!\d)"),
    ("RAS", r"(?-i:RAS)(?=\s*(?:/|wild|wt|mut|negative|positive|status|testing|:))|(?-i:[KN]?RAS/[KN]RAS)"),
    ("BRCA1", r"(?-i:[gst]?BRCA-?1)"), ("BRCA2", r"(?-i:[gst]?BRCA-?2)"),
    ("TNBC", r"(?-i:TNBC)|triple[- ]negative"),
]
def names_marker(label: str) -> bool:
    """Does a line's label name a biomarker ("KRAS:", "HER2 (ERBB2):", "Estrogen receptor:")? Such a label
    is the first half of a result line, not a section header. (The reader's own token pattern.)"""
    m = _TOKEN.match(label.strip())
    return bool(m and m.lastgroup and m.lastgroup.startswith("M_"))


# "no EGFR status yet", "No MSI PCR either": the test is what is missing, not a negative result
_NO_RESULT = re.compile(r"^[\s,/]*(?:(?:or|and)\s+)?(?:(?:\w+\s+){0,2}?(?:status|results?|testing|data|report|"
                        r"pcr|ihc|tests?|assays?|analysis|ngs|sequencing|panel|done|performed|available)\b|yet\b|"
                        # "No EGFR/ALK/ROS1/PD-L1 to date": none resulted so far, not a negative result
                        r"(?:to\s+date|so\s+far|thus\s+far|as\s+yet)\b)",
                        re.I)
_EXPRESSION = frozenset({"ER", "PR", "HER2", "PD-L1", "Ki-67"})  # stains, read as a result, never "no X"
_STAINED = re.compile(r"^\s*(?:expression|expressed|staining|stain|positivity|immunoreactivity|reactivity|"
                      r"detected|seen|identified|overexpression|amplification)\b", re.I)
_STILL = re.compile(r"\b(?:still|yet|as\s+yet)\s+$", re.I)  # "still no ER/PR/HER2": not resulted, not negative
_PENDING = r"unknown|not\s+(?:yet\s+)?(?:available|resulted|known|back)|awaited|awaiting|pending|to\s+follow|sent|requested|ordered|will\s+be\s+(?:issued|reported|sent)|in\s+process|awaited"
_NOT_TESTED = (r"not\s+(?:performed|done|tested|sent|assessed|evaluated|reportable|evaluable)|unevaluable|insufficient|"
               r"qns|quantity\s+not\s+sufficient|inadequate|failed")
_TOKEN = re.compile(
    # "BRCA2m", "EGFRm": the gene with a lower-case m is its mutation
    "|".join(f"(?P<M_{i}>(?<![A-Za-z0-9])(?:{pat})(?:(?<=[A-Z0-9])(?-i:m))?(?![A-Za-z0-9]))"
             for i, (_, pat) in enumerate(_MARKER_NAMES)) +
    r"|(?P<pct><\s?1\s?%|(?:(?:>=|<=|[<>≥≤])\s?)?(?:\d{1,3}(?:\.\d)?\s?(?:-|–|to)\s?\d{1,3}\s?%|\d{1,3}(?:\.\d)?\s?%))"
    # an Allred score, also written bare as its fraction of 8 ("ER 8/8, PR 6/8"; read for ER and PR only)
    r"|(?P<allred>Allred(?:\s+score)?\s*(?:of\s*)?:?\s*(?P<allred_n>[0-8])(?:\s*/\s*8)?|(?<![\d/.])[0-8]\s?/\s?8(?![\d/]))"
    # "ER 0, PR 0": a receptor written as nought (no stained cells, whatever the scale)
    r"|(?P<zero>(?-i:(?<=\bER )|(?<=\bPR )|(?<=\bER: )|(?<=\bPR: ))0(?![%\d./]|\s?/\s?8))"
    r"|(?P<ratio>ratio\s*(?:of\s*)?:?\s*(?P<ratio_n>\d+(?:\.\d+)?))"
    r"|(?P<ihc>(?<![A-Za-z0-9])(?:IHC\s*)?(?P<ihc_n>[0-3])\s?\+(?:\s*(?:by|on)\s+IHC)?|(?<![A-Za-z0-9])(?:IHC|score)\s*(?:of\s*)?:?\s*0(?![%\d.])|(?<=HER2 )0(?![%\d]|\.\d)|(?<=HER2: )0(?![%\d]|\.\d))"
    r"|(?P<variant>(?-i:[A-Z]\d{2,4}[A-Z](?:/[A-Z])?)|"
    # HGVS as a report writes it: c.35G>T, p.(Gly12Val), p.G12V
    r"(?-i:c\.\d+(?:[+-]\d+)?(?:[ACGT]>[ACGT]|(?:_\d+)?(?:del|dup|ins)[ACGT]*)|p\.\(?(?:[A-Z][a-z]{2}\d{1,4}(?:[A-Z][a-z]{2}|fs|\*)|[A-Z]\d{1,4}[A-Z*])\)?)|ex(?:on)?[\s-]?\d{1,2}[\s-]?(?:del(?:etion)?s?|ins(?:ertion)?s?|skipping|mutation|alteration)"
    r"|(?:exon\s?19\s?)?del19|ex19del|ex20ins|(?-i:L858R|T790M|C797S|G12[CDVARS]|G13D|V600[EK]))"
    # a combined positive score is a count, not a percent: "PD-L1 22C3 CPS 15", "CPS >=10"
    r"|(?P<cps>\bCPS\s*(?:score\s*)?(?:of\s*)?[:=]?\s*(?:>=|<=|[<>≥≤])?\s*\d{1,3}(?:\.\d+)?(?!\d|\.\d|\s*%))"
    r"|(?P<tps>\b(?:TPS|CPS|TC|IC)\b)"
    # words begin at a word's start: "no" is not the end of "adeno", "high" not the end of "thigh"
    r"|(?<![A-Za-z])(?P<prefix>(?:negative|positive)\s+for(?:\s+(?:any\s+)?(?:(?:reportable|pathogenic|clinically\s+significant)\s+)?"
    r"(?:alterations?|mutations?|variants?|fusions?)\s+in)?|no\s+(?:co-?occurring\s+|additional\s+|other\s+|further\s+)?(?:(?:likely\s+)?pathogenic\s+)?(?:mutations?|alterations?|variants?)\s+(?:in|of)"
    # ("KRAS: no mutation in codons 12, 13, 61": the codons are blanked, nothing follows; a result; "No
    # alterations in\nEGFR, ALK, ...": a list wrapped onto the next line follows)
    r"(?![ \t]*(?:[.;]|\n[ \t]*(?:\n|$)|$))|no\s+evidence\s+of|loss\s+of(?:\s+nuclear)?(?:\s+expression)?(?:\s+of)?|"
    r"(?:intact|retained|preserved)\s+(?:nuclear\s+)?expression\s+of|absence\s+of|deficient|proficient|without|no\s+known|no(?!\s+(?:mutations?|alterations?|fusions?|rearrangements?|variants?|(?:likely\s+)?pathogenic|reportable|"
    r"clinically\s+significant)\b))(?=\s|$|[,.;)])"
    r"|(?P<status>(?<![A-Za-z])(?:"
    rf"{_NOT_TESTED}|{_PENDING}|"
    r"not\s+amplified|non-?amplified|amplified|amplification|"
    r"wild(?:[- ]|\s)?type|\bWT\b|un-?mutated|non-?mutated|no\s+(?:(?:likely\s+)?pathogenic\s+|reportable\s+|clinically\s+significant\s+)?"
    r"(?:mutations?|alterations?|fusions?|rearrangements?|variants?)\s*(?:detected|identified)?|"
    r"not\s+detected|none\s+detected|undetected|not\s+identified|detected|"
    r"not\s+(?:mutated|mutant|rearranged|altered)|"
    r"mutated|mutations?|mutant|mut(?![A-Za-z/])|variant|alterations?|carrier|pathogenic|"
    r"rearranged|rearrangements?|fusions?|translocation|"
    r"deficient|deficiency|proficient|intact|retained|preserved|lost|loss|absent|"
    r"unstable|stable|high|low|"
    r"strongly\s+positive|weakly\s+positive|low[- ]positive|positive|pos\b|negative|neg\b|"
    r"equivocal|indeterminate|borderline)|"
    # "ER-ve/PR+ve", "HER2 -ve": the British sign-and-"ve" forms
    r"[+\-−]\s?ve\b|"
    r"\(\s*[+\-−]\s*\)|(?<![\s(])\+{1,3}|\+{1,3}(?!\s+[A-Za-z])|\+{1,3}(?=\s+[A-Za-z][\w-]*\s?[+\-−](?!\w))|(?<=[A-Za-z0-9])[-−](?![A-Za-z0-9])|[-−](?=\s*/|\s*,|\s*$|\s+and\b))"
    r"|(?P<sep>/|,|;|\band\b|\bor\b|&|(?<!\.)\.(?:\s|$)|:|\bwith\b|\bbut\b|\|)",
    re.I)
_DETAIL_PAREN = re.compile(r"\((?:clone\s+)?(?-i:[A-Z0-9]{1,3}[A-Z][A-Z0-9-]{0,6}|\d[A-Z]\d+|SP\d+)"
                           # "BRAF V600E (VE1 IHC): negative": the clone and its assay
                           r"(?:\s+(?:IHC|immunohistochemistry|assay|antibody|clone))?\)|"
                           r"\(codons?\s[\d,\s/and]{1,40}\)|"
                           # a fusion's partner and variant: "ALK rearrangement (EML4-ALK v3) POSITIVE"
                           r"\((?-i:[A-Z][A-Z0-9]{1,7}-[A-Z][A-Z0-9]{1,7})(?:\s+(?:v|variant\s*)\d+[a-z]?)?(?:\s+fusion)?\)|"
                           # "EML4-ALK rearrangement (variant 3) was detected": the fusion variant alone
                           r"\((?:v|variant\s*)\d+[a-z]?\)",
                           re.I)
# "EGFR (RT-PCR, exons 18-21): NO mutation detected", "ALK (IHC D5F3, Ventana): NEGATIVE": the method,
# platform, clone and exons tested, in one bracket beside the marker
_METHOD_PAREN = re.compile(
    r"\((?=[^()\n]{0,60}?\b(?:IHC|FISH|ISH|CISH|SISH|NGS|PCR|RT-PCR|qPCR|ddPCR|exons?|codons?|Ventana|clone)\b)"
    r"(?:[ \t]*(?:IHC|immunohistochemistry|FISH|ISH|CISH|SISH|NGS|PCR|RT-PCR|qPCR|ddPCR|real[- ]?time(?:\s+PCR)?|"
    r"Ventana|Dako|Leica|Roche|cobas|Idylla|Oncomine|Therascreen|Guardant(?:360)?|FoundationOne(?:\s?CDx)?|"
    r"tissue|plasma|ctDNA|liquid\s+biopsy|panel|assay|"
    r"exons?\s*\d{1,2}(?:\s*(?:[-–,&/]|and|to)\s*\d{1,2})*|codons?\s*\d{1,3}(?:\s*(?:[-–,&/]|and)\s*\d{1,3})*|"
    r"clone(?:\s+(?!\))[\w-]+)?|(?-i:[A-Z0-9]{1,3}[A-Z][A-Z0-9-]{0,6}|\d[A-Z]\d+|SP\d+)|22C3|28-8)[ \t]*(?:[,;/+]|\band\b)?)+[ \t]*\)",
    re.I)
# "KRAS (repeat, 27/02): exon 2 p.G12V MUTATED", "HER2 (resection, 03/04/2025): 1+": which sample or day the
# result is from, in a bracket beside the marker; blanked like the method (offsets kept)
_SAMPLE_PAREN = re.compile(
    r"\((?=[^()\n]{0,40}?(?:\d{1,2}[/.-]\d{1,2}|repeat|re-?test))"
    r"(?:[ \t]*(?:repeat(?:ed)?|re-?test(?:ed)?|re-?run|second|2nd|third|3rd|new|block|sample|specimen|resection|"
    r"core|biopsy|on|of|the|from|dated?|reported|resulted|sent|\d{1,2}[/.-]\d{1,2}(?:[/.-]\d{2,4})?)[ \t]*[,;]?)+[ \t]*\)",
    re.I)
_FILLER = re.compile(r"^(?:receptors?|status|expression|expressed|testing|tests?|results?|by|via|on|is|was|were|"
                     r"all|both|each|(?:all\s+)?(?:two|three|four)|"
                     # "BRCA1 and other panel genes: no variant detected", "gBRCA1/2, PALB2: no pathogenic
                     # variant": another gene of the panel, named by its symbol
                     r"other|panel|(?-i:(?!CEP\d)[A-Z][A-Z0-9]{1,6}\d[A-Z0-9]*)|"  # (not HER2's CEP17 probe)
                     r"are|of|the|a|IHC|immunohistochemistry|FISH|ISH|CISH|SISH|NGS|PCR|real[- ]?time|qPCR|RT-PCR|ddPCR|assay|analysis|stain(?:ing)?|reflex(?:ed)?|"
                     r"22C3|SP263|SP142|28-8|score|proteins?|gene|genes|tumou?r|cells?|in|nuclear|strong|weak|"
                     r"moderate|intensity|=|\(|\)|dual|probe|copy|number|germline|somatic|level|\d+\s?cells?|show|shows|still|"
                     r"attempted|[-–—:]|ex(?:ons?)?\s?\d{1,2}(?:\s*(?:,|&|and|/)\s*\d{1,2})*|"
                     r"%|tumor\s+proportion|proportion|combined|positive\s+score|clone\s+[A-Za-z0-9-]+|\s+|"
                     # a report's dot leaders and table cells: "Estrogen receptor ........ POSITIVE", "| KRAS | mutated"
                     r"\.{2,}|4B5|SP\d+|EP\d+|1E2|6F11|D5F3|"
                     # a genomic report's variant-class column: "EGFR   SNV/indel   no pathogenic variant detected"
                     r"SNVs?|indels?|CNVs?|SNV\s?/\s?indels?|small\s+variants?|substitutions?)+$", re.I)
#: a marker naming a drug class ("HER2-directed therapy", "no EGFR TKI", "without HER2 blockade"), not a result
_DRUG_CLASS_AFTER = re.compile(r"\s*[-‐]?\s*(?:directed|targeted|targeting|blockade|therap(?:y|ies)|inhibitors?|"
                               r"TKIs?|agents?|antibod(?:y|ies)|based|drugs?)\b", re.I)
#: a label that gives one result to the markers listed after it ("Negative / not detected: EGFR, ALK, ROS1")
_NEGATIVE_LIST = re.compile(
    r"(?:^|(?<=[\n.;]))[ \t]*(?:(?:pertinent\s+)?negatives?(?:\s+for)?|(?:none\s+|not\s+)detected|wild[- ]?type|not\s+amplified|"
    r"(?:no\s+)?(?:alterations?|mutations?|variants?|fusions?|rearrangements?)\s+(?:not\s+)?(?:detected|identified|found)|"
    r"no\s+(?:alterations?|mutations?|variants?|fusions?|rearrangements?))(?:\s+in)?"
    r"(?:\s*/\s*(?:negative|(?:none\s+|not\s+)detected|wild[- ]?type|not\s+amplified))*\s*:"
    # "Negative results: no pathogenic alterations detected in KRAS, BRAF, ERBB2 (HER2), MET ...": a panel's
    # negatives, listed after "in" (no colon needed)
    r"|(?:^|(?<=[\n.;:]))[ \t]*no\s+(?:(?:likely\s+)?pathogenic|reportable|actionable|clinically\s+(?:significant|relevant)|"
    r"other|additional|known)?\s*(?:(?:or\s+likely\s+pathogenic\s+)?(?:alterations?|mutations?|variants?|fusions?|"
    r"rearrangements?|abnormalities))\s+(?:were\s+|was\s+)?(?:detected|identified|found|seen)\s+in"
    r"(?:\s+the\s+following(?:\s+genes)?)?\s*:?"
    # "Fusions (RNA): none detected in ALK, ROS1, RET or NTRK1/2/3": the heading names what was looked for
    r"|(?:^|(?<=[\n.;:]))[ \t]*none\s+(?:were\s+)?(?:detected|identified|found|seen)\s+in\s*:?", re.I)
# "No EGFR, ALK, ROS1, BRAF V600E, MET ex14, RET, or KRAS G12C alterations detected": every marker of the
# list is negative (a variant in it says which alteration was looked for, not that it was found)
_NO_LIST = re.compile(r"(?:^|(?<=[\n.;:]))[ \t]*(?:no|negative\s+for)\s+(?P<list>[^.;\n]{3,200}?)\s+"
                      r"(?:alterations?|mutations?|variants?|fusions?|rearrangements?)\b"
                      r"(?:\s+(?:were\s+|was\s+)?(?:detected|identified|found|seen))?", re.I)
#: markers whose name states their result ("MSS", "dMMR", "TNBC"): never part of a list of markers
_SELF_STATED = re.compile(r"^(?:MSI-?[HL]|MSS|[dp]MMR|TNBC|triple[- ]negative|microsatellite[- ](?:stable|instability[- ]high))$",
                          re.I)


@dataclass(frozen=True)
class BiomarkerFinding:
    start: int
    end: int
    values: tuple[str, ...]  # "ER=positive", ...
    detail: dict = field(default_factory=dict, hash=False, compare=False)
    flags: tuple[str, ...] = ()  # e.g. "invalid:PD-L1 140%"


_SIGN_VE = {"+ve": "positive", "-ve": "negative", "−ve": "negative"}


def _pct_value(text: str) -> float | None:
    t = text.replace(" ", "")
    if t.startswith("<1"):
        return 0.5
    nums = re.findall(r"\d+(?:\.\d+)?", t)
    if not nums:
        return None
    return float(nums[-1]) - (0.5 if t.startswith("<") else 0.0)  # "<50%": below the cut-off


def _status(marker: str, ev: list[tuple[str, str]], prefix_status: str | None) -> tuple[str | None, dict, list[str]]:
    """Normalize one marker's evidence (token kind, text) to (status, detail, flags)."""
    detail: dict = {}
    flags: list[str] = []
    words = [_SIGN_VE.get(w.replace(" ", ""), w)
             for w in (re.sub(r"\s+", " ", t.lower()) for k, t in ev if k == "status")]
    word = " ".join(words)
    pct = next((_pct_value(t) for k, t in ev if k == "pct"), None)
    allred = next((int(re.search(r"\d", t).group()) for k, t in ev if k == "allred"), None)
    ratio = next((float(re.search(r"\d+(?:\.\d+)?", t.split("atio")[-1]).group()) for k, t in ev if k == "ratio"), None)
    ihc = next((re.search(r"[0-3]", t).group() for k, t in ev if k == "ihc"), None)
    variants = [t for k, t in ev if k == "variant"]
    cps = next((float(re.findall(r"\d+(?:\.\d+)?", t)[-1]) for k, t in ev if k == "cps"), None)
    if marker == "PD-L1" and cps is not None and pct is None:
        detail["cps"] = cps  # CPS >= 1 is PD-L1 positive (>= 10 the threshold some indications use)
        return ("positive" if cps >= 1 else "negative"), detail, flags
    if pct is not None:
        detail["percent" if marker != "PD-L1" else "tps"] = pct
        if pct > 100:
            flags.append(f"invalid:{marker} {pct:g}%")
            return "invalid", detail, flags
    if variants:
        detail["alteration"] = " ".join(variants)
    if re.search(rf"\b(?:{_NOT_TESTED})\b", word):
        return "not-tested", detail, flags
    if re.search(rf"\b(?:{_PENDING})\b", word):  # whole words: the "sent" of "absent" is no send-out
        return "pending", detail, flags
    neg = any(w in ("negative", "neg", "-", "−", "(-)", "( - )") or w.startswith(("negative", "(-", "( -"))
              for w in words) or prefix_status in ("negative", "deficient")
    pos = any(w.startswith(("positive", "pos", "+", "(+", "strongly", "weakly", "low-positive", "low positive"))
              for w in words) or prefix_status == "positive"
    absent = any(w.startswith(("no ", "not ", "none", "undetected")) or w == "absent" for w in words) \
        or prefix_status == "negative"  # ("BRAF V600E is absent"; an MMR protein's "absent" is its loss, below)
    if marker in ("ER", "PR", "HR"):
        if allred is not None:
            detail["allred"] = allred
            return ("positive" if allred >= 3 else "negative"), detail, flags
        if pct is not None:
            return ("positive" if pct >= 1 else "negative"), detail, flags
        if any(k == "zero" for k, _ in ev):
            return "negative", detail, flags
        if "low" in words and not neg:
            detail["low"] = True
            return "positive", detail, flags  # ER-low (1-10%) is positive (ASCO/CAP 2020)
        return ("negative" if neg else "positive" if pos else None), detail, flags
    if marker == "HER2":
        if ihc is not None:
            detail["ihc"] = f"{ihc}+" if ihc != "0" else "0"
        not_amp = bool(re.search(r"not amplified|non-?amplified|non amplified", word)) or \
            ("amplif" in word and (absent or neg))
        amplified = "amplif" in word and not not_amp
        if ratio is not None:
            detail["ish_ratio"] = ratio
            amplified, not_amp = ratio >= 2.0 and not not_amp, not_amp or ratio < 2.0
        if amplified:
            detail["ish"] = "amplified"
            return "positive", detail, flags
        if not_amp:
            detail["ish"] = "not amplified"
            return "negative", detail, flags
        if "low" in words:
            detail["low"] = True
            return "negative", detail, flags
        if ihc == "3":
            return "positive", detail, flags
        if ihc == "2" and (neg or pos) and "equivocal" not in word:
            # "HER2-NEGATIVE (IHC 2+ / ISH-)": the written final status, the IHC score beside it
            return ("negative" if neg else "positive"), detail, flags
        if ihc == "2" or "equivocal" in word or "indeterminate" in word or "borderline" in word:
            return "equivocal", detail, flags
        if ihc in ("0", "1"):
            return "negative", detail, flags
        if variants or "mutat" in word:
            unmutated = any(w.startswith(("wild", "wt", "un-mut", "unmut", "non-mut", "nonmut")) for w in words)
            return ("wild-type" if absent or neg or unmutated else "mutated"), detail, flags
        return ("negative" if neg or absent else "positive" if pos else None), detail, flags
    if marker in MUTATION_MARKERS:
        if any(w.startswith(("wild", "wt", "un-mut", "unmut", "non-mut", "nonmut")) for w in words) or absent or neg:
            return "wild-type", detail, flags
        # "EGFR mutations" alone (a list heading, "... were not found" on another line) says nothing
        if variants or any(w in ("mutated", "mutant", "mut", "carrier", "pathogenic", "detected", "amplified")
                           or w.startswith(("pathogenic", "mutation detected")) for w in words) or pos:
            return "mutated", detail, flags
        return None, detail, flags
    if marker in FUSION_MARKERS:
        if neg or absent:
            return "negative", detail, flags
        if pos or variants or any(w in ("rearranged", "detected", "amplified", "translocation") for w in words):
            return "positive", detail, flags
        return None, detail, flags
    if marker == "PD-L1":
        if pct is not None:
            return ("high" if pct >= 50 else "low" if pct >= 1 else "negative"), detail, flags
        if "high" in words:
            return "high", detail, flags
        if "low" in words:
            return "low", detail, flags
        return ("negative" if neg else "positive" if pos else None), detail, flags
    if marker == "MSI":
        if "high" in words or "unstable" in words or pos:
            return "high", detail, flags
        if "low" in words:
            return "low", detail, flags
        if "stable" in words or neg:
            return "stable", detail, flags
        return None, detail, flags
    if marker == "MMR":
        if prefix_status in ("deficient", "proficient"):
            return prefix_status, detail, flags
        if any(w in ("deficient", "deficiency", "loss", "lost", "absent") for w in words):
            return "deficient", detail, flags
        if any(w in ("proficient", "intact", "retained", "preserved") for w in words):
            return "proficient", detail, flags
        return None, detail, flags
    return None, detail, flags


def _marker_of(name: str, text: str) -> tuple[str, str | None]:
    """(canonical marker, status implied by the name itself)."""
    t = text.upper().replace("-", "").replace(" ", "")
    if name == "MSI":
        if t == "MSIH" or "INSTABILITYHIGH" in t:
            return "MSI", "high"
        if t == "MSIL":
            return "MSI", "low"
        if t == "MSS" or "STABLE" in t:
            return "MSI", "stable"
        return "MSI", None
    if name in MUTATION_MARKERS and text.endswith("m"):
        return name, "mutated"  # "BRCA2m" (the name pattern takes a lower-case m only after the gene)
    if name == "MMR":
        if t.startswith("DMMR"):
            return "MMR", "deficient"
        if t.startswith("PMMR"):
            return "MMR", "proficient"
    return name, None


def _values_for(name: str, tok: str, ev: list[tuple[str, str]], prefix: str | None) -> tuple[list[str], dict, list[str]]:
    """MARKER=STATUS values one marker name gets from the evidence."""
    if name == "TNBC":
        return ["ER=negative", "PR=negative", "HER2=negative"], {}, []
    if name in ("BRCA", "RAS"):
        out = []
        for b in (("BRCA1", "BRCA2") if name == "BRCA" else ("KRAS", "NRAS")):
            st, _, _ = _status(b, ev, prefix)
            if st:
                out.append(f"{b}={st}")
        return out, {}, []
    marker, implied = _marker_of(name, tok)
    st, det, fl = _status(marker, ev, prefix)
    st = st or implied
    protein = _MMR_PROTEIN.fullmatch(tok.strip())
    if marker == "MMR" and protein:
        det = {**det, "protein": protein.group(1).upper() + protein.group(2)}
    return ([f"{marker}={st}"] if st else []), det, fl


_MMR_PROTEIN = re.compile(r"(MLH|PMS|MSH)-?(\d)", re.I)


def results_pending(values) -> bool:
    """Every ``MARKER=STATUS`` value a result still awaited ("EGFR=pending"): the marker was sent, its
    result is not known. O(values)."""
    return bool(values) and all(v.endswith("=pending") for v in values)


def mmr_loss_wins(items: list[tuple[str, dict]]) -> list[int]:
    """Which of one day's MMR statements (status, detail) stand: the loss of any one protein is a deficient
    MMR system (CAP), so protein-level "intact" statements beside a loss ("MLH1 intact, PMS2 intact, MSH2
    intact, MSH6 loss") are no conflict; a whole-system statement ("pMMR") against "dMMR" still is.
    Returns the indexes kept. O(n)."""
    lost = any(st == "deficient" for st, _ in items)
    if lost and all(d.get("protein") for st, d in items if st == "proficient"):
        return [i for i, (st, _) in enumerate(items) if st != "proficient"]
    return list(range(len(items)))


# a variant a test names: a protein change (L858R, G12C, V600E), a deletion, insertion, skipping or fusion
_NAMED_VARIANT = re.compile(r"\b[A-Z]\d{2,4}[A-Z*]|\bdel|\bins|\bskip|\bfusion|\bdup", re.I)


def variant_found_wins(items: list[tuple[str, dict]]) -> list[int]:
    """Which of a gene's mutation statements (status, detail) stand: a variant found ("EGFR L858R:
    DETECTED") makes the gene mutated, and a named other variant ruled out beside it ("EGFR T790M / exon 20
    insertion: not detected") says only that this variant is absent, no conflict; a plain "EGFR wild-type"
    against "EGFR mutated" still is. Returns the indexes kept. O(n)."""
    found = any(st == "mutated" for st, _ in items)
    if found and any(st == "wild-type" for st, _ in items) and all(
            _NAMED_VARIANT.search(d.get("alteration") or "") for st, d in items if st == "wild-type"):
        return [i for i, (st, _) in enumerate(items) if st != "wild-type"]
    return list(range(len(items)))


_NUMBER_CELL = re.compile(r"(?<=\|)(?P<cell>[ \t]*(?:exons?|codons?|ex)?[ \t]*\d{1,3}(?:[ \t]*(?:,|/|-|–|&|and)[ \t]*\d{1,3})*[ \t]*)(?=\|)",
                          re.I)


# "KRAS exons 2, 3, 4 - wild type": the exons or codons a test covered, listed, say what was looked at
_NUMBER_LIST = re.compile(r"\b(?:exons?|codons?)\s*\d{1,3}(?:\s*(?:,|&|and|/|-|–|to)\s*\d{1,3})+\b(?!\s*(?:del|ins|dup|skip|mut|[A-Z]\d))",
                          re.I)


# "ISH: HER2/CEP17 ratio 1.3, mean HER2 copy number 3.4 signals/cell - NOT AMPLIFIED": the probe pair names the
# ratio and the copy number is the count behind it, not another HER2 statement; blanked (offsets kept) so the
# ISH reads on to its result
_ISH_COUNTS = re.compile(r"(?<![A-Za-z0-9])(?:HER2|ERBB2)\s*/\s*CEP\s?17(?=\s*ratio)|"
                         r"(?:(?:mean|average|avg)\s+)?(?:HER2|ERBB2)\s+(?:gene\s+)?copy\s+(?:number|no\.?)\s*(?:of\s*)?:?\s*"
                         r"\d+(?:\.\d+)?(?:\s*(?:signals?\s*)?/\s*(?:tumou?r\s+)?(?:cells?|nucle(?:us|i)))?", re.I)


# "KRAS: absence of mutation detected", the French "absence de mutation" glossed: no variant, as "no mutation"
# (the words' length kept); "absence of MLH1 expression" stays a loss
_ABSENT_VARIANT = re.compile(r"\babsence\s+of(?=\s+(?:(?:any|likely|pathogenic|reportable)\s+){0,2}"
                             r"(?:mutations?|alterations?|variants?|fusions?|rearrangements?)\b)", re.I)


def _no_variant(m: re.Match) -> str:
    """"absence of" → "no" and blanks, offsets kept."""
    return "no" + " " * (len(m.group()) - 2)


def _blank_number_cells(text: str) -> str:
    """"| KRAS | 2, 3, 4 | wild-type |", "KRAS exons 2, 3, 4 - wild type": a table cell or a list holding
    only the exons or codons tested (or an ISH's probe pair and copy number) says what was looked at, not a
    result; blanked (offsets kept) so the statement reads from its marker to its result. O(len(text))."""
    text = _NUMBER_CELL.sub(_spaces, text) if "|" in text else text
    text = _ISH_COUNTS.sub(_spaces, text) if "CEP" in text.upper() or "opy" in text else text
    text = _ABSENT_VARIANT.sub(_no_variant, text) if "bsence" in text else text
    return _NUMBER_LIST.sub(_spaces, text) if "xon" in text or "odon" in text else text


def _spaces(m: re.Match) -> str:
    """A match blanked, its offsets kept."""
    return " " * len(m.group())


def find_biomarkers(text: str) -> list[BiomarkerFinding]:
    """Biomarker statements with normalized values. Handles "ER 80% / PR 5%", "ER+/PR-", "ER/PR
    positive" (one statement, two values), "ALK, ROS1 and KRAS negative" and "negative for EGFR, ALK and
    ROS1" (one statement per marker), "HER2 2+ by IHC, FISH amplified", "TNBC", "MLH1 and PMS2 show loss of
    nuclear expression", "MSS", "PD-L1 TPS 60%", "EGFR L858R mutated", "HER2: not performed". O(len(text))."""
    # an antibody clone or the codons a panel covers ("ALK IHC (D5F3) negative", "KRAS (codons 12, 13, 61):
    # no mutation") sit between a marker and its result: read past them (blanked, offsets kept)
    text = _blank_number_cells(_DETAIL_PAREN.sub(_spaces, _SAMPLE_PAREN.sub(_spaces, _METHOD_PAREN.sub(_spaces, text))))
    tokens = []
    for m in _TOKEN.finditer(text):
        kind = next(k for k, v in m.groupdict().items() if v is not None and not k.endswith("_n"))
        tokens.append((kind, m.start(), m.end(), m.group()))
    findings: list[BiomarkerFinding] = []
    # markers listed under a negative label, up to the end of its line or sentence
    listed: set[int] = set()
    labels: list[tuple[int, int]] = []
    for lab in _NEGATIVE_LIST.finditer(text):
        labels.append((lab.start(), lab.end()))
        end = _list_end(text, lab.end())
        listed |= {t[1] for t in tokens if t[0].startswith("M_") and lab.end() <= t[1] < end}
    for lab in _NO_LIST.finditer(text):
        items = [t for t in tokens if t[0].startswith("M_") and lab.start("list") <= t[1] < lab.end("list")]
        if len(items) > 1:  # one marker ("no EGFR mutation") is read as before
            listed |= {t[1] for t in items}
            labels.append((lab.end("list"), lab.end()))
    i, n = 0, len(tokens)
    prefix_status: str | None = None
    prefix_word = ""
    prefix_start: int | None = None
    prefix_end = -1
    while i < n:
        kind, start, end, tok = tokens[i]
        if kind == "prefix":
            prefix_status, prefix_start, prefix_end = _prefix_status(tok), start, end
            prefix_word = tok.lower()
            i += 1
            continue
        if start in listed and kind.startswith("M_"):
            name = _MARKER_NAMES[int(kind[2:])][0]
            values, detail, flags = _values_for(name, tok, [("status", "negative")], None)
            if values:
                findings.append(BiomarkerFinding(start, end, tuple(dict.fromkeys(values)), detail, tuple(flags)))
            i += 1
            continue
        if not kind.startswith("M_"):
            if kind == "sep" and tok.strip() in (".", ";"):
                prefix_status = None
            i += 1
            continue
        # markers joined by "/", ",", "and", "or" (a marker that states its own result stands alone;
        # a parenthesized synonym, "HER2 (ERBB2)", is the same marker)
        group, seps = [tokens[i]], []
        j = i + 1
        while j < n:
            if tokens[j][0] == group[-1][0] and text[group[-1][2]:tokens[j][1]].strip() == "(":
                j += 1  # "HER2 (ERBB2)": one marker
                continue
            if tokens[j][0] == "variant" and j + 2 < n and _gap_ok(text, group[-1][2], tokens[j][1]) \
                    and (prefix_status == "negative" or _list_then_shared(tokens, j, i)) \
                    and tokens[j + 1][0] == "sep" and tokens[j + 1][3].strip().lower() in ("/", ",", "and", "&", "or") \
                    and tokens[j + 2][0].startswith("M_"):
                j += 1  # "no EGFR, BRAF, MET ex14 skipping, RET ... alterations", "KRAS, BRAF V600E, MET ex14
                # skipping: not detected": under a negative prefix, or before a result the list shares, the
                # list goes on past an item's variant (elsewhere a variant is a result: "KRAS G12D, BRAF wt")
                continue
            if j + 1 < n and tokens[j][0] == "sep" and tokens[j][3].strip().lower() in ("/", ",", "and", "&", "or") \
                    and tokens[j + 1][0].startswith("M_") and _gap_ok(text, tokens[j - 1][2], tokens[j][1]) \
                    and _gap_ok(text, tokens[j][2], tokens[j + 1][1]) \
                    and not _SELF_STATED.match(group[-1][3]) and not _SELF_STATED.match(tokens[j + 1][3]) \
                    and not (prefix_status and tokens[j][3].strip() == "," and j + 2 < n
                             and tokens[j + 2][0] in _MEASURES and _gap_ok(text, tokens[j + 1][2], tokens[j + 2][1])):
                # ("no EGFR/ALK/ROS1/BRAF, PD-L1 75%": the list under "no" ends at a marker with its own measure)
                seps.append(tokens[j][3].strip().lower())
                group.append(tokens[j + 1])
                j += 2
                continue
            break
        # "KRAS G12C inhibitor": a variant then a drug class names the drug too
        variant_then_class = j < n and tokens[j][0] == "variant" and not text[group[-1][2]:tokens[j][1]].strip() \
            and _DRUG_CLASS_AFTER.match(text, tokens[j][2])
        if _DRUG_CLASS_AFTER.match(text, group[-1][2]) or variant_then_class:
            prefix_status, prefix_end = None, -1
            i = j
            continue
        # the evidence after the group, up to a boundary
        ev: list[tuple[str, str]] = []
        last = max(group[-1][2], tokens[j - 1][2]) if j > i else group[-1][2]
        k = j
        while k < n:
            kk, ks, ke, kt = tokens[k]
            if not _gap_ok(text, last, ks) or kk.startswith("M_") or any(a <= ks < b for a, b in labels):
                break
            if kk == "status" and _PENDING_WORDS.fullmatch(kt.strip()) and re.search(r"\breflex", text[last:ks], re.I):
                break  # "HER2 ISH: reflex dual-probe ISH ordered": the reflex test is awaited, not a result
            if kk == "prefix":
                low = kt.lower()
                if low.startswith(("loss", "absence")) and k + 1 < n and tokens[k + 1][0].startswith("M_") \
                        and _gap_ok(text, ke, tokens[k + 1][1]) and not ev and all(
                            _marker_of(_MARKER_NAMES[int(g[0][2:])][0], g[3])[1] is None for g in group):
                    # "MMR IHC: loss of MLH1 and PMS2": the loss is the proteins' (their statement); "dMMR
                    # with loss of MSH2/MSH6" states its own status, the loss is its detail
                    break
                if low.startswith(("loss", "absence")):
                    ev.append(("status", "loss"))
                elif low.startswith(("intact", "retained", "preserved")):
                    ev.append(("status", "intact"))
                elif low in ("deficient", "proficient"):
                    ev.append(("status", low))
                elif low in ("no", "without") and not ev and k + 1 < n and tokens[k + 1][0] == "variant" \
                        and _gap_ok(text, ke, tokens[k + 1][1]):
                    # "MET: no exon 14 skipping", "EGFR: no L858R": the alteration looked for is not there
                    ev.append(("status", "not detected"))
                    last = tokens[k + 1][2]
                    k += 2
                    continue
                else:
                    break
                last = ke
                k += 1
                continue
            if kk == "sep":
                sep = kt.strip().lower()
                if sep == "|" and ev and all(e[0] == "variant" or e[0] == "status" and _LOOKED_FOR.match(e[1])
                                             for e in ev):
                    last = ke  # "| BRAF V600E | not detected |": the first cell names what was looked for
                    k += 1
                    continue
                if sep == ";" and ev and _REFLEX_ISH.match(text, ke):
                    last = ke  # "HER2: IHC 2+ (equivocal); reflex FISH not amplified": the same marker's ISH
                    k += 1
                    continue
                if sep in (".", ";") or sep in ("but", "with", "|") and ev:
                    break  # a table's next cell ("| stable (MSS) | 1.2% unstable loci |") is another column
                if sep in (",", "/") and (ev or k + 1 < n and "\n" in text[ke:tokens[k + 1][1]]) \
                        and not _continues(tokens, k + 1, n, text):
                    break
                last = ke
                k += 1
                continue
            ev.append((kk, kt))
            last = ke
            k += 1
        if ev and prefix_end < 0 and all(k == "status" and _ALTERATION_NOUN.match(t.strip()) for k, t in ev) \
                and not _TOPIC_AFTER.match(text, last) and not _TOPIC_BEFORE.search(text[max(0, group[0][1] - 30):group[0][1]]):
            ev = [("status", "detected")]  # "given KRAS mutation", "germline BRCA1 mutation": the patient's own
        span_end = last if ev else group[-1][2]
        span_end = group[-1][2] + len(text[group[-1][2]:span_end].rstrip())  # "no mutation " ends at its word
        if text.count("(", group[0][1], span_end) > text.count(")", group[0][1], span_end):
            close = text.find(")", span_end, span_end + 15)
            span_end = close + 1 if close >= 0 else span_end
        adjacent = prefix_end >= 0 and _gap_ok(text, prefix_end, group[0][1])
        # "no" / "without" reach only the marker right after them ("no new lesions - PR" is a response)
        use_prefix = prefix_status if adjacent or (not ev and prefix_word not in ("no", "without")) else None
        names = [_MARKER_NAMES[int(g[0][2:])][0] for g in group]
        if use_prefix == "negative" and prefix_word in ("no", "without") and not ev and \
                (_NO_RESULT.match(text[group[-1][2]:group[-1][2] + 40])
                 or (prefix_start is not None and _STILL.search(text[max(0, prefix_start - 12):prefix_start]))
                 or (all(_marker_of(nm, g[3])[0] in _EXPRESSION for nm, g in zip(names, group))
                     and not _STAINED.match(text[group[-1][2]:group[-1][2] + 30]))):
            # "no EGFR, ALK or ROS1 status yet", "no PD-L1", "report has no ER, PR or HER2": no result (a
            # stain's negative is written as a result, "no PD-L1 expression"; a gene panel's "no EGFR, ALK"
            # is its negative)
            use_prefix, ev = None, [("status", "not tested")]
        if adjacent and re.match(r"no\s+known", prefix_word):
            use_prefix, ev = None, [("status", "not tested")]  # "no known BRCA carriers": not known, not negative
        per_marker = len(group) > 1 and (use_prefix is not None or any(sep != "/" for sep in seps))
        if per_marker and {_marker_of(nm, g[3])[0] for nm, g in zip(names, group)} == {"MMR"} and use_prefix:
            per_marker = False  # "loss of MLH1 and PMS2": one MMR statement
        if per_marker:
            # "ALK, ROS1 and KRAS negative", "negative for EGFR, ALK and ROS1": one statement per marker,
            # the last one reaching to the result
            for idx, (name, g) in enumerate(zip(names, group)):
                values, det, fl = _values_for(name, g[3], ev, use_prefix)
                if values:
                    e = span_end if idx == len(group) - 1 else g[2]
                    findings.append(BiomarkerFinding(g[1], e, tuple(dict.fromkeys(values)), det, tuple(fl)))
        else:
            values, detail, flags = [], {}, []
            for name, g in zip(names, group):
                v, det, fl = _values_for(name, g[3], ev, use_prefix)
                values += v
                detail.update(det)
                flags += fl
            if values:
                begin = prefix_start if use_prefix and adjacent and prefix_start is not None else group[0][1]
                findings.append(BiomarkerFinding(begin, span_end, tuple(dict.fromkeys(values)), detail, tuple(flags)))
        i = max(k, j, i + 1)
    return findings + _awaited_markers(text, tokens, findings)


_AWAITED = re.compile(r"\b(?:requested|sent|to\s+follow|pending|awaited|awaiting|ordered|in\s+process|"
                      r"to\s+be\s+(?:drawn|sent|done|tested|performed))\b", re.I)
_NOT_AWAITED = re.compile(r"\b(?:not|never|n't)\s+(?:been\s+)?(?:requested|sent|ordered|done|performed)\b", re.I)
# the clause reports a result after all ("testing ordered by the surgeon returned a pathogenic BRCA1 variant")
_RESULT_WORD = re.compile(r"\b(?:pathogenic|detected|positive|negative|mutated|mutation|variant|amplified|returned|"
                          r"revealed|showed|shows|wild[- ]?type)\b", re.I)
_CLAUSE_EDGE = re.compile(r"[.;\n](?:\s|$)")
_MAYBE_BEFORE = re.compile(r"\b(?:can|could|may|might|would|should|if|whether|consider)\s+(?:\w+\s+){0,2}$", re.I)
_NOT_STATUS_TEST = re.compile(r"\s*(?:promoter|methylation|hypermethylation|germline|IHC\s+(?:stain|panel))", re.I)


def _awaited_markers(text: str, tokens, findings: list[BiomarkerFinding]) -> list[BiomarkerFinding]:
    """Markers named with no result of their own in a clause that says a test is awaited ("Tissue sent for
    NGS (lung panel incl. EGFR, ALK, ROS1, KRAS) - report to follow", "EGFR / ALK on resection specimen
    requested"): each is pending ("repeat ER/PR/HER2 ... ordered": one statement); in a clause that says
    the test was not requested, not tested. Not a drug's target ("EGFR TKI", "anti-HER2 therapy"), nor
    another test of the gene ("MLH1 promoter methylation: sent"), nor a clause that reports a result.
    O(tokens)."""
    groups: list[list] = []
    for kind, start, end, tok in tokens:
        if not kind.startswith("M_") or any(f.start <= start < f.end for f in findings):
            continue
        if _DRUG_CLASS_AFTER.match(text, end) or _NOT_STATUS_TEST.match(text, end) or \
                re.search(r"anti-?\s*$", text[max(0, start - 6):start], re.I):
            continue
        if groups and re.fullmatch(r"\s*/\s*", text[groups[-1][-1][2]:start]):
            groups[-1].append((kind, start, end, tok))
        else:
            groups.append([(kind, start, end, tok)])
    out = []
    for group in groups:
        start, end = group[0][1], group[-1][2]
        edges = [e.end() for e in _CLAUSE_EDGE.finditer(text, 0, start)]
        stop = _CLAUSE_EDGE.search(text, end)
        clause = text[edges[-1] if edges else 0:stop.start() if stop else len(text)]
        awaited = [a for a in _AWAITED.finditer(clause) if not _MAYBE_BEFORE.search(clause[:a.start()])]
        if not awaited or _RESULT_WORD.search(clause):
            continue  # "MMR/MSI can be requested on a future resection": a possibility, nothing is awaited
        status = "not tested" if _NOT_AWAITED.search(clause) else "pending"
        values, detail, flags = [], {}, []
        for kind, _, _, tok in group:
            v, d, f = _values_for(_MARKER_NAMES[int(kind[2:])][0], tok, [("status", status)], None)
            values += v
            detail.update(d)
            flags += f
        if values:
            out.append(BiomarkerFinding(start, end, tuple(dict.fromkeys(values)), detail, tuple(flags)))
    return out

_NEGATIVE_STATUS = re.compile(r"^(?:negative|neg|not\s+detected|none\s+detected|undetected|not\s+identified|"
                              r"not\s+(?:mutated|mutant|rearranged|altered)|"
                              r"wild[- ]?type|WT|no\s+.*)$", re.I)


#: one alteration named after its gene, in the singular: the patient's ("KRAS mutation"); a plural is a list
#: heading or what was looked for ("EGFR mutations: none")
_ALTERATION_NOUN = re.compile(r"^(?:mutation|fusion|rearrangement|translocation|amplification)$", re.I)
#: ... unless the words around make it a topic: "KRAS mutation testing", "KRAS mutation: not detected",
#: "test for EGFR mutation", "no EGFR mutation", "if BRAF mutation"
_TOPIC_AFTER = re.compile(r"\s*(?:[:=(|]|-\s|status|test\w*|analys[ie]s|panel|screen\w*|assay|results?|report\w*|"
                          r"pending|awaited|negative|neg\b|not\b|was\b|is\b|were\b|are\b|absent|none|wild|carriers?\b|"
                          r"and\b|or\b|/|,\s*(?:ALK|ROS1|EGFR|KRAS|BRAF|MET|RET|NTRK|HER2))", re.I)
_TOPIC_BEFORE = re.compile(r"\b(?:no|not|non|without|test(?:ing|ed|s)?|for|if|whether|any|check\w*|assess\w*|"
                           # "NGS panel incl ALK fusion": what the panel covers
                           r"incl\.?|including|covering|"
                           r"screen\w*|send|sent|request\w*|rule\s+out|r/o|exclude|look\w*|unknown|possible|"
                           r"suspected|\?)\s*(?:germline\s+|somatic\s+|an?\s+|the\s+|activating\s+)?$", re.I)
# "| HER2 | amplification | not amplified |": a table's middle cell names what was looked for
_LOOKED_FOR = re.compile(r"^(?:mutations?|alterations?|variants?|fusions?|rearrangements?|translocation|"
                         r"amplification)$", re.I)


_LIST_STOP = re.compile(r"\n|(?<!\bincl)(?<!\be\.g)(?<!\bi\.e)(?<!\bvs)(?<!\bapprox)\.(?:\s|$)|;")  # "MET (incl. exon 14)" goes on
# a segment after ";" that says a result of its own ("; KRAS G12C detected", "; PD-L1: 60%") starts a new statement
_OWN_RESULT = re.compile(r"[:+]|\d\s*%|\b(?:pos\w*|detected|identified|found|present|mutated|mutant|amplified|"
                         r"high|low|loss|lost|deficient|proficient|stable|unstable|intact|retained|equivocal|wild|"
                         r"wt|pending|awaited|not\s+(?:done|tested|performed))\b", re.I)


def negative_label_only(text: str) -> bool:
    """Is this line only a label giving one negative result to the markers listed under it ("Negative
    for:", "NOT DETECTED:")?"""
    m = _NEGATIVE_LIST.match(text)
    return bool(m) and not text[m.end():].strip()


def _list_end(text: str, start: int) -> int:
    """Where a negative label's list that begins at ``start`` ends: its line or sentence, or past a ";"
    when the next segment only names more markers ("NOT DETECTED: ALK, ROS1 fusions; KRAS, BRAF V600E,
    MET exon 14 skipping mutations"); a label that ends its line ("Negative for:") heads the indented or
    bulleted lines under it. O(line length)."""
    head = re.match(r"[ \t]*\n", text[start:])
    if head:
        pos = end = start + head.end()
        while pos < len(text):
            line_end = text.find("\n", pos)
            line_end = len(text) if line_end < 0 else line_end
            line = text[pos:line_end]
            if not re.match(r"[ \t]+\S|[-•*]\s", line):
                break
            stop = re.search(r"\.(?:\s|$)|;", line)
            if stop:
                return pos + stop.start()
            end, pos = line_end, line_end + 1
        return end
    while True:
        stop = _LIST_STOP.search(text, start)
        if stop is None:
            return len(text)
        if stop.group() != ";":
            return stop.start()
        nxt = _LIST_STOP.search(text, stop.end())
        segment = text[stop.end():nxt.start() if nxt else len(text)]
        if _OWN_RESULT.search(segment) or not may_hold_biomarker(segment):
            return stop.start()
        start = stop.end()


def _list_then_shared(tokens, j: int, first: int | None = None) -> bool:
    """The list that goes on from token ``j`` ends, in its clause, with a result the whole list shares:
    ": <negative result>" ("KRAS, BRAF V600E, MET ex14: not detected"), a pending or not-tested word
    ("BRAF V600E and MLH1 methylation testing have been sent"), or a negative result after the last marker
    when the list (from token ``first``) names two or more variants: drivers rarely occur together, so
    "BRAF V600E, MET ex14 skipping, KRAS, ERBB2 not detected" lists what was looked for, while "EGFR L858R,
    ALK, ROS1 negative" keeps its one variant as a result. O(clause)."""
    variants = sum(1 for t in tokens[first if first is not None else j:j + 1] if t[0] == "variant")
    for k in range(j, len(tokens)):
        kind, _, _, tok = tokens[k]
        if kind == "sep" and tok.strip() in (".", ";", "|"):
            return False
        if kind == "variant" and k > j:
            variants += 1
        if kind == "status" and re.search(f"{_PENDING}|{_NOT_TESTED}", tok, re.I):
            return True
        if kind == "sep" and tok.strip() == ":" and k + 1 < len(tokens):
            nxt = tokens[k + 1]
            return nxt[0] == "status" and bool(_NEGATIVE_STATUS.match(nxt[3].strip()))
        if kind == "status" and first is not None:
            last_own = tokens[k - 1][0] == "variant"  # the last item's own variant is not an earlier one
            if tokens[k - 1 - last_own][0].startswith("M_") and variants - last_own >= 2:
                return bool(_NEGATIVE_STATUS.match(tok.strip()))
    return False


def _prefix_status(tok: str) -> str:
    low = tok.lower()
    if low.startswith("positive"):
        return "positive"
    if low.startswith(("loss", "absence", "deficient")):
        return "deficient"
    if low.startswith(("intact", "retained", "preserved", "proficient")):
        return "proficient"
    return "negative"


def _gap_ok(text: str, a: int, b: int) -> bool:
    gap = text[a:b]
    return not gap.strip() or bool(_FILLER.match(gap)) or (len(gap.strip()) <= 1 and gap.strip() in ":=()-—–") \
        or gap.strip() == "--"


_NOT_MARKER_LEVEL = re.compile(r"\s*(?:-\s*)?(?:risk|grade|dose|volume|burden|TMB|tumou?r\s+mutational|suspicion|"
                               r"probability|likelihood)\b", re.I)


def _continues(tokens, k, n, text: str = "") -> bool:
    """After ", " or "/": does more evidence for the same marker follow (not a new marker)? Not a
    "high"/"low" that qualifies something else ("BRCA2 carrier, high risk for breast cancer", "MSS,
    low TMB")."""
    if k < n and tokens[k][0] == "status" and tokens[k][3].strip().lower() in ("high", "low") \
            and (_NOT_MARKER_LEVEL.match(text, tokens[k][2]) or "\n" in text[tokens[k - 1][2]:tokens[k][1]]):
        return False  # (nor a "high"/"low" opening the next line: "blood PR,\nLOW ~8 kg" is weight loss)
    if k < n and tokens[k][0] == "status" and _PENDING_WORDS.fullmatch(tokens[k][3].strip()):
        return False  # "HER2 IHC 2+ (equivocal), reflex FISH sent": a test still to report, not this result
    return k < n and tokens[k][0] in ("status", "pct", "ihc", "ratio", "variant", "allred", "tps", "cps", "zero")


_PENDING_WORDS = re.compile(_PENDING, re.I)
_MEASURES = ("pct", "tps", "cps", "ihc", "ratio", "allred")
_REFLEX_ISH = re.compile(r"\s*(?:reflex(?:ed)?\s+)?(?:(?:dual(?:[- ](?:probe|colou?r))?|DP|bright[- ]?field|chromogenic)\s+)?"
                         r"(?:F|C|S|DD)?ISH\b(?![^;.\n]{0,40}?\b(?:"
                         + _PENDING + r")\b)", re.I)


def marker_satisfies(required: str, observed: str) -> bool | None:
    """Does an observed status satisfy a guideline condition's status for the same marker?
    "positive" is met by high and low PD-L1; "low" (MSI) is met by stable or low; HER2 "negative" is not
    decided by "equivocal" (None: unknown until ISH). Returns True/False/None (undecidable)."""
    if observed in ("pending", "invalid", None):
        return None
    if required == observed:
        return True
    if required == "positive" and observed in ("high", "low"):
        return True
    if required in ("low", "stable") and observed in ("low", "stable"):
        return True
    if observed == "equivocal":
        return None
    return False


# -- structured observations (FHIR) ------------------------------------------------------------------------------
_QUALIFIER = re.compile(r"\((?:qualifier value|finding|observable entity)\)|American Joint Committee on Cancer", re.I)
_ISH_RATIO = re.compile(r"(?P<op>greater than|more than|>=?|less than|<=?)\s*(?P<x>\d+(?:\.\d+)?)", re.I)


def observation_values(kind: str, display: str, value: str | None) -> tuple[tuple[str, ...], dict]:
    """Normalized values of a coded observation, so that structured facts are stored exactly like note
    facts: a biomarker result ("Estrogen+Progesterone receptor Ag [Presence] ..." = "Positive (qualifier
    value)") → ("ER=positive", "PR=positive"); a stage observation ("Stage group.clinical" = "Stage 2")
    → ("II",) with its basis; a TNM class ("Primary tumor.clinical" = "cT1") → ("cT1",); a diagnosis that
    names its stage ("Non-small cell carcinoma of lung, TNM stage 1") → ("I",). ((), {}) when nothing
    is recognized. O(len(display) + len(value))."""
    text = _QUALIFIER.sub(" ", value or "").strip()
    if kind == "Biomarker":
        names = ("ER", "PR") if re.search(r"estrogen\s*\+\s*progesterone", display, re.I) else \
            tuple(dict.fromkeys(name for name, rx in _MARKER_NAMES if name not in ("TNBC", "RAS", "BRCA")
                                and re.search(rf"(?<![A-Za-z0-9])(?:{rx})(?![A-Za-z])", display, re.I)))[:1]
        m = _ISH_RATIO.search(text)
        if m and names == ("HER2",):
            x, greater = float(m.group("x")), m.group("op").lower().startswith(("greater", "more", ">"))
            text = "FISH amplified" if greater and x >= 2.0 else "FISH not amplified" if not greater and x <= 2.0 \
                else "equivocal"
        values, detail = [], {}
        for name in names:
            for b in find_biomarkers(f"{name} {text}"):
                values += [v for v in b.values if v.split("=", 1)[0] == name]
                detail.update(b.detail)
        return tuple(dict.fromkeys(values)), detail
    if kind in ("Stage", "Cancer"):
        source = text if kind == "Stage" else display
        basis = "clinical" if re.search(r"\.clinical|clinical", display, re.I) else \
            "pathological" if re.search(r"patholog", display, re.I) else None
        found = find_stages(source)
        if not found and kind == "Stage":
            m = re.fullmatch(r"([cp]|yp)?(M[01][a-d]?|M[xX])", source.strip())
            if m:
                return ((m.group(1) or "") + m.group(2),), {"basis": basis, "m": m.group(2)} if basis else {"m": m.group(2)}
        if not found:
            return (), {}
        f = found[0]
        detail = {"basis": f.basis or basis} if (f.basis or basis) else {}
        if f.tnm:
            detail.update({k: v for k, v in (("t", f.tnm.t), ("n", f.tnm.n), ("m", f.tnm.m)) if v})
        return (f.value,), detail
    return (), {}


def derived_markers(markers: dict[str, str]) -> dict[str, str]:
    """Markers that follow from others, as guidelines use them: HR is positive when ER or PR is
    positive and negative when both are negative; MSI-H and dMMR state the same fact (so do MSS/MSI-L
    and pMMR). Only markers not stated themselves are returned. O(1)."""
    out: dict[str, str] = {}
    er, pr = markers.get("ER"), markers.get("PR")
    if "HR" not in markers:
        if "positive" in (er, pr):
            out["HR"] = "positive"
        elif er == "negative" and pr == "negative":
            out["HR"] = "negative"
    if "MSI" not in markers and markers.get("MMR") in ("deficient", "proficient"):
        out["MSI"] = "high" if markers["MMR"] == "deficient" else "stable"
    if "MMR" not in markers and markers.get("MSI") in ("high", "stable", "low"):
        out["MMR"] = "deficient" if markers["MSI"] == "high" else "proficient"
    return out
