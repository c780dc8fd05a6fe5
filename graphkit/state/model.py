"""Typed patient state: what the record says about a patient's cancer at one date, with evidence."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import asdict, dataclass, field


@dataclass(frozen=True)
class Fact:
    """One stored event as the state reads it (values already normalized at ingestion)."""

    id: str
    kind: str
    text: str
    assertion: str | None
    date: dt.date | None
    value: str | None = None
    values: tuple[str, ...] = ()
    detail: dict = field(default_factory=dict, hash=False, compare=False)
    flags: tuple[str, ...] = ()
    codes: tuple[str, ...] = ()  # "SYSTEM|code"
    ancestors: tuple[str, ...] = ()  # their is-a ancestors
    note: str | None = None
    source: str | None = None
    context: str | None = None
    order: int = 0
    recorded: dt.date | None = None  # the day its note was written (a plan is known then, whatever day it names)


@dataclass(frozen=True)
class Evidence:
    """Where a state fact comes from: the event (a citation id), its note and date, and the words."""

    event: str
    date: str | None
    text: str
    note: str | None = None


@dataclass(frozen=True)
class CancerFact:
    name: str
    site: str | None  # breast | lung | colon | rectum | colorectal | ... (None when the record does not say)
    histology: str | None
    codes: tuple[str, ...]
    ancestors: tuple[str, ...]
    first: str | None
    evidence: tuple[Evidence, ...]
    site_inferred: bool = False  # a histology without a site, placed at the patient's one cancer site
    past: bool = False  # every mention says treated years ago, no current disease (flag ``past-cancer``)


@dataclass(frozen=True)
class StageFact:
    group: str | None  # AJCC group ("IIA"), None when only TNM parts without a derivable group
    tnm: str | None  # canonical TNM ("pT2N1aM0")
    basis: str | None  # clinical | pathological
    derived: bool  # the group was derived from TNM (AJCC 8 table of the site) or from M1
    date: str | None
    evidence: tuple[Evidence, ...]


@dataclass(frozen=True)
class MarkerFact:
    name: str
    status: str  # positive | negative | ... | pending | conflicting
    detail: dict
    date: str | None
    evidence: tuple[Evidence, ...]
    derived_from: tuple[str, ...] = ()  # HR from ER/PR, MSI from MMR


@dataclass(frozen=True)
class PerformanceFact:
    scale: str
    value: int
    date: str | None
    evidence: tuple[Evidence, ...]


@dataclass(frozen=True)
class ResponseFact:
    value: str  # complete | incomplete: the latest documented clinical response
    date: str | None
    evidence: tuple[Evidence, ...]
    since: str | None = None  # the first day of the statements that have said so since (restatements after it)


@dataclass(frozen=True)
class TreatmentFact:
    name: str
    kind: str  # Medication | Procedure
    codes: tuple[str, ...]
    ancestors: tuple[str, ...]
    status: str  # started | ongoing | completed | stopped | documented
    first: str | None
    last: str | None
    evidence: tuple[Evidence, ...]


@dataclass(frozen=True)
class Issue:
    """Something the state could not decide, or that looks wrong: conflict (two values for one fact),
    two-primaries, before-diagnosis (a cancer treatment dated before the first diagnosis),
    invalid (a value that does not exist). Never resolved silently."""

    kind: str
    fact: str
    message: str
    evidence: tuple[Evidence, ...] = ()


@dataclass
class PatientState:
    patient: str
    at: str | None
    cancers: list[CancerFact] = field(default_factory=list)
    stage: StageFact | None = None
    stage_history: list[StageFact] = field(default_factory=list)
    markers: dict[str, MarkerFact] = field(default_factory=dict)
    performance: PerformanceFact | None = None
    response: ResponseFact | None = None
    treatments: list[TreatmentFact] = field(default_factory=list)
    planned: list[TreatmentFact] = field(default_factory=list)
    progression: list[str] = field(default_factory=list)  # days progression or recurrence was documented
    issues: list[Issue] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list, repr=False)  # every own, happened fact up to `at`
    ruled_out: list[Fact] = field(default_factory=list, repr=False)  # care judged unfit for, up to `at`

    @property
    def sites(self) -> list[str]:
        return list(dict.fromkeys(c.site for c in self.cancers if c.site))

    def marker(self, name: str) -> str | None:
        """The usable status of a marker, or None when undocumented, pending or conflicting."""
        m = self.markers.get(name)
        return m.status if m and m.status not in ("pending", "conflicting", "not-tested", "invalid") else None

    def as_dict(self) -> dict:
        d = asdict(self)
        d.pop("facts")
        d.pop("ruled_out")
        return d

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), sort_keys=True, default=str)
