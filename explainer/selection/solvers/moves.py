"""Gains of the structured moves, scored for every rule at once from per-row counts.

:class:`MoveScorer` keeps the per-rule sums ``C' [z0 z1 n c_own]`` of a
selection state (``z0``/``z1``: rows covered 0 / 1 times, ``n``: rules firing
per row, ``c_own``: rules of the rule's own class firing), from which the gain
of adding or dropping *every* rule follows in O(M):

    add b:  rows of b covered 0 times  - eps * (rules of another class firing on b's rows)
    drop a: -(rows of a covered once)  + eps * (the same)

The sums follow the state from the last call: ``C'n`` and ``C'c_own`` through
the Gram rows of the flipped rules (cached per rule), ``C'z0`` and ``C'z1``
from the rows whose count crossed 0, 1 or 2 (a full pass over the nonzeros only
when a third of the rows or more crossed), so a step after a few flips costs
O(M + rows crossing x rules per row), not O(nnz).

Swaps (drop a, add b) add a rank-|S| correction from the rule-overlap (Gram)
rows of the selected rules: ``G[a, b] = gdrop[a] + gadd[b] + D1[a, b] (+
conflict term)`` with ``D1[a, b]`` the rows covered by a alone that b covers;
``D1`` is gathered only for the columns whose upper bound
``D1 <= min(D2, X1[a], X1[b])`` can still augment (the chosen swap is the
same as with the full matrix).  1-for-2 moves (drop a, add b and c) are scored
exactly for the ``n_pairs`` best (a, b) swaps whose bound can still augment.
The steps every climb takes (the sums' updates, the best add and drop, the
swap scoring) are the compiled loops of :mod:`explainer.selection.loops`; the Gram
rows, the 1-for-2 search and the full swap matrix count with those of
:mod:`explainer.selection.gathers` (one pass over the nonzeros they need, no
temporaries: on a table of tens of thousands of rows the sparse products they
replaced cost several times the pass).  Ties between equal gains go to the cheaper move (a tiny per-rule cost).

Row weights: every per-row quantity above is a sum over rows; on a weighted problem each row adds
its weight (``z0``, ``z1``, ``n`` and ``c_own`` are weighted by ``w``, so are the Gram overlaps,
``D1`` and the 1-for-2 terms): the rows' weights go to the gathers and compiled loops, which add a
row's weight where they added 1; unweighted, every count is as before.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from explainer.selection.gathers import (
    count_sums,
    owners_per_column,
    rules_per_row_set,
    zero_one_sums,
)
from explainer.selection.loops import (
    best_add_drop,
    best_entries,
    crossing_rows,
    follow_crossings,
    follow_flips,
    owners,
    pair_bounds,
    swap_scores,
)
from explainer.selection.problem import SelectionProblem

TOL = 1e-9


class MoveScorer:
    """Gains of every add / drop / 1-for-1 swap for a selection state.

    The per-rule sums ``C' [z0 z1 n c_own]`` behind the add/drop gains are kept
    between calls and updated from the rules flipped and the rows whose count
    crossed 0, 1 or 2 since the last call (any state, any flips in between: the
    update compares selections and per-row counts), so a step after a few
    flips costs O(M + rows crossing x rules per row) instead of O(nnz(C)).
    Overlap (Gram) rows and the 1-for-2 products are counted from the CSR/CSC
    index arrays by the compiled loops of :mod:`explainer.selection.gathers`.
    """

    def __init__(self, problem: SelectionProblem, usable: np.ndarray):
        self.p = problem
        C = problem.coverage_rows  # N x M CSR: the rules of row j are C.indices[C.indptr[j]:C.indptr[j+1]]
        self.r_ptr = C.indptr
        self.r_idx = C.indices
        self.M = problem.n_rules
        self.k = problem.rule_class
        self.L = problem.lengths.astype(np.float64)
        self.E = problem.errors.astype(np.float64)
        self.usable = usable
        self.w = problem.row_weight  # None unweighted
        self.eps = problem.eps
        # tiny per-rule costs: ties between equal gains go to the cheaper move
        bc, be = problem.budgets  # None: no budget
        pen_l = 1e-6 / max(bc, 1) if bc is not None else 0.0
        pen_e = 1e-6 / max(be, 1) if be is not None else 0.0
        self.cost = pen_l * self.L + pen_e * self.E
        self._slot = np.full(problem.n_rules, -1, dtype=np.int64)  # row of rule a in self._gmat
        self._gmat = np.zeros((0, problem.n_rules))
        self._n_gram = 0
        # (total, selection, X0, X1, Xtot, Xown) of the last scored counts
        self._sums: tuple[np.ndarray, ...] | None = None
        # the swaps the last best_move scored (its state, S, candidate columns, ...); None when it scored none
        self.ctx: dict[str, Any] | None = None
        self.last_adds: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        # (score, S, cols) of the last best_move whose best move was a swap
        self._swap_scores: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self.products = 0  # full O(nnz) products
        self.updates = 0  # incremental updates
        self.pruned_ejections = 0  # 1-for-2 searches ruled out by the bound alone

    # ------------------------------------------------------------ gathering
    def _row_nnz(self, rows: np.ndarray) -> int:
        return int((self.r_ptr[rows + 1] - self.r_ptr[rows]).sum())

    def _rows_of_rules(self, rules: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(position in ``rules``, row) for every row each rule covers."""
        p = self.p
        starts = p.indptr[rules]
        lens = p.indptr[rules + 1] - starts
        pos = np.repeat(np.arange(rules.size), lens)
        offs = np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens)
        return pos, p.indices[starts[pos] + offs]

    def _row_sums(self, row_sets: np.ndarray, rows: np.ndarray, n_sets: int) -> np.ndarray:
        """n_sets x M: entry (s, b) = #rows j with row_sets == s that rule b covers."""
        return rules_per_row_set(np.asarray(row_sets, dtype=np.int64), np.asarray(rows, dtype=np.int64),
                                 int(n_sets), self.r_ptr, self.r_idx, self.M, self.w)

    def _owner_overlaps(self, owner: np.ndarray, cols: np.ndarray, n_sets: int) -> np.ndarray:
        """n_sets x |cols|: entry (s, j) = #rows of rule cols[j] whose owner is s (owner -1: none)."""
        return owners_per_column(np.asarray(owner, dtype=np.int64), np.asarray(cols, dtype=np.int64),
                                 int(n_sets), self.p.indptr, self.p.indices, self.w)

    def _swap_context(self) -> dict[str, Any]:
        if self.ctx is None:
            raise RuntimeError("the last best_move scored no swaps")
        return self.ctx

    def _pair_bounds(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """|S| x |cols| (fits both budgets, upper bound of the gain, conflict term) of every swap of the
        last :meth:`best_move` that scored swaps; computed when first asked (1-for-2 moves, full swap matrix)."""
        c = self._swap_context()
        if c["bounds"] is None:
            c["bounds"] = pair_bounds(*c["pair_args"])
        return c["bounds"]

    def _swap_gains_cols(self) -> np.ndarray:
        """|S| x |cols| swap gains G of the last :meth:`best_move` that scored swaps (on its candidate columns)."""
        c = self._swap_context()
        if c["G"] is None:
            S, cols, owner = c["S"], c["cols"], c["owner"]
            rows = np.flatnonzero(owner >= 0)
            D1 = self._row_sums(owner[rows], rows, S.size)[:, cols]
            G = c["gdrop"][S, None] + c["gadd"][None, cols] + D1
            G += self._pair_bounds()[2]
            c["G"] = G
        return c["G"]

    def _swap_gain_rows(self, rows_a: np.ndarray, jj: np.ndarray | None = None) -> np.ndarray:
        """Rows ``rows_a`` (positions in S) of :meth:`_swap_gains_cols`, computed alone when not cached.

        ``jj``: only these positions in the candidate columns; D1 is then gathered from those
        columns' rows (O(their support)), not from every row the rules ``rows_a`` alone cover.
        """
        c = self._swap_context()
        if c["G"] is not None:
            return c["G"][rows_a] if jj is None else c["G"][np.ix_(rows_a, jj)]
        if jj is not None:
            return self._swap_gain_block(rows_a, jj)
        S, cols, owner = c["S"], c["cols"], c["owner"]
        amap = np.full(S.size, -1, dtype=np.int64)
        amap[rows_a] = np.arange(rows_a.size)
        rows = np.flatnonzero(owner >= 0)
        o = amap[owner[rows]]
        keep = o >= 0
        D1 = self._row_sums(o[keep], rows[keep], rows_a.size)[:, cols]
        Sa = S[rows_a]
        G = c["gdrop"][Sa, None] + c["gadd"][None, cols] + D1
        G += self._pair_bounds()[2][rows_a]
        return G

    def _owned_nnz(self, owner: np.ndarray, rows_a: np.ndarray, n_sets: int) -> int:
        """Nonzeros of the rows covered once, by a rule of S at a position in ``rows_a``."""
        mine = np.zeros(n_sets, dtype=bool)
        mine[rows_a] = True
        rows = np.flatnonzero(owner >= 0)
        return self._row_nnz(rows[mine[owner[rows]]])

    def _swap_gain_block(self, rows_a: np.ndarray, jj: np.ndarray) -> np.ndarray:
        """``G[rows_a][:, jj]`` of :meth:`_swap_gains_cols`, D1 counted over the rows of the columns ``jj``."""
        c = self._swap_context()
        S, cols, owner = c["S"], c["cols"], c["owner"]
        amap = np.full(S.size, -1, dtype=np.int64)
        amap[rows_a] = np.arange(rows_a.size)
        mine = np.full(owner.shape[0], -1, dtype=np.int64)  # owner as a position in rows_a (-1: none)
        once = np.flatnonzero(owner >= 0)
        mine[once] = amap[owner[once]]
        cj = cols[jj]
        G = c["gdrop"][S[rows_a], None] + c["gadd"][None, cj] + self._owner_overlaps(mine, cj, rows_a.size)
        G += self._pair_bounds()[2][np.ix_(rows_a, jj)]
        return G

    def swap_gains(self) -> np.ndarray:
        """The |S| x M swap-gain matrix G (drop S[i], add b) of the last :meth:`best_move` that scored swaps.

        Columns that cannot be added in any swap (selected, unusable or over a budget) hold -inf.
        """
        c = self._swap_context()
        out = np.full((c["S"].size, self.M), -np.inf)
        out[:, c["cols"]] = self._swap_gains_cols()
        return out

    def _cache_gram(self, rules: np.ndarray) -> None:
        """Compute and keep the overlap rows of the given rules that are not cached yet."""
        missing = rules[self._slot[rules] < 0]
        if missing.size == 0:
            return
        missing = np.unique(missing)
        need = self._n_gram + missing.size
        if need > self._gmat.shape[0]:
            grown = np.zeros((max(2 * self._gmat.shape[0], need, 16), self.M))
            grown[: self._n_gram] = self._gmat[: self._n_gram]
            self._gmat = grown
        pos, rows = self._rows_of_rules(missing)
        self._gmat[self._n_gram : need] = self._row_sums(pos, rows, missing.size)
        self._slot[missing] = np.arange(self._n_gram, need)
        self._n_gram = need

    def gram_rows(self, S: np.ndarray, cols: np.ndarray | None = None) -> np.ndarray:
        """|S| x M overlaps |rows(a) & rows(b)| (cached per rule), or only the columns ``cols``."""
        S = np.asarray(S, dtype=np.int64)
        self._cache_gram(S)
        if cols is None:
            return self._gmat[self._slot[S]]
        return self._gmat[np.ix_(self._slot[S], cols)]

    # ------------------------------------------------------------ add / drop
    def _full_sums(self, st):
        self.products += 1
        return count_sums(st.total, st.per_class, self.k, self.r_ptr, self.r_idx, self.M, self.w)

    def _update_sums(self, st) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """C' [z0 z1 n c_own] for the counts of ``st``, incrementally when few rows changed.

        ``C'n`` and ``C'c_own`` are sums of Gram rows (``C'n = sum_{i in S} G_i``, ``C'c_own`` the
        same over the rules of the column's class), so they follow the flipped rules' cached Gram
        rows, O(M) per flip.  ``z0``/``z1`` change only on the rows whose count crossed 0, 1 or 2:
        only those rows are gathered (a product with the whole matrix when a third of the rows or
        more crossed).  All entries are integer counts, so every route gives the same numbers.
        """
        cache = self._sums
        if cache is None:
            X0, X1, Xt, Xo = self._full_sums(st)
        else:
            tot0, r0, X0, X1, Xt, Xo = cache
            flipped = np.flatnonzero(st.r != r0)
            if flipped.size == 0:
                return X0, X1, Xt, Xo
            Xt, Xo = self._gram_update(Xt, Xo, flipped, st.r[flipped])
            X0, X1 = self._z_update(X0, X1, tot0, st.total)
        self._sums = (st.total.copy(), st.r.copy(), X0, X1, Xt, Xo)
        return X0, X1, Xt, Xo

    def _gram_update(self, Xt, Xo, flipped, added):
        """``C'n`` and ``C'c_own`` after flipping the rules ``flipped`` (``added``: now selected)."""
        self._cache_gram(flipped)
        self.updates += 1
        return follow_flips(Xt, Xo, flipped, added, self._gmat, self._slot, self.k)

    def _z_update(self, X0, X1, t_old, t_new):
        """``C'z0`` and ``C'z1`` for the counts ``t_new``, from those for ``t_old``."""
        rows = crossing_rows(t_old, t_new)
        if rows.size == 0:
            return X0, X1
        if 3 * rows.size >= t_new.shape[0]:
            self.products += 1
            return zero_one_sums(t_new, self.r_ptr, self.r_idx, self.M, self.w)
        return follow_crossings(X0, X1, rows, t_old, t_new, self.r_ptr, self.r_idx, self.w)

    def add_drop_gains(self, st) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(gain of adding each unselected rule, gain of dropping each selected rule, rows with count 1)."""
        X0, X1, Xt, Xo = self._update_sums(st)
        others = Xt - Xo
        gadd = X0 - self.eps * others
        gdrop = -X1 + self.eps * others
        return gadd, gdrop, (st.total == 1).astype(np.float32)

    def best_move(self, st, swaps: bool = True):
        """The most augmenting add/drop/swap as (gain, drop_rule or -1, add_rule or -1), or None."""
        p = self.p
        r = st.r
        slack_l = p.complexity_budget - st.complexity
        slack_e = p.error_limit - st.errors
        gadd, gdrop, _ = self.add_drop_gains(st)
        self.ctx = None
        cost = self.cost
        # candidates compare by gain - tiny cost (ties go to the cheaper move); all need gain > TOL
        # a pinned rule is never dropped, alone or in a swap
        droppable = np.where(p.pinned_mask, -np.inf, gdrop) if p.pinned.size else gdrop
        b, s_add, a, s_drop, others, free = best_add_drop(
            gadd, droppable, r, self.usable, self.L, self.E, float(slack_l), float(slack_e), cost, TOL)
        self.last_adds = (others, gadd[others], cost) if b >= 0 else None
        self._swap_scores = None
        best_score, best = s_add, ((gadd[b], -1, b) if b >= 0 else None)
        if a >= 0 and s_drop > best_score:
            best_score, best = s_drop, (gdrop[a], a, -1)
        if best is not None:
            return best  # an augmenting add or drop: swaps are scored only at add/drop optima
        S = np.flatnonzero(r & ~p.pinned_mask)
        if S.size:
            if swaps and free:
                # columns that fit the budgets after dropping at least one selected rule
                cols = np.flatnonzero(~r & self.usable & (self.L <= slack_l + self.L[S].max()) & (self.E <= slack_e + self.E[S].max()))
                self._cache_gram(S)
                sums = self._sums
                assert sums is not None  # add_drop_gains above kept them
                pair_args = (S, cols, self._gmat, self._slot, self.L, self.E, float(slack_l), float(slack_e),
                             gdrop, gadd, sums[3], self.k, float(self.eps))
                # rows covered once, by a in S (owner = its position in S), give D1[a, b] = |those rows of a & rows(b)|
                owner = owners(S, st.total, p.indptr, p.indices)
                self.ctx = dict(st=st, S=S, cols=cols, owner=owner, pair_args=pair_args, bounds=None, G=None,
                                gadd=gadd, gdrop=gdrop, cost=cost, slack_l=slack_l, slack_e=slack_e)
                # G = gdrop + gadd + D1 + conf <= the same with D1 <= min(D2, X1[a], X1[b]): D1 is
                # counted only for the columns with a pair that fits and may augment
                live, G, score = swap_scores(*pair_args, owner, cost, p.indptr, p.indices, TOL, self.w)
                if live.size:
                    flat = int(np.argmax(score))
                    ia, jb = divmod(flat, score.shape[1])
                    if score[ia, jb] > best_score:
                        cl = cols[live]
                        best_score, best = score[ia, jb], (G[ia, jb], int(S[ia]), int(cl[jb]))
                        self._swap_scores = (score, S, cl)
        return best

    #: augmenting swaps after the best one that :meth:`best_move` lists for the lazy swaps
    N_RUNNER_UP_SWAPS = 16

    def runner_up_swaps(self) -> list[tuple[int, int]]:
        """The augmenting swaps (drop a, add b) of the last :meth:`best_move` after its best one (a swap),
        by score, best first (ties: (a, b) order); ranked only when asked, off the hot path."""
        if self._swap_scores is None:
            return []
        score, S, cols = self._swap_scores
        top = best_entries(score, self.N_RUNNER_UP_SWAPS + 1)[1:]
        ia, jb = np.divmod(top, score.shape[1])
        return list(zip(S[ia].tolist(), cols[jb].tolist(), strict=True))

    def best_one_for_two(self, st, n_pairs: int):
        """The most augmenting 1-for-2 move (drop a, add b and c) among the ``n_pairs`` best swaps.

        Uses the swap matrix of the last :meth:`best_move` on the same state:
        after dropping a and adding b, the gain of adding c is
        ``G[a, c] - gdrop[a] - |rows(b) & rows(c) uncovered without a| - eps [k_b != k_c] |rows(b) & rows(c)|``.
        Returns (gain, a, b, c) or None.
        """
        ctx = self.ctx
        if ctx is None or ctx["st"] is not st or n_pairs <= 0:
            return None
        S, cols, gdrop = ctx["S"], ctx["cols"], ctx["gdrop"]
        if cols.size < 2:
            return None
        ok, bound, _ = self._pair_bounds()
        if not ok.any():
            return None
        # gain(a, b, c) <= G[a, b] + G[a, c] - gdrop[a] <= bound[a, b] + bound[a, c] - gdrop[a]: nothing
        # to find when the two largest bounds of every row cannot augment
        top2 = np.partition(bound, bound.shape[1] - 2, axis=1)[:, -2:].sum(axis=1)
        if float((top2 - gdrop[S]).max()) <= 0.0:
            self.pruned_ejections += 1
            return None
        owner, cost = ctx["owner"], ctx["cost"]
        slack_l, slack_e = ctx["slack_l"], ctx["slack_e"]
        # a pair (a, b) can only lead to an augmenting move when
        # ub = G[a, b] + max_{c != b} bound[a, c] - gdrop[a] > 0; among those, the n best by G
        # (ties: larger ub first, then (a, b) order).  G is computed only for the rows a
        # with a pair that passes the test with bound[a, b] >= G[a, b] in place of G.
        m = bound.shape[1]
        part = np.argpartition(bound, m - 2, axis=1)
        j1 = part[:, -1]
        b1 = bound[np.arange(S.size), j1]
        b2 = bound[np.arange(S.size), part[:, -2]]
        other = np.where(np.arange(m)[None, :] == j1[:, None], b2[:, None], b1[:, None]) - gdrop[S, None]
        rows_a = np.flatnonzero((ok & (bound + other > 0.0)).any(axis=1))
        if rows_a.size == 0:
            self.pruned_ejections += 1
            return None
        # only the columns jj with bound + other > 0 in some row of rows_a can matter: a pair (a, b)
        # needs ub > 0 (G <= bound), and a third rule c gains at most
        # G[a, b] + G[a, c] - gdrop[a] <= bound[a, c] + other[a, c] (W and conflicts only lower it)
        # (worth its bookkeeping when those columns hold far fewer nonzeros than the rows rows_a own)
        jj = np.flatnonzero((bound[rows_a] + other[rows_a] > 0.0).any(axis=0))
        if 2 * int(self.p.support[cols[jj]].sum()) < self._owned_nnz(owner, rows_a, S.size):
            G = self._swap_gain_rows(rows_a, jj)
            ub = G + other[np.ix_(rows_a, jj)]
            top = np.flatnonzero((ok[np.ix_(rows_a, jj)] & (ub > 0.0)).ravel())
        else:
            jj = np.arange(cols.size)
            G = self._swap_gain_rows(rows_a)
            ub = G + other[rows_a]
            top = np.flatnonzero((ok[rows_a] & (ub > 0.0)).ravel())
        if top.size == 0:
            return None
        top = top[np.lexsort((top, -ub.ravel()[top], -G.ravel()[top]))][: int(n_pairs)]
        n = top.size
        cj = cols[jj]
        ir, jb = np.divmod(top, jj.size)  # ir indexes rows_a; rows_a and jj are sorted, so (ir, jb) keeps (a, b) order
        ia = rows_a[ir]
        a_rules, b_rules = S[ia], cj[jb]
        # rows of b left uncovered once a is dropped (uncovered, or covered by a alone), one set per pair
        pos, rows = self._rows_of_rules(b_rules)
        left = (st.total[rows] == 0) | (owner[rows] == ia[pos])
        W = self._row_sums(pos[left], rows[left], n)[:, cj]
        gain = G[ir, jb][:, None] + (G[ir] - gdrop[a_rules][:, None]) - W
        if self.eps:
            gain -= self.eps * (self.k[b_rules, None] != self.k[None, cj]) * self.gram_rows(b_rules, cj)
        ok_c = (self.L[None, cj] <= slack_l + self.L[a_rules, None] - self.L[b_rules, None]) & (
            self.E[None, cj] <= slack_e + self.E[a_rules, None] - self.E[b_rules, None]
        )
        ok_c[np.arange(n), jb] = False
        s = np.where(ok_c & (gain > TOL), gain - cost[None, cj], -np.inf)
        flat = int(np.argmax(s))
        i, c = divmod(flat, s.shape[1])
        if not np.isfinite(s[i, c]):
            return None
        return gain[i, c], int(a_rules[i]), int(b_rules[i]), int(cj[c])


__all__ = ["TOL", "MoveScorer"]
