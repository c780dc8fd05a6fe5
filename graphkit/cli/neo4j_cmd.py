"""`graphkit neo4j ...`: install, start, stop and inspect the local Neo4j server."""

from __future__ import annotations

import os

import typer
from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn, TransferSpeedColumn
from rich.table import Table

from graphkit.cli.common import console, print_json, state
from graphkit.settings import read_credentials

app = typer.Typer(help="Install and run the local Neo4j Community 5.26 server (Java 17+, no Docker).",
                  no_args_is_help=True)


def _server():
    from graphkit.neo4j import LocalNeo4j

    return LocalNeo4j(state.home)


def _external_note() -> None:
    if os.environ.get("NEO4J_URI"):
        console.print(f"[yellow]note:[/] NEO4J_URI={os.environ['NEO4J_URI']} is set, so graphkit's other "
                      "commands use that server, not this local one.")


@app.command()
def install(
    bolt_port: int = typer.Option(7687, help="Bolt port (drivers, Browser)."),
    http_port: int = typer.Option(7474, help="HTTP port (Neo4j Browser at /browser/)."),
    heap: str = typer.Option("1g", help="JVM heap, e.g. 512m, 2g."),
    pagecache: str = typer.Option("512m", help="Page cache size."),
):
    """Download (or reuse), verify and configure Neo4j Community 5.26; generate the password.

    Jars come from graphkit's cache, ~/.m2, $GRAPHKIT_MAVEN_REPOSITORY or Maven, and are checked
    against the sha256 lock shipped with graphkit. Safe to re-run.

    Example: graphkit --home /data/graphkit neo4j install --bolt-port 7688 --http-port 7475
    """
    from graphkit.neo4j.server import InstallOptions

    server = _server()
    opts = InstallOptions(bolt_port=bolt_port, http_port=http_port, heap=heap, pagecache=pagecache)
    with Progress("[progress.description]{task.description}", BarColumn(), DownloadColumn(),
                  TransferSpeedColumn(), TimeRemainingColumn(), console=console, transient=True) as bar:
        task = bar.add_task(f"Neo4j {server.lock.neo4j_version} artifacts", total=server.lock.total_bytes)
        changed = server.install(opts, progress=lambda n: bar.advance(task, n))
    word = "installed" if changed else "already installed (nothing changed)"
    console.print(f"Neo4j {server.lock.neo4j_version} {word} in {server.neo4j_home}")
    _external_note()


@app.command()
def start(timeout: float = typer.Option(90, help="Seconds to wait for Bolt.")):
    """Start the local server; returns when Bolt accepts the generated login.

    Example: graphkit neo4j start
    """
    server = _server()
    seconds = server.start(timeout_s=timeout)
    st = server.status()
    console.print(f"Neo4j {st.version} is up ({seconds:.1f} s): {st.bolt_uri}  Browser: {st.browser_url}")
    _external_note()


@app.command()
def stop():
    """Stop the local server (waits for a clean shutdown)."""
    console.print("stopped" if _server().stop() else "was not running")


@app.command()
def status(as_json: bool = typer.Option(False, "--json", help="Print JSON.")):
    """Report version, URIs, data directory, store size and whether it runs.

    Exit code 3 when the server is installed but not running.
    Example: graphkit neo4j status --json
    """
    st = _server().status()
    if as_json:
        print_json(st.as_dict())
    else:
        table = Table(show_header=False, box=None)
        for key, value in st.as_dict().items():
            if key.endswith("_bytes"):
                value = f"{value / 1e6:.1f} MB"
            table.add_row(key.replace("_", " "), str(value))
        console.print(table)
        _external_note()
    if not st.installed:
        raise typer.Exit(1)
    if not st.running:
        raise typer.Exit(3)


@app.command()
def password(as_json: bool = typer.Option(False, "--json", help="Print JSON.")):
    """Show the generated login of the local server (only ever printed on this explicit request)."""
    creds = read_credentials(_server().home)
    if creds is None:
        console.print("no local server installed: run `graphkit neo4j install`")
        raise typer.Exit(1)
    if as_json:
        print_json({"user": creds["user"], "password": creds["password"], "uri": creds["uri"]})
    else:
        console.print(f"user: {creds['user']}\npassword: {creds['password']}\nuri: {creds['uri']}")
