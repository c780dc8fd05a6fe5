"""Patient state at a date, from the facts stored in the graph (pure functions).

Reads only what ingestion stored normalized (``values`` such as "ER=positive" or "IIA", ``detail``
with basis/TNM parts/percentages, ``flags``): nothing here re-parses text. Rules, each a clinician's:

- only the patient's own facts that happened count (present or historical; never negated, possible,
  planned, hypothetical or a relative's; a marker sent with its result pending is a test that happened);
  planned treatments are listed apart;
- stage: the latest statement wins; on one day a pathological stage wins over a clinical one; T, N and
  M parts stated apart on one day combine, and the group is derived where the AJCC 8 table of the site
  is unambiguous (M1 is stage IV for every site here); two different groups of the same basis on one
  day are a conflict, reported and unused;
- biomarkers: the latest result wins (an equivocal IHC yields to a definite result, its reflex ISH);
  different results on the latest day, or a note flagged as contradicting itself, are a conflict
  (status "conflicting", unused); HR follows from ER/PR and MSI from MMR
  (:func:`graphkit.clinical.values.derived_markers`);
- treatments: one per concept, with their course (started, ongoing, completed, stopped) from the
  latest statement; a cancer drug dated before the first diagnosis is reported.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict

from graphkit.clinical.course import PAST_CANCER, is_progression
from graphkit.clinical.sites import site_group, site_of
from graphkit.clinical.treatments import CANCER_DRUG_PREFIXES, NEVER_STARTED, RULED_OUT, is_cancer_treatment
from graphkit.clinical.values import (STAGE_GROUP, Tnm, derived_markers, group_from_tnm, mmr_loss_wins, parse_tnm,
                                      results_pending, stage_rank, variant_found_wins)
from graphkit.state.model import (CancerFact, Evidence, Fact, Issue, MarkerFact, PatientState, PerformanceFact,
                                  ResponseFact, StageFact, TreatmentFact)

HAPPENED = frozenset({"present", "historical"})
_UNUSABLE = ("pending", "not-tested", "invalid")
_BASIS_RANK = {"pathological": 2, "clinical": 1, None: 0}


def evidence(f: Fact) -> Evidence:
    return Evidence(f.id, f.date.isoformat() if f.date else None, f.text, f.note)


def _iso(d: dt.date | None) -> str | None:
    return d.isoformat() if d else None


def _sent(f: Fact) -> bool:
    """A marker whose result is pending (assertion possible: its value is not known) was still sent: the
    test happened."""
    return f.kind == "Biomarker" and f.assertion == "possible" and results_pending(f.values)


def own_facts(facts: list[Fact], at: dt.date | None) -> tuple[list[Fact], list[Fact]]:
    """(happened, planned) facts of the patient dated on or before ``at`` (undated ones included); a plan is
    known from the day its note was written ("hepatectomy scheduled 10/06/2025", written 14/05). O(n log n)."""
    keep = [f for f in facts if at is None or f.date is None or f.date <= at]
    # "Durvalumab has NOT been started" on D: its earlier bookings and cancelled doses ("durva 3/10",
    # no course status) were not care given; a course stated as started or completed stays
    never: dict[str, dt.date] = {}
    for f in keep:
        if NEVER_STARTED in f.flags and f.codes and f.date:
            never[f.codes[0]] = max(f.date, never.get(f.codes[0], f.date))
    happened = [f for f in keep if (f.assertion in HAPPENED or _sent(f)) and f.context != "family" and not (
        f.kind in ("Medication", "Procedure") and f.codes and f.date and f.codes[0] in never
        and f.date <= never[f.codes[0]] and not f.detail.get("status"))]
    planned = [f for f in facts if f.assertion == "planned" and (
        at is None or f.date is None or f.date <= at or (f.recorded is not None and f.recorded <= at))]
    key = lambda f: (f.date or dt.date.max, f.order, f.id)  # noqa: E731
    return sorted(happened, key=key), sorted(planned, key=key)


def patient_site(facts: list[Fact]) -> str | None:
    """The one cancer site the record points to, when it points to one: the sites of coded cancers and
    of staged tumours (a stage carries its note's cancer site). None when none, or several groups."""
    sites = [f.detail.get("site") or site_of(f.codes, f.ancestors, f.text) for f in facts if f.kind == "Cancer"]
    sites += [f.detail.get("site") for f in facts if f.kind == "Stage"]
    sites = [s for s in sites if s]
    groups = {site_group(s) for s in sites}
    if len(groups) != 1:
        return None
    specific = [s for s in sites if s != site_group(s)]
    return max(set(specific), key=specific.count) if specific else sites[0]


_GENERIC_HISTOLOGY = {None, "cancer", "carcinoma"}  # ingest.nlp.oncology's histologies that name no cell type


def cancers_of(facts: list[Fact]) -> list[CancerFact]:
    """Own cancers grouped by site (or by first code when the site is unknown), first date first. A
    histology written without a site anywhere in its note ("adenocarcinoma" in an EBUS report) takes the
    patient's one cancer site when the record points to exactly one."""
    groups: dict[str, list[Fact]] = defaultdict(list)
    fallback = patient_site(facts)
    for f in facts:
        if f.kind != "Cancer":
            continue
        # only a histology written without an organ takes the patient's site ("adenocarcinoma" in an EBUS
        # report); a disease term of another organ ("prostate adenocarcinoma", "prostate ca") keeps its own
        bare = bool(f.detail.get("histology")) and not f.detail.get("organ")
        site = f.detail.get("site") or site_of(f.codes, f.ancestors, f.text) or (fallback if bare else None)
        groups[site or (f.codes[0] if f.codes else f.text.lower())].append(f)
    out = []
    for key, fs in groups.items():
        best = max(fs, key=lambda f: (len(f.ancestors), "suspect" not in f.text.lower(), f.date or dt.date.min))
        own_site = best.detail.get("site") or site_of(best.codes, best.ancestors, best.text)
        site = own_site or (fallback if key == fallback else None)
        hist = next((f.detail.get("histology") for f in fs if f.detail.get("histology")), None)
        dates = [f.date for f in fs if f.date]
        # "lung malignancy" on the CT, "small cell carcinoma" on the biopsy: one cancer, named by its
        # histology once known; the organ-level name's codes (ICD C34: any lung cancer) do not stand beside it
        coded = [f for f in fs if f.codes and f.detail.get("histology") not in _GENERIC_HISTOLOGY] or fs
        out.append(CancerFact(best.text, site, hist,
                              tuple(dict.fromkeys(c for f in coded for c in f.codes)),
                              tuple(dict.fromkeys(a for f in coded for a in f.ancestors)),
                              _iso(min(dates)) if dates else None, tuple(evidence(f) for f in fs[:5]),
                              site_inferred=own_site is None and site is not None,
                              past=all(PAST_CANCER in f.flags for f in fs)))
    return sorted(out, key=lambda c: (c.first or "9999", c.name))


def _stage_parts(f: Fact) -> tuple[str | None, Tnm | None, str | None, str | None]:
    """(group, tnm, basis, derived group) of one Stage fact, from its stored values and detail."""
    value = f.values[0] if f.values else (f.value or "")
    group = value if STAGE_GROUP.match(value or "") else None
    tnm = None if group else parse_tnm(value)
    if group is None and tnm is None and any(k in f.detail for k in ("t", "n", "m")):  # "cM0" alone
        prefix = re.match(r"(yp|yc|c|p)?", value or "").group(1) or ""
        tnm = Tnm(prefix, f.detail.get("t"), f.detail.get("n"), f.detail.get("m"))
    basis = f.detail.get("basis") or (tnm.basis if tnm else None)
    return group, tnm, basis, f.detail.get("derived_group")


def stage_of(facts: list[Fact], site: str | None) -> tuple[StageFact | None, list[StageFact], list[Issue]]:
    """(latest stage, history by date, issues). O(n log n)."""
    by_day: dict[tuple, list[Fact]] = defaultdict(list)
    issues: list[Issue] = []
    for f in facts:
        if f.kind != "Stage":
            continue
        if any(v == "invalid" for v in f.values) or any(x.startswith("invalid") for x in f.flags):
            issues.append(Issue("invalid", "stage", f"a stage that does not exist was written ({f.text!r}); "
                                                    "kept as text, not used", (evidence(f),)))
            continue
        by_day[(f.date, _stage_parts(f)[2])].append(f)
    by_day = _basis_of_the_day(by_day)
    history: list[StageFact] = []
    for (day, basis), fs in sorted(by_day.items(), key=lambda kv: (kv[0][0] or dt.date.min, _BASIS_RANK[kv[0][1]])):
        groups = {g for g, _, _, _ in map(_stage_parts, fs) if g}
        t = n = m = prefix = None
        for f in fs:
            _, tnm, _, _ = _stage_parts(f)
            if tnm:
                t, n, m = tnm.t or t, tnm.n or n, tnm.m or m
                prefix = tnm.prefix or prefix
        tnm = Tnm(prefix or "", t, n, m) if (t or n or m) else None
        # a group the clinician wrote is the day's stage when a TNM of that day agrees with it ("cT2N0 / IIA
        # is superseded: cT2 cN3 M0, stage IIIC" is IIIC); written beside TNM that all say otherwise, a conflict
        # (a group derived from a TNM that states no M read it as M0: a group written beside it may know
        # the M, "cT3 N1 with liver mets - M1a, stage IVA", so only a full TNM contests it)
        all_derived = {d for g, _, _, d in map(_stage_parts, fs) if d and not g}
        derived_groups = {d for g, tnm, _, d in map(_stage_parts, fs) if d and not g and tnm and tnm.m}
        if groups:
            stated = _most_specific(groups)
            agree = any(len(_most_specific({d, g})) == 1 for d in derived_groups for g in stated)
            groups = stated if agree or not derived_groups else _most_specific(stated | derived_groups)
            # a TNM that refines the group written beside it ("unresectable stage III", cT3N3M0) gives the finer one
            finer = _most_specific(groups | {d for d in all_derived if len(_most_specific({d} | groups)) == 1})
            groups = finer if len(groups) == 1 and len(finer) == 1 else groups
        if len(groups) > 1:
            issues.append(Issue("conflict", "stage", f"different stage groups stated on {_iso(day)}: "
                                                     f"{', '.join(sorted(groups, key=stage_rank))}; not used",
                                tuple(evidence(f) for f in fs)))
            continue
        derived = False
        group = next(iter(groups), None)
        if group is None:
            group = next((d for _, _, _, d in map(_stage_parts, fs) if d), None)
            if group is None and tnm and tnm.t and tnm.n and tnm.m and site:
                group = group_from_tnm(site_group(site) or site, tnm)
            if group is None and tnm and (tnm.m or "").startswith("M1"):
                group = "IV"
            derived = group is not None
        fact = StageFact(group, tnm.value if tnm else None, basis, derived, _iso(day), tuple(evidence(f) for f in fs))
        if history and (history[-1].group, history[-1].tnm, history[-1].basis) == (group, fact.tnm, basis):
            continue  # the same stage restated: the first statement stands
        history.append(fact)
    with_group = [s for s in history if s.group]
    return (with_group[-1] if with_group else (history[-1] if history else None)), history, issues


def _basis_of_the_day(by_day: dict[tuple, list[Fact]]) -> dict[tuple, list[Fact]]:
    """A group written without "c" or "p" on a day whose TNM has one basis is that TNM's group ("pT2 pN1a -
    stage IIB", "cT3 N1 ... M1a, stage IVA"): it joins that day's basis rather than standing apart. O(n)."""
    out = {k: list(v) for k, v in by_day.items() if k[1] is not None}
    for (day, basis), fs in by_day.items():
        if basis is not None:
            continue
        bases = [b for d, b in out if d == day]
        out.setdefault((day, bases[0] if len(bases) == 1 else None), []).extend(fs)
    return out


def _most_specific(groups: set[str]) -> set[str]:
    """Drop a group another one refines ("II" beside "IIA"): they do not conflict."""
    parts = {g: STAGE_GROUP.match(g).groups() for g in groups}
    return {g for g in groups
            if not any(h != g and parts[h][0] == parts[g][0] and all(x is None or x == y for x, y in
                                                                      zip(parts[g][1:], parts[h][1:]))
                       for h in groups)}


def markers_of(facts: list[Fact]) -> tuple[dict[str, MarkerFact], list[Issue]]:
    """Latest status per biomarker, conflicts reported, HR/MSI/MMR derived. O(n)."""
    by_marker: dict[str, list[tuple[Fact, str]]] = defaultdict(list)
    for f in facts:
        if f.kind != "Biomarker":
            continue
        for v in f.values:
            name, _, status = v.partition("=")
            if status:
                by_marker[name].append((f, status))
    out: dict[str, MarkerFact] = {}
    issues: list[Issue] = []
    for name, items in by_marker.items():
        usable = [(f, s) for f, s in items if s not in _UNUSABLE] or items
        # an equivocal IHC counts only while no definite result exists: the reflex ISH decides (ASCO/CAP),
        # beside it or before an IHC 2+ restated later
        usable = [(f, s) for f, s in usable if s != "equivocal"] or usable
        last_day = max((f.date or dt.date.min) for f, _ in usable)
        latest = [(f, s) for f, s in usable if (f.date or dt.date.min) == last_day]
        # on one day, a result recalled from before ("discordant with the core (ER 0%)") yields to one stated now
        latest = [(f, s) for f, s in latest if f.assertion != "historical"] or latest
        # one protein's loss beside the others' intact staining is a deficient system; one variant found beside
        # others ruled out is a mutated gene
        kept = (mmr_loss_wins if name == "MMR" else variant_found_wins)([(s, f.detail) for f, s in latest])
        latest = [latest[i] for i in kept] if len(kept) < len(latest) else latest
        statuses = {s for _, s in latest}
        flagged = any(x == f"conflict:{name}" for f, _ in latest for x in f.flags)
        ev = tuple(evidence(f) for f, _ in latest)
        if len(statuses) > 1 or flagged:
            issues.append(Issue("conflict", name, f"{name} is stated as {' and '.join(sorted(statuses)) if len(statuses) > 1 else 'both ways in one note'}"
                                                  f" on {_iso(last_day if last_day != dt.date.min else None) or 'an undated note'}; not used",
                                ev))
            out[name] = MarkerFact(name, "conflicting", {}, _iso(last_day), ev)
            continue
        f, status = latest[-1]
        if status == "invalid":
            issues.append(Issue("invalid", name, f"an impossible {name} value was written; not used", ev))
        out[name] = MarkerFact(name, status, dict(f.detail), _iso(f.date), ev)
    usable = {k: v.status for k, v in out.items() if v.status not in _UNUSABLE + ("conflicting",)}
    for name, status in derived_markers(usable).items():
        sources = ("ER", "PR") if name == "HR" else ("MMR",) if name == "MSI" else ("MSI",)
        srcs = [out[s] for s in sources if s in usable]
        out[name] = MarkerFact(name, status, {}, max((s.date or "") for s in srcs) or None,
                               tuple(e for s in srcs for e in s.evidence), tuple(s.name for s in srcs))
    return out, issues


def performance_of(facts: list[Fact]) -> PerformanceFact | None:
    """The latest ECOG (Zubrod/WHO) performance status."""
    latest = None
    for f in facts:
        for v in f.values:
            scale, _, value = v.partition("=")
            if scale == "ECOG" and value.isdigit():
                latest = PerformanceFact("ECOG", int(value), _iso(f.date), (evidence(f),))
    return latest


def response_of(facts: list[Fact]) -> ResponseFact | None:
    """The latest documented clinical response (``response=complete|incomplete``, read at ingestion by
    :func:`graphkit.clinical.values.find_responses`); on one day an incomplete statement wins (a
    "complete response?" question beside "residual tumour" is not one)."""
    dated = [(f.date or dt.date.min, v.partition("=")[2], f) for f in facts if f.kind == "Response"
             for v in f.values if v.startswith("response=")]
    if not dated:
        return None
    day = max(d for d, _, _ in dated)
    today = [(v, f) for d, v, f in dated if d == day]
    value = "incomplete" if any(v == "incomplete" for v, _ in today) else "complete"
    # "F/U - surveillance after cCR" restates the response months later: it was known since the first
    # statement after the last one that said otherwise
    other = max((d for d, v, _ in dated if v != value and d < day), default=None)
    since = min(d for d, v, _ in dated if v == value and (other is None or d > other))
    return ResponseFact(value, _iso(day) if day != dt.date.min else None,
                        tuple(evidence(f) for v, f in today if v == value)[:3],
                        _iso(since) if since != dt.date.min else None)


def treatments_of(facts: list[Fact]) -> list[TreatmentFact]:
    """One entry per cancer-directed treatment concept (:mod:`graphkit.clinical.treatments`), first date
    first. O(n)."""
    groups: dict[str, list[Fact]] = defaultdict(list)
    for f in facts:
        if f.kind in ("Medication", "Procedure") and is_cancer_treatment(f.kind, f.codes, f.ancestors):
            groups[f.codes[0] if f.codes else "text|" + f.text.lower()].append(f)
    out = []
    for fs in groups.values():
        dates = [f.date for f in fs if f.date]
        starts = [f.detail.get("start") for f in fs if f.detail.get("start")]
        first = min([_iso(d) for d in dates] + starts) if dates or starts else None
        status = next((f.detail["status"] for f in reversed(fs) if f.detail.get("status")), "documented")
        names = [f.text for f in fs]
        out.append(TreatmentFact(max(set(names), key=names.count), fs[0].kind,
                                 tuple(dict.fromkeys(c for f in fs for c in f.codes)),
                                 tuple(dict.fromkeys(a for f in fs for a in f.ancestors)), status, first,
                                 _iso(max(dates)) if dates else None, tuple(evidence(f) for f in fs[:5])))
    return sorted(out, key=lambda t: (t.first or "9999", t.name))


def is_cancer_drug(t: TreatmentFact) -> bool:
    return t.kind == "Medication" and any(k.startswith(CANCER_DRUG_PREFIXES) for k in t.codes + t.ancestors)


def build_state(patient: str, facts: list[Fact], at: dt.date | None = None) -> PatientState:
    """The patient's state at ``at`` (today's record when None). Pure; O(n log n) for n facts."""
    happened, planned = own_facts(facts, at)
    state = PatientState(patient, _iso(at), facts=happened)
    state.ruled_out = [f for f in facts if RULED_OUT in f.flags and f.context != "family"
                       and (at is None or f.date is None or f.date <= at)]
    state.cancers = cancers_of(happened)
    current = [c for c in state.cancers if not c.past]
    groups = sorted({site_group(c.site) for c in current if site_group(c.site)})
    if len(groups) > 1:
        state.issues.append(Issue("two-primaries", "cancer", "cancers of more than one primary site are recorded: "
                                  + ", ".join(groups) + "; each guideline is evaluated on its own",
                                  tuple(c.evidence[0] for c in current if c.evidence)))
    site = next((c.site for c in current if c.site), None) or next((c.site for c in state.cancers if c.site), None)
    state.stage, state.stage_history, issues = stage_of(happened, site)
    state.issues += issues
    state.markers, issues = markers_of(happened)
    state.issues += issues
    state.performance = performance_of(happened)
    state.response = response_of(happened)
    state.treatments = treatments_of(happened)
    state.progression = sorted({f.date.isoformat() for f in happened
                                if f.kind == "Problem" and f.date and is_progression(f.codes)})
    state.planned = [t for t in treatments_of(planned)
                     if not any(set(t.codes) & set(d.codes) for d in state.treatments)]
    first_dx = min((c.first for c in state.cancers if c.first), default=None)
    for t in state.treatments:
        if first_dx and t.first and t.first < first_dx and is_cancer_drug(t):
            state.issues.append(Issue("before-diagnosis", t.name, f"{t.name} is dated {t.first}, before the first "
                                      f"recorded diagnosis ({first_dx}): check the dates", t.evidence[:1]))
    return state
