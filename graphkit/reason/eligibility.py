"""Eligibility: a guideline path's conditions against a patient state, three-valued.

Each condition is satisfied, violated or unknown (the fact is not documented, pending, conflicting or
not precise enough). A path with no violated condition is eligible; its unknown conditions become
"test or document X". Nothing is guessed: an equivocal HER2, a stage "II" against a bound at IIB, or an
ER stated both ways leaves the condition unknown.
"""

from __future__ import annotations

from graphkit.clinical.sites import site_group, site_of
from graphkit.clinical.values import DRIVER_FOUND, DRIVERS, STAGE_GROUP, marker_satisfies, stage_rank
from graphkit.guidelines.spec import Condition
from graphkit.reason.model import SATISFIED, UNKNOWN, VIOLATED, Check
from graphkit.state.model import PatientState


def _ev(items) -> tuple[str, ...]:
    return tuple(e.event for e in items)


def check_marker(state: PatientState, name: str, required: str) -> Check:
    m = state.markers.get(name)
    if required == "any":
        return Check(name, "any", m.status if m else None, SATISFIED if m else UNKNOWN, _ev(m.evidence) if m else ())
    if m is None:
        other = next((k for k in sorted(DRIVERS - {name}) if name in DRIVERS and required in DRIVER_FOUND
                      and state.marker(k) in DRIVER_FOUND), None)
        if other:  # EGFR-mutant: a branch for an NTRK fusion is not open, whatever NTRK would show
            o = state.markers[other]
            return Check(name, required, f"not tested; {other} {o.status} (drivers exclude each other)", VIOLATED,
                         _ev(o.evidence))
        return Check(name, required, None, UNKNOWN)
    ok = marker_satisfies(required, m.status) if m.status not in ("conflicting", "not-tested") else None
    return Check(name, required, m.status, SATISFIED if ok else VIOLATED if ok is False else UNKNOWN, _ev(m.evidence))


def check_stage(state: PatientState, lo: str | None, hi: str | None, stage=None) -> Check:
    """A stage range, against ``stage`` (the stage known when the decision was made) or the latest.
    A bare group straddling a bound ("II" against min IIB) is unknown, not violated."""
    required = f"{lo or '0'}-{hi or 'IV'}"
    s = stage if stage is not None else state.stage
    if s is None or not s.group or not STAGE_GROUP.match(s.group):
        return Check("stage", required, s.tnm if s else None, UNKNOWN, _ev(s.evidence) if s else ())
    low, high = stage_rank(s.group), stage_rank(s.group, upper=True)
    lo_r = stage_rank(lo) if lo else -1
    hi_r = stage_rank(hi, upper=True) if hi else 10**6
    if high < lo_r or low > hi_r:
        verdict = VIOLATED
    elif low >= lo_r and high <= hi_r:
        verdict = SATISFIED
    else:
        verdict = UNKNOWN
    return Check("stage", required, s.group, verdict, _ev(s.evidence))


def check_site(state: PatientState, site: str) -> Check:
    sites = state.sites
    if not sites:
        return Check("site", site, None, UNKNOWN)
    ok = site in sites or site_group(site) == site or any(site_group(s) == site for s in sites)
    ev = tuple(e.event for c in state.cancers if c.site for e in c.evidence[:1])
    # "colorectal": colon or rectum not said, unless another of the patient's records says which ("R colon
    # ca" beside a "colorectal adenocarcinoma" whose note named no organ)
    said = {s for s in sites if site_group(s) != s}
    if not ok and any(site_group(s) == s and site_group(site) == s and not any(site_group(x) == s for x in said)
                      for s in sites):
        return Check("site", site, "/".join(sites), UNKNOWN, ev)
    return Check("site", site, "/".join(sites), SATISFIED if ok else VIOLATED, ev)


def check_ecog(state: PatientState, ecog_max: int | None, ecog_min: int | None = None) -> Check:
    lo, hi = ecog_min if ecog_min is not None else 0, ecog_max if ecog_max is not None else 4
    required = f"{lo}-{hi}"
    p = state.performance
    if p is None:
        return Check("ECOG", required, None, UNKNOWN)
    return Check("ECOG", required, str(p.value), SATISFIED if lo <= p.value <= hi else VIOLATED, _ev(p.evidence))


def check_response(state: PatientState, required: str) -> Check:
    """The clinical response to the latest treatment (``PatientState.response``): a watch-and-wait branch
    needs a documented clinical complete response; none documented is unknown, not a guess."""
    r = state.response
    if r is None:
        return Check("response", required, None, UNKNOWN)
    return Check("response", required, r.value, SATISFIED if r.value == required else VIOLATED, _ev(r.evidence))


def check_prior(step: str, done: dict[str, str]) -> Check:
    """A prior step: the branch applies only when that step was done."""
    return Check(f"prior:{step}", "done", "done" if step in done else None,
                 SATISFIED if step in done else VIOLATED)


def evaluate(conditions: dict, state: PatientState, done: dict[str, str], stage=None) -> list[Check]:
    """Checks of merged path conditions (``GuidelinePath.conditions``: biomarkers, stage, sites,
    prior_steps, ecog_max); ``stage``: the StageFact to check stage ranges against. O(conditions)."""
    out = [check_marker(state, name, req) for name, req in sorted((conditions.get("biomarkers") or {}).items())]
    rng = conditions.get("stage") or {}
    if rng:
        out.append(check_stage(state, rng.get("min"), rng.get("max"), stage))
    out += [check_site(state, s) for s in conditions.get("sites") or ()]
    out += [check_prior(p, done) for p in conditions.get("prior_steps") or ()]
    if conditions.get("ecog_max") is not None or conditions.get("ecog_min") is not None:
        out.append(check_ecog(state, conditions.get("ecog_max"), conditions.get("ecog_min")))
    if conditions.get("response"):
        out.append(check_response(state, conditions["response"]))
    return out


def evaluate_condition(cond: Condition, state: PatientState, done: dict[str, str], stage=None) -> list[Check]:
    """Checks of one edge / not-indicated / scope condition."""
    merged: dict = {}
    if cond.biomarkers:
        merged["biomarkers"] = dict(cond.biomarkers)
    if cond.stage_min or cond.stage_max:
        merged["stage"] = {"min": cond.stage_min, "max": cond.stage_max}
    if cond.site:
        merged["sites"] = [cond.site]
    if cond.prior_step:
        merged["prior_steps"] = [cond.prior_step]
    if cond.ecog_max is not None:
        merged["ecog_max"] = cond.ecog_max
    if cond.ecog_min is not None:
        merged["ecog_min"] = cond.ecog_min
    if cond.response:
        merged["response"] = cond.response
    return evaluate(merged, state, done, stage)


def stage_as_of(state: PatientState, day: str | None):
    """The stage known on ``day``: the latest stated on or before it, else the first stated at all
    (a stage documented after the decision still tells what it was). The latest when ``day`` is None."""
    known = [s for s in state.stage_history if s.group]
    if day is None or not known:
        return state.stage
    before = [s for s in known if s.date and s.date <= day]
    return before[-1] if before else known[0]


def holds(checks: list[Check]) -> bool | None:
    """All satisfied → True; any violated → False; else None (undecided). For not-indicated conditions
    a prior step that is not done is simply not met."""
    if any(c.verdict == VIOLATED or (c.fact.startswith("prior:") and c.verdict == UNKNOWN) for c in checks):
        return False
    return True if all(c.verdict == SATISFIED for c in checks) else None


def applicable(state: PatientState, condition_codes: frozenset[str] | set[str]) -> list[str]:
    """Ids of the patient's own cancer events whose codes or is-a ancestors name one of the guideline's
    condition codes (ICD-10-CM codes also by three-character category); a past cancer (treated years
    ago, no current disease) makes no guideline apply. O(cancers × codes)."""
    cats = {c.split("|", 1)[1][:3] for c in condition_codes if c.startswith("ICD-10-CM|")}
    guideline_site = site_group(site_of(tuple(condition_codes)))
    hits = []
    for c in state.cancers:
        if c.past:
            continue
        keys = set(c.codes) | set(c.ancestors)
        if keys & set(condition_codes) or any(k.startswith("ICD-10-CM|") and k.split("|", 1)[1][:3] in cats
                                              for k in keys):
            hits += [e.event for e in c.evidence]
        elif c.site_inferred and guideline_site and site_group(c.site) == guideline_site:
            hits += [e.event for e in c.evidence]  # "adenocarcinoma" in a patient whose cancer is in the lung
    return hits
