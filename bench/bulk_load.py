#!/usr/bin/env python3
"""Bulk import vs the batched Bolt writer, and the same graph through all three ingestion paths.

1. Corpus: ``--notes`` notes made by ``bench/make_scale_corpus.py`` (seeded; MIMIC-IV-Note layout).
2. A Neo4j server of its own (``--home``, installed once with a small heap, like the test server; the
   bench empties its database between the paths, so it never touches the test or demo server).
3. ``graphkit bulk-load``: pipeline → CSVs → ``neo4j-admin database import full`` (timed alone: the
   import elements/s) → schema → relink; the graph's fingerprint (counts per label and relationship
   type, property checksum, with the concepts reached and their IS_A edges).
4. The database emptied, ``graphkit ingest`` (the single-process job, batched Bolt writer): its write
   stage timed alone (Bolt elements/s on the same elements), fingerprint.
5. Unless ``--skip-spark``: emptied again, ``graphkit spark ingest`` on local[2], fingerprint.

Elements = nodes + relationships the import loads (the trajectory chains, built by the same Cypher after
either path, are not counted on either side). Both rates exclude the NLP, which is the same code.
JSON keys: import_elements_per_s, bolt_elements_per_s, ratio, identical (bulk = single [= spark]).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench._common import emit, log  # noqa: E402
from bench.make_scale_corpus import write_corpus  # noqa: E402

PREFIX = "mimic-1"


def empty_database(server) -> None:
    from graphkit.scale.bulk import drop_store

    server.stop()
    drop_store(server)
    server.start()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--notes", type=int, default=20000)
    ap.add_argument("--home", type=Path, default=Path(tempfile.gettempdir()) / "graphkit-bench-bulk")
    ap.add_argument("--skip-spark", action="store_true")
    ap.add_argument("--skip-bolt", action="store_true", help="the import alone (no Bolt, no Spark, no comparison)")
    args = ap.parse_args()
    from graphkit.neo4j.server import InstallOptions, LocalNeo4j
    from graphkit.scale.bulk import bulk_load
    from graphkit.scale.compare import fingerprint
    from graphkit.store import GraphStore
    from ingest.job import ingest_paths
    from ingest.nlp import build_pipeline

    server = LocalNeo4j(args.home)
    server.install(InstallOptions(bolt_port=17887, http_port=17874, heap="1g", pagecache="512m"))
    env_uri = os.environ.pop("NEO4J_URI", None)  # the bench's own server, never a configured one
    nlp = build_pipeline()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        corpus = write_corpus(tmp / "corpus", args.notes)
        log(f"corpus: {args.notes} notes in {corpus}")
        empty_database(server)
        report = bulk_load(server, [corpus], tmp / "bulk", quarantine_path=tmp / "q-bulk.jsonl", nlp=nlp)
        log(f"bulk-load: {report.notes} notes, {report.elements} elements; seconds "
            f"{ {k: round(v, 1) for k, v in report.seconds.items()} }")
        with GraphStore.connect(str(args.home)) as store:
            fp_bulk = fingerprint(store, PREFIX)
        if args.skip_bolt:
            server.stop()
            emit({"notes": args.notes, "elements": report.elements,
                  "import_elements_per_s": round(report.elements / report.seconds["import"]),
                  "seconds": {k: round(v, 2) for k, v in report.seconds.items()}, "cores": os.cpu_count()})
            return
        empty_database(server)
        with GraphStore.connect(str(args.home)) as store:
            store.apply_schema()
            single = ingest_paths(store, [corpus], quarantine_path=tmp / "q-single.jsonl", nlp=nlp)
            fp_single = fingerprint(store, PREFIX)
        bolt_s = single.stage_seconds["write"]
        log(f"single process: {single.notes_written} notes; stage seconds "
            f"{ {k: round(v, 1) for k, v in single.stage_seconds.items()} }")
        fp_spark = None
        if not args.skip_spark:
            from graphkit.scale.spark_ingest import spark_ingest

            empty_database(server)
            with GraphStore.connect(str(args.home)) as store:
                store.apply_schema()
                sp = spark_ingest(store, [corpus], master="local[2]", quarantine_path=tmp / "q-spark.jsonl")
                fp_spark = fingerprint(store, PREFIX)
            log(f"spark local[2]: {sp.notes_written} notes; seconds { {k: round(v, 1) for k, v in sp.seconds.items()} }")
    server.stop()
    if env_uri:
        os.environ["NEO4J_URI"] = env_uri
    paths = {"bulk": fp_bulk, "single": fp_single, **({"spark": fp_spark} if fp_spark else {})}
    identical = len({repr(fp) for fp in paths.values()}) == 1
    log(f"identical graphs: {identical}; checksums { {k: v['checksum'] for k, v in paths.items()} }")
    if not identical:
        for k in ("nodes", "relationships"):
            keys = set().union(*(fp[k] for fp in paths.values()))
            diff = {x: {p: fp[k].get(x) for p, fp in paths.items()} for x in sorted(keys)
                    if len({fp[k].get(x) for fp in paths.values()}) > 1}
            log(f"  {k} differing: {diff}")
    imp = report.elements / report.seconds["import"]
    bolt = report.elements / bolt_s
    emit({"notes": args.notes, "elements": report.elements,
          "import_elements_per_s": round(imp), "bolt_elements_per_s": round(bolt), "ratio": round(imp / bolt, 2),
          "import_seconds": round(report.seconds["import"], 2), "bolt_write_seconds": round(bolt_s, 2),
          "identical": identical, "checksums": {k: v["checksum"] for k, v in paths.items()},
          "counts": {"nodes": fp_bulk["nodes"], "relationships": fp_bulk["relationships"]},
          "cores": os.cpu_count()})


if __name__ == "__main__":
    main()
