"""The rule selection problem of section 4 of the paper.

Choose a 0/1 vector r over M rules to maximise the coverage

    f*(r) = #rows covered by at least one chosen rule - (eps/2) r'Q r

subject to complexity L(r) = sum L_i r_i <= Bc and errors E(r) = sum E_i r_i <= Be,
where Q[i, i'] counts the rows covered by both rules with different classes.

(eps/2) r'Q r equals eps times the number of (unordered pair, row) conflicts, and
for one row with n_j chosen rules firing, c_jk of them of class k, the row holds
(n_j^2 - sum_k c_jk^2) / 2 conflicting pairs.  So f* never needs Q itself: it is
computed from per-row counts, which also makes a single flip cost O(support).

Row weights (``sample_weight``): with weights w_j >= 0, a covered row counts w_j and a
conflicting pair on row j counts eps w_j, so f*(r) = sum_j w_j [row j covered] -
eps sum_j w_j (conflicting pairs on row j), and a rule's errors E_i are the weight of the rows it
misclassifies (the error budget bounds that weight; the complexity budget is unchanged).
Unweighted (``sample_weight=None``), every count is an integer exactly as before; weighted, the
row-based metrics (covered, conflicting pairs, errors, the error budget) are floats, and the
error budget is compared with a tolerance (:attr:`SelectionProblem.error_limit`) so that sums
taken in different orders never tip a selection over it.  The firing counts per row stay integers
either way; weights enter only where rows are summed.

A budget of ``None`` is stored as :data:`UNBOUNDED`, so every budget compares as a number;
:attr:`SelectionProblem.fits_alone` marks the rules that keep both budgets on their own (what
every solver starts from); :class:`Evaluation` holds the metrics of one selection.

``objective``: what the solvers maximise, f* ("coverage", the default) or the rows the explanation
gets right minus the same conflict penalty ("accuracy", with the ``fallback`` class of uncovered
rows): :mod:`explainer.selection.objectives` defines it.  ``fitness``, ``Evaluation.value`` and
``SelectionState.value`` are the objective's value; ``coverage`` is f* under either.

``pinned`` / ``banned``: rule indices every selection must hold / must not (:mod:`explainer.selection.pins`
says how every solver honours them); a selection without a pin or with a ban is not feasible.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from explainer.selection import objectives, pins
from explainer.selection.gathers import rule_errors
from explainer.selection.loops import accuracy_delta, first_fit_adds, flip_rule, rule_delta

#: up to this many nonzeros, populations are evaluated by sparse products with the whole coverage matrix
SMALL_NNZ = 1 << 20
#: the value an unbounded budget (``None``) takes, so that every budget compares as a number
UNBOUNDED = int(np.iinfo(np.int64).max)


def error_tolerance(total_weight: float | None) -> float:
    """The slack an error budget is compared with: 0 when rows are counted (``total_weight`` None), and a
    billionth of the rows' total weight (at least 1) when they are weighed, since float sums of the same
    weights taken in another order differ by a few ulps of the total."""
    return 0 if total_weight is None else 1e-9 * max(1.0, float(total_weight))


def within_error_budget(errors, error_budget, total_weight: float | None = None) -> bool:
    """Do ``errors`` keep ``error_budget`` (None: unbounded)?  Compared as every selection is, with
    :func:`error_tolerance` of ``total_weight`` (None: unweighted rows, an exact comparison)."""
    return error_budget is None or bool(errors <= error_budget + error_tolerance(total_weight))


@dataclass(frozen=True)
class Evaluation:
    """Metrics of one selection (what :class:`~explainer.selection.result.SelectionResult` and
    :class:`~explainer.selection.frontier.FrontierPoint` hold and read through)."""

    coverage: float  # f*
    # the row counts: ints when rows are counted, floats (weights of rows) when they are weighted
    covered: float
    conflicting_pairs: float
    complexity: int
    errors: float
    feasible: bool  # within the budgets of the problem that evaluated it
    n_rules: int
    n_rows: int
    total_weight: float | None = None  # sum of the row weights (None: unweighted, every row counts 1)
    value: float | None = None  # the problem's objective (None: f*, ``coverage``)
    right: float | None = None  # rows right under objective="accuracy" (None under "coverage")
    objective: str = "coverage"

    def __post_init__(self):
        if self.value is None:
            object.__setattr__(self, "value", self.coverage)

    @property
    def coverage_score(self) -> float:
        """f* / N (f* / total weight when the rows are weighted)."""
        total = self.n_rows if self.total_weight is None else self.total_weight
        return self.coverage / total if total else 0.0

    def to_dict(self) -> dict:
        """The selection's metrics under the keys every export publishes them (the JSON report, a frontier's
        points, a result's summary)."""
        return {
            "n_rules": self.n_rules,
            "complexity": self.complexity,
            "errors": self.errors,
            "covered": self.covered,
            "conflicting_pairs": self.conflicting_pairs,
            "coverage": self.coverage,
            "coverage_score": self.coverage_score,
        }


class _shared_cache(cached_property):
    """A cached property that :meth:`SelectionProblem.with_budgets` copies share, even when it is first
    computed on a copy (a frontier computes its coverage products once, not once per budget)."""

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        shared = obj.__dict__.setdefault("_shared", {})
        if self.attrname not in shared:
            shared[self.attrname] = self.func(obj)
        return shared[self.attrname]


class SelectionProblem:
    """Coverage matrix, rule classes, lengths, errors, budgets and eps.

    Parameters
    ----------
    coverage : (N, M) boolean array or scipy sparse matrix; row j covered by rule i.
    rule_class : (M,) int class code of each rule.
    y : (N,) int class code of each row.
    lengths : (M,) rule lengths L(R_i).
    complexity_budget, error_budget : Bc and Be (``None`` means unbounded).
    eps : conflict penalty (the paper uses 1).
    sample_weight : (N,) non-negative finite row weights, or ``None`` (every row counts 1, and
        every metric is an integer count as without weights).
    objective : "coverage" (f*, the paper's) or "accuracy" (see :mod:`explainer.selection.objectives`).
    fallback : under "accuracy", the class code of the rows no rule covers (``None``: the (weighted)
        majority class of ``y``); ignored under "coverage".
    pinned, banned : rule indices in every selection / in none (``None``: no rule); ValueError when a rule is
        both, or when the pins alone exceed a budget.
    """

    def __init__(
        self,
        coverage,
        rule_class,
        y,
        lengths,
        complexity_budget=None,
        error_budget=None,
        eps: float = 1.0,
        n_classes: int | None = None,
        sample_weight=None,
        objective: str = "coverage",
        fallback: int | None = None,
        pinned=None,
        banned=None,
    ):
        cov = sp.csc_matrix(coverage, dtype=np.float32)
        cov.sum_duplicates()
        cov.data[:] = 1.0
        cov.eliminate_zeros()
        self._shared: dict = {}  # the budget-independent caches, shared with every with_budgets copy
        self._cov = cov  # N x M, CSC: the rows of rule i are indices[indptr[i]:indptr[i+1]]
        self.n_rows, self.n_rules = cov.shape
        self.rule_class = np.asarray(rule_class, dtype=np.int64).ravel()
        self.y = np.asarray(y, dtype=np.int64).ravel()
        self.lengths = np.asarray(lengths, dtype=np.int64).ravel()
        if self.rule_class.shape != (self.n_rules,) or self.lengths.shape != (self.n_rules,):
            raise ValueError("rule_class and lengths need one entry per rule (column of coverage)")
        if self.y.shape != (self.n_rows,):
            raise ValueError("y needs one entry per row of coverage")
        self.n_classes = int(
            n_classes
            if n_classes is not None
            else max(self.y.max(initial=-1), self.rule_class.max(initial=-1)) + 1
        )
        self.eps = float(eps)
        if self.eps < 0:
            raise ValueError("eps must be >= 0")
        self.indptr = cov.indptr.astype(np.int64)
        # scipy's own index type (int32 below 2**31 nonzeros), shared with the pool's matrix: an int64 copy
        # doubled a large pool's footprint in every problem built from it (207 MB at 364,035 rows)
        self.indices = cov.indices
        self.support = np.diff(self.indptr)  # rows each rule covers (a count, weighted or not)
        self._set_weights(sample_weight)
        # one compiled pass over the nonzeros (gathers and bincounts over index arrays built here took
        # about 0.2 s of the 0.4 s a problem of 130,000 rows, 11 M nonzeros, took to build)
        wrong, rows = rule_errors(self.indptr, self.indices, self.y, self.rule_class, self.row_weight)
        if self.row_weight is None:
            self.errors = wrong.astype(np.int64)
            self.weighted_support = self.support
        else:
            self.errors = wrong
            self.weighted_support = rows
        #: weight of the rows each rule gets right (= support - errors unweighted)
        self.correct = self.weighted_support - self.errors
        self.objective = objective
        self.fallback = objectives.check_objective(objective, fallback, self.y, self.n_classes, self.row_weight)
        self._set_rules(pinned, banned)
        self._set_budgets(complexity_budget, error_budget)

    def _set_rules(self, pinned, banned) -> None:
        """``pinned`` / ``banned``: sorted read-only index arrays; ``pinned_mask`` / ``banned_mask``: (M,) bool."""
        self.pinned = pins.rule_indices("pinned", pinned, self.n_rules)
        self.banned = pins.rule_indices("banned", banned, self.n_rules)
        pins.check_disjoint(self.pinned, self.banned)
        self.pinned_mask = pins.mask(self.pinned, self.n_rules)
        self.banned_mask = pins.mask(self.banned, self.n_rules)

    def pinned_cost(self) -> tuple[int, float]:
        """(complexity, errors) of the pinned rules together."""
        errors = self.errors[self.pinned].sum()
        return int(self.lengths[self.pinned].sum()), int(errors) if self.row_weight is None else float(errors)

    def _set_weights(self, sample_weight) -> None:
        """``row_weight``: None (unweighted) or the (N,) float64 weights; ``total_weight``: their sum
        (N unweighted); ``error_tol``: the slack the error budget is compared with (0 unweighted)."""
        if sample_weight is None:
            self.row_weight: np.ndarray | None = None
            self.total_weight: float = self.n_rows  # an int: the rows counted
            self.error_tol = error_tolerance(None)
            return
        w = np.asarray(sample_weight, dtype=np.float64).ravel()
        if w.shape != (self.n_rows,):
            raise ValueError("sample_weight needs one entry per row of coverage")
        if not np.all(np.isfinite(w)) or (w < 0).any():
            raise ValueError("sample_weight must be finite and >= 0")
        w.flags.writeable = False
        self.row_weight = w
        self.total_weight = float(w.sum())
        self.error_tol = error_tolerance(self.total_weight)

    def _set_budgets(self, complexity_budget, error_budget) -> None:
        # the one place where "no budget" (None) becomes a number: UNBOUNDED compares above every sum
        self.complexity_budget = UNBOUNDED if complexity_budget is None else int(complexity_budget)
        self.error_budget: float  # an int unless the rows are weighted
        if error_budget is None or error_budget >= UNBOUNDED:
            self.error_budget = UNBOUNDED
        elif self.row_weight is None:
            self.error_budget = int(error_budget)
        else:
            self.error_budget = float(error_budget)  # a weight of rows
        if self.complexity_budget < 0 or self.error_budget < 0:
            raise ValueError("budgets must be >= 0")
        #: what selected errors are compared with: the error budget, plus ``error_tol`` when weighted
        self.error_limit = self.error_budget + self.error_tol if self.error_budget < UNBOUNDED else UNBOUNDED
        pins.check_pins_fit(*self.pinned_cost(), self.complexity_budget, self.error_budget, self.error_limit)

    @property
    def budgets(self) -> tuple:
        """(Bc, Be) as they were given: ``None`` where there is no budget (what a result reports)."""
        return (None if self.complexity_budget >= UNBOUNDED else self.complexity_budget,
                None if self.error_budget >= UNBOUNDED else self.error_budget)

    # ----------------------------------------------------------------- basics
    @property
    def A(self) -> np.ndarray:
        """The 2 x M constraint matrix [L; E] of the paper."""
        return np.vstack([self.lengths, self.errors])

    @property
    def b(self) -> np.ndarray:
        return np.array([self.complexity_budget, self.error_budget], dtype=np.int64 if self.row_weight is None else float)

    @classmethod
    def from_pool(cls, pool, complexity_budget=None, error_budget=None, eps: float = 1.0,
                  sample_weight=None, objective: str = "coverage", fallback: int | None = None,
                  pinned=None, banned=None) -> SelectionProblem:
        """The problem of a rule pool: anything with ``coverage``, ``rule_class``, ``y``,
        ``lengths`` and ``classes`` (a :class:`~explainer.rules.pool.RulePool`; read by its
        attributes so that selection needs nothing from the rule stage)."""
        return cls(
            pool.coverage, pool.rule_class, pool.y, pool.lengths,
            complexity_budget, error_budget, eps=eps, n_classes=len(pool.classes), sample_weight=sample_weight,
            objective=objective, fallback=fallback, pinned=pinned, banned=banned,
        )

    def with_budgets(self, complexity_budget, error_budget) -> SelectionProblem:
        """The same problem under other budgets (``None`` is unbounded).

        The matrices and every cache that does not depend on the budgets are shared, not rebuilt:
        a frontier asks for one problem per budget.
        """
        other = copy.copy(self)
        for name in _BUDGET_CACHES:
            other.__dict__.pop(name, None)
        other._set_budgets(complexity_budget, error_budget)
        return other

    def with_rules(self, pinned=None, banned=None) -> SelectionProblem:
        """The same problem with other pinned and banned rules (indices; ``None``: none); the matrices are shared."""
        other = copy.copy(self)
        for name in _BUDGET_CACHES:
            other.__dict__.pop(name, None)
        other._set_rules(pinned, banned)
        other._set_budgets(*self.budgets)
        return other

    def restrict(self, rules) -> SelectionProblem:
        """The same problem over the rules ``rules`` only (in that order), same rows, budgets and eps; the pinned
        and banned rules among ``rules`` stay pinned and banned."""
        rules = np.asarray(rules, dtype=np.int64).ravel()
        where = np.full(self.n_rules, -1, dtype=np.int64)
        where[rules] = np.arange(rules.size)
        pinned, banned = where[self.pinned], where[self.banned]
        return SelectionProblem(
            self._cov[:, rules], self.rule_class[rules], self.y, self.lengths[rules],
            self.complexity_budget, self.error_budget, eps=self.eps, n_classes=self.n_classes,
            sample_weight=self.row_weight, objective=self.objective, fallback=self.fallback,
            pinned=pinned[pinned >= 0], banned=banned[banned >= 0],
        )

    def without_banned(self) -> tuple[SelectionProblem, np.ndarray | None]:
        """(the problem over the rules not banned, their indices here), or (this problem, None) when none is."""
        if not self.banned.size:
            return self, None
        keep = np.flatnonzero(~self.banned_mask)
        return self.restrict(keep), keep

    @cached_property
    def fits_alone(self) -> np.ndarray:
        """(M,) bool, read-only: the rules that keep both budgets on their own (L_i <= Bc and E_i <= Be), alongside
        the pinned rules when there are (the pins themselves fit; a banned rule never does)."""
        pin_l, pin_e = self.pinned_cost()
        fits = (self.lengths <= self.complexity_budget - pin_l) & (self.errors <= self.error_limit - pin_e)
        fits = (fits | self.pinned_mask) & ~self.banned_mask
        fits.flags.writeable = False
        return fits

    def rows_of(self, i: int) -> np.ndarray:
        return self.indices[self.indptr[i] : self.indptr[i + 1]]

    @_shared_cache
    def coverage_dense(self) -> np.ndarray:
        """N x M boolean coverage (materialised on demand)."""
        return self._cov.toarray().astype(bool)

    @property
    def coverage_sparse(self) -> sp.csc_matrix:
        return self._cov

    @_shared_cache
    def coverage_rows(self) -> sp.csr_matrix:
        """N x M coverage as CSR (the rules of each row)."""
        return self._cov.tocsr()

    @_shared_cache
    def conflict_matrix(self) -> sp.csr_matrix:
        """Q: symmetric M x M, Q[i,i'] = rows covered by both with different classes (zero diagonal)."""
        cov = self._cov
        gram = (cov.T @ cov).tocoo()
        keep = self.rule_class[gram.row] != self.rule_class[gram.col]
        q = sp.coo_matrix(
            (gram.data[keep].astype(np.int64), (gram.row[keep], gram.col[keep])),
            shape=(self.n_rules, self.n_rules),
        )
        return q.tocsr()

    def feasible_mask(self, R: np.ndarray) -> np.ndarray:
        R = np.atleast_2d(np.asarray(R, dtype=bool))
        fits = (R @ self.lengths <= self.complexity_budget) & (R @ self.errors <= self.error_limit)
        return fits & pins.keeps_rules(R, self.pinned, self.banned)

    def is_feasible(self, r) -> bool:
        return bool(self.feasible_mask(np.asarray(r, dtype=bool)[None, :])[0])

    # ------------------------------------------------------------- evaluation
    #: individuals per block of :meth:`evaluate_population` are chosen so that a
    #: block's per-row count arrays hold at most this many entries (bounded memory)
    EVAL_BLOCK_ENTRIES = 1 << 22

    @_shared_cache
    def _class_blocks(self) -> list[tuple[np.ndarray, sp.csr_matrix]]:
        """Per class k: the rule indices of class k and their coverage as CSR (M_k x N)."""
        blocks = []
        cov_t = self._cov.T.tocsr()
        for k in range(self.n_classes):
            idx = np.flatnonzero(self.rule_class == k)
            if idx.size:
                blocks.append((idx, cov_t[idx]))
        return blocks

    def _block_counts(self, R: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(total, sum_k c_k^2) firing counts, both (P, N) int64, of a block of selections.

        Gathered from the rows of the selected rules, O(selected nonzeros + P N K);
        on small instances (at most ``SMALL_NNZ`` nonzeros) or when it is
        dearer, by sparse products with the whole coverage matrix (per class of rule).
        """
        P = R.shape[0]
        N, K = self.n_rows, self.n_classes
        ind, idx = np.nonzero(R)
        starts = self.indptr[idx]
        lens = self.indptr[idx + 1] - starts
        n = int(lens.sum())
        if self.indices.size <= SMALL_NNZ or self.indices.size * P <= 32 * (n + P * N * K):
            total = np.zeros((P, N), dtype=np.int64)
            squares = np.zeros((P, N), dtype=np.int64)
            for cls_idx, block in self._class_blocks:
                sub = R[:, cls_idx]
                if not sub.any():
                    continue
                counts = np.rint(np.asarray((block.T @ sub.T.astype(np.float32)).T)).astype(np.int64)
                total += counts
                squares += counts * counts
            return total, squares
        offs = np.arange(n, dtype=np.int64) - np.repeat(np.cumsum(lens) - lens, lens)
        rows = self.indices[np.repeat(starts, lens) + offs]
        key = np.repeat(ind.astype(np.int64) * N, lens) + rows
        per_class = np.bincount(key * K + np.repeat(self.rule_class[idx], lens), minlength=P * N * K)
        per_class = per_class.reshape(P, N, K)
        return per_class.sum(axis=2), (per_class * per_class).sum(axis=2)

    def _blocks(self, P: int):
        step = max(1, self.EVAL_BLOCK_ENTRIES // max(self.n_rows * self.n_classes, 1))
        for lo in range(0, P, step):
            yield slice(lo, min(lo + step, P))

    def evaluate_population(self, R: np.ndarray, stop: Callable[[], bool] | None = None) -> dict[str, np.ndarray]:
        """Vectorised metrics for a P x M selection matrix.

        A block of individuals at a time (at most ``EVAL_BLOCK_ENTRIES``
        per-row counts in memory); counts gathered from the rows of the
        selected rules, O(selected nonzeros + P N K), unless P x nnz is cheaper.
        ``stop``: asked after each block; once it returns True the rest is left, and the metrics cover
        only the first rows, those evaluated (at least one block).
        """
        R = np.atleast_2d(np.asarray(R, dtype=bool))
        if self.objective == "accuracy":
            return objectives.population_metrics(self, R, stop)
        P = R.shape[0]
        w = self.row_weight
        covered = np.zeros(P, dtype=np.int64 if w is None else np.float64)
        pairs = np.zeros(P, dtype=np.int64 if w is None else np.float64)
        for blk in self._blocks(P):
            total, squares = self._block_counts(R[blk])
            if w is None:
                covered[blk] = np.count_nonzero(total, axis=1)
                pairs[blk] = (total * total - squares).sum(axis=1) // 2
            else:  # per row an integer number of pairs, weighted
                covered[blk] = (total > 0) @ w
                pairs[blk] = ((total * total - squares) // 2) @ w
            if stop is not None and blk.stop < P and stop():
                R, covered, pairs = R[:blk.stop], covered[:blk.stop], pairs[:blk.stop]
                break
        complexity = R @ self.lengths
        errors = R @ self.errors
        coverage = covered - self.eps * pairs
        return {
            "coverage": coverage,
            "value": coverage,
            "covered": covered,
            "conflicting_pairs": pairs,
            "complexity": complexity,
            "errors": errors,
            "feasible": (complexity <= self.complexity_budget) & (errors <= self.error_limit)
            & pins.keeps_rules(R, self.pinned, self.banned),
        }

    def fitness(self, R: np.ndarray, stop: Callable[[], bool] | None = None) -> np.ndarray:
        """The objective (f* under "coverage") for each row of a P x M selection matrix (or a single
        selection); ``stop`` as in :meth:`evaluate_population` (then of the first rows only)."""
        return self.evaluate_population(R, stop)["value"]

    def evaluate(self, r) -> Evaluation:
        r = np.asarray(r, dtype=bool).ravel()
        m = self.evaluate_population(r[None, :])
        count = int if self.row_weight is None else float
        return Evaluation(
            coverage=float(m["coverage"][0]),
            covered=count(m["covered"][0]),
            conflicting_pairs=count(m["conflicting_pairs"][0]),
            complexity=int(m["complexity"][0]),
            errors=count(m["errors"][0]),
            feasible=bool(m["feasible"][0]),
            n_rules=int(r.sum()),
            n_rows=self.n_rows,
            total_weight=None if self.row_weight is None else self.total_weight,
            value=float(m["value"][0]),
            right=count(m["right"][0]) if "right" in m else None,
            objective=self.objective,
        )

    def state(self, r=None) -> SelectionState:
        """An incremental evaluator starting from selection ``r`` (empty by default) and the pinned rules."""
        return SelectionState(self, r)

    def __repr__(self) -> str:
        weights = "" if self.row_weight is None else f", weight={self.total_weight:g}"
        objective = "" if self.objective == "coverage" else f", objective={self.objective}, fallback={self.fallback}"
        return (
            f"SelectionProblem(N={self.n_rows}, M={self.n_rules}, classes={self.n_classes}, "
            f"Bc={self.complexity_budget}, Be={self.error_budget}, eps={self.eps:g}{weights}{objective})"
        )


#: the cached properties of :class:`SelectionProblem` that depend on the budgets (dropped by ``with_budgets``)
_BUDGET_CACHES = ("fits_alone",)


class SelectionState:
    """One selection with per-row counts, so a flip costs O(rows the rule covers).

    ``right`` (rows right, :mod:`explainer.selection.objectives`) is kept under objective="accuracy"
    only (0 under "coverage"); ``value`` is the objective, what the solvers climb.
    """

    __slots__ = ("problem", "r", "total", "per_class", "covered", "pairs", "complexity", "errors", "right",
                 "_accuracy")

    def __init__(self, problem: SelectionProblem, r=None):
        self.problem = problem
        self.r = np.zeros(problem.n_rules, dtype=bool)
        self.total = np.zeros(problem.n_rows, dtype=np.int32)
        self.per_class = np.zeros((problem.n_rows, problem.n_classes), dtype=np.int32)
        # row counts: ints unweighted, weights of rows (floats) weighted
        self.covered: float = 0
        self.pairs: float = 0
        self.complexity = 0
        self.errors: float = 0
        self._accuracy = problem.objective == "accuracy"
        self.right = objectives.state_right(problem, self.total, self.per_class) if self._accuracy else 0
        if problem.pinned.size:  # every state starts with the pins
            r = problem.pinned_mask if r is None else np.asarray(r, dtype=bool) | problem.pinned_mask
        if r is not None:
            idx = np.flatnonzero(np.asarray(r, dtype=bool))
            if idx.size:
                self._load(idx)

    def _load(self, idx: np.ndarray) -> None:
        """Counts of the selection ``idx`` from scratch (vectorised; equals flipping each rule in turn)."""
        p = self.problem
        N, K = p.n_rows, p.n_classes
        starts = p.indptr[idx]
        lens = p.indptr[idx + 1] - starts
        offs = np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens)
        rows = p.indices[np.repeat(starts, lens) + offs]
        cls = np.repeat(p.rule_class[idx], lens)
        total = np.bincount(rows, minlength=N)
        per_class = np.bincount(rows * K + cls, minlength=N * K).reshape(N, K)
        self.r[idx] = True
        self.total = total.astype(np.int32)
        self.per_class = per_class.astype(np.int32)
        w = p.row_weight
        row_pairs = total * total - (per_class * per_class).sum(axis=1)
        if w is None:
            self.covered = int(np.count_nonzero(total))
            self.pairs = int(row_pairs.sum()) // 2
            self.errors = int(p.errors[idx].sum())
        else:
            self.covered = float((total > 0) @ w)
            self.pairs = float((row_pairs // 2) @ w)
            self.errors = float(p.errors[idx].sum())
        self.complexity = int(p.lengths[idx].sum())
        if self._accuracy:
            self.right = objectives.state_right(p, self.total, self.per_class)

    @property
    def coverage(self) -> float:
        return self.covered - self.problem.eps * self.pairs

    @property
    def value(self) -> float:
        """The problem's objective: f* under "coverage", rows right - eps * conflicting pairs under "accuracy"."""
        if self._accuracy:
            return self.right - self.problem.eps * self.pairs
        return self.coverage

    def delta_value(self, i: int) -> float:
        """The change of :attr:`value` if rule i were flipped."""
        if not self._accuracy:
            return self.delta_coverage(i)
        p = self.problem
        dr, dp = accuracy_delta(i, self.r[i], p.indptr, p.indices, p.rule_class[i], self.total, self.per_class,
                                p.y, p.fallback, p.row_weight)
        return self._count(dr) - p.eps * self._count(dp)

    @property
    def feasible(self) -> bool:
        p = self.problem
        if p.pinned.size and not self.r[p.pinned].all() or p.banned.size and self.r[p.banned].any():
            return False
        return self.complexity <= p.complexity_budget and self.errors <= p.error_limit

    def delta(self, i: int) -> tuple[int, int]:
        """(change in covered rows, change in conflicting pairs) if rule i were flipped (weights of rows
        and of pairs when weighted)."""
        p = self.problem
        dc, dp = rule_delta(i, self.r[i], p.indptr, p.indices, p.rule_class[i], self.total, self.per_class,
                            p.row_weight)
        return self._count(dc), self._count(dp)

    def delta_coverage(self, i: int) -> float:
        dc, dp = self.delta(i)
        return dc - self.problem.eps * dp

    def flip_fits(self, i: int) -> bool:
        """Would flipping rule i keep both budgets (and the pinned rules in, the banned ones out)?"""
        p = self.problem
        if p.pinned_mask[i] if self.r[i] else p.banned_mask[i]:
            return False
        sign = -1 if self.r[i] else 1
        return (
            self.complexity + sign * p.lengths[i] <= p.complexity_budget
            and self.errors + sign * p.errors[i] <= p.error_limit
        )

    def flip(self, i: int) -> None:
        p = self.problem
        selected = self.r[i]
        if self._accuracy:
            self.right += self._count(accuracy_delta(i, selected, p.indptr, p.indices, p.rule_class[i], self.total,
                                                     self.per_class, p.y, p.fallback, p.row_weight)[0])
        dc, dp = flip_rule(i, selected, p.indptr, p.indices, p.rule_class[i], self.total, self.per_class,
                           p.row_weight)
        sign = -1 if selected else 1
        self.r[i] = not selected
        self.account(dc, dp, sign * int(p.lengths[i]), sign * p.errors[i])

    def add_in_order(self, order: np.ndarray) -> int:
        """Add, in ``order``, each rule that keeps both budgets and raises the objective (f* under
        "coverage"); returns the rules checked (those not selected that fit)."""
        p = self.problem
        if self._accuracy:
            checks = 0
            for i in np.asarray(order, dtype=np.int64):
                if self.r[i] or not self.flip_fits(int(i)):
                    continue
                checks += 1
                if self.delta_value(int(i)) > 0:
                    self.flip(int(i))
            return checks
        order = np.asarray(order, dtype=np.int64)
        if p.banned.size:
            order = order[~p.banned_mask[order]]
        checks, *gained = first_fit_adds(
            order, self.r, p.indptr, p.indices, p.rule_class, p.lengths, p.errors,
            *self.slack(), float(p.eps), self.total, self.per_class, p.row_weight,
        )
        self.account(*gained)
        return int(checks)

    def slack(self) -> tuple[int, float]:
        """What is left of the complexity and the error budget (of its limit, with the tolerance, when
        weighted: a float)."""
        p = self.problem
        if p.row_weight is None:
            return int(p.complexity_budget) - self.complexity, int(p.error_budget) - self.errors
        return int(p.complexity_budget) - self.complexity, float(p.error_limit) - self.errors

    def _count(self, x):
        """A row count as the state keeps it: an int unweighted, a float (a weight) weighted."""
        return int(x) if self.problem.row_weight is None else float(x)

    def account(self, covered: int, pairs: int, complexity: int, errors: int) -> None:
        """Add the changes of covered rows, conflicting pairs, complexity and errors of rules flipped in the
        counts (by :meth:`flip` or a compiled loop)."""
        self.covered += self._count(covered)
        self.pairs += self._count(pairs)
        self.complexity += int(complexity)
        self.errors += self._count(errors)

    def copy(self) -> SelectionState:
        new = SelectionState.__new__(SelectionState)
        new.problem = self.problem
        new.r = self.r.copy()
        new.total = self.total.copy()
        new.per_class = self.per_class.copy()
        new.covered = self.covered
        new.pairs = self.pairs
        new.complexity = self.complexity
        new.errors = self.errors
        new.right = self.right
        new._accuracy = self._accuracy
        return new
