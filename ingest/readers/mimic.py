"""MIMIC-IV-Note CSV (discharge.csv, radiology.csv), plain or gzip-compressed as shipped (``.csv.gz``).

Columns: note_id, subject_id, hadm_id, note_type, note_seq, charttime, storetime, text.
A note's encounter is its hospital admission (hadm_id); a note without one (some radiology reports)
gets a per-day outpatient encounter. Rows are split by :mod:`ingest.readers.csvrows`, which
resynchronizes after a broken row, so a bad quote or byte never moves text between patients.
Streams the file: memory stays flat whatever its size.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ingest.model import Encounter, Note, Patient, Record, SourceRef
from ingest.readers.checks import DEFAULT_MAX_NOTE_BYTES, bad, note_problem
from ingest.readers.csvrows import CsvRows, read_header
from ingest.readers.times import BadTime, parse_time

REQUIRED = ("note_id", "subject_id", "note_type", "charttime", "text")
TYPES = {"DS": "Discharge summary", "RR": "Radiology report", "AR": "Radiology addendum",
         "AD": "Discharge summary addendum"}


def looks_like_mimic(path: Path) -> bool:
    name = path.name.lower()
    if not (name.endswith(".csv") or name.endswith(".csv.gz") or name.endswith(".gz")):
        return False
    header = [h.lower() for h in read_header(path)]
    return all(col in header for col in REQUIRED)


def patient_id(subject: str) -> str:
    return f"mimic-{subject}"


def read_mimic_csv(path: Path, max_note_bytes: int = DEFAULT_MAX_NOTE_BYTES) -> Iterator[Record]:
    """Patients, encounters and notes of one MIMIC-IV-Note CSV; bad rows as BadRecord."""
    name = str(path)
    header = read_header(path)
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        yield bad(name, 1, f"not a MIMIC-IV-Note CSV: missing columns {', '.join(missing)}",
                  "export with the MIMIC-IV-Note columns or pass --format", {"header": header})
        return
    seen_patients, seen_encounters = set(), set()
    subject_at = header.index("subject_id")
    for row in CsvRows(path, "text"):
        line = row.line
        key = row.key or []
        owner = patient_id(key[subject_at]) if len(key) > subject_at and key[subject_at].isdigit() else None
        if row.fields is None:
            yield bad(name, line, row.problem[0], row.problem[1], row.record(), owner)
            continue
        r = row.fields
        note_id, subject = r["note_id"].strip(), r["subject_id"].strip()
        if not note_id or not subject:
            yield bad(name, line, "missing id: note_id and subject_id are required",
                      "fill the ids or drop the row", r, owner)
            continue
        try:
            chart = parse_time(r["charttime"], "charttime")
            store = parse_time(r.get("storetime"), "storetime", required=False)
        except BadTime as exc:
            yield bad(name, line, f"bad timestamp: {exc}", "use ISO times like 2180-07-23 12:35:00", r, owner)
            continue
        if store is not None and store < chart:
            store = None  # MIMIC has a few storetimes before charttime: keep chart time only
        if (why := note_problem(r["text"], max_note_bytes)):
            yield bad(name, line, why[0], why[1], r, owner)
            continue
        hadm = (r.get("hadm_id") or "").strip()
        pid = patient_id(subject)
        encounter = f"mimic-hadm-{hadm}" if hadm else f"mimic-{subject}-{chart.date().isoformat()}"
        src = SourceRef(name, line)
        if subject not in seen_patients:
            seen_patients.add(subject)
            yield Patient(pid, {"source_system": "MIMIC-IV"}, src)
        if encounter not in seen_encounters:
            seen_encounters.add(encounter)
            yield Encounter(encounter, pid, chart, None, "inpatient" if hadm else "outpatient", src)
        nt = r["note_type"].strip()
        yield Note(patient=pid, encounter=encounter, id=f"mimic-{note_id}",
                   type=TYPES.get(nt, nt), authored_at=chart, recorded_at=store, text=r["text"], source=src)
