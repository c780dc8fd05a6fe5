"""A folder of plain-text notes plus a manifest CSV: patient_id, note_id, time, type, path
(optional: encounter_id). Paths are relative to the manifest."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ingest.model import Encounter, Note, Patient, Record, SourceRef
from ingest.readers.checks import DEFAULT_MAX_NOTE_BYTES, bad, note_problem
from ingest.readers.csvrows import CsvRows, read_header
from ingest.readers.times import BadTime, parse_time

REQUIRED = ("patient_id", "note_id", "time", "type", "path")


def find_manifest(path: Path) -> Path | None:
    if path.is_dir():
        for name in ("manifest.csv", "MANIFEST.csv"):
            if (path / name).exists():
                return path / name
        return None
    if path.suffix.lower() == ".csv":
        header = [h.lower() for h in read_header(path)]
        if all(c in header for c in REQUIRED):
            return path
    return None


def read_text_folder(manifest: Path, max_note_bytes: int = DEFAULT_MAX_NOTE_BYTES) -> Iterator[Record]:
    name = str(manifest)
    seen_p, seen_e = set(), set()
    header = read_header(manifest)
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        yield bad(name, 1, f"not a notes manifest: missing columns {', '.join(missing)}",
                  f"the manifest needs columns {', '.join(REQUIRED)}", {"header": header})
        return
    pid_at = header.index("patient_id")
    for rec in CsvRows(manifest, None):
        line = rec.line
        owner = rec.key[pid_at] if rec.key and len(rec.key) > pid_at and rec.key[pid_at] else None
        if rec.fields is None:
            yield bad(name, line, rec.problem[0], rec.problem[1], rec.record(), owner)
            continue
        row = rec.fields
        pid, nid = (row.get("patient_id") or "").strip(), (row.get("note_id") or "").strip()
        if not pid or not nid:
            yield bad(name, line, "missing id: patient_id and note_id are required", "fill them", row, owner)
            continue
        try:
            when = parse_time(row.get("time"), "time")
        except BadTime as exc:
            yield bad(name, line, f"bad timestamp: {exc}", "use ISO times like 2024-03-20T09:30", row, pid)
            continue
        folder = manifest.parent.resolve()
        file = (folder / (row.get("path") or "")).resolve()
        if not file.is_relative_to(folder):
            yield bad(name, line, f"note path outside the manifest's folder: {row.get('path')}",
                      "keep the note files under the manifest's folder", row, pid)
            continue
        try:
            raw = file.read_bytes()
        except OSError:
            yield bad(name, line, f"note file not found: {row.get('path')}", "fix the path column", row, pid)
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield bad(name, line, f"not UTF-8: the note file has an undecodable byte at offset {exc.start}",
                      "convert it to UTF-8 (e.g. iconv -f latin1 -t utf-8)", row, pid)
            continue
        if (why := note_problem(text, max_note_bytes)):
            yield bad(name, line, why[0], why[1], row, pid)
            continue
        enc = (row.get("encounter_id") or "").strip() or f"{pid}-{when.date().isoformat()}"
        src = SourceRef(name, line)
        if pid not in seen_p:
            seen_p.add(pid)
            yield Patient(pid, {"source_system": "text"}, src)
        if enc not in seen_e:
            seen_e.add(enc)
            yield Encounter(enc, pid, when, None, None, src)
        yield Note(patient=pid, encounter=enc, id=nid, type=row["type"].strip() or "Clinical note",
                   authored_at=when, text=text, source=src)
