"""Sentence splitting tuned for clinical notes: list items and lines are boundaries, abbreviations
(Dr., mg., e.g., q.d.) are not."""

from __future__ import annotations

import re
from dataclasses import dataclass

_ABBREV = {"dr", "mr", "mrs", "ms", "pt", "vs", "e.g", "i.e", "etc", "approx", "mg", "ml", "no", "st", "q", "b.i.d",
           "t.i.d", "q.d", "p.o", "a.m", "p.m", "fig", "ca", "hx", "dx", "tx", "sx", "yrs", "wk", "wks", "min", "max",
           "incl", "excl", "esp", "cf", "eg", "ie",
           # a prescription's form before the drug ("Tab. Osimertinib 80 mg OD", "Inj. Zoledronic acid 4 mg")
           "tab", "tabs", "cap", "caps", "inj", "syp", "susp",
           # German, Spanish, French, Italian, Portuguese and Dutch notes' own: "li." (links), "Z.n.", "izq.", "Sra."
           "li", "re", "bds", "pat", "lt", "anschl", "ggf", "bzw", "evtl", "inkl", "z.n", "v.a", "o.b", "u.a", "d.h",
           "z.b", "izq", "izda", "izdo", "dcha", "dcho", "sr", "sra", "dra", "mme", "mlle", "pr", "sig", "dott",
           "sig.ra", "dhr", "mevr", "evt", "i.v.m"}
# a run of four or more dots is a form's leader ("Estrogen receptor ........ POSITIVE"), not an end
_END = re.compile(r"(?<!\.)(?:[.!?]{1,3}|[!?]+)(?!\.)[\"')\]]*\s+(?=[A-Z0-9\[(\"'-])")
_LEADER = re.compile(r"\.{4,}")
_WS = re.compile(r"\S")


@dataclass(frozen=True)
class Sentence:
    idx: int
    start: int  # span in the normalized text
    end: int


_LIST_OR_LABEL = re.compile(r"^\s*(?:[-*•·]\s|\d{1,2}[.)]\s|[A-Za-z][A-Za-z /&()-]{1,40}:|#)")
_OPEN_END = re.compile(r"[A-Za-z0-9,;(/&+-]$")
_WRAP_WIDTH = 60
# a name's initial ("Mrs Patricia H. - post-mastectomy RT", "Dr A. Hughes") ends no sentence
_INITIAL = re.compile(r"(?:\b(?:Dr|Mr|Mrs|Ms|Miss|Prof)\.?|[A-Z][a-z]+) [A-Z]\.$")


def _physical_lines(text: str, start: int, end: int):
    pos = start
    while pos < end:
        nl = text.find("\n", pos, end)
        stop = end if nl == -1 else nl
        yield pos, stop
        pos = stop + 1


def _lines(text: str, start: int, end: int):
    """Logical lines: a hard-wrapped sentence ("He has not / received any chemotherapy.") is one line.
    A line continues onto the next when it does not end a sentence and the next line is neither a
    list item nor a "Label:" line, and either starts in lower case (or a digit, a bracket) or the line
    was long enough to have been wrapped."""
    cur = None
    for a, b in _physical_lines(text, start, end):
        line = text[a:b].rstrip()
        if cur is not None:
            prev = text[cur[0]:cur[1]].rstrip()
            nxt = line.lstrip()
            joins = (prev and nxt and _OPEN_END.search(prev) and not _LIST_OR_LABEL.match(line)
                     and not _LEADER.search(prev.split("\n")[-1]) and not _LEADER.search(nxt)
                     and (nxt[0].islower() or nxt[0].isdigit() or nxt[0] in "(["
                          or len(prev.split("\n")[-1]) >= _WRAP_WIDTH))
            if joins:
                cur = (cur[0], b)
                continue
            yield cur
        cur = (a, b)
    if cur is not None:
        yield cur


def _trim(text: str, a: int, b: int) -> tuple[int, int] | None:
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    if a < b and text[a:a + 2] == "- ":
        a += 2
    while a < b and text[a] in "# \t":  # "# AKI: Cr 1.9 ...", "#2 Anemia": the entry, not its marker
        a += 1
    return (a, b) if _WS.search(text, a, b) else None


def split_sentences(text: str, start: int = 0, end: int | None = None) -> list[Sentence]:
    """Sentences of ``text[start:end]`` as spans of ``text``. O(len)."""
    end = len(text) if end is None else end
    spans: list[tuple[int, int]] = []
    for a, b in _lines(text, start, end):
        cut = a
        for m in _END.finditer(text, a, b):
            word = re.search(r"([A-Za-z.]+)\.?$", text[cut:m.start() + 1])
            if word and word.group(1).lower().rstrip(".") in _ABBREV or _INITIAL.search(text, cut, m.start() + 1):
                continue
            stop = m.end() - len(m.group(0)) + len(m.group(0).rstrip())
            if (span := _trim(text, cut, stop)):
                spans.append(span)
            cut = m.end()
        if (span := _trim(text, cut, b)):
            spans.append(span)
    return [Sentence(i, a, b) for i, (a, b) in enumerate(spans)]
