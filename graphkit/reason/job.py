"""Normative reasoning for patients: read state and guidelines from the graph, assess, store.

``assess_patient`` is the unit: one graph read for the facts (plus the guideline specs, read once
per process and cached by content hash), pure reasoning, optional writes of the state snapshot and of
one (:CareAssessment) per applicable guideline.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field

from graphkit.errors import BadInputError
from graphkit.guidelines.paths import GuidelinePath, enumerate_paths
from graphkit.guidelines.spec import GuidelineSpec, spec_from_json
from graphkit.reason.model import GuidelineAssessment
from graphkit.reason.normative import assess
from graphkit.state.build import build_state
from graphkit.state.io import load_facts, save_snapshot
from graphkit.state.model import Fact, PatientState
from graphkit.store import GraphStore

_CACHE: dict[str, tuple[GuidelineSpec, list[GuidelinePath]]] = {}


@dataclass
class LoadedGuideline:
    spec: GuidelineSpec
    paths: list[GuidelinePath]
    condition_codes: frozenset[str]


@dataclass
class PatientReasoning:
    state: PatientState
    assessments: list[GuidelineAssessment] = field(default_factory=list)

    @property
    def applicable(self) -> list[GuidelineAssessment]:
        return [a for a in self.assessments if a.applies]


def load_guideline_specs(store: GraphStore, at: dt.date | None = None) -> list[LoadedGuideline]:
    """Guideline editions in force at ``at`` (their stored spec JSON) with their enumerated paths."""
    out = []
    for r in store.read("reason.guidelines_in_force", at=at.isoformat() if at else None):
        if not r["spec"]:
            raise BadInputError(f"guideline {r['id']} {r['version']} was loaded by an older graphkit and has no "
                                "stored spec", fix="reload it: graphkit guidelines load guidelines/ --force")
        key = r["sha256"] or r["spec"]
        if key not in _CACHE:
            spec = spec_from_json(r["spec"])
            _CACHE[key] = (spec, enumerate_paths(spec))
        spec, paths = _CACHE[key]
        out.append(LoadedGuideline(spec, paths, frozenset(r["condition_codes"])))
    return out


def reason_about(patient: str, facts: list[Fact], guidelines: list[LoadedGuideline],
                 at: dt.date | None = None, descriptive: dict | None = None) -> PatientReasoning:
    """State, eligibility and normative conformance for one patient. Pure."""
    state = build_state(patient, facts, at)
    when = at or dt.date.today()
    out = PatientReasoning(state)
    for g in guidelines:
        a = assess(g.spec, g.paths, state, when, g.condition_codes)
        if descriptive and descriptive.get("guideline") == g.spec.id:
            a.descriptive_path = descriptive.get("path")
            a.disagreement = disagreement(a, descriptive)
        out.assessments.append(a)
    return out


def disagreement(a: GuidelineAssessment, descriptive: dict) -> str | None:
    """One line when the descriptive alignment (the path that best explains the recorded care) is not a
    path this patient is eligible for, or hides steps the normative view finds overdue or missing."""
    path = descriptive.get("path")
    if not path or not a.applies:
        return None
    late = [i.step for i in a.by_status("overdue", "missing")]
    if path not in a.eligible_paths:
        return (f"The recorded care best matches a path this patient is not eligible for ({path}); "
                f"the guideline's paths for the patient's state expect: {', '.join(late) or 'see next steps'}.")
    if path not in a.followed_paths and late:
        return f"The descriptive alignment follows {path}, but for the patient's state {', '.join(late)} is overdue or missing."
    return None


def assess_patient(store: GraphStore, patient: str, at: dt.date | None = None, *, save: bool = False,
                   guidelines: list[LoadedGuideline] | None = None,
                   editions_at: dt.date | None = None) -> PatientReasoning:
    """The patient's state at ``at`` against the latest guideline editions (or those in force at
    ``editions_at``, for an audit of what was expected then)."""
    store.require_patients([patient])
    guidelines = guidelines if guidelines is not None else load_guideline_specs(store, editions_at)
    alignment = store.read("context.patient_alignment", patient=patient)
    facts = load_facts(store, [patient])[patient]
    result = reason_about(patient, facts, guidelines, at, alignment[0] if alignment else None)
    if save:
        save_reasoning(store, result)
    return result


def assessment_id(a: GuidelineAssessment) -> str:
    """The (:CareAssessment) id: one per patient, guideline, date and edition."""
    return f"assess:{a.patient}|{a.guideline}|{a.at or 'latest'}:{a.version}"


def assessment_params(a: GuidelineAssessment, state_id: str | None) -> dict:
    key = f"{a.patient}|{a.guideline}|{a.at or 'latest'}"
    return {"patient": a.patient, "id": assessment_id(a), "key": key, "guideline": a.guideline,
            "version": a.version, "at": a.at, "applies": a.applies, "reason": a.reason,
            "followed_paths": a.followed_paths,
            "missing_info": [f"{m.fact}: {m.state}" for m in a.missing_info],
            "descriptive_path": a.descriptive_path, "disagreement": a.disagreement, "state": state_id,
            "json": json.dumps(a.as_dict(), default=str, sort_keys=True),
            "items": [{"id": i.item_id(a.patient, a.guideline, a.version, a.at), "step": i.step, "step_uid": i.step_uid,
                       "status": i.status, "name": i.name, "date": i.date, "due_from": i.due_from,
                       "overdue_since": i.overdue_since, "window": i.window, "reason": i.reason,
                       "option_of": i.option_of, "position": i.position, "evidence": i.evidence}
                      for i in a.items]}


def save_reasoning(store: GraphStore, result: PatientReasoning) -> None:
    """The state snapshot and one assessment per guideline that applies (or, when none does, the
    reason for each), each in one transaction."""
    state_id = save_snapshot(store, result.state)
    keep = result.applicable or result.assessments
    for a in keep:
        store.write("reason.write_assessment", **assessment_params(a, state_id))


def assess_patients(store: GraphStore, patients: list[str], at: dt.date | None = None, *, chunk: int = 100,
                    save: bool = True, guidelines: list[LoadedGuideline] | None = None,
                    progress=None) -> dict[str, int]:
    """Batch: state, eligibility and normative conformance for many patients, one fact read per
    chunk, each patient's snapshot and assessments written as it is done. Returns counts by outcome
    (applicable guideline or none). O(total facts)."""
    guidelines = guidelines if guidelines is not None else load_guideline_specs(store)
    counts = {"patients": 0, "with_guideline": 0, "without_guideline": 0}
    for i in range(0, len(patients), chunk):
        ids = patients[i:i + chunk]
        facts = load_facts(store, ids)
        for pid in ids:
            result = reason_about(pid, facts[pid], guidelines, at)
            if save:
                save_reasoning(store, result)
            counts["patients"] += 1
            counts["with_guideline" if result.applicable else "without_guideline"] += 1
        if progress:
            progress(len(ids))
    return counts
