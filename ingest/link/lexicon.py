"""Terminology lexicon: surface forms → coded concepts, built from terminology files, not hand lists.

Sources (``ingest/link/data``):
- ``synthea_terms.tsv`` — SNOMED CT / RxNorm / LOINC codes with their display names as the Synthea
  modules emit them (made by ``tools/make_lexicon.py``);
- ``DO_cancer_slim.obo`` — Disease Ontology cancer terms (names and exact synonyms) with their
  NCIt / SNOMED CT / UMLS / ICD-10-CM cross-references (CC0);
- ICD-10-CM codes come from those cross-references and are checked against the code set;
- ``oncology_synonyms.tsv`` — a short curated list of everyday oncology terms ("lumpectomy",
  "chemoradiation") mapped to the same SNOMED CT codes, and named regimens (FOLFOX, AC-T) kept
  uncoded: a supplement, not the rule source;
- drug ingredient names are derived from the RxNorm clinical-drug displays ("letrozole" from
  "letrozole 2.5 MG Oral Tablet"); they are recognized as Medication mentions but left uncoded,
  because the ingredient's own RxNorm code is not in these sources and guessing a clinical drug
  would invent specificity.
A concept's ``kind`` follows its terminology: the SNOMED CT semantic tag, RxNorm → Medication,
LOINC → Test, Disease Ontology → Cancer.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
_TAG = re.compile(r"\s*\((disorder|finding|procedure|situation|morphologic abnormality|observable entity|"
                  r"regime/therapy|qualifier value|substance|body structure|person|event|record artifact|environment|assessment scale|physical object|specimen)\)\s*$", re.I)
_CANCER_WORDS = ("neoplasm", "cancer", "carcinoma", "malignan", "sarcoma", "lymphoma", "leukemia", "melanoma",
                 "tumor", "tumour", "adenoma")
_XREF = {"NCI": "NCIT", "SNOMEDCT_US_2024_03_01": "SNOMED-CT", "UMLS_CUI": "UMLS", "ICD10CM": "ICD-10-CM"}


@dataclass(frozen=True)
class Concept:
    system: str
    code: str
    display: str
    kind: str  # Problem | Cancer | Procedure | Medication | Test


def surface(text: str) -> str:
    """The lookup key of a phrase: lower case, single spaces, no SNOMED semantic tag."""
    return " ".join(_TAG.sub("", text).lower().split())


_NOT_EVENTS = {"qualifier value", "substance", "observable entity", "body structure", "person", "event",
               "morphologic abnormality", "record artifact", "environment", "assessment scale", "physical object",
               "specimen"}
# One-word surfaces too generic to be an event on their own (they also occur inside semantic tags).
_GENERIC = {"therapy", "procedure", "finding", "disorder", "situation", "care", "plan", "assessment", "education"}


def snomed_kind(display: str) -> str | None:
    """Event kind of a SNOMED CT concept from its semantic tag; None for non-events (qualifiers...)."""
    tag = _TAG.search(display)
    low = display.lower()
    if tag and tag.group(1).lower() in _NOT_EVENTS:
        return None
    if tag and tag.group(1).lower() == "procedure":
        return "Procedure"
    if tag and tag.group(1).lower() in ("regime/therapy",):
        return "Procedure"
    if any(w in low for w in _CANCER_WORDS) and "screening" not in low:
        return "Cancer"
    return "Problem"


@dataclass
class Lexicon:
    """surface form → concepts; plus the raw phrases to generate matcher rules from."""

    by_surface: dict[str, list[Concept]]
    uncoded: dict[str, str] = None  # surface → kind, recognized without a code

    def __post_init__(self):
        if self.uncoded is None:
            self.uncoded = {}

    def lookup(self, text: str) -> list[Concept]:
        return self.by_surface.get(surface(text), [])

    def add(self, phrase: str, concept: Concept) -> None:
        key = surface(phrase)
        if len(key) < 3 or key in _GENERIC:
            return
        bucket = self.by_surface.setdefault(key, [])
        if concept not in bucket:
            bucket.append(concept)


_DOSE = re.compile(r"^(?:\d[\d.]*\s*(?:ML|MG|HR|ACTUAT)\s+)?(?P<name>[A-Za-z][A-Za-z \-/,]*?)\s+\d")


def ingredient(display: str) -> str | None:
    """'10 ML Doxorubicin Hydrochloride 2 MG/ML Injection' → 'doxorubicin hydrochloride'."""
    m = _DOSE.match(display)
    if not m:
        return None
    name = m.group("name").strip(" ,").lower()
    return name if len(name) >= 5 and "/" not in name and "deterrent" not in name else None


def _read_obo(path: Path):
    term: dict = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line == "[Term]":
            if term.get("id"):
                yield term
            term = {"synonyms": [], "xrefs": []}
        elif line.startswith("[") and line.endswith("]"):
            if term.get("id"):
                yield term
            term = {}
        elif ": " in line and term is not None:
            key, _, value = line.partition(": ")
            if key == "id":
                term["id"] = value
            elif key == "name":
                term["name"] = value
            elif key == "synonym" and " EXACT" in value:
                term["synonyms"].append(value.split('"')[1])
            elif key == "xref":
                term["xrefs"].append(value.split(" ")[0])
            elif key == "is_obsolete" and value == "true":
                term["obsolete"] = True
    if term.get("id"):
        yield term


@cache
def load_lexicon(data_dir: Path = DATA) -> Lexicon:
    """Build the lexicon once per process (~0.2 s)."""
    import simple_icd_10_cm as icd

    lex = Lexicon({})
    with open(data_dir / "synthea_terms.tsv", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            system, code, display = row["system"], row["code"], row["display"]
            if system == "LOINC" and code.startswith("LA"):
                continue  # LOINC answer codes ("White", "Never smoker") are values, not tests
            kind = {"RxNorm": "Medication", "LOINC": "Test"}.get(system) or snomed_kind(display)
            if kind is None:
                continue
            concept = Concept(system, code, _TAG.sub("", display), kind)
            lex.add(display, concept)
            if system == "RxNorm" and (name := ingredient(display)):
                lex.uncoded.setdefault(name, "Medication")
    for term in _read_obo(data_dir / "DO_cancer_slim.obo"):
        if term.get("obsolete") or not term.get("name"):
            continue
        codes = [Concept("DOID", term["id"], term["name"], "Cancer")]
        for x in term["xrefs"]:
            prefix, _, code = x.partition(":")
            system = _XREF.get(prefix)
            if system == "ICD-10-CM" and not icd.is_valid_item(code):
                continue
            if system:
                codes.append(Concept(system, code, term["name"], "Cancer"))
        for phrase in [term["name"], *term["synonyms"]]:
            for c in codes:
                lex.add(phrase, c)
    with open(data_dir / "oncology_synonyms.tsv", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            code = row["code"]
            if row["system"] == "regimen":  # named regimens: Medication mentions, no code in these sources
                lex.uncoded[surface(row["surface"])] = "Medication"
                continue
            kind = "Cancer" if any(w in row["display"].lower() for w in _CANCER_WORDS) else (
                "Problem" if code in ("29857009", "267036007") else "Procedure")
            lex.add(row["surface"], Concept(row["system"], code, row["display"], kind))
    for key in list(lex.uncoded):
        if key in lex.by_surface:
            del lex.uncoded[key]
    return lex
