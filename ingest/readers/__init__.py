"""Readers for real EHR exports, each yielding the common records of :mod:`ingest.model`.

>>> for record in read_paths([Path("discharge.csv")]): ...
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from graphkit.errors import BadInputError
from ingest.model import Record
from ingest.readers.checks import DEFAULT_MAX_NOTE_BYTES
from ingest.readers.fhir import looks_like_fhir, read_fhir
from ingest.readers.mimic import looks_like_mimic, read_mimic_csv
from ingest.readers.textdir import find_manifest, read_text_folder

FORMATS = ("mimic", "fhir", "text")


def detect_format(path: Path) -> str:
    """'mimic' | 'fhir' | 'text' from the file's name and first bytes; BadInputError otherwise."""
    if not path.exists():
        raise BadInputError(f"{path}: no such file or folder")
    if path.is_dir():
        if find_manifest(path):
            return "text"
        if any(path.glob("*.json")) or any(path.glob("*.ndjson")):
            return "fhir"
    elif looks_like_fhir(path):
        return "fhir"
    elif find_manifest(path):
        return "text"
    elif looks_like_mimic(path):
        return "mimic"
    raise BadInputError(f"{path}: unknown format (not MIMIC-IV-Note CSV, FHIR R4 JSON/NDJSON, or a notes manifest)",
                        fix="pass --format mimic|fhir|text, or check the file")


def read_paths(paths: Iterable[Path], fmt: str | None = None,
               max_note_bytes: int = DEFAULT_MAX_NOTE_BYTES) -> Iterator[Record]:
    """Records from every path; FHIR files are read together (cross-file references)."""
    fhir_files: list[Path] = []
    for path in paths:
        kind = fmt or detect_format(path)
        if kind == "fhir":
            fhir_files.extend(sorted(p for p in path.iterdir() if p.suffix in (".json", ".ndjson")
                                     and p.name != "MANIFEST.json") if path.is_dir() else [path])
        elif kind == "mimic":
            yield from read_mimic_csv(path, max_note_bytes)
        elif kind == "text":
            manifest = find_manifest(path)
            if manifest is None:
                raise BadInputError(f"{path}: no manifest.csv with columns patient_id, note_id, time, type, path")
            yield from read_text_folder(manifest, max_note_bytes)
        else:
            raise BadInputError(f"unknown --format {kind!r}", fix=f"use one of {', '.join(FORMATS)}")
    if fhir_files:
        yield from read_fhir(fhir_files, max_note_bytes)
