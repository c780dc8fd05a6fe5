"""Validate guideline specs: every problem, each with its file and line.

Checks, in order: YAML syntax; the JSON Schema (``guidelines/schema/guideline.schema.json``);
duplicate ids; unknown references (next.to, timing.after, when.prior_step, evidence.source);
malformed codes (format, check digits, ICD-10-CM code set); cycles; unreachable steps; dead ends;
impossible timing; contradictory conditions on an edge or along a path; the path limit.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path

import networkx as nx
import yaml
from jsonschema import Draft202012Validator, FormatChecker

from graphkit.clinical.values import STATUSES
from graphkit.guidelines.codes import code_problem
from graphkit.guidelines.paths import (DEFAULT_PATH_LIMIT, PathLimitError, count_paths, entry_steps,
                                       merge_conditions, step_graph, edge_choices)
from graphkit.guidelines.spec import GuidelineSpec, build_spec, line_of, read_yaml, stage_rank


@dataclass(frozen=True)
class Problem:
    file: str
    line: int
    kind: str  # yaml | schema | duplicate-id | unknown-reference | malformed-code | cycle | unreachable
    #            | dead-end | timing | contradictory-condition | infeasible-path | path-limit | no-entry
    message: str
    severity: str = "error"  # "warning" does not block loading

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.severity}: {self.kind}: {self.message}"


@dataclass
class ValidationResult:
    file: str
    spec: GuidelineSpec | None
    problems: list[Problem] = field(default_factory=list)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def ok(self) -> bool:
        """No errors (warnings allowed): the spec may be loaded."""
        return self.spec is not None and not self.errors

    def as_dict(self) -> dict:
        return {"file": self.file, "ok": self.ok, "problems": [asdict(p) for p in self.problems],
                "guideline": self.spec.id if self.spec else None,
                "version": self.spec.version if self.spec else None}


def schema_path() -> Path:
    here = Path(__file__).resolve().parent.parent
    for candidate in (here.parent / "guidelines" / "schema", here / "_data" / "guidelines" / "schema"):
        if (candidate / "guideline.schema.json").exists():
            return candidate / "guideline.schema.json"
    raise FileNotFoundError("guideline.schema.json is missing from this installation")


@cache
def _validator() -> Draft202012Validator:
    return Draft202012Validator(json.loads(schema_path().read_text()), format_checker=FormatChecker())


def validate_file(path: str | Path, path_limit: int = DEFAULT_PATH_LIMIT) -> ValidationResult:
    """Read and check one spec file. ``result.spec`` is set only when the file is schema-valid."""
    path = Path(path)
    name = str(path)
    try:
        data, lines = read_yaml(path)
    except FileNotFoundError:
        return ValidationResult(name, None, [Problem(name, 0, "yaml", "file not found")])
    except UnicodeDecodeError as exc:
        return ValidationResult(name, None, [Problem(name, 1, "yaml", f"not UTF-8 text ({exc.reason})")])
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        return ValidationResult(name, None, [Problem(name, mark.line + 1 if mark else 1, "yaml",
                                                     str(getattr(exc, "problem", exc)))])
    if not isinstance(data, dict):
        return ValidationResult(name, None, [Problem(name, 1, "schema", "the document must be a mapping")])
    problems = [Problem(name, line_of(lines, tuple(e.absolute_path)), "schema",
                        f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}")
                for e in sorted(_validator().iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))]
    if problems:
        return ValidationResult(name, None, problems)
    spec = build_spec(data, lines, name)
    return ValidationResult(name, spec, graph_problems(spec, path_limit))


def graph_problems(spec: GuidelineSpec, path_limit: int = DEFAULT_PATH_LIMIT) -> list[Problem]:
    """Everything about a schema-valid spec that the schema cannot see. O(V + E + paths)."""
    f, lines = spec.file, spec.lines
    out: list[Problem] = []
    ids = [s.id for s in spec.steps]
    seen: dict[str, int] = {}
    for s in spec.steps:
        if s.id in seen:
            out.append(Problem(f, s.line, "duplicate-id", f"step id {s.id!r} is already used at line {seen[s.id]}"))
        seen.setdefault(s.id, s.line)
    known, sources = set(ids), {src["id"] for src in spec.sources}

    for e in spec.edges:
        if e.target not in known:
            out.append(Problem(f, e.line, "unknown-reference", f"step {e.source!r}: next.to {e.target!r} is not a step"))
        if e.when.prior_step and e.when.prior_step not in known:
            out.append(Problem(f, e.line, "unknown-reference",
                               f"step {e.source!r}: when.prior_step {e.when.prior_step!r} is not a step"))
    for s in spec.steps:
        for t in s.timings:
            if t.after not in known:
                out.append(Problem(f, s.line, "unknown-reference", f"step {s.id!r}: timing.after {t.after!r} is not a step"))
        if s.evidence_source and s.evidence_source not in sources:
            out.append(Problem(f, s.line, "unknown-reference",
                               f"step {s.id!r}: evidence.source {s.evidence_source!r} is not in sources"))

    for i, s in enumerate(spec.steps):
        for j, c in enumerate(s.codes):
            if (why := code_problem(c.system, c.code)):
                out.append(Problem(f, line_of(lines, ("steps", i, "codes", j)), "malformed-code", f"step {s.id!r}: {why}"))
        own = {(c.system, c.code) for c in s.codes}
        for j, c in enumerate(s.requires):
            if (c.system, c.code) not in own:
                out.append(Problem(f, line_of(lines, ("steps", i, "requires", j)), "unknown-reference",
                                   f"step {s.id!r}: requires {c.system} {c.code}, which is not one of its codes"))
    for j, c in enumerate(spec.condition_codes):
        if (why := code_problem(c.system, c.code)):
            out.append(Problem(f, line_of(lines, ("condition", "codes", j)), "malformed-code", f"condition: {why}"))

    out.extend(_condition_problems(spec, known))

    g = step_graph(spec)
    cycles = list(nx.simple_cycles(g))
    order = {s.id: i for i, s in enumerate(spec.steps)}
    for cyc in sorted(cycles, key=lambda c: min(order[n] for n in c)):
        k = min(range(len(cyc)), key=lambda i: order[cyc[i]])  # start at the earliest step in the file
        cyc = cyc[k:] + cyc[:k]
        closing = next(e for e in spec.edges if e.source == cyc[-1] and e.target == cyc[0])
        out.append(Problem(f, closing.line, "cycle", "steps form a cycle: " + " -> ".join(cyc + [cyc[0]])))
    if cycles:
        return out

    entries = entry_steps(g)
    if not entries:
        out.append(Problem(f, line_of(lines, ("steps",)), "no-entry",
                           "no ClinicalSituation step without incoming edges to enter the guideline"))
    reachable = set(entries).union(*(nx.descendants(g, e) for e in entries)) if entries else set()
    for s in spec.steps:
        if s.id not in reachable and entries:
            out.append(Problem(f, s.line, "unreachable", f"step {s.id!r} cannot be reached from the entry step(s) "
                                                          f"{', '.join(entries)}"))
        declares_next = any(e.source == s.id for e in spec.edges)  # unknown targets are reported above
        if not declares_next and s.kind != "FollowUp" and not s.terminal:
            out.append(Problem(f, s.line, "dead-end", f"{s.kind} step {s.id!r} has no next step "
                                                       "(add `next`, make it FollowUp, or mark it `terminal: true`)"))
        for t in (t for t in s.timings if t.after in known):
            if t.after not in nx.ancestors(g, s.id):
                out.append(Problem(f, s.line, "timing", f"step {s.id!r}: timing.after {t.after!r} never comes "
                                                         "before this step on any path"))
            if None not in (t.min_days, t.max_days) and t.min_days > t.max_days:
                out.append(Problem(f, s.line, "timing",
                                   f"step {s.id!r}: impossible window after {t.after!r}: min_days {t.min_days} > "
                                   f"max_days {t.max_days}"))

    for e in spec.edges:
        w = e.when
        if w.stage_min and w.stage_max and stage_rank(w.stage_min) > stage_rank(w.stage_max, upper=True):
            out.append(Problem(f, e.line, "contradictory-condition",
                               f"edge {e.source} -> {e.target}: stage min {w.stage_min} is above max {w.stage_max}"))
        if w.prior_step in known and w.prior_step != e.source and w.prior_step not in nx.ancestors(g, e.source):
            out.append(Problem(f, e.line, "contradictory-condition",
                               f"edge {e.source} -> {e.target}: prior_step {w.prior_step!r} can never come first"))

    if entries:
        n = count_paths(g, entries)
        if n > path_limit:
            out.append(Problem(f, line_of(lines, ("steps",)), "path-limit",
                               f"{n:,} entry-to-terminal paths exceed the limit {path_limit:,}"))
        else:
            out.extend(_path_contradictions(spec, g, entries))
    return out


def _condition_problems(spec: GuidelineSpec, known: set[str]) -> list[Problem]:
    """Biomarker names and statuses a patient state can hold, references of not-indicated conditions and
    of what a step establishes: a typo ("HER-2", "ER: mutated") would make a condition forever unknown."""
    f, out = spec.file, []
    whens = [(e.line, f"edge {e.source} -> {e.target}", e.when) for e in spec.edges]
    whens += [(s.line, f"step {s.id!r} not_indicated", x.when) for s in spec.steps for x in s.not_indicated]
    whens.append((line_of(spec.lines, ("condition",)), "condition.when", spec.applies_when))
    for line, where, w in whens:
        for name, status in w.biomarkers:
            if name not in STATUSES:
                out.append(Problem(f, line, "unknown-reference", f"{where}: biomarker {name!r} is not one of "
                                                                 f"{', '.join(sorted(STATUSES))}"))
            elif status != "any" and status not in STATUSES[name]:
                out.append(Problem(f, line, "contradictory-condition",
                                   f"{where}: {name} is never {status!r} (one of {', '.join(sorted(STATUSES[name]))})"))
        if w.prior_step and w.prior_step not in known:
            out.append(Problem(f, line, "unknown-reference", f"{where}: prior_step {w.prior_step!r} is not a step"))
        if w.stage_min and w.stage_max and stage_rank(w.stage_min) > stage_rank(w.stage_max, upper=True):
            out.append(Problem(f, line, "contradictory-condition",
                               f"{where}: stage min {w.stage_min} is above max {w.stage_max}"))
    for s in spec.steps:
        for name in s.establishes.biomarkers:
            if name not in STATUSES:
                out.append(Problem(f, s.line, "unknown-reference",
                                   f"step {s.id!r}: establishes biomarker {name!r}, which no patient state holds"))
    return out


def _path_contradictions(spec: GuidelineSpec, g: nx.DiGraph, entries: list[str]) -> list[Problem]:
    """Edges whose condition conflicts with an earlier one on some path (reported once per edge).

    Shared steps in a DAG naturally create some impossible combinations (an EGFR-wild-type branch
    rejoining before an EGFR-mutant option): a warning, and such paths are left out of {Pa_k}.
    """
    found: dict[int, Problem] = {}
    sinks = [n for n in g if g.out_degree(n) == 0]
    for source in entries:
        for steps in nx.all_simple_paths(g, source, sinks):
            for edges in edge_choices(g, steps):
                _, why, at = merge_conditions(list(edges))
                if why and edges[at].line not in found:
                    e = edges[at]
                    found[e.line] = Problem(spec.file, e.line, "infeasible-path",
                                            f"edge {e.source} -> {e.target} cannot follow "
                                            f"{' -> '.join(steps[:at + 1])}: {why}; such paths are left out",
                                            severity="warning")
    return list(found.values())


__all__ = ["Problem", "ValidationResult", "validate_file", "graph_problems", "PathLimitError"]
