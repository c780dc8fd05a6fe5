"""`graphkit ingest notes ...`: EHR exports → patient temporal knowledge graphs."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from graphkit.cli.common import console, err_console, open_store, print_json, state
from graphkit.errors import BadInputError

app = typer.Typer(help="Ingest EHR notes (MIMIC-IV-Note CSV, FHIR R4 Bundle/NDJSON, text folder + manifest).",
                  no_args_is_help=True)


@app.command()
def notes(
    paths: list[Path] = typer.Argument(..., help="Files or folders to ingest."),
    fmt: str = typer.Option(None, "--format", help="mimic | fhir | text (default: detected per path)."),
    quarantine: Path = typer.Option(None, help="Where rejected records go (mode 0600; default "
                                                 "GRAPHKIT_HOME/quarantine/ingest.jsonl)."),
    batch_notes: int = typer.Option(32, help="Notes per transaction."),
    workers: int = typer.Option(None, min=0, help="NLP worker processes beside the reader/writer (default: one per "
                                                  "core, at most 4; 0 = NLP in the main process)."),
    max_note_bytes: int = typer.Option(1_000_000, help="Reject notes larger than this."),
    extra_ner: str = typer.Option(None, "--extra-ner", envvar="GRAPHKIT_EXTRA_NER",
                                  help="An installed spaCy NER pipeline to add (e.g. a scispaCy model); "
                                       "its entities join the rule-based ones where they do not overlap."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
):
    """Read notes, find clinical events with their assertion, codes and times, and write each
    patient's temporal graph. Safe to re-run: unchanged notes are skipped, changed notes replace
    their own events, an interrupted run resumes. Exit code 2 when records were quarantined.

    Example: graphkit ingest notes ingest/demo/cohort
    Example: graphkit ingest notes discharge.csv radiology.csv --format mimic
    """
    from ingest.job import ingest_paths
    from ingest.nlp import NlpConfig, build_pipeline

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err_console, transient=not as_json, disable=as_json) as bar:
        setup = bar.add_task("loading terminology rules", total=1)
        try:
            nlp = build_pipeline(NlpConfig(extra_ner=extra_ner))
        except OSError as exc:
            raise BadInputError(f"--extra-ner {extra_ner!r} is not an installed spaCy pipeline",
                                fix="pip install the model's package first (graphkit never downloads models)") from exc
        bar.advance(setup)
        tasks = {"notes": bar.add_task("notes → events", total=None),
                 "quarantined": bar.add_task("quarantined", total=None),
                 "facts": bar.add_task("structured facts", total=None)}
        from ingest.quarantine import default_path

        with open_store() as store:
            store.apply_schema()
            report = ingest_paths(store, paths, fmt=fmt, quarantine_path=quarantine or default_path(state.home), batch_notes=batch_notes,
                                  max_note_bytes=max_note_bytes, nlp=nlp, workers=workers,
                                  progress=lambda stage, n: bar.advance(tasks[stage], n))
    if as_json:
        print_json(report.as_dict())
    else:
        table = Table(title="Ingestion summary")
        table.add_column("")
        table.add_column("count", justify="right")
        for key in ("patients", "encounters", "notes_read", "notes_written", "notes_replaced", "notes_unchanged",
                    "duplicates", "events_from_notes", "facts", "quarantined"):
            table.add_row(key.replace("_", " "), str(getattr(report, key)))
        console.print(table)
        console.print("stage seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in report.stage_seconds.items()))
        if report.flags:
            console.print(f"flagged (kept as text, not coded as something else) in {report.flagged_notes} note(s): "
                          + ", ".join(f"{k} ×{v}" for k, v in sorted(report.flags.items()))
                          + "  — see the `flags` property of Event and Note nodes")
    if report.quarantined:
        err_console.print(f"[yellow]{report.quarantined} record(s) quarantined[/] in {report.quarantine_file}: "
                          + ", ".join(f"{k} ×{v}" for k, v in report.quarantine_reasons.items()))
        raise typer.Exit(2)
