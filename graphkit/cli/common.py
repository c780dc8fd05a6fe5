"""Shared CLI plumbing: the console, JSON output, the store from the global options."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass

from rich.console import Console

console = Console(stderr=False, highlight=False, width=None if sys.stdout.isatty() else 160)
err_console = Console(stderr=True, highlight=False)


@dataclass
class State:
    debug: bool = False
    home: str | None = None


state = State()


def print_json(data) -> None:
    """Machine-readable output on stdout, nothing else."""
    print(json.dumps(data, indent=2, default=str))


def open_store(**kwargs):
    from graphkit.store import GraphStore

    return GraphStore.connect(state.home, **kwargs)
