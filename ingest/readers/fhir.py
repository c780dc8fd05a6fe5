"""FHIR R4: Bundle JSON files and bulk-export NDJSON.

Notes are DocumentReference resources with a base64 ``text/*`` attachment, dated by their Encounter
(``context.encounter``) — the encounter start is when the note describes, ``DocumentReference.date``
when it was written. Condition, Procedure, MedicationRequest, MedicationAdministration and Observation
become coded structured facts beside the notes. References may be ``urn:uuid:...`` (transaction
bundles) or ``Type/id`` (bulk export).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable, Iterator
from pathlib import Path

from ingest.model import CodedFact, Encounter, Note, Patient, Record, SourceRef
from ingest.readers.checks import DEFAULT_MAX_NOTE_BYTES, bad, note_problem
from ingest.readers.checks import bad as _bad
from ingest.readers.times import BadTime, parse_time

SYSTEMS = {
    "http://snomed.info/sct": "SNOMED-CT",
    "http://loinc.org": "LOINC",
    "http://www.nlm.nih.gov/research/umls/rxnorm": "RxNorm",
    "http://hl7.org/fhir/sid/icd-10-cm": "ICD-10-CM",
    "http://hl7.org/fhir/sid/icd-10": "ICD-10",
}
FACT_TYPES = ("Condition", "Procedure", "MedicationRequest", "MedicationAdministration", "Observation")
BIOMARKER_LOINC = {"85337-4": "ER", "85339-0": "PR", "10480-2": "ER/PR", "85319-2": "HER2", "85318-4": "HER2",
                   "16112-5": "ER", "16113-3": "PR", "48676-1": "HER2", "81695-9": "MSI"}
STAGE_LOINC = {"21908-9", "21902-2", "21905-5", "21906-3", "21907-1", "21899-0", "21900-6", "21901-4"}


def looks_like_fhir(path: Path) -> bool:
    if path.suffix.lower() not in (".json", ".ndjson"):
        return False
    with open(path, "rb") as f:
        head = f.read(4096)
    return b'"resourceType"' in head


def _not_utf8(exc: UnicodeDecodeError, where: str) -> str:
    return f"not UTF-8: byte {exc.object[exc.start]:#04x} at offset {exc.start} of the {where}"


_REENCODE = "re-export the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)"


def _resources(path: Path) -> Iterator[tuple[object, dict | None, str | None]]:
    """(row, resource, error) for each resource of a Bundle file or an NDJSON file. Bytes that are
    not UTF-8 make their line (NDJSON) or file (Bundle) a bad record: never a silent U+FFFD."""
    if path.suffix.lower() == ".ndjson":
        with open(path, "rb") as f:
            for n, raw in enumerate(f, start=1):
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    yield n, None, _not_utf8(exc, "line")
                    continue
                if line.strip():
                    try:
                        yield n, json.loads(line), None
                    except json.JSONDecodeError as exc:
                        yield n, None, f"invalid JSON: {exc.msg} at column {exc.colno}"
        return
    try:
        doc = json.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as exc:
        yield 1, None, _not_utf8(exc, "file")
        return
    except json.JSONDecodeError as exc:
        yield exc.lineno, None, f"invalid JSON: {exc.msg}"
        return
    if not isinstance(doc, dict):
        yield 1, None, "invalid FHIR: the file holds no resource object"
        return
    if doc.get("resourceType") == "Bundle":
        for i, entry in enumerate(doc.get("entry") or []):
            res = entry.get("resource") if isinstance(entry, dict) else None
            full = entry.get("fullUrl") if isinstance(entry, dict) else None
            if isinstance(res, dict) and full:
                res = {**res, "_fullUrl": full}
            yield f"entry[{i}]", res, None if isinstance(res, dict) else "bundle entry without a resource"
    else:
        yield 1, doc, None


def _ref_key(ref: str | None) -> str | None:
    """'urn:uuid:X', 'Encounter/X' or 'X' → 'X'."""
    if not ref:
        return None
    return ref.rsplit(":", 1)[-1].rsplit("/", 1)[-1]


def _coding(concept: dict | None) -> tuple[str, str, str] | None:
    for c in (concept or {}).get("coding") or []:
        system = SYSTEMS.get(c.get("system", ""))
        if system and c.get("code"):
            return system, str(c["code"]), c.get("display") or (concept or {}).get("text") or ""
    return None


def _fact_time(res: dict) -> str | None:
    for key in ("onsetDateTime", "performedDateTime", "effectiveDateTime", "authoredOn", "recordedDate",
                "effectiveInstant", "issued"):
        if res.get(key):
            return res[key]
    for key in ("performedPeriod", "effectivePeriod", "onsetPeriod"):
        if (res.get(key) or {}).get("start"):
            return res[key]["start"]
    return None


def _value(res: dict) -> str | None:
    if "valueCodeableConcept" in res:
        vc = res["valueCodeableConcept"]
        return (vc.get("coding") or [{}])[0].get("display") or vc.get("text")
    if "valueQuantity" in res:
        q = res["valueQuantity"]
        return f"{q.get('value')} {q.get('unit', '')}".strip()
    return res.get("valueString")


def _kind(rtype: str, system: str, code: str, display: str) -> str:
    if rtype == "Condition":
        return "Cancer" if any(w in display.lower() for w in ("neoplasm", "cancer", "carcinoma")) else "Problem"
    if rtype == "Procedure":
        return "Procedure"
    if rtype.startswith("Medication"):
        return "Medication"
    if system == "LOINC" and code in BIOMARKER_LOINC:
        return "Biomarker"
    if system == "LOINC" and code in STAGE_LOINC:
        return "Stage"
    return "Test"


def read_fhir(paths: Iterable[Path], max_note_bytes: int = DEFAULT_MAX_NOTE_BYTES) -> Iterator[Record]:
    """Read FHIR files as one set: a DocumentReference in one file may point at an Encounter in another
    (bulk export writes one NDJSON file per resource type). Two passes over the resources."""
    encounters: dict[str, Encounter] = {}
    patients: dict[str, Patient] = {}
    pending: list[tuple[SourceRef, dict]] = []
    for path in paths:
        for row, res, error in _resources(path):
            src = SourceRef(str(path), row)
            if error:
                reason = error if error.startswith("not UTF-8") else f"invalid FHIR: {error}"
                yield bad(str(path), row, reason, _REENCODE if error.startswith("not UTF-8") else
                          "fix or drop the resource", {"file": str(path), "row": row})
                continue
            rtype = res.get("resourceType")
            key = _ref_key(res.get("_fullUrl")) or res.get("id")
            if rtype == "Patient":
                if not key:
                    yield bad(str(path), row, "invalid FHIR: Patient without id", "give the resource an id", res)
                    continue
                patients[key] = Patient(f"fhir-{key}", {"source_system": "FHIR",
                                                         "gender": res.get("gender"),
                                                         "birth_date": res.get("birthDate")}, src)
            elif rtype == "Encounter":
                subject = _ref_key((res.get("subject") or {}).get("reference"))
                period = res.get("period") or {}
                try:
                    start = parse_time(period.get("start"), "Encounter.period.start")
                    end = parse_time(period.get("end"), "Encounter.period.end", required=False)
                except BadTime as exc:
                    yield bad(str(path), row, f"invalid FHIR: {exc}", "give the Encounter a valid period", res,
                              f"fhir-{subject}" if subject else None)
                    continue
                if not key or not subject:
                    yield bad(str(path), row, "invalid FHIR: Encounter without id or subject",
                              "add Encounter.id and Encounter.subject", res)
                    continue
                cls = (res.get("class") or {}).get("code")
                encounters[key] = Encounter(f"fhir-{key}", f"fhir-{subject}", start, end, cls, src)
            elif rtype == "DocumentReference" or rtype in FACT_TYPES:
                pending.append((src, res))
    yield from patients.values()
    yield from encounters.values()
    for src, res in pending:
        yield from _convert(src, res, encounters, patients, max_note_bytes)


def _convert(src: SourceRef, res: dict, encounters: dict[str, Encounter], patients: dict[str, Patient],
             max_note_bytes: int) -> Iterator[Record]:
    rtype = res["resourceType"]
    key = _ref_key(res.get("_fullUrl")) or res.get("id")
    file, row = src.file, src.row
    subject = _ref_key((res.get("subject") or res.get("patient") or {}).get("reference"))
    owner = f"fhir-{subject}" if subject else None

    def bad(file, row, reason, fix, record):
        return _bad(file, row, reason, fix, record, owner)

    if rtype == "DocumentReference":
        enc_refs = (res.get("context") or {}).get("encounter") or []
        enc_key = _ref_key(enc_refs[0].get("reference")) if enc_refs else None
        enc = encounters.get(enc_key or "")
        if enc is None:
            yield bad(file, row, "invalid FHIR: DocumentReference without a known context.encounter",
                      "link the note to its Encounter (and include the Encounter resource)", _strip(res))
            return
        att = ((res.get("content") or [{}])[0]).get("attachment") or {}
        if not str(att.get("contentType", "text/plain")).startswith("text/"):
            yield bad(file, row, f"unsupported attachment type {att.get('contentType')!r}",
                      "export notes as text/plain", _strip(res))
            return
        try:
            text = base64.b64decode(att.get("data") or "", validate=True).decode("utf-8")
        except (binascii.Error, ValueError):
            yield bad(file, row, "not UTF-8 or not base64: attachment data cannot be decoded",
                      "re-export the attachment as base64 of UTF-8 text", _strip(res))
            return
        if (why := note_problem(text, max_note_bytes)):
            yield bad(file, row, why[0], why[1], _strip(res))
            return
        try:
            recorded = parse_time(res.get("date"), "DocumentReference.date", required=False)
        except BadTime:
            recorded = None
        type_text = ((res.get("type") or {}).get("coding") or [{}])[0].get("display") or "Clinical note"
        yield Note(patient=enc.patient, encounter=enc.id, id=f"fhir-{key}", type=type_text,
                   authored_at=enc.start, recorded_at=recorded, text=text, source=src)
        return
    code = _coding(res.get("code") or res.get("medicationCodeableConcept"))
    if code is None:
        yield bad(file, row, f"invalid FHIR: {rtype} without a coding in a known system",
                  "code it in SNOMED CT, RxNorm, LOINC or ICD-10-CM", _strip(res))
        return
    enc_key = _ref_key((res.get("encounter") or res.get("context") or {}).get("reference"))
    enc = encounters.get(enc_key or "")
    try:
        when = parse_time(_fact_time(res), f"{rtype} time", required=enc is None)
    except BadTime as exc:
        yield bad(file, row, f"invalid FHIR: {exc}", "give the resource a time or an encounter", _strip(res))
        return
    patient = enc.patient if enc else (f"fhir-{subject}" if subject else None)
    if patient is None:
        yield bad(file, row, f"invalid FHIR: {rtype} without subject", "add subject.reference", _strip(res))
        return
    system, c, display = code
    yield CodedFact(patient=patient, encounter=enc.id if enc else None, id=f"fhir-{key}",
                    kind=_kind(rtype, system, c, display), system=system, code=c, display=display,
                    time=when or (enc.start if enc else None), value=_value(res), resource_type=rtype, source=src)


def _strip(res: dict) -> dict:
    return {k: v for k, v in res.items() if k != "_fullUrl"}
