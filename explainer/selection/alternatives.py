"""The other explanations nearly as good as the best: up to k more selections within a distance of its objective.

:func:`alternatives` returns up to ``k`` selections, each differing from the best and from each other by at
least one rule, each within the budgets, each with an objective of at least the best's minus ``within``
percentage points of the rows (of their total weight when weighted).  Two ways to find them:

* ``"exact"``: the MILP of :mod:`explainer.selection.solvers.milp` solved again and again, each solution then
  forbidden by a no-good cut ``sum_{i in S} (1 - x_i) + sum_{i not in S} x_i >= 1``; the solves stop at ``k``,
  when nothing reaches the threshold any more, or at the time limit (shared by every solve).  Solved to
  optimality, the alternatives are the ``k`` best distinct feasible selections other than the best, best
  first.  Twin rules (same class, same rows) are kept apart so every distinct selection is there; rules that
  cover no row or break a budget on their own are left out (they change no explanation, or never fit).
* ``"heuristic"``: the distinct feasible individuals a QGA run met (its archive, the ``4 k`` fittest), their
  dead rules dropped (which never lowers the objective), those within the threshold, fittest first.

:func:`stable_core` is the rules every selection shares: the best's and every alternative's.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from explainer.selection.problem import Evaluation, SelectionProblem
from explainer.selection.result import STOPPED

EXACT = "exact (no-good cuts)"
HEURISTIC = "heuristic (QGA's distinct individuals)"
#: the algorithm of a run -> the way its alternatives are found
METHODS = {"exact": "exact", "qga": "heuristic"}
#: the archive of a heuristic search keeps this many times ``k`` individuals
ARCHIVE_PER_ALTERNATIVE = 4
_TOL = 1e-6


@dataclass(frozen=True)
class Alternative:
    """One selection: its rule indices (sorted) and their evaluation on the problem."""

    rules: np.ndarray
    evaluation: Evaluation

    @property
    def objective(self) -> float:
        value = self.evaluation.value
        assert value is not None  # an Evaluation's value is set when it is made
        return float(value)


@dataclass
class Alternatives:
    """What :func:`alternatives` found: the alternatives, fittest first, and how."""

    method: str  # EXACT or HEURISTIC
    best: np.ndarray  # the best's rule indices
    best_objective: float
    threshold: float  # the lowest objective an alternative may have
    items: list[Alternative] = field(default_factory=list)
    complete: bool = True  # exact: every solve proven (the alternatives are the top k); heuristic: False
    message: str = ""

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self):
        return iter(self.items)

    def stable_core(self) -> np.ndarray:
        return stable_core(self.best, [a.rules for a in self.items])


def stable_core(best, others) -> np.ndarray:
    """The rule indices in ``best`` and in every selection of ``others`` (sorted)."""
    core = set(np.asarray(best, dtype=np.int64).tolist())
    for rules in others:
        core &= set(np.asarray(rules, dtype=np.int64).tolist())
    return np.array(sorted(core), dtype=np.int64)


def threshold_of(problem: SelectionProblem, best_objective: float, within: float) -> float:
    """The lowest objective within ``within`` percentage points of the rows (their weight) of ``best_objective``."""
    return float(best_objective) - float(within) * float(problem.total_weight) / 100.0


def alternatives(problem: SelectionProblem, best_selection, k: int, within: float = 1.0, method: str = "exact", *,
                 time_limit: float | None = 60.0, random_state=None, solver_params: dict | None = None,
                 backend: str = "highs") -> Alternatives:
    """Up to ``k`` selections nearly as good as ``best_selection`` (a bool mask or rule indices).

    ``within``: percentage points of the rows (of their total weight when weighted) an alternative's objective
    may fall below the best's.  ``method``: ``"exact"`` (no-good cuts in the MILP; ``backend`` "highs" or
    "cpsat") or ``"heuristic"`` (a QGA run's distinct individuals; ``solver_params`` and ``random_state`` are its
    own, e.g. those of the run that found the best).  ``time_limit``: seconds for all of it (None: none).
    """
    k = int(k)
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    if not np.isfinite(within) or within < 0:
        raise ValueError(f"within must be a number of percentage points >= 0, got {within!r}")
    if method not in ("exact", "heuristic"):
        raise ValueError(f"method must be 'exact' or 'heuristic', got {method!r}")
    best = _mask(problem, best_selection)
    best_ev = problem.evaluate(best)
    value = best_ev.value
    assert value is not None
    out = Alternatives(EXACT if method == "exact" else HEURISTIC, np.flatnonzero(best), float(value),
                       threshold_of(problem, value, within), complete=method == "exact")
    if k == 0:
        return out
    if method == "exact":
        _exact(problem, best, k, out, time_limit, backend)
    else:
        _heuristic(problem, best, k, out, time_limit, random_state, solver_params or {})
    return out


def _mask(problem: SelectionProblem, selection) -> np.ndarray:
    sel = np.asarray(selection)
    if sel.dtype == bool:
        if sel.shape != (problem.n_rules,):
            raise ValueError("the best selection needs one entry per rule")
        return sel.copy()
    mask = np.zeros(problem.n_rules, dtype=bool)
    mask[sel.astype(np.int64).ravel()] = True
    return mask


def _accept(problem: SelectionProblem, r: np.ndarray, out: Alternatives) -> bool:
    """Add ``r`` to ``out`` if it is feasible, within the threshold and new; returns whether it was added."""
    ev = problem.evaluate(r)
    assert ev.value is not None
    rules = np.flatnonzero(r)
    if not ev.feasible or ev.value < out.threshold - _TOL * max(1.0, abs(out.threshold)):
        return False
    if np.array_equal(rules, out.best) or any(np.array_equal(rules, a.rules) for a in out.items):
        return False
    out.items.append(Alternative(rules, ev))
    return True


# --------------------------------------------------------------------- exact
def _no_good(sel_k: np.ndarray) -> tuple[np.ndarray, float]:
    """The no-good cut of the kept-rule choice ``sel_k`` as a budget row (coef . x <= budget):
    sum_{i in S} x_i - sum_{i not in S} x_i <= |S| - 1."""
    coef = np.where(sel_k, 1.0, -1.0)
    return coef, float(sel_k.sum()) - 1.0


def _exact(problem: SelectionProblem, best: np.ndarray, k: int, out: Alternatives, time_limit, backend) -> None:
    from explainer.selection.solvers.exact import _Search
    from explainer.selection.solvers.milp import _OutOfTime, _reduce, f_grid

    deadline = time.perf_counter() + (float(time_limit) if time_limit is not None else 1e9)
    try:
        red, _ = _reduce(problem, deadline, merge_duplicates=False)
    except _OutOfTime:
        out.complete, out.message = False, "time limit reached while building the model"
        return
    s = _Search(problem, red, f_grid(problem.eps, problem.row_weight), best, out.best_objective)
    if problem.eps > 0 and s.hint.any():  # the pairs touching the best's rules; the rest when a solution misses them
        s.set_pairs(*red.pairs_touching(np.flatnonzero(s.hint)))
    # the best is forbidden only if the model can express it (every rule of it kept)
    cuts = [_no_good(s.hint)] if s.full(s.hint).sum() == best.sum() else []
    while len(out.items) < k:
        sel_k, message = _next_optimum(s, cuts, out.threshold, deadline, backend)
        if sel_k is None:
            if message:
                out.complete, out.message = False, message
            return
        cuts.append(_no_good(sel_k))
        _accept(problem, s.full(sel_k), out)


def _next_optimum(s, cuts: list, threshold: float, deadline: float, backend: str):
    """The best choice of kept rules the cuts allow with an objective of at least ``threshold``, conflict pairs
    added until its model value is its true one; (None, "") when there is none, (None, why) when not proven."""
    from explainer.selection.solvers.milp import _solve_cpsat, _solve_highs

    red = s.red
    base_rows = list(red.budget_rows)
    red.budget_rows = base_rows + cuts
    try:
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                return None, "time limit reached"
            if backend == "cpsat":
                sub = _solve_cpsat(red, s.pa, s.pb, s.pq, s.eps, left, 0.0, None, 1, 0, lambda sel: False, deadline)
            else:
                cutoff = threshold - _TOL * max(1.0, abs(threshold))
                sub = _solve_highs(red, s.pa, s.pb, s.pq, s.eps, left, 0.0, None, cutoff=cutoff)
            if sub.selection is None:
                # an infeasible model (HiGHS: nothing reaches the cutoff; CP-SAT: the cuts left nothing) ends it
                done = sub.proven or sub.message.endswith("INFEASIBLE")
                return None, "" if done else (sub.message or "no solution in the time limit")
            if not sub.proven:
                return None, sub.message or "optimality not proven in the time limit"
            missing = s.not_in_model(*red.pairs_among(np.flatnonzero(sub.selection)))
            if missing[0].size == 0:
                # the model's value is the true objective: this is the best the cuts leave
                value = red.value_of(sub.selection, s.pa, s.pb, s.pq, s.eps)
                return (sub.selection if value >= threshold - _TOL * max(1.0, abs(threshold)) else None), ""
            s.add_pairs(*red.pairs_touching(np.flatnonzero(sub.selection)))
    finally:
        red.budget_rows = base_rows


# ----------------------------------------------------------------- heuristic
def _heuristic(problem: SelectionProblem, best: np.ndarray, k: int, out: Alternatives, time_limit, random_state,
               params: dict) -> None:
    from explainer.selection.solvers.local_search import clean_up
    from explainer.selection.solvers.qga import QGA

    params = {**params, "time_limit": time_limit if time_limit is not None else params.get("time_limit")}
    solver = QGA(**params)
    solver.keep_archive(ARCHIVE_PER_ALTERNATIVE * k)
    result = solver.solve(problem, random_state=random_state)
    found = [result.selection] + [r for r, _ in (solver.archive_.selections() if solver.archive_ else [])]
    candidates: dict[bytes, np.ndarray] = {}
    for r in found:
        cleaned, _ = clean_up(problem, r, fill=False)
        candidates.setdefault(np.packbits(cleaned).tobytes(), cleaned)
    scored = sorted(candidates.values(), key=lambda r: -float(problem.fitness(r)[0]))
    for r in scored:
        if len(out.items) >= k:
            break
        _accept(problem, r, out)
    if result.status == STOPPED:
        out.message = result.message
