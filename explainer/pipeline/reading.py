"""What the default policy reads of a pool: the rows it reads, the reference tree's errors e*, the class
the fallback form leaves out, an error budget in the pool's units, a selection over restricted rules as one
over the pool.  Shared by the policy (:mod:`explainer.pipeline.policy`) and its validation
(:mod:`explainer.pipeline.validation`), which import it and not each other's helpers.
"""

from __future__ import annotations

import numpy as np

from explainer.data.labels import majority_class
from explainer.rules.pool import RulePool
from explainer.selection.problem import SelectionProblem

#: above this many rows the policy reads a stratified subsample of this many (see :func:`policy_rows`)
POLICY_ROWS = 2000
def policy_rows(y: np.ndarray, n_max: int | None = None) -> np.ndarray:
    """Row indices the default policy reads: all of them up to ``n_max`` rows (default
    :data:`POLICY_ROWS`), else a stratified sample of about that many.

    Each class keeps its share of the rows (rounded; at least one row of every class), the rows of a
    class drawn by a fixed-seed permutation, so the same labels always give the same rows.
    """
    n_max = POLICY_ROWS if n_max is None else int(n_max)
    y = np.asarray(y)
    n = len(y)
    if n <= n_max:
        return np.arange(n)
    rng = np.random.default_rng(0)
    picked = []
    for k in np.unique(y):
        rows = np.flatnonzero(y == k)
        take = max(1, int(round(n_max * len(rows) / n)))
        picked.append(np.sort(rng.permutation(rows)[:take]))
    return np.sort(np.concatenate(picked))

def widen_selection(selection: np.ndarray, rules: np.ndarray, n_rules: int) -> np.ndarray:
    """A selection over ``rules`` (a restricted problem's) as one over all ``n_rules`` rules of the pool."""
    full = np.zeros(n_rules, dtype=bool)
    full[rules[np.asarray(selection, dtype=bool)]] = True
    return full


def as_budget(value: float, sample_weight):
    """An error budget: whole rows (rounded down) unweighted, a weight weighted (rounded down too when the
    weights are whole numbers: the errors are then whole, so the same selections fit, and weights all 1
    give the unweighted budgets)."""
    if sample_weight is None:
        return int(value)
    w = np.asarray(sample_weight, dtype=float)
    return float(np.floor(value)) if np.all(w == np.round(w)) else float(value)


def reference_errors(pool: RulePool, sample_weight=None):
    """e*: the errors of the pool's reference tree (the weight of the rows it gets wrong, when weighted)."""
    best = pool.best_tree()
    if best is None:
        raise ValueError("the pool has no tree to take e* from")
    if sample_weight is None:
        return best.errors
    problem = SelectionProblem.from_pool(pool, sample_weight=sample_weight)
    return float(problem.errors[np.asarray(best.tree.rule_ids, dtype=np.int64)].sum())


def left_out_class(pool: RulePool) -> int:
    """The class code the fallback form writes no rule for: the most frequent class of the pool's rows.
    (What the fallback of a selection is, the class of the rows it leaves uncovered, is
    :func:`explainer.data.labels.fallback_class`.)"""
    return int(majority_class(pool.y, classes=range(len(pool.classes))))


__all__ = ["POLICY_ROWS", "as_budget", "left_out_class", "policy_rows", "reference_errors", "widen_selection"]
