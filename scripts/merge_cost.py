"""What QGA's population merges cost in the default fit of a census-like table, and which budget row makes them so.

    python scripts/merge_cost.py [--rows 32561]

Fits ``RuleSetExplainer(random_state=0)`` on a census-like table (:func:`explainer.bench.census.census_like`),
recording every merge of the final QGA run (its problem, population and fitness) and its wall seconds.  Then
solves each merge's restricted MILP again as the merge does (HiGHS, node limit, cutoff at the best parent + 1,
primal heuristics off), three ways: with both budget rows, without the error budget's row, and with that row's
coefficients divided by ten (rounded up, its budget rounded down: a restriction of the same model).  Prints one
line per merge and the totals.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import explainer.selection.solvers.merge as merge_module
from explainer.bench.census import census_like
from explainer.estimator import RuleSetExplainer
from explainer.selection.solvers import milp


def _recorded_merges(rows: int) -> tuple[list, float]:
    """(problem, population, fitness, seconds) of every merge of the default fit, and the fit's seconds."""
    calls = []
    merge = merge_module.PopulationMerge.__call__

    def recording(self, problem, pop, fit, time_left=None, stop=None):
        t = time.perf_counter()
        out = merge(self, problem, pop, fit, time_left, stop)
        calls.append((problem, pop.copy(), np.asarray(fit).copy(), time.perf_counter() - t))
        return out

    frame = census_like(rows)
    y = frame.pop(frame.columns[-1])
    merge_module.PopulationMerge.__call__ = recording
    try:
        t = time.perf_counter()
        RuleSetExplainer(random_state=0).fit(frame, y)
        return calls, time.perf_counter() - t
    finally:
        merge_module.PopulationMerge.__call__ = merge


def _solve(red, best: float, rows) -> tuple[float, str]:
    """Seconds and outcome of the merge's model with ``rows`` as its budget rows."""
    red.budget_rows = rows
    empty = np.zeros(0, dtype=np.int64)
    t = time.perf_counter()
    sub = milp._solve_highs(red, empty, empty, empty, 1.0, 60.0, 0.0, None, node_limit=200, cutoff=best + 1,
                            primal_heuristics=False)
    seconds = time.perf_counter() - t
    if sub.selection is None:
        return seconds, "nothing better" if sub.proven else "no answer"
    return seconds, f"{sub.model_value:g}"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=32561)
    args = parser.parse_args(argv)
    calls, fit_s = _recorded_merges(args.rows)
    totals = np.zeros(4)
    print(f"census_like({args.rows:,}): default fit {fit_s:.1f} s, {len(calls)} merges in its final QGA run")
    print("| merge | rules | row groups | best parent | in the run | both rows | no error row | error row / 10 |")
    print("|---|---|---|---|---|---|---|---|")
    for i, (problem, pop, fit, seconds) in enumerate(calls):
        rules = merge_module.PopulationMerge().rules(pop, fit)
        red, _ = milp._reduce(problem.restrict(rules))
        best = float(np.max(np.where(problem.feasible_mask(pop), fit, -np.inf)))
        rows = list(red.budget_rows)
        is_errors = [np.array_equal(c, red.errors.astype(float)) for c, _ in rows]
        errors = [r for r, e in zip(rows, is_errors, strict=True) if e]
        others = [r for r, e in zip(rows, is_errors, strict=True) if not e]
        coarse = others + [(np.ceil(c / 10), float(np.floor(b / 10))) for c, b in errors]
        ways = [_solve(red, best, rows), _solve(red, best, others), _solve(red, best, coarse)]
        totals += [seconds] + [s for s, _ in ways]
        print(f"| {i + 1} | {red.n_kept} | {red.groups.shape[0]} | {best:g} | {seconds:.2f} s | "
              + " | ".join(f"{s:.2f} s, {what}" for s, what in ways) + " |")
    print(f"| all | | | | {totals[0]:.1f} s | {totals[1]:.1f} s | {totals[2]:.1f} s | {totals[3]:.1f} s |")


if __name__ == "__main__":
    main()
