"""Per-patient jobs on Spark: `graphkit spark align --all` (one AlignmentRun filled by every executor) and
`graphkit spark assess --all` (state, eligibility, normative conformance). Patients are partitioned
across the executors; each Python worker loads the embedding model and reads the guideline specs once
(module-level caches) and writes its own patients' results, so the driver only coordinates."""

from __future__ import annotations

from graphkit.settings import ConnectionSettings
from graphkit.store import GraphStore

_GUIDELINES = None  # per worker: guideline specs with their enumerated paths
_EMBEDDER = None  # per worker: the sentence embedder (model loaded once)


def _worker_embedder():
    global _EMBEDDER
    if _EMBEDDER is None:
        from graphkit.align.embed import TextEmbedder

        _EMBEDDER = TextEmbedder()
    return _EMBEDDER


def _align_shards(shards, settings: ConnectionSettings, run_id: str, n: int):
    """Executor side: fill run ``run_id`` with the patients of each shard i of n (see shard_of)."""
    from graphkit.align.job import run_alignment

    with GraphStore(settings) as store:
        for i in shards:
            s = run_alignment(store, run_id=run_id, shard=(i, n), embedder=_worker_embedder())
            yield {"aligned": s.aligned, "failed": s.failed, "skipped": sum(s.skipped.values()),
                   "ms": s.ms_per_patient}


def spark_align(store: GraphStore, *, master: str = "local[*]", guidelines: list[str] | None = None,
                at: str | None = None, params=None, spark=None) -> dict:
    """Align every patient on Spark as ONE AlignmentRun: the driver creates the run, each of 2 × cores
    shards (stable hash of the patient id) is aligned by an executor, the driver closes the run with
    counts read from the graph. A failed run is resumed with `graphkit align --resume RUN`."""
    from graphkit.align.embed import model_name
    from graphkit.align.job import create_run, load_guidelines
    from graphkit.align.model import AlignParams
    from graphkit.errors import BadInputError
    from graphkit.scale.spark_ingest import spark_session

    gls = load_guidelines(store, at=at, only=guidelines)
    if not gls:
        raise BadInputError("no guideline is loaded", fix="graphkit guidelines load guidelines/")
    total = len(store.read("align.patients_all"))
    run_id = create_run(store, params=params or AlignParams(), guidelines=guidelines, at=at, patients=None,
                        editions=gls, model=model_name(), total=total)
    spark = spark or spark_session(master)
    sc = spark.sparkContext
    n = max(2 * sc.defaultParallelism, 1)
    settings = store.settings
    parts = sc.parallelize(range(n), n).mapPartitions(lambda it: _align_shards(list(it), settings, run_id, n)).collect()
    status = store.write("align.finish_run", id=run_id, interrupted=False)
    ms = sorted(m for p in parts for m in p["ms"])
    return {"run": run_id, "status": status[0]["status"] if status else "partial", "patients": total,
            "aligned": sum(p["aligned"] for p in parts), "skipped": sum(p["skipped"] for p in parts),
            "failed": sum(p["failed"] for p in parts), "shards": n,
            "median_ms_per_patient": round(ms[len(ms) // 2], 1) if ms else None}


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
    """State, eligibility and normative conformance of every patient, patients partitioned across the
    executors, each writing its patients' (:PatientState) snapshots and (:CareAssessment)s."""
    from graphkit.scale.spark_ingest import spark_session

    ids = [r["id"] for r in store.read("align.patients_all")]
    spark = spark or spark_session(master)
    sc = spark.sparkContext
    settings = store.settings
    parts = sc.parallelize(ids, max(2 * sc.defaultParallelism, 1)).mapPartitions(
        lambda it: _assess_partition(it, settings)).collect()
    return {k: sum(p[k] for p in parts) for k in ("patients", "with_guideline", "without_guideline")}
