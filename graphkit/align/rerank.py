"""LLM rerank of the top-N candidate paths (CliCARE §3.2), validated; the scored order otherwise."""

from __future__ import annotations

import json
import re
from dataclasses import replace

from graphkit.align.model import Guideline, PathScore, Profile, Unit
from graphkit.llm import ChatModel, LLMError

SYSTEM = ("You are an oncology guideline expert. Given a patient's cancer profile and treatment history "
          "and candidate guideline paths, rank the paths from the best to the worst description of the "
          "care this patient received. Answer with JSON only.")


def rerank_prompt(candidates: list[PathScore], guidelines: dict[str, Guideline], profile: Profile,
                  units: list[Unit]) -> str:
    lines = [f"Stage: {profile.stage or 'unknown'}; biomarkers: "
             + (", ".join(f"{k} {v}" for k, v in profile.biomarkers) or "unknown"),
             "Treatment history (date: event):"]
    lines += [f"- {u.first or 'undated'}: {u.kind} {u.text}" for u in units if u.kind in ("Procedure", "Medication")][:60]
    lines.append("Candidate paths:")
    for c in candidates:
        g = guidelines[c.guideline]
        names = {s.uid: s.name for s in g.steps}
        path = next(p for p in g.paths if p.id == c.path)
        lines.append(f"- id {c.path}: " + " -> ".join(names[s] for s in path.steps))
    lines.append('Answer exactly: {"ranking": ["<path id>", ...]} with every candidate id once.')
    return "\n".join(lines)


def parse_ranking(answer: str, ids: list[str]) -> tuple[list[str] | None, str]:
    """The ranking in an answer, or None and why: it must be JSON naming every candidate id once."""
    m = re.search(r"\{.*\}", answer, re.S)
    if not m:
        return None, "no JSON object in the answer"
    try:
        ranking = json.loads(m.group(0)).get("ranking")
    except (json.JSONDecodeError, AttributeError):
        return None, "the answer's JSON does not parse"
    if not isinstance(ranking, list) or not all(isinstance(x, str) for x in ranking):
        return None, "'ranking' is not a list of ids"
    unknown = [x for x in ranking if x not in ids]
    if unknown:
        return None, f"unknown path ids {unknown[:3]}"
    if sorted(ranking) != sorted(ids):
        return None, "the ranking does not name every candidate exactly once"
    return ranking, "ok"


def rerank(candidates: list[PathScore], llm: ChatModel | None, guidelines: dict[str, Guideline],
           profile: Profile, units: list[Unit]) -> tuple[list[PathScore], str]:
    """Reordered candidates and what happened (skipped | ok | fallback: reason)."""
    if llm is None or len(candidates) < 2:
        return candidates, "skipped"
    try:
        answer = llm.complete(rerank_prompt(candidates, guidelines, profile, units), system=SYSTEM)
    except LLMError as exc:
        return candidates, f"fallback: {exc.message}"
    order, why = parse_ranking(answer, [c.path for c in candidates])
    if order is None:
        return candidates, f"fallback: {why}"
    by_id = {c.path: c for c in candidates}
    return [replace(by_id[pid], rank=r + 1, reranked=True) for r, pid in enumerate(order)], "ok"
