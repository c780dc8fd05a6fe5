"""Typed inputs and outputs of the aligner (boundaries); everything between them is pure functions."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import asdict, dataclass, field


@dataclass(frozen=True)
class AlignParams:
    """Every knob of one alignment run; stored as JSON on the (:AlignmentRun) so a result can be
    reproduced from its run alone.

    - ``beta``: path score = F-beta of recall (path covered) and precision (care explained).
    - ``cos_floor``: cosine of unrelated short clinical texts under MiniLM (~0.2); rescaled to 0.
    - ``code_match`` / ``code_category_match``: agreement for the same code / same ICD-10 category.
    - ``kind_mismatch``: factor for an event kind that cannot realize the step's category.
    - ``code_conflict``: factor for meaning when unit and step are coded in one system, differently.
    - ``theta``: lowest combined score for a pair to be aligned (BootEA's threshold).
    - ``seed_theta``: lowest score for a seed pair taken from the top path.
    - ``alpha``: weight of the semantic term against neighborhood consistency (BootEA).
    - ``episode_gap_days``: the same concept recurring after this gap is a new episode (unit).
    - ``same_day_days``: events this close count as simultaneous for order checks.
    - ``best_margin``: a unit may align only to steps scoring within this of its best step.
    - ``min_neighborhood``: a pair needs at least this neighborhood agreement to be taken.
    """

    alpha: float = 0.7
    theta: float = 0.55
    seed_theta: float = 0.85
    max_iterations: int = 5
    top_n: int = 3
    beta: float = 0.5
    cos_floor: float = 0.2
    code_match: float = 1.0
    code_category_match: float = 0.9
    kind_mismatch: float = 0.5
    code_conflict: float = 0.6
    stage_mismatch: float = 0.99
    biomarker_mismatch: float = 0.99
    episode_gap_days: int = 180
    same_day_days: int = 1
    best_margin: float = 0.1
    min_neighborhood: float = 0.5
    support: bool = True

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> AlignParams:
        return cls(**json.loads(text))


@dataclass(frozen=True)
class Event:
    """One trajectory event as read from the graph."""

    id: str
    kind: str
    text: str
    assertion: str | None
    valid_time: dt.date | None
    order: int | None = None
    source: str | None = None
    value: str | None = None
    codes: tuple[str, ...] = ()  # "SYSTEM|code"
    ancestors: tuple[str, ...] = ()  # the codes' is-a ancestors ("DOID|DOID:3908" for a lung adenocarcinoma)
    values: tuple[str, ...] = ()  # normalized at ingestion: "ER=positive", "IIA", "pT2N1aM0"
    detail: dict | None = field(default=None, hash=False, compare=False)


@dataclass
class Unit:
    """An episode of one concept in a patient's trajectory: events that share a code (or, uncoded, the
    same text) without a gap longer than ``episode_gap_days``. Units, not raw events, are aligned:
    twelve cycles of one drug are one treatment step, not twelve."""

    key: str
    kind: str
    text: str
    codes: frozenset[str]
    events: list[str] = field(default_factory=list)
    first: dt.date | None = None
    last: dt.date | None = None
    ancestors: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Step:
    uid: str
    id: str
    kind: str
    category: str
    name: str
    description: str
    order: int
    codes: tuple[tuple[str, str], ...] = ()  # ("SYSTEM|code", concept name)
    timing_after: str | None = None
    min_days: int | None = None
    max_days: int | None = None

    @property
    def observable(self) -> bool:
        """Decision steps are made in a clinician's head: no event realizes them, unless the spec codes
        one (a documented MDT discussion)."""
        return self.kind != "Decision" or bool(self.codes)


@dataclass(frozen=True)
class Path:
    id: str
    index: int
    steps: tuple[str, ...]  # step uids in order
    stage_min: str | None = None
    stage_max: str | None = None
    biomarkers: tuple[str, ...] = ()  # "HER2=positive"


@dataclass
class Guideline:
    id: str
    version: str
    title: str
    condition_codes: frozenset[str]
    steps: list[Step] = field(default_factory=list)
    paths: list[Path] = field(default_factory=list)


@dataclass(frozen=True)
class Profile:
    """What the record says about the cancer: stage group and biomarker status."""

    stage: str | None = None
    biomarkers: tuple[tuple[str, str], ...] = ()
    diagnosis_date: dt.date | None = None


@dataclass(frozen=True)
class PathScore:
    path: str
    guideline: str
    version: str
    score: float
    recall: float
    precision: float
    order_consistency: float
    condition_factor: float
    rank: int = 0
    reranked: bool = False


@dataclass(frozen=True)
class Decision:
    """One bootstrapping decision, kept so that every alignment can be explained."""

    iteration: int
    action: str  # seed | add | edit | drop | support
    unit: str
    step: str
    score: float
    semantic: float
    neighborhood: float
    replaced: str | None = None


@dataclass(frozen=True)
class Pair:
    unit: str
    step: str
    score: float
    semantic: float
    neighborhood: float
    iteration: int
    role: str = "primary"  # primary (one-to-one) | support (another event of an aligned step)


@dataclass
class ConformanceItem:
    type: str  # matched | missing | pending | off_guideline | order_violation | timing_violation | undated
    step: str | None
    step_uid: str | None
    detail: str
    events: list[str] = field(default_factory=list)
    date: str | None = None
    days: int | None = None
    limit_days: int | None = None
    score: float | None = None

    def item_id(self, run: str, patient: str) -> str:
        raw = "|".join([run, patient, self.type, self.step_uid or "", ",".join(sorted(self.events)), self.detail])
        return "ci:" + hashlib.sha256(raw.encode()).hexdigest()[:20]


@dataclass
class PatientAlignment:
    """The whole result for one patient; written to the graph in one transaction."""

    patient: str
    status: str  # aligned | no_events | no_guideline | no_paths
    reason: str | None = None
    guideline: str | None = None
    version: str | None = None
    profile: Profile = field(default_factory=Profile)
    paths: list[PathScore] = field(default_factory=list)
    pairs: list[Pair] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    units: list[Unit] = field(default_factory=list)
    conformance: list[ConformanceItem] = field(default_factory=list)
    n_events: int = 0
    rerank: str = "skipped"  # what the LLM rerank did: skipped | ok | fallback: reason
    # the per-unit step ranking used for evaluation (unit key -> step uids, best first)
    rankings: dict[str, list[str]] = field(default_factory=dict)

    @property
    def top_path(self) -> PathScore | None:
        return self.paths[0] if self.paths else None

    def aligned_events(self) -> dict[str, Pair]:
        """event id -> the pair its unit belongs to."""
        by_unit = {u.key: u for u in self.units}
        out: dict[str, Pair] = {}
        for p in self.pairs:
            for ev in by_unit[p.unit].events:
                out[ev] = p
        return out
