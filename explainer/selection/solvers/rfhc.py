"""RF+HC adapted to the budgeted maximum coverage problem (Algorithm 2 of the paper).

Every rule gets the score of Mashayekhi & Gras,

    ruleScore = (cc - ic) / (cc + ic) + cc / (ic + k) + cc / rl

(cc: rows the rule covers and classifies correctly, ic: rows it covers and
misclassifies, rl: its length).  One *trial* visits all rules once, in a random
order drawn without replacement with probability proportional to the score, and
adds a rule whenever it strictly increases f* and keeps both budgets.  The best
of ``n_trials`` trials is returned.

Sampling order: repeatedly drawing the next rule with P(R) = score(R) / sum of
the scores of the rules still left is exactly the order obtained by sorting the
keys ``-log(u_i) / w_i`` (u_i uniform on (0, 1]) increasingly — the
Efraimidis–Spirakis construction (exponential clocks with rates w_i).  That is
O(M log M) per trial instead of O(M^2).

Guards: a rule with no support scores 0 in its first two terms (0/0 is taken as
0); a zero length counts as length 1.  The score can be negative (a rule that is
mostly wrong has (cc-ic)/(cc+ic) close to -1), so the sampling weights are the
scores clipped to a small positive floor (``SCORE_FLOOR`` times the largest
score, at least ``SCORE_FLOOR``): such rules are still visited, only late.
"""

from __future__ import annotations

import numpy as np

from explainer.selection.problem import SelectionProblem
from explainer.selection.solvers.base import Monitor, RunOutcome, Solver

SCORE_FLOOR = 1e-6


def rule_scores(problem: SelectionProblem, k: float = 4.0) -> np.ndarray:
    """ruleScore of every rule of ``problem`` (may be negative or zero)."""
    cc = problem.correct.astype(float)
    ic = problem.errors.astype(float)
    rl = np.maximum(problem.lengths.astype(float), 1.0)
    support = cc + ic
    with np.errstate(divide="ignore", invalid="ignore"):
        purity = np.where(support > 0, (cc - ic) / np.where(support > 0, support, 1.0), 0.0)
    return purity + cc / (ic + k) + cc / rl


def sampling_weights(scores: np.ndarray) -> np.ndarray:
    """Scores clipped to a small positive floor, so every rule can be drawn."""
    scores = np.asarray(scores, dtype=float)
    top = float(scores.max(initial=0.0))
    floor = SCORE_FLOOR * max(top, 1.0)
    return np.maximum(scores, floor)


def weighted_order(weights: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random permutation drawn sequentially without replacement, P(next = i) ∝ weights[i]."""
    u = 1.0 - rng.random(weights.shape[0])  # in (0, 1]
    keys = -np.log(u) / weights
    return np.argsort(keys, kind="stable")


class RFHC(Solver):
    """Adapted RF+HC: best of ``n_trials`` score-weighted random greedy passes.

    Parameters
    ----------
    n_trials : number of randomised passes over all rules.
    k : the constant of the rule score (4 in the paper).
    time_limit : seconds (None: no limit), checked after every trial.
    stall : stop after this many trials in a row without a better selection (None: never).
    """

    name = "rfhc"
    objectives = ("coverage", "accuracy")  # through the state's add_in_order and value

    def __init__(self, n_trials: int = 30, k: float = 4.0, time_limit: float | None = None, stall: int | None = None):
        self.n_trials = n_trials
        self.k = k
        self.time_limit = time_limit
        self.stall = stall

    def _max_generations(self):
        return self.n_trials

    # ------------------------------------------------------------------ trials
    def _one_trial(self, problem: SelectionProblem, weights: np.ndarray, rng: np.random.Generator):
        state = problem.state()
        checks = state.add_in_order(weighted_order(weights, rng))
        return state, checks

    def trials(self, problem: SelectionProblem, rng: np.random.Generator) -> list[np.ndarray]:
        """The selection of every trial (each feasible), in the order they were run."""
        weights = sampling_weights(rule_scores(problem, self.k))
        return [self._one_trial(problem, weights, rng)[0].r.copy() for _ in range(int(self.n_trials))]

    # --------------------------------------------------------------------- run
    def _run(self, problem: SelectionProblem, rng: np.random.Generator, monitor: Monitor) -> RunOutcome:
        weights = sampling_weights(rule_scores(problem, self.k))
        selections: list[np.ndarray] = []
        coverages: list[float] = []
        best = np.zeros(problem.n_rules, dtype=bool)
        best_cov = 0.0
        for _ in range(int(self.n_trials)):
            state, checks = self._one_trial(problem, weights, rng)
            monitor.evaluations += checks
            selections.append(state.r.copy())
            coverages.append(float(state.value))
            if state.value > best_cov:
                best_cov = float(state.value)
                best = state.r.copy()
            if monitor.generation(np.array(coverages), np.array(selections)):
                break
        return RunOutcome(best, info={"trials": len(selections), "trial_coverages": coverages})
