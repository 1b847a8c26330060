"""Pieces shared by the genetic baselines (standard GA and IRFRE)."""

from __future__ import annotations

import numpy as np

from ..problem import SelectionProblem

_UNBOUNDED = np.iinfo(np.int64).max


def expected_fit_count(problem: SelectionProblem) -> float:
    """Roughly how many average rules fit both budgets (between 1 and M)."""
    M = problem.n_rules
    counts = [float(M)]
    for budget, use in ((problem.complexity_budget, problem.lengths), (problem.error_budget, problem.errors)):
        mean = float(use.mean()) if M else 0.0
        if budget < _UNBOUNDED and mean > 0:
            counts.append(budget / mean)
    return float(np.clip(min(counts), 1.0, max(M, 1)))


def first_occurrences(R: np.ndarray) -> np.ndarray:
    """Indices of the distinct rows of a boolean matrix, in order of first occurrence."""
    if len(R) <= 1:
        return np.arange(len(R))
    _, first = np.unique(np.packbits(R, axis=1), axis=0, return_index=True)
    return np.sort(first)


def unique_rows(R: np.ndarray) -> np.ndarray:
    """Distinct rows of a boolean matrix, in order of first occurrence."""
    return R[first_occurrences(R)]


def random_feasible_population(
    problem: SelectionProblem,
    n: int,
    rng: np.random.Generator,
    density: float | None = None,
    max_rounds: int = 20,
) -> np.ndarray:
    """Up to ``n`` distinct feasible non-empty random bit strings (rejection sampling).

    Uniform random strings (density 1/2) almost never fit the budgets when M is
    large, so each candidate gets its own density drawn from U(0, 2k/M), k being
    about how many average rules fit both budgets (:func:`expected_fit_count`);
    the expected number of selected rules is then about k.  A fixed ``density``
    overrides this.  Candidates are drawn in batches of 4n, the infeasible,
    empty and repeated ones discarded, for at most ``max_rounds`` batches; the
    population may therefore be smaller than ``n``.  When nothing feasible is
    found it is the empty selection alone (always feasible).
    """
    M = problem.n_rules
    if M == 0 or n <= 0:
        return np.zeros((1, M), dtype=bool)
    top = min(1.0, 2.0 * expected_fit_count(problem) / M)
    batch = max(4 * n, 64)
    found = np.zeros((0, M), dtype=bool)
    for _ in range(max_rounds):
        d = np.full(batch, float(density)) if density is not None else rng.uniform(0.0, top, batch)
        R = rng.random((batch, M)) < d[:, None]
        R = R[R.any(axis=1) & problem.feasible_mask(R)]
        found = unique_rows(np.vstack([found, R]))
        if len(found) >= n:
            return found[:n]
    if len(found) == 0:
        return np.zeros((1, M), dtype=bool)
    return found


def select_pairs(weights: np.ndarray, n_pairs: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``n_pairs`` pairs of distinct indices, each drawn with probability ∝ weights.

    The second member is drawn from the weights conditioned on differing from
    the first (rejection); if that has no mass left it is uniform over the
    others.  With a single individual both members are that individual.
    """
    w = np.asarray(weights, dtype=float)
    P = len(w)
    if w.sum() <= 0 or not np.isfinite(w.sum()):
        w = np.ones(P)
    prob = w / w.sum()
    a = rng.choice(P, n_pairs, p=prob)
    b = rng.choice(P, n_pairs, p=prob)
    if P == 1:
        return a, b
    for _ in range(32):
        same = a == b
        if not same.any():
            break
        b[same] = rng.choice(P, int(same.sum()), p=prob)
    same = a == b
    if same.any():
        b[same] = (a[same] + 1 + rng.integers(0, P - 1, int(same.sum()))) % P
    return a, b


def crossover_masks(kind: str, n: int, M: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` masks of length M; True takes the gene from the first parent."""
    if kind == "uniform":
        return rng.random((n, M)) < 0.5
    idx = np.arange(M)
    if kind == "one_point":
        cut = rng.integers(1, M, n) if M > 1 else np.ones(n, dtype=np.int64)
        return idx[None, :] < cut[:, None]
    if kind == "two_point":
        ends = np.sort(rng.integers(0, M + 1, (n, 2)), axis=1)
        return ~((idx[None, :] >= ends[:, :1]) & (idx[None, :] < ends[:, 1:]))
    raise ValueError(f"unknown crossover {kind!r}; use 'uniform', 'one_point' or 'two_point'")


def pareto_ranks(objectives: np.ndarray) -> np.ndarray:
    """Non-dominated sorting: front number (1 = non-dominated) of each row; all objectives minimised."""
    obj = np.asarray(objectives, dtype=float)
    P = len(obj)
    le = (obj[:, None, :] <= obj[None, :, :]).all(axis=2)
    lt = (obj[:, None, :] < obj[None, :, :]).any(axis=2)
    dom = le & lt  # dom[i, j]: i dominates j
    count = dom.sum(axis=0)
    rank = np.zeros(P, dtype=np.int64)
    left = np.ones(P, dtype=bool)
    front = 0
    while left.any():
        front += 1
        current = left & (count == 0)
        rank[current] = front
        left &= ~current
        count = count - dom[current].sum(axis=0)
    return rank
