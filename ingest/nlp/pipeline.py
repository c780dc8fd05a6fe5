"""The entity pipeline: spaCy tokenizer → medspaCy target matcher → medspaCy ConText.

Target rules are generated from the terminology lexicon (:mod:`ingest.link.lexicon`) plus patterns
for biomarkers with their status (ER, PR, HER2, EGFR, ALK, ROS1, KRAS, PD-L1, MSI, MMR, BRAF) and
stage/TNM. Every mention keeps its assertion — present, negated, possible, historical, family — and
is never dropped for it. A stronger NER model installed on the user's machine (a scispaCy model, any
spaCy pipeline with entities) can be added by name in :class:`NlpConfig`; nothing hard-wires one.

Input is one document per sentence (sentences come from :mod:`ingest.text`), so ConText scopes never
cross a sentence and offsets are sentence-relative.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from ingest.link.lexicon import Concept, Lexicon, load_lexicon

# PyRuSH/medspaCy log tokens at DEBUG through loguru: note text must never reach a log.
try:
    from loguru import logger as _loguru

    for _name in ("PyRuSH", "medspacy"):
        _loguru.disable(_name)
except ImportError:  # pragma: no cover
    pass

MARKERS = r"ER|PR|HER-?2(?:/neu)?|EGFR|ALK|ROS-?1|KRAS(?:\s*G12C)?|PD-?L1|MSI(?:-H|-L)?|MMR|dMMR|pMMR|BRAF(?:\s*V600E)?|ERBB2"
STATUS = (r"positive|negative|pos|neg|\+{1,3}|-(?![A-Za-z0-9])|mutated|mutation|mutant|wild[- ]type|amplified|not amplified"
          r"|high|low|deficient|proficient|stable|unstable|detected|not detected")
# Marker names are matched case-sensitively ("PR", not "pr" of "procedure"); the rest is not.
BIOMARKER = re.compile(rf"\b(?P<marker>(?-i:{MARKERS}))\b(?:\s*(?:receptor|status|expression|testing|test|result|IHC))?"
                       rf"(?:\s*(?:is|was|:|=))?\s*(?P<status>{STATUS})?(?:\s*\(?(?P<pct>\d{{1,3}}\s*%)\)?)?",
                       re.I)
STAGE = re.compile(r"\b(?:(?:AJCC|clinical|pathologic(?:al)?|TNM)\s+)?stage\s+(?P<stage>0|IV|III|II|I|[1-4])"
                   r"(?P<sub>[ABC][1-3]?)?\b|\b(?P<tnm>[cpy]{0,2}T[0-4xXis][a-d]?\s*[cpy]{0,2}N[0-3xX][a-c]?(?:\s*[cpy]{0,2}M[01xX])?)\b",
                   re.I)
_STATUS_NORM = {"pos": "positive", "+": "positive", "++": "positive", "+++": "positive", "neg": "negative",
                "-": "negative", "mutation": "mutated", "mutant": "mutated", "wild type": "wild-type",
                "amplified": "positive", "not amplified": "negative", "detected": "positive",
                "not detected": "negative", "unstable": "high", "stable": "low", "deficient": "high",
                "proficient": "low"}
_ROMAN = {"1": "I", "2": "II", "3": "III", "4": "IV"}
SECTION_ASSERTION = {"Family History": "family", "Past Medical History": "historical",
                     "Past Surgical History": "historical"}


@dataclass(frozen=True)
class Mention:
    start: int  # character offsets within the sentence
    end: int
    text: str = field(repr=False)
    kind: str  # Problem | Cancer | Stage | Procedure | Medication | Test | Biomarker
    assertion: str  # present | negated | possible | historical | family
    concepts: tuple[Concept, ...] = ()
    value: str | None = None
    cue: str | None = None  # the ConText modifier that decided the assertion


@dataclass
class NlpConfig:
    """Pipeline settings (one place, like a spaCy config)."""

    extra_ner: str | None = None  # name of an installed spaCy pipeline with an NER, e.g. "en_core_sci_md"
    extra_ner_labels: dict = field(default_factory=lambda: {"DISEASE": "Problem", "CHEMICAL": "Medication",
                                                            "ENTITY": "Problem"})
    batch_size: int = 256


PIPELINE_VERSION = "4"  # bump when extraction logic changes: stored notes are then re-processed


def pipeline_fingerprint(config: NlpConfig | None = None) -> str:
    """Identifies what produced a note's events: code version, terminology files, configuration.
    A note is skipped on re-ingestion only when its text AND this fingerprint are unchanged."""
    import hashlib

    from ingest.link.lexicon import DATA

    h = hashlib.sha256(PIPELINE_VERSION.encode())
    for f in sorted(DATA.iterdir()):
        if f.is_file():
            h.update(f.name.encode())
            h.update(f.read_bytes())
    h.update(repr(config.extra_ner if config else None).encode())
    return h.hexdigest()[:16]


def _extra_context_rules():
    """Cues clinical notes use that the stock ConText rules lack (found with bench/assertion_eval.py)."""
    from medspacy.context import ConTextRule

    hist = ["previous", "previously", "prior", "status post", "s/p", "in the past", "no longer",
            "resolved", "remote history of", "years ago", "months ago", "a year ago", "formerly"]
    rules = [ConTextRule(c, "HISTORICAL", direction="BIDIRECTIONAL", max_scope=6) for c in hist]
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="FORWARD", max_scope=5)
              for c in ("negative", "negative for")]
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="BACKWARD", max_scope=5)
              for c in ("not identified", "not seen", "not present", "is absent", "are absent")]
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=8)
              for c in ("may need", "may also consider", "we may", "consider", "might", "should he", "should she",
                        "in case of", "to evaluate for", "to rule out")]
    return rules


def _rules(lexicon: Lexicon):
    from medspacy.target_matcher import TargetRule

    rules = [TargetRule(key, concepts[0].kind, metadata={"surface": key})
             for key, concepts in lexicon.by_surface.items()]
    rules += [TargetRule(key, kind, metadata={"surface": key}) for key, kind in lexicon.uncoded.items()]
    rules.append(TargetRule("biomarker", "Biomarker", pattern=BIOMARKER.pattern))
    rules.append(TargetRule("stage", "Stage", pattern=STAGE.pattern))
    return rules


def _register_components() -> None:
    from spacy.language import Language

    if "graphkit_one_sentence" in Language.factories:
        return

    @Language.component("graphkit_one_sentence")
    def one_sentence(doc):
        """Each doc is one sentence already (ingest.text split it): mark it so for ConText."""
        for i, token in enumerate(doc):
            token.is_sent_start = i == 0
        return doc


def build_pipeline(config: NlpConfig | None = None, lexicon: Lexicon | None = None):
    """A spaCy ``Language``: blank English tokenizer, one-sentence marker, target matcher with
    generated rules, ConText."""
    import medspacy

    _register_components()
    config = config or NlpConfig()
    nlp = medspacy.load(medspacy_enable=["medspacy_target_matcher", "medspacy_context"])
    nlp.add_pipe("graphkit_one_sentence", first=True)
    nlp.get_pipe("medspacy_target_matcher").add(_rules(lexicon or load_lexicon()))
    context = nlp.get_pipe("medspacy_context")
    # medspaCy 1.3.1 checks modifier/target overlap one-sidedly, so a cue INSIDE a mention
    # ("CT of chest without contrast") would modify it: drop such modifiers.
    context.prune_on_target_overlap = True
    # keep "No" (forward) beside ": no" (backward) in "SKIN: No jaundice" instead of the longer one only
    context.prune_on_modifier_overlap = False
    context.add(_extra_context_rules())
    nlp._graphkit_config = config
    nlp._graphkit_fingerprint = pipeline_fingerprint(config)
    nlp._graphkit_extra = None
    if config.extra_ner:
        import spacy

        nlp._graphkit_extra = spacy.load(config.extra_ner)  # an installed package only: no download
    return nlp


_RESULT_CUES = re.compile(r"^(?:was |were |is |are |came back )?(?:negative|normal|unremarkable)$", re.I)


def _assertion(ent, section: str | None) -> tuple[str, str | None]:
    mods = list(getattr(ent._, "modifiers", ()))
    cue = " ".join(ent.doc[m.modifier_span[0]:m.modifier_span[1]].text for m in mods) or None
    if ent._.is_negated:
        negations = [ent.doc[m.modifier_span[0]:m.modifier_span[1]].text for m in mods
                     if m.category == "NEGATED_EXISTENCE"]
        # "[urine pregnancy test] was negative": a negative RESULT means the test was done
        if not (ent.label_ in ("Test", "Procedure") and negations and all(_RESULT_CUES.match(n) for n in negations)):
            return "negated", cue
    if ent._.is_family or section == "Family History":
        return "family", cue
    if ent._.is_hypothetical or ent._.is_uncertain:
        return "possible", cue
    if ent._.is_historical:
        return "historical", cue
    return SECTION_ASSERTION.get(section or "", "present"), cue


def _value(kind: str, text: str) -> tuple[str | None, str | None]:
    """(normalized value, marker name) for biomarker and stage mentions."""
    if kind == "Biomarker":
        m = BIOMARKER.match(text)
        if m:
            marker = re.sub(r"\s+", " ", m.group("marker").upper().replace("HER-2", "HER2").replace("PD-L1", "PD-L1"))
            marker = {"PDL1": "PD-L1", "ROS-1": "ROS1", "ERBB2": "HER2", "HER2/NEU": "HER2"}.get(marker, marker)
            status = (m.group("status") or "").lower()
            return (_STATUS_NORM.get(status, status) or None), marker
    if kind == "Stage":
        m = STAGE.search(text)
        if m and m.group("stage"):
            return _ROMAN.get(m.group("stage"), m.group("stage").upper()) + (m.group("sub") or "").upper(), None
        if m and m.group("tnm"):
            return re.sub(r"\s+", "", m.group("tnm")), None
    return None, None


def extract_mentions(nlp, sentences: Iterable[str], sections: Iterable[str | None],
                     lexicon: Lexicon | None = None) -> list[list[Mention]]:
    """Mentions per sentence. Batched through ``nlp.pipe``; O(total text)."""
    lexicon = lexicon or load_lexicon()
    config: NlpConfig = getattr(nlp, "_graphkit_config", NlpConfig())
    sentences, sections = list(sentences), list(sections)
    out: list[list[Mention]] = []
    context = nlp.get_pipe("medspacy_context")
    # ConText is two thirds of the NLP time: run it only on sentences that have a mention.
    docs = (context(doc) if doc.ents else doc
            for doc in nlp.pipe(sentences, batch_size=config.batch_size, disable=["medspacy_context"]))
    for doc, section in zip(docs, sections):
        found = []
        for ent in doc.ents:
            kind = ent.label_
            value, marker = _value(kind, ent.text)
            if kind == "Biomarker" and marker is None:
                continue
            assertion, cue = _assertion(ent, section)
            concepts = tuple(lexicon.lookup(ent.text)) if kind not in ("Biomarker", "Stage") else ()
            if kind == "Biomarker":
                value = f"{marker}={value}" if value else f"{marker}"
            found.append(Mention(ent.start_char, ent.end_char, ent.text, kind, assertion, concepts, value, cue))
        extra = getattr(nlp, "_graphkit_extra", None)
        if extra is not None:
            taken = [(m.start, m.end) for m in found]
            for ent in extra(doc.text).ents:
                kind = config.extra_ner_labels.get(ent.label_)
                if kind and all(ent.end_char <= a or ent.start_char >= b for a, b in taken):
                    found.append(Mention(ent.start_char, ent.end_char, ent.text, kind, "present",
                                         tuple(lexicon.lookup(ent.text))))
        out.append(found)
    return out
