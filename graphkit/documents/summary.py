"""Aspect-based summaries with sentence-level attribution (PCoA): oncologic history, current disease
status, biomarkers, treatments so far, pending items. Each summary sentence is written from the patient
state and the normative assessment and cites the note sentences its facts were read from; every
citation then goes through the attribution check (:mod:`graphkit.documents.attribution`): a sentence
that does not support the claim loses the citation and is reported, and a claim left with none is
flagged unsupported, never stored as supported.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from graphkit.documents.attribution import DEFAULT_STRONG, DEFAULT_THRESHOLD, check_pairs

ASPECTS = ("oncologic history", "current disease status", "biomarkers", "treatments so far", "pending items")


@dataclass
class Claim:
    aspect: str
    text: str
    events: list[str] = field(default_factory=list)  # event ids the claim states
    sentences: list[tuple[str, str]] = field(default_factory=list)  # (sentence id, text) cited
    rejected: list[str] = field(default_factory=list)  # sentence ids that did not support it
    extra: list[tuple[str, str]] = field(default_factory=list)  # other cited nodes (guideline steps, items)

    @property
    def supported(self) -> bool:
        return bool(self.sentences) or bool(self.extra)


def claims_from(reasoning) -> list[Claim]:
    """The summary's claims, each with the events its facts come from. Pure. O(facts)."""
    st = reasoning.state
    out: list[Claim] = []
    first = st.stage_history[0] if st.stage_history else None
    for c in st.cancers[:2]:
        # the cancer and its first stage are two claims: each cites the sentences that state it
        out.append(Claim("oncologic history", f"{c.name[0].upper() + c.name[1:]} was first recorded on "
                         f"{c.first or 'an undated note'}", [e.event for e in c.evidence[:2]]))
    if first and first.group and st.cancers:
        out.append(Claim("oncologic history", f"The first recorded stage is {first.group}"
                         + (f" ({first.tnm})" if first.tnm else "") + f" as of {first.date}",
                         [e.event for e in first.evidence[:2]]))
    if st.stage and st.stage.group:
        how = "pathological" if st.stage.basis == "pathological" else "clinical" if st.stage.basis else "stated"
        out.append(Claim("current disease status", f"The latest {how} stage is {st.stage.group}"
                         + (f" ({st.stage.tnm})" if st.stage.tnm else "") + f" as of {st.stage.date}",
                         [e.event for e in st.stage.evidence[:2]]))
    for m in sorted(st.markers.values(), key=lambda m: m.name):
        if m.derived_from or not st.marker(m.name):
            continue
        detail = "".join(f", {k} {v}" for k, v in (m.detail or {}).items() if k in ("percent", "ihc", "tps", "alteration"))
        out.append(Claim("biomarkers", f"{m.name} is {m.status}{detail}", [e.event for e in m.evidence[:2]]))
    for t in st.treatments[:8]:
        out.append(Claim("treatments so far", f"{t.name} ({t.status}) from {t.first or 'an undated note'}",
                         [e.event for e in t.evidence[:2]]))
    for a in reasoning.applicable:
        for i in a.by_status("overdue", "missing", "due"):
            word = {"overdue": "is overdue", "missing": "is not documented although later care was given",
                    "due": "is due"}[i.status]
            out.append(Claim("pending items", f"{i.name} {word} ({a.guideline} {a.version})", list(i.evidence[:1]),
                             extra=[(i.step_uid, "GuidelineStep")]))
        for m in a.missing_info:
            out.append(Claim("pending items", f"{m.fact} is {m.state}: to be tested or documented",
                             list(m.evidence[:1]), extra=[(m.step_uid, "GuidelineStep")] if m.step_uid else []))
    for t in st.planned[:5]:
        out.append(Claim("pending items", f"{t.name} is planned", [e.event for e in t.evidence[:1]]))
    return out


def attribute(claims: list[Claim], event_sentences: dict[str, tuple[str, str]], embedder,
              threshold: float = DEFAULT_THRESHOLD, strong: float = DEFAULT_STRONG,
              statements: dict[str, dict[str, set[str]]] | None = None) -> list[Claim]:
    """Cite each claim's source sentences (the evidence sentences of its events) and keep only those
    that pass the attribution check; ``statements``: sentence id -> what ingestion stored for it
    (:func:`graphkit.documents.job.sentence_statements`), read instead of the bare sentence.
    O(claims × sentences)."""
    pairs, owners = [], []
    for k, c in enumerate(claims):
        for ev in c.events:
            if ev in event_sentences:
                sid, text = event_sentences[ev]
                pairs.append((c.text, text))
                owners.append((k, sid, text))
            elif (ev, "Event") not in c.extra:
                c.extra.append((ev, "Event"))  # a coded fact of the structured record is its own source
    stated = [(statements or {}).get(sid) for _, sid, _ in owners]
    for (k, sid, text), sup in zip(owners, check_pairs(pairs, embedder, threshold, strong, stated=stated)):
        target = claims[k].sentences if sup.supported else claims[k].rejected
        if sup.supported and (sid, text) not in target:
            target.append((sid, text))
        elif not sup.supported and sid not in target:
            target.append(sid)
    return claims
