"""The primary site of a coded cancer, from its codes and their is-a ancestors.

The one owner of "which organ is this cancer of" for everything that reads the graph: a lung
adenocarcinoma coded DOID:3910 is a lung cancer because DOID:3910 ⊂ … ⊂ DOID:1324; C50.912 is a breast
cancer because it sits under C50. Structured facts coded only in SNOMED CT (no hierarchy shipped) fall
back to the site word of their display name.
"""

from __future__ import annotations

import re

#: Disease Ontology site concepts (most specific first) and their site.
DOID_SITES = (
    ("DOID:1993", "rectum"), ("DOID:219", "colon"), ("DOID:1521", "colon"), ("DOID:9256", "colorectal"),
    ("DOID:1612", "breast"), ("DOID:1324", "lung"),
)
#: ICD-10-CM categories and their site.
ICD_SITES = {"C50": "breast", "C34": "lung", "C18": "colon", "C19": "rectum", "C20": "rectum"}
#: Site groups guidelines are written for.
SITE_GROUP = {"breast": "breast", "lung": "lung", "colon": "colorectal", "rectum": "colorectal",
              "colorectal": "colorectal"}
_WORDS = (("rectum", r"\brect(?:um|al)\b|rectosigmoid"), ("colon", r"\bcolon\b|colonic|\bcecum\b|sigmoid|colorectal"),
          ("breast", r"\bbreast\b|mammary"), ("lung", r"\blung\b|pulmonary|bronch"))
_SECONDARY = re.compile(r"metasta(?:sis|tic)\s+(?:\w+\s+){0,3}to\b|secondary", re.I)


def site_of(codes: tuple[str, ...] | list[str], ancestors: tuple[str, ...] | list[str] = (), text: str = "") -> str | None:
    """The site of a cancer from "SYSTEM|code" codes and ancestors; the display text as a last resort.
    A metastasis *to* an organ ("metastatic malignant neoplasm to colon") names no primary site.
    O(codes + ancestors)."""
    if text and _SECONDARY.search(text):
        return None
    keys = set(codes) | set(ancestors)
    for doid, site in DOID_SITES:
        if f"DOID|{doid}" in keys:
            return site
    for key in keys:
        system, _, code = key.partition("|")
        if system == "ICD-10-CM" and code[:3] in ICD_SITES:
            return ICD_SITES[code[:3]]
    for site, rx in _WORDS:
        if re.search(rx, text, re.I):
            return site
    return None


def site_group(site: str | None) -> str | None:
    """breast | lung | colorectal (the guideline family), or None."""
    return SITE_GROUP.get(site or "")


# -- imaging regions ---------------------------------------------------------------------------------------------
#: body-region words of an imaging test as written ("CT abdomen/pelvis", "CT C/A/P", "MRI brain") → regions
_REGION_WORDS = (
    ("chest", r"\bchest\b|thora(?:x|cic)\b|\blungs?\b|\bCXR\b|mediastin\w*"),
    ("abdomen", r"\babd(?:omen|ominal)?\b|\bliver\b|hepatic|\bA/P\b"), ("pelvis", r"\bpelvi[sc]\b|\bA/P\b"),
    ("chest", r"\bC/?A/?P\b|\bCAP\b|\bTAP\b"), ("abdomen", r"\bC/?A/?P\b|\bCAP\b|\bTAP\b"),
    ("pelvis", r"\bC/?A/?P\b|\bCAP\b|\bTAP\b"), ("brain", r"\bbrain\b|\bhead\b|cranial"),
    ("breast", r"\bbreasts?\b|axill\w*|mammo\w*"), ("neck", r"\bneck\b|thyroid"), ("spine", r"spine|spinal|[CLT]-spine"),
    ("bone", r"\bbones?\b|skeletal"), ("whole body", r"whole\s+body"),
    ("limb", r"\b(?:shoulder|elbow|wrist|hand|fingers?|hip|knee|ankle|foot|feet|toes?|leg|arm|femur|tibia|humerus|"
             r"extremit(?:y|ies))\b"),
    ("kidney", r"\bkidneys?\b|\brenal\b|\bbladder\b|\bprostate\b"),
    # a vascular study ("CT angiography" in a stroke admission, "CTPA" for a clot) surveys no cancer
    ("vessels", r"angiogra\w*|\bCTA\b|\bCTPA\b|venogra\w*|\bdoppler\b|\bduplex\b"))
#: the regions whose imaging can be a site's care (staging, response, surveillance); another region's scan
#: ("CT abdomen/pelvis for a kidney stone" in a lung cancer record) is not
SITE_REGIONS = {
    "lung": frozenset({"chest", "brain", "bone", "whole body"}),
    "breast": frozenset({"breast", "chest", "abdomen", "pelvis", "brain", "bone", "whole body"}),
    "colorectal": frozenset({"abdomen", "pelvis", "chest", "whole body"}),
}


#: the same regions (and contrast) as Spanish, Italian, Portuguese and French reports write them after "TC"/"TAC"
#: ("TC tórax y abdomen", "TAC de cráneo", "TC torace con mdc"); not yet read by :func:`imaging_regions`
_ROMANCE_SCAN_REGION = re.compile(r"\s+(?:(?:de|del|di|do|da|dos|des)\s+)?(?:t[oó]rax|thorax|torace|t[oó]raco\w*|"
                                  r"abd[oó]m\w*|addome|cr[aâá]n\w*|cerebral|enc[eé]falo|pelvis|pelve|bacino|cuello|"
                                  r"collo|pesco[cç]o|cabe[cç]a|cabeza|body|corps|t[eê]te|tap\b|con\s+contraste|"
                                  r"com\s+contraste|con\s+mdc|sin\s+contraste|sem\s+contraste)", re.I)


def scan_region_follows(text: str, end: int) -> bool:
    """Does a body region (or contrast) as a Romance-language scan report writes it follow ``end``?"""
    return bool(_ROMANCE_SCAN_REGION.match(text, end))


_REGION_NAME = (r"(?:chest|thorax|thoracic|abdomen|abdominal|abdo|pelvis|pelvic|brain|head|neck|liver|"
                r"spine|bones?|lungs?)")
# region names chained onto a scan's own words: "chest and abdomen CT", "CT chest/abdomen/pelvis"
_REGIONS_BEFORE = re.compile(rf"(?:\b{_REGION_NAME}\s*(?:,|/|&|-|\band\b)?\s*)+$", re.I)
_REGIONS_AFTER = re.compile(rf"^(?:\s*(?:,|/|&|-|\band\b)\s*{_REGION_NAME}\b)+", re.I)


def scan_span(text: str, start: int, end: int) -> tuple[int, int]:
    """A scan's words widened over the region names chained to them ("chest and abdomen CT": the CT is of
    both; "CT chest/abdomen"), so that :func:`imaging_regions` reads every region. O(1) windows."""
    before = _REGIONS_BEFORE.search(text[max(0, start - 40):start])
    after = _REGIONS_AFTER.match(text[end:end + 40])
    return (start - len(before.group()) if before else start), (end + len(after.group()) if after else end)


def imaging_regions(text: str) -> tuple[str, ...]:
    """The body regions an imaging test's words name, in a fixed order; () when none is written. O(len)."""
    return tuple(dict.fromkeys(r for r, rx in _REGION_WORDS if re.search(rx, text, re.I)))


def other_region(regions: tuple[str, ...] | list[str], group: str | None) -> bool:
    """Does a test written for these regions image nothing of a ``group`` cancer's regions?"""
    return bool(regions) and group in SITE_REGIONS and not set(regions) & SITE_REGIONS[group]

