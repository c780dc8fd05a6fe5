"""Checks every reader applies to a note before it may enter the pipeline."""

from __future__ import annotations

from ingest.model import BadRecord, SourceRef

DEFAULT_MAX_NOTE_BYTES = 1_000_000


def note_problem(text: str | None, max_bytes: int) -> tuple[str, str] | None:
    """(reason, fix) when the note text cannot be ingested, else None. O(len(text))."""
    if text is None or not text.strip():
        return "empty note: the text is blank", "export the note text, or drop the row"
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError:
        return ("not UTF-8: the text has undecodable bytes",
                "re-export the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)")
    if size > max_bytes:
        return (f"note too large: {size / 1e6:.1f} MB > {max_bytes / 1e6:.1f} MB limit",
                "raise --max-note-bytes if such notes are genuine, or split the document")
    return None


def bad(file: str, row, reason: str, fix: str, record: dict, patient: str | None = None) -> BadRecord:
    return BadRecord(SourceRef(file, row), reason, fix, record, patient)
