"""Bootstrapped one-to-one alignment in the spirit of BootEA (Sun et al., IJCAI 2018).

Each iteration scores every (unit, step) pair of the chosen path as

    score = alpha * semantic + (1 - alpha) * neighborhood            (BootEA's combined likelihood)

where *neighborhood* is how well the pair agrees with the pairs already aligned: for every aligned
(u', j'), the pair agrees when u happened before u' exactly when step j comes before j' on the path.
New labels come from a **maximum-weight one-to-one matching** (Hungarian algorithm) over the pairs
above ``theta``; a label is **edited** when a better pair for the same unit or step appears. It stops
when an iteration changes nothing, or after ``max_iterations``. Every decision is recorded.

CliCARE's released code instead lowers a cosine threshold per round (0.70 → 0.55) with no one-to-one
constraint and a neighborhood term that is always zero (see ``graphkit.align.baseline``).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

from graphkit.align.model import AlignParams, Decision, Pair


def neighborhood(dates: np.ndarray, positions: np.ndarray, labels: dict[int, int], tol_days: float) -> np.ndarray:
    """(units × steps) mean agreement of each candidate pair with the aligned pairs it does not share a
    unit or step with; 0.5 (no opinion) when there are none. Undated units have no opinion.
    O(n · k · a) for a aligned pairs, vectorized."""
    n, k = len(dates), len(positions)
    if not labels:
        return np.full((n, k), 0.5, dtype=np.float32)
    au = np.fromiter(labels.keys(), dtype=np.int64)
    aj = np.fromiter(labels.values(), dtype=np.int64)
    dt = dates[:, None] - dates[au][None, :]  # (n, a)
    e = np.where(np.isnan(dt), 0.0, np.where(dt > tol_days, 1.0, np.where(dt < -tol_days, -1.0, 0.0)))
    q = np.sign(positions[:, None] - positions[aj][None, :]).astype(np.float64)  # (k, a)
    agree = (1.0 + e[:, None, :] * q[None, :, :]) / 2.0  # (n, k, a)
    valid = (np.arange(n)[:, None] != au[None, :])[:, None, :] & (np.arange(k)[:, None] != aj[None, :])[None, :, :]
    count = valid.sum(2)
    total = (agree * valid).sum(2)
    return np.where(count > 0, total / np.maximum(count, 1), 0.5).astype(np.float32)


def _match(scores: np.ndarray, threshold: float) -> dict[int, int]:
    """Maximum-weight one-to-one matching over the pairs scoring at least ``threshold``.

    Weights are the margins above the threshold: with raw scores, two weak pairs outweigh one strong
    pair (0.81 + 0.66 > 1.0) and the matching would trade a certain match for two doubtful ones."""
    if scores.size == 0:
        return {}
    w = np.where(scores >= threshold, scores - threshold + 1e-6, 0.0)
    rows, cols = linear_sum_assignment(w, maximize=True)
    return {int(r): int(c) for r, c in zip(rows, cols) if w[r, c] > 0}


def bootstrap(S: np.ndarray, dates: np.ndarray, positions: np.ndarray, unit_keys: list[str],
              step_uids: list[str], params: AlignParams) -> tuple[list[Pair], list[Decision], np.ndarray]:
    """Align units to the chosen path's observable steps.

    ``S``: (units × steps) base scores; ``dates``: unit first dates in days (NaN if undated);
    ``positions``: each step's position on the path. Returns the pairs (one-to-one, then support
    pairs), the decision log, and the final (units × steps) combined scores.
    O(iterations · (n · k · a + Hungarian(n, k))).
    """
    decisions: list[Decision] = []
    n, k = S.shape
    if n == 0 or k == 0:
        return [], decisions, np.zeros((n, k), dtype=np.float32)

    # A unit may only take a step it scores nearly as well as its best one; otherwise the matching would
    # push a diagnosis whose step is taken onto some other, merely similar step.
    near_best = S >= S.max(axis=1, keepdims=True) - params.best_margin
    labels = _match(np.where(near_best, S, 0.0), params.seed_theta)
    set_at = {u: 0 for u in labels}
    N = np.full((n, k), 0.5, dtype=np.float32)
    C = S
    for u, j in labels.items():
        decisions.append(Decision(0, "seed", unit_keys[u], step_uids[j], float(S[u, j]), float(S[u, j]), 0.5))

    for it in range(1, params.max_iterations + 1):
        N = neighborhood(dates, positions, labels, params.same_day_days)
        C = params.alpha * S + (1.0 - params.alpha) * N
        # a pair that more aligned neighbors contradict than support is not taken (nor kept)
        eligible = near_best & (N >= params.min_neighborhood)
        new = _match(np.where(eligible, C, 0.0), params.theta)
        if new == labels:
            break
        step_owner = {j: u for u, j in labels.items()}
        for u, j in new.items():
            if labels.get(u) == j:
                continue
            prev_unit = step_owner.get(j)
            if u in labels:
                action, replaced = "edit", step_uids[labels[u]]
            elif prev_unit is not None:
                action, replaced = "edit", unit_keys[prev_unit]
            else:
                action, replaced = "add", None
            decisions.append(Decision(it, action, unit_keys[u], step_uids[j], float(C[u, j]), float(S[u, j]),
                                      float(N[u, j]), replaced))
            set_at[u] = it
        for u, j in labels.items():
            if u not in new:
                decisions.append(Decision(it, "drop", unit_keys[u], step_uids[j], float(C[u, j]), float(S[u, j]),
                                          float(N[u, j])))
                set_at.pop(u, None)
        labels = new
    final_iteration = max(set_at.values(), default=0)

    # A unit that surely realizes a step nobody took (its own best step, a code-level score) is
    # aligned even against the order: the conformance report then shows an order violation, which
    # says more than calling the event off-guideline.
    free = set(range(k)) - set(labels.values())
    late = sorted(((float(S[u].max()), u, int(S[u].argmax())) for u in range(n) if u not in labels),
                  reverse=True)
    for score, u, j in late:
        if j in free and score >= params.seed_theta:
            free.discard(j)
            labels[u] = j
            set_at[u] = final_iteration + 1
            decisions.append(Decision(final_iteration + 1, "add", unit_keys[u], step_uids[j], float(C[u, j]),
                                      score, float(N[u, j]), "out of order"))

    pairs = [Pair(unit_keys[u], step_uids[j], float(C[u, j]), float(S[u, j]), float(N[u, j]), set_at[u])
             for u, j in sorted(labels.items())]
    if params.support and labels:
        # Other events of an aligned step (the second drug of a regimen, a repeat scan): attached as
        # support when the aligned step is their best one, or when they score like the step and agree
        # with the aligned neighborhood.
        aligned_steps = np.zeros(k, dtype=bool)
        aligned_steps[list(labels.values())] = True
        N = neighborhood(dates, positions, labels, params.same_day_days)
        C = params.alpha * S + (1.0 - params.alpha) * N
        for u in range(n):
            if u in labels:
                continue
            cand = np.where(aligned_steps, C[u], -1.0)
            j = int(cand.argmax())
            own_best = aligned_steps[int(S[u].argmax())] and S[u].max() >= params.theta
            if own_best:  # its best step overall is aligned: more evidence of it, whatever the order
                j = int(S[u].argmax())
            if own_best or (cand[j] >= params.theta and S[u, j] >= params.theta and N[u, j] >= 0.5):
                pairs.append(Pair(unit_keys[u], step_uids[j], float(C[u, j]), float(S[u, j]), float(N[u, j]),
                                  final_iteration, role="support"))
                decisions.append(Decision(final_iteration, "support", unit_keys[u], step_uids[j], float(C[u, j]),
                                          float(S[u, j]), float(N[u, j])))
    return pairs, decisions, C
