"""Hierarchical chunks (CLI-RAG §2.2): a section, then sub-chunks of consecutive sentences with
overlap, each carrying patient, encounter, note type, section and chunk index."""

from __future__ import annotations

from dataclasses import dataclass

from ingest.text.sections import Section
from ingest.text.sentences import Sentence


@dataclass(frozen=True)
class Chunk:
    patient: str
    encounter: str
    note: str
    note_type: str
    section: str
    index: int  # within the note
    level: str  # "section" | "sub"
    start: int
    end: int
    sentences: tuple[int, ...]  # indexes into the note's sentence list


def chunk_sections(sections: list[tuple[Section, list[Sentence]]], *, patient: str, encounter: str, note: str,
                   note_type: str, max_chars: int = 1200, overlap: int = 1) -> list[Chunk]:
    """One section-level chunk per section plus sub-chunks of at most ``max_chars`` (sentences are
    never cut; consecutive sub-chunks share ``overlap`` sentences). O(sentences)."""
    chunks: list[Chunk] = []
    base = 0
    meta = dict(patient=patient, encounter=encounter, note=note, note_type=note_type)
    for section, sents in sections:
        ids = tuple(range(base, base + len(sents)))
        base += len(sents)
        if not sents:
            continue
        chunks.append(Chunk(**meta, section=section.name, index=len(chunks), level="section",
                            start=sents[0].start, end=sents[-1].end, sentences=ids))
        if sents[-1].end - sents[0].start <= max_chars:
            continue
        i = 0
        while i < len(sents):
            j = i
            while j + 1 < len(sents) and sents[j + 1].end - sents[i].start <= max_chars:
                j += 1
            chunks.append(Chunk(**meta, section=section.name, index=len(chunks), level="sub",
                                start=sents[i].start, end=sents[j].end, sentences=ids[i:j + 1]))
            if j + 1 >= len(sents):
                break
            i = max(j + 1 - overlap, i + 1)
    return chunks


def leaf_chunks(chunks: list[Chunk]) -> list[Chunk]:
    """The retrieval units: sub-chunks, and sections short enough to have none. O(n)."""
    covered = {i for c in chunks if c.level == "sub" for i in c.sentences}
    return [c for c in chunks if c.level == "sub" or not set(c.sentences) & covered]
