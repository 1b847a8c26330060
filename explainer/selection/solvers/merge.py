"""Population merge: the fittest individuals recombined optimally by the exact solver.

The problem restricted to the rules that the ``n_parents`` fittest
individuals use (at most ``max_rules`` of them, taken from the fittest
individual down) is small, and the MILP of :class:`~explainer.selection.solvers.exact.Exact`
solves it in a few hundredths of a second on most paper data sets.  Its
result, warm-started from the fittest individual, is never worse than any of
those parents, and it is the best selection their rules allow whenever the
solve is proven within ``node_limit`` branch-and-bound nodes.  This is the
"merge" step of Construct, Merge, Solve & Adapt (Blum et al., 2016) and a
multi-parent form of optimised crossover (Aggarwal, Orlin and Tai, 1997),
applied to the GA's population.

Why: the runs that miss the optimum end in a different basin that shares
most rules with it; the optimum's rules are typically all present in the
population after two or three generations, spread over several individuals
that crossover and the local moves do not bring together (measured on
mammographic masses and blood transfusion at half the paper's budgets).

The node limit, not a clock, bounds each solve, so a run gives the same result
on any machine; ``time_limit`` is only a safety net against a pathological
model (a solve it stops is not reproducible, and ``info`` says so).

The model holds one row a group of rows the same rules cover, so its size follows
the table: on a census-like table of 32,561 rows, merges of up to 1,827 groups ended
within 0.03-2.3 s, while two of 4,815 and 10,486 groups had not finished HiGHS's root
LP when their 5 s ran out, and found nothing (a frontier point's QGA spent 5 s in
each).  So the parents are taken, fittest first, only while their rules' groups stay
within ``max_groups`` (:data:`MAX_GROUPS`); a table of fewer rows than that, every
data set of the paper among them, is never cut.
"""

from __future__ import annotations

import time

import numpy as np

from explainer.selection.problem import SelectionProblem
from explainer.selection.solvers.base import StopRelay
from explainer.selection.solvers.exact import Exact

#: at most this many row groups in a merge's model (see the module docstring): fewer parents beyond it
MAX_GROUPS = 3000


def row_groups(problem: SelectionProblem, rules: np.ndarray) -> int:
    """How many rows of the model of ``problem`` restricted to ``rules`` the MILP holds: the distinct sets of
    those rules covering a row (with the row's class under "accuracy"), over the rows some of them cover."""
    met = np.zeros((problem.n_rows, rules.size), dtype=bool)
    for j, i in enumerate(rules):
        met[problem.rows_of(int(i)), j] = True
    covered = met.any(axis=1)
    key = np.packbits(met[covered], axis=1)
    if problem.objective == "accuracy":
        key = np.column_stack([key, problem.y[covered].astype(np.int64).view(np.uint8).reshape(-1, 8)])
    return int(np.unique(key, axis=0).shape[0]) if key.size else 0


class PopulationMerge:
    """Optimal recombination of the fittest individuals (the problem restricted to their rules, solved by MILP).

    Parameters
    ----------
    max_rules : cap on the restricted problem's rules: individuals are taken from the fittest down
        while their union stays within it (the fittest is always taken).
    n_parents : at most this many individuals (None: the whole population).
    node_limit : branch-and-bound nodes per HiGHS solve.
    time_limit : seconds per merge at most (a safety net; the node limit normally ends a solve first).
    max_groups : at most this many row groups in the model (None: no cap): fewer parents beyond it, and no
        merge when even the two fittest exceed it.
    """

    def __init__(self, max_rules: int = 100, n_parents: int | None = None, node_limit: int = 200,
                 time_limit: float = 5.0, max_groups: int | None = MAX_GROUPS):
        self.max_rules = max_rules
        self.n_parents = n_parents
        self.node_limit = node_limit
        self.time_limit = time_limit
        self.max_groups = max_groups
        self.narrowed = 0  # merges given fewer parents (or none) for the size of their model
        self.calls = 0
        self.proven = 0
        self.timed_out = 0
        self.skipped = 0
        self.time_s = 0.0
        self._last: tuple[np.ndarray, bool] | None = None  # (rules, proven) of the previous merge

    def info(self) -> dict:
        """What the merges did, for a result's ``info``."""
        return {"merge_calls": self.calls, "merge_proven": self.proven, "merge_skipped": self.skipped,
                "merge_narrowed": self.narrowed, "merge_time_s": self.time_s}

    def rules(self, pop: np.ndarray, fit: np.ndarray, problem: SelectionProblem | None = None) -> np.ndarray:
        """The rules of the restricted problem: the union over the fittest individuals, within ``max_rules`` and,
        given ``problem``, within ``max_groups`` row groups (halving the parents until it is; no rule when even
        two exceed it)."""
        order = np.argsort(-np.asarray(fit), kind="stable")
        if self.n_parents is not None:
            order = order[: max(int(self.n_parents), 1)]
        used = np.zeros(pop.shape[1], dtype=bool)
        unions = []  # the union over the first 1, 2, ... parents
        for i in order:
            grown = used | pop[i]
            if used.any() and grown.sum() > int(self.max_rules):
                break
            used = grown
            unions.append(used)
        if problem is None or self.max_groups is None or problem.n_rows <= self.max_groups or not unions:
            return np.flatnonzero(used)
        k = len(unions)
        while k >= 2 and row_groups(problem, np.flatnonzero(unions[k - 1])) > self.max_groups:
            k //= 2
        if k < len(unions):
            self.narrowed += 1
        return np.flatnonzero(unions[k - 1]) if k >= 2 else np.zeros(0, dtype=np.int64)

    def __call__(self, problem: SelectionProblem, pop: np.ndarray, fit: np.ndarray,
                 time_left: float | None = None, stop=None) -> np.ndarray | None:
        """A selection at least as fit as the fittest individual (full length), or None when nothing to merge.

        ``stop()`` returning True (the run's stop request) ends the solve with its warm start.
        """
        rules = self.rules(pop, fit, problem)
        if rules.size < 2:
            return None
        if self._last is not None and self._last[1] and np.isin(rules, self._last[0]).all():
            # the previous merge was proven on a superset of these rules: nothing better to find
            self.skipped += 1
            return None
        t0 = time.perf_counter()
        feasible = problem.feasible_mask(pop)
        if not feasible.any():
            return None
        best = int(np.argmax(np.where(feasible, fit, -np.inf)))
        limit = float(self.time_limit) if time_left is None else max(0.01, min(float(self.time_limit), time_left))
        sub = problem.restrict(rules)
        # all conflict pairs up front: on a model this small one solve beats the lazy rounds (2-3x on tic-tac-toe)
        solver = Exact(time_limit=limit, warm_start=pop[best][rules], node_limit=int(self.node_limit),
                       lazy_conflicts=False, cutoff=True, primal_heuristics=False)
        res = solver.solve(sub, callback=StopRelay(stop) if stop is not None else None)
        self.calls += 1
        self.proven += res.status == "optimal"
        self.timed_out += "time limit" in (res.message or "")
        self.time_s += time.perf_counter() - t0
        self._last = (rules, res.status == "optimal")
        out = np.zeros(problem.n_rules, dtype=bool)
        out[rules[res.selection]] = True
        return out


__all__ = ["PopulationMerge"]
