"""The conformance report: what was done, what is missing, what was off the guideline, and where the
order or timing broke the guideline's constraints. Pure: built from the alignment, no I/O."""

from __future__ import annotations

from graphkit.align.model import ConformanceItem, Guideline, Pair, Path, Profile, Unit
from graphkit.align.score import condition_conflicts


def _date(u: Unit) -> str | None:
    return u.first.isoformat() if u.first else None


def conformance(guideline: Guideline, path: Path, units: list[Unit], pairs: list[Pair],
                best_step: dict[str, tuple[str, float]], theta: float, same_day_days: int = 1) -> list[ConformanceItem]:
    """Items for one patient against the followed path. ``best_step``: per unit key, the guideline step
    uid it resembles most and that score (to explain off-guideline events). O(k² + n)."""
    steps = {s.uid: s for s in guideline.steps}
    by_uid_id = {s.id: s.uid for s in guideline.steps}
    unit = {u.key: u for u in units}
    primary = {p.step: p for p in pairs if p.role == "primary"}
    support: dict[str, list[Pair]] = {}
    for p in pairs:
        if p.role == "support":
            support.setdefault(p.step, []).append(p)
    aligned_units = {p.unit for p in pairs}
    pos = {uid: i for i, uid in enumerate(path.steps)}
    items: list[ConformanceItem] = []

    # matched steps, with all the events that realized them
    for uid in path.steps:
        p = primary.get(uid)
        if p is None:
            continue
        u = unit[p.unit]
        evs = list(u.events) + [e for sp in support.get(uid, []) for e in unit[sp.unit].events]
        items.append(ConformanceItem("matched", steps[uid].id, uid, f"{steps[uid].name}: done", evs,
                                     date=_date(u), score=round(p.score, 4)))

    # missing (a later step was done) or pending (nothing after it yet)
    observable = [uid for uid in path.steps if steps[uid].observable]
    last_done = max((pos[uid] for uid in primary), default=-1)
    first_pending = True
    for uid in observable:
        if uid in primary:
            continue
        if pos[uid] < last_done:
            later = next(steps[x].name for x in path.steps[pos[uid] + 1:] if x in primary)
            items.append(ConformanceItem("missing", steps[uid].id, uid,
                                         f"{steps[uid].name}: expected before '{later}', not found in the record"))
        else:
            detail = f"{steps[uid].name}: not done yet" + (" (next expected step)" if first_pending else "")
            first_pending = False
            items.append(ConformanceItem("pending", steps[uid].id, uid, detail))

    # order violations between done steps
    done = sorted(primary.items(), key=lambda kv: pos[kv[0]])
    for a in range(len(done)):
        for b in range(a + 1, len(done)):
            ua, ub = unit[done[a][1].unit], unit[done[b][1].unit]
            if ua.first and ub.first and (ua.first - ub.first).days > same_day_days:
                sa, sb = steps[done[a][0]], steps[done[b][0]]
                items.append(ConformanceItem(
                    "order_violation", sb.id, sb.uid,
                    f"'{sb.name}' ({ub.first}) came before '{sa.name}' ({ua.first}), which the guideline puts first",
                    list(ub.events[:1]) + list(ua.events[:1]), date=_date(ub), days=(ub.first - ua.first).days))

    # timing constraints of the spec ("within 84 days after surgery")
    for uid, p in primary.items():
        s = steps[uid]
        if not s.timing_after:
            continue
        ref_uid = by_uid_id.get(s.timing_after)
        ref = primary.get(ref_uid) if ref_uid else None
        u = unit[p.unit]
        if ref is None or not u.first or not unit[ref.unit].first:
            continue
        ru = unit[ref.unit]
        days = (u.first - ru.first).days
        if s.min_days is not None and days < s.min_days:
            limit, rule = s.min_days, f"at least {s.min_days} days"
        elif s.max_days is not None and days > s.max_days:
            limit, rule = s.max_days, f"at most {s.max_days} days"
        else:
            continue
        items.append(ConformanceItem(
            "timing_violation", s.id, uid,
            f"'{s.name}' {days} days after '{steps[ref_uid].name}'; the guideline asks {rule}",
            list(u.events[:1]) + list(ru.events[:1]), date=_date(u), days=days, limit_days=limit))

    # aligned events without a time: they count as done, but no order or timing check can see them
    undated = [u for u in units if u.first is None and u.key in aligned_units]
    if undated:
        items.append(ConformanceItem("undated", None, None,
                                     f"{sum(len(u.events) for u in undated)} aligned events have no time; "
                                     "they are left out of the order and timing checks",
                                     [e for u in undated for e in u.events]))

    # events that align to nothing
    for u in units:
        if u.key in aligned_units:
            continue
        step_uid, score = best_step.get(u.key, (None, 0.0))
        if step_uid and score >= theta and step_uid not in pos:
            detail = f"resembles '{steps[step_uid].name}', which is not on the followed path"
        elif step_uid and score >= theta:
            detail = f"resembles '{steps[step_uid].name}', already realized by another event"
        else:
            detail = "matches no guideline step"
        items.append(ConformanceItem("off_guideline", None, None, f"{u.kind}: {detail}", list(u.events),
                                     date=_date(u), score=round(float(score), 4)))
    return items


def condition_items(path: Path, profile: Profile) -> list[ConformanceItem]:
    """The followed path's conditions that the record contradicts: e.g. an ER-positive patient whose
    care matches the ER-negative branch (no endocrine therapy), or stage I care on a stage III path."""
    return [ConformanceItem("condition_mismatch", None, None, detail) for _, detail in condition_conflicts(path, profile)]
