"""`graphkit guidelines ...`: validate, load, list and show the paths of guideline specs."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from graphkit.cli.common import console, err_console, open_store, print_json
from graphkit.errors import BadInputError
from graphkit.guidelines.paths import DEFAULT_PATH_LIMIT

app = typer.Typer(help="Clinical-guideline graphs: validate and load YAML specs, list their normative paths.",
                  no_args_is_help=True)

FILES = typer.Argument(..., help="Guideline spec files, e.g. guidelines/*.yaml")
LIMIT = typer.Option(DEFAULT_PATH_LIMIT, "--path-limit", help="Refuse a guideline with more paths than this.")
JSON = typer.Option(False, "--json", help="Print JSON.")


def _validate_all(files: list[Path], path_limit: int, as_json: bool):
    from graphkit.guidelines import validate_file

    results = [validate_file(f, path_limit) for f in files]
    if not as_json:
        for r in results:
            for p in r.problems:
                (err_console if p.severity == "error" else console).print(str(p), soft_wrap=True, markup=False)
            if r.ok:
                console.print(f"[green]ok[/] {r.file}: {r.spec.id} {r.spec.version}, {len(r.spec.steps)} steps")
    return results


@app.command()
def validate(files: list[Path] = FILES, path_limit: int = LIMIT, as_json: bool = JSON):
    """Check specs against the JSON Schema and the graph rules; print every problem as file:line.

    Exit code 2 when any file has an error (warnings are printed but pass).
    Example: graphkit guidelines validate guidelines/*.yaml
    """
    results = _validate_all(files, path_limit, as_json)
    if as_json:
        print_json([r.as_dict() for r in results])
    bad = [r for r in results if not r.ok]
    if bad:
        if not as_json:
            err_console.print(f"{len(bad)} of {len(results)} spec(s) invalid")
        raise typer.Exit(2)


@app.command()
def load(files: list[Path] = FILES, path_limit: int = LIMIT, as_json: bool = JSON):
    """Validate, then load each spec in one transaction (an invalid spec never partially loads).

    Reloading the same version is a no-op; a new `version` is loaded beside the old one.
    Example: graphkit guidelines load guidelines/*.yaml
    """
    from graphkit.guidelines import load_guideline

    results = _validate_all(files, path_limit, as_json)
    bad = [r for r in results if not r.ok]
    if bad:
        raise BadInputError(f"{len(bad)} spec(s) invalid, nothing loaded: {', '.join(r.file for r in bad)}",
                            fix="run `graphkit guidelines validate` and correct the lines it names")
    with open_store() as store:
        store.apply_schema()
        loaded = [load_guideline(store, r.spec, path_limit) for r in results]
    if as_json:
        print_json([x.as_dict() for x in loaded])
        return
    for x in loaded:
        console.print(f"{x.status:9s} {x.id} {x.version}: {x.steps} steps, {x.edges} edges, {x.paths} paths")


@app.command("list")
def list_(as_json: bool = JSON):
    """List the loaded guidelines and versions.

    Example: graphkit guidelines list
    """
    with open_store() as store:
        rows = store.read("guidelines.list_guidelines")
    if as_json:
        print_json(rows)
        return
    table = Table()
    for col in ("id", "version", "effective", "steps", "paths", "title"):
        table.add_column(col)
    for r in rows:
        table.add_row(r["id"], r["version"], r["effective_date"], str(r["steps"]), str(r["paths"]), r["title"])
    console.print(table)


@app.command()
def paths(
    guideline: str = typer.Argument(..., help="Guideline id, e.g. nsclc"),
    version: str = typer.Option(None, help="Version (default: the edition in force at --at, or the latest)."),
    at: str = typer.Option(None, help="Pick the edition in force on this date (YYYY-MM-DD)."),
    as_json: bool = JSON,
):
    """List a loaded guideline's entry-to-terminal paths with their conditions.

    Example: graphkit guidelines paths breast-early
    """
    with open_store() as store:
        if version is None:
            found = store.read("guidelines.guideline_in_force", id=guideline, at=at)
            if not found:
                raise BadInputError(f"guideline {guideline!r} is not loaded" + (f" (in force at {at})" if at else ""),
                                    fix="see `graphkit guidelines list`, or load it with `graphkit guidelines load`")
            version = found[0]["version"]
        rows = store.read("guidelines.guideline_paths", id=guideline, version=version)
    if not rows:
        raise BadInputError(f"guideline {guideline} version {version} is not loaded or has no paths")
    if as_json:
        print_json({"guideline": guideline, "version": version, "paths": rows})
        return
    console.print(f"[bold]{guideline} {version}[/]: {len(rows)} paths")
    for r in rows:
        cond = "" if r["conditions"] in (None, "{}") else f"  [dim]when {r['conditions']}[/]"
        console.print(f"{r['index'] + 1:3d}. " + " → ".join(r["steps"]) + cond, soft_wrap=True)


@app.command()
def coverage(as_json: bool = JSON, show: int = typer.Option(20, help="Rows of each kind to list.")):
    """How many distinct patient event codes find a coded guideline step (and which do not).

    Example: graphkit guidelines coverage
    """
    with open_store() as store:
        rows = store.read("guidelines.code_coverage")
    matched = [r for r in rows if r["steps"]]
    summary = {"codes": len(rows), "codes_with_step": len(matched),
               "events": sum(r["events"] for r in rows), "events_with_step": sum(r["events"] for r in matched)}
    if as_json:
        print_json({**summary, "codes_detail": rows})
        return
    console.print(f"{summary['codes_with_step']} of {summary['codes']} distinct event codes "
                  f"({summary['events_with_step']} of {summary['events']} events) find a coded guideline step")
    for title, subset in (("matched", matched[:show]), ("unmatched", [r for r in rows if not r["steps"]][:show])):
        table = Table(title=f"{title} (top {show} by events)")
        for col in ("code", "name", "events", "steps"):
            table.add_column(col)
        for r in subset:
            table.add_row(f"{r['system']}:{r['code']}", r["name"] or "", str(r["events"]), ", ".join(r["steps"][:3]))
        console.print(table)
