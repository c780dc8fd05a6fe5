"""Citation checks: every [alias] must name a fact given to the model, every sentence should cite one."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from graphkit.context.subgraph import Citations

ALIAS = re.compile(r"\[([ESGCNA]\d+)\]")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


@dataclass
class CitationCheck:
    cited: list[str] = field(default_factory=list)            # aliases in order of first use
    unknown: list[str] = field(default_factory=list)          # aliases that were never given
    uncited: list[str] = field(default_factory=list)          # sentences with no citation

    @property
    def valid(self) -> bool:
        return not self.unknown


def check_citations(text: str, citations: Citations) -> CitationCheck:
    """Parse [E3]-style citations; report unknown ones and uncited sentences. O(len(text))."""
    out = CitationCheck()
    for alias in ALIAS.findall(text):
        if alias in out.cited or alias in out.unknown:
            continue
        (out.cited if alias in citations.by_alias else out.unknown).append(alias)
    for sent in _SENTENCE.split(text.strip()):
        body = re.sub(r"^(SUMMARY|RECOMMENDATION)\s*:\s*", "", sent.strip())
        if body and not ALIAS.search(body):
            out.uncited.append(body)
    return out


def split_answer(answer: str) -> tuple[str, str] | None:
    """(summary, recommendation) from an LLM answer with SUMMARY: and RECOMMENDATION: parts."""
    m = re.search(r"SUMMARY\s*:\s*(.+?)\s*RECOMMENDATION\s*:\s*(.+)", answer, re.S | re.I)
    if not m:
        return None
    return m.group(1).strip(), m.group(2).strip()
