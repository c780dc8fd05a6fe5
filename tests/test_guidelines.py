"""Guideline specs: validation (one failing fixture per error class), paths, loading into Neo4j."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from graphkit.errors import BadInputError
from graphkit.guidelines import PathLimitError, enumerate_paths, load_guideline, validate_file
from graphkit.guidelines.codes import code_problem

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures" / "guidelines"
REAL = sorted((ROOT / "guidelines").glob("*.yaml"))


@pytest.mark.parametrize("kind, line", [
    ("schema", 23), ("unknown-reference", 31), ("cycle", 32), ("unreachable", 40), ("dead-end", 32),
    ("malformed-code", 28), ("contradictory-condition", 20),
])
def test_each_class_of_error_is_caught_with_its_line(kind, line):
    result = validate_file(FIXTURES / "invalid" / f"{kind}.yaml")
    assert not result.ok
    assert (kind, line) in {(p.kind, p.line) for p in result.errors}, [str(p) for p in result.problems]
    assert all(str(p).startswith(f"{FIXTURES / 'invalid' / kind}.yaml:") for p in result.problems)


def test_the_mini_guideline_is_valid_and_has_two_paths():
    result = validate_file(FIXTURES / "mini.yaml")
    assert result.ok and result.problems == []
    paths = enumerate_paths(result.spec)
    assert [p.steps for p in paths] == [("start", "a", "end"), ("start", "b", "end")]
    assert paths[1].conditions == {"biomarkers": {"HER2": "positive"}, "stage": {"min": "II", "max": "III"}}


def test_yaml_syntax_errors_have_a_line(tmp_path):
    bad = tmp_path / "broken.yaml"
    bad.write_text("id: x\nsteps:\n  - id: [unclosed\n")
    [problem] = validate_file(bad).problems
    assert problem.kind == "yaml" and problem.line >= 3


def _ladder(tmp_path: Path, rungs: int, extra: str = "") -> Path:
    """start -> (a_i | b_i) -> j_i ... -> end: exactly 2**rungs paths."""
    steps = [{"id": "start", "kind": "ClinicalSituation", "name": "Start", "description": "Entry of the ladder.",
              "next": [{"to": "a0"}, {"to": "b0"}]}]
    for i in range(rungs):
        nxt = f"a{i + 1}" if i + 1 < rungs else "end"
        alt = [{"to": nxt}] + ([{"to": f"b{i + 1}"}] if i + 1 < rungs else [])
        steps.append({"id": f"a{i}", "kind": "Decision", "name": f"A{i}", "description": "Left option here.", "next": alt})
        steps.append({"id": f"b{i}", "kind": "Decision", "name": f"B{i}", "description": "Right option here.", "next": alt})
    steps.append({"id": "end", "kind": "FollowUp", "name": "End", "description": "Follow-up at the end."})
    doc = {"id": "ladder", "title": "Ladder", "version": "1", "effective_date": "2025-01-01",
           "condition": {"name": "x", "codes": [{"system": "DOID", "code": "DOID:162"}]},
           "sources": [{"id": "s", "title": "t"}], "steps": steps}
    path = tmp_path / f"ladder{rungs}.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


@pytest.mark.parametrize("rungs", [1, 3, 6])
def test_path_counts_on_hand_made_ladders(tmp_path, rungs):
    spec = validate_file(_ladder(tmp_path, rungs)).spec
    paths = enumerate_paths(spec)
    assert len(paths) == 2 ** rungs
    assert len({p.id for p in paths}) == 2 ** rungs  # distinct, stable ids
    assert [p.steps for p in paths] == [p.steps for p in enumerate_paths(spec)]  # deterministic order
    assert paths[0].steps == ("start",) + tuple(f"a{i}" for i in range(rungs)) + ("end",)


def test_a_pathological_graph_fails_fast_instead_of_hanging(tmp_path):
    spec_file = _ladder(tmp_path, 40)  # 2**40 paths
    t = time.perf_counter()
    result = validate_file(spec_file, path_limit=1000)
    assert [p.kind for p in result.errors] == ["path-limit"]
    assert result.spec is not None  # schema-valid: the graph is only too large to enumerate
    with pytest.raises(PathLimitError, match="1,099,511,627,776"):
        enumerate_paths(result.spec, limit=1000)
    assert time.perf_counter() - t < 10


def test_infeasible_paths_are_warned_about_and_left_out():
    result = validate_file(ROOT / "guidelines" / "nsclc.yaml")
    assert result.ok
    warnings = [p for p in result.problems if p.severity == "warning"]
    assert warnings and all(p.kind == "infeasible-path" for p in warnings)
    kept = enumerate_paths(result.spec)
    every = enumerate_paths(result.spec, include_infeasible=True)
    assert len(every) - len(kept) >= len(warnings) > 0 and all(p.contradiction is None for p in kept)
    assert all(p.contradiction for p in every if p.id not in {k.id for k in kept})


@pytest.mark.parametrize("spec_file", REAL, ids=lambda p: p.stem)
def test_the_three_real_guidelines(spec_file):
    result = validate_file(spec_file)
    assert result.ok, [str(p) for p in result.errors]
    spec = result.spec
    assert len(spec.steps) >= 15
    assert len(enumerate_paths(spec)) >= 6
    assert sum(len(s.codes) for s in spec.steps) >= 20  # coded so patient events can match
    assert {s.kind for s in spec.steps} >= {"ClinicalSituation", "Assessment", "Treatment", "FollowUp"}
    assert spec.sources and all(src.get("url") for src in spec.sources)


def test_code_check_digits():
    assert code_problem("SNOMED-CT", "254837009") is None
    assert "Verhoeff" in code_problem("SNOMED-CT", "254837008")
    assert code_problem("LOINC", "21908-9") is None and "mod-10" in code_problem("LOINC", "21908-8")
    assert code_problem("ICD-10-CM", "C50.911") is None and "not in" in code_problem("ICD-10-CM", "C99.9")
    assert code_problem("DOID", "DOID:1612") is None and code_problem("NCIT", "X12")


# -- loading into the real Neo4j ------------------------------------------------------------------

@pytest.fixture
def gl_prefix(store):
    prefix = f"test{os.getpid()}x{time.monotonic_ns() % 10**8}-"
    yield prefix
    store.write("testing.delete_guidelines_with_prefix", prefix=prefix)


def _spec(tmp_path, prefix, version="1", effective="2025-01-01", description=None):
    text = (FIXTURES / "mini.yaml").read_text().replace("id: mini", f"id: {prefix}mini")
    text = text.replace('version: "1"', f'version: "{version}"').replace("2025-01-01", effective)
    if description:
        text = text.replace("Surgical removal of the tumour (lumpectomy).", description)
    path = tmp_path / f"{prefix}{version}.yaml"
    path.write_text(text)
    result = validate_file(path)
    assert result.ok
    return result.spec


def test_load_reload_and_new_version(store, tmp_path, gl_prefix):
    v1 = _spec(tmp_path, gl_prefix)
    first = load_guideline(store, v1)
    assert (first.status, first.steps, first.paths) == ("loaded", 4, 2)
    assert load_guideline(store, v1).status == "unchanged"  # same version again: nothing written

    edited = _spec(tmp_path, gl_prefix, description="Mastectomy instead of lumpectomy, edited.")
    with pytest.raises(BadInputError, match="already loaded with different content"):
        load_guideline(store, edited)

    v2 = _spec(tmp_path, gl_prefix, version="2", effective="2026-06-01",
               description="Mastectomy instead of lumpectomy, edited.")
    assert load_guideline(store, v2).status == "loaded"
    rows = {(r["id"], r["version"]): r for r in store.read("guidelines.list_guidelines")}
    assert rows[(v1.id, "1")]["steps"] == rows[(v1.id, "2")]["steps"] == 4  # both editions, side by side
    in_force = lambda at: store.read("guidelines.guideline_in_force", id=v1.id, at=at)[0]["version"]  # noqa: E731
    assert (in_force("2025-12-31"), in_force("2026-06-01"), in_force(None)) == ("1", "2", "2")

    paths = store.read("guidelines.guideline_paths", id=v1.id, version="1")
    assert [p["steps"] for p in paths] == [["start", "a", "end"], ["start", "b", "end"]]
    coded = {r["step"] for r in store.read("guidelines.step_codes")}
    assert f"{v1.id}@1/a" in coded and f"{v1.id}@1/b" not in coded


def test_cli_refuses_to_load_an_invalid_spec(store, cli_env):
    before = store.read("guidelines.list_guidelines")
    proc = subprocess.run([sys.executable, "-m", "graphkit.cli.app", "guidelines", "load",
                           str(FIXTURES / "mini.yaml"), str(FIXTURES / "invalid" / "cycle.yaml")],
                          env=cli_env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "cycle.yaml:32: error: cycle" in proc.stderr and "nothing loaded" in proc.stderr
    assert store.read("guidelines.list_guidelines") == before  # not even the valid one


def test_cli_validate_json(cli_env):
    proc = subprocess.run([sys.executable, "-m", "graphkit.cli.app", "guidelines", "validate", "--json",
                           str(FIXTURES / "invalid" / "dead-end.yaml")],
                          env=cli_env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    [report] = json.loads(proc.stdout)
    assert report["ok"] is False and report["problems"][0]["kind"] == "dead-end"
