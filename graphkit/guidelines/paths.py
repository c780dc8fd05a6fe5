"""Entry-to-terminal normative paths of a guideline (CliCARE's {Pa_k}), bounded and deterministic."""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass

import networkx as nx

from graphkit.errors import BadInputError
from graphkit.guidelines.spec import Edge, GuidelineSpec, stage_rank

DEFAULT_PATH_LIMIT = 1000

_OPPOSITE = {"positive": "negative", "negative": "positive", "high": "low", "low": "high",
             "mutated": "wild-type", "wild-type": "mutated"}


class PathLimitError(BadInputError):
    """The guideline has more paths than the configured limit (a combinatorial graph)."""


@dataclass(frozen=True)
class GuidelinePath:
    index: int  # position in the deterministic order (0-based)
    id: str  # "<guideline>@<version>#<hash of the step sequence>": stable when other paths change
    steps: tuple[str, ...]
    conditions: dict  # merged edge conditions along the path
    contradiction: str | None = None  # why no patient could ever follow it
    edges: tuple[Edge, ...] = ()  # the edge taken at each hop (one of its alternatives)


def step_graph(spec: GuidelineSpec) -> nx.DiGraph:
    """The steps as a DiGraph; node and edge insertion follow the file, which fixes path order. Several
    ``next`` entries to the same step are alternatives (an OR of their conditions): the edge keeps them
    all in ``alternatives``, and ``edge`` is the first."""
    g = nx.DiGraph()
    for order, step in enumerate(spec.steps):
        g.add_node(step.id, order=order, kind=step.kind, terminal=step.terminal)
    for edge in spec.edges:
        if edge.target not in g:
            continue
        if g.has_edge(edge.source, edge.target):
            g.edges[edge.source, edge.target]["alternatives"].append(edge)
        else:
            g.add_edge(edge.source, edge.target, edge=edge, alternatives=[edge])
    return g


def edge_choices(g: nx.DiGraph, steps: tuple[str, ...] | list[str]) -> list[tuple[Edge, ...]]:
    """Every combination of alternative edges along a step sequence (one per hop), in file order."""
    return list(itertools.product(*(g.edges[u, v]["alternatives"] for u, v in zip(steps, steps[1:]))))


def entry_steps(g: nx.DiGraph) -> list[str]:
    """ClinicalSituation steps nothing leads to: where a patient enters the guideline."""
    return [n for n in g if g.in_degree(n) == 0 and g.nodes[n]["kind"] == "ClinicalSituation"]


def terminal_steps(g: nx.DiGraph) -> list[str]:
    return [n for n in g if g.out_degree(n) == 0]


def count_paths(g: nx.DiGraph, sources: list[str]) -> int:
    """Number of source-to-sink paths of a DAG by dynamic programming: O(V + E), no enumeration."""
    ways = dict.fromkeys(g, 0)
    for s in sources:
        ways[s] = 1
    total = 0
    for node in nx.topological_sort(g):
        if g.out_degree(node) == 0:
            total += ways[node]
        for succ in g.successors(node):
            ways[succ] += ways[node] * len(g.edges[node, succ]["alternatives"])
    return total


def merge_conditions(edges: list[Edge]) -> tuple[dict, str | None, int | None]:
    """Conjunction of the edge conditions along a path: (merged, contradiction, index of the edge
    that made it contradictory). O(len(edges))."""
    markers: dict[str, str] = {}
    lo, hi, lo_s, hi_s = -1, 10**6, None, None
    sites, priors, ecog, ecog_lo, response = [], [], None, None, None
    for i, e in enumerate(edges):
        w = e.when
        for name, value in w.biomarkers:
            if value == "any":
                continue
            if markers.get(name) not in (None, value):
                return {}, f"{name} must be both {markers[name]} and {value}", i
            markers[name] = value
        if w.stage_min and stage_rank(w.stage_min) > lo:
            lo, lo_s = stage_rank(w.stage_min), w.stage_min
        if w.stage_max and stage_rank(w.stage_max, upper=True) < hi:
            hi, hi_s = stage_rank(w.stage_max, upper=True), w.stage_max
        if lo > hi:
            return {}, f"stage must be at least {lo_s} and at most {hi_s}", i
        if w.site and w.site not in sites:
            sites.append(w.site)
        if w.prior_step and w.prior_step not in priors:
            priors.append(w.prior_step)
        if w.ecog_max is not None:
            ecog = w.ecog_max if ecog is None else min(ecog, w.ecog_max)
        if w.ecog_min is not None:
            ecog_lo = w.ecog_min if ecog_lo is None else max(ecog_lo, w.ecog_min)
        if None not in (ecog, ecog_lo) and ecog_lo > ecog:
            return {}, f"ECOG must be at least {ecog_lo} and at most {ecog}", i
        if w.response:
            if response not in (None, w.response):
                return {}, f"the response must be both {response} and {w.response}", i
            response = w.response
    merged: dict = {}
    if markers:
        merged["biomarkers"] = markers
    if lo_s or hi_s:
        merged["stage"] = {k: v for k, v in (("min", lo_s), ("max", hi_s)) if v}
    if sites:
        merged["sites"] = sites
    if priors:
        merged["prior_steps"] = priors
    if ecog is not None:
        merged["ecog_max"] = ecog
    if ecog_lo is not None:
        merged["ecog_min"] = ecog_lo
    if response:
        merged["response"] = response
    return merged, None, None


def _path_id(spec: GuidelineSpec, steps: tuple[str, ...], alternatives: tuple[int, ...] = ()) -> str:
    """Stable id from the step sequence (plus which alternative edge each hop took, where a hop has
    several): other paths changing never renames this one, and the id is the same whether the spec
    was read from its file or from the graph."""
    key = "/".join(steps)
    if any(alternatives):
        key += "|" + ",".join(map(str, alternatives))
    digest = hashlib.sha1(key.encode()).hexdigest()[:10]
    return f"{spec.id}@{spec.version}#{digest}"


def enumerate_paths(spec: GuidelineSpec, limit: int = DEFAULT_PATH_LIMIT,
                    include_infeasible: bool = False) -> list[GuidelinePath]:
    """All entry-to-terminal paths in file order (networkx ``all_simple_paths`` over the DAG).

    Paths whose merged conditions contradict each other (no patient could follow them) are left out
    unless ``include_infeasible``; indexes count the kept paths.

    The count is computed first in O(V + E); more than ``limit`` paths raises PathLimitError instead
    of hanging on a combinatorial graph. Enumeration is O(total path length).
    """
    g = step_graph(spec)
    if not nx.is_directed_acyclic_graph(g):
        cycle = nx.find_cycle(g)
        raise BadInputError(f"guideline {spec.id} has a cycle: {' -> '.join(u for u, _ in cycle)}")
    sources = entry_steps(g)
    n = count_paths(g, sources)
    if n > limit:
        raise PathLimitError(f"guideline {spec.id} has {n:,} entry-to-terminal paths, more than the limit {limit:,}",
                             fix="merge alternative branches into Decision steps, or raise --path-limit")
    sinks = terminal_steps(g)
    paths = []
    for source in sources:
        if source in sinks:
            paths.append((source,))
        paths.extend(tuple(p) for p in nx.all_simple_paths(g, source, sinks))
    out = []
    for steps in paths:
        choices = edge_choices(g, steps)
        for edges in choices:
            merged, contradiction, _ = merge_conditions(list(edges))
            if contradiction is None or include_infeasible:
                alts = tuple(g.edges[u, v]["alternatives"].index(e) for (u, v), e in zip(zip(steps, steps[1:]), edges))
                out.append(GuidelinePath(len(out), _path_id(spec, steps, alts), steps, merged, contradiction, edges))
    return out
