"""Turn one processed note (or structured facts) into the writer rows of ``cypher/ingest.cypher``.

Pure functions: no I/O. Times: **valid time** is when the event happened — an explicit date in the
sentence when there is a plausible one, else the encounter start; **recorded time** is when the note
was written (storetime / DocumentReference.date, else chart time).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from graphkit.clinical.values import observation_values
from ingest.link.sources import Concept
from ingest.model import CodedFact, Note
from ingest.nlp.pipeline import Mention
from ingest.nlp.when import dated, day_first, days, without_comparisons
from ingest.text import NormalizedText, Section, Sentence
from ingest.text.languages import Glossed, gloss
from ingest.text.chunks import chunk_sections, leaf_chunks


def sentence_date(text: str, around: datetime, day_first: bool = False) -> datetime | None:
    """The explicit date of the sentence, when it writes one plausible date (within 30 years before to
    1 year after ``around``) or several that agree: a sentence with different dates ("s/p TCHP x6
    (3/14/24-6/27/24), ypT1c ypN1a") dates each fact only by its own clause (:func:`mention_date`).
    Numeric dates day first when the note writes them so (:func:`ingest.nlp.when.day_first`)."""
    found = set(_dates(without_comparisons(text), around, day_first))
    return found.pop() if len(found) == 1 else None


def mention_date(text: str, end: int, around: datetime, day_first: bool = False) -> datetime | None:
    """The date written in the clause right after a mention ending at ``end`` (its own date)."""
    d = dated(without_comparisons(text), end, around.date() if around is not None else None, day_first)
    if d is None or around is None:
        return None
    return datetime(d.year, d.month, d.day, tzinfo=around.tzinfo) if _plausible(datetime(d.year, d.month, d.day),
                                                                                around) else None


_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")


def english_dates(text: str) -> Glossed | None:
    """The English reading of a sentence that writes a year but no day English reads ("PET-TC (20 de mayo
    de 2025)", "OP am 5. Mai 2025"): its foreign month names are read there, as the mentions are. None for
    a sentence English dates already. O(len(text))."""
    if not _YEAR.search(text) or next(days(text), None) is not None:
        return None
    return gloss(text)


def _glossed_at(g: Glossed, source_offset: int) -> int:
    """The offset in ``g.text`` of the source offset ``source_offset``. O(len(g.text))."""
    return next((i for i, s in enumerate(g.starts) if s >= source_offset), len(g.text))


def _plausible(d: datetime, around: datetime) -> bool:
    around = around.replace(tzinfo=None)
    return around - timedelta(days=365 * 30) <= d <= around + timedelta(days=366)


def _dates(text: str, around: datetime, day_first: bool):
    for day in days(text, day_first):  # "10/1/24", "29/08/2024", "3 Mar 2025": one reader
        if _plausible(d := datetime(day.year, day.month, day.day), around):
            yield d


def own_date(detail: dict, around: datetime) -> datetime | None:
    """The day a mention's own clause dates it to (a course that started, "paclitaxel from 10/22/24", or
    ended, "TCHP x6 (C6 6/27/24)"), before the sentence's first date: the sentence may date something
    else. Care of a course a summary dates ("Dates: 5 Feb 2024 -> 14 Mar 2024") is dated by its start."""
    day = detail.get("course_start") or detail.get("start") or detail.get("end")
    if not day:
        return None
    try:  # "since 3/2023" keeps its month: the course is dated by the month's first day
        d = datetime.fromisoformat(day if len(day) != 7 else f"{day}-01")
    except ValueError:
        return None
    return d.replace(tzinfo=around.tzinfo) if around is not None else d


MED_LIST_SECTIONS = {"Medications", "Discharge Medications"}


@dataclass
class NoteGraph:
    note: dict
    sections: list[dict] = field(default_factory=list)
    sentences: list[dict] = field(default_factory=list)
    events: list[dict] = field(default_factory=list)
    evidence: list[dict] = field(default_factory=list)
    concepts: list[dict] = field(default_factory=list)
    instance_of: list[dict] = field(default_factory=list)
    chunks: list[dict] = field(default_factory=list)  # retrieval units (CLI-RAG): leaf sub-chunks of sections


def primary_concepts(concepts) -> list:
    """One concept per code system (the vocabulary's first, i.e. best, for the mention): a mention is
    linked to its DOID, ICD-10-CM, NCIt, SNOMED CT... code, not to every alternative of one system that
    cross-references produce (the is-a roll-up reaches the rest)."""
    seen, out = set(), []
    for c in concepts:
        if c.system not in seen:
            seen.add(c.system)
            out.append(c)
    return out


def concept_row(c) -> dict:
    """A Concept node's row: code, name, kind, and the vocabulary (with version) it came from."""
    from ingest.link.lexicon import canonical

    c = canonical(c)  # one name and source per code, whoever reaches it first
    return {"system": c.system, "code": c.code, "name": c.display, "source": c.source or None, "kind": c.kind}


def note_sha(note: Note) -> str:
    return hashlib.sha256(note.text.encode("utf-8")).hexdigest()


def note_graph(note: Note, norm: NormalizedText, sections: list[tuple[Section, list[Sentence]]],
               mentions: list[list[Mention]], encounter_start: datetime, flags: tuple[str, ...] = ()) -> NoteGraph:
    """Rows for one note. ``mentions`` has one list per sentence, in note order; ``flags`` are the
    note's own (unknown abbreviations). Offsets stored on Sentence and EVIDENCED_BY point into the
    ORIGINAL note text."""
    recorded = note.recorded_at or note.authored_at
    g = NoteGraph(note={"id": note.id, "encounter": note.encounter, "patient": note.patient, "type": note.type,
                        "authored_at": note.authored_at, "recorded_at": recorded, "sha256": note_sha(note),
                        "source": str(note.source) if note.source else None, "flags": list(flags) or None})
    k = 0
    order = 0
    sentence_ids: list[str] = []
    dmy = day_first([norm.text], note.authored_at.date())  # as resolve_note reads them
    for sec, sents in sections:
        sentence_ids += [f"{note.id}:s{sec.idx}:t{t}" for t in range(len(sents))]
    for c in leaf_chunks(chunk_sections(sections, patient=note.patient, encounter=note.encounter, note=note.id,
                                        note_type=note.type or "")):
        a, b = norm.to_original(c.start, c.end)
        g.chunks.append({"id": f"{note.id}:c{c.index}", "note": note.id, "patient": note.patient,
                         "encounter": note.encounter, "note_type": note.type, "section": c.section,
                         "order": c.index, "time": recorded or encounter_start, "text": note.text[a:b],
                         "sentences": [sentence_ids[i] for i in c.sentences]})
    for sec, sents in sections:
        sec_id = f"{note.id}:s{sec.idx}"
        g.sections.append({"id": sec_id, "note": note.id, "name": sec.name, "idx": sec.idx})
        for t_idx, sent in enumerate(sents):
            a, b = norm.to_original(sent.start, sent.end)
            sent_id = f"{sec_id}:t{t_idx}"
            original = note.text[a:b]
            g.sentences.append({"id": sent_id, "section": sec_id, "idx": t_idx, "text": original, "start": a, "end": b})
            stext = norm.text[sent.start:sent.end]
            english = english_dates(stext)
            dtext = english.text if english else stext
            day = sentence_date(dtext, encounter_start, dmy)
            used: set[str] = set()
            for m in mentions[k]:
                ma, mb = norm.to_original(sent.start + m.start, sent.start + m.end)
                ev_id = f"{sent_id}:m{m.start}"
                if ev_id in used:  # one span, two facts ("TNBC": a cancer and a biomarker statement)
                    ev_id += f"-{m.kind.lower()}"
                used.add(ev_id)
                g.events.append({
                    "id": ev_id, "encounter": note.encounter, "patient": note.patient, "kind": m.kind,
                    "text": note.text[ma:mb], "assertion": m.assertion, "value": m.value,
                    "values": list(m.values) or None, "detail": m.detail_json, "flags": list(m.flags) or None,
                    "valid_time": own_date(m.detail, encounter_start) or day
                    or mention_date(dtext, _glossed_at(english, m.end) if english else m.end, encounter_start, dmy)
                    or encounter_start,
                    "recorded_time": recorded, "order": order,
                    "source": "note", "note": note.id, "cue": m.cue,
                    # a medication-list entry says "is on X", not "X was given at this encounter"
                    "context": "medication-list" if m.kind == "Medication" and sec.name in MED_LIST_SECTIONS
                    else None})
                order += 1
                g.evidence.append({"event": ev_id, "sentence": sent_id, "start": ma - a, "end": mb - a})
                for c in primary_concepts(m.concepts):
                    g.concepts.append(concept_row(c))
                    g.instance_of.append({"event": ev_id, "system": c.system, "code": c.code})
            k += 1
    return g


def fact_rows(facts: list[CodedFact]) -> tuple[list[dict], list[dict], list[dict]]:
    """(events, concepts, instance_of) rows for structured FHIR facts (assertion present)."""
    events, concepts, links = [], [], []
    for i, f in enumerate(facts):
        # biomarker results and stages are stored normalized, exactly like the ones read in notes
        values, detail = observation_values(f.kind, f.display or "", f.value)
        row = {"id": f.id, "encounter": f.encounter, "patient": f.patient, "kind": f.kind,
               "text": f.display, "assertion": "present", "value": f.value, "values": list(values) or None,
               "detail": json.dumps(detail, sort_keys=True) if detail else None,
               "flags": None, "valid_time": f.time,
               "recorded_time": f.time, "order": 100_000 + i, "source": f"fhir:{f.resource_type}",
               "note": None, "cue": None, "context": None}
        if f.kind == "Cancer" and values:  # "carcinoma of lung, TNM stage 1": the stage is a fact of its own
            events.append({**row, "id": f"{f.id}:stage", "kind": "Stage", "values": list(values),
                           "detail": row["detail"], "order": row["order"]})
            row = {**row, "values": None, "detail": None}
        events.append(row)
        concepts.append(concept_row(Concept(f.system, f.code, f.display, f.kind, "FHIR resource coding")))
        links.append({"event": f.id, "system": f.system, "code": f.code})
    return events, concepts, links
