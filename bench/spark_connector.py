#!/usr/bin/env python3
"""Writing the graph from Spark: the Neo4j Connector for Apache Spark vs graphkit's batched writer per
partition, on the same rows, both on local[2] into an emptied database of the bench's own server.

1. Corpus: ``--notes`` notes of ``bench/make_scale_corpus.py``; the pipeline runs once and its rows are
   written as the node/relationship CSV set of ``graphkit bulk-load`` (the same rows both writers get).
2. Connector: each node file becomes a DataFrame written with ``labels`` + ``node.keys`` (MERGE on the
   id, the connector's batched UNWIND), then each relationship file with ``relationship`` +
   ``relationship.save.strategy=keys`` matching both ends by id; 2 partitions per DataFrame.
3. graphkit: ``spark_ingest`` on local[2], whose pass 2 runs graphkit's batched writer in each
   partition; its write-phase seconds (concepts + notes) on the same elements.

The connector jar is the one pinned in ``--connector-jar`` (Maven Central, Scala 2.12, for Spark 3; the
newest version this machine's Maven mirror serves is 5.0.3). Its CSV-typed columns stay strings (dates
too): the figure is a throughput comparison, not a second equal graph. JSON keys: connector_elements_per_s,
graphkit_elements_per_s, ratio, default.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench._common import emit, log  # noqa: E402
from bench.bulk_load import empty_database  # noqa: E402
from bench.make_scale_corpus import write_corpus  # noqa: E402

CONNECTOR = "org.neo4j:neo4j-connector-apache-spark_2.12:5.0.3_for_spark_3"
DEFAULT_JAR = Path.home() / ".m2/repository/org/neo4j/neo4j-connector-apache-spark_2.12/5.0.3_for_spark_3/" \
    "neo4j-connector-apache-spark_2.12-5.0.3_for_spark_3.jar"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--notes", type=int, default=2000)
    ap.add_argument("--home", type=Path, default=Path(tempfile.gettempdir()) / "graphkit-bench-bulk")
    ap.add_argument("--connector-jar", type=Path, default=DEFAULT_JAR,
                    help=f"{CONNECTOR} (mvn dependency:get -Dartifact={CONNECTOR} -Dtransitive=false)")
    args = ap.parse_args()
    if not args.connector_jar.is_file():
        sys.exit(f"error: {args.connector_jar} not found (fix: mvn dependency:get -Dartifact={CONNECTOR} "
                 "-Dtransitive=false)")
    from pyspark.sql import SparkSession

    from graphkit.neo4j.server import InstallOptions, LocalNeo4j
    from graphkit.scale.bulk import NODES, RELS, write_csvs
    from graphkit.scale.spark_ingest import spark_ingest
    from graphkit.settings import connection_settings
    from graphkit.store import GraphStore

    server = LocalNeo4j(args.home)
    server.install(InstallOptions(bolt_port=17887, http_port=17874, heap="1g", pagecache="512m"))
    os.environ.pop("NEO4J_URI", None)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        corpus = write_corpus(tmp / "corpus", args.notes)
        files, _, notes, _ = write_csvs([corpus], tmp / "csv", tmp / "q.jsonl")
        elements = sum(files.counts.values())
        log(f"{notes} notes → {elements} elements in CSV")
        empty_database(server)
        with GraphStore.connect(str(args.home)) as store:
            store.apply_schema()  # the same uniqueness constraints (indexes the MERGEs use)
        cs = connection_settings(str(args.home))
        spark = (SparkSession.builder.master("local[2]").appName("graphkit-connector-bench")
                 .config("spark.jars", str(args.connector_jar)).config("spark.ui.enabled", "false")
                 .config("spark.driver.memory", "2g").getOrCreate())
        opts = {"url": cs.uri, "authentication.basic.username": cs.user,
                "authentication.basic.password": cs.password, "batch.size": "5000",
                "transaction.retries": "20", "transaction.retry.timeout": "100"}
        t = time.perf_counter()
        for label, cols in list(NODES.items()) + [("Patient", [("id", "")])]:
            path = tmp / "csv" / f"{label}.csv"
            if not path.exists():
                continue
            df = spark.read.option("header", True).option("multiLine", True).option("escape", '"').csv(str(path))
            key = df.columns[0]
            df = df.toDF(*[c.split(":")[0] or "key" for c in df.columns]).repartition(2)
            (df.write.format("org.neo4j.spark.DataSource").mode("Overwrite").options(**opts)
             .option("labels", f":{label}").option("node.keys", key.split(":")[0] or "key").save())
        t_nodes = time.perf_counter() - t
        for name, (rel_type, a, b, _) in RELS.items():
            path = tmp / "csv" / f"{name}.csv"
            if not path.exists():
                continue
            df = spark.read.option("header", True).option("multiLine", True).option("escape", '"').csv(str(path))
            # sorted by end node within each partition: shared (Concept) nodes locked in one order, as
            # graphkit's writer does; without it the two partitions deadlock on dense concept nodes
            df = df.toDF(*(["src", "dst"] + [c.split(":")[0] for c in df.columns[2:]])).repartition(2) \
                .sortWithinPartitions("dst")
            akey, bkey = ("key" if a == "Concept" else "id"), ("key" if b == "Concept" else "id")
            (df.write.format("org.neo4j.spark.DataSource").mode("Overwrite").options(**opts)
             .option("relationship", rel_type).option("relationship.save.strategy", "keys")
             .option("relationship.source.labels", f":{a}").option("relationship.source.save.mode", "Match")
             .option("relationship.source.node.keys", f"src:{akey}")
             .option("relationship.target.labels", f":{b}").option("relationship.target.save.mode", "Match")
             .option("relationship.target.node.keys", f"dst:{bkey}").save())
        t_conn = time.perf_counter() - t
        spark.stop()
        log(f"connector: nodes {t_nodes:.1f} s, all {t_conn:.1f} s → {elements / t_conn:.0f} elements/s")
        empty_database(server)
        with GraphStore.connect(str(args.home)) as store:
            store.apply_schema()
            rep = spark_ingest(store, [corpus], master="local[2]", quarantine_path=tmp / "q2.jsonl")
        t_gk = rep.seconds["concepts"] + rep.seconds["write"]
        log(f"graphkit writer per partition: {t_gk:.1f} s → {elements / t_gk:.0f} elements/s")
    server.stop()
    conn, gk = elements / t_conn, elements / t_gk
    emit({"notes": args.notes, "elements": elements, "connector": CONNECTOR,
          "connector_elements_per_s": round(conn), "graphkit_elements_per_s": round(gk), "ratio": round(conn / gk, 2),
          "default": "graphkit" if gk >= conn else "connector", "cores": os.cpu_count()})


if __name__ == "__main__":
    main()
