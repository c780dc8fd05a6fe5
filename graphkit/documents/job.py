"""Clinical documents for a patient, end to end: read the graph, build, check, store with citations."""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import re
from dataclasses import dataclass, field

from graphkit.context.subgraph import Citations
from graphkit.documents.attribution import check_pairs, stored_facts
from graphkit.documents.soap import SECTIONS, TITLES, SoapNote, build_soap, encounter_date, state_facts
from graphkit.documents.summary import ASPECTS, Claim, attribute, claims_from
from graphkit.errors import BadInputError
from graphkit.llm import LLMError
from graphkit.reason.job import load_guideline_specs, reason_about
from graphkit.state.io import load_facts
from graphkit.store import GraphStore

log = logging.getLogger(__name__)
_ALIAS = re.compile(r"\[([A-Z]\d+)\]")
_SECTION_HEAD = re.compile(r"^\s*(SUBJECTIVE|OBJECTIVE|ASSESSMENT|PLAN)\s*:\s*", re.I | re.M)


@dataclass
class Document:
    id: str
    patient: str
    kind: str  # SOAP | summary
    encounter: str | None
    text: str
    mode: str
    model: str
    citations: list[dict] = field(default_factory=list)  # alias, id, label, part, supported
    unsupported: list[str] = field(default_factory=list)  # claims or sentences whose citations failed
    uncited: list[str] = field(default_factory=list)
    ms: float = 0.0
    note: str | None = None


def _doc_id(kind: str, patient: str, text: str) -> str:
    raw = f"{kind}|{patient}|{dt.datetime.now(dt.timezone.utc).isoformat()}|{text}"
    return f"doc-{kind.lower()}-" + hashlib.sha256(raw.encode()).hexdigest()[:16]


def _store(store: GraphStore, doc: Document, sections: list[str]) -> None:
    store.write("documents.write_document", id=doc.id, patient=doc.patient, kind=doc.kind, encounter=doc.encounter,
                text=doc.text, mode=doc.mode, model=doc.model, sections=sections, unsupported=doc.unsupported,
                uncited=doc.uncited, cites=doc.citations)


def soap_for_encounter(store: GraphStore, patient: str, encounter: str, embedder, llm=None, save: bool = True,
                       guidelines=None) -> tuple[Document, SoapNote]:
    """The SOAP note of one encounter; with ``llm``, its answer when it passes the checks."""
    store.require_patients([patient])
    rows = store.read("documents.encounter_sentences", patient=patient, encounter=encounter)
    if not rows:
        known = {r["id"] for r in store.read("documents.patient_encounters", patient=patient)}
        if encounter not in known:
            raise BadInputError(f"patient {patient!r} has no encounter {encounter!r}",
                                fix="list them with `graphkit timeline PATIENT`")
        raise BadInputError(f"encounter {encounter!r} has no notes to write a SOAP note from",
                            fix="ingest its notes, or pick an encounter that has some")
    day = encounter_date(rows)
    guidelines = guidelines if guidelines is not None else load_guideline_specs(store)
    reasoning = reason_about(patient, load_facts(store, [patient])[patient], guidelines, day)
    a_lines, p_lines = state_facts(reasoning)
    note = build_soap(patient, encounter, rows, embedder, a_lines, p_lines, day.isoformat() if day else None)
    cites = Citations()
    text = note.render(cites.cite)
    doc = Document("", patient, "SOAP", encounter, text, "no-llm", "graphkit-deterministic", ms=note.ms)
    if llm is not None:
        try:
            doc = _llm_soap(note, cites, text, llm, embedder, rows) or doc
        except LLMError as exc:
            doc.mode, doc.model = "llm-fallback", f"graphkit-deterministic (LLM {llm.name} unusable)"
            doc.note = exc.message
            log.warning("LLM SOAP answer unusable (%s); storing the no-LLM note", type(exc).__name__)
    doc.citations = [{"alias": a, "id": cites.by_alias[a][0], "label": cites.by_alias[a][1], "part": _part_of(doc.text, a),
                      "supported": True} for a in dict.fromkeys(_ALIAS.findall(doc.text)) if a in cites.by_alias]
    doc.uncited = [s for s in _sentences(doc.text) if not _ALIAS.search(s)]
    doc.id = _doc_id("SOAP", patient, doc.text)
    if save:
        _store(store, doc, [TITLES[s] for s in SECTIONS])
    return doc, note


def _part_of(text: str, alias: str) -> str:
    head = None
    for line in text.splitlines():
        m = _SECTION_HEAD.match(line)
        if m:
            head = m.group(1).title()
        if f"[{alias}]" in line:
            return head or "note"
    return "note"


def _sentences(text: str) -> list[str]:
    out = []
    for line in text.splitlines():
        body = _SECTION_HEAD.sub("", line).strip()
        out += [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])|(?<=\])\s+(?=[A-Z])", body) if s.strip()]
    return [s for s in out if s and "Nothing documented" not in s]


def _llm_soap(note: SoapNote, cites: Citations, det_text: str, llm, embedder, rows) -> Document | None:
    """Ask the model to write the note from the cited facts; keep it only when every citation names a
    fact given, and mark sentences whose cited note sentences do not support them."""
    facts = "\n".join(f"- ({TITLES[s]}) {ln.text} " + "".join(f"[{cites.cite(i, lab)}]" for i, lab in ln.cites)
                      for s in SECTIONS for ln in note.sections.get(s, []))
    allowed = set(cites.by_alias)
    prompt = ("Write a SOAP note for this encounter using ONLY the facts below, in four parts starting with "
              "SUBJECTIVE:, OBJECTIVE:, ASSESSMENT:, PLAN:. End every sentence with the ids of the facts that "
              "support it, e.g. [S3][E2]. Cite only the ids given.\n\nFacts:\n" + facts)
    answer = llm.complete(prompt, system="You write concise, faithful clinical notes.")
    if len(_SECTION_HEAD.findall(answer)) < 4:
        raise LLMError("the answer is not a four-part SOAP note")
    cited = set(_ALIAS.findall(answer))
    if not cited or cited - allowed:
        raise LLMError(f"the answer cites ids that were not given: {sorted(cited - allowed)[:5]}" if cited
                       else "the answer cites nothing")
    texts = {r["id"]: r["text"] for r in rows}
    pairs, owners = [], []
    for sent in _sentences(answer):
        for alias in _ALIAS.findall(sent):
            node, label = cites.by_alias[alias]
            if label == "Sentence" and node in texts:
                pairs.append((_ALIAS.sub("", sent), texts[node]))
                owners.append(sent)
    bad = sorted({o for o, sup in zip(owners, check_pairs(pairs, embedder)) if not sup.supported})
    return Document("", note.patient, "SOAP", note.encounter, answer.strip(), "llm", llm.name, unsupported=bad)


def sentence_statements(store: GraphStore, sentence_ids, facts) -> dict[str, dict[str, set[str]]]:
    """Sentence id -> what ingestion stored for it (:func:`graphkit.documents.attribution.stored_facts`),
    from ``facts`` already read (``state.model.Fact``): one query for the sentences' events."""
    by_id = {f.id: f for f in facts}
    rows = store.read("documents.sentence_events", ids=sorted(set(sentence_ids)))
    return {r["sentence"]: stored_facts([by_id[e] for e in r["events"] if e in by_id]) for r in rows}


def summary_for_patient(store: GraphStore, patient: str, embedder, at: dt.date | None = None, save: bool = True,
                        guidelines=None) -> tuple[Document, list[Claim]]:
    """Aspect summaries (PCoA) of one patient, every claim's citations checked."""
    store.require_patients([patient])
    guidelines = guidelines if guidelines is not None else load_guideline_specs(store)
    facts = load_facts(store, [patient])[patient]
    reasoning = reason_about(patient, facts, guidelines, at)
    claims = claims_from(reasoning)
    events = sorted({e for c in claims for e in c.events})
    ev_sent = {r["event"]: (r["sentence"], r["text"]) for r in store.read("documents.event_sentences", ids=events)}
    claims = attribute(claims, ev_sent, embedder,
                       statements=sentence_statements(store, [sid for sid, _ in ev_sent.values()], facts))
    cites = Citations()
    lines, citations = [], []
    for aspect in ASPECTS:
        mine = [c for c in claims if c.aspect == aspect]
        if not mine:
            lines.append(f"{aspect.upper()}: nothing recorded.")
            continue
        parts = []
        for c in mine:
            refs = [(sid, "Sentence") for sid, _ in c.sentences] + [x for x in c.extra if x[0]]
            parts.append(c.text + ". " + "".join(f"[{cites.cite(i, lab)}]" for i, lab in refs)
                         + ("" if c.supported else " (unsupported: no cited sentence states it)"))
        lines.append(f"{aspect.upper()}: " + " ".join(parts))
    text = "\n".join(lines)
    for alias, (node, label) in cites.by_alias.items():
        citations.append({"alias": alias, "id": node, "label": label, "part": "summary", "supported": True})
    doc = Document(_doc_id("summary", patient, text), patient, "summary", None, text, "no-llm", "graphkit-deterministic",
                   citations, [c.text for c in claims if not c.supported])
    if save:
        _store(store, doc, list(ASPECTS))
    return doc, claims
