"""The `graphkit` command line: one Typer app, one-line errors, exit codes.

Exit codes: 0 ok · 1 other failure · 2 bad input · 3 database unreachable. Tracebacks only with --debug.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import typer
from rich.table import Table

from graphkit import __version__
from graphkit.cli import (align_cmd, browser_cmd, documents_cmd, eval_cmd, guidelines_cmd, ingest_cmd, neo4j_cmd,
                          recommend_cmd, scale_cmd, state_cmd)
from graphkit.cli.common import console, err_console, open_store, print_json, state
from graphkit.errors import DatabaseUnavailableError, GraphkitError
from graphkit.logs import configure as configure_logging

app = typer.Typer(
    help="graphkit: patient temporal knowledge graphs, guideline graphs and their alignment in Neo4j.\n\n"
         "Quick start: `graphkit demo` installs and starts a local Neo4j, loads a sample patient and "
         "prints the Neo4j Browser URL and login. Set NEO4J_URI/NEO4J_USER/NEO4J_PASSWORD to use "
         "another server instead.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
app.add_typer(neo4j_cmd.app, name="neo4j")
app.add_typer(guidelines_cmd.app, name="guidelines")
app.add_typer(ingest_cmd.app, name="ingest")
app.add_typer(browser_cmd.app, name="browser")
app.add_typer(eval_cmd.app, name="eval")
app.command("align")(align_cmd.align)
app.command("conformance")(align_cmd.conformance)
app.command("recommend")(recommend_cmd.recommend)
app.command("state")(state_cmd.show_state)
app.command("assess")(state_cmd.assess)
app.command("search")(documents_cmd.search_cmd)
app.command("index")(documents_cmd.index_cmd)
app.command("soap")(documents_cmd.soap_cmd)
app.command("summary")(documents_cmd.summary_cmd)
app.add_typer(scale_cmd.app, name="spark")
app.command("bulk-load")(scale_cmd.bulk_load_cmd)
db_app = typer.Typer(help="Schema and contents of the graph database.", no_args_is_help=True)
app.add_typer(db_app, name="db")
delete_app = typer.Typer(help="Remove data from the graph.", no_args_is_help=True)
app.add_typer(delete_app, name="delete")


def _version(value: bool):
    if value:
        console.print(f"graphkit {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks and debug logs."),
    home: str = typer.Option(None, "--home", envvar="GRAPHKIT_HOME",
                             help="Folder for the local Neo4j and its credentials (default ~/.graphkit)."),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version."),
):
    state.debug, state.home = debug, home
    configure_logging(debug)  # never note text or query parameters, at any level
    if not debug:  # the driver logs every retry; our errors say what matters in one line
        logging.getLogger("neo4j").setLevel(logging.CRITICAL)


@db_app.command("schema")
def db_schema(as_json: bool = typer.Option(False, "--json", help="Print JSON.")):
    """Apply the schema migrations from cypher/schema.cypher (idempotent).

    Example: graphkit db schema
    """
    with open_store() as store:
        applied = store.apply_schema()
        version = store.schema_version()
    if as_json:
        print_json({"applied": applied, "version": version})
    else:
        console.print(f"schema at version {version}" + (f" (applied {applied})" if applied else " (up to date)"))


@db_app.command("counts")
def db_counts(as_json: bool = typer.Option(False, "--json", help="Print JSON.")):
    """Count nodes per label and relationships per type.

    Example: graphkit db counts --json
    """
    with open_store() as store:
        counts = store.counts()
    if as_json:
        print_json(counts)
        return
    for title, data in (("label", counts["nodes"]), ("relationship", counts["relationships"])):
        table = Table(title=None)
        table.add_column(title)
        table.add_column("count", justify="right")
        for key, n in data.items():
            table.add_row(key, str(n))
        console.print(table)


@app.command()
def timeline(patient: str, as_json: bool = typer.Option(False, "--json", help="Print JSON.")):
    """Print a patient's trajectory: events in time order with assertion and codes.

    Example: graphkit timeline demo-p001
    """
    with open_store() as store:
        store.require_patients([patient])
        rows = store.read("tkg.patient_timeline", patient=patient)
    if as_json:
        print_json(rows)
        return
    table = Table(title=f"Trajectory of {patient}")
    for col in ("valid time", "kind", "mention", "assertion", "codes", "event"):
        table.add_column(col)
    for r in rows:
        table.add_row(r["valid_time"][:16], r["kind"], r["text"], r["assertion"], ", ".join(r["codes"]), r["id"])
    console.print(table)


@delete_app.command("patient")
def delete_patient(
    patient: str,
    purge_quarantine: bool = typer.Option(False, "--purge-quarantine",
                                          help="Also remove the patient's lines from the quarantine files in "
                                               "graphkit's home (and from every --quarantine FILE)."),
    quarantine: list[Path] = typer.Option(None, "--quarantine", help="Another quarantine file to purge."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
):
    """Erase a patient: every node derived from them (encounters, notes, sections, sentences, events,
    alignments, conformance items, recommendations, states, chunks) in one transaction, their cached
    embeddings, and with --purge-quarantine their quarantine lines. Shared concepts and guidelines stay.

    Example: graphkit delete patient mimic-10000032 --purge-quarantine
    """
    from graphkit.align.embed import TextEmbedder
    from graphkit.erase import erase_patient
    from ingest.quarantine import quarantine_files

    files = None
    if purge_quarantine or quarantine:
        files = (quarantine_files(state.home) if purge_quarantine else []) + list(quarantine or [])
    with open_store() as store:
        report = erase_patient(store, patient, files, embedder=TextEmbedder())
    if as_json:
        print_json(report.as_dict())
        return
    labels = ", ".join(f"{k} {v}" for k, v in report.nodes.items())
    console.print(f"erased patient {patient}: {report.total_nodes} nodes ({labels})")
    if report.runs_scrubbed:
        console.print(f"  removed the id from {report.runs_scrubbed} alignment run scope(s)")
    if files is not None:
        console.print(f"  quarantine lines removed: {sum(report.quarantine_lines.values())} "
                      f"(from {len(report.quarantine_lines)} file(s))")
    if report.cached_embeddings:
        console.print(f"  cached embeddings dropped: {report.cached_embeddings}")


@app.command()
def demo(
    cohort: Path = typer.Option(None, help="Notes to ingest (default: the bundled synthetic oncology cohort)."),
):
    """Set everything up and run the main job: local Neo4j, schema, the three guidelines, the demo
    cohort ingested into patient temporal graphs and aligned to the guideline paths; print the
    Neo4j Browser URL and login.

    Uses NEO4J_URI instead of the local server when it is set.
    Example: graphkit demo
    """
    from graphkit.guidelines import load_guideline, validate_file
    from graphkit.settings import graphkit_home, read_credentials
    from ingest.job import ingest_paths

    if not os.environ.get("NEO4J_URI"):
        if not neo4j_cmd._server().is_installed():
            neo4j_cmd.install(bolt_port=7687, http_port=7474, heap="1g", pagecache="512m")
        neo4j_cmd.start(timeout=90)
    data = _data_dir()
    cohort = cohort or data / "ingest" / "demo" / "cohort"
    with open_store() as store:
        store.apply_schema()
        for spec_file in sorted((data / "guidelines").glob("*.yaml")):
            result = validate_file(spec_file)
            if not result.ok:
                raise GraphkitError(f"bundled guideline {spec_file.name} is invalid: {result.errors[0]}")
            loaded = load_guideline(store, result.spec)
            console.print(f"guideline {loaded.id} {loaded.version}: {loaded.status} ({loaded.paths} paths)")
        with console.status("ingesting the demo cohort (notes → events, assertion, codes)..."):
            from ingest.quarantine import default_path

            report = ingest_paths(store, [cohort], quarantine_path=default_path(state.home))
        with console.status("aligning patients to the guideline paths..."):
            from graphkit.align import run_alignment

            aligned = run_alignment(store)
        first = store.read("ingest.first_patient")
        settings = store.settings
    console.print(f"demo cohort: {report.patients} patients, {report.notes_read} notes "
                  f"({report.notes_written} new, {report.notes_replaced} re-read, {report.notes_unchanged} unchanged), "
                  f"{report.events_from_notes} events from notes, {report.facts} structured facts")
    console.print(f"alignment run {aligned.run}: {aligned.aligned} patients aligned "
                  f"({aligned.status}, {aligned.seconds:.1f} s)")
    creds = read_credentials(graphkit_home(state.home)) if not os.environ.get("NEO4J_URI") else None
    if creds:
        console.print(f"\nNeo4j Browser: [bold]{creds['browser']}[/]\n  connect URL: {creds['uri']}\n"
                      f"  user: {creds['user']}\n  password: {creds['password']}")
    else:
        console.print(f"\nConnected to {settings.uri} as {settings.user}.")
    if first:
        console.print(f"Try: graphkit timeline {first[0]['id']}\n     graphkit conformance {first[0]['id']}")


def _data_dir() -> Path:
    """The source checkout (guidelines/, ingest/demo/) or the copy inside the wheel."""
    here = Path(__file__).resolve().parent.parent
    root = here.parent
    return root if (root / "guidelines").is_dir() else here / "_data"


def main() -> None:
    """Entry point: run the app, turning known failures into one line and an exit code."""
    try:
        app()
    except GraphkitError as exc:
        if state.debug:
            raise
        err_console.print(f"[red]error:[/] {exc.message}", soft_wrap=True)
        if exc.fix:
            err_console.print(f"[yellow]fix:[/] {exc.fix}", soft_wrap=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        err_console.print("interrupted")
        sys.exit(130)
    except Exception as exc:  # noqa: BLE001 - last line of defence, keeps tracebacks behind --debug
        if state.debug:
            raise
        from neo4j.exceptions import DriverError, Neo4jError

        code = DatabaseUnavailableError.exit_code if isinstance(exc, DriverError) else 1
        detail = getattr(exc, "message", None) if isinstance(exc, Neo4jError) else None
        err_console.print(f"[red]error:[/] {type(exc).__name__}: {detail or exc} (re-run with --debug for details)",
                          soft_wrap=True)
        sys.exit(code)


if __name__ == "__main__":
    main()
