"""Small helpers shared by the bench/ scripts: progress to stderr, the one JSON result line to stdout."""

from __future__ import annotations

import json
import sys
import time

_T0 = time.perf_counter()


def log(msg: str = "") -> None:
    """Human-readable progress on stderr, prefixed with the seconds since start."""
    print(f"[{time.perf_counter() - _T0:7.1f}s] {msg}" if msg else "", file=sys.stderr, flush=True)


def emit(result: dict) -> None:
    """The script's result: exactly one JSON line on stdout."""
    print(json.dumps(result, sort_keys=False), flush=True)


def ratio(num: float, den: float, digits: int = 4) -> float | None:
    """num / den rounded, or None when den is 0 (JSON null: 'not measurable', never a fake 0)."""
    return round(num / den, digits) if den else None


def clip(text: str, start: int, end: int, width: int = 70) -> str:
    """``text`` cut to about ``width`` characters each side of [start, end), the span in [brackets]."""
    a, b = max(0, start - width), min(len(text), end + width)
    return ("…" if a else "") + text[a:start] + "[" + text[start:end] + "]" + text[end:b] + ("…" if b < len(text) else "")
