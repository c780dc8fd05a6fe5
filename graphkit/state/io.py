"""Reading a patient's facts from the graph and storing state snapshots (the I/O edge of the state)."""

from __future__ import annotations

import datetime as dt
import json

from graphkit.align.trajectory import parse_date
from graphkit.state.build import build_state
from graphkit.state.model import Fact, PatientState
from graphkit.store import GraphStore


#: the order a fact's codes are read in: its first code names the concept wherever facts are grouped
#: (the graph returns them in no fixed order; an ingredient's RxNorm before its ATC or DrugBank ids)
CODE_ORDER = ("RxNorm", "regimen", "SNOMED-CT", "DOID", "NCIT", "ICD-10-CM", "LOINC", "HPO", "ATC", "DrugBank",
              "MeSH", "UMLS")


def code_rank(code: str) -> tuple[int, str]:
    system = code.split("|", 1)[0]
    return (CODE_ORDER.index(system) if system in CODE_ORDER else len(CODE_ORDER), code)


def fact_of(row: dict) -> Fact:
    """A query row of ``state.patient_facts`` as a Fact."""
    try:
        detail = json.loads(row["detail"]) if row.get("detail") else {}
    except (TypeError, ValueError):
        detail = {}
    return Fact(row["id"], row["kind"] or "", row["text"] or "", row["assertion"], parse_date(row["valid_time"]),
                row.get("value"), tuple(row.get("values") or ()), detail, tuple(row.get("flags") or ()),
                tuple(sorted(row.get("codes") or (), key=code_rank)), tuple(row.get("ancestors") or ()), row.get("note"),
                row.get("source"), row.get("context"), row.get("order") or 0, parse_date(row.get("recorded_time")))


def load_facts(store: GraphStore, patients: list[str]) -> dict[str, list[Fact]]:
    """Every patient's facts (one query for the whole list)."""
    out: dict[str, list[Fact]] = {p: [] for p in patients}
    for r in store.read("state.patient_facts", patients=patients):
        out[r["patient"]].append(fact_of(r))
    return out


def patient_state(store: GraphStore, patient: str, at: dt.date | None = None) -> PatientState:
    store.require_patients([patient])
    return build_state(patient, load_facts(store, [patient])[patient], at)


def snapshot_params(state: PatientState) -> dict:
    """Parameters of ``state.write_snapshot``: flat properties the Browser can show, the JSON, and the
    events the state rests on (SUPPORTED_BY)."""
    ev = {e.event for c in state.cancers for e in c.evidence}
    ev |= {e.event for e in (state.stage.evidence if state.stage else ())}
    ev |= {e.event for m in state.markers.values() for e in m.evidence}
    ev |= {e.event for t in state.treatments for e in t.evidence[:1]}
    return {"patient": state.patient, "id": f"{state.patient}@{state.at or 'latest'}", "at": state.at,
            "cancers": [c.name for c in state.cancers],
            "stage": state.stage.group if state.stage else None,
            "stage_basis": state.stage.basis if state.stage else None,
            "tnm": state.stage.tnm if state.stage else None,
            "biomarkers": [f"{k}={v.status}" for k, v in sorted(state.markers.items())],
            "ecog": state.performance.value if state.performance else None,
            "treatments": [f"{t.name} ({t.status})" for t in state.treatments],
            "issues": [i.message for i in state.issues], "json": state.to_json(), "evidence": sorted(ev)}


def save_snapshot(store: GraphStore, state: PatientState) -> str:
    params = snapshot_params(state)
    store.write("state.write_snapshot", **params)
    return params["id"]
