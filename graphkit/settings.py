"""Where graphkit keeps its files and how it finds Neo4j.

Resolution order for the database (first wins):

1. ``NEO4J_URI`` (+ ``NEO4J_USER``, ``NEO4J_PASSWORD``, ``NEO4J_DATABASE``): any server — a hospital
   server, Aura, docker compose.
2. The local server graphkit installed under ``GRAPHKIT_HOME`` (default ``~/.graphkit``), whose
   generated credentials live in ``GRAPHKIT_HOME/credentials.json`` (mode 0600).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from graphkit.errors import DatabaseUnavailableError

CREDENTIALS_FILE = "credentials.json"


def graphkit_home(explicit: str | os.PathLike | None = None) -> Path:
    """The folder holding graphkit's local Neo4j and its credentials."""
    if explicit:
        return Path(explicit).expanduser().resolve()
    env = os.environ.get("GRAPHKIT_HOME")
    return Path(env).expanduser().resolve() if env else Path.home() / ".graphkit"


def cache_dir() -> Path:
    """Shared download cache (verified jars), reused across homes and test runs."""
    env = os.environ.get("GRAPHKIT_CACHE")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "graphkit"


@dataclass(frozen=True)
class ConnectionSettings:
    """How to reach Neo4j. ``password`` is never printed by graphkit unless asked for."""

    uri: str
    user: str
    password: str
    database: str = "neo4j"
    source: str = "env"  # "env" or the credentials file path

    def __repr__(self) -> str:  # keep the password out of logs and tracebacks
        return f"ConnectionSettings(uri={self.uri!r}, user={self.user!r}, database={self.database!r})"


def write_credentials(home: Path, uri: str, user: str, password: str, http_url: str) -> Path:
    """Save the generated login with mode 0600 (created that way, never world-readable)."""
    home.mkdir(parents=True, exist_ok=True)
    path = home / CREDENTIALS_FILE
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump({"uri": uri, "user": user, "password": password, "browser": http_url + "/browser/"}, f)
    os.chmod(path, 0o600)
    return path


def read_credentials(home: Path) -> dict | None:
    path = home / CREDENTIALS_FILE
    if not path.exists():
        return None
    return json.loads(path.read_text())


def connection_settings(home: str | os.PathLike | None = None) -> ConnectionSettings:
    """Settings from the environment, else from the local server's credentials file."""
    uri = os.environ.get("NEO4J_URI")
    database = os.environ.get("NEO4J_DATABASE", "neo4j")
    if uri:
        return ConnectionSettings(
            uri=uri,
            user=os.environ.get("NEO4J_USER", os.environ.get("NEO4J_USERNAME", "neo4j")),
            password=os.environ.get("NEO4J_PASSWORD", ""),
            database=database,
        )
    gk_home = graphkit_home(home)
    creds = read_credentials(gk_home)
    if creds is None:
        raise DatabaseUnavailableError(
            f"no Neo4j configured: NEO4J_URI is not set and there is no local server in {gk_home}",
            fix="run `graphkit neo4j install && graphkit neo4j start`, or set NEO4J_URI/NEO4J_USER/NEO4J_PASSWORD",
        )
    return ConnectionSettings(
        uri=creds["uri"], user=creds["user"], password=creds["password"], database=database,
        source=str(gk_home / CREDENTIALS_FILE),
    )
