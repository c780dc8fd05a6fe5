"""The sample patient graph that `graphkit demo` loads."""

from __future__ import annotations

import json
import subprocess
import sys

from graphkit.demo.sample import SAMPLE, load_sample, sample_rows


def test_sample_rows_keep_evidence_spans_and_time_order():
    rows = sample_rows(json.loads(SAMPLE.read_text()))
    sentences = {r["id"]: r["text"] for r in rows["merge_sentences"]}
    for ev, link in zip(rows["merge_events"], rows["link_evidence"]):
        assert sentences[link["sentence"]][link["start"]:link["end"]] == ev["text"]
    assert len(rows["link_next_event"]) == len(rows["merge_events"]) - 1
    assert {"negated", "family", "possible", "present"} <= {e["assertion"] for e in rows["merge_events"]}


def test_demo_patient_loads_idempotently_and_deletes_cleanly(store, cli_env):
    load_sample(store)
    first = store.counts()
    load_sample(store)
    assert store.counts() == first  # the same input twice changes nothing
    timeline = store.read("tkg.patient_timeline", patient="demo-p001")
    times = [r["valid_time"] for r in timeline]
    assert times == sorted(times) and len(timeline) == 14
    assert any(r["assertion"] == "negated" and "lymph nodes" in r["text"] for r in timeline)

    proc = subprocess.run([sys.executable, "-m", "graphkit.cli.app", "delete", "patient", "demo-p001", "--json"],
                          env=cli_env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    by_label = json.loads(proc.stdout)["by_label"]
    record = {k: by_label.get(k, 0) for k in ("Patient", "Encounter", "Note", "Section", "Sentence", "Event")}
    assert record == {"Patient": 1, "Encounter": 4, "Note": 4, "Section": 9, "Sentence": 15, "Event": 14}
    # whatever was derived from the record (recommendations, states, assessments) went with it
    assert set(by_label) - set(record) <= {"Recommendation", "PatientState", "CareAssessment", "CareItem",
                                           "ConformanceItem"}
    after = store.counts()["nodes"]
    assert "Patient" not in after or after.get("Patient", 0) == first["nodes"]["Patient"] - 1
    assert after["Concept"] == first["nodes"]["Concept"]  # shared concepts stay
    assert store.read("tkg.patient_timeline", patient="demo-p001") == []
