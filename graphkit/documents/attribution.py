"""Attribution check (PCoA): does a cited source sentence support the claim that cites it?

A citation is kept only when the claim and the sentence share a normalized clinical fact — a concept
of the terminology (or one of its is-a ancestors), a biomarker result, a stage, a number with its unit,
a date — AND their sentence embeddings are close enough (cosine at least ``threshold``), or when the
embeddings alone are very close (``strong``). Thresholds are calibrated on a labelled set
(``bench/documents_eval.py``, dev half) and evaluated on the other half.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from graphkit.clinical.values import find_biomarkers, find_stages

DEFAULT_THRESHOLD = 0.45  # calibrated on the labelled claims' dev half (bench/documents_eval.py)
DEFAULT_STRONG = 0.80
_NUMBER = re.compile(r"(?<![A-Za-z0-9.])(\d+(?:\.\d+)?)\s*(mg|mcg|g|ml|mmhg|%|gy|cm|mm|kg|lb|lbs|cycles?|fx|"
                     r"fractions?|weeks?|wks?|months?|mos?|years?|yrs?|days?)?(?![A-Za-z0-9])", re.I)
_DATE = re.compile(r"\b(?:\d{1,2}/\d{1,2}/\d{2,4}|\d{4}-\d{2}-\d{2}|\d{1,2}/\d{4})\b")


@dataclass(frozen=True)
class Support:
    supported: bool
    cosine: float
    shared: tuple[str, ...]  # the facts both texts state


@lru_cache(maxsize=4096)
def facts_of(text: str) -> frozenset[str]:
    """Normalized facts a text states: concept codes (and their ancestors), biomarker values, stages,
    numbers with units, dates. O(len(text))."""
    from ingest.link.hierarchy import ancestors
    from ingest.link.lexicon import load_lexicon

    out: set[str] = set()
    for m in load_lexicon().find(text):
        for c in m.concepts[:3]:
            out.add(f"{c.system}|{c.code}")
            out.update(f"{a.system}|{a.code}" for a in ancestors(c.system, c.code)[:6])
    out.update(v for b in find_biomarkers(text) for v in b.values)
    out.update(f"stage|{s.value}" for s in find_stages(text) if s.value != "invalid")
    out.update(f"n|{float(n):g}{(u or '').lower().rstrip('s')}" for n, u in _NUMBER.findall(text) if u)
    out.update(f"d|{d}" for d in _DATE.findall(text))
    return frozenset(out)


def supports(claim: str, source: str, cosine: float, threshold: float = DEFAULT_THRESHOLD,
             strong: float = DEFAULT_STRONG) -> Support:
    shared = tuple(sorted(facts_of(claim) & facts_of(source)))
    ok = cosine >= strong or (bool(shared) and cosine >= threshold)
    return Support(ok, round(float(cosine), 4), shared)


def check_pairs(pairs: list[tuple[str, str]], embedder, threshold: float = DEFAULT_THRESHOLD,
                strong: float = DEFAULT_STRONG) -> list[Support]:
    """Support for each (claim, source sentence) pair, with one embedding batch. O(pairs)."""
    if not pairs:
        return []
    texts = list(dict.fromkeys(t for p in pairs for t in p))
    index = {t: i for i, t in enumerate(texts)}
    emb = embedder.encode(texts)
    return [supports(c, s, float(np.dot(emb[index[c]], emb[index[s]])), threshold, strong) for c, s in pairs]
