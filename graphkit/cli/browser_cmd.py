"""`graphkit browser ...`: the saved-query pack and the style for Neo4j Browser."""

from __future__ import annotations

import json
import re
from pathlib import Path

import typer

from graphkit import cypher
from graphkit.cli.common import print_json
from graphkit.errors import BadInputError

app = typer.Typer(help="Neo4j Browser helpers: saved queries, style, and how to open it.", no_args_is_help=True)

def saved_queries() -> list[dict]:
    """Every saved Browser query: file, name, what it shows, the :param lines it needs, the Cypher."""
    out = []
    for path in sorted((cypher.cypher_dir() / "browser").glob("*.cypher")):
        for name, stmt in cypher.parse_statements(path.read_text(encoding="utf-8"), f"browser/{path.stem}").items():
            params = [ln.strip() for ln in stmt.doc.splitlines() if ln.strip().startswith(":param")]
            about = [ln.strip() for ln in stmt.doc.splitlines() if not ln.strip().startswith(":param")]
            body = stmt.text.strip()
            out.append({"file": path.name, "name": name.split(".")[-1], "about": " ".join(about),
                        "params": params, "cypher": body})
    return out


def style_text() -> str:
    return (cypher.cypher_dir() / "browser" / "graphkit.grass").read_text(encoding="utf-8")


def style_command() -> str:
    """The ``:style`` command: comments dropped, one rule per line (Browser 5.24 crashed on some
    layouts of the same rules typed into its editor; this one is tested end to end)."""
    body = re.sub(r"/\*.*?\*/", "", style_text(), flags=re.S)
    rules = [" ".join(r.split()) for r in re.findall(r'[^{}"]+\{(?:[^{}"]|"[^"]*")*\}', body)]
    return ":style " + "\n".join(rules)


@app.command("queries")
def queries(
    name: str = typer.Argument(None, help="Print only this query (e.g. patient_timeline)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
):
    """Print the saved Neo4j Browser queries, each with what it shows and the :param lines to run
    first. Paste one into the Browser editor, run it, and click the star to keep it as a favorite.

    Example: graphkit browser queries patient_timeline
    """
    rows = saved_queries()
    if name:
        rows = [r for r in rows if r["name"] == name]
        if not rows:
            raise BadInputError(f"no saved query {name!r}", fix="graphkit browser queries (lists them all)")
    if as_json:
        print_json(rows)
        return
    for r in rows:  # plain text: every line is meant to be pasted into the Browser editor
        typer.echo(f"// {r['name']}  ({r['file']})\n// {r['about']}")
        for p in r["params"]:
            typer.echo(p)
        typer.echo(r["cypher"] + "\n")


@app.command("style")
def style():
    """Print the `:style` command that gives each label a colour, size and caption: paste it into
    the Browser editor and run it (Browser keeps it until `:style reset`).

    Example: graphkit browser style
    """
    typer.echo(style_command())  # plain: it is meant to be pasted whole


@app.command("screenshot")
def screenshot(
    query: str = typer.Argument(..., help="A saved query name (see `graphkit browser queries`)."),
    out: Path = typer.Option(Path("graphkit-browser.png"), "--out", "-o", help="PNG file to write."),
    param: list[str] = typer.Option(None, "--param", "-p", help="NAME=VALUE for the query (repeatable)."),
    browser_url: str = typer.Option(None, help="Neo4j Browser URL (default: the local server's)."),
    styled: bool = typer.Option(True, "--style/--no-style", help="Apply graphkit's style first."),
    as_json: bool = typer.Option(False, "--json", help="Print what was drawn as JSON."),
):
    """Open Neo4j Browser in headless Chromium, log in, run a saved query and save a PNG of the
    result: a patient's timeline or aligned path for a report or a case conference.
    Needs Chromium (apt-get install chromium) and `pip install 'graphkit[browser]'`.

    Example: graphkit browser screenshot patient_alignment -p patient=fhir-7a1d5954-c722-4266-aa13-952e2beef7c9
    """
    from graphkit.browser import BrowserSession
    from graphkit.cli.common import state
    from graphkit.settings import connection_settings, graphkit_home, read_credentials

    queries = {r["name"]: r for r in saved_queries()}
    if query not in queries:
        raise BadInputError(f"no saved query {query!r}", fix="graphkit browser queries (lists them all)")
    values = {}
    for item in param or []:
        name, sep, value = item.partition("=")
        if not sep or not name.isidentifier():
            raise BadInputError(f"--param {item!r} is not NAME=VALUE", fix="e.g. --param patient=demo-p001")
        values[name] = value
    settings = connection_settings(state.home)
    creds = read_credentials(graphkit_home(state.home)) or {}
    url = browser_url or creds.get("browser")
    if not url:
        raise BadInputError("no Neo4j Browser URL known for this server", fix="pass --browser-url http://HOST:7474/browser/")
    with BrowserSession(url) as b:
        b.connect(settings.user, settings.password, bolt_url=settings.uri.split("://", 1)[-1])
        b.command(":config autoComplete: false")
        if styled:
            b.command(style_command())
        for name, value in values.items():
            b.command(f":param {name} => {json.dumps(value)}")
        frame = b.run_graph(queries[query]["cypher"])
        b.screenshot(out)
    result = {"query": query, "png": str(out), "nodes": frame.nodes, "relationships": frame.relationships,
              "labels": frame.labels}
    if as_json:
        print_json(result)
    else:
        typer.echo(f"{out}: {frame.nodes} nodes, {frame.relationships} relationships "
                   + ", ".join(f"{k} {v}" for k, v in frame.labels.items()))
