"""No-LLM mode: the summary and recommendation written from the patient state and the normative
assessment (what the guideline says should happen), never from the descriptive alignment alone.

Order of the recommendation: overdue and missing steps, then what is due now, then options where the
eligible paths diverge, then information to test or document, then care given without an indication,
then what could not be decided. Every sentence cites: events for the patient's facts, guideline steps
for what the guideline says, care items for the status of a step for this patient.
"""

from __future__ import annotations

from collections.abc import Callable

from graphkit.reason.job import PatientReasoning, assessment_id
from graphkit.reason.model import SATISFIED, CareItem, GuidelineAssessment
from graphkit.state.model import PatientState

Cite = Callable[[str, str], str]

_STATUS_WORD = {"overdue": "Overdue", "missing": "Missing", "due": "Due now"}
_TREATMENT_KINDS = ("Treatment",)


def _refs(cite: Cite, ids, label: str, limit: int = 2) -> str:
    return "".join(f"[{cite(i, label)}]" for i in list(dict.fromkeys(ids))[:limit])


def _item_id(a: GuidelineAssessment, i: CareItem) -> str:
    return i.item_id(a.patient, a.guideline, a.version, a.at)


def state_summary(state: PatientState, cite: Cite) -> list[str]:
    out = []
    for c in state.cancers[:2]:
        site = f" ({c.site})" if c.site and c.site not in c.name.lower() else ""
        out.append(f"{c.name[0].upper() + c.name[1:]}{site}, first recorded {c.first or 'undated'} "
                   f"{_refs(cite, [e.event for e in c.evidence], 'Event', 1)}.")
    s = state.stage
    if s and s.group:
        how = "derived from TNM" if s.derived else s.basis or "basis not stated"
        tnm = f" {s.tnm}" if s.tnm else ""
        out.append(f"Stage {s.group}{tnm} ({how}, {s.date or 'undated'}) {_refs(cite, [e.event for e in s.evidence], 'Event', 1)}.")
    markers = [m for m in state.markers.values() if m.status not in ("conflicting",)]
    if markers:
        parts = [f"{m.name} {m.status}{' (from ' + '/'.join(m.derived_from) + ')' if m.derived_from else ''} "
                 f"{_refs(cite, [e.event for e in m.evidence], 'Event', 1)}" for m in sorted(markers, key=lambda m: m.name)[:8]]
        out.append("Biomarkers: " + "; ".join(parts) + ".")
    if state.performance:
        p = state.performance
        out.append(f"{p.scale} performance status {p.value} ({p.date}) {_refs(cite, [e.event for e in p.evidence], 'Event', 1)}.")
    if state.treatments:
        parts = [f"{t.name} ({t.status}, {t.first or 'undated'}) {_refs(cite, [e.event for e in t.evidence], 'Event', 1)}"
                 for t in state.treatments[:6]]
        out.append("Cancer treatment so far: " + "; ".join(parts) + ".")
    return out


def _because(i: CareItem, cite: Cite) -> str:
    sat = [c for c in i.conditions if c.verdict == SATISFIED]
    if not sat:
        return ""
    words = ", ".join(f"{c.fact} {c.observed}" if c.fact != "stage" else f"stage {c.observed}" for c in sat)
    return f"; eligible because {words}" + _refs(cite, [e for c in sat for e in c.evidence], "Event", 2)


def _evidence_level(i: CareItem) -> str:
    if not i.evidence_level:
        return ""
    return f"; evidence: {i.evidence_level}" + (f" ({i.evidence_source})" if i.evidence_source else "")


def assessment_sentences(a: GuidelineAssessment, cite: Cite) -> list[str]:
    out = []
    item = lambda i: f"[{cite(i.step_uid, 'GuidelineStep')}][{cite(_item_id(a, i), 'CareItem')}]"  # noqa: E731
    for i in a.by_status("overdue", "missing"):
        when = (f"due by {i.overdue_since} ({i.window})" if i.status == "overdue" and i.overdue_since else
                f"not documented although later care was given on {i.date}" if i.date else "not documented")
        out.append(f"{_STATUS_WORD[i.status]} ({a.guideline} {a.version}): {i.name}, {when}{_because(i, cite)}"
                   f"{_evidence_level(i)} {item(i)}.")
    for i in a.by_status("due"):
        since = f" since {i.due_from}" if i.due_from else ""
        out.append(f"Due now ({a.guideline} {a.version}): {i.name}{since}{_because(i, cite)}{_evidence_level(i)} {item(i)}.")
    options = a.by_status("option")
    groups: dict[str | None, list[CareItem]] = {}
    for i in options:
        groups.setdefault(i.option_of, []).append(i)
    for decision, items in groups.items():
        names = " or ".join(f"{i.name}{_because(i, cite)} {item(i)}" for i in items)
        at = f" after {decision}" if decision else ""
        out.append(f"Options{at} ({a.guideline} {a.version}), for the care team to choose: {names}.")
    for m in a.missing_info:
        step = f" ({m.step})" if m.step else ""
        refs = (f"[{cite(m.step_uid, 'GuidelineStep')}]" if m.step_uid else "") + _refs(cite, m.evidence, "Event", 1)
        if not refs:
            first = next(iter(a.items), None)
            refs = f"[{cite(_item_id(a, first), 'CareItem')}]" if first else ""
        out.append(f"Missing information: {m.fact} is {m.state}; test or document it{step} before the branch "
                   f"that depends on it can be chosen {refs}.")
    for i in a.by_status("done-not-indicated"):
        out.append(f"Given although not indicated for this patient: {i.name} ({i.date or 'undated'}): {i.reason} "
                   f"{item(i)}{_refs(cite, i.evidence, 'Event', 1)}.")
    if not out:
        upcoming = a.by_status("not-yet-due")
        if upcoming:
            i = upcoming[0]
            when = f" from {i.due_from}" if i.due_from else " once the steps before it are done"
            out.append(f"Nothing is due or overdue on the {a.guideline} {a.version} path; next: {i.name}{when} {item(i)}.")
        else:
            last = (a.next_steps or [max(a.items, key=lambda i: i.position, default=None)])[0]
            if last:
                out.append(f"Every step of the {a.guideline} {a.version} path for this patient is documented; "
                           f"care continues with {last.name} {item(last)}.")
    if a.disagreement:
        first = (a.by_status("overdue", "missing") or a.items)[:1]
        refs = "".join(item(i) for i in first)
        out.append(a.disagreement.rstrip(".") + f" {refs}.")
    return out


def normative_text(r: PatientReasoning, cite: Cite, ruled_out: list[dict] | None = None) -> tuple[str, str]:
    """(summary, recommendation) with [alias] citations. ``ruled_out``: the patient's negated or
    family-history events (cited when they are why no guideline applies)."""
    summary = state_summary(r.state, cite)
    rec: list[str] = []
    for a in r.applicable:
        rec += assessment_sentences(a, cite)
    if not r.applicable:
        cancers = [e for e in ruled_out or () if e.get("kind") == "Cancer"]
        why = "; ".join(sorted({a.reason for a in r.assessments if a.reason})) or "no guideline is loaded"
        refs = _refs(cite, [e["id"] for e in cancers], "Event", 2)
        refs += _refs(cite, [assessment_id(a) for a in r.assessments[:1]], "CareAssessment", 1)
        text = f"No guideline-based treatment recommendation: {why}"
        if cancers:
            text += " (the cancer mentions in the record are negated or a relative's)"
        rec.append(text + (f" {refs}." if refs else "."))
        if not summary:
            summary.append(rec[-1])
    for i in r.state.issues:
        refs = _refs(cite, [e.event for e in i.evidence], "Event", 2)
        if refs:
            rec.append(f"Could not decide ({i.kind}): {i.message} {refs}.")
    return " ".join(summary), " ".join(rec)


def treatment_steps_recommended(r: PatientReasoning) -> list[CareItem]:
    """The treatment steps the recommendation asks for (due, overdue, missing or offered as options)."""
    return [i for a in r.applicable for i in a.next_steps if i.kind in _TREATMENT_KINDS]
