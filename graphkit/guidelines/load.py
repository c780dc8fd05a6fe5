"""Write a validated guideline version to Neo4j in one transaction."""

from __future__ import annotations

import json
from dataclasses import dataclass

from graphkit.errors import BadInputError
from graphkit.guidelines.paths import DEFAULT_PATH_LIMIT, enumerate_paths, step_graph
from graphkit.guidelines.spec import GuidelineSpec
from graphkit.store import GraphStore


@dataclass
class LoadResult:
    id: str
    version: str
    status: str  # "loaded" | "unchanged"
    steps: int
    edges: int
    paths: int
    counters: dict

    def as_dict(self) -> dict:
        return self.__dict__.copy()


def guideline_rows(spec: GuidelineSpec, path_limit: int = DEFAULT_PATH_LIMIT) -> list[tuple[str, dict]]:
    """The (statement, parameters) list that writes the whole version. Pure; O(V + E + paths)."""
    g = step_graph(spec)
    key = {"id": spec.id, "version": spec.version}
    steps = [{"uid": spec.uid(s.id), "id": s.id, "kind": s.kind, "category": s.category, "name": s.name,
              "description": s.description, "terminal": s.terminal or g.out_degree(s.id) == 0,
              "entry": g.in_degree(s.id) == 0, "order": i,
              "timing_after": s.timing.after if s.timing else None,
              "min_days": s.timing.min_days if s.timing else None,
              "max_days": s.timing.max_days if s.timing else None,
              "evidence_level": s.evidence_level, "evidence_source": s.evidence_source,
              "not_indicated": json.dumps([{"when": x.when.as_dict(), "reason": x.reason,
                                            "contraindicated": x.contraindicated} for x in s.not_indicated])
              if s.not_indicated else None,
              "establishes": json.dumps(s.establishes.__dict__) if s.establishes else None,
              "requires": [f"{c.system}|{c.code}" for c in s.requires] or None}
             for i, s in enumerate(spec.steps)]
    codes = [{"uid": spec.uid(s.id), "system": c.system, "code": c.code, "display": c.display}
             for s in spec.steps for c in s.codes]
    edges = [{"from": spec.uid(e.source), "to": spec.uid(e.target), "condition": json.dumps(e.when.as_dict()),
              "biomarkers": [f"{k}={v}" for k, v in e.when.biomarkers], "stage_min": e.when.stage_min,
              "stage_max": e.when.stage_max, "site": e.when.site, "prior_step": e.when.prior_step, "ecog_max": e.when.ecog_max,
              "note": e.note}
             for e in spec.edges]
    paths = enumerate_paths(spec, path_limit)
    path_rows = [{"id": p.id, "index": p.index, "length": len(p.steps), "step_ids": list(p.steps),
                  "conditions": json.dumps(p.conditions),
                  "biomarkers": [f"{k}={v}" for k, v in p.conditions.get("biomarkers", {}).items()],
                  "stage_min": p.conditions.get("stage", {}).get("min"),
                  "stage_max": p.conditions.get("stage", {}).get("max"), "contradiction": p.contradiction}
                 for p in paths]
    includes = [{"path": p.id, "uid": spec.uid(sid), "pos": pos} for p in paths for pos, sid in enumerate(p.steps)]
    return [
        ("guidelines.merge_guideline", {**key, "title": spec.title, "effective_date": spec.effective_date,
                                        "sha256": spec.sha256, "condition": spec.condition_name,
                                        "sources": json.dumps(list(spec.sources)), "source_file": spec.file,
                                        "condition_codes": [c.__dict__ for c in spec.condition_codes],
                                        "applies_when": json.dumps(spec.applies_when.as_dict()),
                                        "spec": json.dumps(spec.data, sort_keys=True)}),
        ("guidelines.merge_steps", {**key, "rows": steps}),
        ("guidelines.merge_step_codes", {"rows": codes}),
        ("guidelines.merge_step_edges", {"rows": edges}),
        ("guidelines.merge_paths", {**key, "rows": path_rows}),
        ("guidelines.merge_path_steps", {"rows": includes}),
    ]


def load_guideline(store: GraphStore, spec: GuidelineSpec, path_limit: int = DEFAULT_PATH_LIMIT) -> LoadResult:
    """Load one validated version. Same version + same content: no-op. Same version with other
    content: refused (a published edition is immutable; bump ``version``). A new version is added
    beside the old ones. All-or-nothing: one transaction."""
    rows = guideline_rows(spec, path_limit)
    n_paths = len(rows[4][1]["rows"])
    existing = store.read("guidelines.guideline_sha", id=spec.id, version=spec.version)
    if existing:
        if existing[0]["sha256"] == spec.sha256:
            return LoadResult(spec.id, spec.version, "unchanged", len(spec.steps), len(spec.edges), n_paths, {})
        raise BadInputError(
            f"{spec.file}: guideline {spec.id} version {spec.version} is already loaded with different content",
            fix="give the edited guideline a new `version` (old alignments keep pointing at the old edition)")
    counters = store.write_many(rows)
    return LoadResult(spec.id, spec.version, "loaded", len(spec.steps), len(spec.edges), n_paths, counters)
