"""Normalization that remembers where every character came from."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# De-identification placeholders: MIMIC-III "[**Name**]", MIMIC-IV "___", runs of X's.
_DEID = re.compile(r"\[\*\*[^\]]{0,80}\*\*\]|_{3,}")
_BULLET = re.compile(r"^[ \t]*(?:[•·▪◦*]|-(?=\s)|\d{1,2}[.)](?=\s))[ \t]*", re.M)
# runs that change: two or more blanks, or any blank other than a plain space (a lone space is kept as is)
_HSPACE = re.compile(r"[ \t\u00a0\u2000-\u200b]{2,}|[\t\u00a0\u2000-\u200b]")
_MANY_NL = re.compile(r"\n{3,}")
DEID_TOKEN = "[DEID]"


@dataclass(frozen=True)
class NormalizedText:
    text: str = field(repr=False)
    offsets: tuple[int, ...] = field(repr=False)  # offsets[i] = original index of text[i]; len = len(text)+1

    def to_original(self, start: int, end: int) -> tuple[int, int]:
        """Map a [start, end) span of the normalized text to the original note. O(1)."""
        if start >= end:
            return self.offsets[start], self.offsets[start]
        return self.offsets[start], self.offsets[end - 1] + 1


def _apply(text: str, offsets: list[int], pattern: re.Pattern, repl) -> tuple[str, list[int]]:
    """Replace matches; each replacement character maps to the start of the match it replaces."""
    out, out_off, pos = [], [], 0
    for m in pattern.finditer(text):
        out.append(text[pos:m.start()])
        out_off.extend(offsets[pos:m.start()])
        r = repl(m) if callable(repl) else repl
        out.append(r)
        if len(r) == m.end() - m.start():  # same length: character for character
            out_off.extend(offsets[m.start():m.end()])
        elif r:  # the replacement spans the whole original match
            out_off.extend([offsets[m.start()]] * (len(r) - 1) + [offsets[m.end() - 1]])
        pos = m.end()
    out.append(text[pos:])
    out_off.extend(offsets[pos:len(text)])
    out_off.append(offsets[len(text)])
    return "".join(out), out_off


def normalize(text: str) -> NormalizedText:
    """De-identification placeholders → ``[DEID]``; bullets → ``- ``; runs of spaces → one; at most
    one blank line. Capitals are kept: a line-opening "CEA: 6.2", "EGFR: wild-type", "MRI: no mass" is
    a result under its acronym (which title case would unmake), and matching is case-blind for words.
    O(len(text))."""
    t = text.replace("\r\n", "\n").replace("\r", "\n")
    # \r\n → \n shifts offsets: rebuild the map for that step explicitly
    offsets = [i for i, ch in enumerate(text) if not (ch == "\r" and text[i + 1:i + 2] == "\n")] \
        if "\r" in text else list(range(len(text)))
    offsets.append(len(text))
    for pattern, repl in ((_DEID, DEID_TOKEN), (_BULLET, "- "), (_HSPACE, " "), (_MANY_NL, "\n\n")):
        t, offsets = _apply(t, offsets, pattern, repl)
    return NormalizedText(t, tuple(offsets))
