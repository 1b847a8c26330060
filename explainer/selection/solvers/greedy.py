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
2. Best single rule: the feasible rule with the largest support (f* of one rule; the weight it covers when rows are weighted).
3. Take the better of 1. and 2.; complete it by running the ratio phase from
   it (for 1. this changes nothing; for 2. it adds whatever still fits and helps).

Δf* of every rule comes from the shared local-search engine
(:func:`~explainer.selection.solvers.local_search.greedy_fill` with a
:class:`~explainer.selection.solvers.moves.MoveScorer`: per-row counts, updated from
the rows the last add touched).
Deterministic: ties go to the lowest rule index and the generator is unused.
"""

from __future__ import annotations

import numpy as np

from explainer.selection.objectives import OBJECTIVES
from explainer.selection.problem import SelectionProblem, SelectionState
from explainer.selection.solvers.base import Monitor, RunOutcome, Solver
from explainer.selection.solvers.local_search import (
    budget_scale,
    greedy_fill,
    move_scorer,
    rule_costs,
)

__all__ = ["Greedy", "budget_scale", "ratio_greedy", "rule_costs"]


def ratio_greedy(problem: SelectionProblem, state: SelectionState, monitor: Monitor | None = None,
                 candidates: np.ndarray | None = None) -> SelectionState:
    """Grow ``state`` in place by the ratio rule; returns it.  Reports one generation per added rule."""
    scorer = move_scorer(problem)

    def step(st):
        if monitor is None:
            return False
        monitor.evaluations += 1
        return monitor.generation(np.array([st.value]), st.r[None, :])

    greedy_fill(state, scorer, ratio=True, allowed=candidates, on_step=step)
    return state


class Greedy(Solver):
    """Budgeted maximum coverage greedy (ratio rule + best single rule), deterministic."""

    name = "greedy"
    objectives = OBJECTIVES

    def __init__(self, time_limit: float | None = None):
        self.time_limit = time_limit

    def _run(self, problem: SelectionProblem, rng: np.random.Generator, monitor: Monitor) -> RunOutcome:
        state = ratio_greedy(problem, problem.state(), monitor)
        info = {"ratio_coverage": float(state.value), "used_single_rule": False}
        if monitor.stop_reason:
            return RunOutcome(state.r.copy(), info=info)
        single_ok = problem.fits_alone
        if single_ok.any():
            # the objective of each rule alone: f* is its support; under "accuracy", a full evaluation
            if problem.objective == "coverage":
                alone = problem.weighted_support
            else:
                empty = problem.state()
                alone = empty.value + move_scorer(problem).add_drop_gains(empty)[0]
            j = int(np.argmax(np.where(single_ok, alone, -np.inf)))
            info["single_rule"] = j
            if alone[j] > state.value:
                single = problem.state()
                single.flip(j)
                state = ratio_greedy(problem, single, None)
                info["used_single_rule"] = True
        monitor.generation(np.array([state.value]), state.r[None, :])
        return RunOutcome(state.r.copy(), info=info)
