"""Ordered schema migrations parsed from ``cypher/schema.cypher``."""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEADER = re.compile(r"^//\s*migration:\s*(\d+)\s*(.*)$")


@dataclass(frozen=True)
class Migration:
    version: int
    title: str
    statements: tuple[str, ...]


def parse_migrations(source: str) -> list[Migration]:
    """Split a schema file into migrations, checking their numbers run 1, 2, 3, ... (O(lines))."""
    migrations: list[Migration] = []
    current: tuple[int, str] | None = None
    body: list[str] = []

    def flush():
        if current is None:
            return
        text = "\n".join(line for line in body if not line.strip().startswith("//"))
        stmts = tuple(s.strip() for s in text.split(";") if s.strip())
        migrations.append(Migration(current[0], current[1].strip(), stmts))

    for line in source.splitlines():
        m = _HEADER.match(line.strip())
        if m:
            flush()
            current, body = (int(m.group(1)), m.group(2)), []
        elif current is not None:
            body.append(line)
    flush()
    for expected, mig in enumerate(migrations, start=1):
        if mig.version != expected:
            raise ValueError(f"schema migrations must be numbered 1, 2, 3...: found {mig.version} at position {expected}")
    return migrations
