"""The ingestion job against the real Neo4j: idempotent, incremental, resumable, quarantining."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from graphkit.erase import erase_patient
from graphkit.store import GraphStore
from ingest.job import ingest_paths

ROOT = Path(__file__).resolve().parent.parent

NOTES = {
    "n1": ("2024-02-12T14:00", "Pathology", "Diagnosis: invasive carcinoma of breast. Patient denies fever.\n"
                                          "Family History: Mother had breast cancer."),
    "n2": ("2024-03-20T08:00", "Operative note", "Procedures: lumpectomy performed on 2024-03-20.\n"
                                                 "Plan: start letrozole 2.5 mg oral tablet after radiation."),
}


def _folder(tmp_path: Path, prefix: str, notes=NOTES, extra_rows: str = "") -> Path:
    rows = ["patient_id,note_id,time,type,path"]
    for nid, (time, typ, text) in notes.items():
        (tmp_path / f"{nid}.txt").write_text(text)
        rows.append(f"{prefix}p,{prefix}{nid},{time},{typ},{nid}.txt")
    (tmp_path / "manifest.csv").write_text("\n".join(rows) + "\n" + extra_rows)
    return tmp_path


def _run(store, folder, tmp_path, **kw):
    return ingest_paths(store, [folder], quarantine_path=tmp_path / "quarantine.jsonl", **kw)


def test_ingest_builds_the_temporal_graph_with_provenance(store, nlp, prefix, tmp_path):
    report = _run(store, _folder(tmp_path, prefix), tmp_path, nlp=nlp)
    assert (report.notes_read, report.notes_written, report.quarantined) == (2, 2, 0)
    events = store.read("testing.events_of_patient", patient=f"{prefix}p")
    by_text = {e["text"]: e for e in events}
    assert by_text["fever"]["assertion"] == "negated"  # kept, not dropped
    assert by_text["breast cancer"]["assertion"] == "family"
    assert by_text["lumpectomy"]["valid_time"].startswith("2024-03-20")
    assert "RxNorm:200064" in by_text["letrozole 2.5 mg oral tablet"]["codes"]
    for e in events:
        assert e["evidence"] == e["text"]  # the span points at the exact characters
        assert e["recorded_time"] >= e["valid_time"][:10]
    prov = store.read("testing.provenance_of_event", id=by_text["lumpectomy"]["id"])[0]
    assert (prov["note"], prov["patient"], prov["section"]) == (f"{prefix}n2", f"{prefix}p", "Procedures")
    links = store.read("testing.next_chain_length", patient=f"{prefix}p")[0]["links"]
    assert links == len(events) - 1  # one NEXT chain through the whole trajectory


def test_same_input_twice_changes_nothing_and_a_changed_note_replaces_only_its_events(store, nlp, prefix, tmp_path):
    folder = _folder(tmp_path, prefix)
    _run(store, folder, tmp_path, nlp=nlp)
    before = store.read("testing.events_of_patient", patient=f"{prefix}p")
    counts = store.counts()
    again = _run(store, folder, tmp_path, nlp=nlp)
    assert (again.notes_written, again.notes_unchanged) == (0, 2)
    assert store.counts() == counts

    (folder / "n2.txt").write_text("Procedures: mastectomy performed on 2024-03-21.")
    changed = _run(store, folder, tmp_path, nlp=nlp)
    assert (changed.notes_replaced, changed.notes_unchanged) == (1, 1)
    after = store.read("testing.events_of_patient", patient=f"{prefix}p")
    n1 = lambda rows: [e for e in rows if e["note"] == f"{prefix}n1"]  # noqa: E731
    assert n1(after) == n1(before)  # the unchanged note's events are untouched
    n2_texts = {e["text"] for e in after if e["note"] == f"{prefix}n2"}
    assert "lumpectomy" not in n2_texts and "mastectomy" in n2_texts


def test_a_crashed_run_resumes_without_duplicates(store, nlp, prefix, tmp_path):
    folder = _folder(tmp_path, prefix)

    class Crashing(GraphStore):
        calls = 0

        def transaction(self, work):
            Crashing.calls += 1
            if Crashing.calls == 2:
                raise RuntimeError("power cut")
            return super().transaction(work)

    crashing = Crashing(store.settings)
    try:
        with pytest.raises(RuntimeError):
            _run(crashing, folder, tmp_path, nlp=nlp, batch_notes=1)
    finally:
        crashing.close()
    partial = store.read("testing.events_of_patient", patient=f"{prefix}p")
    assert {e["note"] for e in partial} == {f"{prefix}n1"}  # first note whole, second not at all
    resumed = _run(store, folder, tmp_path, nlp=nlp, batch_notes=1)
    assert (resumed.notes_unchanged, resumed.notes_written) == (1, 1)
    events = store.read("testing.events_of_patient", patient=f"{prefix}p")
    assert len(events) == len({e["id"] for e in events})


def test_bad_records_are_quarantined_and_the_rest_goes_through(store, nlp, prefix, tmp_path):
    (tmp_path / "dup.txt").write_text("Different text, same id.")
    folder = _folder(tmp_path, prefix, extra_rows=(
        f"{prefix}p,{prefix}n1,2024-02-12T14:00,Pathology,dup.txt\n"
        f"{prefix}p,{prefix}n9,not-a-time,Pathology,n1.txt\n"))
    report = _run(store, folder, tmp_path, nlp=nlp)
    assert (report.notes_written, report.quarantined) == (2, 2)
    lines = [json.loads(x) for x in (tmp_path / "quarantine.jsonl").read_text().splitlines()]
    assert {x["reason"].split(":")[0] for x in lines} == {"duplicate note id with different text", "bad timestamp"}
    assert all(x["file"].endswith("manifest.csv") and x["row"] and x["fix"] for x in lines)
    assert oct((tmp_path / "quarantine.jsonl").stat().st_mode & 0o777) == "0o600"


def test_cli_exit_code_and_no_note_text_in_the_output(store, prefix, tmp_path, cli_env):
    secret = "Zyxwvut Qwerty"  # stands for PHI in the note text
    notes = {"n1": ("2024-02-12T14:00", "Progress note", f"{secret} denies fever.")}
    folder = _folder(tmp_path, prefix, notes, extra_rows=f"{prefix}p,{prefix}n2,1800-01-01,Note,n1.txt\n")
    proc = subprocess.run([sys.executable, "-m", "graphkit.cli.app", "ingest", "notes", str(folder),
                           "--quarantine", str(tmp_path / "q.jsonl"), "--json"],
                          env=cli_env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2, proc.stderr
    assert json.loads(proc.stdout)["notes_written"] == 1
    assert secret not in proc.stdout + proc.stderr


def test_delete_patient_leaves_shared_concepts(store, nlp, prefix, tmp_path):
    _run(store, _folder(tmp_path, prefix), tmp_path, nlp=nlp)
    users = store.read("testing.concept_users", system="RxNorm", code="200064")[0]
    assert users["concepts"] == 1  # one shared Concept node per code
    erase_patient(store, f"{prefix}p")
    assert store.read("testing.events_of_patient", patient=f"{prefix}p") == []
    assert store.read("testing.concept_users", system="RxNorm", code="200064")[0]["events"] == users["events"] - 1


@pytest.mark.slow
def test_the_demo_cohort_ingests_cleanly(store, nlp, tmp_path):
    """A real FHIR patient of the demo cohort: notes and structured facts, one trajectory."""
    bundle = sorted(p for p in (ROOT / "ingest" / "demo" / "cohort").glob("*.json") if p.name != "MANIFEST.json")[0]
    patient = "fhir-" + bundle.stem
    if store.read("tkg.patients_existing", patients=[patient]):
        erase_patient(store, patient)  # a kept server may hold the demo cohort: start from nothing
    try:
        report = ingest_paths(store, [bundle], quarantine_path=tmp_path / "q.jsonl", nlp=nlp)
        assert report.quarantined == 0 and report.events_from_notes > 50 and report.facts > 50
        events = store.read("testing.events_of_patient", patient=patient)
        assert store.read("testing.next_chain_length", patient=patient)[0]["links"] == len(events) - 1
        assert any(e["kind"] == "Cancer" and e["note"] for e in events)
    finally:
        erase_patient(store, patient)


def test_a_new_pipeline_version_reprocesses_unchanged_notes(store, nlp, prefix, tmp_path):
    folder = _folder(tmp_path, prefix)
    _run(store, folder, tmp_path, nlp=nlp)
    original = nlp._graphkit_fingerprint
    try:
        nlp._graphkit_fingerprint = "a-newer-lexicon"
        report = _run(store, folder, tmp_path, nlp=nlp)
        assert (report.notes_replaced, report.notes_unchanged) == (2, 0)
    finally:
        nlp._graphkit_fingerprint = original


def test_bad_values_are_kept_flagged_and_counted_in_the_summary(store, nlp, prefix, tmp_path):
    notes = {"f1": ("2024-05-02T09:00", "Oncology follow-up",
                    "Assessment: ER+ by IHC. ER negative on repeat. PD-L1 140%. Stage VI per outside note.\n"
                    "Plan: continue anastrazole; QZXR follow-up with PCP.")}
    report = _run(store, _folder(tmp_path, prefix, notes), tmp_path, nlp=nlp)
    assert report.flags.get("conflict", 0) >= 2 and report.flags.get("invalid", 0) >= 2
    assert report.flags.get("spelling") == 1 and report.flags.get("unknown-abbreviation") == 1
    assert report.flagged_notes == 1
    [row] = store.read("testing.note_flags", id=f"{prefix}f1")
    assert row["note_flags"] == ["unknown-abbreviation:QZXR"]  # kept as text, never expanded
    events = {e["text"]: e for e in store.read("testing.events_of_patient", patient=f"{prefix}p")}
    stages = [e for e in events.values() if e["kind"] == "Stage"]
    assert stages and not any(e["codes"] for e in stages)  # "stage VI" kept as text, never coded


def test_nlp_in_worker_processes_writes_what_in_process_nlp_writes(store, nlp, prefix, tmp_path):
    """The default job forks NLP workers; its graph must equal the in-process one, batch order kept."""
    notes = {f"n{i}": (f"2024-0{i + 1}-02T10:00", "Progress", text)
             for i, (_, _, text) in enumerate(list(NOTES.values()) * 3)}
    graphs = []
    for k, workers in enumerate((0, 2)):
        folder = tmp_path / f"w{workers}"
        folder.mkdir()
        report = _run(store, _folder(folder, f"{prefix}w{k}", notes), folder, nlp=nlp, workers=workers,
                      batch_notes=2)
        assert (report.notes_written, report.quarantined) == (6, 0) and report.stage_seconds["nlp"] > 0
        events = store.read("testing.events_of_patient", patient=f"{prefix}w{k}p")
        graphs.append(sorted((e["id"].split(":", 1)[1], e["text"], e["assertion"], e["valid_time"],
                              tuple(sorted(e["codes"]))) for e in events))
        assert store.read("testing.next_chain_length", patient=f"{prefix}w{k}p")[0]["links"] == len(events) - 1
    assert graphs[0] == graphs[1] and len(graphs[0]) >= 12
