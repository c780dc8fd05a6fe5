"""Budgeted context selection (Budget-Aware Routing §3): pick text units under a token knapsack.

Every selector sees the units (with token costs in the target tokenizer), their unit-norm sentence
embeddings and a relevance vector computed from the TASK or QUESTION only — never from a reference
summary (the Budget paper's released RCD code scored relevance against the gold summary, which
leaks the answer). Each returns unit indices; ``render`` puts them back in source order.

- ``lead``: units in source order until the budget is spent.
- ``random``: a seeded random order, same packing.
- ``mmr``: maximal marginal relevance, lambda * rel - (1 - lambda) * max similarity to the chosen.
- ``rcd``: relevance + facility-location coverage + log-det diversity, a monotone submodular
  objective maximized by cost-scaled (lazy) greedy under the knapsack, compared with the best
  single unit (the standard 1/2(1 - 1/e) guarantee for budgeted submodular maximization).
- ``Router``: picks one of them per request from the budget ratio (budget / document tokens), with
  thresholds calibrated on a training split (``Router.calibrate``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

SELECTORS = ("lead", "random", "mmr", "rcd")


def _fits(costs: np.ndarray, chosen_cost: int, budget: int) -> np.ndarray:
    return costs <= budget - chosen_cost


def lead(costs: np.ndarray, budget: int, **_) -> list[int]:
    """First units in source order that fit. O(n)."""
    out, used = [], 0
    for i, c in enumerate(costs):
        if used + c <= budget:
            out.append(i)
            used += c
    return out


def random_units(costs: np.ndarray, budget: int, seed: int = 0, **_) -> list[int]:
    """Units in a seeded random order that fit. O(n)."""
    order = np.random.default_rng(seed).permutation(len(costs))
    out, used = [], 0
    for i in order:
        if used + costs[i] <= budget:
            out.append(int(i))
            used += int(costs[i])
    return sorted(out)


#: Units shorter than this ("okay .", "mm-hmm .") are back-channel, not content: the content selectors
#: skip them (per-token scoring would otherwise favour them).
MIN_CONTENT_TOKENS = 5


def mmr(costs: np.ndarray, budget: int, emb: np.ndarray, rel: np.ndarray, lam: float = 0.5,
        min_cost: int = MIN_CONTENT_TOKENS, **_) -> list[int]:
    """Maximal marginal relevance under the budget. O(n²) with a vectorized max-similarity update."""
    n = len(costs)
    sim = emb @ emb.T
    chosen: list[int] = []
    used = 0
    redundancy = np.zeros(n)
    available = costs >= min_cost
    while True:
        ok = available & _fits(costs, used, budget)
        if not ok.any():
            break
        score = np.where(ok, lam * rel - (1 - lam) * redundancy, -np.inf)
        i = int(score.argmax())
        chosen.append(i)
        used += int(costs[i])
        available[i] = False
        redundancy = np.maximum(redundancy, sim[i])
    return sorted(chosen)


@dataclass(frozen=True)
class RCDWeights:
    """Defaults chosen on ACI-Bench TRAIN dialogues (never on the evaluation split)."""

    relevance: float = 0.5
    coverage: float = 10.0
    diversity: float = 0.3


def rcd(costs: np.ndarray, budget: int, emb: np.ndarray, rel: np.ndarray,
        weights: RCDWeights = RCDWeights(), min_cost: int = MIN_CONTENT_TOKENS, **_) -> list[int]:
    """Relevance + Coverage + Diversity, greedy by marginal gain per token.

    F(S) = a * sum_{i in S} rel_i t_i + b * sum_v w_v max_{j in S} sim(v, j) + c * logdet(I + K'_S)

    measured in tokens so that short back-channel units do not win by being cheap: t_i = c_i / mean(c)
    is a unit's relative length, w_v = rel_v t_v / sum(rel t) weights coverage toward the relevant text,
    and K'_ij = sqrt(t_i t_j) sim_ij is the similarity kernel scaled by length (still PSD, so the log-det
    stays monotone submodular). All candidates' gains are recomputed at once per step (vectorized; n is a
    few hundred), which is what lazy greedy approximates; the best single unit is the fallback (the
    budgeted-submodular 1/2(1 - 1/e) argument). O(k · n²) for k chosen units.
    """
    n = len(costs)
    if n == 0:
        return []
    t = costs / max(float(costs.mean()), 1.0)
    sim = np.clip(emb @ emb.T, 0.0, None)
    rel = np.clip(rel, 0.0, None)
    w = rel * t
    w = w / w.sum() if w.sum() > 0 else np.full(n, 1.0 / n)
    scale = np.sqrt(t)
    kernel = (emb @ emb.T) * scale[:, None] * scale[None, :]
    cover = np.zeros(n)                    # every unit's best similarity to the chosen set
    chol: list[np.ndarray] = []            # rows of L^-1 K'_{S,:} with L L^T = I + K'_S
    chosen: list[int] = []
    used = 0
    available = costs >= min_cost

    def gains() -> np.ndarray:
        g_rel = weights.relevance * rel * t
        g_cov = weights.coverage * (w[:, None] * np.maximum(sim - cover[:, None], 0.0)).sum(0)
        resid = 1.0 + np.diag(kernel) - (np.stack(chol) ** 2).sum(0) if chol else 1.0 + np.diag(kernel)
        return g_rel + g_cov + weights.diversity * np.log(np.maximum(resid, 1.0))

    g0 = gains()
    fit0 = (costs <= budget) & available
    best_single = int(np.where(fit0, g0, -np.inf).argmax()) if fit0.any() else None
    total = 0.0
    while True:
        ok = available & (costs <= budget - used)
        if not ok.any():
            break
        g = gains()
        i = int(np.where(ok, g / np.maximum(costs, 1), -np.inf).argmax())
        if g[i] <= 0:
            break
        total += g[i]
        chosen.append(i)
        used += int(costs[i])
        available[i] = False
        cover = np.maximum(cover, sim[:, i])
        if chol:
            L = np.stack(chol)
            d = np.sqrt(max(1.0 + kernel[i, i] - float((L[:, i] ** 2).sum()), 1e-9))
            chol.append((kernel[i] - (L * L[:, [i]]).sum(0)) / d)
        else:
            chol.append(kernel[i] / np.sqrt(1.0 + kernel[i, i]))
    if best_single is not None and g0[best_single] > total:
        return [best_single]
    return sorted(chosen)


SELECT = {"lead": lead, "random": random_units, "mmr": mmr, "rcd": rcd}


def select(method: str, costs, budget: int, emb=None, rel=None, seed: int = 0) -> list[int]:
    """Run one selector by name."""
    return SELECT[method](np.asarray(costs), int(budget), emb=emb, rel=rel, seed=seed)


@dataclass
class Router:
    """Budget-aware routing: the selector for a request depends on how tight the budget is.

    ``thresholds`` split the budget ratio (budget / document tokens) into bins, each with the selector
    that scored best on the calibration split. A ratio >= 1 means everything fits: ``lead`` (cheapest).
    """

    thresholds: list[float] = field(default_factory=list)
    choices: list[str] = field(default_factory=lambda: ["rcd"])

    def route(self, budget: int, doc_tokens: int) -> str:
        ratio = budget / max(doc_tokens, 1)
        if ratio >= 1.0:
            return "lead"
        return self.choices[int(np.searchsorted(self.thresholds, ratio, side="right"))]

    @classmethod
    def calibrate(cls, records: list[dict], methods=("lead", "mmr", "rcd"), bins: int = 4,
                  key: str = "score") -> Router:
        """``records``: {"ratio", "method", key} from the calibration split. Bins of equal size on
        the ratio; each gets its best method by mean score. O(r log r)."""
        ratios = np.array(sorted({r["ratio"] for r in records if r["ratio"] < 1.0}))
        if len(ratios) == 0:
            return cls()
        edges = list(np.quantile(ratios, np.linspace(0, 1, bins + 1))[1:-1])
        choices = []
        for b in range(bins):
            lo = edges[b - 1] if b > 0 else -np.inf
            hi = edges[b] if b < len(edges) else np.inf
            best, best_score = methods[0], -1.0
            for m in methods:
                scores = [r[key] for r in records if r["method"] == m and lo <= r["ratio"] < hi]
                if scores and np.mean(scores) > best_score:
                    best, best_score = m, float(np.mean(scores))
            choices.append(best)
        return cls(thresholds=[float(e) for e in edges], choices=choices)
