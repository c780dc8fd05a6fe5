"""Selectable text units: sentences (and their sections or dialogue turns), with token costs."""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphkit.context.tokens import TokenCounter

_TURN = re.compile(r"^\s*\[?(doctor|patient|guest_family|guest_clinician|nurse|[A-Za-z_]+)\]?\s*:", re.I)
_SENT = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True)
class Unit:
    """A contiguous piece of the source: ``text`` is ``source[start:end]``; ``group`` is its section
    (notes) or speaker turn (dialogue), so selection can work on sentences or on whole groups."""

    idx: int
    start: int
    end: int
    text: str
    group: int
    cost: int


def sentence_units(text: str, counter: TokenCounter) -> list[Unit]:
    """Split a note or dialogue into sentence units: one line is one turn (dialogue) or paragraph,
    split into sentences. Costs in the target tokenizer. O(len(text))."""
    spans: list[tuple[int, int, int]] = []
    group = -1
    pos = 0
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if stripped:
            group += 1
            offset = pos + line.index(stripped)
            cuts = [0] + [m.end() for m in _SENT.finditer(stripped)] + [len(stripped)]
            for a, b in zip(cuts, cuts[1:]):
                seg = stripped[a:b].strip()
                if seg:
                    s = offset + a + stripped[a:b].index(seg)
                    spans.append((s, s + len(seg), group))
        pos += len(line)
    costs = counter.count_many([text[s:e] for s, e, _ in spans])
    return [Unit(i, s, e, text[s:e], g, c) for i, ((s, e, g), c) in enumerate(zip(spans, costs))]


def render(units: list[Unit], chosen: list[int]) -> str:
    """Chosen units in source order; a new line where the group (turn / section) changes."""
    out, last = [], None
    for i in sorted(chosen):
        u = units[i]
        out.append(("\n" if last is not None and u.group != last else " " if last is not None else "") + u.text)
        last = u.group
    return "".join(out)


def section_units(units: list[Unit], counter: TokenCounter | None = None) -> list[Unit]:
    """Merge sentence units into their groups (a note section, a dialogue turn): the coarser unit
    the selectors can also work on. Costs are re-counted when a counter is given (joining can change
    the tokenization by a token or two), else summed. O(n)."""
    merged: list[Unit] = []
    for u in units:
        if merged and merged[-1].group == u.group:
            m = merged[-1]
            merged[-1] = Unit(m.idx, m.start, u.end, m.text + " " + u.text, m.group, m.cost + u.cost)
        else:
            merged.append(Unit(len(merged), u.start, u.end, u.text, u.group, u.cost))
    if counter is not None and merged:
        costs = counter.count_many([m.text for m in merged])
        merged = [Unit(m.idx, m.start, m.end, m.text, m.group, c) for m, c in zip(merged, costs)]
    return merged
