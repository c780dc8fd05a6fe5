"""Pair and path scores (CliCARE Eq. 3–4, reworked): one similarity matrix per patient, all numpy.

CliCARE scores a candidate path by summing per-step similarities, so a longer path wins by length.
Here a path's score is the F-beta (beta = 0.5) of two normalized terms, times a condition
factors:

- recall: how much of the path the trajectory evidences, in the path's order (an order-consistent
  one-to-one matching of events to its observable steps);
- precision: how much of the patient's guideline-relevant care the path explains;
- order consistency (reported): the in-order share of the unconstrained matching;
- condition factor: a penalty when the record's stage or biomarkers contradict the path's conditions.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

from graphkit.align.model import AlignParams, Guideline, Path, PathScore, Profile, Step, Unit
from graphkit.guidelines.spec import stage_rank

#: Which event kinds can realize a step, by step category (others get ``kind_mismatch``).
CATEGORY_KINDS = {
    "imaging": {"Procedure", "Test"},
    "biopsy": {"Procedure", "Cancer", "Test"},
    "biomarker": {"Biomarker", "Test"},
    "staging": {"Stage", "Procedure", "Test"},
    "chemotherapy": {"Medication", "Procedure"},
    "immunotherapy": {"Medication", "Procedure"},
    "targeted": {"Medication", "Procedure"},
    "endocrine": {"Medication", "Procedure"},
    "systemic": {"Medication", "Procedure"},
    "radiation": {"Procedure", "Medication"},
    "surgery": {"Procedure"},
    "surveillance": {"Procedure", "Test"},
    "lab": {"Test", "Problem", "Procedure"},
}
SITUATION_KINDS = {"Problem", "Cancer", "Test", "Procedure"}
_NEG = {"negative", "wild-type", "low"}


def step_texts(steps: list[Step]) -> tuple[list[str], np.ndarray]:
    """The texts that describe each step (name + description, and each coded concept's name), with the
    index of their step; a step's semantic score is its best text's. Texts grouped by step."""
    texts, owner = [], []
    for j, s in enumerate(steps):
        own = [f"{s.name}. {s.description}", s.name] + [name for _, name in s.codes if name]
        for t in dict.fromkeys(own):
            texts.append(t)
            owner.append(j)
    return texts, np.asarray(owner)


def best_text_cosine(unit_vecs: np.ndarray, text_vecs: np.ndarray, owner: np.ndarray, n_steps: int) -> np.ndarray:
    """(units × steps) raw cosine of each unit with its step's best-matching text (texts grouped by
    step, rows unit-norm). O(n · T · d)."""
    if len(unit_vecs) == 0:
        return np.zeros((0, n_steps), dtype=np.float32)
    cos = unit_vecs @ text_vecs.T  # (n, T)
    starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
    return np.maximum.reduceat(cos, starts, axis=1)


def semantic_matrix(unit_vecs: np.ndarray, text_vecs: np.ndarray, owner: np.ndarray, n_steps: int,
                    cos_floor: float) -> np.ndarray:
    """``best_text_cosine`` rescaled so that ``cos_floor`` (unrelated texts) maps to 0."""
    best = best_text_cosine(unit_vecs, text_vecs, owner, n_steps)
    return np.clip((best - cos_floor) / (1.0 - cos_floor), 0.0, 1.0).astype(np.float32)


def _category(code: str) -> str | None:
    system, _, value = code.partition("|")
    return f"{system}|{value[:3]}" if system == "ICD-10-CM" else None


def code_matrix(units: list[Unit], steps: list[Step], params: AlignParams) -> np.ndarray:
    """(units × steps) code agreement: 1 for a shared code (a unit's is-a ancestors count: osimertinib
    meets a step coded by the EGFR TKI class), 0.9 for the same ICD-10 category, else 0.
    Incidence matrices over the code vocabulary, one product each. O(n · k · V) worst case."""
    vocab: dict[str, int] = {}
    cats: dict[str, int] = {}
    for u in units:
        for c in u.codes | u.ancestors:
            vocab.setdefault(c, len(vocab))
    for s in steps:
        for c, _ in s.codes:
            vocab.setdefault(c, len(vocab))
    for c in list(vocab):
        cat = _category(c)
        if cat:
            cats.setdefault(cat, len(cats))

    def incidence(code_sets, index, key):
        m = np.zeros((len(code_sets), max(len(index), 1)), dtype=np.float32)
        for i, codes in enumerate(code_sets):
            for c in codes:
                k = key(c)
                if k in index:
                    m[i, index[k]] = 1.0
        return m

    unit_codes = [u.codes | u.ancestors for u in units]  # a step coded by a class matches its members
    step_codes = [{c for c, _ in s.codes} for s in steps]
    exact = incidence(unit_codes, vocab, lambda c: c) @ incidence(step_codes, vocab, lambda c: c).T > 0
    cat = incidence(unit_codes, cats, _category) @ incidence(step_codes, cats, _category).T > 0
    return np.where(exact, params.code_match, np.where(cat, params.code_category_match, 0.0)).astype(np.float32)


def conflict_matrix(units: list[Unit], steps: list[Step], codes: np.ndarray, params: AlignParams) -> np.ndarray:
    """(units × steps) factor for meaning-only matches that the codes contradict: when a unit and a
    step are coded in the same terminology and share no code, "combined chemotherapy and radiation
    therapy" is evidence against "chemo-immunotherapy", however alike the words. O(n · k)."""
    systems: dict[str, int] = {}
    for u in units:
        for c in u.codes:
            systems.setdefault(c.partition("|")[0], len(systems))
    if not systems:
        return np.ones((len(units), len(steps)), dtype=np.float32)
    a = np.zeros((len(units), len(systems)), dtype=np.float32)
    b = np.zeros((len(steps), len(systems)), dtype=np.float32)
    for i, u in enumerate(units):
        for c in u.codes:
            a[i, systems[c.partition("|")[0]]] = 1.0
    for j, st in enumerate(steps):
        for c, _ in st.codes:
            k = systems.get(c.partition("|")[0])
            if k is not None:
                b[j, k] = 1.0
    same_system = (a @ b.T) > 0
    return np.where(same_system & (codes == 0), params.code_conflict, 1.0).astype(np.float32)


def kind_matrix(units: list[Unit], steps: list[Step], params: AlignParams) -> np.ndarray:
    """(units × steps) 1 where the event kind can realize the step, else ``kind_mismatch``."""
    out = np.full((len(units), len(steps)), params.kind_mismatch, dtype=np.float32)
    for j, s in enumerate(steps):
        allowed = set(CATEGORY_KINDS.get(s.category, ())) or None
        if s.kind == "ClinicalSituation":
            allowed = (allowed or set()) | SITUATION_KINDS
        for i, u in enumerate(units):
            if allowed is None or u.kind in allowed:
                out[i, j] = 1.0
    return out


def pair_scores(semantic: np.ndarray, codes: np.ndarray, kinds: np.ndarray, steps: list[Step],
                conflict: np.ndarray | None = None) -> np.ndarray:
    """(units × steps) base score: the stronger of meaning (times kind fit) and code agreement.

    Decision steps are realized only by their own codes (a documented MDT discussion): "TNM stage 1"
    reads much like a decision step's "TNM stage 4", and meaning alone cannot tell them apart."""
    meaning = semantic * kinds * (conflict if conflict is not None else 1.0)
    s = np.maximum(meaning, codes)  # a code the spec lists is valid whatever the event kind
    decision = np.array([st.kind == "Decision" for st in steps], dtype=bool)
    s[:, decision] = codes[:, decision]
    return s


def condition_conflicts(path: Path, profile: Profile) -> list[tuple[str, str]]:
    """What in the record contradicts the path's conditions: ("stage" | "biomarker", detail). O(b)."""
    out = []
    if profile.stage and (path.stage_min or path.stage_max):
        try:
            r = stage_rank(profile.stage)
            lo = stage_rank(path.stage_min) if path.stage_min else -1
            hi = stage_rank(path.stage_max, upper=True) if path.stage_max else 99
            if not lo <= r <= hi:
                out.append(("stage", f"the followed path is for stage {path.stage_min or '?'}-{path.stage_max or '?'}; "
                                     f"the record says stage {profile.stage}"))
        except ValueError:
            pass
    have = dict(profile.biomarkers)
    for cond in path.biomarkers:
        name, _, want = cond.partition("=")
        got = have.get(name)
        if got and (got in _NEG) != (want in _NEG):
            out.append(("biomarker", f"the followed path is for {name} {want}; the record says {name} {got}"))
    return out


def condition_factor(path: Path, profile: Profile, params: AlignParams) -> float:
    """Penalty when the record contradicts the path's stage range or biomarker conditions. O(b)."""
    f = 1.0
    for kind, _ in condition_conflicts(path, profile):
        f *= params.stage_mismatch if kind == "stage" else params.biomarker_mismatch
    return f


def ordered_matching(W: np.ndarray, dates: np.ndarray, positions: np.ndarray, tol: float,
                     repairs: int = 5) -> tuple[np.ndarray, np.ndarray, float]:
    """Maximum-weight one-to-one matching of units (rows) to path steps (columns) whose dates follow
    the steps' order: match (Hungarian), keep the longest in-order part, forbid the pairs outside it,
    and match again. Returns rows, columns, and the in-order share of the first matching."""
    W = W.copy()
    first_share = None
    for _ in range(repairs + 1):
        rows, cols = linear_sum_assignment(W, maximize=True)
        keep = W[rows, cols] > 0
        rows, cols = rows[keep], cols[keep]
        by_pos = np.argsort(positions[cols], kind="stable")
        rows, cols = rows[by_pos], cols[by_pos]
        t = dates[rows]
        dated = ~np.isnan(t)
        chain = longest_in_order(t[dated], tol)
        share = len(chain) / max(int(dated.sum()), 1) if dated.sum() > 1 else 1.0
        first_share = share if first_share is None else first_share
        bad = np.flatnonzero(dated)[np.setdiff1d(np.arange(int(dated.sum())), chain)]
        if len(bad) == 0:
            return rows, cols, first_share
        W[rows[bad], cols[bad]] = 0.0
    good = np.setdiff1d(np.arange(len(rows)), bad)
    return rows[good], cols[good], first_share


def longest_in_order(t: np.ndarray, tol: float) -> np.ndarray:
    """Indices of the longest subsequence of ``t`` that never goes back by more than ``tol``. O(m²)."""
    m = len(t)
    if m == 0:
        return np.zeros(0, dtype=np.int64)
    best = np.ones(m, dtype=np.int64)
    back = np.full(m, -1, dtype=np.int64)
    for i in range(1, m):
        ok = np.flatnonzero(t[:i] <= t[i] + tol)
        if len(ok):
            j = ok[np.argmax(best[ok])]
            best[i], back[i] = best[j] + 1, j
    i = int(np.argmax(best))
    out = []
    while i >= 0:
        out.append(i)
        i = back[i]
    return np.array(out[::-1], dtype=np.int64)


def score_paths(S: np.ndarray, dates: np.ndarray, guideline: Guideline, profile: Profile,
                params: AlignParams) -> list[PathScore]:
    """Score every path of a guideline against a patient's (units × steps) matrix ``S``.

    ``dates``: each unit's first date as days (NaN when undated). Vectorized over paths:
    O(P · k² + n · P · k) for P paths, k steps, n units. Returns paths best first.
    """
    steps = guideline.steps
    k = len(steps)
    col = {s.uid: j for j, s in enumerate(steps)}
    observable = np.array([s.observable for s in steps], dtype=bool)
    P = len(guideline.paths)
    if P == 0:
        return []
    member = np.zeros((P, k), dtype=bool)
    pos = np.full((P, k), -1, dtype=np.int32)
    for p, path in enumerate(guideline.paths):
        for i, uid in enumerate(path.steps):
            member[p, col[uid]] = True
            pos[p, col[uid]] = i
    obs_member = member & observable[None, :]

    # recall from an order-consistent one-to-one matching per path: a unit realizes at most one step
    # of a path (one colonoscopy cannot be both the diagnostic and the surveillance one), and evidence
    # that runs against the path's order does not count for it. O(P · r · n · k²), r ≤ 5 repairs.
    n = S.shape[0]
    recall = np.zeros(P)
    order = np.ones(P)
    W = np.where(S >= params.theta, S - params.theta + 1e-6, 0.0)
    for p in range(P):
        cols = np.flatnonzero(obs_member[p])
        if n == 0 or len(cols) == 0:
            continue
        rows, matched, order[p] = ordered_matching(W[:, cols], dates, pos[p, cols], params.same_day_days)
        recall[p] = S[rows, cols[matched]].sum() / len(cols)

    # precision: relevant care (units whose best guideline step passes theta) the path explains; not
    # one-to-one, so the second drug of a regimen counts as explained
    if n:
        best_any = S[:, observable].max(1) if observable.any() else np.zeros(n)
        relevant = best_any >= params.theta
        Sr = S[relevant]  # (r, k)
        explained = (Sr[:, None, :] * obs_member[None, :, :]).max(2)  # (r, P)
        explained = np.where(explained >= params.theta, explained, 0.0)
        denom = best_any[relevant].sum()
        precision = explained.sum(0) / denom if denom > 0 else np.zeros(P)
    else:
        precision = np.zeros(P)

    # F-beta with beta < 1: explaining what was done weighs more than covering every step (patients
    # skip steps, records miss some; care the path cannot explain is stronger evidence against it)
    b2 = params.beta ** 2
    f1 = np.where(recall + precision > 0,
                  (1 + b2) * recall * precision / np.maximum(b2 * precision + recall, 1e-9), 0.0)
    cond = np.array([condition_factor(p, profile, params) for p in guideline.paths])
    total = f1 * cond
    # ties (paths that differ only in unobservable branches) go to the shorter path, then the index
    ranked = sorted(range(P), key=lambda p: (-round(float(total[p]), 6), int(member[p].sum()), guideline.paths[p].index))
    return [PathScore(path=guideline.paths[p].id, guideline=guideline.id, version=guideline.version,
                      score=float(total[p]), recall=float(recall[p]), precision=float(precision[p]),
                      order_consistency=float(order[p]), condition_factor=float(cond[p]), rank=r + 1)
            for r, p in enumerate(ranked)]
