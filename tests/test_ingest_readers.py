"""Readers: MIMIC-IV-Note CSV, FHIR R4 (Bundle, NDJSON), text folder — and every kind of bad input."""

from __future__ import annotations

import base64
import csv
import io
import json
from pathlib import Path

import pytest

from graphkit.errors import BadInputError
from ingest.model import BadRecord, CodedFact, Encounter, Note, Patient
from ingest.readers import detect_format, read_paths

ROOT = Path(__file__).resolve().parent.parent
COHORT = ROOT / "ingest" / "demo" / "cohort"
HEADER = ["note_id", "subject_id", "hadm_id", "note_type", "note_seq", "charttime", "storetime", "text"]


def _mimic(tmp_path: Path, rows: list[list[str]], raw_tail: bytes = b"") -> Path:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(HEADER)
    w.writerows(rows)
    path = tmp_path / "discharge.csv"
    path.write_bytes(buf.getvalue().encode("utf-8") + raw_tail)
    return path


def _by_type(records):
    out: dict[type, list] = {}
    for r in records:
        out.setdefault(type(r), []).append(r)
    return out


def test_mimic_csv_good_and_bad_rows(tmp_path):
    big = "x " * 600_000  # 1.2 MB note
    path = _mimic(tmp_path, [
        ["10-DS-1", "10", "200", "DS", "1", "2180-07-23 12:35:00", "2180-07-23 18:00:00", "Pt denies chest pain.\nPlan: home."],
        ["10-RR-2", "10", "", "RR", "1", "2180-07-20 09:00:00", "", "CXR: no effusion."],
        ["11-DS-1", "11", "201", "DS", "1", "not a time", "", "text"],
        ["12-DS-1", "12", "202", "DS", "1", "2180-01-01 00:00:00", "", "   "],
        ["13-DS-1", "13", "203", "DS", "1", "2180-01-01 00:00:00", "", big],
        ["14-DS-1", "14", "204", "DS", "1", "3000-01-01 00:00:00", "", "impossible date"],
        ["", "15", "205", "DS", "1", "2180-01-01 00:00:00", "", "no note id"],
    ], raw_tail=b'16-DS-1,16,206,DS,1,2180-01-01 00:00:00,,"caf\xe9 latin-1"\n')
    got = _by_type(read_paths([path]))
    notes = got[Note]
    assert [n.id for n in notes] == ["mimic-10-DS-1", "mimic-10-RR-2"]
    assert notes[0].encounter == "mimic-hadm-200" and notes[0].recorded_at.hour == 18
    assert notes[1].encounter == "mimic-10-2180-07-20"  # no hadm_id: a per-day outpatient encounter
    assert {p.id for p in got[Patient]} == {"mimic-10"} and len(got[Encounter]) == 2
    # line numbers where each record starts (row 1 spans two lines)
    reasons = {str(b.source.row): b.reason for b in got[BadRecord]}
    assert reasons["5"].startswith("bad timestamp: unparseable charttime")
    assert reasons["6"].startswith("empty note")
    assert reasons["7"].startswith("note too large")
    assert reasons["8"].startswith("bad timestamp: impossible charttime")
    assert reasons["9"].startswith("missing id")
    assert reasons["10"].startswith("not UTF-8")
    assert all(b.source.file == str(path) and b.fix for b in got[BadRecord])


def test_mimic_malformed_row_and_missing_columns(tmp_path):
    path = tmp_path / "radiology.csv"
    path.write_text(",".join(HEADER) + "\n" + '1,2,3,RR,1,2180-01-01 00:00:00,,"ok",EXTRA\n')
    [bad] = [r for r in read_paths([path]) if isinstance(r, BadRecord)]
    assert bad.reason.startswith("malformed CSV row")
    other = tmp_path / "notes.csv"
    other.write_text("note_id,subject_id,text\n1,2,hello\n")
    with pytest.raises(BadInputError, match="unknown format"):
        detect_format(other)
    [bad] = list(read_paths([other], fmt="mimic"))
    assert "missing columns note_type, charttime" in bad.reason


def test_fhir_bundle_from_the_demo_cohort():
    bundle = sorted(p for p in COHORT.glob("*.json") if p.name != "MANIFEST.json")[0]
    assert detect_format(bundle) == "fhir"
    got = _by_type(read_paths([bundle]))
    assert len(got[Patient]) == 1 and BadRecord not in got
    encounters = {e.id: e for e in got[Encounter]}
    for note in got[Note]:
        assert note.authored_at == encounters[note.encounter].start  # dated by its Encounter
        assert note.text.strip()
    kinds = {f.kind for f in got[CodedFact]}
    assert {"Procedure", "Medication"} <= kinds
    assert all(f.system in ("SNOMED-CT", "RxNorm", "LOINC") for f in got[CodedFact])


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def test_fhir_ndjson_bulk_export_and_invalid_resources(tmp_path):
    lines = [
        {"resourceType": "Patient", "id": "p1"},
        {"resourceType": "Encounter", "id": "e1", "subject": {"reference": "Patient/p1"},
         "period": {"start": "2024-03-20T08:00:00Z"}},
        {"resourceType": "DocumentReference", "id": "d1", "context": {"encounter": [{"reference": "Encounter/e1"}]},
         "content": [{"attachment": {"contentType": "text/plain", "data": _b64("No evidence of metastasis.")}}]},
        {"resourceType": "DocumentReference", "id": "d2", "context": {"encounter": [{"reference": "Encounter/zz"}]},
         "content": [{"attachment": {"contentType": "text/plain", "data": _b64("orphan")}}]},
        {"resourceType": "DocumentReference", "id": "d3", "context": {"encounter": [{"reference": "Encounter/e1"}]},
         "content": [{"attachment": {"contentType": "text/plain", "data": "%%%not-base64%%%"}}]},
        {"resourceType": "Procedure", "id": "x1", "subject": {"reference": "Patient/p1"},
         "encounter": {"reference": "Encounter/e1"},
         "code": {"coding": [{"system": "http://snomed.info/sct", "code": "392021009", "display": "Lumpectomy"}]}},
        {"resourceType": "Condition", "id": "c1", "subject": {"reference": "Patient/p1"}, "code": {"text": "uncoded"}},
    ]
    path = tmp_path / "export.ndjson"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n{not json\n")
    got = _by_type(read_paths([path]))
    [note] = got[Note]
    assert note.id == "fhir-d1" and note.encounter == "fhir-e1" and note.authored_at.hour == 8
    [fact] = got[CodedFact]
    assert (fact.kind, fact.code, fact.encounter) == ("Procedure", "392021009", "fhir-e1")
    reasons = sorted(b.reason.split(":")[0] + ":" + b.reason.split(":")[1][:25] for b in got[BadRecord])
    assert len(reasons) == 4, reasons
    assert any("without a known context.encounter" in b.reason for b in got[BadRecord])
    assert any("cannot be decoded" in b.reason for b in got[BadRecord])
    assert any("without a coding" in b.reason for b in got[BadRecord])
    assert any(b.reason.startswith("invalid FHIR: invalid JSON") and b.source.row == 8 for b in got[BadRecord])


def test_text_folder_with_manifest(tmp_path):
    (tmp_path / "a.txt").write_text("Assessment and Plan: start tamoxifen.")
    (tmp_path / "b.txt").write_bytes(b"caf\xe9")
    (tmp_path / "manifest.csv").write_text(
        "patient_id,note_id,time,type,path\n"
        "p1,n1,2024-01-05T10:00,Progress note,a.txt\n"
        "p1,n2,2024-01-06T10:00,Progress note,b.txt\n"
        "p1,n3,2024-01-07T10:00,Progress note,missing.txt\n"
        "p1,n4,2024-01-08T10:00,Medical oncology consult (transfer of care),a.txt\n"
        "p1,n5,2024-01-09T10:00,Oncología Médica - primera consulta (traslado),a.txt\n"
        "p1,n6,2024-01-10T10:00,MDO herstadiëring,a.txt\n")
    assert detect_format(tmp_path) == "text"
    got = _by_type(read_paths([tmp_path]))
    # a note type in another language is a well-formed row, not a broken line
    assert [n.id for n in got[Note]] == ["n1", "n4", "n5", "n6"] and got[Note][0].encounter == "p1-2024-01-05"
    assert sorted(b.reason.split(":")[0] for b in got[BadRecord]) == ["not UTF-8", "note file not found"]
