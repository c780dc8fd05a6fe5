"""`graphkit recommend`: pack the context, ask the configured LLM (or not), validate, store."""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
from dataclasses import dataclass, field

from graphkit.context.pack import PackedPrompt, pack
from graphkit.context.subgraph import load_context
from graphkit.context.tokens import token_counter
from graphkit.llm import LLMError
from graphkit.reason.job import PatientReasoning, assess_patient
from graphkit.recommend.normative import normative_text
from graphkit.recommend.validate import check_citations, split_answer
from graphkit.store import GraphStore

log = logging.getLogger(__name__)


@dataclass
class Recommendation:
    id: str
    patient: str
    summary: str
    text: str
    mode: str            # no-llm | llm | llm-fallback
    model: str
    run: str | None
    status: str          # ok | partial (LLM answer unusable, no-LLM result stored) | no-guideline
    prompt_tokens: int
    citations: list[dict] = field(default_factory=list)   # alias, id, label, part
    unknown: list[str] = field(default_factory=list)
    uncited: list[str] = field(default_factory=list)
    note: str | None = None
    pack_ms: float = 0.0
    reasoning: PatientReasoning | None = field(default=None, repr=False)


def recommend_patient(store: GraphStore, patient: str, embedder, llm=None, budget: int = 2048,
                      question: str | None = None, tokenizer: str = "minilm", save: bool = True,
                      cptf=None, at=None, guidelines=None) -> Recommendation:
    """One patient's summary and recommendation, citations validated and stored with CITES links.

    The recommendation comes from the normative assessment (``graphkit.reason``: the patient state,
    the guideline paths the patient is eligible for, what is due, overdue or missing on them), which
    is stored first (state snapshot, care assessment and items) so that every citation resolves; the
    descriptive alignment is shown beside it. ``cptf``: a ``graphkit.context.cptf.CPTF`` to filter the
    note sentences into the prompt. ``at``: the date to reason at (default: today)."""
    reasoning = assess_patient(store, patient, at, save=True, guidelines=guidelines)
    ctx = load_context(store, patient)
    ctx.reasoning = reasoning
    prompt: PackedPrompt = pack(ctx, token_counter(tokenizer), embedder, budget=budget, question=question,
                                cptf=cptf)
    in_prompt = set(ctx.citations.by_alias)  # what the model may cite (cut lines lost their ids)
    det_summary, det_text = normative_text(reasoning, ctx.citations.cite, ctx.negations)
    mode, model, note = "no-llm", "graphkit-deterministic", None
    summary, text = det_summary, det_text
    if llm is not None:
        try:
            answer = llm.complete(prompt.text, system=prompt.system)
            parts = split_answer(answer)
            if parts is None:
                raise LLMError("the answer has no SUMMARY: / RECOMMENDATION: parts")
            check = check_citations(parts[0] + " " + parts[1], ctx.citations)
            outside = [a for a in check.cited if a not in in_prompt]
            if check.unknown or outside or not check.cited:
                raise LLMError(f"the answer cites unknown ids {check.unknown[:5]}" if check.unknown
                               else f"the answer cites facts that were not in the prompt {outside[:5]}" if outside
                               else "the answer cites nothing")
            summary, text, mode, model = parts[0], parts[1], "llm", llm.name
        except LLMError as exc:
            mode, model, note = "llm-fallback", f"graphkit-deterministic (LLM {llm.name} unusable)", exc.message
            log.warning("LLM answer for a patient unusable (%s); storing the no-LLM result", type(exc).__name__)
    check = check_citations(summary + " " + text, ctx.citations)
    resolved = {r["id"]: r["label"] for r in
                store.read("context.existing_nodes", ids=[ctx.citations.by_alias[a][0] for a in check.cited])}
    cites = []
    for a in check.cited:
        node_id, label = ctx.citations.by_alias[a]
        if node_id in resolved:
            cites.append({"alias": a, "id": node_id, "label": label,
                          "part": "summary" if f"[{a}]" in summary else "recommendation"})
        else:
            check.unknown.append(a)
    status = "ok" if reasoning.applicable else "no-guideline"
    if mode == "llm-fallback":
        status = "partial"
    rid = "rec-" + hashlib.sha256(f"{patient}|{dt.datetime.now(dt.timezone.utc).isoformat()}|{text}".encode()).hexdigest()[:16]
    rec = Recommendation(rid, patient, summary, text, mode, model, ctx.run, status, prompt.tokens, cites,
                         check.unknown, check.uncited, note, prompt.ms, reasoning)
    if save:
        store.write("context.write_recommendation", patient=patient, id=rid, summary=summary, text=text,
                    model=model, mode=mode, run=ctx.run, status=status, prompt_tokens=prompt.tokens,
                    citations=[c["alias"] for c in cites], unknown=check.unknown, uncited=check.uncited,
                    cites=cites)
    return rec
