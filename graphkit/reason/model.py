"""Typed results of normative reasoning: eligibility checks, step statuses, options, missing facts."""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field

SATISFIED, VIOLATED, UNKNOWN = "satisfied", "violated", "unknown"

#: Step statuses, in the order a report lists them.
STATUSES = ("overdue", "missing", "due", "not-yet-due", "done", "not-applicable", "done-not-indicated", "option")


@dataclass(frozen=True)
class Check:
    """One condition evaluated against the patient state: satisfied, violated or unknown."""

    fact: str  # "HER2", "stage", "site", "ECOG", "prior:step-id", "scope"
    required: str  # "positive", "II-III", "colon", "<= 1"
    observed: str | None
    verdict: str
    evidence: tuple[str, ...] = ()  # event ids


@dataclass(frozen=True)
class PathVerdict:
    path: str
    steps: tuple[str, ...]
    checks: tuple[Check, ...]

    @property
    def eligible(self) -> bool:
        return all(c.verdict != VIOLATED for c in self.checks)

    @property
    def unknown(self) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if c.verdict == UNKNOWN and not c.fact.startswith("prior:"))


@dataclass
class CareItem:
    """One guideline step for one patient: its normative status, when, why, and the evidence."""

    step: str  # step id
    step_uid: str
    name: str
    status: str  # one of STATUSES
    kind: str = ""
    category: str | None = None
    date: str | None = None  # done: first evidence date; missing: when care moved past it
    due_from: str | None = None  # the date the step became due
    overdue_since: str | None = None  # the end of its timing window
    window: str | None = None  # "within 84 days of axillary-staging"
    reason: str | None = None  # not-applicable / done-not-indicated / option: why
    evidence: list[str] = field(default_factory=list)  # event ids
    conditions: list[Check] = field(default_factory=list)  # what makes the patient eligible for it
    evidence_level: str | None = None
    evidence_source: str | None = None
    position: int = 0  # order along the patient's path
    option_of: str | None = None  # the decision step where the options diverge

    def item_id(self, patient: str, guideline: str, version: str, at: str | None) -> str:
        raw = "|".join([patient, guideline, version, at or "", self.step, self.status])
        return "care:" + hashlib.sha256(raw.encode()).hexdigest()[:20]


@dataclass(frozen=True)
class MissingInfo:
    """A fact whose absence leaves a path condition unknown: test it or document it."""

    fact: str  # "HER2", "stage", "ECOG", "site"
    step: str | None  # the step that establishes it
    step_uid: str | None
    state: str  # "not documented" | "pending" | "conflicting" | "equivocal" | "no sub-group"
    evidence: tuple[str, ...] = ()


@dataclass
class GuidelineAssessment:
    """What the guideline says for one patient at one date (normative), beside the descriptive path."""

    patient: str
    guideline: str
    version: str
    title: str
    at: str | None
    applies: bool
    reason: str | None = None  # why it does not apply, or what could not be decided
    matched_cancer: list[str] = field(default_factory=list)  # event ids that made it apply
    eligible_paths: list[str] = field(default_factory=list)
    followed_paths: list[str] = field(default_factory=list)  # eligible paths best matching the care
    items: list[CareItem] = field(default_factory=list)
    missing_info: list[MissingInfo] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)  # conditions of the followed paths
    descriptive_path: str | None = None
    disagreement: str | None = None

    def by_status(self, *statuses: str) -> list[CareItem]:
        return sorted((i for i in self.items if i.status in statuses), key=lambda i: i.position)

    @property
    def next_steps(self) -> list[CareItem]:
        """What to do now: overdue and skipped steps, then due ones, then options, in path order; when
        nothing is, the follow-up step(s) the path ends in (care continues with them)."""
        now = self.by_status("overdue", "missing") + self.by_status("due") + self.by_status("option")
        if now or not self.applies:
            return now
        upcoming = self.by_status("not-yet-due")
        return upcoming[:1] or [i for i in self.by_status("done") if i.kind == "FollowUp"][-1:]

    def as_dict(self) -> dict:
        return asdict(self)
