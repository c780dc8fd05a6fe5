"""A patient's subgraph as compact, citable context: every fact carries a citation alias ([E3], [S2],
[G1], [C4]) that maps to the id of the graph node it came from (event, sentence, guideline step,
conformance item). Aliases are assigned in a fixed order, so the same graph gives the same aliases.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from graphkit.store import GraphStore

#: Event kinds that tell the clinical story (vitals and routine panels stay out of the summary).
STORY_KINDS = ("Cancer", "Stage", "Biomarker", "Procedure", "Medication", "Problem")


@dataclass
class Citations:
    """alias -> (node id, node label); one alias per node."""

    by_alias: dict[str, tuple[str, str]] = field(default_factory=dict)
    _by_id: dict[str, str] = field(default_factory=dict)
    _count: dict[str, int] = field(default_factory=dict)

    def cite(self, node_id: str, label: str) -> str:
        if node_id in self._by_id:
            return self._by_id[node_id]
        prefix = {"Event": "E", "Sentence": "S", "GuidelineStep": "G", "ConformanceItem": "C", "CareItem": "N",
                  "CareAssessment": "A"}[label]
        self._count[prefix] = self._count.get(prefix, 0) + 1
        alias = f"{prefix}{self._count[prefix]}"
        self.by_alias[alias] = (node_id, label)
        self._by_id[node_id] = alias
        return alias

    def forget(self, alias: str) -> None:
        """Withdraw an alias whose fact did not make it into the prompt (its number is not reused)."""
        node_id, _ = self.by_alias.pop(alias)
        del self._by_id[node_id]


@dataclass
class PatientContext:
    patient: str
    header: dict
    events: list[dict]
    negations: list[dict]
    alignment: dict | None
    conformance: list[dict]
    sentences: list[dict]
    citations: Citations = field(default_factory=Citations)
    reasoning: object | None = None  # graphkit.reason.job.PatientReasoning, when computed

    @property
    def run(self) -> str | None:
        return self.alignment["run"] if self.alignment else None


def load_context(store: GraphStore, patient: str, max_events: int = 60) -> PatientContext:
    """Read everything the query layer needs about one patient (five reads). Raises BadInputError
    for an unknown patient."""
    store.require_patients([patient])
    header = store.read("context.patient_header", patient=patient)
    events = [e for e in store.read("context.patient_events", patient=patient) if e["kind"] in STORY_KINDS]
    events = _dedupe(events)[:max_events]
    negations = store.read("context.patient_negations", patient=patient, limit=10)
    alignment = store.read("context.patient_alignment", patient=patient)
    alignment = alignment[0] if alignment else None
    conformance = []
    if alignment:
        conformance = [c for c in store.read("context.patient_conformance", patient=patient, run=alignment["run"],
                                             off_min_score=0.45)]
    sentences = store.read("context.patient_sentences", patient=patient)
    return PatientContext(patient, header[0], events, negations, alignment, conformance, sentences)


def _dedupe(events: list[dict]) -> list[dict]:
    """One line per concept: repeats (twelve chemotherapy cycles; a note and its coded fact saying the
    same) collapse into one entry with first and last date and a count, citing the first event.
    Entries come back ordered by first date. O(n)."""
    groups: dict[tuple, dict] = {}
    for e in events:
        text = re.sub(r"\s*\((procedure|disorder|finding|regime/therapy|situation)\)$", "", e["text"] or "",
                      flags=re.I).strip()
        key = (e["kind"], text.lower(), e.get("value"))
        g = groups.get(key)
        if g is None:
            groups[key] = {**e, "text": text, "count": 1, "last": e["date"]}
        else:
            g["count"] += 1
            g["last"] = max(g["last"] or "", e["date"] or "")
    return sorted(groups.values(), key=lambda g: (g["date"] or "", g["id"]))


def _when(e: dict) -> str:
    if e.get("count", 1) > 1 and e.get("last") and e["last"] != e["date"]:
        return f"{e['date']} to {e['last']} (x{e['count']})"
    return str(e["date"])


def render_graph_context(ctx: PatientContext) -> str:
    """Compact text of the subgraph; every line ends with its citation alias. O(facts)."""
    cite = ctx.citations.cite
    h = ctx.header
    lines = [f"Patient {ctx.patient}: {h.get('gender') or 'sex unknown'}, born {h.get('birth_date') or 'unknown'}; "
             f"{h['encounters']} encounters {(h['first_encounter'] or '')[:10]} to {(h['last_encounter'] or '')[:10]}."]
    profile = [e for e in ctx.events if e["kind"] in ("Cancer", "Stage", "Biomarker")]
    if profile:
        lines.append("Diagnosis, stage and biomarkers:")
        for e in profile[:12]:
            value = f" = {e['value']}" if e.get("value") else ""
            lines.append(f"- {_when(e)}: {e['kind']} {e['text']}{value} [{cite(e['id'], 'Event')}]")
    lines.append("Timeline (treatments and procedures):")
    for e in [e for e in ctx.events if e["kind"] in ("Procedure", "Medication", "Problem")][:40]:
        lines.append(f"- {_when(e)}: {e['kind']} {e['text']} [{cite(e['id'], 'Event')}]")
    if ctx.negations:
        lines.append("Ruled out or family history (not the patient's events):")
        for e in ctx.negations[:6]:
            lines.append(f"- {e['date']}: {e['assertion']} {e['kind']} {e['text']} [{cite(e['id'], 'Event')}]")
    if ctx.reasoning is not None:
        lines += normative_lines(ctx.reasoning, cite)
    a = ctx.alignment
    if not a or not a["path"]:
        lines.append("Descriptive alignment: " + (f"none ({a['reason'] or a['status']})" if a else "not run yet."))
        return "\n".join(lines)
    lines.append(f"Descriptive alignment (the path that best explains the recorded care; for context only): "
                 f"{a['guideline']} version {a['version']}, path {a['path']} (conditions {a['conditions']}):")
    status = {c["step_uid"]: c for c in ctx.conformance if c["type"] in ("matched", "missing", "pending")}
    for st in a["steps"]:
        c = status.get(st["uid"])
        refs = f"[{cite(st['uid'], 'GuidelineStep')}]"
        if c is None:
            state = "decision (not recorded as an event)"
        elif c["type"] == "matched":
            state = f"done {c['date'] or 'undated'}"
            refs += "".join(f"[{cite(x, 'Event')}]" for x in c["events"][:1])
        else:
            state = c["type"] + (" (next expected step)" if "next expected" in c["detail"] else "")
            refs += f"[{cite(c['id'], 'ConformanceItem')}]"
        lines.append(f"- step {st['pos'] + 1}: {st['name']}: {state} {refs}")
    other = [c for c in ctx.conformance if c["type"] not in ("matched", "missing", "pending")]
    if other:
        lines.append("Other conformance findings:")
        for c in other[:12]:
            ev = "".join(f"[{cite(x, 'Event')}]" for x in c["events"][:1])
            lines.append(f"- {c['type']} {c['date'] or ''}: {c['detail']} [{cite(c['id'], 'ConformanceItem')}]{ev}")
    return "\n".join(lines)


def normative_lines(r, cite) -> list[str]:
    """The normative assessment as prompt lines (what the recommendation must come from)."""
    from graphkit.reason.job import assessment_id

    lines = []
    applicable = [a for a in r.assessments if a.applies]
    if not applicable:
        reasons = "; ".join(sorted({a.reason for a in r.assessments if a.reason})) or "no guideline loaded"
        ref = f"[{cite(assessment_id(r.assessments[0]), 'CareAssessment')}]" if r.assessments else ""
        return [f"Guideline reasoning: no guideline applies ({reasons}); make no treatment recommendation {ref}"]
    for a in applicable:
        lines.append(f"Guideline reasoning for {a.guideline} version {a.version} (normative: what the guideline "
                     f"says should happen for this patient's state); steps with their status:")
        for i in sorted(a.items, key=lambda i: i.position):
            extra = "".join(f", {k} {v}" for k, v in (("done", i.date), ("due from", i.due_from),
                                                       ("overdue since", i.overdue_since), ("why", i.reason),
                                                       ("option at", i.option_of)) if v)
            lines.append(f"- {i.name}: {i.status}{extra} [{cite(i.step_uid, 'GuidelineStep')}]"
                         f"[{cite(i.item_id(a.patient, a.guideline, a.version, a.at), 'CareItem')}]")
        for m in a.missing_info:
            ref = f"[{cite(m.step_uid, 'GuidelineStep')}]" if m.step_uid else ""
            lines.append(f"- missing information: {m.fact} {m.state} (test or document it) {ref}")
        if a.disagreement:
            lines.append(f"- note: {a.disagreement}")
    return lines


def next_steps(ctx: PatientContext) -> list[dict]:
    """The followed path's pending steps, first one first (what the guideline expects next)."""
    if not ctx.alignment or not ctx.alignment["path"]:
        return []
    pending = {c["step_uid"] for c in ctx.conformance if c["type"] == "pending"}
    return [s for s in ctx.alignment["steps"] if s["uid"] in pending]
