"""Problems written as descriptions rather than names: "knee problems", "problems with his bladder",
"difficulty voiding", "decreased level of consciousness", "elevated blood sugar levels". Clinicians write
many findings this way; no vocabulary lists them, so they are recognized by their shape (a head word of
trouble or change plus what it applies to) and kept uncoded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEAD = r"(?:problems?|issues?|symptoms?|difficult(?:y|ies)|troubles?|dysfunctions?|complaints?|abnormalit(?:y|ies))"
_OWNER = r"(?:his|her|their|the|a|any|some)"
_NOUN = r"[A-Za-z][A-Za-z'\-]{2,}"
_TROUBLE = re.compile(
    rf"(?<![A-Za-z])(?:"
    rf"(?:(?:right|left|bilateral|lower|upper)\s+)?{_NOUN}(?:\s+{_NOUN})?\s+{_HEAD}"  # "right arm symptoms"
    rf"|{_HEAD}\s+(?:with|in|of)\s+(?:{_OWNER}\s+)?{_NOUN}(?:\s+(?:or|and)\s+{_NOUN})?"  # "problems with his bladder"
    rf"|(?:difficulty|trouble)\s+(?:with\s+)?(?:{_OWNER}\s+)?{_NOUN}(?:\s+{_NOUN})?"  # "difficulty voiding"
    rf")(?![A-Za-z])", re.I)
_CHANGE = re.compile(
    r"(?<![A-Za-z])(?:abnormal|elevated|decreased|diminished|limited|reduced|increased|impaired|worsening|poor)"
    r"(?:\s+[A-Za-z\-]+){0,3}?\s+(?:levels?|labs?|lab\s+findings?|findings?|results?|sensation|range\s+of\s+motion|"
    r"motion|consciousness|mental\s+status|status|function|strength|appetite|vision|hearing|sugars?|count|enzymes|"
    r"reflexes|breath\s+sounds|pulses|flexion|extension|mobility|balance|coordination|urine\s+output|intake)"
    r"(?![A-Za-z])", re.I)
# ("for symptom and local control": a function word is no body part or function the trouble is of)
_NOT_OWNER = re.compile(r"^(?:any|no|some|other|these|those|the|his|her|their|with|of|in|or|and|denies|"
                        r"reports|has|had|have|without|medical|health|new|major|for|to|from|about|at|on|by|as|if|"
                        r"when|than|many|few|all|more|such|own)\s", re.I)


@dataclass(frozen=True)
class DescribedProblem:
    start: int
    end: int


def find_described_problems(text: str) -> list[DescribedProblem]:
    """Problem phrases by shape. O(len(text))."""
    out = []
    for rx in (_CHANGE, _TROUBLE):
        for m in rx.finditer(text):
            start = m.start()
            chunk = m.group()
            lead = _NOT_OWNER.match(chunk)
            while lead:  # "any bladder problems" → "bladder problems"
                start += lead.end()
                chunk = text[start:m.end()]
                lead = _NOT_OWNER.match(chunk)
            if len(chunk.split()) >= 2:
                out.append(DescribedProblem(start, m.end()))
    return out


# Lymph nodes described by where they are and how they look ("enlarged L hilar nodes", "bulky subcarinal
# LN", "no supraclavicular nodes"): a finding, named by its site, never in a vocabulary as written
_NODE_LOOK = (r"(?:enlarged|bulky|prominent|hypermetabolic|FDG[- ]avid|avid|pathologic(?:al)?|necrotic|"
              r"matted|palpable|abnormal|contralateral|ipsilateral|multiple|several|bilateral|left|right|lt|rt|[LR])")
_NODE_SITE = (r"(?:axillary|hilar|mediastinal|supraclavicular|SCV|SCF|infraclavicular|cervical|neck|subcarinal|"
              r"paratracheal|pretracheal|prevascular|AP[- ]window|aortopulmonary|paraesophageal|pericolic|mesenteric|"
              r"mesorectal|perirectal|para-?aortic|retroperitoneal|inguinal|internal\s+mammary|iliac|obturator|"
              r"pelvic(?:\s+sidewall)?|portal|peripancreatic|celiac|intramammary)")
_NODE = re.compile(rf"(?<![\w-])(?:{_NODE_LOOK}\s+){{0,3}}{_NODE_SITE}(?:\s+\([^)\n]{{1,12}}\))?(?:\s+(?:and\s+)?{_NODE_SITE})?"
                   r"\s+(?:lymph\s+nodes?|nodes?|LNs?|LAD|lymphadenopathy|adenopathy)(?![\w-])"
                   r"(?!\s*(?:dissection|clearance|sampling|biopsy|bx|excision|FNA|count|status|:?\s*\(?\d+\s*(?:/|of)\s*\d))",
                   re.I)
_COUNTED = re.compile(r"\d+\s*(?:/|of)\s*\d+\s*$")


_DOUBT_BEFORE = re.compile(r"\b(?:suspicious|indeterminate|equivocal|borderline|possible|probable)\s+$", re.I)
_DOUBT_AFTER = re.compile(r"(?:[^.;\n]|\.(?=\d)){0,40}?\b(?:indeterminate|equivocal|suspicious)\b", re.I)


@dataclass(frozen=True)
class NodeFinding:
    start: int
    end: int
    doubt: bool  # "suspicious R axillary LN", "L paratracheal LN 0.9 cm, indeterminate": not yet a fact


def find_node_findings(text: str) -> list[NodeFinding]:
    """Lymph-node findings by shape: look, site, then node. A count of nodes examined ("0/13 axillary
    nodes", "axillary nodes: 2/15") is a pathology measure, not a finding. O(len(text))."""
    return [NodeFinding(m.start(), m.end(), bool(_DOUBT_BEFORE.search(text[max(0, m.start() - 16):m.start()])
                                                 or _DOUBT_AFTER.match(text, m.end())))
            for m in _NODE.finditer(text) if not _COUNTED.search(text[max(0, m.start() - 12):m.start()])]
