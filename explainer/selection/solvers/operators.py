"""Genetic operators shared by GA, IRFRE and both QGAs (one copy of each).

* :func:`select_pairs` - n pairs of distinct individuals, fitness-proportional;
* :func:`crossover_masks` - uniform, one- and two-point crossover;
* :func:`crossover_children` / :func:`retry_until_feasible` - the paper's "repeat the crossover
  (or mutation) until the child keeps the budgets", bounded, the caller choosing the fallback;
* :func:`weighted_subset` - m indices without replacement, probability proportional to weights;
* :func:`distinct_rows` / :func:`unique_rows` - de-duplication of bit strings;
* :func:`random_feasible_population` - rejection-sampled feasible bit strings.
"""

from __future__ import annotations

import numpy as np

from explainer.selection.problem import SelectionProblem


def expected_fit_count(problem: SelectionProblem) -> float:
    """Roughly how many average rules fit both budgets (between 1 and M)."""
    M = problem.n_rules
    counts = [float(M)]
    for budget, use in zip(problem.budgets, (problem.lengths, problem.errors), strict=True):  # None: no budget
        mean = float(use.mean()) if M else 0.0
        if budget is not None and mean > 0:
            counts.append(budget / mean)
    return float(np.clip(min(counts), 1.0, max(M, 1)))


def distinct_rows(X: np.ndarray) -> np.ndarray:
    """Indices of the first occurrence of each distinct row of a bool matrix, increasing."""
    X = np.asarray(X, dtype=bool)
    if X.shape[0] <= 1:
        return np.arange(X.shape[0])
    packed = np.ascontiguousarray(np.packbits(X, axis=1))
    keys = packed.view(np.dtype((np.void, packed.shape[1]))).ravel()
    _, first = np.unique(keys, return_index=True)
    return np.sort(first)


def unique_rows(R: np.ndarray) -> np.ndarray:
    """Distinct rows of a boolean matrix, in order of first occurrence."""
    return R[distinct_rows(R)]


def row_key(r: np.ndarray) -> bytes:
    """A hashable key of one bit string (for memo tables)."""
    return np.packbits(r).tobytes()


def weighted_subset(weights: np.ndarray, m: int, rng: np.random.Generator) -> np.ndarray:
    """m indices drawn without replacement with probability proportional to weights, sorted.

    Efraimidis-Spirakis keys ``-log(u) / w``: the m smallest are a sequential
    weighted draw without replacement.
    """
    keys = -np.log(1.0 - rng.random(weights.shape[0])) / weights
    return np.sort(np.argpartition(keys, m - 1)[:m]) if m < weights.shape[0] else np.arange(weights.shape[0])


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
    base = problem.pinned_mask[None, :].copy()  # the empty selection, or the pins alone
    if M == 0 or n <= 0:
        return base
    top = min(1.0, 2.0 * expected_fit_count(problem) / M)
    batch = max(4 * n, 64)
    found = np.zeros((0, M), dtype=bool)
    for _ in range(max_rounds):
        d = np.full(batch, float(density)) if density is not None else rng.uniform(0.0, top, batch)
        R = (rng.random((batch, M)) < d[:, None]) | base
        R = R[(R & ~base).any(axis=1) & problem.feasible_mask(R)]
        found = unique_rows(np.vstack([found, R]))
        if len(found) >= n:
            return found[:n]
    if len(found) == 0:
        return base
    return found


def _draw(cdf: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    idx = np.searchsorted(cdf, rng.random(n) * cdf[-1], side="right")
    return np.minimum(idx, cdf.shape[0] - 1)


def select_pairs(weights: np.ndarray, n_pairs: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``n_pairs`` pairs of distinct indices, each member drawn with probability proportional to weights.

    Weights are clipped at 0 (f* can be negative when conflicts outweigh
    coverage); with no positive mass they are uniform.  The second member is
    redrawn a few times when it equals the first, then moved to another index
    uniformly.  With a single individual both members are that individual.
    """
    w = np.maximum(np.asarray(weights, dtype=float), 0.0)
    P = len(w)
    if not np.isfinite(w.sum()) or w.sum() <= 0:
        w = np.ones(P)
    cdf = np.cumsum(w)
    a = _draw(cdf, n_pairs, rng)
    b = _draw(cdf, n_pairs, rng)
    if P == 1:
        return a, b
    for _ in range(32):
        same = a == b
        if not same.any():
            break
        b[same] = _draw(cdf, int(same.sum()), rng)
    same = a == b
    if same.any():
        b[same] = (a[same] + 1 + rng.integers(0, P - 1, int(same.sum()))) % P
    return a, b


def fitness_weights(fit: np.ndarray) -> np.ndarray:
    """Fitness-proportional weights ``max(f*, 0) + 1e-9`` (every individual can still be drawn)."""
    return np.maximum(np.asarray(fit, dtype=float), 0.0) + 1e-9


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


def retry_until_feasible(problem: SelectionProblem, make, current: np.ndarray, max_retries: int):
    """Regenerate the rows of ``current`` that break a budget with ``make(rows)``, at most ``max_retries`` times.

    Returns ``(current, ok)``; the rows with ``ok`` False still break a budget
    and the caller applies its documented fallback.
    """
    feasible = problem.feasible_mask(current)
    for _ in range(max(int(max_retries), 0)):
        if feasible.all():
            break
        bad = np.flatnonzero(~feasible)
        current[bad] = make(bad)
        feasible[bad] = problem.feasible_mask(current[bad])
    return current, feasible


def crossover_children(problem: SelectionProblem, kind: str, pop: np.ndarray, a: np.ndarray, b: np.ndarray,
                       rng: np.random.Generator, retries: int):
    """Two children per pair (a[i], b[i]); each crossover repeated until the child keeps the budgets.

    Child i comes from (first[i], second[i]) with ``first = [a, b]``, ``second = [b, a]``; the
    first attempt gives each pair two complementary children (one mask), a repetition draws a
    fresh mask for the child that broke a budget.  Returns ``(children, ok, first, second)``;
    ``ok`` is False for a child still over budget after ``retries`` repetitions (the paper
    repeats "until", which need not end).
    """
    first = np.concatenate([a, b])
    second = np.concatenate([b, a])
    X, Y = pop[first], pop[second]
    M = pop.shape[1]

    def make(rows):
        return np.where(crossover_masks(kind, len(rows), M, rng), X[rows], Y[rows])

    # first attempt: the textbook pair of complementary children (one mask, both ways round)
    mask = crossover_masks(kind, len(a), M, rng)
    start = np.where(np.vstack([mask, mask]), X, Y)
    children, ok = retry_until_feasible(problem, make, start, retries)
    return children, ok, first, second


def pareto_ranks(objectives: np.ndarray) -> np.ndarray:
    """Non-dominated sorting: front number (1 = non-dominated) of each row; all objectives minimised."""
    obj = np.asarray(objectives, dtype=float)
    P = len(obj)
    le = (obj[:, None, :] <= obj[None, :, :]).all(axis=2)
    lt = (obj[:, None, :] < obj[None, :, :]).any(axis=2)
    # dom[i, j]: i dominates j (asarray: a reduction over an axis is typed as "scalar or array")
    dom = np.asarray(le & lt)
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
