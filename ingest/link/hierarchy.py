"""Is-a roll-up of concepts: what a concept is a kind of, in its own vocabulary.

Written to the graph lazily: when a concept is stored, so is its chain of ancestors as
``(:Concept)-[:IS_A]->(:Concept)`` (lung adenocarcinoma → lung non-small cell carcinoma → lung carcinoma →
lung cancer; C50.911 → C50.91 → C50.9 → C50; osimertinib's ATC L01EB04 → L01EB EGFR TKIs → L01E → L01).
Guideline applicability and step matching then ask the graph for a concept's ancestors instead of
enumerating synonyms.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from ingest.link.sources import Concept, hierarchy, icd_concept, icd_parent

Key = tuple[str, str]


@cache
def parent_index() -> dict[Key, tuple[Concept, ...]]:
    """(system, code) → its parents, from every vocabulary's is-a edges except ICD-10-CM (asked on demand)."""
    out: dict[Key, list[Concept]] = {}
    for child, parent in hierarchy():
        bucket = out.setdefault((child.system, child.code), [])
        if all((p.system, p.code) != (parent.system, parent.code) for p in bucket):
            bucket.append(parent)
    return {k: tuple(v) for k, v in out.items()}


@cache
def parents(system: str, code: str) -> tuple[Concept, ...]:
    """Direct parents of a concept (cached: every write batch walks its concepts' ancestors)."""
    if system == "ICD-10-CM":
        p = icd_parent(code)
        if p is None:
            return ()
        return (icd_concept(p),)
    return parent_index().get((system, code), ())


@cache
def ancestors(system: str, code: str) -> tuple[Concept, ...]:
    """Every ancestor (breadth first, no repeats). O(depth × fan-in)."""
    seen: dict[Key, Concept] = {}
    todo = list(parents(system, code))
    while todo:
        c = todo.pop(0)
        if (c.system, c.code) in seen:
            continue
        seen[(c.system, c.code)] = c
        todo.extend(parents(c.system, c.code))
    return tuple(seen.values())


def is_a_rows(concepts: Iterable[tuple[str, str]]) -> tuple[list[dict], list[dict]]:
    """(ancestor concept rows, IS_A edge rows) for the upward closure of the given (system, code)s. Pure."""
    from ingest.link.lexicon import canonical

    nodes: dict[Key, dict] = {}
    edges: dict[tuple, dict] = {}
    todo = list(dict.fromkeys(concepts))
    done: set[Key] = set()
    while todo:
        key = todo.pop()
        if key in done:
            continue
        done.add(key)
        for p in map(canonical, parents(*key)):
            nodes.setdefault((p.system, p.code), {"system": p.system, "code": p.code, "name": p.display,
                                                  "source": p.source or None, "kind": p.kind})
            edges.setdefault((key, (p.system, p.code)), {"system": key[0], "code": key[1], "parent_system": p.system,
                                                         "parent_code": p.code})
            todo.append((p.system, p.code))
    return list(nodes.values()), list(edges.values())
