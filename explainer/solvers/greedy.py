"""Greedy for budgeted maximum coverage (Khuller, Moss & Naor), adapted.

The classic algorithm adds, while the budget allows, the set with the best
ratio of newly covered elements to cost, then compares the result with the
best single set that fits; the better of the two is within 1 - 1/sqrt(e) of
the optimum for plain budgeted maximum coverage.  Here there are two budgets
and f* subtracts a conflict penalty, so that guarantee does not carry over;
the procedure does:

1. Ratio phase: starting from the empty selection, repeatedly add the rule with
   the largest  Δf* / cost  among the rules that keep both budgets and have
   Δf* > 0, where  cost_i = L_i / Bc + E_i / Be  (a term is dropped when its
   budget is 0 or unbounded; a rule of cost 0 has an infinite ratio).
2. Best single rule: the feasible rule with the largest support (f* of one rule).
3. Take the better of 1. and 2.; complete it by running the ratio phase from
   it (for 1. this changes nothing; for 2. it adds whatever still fits and helps).

Δf* of every rule is computed at once from the per-row counts of the current
selection (three sparse products), so one step costs O(nnz * K).
Deterministic: ties go to the lowest rule index and the generator is unused.
"""

from __future__ import annotations

import numpy as np

from ..problem import SelectionProblem, SelectionState
from .base import Monitor, RunOutcome, Solver


def budget_scale(budget: int) -> float:
    """1 / budget for a finite positive budget, else 0 (the term does not count)."""
    if budget <= 0 or budget >= np.iinfo(np.int64).max:
        return 0.0
    return 1.0 / float(budget)


def rule_costs(problem: SelectionProblem) -> np.ndarray:
    """cost_i = L_i / Bc + E_i / Be with the guards of :func:`budget_scale`."""
    return problem.lengths * budget_scale(problem.complexity_budget) + problem.errors * budget_scale(
        problem.error_budget
    )


class MarginalGains:
    """Δf* of adding each rule to a selection state, for all rules at once."""

    def __init__(self, problem: SelectionProblem):
        self.problem = problem
        self.cov_t = problem.coverage_sparse.T.tocsr().astype(np.float64)  # M x N
        self.arange = np.arange(problem.n_rules)

    def __call__(self, state: SelectionState) -> np.ndarray:
        p = self.problem
        new_rows = self.cov_t @ (state.total == 0).astype(np.float64)
        fired = self.cov_t @ state.total.astype(np.float64)
        same = np.asarray(self.cov_t @ state.per_class.astype(np.float64))[self.arange, p.rule_class]
        return new_rows - p.eps * (fired - same)


def ratio_greedy(problem: SelectionProblem, state: SelectionState, monitor: Monitor | None = None,
                 candidates: np.ndarray | None = None) -> SelectionState:
    """Grow ``state`` in place by the ratio rule; returns it.  Reports one generation per added rule."""
    gains = MarginalGains(problem)
    costs = rule_costs(problem)
    allowed = np.ones(problem.n_rules, dtype=bool) if candidates is None else np.asarray(candidates, bool)
    while True:
        fits = (
            allowed
            & ~state.r
            & (state.complexity + problem.lengths <= problem.complexity_budget)
            & (state.errors + problem.errors <= problem.error_budget)
        )
        if not fits.any():
            break
        delta = gains(state)
        if monitor is not None:
            monitor.evaluations += int(fits.sum())
        ok = fits & (delta > 1e-9)
        if not ok.any():
            break
        ratio = np.where(ok, delta / np.maximum(costs, 1e-12), -np.inf)
        i = int(np.argmax(ratio))
        state.flip(i)
        if monitor is not None and monitor.generation(np.array([state.coverage]), state.r[None, :]):
            break
    return state


class Greedy(Solver):
    """Budgeted maximum coverage greedy (ratio rule + best single rule), deterministic."""

    name = "greedy"

    def __init__(self):
        pass

    def _run(self, problem: SelectionProblem, rng: np.random.Generator, monitor: Monitor) -> RunOutcome:
        state = ratio_greedy(problem, problem.state(), monitor)
        info = {"ratio_coverage": float(state.coverage), "used_single_rule": False}
        if monitor.stop_requested:
            return RunOutcome(state.r.copy(), info=info)
        single_ok = (problem.lengths <= problem.complexity_budget) & (problem.errors <= problem.error_budget)
        if single_ok.any():
            j = int(np.argmax(np.where(single_ok, problem.support, -1)))
            info["single_rule"] = j
            if problem.support[j] > state.coverage:
                single = problem.state()
                single.flip(j)
                state = ratio_greedy(problem, single, None)
                info["used_single_rule"] = True
        monitor.generation(np.array([state.coverage]), state.r[None, :])
        return RunOutcome(state.r.copy(), info=info)
