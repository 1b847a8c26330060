"""QGA: the nested ("Quadratic") genetic algorithm of section 5 of the paper.

Outer loop (Algorithm 8)
    a feasible initial population, a pre-computed set of mutations, then per
    generation: n/2 pairs drawn with probability proportional to f*, two
    children per pair by crossover, a *super-mutation* of every child (a
    maximal sequence of augmenting mutations: f* strictly increases and the
    budgets hold after every step), elitist truncation to ``n_population``, and
    early stopping when the population's minimum and maximum fitness agree,
    when ``n_generations`` is reached or when f* == N (100 % coverage; checked
    after every pair of children, since nothing can beat it).

Inner problem 1, feasible population (Algorithm 6)
    for a set of targets ``0 <= beta <= b`` (``b`` itself and random fractions
    of it), QUBOs ``||A x - beta||^2`` on random sub-spaces of ``subspace_size``
    rules, solved by the pluggable ``sampler`` (default: the genetic QUBO
    sampler of Algorithm 5), padded with zeros; the solutions with
    ``A x <= b`` are kept and de-duplicated.  As in the paper's conclusion, the
    selections of the RF+HC trials are added.

Inner problem 2, approximate kernel (Algorithm 7)
    the two-bit encoded QUBO ``||A (L + E X)||^2`` sampled on random
    sub-spaces, decoded, restricted to ``-1 <= x <= 1``, the zero vector
    dropped, closed under negation and de-duplicated.  A mutation ``m`` acts as
    ``x (+) m = clip(x + m, 0, 1)``.

Additions and deviations (all in the service of quality and speed; the
structure of the algorithm is the paper's):

* **Structured kernel elements.**  Besides the sampled kernel vectors, the
  mutation set contains the sparse moves ``+e_b`` (add one rule), ``-e_a``
  (drop one rule) and ``e_b - e_a`` (1-for-1 swap, an element of the
  approximate kernel whenever rules a and b cost about the same).  They are
  not stored: all of them are scored at once from the current per-row counts
  (the per-rule sums ``C' [z0 z1 n c_own]`` give every add/drop gain, a
  rank-|S| correction from the rule-overlap (Gram) rows of the selected
  rules gives every swap gain).  The sums are kept between scorings and
  updated from the rows whose counts changed (a full sparse product only
  when a third of the rows or more changed), so a step after a flip costs
  O(rows touched x rules per row) rather than O(nnz(C)).  Swaps are scored
  on the columns that fit the budgets after some drop, and the overlap term
  ``D1[a, b]`` (rows covered by a alone that b covers) is gathered only for
  columns whose upper bound (``D1 <= min(D2, X1[a], X1[b])``) can augment:
  the chosen swap is the same as with the full matrix.
  The swap set is not filtered by ``|A m|``: every swap that keeps the
  budgets is a candidate (feasibility is checked exactly).
* **Best improvement.**  Each super-mutation step applies the most augmenting
  add or drop, or, when none augments, the most augmenting swap (ties go to
  the cheaper move); when none of these augments, the
  *1-for-2 moves* (drop a, add b and c; scored exactly for the
  ``max_ejections`` best (a, b) swaps among those whose upper bound
  ``G[a, b] + max_{c != b} bound[a, c] - gdrop[a]`` can still augment, ties
  broken by that bound, then by (a, b); skipped outright when no row of the
  swap bounds can augment), then the
  sampled kernel vectors (vectorised evaluation of all of them).  The
  super-mutation ends when none of these augments (a maximal sequence of
  augmenting mutations, as in the paper).
* **Lazy adds.**  After an augmenting add, further adds are chosen lazily:
  add gains never increase while rules are added (coverage is submodular,
  conflicts only grow), so stale gains are upper bounds and a candidate whose
  exact gain beats every other bound is the best add (the classic lazy
  greedy, ties to the smaller rule index); the same moves as best
  improvement, far fewer full re-scorings.
* **Delta evaluation** with the incremental
  :class:`~explainer.problem.SelectionState`; super-mutation results are
  memoised per child (identical children, frequent once the population
  converges, cost nothing).
* **Crossover** ("uniform", "one_point" or "two_point") is retried at most
  ``crossover_retries`` times until the child keeps the budgets; the fallback
  repairs the last child by dropping, one at a time, the selected rule that
  loses the least f* per unit of the exceeded budget(s) (losses from the
  scorer's drop gains).
* **Sub-spaces** draw rules without replacement with probability
  proportional to the RF+HC rule score (still random, but useful rules are
  more likely); rules that exceed a budget on their own are never drawn.
* **Initial population** is cut to the ``n_population`` fittest distinct
  individuals before the first generation (the paper keeps every sample).
* The default sampler is the genetic QUBO sampler with 30 individuals and 20
  generations on sub-spaces of 20 rules (feasibility) / 10 rules = 20 bits
  (kernel); the sampled kernel is capped at ``n_kernel`` vectors.
* Fitness-proportional selection uses ``max(f*, 0) + 1e-9`` as weights
  (f* can be negative when conflicts outweigh coverage).

Scale (large N and M):

* ``n_population="auto"`` (the default) keeps 100 individuals up to
  ``AUTO_NNZ`` nonzeros in the coverage matrix and shrinks in proportion above
  (at least 10): fewer children per generation on huge instances.  It depends
  only on the instance, so the same seed still gives the same result.
* ``time_limit`` (seconds, default None = off) ends the run with the best
  selection so far (status "stopped", message "time limit"); it is checked
  before every super-mutation step, so a child stopped half-way is still
  feasible.  A run that hits it depends on the machine's speed.
* The scorer's gathers switch from numpy index arrays to scipy sparse
  products above ``GATHER_LIMIT`` nonzeros; the transposed coverage matrix is
  a view (no copy).  Population fitness never forms P x nnz products on large
  instances (see :meth:`~explainer.problem.SelectionProblem.evaluate_population`).
"""

from __future__ import annotations

import heapq
import time

import numpy as np
import scipy.sparse as sp

from ..problem import SelectionProblem
from ..result import STOPPED
from .base import Monitor, RunOutcome, Solver
from .qubo import QUBO, GeneticQUBOSampler, QUBOSampler, decode_kernel, distinct_rows, draw_pairs
from .rfhc import RFHC, rule_scores, sampling_weights

TOL = 1e-9
#: gathers of more nonzeros than this go through scipy's sparse products (numpy index arrays below it)
GATHER_LIMIT = 50_000
#: above this many nonzeros in the coverage matrix, the "auto" population shrinks in proportion
AUTO_NNZ = 2_000_000


def _weighted_subset(weights: np.ndarray, m: int, rng: np.random.Generator) -> np.ndarray:
    """m indices drawn without replacement with probability proportional to weights."""
    keys = -np.log(1.0 - rng.random(weights.shape[0])) / weights
    return np.sort(np.argpartition(keys, m - 1)[:m]) if m < weights.shape[0] else np.arange(weights.shape[0])


def _key(r: np.ndarray) -> bytes:
    return np.packbits(r).tobytes()


class MoveScorer:
    """Vectorised gains of every add / drop / 1-for-1 swap for a selection state.

    The per-rule sums ``C' [z0 z1 n c_own]`` behind the add/drop gains are kept
    between calls and updated from the rows whose counts changed since the
    last call (any state, any flips in between: the update only compares
    per-row counts), so a step after a few flips costs O(rows touched x rules
    per row) instead of O(nnz(C)).  Overlap rows and the swap/1-for-2 products
    are gathered from the CSR/CSC index arrays with ``np.bincount``, or, above
    ``GATHER_LIMIT`` nonzeros, as sparse products with a 0/1 indicator matrix
    (same integer counts).
    """

    def __init__(self, problem: SelectionProblem, usable: np.ndarray):
        self.p = problem
        cov = problem.coverage_sparse  # N x M CSC (float32 ones)
        self.cov = cov
        self.CT = cov.T  # M x N CSR: a view, no copy
        self.C = cov.tocsr()  # N x M CSR: the rules of row j are C.indices[C.indptr[j]:C.indptr[j+1]]
        self.r_ptr = self.C.indptr
        self.r_idx = self.C.indices
        self.M = problem.n_rules
        self.k = problem.rule_class
        self.L = problem.lengths.astype(np.float64)
        self.E = problem.errors.astype(np.float64)
        self.usable = usable
        self.eps = problem.eps
        # tiny per-rule costs: ties between equal gains go to the cheaper move
        pen_l = 1e-6 / max(problem.complexity_budget, 1) if problem.complexity_budget < 2**62 else 0.0
        pen_e = 1e-6 / max(problem.error_budget, 1) if problem.error_budget < 2**62 else 0.0
        self.cost = pen_l * self.L + pen_e * self.E
        self._slot = np.full(problem.n_rules, -1, dtype=np.int64)  # row of rule a in self._gmat
        self._gmat = np.zeros((0, problem.n_rules))
        self._n_gram = 0
        self._sums = None  # (total, per_class, X0, X1, Xtot, Xown) of the last scored counts
        self.ctx = None
        self.last_adds = None
        self.products = 0  # full O(nnz) products
        self.updates = 0  # incremental updates
        self.pruned_ejections = 0  # 1-for-2 searches ruled out by the bound alone

    # ------------------------------------------------------------ gathering
    def _rules_of_rows(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(position in ``rows``, rule) for every nonzero of the given coverage rows."""
        starts = self.r_ptr[rows].astype(np.int64)
        lens = self.r_ptr[rows + 1] - starts
        pos = np.repeat(np.arange(rows.size), lens)
        offs = np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens)
        return pos, self.r_idx[starts[pos] + offs]

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

    def _indicator(self, row_sets: np.ndarray, rows: np.ndarray, n_sets: int) -> sp.csr_matrix:
        """n_sets x N 0/1 matrix with a one at (row_sets[i], rows[i])."""
        ones = np.ones(rows.size, dtype=np.float32)
        return sp.csr_matrix((ones, (row_sets, rows)), shape=(n_sets, self.p.n_rows))

    def _row_sums(self, row_sets: np.ndarray, rows: np.ndarray, n_sets: int) -> np.ndarray:
        """n_sets x M: entry (s, b) = #rows j with row_sets == s that rule b covers."""
        if rows.size == 0:
            return np.zeros((n_sets, self.M))
        if self._row_nnz(rows) <= GATHER_LIMIT:
            pos, rules = self._rules_of_rows(rows)
            flat = np.bincount(row_sets[pos] * self.M + rules, minlength=n_sets * self.M)
            return flat.reshape(n_sets, self.M).astype(np.float64)
        return (self._indicator(row_sets, rows, n_sets) @ self.C).toarray().astype(np.float64)

    def _owner_overlaps(self, owner: np.ndarray, cols: np.ndarray, n_sets: int) -> np.ndarray:
        """n_sets x |cols|: entry (s, j) = #rows of rule cols[j] whose owner is s (owner -1: none)."""
        rows = np.flatnonzero(owner >= 0)
        if rows.size == 0 or cols.size == 0:
            return np.zeros((n_sets, cols.size))
        p = self.p
        if int((p.indptr[cols + 1] - p.indptr[cols]).sum()) <= GATHER_LIMIT:
            pos, rows = self._rows_of_rules(cols)
            o = owner[rows]
            keep = o >= 0
            flat = np.bincount(o[keep] * cols.size + pos[keep], minlength=n_sets * cols.size)
            return flat.reshape(n_sets, cols.size).astype(np.float64)
        sub_t = self.cov[:, cols].T  # |cols| x N CSR (a view of the column slice)
        return (sub_t @ self._indicator(owner[rows], rows, n_sets).T).toarray().T.astype(np.float64)

    def _swap_gains_cols(self) -> np.ndarray:
        """|S| x |cols| swap gains G of the last :meth:`best_move` that scored swaps (on its candidate columns)."""
        c = self.ctx
        if c["G"] is None:
            S, cols, owner = c["S"], c["cols"], c["owner"]
            rows = np.flatnonzero(owner >= 0)
            D1 = self._row_sums(owner[rows], rows, S.size)[:, cols]
            G = c["gdrop"][S, None] + c["gadd"][None, cols] + D1
            if c["conf"] is not None:
                G += c["conf"]
            c["G"] = G
        return c["G"]

    def _swap_gain_rows(self, rows_a: np.ndarray) -> np.ndarray:
        """Rows ``rows_a`` (positions in S) of :meth:`_swap_gains_cols`, computed alone when not cached."""
        c = self.ctx
        if c["G"] is not None:
            return c["G"][rows_a]
        S, cols, owner = c["S"], c["cols"], c["owner"]
        amap = np.full(S.size, -1, dtype=np.int64)
        amap[rows_a] = np.arange(rows_a.size)
        rows = np.flatnonzero(owner >= 0)
        o = amap[owner[rows]]
        keep = o >= 0
        D1 = self._row_sums(o[keep], rows[keep], rows_a.size)[:, cols]
        Sa = S[rows_a]
        G = c["gdrop"][Sa, None] + c["gadd"][None, cols] + D1
        if c["conf"] is not None:
            G += c["conf"][rows_a]
        return G

    def swap_gains(self) -> np.ndarray:
        """The |S| x M swap-gain matrix G (drop S[i], add b) of the last :meth:`best_move` that scored swaps.

        Columns that cannot be added in any swap (selected, unusable or over a budget) hold -inf.
        """
        c = self.ctx
        out = np.full((c["S"].size, self.M), -np.inf)
        out[:, c["cols"]] = self._swap_gains_cols()
        return out

    def gram_rows(self, S: np.ndarray, cols: np.ndarray | None = None) -> np.ndarray:
        """|S| x M overlaps |rows(a) & rows(b)| (cached per rule), or only the columns ``cols``."""
        S = np.asarray(S, dtype=np.int64)
        missing = np.unique(S[self._slot[S] < 0])
        if missing.size:
            need = self._n_gram + missing.size
            if need > self._gmat.shape[0]:
                grown = np.zeros((max(2 * self._gmat.shape[0], need, 16), self.M))
                grown[: self._n_gram] = self._gmat[: self._n_gram]
                self._gmat = grown
            pos, rows = self._rows_of_rules(missing)
            self._gmat[self._n_gram : need] = self._row_sums(pos, rows, missing.size)
            self._slot[missing] = np.arange(self._n_gram, need)
            self._n_gram = need
        if cols is None:
            return self._gmat[self._slot[S]]
        return self._gmat[np.ix_(self._slot[S], cols)]

    # ------------------------------------------------------------ add / drop
    def _full_sums(self, st):
        total = st.total
        Z = np.column_stack(
            [(total == 0).astype(np.float32), (total == 1).astype(np.float32), total.astype(np.float32), st.per_class.astype(np.float32)]
        )
        X = np.asarray(self.CT @ Z, dtype=np.float64)
        self.products += 1
        own = X[np.arange(X.shape[0]), 3 + self.k]
        return X[:, 0].copy(), X[:, 1].copy(), X[:, 2].copy(), own

    def _update_sums(self, st) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """C' [z0 z1 n c_own] for the counts of ``st``, incrementally when few rows changed."""
        cache = self._sums
        if cache is not None:
            tot0, pc0, X0, X1, Xt, Xo = cache
            rows = np.flatnonzero((st.per_class != pc0).any(axis=1))
            if rows.size == 0:
                return X0, X1, Xt, Xo
            if 3 * rows.size < st.total.shape[0]:
                t_new = st.total[rows]
                t_old = tot0[rows]
                if self._row_nnz(rows) <= GATHER_LIMIT:
                    pos, rules = self._rules_of_rows(rows)
                    M = self.M
                    d0 = ((t_new == 0).astype(np.float64) - (t_old == 0))[pos]
                    d1 = ((t_new == 1).astype(np.float64) - (t_old == 1))[pos]
                    dt = (t_new - t_old).astype(np.float64)[pos]
                    dpc = (st.per_class[rows] - pc0[rows]).astype(np.float64)
                    do = dpc[pos, self.k[rules]]
                    X0 = X0 + np.bincount(rules, weights=d0, minlength=M)
                    X1 = X1 + np.bincount(rules, weights=d1, minlength=M)
                    Xt = Xt + np.bincount(rules, weights=dt, minlength=M)
                    Xo = Xo + np.bincount(rules, weights=do, minlength=M)
                else:
                    # C[rows]' [d(z0) d(z1) d(n) d(c_k) for every class k]: one sparse product
                    D = np.column_stack(
                        [
                            (t_new == 0).astype(np.float32) - (t_old == 0),
                            (t_new == 1).astype(np.float32) - (t_old == 1),
                            (t_new - t_old).astype(np.float32),
                            (st.per_class[rows] - pc0[rows]).astype(np.float32),
                        ]
                    )
                    dX = np.asarray(self.C[rows].T @ D, dtype=np.float64)
                    X0 = X0 + dX[:, 0]
                    X1 = X1 + dX[:, 1]
                    Xt = Xt + dX[:, 2]
                    Xo = Xo + dX[np.arange(self.M), 3 + self.k]
                self.updates += 1
                self._sums = (st.total.copy(), st.per_class.copy(), X0, X1, Xt, Xo)
                return X0, X1, Xt, Xo
        X0, X1, Xt, Xo = self._full_sums(st)
        self._sums = (st.total.copy(), st.per_class.copy(), X0, X1, Xt, Xo)
        return X0, X1, Xt, Xo

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
        slack_e = p.error_budget - st.errors
        gadd, gdrop, _ = self.add_drop_gains(st)
        self.ctx = None
        cost = self.cost
        # candidates compare by gain - tiny cost (ties go to the cheaper move); all need gain > TOL
        best_score, best = -np.inf, None
        add_ok = self.usable & ~r & (self.L <= slack_l) & (self.E <= slack_e) & (gadd > TOL)
        self.last_adds = None
        if add_ok.any():
            s = np.where(add_ok, gadd - cost, -np.inf)
            b = int(np.argmax(s))
            best_score, best = s[b], (gadd[b], -1, b)
            cand = np.flatnonzero(add_ok)
            cand = cand[cand != b]
            self.last_adds = (cand, gadd[cand], cost)
        S = np.flatnonzero(r)
        if S.size:
            ok = gdrop[S] > TOL
            if ok.any():
                s = np.where(ok, gdrop[S] + cost[S], -np.inf)
                j = int(np.argmax(s))
                if s[j] > best_score:
                    best_score, best = s[j], (gdrop[S[j]], int(S[j]), -1)
            cand = self.usable & ~r
            if best is not None:
                return best  # an augmenting add or drop: swaps are scored only at add/drop optima
            if swaps and cand.any():
                # columns that fit the budgets after dropping at least one selected rule
                cols = np.flatnonzero(cand & (self.L <= slack_l + self.L[S].max()) & (self.E <= slack_e + self.E[S].max()))
                ok = (self.L[None, cols] - self.L[S, None] <= slack_l) & (self.E[None, cols] - self.E[S, None] <= slack_e)
                if ok.any():
                    D2 = self.gram_rows(S, cols)
                    conf = self.eps * (self.k[S, None] != self.k[None, cols]) * D2 if self.eps else None
                    # rows covered once, by a in S (owner = its position in S), give D1[a, b] = |those rows of a & rows(b)|
                    pos, rows = self._rows_of_rules(S)
                    once = st.total[rows] == 1
                    owner = np.full(st.total.shape[0], -1, dtype=np.int64)
                    owner[rows[once]] = pos[once]
                    # G = gdrop + gadd + D1 + conf <= the same with D1 <= min(D2, X1[a], X1[b]):
                    # D1 is gathered only for the columns with a pair that may augment
                    X1 = self._sums[3]
                    bound = gdrop[S, None] + gadd[None, cols] + np.minimum(D2, np.minimum(X1[S, None], X1[None, cols]))
                    if conf is not None:
                        bound += conf
                    self.ctx = dict(
                        st=st, S=S, cols=cols, ok=ok, bound=bound, conf=conf, owner=owner, G=None,
                        gadd=gadd, gdrop=gdrop, cost=cost, slack_l=slack_l, slack_e=slack_e,
                    )  # fmt: skip
                    live = ok & (bound > 0.0)
                    lc = np.flatnonzero(live.any(axis=0))
                    if lc.size:
                        cl = cols[lc]
                        G = gdrop[S, None] + gadd[None, cl] + self._owner_overlaps(owner, cl, S.size)
                        if conf is not None:
                            G += conf[:, lc]
                        score = np.where(live[:, lc] & (G > TOL), G - (cost[None, cl] - cost[S, None]), -np.inf)
                        flat = int(np.argmax(score))
                        ia, jb = divmod(flat, score.shape[1])
                        if score[ia, jb] > best_score:
                            best_score, best = score[ia, jb], (G[ia, jb], int(S[ia]), int(cl[jb]))
        return best

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
        S, cols, ok, bound, gdrop = ctx["S"], ctx["cols"], ctx["ok"], ctx["bound"], ctx["gdrop"]
        if cols.size < 2:
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
        G = self._swap_gain_rows(rows_a)
        ub = G + other[rows_a]
        top = np.flatnonzero((ok[rows_a] & (ub > 0.0)).ravel())
        if top.size == 0:
            return None
        top = top[np.lexsort((top, -ub.ravel()[top], -G.ravel()[top]))][: int(n_pairs)]
        n = top.size
        ir, jb = np.divmod(top, m)  # ir indexes rows_a; rows_a is sorted, so (ir, jb) keeps (a, b) order
        ia = rows_a[ir]
        a_rules, b_rules = S[ia], cols[jb]
        # rows of b left uncovered once a is dropped (uncovered, or covered by a alone), one set per pair
        pos, rows = self._rows_of_rules(b_rules)
        left = (st.total[rows] == 0) | (owner[rows] == ia[pos])
        W = self._row_sums(pos[left], rows[left], n)[:, cols]
        gain = G[ir, jb][:, None] + (G[ir] - gdrop[a_rules][:, None]) - W
        if self.eps:
            gain -= self.eps * (self.k[b_rules, None] != self.k[None, cols]) * self.gram_rows(b_rules, cols)
        ok_c = (self.L[None, cols] <= slack_l + self.L[a_rules, None] - self.L[b_rules, None]) & (
            self.E[None, cols] <= slack_e + self.E[a_rules, None] - self.E[b_rules, None]
        )
        ok_c[np.arange(n), jb] = False
        s = np.where(ok_c & (gain > TOL), gain - cost[None, cols], -np.inf)
        flat = int(np.argmax(s))
        i, c = divmod(flat, s.shape[1])
        if not np.isfinite(s[i, c]):
            return None
        return gain[i, c], int(a_rules[i]), int(b_rules[i]), int(cols[c])


class QGA(Solver):
    """Nested genetic algorithm with QUBO-sampled initial population and mutation set.

    Parameters
    ----------
    n_population : population size kept after each generation, or "auto" (the default): 100, and
        ``max(10, round(100 * AUTO_NNZ / nnz))`` on instances whose coverage matrix has more than
        ``AUTO_NNZ`` nonzeros (a deterministic function of the instance).
    n_generations : maximum number of generations of the outer loop.
    subspace_size : rules per random sub-space of the feasibility QUBOs.
    n_targets : number of targets beta (b itself and random fractions of b).
    n_subspaces : sub-spaces sampled per target.
    n_samples : solutions kept per sub-space QUBO.
    n_kernel : maximum number of sampled approximate-kernel vectors (after closure under negation).
    kernel_subspace_size : rules per sub-space of the kernel QUBO (2 bits each).
    n_kernel_subspaces : sub-spaces on which the kernel QUBO is sampled.
    rfhc_trials : RF+HC trials whose selections join the initial population.
    crossover : "uniform", "one_point" or "two_point".
    crossover_retries : attempts per child to obtain a feasible crossover before repairing.
    sampler : a :class:`~explainer.solvers.qubo.QUBOSampler`
        (default: ``GeneticQUBOSampler(n_population=30, n_generations=20)``).
    max_super_mutation_steps : cap on augmenting mutations applied to one child.
    max_ejections : best (drop a, add b) pairs extended to 1-for-2 moves (drop a, add b and c) at a local optimum.
    early_stopping : stop when min == max fitness in the population (or at 100 % coverage).
    time_limit : seconds (None: no limit).  When reached, the run ends with the best selection so far
        (status "stopped", message "time limit"); checked between super-mutation steps.  Runs that hit
        it depend on the machine's speed, so they are not reproducible.
    """

    name = "qga"

    def __init__(
        self,
        n_population: int | str = "auto",
        n_generations: int = 100,
        subspace_size: int = 20,
        n_targets: int = 6,
        n_subspaces: int = 2,
        n_samples: int = 10,
        n_kernel: int = 64,
        kernel_subspace_size: int = 10,
        n_kernel_subspaces: int = 6,
        rfhc_trials: int = 30,
        crossover: str = "uniform",
        crossover_retries: int = 10,
        sampler: QUBOSampler | None = None,
        max_super_mutation_steps: int = 1000,
        max_ejections: int = 32,
        early_stopping: bool = True,
        time_limit: float | None = None,
    ):
        self.n_population = n_population
        self.n_generations = n_generations
        self.subspace_size = subspace_size
        self.n_targets = n_targets
        self.n_subspaces = n_subspaces
        self.n_samples = n_samples
        self.n_kernel = n_kernel
        self.kernel_subspace_size = kernel_subspace_size
        self.n_kernel_subspaces = n_kernel_subspaces
        self.rfhc_trials = rfhc_trials
        self.crossover = crossover
        self.crossover_retries = crossover_retries
        self.sampler = sampler
        self.max_super_mutation_steps = max_super_mutation_steps
        self.max_ejections = max_ejections
        self.early_stopping = early_stopping
        self.time_limit = time_limit
        self._deadline = None

    def population_size(self, problem: SelectionProblem) -> int:
        """``n_population``, with "auto" resolved for ``problem``."""
        if self.n_population != "auto":
            return int(self.n_population)
        nnz = int(problem.indices.size)
        if nnz <= AUTO_NNZ:
            return 100
        return max(10, int(round(100 * AUTO_NNZ / nnz)))

    def _out_of_time(self) -> bool:
        return self._deadline is not None and time.perf_counter() >= self._deadline

    # ------------------------------------------------------------ inner GA 1
    def initial_population(self, problem: SelectionProblem, rng: np.random.Generator, sampler, weights, usable):
        """Algorithm 6 (+ RF+HC trials): distinct feasible selections, as a bool matrix."""
        M = problem.n_rules
        A = problem.A.astype(np.float64)
        b = problem.b
        found = [np.zeros(M, dtype=bool)]
        idx_usable = np.flatnonzero(usable)
        if idx_usable.size:
            b_eff = np.minimum(b, A[:, usable].sum(axis=1)).astype(np.float64)  # unbounded budgets -> all rules
            targets = [b_eff]
            for _ in range(max(int(self.n_targets) - 1, 0)):
                targets.append(np.floor(b_eff * rng.uniform(0.25, 1.0, 2)))
            m = min(int(self.subspace_size), idx_usable.size)
            for beta in targets:
                q = QUBO.feasibility(A[:, idx_usable], beta)
                for _ in range(int(self.n_subspaces)):
                    sub = _weighted_subset(weights[idx_usable], m, rng)
                    X = sampler.sample(q.subspace(sub), int(self.n_samples), rng)
                    if len(X) == 0:
                        continue
                    R = np.zeros((len(X), M), dtype=bool)
                    R[:, idx_usable[sub]] = np.asarray(X, dtype=bool)
                    found.extend(R[problem.feasible_mask(R)])
        if self.rfhc_trials:
            found.extend(RFHC(n_trials=int(self.rfhc_trials)).trials(problem, rng))
        R = np.array(found, dtype=bool).reshape(-1, M)
        return R[distinct_rows(R)]

    # ------------------------------------------------------------ inner GA 2
    def approximate_kernel(self, problem: SelectionProblem, rng: np.random.Generator, sampler, weights, usable):
        """Algorithm 7 on random sub-spaces: distinct nonzero kernel vectors in {-1,0,1}^M (int8 matrix)."""
        M = problem.n_rules
        idx_usable = np.flatnonzero(usable)
        if idx_usable.size < 2 or int(self.n_kernel) <= 0:
            return np.zeros((0, M), dtype=np.int8)
        A = problem.A.astype(np.float64)[:, idx_usable]
        m = min(int(self.kernel_subspace_size), idx_usable.size)
        out: dict[bytes, np.ndarray] = {}
        for _ in range(int(self.n_kernel_subspaces)):
            sub = _weighted_subset(weights[idx_usable], m, rng)
            X = sampler.sample(QUBO.kernel(A[:, sub]), int(self.n_samples), rng)
            if len(X) == 0:
                continue
            x = decode_kernel(X)
            x = x[(np.abs(x) <= 1).all(axis=1) & (x != 0).any(axis=1)]
            for row in np.vstack([x, -x]):
                full = np.zeros(M, dtype=np.int8)
                full[idx_usable[sub]] = row
                out.setdefault(full.tobytes(), full)
        K = np.array(list(out.values()), dtype=np.int8).reshape(-1, M)
        return K[: int(self.n_kernel)]

    # -------------------------------------------------------------- operators
    def _crossover(self, x: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        M = x.shape[0]
        if self.crossover == "uniform":
            mask = rng.random(M) < 0.5
        elif self.crossover == "one_point":
            mask = np.arange(M) < rng.integers(1, max(M, 2))
        elif self.crossover == "two_point":
            a, b = np.sort(rng.integers(0, M + 1, 2))
            mask = (np.arange(M) >= a) & (np.arange(M) < b)
        else:
            raise ValueError("crossover must be 'uniform', 'one_point' or 'two_point'")
        return np.where(mask, x, y), np.where(mask, y, x)

    @staticmethod
    def _repair(problem: SelectionProblem, st, scorer: MoveScorer | None = None) -> None:
        """Drop rules until both budgets hold: least f* lost per unit of the exceeded budget(s)."""
        while not st.feasible:
            over_l = st.complexity > problem.complexity_budget
            over_e = st.errors > problem.error_budget
            S = np.flatnonzero(st.r)
            relief = (problem.lengths[S] / max(problem.complexity_budget, 1)) * over_l + (
                problem.errors[S] / max(problem.error_budget, 1)
            ) * over_e
            if scorer is not None:
                loss = -scorer.add_drop_gains(st)[1][S]
            else:
                loss = np.array([-st.delta_coverage(int(a)) for a in S])
            j = int(np.argmin((loss + 1.0) / (relief + 1e-12)))
            st.flip(int(S[j]))

    def super_mutation(self, problem, st, scorer: MoveScorer, kernel: np.ndarray) -> int:
        """Apply augmenting mutations to ``st`` until none applies; returns the number applied."""
        steps = 0
        limit = int(self.max_super_mutation_steps)
        while steps < limit and not self._out_of_time():
            move = scorer.best_move(st)
            if move is not None:
                _, a, b = move
                if a >= 0:
                    st.flip(a)
                if b >= 0:
                    st.flip(b)
                steps += 1
                if a < 0 and scorer.last_adds is not None:
                    steps += self._lazy_adds(st, scorer, limit - steps)
                continue
            if self._ejection_step(problem, st, scorer):
                steps += 1
                continue
            if self._kernel_step(problem, st, kernel):
                steps += 1
                continue
            break
        return steps

    def _kernel_step(self, problem, st, kernel: np.ndarray) -> bool:
        """Apply the best augmenting sampled kernel mutation, if any."""
        if kernel.shape[0] == 0:
            return False
        r = st.r
        R = np.where(kernel > 0, True, np.where(kernel < 0, False, r[None, :]))
        changed = (R != r[None, :]).any(axis=1)
        keep = changed & problem.feasible_mask(R)
        if not keep.any():
            return False
        Rk = R[keep]
        f = problem.fitness(Rk)
        j = int(np.argmax(f))
        if f[j] <= st.coverage + TOL:
            return False
        for i in np.flatnonzero(Rk[j] != r):
            st.flip(int(i))
        return True

    @staticmethod
    def _lazy_adds(st, scorer: MoveScorer, limit: int) -> int:
        """Further best adds without re-scoring everything (lazy greedy).

        Adding rules never raises the gain of adding another one (coverage is
        submodular, conflicts only grow), so the stale gains of
        :meth:`MoveScorer.best_move` are upper bounds: the candidate whose exact
        gain (O(its support)) is at least every other stale bound is the best add.
        """
        cand, gains, cost = scorer.last_adds
        p = st.problem
        fits = (p.lengths[cand] <= p.complexity_budget - st.complexity) & (p.errors[cand] <= p.error_budget - st.errors)
        heap = list(zip((-(gains[fits] - cost[cand[fits]])).tolist(), cand[fits].tolist(), strict=True))
        heapq.heapify(heap)
        done = 0
        while heap and done < limit:
            _, i = heapq.heappop(heap)
            if st.r[i] or not st.flip_fits(i):
                continue  # budgets only shrink while adding: it never fits again
            g = st.delta_coverage(i)
            if g <= TOL:
                continue
            key = g - cost[i]
            # another candidate may still be better (ties go to the smaller index, as in best_move)
            if heap and (key < -heap[0][0] - 1e-12 or (key <= -heap[0][0] + 1e-12 and heap[0][1] < i)):
                heapq.heappush(heap, (-key, i))
                continue
            st.flip(i)
            done += 1
        return done

    def _ejection_step(self, problem, st, scorer: MoveScorer) -> bool:
        """The best augmenting 1-for-2 move (drop one rule, add two), if any."""
        move = scorer.best_one_for_two(st, int(self.max_ejections))
        if move is None:
            return False
        for i in move[1:]:
            st.flip(i)
        return True

    # -------------------------------------------------------------- outer GA
    def _run(self, problem: SelectionProblem, rng: np.random.Generator, monitor: Monitor) -> RunOutcome:
        t0 = time.perf_counter()
        self._deadline = None if self.time_limit is None else t0 + float(self.time_limit)
        N = problem.n_rows
        n_pop = self.population_size(problem)
        sampler = self.sampler if self.sampler is not None else GeneticQUBOSampler(n_population=30, n_generations=20)
        usable = (
            (problem.support > 0)
            & (problem.lengths <= problem.complexity_budget)
            & (problem.errors <= problem.error_budget)
        )
        weights = sampling_weights(rule_scores(problem))
        pop = self.initial_population(problem, rng, sampler, weights, usable)
        fit = problem.fitness(pop)
        n_initial = pop.shape[0]
        order = np.argsort(-fit, kind="stable")[:n_pop]
        pop, fit = pop[order], fit[order]
        t_init = time.perf_counter() - t0
        if monitor.generation(fit, pop, initial=True):
            # stopped before the first generation: the best initial individual is the answer
            return RunOutcome(pop[int(np.argmax(fit))].copy(), info={"generations": 0, "initial_population": n_initial})
        if fit[0] >= N - TOL:
            info = {"generations": 0, "initial_population": n_initial, "stop_reason": "100% coverage reached"}
            return RunOutcome(pop[0].copy(), message="100% coverage reached", info=info)
        kernel = self.approximate_kernel(problem, rng, sampler, weights, usable)
        t_kernel = time.perf_counter() - t0 - t_init

        scorer = MoveScorer(problem, usable)
        memo: dict[bytes, tuple[np.ndarray, float]] = {}
        steps_total = 0
        children_total = 0
        retries_failed = 0
        status_message = ""
        generations = 0
        timed_out = self._out_of_time()
        for _ in range(0 if timed_out else int(self.n_generations)):
            generations += 1
            P = pop.shape[0]
            children: list[np.ndarray] = []
            child_fit: list[float] = []
            if P >= 2:
                w = np.maximum(fit, 0.0) + 1e-9
                a_idx, b_idx = draw_pairs(w / w.sum(), max(P // 2, 1), rng)
                for a, b in zip(a_idx, b_idx, strict=True):
                    for _attempt in range(max(int(self.crossover_retries), 1)):
                        c1, c2 = self._crossover(pop[a], pop[b], rng)
                        feas = problem.feasible_mask(np.vstack([c1, c2]))
                        if feas.all():
                            break
                    else:
                        retries_failed += 1
                    for c in (c1, c2):
                        key = _key(c)
                        hit = memo.get(key)
                        if hit is None:
                            st = problem.state(c)
                            self._repair(problem, st, scorer)
                            steps_total += self.super_mutation(problem, st, scorer, kernel)
                            hit = (st.r.copy(), float(st.coverage))
                            memo[key] = hit
                            memo.setdefault(_key(hit[0]), hit)
                        children.append(hit[0])
                        child_fit.append(hit[1])
                        children_total += 1
                    if child_fit and max(child_fit) >= N - TOL:
                        break  # 100 % coverage: nothing left to improve
                    if self._out_of_time():
                        timed_out = True
                        break
            if children:
                pop = np.vstack([pop, np.array(children)])
                fit = np.concatenate([fit, np.array(child_fit)])
            order = np.argsort(-fit, kind="stable")[:n_pop]
            pop, fit = pop[order], fit[order]
            monitor.evaluations += len(children)
            if monitor.generation(fit, pop):
                break
            if fit[0] >= N - TOL:
                status_message = "100% coverage reached"
                break
            if timed_out:
                break
            if self.early_stopping and fit[-1] == fit[0]:
                status_message = "converged: min == max fitness"
                break
        best = pop[int(np.argmax(fit))].copy()
        if monitor.best_coverage > float(fit.max()):
            best = monitor.best_selection.copy()
        info = {
            "generations": generations,
            "initial_population": n_initial,
            "kernel_size": int(kernel.shape[0]),
            "children": children_total,
            "distinct_children": len(memo),
            "super_mutation_steps": steps_total,
            "crossover_repairs": retries_failed,
            "time_initial_s": t_init,
            "time_kernel_s": t_kernel,
            "population": n_pop,
            "stop_reason": status_message
            or ("stopped on request" if monitor.stop_requested else "time limit" if timed_out else "n_generations"),
        }
        self._deadline = None
        if timed_out and not status_message and not monitor.stop_requested:
            return RunOutcome(best, status=STOPPED, message="time limit", info=info)
        return RunOutcome(best, message=status_message, info=info)


__all__ = ["QGA", "MoveScorer"]
