"""Pinned and banned rules: the rules every selection must hold, and those it must not.

A problem's ``pinned`` rules are in every selection its solvers return and its ``banned`` rules in none.
One mechanism carries both through every solver:

* a selection that misses a pin or holds a ban is not *feasible* (``feasible_mask``, ``is_feasible``,
  ``SelectionState.feasible``), so every feasibility check a solver already makes rejects it;
* every :class:`~explainer.selection.problem.SelectionState` starts with the pins, and no move drops
  one (``flip_fits``, the move scorers, repair and the dead-rule clean-up leave them alone);
* a rule "fits alone" (``fits_alone``, what every solver starts from) when it fits alongside the pins;
  a banned rule never does;
* :meth:`~explainer.selection.solvers.base.Solver.solve` runs the algorithm on the problem without its
  banned rules (:meth:`~explainer.selection.problem.SelectionProblem.restrict`), so no move can add one.

Pins that alone exceed a budget make the problem infeasible: that is an error raised when the problem
is built (or given other budgets), before any run.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np


def rule_indices(name: str, rules, n_rules: int) -> np.ndarray:
    """``rules`` (None or rule indices) as a sorted, read-only int64 array of distinct indices in [0, n_rules)."""
    if rules is None:
        out = np.zeros(0, dtype=np.int64)
    else:
        values = list(np.asarray(rules).ravel()) if not isinstance(rules, Integral) else [rules]
        for v in values:
            if isinstance(v, bool | np.bool_) or not isinstance(v, Integral) or not 0 <= int(v) < n_rules:
                raise ValueError(f"{name} rules must be rule indices in [0, {n_rules}), got {v!r}")
        out = np.unique(np.asarray(values, dtype=np.int64))
    out.flags.writeable = False
    return out


def mask(indices: np.ndarray, n_rules: int) -> np.ndarray:
    """(n_rules,) bool, read-only, True at ``indices``."""
    m = np.zeros(n_rules, dtype=bool)
    m[indices] = True
    m.flags.writeable = False
    return m


def check_disjoint(pinned: np.ndarray, banned: np.ndarray) -> None:
    both = np.intersect1d(pinned, banned)
    if both.size:
        raise ValueError(f"rule {int(both[0])} is both pinned and banned")


def check_pins_fit(complexity: int, errors, complexity_budget, error_budget, error_limit) -> None:
    """ValueError when the pins alone (``complexity``, ``errors``) exceed a budget, saying which and by how much."""
    if complexity > complexity_budget:
        raise ValueError(f"the pinned rules alone exceed the complexity budget: complexity {complexity} > "
                         f"{complexity_budget} (over by {complexity - complexity_budget})")
    if errors > error_limit:
        raise ValueError(f"the pinned rules alone exceed the error budget: errors {errors:g} > {error_budget:g} "
                         f"(over by {errors - error_budget:g})")


def keeps_rules(R: np.ndarray, pinned: np.ndarray, banned: np.ndarray) -> np.ndarray:
    """(P,) bool: which rows of the P x M selection matrix ``R`` hold every pin and no ban."""
    ok = np.ones(R.shape[0], dtype=bool)
    if pinned.size:
        ok &= R[:, pinned].all(axis=1)
    if banned.size:
        ok &= ~R[:, banned].any(axis=1)
    return ok


def check_result(name: str, selection: np.ndarray, pinned: np.ndarray, banned: np.ndarray) -> None:
    """AssertionError when ``selection`` misses a pin or holds a ban: a solver that forgot them fails loudly."""
    selection = np.asarray(selection, dtype=bool)
    missing = pinned[~selection[pinned]]
    held = banned[selection[banned]]
    if missing.size or held.size:
        raise AssertionError(f"{name} returned a selection without pinned rules {missing.tolist()} "
                             f"or with banned rules {held.tolist()}")


__all__ = ["check_disjoint", "check_pins_fit", "check_result", "keeps_rules", "mask", "rule_indices"]
