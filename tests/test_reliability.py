"""Reliability and privacy: no patient mixing, complete erasure, crash-safe trajectories, safe logs,
interrupted runs, verified jars, file modes, consistent exit codes (issue 13's regression tests)."""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import random
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from graphkit.erase import erase_patient, references
from ingest.job import ingest_paths
from ingest.model import BadRecord, Note
from ingest.quarantine import Quarantine
from ingest.readers import detect_format, read_paths

ROOT = Path(__file__).resolve().parent.parent
HEADER = "note_id,subject_id,hadm_id,note_type,note_seq,charttime,storetime,text\n"


def _subjects(n: int) -> list[str]:
    """Subject ids no other test uses (MIMIC patient ids are digits, so the id prefix cannot mark them)."""
    base = random.randrange(10**9, 9 * 10**9)
    return [str(base + i) for i in range(n)]


def _row(subject: str, k: int, text: str, note_type: str = "DS") -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(
        [f"{subject}-DS-{k}", subject, f"{subject}{k}", note_type, k, f"2180-0{k}-01 10:00:00", "", text])
    return buf.getvalue()


def _notes(records):
    return [r for r in records if isinstance(r, Note)]


def _bad(records):
    return [r for r in records if isinstance(r, BadRecord)]


# -- 1. a broken CSV row never mixes patients ------------------------------------------------------
def test_an_unclosed_quote_is_quarantined_and_the_next_patients_rows_stay_theirs(tmp_path):
    a, b, c = _subjects(3)
    path = tmp_path / "discharge.csv"
    path.write_text(HEADER + _row(a, 1, "Alpha note.\nline two")
                    + f'{a}-DS-2,{a},{a}2,DS,2,2180-02-01 10:00:00,,"Alpha broken, never closed\nmore alpha\n'
                    + _row(b, 1, "Bravo note") + _row(b, 2, "Bravo second\nwith a line") + _row(c, 1, "Charlie"))
    records = list(read_paths([path]))
    notes = _notes(records)
    assert [n.id for n in notes] == [f"mimic-{a}-DS-1", f"mimic-{b}-DS-1", f"mimic-{b}-DS-2", f"mimic-{c}-DS-1"]
    assert all(("Alpha" in n.text) == (n.patient == f"mimic-{a}") for n in notes)  # no text changes patient
    [bad] = _bad(records)
    assert bad.source.row == 4 and bad.reason.startswith("unclosed quote: the row starting at line 4")
    assert "next row at line 6" in bad.reason and bad.patient == f"mimic-{a}"
    assert "Bravo" not in bad.record["raw"]


def test_an_unclosed_quote_on_the_last_row_is_reported(tmp_path):
    a, b = _subjects(2)
    path = tmp_path / "discharge.csv"
    path.write_text(HEADER + _row(a, 1, "fine") + f'{b}-DS-1,{b},{b}1,DS,1,2180-01-01 10:00:00,,"never closed\n')
    records = list(read_paths([path]))
    assert [n.id for n in _notes(records)] == [f"mimic-{a}-DS-1"]
    [bad] = _bad(records)
    assert bad.source.row == 3 and "runs to the end of the file" in bad.reason


def test_a_quote_in_note_type_loses_only_its_own_row(tmp_path):
    subjects = _subjects(5)
    rows = [_row(s, 1, f"note of {s}") for s in subjects]
    rows[1] = f'{subjects[1]}-DS-1,{subjects[1]},{subjects[1]}1,"D"S,1,2180-01-01 10:00:00,,"text, with comma"\n'
    path = tmp_path / "discharge.csv"
    path.write_text(HEADER + "".join(rows))
    records = list(read_paths([path]))
    assert len(_notes(records)) == 4
    [bad] = _bad(records)
    assert bad.source.row == 3


def test_mimic_as_shipped_csv_gz_and_a_bad_byte_outside_the_text(tmp_path):
    a, b, c = _subjects(3)
    raw = (HEADER + _row(a, 1, "first")).encode() + \
        f"{b}-DS-1,{b},{b}1,D\xe9S,1,2180-01-01 10:00:00,,ok\n".encode("latin-1") + _row(c, 1, "last").encode()
    path = tmp_path / "discharge.csv.gz"
    path.write_bytes(gzip.compress(raw))
    assert detect_format(path) == "mimic"
    records = list(read_paths([path]))
    assert [n.id for n in _notes(records)] == [f"mimic-{a}-DS-1", f"mimic-{c}-DS-1"]
    [bad] = _bad(records)
    assert bad.reason.startswith("not UTF-8: byte 0xe9") and bad.record["raw_base64"]
    q = Quarantine(tmp_path / "q.jsonl")
    q.add(bad)  # the quarantine writer never raises on undecodable bytes
    q.close()
    assert json.loads((tmp_path / "q.jsonl").read_text())["patient"] == f"mimic-{b}"


def test_fhir_ndjson_with_a_raw_non_utf8_byte_is_quarantined_not_replaced(tmp_path):
    good = {"resourceType": "Patient", "id": "p-ok", "gender": "female"}
    path = tmp_path / "Patient.ndjson"
    path.write_bytes(json.dumps(good).encode() + b"\n" + b'{"resourceType": "Patient", "id": "p2", "gender": "fem\xe4le"}\n')
    records = list(read_paths([path]))
    [bad] = _bad(records)
    assert bad.source.row == 2 and bad.reason.startswith("not UTF-8: byte 0xe4")
    assert not any("\ufffd" in json.dumps(getattr(r, "props", {})) for r in records)


# -- 3. trajectories heal after a crash between the batch and the relink ------------------------------
def test_a_crash_before_the_relink_is_healed_by_any_later_run(store, nlp, prefix, tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    rows = ["patient_id,note_id,time,type,path"]
    for i, day in enumerate(("2024-01-02", "2024-02-03", "2024-03-04")):
        (folder / f"n{i}.txt").write_text(f"Assessment: breast cancer. Plan: letrozole and mammogram on {day}.")
        rows.append(f"{prefix}p,{prefix}n{i},{day}T10:00,Note,n{i}.txt")
    (folder / "manifest.csv").write_text("\n".join(rows) + "\n")

    class DiesBeforeRelink(type(store)):
        def write(self, name, **params):
            if name == "ingest.relink_trajectory":
                raise KeyboardInterrupt("kill -9")
            return super().write(name, **params)

    dying = DiesBeforeRelink(store.settings)
    try:
        with pytest.raises(KeyboardInterrupt):
            ingest_paths(dying, [folder], quarantine_path=tmp_path / "q.jsonl", nlp=nlp)
    finally:
        dying.close()
    assert store.read("testing.next_chain_length", patient=f"{prefix}p")[0]["links"] == 0
    again = ingest_paths(store, [folder], quarantine_path=tmp_path / "q.jsonl", nlp=nlp)
    assert again.notes_written == 0 and again.notes_unchanged == 3  # nothing new, yet the chain is rebuilt
    events = store.read("testing.events_of_patient", patient=f"{prefix}p")
    assert store.read("testing.next_chain_length", patient=f"{prefix}p")[0]["links"] == len(events) - 1 > 0
    assert store.read("ingest.patients_needing_relink") == [] or \
        f"{prefix}p" not in {r["id"] for r in store.read("ingest.patients_needing_relink")}


def test_two_ingests_of_the_same_file_at_once_write_each_note_once(store, nlp, prefix, tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    rows = ["patient_id,note_id,time,type,path"]
    for i in range(6):
        (folder / f"n{i}.txt").write_text(f"Note {i}: patient with hypertension on lisinopril.")
        rows.append(f"{prefix}p{i % 2},{prefix}n{i},2024-01-0{i + 1}T10:00,Note,n{i}.txt")
    (folder / "manifest.csv").write_text("\n".join(rows) + "\n")
    reports, errors = [], []

    def job(k):
        s = type(store)(store.settings)
        try:
            reports.append(ingest_paths(s, [folder], quarantine_path=tmp_path / f"q{k}.jsonl", nlp=nlp_copy[k],
                                        batch_notes=2))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            s.close()

    from ingest.nlp import build_pipeline

    nlp_copy = [nlp, build_pipeline()]  # spaCy pipelines are not shared between threads
    threads = [threading.Thread(target=job, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert sum(r.notes_written for r in reports) == 6
    assert sum(r.notes_unchanged for r in reports) == 6


# -- 4. erasure leaves nothing that references the patient ------------------------------------------
def test_erasure_leaves_no_node_or_property_of_the_patient(store, nlp, embedder, prefix, tmp_path):
    from conftest import load_repo_guideline
    from graphkit.align.job import run_alignment
    from graphkit.recommend.job import recommend_patient

    pid, other = f"{prefix}p", f"{prefix}q"
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.txt").write_text("Diagnosis: invasive ductal carcinoma of the left breast, ER positive, HER2 "
                                  "negative, stage IIA.\nPlan: lumpectomy and sentinel lymph node biopsy.")
    (folder / "b.txt").write_text("Procedures: lumpectomy performed. Plan: radiotherapy then letrozole.")
    (folder / "c.txt").write_text("Assessment: hypertension.")
    (folder / "manifest.csv").write_text(
        "patient_id,note_id,time,type,path\n"
        f"{pid},{prefix}a,2024-01-10T10:00,Consult,a.txt\n{pid},{prefix}b,2024-02-10T10:00,Operative note,b.txt\n"
        f"{pid},{prefix}bad,not-a-time,Note,a.txt\n{other},{prefix}c,2024-01-11T10:00,Note,c.txt\n"
        f"{other},{prefix}bad2,never,Note,c.txt\n")
    quarantine = tmp_path / "q.jsonl"
    ingest_paths(store, [folder], quarantine_path=quarantine, nlp=nlp)
    load_repo_guideline(store, "breast-early")
    run = run_alignment(store, patients=[pid], guidelines=["breast-early"], embedder=embedder).run
    recommend_patient(store, pid, embedder)
    try:
        assert references(store, pid)  # the patient is all over the graph before
        report = erase_patient(store, pid, [quarantine], embedder=embedder)
        assert {"Patient", "Encounter", "Note", "Section", "Sentence", "Event", "ConformanceItem",
                "Recommendation"} <= set(report.nodes)
        assert report.runs_scrubbed == 1 and report.quarantine_lines == {str(quarantine): 1}
        leftovers = references(store, pid)  # walks every label and relationship type in the graph
        assert leftovers == [], leftovers
        lines = [json.loads(x) for x in quarantine.read_text().splitlines()]
        assert [x["patient"] for x in lines] == [other]  # the other patient's line stays
        assert store.read("tkg.patients_existing", patients=[other])  # and so does the other patient
    finally:
        store.write("align.delete_run", id=run)


# -- 5. --debug never prints note text ---------------------------------------------------------------
def test_debug_logging_never_carries_note_text(store, prefix, tmp_path, cli_env):
    secret = "Qwertyuiop Zxcvbnm"  # stands for PHI in the note text
    (tmp_path / "n.txt").write_text(f"{secret} denies fever. Assessment: hypertension.")
    (tmp_path / "manifest.csv").write_text(f"patient_id,note_id,time,type,path\n{prefix}p,{prefix}n,2024-01-01,Note,n.txt\n"
                                           f"{prefix}p,{prefix}m,never,Note,n.txt\n")
    proc = subprocess.run([sys.executable, "-m", "graphkit.cli.app", "--debug", "ingest", "notes", str(tmp_path),
                           "--quarantine", str(tmp_path / "q.jsonl")], env=cli_env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert secret not in proc.stdout + proc.stderr
    assert "DEBUG" in proc.stderr or "quarantined" in proc.stderr  # debug mode really ran


# -- 6. an interrupted alignment run does not stay "running" ------------------------------------------
def test_a_run_whose_process_died_is_marked_partial(store, prefix):
    import socket

    from graphkit.align.job import mark_stale_runs

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    run = f"{prefix}run"
    store.write("align.create_run", id=run, params="{}", model="m", patients_total=3,
                host=socket.gethostname(), pid=dead.pid)
    assert run in mark_stale_runs(store)
    info = store.read("align.run_info", id=run)[0]
    assert info["status"] == "partial"


# -- 7/8. verified jars, copies not links, owner-only files --------------------------------------------
@pytest.mark.slow
def test_a_tampered_installed_jar_is_refused_and_jars_are_copies(tmp_path, needs_local):
    from graphkit.errors import GraphkitError
    from graphkit.neo4j.server import InstallOptions, LocalNeo4j

    other = LocalNeo4j(tmp_path / "home")
    other.install(InstallOptions(bolt_port=17690, http_port=17480))
    jars = list(other.lib_dir.glob("*.jar"))
    assert jars and all(j.stat().st_nlink == 1 for j in jars)  # copies: an edit cannot reach the cache
    assert stat.S_IMODE(other.home.stat().st_mode) == 0o700
    assert stat.S_IMODE((other.neo4j_home / "data" / "dbms" / "auth.ini").stat().st_mode) == 0o600
    victim = min(jars, key=lambda j: j.stat().st_size)
    data = bytearray(victim.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size, one byte changed
    victim.write_bytes(bytes(data))
    with pytest.raises(GraphkitError, match=f"{victim.name} does not match its pinned sha256"):
        other.start()
    assert other.install() is True  # install restores the jar...
    from graphkit.neo4j.artifacts import verify_installed

    assert verify_installed(other.lib_dir, other.lock) == []  # ...and it verifies again


def test_the_running_store_is_owner_only(needs_local):
    home = needs_local.neo4j_home
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    for root, dirs, files in os.walk(home / "data"):
        for name in files:
            mode = stat.S_IMODE(os.stat(os.path.join(root, name)).st_mode)
            assert mode & 0o077 == 0, (os.path.join(root, name), oct(mode))


def test_quarantine_is_0600_deduplicated_and_in_graphkit_home(tmp_path, monkeypatch):
    from ingest.model import SourceRef
    from ingest.quarantine import default_path

    monkeypatch.setenv("GRAPHKIT_HOME", str(tmp_path / "home"))
    assert default_path() == tmp_path / "home" / "quarantine" / "ingest.jsonl"
    path = tmp_path / "old.jsonl"
    path.write_text("")
    os.chmod(path, 0o644)  # a file an older version left world-readable
    bad = BadRecord(SourceRef("f.csv", 3), "bad timestamp: x", "fix it", {"text": "phi"}, "p1")
    for _ in range(2):  # two runs over the same bad input
        q = Quarantine(path)
        q.add(bad)
        q.close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(path.read_text().splitlines()) == 1


# -- 9. one exit code for "no such patient" ---------------------------------------------------------
@pytest.mark.parametrize("args", [["timeline", "{p}"], ["delete", "patient", "{p}"], ["conformance", "{p}"],
                                  ["recommend", "{p}"], ["align", "--patient", "{p}"]])
def test_no_such_patient_exits_2_everywhere(store, prefix, cli_env, args):
    argv = [a.format(p=f"{prefix}nobody") for a in args]
    proc = subprocess.run([sys.executable, "-m", "graphkit.cli.app", *argv], env=cli_env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 2, (argv, proc.stderr)
    assert "no patient" in proc.stderr
