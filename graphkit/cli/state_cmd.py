"""`graphkit state`: a patient's cancer, stage, biomarkers, performance status and treatments at a date."""

from __future__ import annotations

import datetime as dt

import typer
from rich.table import Table

from graphkit.cli.common import console, open_store, print_json
from graphkit.errors import BadInputError


def _date(value: str | None) -> dt.date | None:
    if not value:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise BadInputError(f"--at {value!r} is not a date", fix="write it as YYYY-MM-DD") from None


def show_state(
    patient: str = typer.Argument(..., help="Patient id."),
    at: str = typer.Option(None, "--at", help="The state as of this date (YYYY-MM-DD); default: the whole record."),
    save: bool = typer.Option(False, "--save", help="Store it as a (:PatientState) snapshot the Browser can show."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
):
    """Print a patient's state: cancers (by site, through the concept hierarchy), the latest stage (group,
    TNM, clinical or pathological), biomarkers with values (HR derived from ER/PR), ECOG, and treatments
    with their course, each with the events it rests on; conflicts and implausible dates are listed,
    never resolved. The output quotes the record (PHI).

    Example: graphkit state demo-p001 --at 2024-06-30
    """
    from graphkit.state.io import patient_state, save_snapshot

    when = _date(at)
    with open_store() as store:
        st = patient_state(store, patient, when)
        snapshot = save_snapshot(store, st) if save else None
    if as_json:
        print_json({**st.as_dict(), "snapshot": snapshot})
        return
    table = Table(title=f"State of {patient}" + (f" on {st.at}" if st.at else ""), show_lines=False)
    for col in ("fact", "value", "date", "evidence"):
        table.add_column(col)
    for c in st.cancers:
        table.add_row("cancer", f"{c.name} ({c.site or 'site ?'})", c.first or "", ", ".join(e.event for e in c.evidence[:2]))
    if st.stage:
        s = st.stage
        table.add_row("stage", f"{s.group or '?'} {s.tnm or ''} ({s.basis or 'basis ?'}{', derived' if s.derived else ''})",
                      s.date or "", ", ".join(e.event for e in s.evidence[:2]))
    for name, m in sorted(st.markers.items()):
        extra = f" from {'/'.join(m.derived_from)}" if m.derived_from else ""
        table.add_row(name, m.status + extra, m.date or "", ", ".join(e.event for e in m.evidence[:2]))
    if st.performance:
        p = st.performance
        table.add_row("performance", f"{p.scale} {p.value}", p.date or "", p.evidence[0].event)
    if st.response:
        r = st.response
        table.add_row("response", f"clinical response {r.value}", r.date or "", ", ".join(e.event for e in r.evidence[:2]))
    for t in st.treatments:
        table.add_row(t.kind.lower(), f"{t.name} ({t.status})", t.first or "", t.evidence[0].event if t.evidence else "")
    for t in st.planned:
        table.add_row("planned", t.name, t.first or "", t.evidence[0].event if t.evidence else "")
    console.print(table)
    for i in st.issues:
        console.print(f"[yellow]{i.kind}[/]: {i.message} ({', '.join(e.event for e in i.evidence[:3])})")
    if snapshot:
        console.print(f"stored as (:PatientState {{id: {snapshot!r}}})")


def assess(
    patient: str = typer.Argument(None, help="Patient id (or --all)."),
    all_patients: bool = typer.Option(False, "--all", help="Every patient in the graph (a batch job)."),
    at: str = typer.Option(None, "--at", help="As of this date (YYYY-MM-DD); default today."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
):
    """What the guideline says should happen for a patient (normative), beside the descriptive
    alignment: the guideline paths the patient is eligible for given the state, each step done, due,
    overdue (with the date it became overdue), missing, not yet due, not applicable, an option, or
    done although not indicated; the facts to test or document; and one line when the descriptive
    alignment disagrees. Stored as (:CareAssessment)-[:HAS_ITEM]->(:CareItem) with the state snapshot.

    Example: graphkit assess demo-p001
    Example: graphkit assess --all --at 2025-01-01 --json
    """
    from graphkit.reason.job import assess_patient, assess_patients

    if bool(patient) == bool(all_patients):
        raise BadInputError("name one patient, or use --all", fix="graphkit assess --help")
    when = _date(at)
    with open_store() as store:
        if all_patients:
            ids = [r["id"] for r in store.read("align.patients_all")]
            counts = assess_patients(store, ids, when)
            print_json(counts) if as_json else console.print(
                f"{counts['patients']} patients assessed: {counts['with_guideline']} with an applicable guideline, "
                f"{counts['without_guideline']} without")
            return
        result = assess_patient(store, patient, when, save=True)
    if as_json:
        print_json({"state": result.state.as_dict(), "assessments": [a.as_dict() for a in result.assessments]})
        return
    if not result.applicable:
        for a in result.assessments:
            console.print(f"{a.guideline} {a.version}: does not apply ({a.reason})")
        console.print("No guideline-based treatment recommendation for this patient.")
        return
    for a in result.applicable:
        table = Table(title=f"{a.guideline} {a.version} for {patient}" + (f" on {a.at}" if a.at else ""))
        for col in ("step", "status", "date", "due from", "overdue since", "why / evidence"):
            table.add_column(col)
        for i in sorted(a.items, key=lambda i: i.position):
            table.add_row(i.name, i.status, i.date or "", i.due_from or "", i.overdue_since or "",
                          i.reason or ", ".join(i.evidence[:2]))
        console.print(table)
        for m in a.missing_info:
            console.print(f"[yellow]missing information[/]: {m.fact} is {m.state} — test or document it"
                          + (f" ({m.step})" if m.step else ""))
        if a.disagreement:
            console.print(f"[yellow]descriptive vs normative[/]: {a.disagreement}")
    for i in result.state.issues:
        console.print(f"[yellow]could not decide ({i.kind})[/]: {i.message}")
