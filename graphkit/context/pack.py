"""Prompt packing under a token budget measured with the target model's tokenizer.

Order of the parts (what is cut last comes first): the task instruction; one worked example
(ConTextual App. H style); the evidence ids, listed before the facts so the model is primed to cite
them (PCoA's prior attribution); the patient's subgraph context; then note sentences chosen by the
budget-aware router (optionally compressed by CPTF) with whatever budget is left.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

import numpy as np

from graphkit.context.relevance import NOTE_TASK_QUERIES, relevance
from graphkit.context.select import Router, select
from graphkit.context.subgraph import PatientContext, render_graph_context
from graphkit.context.tokens import TokenCounter

ALIAS_IN_TEXT = re.compile(r"\[([A-Z]\d+)\]")

INSTRUCTION = (
    "You are a clinical decision-support assistant for an oncology team. Using ONLY the facts below, "
    "write two parts:\n"
    "SUMMARY: the patient's cancer, stage, biomarkers and the care so far, in 3-5 sentences.\n"
    "RECOMMENDATION: what the guideline expects next and any gaps (missing steps, order or timing "
    "problems), in 2-4 sentences.\n"
    "End every sentence with the ids of the facts that support it, in brackets, e.g. [E3][G2]. Cite "
    "only ids from the list of evidence ids. Do not state ruled-out or family-history items as the "
    "patient's own. If the facts do not support a statement, leave it out.")

EXAMPLE = (
    "Example.\nFacts:\n- 2020-01-05: Cancer malignant neoplasm of colon [E1]\n"
    "- 2020-02-01: Procedure partial resection of colon [E2]\n- step 5: Adjuvant oxaliplatin chemotherapy [G1]\n"
    "- pending adjuvant-oxaliplatin-chemotherapy: not done yet (next expected step) [C1]\n"
    "Answer:\nSUMMARY: Colon cancer diagnosed in January 2020 [E1] was resected in February 2020 [E2].\n"
    "RECOMMENDATION: The guideline's next step is adjuvant oxaliplatin-based chemotherapy [G1][C1].")


def _sentence_line(sentence: dict, alias: str) -> tuple[str, list[tuple[int, int]]]:
    """A note sentence as a prompt line, and the spans of it CPTF must keep: the date and section
    header, the citation id, and the sentence's linked entity mentions."""
    head, tail = f"- {sentence['date']} ({sentence['section']}): ", f" [{alias}]"
    body = " ".join(sentence["text"].split())  # one line per sentence (the output keeps line breaks)
    line = head + body + tail
    keep = [(0, len(head)), (len(head) + len(body), len(line))]
    if body == sentence["text"]:  # mention offsets are into the stored text
        keep += [(len(head) + a, len(head) + b) for a, b in sentence.get("mentions") or []]
    return line, keep


def _compressed_lines(sentences: list[dict], aliases: list[str], cptf, counter: TokenCounter, room: int,
                      question: str | None) -> list[str | None]:
    """The chosen sentences as prompt lines; with ``cptf``, filtered down to ``room`` tokens (the
    question, when given, is CPTF's task). Every line keeps its header and id, so lines stay 1:1
    with the sentences; a line whose sentence lost every word is None."""
    lines, spans, bare, offset = [], [], [], 0
    for s, alias in zip(sentences, aliases):
        line, keep = _sentence_line(s, alias)
        lines.append(line)
        bare.append(" ".join(line[a:b].strip() for a, b in keep[:2]))  # header + id, nothing else
        spans += [(offset + a, offset + b) for a, b in keep]
        offset += len(line) + 1
    text = "\n".join(lines)
    n = counter.count(text)
    if cptf is None or n <= room or not lines:
        return lines
    out = cptf.filter(text, ratio=max(room, 0) / n, protected=spans, task=question).text.split("\n")
    return [None if line == empty else line for line, empty in zip(out, bare)]


@dataclass
class PackedPrompt:
    system: str
    text: str
    tokens: int
    budget: int
    parts: dict[str, int] = field(default_factory=dict)   # tokens per part
    note_sentences: int = 0
    selector: str | None = None
    ms: float = 0.0


def pack(ctx: PatientContext, counter: TokenCounter, embedder, budget: int = 2048, question: str | None = None,
         router: Router | None = None, cptf=None) -> PackedPrompt:
    """Build the prompt for one patient within ``budget`` tokens (the target model's tokenizer).
    ``embedder``: sentence embeddings for note-sentence relevance (cached per text).
    ``cptf``: an optional ``graphkit.context.cptf.CPTF``: note sentences are then selected at
    budget / ratio and filtered back into the budget, keeping dates, ids and linked mentions."""
    t0 = time.perf_counter()
    router = router or Router(thresholds=[], choices=["mmr"])
    graph = render_graph_context(ctx)
    evidence = "Evidence ids: " + ", ".join(ctx.citations.by_alias)
    ask = f"Question: {question}" if question else ""
    fixed = [INSTRUCTION, EXAMPLE, evidence, "Facts from the patient graph:\n" + graph, ask]
    costs = counter.count_many(fixed)
    parts = dict(zip(("instruction", "example", "evidence_ids", "graph", "question"), costs))
    used = sum(costs)
    if used > budget:  # drop the example, then the oldest graph lines, before anything else
        fixed[1], parts["example"] = "", 0
        lines = fixed[3].splitlines()
        while lines and sum(counter.count_many([x for i, x in enumerate(fixed) if i != 3])) + counter.count("\n".join(lines)) > budget:
            lines.pop(2 if len(lines) > 3 else -1)
        fixed[3] = "\n".join(lines)
        parts["graph"] = counter.count(fixed[3])
        used = sum(parts.values())
    notes_text, chosen, selector = "", [], None
    remaining = budget - used - 16
    if remaining > 32 and ctx.sentences:
        texts = [s["text"] for s in ctx.sentences]
        scost = np.array(counter.count_many(texts))
        emb = embedder.encode(texts)
        rel = relevance(emb, embedder.encode([question] if question else list(NOTE_TASK_QUERIES)))
        # with CPTF, select 1/ratio times the text and let CPTF filter it back into the budget
        select_budget = remaining if cptf is None else int(remaining / max(cptf.config.ratio, 0.05))
        selector = router.route(select_budget, int(scost.sum()))
        chosen = sorted(select(selector, scost, select_budget, emb=emb, rel=rel))
        aliases = [ctx.citations.cite(ctx.sentences[i]["id"], "Sentence") for i in chosen]
        ids_cost = counter.count("Evidence ids: " + ", ".join(ctx.citations.by_alias))  # now with the sentences
        room = (budget - sum(v for k, v in parts.items() if k not in ("notes", "evidence_ids")) - ids_cost
                - counter.count("Note sentences:"))
        lines = _compressed_lines([ctx.sentences[i] for i in chosen], aliases, cptf, counter, room, question)
        for k in reversed(range(len(lines))):  # sentences CPTF emptied: no line, no id
            if lines[k] is None:
                del lines[k], chosen[k]
                ctx.citations.forget(aliases.pop(k))
        while True:  # protected words or the new ids may overrun: drop the last sentence until it fits
            evidence = "Evidence ids: " + ", ".join(ctx.citations.by_alias)
            notes_text = "\n".join(["Note sentences:", *lines]) if lines else ""
            parts["evidence_ids"], parts["notes"] = counter.count(evidence), counter.count(notes_text)
            if sum(parts.values()) <= budget or not lines:
                break
            lines.pop()
            chosen.pop()
            ctx.citations.forget(aliases.pop())
        fixed[2] = evidence
    # a fact cut to fit the budget loses its id: the model may cite only what it was given
    present = set(ALIAS_IN_TEXT.findall("\n".join((fixed[3], notes_text))))
    for alias in [a for a in ctx.citations.by_alias if a not in present]:
        ctx.citations.forget(alias)
    fixed[2] = "Evidence ids: " + ", ".join(ctx.citations.by_alias)
    parts["evidence_ids"] = counter.count(fixed[2])
    text = "\n\n".join(x for x in (fixed[1], fixed[2], fixed[3], notes_text, fixed[4]) if x)
    return PackedPrompt(system=INSTRUCTION, text=text, tokens=sum(parts.values()), budget=budget, parts=parts,
                        note_sentences=len(chosen), selector=selector, ms=(time.perf_counter() - t0) * 1000)
