"""No-LLM mode: a deterministic, graph-grounded summary and recommendation built from the timeline,
the aligned path and the conformance report. Every sentence cites the facts it states."""

from __future__ import annotations

from graphkit.context.subgraph import PatientContext, next_steps

_MARKERS = ("HER2", "Estrogen receptor", "Progesterone receptor", "Estrogen+Progesterone", "EGFR", "ALK",
            "PD-L1", "KRAS", "MSI")


def _value(v: str | None) -> str:
    v = (v or "").replace("(qualifier value)", "").replace("American Joint Committee on Cancer", "").strip()
    return v


def summarize(ctx: PatientContext) -> tuple[str, str]:
    """(summary, recommendation) text with [alias] citations (aliases come from ``ctx.citations``)."""
    cite = ctx.citations.cite
    ev = ctx.events
    summary: list[str] = []
    cancers = [e for e in ev if e["kind"] == "Cancer"]
    if cancers:
        first = cancers[0]
        summary.append(f"{first['text'][0].upper() + first['text'][1:]} first recorded on {first['date']} "
                       f"[{cite(first['id'], 'Event')}].")
    stages = [e for e in ev if e["kind"] == "Stage" and "stage group" in (e["text"] or "").lower()]
    if stages:
        s = stages[-1]
        summary.append(f"Stage group: {_value(s['value'])} ({s['date']}) [{cite(s['id'], 'Event')}].")
    markers = [e for e in ev if e["kind"] == "Biomarker" and any(m.lower() in (e["text"] or "").lower() for m in _MARKERS)]
    if markers:
        parts = [f"{m['text'].split(' [')[0]} {_value(m['value']) or 'reported'} [{cite(m['id'], 'Event')}]"
                 for m in markers[:4]]
        summary.append("Biomarkers: " + "; ".join(parts) + ".")
    a = ctx.alignment
    done = [c for c in ctx.conformance if c["type"] == "matched"]
    if a and a["path"]:
        steps = {s["uid"]: s for s in a["steps"]}
        observable = [s for s in a["steps"]]
        summary.append(f"Care was aligned to the {a['guideline']} guideline (version {a['version']}): "
                       f"{len(done)} of {len(observable)} path steps are documented as done "
                       f"[{cite(a['steps'][0]['uid'], 'GuidelineStep')}].")
        treatments = [c for c in done if steps.get(c["step_uid"], {}).get("kind") == "Treatment"]
        if treatments:
            items = [f"{steps[c['step_uid']]['name']} from {c['date']} [{cite(c['step_uid'], 'GuidelineStep')}]"
                     + "".join(f"[{cite(x, 'Event')}]" for x in c["events"][:1]) for c in treatments[:4]]
            summary.append("Treatment so far: " + "; ".join(items) + ".")
    elif a:
        summary.append(f"No guideline path could be aligned: {a['reason'] or a['status']}.")
    else:
        summary.append("The record has not been aligned to a guideline yet.")

    rec: list[str] = []
    if a and a["path"]:
        nxt = next_steps(ctx)
        if nxt:
            s = nxt[0]
            pending = next(c for c in ctx.conformance if c["type"] == "pending" and c["step_uid"] == s["uid"])
            source = f" (evidence: {s['evidence_level']}, {s['evidence_source']})" if s.get("evidence_level") else ""
            rec.append(f"Next expected step on the {a['guideline']} path: {s['name']}{source} "
                       f"[{cite(s['uid'], 'GuidelineStep')}][{cite(pending['id'], 'ConformanceItem')}].")
        else:
            rec.append(f"All steps of the followed {a['guideline']} path are documented; continue follow-up "
                       f"as the guideline specifies [{cite(a['steps'][-1]['uid'], 'GuidelineStep')}].")
        for c in [c for c in ctx.conformance if c["type"] == "condition_mismatch"][:2]:
            rec.append(f"The care followed a branch whose conditions the record contradicts ({c['detail']}): "
                       f"review whether the branch for the recorded status was intended "
                       f"[{cite(c['id'], 'ConformanceItem')}].")
        for c in [c for c in ctx.conformance if c["type"] == "missing"][:3]:
            rec.append(f"Check whether {c['step']} was done elsewhere: the guideline expects it but the record "
                       f"does not show it [{cite(c['id'], 'ConformanceItem')}][{cite(c['step_uid'], 'GuidelineStep')}].")
        for c in [c for c in ctx.conformance if c["type"] in ("timing_violation", "order_violation")][:2]:
            refs = f"[{cite(c['id'], 'ConformanceItem')}]" + "".join(f"[{cite(x, 'Event')}]" for x in c["events"][:1])
            rec.append(f"Review {c['type'].replace('_', ' ')}: {c['detail']} {refs}.")
    else:
        rec.append("No guideline-based recommendation can be made until the record aligns to a loaded guideline.")
    return " ".join(summary), " ".join(rec)
