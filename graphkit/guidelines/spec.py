"""Typed guideline specs, read from YAML with the line of every value kept for error messages."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from graphkit.clinical.values import stage_rank  # noqa: F401 - the one owner of stage order (re-exported)


@dataclass(frozen=True)
class Code:
    system: str
    code: str
    display: str | None = None


@dataclass(frozen=True)
class Condition:
    """When a NEXT edge applies. Empty fields mean "no constraint"."""

    biomarkers: tuple[tuple[str, str], ...] = ()
    stage_min: str | None = None
    stage_max: str | None = None
    site: str | None = None
    prior_step: str | None = None
    ecog_max: int | None = None
    ecog_min: int | None = None
    response: str | None = None  # complete | incomplete: the clinical response to the treatment before

    def as_dict(self) -> dict:
        d: dict = {}
        if self.biomarkers:
            d["biomarkers"] = dict(self.biomarkers)
        if self.stage_min or self.stage_max:
            d["stage"] = {k: v for k, v in (("min", self.stage_min), ("max", self.stage_max)) if v}
        if self.site:
            d["site"] = self.site
        if self.prior_step:
            d["prior_step"] = self.prior_step
        if self.ecog_max is not None:
            d["ecog_max"] = self.ecog_max
        if self.ecog_min is not None:
            d["ecog_min"] = self.ecog_min
        if self.response:
            d["response"] = self.response
        return d


@dataclass(frozen=True)
class NotIndicated:
    """When the source says a step is not indicated (or contraindicated) for a patient."""

    when: Condition
    reason: str
    contraindicated: bool = False


@dataclass(frozen=True)
class Establishes:
    """What an assessment step documents: its biomarkers, a stage (clinical, pathological or any),
    the performance status."""

    biomarkers: tuple[str, ...] = ()
    stage: str | None = None
    performance_status: bool = False

    def __bool__(self) -> bool:
        return bool(self.biomarkers or self.stage or self.performance_status)


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    when: Condition = Condition()
    note: str | None = None
    line: int = 0


@dataclass(frozen=True)
class Timing:
    after: str
    min_days: int | None = None
    max_days: int | None = None
    strict: bool = False  # care dated before the window opens is not this step (a later line of therapy)


@dataclass(frozen=True)
class Step:
    id: str
    kind: str
    name: str
    description: str
    category: str | None = None
    terminal: bool = False
    codes: tuple[Code, ...] = ()
    timing: Timing | None = None  # the first window (what the descriptive aligner checks)
    evidence_level: str | None = None
    evidence_source: str | None = None
    line: int = 0
    not_indicated: tuple[NotIndicated, ...] = ()
    establishes: Establishes = Establishes()
    timings: tuple[Timing, ...] = ()  # every window, one per anchor step
    requires: tuple[Code, ...] = ()  # the defining element of a combination: one must be in the evidence


@dataclass
class GuidelineSpec:
    id: str
    title: str
    version: str
    effective_date: str
    condition_name: str
    condition_codes: tuple[Code, ...]
    sources: tuple[dict, ...]
    steps: tuple[Step, ...]
    edges: tuple[Edge, ...]
    file: str = ""
    sha256: str = ""
    lines: dict = field(default_factory=dict, repr=False)
    applies_when: Condition = Condition()
    data: dict = field(default_factory=dict, repr=False)  # the schema-valid document (stored in the graph)

    def step(self, step_id: str) -> Step:
        return next(s for s in self.steps if s.id == step_id)

    def uid(self, step_id: str) -> str:
        """Globally unique step id: guideline, version and step."""
        return f"{self.id}@{self.version}/{step_id}"


def _plain(value):
    """YAML dates → ISO strings, so the data is JSON (and JSON Schema) compatible."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return value


def _line_map(node: yaml.Node, path: tuple = (), out: dict | None = None) -> dict[tuple, int]:
    """JSON path (tuple of keys/indexes) → 1-based line of that value. O(nodes)."""
    out = {} if out is None else out
    out.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            out[path + (key.value,)] = key.start_mark.line + 1
            _line_map(value, path + (key.value,), out)
            out[path + (key.value,)] = key.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for i, value in enumerate(node.value):
            _line_map(value, path + (i,), out)
    return out


def read_yaml(path: Path) -> tuple[dict, dict[tuple, int]]:
    """The document as plain data plus its line map. Raises yaml.YAMLError with a position."""
    text = path.read_text(encoding="utf-8")
    node = yaml.compose(text, Loader=yaml.SafeLoader)
    data = _plain(yaml.safe_load(text))
    return data, (_line_map(node) if node is not None else {})


def line_of(lines: dict[tuple, int], path: tuple) -> int:
    """The line of ``path``, or of its nearest ancestor that has one."""
    while path and path not in lines:
        path = path[:-1]
    return lines.get(path, 1)


def _codes(items) -> tuple[Code, ...]:
    return tuple(Code(str(c["system"]), str(c["code"]), c.get("display")) for c in items or ())


def condition_of(when: dict | None) -> Condition:
    when = when or {}
    stage = when.get("stage") or {}
    return Condition(
        biomarkers=tuple(sorted((str(k), str(v)) for k, v in (when.get("biomarkers") or {}).items())),
        stage_min=stage.get("min"), stage_max=stage.get("max"), site=when.get("site"),
        prior_step=when.get("prior_step"), ecog_max=when.get("ecog_max"), ecog_min=when.get("ecog_min"),
        response=when.get("response"))


def build_spec(data: dict, lines: dict[tuple, int], file: str = "") -> GuidelineSpec:
    """Typed spec from schema-valid data (run the JSON Schema first)."""
    steps, edges = [], []
    for i, s in enumerate(data["steps"]):
        raw = s.get("timing")
        windows = tuple(Timing(t["after"], t.get("min_days"), t.get("max_days"), bool(t.get("strict", False)))
                        for t in ([raw] if isinstance(raw, dict) else raw or ()))
        evidence = s.get("evidence") or {}
        steps.append(Step(
            id=s["id"], kind=s["kind"], name=s["name"], description=" ".join(s["description"].split()),
            category=s.get("category"), terminal=bool(s.get("terminal", False)), codes=_codes(s.get("codes")),
            timing=windows[0] if windows else None, timings=windows,
            evidence_level=evidence.get("level"), evidence_source=evidence.get("source"),
            line=line_of(lines, ("steps", i)),
            not_indicated=tuple(NotIndicated(condition_of(x["when"]), x["reason"], bool(x.get("contraindicated")))
                                for x in s.get("not_indicated") or ()),
            establishes=_establishes(s.get("establishes")),
            requires=_codes(s.get("requires")),
        ))
        for j, nxt in enumerate(s.get("next") or ()):
            edges.append(Edge(
                source=s["id"], target=nxt["to"], note=nxt.get("note"), when=condition_of(nxt.get("when")),
                line=line_of(lines, ("steps", i, "next", j)),
            ))
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return GuidelineSpec(
        id=data["id"], title=data["title"], version=str(data["version"]),
        effective_date=str(data["effective_date"]), condition_name=data["condition"]["name"],
        condition_codes=_codes(data["condition"]["codes"]), sources=tuple(data["sources"]),
        steps=tuple(steps), edges=tuple(edges), file=file,
        sha256=hashlib.sha256(canonical.encode()).hexdigest(), lines=lines,
        applies_when=condition_of(data["condition"].get("when")), data=data,
    )


def _establishes(raw: dict | None) -> Establishes:
    raw = raw or {}
    return Establishes(tuple(raw.get("biomarkers") or ()), raw.get("stage"), bool(raw.get("performance_status")))


def spec_from_json(text: str, file: str = "") -> GuidelineSpec:
    """A spec from the JSON stored on its (:Guideline) node: reasoning reads the graph, never the file."""
    return build_spec(json.loads(text), {}, file)
