"""`graphkit spark ingest`: the ingestion pipeline on Apache Spark (local mode, a standalone cluster,
YARN or Databricks) — the same readers → text → nlp → link → tkg code as the single-process job.

Plan of a run:

1. the driver streams the readers over the input files (MIMIC-IV-Note CSV/CSV.gz, FHIR NDJSON/JSON,
   text folders): patients, encounters and structured facts are small and written from the driver;
   bad records go to the quarantine file; notes become a DataFrame (one row per note) — notes whose
   sha256 and pipeline fingerprint are already stored are dropped here (idempotent, resumable);
2. one pass on the executors (notes partitioned by patient, so two writers never lock one patient):
   each partition streams its notes in batches through text → NLP → link → tkg rows, with one
   spaCy/medspaCy pipeline per Python worker, built once (module-level cache), and writes each batch
   as soon as it is made — nothing is held between passes, so a partition's memory is one batch and
   one task's NLP runs while another task writes; a note that fails is returned as a bad record, never
   lost;
3. shared Concept nodes: before a batch's notes, its concepts not yet written by this task (and their
   is-a ancestors) are MERGEd in their own transaction, in one global order (system, code), so
   concurrent tasks queue on them instead of deadlocking; the notes' transaction then only matches
   them (the single-process job's statements);
4. the batch's notes are written with graphkit's batched writer, one transaction per batch;
5. the driver relinks the trajectories of the patients that changed and closes the quarantine.

A killed executor's partition is retried by Spark; a rerun of the job skips the notes already written.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from graphkit.settings import ConnectionSettings
from graphkit.store import GraphStore

_NLP = None  # one pipeline per Python worker process


def _executor_nlp():
    global _NLP
    if _NLP is None:
        from ingest.nlp import build_pipeline

        _NLP = build_pipeline()
    return _NLP


@dataclass
class SparkIngestReport:
    notes_read: int = 0
    notes_written: int = 0
    notes_unchanged: int = 0
    notes_failed: int = 0
    patients: int = 0
    encounters: int = 0
    facts: int = 0
    concepts: int = 0
    quarantined: int = 0
    quarantine_file: str | None = None
    partitions: int = 0
    master: str = ""
    # "pipeline": NLP and writes of all partitions (one pass); "nlp"/"write": summed over the tasks
    seconds: dict = field(default_factory=lambda: {"read": 0.0, "pipeline": 0.0, "nlp": 0.0, "write": 0.0,
                                                   "relink": 0.0})

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def spark_session(master: str = "local[*]", app: str = "graphkit", executor_memory: str = "2g"):
    """A SparkSession (PySpark). The Python workers are reused, so each builds its NLP pipeline once."""
    import os
    import sys

    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # workers run graphkit's own interpreter
    return (SparkSession.builder.master(master).appName(app)
            .config("spark.python.worker.reuse", "true")
            .config("spark.executor.memory", executor_memory)
            .config("spark.driver.memory", executor_memory)
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.execution.arrow.pyspark.enabled", "false")
            .getOrCreate())


def _note_row(n) -> dict:
    return {"id": n.id, "patient": n.patient, "encounter": n.encounter, "type": n.type, "text": n.text,
            "authored_at": n.authored_at.isoformat() if n.authored_at else None,
            "recorded_at": n.recorded_at.isoformat() if n.recorded_at else None,
            "source": str(n.source) if n.source else None}


def _note_of(row: dict):
    import datetime as dt

    from ingest.model import Note

    def t(x):
        return dt.datetime.fromisoformat(x) if x else None

    return Note(patient=row["patient"], encounter=row["encounter"], id=row["id"], type=row["type"], text=row["text"],
                authored_at=t(row["authored_at"]), recorded_at=t(row["recorded_at"]), source=row.get("source"))


def nlp_partition(rows, encounter_start: dict, batch: int = 64):
    """Pass 1 on an executor: (note row, NoteGraph) per note; ("!error", note id, reason) for a note the
    pipeline could not process. The note row travels with its graph, so pass 2 needs nothing broadcast."""
    import datetime as dt

    from ingest.job import process_notes

    nlp = _executor_nlp()
    buf = []
    for row in rows:
        buf.append(row.asDict() if hasattr(row, "asDict") else row)
        if len(buf) >= batch:
            yield from _process(nlp, buf, encounter_start, process_notes, dt)
            buf = []
    if buf:
        yield from _process(nlp, buf, encounter_start, process_notes, dt)


def _process(nlp, rows, encounter_start, process_notes, dt):
    notes = [_note_of(r) for r in rows]
    starts = {n.encounter: dt.datetime.fromisoformat(encounter_start[n.encounter]) for n in notes}
    try:
        graphs = process_notes(nlp, notes, starts)
        yield from zip(rows, graphs)
    except Exception:  # noqa: BLE001 - one bad note must not fail the partition: retry one by one
        for r, n in zip(rows, notes):
            try:
                yield r, process_notes(nlp, [n], starts)[0]
            except Exception as exc:  # noqa: BLE001
                yield "!error", n.id, f"{type(exc).__name__} while extracting"


def ingest_partition(rows, encounter_start: dict, settings: ConnectionSettings, fingerprint: str,
                     batch: int = 64):
    """The one pass on an executor: NLP a batch, write its new concepts (sorted, own transaction), write
    its notes; yields one summary dict for the partition (counts, failed notes, task seconds)."""
    from ingest.job import write_concepts, write_note_batch

    out = {"new": 0, "replaced": 0, "unchanged": 0, "concepts": 0, "errors": [], "nlp": 0.0, "write": 0.0}
    written: set[tuple[str, str]] = set()  # concepts this task wrote already
    with GraphStore(settings) as store:
        for items in _batches(nlp_partition(rows, encounter_start, batch), batch, out):
            notes = [_note_of(row) for row, _ in items]
            graphs = [g for _, g in items]
            t = time.perf_counter()
            concepts = {(c["system"], c["code"]): c for g in graphs for c in g.concepts}
            new = [concepts[k] for k in concepts.keys() - written]
            if new:
                out["concepts"] += write_concepts(store, new)
                written |= concepts.keys()
            outcome = store.transaction(lambda tx: write_note_batch(tx, notes, graphs, fingerprint, concepts=False))
            for v in outcome.values():
                out[v] += 1
            out["write"] += time.perf_counter() - t
    yield out


def _batches(pairs, batch: int, out: dict):
    """Group pass-1 pairs into batches of notes, moving failed notes to ``out["errors"]`` and timing the
    NLP into ``out["nlp"]``."""
    buf = []
    t = time.perf_counter()
    for x in pairs:
        if x[0] == "!error":
            out["errors"].append(x[1:])
            continue
        buf.append(x)
        if len(buf) >= batch:
            out["nlp"] += time.perf_counter() - t
            yield buf
            buf = []
            t = time.perf_counter()
    out["nlp"] += time.perf_counter() - t
    if buf:
        yield buf


def spark_ingest(store: GraphStore, paths: list[Path], *, master: str = "local[*]", partitions: int | None = None,
                 fmt: str | None = None, quarantine_path: Path | None = None, batch_notes: int = 64,
                 spark=None) -> SparkIngestReport:
    """Run the whole pipeline on Spark. See the module docstring."""
    from ingest.job import absorb_context, relink_marked, write_facts
    from ingest.model import BadRecord, Note
    from ingest.nlp.pipeline import pipeline_fingerprint
    from ingest.quarantine import Quarantine
    from ingest.quarantine import default_path as default_quarantine
    from ingest.readers import read_paths
    from ingest.tkg.build import note_sha

    report = SparkIngestReport(master=master)
    t = time.perf_counter()
    qpath = Path(quarantine_path) if quarantine_path else default_quarantine()
    quarantine = Quarantine(qpath)
    patients, encounters, facts, notes = {}, {}, [], {}
    for rec in read_paths(paths, fmt):
        if isinstance(rec, BadRecord):
            quarantine.add(rec)
        elif absorb_context(rec, patients, encounters, facts):
            continue
        elif isinstance(rec, Note):
            report.notes_read += 1
            notes.setdefault(rec.id, rec)
    fingerprint = pipeline_fingerprint()
    if patients:
        store.write_batches("tkg.merge_patients", [{"id": p.id, "props": {k: v for k, v in p.props.items()
                                                                          if v is not None}} for p in patients.values()])
    known = set(patients)
    bare = sorted({e.patient for e in encounters.values()} - known)
    if bare:
        store.write_batches("tkg.merge_patients", [{"id": p, "props": {}} for p in bare])
    store.write_batches("tkg.merge_encounters", [{"id": e.id, "patient": e.patient, "start": e.start, "end": e.end,
                                                  "class": e.cls} for e in encounters.values()])
    report.patients, report.encounters = len(known | set(bare)), len(encounters)
    stored = {}
    ids = list(notes)
    for i in range(0, len(ids), 5000):
        stored.update({r["id"]: (r["sha256"], r["pipeline"]) for r in store.read("ingest.note_hashes",
                                                                                   ids=ids[i:i + 5000])})
    todo = [n for n in notes.values() if stored.get(n.id) != (note_sha(n), fingerprint)]
    report.notes_unchanged = len(notes) - len(todo)
    report.seconds["read"] = time.perf_counter() - t
    if todo:
        spark = spark or spark_session(master)
        sc = spark.sparkContext
        report.partitions = partitions or max(2 * sc.defaultParallelism, 1)
        starts = {e.id: e.start.isoformat() for e in encounters.values()}
        df = spark.createDataFrame([_note_row(n) for n in todo], schema="id string, patient string, encounter string, "
                                   "type string, text string, authored_at string, recorded_at string, source string")
        b_starts = sc.broadcast(starts)
        settings = store.settings
        try:
            t = time.perf_counter()
            parts = (df.repartition(report.partitions, "patient").rdd  # a patient in one partition: no lock contention
                     .mapPartitions(lambda rows: ingest_partition(rows, b_starts.value, settings, fingerprint,
                                                                  batch_notes))
                     .collect())
        except Exception as exc:  # a partition failed past Spark's retries: nothing half-written, say where
            from graphkit.errors import GraphkitError

            quarantine.close()
            files = sorted({getattr(n.source, "file", str(n.source)) for n in todo if n.source}) or [str(p) for p in paths]
            raise GraphkitError(
                f"the Spark job failed ({type(exc).__name__}) while processing notes from {', '.join(files[:5])}"
                f"{' and more' if len(files) > 5 else ''}; notes written before the failure are kept whole",
                fix="rerun the same command: it skips the notes already written and completes the rest") from exc
        report.seconds["pipeline"] = time.perf_counter() - t
        report.seconds["nlp"] = sum(p["nlp"] for p in parts)
        report.seconds["write"] = sum(p["write"] for p in parts)
        report.notes_written = sum(p["new"] + p["replaced"] for p in parts)
        report.notes_unchanged += sum(p["unchanged"] for p in parts)
        report.concepts = sum(p["concepts"] for p in parts)
        errors = [e for p in parts for e in p["errors"]]
        for nid, why in errors:
            n = notes[nid]
            quarantine.add(BadRecord(n.source, f"extraction failed ({why})", "report it; the note is kept in "
                                     "this file and the rest went through", {"note_id": nid, "text": n.text}, n.patient))
        report.notes_failed = len(errors)
    if facts:
        write_facts(store, facts)
        report.facts = len(facts)
    t = time.perf_counter()
    relink_marked(store)
    report.seconds["relink"] = time.perf_counter() - t
    quarantine.close()
    report.quarantined = quarantine.count
    report.quarantine_file = str(qpath) if quarantine.count else None
    return report
