"""Normative conformance: against the paths a patient is eligible for, what is done, due, overdue,
missing, not yet due or not applicable — and what was done although no eligible path contains it.

Step matching is by code (a fact's codes or their is-a ancestors meet the step's codes; ICD-10-CM
also by category) and by what a step establishes (a documented biomarker result means the testing step
was done). Order matters only around surgery: a step before a surgical step on the path must be
matched by care dated before that surgery (neoadjuvant), a step after it by care dated on or after it
(adjuvant); other steps may overlap, as concurrent therapies do. A step whose ``strict`` timing window
opens ``min_days`` after its anchor is not realized by care dated before the window opens. A biomarker
result counts whenever it came (markers are often tested on the resection specimen).

Per eligible path, each step gets a status:

- ``done``: matched by the patient's own care up to the date (``done-not-indicated`` when a
  not-indicated condition of the step holds);
- ``not-applicable``: a not-indicated condition holds; it does not block the steps after it;
- ``overdue``: not done and its timing window, measured from the latest anchor step the patient has
  done, closed before the date;
- ``missing``: not done although a later step of the path was (care moved past it);
- ``due``: not done, the step before it is done (or not applicable), and its window is open;
- ``not-yet-due``: anything else (earlier steps pending, or the window opens later).

The followed paths are the eligible ones with the most steps done, then the fewest overdue or missing
(the branch the patient took; ties are kept). A step on every followed path takes its status from them;
a due step on only some of them is an ``option`` at the decision where they diverge. Care matching a step
of no followed path, with facts no followed step used, is ``done-not-indicated``.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, fields, replace

import networkx as nx

from graphkit.clinical.sites import other_region, site_group, site_of
from graphkit.clinical.treatments import is_cancer_treatment, is_systemic_class, names_class_of
from graphkit.clinical.values import nodes_unassessed
from graphkit.guidelines.paths import GuidelinePath, step_graph
from graphkit.guidelines.spec import GuidelineSpec, Step
from graphkit.reason.eligibility import applicable, evaluate, evaluate_condition, holds, stage_as_of
from graphkit.reason.model import UNKNOWN, VIOLATED, CareItem, Check, GuidelineAssessment, MissingInfo, PathVerdict
from graphkit.state.model import Fact, PatientState

IMPLIED_KINDS = frozenset({"Decision", "ClinicalSituation"})
_NONE = type("NoMarker", (), {"status": None})()
#: Markers guidelines use that follow from others (graphkit.clinical.values.derived_markers).
DERIVED_FROM = {"HR": ("ER", "PR"), "MSI": ("MMR",), "MMR": ("MSI",)}
#: Fact kinds that can realize a step of each kind (a diagnosis does not realize a treatment).
REALIZERS = {
    "Treatment": frozenset({"Medication", "Procedure"}),
    "Assessment": frozenset({"Test", "Procedure", "Biomarker", "Stage", "Cancer", "Problem"}),
    "FollowUp": frozenset({"Test", "Procedure", "Problem"}),
    "ClinicalSituation": frozenset({"Test", "Procedure", "Problem", "Cancer"}),
    "Decision": frozenset({"Procedure"}),
}


@dataclass(frozen=True)
class Match:
    date: dt.date | None
    facts: tuple[str, ...]


def _code_keys(step: Step, which: str = "codes") -> tuple[set[str], set[str]]:
    """(code keys, ICD-10-CM categories) of a step's ``codes`` or ``requires``."""
    own = getattr(step, which)
    codes = {f"{c.system}|{c.code}" for c in own}
    cats = {c.code[:3] for c in own if c.system == "ICD-10-CM"}
    return codes, cats


def _fact_matches(f: Fact, codes: set[str], cats: set[str]) -> bool:
    keys = f.codes + f.ancestors
    return any(k in codes for k in keys) or (bool(cats) and any(
        k.startswith("ICD-10-CM|") and k.split("|", 1)[1][:3] in cats for k in keys))


def is_planned(step: Step, planned) -> bool:
    """Does the record plan this step's care (a planned treatment of the state carrying one of its codes)?"""
    codes, cats = _code_keys(step)
    return any(_fact_matches(t, codes, cats) for t in planned)


def specificity(f: Fact, step: Step) -> int:
    """2 when the fact carries one of the step's own codes (the drug itself), 1 when it reaches them
    only through an ancestor (its class), 0 otherwise: durvalumab is evidence for "durvalumab
    consolidation" before "chemo-immunotherapy (any PD-(L)1 inhibitor)". O(codes)."""
    codes, cats = _code_keys(step)
    if any(k in codes for k in f.codes):
        return 2
    return 1 if _fact_matches(f, codes, cats) else 0


def restatements(facts: list[Fact]) -> set[str]:
    """Ids of historical mentions of a treatment that an earlier fact already recorded ("s/p neoadjuvant
    AC" in the operative note): they retell, they do not give the treatment again. O(n)."""
    first: dict[str, dt.date] = {}
    out = set()
    for f in sorted(facts, key=lambda f: (f.date or dt.date.max, f.order)):
        if f.kind not in ("Medication", "Procedure") or not f.codes:
            continue
        key = f.codes[0]
        if key in first and f.assertion == "historical" and f.date and f.date > first[key]:
            out.add(f.id)
        if f.date:
            first.setdefault(key, f.date)
    return out


def other_cancer_care(facts: list[Fact], site: str | None) -> set[str]:
    """Ids of care the notes give to a cancer outside the guideline's site group ("seminoma 2008 ->
    carboplatin", ``detail.for_cancer``) or to a condition that is no cancer ("rheumatoid arthritis on
    methotrexate", ``detail.indication``). O(n)."""
    other = {f.id for f in facts if f.detail.get("for_cancer") not in (None, site)} if site else set()
    return other | {f.id for f in facts if f.detail.get("indication")}


def other_region_imaging(facts: list[Fact], group: str | None) -> set[str]:
    """Ids of imaging written for regions none of which a ``group`` cancer's care images ("CT abdomen/pelvis
    for a kidney stone" is no lung surveillance; ``detail.regions`` from ingestion). O(n)."""
    return {f.id for f in facts if f.kind == "Test" and other_region(f.detail.get("regions") or (), group)}


def step_candidates(step: Step, state: PatientState, skip: set[str] = frozenset()) -> list[Fact]:
    """Own facts (up to the state's date) that could realize ``step``, oldest first; ``skip``: fact ids
    to leave out (restatements, care for another cancer)."""
    codes, cats = _code_keys(step)
    kinds = REALIZERS.get(step.kind, frozenset())
    est = step.establishes
    if est.biomarkers:
        # a testing step is done when a result is documented: "NGS sent" or "PD-L1 pending" is not a result
        kinds = kinds - {"Test", "Procedure"}
    out = [f for f in state.facts if f.kind in kinds and f.id not in skip and _fact_matches(f, codes, cats)]
    if est.biomarkers:
        # a result counts when the record settles it: statements that conflict on their latest day
        # ("dMMR/MSI-H -> surveillance; pMMR/MSS -> chemo" as options) are no result
        settled = {k for k, m in state.markers.items() if m.status != "conflicting"}
        out += [f for f in state.facts if f.kind == "Biomarker" and any(
            v.split("=", 1)[0] in est.biomarkers and v.split("=", 1)[0] in settled
            and not v.endswith(("=pending", "=not-tested", "=invalid")) for v in f.values)]
    if est.stage == "any" or est.stage == "clinical":
        out += [f for f in state.facts if f.kind == "Stage" and f.detail.get("basis") in (None, "clinical")
                and not any(x.startswith("invalid") for x in f.flags)]
    elif est.stage == "pathological":
        # "pT2 pNx" after a mastectomy without nodes: the nodes were never assessed, nothing staged them
        out += [f for f in state.facts if f.kind == "Stage" and f.detail.get("basis") == "pathological"
                and not nodes_unassessed(f.value)]
    seen, uniq = set(), []
    for f in sorted(out, key=lambda f: (f.date or dt.date.max, f.order, f.id)):
        if f.id not in seen:
            seen.add(f.id)
            uniq.append(f)
    return uniq


def _is_surgery(step: Step) -> bool:
    return step.kind == "Treatment" and step.category == "surgery"


def match_path(spec: GuidelineSpec, steps: tuple[str, ...], candidates: dict[str, list[Fact]],
               response_day: dt.date | None = None) -> dict[str, Match]:
    """step id → its match on this path, with the surgery bounds applied; ``response_day``: the day the
    current clinical response was first recorded (``ResponseFact.since``: a step on or after a branch taken
    on that response begins after it — the restaging sigmoidoscopy and CEA that found the complete response
    are not yet watch-and-wait or its surveillance; a later restatement moves nothing).
    O(steps² × edges + steps × candidates)."""
    surgery_dates: dict[int, dt.date] = {}
    for i, sid in enumerate(steps):
        st = spec.step(sid)
        if _is_surgery(st):
            # a pathological stage alone, restated in a later note ("pT1c pN0(sn)" in the oncology
            # consult), shows the operation happened, not when: it bounds nothing without the operation
            dated = [f.date for f in candidates[sid] if f.date]
            if dated and any(f.kind != "Stage" for f in candidates[sid] if f.date):
                surgery_dates[i] = dated[0]
    treated: dict[int, dt.date] = {}  # first date of each done treatment step (a bound for assessments)
    for i, sid in enumerate(steps):
        st = spec.step(sid)
        if st.kind == "Treatment":
            dated = [f.date for f in candidates[sid] if f.date]
            if dated:
                treated[i] = dated[0]
    out: dict[str, Match] = {}
    by_id = {f.id: f for fs in candidates.values() for f in fs}
    used: set[str] = set()  # one fact realizes one step of a path (a regimen may realize several)
    for i, sid in enumerate(steps):
        st = spec.step(sid)
        facts = [f for f in candidates[sid] if f.id not in used]
        if st.kind in ("Assessment", "FollowUp") and any(spec.step(s).kind == "Treatment" for s in steps[:i]):
            # a response assessment or follow-up comes after treatment: imaging before it was diagnostic
            done_before = [d for j, d in treated.items() if j < i]
            # (follow-up after curative treatment begins once the last treatment begun has: a CEA between
            # the resection and adjuvant chemotherapy is the post-operative baseline, not surveillance)
            begun = (max if st.kind == "FollowUp" else min)(done_before) if done_before else None
            facts = [f for f in facts if begun and (f.date is None or f.date >= begun)]
            # timed after named treatments ("monitoring ... after first-line chemotherapy"): after one of
            # those; the CT of a colostomy's indication is no monitoring of a chemotherapy not yet begun
            anchors = [j for j in (steps.index(t.after) for t in st.timings if t.after in steps)
                       if j < i and spec.step(steps[j]).kind == "Treatment"]
            if anchors:
                begun = [treated[j] for j in anchors if j in treated]
                facts = [f for f in facts if begun and (f.date is None or f.date >= min(begun))]
        if response_day and any(e.source == steps[j - 1] and e.target == steps[j] and e.when.response
                                for j in range(1, i + 1) for e in spec.edges):
            # on or after a branch taken on the response: what follows it comes after the response was known
            facts = [f for f in facts if f.date is None or f.date > response_day]
        if st.kind == "FollowUp":
            # surveillance starts when its window opens: a colonoscopy a week after the diagnostic one is
            # still the work-up, not the one-year surveillance colonoscopy
            opens = [out[t.after].date + dt.timedelta(days=t.min_days) for t in st.timings
                     if t.min_days and t.after in out and out[t.after].date]
            if opens:
                facts = [f for f in facts if f.date is None or f.date >= min(opens)]
        operations = [s for s in steps[:i] if _is_surgery(spec.step(s))]
        if st.kind == "Treatment" and not _is_surgery(st) and operations and not any(candidates[s] for s in operations):
            facts = []  # adjuvant care needs an operation: before any, a regimen is the neoadjuvant course
        if not _is_surgery(st):
            before = [d for j, d in surgery_dates.items() if j < i]
            after = [d for j, d in surgery_dates.items() if j > i]
            lo = max(before) if before else None
            # biomarkers are often tested on the resection specimen: the result counts whenever it came
            hi = min(after) if after and not st.establishes.biomarkers else None
            inclusive = st.kind != "Treatment"
            kept = [f for f in facts if f.date is None or (
                (lo is None or f.date >= lo) and
                (hi is None or f.date < hi or (inclusive and f.date == hi)))]
            if not kept and hi and st.kind == "Assessment":
                # a work-up the operation overtook, done after it and before the care that follows ("completion
                # colonoscopy" after an emergency Hartmann's, before adjuvant capecitabine): done late
                follows = [f.date for s in steps[i + 1:]
                           if spec.step(s).kind == "Treatment" and not _is_surgery(spec.step(s))
                           for f in candidates[s] if f.date and f.date > hi]
                kept = [f for f in facts if f.date and hi < f.date and follows and f.date < min(follows)
                        and (lo is None or f.date >= lo)]
            facts = kept
            # "received all planned chemotherapy pre-op", retold after the operation: the phase the note
            # names places the course on its side of the operation, whatever the note's date
            facts = [f for f in facts if not (lo and f.detail.get("phase") == "neoadjuvant"
                                              or hi and f.detail.get("phase") == "adjuvant")]
        facts = later_line(st, facts, out, by_id)
        facts = with_defining_element(st, facts)
        if facts:
            dated = [f.date for f in facts if f.date]
            out[sid] = Match(min(dated) if dated else None, tuple(f.id for f in facts))
            used |= {f.id for f in facts if st.kind != "Assessment" and not any(c.startswith("regimen|") for c in f.codes)}
    return out


COMBINATION_START_DAYS = 7  # a combination's drugs begin within a week of its defining element


def with_defining_element(step: Step, facts: list[Fact]) -> list[Fact]:
    """The facts that realize a step with a defining element (``requires``): none unless one of them is
    that element (carboplatin and pemetrexed alone are not "osimertinib ± chemotherapy"; chemoradiation
    alone is not total neoadjuvant therapy), and then all of them (the chemoradiation of a TNT comes
    before its consolidation doublet) but the drugs begun more than a week before the element. O(facts)."""
    if not step.requires:
        return facts
    codes, cats = _code_keys(step, "requires")
    defining = [f for f in facts if _fact_matches(f, codes, cats)]
    first = min((f.date for f in defining if f.date is not None), default=None)
    if first is None:
        return facts if defining else []
    # the drugs of a combination start together: carboplatin/pemetrexed given weeks before osimertinib
    # were another regimen, not "osimertinib + chemotherapy" (care of another kind may come first)
    floor = first - dt.timedelta(days=COMBINATION_START_DAYS)
    return [f for f in facts if f.kind != "Medication" or f.date is None or f.date >= floor
            or _fact_matches(f, codes, cats)]


def later_line(step: Step, facts: list[Fact], done: dict[str, Match], by_id: dict[str, Fact]) -> list[Fact]:
    """The facts that can realize ``step`` under its ``strict`` window: care begun before the window
    opens, or the anchor's own drugs given on, are the first line continuing ("mFOLFOX6 + bev to C12" is
    not a second line; panitumumab with C1 is not a later line). A later line with no earlier line
    done is none: carboplatin/pemetrexed given before an EGFR result is first-line care (of another
    branch), not the line after an EGFR inhibitor that was never given. O(facts)."""
    win = _window(step, done)
    if any(t.strict for t in step.timings) and not any(t.strict and t.after in done for t in step.timings):
        return []
    if not (win and win[0].strict and win[0].min_days is not None and win[1].date):
        return facts
    floor = win[1].date + dt.timedelta(days=win[0].min_days)
    first = {by_id[x].codes[0] for x in win[1].facts if x in by_id and by_id[x].codes}
    return [f for f in facts if (f.date is None or f.date >= floor) and not (f.codes and f.codes[0] in first)]


def _window(step: Step, done: dict[str, Match]):
    """The timing window that applies: the one anchored on the latest done anchor (on the same day, the
    anchor later in the pathway: chemotherapy given after the operation)."""
    best = None
    for t in step.timings:
        m = done.get(t.after)
        if m and m.date and (best is None or m.date >= best[1].date):
            best = (t, m)
    return best


def regimen_components(spec: GuidelineSpec, matches: dict[str, dict[str, Match]],
                       by_id: dict[str, Fact]) -> list[tuple[set[str], dt.date, dt.date]]:
    """(the drugs of a regimen a followed step names and used, as ATC substances; the first and last day
    of that step's care), from the regimen concept's is-a edges to its components ("TCHP" → docetaxel,
    carboplatin, trastuzumab, pertuzumab). A regimen the step does not name is not its own ("TCH" given
    as the chemotherapy step keeps its trastuzumab a deviation). O(used facts)."""
    out = []
    for x in matches.values():
        for sid, m in x.items():
            named = {f"{c.system}|{c.code}" for c in spec.step(sid).codes if c.system == "regimen"}
            span = regimen_span([by_id[f] for f in m.facts if f in by_id], lambda f: bool(named & set(f.codes)))
            if span:
                out.append(span)
    return out


def _substances(codes) -> set[str]:
    """The WHO ATC substances (level 5, "ATC|L01BC06") among ``codes``."""
    return {c for c in codes if c.startswith("ATC|") and len(c) == 11}


def regimen_span(facts: list[Fact], is_regimen, tail_days: int = 0) -> tuple[set[str], dt.date, dt.date] | None:
    """(the ATC substances of the ``facts`` that ``is_regimen``, their first day, their last day plus
    ``tail_days``), or None without a dated regimen. O(facts)."""
    drugs = {a for f in facts if is_regimen(f) for a in _substances(f.ancestors)}
    days = [f.date for f in facts if f.date]
    if not (drugs and days):
        return None
    return drugs, min(days), max(days) + dt.timedelta(days=tail_days)


#: Days a regimen's oral drug runs past its last cycle's day (capecitabine days 1-14 of a 21-day CAPOX cycle)
REGIMEN_TAIL_DAYS = 21


def _component_given(f: Fact, components) -> bool:
    """"C3 TCHP ... docetaxel/carbo/trastuzumab/pertuzumab given": a drug of a regimen a followed step
    holds, given within that step's course, is the regimen's own component, not care of another step
    (trastuzumab beside "TC" is not: TC has no trastuzumab)."""
    if f.kind != "Medication":
        return False
    own = _substances(f.codes + f.ancestors)
    return any(own & drugs and (f.date is None or lo <= f.date <= hi) for drugs, lo, hi in components)


def _waits_on_path(spec: GuidelineSpec, step: Step, anchor: str, path: list[str], matches: dict[str, Match],
                   at: dt.date) -> bool:
    """Whether the path holds, between ``anchor`` and ``step``, another anchor of ``step`` that is not done
    yet but still inside its own window: the patient is on the way through it ("neoadjuvant TCHP under
    way: surgery is timed from the response assessment, not from staging"). O(timings)."""
    if anchor not in path or step.id not in path:
        return False
    lo, hi = path.index(anchor), path.index(step.id)
    for t in step.timings:
        if t.after in matches or t.after not in path or not lo < path.index(t.after) < hi:
            continue
        own = _window(spec.step(t.after), matches)
        if own and (own[0].max_days is None or own[1].date + dt.timedelta(days=own[0].max_days) >= at):
            return True
    return False


#: Turnaround a pending result is given after later care went ahead (an IHC or a panel on the resection
#: specimen is back within days to two weeks); past it the test counts as missed.
PENDING_GRACE_DAYS = 21


def path_statuses(spec: GuidelineSpec, pv: PathVerdict, state: PatientState, matches: dict[str, Match],
                  at: dt.date, given_off_path: dict[str, str] | None = None) -> dict[str, CareItem]:
    """The status of every step of one eligible path; ``given_off_path``: step -> day of care given that
    no followed path holds (:func:`deviations`), which a step's ``not_indicated: prior_step`` still counts
    (neoadjuvant TCHP given at stage IA, off every eligible path, still makes adjuvant chemotherapy
    unneeded)."""
    done_ids = {**(given_off_path or {}),
                **{sid: (m.date.isoformat() if m.date else "") for sid, m in matches.items()}}
    items: dict[str, CareItem] = {}
    observable = [sid for sid in pv.steps if spec.step(sid).kind not in IMPLIED_KINDS]
    last_done = max((i for i, sid in enumerate(observable) if sid in matches), default=-1)
    prev_ok = True
    waits_for = None  # an earlier test not done whose result decides the branch: later steps wait for it
    for pos, sid in enumerate(pv.steps):
        st = spec.step(sid)
        if st.kind in IMPLIED_KINDS:
            continue
        k = observable.index(sid)
        done_after = [s for s in observable[k + 1:] if s in matches]  # later steps of the path already done
        # care moved past this step only by a later treatment, or by a later step that does not also follow
        # this one's predecessor directly: restaging after first-line immunotherapy is no sign that the
        # KRAS G12C inhibitor (pembrolizumab -> sotorasib -> restaging) was skipped
        siblings = {e.target for e in spec.edges if pos and e.source == pv.steps[pos - 1] and e.target != sid}
        moved_past = [s for s in done_after if spec.step(s).kind == "Treatment" or s not in siblings]
        item = CareItem(sid, spec.uid(sid), st.name, "not-yet-due", st.kind, st.category, position=pos,
                        evidence_level=st.evidence_level, evidence_source=st.evidence_source)
        m = matches.get(sid)
        # care given is judged by the stage known when it was given (a post-TNT ypT2 N0 does not make the
        # TNT for a cT3c N1 tumour care for an early cancer), care still to come by the latest
        known = stage_as_of(state, m.date.isoformat()) if m and m.date else None
        reasons = [x.reason for x in st.not_indicated if holds(evaluate_condition(x.when, state, done_ids, known))]
        win = _window(st, matches)
        if win and _waits_on_path(spec, st, win[0].after, pv.steps, matches, at):
            win = None
        if win:
            t, anchor = win
            item.window = f"{t.min_days or 0}-{t.max_days} days after {t.after}" if t.max_days is not None \
                else f"from {t.min_days} days after {t.after}"
            item.due_from = (anchor.date + dt.timedelta(days=t.min_days or 0)).isoformat()
            if t.max_days is not None:
                item.overdue_since = (anchor.date + dt.timedelta(days=t.max_days)).isoformat()
        if m:
            item.status = "done-not-indicated" if reasons else "done"
            item.reason = reasons[0] if reasons else None
            item.date = m.date.isoformat() if m.date else None
            item.evidence = list(m.facts[:5])
            prev_ok = True
        elif reasons:
            item.status, item.reason = "not-applicable", reasons[0]
            # a step that is not indicated does not hold up the next one
        elif any((state.markers.get(x) or _NONE).status == "pending" for x in st.establishes.biomarkers):
            # results awaited inside the window are on their way; awaited past it, the step is late
            late = item.overdue_since and at > dt.date.fromisoformat(item.overdue_since)
            # later care went ahead weeks ago without the result ("MMR never done; requested today", after the
            # resection): the test was missed, not merely awaited
            went_on = [matches[s].date for s in done_after if matches[s].date]
            missed = k < last_done and went_on and at - min(went_on) > dt.timedelta(days=PENDING_GRACE_DAYS)
            item.status, item.reason = ("overdue", "results still pending past the window") if late else \
                ("missing", "results still pending weeks after later care went ahead without them") if missed else \
                ("due", "results pending: document them when they are back")
            prev_ok = False
        elif item.overdue_since and at > dt.date.fromisoformat(item.overdue_since) and not (
                waits_for and k >= last_done):
            item.status = "overdue"
            prev_ok = False
        elif moved_past and not (item.overdue_since and at <= dt.date.fromisoformat(item.overdue_since)
                                 and not any(spec.step(s).kind == "Treatment" for s in done_after)):
            # (a step whose own window is still open is not missed because a later assessment came first:
            # "add bevacizumab from C3" while restaging was already done; a later treatment given instead
            # — endocrine therapy begun, radiotherapy never booked — does make it missed)
            later = [matches[s].date for s in moved_past if matches[s].date]
            item.status, item.date = "missing", (min(later).isoformat() if later else None)
            prev_ok = False
        elif prev_ok and not (item.due_from and at < dt.date.fromisoformat(item.due_from)):
            item.status = "due"
            prev_ok = False
        else:
            prev_ok = False
        if item.status in ("overdue", "due", "missing") and st.establishes.biomarkers:
            waits_for = sid  # "EGFR-TKI overdue" before any EGFR result is the testing's delay, not its own
        if waits_for and item.status == "not-yet-due" and item.overdue_since and waits_for != sid:
            item.reason = f"waits for {waits_for}"
        items[sid] = item
    return items


def path_checks(spec: GuidelineSpec, p: GuidelinePath, state: PatientState, matches: dict[str, Match]) -> list[Check]:
    """Every edge condition of a path, each against the state when its decision was made: the stage
    is the one known at the first done step after the edge (a post-neoadjuvant ypT1 does not make
    the neoadjuvant branch ineligible after the fact); biomarkers are the latest. O(edges)."""
    done = {sid: (m.date.isoformat() if m.date else "") for sid, m in matches.items()}
    out: list[Check] = []
    for k, edge in enumerate(p.edges):
        later = [matches[s].date for s in p.steps[k + 1:] if s in matches and matches[s].date]
        day = min(later).isoformat() if later else None
        out += evaluate_condition(edge.when, state, done, stage_as_of(state, day) if day else None)
    return out


def _conditional(edge) -> bool:
    """Does the edge say when it applies (any field of its condition set)?"""
    return any(getattr(edge.when, f.name) not in (None, (), False) for f in fields(edge.when))


def otherwise_taken(spec: GuidelineSpec, p: GuidelinePath, state: PatientState) -> int:
    """How often path ``p`` leaves a step by its unconditional edge (the guideline's "otherwise") while a
    sibling edge's condition holds for the patient: "TME → adjuvant chemotherapy when rectum, stage
    II-III; otherwise → surveillance" does not send a ypN1a rectal cancer to surveillance, so an omitted
    adjuvant course is missing, not a branch not taken. O(edges of the path × siblings)."""
    out = 0
    for edge in p.edges:
        if _conditional(edge):
            continue
        siblings = [e for e in spec.edges if e.source == edge.source and e.target != edge.target and _conditional(e)]
        if any(holds(evaluate_condition(e.when, state, {})) for e in siblings):
            out += 1
    return out


def prefer_continuation(spec: GuidelineSpec, paths: list[PathVerdict], matches: dict[str, dict]) -> list[PathVerdict]:
    """Among equally good paths, a fork at a step that is not a Decision (after a treatment: go on to
    monitoring, or to the next line / supportive care) is not a choice the team has made: while no
    branch step is done, the branch that continues into follow-up is the one followed; progression
    branches are for when the record shows progression (a later-line step done). O(paths²)."""
    keep = list(paths)
    changed = True
    while changed and len(keep) > 1:
        changed = False
        for a in keep:
            for b in keep:
                if a is b:
                    continue
                k = next((i for i, (x, y) in enumerate(zip(a.steps, b.steps)) if x != y), None)
                if k is None or k == 0 or spec.step(a.steps[k - 1]).kind == "Decision":
                    continue
                ra, rb = a.steps[k], b.steps[k]
                if ra in matches[a.path] or rb in matches[b.path]:
                    continue
                if spec.step(ra).kind == "FollowUp" and spec.step(rb).kind != "FollowUp":
                    keep.remove(b)
                    changed = True
                    break
            if changed:
                break
    return keep


def to_planned_care(spec: GuidelineSpec, eligible: list[PathVerdict], followed: list[PathVerdict],
                    matches: dict[str, dict[str, Match]], state: PatientState) -> list[PathVerdict]:
    """"Liver mets NOW RESECTABLE - plan 2 more cycles then colectomy + partial hepatectomy": where a
    treatment goes on either to monitoring (a FollowUp) or to further treatment, care of the other branch
    that the record plans after that treatment began moves the patient there, even when a response scan
    was done on the way: the team has chosen the branch. (A plan written before the treatment began is
    an earlier option, not this choice.) O(paths² × steps × planned)."""
    def to_planned(f: PathVerdict, k: int) -> list[PathVerdict]:
        anchor, step = f.steps[k - 1], f.steps[k]
        begun = matches[f.path].get(anchor)
        if spec.step(step).kind != "FollowUp" or spec.step(anchor).kind != "Treatment" or not (begun and begun.date):
            return []
        # (care of a step already on the way is that care going on: "2 more cycles" of chemotherapy planned)
        later = [t for t in state.planned if t.first and dt.date.fromisoformat(t.first) > begun.date
                 and not any(is_planned(spec.step(s), (t,)) for s in f.steps[:k])]
        return [g for g in eligible if g.steps[:k] == f.steps[:k] and len(g.steps) > k
                and spec.step(g.steps[k]).kind == "Treatment" and g.steps[k] not in matches[g.path]
                and is_planned(spec.step(g.steps[k]), later)]

    return _switch_branch(followed, to_planned)


def after_progression(spec: GuidelineSpec, eligible: list[PathVerdict], followed: list[PathVerdict],
                      matches: dict[str, dict[str, Match]], state: PatientState) -> list[PathVerdict]:
    """"CT 4/22/25: new liver lesions => PROGRESSION" on first-line osimertinib: where a treatment goes
    on either to monitoring (a FollowUp) or to a later line, progression documented after that
    treatment began moves the patient to the later-line branch, even when the monitoring was done:
    the next step is the next line, not more scans. A line stopped for good ("osimertinib discontinued
    permanently, grade 3 pneumonitis": the latest statement of the anchor's care is a stop) ends it as
    progression does. O(paths² × steps)."""
    last = dt.date.fromisoformat(state.progression[-1]) if state.progression else None
    by_id = {f.id: f for f in state.facts}

    def to_later_line(f: PathVerdict, k: int) -> list[PathVerdict]:
        anchor, step = f.steps[k - 1], f.steps[k]
        begun = matches[f.path].get(anchor)
        if spec.step(step).kind != "FollowUp" or spec.step(anchor).kind != "Treatment" or not (
                begun and begun.date and (last and last > begun.date or _stopped(begun, by_id))):
            return []
        return [g for g in eligible if g.steps[:k] == f.steps[:k] and len(g.steps) > k
                and spec.step(g.steps[k]).kind == "Treatment" and g.steps[k] not in matches[g.path]]

    out = _switch_branch(followed, to_later_line)
    return out if out != followed else until_progression(spec, eligible, followed, matches, last)


def _stopped(match: Match, by_id: dict[str, Fact]) -> bool:
    """Is the latest dated statement of a matched treatment's concepts a stop (its course status), the
    statement "historical" or not ("osimertinib SUSPENDED for good")? ``by_id``: the state's facts by id.
    O(facts)."""
    concepts = {by_id[i].codes[0] for i in match.facts if i in by_id and by_id[i].codes}
    dated = [f for f in by_id.values() if f.date and f.codes and f.codes[0] in concepts]
    return bool(dated) and max(dated, key=lambda f: (f.date, f.order)).detail.get("status") == "stopped"


def until_progression(spec: GuidelineSpec, eligible: list[PathVerdict], followed: list[PathVerdict],
                      matches: dict[str, dict[str, Match]], last: dt.date | None) -> list[PathVerdict]:
    """The converse of :func:`after_progression`: where a treatment under way goes on either to monitoring
    (a FollowUp) or straight to a later line not begun (a step timed ``strict`` after it: it follows
    progression), and no progression was documented after it began (``last``: the latest progression day,
    or None), the patient is on the monitoring branch: the next step is the response scan, not a second
    line ("on 1L pembrolizumab - clinically benefiting"; no imaging since baseline). O(paths² × steps)."""
    def to_monitoring(f: PathVerdict, k: int) -> list[PathVerdict]:
        anchor, step = f.steps[k - 1], f.steps[k]
        begun = matches[f.path].get(anchor)
        later_line = any(t.strict and t.after == anchor for t in spec.step(step).timings)
        if spec.step(anchor).kind != "Treatment" or not later_line or step in matches[f.path] or not (
                begun and begun.date) or (last is not None and last > begun.date):
            return []
        return [g for g in eligible if g.steps[:k] == f.steps[:k] and len(g.steps) > k
                and spec.step(g.steps[k]).kind == "FollowUp"]

    return _switch_branch(followed, to_monitoring)


def _switch_branch(followed: list[PathVerdict], branches_at) -> list[PathVerdict]:
    """Each followed path, or the paths ``branches_at(path, k)`` offers at the first step ``k`` where it
    offers any (the branch the patient is on instead). O(paths × steps × branches_at)."""
    out: list[PathVerdict] = []
    for f in followed:
        moved = next((m for k in range(1, len(f.steps)) if (m := branches_at(f, k))), [])
        out += [g for g in (moved or [f]) if g not in out]
    return out


def divergence(spec: GuidelineSpec, paths: list[PathVerdict], step: str) -> str | None:
    """The last step the followed paths share before ``step`` (the decision where they part)."""
    with_step = [p for p in paths if step in p.steps]
    if not with_step:
        return None
    prefix = with_step[0].steps[:with_step[0].steps.index(step)]
    shared = [s for s in prefix if all(s in p.steps for p in paths)]
    return shared[-1] if shared else None


def assess(spec: GuidelineSpec, paths: list[GuidelinePath], state: PatientState, at: dt.date,
           condition_codes: frozenset[str]) -> GuidelineAssessment:
    """The normative assessment of one guideline for one patient state. O(paths × steps × facts)."""
    res = GuidelineAssessment(state.patient, spec.id, spec.version, spec.title, state.at, applies=False)
    res.matched_cancer = applicable(state, condition_codes)
    if not res.matched_cancer:
        res.reason = f"no own, present cancer that {spec.id} covers is recorded"
        return res
    group = site_group(site_of(tuple(condition_codes)))
    skip = restatements(state.facts) | other_cancer_care(state.facts, group) | other_region_imaging(state.facts, group)
    candidates = {s.id: step_candidates(s, state, skip) for s in spec.steps}
    scope = evaluate_condition(spec.applies_when, state, {})
    if any(c.verdict == VIOLATED for c in scope):
        bad = next(c for c in scope if c.verdict == VIOLATED)
        res.reason = f"outside the guideline's scope: {bad.fact} {bad.observed} (the guideline covers {bad.required})"
        res.checks = scope
        return res
    res.applies = True
    verdicts, per_path = [], {}
    response_day = dt.date.fromisoformat(state.response.since) if state.response and state.response.since else None
    violated: dict[str, int] = {}  # step -> fewest violated conditions on a path through it
    for p in paths:
        matches = match_path(spec, p.steps, candidates, response_day)
        pv = PathVerdict(p.id, p.steps, tuple(scope) + tuple(path_checks(spec, p, state, matches)))
        n_bad = sum(c.verdict == VIOLATED for c in pv.checks)
        for sid in p.steps:
            violated[sid] = min(violated.get(sid, n_bad), n_bad)
        if pv.eligible:
            verdicts.append(pv)
            per_path[p.id] = (matches, path_statuses(spec, pv, state, matches, at))
    res.eligible_paths = [v.path for v in verdicts]
    if not verdicts:
        res.reason = "no path of this guideline fits the patient's recorded state"
        res.checks = [c for p in paths[:1] for c in evaluate(p.conditions, state, {})]
        return res

    treated = {f.id: f.codes[0] for f in state.facts if f.codes and is_cancer_treatment(f.kind, f.codes, f.ancestors)}
    by_id = {p.id: p for p in paths}
    bypassed = {v.path: otherwise_taken(spec, by_id[v.path], state) for v in verdicts}

    def rank(pv: PathVerdict):
        """More steps done and fewer of the patient's cancer treatments left unexplained, then fewer
        "otherwise" edges taken where the patient meets a branch's condition (:func:`otherwise_taken`),
        then fewer steps overdue or missing, then more steps done by their defining element
        (chemoradiation and a consolidation doublet are total neoadjuvant therapy, not chemoradiation
        alone): the branch the care took, or, where it went nowhere yet, the one the guideline sends
        the patient down."""
        matches, items = per_path[pv.path]
        n_done = sum(i.status in ("done", "done-not-indicated") for i in items.values())
        n_bad = sum(i.status in ("overdue", "missing") for i in items.values())
        used = {f for m in matches.values() for f in m.facts}
        unexplained = set(treated.values()) - {treated[f] for f in used if f in treated}
        defined = sum(1 for sid in matches if spec.step(sid).requires)
        return (-(n_done - len(unexplained)), bypassed[pv.path], n_bad, -defined)

    best = min(rank(v) for v in verdicts)
    path_matches = {v.path: per_path[v.path][0] for v in verdicts}
    chosen = [v for v in verdicts if rank(v) == best]
    # monitoring is no alternative to the care beside it: a branch still ahead of the patient whose only
    # extra lateness is follow-up (metastatic response monitoring overdue beside resection and later lines,
    # all after first-line therapy) is followed too, so that the overdue monitoring is reported; an overdue
    # treatment on a branch not taken stays out (the tie on care done is broken by fewer overdue steps)
    def late(v: PathVerdict) -> set[str]:
        return {sid for sid, i in per_path[v.path][1].items() if i.status in ("overdue", "missing")}

    done_at = {v.path: {sid for sid, i in per_path[v.path][1].items() if i.status in ("done", "done-not-indicated")}
               for v in verdicts}
    late_chosen = set().union(*(late(c) for c in chosen))
    chosen += [v for v in verdicts if v not in chosen and rank(v)[:2] == best[:2]
               and all(spec.step(sid).kind == "FollowUp" for sid in late(v) - late_chosen)
               and any(parts_after_care(v.steps, c.steps, done_at[v.path] | done_at[c.path]) for c in chosen)]
    followed = prefer_continuation(spec, chosen, path_matches)
    followed = after_progression(spec, verdicts, followed, path_matches, state)
    followed = to_planned_care(spec, verdicts, followed, path_matches, state)
    res.followed_paths = [v.path for v in followed]
    res.checks = list({(c.fact, c.required): c for v in followed for c in v.checks}.values())
    off = deviations(spec, followed, {v.path: per_path[v.path][0] for v in followed}, candidates, state, violated)
    given = {i.step: i.date or "" for i in off}
    statuses = {v.path: per_path[v.path][1] for v in followed}
    if any(x.when.prior_step in given for v in followed for sid in v.steps for x in spec.step(sid).not_indicated):
        statuses = {v.path: path_statuses(spec, v, state, per_path[v.path][0], at, given) for v in followed}
    res.items = close_ruled_out(spec, merge_items(spec, followed, statuses), state)
    by_id = {p.id: p for p in paths}
    for item in res.items:
        item.conditions = step_conditions(spec, [by_id[v.path] for v in followed], item.step, state)
    res.items += off
    res.missing_info = missing_info(spec, followed, state, res.items)
    return res


def parts_after_care(a: tuple[str, ...], b: tuple[str, ...], done: set[str]) -> bool:
    """Do two paths share every step up to where they part, with no care done on either after that?
    O(len(a) + len(b))."""
    k = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return k > 0 and not done.intersection(a[k:]) and not done.intersection(b[k:])


def close_ruled_out(spec: GuidelineSpec, items: list[CareItem], state: PatientState) -> list[CareItem]:
    """Options the record judges the patient unfit for ("Not a candidate for hepatic resection": the
    state's ``ruled_out`` facts, flagged at ingestion) are closed — not applicable, with the record's words
    as the reason — while another option of the same choice stays open. O(items × ruled-out facts)."""
    def ruled(item: CareItem) -> Fact | None:
        st = spec.step(item.step)
        codes, cats = _code_keys(st)
        return next((f for f in state.ruled_out if f.kind in REALIZERS.get(st.kind, frozenset())
                     and _fact_matches(f, codes, cats)), None)

    closed = {i.step: f for i in items if i.status == "option" and (f := ruled(i)) is not None}
    out = []
    for i in items:
        f = closed.get(i.step)
        if f is not None and any(o.status == "option" and o.option_of == i.option_of and o.step not in closed
                                 for o in items):
            i = replace(i, status="not-applicable", reason=f"ruled out in the record: {f.text}",
                        evidence=[f.id], option_of=None)
        out.append(i)
    return out


def merge_items(spec: GuidelineSpec, followed: list[PathVerdict], statuses: dict[str, dict[str, CareItem]]) -> list[CareItem]:
    """One item per step of the followed paths: the shared status, or an option."""
    out: dict[str, CareItem] = {}
    order: dict[str, int] = {}
    for v in followed:
        for pos, sid in enumerate(v.steps):
            order.setdefault(sid, pos)
    for sid in sorted(order, key=order.get):
        items = [statuses[v.path][sid] for v in followed if sid in statuses[v.path]]
        if not items:
            continue
        on_all = len(items) == len(followed)
        kinds = {i.status for i in items}
        item = items[0]
        if on_all and len(kinds) == 1:
            out[sid] = item
            continue
        if kinds & {"done", "done-not-indicated"}:
            out[sid] = next(i for i in items if i.status in ("done", "done-not-indicated"))
        elif kinds & {"due", "overdue", "missing"} and not on_all:
            late = [i for i in items if i.status in ("overdue", "missing")]
            # an alternative whose window closed on every path that has it: the choice itself is overdue
            item = late[0] if len(late) == len(items) else item
            if item not in late:
                item.status = "option"
            item.option_of = divergence(spec, followed, sid)
            out[sid] = item
        elif on_all:
            # statuses differ with the branch taken before it: urgent only if urgent on every path
            if kinds <= {"due", "overdue", "missing"}:
                order = ("overdue", "missing", "due")
            else:
                order = ("not-applicable", "not-yet-due", "due", "missing", "overdue")
            for s in order:
                if s in kinds:
                    out[sid] = next(i for i in items if i.status == s)
                    break
    return list(out.values())


def deviations(spec: GuidelineSpec, followed: list[PathVerdict], matches: dict[str, dict[str, "Match"]],
               candidates: dict[str, list[Fact]], state: PatientState,
               violated: dict[str, int] | None = None) -> list[CareItem]:
    """Treatment steps the patient received that no followed path contains, with facts no followed
    step used: care that is not indicated for this patient's state. ``violated``: step -> the fewest
    conditions the patient violates on a path through it (the branch nearest the patient's state)."""
    violated = violated or {}
    on_paths = {sid for v in followed for sid in v.steps}
    used = {f for m in matches.values() for x in m.values() for f in x.facts}
    out = []
    graph = step_graph(spec)
    done = {sid for sid, facts in candidates.items() if facts}
    # the operations done, each with its first date: care is placed before those the step leads to and
    # after those that lead to it (FOLFOX after a palliative colostomy, before a liver resection)
    surgeries: dict[str, dt.date] = {}
    for x in matches.values():
        for sid, m in x.items():
            if _is_surgery(spec.step(sid)) and m.date:
                surgeries[sid] = min(m.date, surgeries.get(sid, m.date))
    # a fact goes to the step care most directly arrived at: first the steps right after done care (through
    # decisions only), then those behind steps that were skipped
    strict = [st for st in spec.steps if _reachable(spec, graph, st.id, done, through_care=False)]
    relaxed = [st for st in spec.steps if st not in strict and _reachable(spec, graph, st.id, done)]
    off_path = [st for st in strict + relaxed if st.id not in on_paths and st.kind == "Treatment"]
    fits: dict[str, list[Fact]] = {}
    matched: dict[str, Match] = {}  # every step the followed paths matched, with its first date
    for x in matches.values():
        for sid, m in x.items():
            if sid not in matched or (m.date and (matched[sid].date is None or m.date < matched[sid].date)):
                matched[sid] = m
    by_id = {f.id: f for fs in candidates.values() for f in fs}
    # "weekly carbo/paclitaxel x6 (wk 4 chemo held)": a therapy class named beside drugs a followed step
    # used is that course retold, not care of its own
    retold = {_sentence(f) for f in used if f in by_id and by_id[f].kind == "Medication"}
    components = regimen_components(spec, matches, by_id)
    # "Hartmann's procedure (sigmoid colectomy + end colostomy)": an operation in the note and on the day of
    # a followed operation is that operation's own part, not an operation of another step
    operated = {(_note(f), by_id[f].date) for x in matches.values() for sid, m in x.items()
                if _is_surgery(spec.step(sid)) for f in m.facts if f in by_id}
    for st in off_path:
        facts = [f for f in candidates[st.id] if f.id not in used and f.kind in REALIZERS["Treatment"]
                 and not (is_systemic_class(f.codes) and _sentence(f.id) in retold)
                 and not _component_given(f, components)
                 and not (_is_surgery(st) and (_note(f.id), f.date) in operated)]
        if surgeries and not _is_surgery(st):  # before or after the patient's surgery, as the step is placed
            later = nx.descendants(graph, st.id)
            before = [d for sid, d in surgeries.items() if sid in later]
            after = [d for sid, d in surgeries.items() if sid not in later and sid in nx.ancestors(graph, st.id)]
            if before:
                facts = [f for f in facts if f.date is None or f.date < min(before)]
            elif after:
                facts = [f for f in facts if f.date is None or f.date >= min(after)]
        # (a combination off the path needs its defining element too: carboplatin/pemetrexed of a first line are
        # no chemoradiation given against the guideline)
        facts = with_defining_element(st, later_line(st, facts, matched, by_id))
        fits[st.id] = facts
    # a fact goes to the steps that name it most specifically (its own code before its class), then to
    # the branch nearest the patient's state (osimertinib in stage IV EGFR wild-type disease is the
    # first-line EGFR-TKI step, not stage III consolidation; capecitabine alone in stage II is the
    # fluoropyrimidine step, not the stage III oxaliplatin doublet that lists it as a component), then
    # to the narrowest step; between equally specific steps, the one that holds more of the care given
    # with it on its day (carboplatin + pemetrexed + pembrolizumab on one day is chemo-immunotherapy,
    # not pembrolizumab alone plus a chemotherapy of another step)
    same_day: dict[tuple[str, dt.date | None], set[str]] = defaultdict(set)
    for st in off_path:
        for f in fits[st.id]:
            same_day[(st.id, f.date)].add(f.id)

    def fit(f: Fact, st: Step) -> tuple[int, int, int, int]:
        return specificity(f, st), len(same_day.get((st.id, f.date), ())), -violated.get(st.id, 0), -len(st.codes)

    given = [by_id[x] for x in used if x in by_id and by_id[x].kind == "Medication"] + [
        f for st in off_path for f in fits[st.id] if f.kind == "Medication"]
    best: dict[str, tuple[int, int, int, int]] = {}
    own_regimens: list[tuple[set[str], dt.date, dt.date]] = []
    for st in off_path:
        for f in fits[st.id]:
            best[f.id] = max(best.get(f.id, (0, 0, 0, 0)), fit(f, st))
    for st in off_path:
        facts = [f for f in fits[st.id] if f.id not in used and fit(f, st) >= best[f.id]]
        # "checkpoint inhibitor should not have been given first line" after pembrolizumab was: a class
        # named after a drug of it was given is that course retold, no deviation of its own
        facts = [f for f in facts if not (is_systemic_class(f.codes) and any(
            names_class_of(f.codes, g.codes + g.ancestors) and (g.date is None or f.date is None or g.date <= f.date)
            for g in given))]
        # "CAPOX cycle 4 given ..., capecitabine finished 07/07": a drug of a regimen an earlier deviation
        # holds is that regimen's own part, not a second deviation
        facts = [f for f in facts if not _component_given(f, own_regimens)]
        if not facts:
            continue
        why = [x.reason for x in st.not_indicated if holds(evaluate_condition(x.when, state, {}))]
        item = CareItem(st.id, spec.uid(st.id), st.name, "done-not-indicated", st.kind, st.category,
                        date=facts[0].date.isoformat() if facts[0].date else None,
                        evidence=[f.id for f in facts[:5]], evidence_level=st.evidence_level,
                        evidence_source=st.evidence_source, position=10_000,
                        reason=why[0] if why else "no path this patient is eligible for contains this step")
        out.append(item)
        used |= {f.id for f in facts}  # one deviation per fact: of its most specific steps, the first in guideline order
        # (an oral drug of the regimen runs on to its last cycle's end)
        span = regimen_span(facts, lambda f: any(c.startswith("regimen|") for c in f.codes), REGIMEN_TAIL_DAYS)
        if span:
            own_regimens.append(span)
    return out + assessments_of_deviations(spec, on_paths, out, candidates)


def assessments_of_deviations(spec: GuidelineSpec, on_paths: set[str], deviated: list[CareItem],
                              candidates: dict[str, list[Fact]]) -> list[CareItem]:
    """The assessment a step not indicated brought with it, inside its own window after that step (the
    response MRI of a neoadjuvant TCHP given at stage IA): not indicated either. O(steps × facts)."""
    begun = {i.step: dt.date.fromisoformat(i.date) for i in deviated if i.date}
    out = []
    for st in spec.steps:
        if st.kind != "Assessment" or st.id in on_paths:
            continue
        for t in st.timings:
            if t.after not in begun:
                continue
            lo = begun[t.after] + dt.timedelta(days=t.min_days or 0)
            hi = begun[t.after] + dt.timedelta(days=t.max_days) if t.max_days is not None else None
            # (an imaging fact may realize several assessments, as on a path: the work-up's match holds them all)
            facts = [f for f in candidates[st.id] if f.date and lo <= f.date and (hi is None or f.date <= hi)]
            if facts:
                out.append(CareItem(st.id, spec.uid(st.id), st.name, "done-not-indicated", st.kind, st.category,
                                    date=facts[0].date.isoformat(), evidence=[f.id for f in facts[:5]],
                                    evidence_level=st.evidence_level, evidence_source=st.evidence_source,
                                    position=10_000, reason=f"assesses {t.after}, which is not indicated"))
                break
    return out


def _sentence(fact_id: str) -> str:
    """The sentence an event was read from (its id without the mention offset)."""
    return fact_id.rsplit(":m", 1)[0]


def _note(fact_id: str) -> str:
    """The note an event was read from (its id without section, sentence and mention: ``note:sK:tJ:mI``)."""
    return _sentence(fact_id).rsplit(":t", 1)[0].rsplit(":s", 1)[0]


def step_conditions(spec: GuidelineSpec, followed: list[GuidelinePath], step: str, state: PatientState) -> list[Check]:
    """The conditions that lead this patient to ``step``: those of the edge into it on the followed
    paths, or of the nearest conditional edge before it through decision steps."""
    out: dict[tuple, Check] = {}
    for p in followed:
        if step not in p.steps:
            continue
        k = p.steps.index(step)
        while k > 0:
            edge = p.edges[k - 1]
            w = edge.when
            if w.biomarkers or w.stage_min or w.stage_max or w.site or w.ecog_max is not None \
                    or w.ecog_min is not None or w.response:
                for c in evaluate_condition(w, state, {}):
                    out.setdefault((c.fact, c.required), c)
                break
            if spec.step(p.steps[k - 1]).kind not in IMPLIED_KINDS:
                break
            k -= 1
    return list(out.values())


def _reachable(spec: GuidelineSpec, graph, step: str, done: set[str], through_care: bool = True) -> bool:
    """Whether care could have arrived at ``step``: walking back through steps not done, some earlier
    step has matching care (or the entry is reached) without passing a surgery that was not done. An
    osimertinib given for advanced disease is not an adjuvant osimertinib when no resection was done."""
    todo, seen = list(graph.predecessors(step)), set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        if p in done:
            return True
        if _is_surgery(spec.step(p)) or (not through_care and spec.step(p).kind not in IMPLIED_KINDS):
            continue  # adjuvant care without the operation it follows is not that step
        if graph.in_degree(p) == 0:
            return True
        todo.extend(graph.predecessors(p))
    return False


def missing_info(spec: GuidelineSpec, followed: list[PathVerdict], state: PatientState,
                 items: list[CareItem] = ()) -> list[MissingInfo]:
    """Unknown conditions of the followed paths, each with the step that establishes the fact; and, for a
    testing step that care went past or whose window closed (missing or overdue: "MMR IHC requested,
    never resulted" while neoadjuvant therapy runs) when no condition names which of its facts decide,
    the facts it establishes that are still undocumented. O(steps)."""
    out: dict[str, MissingInfo] = {}
    for v in followed:
        unknown = []
        for c in v.unknown:  # a derived marker is asked for through what it derives from
            sources = DERIVED_FROM.get(c.fact, ())
            if sources and c.observed is None and not any(state.markers.get(x) for x in sources):
                unknown += [Check(x, "documented", None, UNKNOWN) for x in sources]
            elif sources and c.observed is None:
                unknown += [Check(x, "documented", state.markers[x].status, UNKNOWN, tuple(e.event for e in state.markers[x].evidence))
                            for x in sources if x in state.markers]
                if all(c.fact in DERIVED_FROM.get(x, ()) and state.markers[x].status == "pending"
                       for x in sources if x in state.markers):
                    unknown.append(c)  # MMR IHC pending says nothing of MSI yet: two facts, either can decide
            else:
                unknown.append(c)
        for c in unknown:
            if c.fact in out or c.fact == "response":
                continue  # a response is the outcome of care still under way, read at restaging: not a fact to test now
            step = next((s for s in spec.steps if c.fact in s.establishes.biomarkers
                         or (c.fact == "stage" and s.establishes.stage)
                         or (c.fact == "ECOG" and s.establishes.performance_status)), None)
            m = state.markers.get(c.fact)
            why = ("not documented" if c.observed is None else
                   m.status if m and m.status in ("pending", "conflicting", "equivocal") else
                   "no sub-group" if c.fact == "stage" else f"{c.observed} does not decide it")
            out[c.fact] = MissingInfo(c.fact, step.id if step else None, spec.uid(step.id) if step else None, why,
                                      c.evidence)
    for item in items:
        step = spec.step(item.step)
        if item.status not in ("missing", "overdue") or any(x in out for x in step.establishes.biomarkers):
            continue
        for x in step.establishes.biomarkers:
            if state.marker(x) is None:
                m = state.markers.get(x)
                out[x] = MissingInfo(x, step.id, spec.uid(step.id), m.status if m else "not documented",
                                     tuple(e.event for e in m.evidence) if m else ())
    return list(out.values())


def unknown_checks(checks: list[Check]) -> list[Check]:
    return [c for c in checks if c.verdict == UNKNOWN]
