"""Fault injection: bad inputs, kill -9 of graphkit and of Neo4j mid-job, and patient erasure.

    python bench/fault_injection.py [--seed 13] [--graphkit-kills 27] [--neo4j-kills 6]

Runs on its own graphkit home (``bench/out/fault-home``, ports 17787/17574) so that it can wipe the
database and kill the server; every graphkit command runs as a real CLI process with ``--debug``.

(a) **Bad inputs**: every bad-input class of the ingestion job (malformed rows, invalid FHIR, empty or
    non-UTF-8 notes, missing or impossible times, duplicates, oversized notes) and of the reliability
    review (unclosed quotes, quotes in key columns, gzip, bad bytes outside the text, raw bytes in FHIR
    JSON...), each beside good records: the quarantine must name the bad ones, the exit code must be 2,
    every good note must land.
(b) **Kills**: MIMIC CSV, FHIR and text-folder ingests and ``align --all`` runs are killed with SIGKILL
    at random moments (graphkit's process, or the Neo4j server); the job is then re-run (``--resume`` for
    alignment) and a canonical checksum of the whole graph (every label, property and relationship;
    run ids, timestamps and process ids normalized) must equal a clean run's.
(c) **Erasure**: patients of every source, aligned and with stored recommendations, are erased; no node
    or relationship property may still name them, and no section, sentence or event may be orphaned.
Also counts note sentences found in anything the commands printed (logs at DEBUG included).
Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import base64
import csv
import gzip
import hashlib
import io
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _common import emit, log  # noqa: E402

from graphkit.neo4j.server import InstallOptions, LocalNeo4j  # noqa: E402
from graphkit.settings import connection_settings  # noqa: E402
from graphkit.store import GraphStore  # noqa: E402

SHARED = Path(os.environ.get("GRAPHKIT_SHARED_DATA", ROOT.parent / "shared" / "data"))
OUT = ROOT / "bench" / "out" / "fault"
HOME = ROOT / "bench" / "out" / "fault-home"
HEADER = ["note_id", "subject_id", "hadm_id", "note_type", "note_seq", "charttime", "storetime", "text"]
VOLATILE = {"started_at", "finished_at", "heartbeat_at", "host", "pid", "created_at", "applied_at",
            "interrupted", "quarantined_at"}
LOGS: list[str] = []  # everything every command printed


# -- running graphkit ---------------------------------------------------------------------------------
def cli(args: list[str], env: dict, kill=None, timeout: float = 900) -> tuple[int | None, bool]:
    """Run ``graphkit --debug ARGS``. ``kill(proc)`` runs beside it (it waits for its moment, then
    kills graphkit or Neo4j, and returns whether it did so while the job still ran).
    Returns (exit code, kill hit a running job)."""
    proc = subprocess.Popen([sys.executable, "-m", "graphkit.cli.app", "--debug", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    hit = False
    if kill is not None:
        hit = kill(proc)
    out, err = proc.communicate(timeout=timeout)
    LOGS.append(out.decode("utf-8", "replace") + err.decode("utf-8", "replace"))
    return proc.returncode, hit


def killer(store: GraphStore, probe: str, window_s: float, rng: random.Random, victim: str, server) -> callable:
    """A ``kill`` for :func:`cli`: wait until the job has started writing (``probe`` returns a row with
    ``started`` true), then a random moment within ``window_s``, then SIGKILL graphkit (``victim`` =
    "graphkit") or the Neo4j server ("neo4j", restarted after a pause)."""
    def kill(proc: subprocess.Popen) -> bool:
        while proc.poll() is None:
            try:
                if store.read(probe)[0]["started"]:
                    break
            except Exception:  # noqa: BLE001 - the server may be busy; keep polling
                pass
            time.sleep(0.05)
        time.sleep(rng.uniform(0, window_s))
        if proc.poll() is not None:
            return False
        if victim == "graphkit":
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            os.kill(server.pid(), signal.SIGKILL)
            time.sleep(rng.uniform(0.5, 3.0))
            server.start()
        return True
    return kill


# -- canonical graph checksum ----------------------------------------------------------------------------
def _norm(value, runs: dict[str, str]):
    if isinstance(value, str):
        for run, alias in runs.items():
            value = value.replace(run, alias)
        return value
    if isinstance(value, list):
        return [_norm(v, runs) for v in value]
    if hasattr(value, "iso_format"):
        return value.iso_format()
    if isinstance(value, float):
        return round(value, 4)
    return value


def checksum(store: GraphStore) -> tuple[str, dict]:
    """sha256 over the sorted canonical lines of every node and relationship; counts per label/type.
    Alignment runs are renamed RUN0, RUN1... by start order; ConformanceItem ids (hashes of the run)
    are replaced by their content; timestamps and process ids are left out."""
    nodes = store.read("bench.all_nodes")
    runs = sorted((n for n in nodes if "AlignmentRun" in n["labels"]),
                  key=lambda n: (str(n["props"].get("started_at")), n["props"]["id"]))
    alias = {n["props"]["id"]: f"RUN{i}" for i, n in enumerate(runs)}
    keys, lines, counts = {}, [], {}
    for n in nodes:
        label = sorted(n["labels"])
        props = {k: _norm(v, alias) for k, v in n["props"].items() if k not in VOLATILE}
        if "SchemaVersion" in label:
            continue
        if "ConformanceItem" in label:
            props.pop("id", None)
        ident = props.get("id") or props.get("uid") or (f"{props.get('system')}|{props.get('code')}"
                                                         if "Concept" in label else json.dumps(props, sort_keys=True))
        keys[n["eid"]] = f"{':'.join(label)}#{ident}"
        lines.append(f"N {keys[n['eid']]} {json.dumps(props, sort_keys=True, default=str)}")
        for lab in label:
            counts[lab] = counts.get(lab, 0) + 1
    for r in store.read("bench.all_relationships"):
        if r["a"] not in keys or r["b"] not in keys:
            continue
        props = {k: _norm(v, alias) for k, v in r["props"].items() if k not in VOLATILE}
        lines.append(f"R {keys[r['a']]} {r['type']} {keys[r['b']]} {json.dumps(props, sort_keys=True, default=str)}")
        counts[":" + r["type"]] = counts.get(":" + r["type"], 0) + 1
    lines.sort()
    checksum.lines = lines
    return hashlib.sha256("\n".join(lines).encode()).hexdigest(), counts


def _diff(a: list[str], b: list[str], path: Path) -> None:
    """Lines only in the clean graph (-) and only in the resumed one (+), for a failed comparison."""
    sa, sb = set(a), set(b)
    path.write_text("".join(f"- {x}\n" for x in sorted(sa - sb)) + "".join(f"+ {x}\n" for x in sorted(sb - sa)))
    log(f"graphs differ: {len(sa - sb)} lines only in the clean run, {len(sb - sa)} only after the kill; see {path}")


# -- corpora ---------------------------------------------------------------------------------------------
def _csv_text(rows: list[list]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(HEADER)
    w.writerows(rows)
    return buf.getvalue()


def _mimic_row(subject: int, k: int, text: str, note_type: str = "DS", day: int = 1) -> list:
    return [f"{subject}-{note_type}-{k}", subject, f"{subject}{k:02d}", note_type, k,
            f"2180-{(k % 12) + 1:02d}-{day:02d} 10:00:00", "", text]


def make_corpora() -> dict[str, list[Path]]:
    """MIMIC CSV (60 ACI-Bench notes, 20 patients), 3 FHIR bundles of the demo cohort, a text folder
    (40 MTS-Dialog sections, 10 patients). Deterministic."""
    csv.field_size_limit(sys.maxsize)
    with open(SHARED / "aci-bench" / "train.csv", encoding="utf-8", newline="") as f:
        aci = [r["note"] for r in csv.DictReader(f)]
    with open(SHARED / "mts-dialog" / "train.csv", encoding="utf-8", newline="") as f:
        mts = [r["section_text"] for r in csv.DictReader(f) if len(r["section_text"].split()) >= 15]
    out = OUT / "corpora"
    if out.exists():
        shutil.rmtree(out)
    (out / "text").mkdir(parents=True)
    rows = [_mimic_row(800000 + i // 3, i % 3 + 1, aci[i]) for i in range(60)]
    (out / "discharge.csv").write_text(_csv_text(rows), encoding="utf-8")
    (out / "fhir").mkdir()
    cohort = ROOT / "ingest" / "demo" / "cohort"
    bundles = sorted((p for p in cohort.glob("*.json") if p.name != "MANIFEST.json"), key=lambda p: p.stat().st_size)
    for b in bundles[:3]:
        shutil.copy(b, out / "fhir" / b.name)
    manifest = ["patient_id,note_id,time,type,path"]
    for i in range(40):
        (out / "text" / f"t{i}.txt").write_text(mts[i], encoding="utf-8")
        manifest.append(f"txt-p{i // 4},txt-n{i},2024-{i % 12 + 1:02d}-0{i % 4 + 1}T09:00,Visit note,t{i}.txt")
    (out / "text" / "manifest.csv").write_text("\n".join(manifest) + "\n", encoding="utf-8")
    return {"mimic": [out / "discharge.csv"], "fhir": [out / "fhir"], "text": [out / "text"]}


def note_sentences() -> set[str]:
    """Sentences (24+ characters) of every note the bench feeds: what must never appear in any output."""
    texts = []
    for path in (OUT / "corpora").rglob("*"):
        if path.suffix in (".txt",):
            texts.append(path.read_text(encoding="utf-8"))
    with open(OUT / "corpora" / "discharge.csv", encoding="utf-8", newline="") as f:
        texts += [r["text"] for r in csv.DictReader(f)]
    for b in (OUT / "corpora" / "fhir").glob("*.json"):
        for e in json.loads(b.read_text())["entry"]:
            res = e["resource"]
            if res["resourceType"] == "DocumentReference":
                texts.append(base64.b64decode(res["content"][0]["attachment"]["data"]).decode())
    out = set()
    for t in texts:
        for part in t.replace("\n", ". ").split(". "):
            part = part.strip()
            if len(part) >= 24:
                out.add(part)
    return out


# -- (a) bad inputs ----------------------------------------------------------------------------------------
def bad_input_cases() -> list[dict]:
    """Each case: files to write (name -> bytes), the bad records it holds, the good notes that must land."""
    cases = []
    good_text = "Assessment: hypertension, well controlled on lisinopril. Plan: recheck blood pressure in 3 months."

    def mimic(name, bad_lines: bytes, n_bad=1, fname="discharge.csv", gz=False, extra=(), header=True):
        s = 700000 + len(cases) * 10
        good = [_mimic_row(s + 1, 1, good_text), _mimic_row(s + 2, 1, good_text + " Second.")]
        head = _csv_text([good[0]]).encode()
        if not header:
            head = head.split(b"\n", 1)[1]
        data = head + bad_lines.replace(b"SUBJ", str(s + 3).encode()) + _csv_text([good[1]]).split("\n", 1)[1].encode()
        if gz:
            data = gzip.compress(data)
        cases.append({"name": name, "format": "mimic", "files": {fname: data, **dict(extra)}, "bad": n_bad,
                      "good": [f"mimic-{s + 1}-DS-1", f"mimic-{s + 2}-DS-1"]})

    row = "SUBJ-DS-1,SUBJ,SUBJ01,DS,1,2180-01-01 10:00:00,,"
    mimic("mimic: unclosed quote mid-file", f'{row}"never closed, swallows\nthe next rows\n'.encode())
    mimic("mimic: bare quote in unquoted text", f'{row}he said "ok\n'.encode())
    mimic("mimic: quote in note_type", b'SUBJ-DS-1,SUBJ,SUBJ01,"D"S,1,2180-01-01 10:00:00,,"t, x"\n')
    mimic("mimic: extra field", f'{row}"text",EXTRA\n'.encode())
    mimic("mimic: too few fields", b"SUBJ-DS-1,SUBJ,SUBJ01,DS,1,2180-01-01 10:00:00\n")
    mimic("mimic: non-UTF-8 byte in the text", f'{row}"caf'.encode() + b"\xe9" + b' au lait"\n')
    mimic("mimic: non-UTF-8 byte in note_type", b"SUBJ-DS-1,SUBJ,SUBJ01,D\xe9S,1,2180-01-01 10:00:00,,text\n")
    mimic("mimic: non-UTF-8 byte in an id", b"SUBJ-DS-1,SUBJ,SUBJ\xff1,DS,1,2180-01-01 10:00:00,,text\n")
    mimic("mimic: empty text", f'{row}""\n'.encode())
    mimic("mimic: whitespace-only text", f'{row}"   \n  "\n'.encode())
    mimic("mimic: missing note_id", b",SUBJ,SUBJ01,DS,1,2180-01-01 10:00:00,,text\n")
    mimic("mimic: missing subject_id", b"SUBJ-DS-1,,SUBJ01,DS,1,2180-01-01 10:00:00,,text\n")
    mimic("mimic: unparseable charttime", b"SUBJ-DS-1,SUBJ,SUBJ01,DS,1,yesterday,,text\n")
    mimic("mimic: impossible charttime (year 3000)", b"SUBJ-DS-1,SUBJ,SUBJ01,DS,1,3000-01-01 10:00:00,,text\n")
    mimic("mimic: charttime before 1900", b"SUBJ-DS-1,SUBJ,SUBJ01,DS,1,1850-01-01 10:00:00,,text\n")
    mimic("mimic: month 13", b"SUBJ-DS-1,SUBJ,SUBJ01,DS,1,2180-13-01 10:00:00,,text\n")
    mimic("mimic: unparseable storetime", b"SUBJ-DS-1,SUBJ,SUBJ01,DS,1,2180-01-01 10:00:00,soon,text\n")
    mimic("mimic: oversized note", f'{row}"{"x " * 1_100_000}"\n'.encode())
    mimic("mimic: duplicate note id with other text",
          b"SUBJ-DS-1,SUBJ,SUBJ01,DS,1,2180-01-01 10:00:00,,first text\n"
          b"SUBJ-DS-1,SUBJ,SUBJ01,DS,1,2180-01-01 10:00:00,,second, other text\n", n_bad=1)
    mimic("mimic: .csv.gz as shipped, one broken row", f'{row}"unclosed\n'.encode(), fname="discharge.csv.gz", gz=True)
    mimic("mimic: CRLF line endings, broken row", f'{row}"unclosed\r\nmore\r\n'.encode())
    mimic("mimic: garbage lines between rows", b"%%%% garbage from a bad export %%%%\nmore garbage\n")
    mimic("mimic: NUL byte in the text", f'{row}"nul'.encode() + b"\x00" + b' here"\n', n_bad=0)
    mimic("mimic: unclosed quote on the last row", b"", n_bad=0)  # patched below
    cases[-1]["files"]["discharge.csv"] += f'{row.replace("SUBJ", "799999")}"never closed to the end\n'.encode()
    cases[-1]["bad"] = 1
    cases.append({"name": "mimic: header without the text column", "format": "mimic",
                  "files": {"discharge.csv": b"note_id,subject_id,charttime\n1,2,2180-01-01\n"},
                  "bad": 1, "good": [], "format_flag": "mimic"})

    def fhir(name, resources: list[dict], n_bad=1, raw: dict | None = None):
        k = len(cases)
        pid, eid = f"fi{k}-pat", f"fi{k}-enc"
        base = [{"resourceType": "Patient", "id": pid, "gender": "female"},
                {"resourceType": "Encounter", "id": eid, "subject": {"reference": f"Patient/{pid}"},
                 "period": {"start": "2024-01-01T10:00:00Z"}},
                _docref(f"fi{k}-good1", pid, eid, good_text), _docref(f"fi{k}-good2", pid, eid, good_text + " Two.")]
        bundle = {"resourceType": "Bundle", "type": "collection",
                  "entry": [{"resource": r} for r in base + [_fill(r, pid, eid) for r in resources]]}
        files = {"bundle.json": json.dumps(bundle).encode()}
        files.update(raw or {})
        cases.append({"name": name, "format": "fhir", "files": files, "bad": n_bad,
                      "good": [f"fhir-fi{k}-good1", f"fhir-fi{k}-good2"]})

    fhir("fhir: DocumentReference without an encounter", [{**_docref("x", "PID", "EID", "t"), "context": {}}])
    fhir("fhir: attachment not base64", [_docref("x", "PID", "EID", None, data="%%%not base64%%%")])
    fhir("fhir: attachment not UTF-8", [_docref("x", "PID", "EID", None, data=base64.b64encode(b"caf\xe9").decode())])
    fhir("fhir: unsupported attachment type", [{**_docref("x", "PID", "EID", "t"),
                                                "content": [{"attachment": {"contentType": "application/pdf",
                                                                            "data": "JVBERi0="}}]}])
    fhir("fhir: empty note", [_docref("x", "PID", "EID", "   ")])
    fhir("fhir: Encounter without a start", [{"resourceType": "Encounter", "id": "e2", "subject": {"reference": "Patient/PID"},
                                             "period": {}}])
    fhir("fhir: Encounter with an impossible date", [{"resourceType": "Encounter", "id": "e3",
                                                      "subject": {"reference": "Patient/PID"},
                                                      "period": {"start": "3024-01-01"}}])
    fhir("fhir: Condition without a coding", [{"resourceType": "Condition", "id": "c1", "subject": {"reference": "Patient/PID"},
                                              "encounter": {"reference": "Encounter/EID"}, "code": {"text": "x"}}])
    fhir("fhir: Observation without subject or encounter", [{"resourceType": "Observation", "id": "o1",
                                                             "code": {"coding": [{"system": "http://loinc.org", "code": "2345-7"}]},
                                                             "effectiveDateTime": "2024-01-01"}])
    fhir("fhir: Patient without id", [{"resourceType": "Patient", "gender": "male"}])
    fhir("fhir: bundle entry without a resource", [])
    cases[-1]["files"]["bundle.json"] = cases[-1]["files"]["bundle.json"].replace(b'"entry": [', b'"entry": [{"fullUrl": "urn:x"}, ', 1)
    fhir("fhir: invalid JSON file beside a good one", [], raw={"broken.json": b'{"resourceType": "Bundle", "entry": ['})
    fhir("fhir: raw non-UTF-8 byte in a bundle file", [], raw={"latin.json": b'{"resourceType": "Patient", "id": "z", "gender": "f\xe9male"}'})
    fhir("fhir: NDJSON with a bad line and a raw byte", [], n_bad=2,
         raw={"Patient.ndjson": b'{"resourceType": "Patient", "id": "nd1"}\n{not json\n{"resourceType": "Patient", "id": "nd2", "name": "\xff"}\n'})

    def text(name, rows: list[str], files: dict, n_bad=1):
        k = len(cases)
        good = [f"tx{k}-a", f"tx{k}-b"]
        manifest = ["patient_id,note_id,time,type,path", f"tx{k}-p,{good[0]},2024-01-01T09:00,Note,good.txt",
                    f"tx{k}-p,{good[1]},2024-01-02T09:00,Note,good2.txt"] + [r.replace("K", str(k)) for r in rows]
        allf = {"manifest.csv": ("\n".join(manifest) + "\n").encode(), "good.txt": good_text.encode(),
                "good2.txt": (good_text + " Two.").encode(), **files}
        cases.append({"name": name, "format": "text", "files": allf, "bad": n_bad, "good": good})

    text("text: manifest row without patient_id", [",txK-x,2024-01-01,Note,good.txt"], {})
    text("text: bad time", ["txK-p,txK-x,31/02/2024,Note,good.txt"], {})
    text("text: missing note file", ["txK-p,txK-x,2024-01-03,Note,nowhere.txt"], {})
    text("text: non-UTF-8 note file", ["txK-p,txK-x,2024-01-03,Note,latin.txt"], {"latin.txt": b"caf\xe9"})
    text("text: empty note file", ["txK-p,txK-x,2024-01-03,Note,empty.txt"], {"empty.txt": b""})
    text("text: path outside the folder", ["txK-p,txK-x,2024-01-03,Note,../../../etc/hostname"], {})
    text("text: duplicate note id with other text", ["txK-p,txK-a,2024-01-03,Note,other.txt"], {"other.txt": b"Other."})
    text("text: broken quote in the manifest", ['txK-p,txK-x,2024-01-03,"Note,good.txt'], {})
    text("text: non-UTF-8 byte in the manifest", ["txK-p,txK-x,2024-01-03,N\xe9te,good.txt"], {})
    return cases


def _docref(rid, pid, eid, text, data=None):
    data = data if data is not None else base64.b64encode(text.encode()).decode()
    return {"resourceType": "DocumentReference", "id": rid, "subject": {"reference": f"Patient/{pid}"},
            "type": {"coding": [{"display": "Progress note"}]}, "date": "2024-01-01T12:00:00Z",
            "context": {"encounter": [{"reference": f"Encounter/{eid}"}]},
            "content": [{"attachment": {"contentType": "text/plain", "data": data}}]}


def _fill(res: dict, pid: str, eid: str) -> dict:
    return json.loads(json.dumps(res).replace("PID", pid).replace("EID", eid))


def run_bad_inputs(store: GraphStore, env: dict) -> list[dict]:
    results = []
    for i, case in enumerate(bad_input_cases()):
        folder = OUT / "bad" / f"{i:02d}"
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        for name, data in case["files"].items():
            (folder / name).write_bytes(data.encode("latin-1") if isinstance(data, str) else data)
        store.run_autocommit("bench.wipe")
        target = folder / next(iter(case["files"])) if case["format"] == "mimic" else folder
        if case["format"] == "fhir":
            target = folder
        q = folder / "quarantine.jsonl"
        args = ["ingest", "notes", str(target), "--quarantine", str(q), "--json"]
        if case.get("format_flag"):
            args += ["--format", case["format_flag"]]
        rc, _ = cli(args, env)
        lines = [json.loads(x) for x in q.read_text().splitlines()] if q.exists() else []
        landed = {r["id"] for r in store.read("bench.notes_existing", ids=case["good"])}
        lost = [g for g in case["good"] if g not in landed]
        ok_lines = all(x.get("file") and x.get("row") is not None and x.get("reason") and x.get("fix") for x in lines)
        results.append({"case": case["name"], "exit": rc, "quarantined": len(lines), "expected_bad": case["bad"],
                        "good": len(case["good"]), "lost": len(lost),
                        "reasons": sorted({x["reason"].split(":")[0] for x in lines}),
                        "ok": rc == (2 if case["bad"] else 0) and len(lines) >= case["bad"] and not lost and ok_lines})
        log(f"bad input {i + 1:2d} {case['name']:55s} exit {rc} quarantined {len(lines)} lost {len(lost)}"
            f" {'ok' if results[-1]['ok'] else 'FAIL'}")
    return results


# -- (b) kills ---------------------------------------------------------------------------------------------
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--graphkit-kills", type=int, default=27)
    ap.add_argument("--neo4j-kills", type=int, default=6)
    ap.add_argument("--skip-bad-inputs", action="store_true")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    OUT.mkdir(parents=True, exist_ok=True)
    server = LocalNeo4j(HOME)
    server.install(InstallOptions(bolt_port=17787, http_port=17574, heap="1g", pagecache="256m"))
    server.start()
    env = dict(os.environ, GRAPHKIT_HOME=str(HOME), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    env.pop("NEO4J_URI", None)
    store = GraphStore(connection_settings(HOME), max_retry_s=60)
    store.apply_schema()
    corpora = make_corpora()
    guidelines = sorted(str(p) for p in (ROOT / "guidelines").glob("*.yaml"))

    bad = [] if args.skip_bad_inputs else run_bad_inputs(store, env)

    def ingest(fmt: str, kill=None):
        return cli(["ingest", "notes", *map(str, corpora[fmt]), "--quarantine", str(OUT / f"q-{fmt}.jsonl"),
                    "--batch-notes", "4"], env, kill=kill)

    def watch(probe: str):
        """Seconds from the job's first write to its end, on a clean run."""
        first = []

        def note_start(proc):
            while proc.poll() is None and not first:
                try:
                    if store.read(probe)[0]["started"]:
                        first.append(time.perf_counter())
                except Exception:  # noqa: BLE001
                    pass
                time.sleep(0.05)
            return False
        return first, note_start

    # clean references, one per format, and how long each writes
    reference, window, reference_lines = {}, {}, {}
    for fmt in ("mimic", "fhir", "text"):
        store.run_autocommit("bench.wipe")
        first, probe = watch("bench.ingest_started")
        rc, _ = ingest(fmt, kill=probe)
        end = time.perf_counter()
        window[fmt] = end - first[0] if first else 1.0
        reference[fmt] = checksum(store)
        reference_lines[fmt] = checksum.lines
        log(f"clean {fmt} ingest: exit {rc}, writes for {window[fmt]:.1f} s, {reference[fmt][1]}")

    trials = []
    n_g, n_n = args.graphkit_kills, args.neo4j_kills
    align_g, align_n = max(1, n_g // 5), max(1, n_n // 3)  # the rest go to the three ingest formats
    formats = ("mimic", "fhir", "text")
    plan = [(formats[i % 3], "graphkit") for i in range(n_g - align_g)]
    plan += [(formats[i % 3], "neo4j") for i in range(n_n - align_n)]
    for fmt, victim in plan:
        for _attempt in range(4):  # a kill that comes after the job ended is no kill: try another moment
            store.run_autocommit("bench.wipe")
            rc1, hit = ingest(fmt, kill=killer(store, "bench.ingest_started", window[fmt], rng, victim, server))
            if hit:
                break
        rc2, _ = ingest(fmt)  # the re-run completes what is missing
        same = checksum(store)[0] == reference[fmt][0]
        if not same:
            _diff(reference_lines[fmt], checksum.lines, OUT / f"diff-{len(trials)}.txt")
        trials.append({"job": f"ingest {fmt}", "killed": victim, "hit": hit, "exit_after_kill": rc1,
                       "exit_rerun": rc2, "identical": same})
        log(f"kill {victim:8s} during ingest {fmt:5s} (hit {hit}): exit {rc1}, rerun exit {rc2}, graph identical {same}")

    # alignment: the whole demo cohort beside the other corpora, a clean run as reference, then killed
    # runs resumed (--chunk 3: many transactions, so kills land between and inside them)
    store.run_autocommit("bench.wipe")
    cli(["guidelines", "load", *guidelines], env)
    for fmt in ("mimic", "fhir", "text"):
        ingest(fmt)
    cli(["ingest", "notes", str(ROOT / "ingest" / "demo" / "cohort"), "--quarantine", str(OUT / "q-demo.jsonl")], env)
    cli(["align", "--all", "--chunk", "3"], env)  # warms the embedding cache
    for r in store.read("align.list_runs"):
        store.write("align.delete_run", id=r["id"])
    first, probe = watch("bench.align_started")
    cli(["align", "--all", "--chunk", "3"], env, kill=probe)
    align_window = time.perf_counter() - first[0] if first else 1.0
    align_ref = checksum(store)
    align_lines = checksum.lines
    log(f"clean alignment: writes for {align_window:.1f} s")
    align_plan = ["graphkit"] * align_g + ["neo4j"] * align_n
    for victim in align_plan:
        for _attempt in range(4):
            for r in store.read("align.list_runs"):
                store.write("align.delete_run", id=r["id"])
            rc1, hit = cli(["align", "--all", "--chunk", "3"], env,
                           kill=killer(store, "bench.align_started", align_window, rng, victim, server))
            if hit:
                break
        runs = store.read("align.list_runs")
        rc2 = None
        if runs and runs[0]["status"] != "completed":
            rc2, _ = cli(["align", "--resume", runs[0]["id"], "--chunk", "3"], env)
        same = checksum(store)[0] == align_ref[0]
        if not same:
            _diff(align_lines, checksum.lines, OUT / f"diff-{len(trials)}.txt")
        trials.append({"job": "align --all", "killed": victim, "hit": hit, "exit_after_kill": rc1,
                       "exit_rerun": rc2, "identical": same})
        log(f"kill {victim:8s} during align (hit {hit}): exit {rc1}, resume exit {rc2}, graph identical {same}")

    # (c) erasure of aligned patients with recommendations, of every source
    patients = ["mimic-800000", "mimic-800007", "txt-p0", "txt-p3"] + \
        [f"fhir-{p.stem}" for p in sorted((OUT / "corpora" / "fhir").glob("*.json"))[:2]]
    leftovers = {}
    for p in patients:
        cli(["recommend", p], env)
        rc, _ = cli(["delete", "patient", p, "--purge-quarantine", "--json",
                     *sum((["--quarantine", str(q)] for q in OUT.glob("q-*.jsonl")), [])], env)
        from graphkit.erase import references

        left = references(store, p)
        quarantine_left = sum(1 for q in OUT.glob("q-*.jsonl") for x in q.read_text().splitlines()
                              if json.loads(x).get("patient") == p)
        leftovers[p] = len(left) + quarantine_left
        log(f"erased {p}: exit {rc}, leftovers {left[:5]} quarantine lines left {quarantine_left}")
    orphans = store.read("bench.orphans")[0]

    sentences = note_sentences()
    blob = "\n".join(LOGS)
    in_logs = sum(1 for s in sentences if s in blob)
    server.stop()
    print(f"\n{'bad input case':58s} exit  quarantined  lost  reasons", file=sys.stderr)
    for r in bad:
        print(f"{r['case']:58s} {r['exit']!s:4s}  {r['quarantined']:11d}  {r['lost']:4d}  {', '.join(r['reasons'])}",
              file=sys.stderr)
    emit({"bad_inputs_tried": len(bad), "bad_inputs_handled": sum(r["ok"] for r in bad),
          "good_records_lost": sum(r["lost"] for r in bad),
          "kills": sum(t["hit"] for t in trials),
          "kills_graphkit": sum(t["hit"] and t["killed"] == "graphkit" for t in trials),
          "kills_neo4j": sum(t["hit"] and t["killed"] == "neo4j" for t in trials),
          "graphs_identical_after_resume": sum(t["hit"] and t["identical"] for t in trials),
          "graphs_identical_all_trials": f"{sum(t['identical'] for t in trials)}/{len(trials)}",
          "delete_leftovers": sum(leftovers.values()) + orphans["sections"] + orphans["sentences"] + orphans["events"],
          "patients_erased": len(patients), "note_text_in_logs": in_logs, "note_sentences_checked": len(sentences),
          "log_bytes": len(blob), "seed": args.seed})


if __name__ == "__main__":
    main()
