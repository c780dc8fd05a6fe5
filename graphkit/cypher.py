"""Load the project's Cypher by name from ``cypher/*.cypher``.

A file holds one or more named statements, each introduced by a ``// name: <name>`` line; the
comment lines right after it document the statement. ``query("store.ping")`` returns the
statement ``ping`` of ``cypher/store.cypher``. Values always travel as parameters: no Cypher in
graphkit is built from data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

_NAME = re.compile(r"^//\s*name:\s*([A-Za-z0-9_\-]+)\s*$")


def cypher_dir() -> Path:
    """``cypher/`` of a source checkout, else the copy packed into the wheel."""
    here = Path(__file__).resolve().parent
    for candidate in (here.parent / "cypher", here / "_data" / "cypher"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("graphkit's cypher/ folder is missing from this installation")


@dataclass(frozen=True)
class Statement:
    name: str  # "<file>.<statement>"
    text: str
    doc: str


def parse_statements(source: str, file_stem: str) -> dict[str, Statement]:
    """Split a .cypher file into its named statements (O(lines))."""
    blocks: dict[str, Statement] = {}
    name, doc, body = None, [], []

    def flush():
        if name is not None:
            text = "\n".join(body).strip().rstrip(";").strip()
            blocks[name] = Statement(f"{file_stem}.{name}", text, "\n".join(doc))

    for line in source.splitlines():
        m = _NAME.match(line.strip())
        if m:
            flush()
            name, doc, body = m.group(1), [], []
        elif name is not None:
            if not body and line.strip().startswith("//"):
                doc.append(line.strip().lstrip("/").strip())
            else:
                body.append(line)
    flush()
    return blocks


@cache
def _file(stem: str) -> dict[str, Statement]:
    path = cypher_dir() / f"{stem}.cypher"
    return parse_statements(path.read_text(encoding="utf-8"), stem)


def statement(name: str) -> Statement:
    """The :class:`Statement` called ``"<file>.<name>"``; KeyError names what exists."""
    stem, _, key = name.rpartition(".")
    blocks = _file(stem)
    if key not in blocks:
        raise KeyError(f"no statement {key!r} in cypher/{stem}.cypher (have: {', '.join(sorted(blocks))})")
    return blocks[key]


def query(name: str) -> str:
    """The Cypher text of statement ``"<file>.<name>"``."""
    return statement(name).text
