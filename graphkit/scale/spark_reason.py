"""`graphkit spark assess --all`: patient state, eligibility and normative conformance on Spark, the
patients partitioned across the executors; each worker reads the guideline specs once and writes its
patients' state snapshots and care assessments."""

from __future__ import annotations

from graphkit.settings import ConnectionSettings
from graphkit.store import GraphStore

_GUIDELINES = None


def _assess_partition(ids, settings: ConnectionSettings, chunk: int = 100):
    global _GUIDELINES
    from graphkit.reason.job import assess_patients, load_guideline_specs

    ids = list(ids)
    if not ids:
        yield {"patients": 0, "with_guideline": 0, "without_guideline": 0}
        return
    with GraphStore(settings) as store:
        if _GUIDELINES is None:
            _GUIDELINES = load_guideline_specs(store)
        yield assess_patients(store, ids, chunk=chunk, guidelines=_GUIDELINES)


def spark_assess(store: GraphStore, master: str = "local[*]", spark=None) -> dict:
    from graphkit.scale.spark_ingest import spark_session

    ids = [r["id"] for r in store.read("align.patients_all")]
    spark = spark or spark_session(master)
    sc = spark.sparkContext
    settings = store.settings
    parts = sc.parallelize(ids, max(2 * sc.defaultParallelism, 1)).mapPartitions(
        lambda it: _assess_partition(it, settings)).collect()
    return {k: sum(p[k] for p in parts) for k in ("patients", "with_guideline", "without_guideline")}
