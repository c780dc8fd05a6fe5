"""`graphkit align` and `graphkit conformance`: patients' trajectories against guideline paths."""

from __future__ import annotations

from dataclasses import replace

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from graphkit.cli.common import console, err_console, open_store, print_json
from graphkit.errors import BadInputError


def align(
    patient: list[str] = typer.Option(None, "--patient", "-p", help="Patient id (repeat for several)."),
    all_patients: bool = typer.Option(False, "--all", help="Every patient in the graph (a batch job)."),
    guideline: list[str] = typer.Option(None, "--guideline", "-g",
                                        help="Score only this guideline (repeatable), even when the record "
                                             "does not name its condition. Default: the guidelines whose "
                                             "condition codes the record carries."),
    at: str = typer.Option(None, help="Use the guideline editions in force at this date (YYYY-MM-DD)."),
    resume: str = typer.Option(None, help="Continue an interrupted run (its stored parameters are reused)."),
    shard: str = typer.Option("0/1", help="i/n: this process takes shard i of n (run n processes with "
                                          "the same --resume RUN to align in parallel)."),
    alpha: float = typer.Option(None, help="Weight of meaning vs neighborhood consistency (default 0.7)."),
    theta: float = typer.Option(None, help="Lowest score for a pair to align (default 0.55)."),
    iterations: int = typer.Option(None, help="Most bootstrapping iterations (default 5)."),
    top_n: int = typer.Option(None, "--top-n", help="Candidate paths kept per patient (default 3)."),
    llm: str = typer.Option(None, envvar="GRAPHKIT_LLM",
                            help="LLM for the path rerank: ollama:MODEL | openai:MODEL@URL | none (default)."),
    chunk: int = typer.Option(25, min=1, help="Patients per transaction (an interrupted run keeps whole chunks)."),
    list_runs: bool = typer.Option(False, "--list", help="List alignment runs and exit."),
    as_json: bool = typer.Option(False, "--json", help="Print the run summary as JSON."),
):
    """Align patients' trajectories to guideline paths and store the result as a new run.

    For each patient: candidate paths of the applicable guidelines are scored (meaning, codes,
    order, stage and biomarkers), optionally reranked by an LLM, then events are aligned to the
    best path's steps one-to-one by bootstrapping (BootEA). Stored in Neo4j: (:AlignmentRun),
    FOLLOWS, ALIGNED_TO and the conformance items. A new run never overwrites an old one.

    Example: graphkit align --patient fhir-7a1d5954-c722-4266-aa13-952e2beef7c9
    Example: graphkit align --all
    Example: graphkit align --resume run-20261122T101500-1a2b3c --shard 1/2
    """
    from graphkit.align.job import mark_stale_runs, run_alignment
    from graphkit.align.model import AlignParams
    from graphkit.llm import from_spec

    with open_store() as store:
        if list_runs:
            mark_stale_runs(store)
            rows = store.read("align.list_runs")
            if as_json:
                print_json(rows)
                return
            table = Table("run", "status", "started", "patients", "done", "failed")
            for r in rows:
                table.add_row(r["id"], r["status"], (r["started_at"] or "")[:19], str(r["patients_total"]),
                              str(r["patients_done"]), str(r["patients_failed"]))
            console.print(table)
            return
        if not (patient or all_patients or resume):
            raise BadInputError("name patients with --patient ID, or use --all, or --resume RUN",
                                fix="graphkit align --help")
        try:
            i, n = (int(x) for x in shard.split("/"))
            assert 0 <= i < n
        except (ValueError, AssertionError):
            raise BadInputError(f"--shard {shard!r} is not i/n with 0 <= i < n", fix="e.g. --shard 0/2") from None
        params = AlignParams()
        overrides = {k: v for k, v in {"alpha": alpha, "theta": theta, "max_iterations": iterations,
                                       "top_n": top_n}.items() if v is not None}
        params = replace(params, **overrides)
        chat = from_spec(llm)
        with Progress(TextColumn("aligning"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=err_console, transient=as_json, disable=as_json) as bar:
            task = bar.add_task("align", total=None)
            summary = run_alignment(store, patients=list(patient or []) or None, guidelines=list(guideline or []) or None,
                                    params=params, llm=chat, run_id=resume, at=at, shard=(i, n), chunk=chunk,
                                    progress=lambda k: bar.advance(task, k),
                                    on_start=lambda total: bar.update(task, total=total))
    ms = sorted(summary.ms_per_patient)
    out = {"run": summary.run, "status": summary.status, "patients": summary.patients_total,
           "done_before": summary.done_before, "aligned": summary.aligned, "skipped": summary.skipped,
           "failed": summary.failed, "seconds": round(summary.seconds, 2),
           "median_ms_per_patient": round(ms[len(ms) // 2], 1) if ms else None}
    if as_json:
        print_json(out)
        return
    console.print(f"run {summary.run}: {summary.status} — {summary.aligned} aligned"
                  + "".join(f", {v} {k.replace('_', ' ')}" for k, v in summary.skipped.items())
                  + (f", {summary.failed} failed" if summary.failed else "")
                  + f" in {summary.seconds:.1f} s")
    if patient and len(patient) == 1:
        console.print(f"Next: graphkit conformance {patient[0]}")


def conformance(
    patient: str = typer.Argument(..., help="Patient id."),
    run: str = typer.Option(None, help="Alignment run (default: the newest run covering the patient)."),
    all_items: bool = typer.Option(False, "--all-items", help="List every off-guideline event too."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
):
    """A patient's conformance report: steps done (with dates), expected steps missing, pending
    steps, events off the guideline, order and timing violations — each with its evidence
    (event → sentence → note; step → guideline id and version).

    Example: graphkit conformance fhir-7a1d5954-c722-4266-aa13-952e2beef7c9 --json
    """
    with open_store() as store:
        store.require_patients([patient])
        if run is None:
            latest = store.read("align.latest_run_for_patient", patient=patient)
            if not latest:
                raise BadInputError(f"patient {patient!r} has not been aligned yet",
                                    fix=f"graphkit align --patient {patient}")
            run = latest[0]["run"]
        cover = [r for r in store.read("align.run_done_patients", id=run) if r["patient"] == patient]
        if not cover:
            raise BadInputError(f"run {run!r} does not cover patient {patient!r}", fix="omit --run for the newest")
        head = store.read("align.latest_run_for_patient", patient=patient)
        follows = store.read("align.patient_follows", patient=patient, run=run)
        items = store.read("align.conformance_report", patient=patient, run=run)
    status = cover[0]["status"]
    if as_json:
        print_json({"patient": patient, "run": run, "status": status,
                    "reason": head[0]["reason"] if head and head[0]["run"] == run else None,
                    "paths": follows, "items": items})
        return
    console.print(f"[bold]{patient}[/] — run {run} — {status}")
    if not follows:
        reason = head[0]["reason"] if head and head[0]["run"] == run else None
        console.print(f"no guideline path: {reason or status}")
        return
    top = follows[0]
    console.print(f"followed path: {top['guideline']} {top['version']} {top['path']} (score {top['score']:.3f}; "
                  f"conditions {top['conditions']})")
    for f in follows[1:]:
        console.print(f"  alternative #{f['rank']}: {f['path']} (score {f['score']:.3f})")
    counts: dict[str, int] = {}
    for it in items:
        counts[it["type"]] = counts.get(it["type"], 0) + 1
    table = Table("type", "step", "date", "detail", "evidence")
    shown_off = 0
    for it in items:
        if it["type"] == "off_guideline" and not all_items:
            if it["score"] is None or it["score"] < 0.3 or shown_off >= 10:
                continue
            shown_off += 1
        ev = it["evidence"][0] if it["evidence"] else None
        evidence = ""
        if ev:
            evidence = f"{ev['event']} ({ev['source'] or 'note'})"
            if ev.get("note"):
                evidence += f" → {ev['note']}[{ev['start']}:{ev['end']}]"
            if len(it["evidence"]) > 1:
                evidence += f" +{len(it['evidence']) - 1}"
        table.add_row(it["type"], it["step"] or "", it["date"] or "", it["detail"], evidence)
    console.print(table)
    console.print(", ".join(f"{v} {k.replace('_', ' ')}" for k, v in counts.items())
                  + ("" if all_items else " (off-guideline list trimmed: --all-items shows all)"))
