"""`graphkit bulk-load`: a backfill into an EMPTY database through Neo4j's own offline importer.

The same readers → text → nlp → link → tkg code runs; instead of Bolt writes, its rows go to
node and relationship CSV files (the properties and types the Bolt writers set: local datetimes,
integers, string arrays), ``neo4j-admin database import full`` (shipped in the server's jars, run with
the server stopped) loads them, the server starts again, the schema is created, and the trajectory
chains (NEXT, NEXT_ENCOUNTER) are built by the same Cypher as the Bolt path (every imported patient is
marked for relinking). The result is the same graph as ``graphkit ingest`` on the same input.

Community Edition has one user database (``neo4j``): that is the one loaded. A database holding
anything but graphkit's schema-version node is refused, never overwritten.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from graphkit.errors import BadInputError, GraphkitError

# node files: label -> ordered (column, type) with the id column first
NODES = {
    "Encounter": [("id", "ID(Encounter)"), ("start", "localdatetime"), ("end", "localdatetime"), ("class", "string"),
                  ("patient", "string")],
    "Note": [("id", "ID(Note)"), ("type", "string"), ("authored_at", "localdatetime"), ("recorded_at", "localdatetime"),
             ("sha256", "string"), ("patient", "string"), ("source", "string"), ("pipeline", "string"),
             ("flags", "string[]")],
    "Section": [("id", "ID(Section)"), ("name", "string"), ("idx", "long")],
    "Sentence": [("id", "ID(Sentence)"), ("idx", "long"), ("text", "string"), ("start", "long"), ("end", "long")],
    "Event": [("id", "ID(Event)"), ("kind", "string"), ("text", "string"), ("assertion", "string"),
              ("valid_time", "localdatetime"), ("recorded_time", "localdatetime"), ("order", "long"),
              ("patient", "string"), ("value", "string"), ("values", "string[]"), ("detail", "string"),
              ("flags", "string[]"), ("source", "string"), ("note", "string"), ("cue", "string"), ("context", "string")],
    "Concept": [("key", "ID(Concept)"), ("system", "string"), ("code", "string"), ("name", "string"),
                ("source", "string"), ("kind", "string")],
    "Chunk": [("id", "ID(Chunk)"), ("patient", "string"), ("encounter", "string"), ("note", "string"),
              ("note_type", "string"), ("section", "string"), ("order", "long"), ("time", "localdatetime"),
              ("text", "string")],
}
# relationship files: name -> (type, start id space, end id space, properties)
RELS = {
    "HAD_ENCOUNTER": ("HAD_ENCOUNTER", "Patient", "Encounter", []),
    "DOCUMENTED_BY": ("DOCUMENTED_BY", "Encounter", "Note", []),
    "HAS_SECTION": ("HAS_SECTION", "Note", "Section", []),
    "HAS_SENTENCE": ("HAS_SENTENCE", "Section", "Sentence", []),
    "HAS_EVENT": ("HAS_EVENT", "Encounter", "Event", []),
    "PATIENT_HAS_EVENT": ("HAS_EVENT", "Patient", "Event", []),
    "EVIDENCED_BY": ("EVIDENCED_BY", "Event", "Sentence", [("start", "long"), ("end", "long")]),
    "INSTANCE_OF": ("INSTANCE_OF", "Event", "Concept", []),
    "IS_A": ("IS_A", "Concept", "Concept", []),
    "HAS_CHUNK": ("HAS_CHUNK", "Note", "Chunk", []),
    "CHUNK_HAS_SENTENCE": ("HAS_SENTENCE", "Chunk", "Sentence", []),
}
ARRAY_DELIMITER = ";"


def _cell(value, kind: str) -> str:
    if value is None:
        return ""
    if kind == "localdatetime":
        v = value.to_pydatetime() if hasattr(value, "to_pydatetime") else value
        if isinstance(v, dt.datetime):
            return v.replace(tzinfo=None).isoformat()
        return str(v)
    if kind.endswith("[]"):
        items = [str(x) for x in value]
        if any(ARRAY_DELIMITER in x for x in items):
            raise GraphkitError(f"an array value holds the delimiter {ARRAY_DELIMITER!r}")
        return ARRAY_DELIMITER.join(items)
    if kind == "boolean":
        return "true" if value else "false"
    return str(value)


def _type_of(value) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "long"
    if isinstance(value, float):
        return "double"
    if isinstance(value, dt.datetime):
        return "localdatetime"
    if isinstance(value, dt.date):
        return "date"
    if isinstance(value, list):
        return "string[]"
    return "string"


class CsvSet:
    """One CSV per node label and relationship file, written as rows arrive (memory stays flat but for the
    id map). Node ids are the store's own record ids (``--id-type=actual``: one counter from 0 over every
    label, so the importer neither maps strings nor sorts and searches integers), each string id kept as
    the node's ``id`` property; a row with a value spanning lines goes to a small side file of its
    label (``<label>.ml<k>.csv``, no header, at most ``ML_FILE_BYTES``), so only those are parsed as
    multiline and the rest in parallel."""

    ML_FILE_BYTES = 32 * 1024 * 1024

    def __init__(self, folder: Path):
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.files, self.writers = {}, {}
        self.counts: dict[str, int] = {}
        self.seen_concepts: set[str] = set()
        self.seen_is_a: set[tuple[str, str]] = set()
        self.ids: dict[str, dict[str, int]] = {}  # id space -> string id -> integer id (one counter for all)
        self.next_id = 0
        self.ml: dict[str, list[Path]] = {}  # label -> its multiline side files, in order

    @property
    def multiline(self) -> list[Path]:
        """The side files holding values that span lines (only these are parsed slowly)."""
        return [f for files in self.ml.values() for f in files]

    def _int(self, space: str, key: str) -> int:
        ids = self.ids.setdefault(space, {})
        if key not in ids:
            ids[key], self.next_id = self.next_id, self.next_id + 1
        return ids[key]

    def _open(self, name: str, path: Path, header: list[str] | None):
        f = open(path, "w", newline="", encoding="utf-8")
        w = csv.writer(f)
        if header:
            w.writerow(header)
        self.files[name], self.writers[name] = f, w
        return w

    def _writer(self, name: str, header: list[str]):
        if name not in self.writers:
            self._open(name, self.folder / f"{name}.csv", header)
            self.counts[name] = 0
        return self.writers[name]

    def _ml_writer(self, label: str):
        files = self.ml.setdefault(label, [])
        if files and self.files[f"{label}.ml{len(files) - 1}"].tell() <= self.ML_FILE_BYTES:
            return self.writers[f"{label}.ml{len(files) - 1}"]
        files.append(self.folder / f"{label}.ml{len(files)}.csv")
        return self._open(f"{label}.ml{len(files) - 1}", files[-1], None)

    def node(self, label: str, row: dict, cols: list[tuple[str, str]] | None = None) -> None:
        cols = cols or NODES[label]
        space = cols[0][1][3:-1]  # "ID(Note)" -> "Note"
        keep_id = cols[0][0] != "key"
        w = self._writer(label, [f":{cols[0][1]}"] + (["id:string"] if keep_id else [])
                         + [f"{c}:{t}" for c, t in cols[1:]])
        key = str(row.get(cols[0][0]))
        cells = [str(self._int(space, key))] + ([key] if keep_id else []) + [_cell(row.get(c), t) for c, t in cols[1:]]
        if any("\n" in x or "\r" in x for x in cells):
            w = self._ml_writer(label)
        w.writerow(cells)
        self.counts[label] += 1

    def concept(self, row: dict) -> None:
        key = f"{row['system']}|{row['code']}"
        if key not in self.seen_concepts:
            self.seen_concepts.add(key)
            self.node("Concept", {**row, "key": key})

    def concepts_with_ancestors(self, rows: list[dict]) -> None:
        """The concepts, their is-a ancestors and IS_A edges, each written once per import."""
        from ingest.link.hierarchy import is_a_rows

        for c in rows:
            self.concept(c)
        ancestors, is_a = is_a_rows((c["system"], c["code"]) for c in rows)
        for c in ancestors:
            self.concept(c)
        for r in is_a:
            key = (f"{r['system']}|{r['code']}", f"{r['parent_system']}|{r['parent_code']}")
            if key not in self.seen_is_a:
                self.seen_is_a.add(key)
                self.rel("IS_A", *key)

    def rel(self, name: str, start: str, end: str, props: dict | None = None) -> None:
        _, a, b, cols = RELS[name]
        w = self._writer(name, [f":START_ID({a})", f":END_ID({b})"] + [f"{c}:{t}" for c, t in cols])
        w.writerow([self._int(a, start), self._int(b, end)] + [_cell((props or {}).get(c), t) for c, t in cols])
        self.counts[name] += 1

    def close(self) -> None:
        for f in self.files.values():
            f.close()


@dataclass
class BulkReport:
    notes: int = 0
    patients: int = 0
    elements: int = 0  # nodes + relationships imported
    quarantined: int = 0
    seconds: dict = field(default_factory=lambda: {"pipeline": 0.0, "import": 0.0, "schema": 0.0, "relink": 0.0})

    @property
    def import_elements_per_s(self) -> float:
        return self.elements / self.seconds["import"] if self.seconds["import"] else 0.0


def write_csvs(paths: list[Path], folder: Path, quarantine_path: Path, nlp=None, batch: int = 64) -> tuple[CsvSet, dict, int, int]:
    """Run the pipeline over ``paths`` into CSV files. Returns (files, patients, notes, quarantined)."""
    from ingest.job import absorb_context, process_notes
    from ingest.model import BadRecord, Note
    from ingest.nlp import build_pipeline
    from ingest.nlp.pipeline import pipeline_fingerprint
    from ingest.quarantine import Quarantine
    from ingest.readers import read_paths
    from ingest.tkg.build import fact_rows

    nlp = nlp or build_pipeline()
    fingerprint = pipeline_fingerprint()
    out = CsvSet(folder)
    quarantine = Quarantine(quarantine_path)
    patients, encounters, facts, buf, seen = {}, {}, [], [], set()
    n_notes = 0

    def flush():
        nonlocal n_notes
        if not buf:
            return
        graphs = process_notes(nlp, buf, {n.encounter: encounters[n.encounter].start for n in buf})
        for n, g in zip(buf, graphs):
            out.node("Note", {**g.note, "pipeline": fingerprint})
            out.rel("DOCUMENTED_BY", n.encounter, n.id)
            for s in g.sections:
                out.node("Section", s)
                out.rel("HAS_SECTION", s["note"], s["id"])
            for t in g.sentences:
                out.node("Sentence", t)
                out.rel("HAS_SENTENCE", t["section"], t["id"])
            for e in g.events:
                out.node("Event", e)
                out.rel("HAS_EVENT", e["encounter"], e["id"])
            for x in g.evidence:
                out.rel("EVIDENCED_BY", x["event"], x["sentence"], x)
            out.concepts_with_ancestors(g.concepts)
            for r in g.instance_of:
                out.rel("INSTANCE_OF", r["event"], f"{r['system']}|{r['code']}")
            for c in g.chunks:
                out.node("Chunk", c)
                out.rel("HAS_CHUNK", c["note"], c["id"])
                for sid in c["sentences"]:
                    out.rel("CHUNK_HAS_SENTENCE", c["id"], sid)
        n_notes += len(buf)
        buf.clear()

    for rec in read_paths(paths):
        if isinstance(rec, BadRecord):
            quarantine.add(rec)
        elif absorb_context(rec, patients, encounters, facts):
            continue
        elif isinstance(rec, Note) and rec.id not in seen:
            seen.add(rec.id)
            buf.append(rec)
            if len(buf) >= batch:
                flush()
    flush()
    for e in encounters.values():
        out.node("Encounter", {"id": e.id, "start": e.start, "end": e.end, "class": e.cls, "patient": e.patient})
        out.rel("HAD_ENCOUNTER", e.patient, e.id)
    if facts:
        events, concepts, links = fact_rows(facts)
        for e in events:
            out.node("Event", e)
            if e["encounter"] in encounters:
                out.rel("HAS_EVENT", e["encounter"], e["id"])
            else:
                out.rel("PATIENT_HAS_EVENT", e["patient"], e["id"])
        out.concepts_with_ancestors(concepts)
        for r in links:
            out.rel("INSTANCE_OF", r["event"], f"{r['system']}|{r['code']}")
    all_patients = dict(patients)
    for e in encounters.values():
        all_patients.setdefault(e.patient, None)
    # patients: their property columns are known only now (FHIR gives gender, birth date...)
    props = {pid: {k: v for k, v in (p.props.items() if p else ()) if v is not None} for pid, p in all_patients.items()}
    keys = sorted({k for p in props.values() for k in p})
    types = {k: next(_type_of(p[k]) for p in props.values() if k in p) for k in keys}
    patient_cols = [("id", "ID(Patient)"), ("needs_relink", "boolean")] + [(k, types[k]) for k in keys]
    for pid, p in props.items():
        out.node("Patient", {**p, "id": pid, "needs_relink": True}, patient_cols)
    out.close()
    quarantine.close()
    return out, props, n_notes, quarantine.count


def drop_store(server, database: str = "neo4j") -> None:
    """Delete ``database``'s store and transaction files (the server stopped): Neo4j creates it empty at
    the next start. Only for a database graphkit just found empty or is about to fill by import."""
    import shutil

    for sub in ("databases", "transactions"):
        shutil.rmtree(server.neo4j_home / "data" / sub / database, ignore_errors=True)


def import_args(work: Path, ml: dict[str, list[Path]], database: str = "neo4j") -> list[str]:
    """The ``neo4j-admin database import full`` arguments for the CSVs in ``work``; ``ml``: each label's
    side files of rows spanning lines (:attr:`CsvSet.ml`)."""
    multiline = [f for files in ml.values() for f in files]
    # the database name goes first: --nodes/--relationships take a variable number of files
    args = ["database", "import", "full", database, "--overwrite-destination=true", "--id-type=actual",
            f"--array-delimiter={ARRAY_DELIMITER}", "--report-file=" + str(work / "import.report")]
    # Only the side files with values spanning lines are parsed as multiline (v2 names them). v2 fails on
    # 5.26 when a quoted field crosses its read buffer ("floating quote"): the buffer is made larger than
    # any side file, so no field can cross it.
    if multiline:
        largest = max(f.stat().st_size for f in multiline)
        args += ["--multiline-fields-format=v2", "--multiline-fields=" + ",".join(map(str, multiline)),
                 f"--read-buffer-size={max(4, largest // (1024 * 1024) + 2)}m"]
    for label in NODES:
        if (work / f"{label}.csv").exists():
            args.append(f"--nodes={label}=" + ",".join(map(str, [work / f"{label}.csv"] + ml.get(label, []))))
    args.append("--nodes=Patient=" + ",".join(map(str, [work / "Patient.csv"] + ml.get("Patient", []))))
    for name, (rel_type, _, _, _) in RELS.items():
        if (work / f"{name}.csv").exists():
            args.append(f"--relationships={rel_type}={work / f'{name}.csv'}")
    return args


def bulk_load(server, paths: list[Path], work: Path, *, database: str = "neo4j",
              quarantine_path: Path | None = None, nlp=None) -> BulkReport:
    """Pipeline → CSVs → ``neo4j-admin database import full`` → start → schema → relink.
    ``server``: the :class:`graphkit.neo4j.server.LocalNeo4j` holding the database."""
    from graphkit.store import GraphStore
    from ingest.job import relink_marked

    if database != "neo4j":
        raise BadInputError(f"Neo4j Community has one user database, 'neo4j'; {database!r} cannot be created",
                            fix="use --database neo4j with a new server home, or Enterprise for named databases")
    server.start()
    with GraphStore.connect(str(server.home)) as store:
        rows = store.read("bench.count_all_but_schema")
        if rows and rows[0]["n"]:
            raise BadInputError(f"the database already holds {rows[0]['n']} nodes: bulk-load only loads an empty one",
                                fix="use `graphkit ingest` to add to it, or `graphkit neo4j install --home NEW` "
                                    "for a fresh server to bulk-load into")
    report = BulkReport()
    work.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    files, patients, report.notes, report.quarantined = write_csvs(
        paths, work, quarantine_path or (work / "quarantine.jsonl"), nlp)
    report.patients = len(patients)
    report.elements = sum(files.counts.values())
    report.seconds["pipeline"] = time.perf_counter() - t
    server.stop()
    args = import_args(work, files.ml, database)
    t = time.perf_counter()
    try:
        server.admin(*args)
    except GraphkitError:
        # the database was empty (checked above); a failed import leaves unusable store files, so the
        # empty database is restored before the error is reported
        drop_store(server, database)
        server.start()
        raise
    report.seconds["import"] = time.perf_counter() - t
    server.start()
    with GraphStore.connect(str(server.home)) as store:
        t = time.perf_counter()
        store.apply_schema()
        store.run_autocommit("store.await_indexes", timeout_s=3600)  # the relink below seeks by index
        report.seconds["schema"] = time.perf_counter() - t
        t = time.perf_counter()
        relink_marked(store)
        report.seconds["relink"] = time.perf_counter() - t
    (work / "bulk-report.json").write_text(json.dumps({**report.__dict__, "counts": files.counts}, default=str))
    return report
