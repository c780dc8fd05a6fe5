"""The alignment job: read trajectories and guidelines from Neo4j, align, write results back.

Each chunk of patients is written in ONE transaction holding their whole results and their
``(:AlignmentRun)-[:COVERS]->(:Patient)`` marks, so an interrupted run holds only whole patients and
``--resume RUN`` continues with the rest. Several processes can share a run (``--shard i/n``).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import os
import socket
import time
import uuid
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from typing import Callable

from neo4j.exceptions import Neo4jError

from graphkit.align.aligner import Aligner
from graphkit.align.embed import TextEmbedder
from graphkit.align.model import AlignParams, Event, Guideline, Path, PatientAlignment, Step
from graphkit.align.trajectory import parse_date
from graphkit.errors import BadInputError, DatabaseUnavailableError, GraphkitError
from graphkit.store import GraphStore

log = logging.getLogger(__name__)


def load_guidelines(store: GraphStore, at: str | None = None, only: list[str] | None = None) -> list[Guideline]:
    """The guideline editions in force at ``at`` (latest when None), with steps and feasible paths."""
    out = []
    rows = store.read("align.guidelines_in_force", at=at)
    known = {r["id"] for r in rows}
    missing = [g for g in (only or []) if g not in known]
    if missing:
        raise BadInputError(f"guideline(s) {', '.join(missing)} not loaded" + (f" in force at {at}" if at else ""),
                            fix="see `graphkit guidelines list`; load one with `graphkit guidelines load FILE`")
    for r in rows:
        if only and r["id"] not in only:
            continue
        g = Guideline(r["id"], r["version"], r["title"], frozenset(r["condition_codes"]))
        g.steps = [Step(uid=x["uid"], id=x["id"], kind=x["kind"], category=x["category"] or "other",
                        name=x["name"], description=x["description"] or "", order=x["order"] or 0,
                        codes=tuple((c["code"], c["name"]) for c in x["codes"]),
                        timing_after=x["timing_after"], min_days=x["min_days"], max_days=x["max_days"])
                   for x in store.read("align.guideline_steps", id=g.id, version=g.version)]
        g.paths = [Path(x["id"], x["index"], tuple(x["steps"]), x["stage_min"], x["stage_max"],
                        tuple(x["biomarkers"] or ()))
                   for x in store.read("align.guideline_path_rows", id=g.id, version=g.version)]
        out.append(g)
    return out


def load_trajectories(store: GraphStore, patients: list[str]) -> dict[str, list[Event]]:
    """Every patient's events in time order (one query for the whole chunk)."""
    out: dict[str, list[Event]] = {p: [] for p in patients}
    for r in store.read("align.trajectories", patients=patients):
        out[r["patient"]].append(Event(r["id"], r["kind"] or "", r["text"] or "", r["assertion"],
                                       parse_date(r["valid_time"]), r["order"], r["source"], r["value"],
                                       tuple(r["codes"]), tuple(r.get("ancestors") or ()),
                                       tuple(r.get("values") or ()), _detail(r.get("detail"))))
    return out


def _detail(raw) -> dict | None:
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return None


def result_rows(run: str, res: PatientAlignment) -> dict[str, list[dict]]:
    """The rows that persist one patient's result, by writer statement."""
    unit = {u.key: u for u in res.units}
    aligned = [{"event": ev, "step": p.step, "score": round(p.score, 4), "semantic": round(p.semantic, 4),
                "neighborhood": round(p.neighborhood, 4), "iteration": p.iteration, "role": p.role,
                "unit": p.unit}
               for p in res.pairs for ev in unit[p.unit].events]
    top = res.top_path
    cover = {"patient": res.patient, "status": res.status, "reason": res.reason, "guideline": res.guideline,
             "version": res.version, "path": top.path if top else None,
             "score": round(top.score, 4) if top else None, "events": res.n_events, "units": len(res.units),
             "aligned_events": len(aligned), "rerank": res.rerank}
    follows = [{"patient": res.patient, "path": s.path, "rank": s.rank, "score": round(s.score, 4),
                "recall": round(s.recall, 4), "precision": round(s.precision, 4),
                "order_consistency": round(s.order_consistency, 4),
                "condition_factor": round(s.condition_factor, 4), "reranked": s.reranked} for s in res.paths]
    items = [{"patient": res.patient, "id": ci.item_id(run, res.patient), "type": ci.type, "step": ci.step,
              "step_uid": ci.step_uid, "guideline": res.guideline, "version": res.version, "date": ci.date,
              "detail": ci.detail, "days": ci.days, "limit_days": ci.limit_days, "score": ci.score,
              "events": ci.events} for ci in res.conformance]
    decisions = [{"patient": res.patient, "decisions": json.dumps([asdict(d) for d in res.decisions])}]
    return {"covers": [cover], "follows": follows, "aligned": aligned, "conformance": items, "decisions": decisions}


def write_results(store: GraphStore, run: str, rows_by_patient: list[dict[str, list[dict]]]) -> None:
    """Write several patients' whole results in one transaction (all of them, or none), with the
    run's heartbeat."""
    merged: dict[str, list[dict]] = defaultdict(list)
    for rows in rows_by_patient:
        for k, v in rows.items():
            merged[k] += v
    store.write_many([
        ("align.write_covers", {"run": run, "rows": merged["covers"]}),
        ("align.write_follows", {"run": run, "rows": merged["follows"]}),
        ("align.write_aligned", {"run": run, "rows": merged["aligned"]}),
        ("align.write_conformance", {"run": run, "rows": merged["conformance"]}),
        ("align.write_decisions", {"run": run, "rows": merged["decisions"]}),
        ("align.heartbeat", {"run": run, "host": socket.gethostname(), "pid": os.getpid()}),
    ])


#: A run whose process left no heartbeat for this long (and whose process cannot be checked because it
#: ran on another host) is taken to be interrupted.
STALE_AFTER_S = 3600


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def mark_stale_runs(store: GraphStore, stale_after_s: int = STALE_AFTER_S) -> list[str]:
    """Mark ``partial`` every run still ``running`` whose process is gone: on this host, its pid is
    dead; elsewhere, it sent no heartbeat for ``stale_after_s``. A crash, kill -9 or lost database
    leaves such runs; ``--resume RUN`` completes them. Returns the ids marked."""
    host = socket.gethostname()
    marked = []
    for r in store.read("align.running_runs"):
        if r["host"] == host and r["pid"] is not None and r["pid"] != os.getpid() and not _alive(r["pid"]):
            reason = f"process {r['pid']} on {host} ended without finishing the run"
        elif (r["host"] != host or r["pid"] is None) and (r["idle_s"] or 0) > stale_after_s:
            reason = f"no heartbeat since {r['heartbeat_at']}"
        else:
            continue
        store.write("align.mark_interrupted", id=r["id"], reason=reason)
        marked.append(r["id"])
    return marked


def failed_rows(patient: str, reason: str) -> dict[str, list[dict]]:
    return {"covers": [{"patient": patient, "status": "failed", "reason": reason, "guideline": None,
                        "version": None, "path": None, "score": None, "events": None, "units": None,
                        "aligned_events": 0, "rerank": None}]}


@dataclass
class RunSummary:
    run: str
    status: str
    patients_total: int
    done_before: int = 0
    aligned: int = 0
    skipped: dict[str, int] = field(default_factory=dict)  # no_events / no_guideline / no_paths
    failed: int = 0
    seconds: float = 0.0
    ms_per_patient: list[float] = field(default_factory=list)


def shard_of(patient: str, n: int) -> int:
    """Stable shard of a patient id (the same in every process)."""
    return int(hashlib.sha1(patient.encode()).hexdigest()[:8], 16) % n


def create_run(store: GraphStore, *, params: AlignParams, guidelines: list[str] | None, at: str | None,
               patients: list[str] | None, editions: list[Guideline], model: str, llm=None, total: int) -> str:
    """A new (:AlignmentRun) holding everything needed to resume it; returns its id. Several processes
    (shards, Spark executors) may then fill it: its counts come from the graph."""
    run_id = "run-" + dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:6]
    scope = {"align": params.to_json(), "guidelines": guidelines, "at": at, "patients": patients,
             "editions": {g.id: g.version for g in editions}, "llm": getattr(llm, "name", None)}
    store.write("align.create_run", id=run_id, params=json.dumps(scope), model=model, patients_total=total,
                host=socket.gethostname(), pid=os.getpid())
    return run_id


def run_alignment(store: GraphStore, *, patients: list[str] | None = None, guidelines: list[str] | None = None,
                  params: AlignParams | None = None, llm=None, run_id: str | None = None, at: str | None = None,
                  shard: tuple[int, int] = (0, 1), chunk: int = 25, embedder: TextEmbedder | None = None,
                  progress: Callable[[int], None] | None = None,
                  on_start: Callable[[int], None] | None = None) -> RunSummary:
    """Align ``patients`` (all when None) and store a new run, or resume ``run_id``.

    Resuming reuses the stored parameters and skips the patients the run already covers.
    """
    t0 = time.perf_counter()
    mark_stale_runs(store)
    if run_id:
        info = store.read("align.run_info", id=run_id)
        if not info:
            raise BadInputError(f"no alignment run {run_id!r}", fix="see `graphkit align runs`")
        stored = AlignParams.from_json(json.loads(info[0]["params"])["align"])
        scope = json.loads(info[0]["params"])
        params, guidelines, at = stored, scope.get("guidelines"), scope.get("at")
        patients = patients or scope.get("patients")
    params = params or AlignParams()
    if patients:
        todo = store.require_patients(patients)
    else:
        todo = [r["id"] for r in store.read("align.patients_all")]
    gls = load_guidelines(store, at=at, only=guidelines)
    if not gls:
        raise BadInputError("no guideline is loaded", fix="graphkit guidelines load guidelines/")
    embedder = embedder or TextEmbedder()
    aligner = Aligner(gls, embedder, params, llm=llm)

    if run_id is None:
        run_id = create_run(store, params=params, guidelines=guidelines, at=at, patients=patients, editions=gls,
                            model=embedder.name, llm=llm, total=len(todo))
    done = {r["patient"] for r in store.read("align.run_done_patients", id=run_id) if r["status"] != "failed"}
    summary = RunSummary(run=run_id, status="running", patients_total=len(todo), done_before=len(done & set(todo)))
    i, n = shard
    todo = [p for p in todo if p not in done and (n == 1 or shard_of(p, n) == i)]
    if on_start:
        on_start(len(todo))
    interrupted = False
    try:
        for start in range(0, len(todo), chunk):
            batch = todo[start:start + chunk]
            trajectories = load_trajectories(store, batch)
            rows = []
            for pid in batch:
                t = time.perf_counter()
                try:
                    res = aligner.align(pid, trajectories[pid], only=guidelines)
                    rows.append(result_rows(run_id, res))
                    if res.status == "aligned":
                        summary.aligned += 1
                    else:
                        summary.skipped[res.status] = summary.skipped.get(res.status, 0) + 1
                except (ValueError, KeyError, IndexError) as exc:  # a record the aligner cannot use
                    log.error("patient %s failed: %s", pid, type(exc).__name__)
                    rows.append(failed_rows(pid, f"{type(exc).__name__} while aligning"))
                    summary.failed += 1
                summary.ms_per_patient.append((time.perf_counter() - t) * 1000)
            write_results(store, run_id, rows)
            if progress:
                progress(len(batch))
    except (DatabaseUnavailableError, Neo4jError, OSError) as exc:
        interrupted = True
        raise DatabaseUnavailableError(
            f"the database failed during run {run_id} ({type(exc).__name__}); finished patients are stored whole",
            fix=f"when Neo4j is back: graphkit align --resume {run_id}") from exc
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        embedder.save()
        try:
            status = store.write("align.finish_run", id=run_id, interrupted=interrupted)
            summary.status = status[0]["status"] if status else "partial"
        except (GraphkitError, Neo4jError, OSError):
            summary.status = "partial"
        summary.seconds = time.perf_counter() - t0
    return summary


