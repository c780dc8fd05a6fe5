"""A patient's trajectory as alignable units, the cancer profile, and which guidelines apply."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

from graphkit.align.model import Event, Guideline, Profile, Unit

#: Assertions under which an event really happened to the patient. Negated, family, hypothetical
#: and possible mentions never align as if they happened.
HAPPENED = frozenset({"present", "historical"})
#: Event kinds a guideline step can be realized by.
ALIGNABLE_KINDS = frozenset({"Procedure", "Medication", "Test", "Cancer", "Stage", "Biomarker", "Problem"})


def parse_date(value) -> dt.date | None:
    """ISO date or datetime string (or date) → date; anything else → None."""
    if value is None or value == "":
        return None
    if isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value)[:10])
    except ValueError:
        return None


def concept_keys(events: list[Event]) -> dict[str, str]:
    """event id -> concept key. Events sharing ANY code are one concept (union-find over codes), so a
    note's "breast cancer" (DOID, ICD-10 C50) and the coded Condition (SNOMED) meet when one mention
    carries both; uncoded events group by normalized text. O(n · c · α(n))."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for ev in events:
        keys = list(ev.codes) or ["text|" + " ".join(ev.text.lower().split())]
        root = find(keys[0])
        for k in keys[1:]:
            r = find(k)
            if r != root:
                parent[max(r, root)] = min(r, root)
                root = min(r, root)
    out = {}
    for ev in events:
        first = ev.codes[0] if ev.codes else "text|" + " ".join(ev.text.lower().split())
        out[ev.id] = find(first)
    return out


def build_units(events: list[Event], episode_gap_days: int = 180) -> list[Unit]:
    """Group events that happened into episodes of one concept, ordered by first date.

    Undated events form their own units (date None) at the end. O(n log n) for n events.
    """
    happened = [ev for ev in events if ev.assertion in HAPPENED and ev.kind in ALIGNABLE_KINDS]
    keys = concept_keys(happened)
    by_key: dict[str, list[Event]] = defaultdict(list)
    for ev in happened:
        by_key[keys[ev.id]].append(ev)
    units: list[Unit] = []
    for key, evs in by_key.items():
        dated = sorted((e for e in evs if e.valid_time), key=lambda e: (e.valid_time, e.order or 0, e.id))
        undated = [e for e in evs if not e.valid_time]
        episode: list[Event] = []
        n = 0
        for ev in dated:
            if episode and (ev.valid_time - episode[-1].valid_time).days > episode_gap_days:
                units.append(_unit(f"{key}#{n}", episode))
                episode, n = [], n + 1
            episode.append(ev)
        if episode:
            units.append(_unit(f"{key}#{n}", episode))
        if undated:
            units.append(_unit(f"{key}#undated", undated))
    units = merge_regimens(units)
    far = dt.date.max
    units.sort(key=lambda u: (u.first or far, u.key))
    return units


def merge_regimens(units: list[Unit]) -> list[Unit]:
    """Medications first given on the same day are one regimen (cisplatin + paclitaxel; epirubicin +
    cyclophosphamide): one unit, so that concurrent drugs cannot pose as two sequential treatment
    steps (neoadjuvant, then adjuvant). O(n log n)."""
    by_day: dict[dt.date, list[Unit]] = defaultdict(list)
    rest = []
    for u in units:
        (by_day[u.first].append(u) if u.kind == "Medication" and u.first else rest.append(u))
    for day, group in by_day.items():
        if len(group) == 1:
            rest.append(group[0])
            continue
        group.sort(key=lambda u: u.key)
        rest.append(Unit(key="regimen|" + "+".join(u.key for u in group), kind="Medication",
                         text=" + ".join(u.text for u in group), codes=frozenset().union(*(u.codes for u in group)),
                         events=[e for u in group for e in u.events], first=day,
                         last=max(u.last or day for u in group),
                         ancestors=frozenset().union(*(u.ancestors for u in group))))
    return rest


def _unit(key: str, evs: list[Event]) -> Unit:
    texts = [e.text for e in evs]
    text = max(set(texts), key=lambda t: (texts.count(t), -len(t)))
    kinds = [e.kind for e in evs]
    codes = frozenset(c for e in evs for c in e.codes)
    dates = [e.valid_time for e in evs if e.valid_time]
    return Unit(key=key, kind=max(set(kinds), key=kinds.count), text=text, codes=codes,
                events=[e.id for e in evs], first=min(dates) if dates else None,
                last=max(dates) if dates else None, ancestors=frozenset(a for e in evs for a in e.ancestors))


# -- profile: stage and biomarkers -----------------------------------------------------------------
def build_profile(events: list[Event]) -> Profile:
    """Stage group and biomarker statuses from the values ingestion stored normalized, read through
    the patient state (:mod:`graphkit.state.build`, the one owner of those facts): the latest stage,
    the latest status of each marker, HR from ER/PR. O(n log n)."""
    from graphkit.state.build import build_state
    from graphkit.state.model import Fact

    facts = [Fact(e.id, e.kind, e.text, e.assertion, e.valid_time, e.value, e.values, dict(e.detail or {}), (),
                  e.codes, e.ancestors, None, e.source, None, e.order or 0) for e in events]
    st = build_state("profile", facts)
    markers = {k: m.status for k, m in st.markers.items() if st.marker(k)}
    first_cancer = min((c.first for c in st.cancers if c.first), default=None)
    return Profile(stage=st.stage.group if st.stage else None, biomarkers=tuple(sorted(markers.items())),
                   diagnosis_date=parse_date(first_cancer))


# -- applicability ----------------------------------------------------------------------------------
def _code_matches(patient_code: str, guideline_code: str) -> bool:
    """Exact match, or the same ICD-10 three-character category (C50 ~ C50.911)."""
    if patient_code == guideline_code:
        return True
    ps, _, pc = patient_code.partition("|")
    gs, _, gc = guideline_code.partition("|")
    return ps == gs == "ICD-10-CM" and pc[:3] == gc[:3]


def applicable_guidelines(events: list[Event], guidelines: list[Guideline]) -> list[tuple[Guideline, list[str]]]:
    """Guidelines whose condition codes the patient's (happened: never negated, possible or family)
    Cancer/Problem events carry, directly or through an is-a ancestor (a lung adenocarcinoma applies a
    guideline written for NSCLC), each with the ids of the events that made it apply.
    O(events × codes × condition codes)."""
    out = []
    for g in guidelines:
        hits = [ev.id for ev in events
                if ev.assertion in HAPPENED and ev.kind in ("Cancer", "Problem")
                and any(_code_matches(c, gc) for c in ev.codes + ev.ancestors for gc in g.condition_codes)]
        if hits:
            out.append((g, hits))
    return out
