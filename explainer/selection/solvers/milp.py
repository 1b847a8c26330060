"""The exact solver's model: presolve, memory estimate and the two MILP backends (HiGHS, CP-SAT).

:func:`_reduce` presolves (see :mod:`explainer.selection.solvers.exact`), :func:`model_memory_mb`
estimates a model's size before it is built, :func:`_solve_highs` and
:func:`_solve_cpsat` build and solve one (possibly relaxed) model.  Building
reads the clock (``deadline``) and raises :class:`_OutOfTime` when it has passed.

Under objective="accuracy" (:mod:`explainer.selection.objectives`) the rows are grouped by their
covering rules *and* their class, the group variable a_g means "the group is right", and the
covering rows become, per group g of class y_g::

    a_g <= sum of the chosen rules of class y_g covering g     (unless y_g is the fallback)
    a_g + r_i <= 1   for every rule i of another class covering g

with the rows no kept rule covers a constant (their weight when their class is the fallback).
The conflict pairs are those of f*, so the lazy-conflict loop of the exact solver is unchanged.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from explainer.selection.problem import SelectionProblem
from explainer.selection.solvers.local_search import usable_rules
from explainer.selection.solvers.native_output import solver_lines_dropped

_TOL = 1e-6
#: rough memory of a model, for the refusal test: bytes per constraint-matrix nonzero and per variable
#: (the solver keeps the matrix row- and column-wise, a presolved copy and its LP factorisation)
BYTES_PER_NONZERO = 400
BYTES_PER_VARIABLE = 300
#: the clock is read every this many iterations of the model-building loops
_CLOCK_EVERY = 2048
#: HiGHS options that switch its primal heuristics off (passed verbatim: scipy's milp accepts them with a
#: warning; a HiGHS too old to know one ignores it).  With a cutoff the heuristics can only find what the
#: cutoff already forbids, and on the population merge's small models they took most of each solve
NO_PRIMAL_HEURISTICS = {
    "mip_heuristic_effort": 0.0,
    "mip_heuristic_run_rens": False,
    "mip_heuristic_run_rins": False,
    "mip_heuristic_run_root_reduced_cost": False,
}


class _OutOfTime(Exception):
    """Raised by the model building when the run's deadline has passed."""


class _TooLarge(Exception):
    """Raised when a model would not fit in ``max_memory_mb``."""


def _check_clock(deadline: float | None, i: int = 0) -> None:
    if deadline is not None and i % _CLOCK_EVERY == 0 and time.perf_counter() >= deadline:
        raise _OutOfTime


def model_memory_mb(n_groups_nnz: int, n_groups: int, n_rules: int, n_pairs: int, n_budget_rows: int) -> float:
    """Estimated memory (MB) of the MILP: e/r rows, pair rows (3 nonzeros each), budget rows."""
    nnz = n_groups_nnz + n_groups + 3 * n_pairs + n_budget_rows * n_rules
    nv = n_rules + n_groups + n_pairs
    return (BYTES_PER_NONZERO * nnz + BYTES_PER_VARIABLE * nv) / 2**20


# --------------------------------------------------------------------- helpers
def _eps_grid(eps: float) -> int | None:
    """q such that every f* value is a multiple of 1/q (None when eps is not a simple fraction)."""
    frac = Fraction(eps).limit_denominator(1000)
    if float(frac) == eps:
        return frac.denominator
    return None


def integral_weights(w: np.ndarray | None) -> bool:
    """Are the row weights whole numbers (or absent)?  Then f* stays on the grid of :func:`_eps_grid`."""
    return w is None or bool(np.all(w == np.round(w)))


def f_grid(eps: float, w: np.ndarray | None) -> int | None:
    """The grid of attainable f* values: :func:`_eps_grid` for whole-number weights, else none."""
    return _eps_grid(eps) if integral_weights(w) else None


def _round_bound(bound: float, grid: int | None) -> float:
    """Round an upper bound down onto the grid of attainable f* values."""
    if grid is None or not np.isfinite(bound):
        return float(bound)
    return float(np.floor(bound * grid + 1e-6) / grid)


# ----------------------------------------------------------------- the model
@dataclass
class _Reduced:
    """The presolved instance: kept rules, row groups and (on demand) conflict pairs."""

    kept: np.ndarray  # indices (into the problem's rules) of the kept rules, K
    cov: sp.csc_matrix  # N x K coverage of the kept rules (float32 0/1)
    groups: sp.csr_matrix  # G x K: rules covering each row group
    weights: np.ndarray  # G: rows in each group (their weight when the rows are weighted)
    lengths: np.ndarray
    errors: np.ndarray
    rule_class: np.ndarray
    budget_rows: list  # [(coefficients, budget)] for the budgets that can bind
    row_weight: np.ndarray | None = None  # N: the problem's row weights (None: unweighted)
    group_class: np.ndarray | None = None  # G: the class of each row group under "accuracy" (None: "coverage")
    fallback: int | None = None  # under "accuracy", the class of uncovered rows
    constant: float = 0.0  # under "accuracy", the weight of the right rows no kept rule covers
    pinned: np.ndarray | None = None  # K bool: the kept rules fixed to 1 (the problem's pins; None: none)

    @property
    def accuracy(self) -> bool:
        return self.group_class is not None

    def accuracy_rows(self) -> tuple[sp.csr_matrix, sp.csr_matrix]:
        """(own, other), both G x K: the rules of each group's class covering it (only for the groups whose
        class is not the fallback: they need one to be right) and the rules of another class covering it."""
        group_class = self.group_class
        if group_class is None:
            raise ValueError("row groups have classes only under objective='accuracy'")
        gr = self.groups.tocoo()
        same = self.rule_class[gr.col] == group_class[gr.row]
        need = group_class[gr.row] != self.fallback
        shape = self.groups.shape
        own = sp.csr_matrix((np.ones(int((same & need).sum())), (gr.row[same & need], gr.col[same & need])), shape=shape)
        other = sp.csr_matrix((np.ones(int((~same).sum())), (gr.row[~same], gr.col[~same])), shape=shape)
        return own, other

    def value_of(self, sel_k: np.ndarray, pa, pb, pq, eps) -> float:
        """The model's objective at the rule choice ``sel_k`` (its best a/e and z), constant included."""
        x = sel_k.astype(float)
        if self.accuracy:
            own, other = self.accuracy_rows()
            need = self.group_class != self.fallback
            good = ((own @ x) > 0) | ~need
            good &= (other @ x) == 0
            base = float(self.weights[good].sum()) + self.constant
        else:
            base = float(self.weights[(self.groups @ x) > 0].sum())
        both = sel_k[pa] & sel_k[pb] if pa.size else np.zeros(0, dtype=bool)
        return base - eps * pq[both].sum()

    @property
    def n_kept(self) -> int:
        return int(self.kept.size)

    def _overlaps(self, left: sp.csc_matrix, right: sp.csc_matrix) -> sp.coo_matrix:
        """left' right: rows covered by both (their weight when weighted, left' diag(w) right)."""
        if self.row_weight is None:
            return (left.T @ right).tocoo()
        return (left.T @ (sp.diags(self.row_weight) @ right)).tocoo()

    def _pair_values(self, data: np.ndarray) -> np.ndarray:
        """Q of the pairs from their overlaps: integer counts unweighted, the weights' sums weighted."""
        return np.rint(data).astype(np.int64) if self.row_weight is None else np.asarray(data, dtype=float)

    def pairs_among(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Conflicting pairs (i < i', in kept numbering) among kept rules ``idx`` and their Q."""
        idx = np.asarray(idx, dtype=np.int64)
        if idx.size < 2:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, empty
        sub = self.cov[:, idx]
        gram = sp.triu(self._overlaps(sub, sub), k=1).tocoo()
        a, b = idx[gram.row], idx[gram.col]
        keep = (self.rule_class[a] != self.rule_class[b]) & (gram.data > 0)
        a, b, q = a[keep], b[keep], self._pair_values(gram.data[keep])
        swap = a > b
        a[swap], b[swap] = b[swap], a[swap]
        return a, b, q

    def pairs_touching(self, idx: np.ndarray):
        """Conflicting pairs between kept rules ``idx`` and every kept rule."""
        idx = np.asarray(idx, dtype=np.int64)
        gram = self._overlaps(self.cov[:, idx], self.cov)
        a, b = idx[gram.row], gram.col.astype(np.int64)
        keep = (self.rule_class[a] != self.rule_class[b]) & (gram.data > 0)
        a, b, q = a[keep], b[keep], self._pair_values(gram.data[keep])
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        key = lo * self.n_kept + hi
        _, first = np.unique(key, return_index=True)
        return lo[first], hi[first], q[first]

    def all_pairs(self):
        return self.pairs_among(np.arange(self.n_kept))


def _reduce(problem: SelectionProblem, deadline: float | None = None,
            merge_duplicates: bool = True) -> tuple[_Reduced, dict]:
    """``merge_duplicates=False`` keeps every twin (same class, same rows): the optimum is the same, but the
    distinct selections the model can express are all of them (what the no-good cuts of
    :mod:`explainer.selection.alternatives` enumerate)."""
    L, E = problem.lengths, problem.errors
    ok = usable_rules(problem)
    stats = {"fixed_zero": int((~ok).sum())}
    # identical (class, rows) -> keep the shortest (lowest index on ties), a pinned rule before any other:
    # it is in every selection, so its duplicates never help
    order = np.lexsort((np.arange(problem.n_rules), L, ~problem.pinned_mask))
    seen: set = set()
    picked: list[int] = []
    for n, i in enumerate(order):
        _check_clock(deadline, n)
        if not ok[i]:
            continue
        key = (int(problem.rule_class[i]), problem.rows_of(int(i)).tobytes())
        # two pinned duplicates are both kept (and fixed)
        if key in seen and merge_duplicates and not problem.pinned_mask[i]:
            continue
        seen.add(key)
        picked.append(int(i))
    kept = np.sort(np.asarray(picked, dtype=np.int64))
    stats["duplicates"] = int(ok.sum()) - int(kept.size)
    cov = problem.coverage_sparse[:, kept].tocsc()
    cov_rows = cov.tocsr()
    cov_rows.sort_indices()
    keys: dict = {}
    weights: list = []
    members: list[np.ndarray] = []
    w = problem.row_weight
    accuracy = problem.objective == "accuracy"
    group_class: list = []
    constant = 0.0
    for j in range(cov_rows.shape[0]):
        _check_clock(deadline, j)
        cols = cov_rows.indices[cov_rows.indptr[j] : cov_rows.indptr[j + 1]]
        wj = 1 if w is None else float(w[j])
        if cols.size == 0:
            if accuracy and problem.y[j] == problem.fallback:
                constant += wj
            continue
        # under "accuracy" rows of different classes are right under different choices: separate groups
        k = (cols.tobytes(), int(problem.y[j])) if accuracy else cols.tobytes()
        g = keys.get(k)
        if g is None:
            keys[k] = len(weights)
            weights.append(wj)
            members.append(cols)
            group_class.append(int(problem.y[j]))
        else:
            weights[g] += wj
    G, K = len(weights), kept.size
    if G:
        indptr = np.concatenate([[0], np.cumsum([m.size for m in members])])
        groups = sp.csr_matrix(
            (np.ones(indptr[-1]), np.concatenate(members), indptr), shape=(G, K)
        )
    else:
        groups = sp.csr_matrix((0, K))
    stats["row_groups"] = G
    lengths, errors = L[kept], E[kept]
    budget_rows = []
    for coef, budget in ((lengths, problem.complexity_budget), (errors, problem.error_limit)):
        if coef.sum() > budget:
            budget_rows.append((coef.astype(float), float(budget)))
    red = _Reduced(
        kept=kept,
        cov=cov,
        groups=groups,
        weights=np.asarray(weights, dtype=float),
        lengths=lengths,
        errors=errors,
        rule_class=problem.rule_class[kept],
        budget_rows=budget_rows,
        row_weight=w,
        pinned=_pinned_kept(problem, kept),
    )
    if accuracy:
        red.group_class = np.asarray(group_class, dtype=np.int64)
        assert problem.fallback is not None  # the problem picks one under "accuracy"
        red.fallback = int(problem.fallback)
        red.constant = float(constant)
    return red, stats


def _pinned_kept(problem: SelectionProblem, kept: np.ndarray) -> np.ndarray | None:
    """Which kept rules are pinned (fixed to 1 in the model), or None when no rule is."""
    if not problem.pinned.size:
        return None
    pinned = problem.pinned_mask[kept]
    if pinned.sum() != problem.pinned.size:  # pragma: no cover - a pin is usable and first among its duplicates
        raise AssertionError("a pinned rule was reduced away")
    return pinned


@dataclass
class _SubResult:
    """One solve of a (possibly relaxed) model."""

    selection: np.ndarray | None  # K bool, None when no solution
    model_value: float | None  # objective reported by the backend
    bound: float  # valid upper bound on the model's optimum (inf if unknown)
    proven: bool  # the backend proved the model solved within its gap
    message: str = ""
    n_variables: int = 0
    n_constraints: int = 0


def _solve_highs(red: _Reduced, pa, pb, pq, eps, time_limit, mip_rel_gap, hint, node_limit=None,
                 cutoff=None, primal_heuristics=True) -> _SubResult:
    """Solve the model with HiGHS; ``cutoff``: only solutions of model value >= it are sought.

    ``primal_heuristics=False`` switches HiGHS's own heuristics off (:data:`NO_PRIMAL_HEURISTICS`).

    scipy's HiGHS takes no starting solution, so a known incumbent is passed as a cutoff instead
    (incumbent + one step of the f* grid): branch and bound then prunes as if it knew it.  An
    infeasible model means nothing beats the incumbent: it comes back proven, with no selection
    (the caller knows the incumbent, hence the bound).
    """
    from scipy.optimize import Bounds, LinearConstraint, milp

    K, G, P = red.n_kept, red.groups.shape[0], pa.size
    nv = K + G + P
    c = np.concatenate([np.zeros(K), -red.weights, eps * pq.astype(float)])
    integrality = np.concatenate([np.ones(K), np.zeros(G + P)])
    # typed as matrices of any format: the stub's hstack reads the first block's format as every block's
    blocks: list[sp.spmatrix] = []
    lbs: list[np.ndarray] = []
    ubs: list[np.ndarray] = []
    if G and red.accuracy:
        own, other = red.accuracy_rows()
        # a_g - sum of the own-class rules <= 0 (groups of the fallback class need none; a group with no
        # rule of its class can never be right, and this row then holds a_g at 0)
        need = np.flatnonzero(red.group_class != red.fallback)
        if need.size:
            blocks.append(sp.hstack([-own[need], sp.identity(G, format="csr")[need], sp.csr_matrix((need.size, P))]))
            lbs.append(np.full(need.size, -np.inf))
            ubs.append(np.zeros(need.size))
        # a_g + r_i <= 1 for every rule of another class covering g
        oc = other.tocoo()
        n_ex = oc.nnz
        if n_ex:
            ar = np.arange(n_ex)
            blocks.append(sp.hstack([sp.csr_matrix((np.ones(n_ex), (ar, oc.col)), shape=(n_ex, K)),
                                     sp.csr_matrix((np.ones(n_ex), (ar, oc.row)), shape=(n_ex, G)),
                                     sp.csr_matrix((n_ex, P))]))
            lbs.append(np.full(n_ex, -np.inf))
            ubs.append(np.ones(n_ex))
    elif G:
        # e_g - sum r_i <= 0
        blocks.append(sp.hstack([-red.groups, sp.identity(G), sp.csr_matrix((G, P))]))
        lbs.append(np.full(G, -np.inf))
        ubs.append(np.zeros(G))
    if P:
        # r_i + r_i' - z_p <= 1
        ar = np.arange(P)
        rr = sp.csr_matrix(
            (np.ones(2 * P), (np.concatenate([ar, ar]), np.concatenate([pa, pb]))), shape=(P, K)
        )
        blocks.append(sp.hstack([rr, sp.csr_matrix((P, G)), -sp.identity(P)]))
        lbs.append(np.full(P, -np.inf))
        ubs.append(np.ones(P))
    for coef, budget in red.budget_rows:
        blocks.append(sp.csr_matrix(np.concatenate([coef, np.zeros(G + P)])[None, :]))
        lbs.append(np.array([-np.inf]))
        ubs.append(np.array([budget]))
    if cutoff is not None:
        # -c'x >= cutoff: the model value must reach the cutoff
        blocks.append(sp.csr_matrix(-c[None, :]))
        lbs.append(np.array([float(cutoff) - red.constant]))
        ubs.append(np.array([np.inf]))
    constraints = []
    n_cons = 0
    if blocks:
        A = sp.vstack(blocks).tocsr()
        n_cons = A.shape[0]
        constraints = [LinearConstraint(A, np.concatenate(lbs), np.concatenate(ubs))]
    # "disp" only stops HiGHS's console log; its output flag stops the rest of what it writes (a few
    # lines it prints with printf regardless are dropped by solver_lines_dropped)
    options = {"disp": False, "output_flag": False, "time_limit": max(float(time_limit), 0.01),
               "mip_rel_gap": mip_rel_gap}
    if node_limit is not None:
        options["node_limit"] = int(node_limit)
    if not primal_heuristics:
        options.update(NO_PRIMAL_HEURISTICS)
    try:
        with warnings.catch_warnings():
            # scipy warns that the options beyond its own five go to HiGHS verbatim (that is the intent), and
            # an older HiGHS that does not know one warns and ignores it
            warnings.filterwarnings("ignore", message="Unrecognized options detected")
            # the stub's options name scipy's own five only; the HiGHS ones go through verbatim (see above)
            with solver_lines_dropped():  # the lines HiGHS prints whatever its options say
                res = milp(c, integrality=integrality, bounds=Bounds(_lower_bounds(red, nv), 1),
                           constraints=constraints, options=options)  # type: ignore[arg-type]
    except Exception as exc:  # pragma: no cover - defensive: a HiGHS crash must not lose the incumbent
        return _SubResult(None, None, np.inf, False, f"HiGHS failed: {exc}", nv, n_cons)
    bound = np.inf
    dual = getattr(res, "mip_dual_bound", None)
    if dual is not None and np.isfinite(dual):
        bound = -float(dual) + red.constant
    sel = None
    value = None
    if res.x is not None:
        sel = res.x[:K] > 0.5
        value = -float(res.fun) + red.constant
        if res.status == 0 and not np.isfinite(bound):
            bound = value
    proven = res.status == 0
    if cutoff is not None and res.status == 2:  # infeasible: nothing reaches the cutoff
        return _SubResult(None, None, -np.inf, True, "", nv, n_cons)
    msg = "" if proven else f"HiGHS: {res.message}"
    return _SubResult(sel, value, bound, proven, msg, nv, n_cons)


def _lower_bounds(red: _Reduced, nv: int) -> np.ndarray:
    """0 for every variable, 1 for the pinned rules' (the first K variables are the rules')."""
    lb = np.zeros(nv)
    if red.pinned is not None:
        lb[: red.n_kept][red.pinned] = 1.0
    return lb


def _solve_cpsat(red, pa, pb, pq, eps, time_limit, mip_rel_gap, hint, workers, seed, on_solution, deadline=None):
    try:
        from ortools.sat.python import cp_model
    except ImportError as exc:
        raise ImportError(
            "backend='cpsat' needs OR-Tools: pip install ortools (or use backend='highs')"
        ) from exc
    grid = _eps_grid(eps)
    if grid is None:
        raise ValueError(f"backend='cpsat' needs eps with a small rational denominator, got {eps!r}")
    if not integral_weights(red.row_weight):
        raise ValueError("backend='cpsat' needs whole-number row weights (use backend='highs')")
    K, G, P = red.n_kept, red.groups.shape[0], pa.size
    w_e = np.rint(red.weights * grid).astype(np.int64)
    w_z = np.rint(pq * eps * grid).astype(np.int64)
    m = cp_model.CpModel()
    r = [m.new_bool_var(f"r{i}") for i in range(K)]
    e = [m.new_bool_var(f"e{g}") for g in range(G)]
    z = [m.new_bool_var(f"z{p}") for p in range(P)]
    gi = red.groups
    if red.accuracy:
        own, other = red.accuracy_rows()
        for g in range(G):
            _check_clock(deadline, g)
            if red.group_class[g] != red.fallback:  # right only with a rule of its class (none: never)
                m.add_bool_or([r[int(i)] for i in own.indices[own.indptr[g] : own.indptr[g + 1]]]).OnlyEnforceIf(e[g])
            for i in other.indices[other.indptr[g] : other.indptr[g + 1]]:
                m.add_implication(e[g], r[int(i)].Not())
    for g in range(0 if red.accuracy else G):
        _check_clock(deadline, g)
        cols = gi.indices[gi.indptr[g] : gi.indptr[g + 1]]
        m.add_bool_or([r[int(i)] for i in cols]).OnlyEnforceIf(e[g])
    for p in range(P):
        _check_clock(deadline, p)
        m.add_bool_or([r[int(pa[p])].Not(), r[int(pb[p])].Not(), z[p]])
    for i in np.flatnonzero(red.pinned) if red.pinned is not None else ():
        m.add(r[int(i)] == 1)
    for coef, budget in red.budget_rows:
        m.add(sum(int(cf) * r[i] for i, cf in enumerate(coef) if cf) <= int(budget))
    m.maximize(sum(int(w) * e[g] for g, w in enumerate(w_e)) - sum(int(w) * z[p] for p, w in enumerate(w_z)))
    if hint is not None:
        for i in range(K):
            m.add_hint(r[i], bool(hint[i]))
    solver = cp_model.CpSolver()
    left = time_limit if deadline is None else min(time_limit, deadline - time.perf_counter())
    if left <= 0:
        raise _OutOfTime
    solver.parameters.max_time_in_seconds = max(float(left), 0.01)
    solver.parameters.num_workers = int(workers)
    solver.parameters.random_seed = int(seed)
    solver.parameters.relative_gap_limit = float(mip_rel_gap)

    class _CB(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self):
            sel = np.array([self.Value(v) for v in r], dtype=bool)
            if on_solution(sel):
                self.StopSearch()

    status = solver.Solve(m, _CB())
    nv, nc = K + G + P, G + P + len(red.budget_rows)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        sel = np.array([solver.Value(v) for v in r], dtype=bool)
        value = solver.ObjectiveValue() / grid + red.constant
        bound = solver.BestObjectiveBound() / grid + red.constant
        proven = status == cp_model.OPTIMAL
        return _SubResult(sel, value, bound, proven, "" if proven else "CP-SAT: time limit", nv, nc)
    # without a solution CP-SAT's bound may be a placeholder (0): do not trust it
    return _SubResult(None, None, np.inf, False, f"CP-SAT: {solver.StatusName(status)}", nv, nc)
