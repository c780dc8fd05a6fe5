"""`graphkit spark ingest|assess` and `graphkit bulk-load`: scale-out on Apache Spark and backfills
through Neo4j's offline importer."""

from __future__ import annotations

from pathlib import Path

import typer

from graphkit.cli.common import console, open_store, print_json, state

app = typer.Typer(help="Run the pipeline on Apache Spark (local mode, a standalone cluster, YARN).",
                  no_args_is_help=True)


@app.command("ingest")
def spark_ingest_cmd(
    paths: list[Path] = typer.Argument(..., help="Files or folders (MIMIC-IV-Note CSV/CSV.gz, FHIR, text+manifest)."),
    master: str = typer.Option("local[*]", help="local[N] | spark://HOST:7077 | yarn"),
    partitions: int = typer.Option(None, help="Note partitions (default: 2 × the cluster's cores)."),
    quarantine: Path = typer.Option(None, help="Where bad records go (default: under the graphkit home)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
):
    """Ingest notes with Spark: the same readers → text → NLP → link → tkg code, the NLP per partition
    (one pipeline per executor worker), concepts written first by the driver, then each partition's
    notes by graphkit's batched writer. Idempotent and resumable like `graphkit ingest`; bad records
    from every executor land in one quarantine file.

    Example: graphkit spark ingest /data/mimic-iv-note/discharge.csv.gz --master local[2]
    """
    from graphkit.scale.spark_ingest import spark_ingest
    from ingest.quarantine import default_path

    for p in paths:
        if not p.exists():
            from graphkit.errors import BadInputError

            raise BadInputError(f"{p} does not exist", fix="check the path")
    with open_store() as store:
        store.apply_schema()
        report = spark_ingest(store, list(paths), master=master, partitions=partitions,
                              quarantine_path=quarantine or default_path(state.home))
    if as_json:
        print_json(report.as_dict())
        return
    console.print(f"{report.notes_read} notes read, {report.notes_written} written, {report.notes_unchanged} unchanged, "
                  f"{report.notes_failed} failed; {report.patients} patients on {report.master} in "
                  f"{report.partitions} partitions; seconds {({k: round(v, 1) for k, v in report.seconds.items()})}")
    if report.quarantined:
        console.print(f"[yellow]{report.quarantined} record(s) quarantined[/] in {report.quarantine_file}")
        raise typer.Exit(2)


@app.command("align")
def spark_align_cmd(
    all_patients: bool = typer.Option(False, "--all", help="Every patient in the graph."),
    master: str = typer.Option("local[*]", help="local[N] | spark://HOST:7077 | yarn"),
    guideline: list[str] = typer.Option(None, "--guideline", "-g", help="Only these guideline ids."),
    at: str = typer.Option(None, help="Guideline editions in force at this date (YYYY-MM-DD)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
):
    """Align every patient's trajectory to the guideline paths on Spark, as one AlignmentRun: patients
    sharded across the executors, the embedding model loaded once per executor worker. An interrupted
    run is completed with `graphkit align --resume RUN`.

    Example: graphkit spark align --all --master local[2]
    """
    from graphkit.errors import BadInputError
    from graphkit.scale.spark_patients import spark_align

    if not all_patients:
        raise BadInputError("name --all", fix="graphkit spark align --all")
    with open_store() as store:
        out = spark_align(store, master=master, guidelines=guideline or None, at=at)
    if as_json:
        print_json(out)
        return
    console.print(f"run {out['run']} {out['status']}: {out['aligned']} aligned, {out['skipped']} skipped, "
                  f"{out['failed']} failed of {out['patients']} patients in {out['shards']} shards")
    if out["failed"]:
        raise typer.Exit(2)


@app.command("assess")
def spark_assess_cmd(
    all_patients: bool = typer.Option(False, "--all", help="Every patient in the graph."),
    master: str = typer.Option("local[*]", help="local[N] | spark://HOST:7077 | yarn"),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
):
    """State, eligibility and normative conformance for every patient, patients partitioned across
    the executors (guideline specs read once per worker), each writing its patients' snapshots and
    care assessments.

    Example: graphkit spark assess --all --master local[2]
    """
    from graphkit.errors import BadInputError
    from graphkit.scale.spark_patients import spark_assess

    if not all_patients:
        raise BadInputError("name --all", fix="graphkit spark assess --all")
    with open_store() as store:
        counts = spark_assess(store, master=master)
    print_json(counts) if as_json else console.print(counts)


def bulk_load_cmd(
    paths: list[Path] = typer.Argument(..., help="Files or folders to load."),
    database: str = typer.Option("neo4j", help="The database (Community Edition has one: neo4j)."),
    work: Path = typer.Option(None, help="Folder for the CSV files (default: a folder in the graphkit home)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
):
    """Backfill an EMPTY database with Neo4j's offline importer: the pipeline writes node and
    relationship CSVs, the local server stops, `neo4j-admin database import full` loads them, the
    server starts, the schema is created and the trajectories linked. The same graph as `graphkit
    ingest` on the same input; a database that already holds data is refused.

    Example: graphkit --home /data/backfill bulk-load /data/mimic-iv-note/discharge.csv.gz
    """
    from graphkit.neo4j.server import LocalNeo4j
    from graphkit.scale.bulk import bulk_load
    from graphkit.settings import graphkit_home

    server = LocalNeo4j(state.home)
    folder = work or graphkit_home(state.home) / "bulk-import"
    report = bulk_load(server, list(paths), folder, database=database)
    out = {**report.__dict__, "import_elements_per_s": round(report.import_elements_per_s)}
    if as_json:
        print_json(out)
        return
    console.print(f"{report.notes} notes, {report.patients} patients: {report.elements} nodes and relationships "
                  f"imported at {out['import_elements_per_s']}/s; seconds "
                  f"{({k: round(v, 1) for k, v in report.seconds.items()})}")
