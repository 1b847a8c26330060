"""What a selection maximises: the paper's coverage f*, or the rows the explanation gets right.

``objective="coverage"`` (the default) is the paper's

    f*(r) = sum_j w_j [row j covered] - eps sum_j w_j (conflicting pairs on row j).

Once every row is covered f* stops rewarding more conditions, so a budget left over buys nothing.
``objective="accuracy"`` spends it on rows the explanation gets right:

    a(r) = sum_j w_j right_j(r) - eps sum_j w_j (conflicting pairs on row j)

with, for row j of class y_j, n_j chosen rules firing on it and c_j of them of class y_j,

    right_j = [n_j > 0 and c_j = n_j]        (covered, and every rule firing on it says y_j)
            or [n_j = 0 and y_j = fallback]  (uncovered, and the ELSE class is y_j).

``fallback`` is the class code the explanation gives the rows no rule covers (the pipeline passes
the one it reports with, the majority class).  The conflict penalty is the one f* has, so
conflicts still cost.  a(r) needs only the per-row firing counts per class the problem already
keeps, so a flip costs O(rows the rule covers), and it is linear enough for the MILP: per row group
g (same covering rules, same class), ``right_g <= sum of the chosen rules of class y_g covering g``
(dropped when y_g is the fallback: uncovered is right then), and ``right_g <= 1 - r_i`` for every
rule i of another class covering g (:mod:`explainer.selection.solvers.milp`).

How it differs from the reported accuracy: the explanation predicts a covered row by the plurality
vote of the rules firing on it (a tie gives the fallback), so a row whose firing rules disagree may
still be predicted right; here such a row counts as wrong (and its conflicting pairs are penalised).
``right`` is therefore a lower bound of the (weighted) training rows the explanation predicts right,
equal to it whenever no row has rules of two classes firing, which is what the penalty steers to.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from explainer.selection import pins
from explainer.selection.loops import accuracy_sums, accuracy_sums_after_flip, best_add_drop
from explainer.selection.loops import move_gains as _move_gains
from explainer.selection.settings import OBJECTIVES

#: the objectives a :class:`~explainer.selection.problem.SelectionProblem` can have
#: the gain a move needs to count as augmenting (as :data:`explainer.selection.solvers.moves.TOL`)
TOL = 1e-9


def check_objective(objective: str, fallback, y: np.ndarray, n_classes: int, row_weight) -> int | None:
    """Validate ``objective`` and resolve its fallback class code (``None`` for "coverage").

    ``fallback=None`` under "accuracy" is the (weighted) majority class of ``y``, ties to the lowest code.
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {', '.join(map(repr, OBJECTIVES))}, got {objective!r}")
    if objective == "coverage":
        return None
    if fallback is None:
        counts = np.bincount(y, weights=row_weight, minlength=n_classes)
        return int(np.argmax(counts)) if counts.size else 0
    if isinstance(fallback, bool) or not isinstance(fallback, int | np.integer):
        raise ValueError(f"fallback must be a class code (an int), got {fallback!r}")
    if not 0 <= int(fallback) < n_classes:
        raise ValueError(f"fallback must be a class code in [0, {n_classes}), got {fallback}")
    return int(fallback)


def rows_right(total: np.ndarray, own: np.ndarray, y: np.ndarray, fallback: int) -> np.ndarray:
    """Bool, the shape of ``total``: the rows right from their firing counts (``own``: those of the row's class)."""
    return np.where(total > 0, own == total, (y == fallback))


def population_metrics(problem, R: np.ndarray, stop: Callable[[], bool] | None = None) -> dict[str, np.ndarray]:
    """:meth:`SelectionProblem.evaluate_population` under "accuracy": the f* metrics, ``right`` and ``value``.

    Per class of rule, the firing counts of a block of selections (P x N) come from one sparse
    product; the counts of each row's own class are those of the block of its class.
    """
    P = R.shape[0]
    w = problem.row_weight
    y = problem.y
    dtype = np.int64 if w is None else np.float64
    covered, pairs, right = (np.zeros(P, dtype=dtype) for _ in range(3))
    for blk in problem._blocks(P):
        sub_r = R[blk]
        total = np.zeros((sub_r.shape[0], problem.n_rows), dtype=np.int64)
        squares = np.zeros_like(total)
        own = np.zeros_like(total)
        for cls_idx, block in problem._class_blocks:
            sub = sub_r[:, cls_idx]
            if not sub.any():
                continue
            counts = np.rint(np.asarray((block.T @ sub.T.astype(np.float32)).T)).astype(np.int64)
            total += counts
            squares += counts * counts
            mine = y == problem.rule_class[cls_idx[0]]
            own[:, mine] += counts[:, mine]
        ok = rows_right(total, own, y, problem.fallback)
        row_pairs = (total * total - squares) // 2
        if w is None:
            covered[blk] = np.count_nonzero(total, axis=1)
            pairs[blk] = row_pairs.sum(axis=1)
            right[blk] = ok.sum(axis=1)
        else:
            covered[blk], pairs[blk], right[blk] = (total > 0) @ w, row_pairs @ w, ok @ w
        if stop is not None and blk.stop < P and stop():
            R, covered, pairs, right = R[:blk.stop], covered[:blk.stop], pairs[:blk.stop], right[:blk.stop]
            break
    complexity = R @ problem.lengths
    errors = R @ problem.errors
    return {
        "coverage": covered - problem.eps * pairs,
        "covered": covered,
        "conflicting_pairs": pairs,
        "complexity": complexity,
        "errors": errors,
        "feasible": (complexity <= problem.complexity_budget) & (errors <= problem.error_limit)
        & pins.keeps_rules(R, problem.pinned, problem.banned),
        "right": right,
        "value": right - problem.eps * pairs,
    }


def state_right(problem, total: np.ndarray, per_class: np.ndarray):
    """Rows right (their weight when weighted) of a state's per-row counts."""
    own = per_class[np.arange(problem.n_rows), problem.y]
    ok = rows_right(total, own, problem.y, problem.fallback)
    return int(ok.sum()) if problem.row_weight is None else float(ok @ problem.row_weight)


def move_gains(st, vid: np.ndarray, rules: np.ndarray, n: int) -> np.ndarray:
    """a(r) change of ``n`` moves on state ``st``, move ``vid[k]`` flipping rule ``rules[k]``."""
    p = st.problem
    return _move_gains(np.asarray(vid, dtype=np.int64), np.asarray(rules, dtype=np.int64), int(n), st.r, st.total,
                       st.per_class, p.indptr, p.indices, p.rule_class, float(p.eps), p.row_weight, p.y, int(p.fallback))


class AccuracyScorer:
    """The move scorer of the local search under "accuracy" (the interface of
    :class:`~explainer.selection.solvers.moves.MoveScorer`).

    a(r) is not submodular (adding a rule can turn a row right that another rule's drop had made
    wrong), so there are no lazy adds and no bounds: every rule's flip gain is computed exactly, one
    compiled pass over the nonzeros, O(nnz); a swap (drop a, add b) is scored exactly by the gains of
    every add with a dropped, updated through the rows a covers, only at add/drop optima.  1-for-2
    moves are not tried.
    Ties between equal gains go to the cheaper move (a tiny per-rule cost), as in ``MoveScorer``.
    """

    last_adds = None  # no lazy adds (see above)

    def __init__(self, problem, usable: np.ndarray):
        self.p = problem
        self.usable = usable
        self.L = problem.lengths.astype(np.float64)
        self.E = problem.errors.astype(np.float64)
        bc, be = problem.budgets  # None: no budget
        pen_l = 1e-6 / max(bc, 1) if bc is not None else 0.0
        pen_e = 1e-6 / max(be, 1) if be is not None else 0.0
        self.cost = pen_l * self.L + pen_e * self.E
        self._last: tuple | None = None  # (state, its selection then, its sums then): see _sums

    def _sums(self, st) -> tuple[np.ndarray, np.ndarray]:
        """(change in rows right, change in conflicting pairs) of flipping each rule alone.  One pass over the
        nonzeros, O(nnz); but where the state is the one last scored with one rule flipped since (an add or a drop
        of the local search), updated through that rule's rows.  Unweighted only: the sums are whole numbers
        there, so the update is exactly the pass (weighted, float sums updated move after move would drift from
        it by rounding)."""
        p = self.p
        if p.row_weight is None and self._last is not None and self._last[0] is st:
            moved = np.flatnonzero(self._last[1] != st.r)
            if moved.size == 0:
                return self._last[2]
            if moved.size == 1:
                sums = self._flipped_back(st, int(moved[0]), self._last[2])
                self._last = (st, st.r.copy(), sums)
                return sums
        sums = accuracy_sums(st.r, st.total, st.per_class, p.indptr, p.indices, p.rule_class, p.y, int(p.fallback),
                             p.row_weight)
        self._last = (st, st.r.copy(), sums)
        return sums

    def _flipped_back(self, st, d: int, before) -> tuple[np.ndarray, np.ndarray]:
        """The sums of the state from ``before``, those of the state with rule ``d`` flipped back: each other
        rule's sums change by what its rows shared with ``d`` gave before less what they give now, and ``d``'s
        own flip is the reverse of its flip then."""
        p = self.p
        rows = p.coverage_rows
        zero = np.zeros(p.n_rules)
        # the change from this state to the state with d flipped back, each rule's sums on d's rows
        to_before_r, to_before_p = accuracy_sums_after_flip(d, st.r, st.total, st.per_class, p.indptr, p.indices,
                                                            rows.indptr, rows.indices, p.rule_class, p.y,
                                                            int(p.fallback), zero, zero, p.row_weight)
        right, pairs = before[0] - to_before_r, before[1] - to_before_p
        right[d], pairs[d] = -before[0][d], -before[1][d]
        return right, pairs

    def _gains(self, st, sums=None) -> np.ndarray:
        right, pairs = self._sums(st) if sums is None else sums
        return right - float(self.p.eps) * pairs

    def _gains_after_flip(self, st, a: int, sums) -> np.ndarray:
        """The flip gains of the state with rule ``a`` flipped, from the state's ``sums``, the state untouched:
        only the rows ``a`` covers change (a swap's scoring at |S| selected rules costs the nonzeros of their
        rows, where flipping each and scoring every rule cost |S| passes over all nonzeros)."""
        p = self.p
        rows = p.coverage_rows
        right, pairs = accuracy_sums_after_flip(a, st.r, st.total, st.per_class, p.indptr, p.indices, rows.indptr,
                                                rows.indices, p.rule_class, p.y, int(p.fallback), sums[0], sums[1],
                                                p.row_weight)
        return right - float(p.eps) * pairs

    def add_drop_gains(self, st) -> tuple[np.ndarray, np.ndarray, None]:
        """(gain of adding each unselected rule, gain of dropping each selected rule, None): one flip gain per rule."""
        g = self._gains(st)
        return g, g, None

    def best_move(self, st, swaps: bool = True):
        """The most augmenting add/drop, else 1-for-1 swap, as (gain, drop rule or -1, add rule or -1), or None."""
        p = self.p
        slack_l = float(p.complexity_budget - st.complexity)
        slack_e = float(p.error_limit - st.errors)
        sums = self._sums(st)
        g = self._gains(st, sums)
        g_drop = np.where(p.pinned_mask, -np.inf, g) if p.pinned.size else g  # a pin is never dropped
        b, s_add, a, s_drop, _, free = best_add_drop(g, g_drop, st.r, self.usable, self.L, self.E, slack_l, slack_e,
                                                     self.cost, TOL)
        best_score, best = s_add, ((g[b], -1, b) if b >= 0 else None)
        if a >= 0 and s_drop > best_score:
            best = (g[a], a, -1)
        if best is not None or not (swaps and free):
            return best
        best_score = -np.inf
        for a in np.flatnonzero(st.r & ~p.pinned_mask):
            a = int(a)
            gain = g[a] + self._gains_after_flip(st, a, sums)
            ok = (~st.r & self.usable & (self.L <= slack_l + self.L[a]) & (self.E <= slack_e + self.E[a])
                  & (gain > TOL))
            if not ok.any():
                continue
            score = np.where(ok, gain - (self.cost - self.cost[a]), -np.inf)
            j = int(np.argmax(score))
            if score[j] > best_score:
                best_score, best = score[j], (float(gain[j]), a, j)
        return best

    def runner_up_swaps(self) -> list[tuple[int, int]]:
        return []

    def best_one_for_two(self, st, n_pairs: int):
        return None


__all__ = ["OBJECTIVES", "AccuracyScorer", "check_objective", "move_gains", "population_metrics", "rows_right",
           "state_right"]
