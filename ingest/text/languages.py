"""Sentences written in another language, glossed into English word by word so that the English term
matcher and ConText read them, with every glossed character mapped back to the words it came from.

Notes from abroad (a Spanish discharge summary, a German pathology report, a French MDT letter) name the
same cancers, stages, markers and treatments in their own words. No multilingual clinical vocabulary is
installable offline here (no UMLS, MeSH translations or SNOMED CT extensions; see ``shared/MODELS.md``), so
the glossary ``data/glossary.tsv`` is graphkit's own: common clinical words of Spanish, French, German,
Italian, Portuguese, Dutch, Danish, Norwegian, Swedish and Polish with their English, written from general
medical usage (never from a test note; the last four by one agent per language from the English list of the
first six, their value-carrying shorthand — "ER+", "MSI-H", "dMMR" — left to the English reader). Glossing is deliberately literal:

- a sentence's language is told by its function words (spaCy's stop-word lists) and its glossary words
  that are not English; an English sentence is never glossed;
- the longest glossary entry wins ("sin evidencia de" → "no evidence of", "pas de" → "no");
- Romance adjectives follow their noun and English ones precede it: a noun and the adjectives after it
  are turned round ("métastases hépatiques synchrones" → "synchronous hepatic metastases");
- German, Dutch and Nordic compounds split into glossary parts, with their linking letters
  ("Lebermetastasen" → "liver metastases");
- a word the glossary lacks keeps its letters, accents folded ("létrozole" → "letrozole").
"""

from __future__ import annotations

import csv
import re
import unicodedata
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

GLOSSARY = Path(__file__).parent / "data" / "glossary.tsv"
LANGUAGES = ("es", "fr", "de", "it", "pt", "nl", "da", "nb", "sv", "pl")
# languages whose clinical terms put the adjectives after their noun ("carcinoma ductal infiltrante", "rak
# przewodowy naciekający")
_ADJECTIVES_AFTER = frozenset({"es", "fr", "it", "pt", "pl"})
_COMPOUNDING = frozenset({"de", "nl", "da", "nb", "sv"})
_LINKS = ("", "s", "n", "en", "e", "es", "er")  # linking letters between compound parts
_WORD = re.compile(r"[^\W\d_]+|\d+(?:[.,]\d+)?|\S")
_ALNUM = re.compile(r"[^\W_]+(?:-[^\W_]+)*")
_MAX_WORDS = 6
_JOINERS = frozenset({"-", "–", "'", "’"})


@dataclass(frozen=True)
class Entry:
    english: str
    pos: str  # N noun, A adjective, X other


@dataclass(frozen=True)
class Glossed:
    """An English reading of a sentence. ``starts[i]``/``ends[i]`` are the source span that ``text[i]``
    stands for (a glossed word stands for the whole word it replaces)."""

    text: str
    language: str
    starts: tuple[int, ...]
    ends: tuple[int, ...]

    def to_source(self, start: int, end: int) -> tuple[int, int]:
        """The source span that ``text[start:end]`` stands for. O(end - start)."""
        if start >= end:  # an empty span: the point where it sits (the source's end past the last character)
            at = self.starts[start] if start < len(self.starts) else self.ends[-1]
            return at, at
        return min(self.starts[start:end]), max(self.ends[start:end])


@lru_cache(maxsize=1 << 17)
def fold(word: str) -> str:
    """Lower case without accents ("Métastases" → "metastases"); ß → ss. Clinicians often drop accents.
    Remembered (a note repeats its words; 128 k words at most)."""
    w = unicodedata.normalize("NFKD", word.lower().replace("ß", "ss"))
    return "".join(c for c in w if not unicodedata.combining(c))


def _fold_same_length(word: str) -> str:
    """Accents folded only where that keeps the length (so a kept word maps character for character)."""
    out = []
    for ch in word:
        base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
        out.append(base if len(base) == 1 else ch)
    return "".join(out)


@cache
def glossary() -> dict[str, dict[tuple[str, ...], Entry]]:
    """language → folded word sequence → entry. Loaded once. O(rows)."""
    out: dict[str, dict[tuple[str, ...], Entry]] = {lang: {} for lang in LANGUAGES}
    with GLOSSARY.open(encoding="utf-8") as fh:
        rows = [(row["lang"], form, Entry(row["english"].strip(), row["pos"].strip()))
                for row in csv.DictReader(fh, delimiter="\t") for form in row["foreign"].split("|")]
    # a word as written, accents and all, before its accentless spelling: "año" is a year, "ano" the anus
    for spell in (_lower, fold):
        for lang, form, entry in rows:
            key = tuple(spell(w) for w in _WORD.findall(form.strip()) if w not in _JOINERS)
            if key:
                out[lang].setdefault(key, entry)
    return out


def _lower(word: str) -> str:
    return unicodedata.normalize("NFC", word.lower())


@cache
def _stop_words() -> dict[str, frozenset[str]]:
    """spaCy's function words of each language, accents folded."""
    from importlib import import_module

    return {lang: frozenset(fold(w) for w in import_module(f"spacy.lang.{lang}.stop_words").STOP_WORDS)
            for lang in (*LANGUAGES, "en")}


def language_of(sentence: str, prior: str = "en") -> str:
    """"en" or the language whose own function words and non-English glossary words the sentence has
    most of: at least two and more than the function words only English has, or one glossary word in a
    sentence with none of those ("HER2 negativo"). Words both languages share ("no", "a") tell neither.
    In a note written in ``prior`` (:func:`note_language`), a sentence with no more English function
    words than words of that language is that language ("TC C4 ohne Trastuzumab"). Ties go to the
    language whose glossary knows more of the words. O(words · languages)."""
    # not "HER2", "V.a."'s letters, nor "non-" or "post-" joined to an English word
    written = [w for w in _ALNUM.findall(sentence) if w.isalpha() and len(w) > 1]
    # acronyms ("dMMR", "MSI", "ER") tell no language; a capitalised header's long words do ("ONCOLOGÍA")
    words = [(w, fold(w)) for w in written if w[1:].islower() or w.isupper() and len(w) >= 6]
    words = list(dict.fromkeys((w.lower() if w.isupper() else w, f) for w, f in words))  # "met ... met": one word
    if prior not in LANGUAGES and not any(_tells_any(w, f) for w, f in words):
        return "en"  # no word of another language: the loop below would find none (most sentences)
    best, best_score = "en", (0, 0, 0)
    for lang in LANGUAGES:
        signals = [_signals(w, f, lang) for w, f in words]
        english = sum(e for e, _, _ in signals)
        tells = [wf for wf, (_, t, _) in zip(words, signals) if t]
        # one word tells alone only if it is a glossary word English never writes
        alone = len(tells) == 1 and tells[0][1] not in _own_stops(lang) and _zipf(tells[0][0].lower(), "en") < 2.0
        score = (len(tells) + (lang == prior), sum(k for _, _, k in signals), lang == prior)
        if (len(tells) >= 2 and len(tells) > english or alone and english == 0
                or lang == prior and len(tells) >= english) and score > best_score:
            best, best_score = lang, score
    return best


def note_language(sentences: list[str]) -> str:
    """The language most of a note's sentences are written in, if not English: the prior that
    :func:`language_of` reads the note's short lines by ("Pat. einverstanden.", "ER 95 %, PR 40 %").
    O(total words)."""
    from collections import Counter

    counts = Counter(language_of(s) for s in sentences)
    lang, n = max(((k, v) for k, v in counts.items() if k != "en"), key=lambda kv: kv[1], default=("en", 0))
    if not n:
        return "en"
    # a short line that says nothing of its language ("Wonde genezen.", "Pte akkoord.", "WHO-PS 0.") reads as
    # English by default: it does not vote for English, only a sentence with English's own function words does
    english = sum(1 for s in sentences if _english_signal(s)) if n < counts["en"] else 0
    return lang if n >= english else "en"


def _english_signal(sentence: str) -> bool:
    """Whether a sentence has a function word of English that no other language here shares ("the", "with").
    O(words)."""
    own = _english_only_stops()
    return any(w.lower() in own for w in _WORD.findall(sentence))


@cache
def _english_only_stops() -> frozenset[str]:
    stops = _stop_words()
    return frozenset(stops["en"] - frozenset().union(*(stops[lang] for lang in LANGUAGES)))


@cache
def _own_stops(lang: str) -> frozenset[str]:
    """``lang``'s function words that English does not share."""
    stops = _stop_words()
    return stops[lang] - stops["en"]


@lru_cache(maxsize=1 << 18)
def _signals(word: str, folded: str, lang: str) -> tuple[bool, bool, bool]:
    """(:func:`_english`, :func:`_tells`, :func:`_known`) of one word for one language, remembered: they
    depend on the word alone, and a note repeats its words (these three were half of the NLP time)."""
    return _english(word, folded, lang), _tells(word, folded, lang), _known(folded, lang)


@lru_cache(maxsize=1 << 17)
def _tells_any(word: str, folded: str) -> bool:
    """Whether the word :func:`_tells` any language."""
    return any(_signals(word, folded, lang)[1] for lang in LANGUAGES)


def _english(word: str, folded: str, lang: str) -> bool:
    """A function word only English has, or a common English word ``lang`` neither knows nor uses more
    ("lung", "brain" beside the Dutch-looking "met")."""
    stops = _stop_words()
    if folded in stops[lang]:
        return False
    if folded in stops["en"]:
        return True
    english = _zipf(word.lower(), "en")
    return english >= 3.5 and english > _zipf(word.lower(), lang) and not _known(folded, lang)


def _tells(word: str, folded: str, lang: str) -> bool:
    """A function word or glossary word of ``lang`` that is much commoner there than in English
    (wordfreq: "sin", "del", "negativo" tell Spanish; "per", "male", "positive" tell nothing), or a
    German/Dutch compound of glossary words that English never writes."""
    if not (folded in _own_stops(lang) or _known(folded, lang)):
        return False
    margin = _zipf(word.lower(), lang) - _zipf(word.lower(), "en")
    return margin >= 1.0 or _zipf(word.lower(), "en") < 1.0 and _known(folded, lang)


def own_word(word: str, lang: str) -> bool:
    """A common word of ``lang`` (wordfreq Zipf ≥ 3.5 there) and rare in English (a Zipf lower by 1 or
    more): a word the glossary lacks but that names nothing in English ("completar", "cita")."""
    if not word.isalpha():
        return False
    here = _zipf(word.lower(), lang)
    return here >= 3.5 and here - _zipf(word.lower(), "en") >= 1.0


@cache
def _zipf(word: str, lang: str) -> float:
    from wordfreq import zipf_frequency

    return zipf_frequency(word, lang)


def _known(word: str, lang: str) -> bool:
    """A glossary word of the language, or (German, Dutch) a compound of its words."""
    table = glossary()[lang]
    entry = table.get((word,))
    if entry:
        return fold(entry.english) != word
    return lang in _COMPOUNDING and len(word) >= 8 and _split_compound(word, table, lang) is not None


#: case, plural and (Nordic) definite endings tried when the inflected word is not in the glossary
_WEST_ENDINGS = ("s", "es", "n", "en", "e", "er", "em")
_NORDIC_ENDINGS = ("en", "et", "n", "t", "e", "a", "er", "ar", "or", "ene", "erne", "arna", "erna", "orna", "na")
_ENDINGS = {"de": _WEST_ENDINGS, "nl": _WEST_ENDINGS, "da": _NORDIC_ENDINGS, "nb": _NORDIC_ENDINGS,
            "sv": _NORDIC_ENDINGS}


def _lookup(word: str, table: dict[tuple[str, ...], Entry], lang: str) -> Entry | None:
    if (word,) in table:
        return table[(word,)]
    for ending in _ENDINGS.get(lang, _WEST_ENDINGS):
        if word.endswith(ending) and len(word) - len(ending) >= 4 and (word[:-len(ending)],) in table:
            return table[(word[:-len(ending)],)]
    return None


def _split_compound(word: str, table: dict[tuple[str, ...], Entry], lang: str, depth: int = 0) -> list[Entry] | None:
    """A compound (German, Dutch, Nordic) as glossary parts, longest head first: "lebermetastasen" → liver +
    metastases. Parts of three letters or more. O(len² · links)."""
    whole = _lookup(word, table, lang) if depth else table.get((word,))
    if whole:
        return [whole]
    if depth >= 2:
        return None
    for cut in range(len(word) - 3, 2, -1):
        head = word[:cut]
        for link in _LINKS:
            if link and not head.endswith(link):
                continue
            stem = head[:len(head) - len(link)] if link else head
            if len(stem) >= 3 and (stem,) in table:
                rest = _split_compound(word[cut:], table, lang, depth + 1)
                if rest:
                    return [table[(stem,)], *rest]
    return None


@lru_cache(maxsize=1 << 13)
def gloss(sentence: str, prior: str = "en") -> Glossed | None:
    """The sentence in English words, or None when it is English already. Remembered: the NLP reads a
    batch's sentences in it and the graph builder then reads their dates there. O(words · _MAX_WORDS)."""
    lang = language_of(sentence, prior)
    # an English sentence of a note written in another language keeps its words but its terms English
    # never writes ("Röntgen-Thorax: no infiltrates" in a German letter)
    terms_only = lang == "en" and prior in LANGUAGES
    if lang == "en" and not terms_only:
        return None
    lang = prior if terms_only else lang
    table = glossary()[lang]
    # hyphens and apostrophes join words ("Röntgen-Thorax", "pas d'anomalie"); glossary keys skip them too
    toks = [(m.start(), m.end(), m.group()) for m in _WORD.finditer(sentence) if m.group() not in _JOINERS]
    keys = [fold(t) for _, _, t in toks]
    written = [_lower(t) for _, _, t in toks]
    units: list[tuple[int, int, str, str]] = []  # source start, end, english (or kept text), pos ("" = kept)
    i = 0
    while i < len(toks):
        glued = _glued_to_digit(sentence, toks[i][0], toks[i][1])  # "cT3N2M1a": the letters of a code, not words
        for n in range(min(_MAX_WORDS, len(toks) - i), 0, -1):
            entry = table.get(tuple(written[i:i + n])) or table.get(tuple(keys[i:i + n]))
            if terms_only and entry and not _foreign_term(written[i:i + n], entry) and not (
                    all(t.isupper() and len(t) >= 2 for _, _, t in toks[i:i + n]) and fold(entry.english) != keys[i]):
                # (an acronym written in capitals in a note of that language is that language's: "PET-TC" is
                # a PET-CT, "TC" no docetaxel-cyclophosphamide, in an Italian note's English line)
                entry = None
            if entry and n == 1 and glued:
                entry = None  # ("cT" is no CT scan)
            if entry and (n > 1 or len(keys[i]) > 1):  # "l" of "mmol/L" is no French article
                units.append((toks[i][0], toks[i + n - 1][1], entry.english, entry.pos))
                i += n
                break
        else:
            start, end, word = toks[i]
            compound = lang in _COMPOUNDING and word.isalpha() and len(word) > 1 and not (
                terms_only and _zipf(written[i], "en") >= 2.0) and not glued
            inflected = _lookup(keys[i], table, lang) if compound else None
            parts = [inflected] if inflected else \
                _split_compound(keys[i], table, lang) if compound and len(word) >= 8 else None
            if parts:
                units.append((start, end, " ".join(p.english for p in parts), parts[-1].pos))
            else:
                units.append((start, end, _fold_same_length(word), ""))  # a word of one letter too: "l", "y"
            i += 1
    if terms_only:  # English order stays; nothing glossed: the sentence is English
        return _assemble(sentence, units, lang) if any(kind for *_, kind in units) else None
    units = [_marker_kept(sentence, units, k) for k in range(len(units))]
    if lang == "pt":
        units = [_conditional_se(sentence, u) for u in units]
    units = _ago_last([_answer_no(units, k) for k in range(len(units))])
    if lang in _ADJECTIVES_AFTER:
        units = _adjectives_first(units)
    return _assemble(sentence, units, lang)


def _marker_kept(sentence: str, units: list, k: int) -> tuple:
    """"tumeur RAS sauvage", "statut RAS", "RAS/BRAF": a word in capitals next to a marker's result, its
    status or another capital symbol names the gene, not the glossary's homonym (the French "RAS", nothing
    to report); a noun acronym ("RH" → hormone receptors) is glossed as ever. O(1)."""
    start, end, english, kind = units[k]
    word = sentence[start:end]
    if not kind or kind == "N" or not (word.isupper() and word.isalpha() and len(word) >= 2):
        # a noun acronym is the glossary's own clinical abbreviation: "RH negativos" is HR negative
        return units[k]
    after = units[k + 1] if k + 1 < len(units) else None
    before = units[k - 1] if k else None
    beside = (after and (after[2] in _MARKER_NEIGHBOURS or after[2] == "/" and k + 2 < len(units)
                         and sentence[units[k + 2][0]:units[k + 2][1]].isupper())
              or before and before[2] in ("status", "mutation", "gene"))
    return (start, end, word, "") if beside else units[k]


_CLAUSE_OPENERS = frozenset(";:(,-–—>•*")


def _conditional_se(sentence: str, unit: tuple) -> tuple:
    """"se TPS >= 50%: pembrolizumab", "- se dMMR -> apenas seguimento": the Portuguese "se" that opens a
    clause is "if"; elsewhere it is mostly the reflexive ("não se observam metástases"), kept. O(1)."""
    start, end, _, kind = unit
    if kind or sentence[start:end].lower() != "se":
        return unit
    before = sentence[:start].rstrip()
    return (start, end, "if", "X") if not before or before[-1] in _CLAUSE_OPENERS else unit


def _glued_to_digit(sentence: str, start: int, end: int) -> bool:
    """Is the word at ``start:end`` written against a digit ("cT3", "M1a")? O(1)."""
    return end < len(sentence) and sentence[end].isdigit() or start > 0 and sentence[start - 1].isdigit()


def _foreign_term(words: list[str], entry: Entry) -> bool:
    """A glossary entry that an English sentence may still hold: a term with a word English hardly
    writes (wordfreq Zipf < 2: "Röntgen", "Befund"), whose English differs from it."""
    return fold(entry.english) != " ".join(fold(w) for w in words) and any(_zipf(w, "en") < 2.0 for w in words)


def _answer_no(units: list, k: int) -> tuple:
    """"Tabac : non." answers "no", not "not": a negation closing its clause is the answer to the item."""
    start, end, english, kind = units[k]
    closing = k + 1 == len(units) or units[k + 1][2] in (".", ",", ";", ")")
    return (start, end, "no", kind) if english == "not" and closing else units[k]


_QUANTITY = re.compile(r"\d+(?:[.,]\d+)?|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                       r"several|a few|some")
_TIME_UNIT = re.compile(r"(?:year|month|week|day|hour)s?")


def _ago_last(units: list) -> list:
    """"hace 2 años", "il y a trois mois", "há 2 anos", "vor 2 Jahren": the word for "ago" comes before the
    span in these languages and after it in English ("2 years ago"), the order the date reader and ConText's
    "years ago" expect. Moved words stand for the whole phrase. Pure. O(units)."""
    out, i = [], 0
    while i < len(units):
        if (i + 2 < len(units) and units[i][2] in ("ago", "before") and _QUANTITY.fullmatch(units[i + 1][2])
                and _TIME_UNIT.fullmatch(units[i + 2][2])):
            many, unit = units[i + 1][2] not in ("a", "an", "one", "1"), units[i + 2][2]
            unit = unit + "s" if many and not unit.endswith("s") else unit  # "trois mois" → "three months"
            out.append((units[i][0], units[i + 2][1], f"{units[i + 1][2]} {unit} ago", "X"))
            i += 3
        else:
            out.append(units[i])
            i += 1
    return out


#: a marker's result follows it in English too ("HER2 negative", "KRAS wild-type"): never moved before it
RESULT_WORDS = frozenset({
    "positive", "negative", "mutated", "non-mutated", "unmutated", "wild-type", "wild type", "amplified",
    "non-amplified", "not amplified", "rearranged", "not rearranged", "retained", "lost", "deficient",
    "proficient", "stable", "unstable", "equivocal", "overexpressed", "expressed", "detected",
    "not detected", "weakly positive", "strongly positive", "negative for", "positive for",
})
_MARKER_NEIGHBOURS = RESULT_WORDS | {"mutation", "mutations", "status", "wild", "mutant"}


def _adjectives_first(units: list) -> list:
    """A noun followed by adjectives becomes the adjectives, last first, then the noun (the English
    order: "carcinoma ductal infiltrante" → "infiltrating ductal carcinoma"). Pure. O(units)."""
    out, i = [], 0
    while i < len(units):
        j = i + 1
        if units[i][3] == "N":
            while j < len(units) and units[j][3] == "A" and units[j][2] not in RESULT_WORDS:
                j += 1
        if j - i > 1:
            group = units[i:j]
            lo, hi = group[0][0], group[-1][1]
            words = [u[2] for u in reversed(group[1:])] + [group[0][2]]
            out.append((lo, hi, " ".join(words), "N"))  # moved words stand for the whole phrase
        else:
            out.append(units[i])
        i = j
    return out


def _assemble(sentence: str, units: list, lang: str) -> Glossed:
    """Join the units with the source's own gaps (spaces, line breaks) between them. O(len)."""
    text, starts, ends, pos = [], [], [], 0
    glossed = [bool(kind) or english != sentence[start:end] for start, end, english, kind in units]
    for k, (start, end, english, kind) in enumerate(units):
        gap = sentence[pos:start]
        if gap in _JOINERS and k and (glossed[k] or glossed[k - 1]):
            gap = " "  # "Mamma-Ca" → "breast Ca", the way English writes it
        text.append(gap)
        starts.extend(range(pos, start))
        ends.extend(range(pos + 1, start + 1))
        if not kind and english == sentence[start:end] or len(english) == end - start and not kind:
            text.append(english)  # kept: character for character
            starts.extend(range(start, end))
            ends.extend(range(start + 1, end + 1))
        else:
            text.append(english)
            starts.extend([start] * len(english))
            ends.extend([end] * len(english))
        pos = end
    text.append(sentence[pos:])
    starts.extend(range(pos, len(sentence)))
    ends.extend(range(pos + 1, len(sentence) + 1))
    return Glossed("".join(text), lang, tuple(starts), tuple(ends))


def english_header(header: str) -> str | None:
    """A section header's English when the whole header is one glossary entry of some language
    ("Antecedentes familiares" → "family history", "Procedere" → "procedure"), or each of its parts joined by
    a slash is; a header is too short to tell its language otherwise. O(languages)."""
    if "/" in header:  # "Bedömning/beslut", "Conclusie/Beleid": each part its own entry
        parts = [english_header(p) for p in header.split("/")]
        return "/".join(parts) if all(parts) else None
    written = [w for w in _WORD.findall(header) if w not in _JOINERS]
    key = tuple(fold(w) for w in written)
    words = [w.lower() for w in written if w.isalpha()]
    for lang in LANGUAGES:
        entry = glossary()[lang].get(key)
        if entry and fold(entry.english) != " ".join(key) and not _english_words(words, lang):
            return entry.english
    return None


def _english_words(words: list[str], lang: str) -> bool:
    """Words an English note writes as such ("Disposition:" is no Danish "disposition", a family
    history): each common in English and not much commoner in ``lang``. O(words)."""
    long = [w for w in words if len(w) >= 5]  # ("AF:", "EF:": a foreign note's abbreviated headers)
    return bool(long) and all(_zipf(w, "en") >= 2.5 and _zipf(w, lang) - _zipf(w, "en") < 1.0 for w in long)
