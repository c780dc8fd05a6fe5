#!/usr/bin/env python3
"""Spark scale-out: NLP+link throughput on local[1] vs local[2], and Spark end to end vs the
single-process job, on the same notes of the scale corpus; the graphs they build are compared.

1. Corpus: ``--notes`` notes made by ``bench/make_scale_corpus.py`` (seeded; MIMIC-IV-Note layout).
2. NLP + link stage: the Spark pass 1 alone (text → NLP → link → tkg rows per partition, one pipeline
   per Python worker, built in a warm-up job first) on local[1] and on local[2]: notes/s, speedup.
3. End to end: the single-process ``graphkit ingest`` job on the notes, timed; the patients erased;
   ``graphkit spark ingest`` on local[2], timed; the two graphs' fingerprints (counts per label and
   relationship type, property checksum) compared; erased again.
4. Peak resident memory of each Spark Python worker (sampled from /proc) and of the JVM.

Needs a Neo4j (the test server or NEO4J_URI) and PySpark. JSON keys: notes_per_s, speedup_2_vs_1,
vs_single_process, identical_graphs, peak_worker_rss_gb.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench._common import emit, log  # noqa: E402
from bench.make_scale_corpus import write_corpus  # noqa: E402

PREFIX = "mimic-1"  # the corpus' patients: mimic-10000001, ...


class RssSampler(threading.Thread):
    """Peak RSS of Spark's Python workers and of Java, sampled from /proc every 0.5 s."""

    def __init__(self):
        super().__init__(daemon=True)
        self.peak_worker = 0
        self.peak_java = 0
        self.stop = False

    def run(self):
        while not self.stop:
            for pid in os.listdir("/proc"):
                if not pid.isdigit():
                    continue
                try:
                    cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
                    rss = next(int(line.split()[1]) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                               if line.startswith("VmRSS")) * 1024
                except (OSError, StopIteration, ValueError):
                    continue
                if b"pyspark" in cmd and b"daemon" in cmd or b"pyspark.worker" in cmd:
                    self.peak_worker = max(self.peak_worker, rss)
                elif b"java" in cmd and b"spark" in cmd:
                    self.peak_java = max(self.peak_java, rss)
            time.sleep(0.5)


def erase_all(store) -> None:
    store.run_autocommit("bench.delete_note_text_with_prefix", prefix=PREFIX)
    store.run_autocommit("bench.delete_patient_graphs_with_prefix", prefix=PREFIX)


def nlp_throughput(corpus: Path, master: str) -> tuple[float, int]:
    """(notes/s, notes) of the Spark NLP pass alone, after a warm-up job builds each worker's pipeline."""
    from graphkit.scale.spark_ingest import nlp_partition, spark_session
    from ingest.readers import read_paths
    from ingest.model import Encounter, Note
    from graphkit.scale.spark_ingest import _note_row

    notes, starts = [], {}
    for rec in read_paths([corpus]):
        if isinstance(rec, Note):
            notes.append(_note_row(rec))
        elif isinstance(rec, Encounter):
            starts[rec.id] = rec.start.isoformat()
    spark = spark_session(master)
    sc = spark.sparkContext
    n_part = max(2 * sc.defaultParallelism, 2)
    warm = sc.parallelize(notes[:n_part * 2], n_part)
    warm.mapPartitions(lambda rows: nlp_partition(rows, starts)).count()
    rdd = sc.parallelize(notes, n_part * 4)
    t = time.perf_counter()
    done = rdd.mapPartitions(lambda rows: nlp_partition(rows, starts)).count()
    secs = time.perf_counter() - t
    spark.stop()
    return done / secs, done


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--notes", type=int, default=4000)
    args = ap.parse_args()
    from graphkit.scale.compare import fingerprint
    from graphkit.scale.spark_ingest import spark_ingest, spark_session
    from graphkit.store import GraphStore
    from ingest.job import ingest_paths

    with tempfile.TemporaryDirectory() as tmp:
        corpus = write_corpus(Path(tmp), args.notes)
        log(f"corpus: {args.notes} notes in {corpus}")
        sampler = RssSampler()
        sampler.start()
        one, n = nlp_throughput(corpus, "local[1]")
        log(f"NLP+link on local[1]: {one:.1f} notes/s ({n} notes)")
        two, _ = nlp_throughput(corpus, "local[2]")
        log(f"NLP+link on local[2]: {two:.1f} notes/s; speedup {two / one:.2f}x")

        with GraphStore.connect() as store:
            store.apply_schema()
            erase_all(store)
            t = time.perf_counter()
            single = ingest_paths(store, [corpus], quarantine_path=Path(tmp) / "q1.jsonl")
            t_single = time.perf_counter() - t
            log(f"single process: {single.notes_written} notes in {t_single:.1f} s ({single.notes_written / t_single:.1f} notes/s)")
            fp_single = fingerprint(store, PREFIX)
            erase_all(store)
            spark = spark_session("local[2]")
            t = time.perf_counter()
            sp = spark_ingest(store, [corpus], master="local[2]", quarantine_path=Path(tmp) / "q2.jsonl", spark=spark)
            t_spark = time.perf_counter() - t
            spark.stop()
            log(f"spark local[2]: {sp.notes_written} notes in {t_spark:.1f} s ({sp.seconds})")
            fp_spark = fingerprint(store, PREFIX)
            erase_all(store)
        sampler.stop = True
        same = fp_single == fp_spark
        log(f"graphs identical: {same}; single {fp_single['checksum']} spark {fp_spark['checksum']}")
        if not same:
            for k in ("nodes", "relationships"):
                diff = {x: (fp_single[k].get(x), fp_spark[k].get(x)) for x in set(fp_single[k]) | set(fp_spark[k])
                        if fp_single[k].get(x) != fp_spark[k].get(x)}
                log(f"  {k} differing: {diff}")
    emit({"notes": args.notes, "notes_per_s": {"local[1]": round(one, 1), "local[2]": round(two, 1)},
          "speedup_2_vs_1": round(two / one, 2),
          "single_process_notes_per_s": round(single.notes_written / t_single, 1),
          "spark_end_to_end_notes_per_s": round(sp.notes_written / t_spark, 1),
          "vs_single_process": round(t_single / t_spark, 2), "identical_graphs": same,
          "fingerprint": fp_spark, "peak_worker_rss_gb": round(sampler.peak_worker / 2**30, 2),
          "peak_jvm_rss_gb": round(sampler.peak_java / 2**30, 2), "cores": os.cpu_count(),
          "writer": "graphkit batched writer per partition (vs the Neo4j Connector: bench/spark_connector.py)"})


if __name__ == "__main__":
    main()
