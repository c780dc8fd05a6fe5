"""MIMIC-IV-Note CSV (discharge.csv, radiology.csv).

Columns: note_id, subject_id, hadm_id, note_type, note_seq, charttime, storetime, text.
A note's encounter is its hospital admission (hadm_id); a note without one (some radiology reports)
gets a per-day outpatient encounter. Streams the file: memory stays flat whatever its size.
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Iterator
from pathlib import Path

from ingest.model import Encounter, Note, Patient, Record, SourceRef
from ingest.readers.checks import DEFAULT_MAX_NOTE_BYTES, bad, note_problem
from ingest.readers.times import BadTime, parse_time

REQUIRED = ("note_id", "subject_id", "note_type", "charttime", "text")
TYPES = {"DS": "Discharge summary", "RR": "Radiology report", "AR": "Radiology addendum",
         "AD": "Discharge summary addendum"}


def looks_like_mimic(path: Path) -> bool:
    if path.suffix.lower() not in (".csv", ".gz"):
        return False
    with open(path, encoding="utf-8", errors="replace", newline="") as f:
        header = f.readline().lower()
    return all(col in header for col in REQUIRED)


def read_mimic_csv(path: Path, max_note_bytes: int = DEFAULT_MAX_NOTE_BYTES) -> Iterator[Record]:
    """Patients, encounters and notes of one MIMIC-IV-Note CSV; bad rows as BadRecord."""
    csv.field_size_limit(sys.maxsize)  # notes are long quoted fields
    name = str(path)
    seen_patients, seen_encounters = set(), set()
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
        if missing:
            yield bad(name, 1, f"not a MIMIC-IV-Note CSV: missing columns {', '.join(missing)}",
                      "export with the MIMIC-IV-Note columns or pass --format", {"header": reader.fieldnames})
            return
        last = reader.line_num  # rows may span lines (quoted text): report where each one starts
        for row in reader:
            line, last = last + 1, reader.line_num
            if None in row or any(v is None for v in row.values()):
                yield bad(name, line, "malformed CSV row: wrong number of fields",
                          "check quoting of the text column", {k or "_extra": v for k, v in row.items()})
                continue
            note_id, subject = row["note_id"].strip(), row["subject_id"].strip()
            if not note_id or not subject:
                yield bad(name, line, "missing id: note_id and subject_id are required",
                          "fill the ids or drop the row", row)
                continue
            try:
                chart = parse_time(row["charttime"], "charttime")
                store = parse_time(row.get("storetime"), "storetime", required=False)
            except BadTime as exc:
                yield bad(name, line, f"bad timestamp: {exc}", "use ISO times like 2180-07-23 12:35:00", row)
                continue
            if store is not None and store < chart:
                store = None  # MIMIC has a few storetimes before charttime: keep chart time only
            if (why := note_problem(row["text"], max_note_bytes)):
                yield bad(name, line, why[0], why[1], row)
                continue
            hadm = (row.get("hadm_id") or "").strip()
            encounter = f"mimic-hadm-{hadm}" if hadm else f"mimic-{subject}-{chart.date().isoformat()}"
            src = SourceRef(name, line)
            if subject not in seen_patients:
                seen_patients.add(subject)
                yield Patient(f"mimic-{subject}", {"source_system": "MIMIC-IV"}, src)
            if encounter not in seen_encounters:
                seen_encounters.add(encounter)
                yield Encounter(encounter, f"mimic-{subject}", chart, None,
                                "inpatient" if hadm else "outpatient", src)
            nt = row["note_type"].strip()
            yield Note(patient=f"mimic-{subject}", encounter=encounter, id=f"mimic-{note_id}",
                       type=TYPES.get(nt, nt), authored_at=chart, recorded_at=store, text=row["text"], source=src)
