"""ForEx++ (Algorithm 1 of the paper) and a variant trimmed to the budgets.

For every class c, among the rules predicting c, ForEx++ keeps the rules whose

* accuracy (precision: correct / support, 0 without support) is above the class average,
* support (coverage) is above the class average,
* length is below the class average,

and returns the union over the classes of these intersections.  It ignores the
budgets; the result is reported with status ``over_budget`` when it exceeds one.

``inclusive`` (default True) counts a rule that is exactly at the average as
above/below it (>= / <=).  With strict comparisons a class whose rules all
have the same length (usual for depth-limited trees) selects nothing, and a
class with a single rule never selects it.

:class:`ForExTrimmed` starts from the same candidate set and trims it:
while a budget is exceeded it drops the selected rule with the smallest
loss of f* per unit of the violated budgets (loss / (L_i/Bc [if over] +
E_i/Be [if over])), then re-adds, by the greedy ratio rule, candidates that
fit and strictly increase f*.
"""

from __future__ import annotations

import numpy as np

from explainer.selection.problem import SelectionProblem
from explainer.selection.solvers.base import Monitor, RunOutcome, Solver
from explainer.selection.solvers.greedy import ratio_greedy
from explainer.selection.solvers.local_search import repair


def forex_candidates(problem: SelectionProblem, inclusive: bool = True) -> np.ndarray:
    """Boolean mask of the rules ForEx++ selects."""
    support = np.asarray(problem.weighted_support, dtype=float)  # rows covered (their weight when weighted)
    accuracy = np.divide(problem.correct, support, out=np.zeros_like(support), where=support > 0)
    lengths = problem.lengths.astype(float)
    chosen = np.zeros(problem.n_rules, dtype=bool)
    ge = np.greater_equal if inclusive else np.greater
    le = np.less_equal if inclusive else np.less
    for c in np.unique(problem.rule_class):
        idx = problem.rule_class == c
        keep = (
            ge(accuracy, accuracy[idx].mean())
            & ge(support, support[idx].mean())
            & le(lengths, lengths[idx].mean())
        )
        chosen |= idx & keep
    return chosen


def trim_to_budgets(problem: SelectionProblem, selection: np.ndarray) -> np.ndarray:
    """Drop rules (least f* lost per unit of violated budget first) until feasible."""
    state = problem.state(selection)
    repair(state)
    return state.r.copy()


class ForEx(Solver):
    """ForEx++: union over classes of the accurate, general and short rules; ignores budgets.

    Parameters
    ----------
    inclusive : a rule at exactly its class's mean accuracy, support or length still counts as accurate,
        general or short (>= and <=; off: > and <).
    time_limit : accepted for a uniform interface (one pass over the rules).
    """

    name = "forex"
    respects_budgets = False
    # reproduced as published (the paper's baseline): its over-budget rule set, dead rules included, is
    # what the comparison shows, so the shared clean-up leaves it alone
    clean_up = None

    def __init__(self, inclusive: bool = True, time_limit: float | None = None):
        self.inclusive = inclusive
        self.time_limit = time_limit  # one pass over the rules; accepted for a uniform interface

    def _run(self, problem: SelectionProblem, rng: np.random.Generator, monitor: Monitor) -> RunOutcome:
        selection = forex_candidates(problem, self.inclusive) | problem.pinned_mask
        monitor.generation(problem.fitness(selection[None, :]), selection[None, :])
        return RunOutcome(selection, info={"candidates": int(selection.sum())})


class ForExTrimmed(Solver):
    """ForEx++ candidates trimmed to the budgets, then greedily refilled from the candidates.

    Parameters
    ----------
    inclusive : a rule at exactly its class's mean accuracy, support or length still counts as accurate,
        general or short (>= and <=; off: > and <).
    time_limit : accepted for a uniform interface (one pass over the rules).
    """

    name = "forex_trimmed"

    def __init__(self, inclusive: bool = True, time_limit: float | None = None):
        self.inclusive = inclusive
        self.time_limit = time_limit

    def _run(self, problem: SelectionProblem, rng: np.random.Generator, monitor: Monitor) -> RunOutcome:
        candidates = forex_candidates(problem, self.inclusive)
        trimmed = trim_to_budgets(problem, candidates)
        state = ratio_greedy(problem, problem.state(trimmed), None, candidates=candidates)
        selection = state.r.copy()
        monitor.generation(np.array([state.coverage]), selection[None, :])
        return RunOutcome(
            selection,
            info={"candidates": int(candidates.sum()), "after_trim": int(trimmed.sum())},
        )
