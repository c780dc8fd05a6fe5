"""End-to-end note ingestion throughput: read → text → NLP → link → write to a real Neo4j.

    .venv/bin/python bench/ingest_throughput.py [--notes 120] [--tokens 2000] [--patients 20]

What it measures
----------------
Wall-clock throughput of ``ingest.job.ingest_paths`` — the code behind ``graphkit ingest notes`` —
on long notes, against graphkit's store (``GraphStore.connect()``: ``NEO4J_URI`` if set, else
graphkit's local server, installed and started if needed with ``bench/write_throughput.py``'s
``ensure_server()``).

Input, built deterministically at run time in a temporary folder: N plain-text notes (default 120)
made by concatenating consecutive ACI-Bench notes (``/work/shared/data/aci-bench/train.csv``, column
``note``, cycling through the file), line by line, until a note reaches ``--tokens`` whitespace tokens
(default 2,000; each note stops at the first line boundary at or past that count, so notes are
slightly longer). A ``manifest.csv`` (patient_id, note_id, time, type, path) spreads them over
``--patients`` patients (default 20), one distinct day per note (so one encounter per note). Every id
starts with a fresh prefix ``bench-ingest-<time>-<pid>-``.

Timed region: exactly one ``ingest_paths(store, [folder], fmt="text", nlp=nlp)`` call — reading the
manifest and files, normalizing, sections, sentences, NLP (target matcher + ConText), lexicon
linking (in ``ingest.job.default_workers()`` forked processes — 2 on a 2-core machine — beside the
reading and writing process; stage seconds are summed over processes, so they overlap), building
the graph rows and every Neo4j write (batches of 32 notes, one transaction each, then the
per-patient NEXT chains). NOT timed: building the spaCy/medspaCy pipeline (reported as
``pipeline_build_s``), applying the schema, the clean-up, and a warm-up run on ``--warmup-notes``
notes (default 64 = two full write batches) under another prefix, removed before the timed run. The
warm-up matters: right after a server start the JVM has not compiled the write path and no query
plan is cached, and a cold 120-note run measured ~2.5x slower (21.8 s vs 8-10 s) on the development
machine; its rate is reported as ``warmup_notes_per_s`` (``--warmup-notes 0`` measures a cold run).

Reported:
* ``notes_per_s`` = notes / timed seconds; ``notes_per_s_per_core`` = notes_per_s / os.cpu_count().
  The per-core figure is CONSERVATIVE: the work is one Python process (single-threaded NLP) plus the
  Neo4j server, sharing all the machine's cores, so it divides by cores that are not all busy; it is
  a capacity figure for sizing, not a measure of parallel scaling. Other processes on the machine
  (another Neo4j, a test run) slow it down: check the load average printed on stderr.
* ``peak_rss_mb``: this process's peak resident set (``resource.getrusage`` ru_maxrss, KB on Linux),
  which includes the pipeline, the lexicon and the Neo4j driver.
* ``neo4j_peak_rss_mb``: VmHWM of the local server process (``/proc/<pid>/status`` for
  ``LocalNeo4j().pid()``): its peak since IT started, which may predate this run; null when
  ``NEO4J_URI`` names another server.
* ``stages``: ``IngestReport.stage_seconds`` (read, text, nlp, write) of the timed run.

Clean-up: ``bench.delete_by_id_prefix`` (auto-commit, ``CALL {} IN TRANSACTIONS``) removes every node
whose ``id`` starts with the prefix: patients, encounters (``<patient>-<date>``), notes, sections
(``<note>:s<i>``), sentences (``<section>:t<j>``) and events (``<sentence>:m<k>``). Concept nodes are
keyed by (system, code), have no id and are shared with the rest of the graph, so they stay; the
label counts before/after are compared and any difference is reported as ``leftover_nodes``.

stdout: one JSON line with notes_per_s_per_core, notes_per_s, peak_rss_mb, neo4j_peak_rss_mb,
stages, notes, tokens_per_note and details (seconds, pipeline_build_s, cpus, events, leftovers).
"""

from __future__ import annotations

import argparse
import csv
import os
import resource
import shutil
import sys
import tempfile
import time
from datetime import datetime, timedelta
from itertools import cycle
from pathlib import Path

from _common import emit, log
from write_throughput import ensure_server

from graphkit.store import GraphStore
from ingest.job import default_workers, ingest_paths
from ingest.nlp import build_pipeline

ACI_TRAIN = Path("/work/shared/data/aci-bench/train.csv")


def build_notes(source: Path, count: int, tokens: int) -> list[str]:
    """``count`` notes of >= ``tokens`` whitespace tokens from consecutive source notes, line by line."""
    with open(source, encoding="utf-8", newline="") as f:
        sources = [row["note"] for row in csv.DictReader(f) if row["note"].strip()]
    lines = cycle([line for note in sources for line in [*note.splitlines(), ""]])  # "" = between notes
    notes = []
    for _ in range(count):
        buf, n = [], 0
        while n < tokens:
            line = next(lines)
            buf.append(line)
            n += len(line.split())
        notes.append("\n".join(buf).strip("\n") + "\n")
    return notes


def write_folder(folder: Path, prefix: str, notes: list[str], patients: int) -> None:
    """notes/<id>.txt plus manifest.csv; note i → patient i mod patients, day i (distinct times)."""
    (folder / "notes").mkdir(parents=True)
    t0 = datetime(2024, 1, 1, 9, 0)
    with open(folder / "manifest.csv", "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["patient_id", "note_id", "time", "type", "path"])
        for i, text in enumerate(notes):
            note_id = f"{prefix}n{i:04d}"
            (folder / "notes" / f"{note_id}.txt").write_text(text, encoding="utf-8")
            when = t0 + timedelta(days=i, minutes=i)
            w.writerow([f"{prefix}p{i % patients:02d}", note_id, when.isoformat(timespec="minutes"),
                        "Progress note", f"notes/{note_id}.txt"])


def vm_hwm_mb(pid: int | None) -> float | None:
    """Peak resident set of a process from /proc (Linux), in MB; None when unreadable."""
    if pid is None:
        return None
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def label_counts(store: GraphStore) -> dict[str, int]:
    return {r["label"]: r["count"] for r in store.read("store.count_by_label")}


def run_once(store: GraphStore, nlp, prefix: str, notes: list[str], patients: int, workdir: Path,
             batch_notes: int, quiet: bool = False):
    """Write the folder (untimed), run ingest_paths (timed); returns (seconds, IngestReport)."""
    folder = workdir / prefix.rstrip("-")
    write_folder(folder, prefix, notes, patients)
    done = [0]

    def progress(stage: str, n: int) -> None:
        if stage == "notes":
            done[0] += n
            if not quiet:
                log(f"  {done[0]}/{len(notes)} notes ingested")

    t = time.perf_counter()
    report = ingest_paths(store, [folder], fmt="text", quarantine_path=workdir / f"{prefix}quarantine.jsonl",
                          batch_notes=batch_notes, nlp=nlp, progress=progress)
    return time.perf_counter() - t, report


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--notes", type=int, default=120, help="notes to ingest (default 120)")
    ap.add_argument("--tokens", type=int, default=2000, help="whitespace tokens per note, at least (default 2000)")
    ap.add_argument("--patients", type=int, default=20, help="patients the notes are spread over (default 20)")
    ap.add_argument("--batch-notes", type=int, default=32, help="ingest_paths batch_notes (default 32, as the CLI)")
    ap.add_argument("--warmup-notes", type=int, default=64,
                    help="untimed warm-up notes under another prefix, removed before the timed run (0: none)")
    ap.add_argument("--source", type=Path, default=ACI_TRAIN, help="ACI-Bench CSV with a 'note' column")
    ap.add_argument("--keep-files", action="store_true", help="keep the temporary notes folder (path on stderr)")
    args = ap.parse_args()

    notes = build_notes(args.source, args.notes, args.tokens)
    tokens = [len(n.split()) for n in notes]
    log(f"built {len(notes)} notes of {min(tokens)}–{max(tokens)} tokens (mean {sum(tokens) / len(tokens):.0f}) "
        f"from {args.source}")

    server = ensure_server()
    store = GraphStore.connect()
    store.apply_schema()
    t = time.perf_counter()
    nlp = build_pipeline()
    build_s = time.perf_counter() - t
    log(f"pipeline built in {build_s:.1f} s (not timed); server pid "
        f"{server.pid() if server else 'external (NEO4J_URI)'}; load average {os.getloadavg()}")

    stamp = f"bench-ingest-{time.strftime('%Y%m%d%H%M%S')}-{os.getpid()}-"
    prefix, warm_prefix = f"{stamp}run-", f"{stamp}warm-"
    workdir = Path(tempfile.mkdtemp(prefix="graphkit-bench-ingest-"))
    before = label_counts(store)
    deleted, warm_rate = 0, None
    try:
        if args.warmup_notes:
            warm = notes[:args.warmup_notes]
            secs, _ = run_once(store, nlp, warm_prefix, warm, min(args.patients, len(warm)), workdir,
                               args.batch_notes, quiet=True)
            deleted += store.run_autocommit("bench.delete_by_id_prefix", prefix=warm_prefix)["nodes_deleted"]
            warm_rate = round(len(warm) / secs, 3)
            log(f"warm-up: {len(warm)} notes in {secs:.1f} s ({warm_rate} notes/s, not timed), removed")
        log(f"timed run: {len(notes)} notes, {args.patients} patients, prefix {prefix}")
        seconds, report = run_once(store, nlp, prefix, notes, args.patients, workdir, args.batch_notes)
        written = store.read("testing.patient_ids_with_prefix", prefix=prefix)
    finally:
        deleted += store.run_autocommit("bench.delete_by_id_prefix", prefix=prefix)["nodes_deleted"]
        after = label_counts(store)
        left = store.read("testing.patient_ids_with_prefix", prefix=stamp)
        store.close()
        if args.keep_files:
            log(f"notes kept in {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    leftover = {k: after.get(k, 0) - before.get(k, 0) for k in sorted(set(before) | set(after))
                if after.get(k, 0) != before.get(k, 0)}
    log(f"ingested in {seconds:.1f} s: {report.notes_written} notes written, {report.events_from_notes:,} events, "
        f"{report.patients} patients, {report.encounters} encounters, {report.quarantined} quarantined; "
        f"{len(written)} patients found in the graph")
    log(f"stages: {', '.join(f'{k} {v:.1f} s' for k, v in report.stage_seconds.items())}")
    log(f"clean-up: {deleted:,} nodes deleted; {len(left)} patients left under the prefix; "
        f"node-count change vs before: {leftover or 'none'}")
    if report.notes_written != len(notes) or report.quarantined:
        log(f"WARNING: expected {len(notes)} notes written, got {report.notes_written} "
            f"(quarantine reasons {report.quarantine_reasons})")

    cpus = os.cpu_count() or 1
    rate = len(notes) / seconds
    emit({
        "notes_per_s_per_core": round(rate / cpus, 3),
        "notes_per_s": round(rate, 3),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "neo4j_peak_rss_mb": vm_hwm_mb(server.pid()) if server else None,
        "stages": {k: round(v, 2) for k, v in report.stage_seconds.items()},
        "notes": len(notes),
        "tokens_per_note": round(sum(tokens) / len(tokens)),
        "seconds": round(seconds, 2),
        "pipeline_build_s": round(build_s, 2),
        "cpus": cpus, "nlp_workers": default_workers(),
        "patients": report.patients,
        "encounters": report.encounters,
        "events_from_notes": report.events_from_notes,
        "quarantined": report.quarantined,
        "nodes_deleted": deleted,
        "leftover_nodes": leftover,
        "warmup_notes_per_s": warm_rate,
        "load_average_1m": round(os.getloadavg()[0], 2),
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
