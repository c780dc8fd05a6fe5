"""`graphkit ingest notes`: EHR exports → patient temporal knowledge graphs in Neo4j.

Idempotent (a note whose sha256 and pipeline fingerprint are stored is skipped; a new terminology or
extraction version re-processes it), incremental (a changed note replaces only its
own sections, sentences and events), resumable (each batch of notes is one transaction that also
stores the notes' sha256, so after a crash the finished notes are skipped). Bad records go to the
quarantine file with their reason; everything else goes through. Note text never reaches a log.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from graphkit.store import GraphStore
from ingest.link.hierarchy import is_a_rows
from ingest.model import BadRecord, CodedFact, Encounter, Note, Patient, SourceRef
from ingest.quarantine import Quarantine
from ingest.quarantine import default_path as default_quarantine
from ingest.readers import read_paths
from ingest.readers.checks import DEFAULT_MAX_NOTE_BYTES
from ingest.text import normalize, split_sections, split_sentences
from ingest.tkg.build import fact_rows, note_graph, note_sha

Progress = Callable[[str, int], None]  # (stage, amount done)


@dataclass
class IngestReport:
    notes_read: int = 0
    notes_written: int = 0
    notes_replaced: int = 0
    notes_unchanged: int = 0
    duplicates: int = 0
    facts: int = 0
    events_from_notes: int = 0
    patients: int = 0
    encounters: int = 0
    quarantined: int = 0
    quarantine_file: str | None = None
    quarantine_reasons: dict = field(default_factory=dict)
    # text kept but not coded, or coded with a caveat: conflict, invalid, spelling, derived-group,
    # unknown-abbreviation -> count; the flagged facts are on their Event / Note nodes (``flags``)
    flags: dict = field(default_factory=dict)
    flagged_notes: int = 0
    stage_seconds: dict = field(default_factory=lambda: {"read": 0.0, "text": 0.0, "nlp": 0.0, "write": 0.0,
                                                                 "trajectory": 0.0})

    def as_dict(self) -> dict:
        return dict(self.__dict__)


class _Clock:
    """Adds each stage's wall-clock seconds to ``seconds`` (the report's, or a worker's own). The writer
    thread runs beside the NLP, so the stages overlap and their sum can exceed the job's wall-clock time."""

    def __init__(self, seconds: dict[str, float]):
        self.seconds = seconds
        self.lock = threading.Lock()

    def __call__(self, stage: str):
        clock = self

        class _Ctx:
            def __enter__(self):
                self.t = time.perf_counter()

            def __exit__(self, *exc):
                with clock.lock:
                    clock.seconds[stage] = clock.seconds.get(stage, 0.0) + time.perf_counter() - self.t
        return _Ctx()


def absorb_context(rec, patients: dict, encounters: dict, facts: list) -> bool:
    """Keep a Patient / Encounter (earliest start wins) / CodedFact record; False for anything else."""
    if isinstance(rec, Patient):
        patients.setdefault(rec.id, rec)
    elif isinstance(rec, Encounter):
        old = encounters.get(rec.id)
        if old is None or rec.start < old.start:
            encounters[rec.id] = rec
    elif isinstance(rec, CodedFact):
        facts.append(rec)
    else:
        return False
    return True


def process_notes(nlp, notes: list[Note], encounter_start: dict, clock=None) -> list:
    """text → nlp → link → tkg for a batch of notes: one NoteGraph (writer rows) per note. Pure; all
    sentences of the batch go through ``nlp.pipe`` together. O(total text)."""
    from contextlib import nullcontext

    from ingest.link.lexicon import load_lexicon
    from ingest.nlp import extract_mentions, resolve_note
    from ingest.nlp.assertion import opens_item
    from ingest.nlp.abbreviations import unknown_abbreviations
    from ingest.text.languages import note_language

    stage = clock or (lambda name: nullcontext())
    with stage("text"):
        prepared = []
        for n in notes:
            norm = normalize(n.text)
            prepared.append((n, norm, [(s, split_sentences(norm.text, s.start, s.end))
                                       for s in split_sections(norm.text)]))
    with stage("nlp"):
        texts, names, languages = [], [], []
        for _, norm, secs in prepared:
            own = [norm.text[t.start:t.end] for _, sents in secs for t in sents]
            texts.extend(own)
            languages.extend([note_language(own)] * len(own))
            names.extend(s.name for s, sents in secs for _ in sents)
        mentions = extract_mentions(nlp, texts, names, languages=languages)
    lexicon = getattr(nlp, "_graphkit_lexicon", None) or load_lexicon()
    graphs, k = [], 0
    for n, norm, secs in prepared:
        count = sum(len(s) for _, s in secs)
        texts = [norm.text[t.start:t.end] for _, sents in secs for t in sents]
        # (a section's first sentence opens an item of its own, whatever is indented under it)
        opens = [i == 0 or opens_item(norm.text, t.start) for _, sents in secs for i, t in enumerate(sents)]
        # note-level: site, derived stage, conflicts, list items (the note's language as the NLP stage found it)
        resolved = resolve_note(texts, mentions[k:k + count], lexicon, n.authored_at, opens,
                                languages[k] if count else "en")
        unknown = dict.fromkeys(a for t, ms in zip(texts, resolved)
                                for a in unknown_abbreviations(t, [(m.start, m.end) for m in ms], lexicon))
        graphs.append(note_graph(n, norm, secs, resolved, encounter_start[n.encounter],
                                 tuple(f"unknown-abbreviation:{a}" for a in unknown)))
        k += count
    return graphs


_WORKER_NLP = None  # the pipeline of a forked NLP worker process (set by _adopt_pipeline)


def default_workers() -> int:
    """NLP worker processes for ``ingest_paths``: one per core, at most 4 (each holds its own copy-on-write
    pipeline, ~1 GB); 0 (NLP in-process) on one core or where ``fork`` is unavailable (the pipeline is
    inherited, not rebuilt or pickled). The process that reads and writes mostly waits on the server, so
    it needs no core of its own (bench/ingest_throughput.py, 384 notes on 2 cores: 2 workers 4.21
    notes/s/core, 1 worker 3.84)."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return 0
    cores = os.cpu_count() or 1
    return 0 if cores < 2 else min(4, cores)


def _adopt_pipeline(nlp) -> None:
    global _WORKER_NLP
    _WORKER_NLP = nlp


def _process_in_worker(notes: list[Note], encounter_start: dict) -> tuple[list, dict[str, float]]:
    """``process_notes`` in a forked worker, with its text and nlp seconds (the parent's clock is not here)."""
    seconds = {"text": 0.0, "nlp": 0.0}
    return process_notes(_WORKER_NLP, notes, encounter_start, _Clock(seconds)), seconds


def write_note_batch(tx, notes: list[Note], graphs: list, fingerprint: str, concepts: bool = True) -> dict[str, str]:
    """Write a batch of processed notes in the caller's transaction: lock them, skip the ones another
    job stored meanwhile, replace changed ones, and mark their patients for relinking. With
    ``concepts=False`` the concepts must exist already (a distributed job writes them first, so that
    parallel writers never contend on shared Concept nodes).
    Returns note id -> "new" | "replaced" | "unchanged". Pure in ``tx`` (the driver may retry it)."""
    claims = {r["id"]: (r["sha256"], r["pipeline"])
              for r in tx.run("ingest.claim_notes", rows=sorted(({"id": n.id} for n in notes), key=lambda r: r["id"]))}
    outcome, rows = {}, {k: [] for k in ("notes", "sections", "sentences", "events", "evidence", "concepts",
                                         "instance_of", "chunks")}
    for n, g in zip(notes, graphs):
        old = claims.get(n.id, (None, None))
        if old == (g.note["sha256"], fingerprint):
            outcome[n.id] = "unchanged"
            continue
        outcome[n.id] = "replaced" if old[0] is not None else "new"
        rows["notes"].append({**g.note, "pipeline": fingerprint})
        for key in ("sections", "sentences", "events", "evidence", "concepts", "instance_of", "chunks"):
            rows[key].extend(getattr(g, key))
    if not rows["notes"]:
        return outcome
    rows["concepts"] = list({(c["system"], c["code"]): c for c in rows["concepts"]}.values())
    # shared Concept nodes are locked in one global order (by code), so parallel writers queue, never deadlock
    rows["instance_of"].sort(key=lambda r: (r["system"], r["code"]))
    ancestors, is_a = is_a_rows((c["system"], c["code"]) for c in rows["concepts"]) if concepts else ([], [])
    rows["concepts"] = rows["concepts"] + ancestors if concepts else []
    # one row per relationship: the content is CREATEd (below), which would write a repeated row twice
    evidence: dict[str, dict] = {}
    for r in rows["evidence"]:
        evidence.setdefault(r["event"], {})[r["sentence"]] = {k: r[k] for k in ("sentence", "start", "end")}
    rows["events"] = [{**e, "evidence": list(evidence.get(e["id"], {}).values())} for e in rows["events"]]
    rows["instance_of"] = list({(r["event"], r["system"], r["code"]): r for r in rows["instance_of"]}.values())
    tx.run("ingest.delete_note_content", ids=[i for i, o in outcome.items() if o == "replaced"])
    # the claimed notes' content does not exist now (new, or deleted just above): created, not merged
    for name, key in (("tkg.merge_notes", "notes"), ("tkg.create_sections", "sections"),
                      ("tkg.create_sentences", "sentences"), ("tkg.create_events", "events"),
                      ("tkg.merge_concepts", "concepts"),
                      ("tkg.create_instance_of", "instance_of"), ("tkg.create_chunks", "chunks")):
        tx.run(name, rows=rows[key])
    if is_a:
        tx.run("tkg.link_is_a", rows=is_a)
    tx.run("ingest.mark_relink", patients=sorted({r["patient"] for r in rows["notes"]}))
    return outcome


def write_concepts(store: GraphStore, concepts: list[dict]) -> int:
    """MERGE concepts with their is-a ancestors and IS_A edges, each in one global (system, code) order,
    so concurrent writers queue on shared Concept nodes instead of deadlocking. Returns the number of
    concept rows written. O(concepts × ancestry depth)."""
    ancestors, is_a = is_a_rows((c["system"], c["code"]) for c in concepts)
    rows = sorted({(c["system"], c["code"]): c for c in concepts + ancestors}.values(),
                  key=lambda c: (c["system"], c["code"]))
    store.write_batches("tkg.merge_concepts", rows)
    store.write_batches("tkg.link_is_a", sorted(is_a, key=lambda r: (r["system"], r["code"])))
    return len(rows)


def write_facts(store: GraphStore, facts: list[CodedFact]) -> None:
    """Events from structured resources (FHIR Conditions, MedicationRequests...) with their concepts."""
    events, concepts, links = fact_rows(facts)
    store.write_batches("ingest.merge_fact_events", events)
    write_concepts(store, concepts)
    store.write_batches("tkg.link_instance_of", links)


def relink_marked(store: GraphStore, chunk: int = 25) -> int:
    """Rebuild the NEXT / NEXT_ENCOUNTER chains of every patient marked ``needs_relink`` — by this
    run or by an earlier one that crashed before relinking — clearing each mark with its relink.
    Returns the number of patients relinked."""
    ids = [r["id"] for r in store.read("ingest.patients_needing_relink")]
    for i in range(0, len(ids), chunk):
        store.write("ingest.relink_trajectory", patients=ids[i:i + chunk])
    return len(ids)


def ingest_paths(store: GraphStore, paths: Iterable[Path], *, fmt: str | None = None,
                 quarantine_path: Path | None = None, batch_notes: int = 32,
                 max_note_bytes: int = DEFAULT_MAX_NOTE_BYTES, nlp=None,
                 progress: Progress | None = None, workers: int | None = None) -> IngestReport:
    """Run the whole pipeline over ``paths``. O(total text).

    ``workers`` NLP processes (default ``default_workers()``; 0 = NLP in this process) take batches
    while this process reads the next ones and a writer thread stores the finished ones; batches are
    still written, one transaction each, in reading order, so a crash leaves whole batches."""
    from ingest.nlp import build_pipeline

    quarantine_path = Path(quarantine_path) if quarantine_path else default_quarantine()
    report = IngestReport(quarantine_file=str(quarantine_path))
    clock = _Clock(report.stage_seconds)
    quarantine = Quarantine(quarantine_path)
    nlp = nlp or build_pipeline()
    fingerprint = getattr(nlp, "_graphkit_fingerprint", "unknown")
    tick = progress or (lambda stage, n: None)
    patients: dict[str, Patient] = {}
    encounters: dict[str, Encounter] = {}
    written_p, written_e = set(), set()
    facts: list[CodedFact] = []
    batch: list[Note] = []
    seen: dict[str, tuple[str, SourceRef | None]] = {}

    def context_rows() -> tuple[list, list]:
        """Patients and encounters not written yet (an encounter of an unknown patient gets a bare
        patient node), marked written here, in reading order."""
        new_p = [{"id": p.id, "props": {k: v for k, v in p.props.items() if v is not None}}
                 for pid, p in patients.items() if pid not in written_p]
        written_p.update(p["id"] for p in new_p)
        new_e = [{"id": e.id, "patient": e.patient, "start": e.start, "end": e.end, "class": e.cls}
                 for eid, e in encounters.items() if eid not in written_e]
        for row in new_e:
            if row["patient"] not in written_p:
                new_p.append({"id": row["patient"], "props": {}})
                written_p.add(row["patient"])
        written_e.update(e["id"] for e in new_e)
        report.patients, report.encounters = len(written_p), len(written_e)
        return new_p, new_e

    def write_context(new_p: list, new_e: list) -> None:
        with clock("write"):
            if new_p:
                store.write_batches("tkg.merge_patients", new_p)
            if new_e:
                store.write_batches("tkg.merge_encounters", new_e)

    def write_batch(context: tuple[list, list], todo: list[Note], graphs: list) -> dict[str, str]:
        write_context(*context)
        with clock("write"):
            return store.transaction(lambda tx: write_note_batch(tx, todo, graphs, fingerprint)) if todo else {}

    def account(done_batch: list[Note], todo: list[Note], graphs: list, outcome: dict[str, str]) -> None:
        written = [n for n in todo if outcome.get(n.id) in ("new", "replaced")]
        report.notes_written += sum(outcome.get(n.id) == "new" for n in todo)
        report.notes_replaced += sum(outcome.get(n.id) == "replaced" for n in todo)
        report.notes_unchanged += len(done_batch) - len(written)
        report.events_from_notes += sum(len(g.events) for n, g in zip(todo, graphs) if n in written)
        for n, g in zip(todo, graphs):
            if n in written:
                cats = [f.split(":", 1)[0] for e in g.events for f in (e["flags"] or ())]
                cats += [f.split(":", 1)[0] for f in g.note["flags"] or ()]
                for c in cats:
                    report.flags[c] = report.flags.get(c, 0) + 1
                report.flagged_notes += bool(cats)
        tick("notes", len(done_batch))

    # One writer thread: batch k is written while later batches go through NLP (the server and the
    # driver's socket waits run beside the NLP). At most one batch is being written and batches
    # commit in reading order, so after a crash the stored notes are still whole batches.
    writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphkit-writer")
    in_flight: list = []  # [(future, batch, todo, graphs)], at most one
    workers = default_workers() if workers is None else workers
    # NLP in forked processes: the pipeline is inherited (initargs are not pickled under fork). The pool
    # forks at the first batch's submit, before the writer thread's first task, so no thread of ours holds
    # a lock at the fork.
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"),
                               initializer=_adopt_pipeline, initargs=(nlp,)) if workers else None
    waiting: deque = deque()  # [(nlp future, batch, todo, context)], in reading order

    def settle() -> None:
        while in_flight:
            future, done_batch, todo, graphs = in_flight.pop()
            account(done_batch, todo, graphs, future.result())

    def write_oldest() -> None:
        future, done_batch, todo, context = waiting.popleft()
        graphs, seconds = future.result()
        for stage, spent in seconds.items():
            report.stage_seconds[stage] += spent
        settle()
        in_flight.append((writer.submit(write_batch, context, todo, graphs), done_batch, todo, graphs))

    def flush_notes():
        if not batch:
            return
        context = context_rows()
        with clock("write"):
            stored = {r["id"]: (r["sha256"], r["pipeline"])
                      for r in store.read("ingest.note_hashes", ids=[n.id for n in batch])}
        todo = [n for n in batch if stored.get(n.id) != (note_sha(n), fingerprint)]
        starts = {n.encounter: encounters[n.encounter].start for n in todo}
        if pool and todo:
            future = pool.submit(_process_in_worker, todo, starts)
        else:
            future = Future()
            future.set_result((process_notes(nlp, todo, starts, clock), {}))
        waiting.append((future, list(batch), todo, context))
        batch.clear()
        while len(waiting) > workers:  # keep every worker busy, write the oldest finished batch
            write_oldest()

    records = iter(read_paths(paths, fmt, max_note_bytes))
    # The writer thread needs the GIL for a moment after each socket wait; at the default 5 ms switch
    # interval it queues behind the NLP thread and the server idles (measured: 20.2 s vs 15.8 s for
    # 128 long notes). Restored when the job ends.
    switch = sys.getswitchinterval()
    sys.setswitchinterval(min(switch, 0.0005))
    try:
        while True:
            with clock("read"):
                rec = next(records, None)
            if rec is None:
                break
            if isinstance(rec, BadRecord):
                quarantine.add(rec)
                tick("quarantined", 1)
            elif absorb_context(rec, patients, encounters, facts):
                continue
            elif isinstance(rec, Note):
                report.notes_read += 1
                sha = note_sha(rec)
                if rec.id in seen:
                    if seen[rec.id][0] == sha:
                        report.duplicates += 1
                    else:
                        quarantine.add(BadRecord(rec.source or SourceRef("?", "?"),
                                                 f"duplicate note id with different text: {rec.id} was first read "
                                                 f"at {seen[rec.id][1]}",
                                                 "give each version its own note id, or keep one of them",
                                                 {"note_id": rec.id, "patient": rec.patient, "text": rec.text},
                                                 rec.patient))
                    continue
                seen[rec.id] = (sha, rec.source)
                batch.append(rec)
                if len(batch) >= batch_notes:
                    flush_notes()
        flush_notes()
        while waiting:
            write_oldest()
        settle()
    finally:
        writer.shutdown(wait=True, cancel_futures=True)
        if pool:
            pool.shutdown(wait=True, cancel_futures=True)
        sys.setswitchinterval(switch)
    write_context(*context_rows())
    if facts:
        with clock("write"):
            write_facts(store, facts)
        report.facts = len(facts)
        tick("facts", len(facts))
    with clock("trajectory"):
        relink_marked(store)
    quarantine.close()
    report.quarantined = quarantine.count
    report.quarantine_reasons = quarantine.reasons
    if not quarantine.count:
        report.quarantine_file = None
    return report
