"""The records every reader yields, whatever the export format."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class SourceRef:
    """Where a record came from: file and row (CSV line, NDJSON line, bundle entry index)."""

    file: str
    row: int | str

    def __str__(self) -> str:
        return f"{self.file}:{self.row}"


@dataclass(frozen=True)
class Encounter:
    id: str
    patient: str
    start: datetime
    end: datetime | None = None
    cls: str | None = None
    source: SourceRef | None = None


@dataclass(frozen=True)
class Note:
    """One clinical note. ``authored_at`` is when it describes (chart time), ``recorded_at`` when it
    was stored; ``text`` is PHI and must never reach a log."""

    patient: str
    encounter: str
    id: str
    type: str
    authored_at: datetime
    text: str = field(repr=False)
    recorded_at: datetime | None = None
    source: SourceRef | None = None


@dataclass(frozen=True)
class CodedFact:
    """A structured, already-coded event (FHIR Condition, Procedure, Medication*, Observation)."""

    patient: str
    encounter: str | None
    id: str
    kind: str  # Problem | Cancer | Procedure | Medication | Test | Biomarker | Stage
    system: str  # SNOMED-CT | RxNorm | LOINC | ICD-10-CM | ...
    code: str
    display: str
    time: datetime | None
    value: str | None = None
    resource_type: str = ""
    source: SourceRef | None = None


@dataclass(frozen=True)
class Patient:
    id: str
    props: dict = field(default_factory=dict)
    source: SourceRef | None = None


@dataclass(frozen=True)
class BadRecord:
    """A record that cannot be ingested: it goes to the quarantine file with its reason."""

    source: SourceRef
    reason: str
    fix: str
    record: dict = field(repr=False)  # the raw record, kept so nothing is lost (may hold PHI: file only)
    patient: str | None = None  # graphkit's patient id when the record names one (for deletion)


Record = Patient | Encounter | Note | CodedFact | BadRecord
