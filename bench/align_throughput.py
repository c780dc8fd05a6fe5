#!/usr/bin/env python3
"""Alignment speed: per-patient latency and a 1,000-patient batch run with reads and writes.

1. Makes 1,000 synthetic patients in Neo4j by copying demo-cohort trajectories (the first 300
   events of each demo patient that has at least 300, round-robin) under new ids.
2. Latency: aligns every synthetic patient in memory against all three guidelines (``--guideline``
   for all, so each patient scores every path), embeddings cached (one warm-up pass), no LLM;
   reports the median and p95 ms per patient.
3. End to end: ``run_alignment`` over the 1,000 patients — reading trajectories, aligning, and
   writing FOLLOWS / ALIGNED_TO / conformance items, chunk by chunk — timed from start to finish.

Cleans up after itself. Needs the demo graph (``graphkit demo``).
4. Normative reasoning: state + eligibility + normative conformance + the no-LLM recommendation text
   per patient (facts read first, not timed), then ``assess_patients`` over the 1,000 patients end to
   end (reads, reasoning, writing the state snapshots and care assessments).

JSON keys: median_ms_per_patient, seconds_for_1000_patients, reason_median_ms_per_patient,
reason_seconds_for_1000_patients.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench._common import emit, log  # noqa: E402
from graphkit.align.aligner import Aligner  # noqa: E402
from graphkit.align.embed import TextEmbedder  # noqa: E402
from graphkit.align.job import load_guidelines, load_trajectories, run_alignment  # noqa: E402
from graphkit.align.model import AlignParams  # noqa: E402
from graphkit.reason.job import assess_patients, load_guideline_specs, reason_about  # noqa: E402
from graphkit.recommend.normative import normative_text  # noqa: E402
from graphkit.state.io import load_facts  # noqa: E402
from graphkit.store import GraphStore  # noqa: E402

PREFIX = "bench-align-"


def cleanup(store: GraphStore) -> None:
    """Remove the synthetic patients and what was written for them (ALIGNED_TO go with the events)."""
    for name in ("delete_reasoning_with_prefix", "delete_conformance_with_prefix", "delete_events_with_prefix",
                 "delete_patients_with_prefix"):
        store.run_autocommit(f"bench.{name}", prefix=PREFIX)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--patients", type=int, default=1000)
    ap.add_argument("--events", type=int, default=300, help="events copied per synthetic patient (at most)")
    args = ap.parse_args()
    with GraphStore.connect() as store:
        cleanup(store)
        templates = [r["id"] for r in store.read("align.patients_all") if r["id"].startswith("fhir-")]
        if not templates:
            sys.exit("the demo cohort is not in the graph: run `graphkit demo` first")
        sizes = {p: len(v) for p, v in load_trajectories(store, templates).items()}
        big = [p for p in templates if sizes[p] >= args.events]
        templates = big or templates  # patients with at least --events events, copied up to that many
        guidelines = load_guidelines(store)
        ids = [f"{PREFIX}{i:05d}" for i in range(args.patients)]
        log(f"copying {len(ids)} synthetic patients from {len(templates)} templates")
        t = time.perf_counter()
        for i, pid in enumerate(ids):
            store.write("bench.clone_patient_trajectory", src=templates[i % len(templates)], dst=pid, limit=args.events)
        log(f"  {time.perf_counter() - t:.1f} s")

        trajectories = load_trajectories(store, ids[:len(templates) * 2])
        n_events = [len(v) for v in trajectories.values()]
        embedder = TextEmbedder()
        aligner = Aligner(guidelines, embedder, AlignParams())
        every = [g.id for g in guidelines]
        for pid, evs in trajectories.items():  # warm-up: fills the embedding cache
            aligner.align(pid, evs, only=every)
        times = []
        for pid, evs in trajectories.items():
            t = time.perf_counter()
            aligner.align(pid, evs, only=every)
            times.append((time.perf_counter() - t) * 1000)
        times.sort()
        median = statistics.median(times)
        p95 = times[int(len(times) * 0.95) - 1]
        log(f"latency over {len(times)} patients (mean {statistics.mean(n_events):.0f} events): "
            f"median {median:.1f} ms, p95 {p95:.1f} ms")

        t = time.perf_counter()
        summary = run_alignment(store, patients=ids, embedder=embedder)
        store.write("align.forget_run", id=summary.run)
        e2e = time.perf_counter() - t
        log(f"end to end: {summary.aligned} aligned, status {summary.status}, {e2e:.1f} s")

        # normative reasoning: state + eligibility + conformance + recommendation text (graph read excluded)
        specs = load_guideline_specs(store)
        facts = load_facts(store, ids[:len(templates) * 2])
        reason_ms = []
        for pid, fs in facts.items():
            t = time.perf_counter()
            normative_text(reason_about(pid, fs, specs), lambda node, label: "X1", None)
            reason_ms.append((time.perf_counter() - t) * 1000)
        reason_ms.sort()
        r_median, r_p95 = statistics.median(reason_ms), reason_ms[int(len(reason_ms) * 0.95) - 1]
        log(f"reasoning latency: median {r_median:.1f} ms, p95 {r_p95:.1f} ms per patient")
        t = time.perf_counter()
        counts = assess_patients(store, ids, guidelines=specs)
        r_e2e = time.perf_counter() - t
        log(f"reasoning end to end (read, reason, write snapshot and assessments): {counts} in {r_e2e:.1f} s")
        cleanup(store)
    emit({"median_ms_per_patient": round(median, 1), "p95_ms_per_patient": round(p95, 1),
          "events_per_patient": round(statistics.mean(n_events)), "guidelines": len(guidelines),
          "seconds_for_1000_patients": round(e2e * 1000 / args.patients, 1), "patients": args.patients,
          "aligned": summary.aligned, "status": summary.status,
          "reason_median_ms_per_patient": round(r_median, 2), "reason_p95_ms_per_patient": round(r_p95, 2),
          "reason_seconds_for_1000_patients": round(r_e2e * 1000 / args.patients, 1)})


if __name__ == "__main__":
    main()
