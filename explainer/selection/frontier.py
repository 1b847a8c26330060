"""The trade-off frontier: the best coverage at every complexity budget (or error budget).

For a pool, a fixed error budget Be and a range of complexity budgets, the
frontier holds, for each Bc, the best selection found, its coverage and an
upper bound on the optimum, so every point says whether it is proven optimal.
``axis="errors"`` sweeps Be at a fixed Bc instead.

How a point is solved (budgets increasing along the sweep):

* **Carry forward.**  The selection of the previous point keeps both budgets at
  the next one, so it starts the next point: coverage never drops along the
  sweep (the curve is monotone by construction).
* **Local search** from that start (the add / drop / swap / 1-for-2 moves of
  QGA's super-mutation) uses the budget just freed.
* **Exact where it proves fast.**  The MILP, warm-started from that selection,
  runs with a short ``exact_time_limit``.  When it does not prove a point, it
  is skipped for the next 1, 2, 4, ... points (it is tried again later, since
  instances often get easier once the curve flattens); when one call overruns
  its limit twice over (building the model alone is too slow), it is not
  tried again in that sweep.  On a coverage matrix of more than ``EXACT_MAX_NNZ``
  nonzeros it is not tried at all: HiGHS does not keep a short limit there (on a
  census-like table of 32,561 rows, 2.8 M nonzeros, one call given 0.5 s took 11 s
  and proved nothing).
* **QGA otherwise**, at points spaced geometrically (about 1.25x) along the range (only
  where the exact solver did not prove the point), each capped by
  ``qga_time_limit`` (``"auto"``: :func:`qga_time_cap`, growing with the coverage
  matrix's nonzeros, since QGA's first population alone takes about a second to
  evaluate at 32,561 rows), and ended by the first generation that finds nothing
  better (``qga_stall``).  Why: a default run spends its last three generations
  confirming that it has stalled (at 32,561 rows its best came at 5.3 s of 12 s at
  Bc 44); a point gives those seconds to more points instead, which is what brings the
  curve up to the runs between them (``scripts/frontier_vs_runs.py``; the numbers in
  ``docs/benchmarks/frontier_vs_runs.md``).  Its initial population also holds the
  point's start (the previous budget's selection, improved) and the known selections
  that fit (``seeds``), so it starts where a default run would have to climb to; its
  selection is carried forward like any other.
* **Bounds.**  Every point's upper bound is the least of: the rows some usable
  rule covers (no selection can cover more), the exact solver's bound there,
  and the bound of any *larger* budget (the optimum never drops when a budget
  grows).  A point is proven optimal when its coverage reaches its bound, so
  one proof at the end of a plateau proves the whole plateau.

Progress: after each point, ``callback.on_point(point)`` (see
:mod:`explainer.selection.callbacks`); returning ``True`` stops the sweep, which returns
the points computed so far.  A :class:`~explainer.selection.callbacks.StopFlag` in the
callback also stops the solver working on the current point (it then keeps
its best selection so far, so that point is still feasible).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from explainer.selection.problem import Evaluation, SelectionProblem, within_error_budget
from explainer.selection.result import ReadsEvaluation
from explainer.selection.solvers import solve
from explainer.selection.solvers.base import StopRelay, stop_flag_set
from explainer.selection.solvers.local_search import LocalSearch, repair, usable_rules
from explainer.selection.solvers.moves import MoveScorer
from explainer.selection.solvers.operators import distinct_rows
from explainer.selection.solvers.qga import QGA

AXES = ("complexity", "errors")
#: coverage matrices with more nonzeros than this get no exact calls in a sweep (see the module docstring)
EXACT_MAX_NNZ = 1_000_000
#: the QGA points' time cap (``qga_time_limit="auto"``): at least QGA_MIN_S seconds, and QGA_S_PER_NNZ a nonzero
QGA_MIN_S = 0.5
QGA_S_PER_NNZ = 2e-6
_TOL = 1e-6


@dataclass
class FrontierPoint(ReadsEvaluation):
    """The best selection found at one pair of budgets (its metrics read from ``evaluation``)."""

    complexity_budget: int
    error_budget: int
    evaluation: Evaluation  # of ``selection``
    selection: np.ndarray  # (M,) bool
    bound: float  # upper bound on the optimum at these budgets
    proven_optimal: bool
    algorithm: str  # what found the selection: carried, seed, local_search, exact, qga
    time_s: float

    @property
    def rule_indices(self) -> list[int]:
        return [int(i) for i in np.flatnonzero(self.selection)]

    def to_dict(self) -> dict:
        return {
            "complexity_budget": self.complexity_budget,
            "error_budget": self.error_budget,
            **self.evaluation.to_dict(),
            "rules": self.rule_indices,
            "bound": self.bound,
            "proven_optimal": self.proven_optimal,
            "algorithm": self.algorithm,
            "time_s": self.time_s,
        }


@dataclass
class Frontier(Sequence):
    """The points of one sweep, in increasing order of the swept budget."""

    points: list[FrontierPoint]
    axis: str  # "complexity" (Bc swept, Be fixed) or "errors" (Be swept, Bc fixed)
    fixed_budget: int | float  # a weight when the swept Bc's rows are weighted
    n_rows: int
    eps: float
    time_s: float = 0.0
    total_weight: float | None = None  # the rows' total weight when they are weighted (f* of every row covered)
    stopped: bool = False  # the callback asked to stop before the end of the range
    settings: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.points)

    def __getitem__(self, i):
        return self.points[i]

    def __iter__(self):
        return iter(self.points)

    def budget_of(self, point: FrontierPoint) -> int:
        return point.complexity_budget if self.axis == "complexity" else point.error_budget

    @property
    def budgets(self) -> list[int]:
        return [self.budget_of(p) for p in self.points]

    @property
    def max_coverage(self) -> float:
        return max((p.coverage for p in self.points), default=0.0)

    @property
    def n_proven(self) -> int:
        return sum(p.proven_optimal for p in self.points)

    def at(self, budget: int) -> FrontierPoint:
        """The point of a swept budget value."""
        for p in self.points:
            if self.budget_of(p) == budget:
                return p
        raise KeyError(f"no frontier point at {self.axis} budget {budget}")

    def knee(self, tolerance: float = 3.0, reference: float | None = None) -> FrontierPoint | None:
        """The smallest budget whose coverage is within ``tolerance`` percentage points of ``reference``.

        ``reference`` (f*) defaults to the largest coverage on the frontier.
        """
        if not self.points:
            return None
        ref = self.max_coverage if reference is None else float(reference)
        need = ref - tolerance / 100.0 * (self.n_rows if self.total_weight is None else self.total_weight)
        for p in self.points:
            if p.coverage >= need - _TOL:
                return p
        return self.points[-1]

    def to_frame(self) -> pd.DataFrame:
        rows = []
        for p in self.points:
            d = p.to_dict()
            d.pop("rules")
            rows.append(d)
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        return {
            "axis": self.axis,
            "fixed_budget": self.fixed_budget,
            "n_rows": self.n_rows,
            "eps": self.eps,
            "time_s": self.time_s,
            "stopped": self.stopped,
            "n_points": len(self.points),
            "n_proven_optimal": self.n_proven,
            "settings": self.settings,
            "points": [p.to_dict() for p in self.points],
        }

    def to_json(self, **extra) -> str:
        d = self.to_dict()
        d.update(extra)
        return json.dumps(d, indent=2)

    def to_text(self) -> str:
        swept = "Bc" if self.axis == "complexity" else "Be"
        fixed = "Be" if self.axis == "complexity" else "Bc"
        lines = [f"{swept:>5s} {'coverage':>9s} {'f*':>9s} {'bound':>9s} {'rules':>5s} {'compl.':>6s} "
                 f"{'errors':>6s}  {'optimal':7s} found by ({fixed} = {_count(self.fixed_budget)})"]
        for p in self.points:
            lines.append(
                f"{self.budget_of(p):5d} {100 * p.coverage_score:8.2f}% {p.coverage:9g} {p.bound:9g} "
                f"{p.n_rules:5d} {p.complexity:6d} {_count(p.errors):>6s}  {'yes' if p.proven_optimal else 'no':7s} "
                f"{p.algorithm}"
            )
        lines.append(f"{len(self.points)} points, {self.n_proven} proven optimal, {self.time_s:.2f}s"
                     + (" (stopped)" if self.stopped else ""))
        return "\n".join(lines) + "\n"

    def __repr__(self) -> str:
        lo, hi = (self.budgets[0], self.budgets[-1]) if self.points else (None, None)
        return (f"Frontier(axis={self.axis!r}, fixed_budget={self.fixed_budget}, range={lo}..{hi}, "
                f"points={len(self.points)}, proven={self.n_proven}, max coverage={self.max_coverage:g})")


# ------------------------------------------------------------------ helpers
def coverable_rows(problem: SelectionProblem, usable: np.ndarray | None = None) -> float:
    """Rows covered by some usable rule (their weight when weighted): an upper bound on f* (conflicts only
    subtract)."""
    usable = usable_rules(problem) if usable is None else usable
    if not usable.any():
        return 0
    hit = problem.coverage_sparse[:, np.flatnonzero(usable)].getnnz(axis=1) > 0
    if problem.row_weight is not None:
        return float(problem.row_weight[hit].sum())
    return int(np.count_nonzero(hit))


def _count(x) -> str:
    """A count as the frontier's table prints it: an integer as it is, a weight with 4 significant digits."""
    return f"{x:d}" if isinstance(x, (int, np.integer)) else f"{x:.4g}"


def local_search(problem: SelectionProblem, selection, usable: np.ndarray | None = None) -> np.ndarray:
    """Improve a feasible selection by augmenting moves until none applies (QGA's super-mutation)."""
    usable = usable_rules(problem) if usable is None else usable
    state = problem.state(selection)
    LocalSearch(problem, MoveScorer(problem, usable)).run(state)
    return state.r.copy()


def _problem_of(source, eps: float) -> SelectionProblem:
    if isinstance(source, SelectionProblem):
        return source
    if hasattr(source, "coverage") and hasattr(source, "rules"):
        return SelectionProblem.from_pool(source, eps=eps)
    raise TypeError("frontier needs a RulePool or a SelectionProblem")


def default_range(source, axis: str = "complexity") -> tuple[int, int]:
    """1 .. 2 c* (complexity) or 0 .. 2 e* (errors), c* and e* of the pool's reference tree."""
    best = source.best_tree() if hasattr(source, "best_tree") else None
    if best is None:
        raise ValueError("no reference tree to size the range: pass the budget range explicitly")
    if axis == "complexity":
        return 1, max(2, 2 * int(best.complexity))
    return 0, max(1, 2 * int(best.errors))


def qga_time_cap(problem: SelectionProblem) -> float:
    """Seconds for one QGA point of a sweep: enough for the initial population and a few generations.

    A flat 0.5 s ended QGA on large tables before its first generation (its first population alone
    takes about 1 s to evaluate at 32,561 rows, 1.5 M nonzeros); the evaluation grows with the
    coverage matrix's nonzeros, and so does this cap.
    """
    return max(QGA_MIN_S, QGA_S_PER_NNZ * float(problem.indices.size))


class WarmQGA(QGA):
    """QGA whose initial population also holds the selections ``starts`` (those feasible at the budgets).

    A frontier point's QGA starts from its neighbour's selection and the known ones, instead of
    rediscovering them within its short time cap.  Set ``starts`` after construction (the
    parameters stay QGA's own).
    """

    starts: tuple = ()

    def initial_population(self, problem, *args, **kwargs):
        population = super().initial_population(problem, *args, **kwargs)
        starts = [np.asarray(s, dtype=bool).ravel() for s in self.starts]
        starts = [s for s in starts if s.shape == (problem.n_rules,) and problem.evaluate(s).feasible]
        if not starts:
            return population
        both = np.vstack([np.array(starts, dtype=bool), population])
        return both[distinct_rows(both)]


def _geometric_marks(lo: int, hi: int, ratio: float = 1.4) -> set[int]:
    """Budgets spaced about ``ratio`` apart from ``lo`` to ``hi`` (both included)."""
    marks, x = set(), float(max(lo, 1))
    while x <= hi:
        marks.add(int(round(x)))
        x = max(x * ratio, x + 1)
    marks.update({lo, hi})
    return marks


# ------------------------------------------------------------------ the sweep
def frontier(
    source,
    budget: int,
    budget_range: tuple[int, int] | None = None,
    *,
    axis: str = "complexity",
    eps: float = 1.0,
    random_state=0,
    callback=None,
    exact_time_limit: float = 0.5,
    qga_time_limit: float | str = "auto",
    qga_ratio: float = 1.25,
    qga_stall: int | None = 1,
    time_limit: float | None = None,
    seeds=None,
    qga_params: dict | None = None,
    backward: bool = False,
) -> Frontier:
    """The best coverage at every budget of a range, the other budget fixed.

    Parameters
    ----------
    source : a :class:`~explainer.rules.pool.RulePool` or a :class:`SelectionProblem`
        (its own budgets are ignored; a problem keeps its own eps).
    budget : the fixed budget: Be when ``axis="complexity"``, Bc when ``axis="errors"``.
    budget_range : (low, high), both included, of the swept budget; default
        1 .. 2 c* (Bc) or 0 .. 2 e* (Be) from the pool's reference tree.
    axis : ``"complexity"`` (sweep Bc) or ``"errors"`` (sweep Be).
    random_state : seeds the exact solver's and QGA's runs (same seed, same frontier).
    callback : an :class:`explainer.selection.callbacks.Callback`; ``on_point(point)`` after
        each point, returning True stops the sweep.
    exact_time_limit : seconds for the exact solver at one point (0: never use it).
    qga_time_limit : seconds for one QGA run (0: never use it); ``"auto"``: :func:`qga_time_cap` of the problem.
    qga_ratio : QGA runs at budgets about this ratio apart (where exact did not prove the point).
    qga_stall : a QGA point ends after this many generations in a row without a better selection
        (None: never; QGA's own default is 3); ignored when ``qga_params`` is given.
    time_limit : seconds; once the sweep has run this long, the remaining points get only the
        carry-forward and the local search (still feasible and monotone, rarely proven).
    seeds : selections (boolean, one entry per rule) tried at every point where they keep
        both budgets, e.g. a good selection at a large budget; they also join the QGA runs'
        initial populations where they fit.
    qga_params : parameters of the QGA runs instead of ``time_limit=qga_time_limit`` (e.g. a
        fixed number of generations, which makes the sweep independent of the machine's speed
        when the exact solver is off too).
    backward : after the sweep, let larger budgets warm-start smaller ones too (see
        :func:`_backward_pass`); off by default, so the engine's default budgets stay as they were.
    """
    if axis not in AXES:
        raise ValueError(f"axis must be one of {', '.join(AXES)}, got {axis!r}")
    base = _problem_of(source, eps)
    if budget_range is None:
        budget_range = default_range(source, axis)
    lo, hi = (int(v) for v in budget_range)
    if lo < 0 or hi < lo:
        raise ValueError(f"budget range must be 0 <= low <= high, got {lo}..{hi}")
    if int(budget) < 0:
        raise ValueError("budgets must be >= 0")
    if qga_time_limit == "auto":
        qga_time_limit = qga_time_cap(base)
    elif isinstance(qga_time_limit, str) or not float(qga_time_limit) >= 0:
        raise ValueError(f"qga_time_limit must be 'auto' or seconds >= 0, got {qga_time_limit!r}")
    qga_time_limit = float(qga_time_limit)
    if qga_stall is not None and (isinstance(qga_stall, bool) or not isinstance(qga_stall, (int, np.integer))
                                  or qga_stall < 1):
        raise ValueError(f"qga_stall must be a whole number >= 1 or None, got {qga_stall!r}")
    # a fixed error budget of weighted rows is a weight, not rounded
    fixed = float(budget) if axis == "complexity" and base.row_weight is not None else int(budget)
    seed_list = [np.asarray(s, dtype=bool).ravel() for s in (seeds or [])]
    if any(s.shape != (base.n_rules,) for s in seed_list):
        raise ValueError("each seed selection needs one entry per rule")
    sweep = _Sweep(base, axis, fixed, lo, hi, seed_list, callback, random_state, exact_time_limit,
                   qga_ratio, time_limit, _qga_point_params(qga_params, qga_time_limit, qga_stall))
    if callback is not None:
        callback.on_start("frontier", base)
    stopped = sweep.run()
    if backward and not stopped:
        _backward_pass(base, sweep.points, callback)
    _propagate_bounds(sweep.points)
    result = Frontier(
        points=sweep.points, axis=axis, fixed_budget=fixed, n_rows=base.n_rows, eps=base.eps,
        time_s=time.perf_counter() - sweep.t_start, stopped=stopped,
        total_weight=None if base.row_weight is None else base.total_weight,
        settings={"budget_range": [lo, hi], "random_state": random_state, "exact_time_limit": exact_time_limit,
                  "qga_time_limit": qga_time_limit, "qga_ratio": qga_ratio, "qga_stall": qga_stall,
                  "time_limit": time_limit, "qga_params": qga_params},
    )
    if callback is not None:
        callback.on_end(result)
    return result


def _qga_point_params(qga_params: dict | None, qga_time_limit: float, qga_stall: int | None) -> dict | None:
    """The QGA points' parameters: the caller's, else the time cap, the stall and no 1-for-2 moves; None: no QGA
    points.

    Why no 1-for-2 moves: QGA turns them on for populations under 100 individuals (tables over 2 M nonzeros),
    where a lone run needs its climbs to do more of the work; a frontier's point starts from its neighbour's
    selection and the backward pass follows it.  On the census-like table of 32,561 rows (Bc 1..44) the sweep
    took 33.0 s instead of 39.8 s at Be 2,539 and 30.3 s instead of 33.1 s at Be 1,200, every point checked
    against a default run as high or higher (``scripts/frontier_vs_runs.py --one-for-two auto`` against the
    default; the table the spacing was chosen on).  On a 60,000-row one not looked at for it: the same five
    points, 47.3 s instead of 48.8 s.  Below 2 M nonzeros QGA has them off already.
    """
    if qga_params:
        return qga_params
    return {"time_limit": qga_time_limit, "stall": qga_stall, "one_for_two": False} if qga_time_limit > 0 else None


class _Sweep:
    """The state of one sweep along the budget range (see the module docstring for the steps)."""

    def __init__(self, base: SelectionProblem, axis: str, fixed, lo: int, hi: int, seed_list: list, callback,
                 random_state, exact_time_limit: float, qga_ratio: float,
                 time_limit: float | None, qga_params: dict | None):
        """``qga_params``: the QGA points' parameters (None: no QGA points)."""
        self.base, self.axis, self.fixed, self.lo, self.hi = base, axis, fixed, lo, hi
        self.seed_list, self.callback = seed_list, callback
        self.exact_time_limit, self.time_limit = exact_time_limit, time_limit
        self.qga_params = qga_params
        self.rng = np.random.default_rng(random_state)
        self.marks = _geometric_marks(lo, hi, qga_ratio)
        self.t_start = time.perf_counter()
        self.points: list[FrontierPoint] = []
        self.carried = np.zeros(base.n_rules, dtype=bool)
        self.skip, self.backoff = 0, 1  # exact: points left to skip, and the next skip length
        if base.indices.size > EXACT_MAX_NNZ:
            self.skip = hi - lo + 1
        # a stop request (e.g. the dashboard's Stop button) reaches the solver running the current point
        self.relay = StopRelay(lambda: stop_flag_set(callback)) if callback is not None else None
        self.last_usable, self.row_bound = -1, 0.0

    def run(self) -> bool:
        """Every point of the range in turn; True when the callback stopped the sweep early."""
        cb = self.callback
        for b in range(self.lo, self.hi + 1):
            point = self._point(b)
            self.points.append(point)
            self.carried = point.selection  # a carried point's selection is the previous one's
            if cb is not None and getattr(cb, "on_point", None) is not None and cb.on_point(point):
                return b < self.hi
        return False

    def _point(self, b: int) -> FrontierPoint:
        t0 = time.perf_counter()
        bc, be = (b, self.fixed) if self.axis == "complexity" else (self.fixed, b)
        seed = int(self.rng.integers(0, 2**31 - 1))
        problem = self.base.with_budgets(bc, be)
        usable = usable_rules(problem)
        n_usable = int(usable.sum())
        if n_usable != self.last_usable:  # usable rules only grow along the sweep: recount only when they do
            self.row_bound, self.last_usable = float(coverable_rows(self.base, usable)), n_usable
        bound = self.row_bound
        if self.points and self.points[-1].coverage >= bound - _TOL and not self.seed_list:
            # the carried selection already covers every coverable row: nothing to solve
            return _carried_point(self.points[-1], bc, be, bound, time.perf_counter() - t0)
        best, best_f, how = self._start(problem, usable, bound)
        proven = best_f >= bound - _TOL
        late = self.time_limit is not None and time.perf_counter() - self.t_start > self.time_limit
        if not proven and self.exact_time_limit > 0 and self.skip == 0 and not late:
            (best, best_f, how), bound, proven = self._exact(problem, seed, best, best_f, how, bound)
        elif self.skip:
            self.skip -= 1
        if not proven and self.qga_params is not None and b in self.marks and not late:
            res = self._qga(problem, seed, best)
            if res.coverage > best_f + _TOL:
                best, best_f, how = res.selection, res.coverage, "qga"
                # QGA ends at a local optimum of its own moves; the bound may now be met
            proven = best_f >= bound - _TOL
        return FrontierPoint(
            complexity_budget=bc, error_budget=be, evaluation=problem.evaluate(best),
            selection=np.asarray(best, dtype=bool).copy(), bound=float(bound), proven_optimal=bool(proven),
            algorithm=how, time_s=time.perf_counter() - t0,
        )

    def _start(self, problem: SelectionProblem, usable: np.ndarray, bound: float) -> tuple[np.ndarray, float, str]:
        """The carried selection, a better seed, then the local search from the best of them."""
        best, how = self.carried, "carried"
        best_f = problem.evaluate(best).coverage
        for s in self.seed_list:
            ev = problem.evaluate(s)
            if ev.feasible and ev.coverage > best_f + _TOL:
                best, best_f, how = s, ev.coverage, "seed"
        if best_f < bound - _TOL:
            improved = local_search(problem, best, usable)
            f = problem.evaluate(improved).coverage
            if f > best_f + _TOL:
                best, best_f, how = improved, f, "local_search"
        return best, best_f, how

    def _qga(self, problem: SelectionProblem, seed: int, start: np.ndarray):
        """QGA at one point, warm-started from ``start`` (this point's best so far), the previous point's
        selection and the seeds."""
        solver = WarmQGA(**(self.qga_params or {}))
        solver.starts = (start, self.carried, *self.seed_list)
        return solver.solve(problem, random_state=seed, callback=self.relay)

    def _exact(self, problem: SelectionProblem, seed: int, best, best_f: float, how: str, bound: float):
        """The exact solver from ``best``: (selection, f*, how), the bound and whether it is proven;
        the skip length for later points follows how it went."""
        t_exact = time.perf_counter()
        res = solve(problem, "exact", random_state=seed, warm_start=best, time_limit=self.exact_time_limit,
                    callback=self.relay)
        t_exact = time.perf_counter() - t_exact
        bound = min(bound, float(res.info.get("bound", np.inf)))
        if res.coverage > best_f + _TOL:
            best, best_f, how = res.selection, res.coverage, "exact"
        proven = bool(res.info.get("optimal")) or best_f >= bound - _TOL
        if proven:
            self.backoff = 1
        elif t_exact > 2 * self.exact_time_limit:
            self.skip = self.hi - self.lo + 1  # building the model alone outlasts the limit: not an instance for it
        else:
            self.skip, self.backoff = self.backoff, 2 * self.backoff
        return (best, best_f, how), bound, proven


def _carried_point(previous: FrontierPoint, bc: int, be: int, bound: float, elapsed: float) -> FrontierPoint:
    """The previous point's selection at the next budgets (f* does not depend on the budgets)."""
    return FrontierPoint(
        complexity_budget=bc, error_budget=be, evaluation=previous.evaluation, selection=previous.selection,
        bound=bound, proven_optimal=True, algorithm="carried", time_s=elapsed,
    )


def lifted(result: Frontier, known) -> Frontier:
    """``result`` with each point raised to the best known selection that keeps its budgets.

    ``known``: selections measured on the same pool with the same eps, e.g. the points of the
    frontier at a smaller error budget or a finished run's :class:`~explainer.selection.result.SelectionResult`
    (anything with ``selection`` and its ``evaluation``, read through ``coverage``, ``complexity``
    and ``errors``).  f* does not depend on the
    budgets, so no selection is evaluated again.  A selection that fits at some budgets fits at
    every larger one, so the curve stays monotone; no point is lowered; a raised point is proven
    once it reaches its bound.  So a frontier is never below a selection already known.
    """
    known = sorted(known, key=lambda k: -float(k.coverage))
    points = []
    for p in result.points:
        better = next((k for k in known if k.complexity <= p.complexity_budget
                       and within_error_budget(k.errors, p.error_budget, result.total_weight)), None)
        if better is not None and float(better.coverage) > p.coverage + _TOL:
            p = FrontierPoint(
                complexity_budget=p.complexity_budget, error_budget=p.error_budget, evaluation=better.evaluation,
                selection=np.asarray(better.selection, dtype=bool).copy(), bound=p.bound,
                proven_optimal=p.proven_optimal or float(better.coverage) >= p.bound - _TOL, algorithm="known",
                time_s=p.time_s,
            )
        points.append(p)
    return Frontier(points=points, axis=result.axis, fixed_budget=result.fixed_budget, n_rows=result.n_rows,
                    eps=result.eps, time_s=result.time_s, stopped=result.stopped, settings=dict(result.settings),
                    total_weight=result.total_weight)


def _backward_pass(base: SelectionProblem, points: list[FrontierPoint], callback) -> None:
    """Points warm-start each other downwards as well: each point's selection, cut to the next smaller
    budgets (:func:`~explainer.selection.solvers.local_search.repair`) and improved by the local
    search, replaces that point when it covers more; then the selections are carried forward again,
    so the curve stays monotone.  A point is never lowered; a stop request ends the pass.

    Why: on a large table the short exact and QGA runs of the sweep prove little, and a selection
    found at a larger budget, trimmed, often beats what the carry-forward reached from below.
    """
    for k in range(len(points) - 2, -1, -1):
        if callback is not None and stop_flag_set(callback):
            break
        p, above = points[k], points[k + 1]
        problem = base.with_budgets(p.complexity_budget, p.error_budget)
        usable = usable_rules(problem)
        state = problem.state(above.selection)
        repair(state, MoveScorer(problem, usable))
        selection = local_search(problem, state.r, usable)
        if problem.evaluate(selection).coverage > p.coverage + _TOL:
            points[k] = _point_of(problem, selection, p, "backward")
    for k in range(1, len(points)):
        if points[k - 1].coverage > points[k].coverage + _TOL:
            problem = base.with_budgets(points[k].complexity_budget, points[k].error_budget)
            points[k] = _point_of(problem, points[k - 1].selection, points[k], "carried")


def _point_of(problem: SelectionProblem, selection, old: FrontierPoint, how: str) -> FrontierPoint:
    """``old``'s budgets and bound with another (feasible, better) selection."""
    ev = problem.evaluate(selection)
    return FrontierPoint(
        complexity_budget=old.complexity_budget, error_budget=old.error_budget, evaluation=ev,
        selection=np.asarray(selection, dtype=bool).copy(), bound=old.bound,
        proven_optimal=old.proven_optimal or ev.coverage >= old.bound - _TOL, algorithm=how, time_s=old.time_s,
    )


def extended(kept: Frontier, more: Frontier) -> Frontier:
    """One frontier of ``kept`` and ``more``, a sweep of the budgets just beyond ``kept``'s (same axis, fixed
    budget and eps): what a sweep of the whole range gives, without computing ``kept``'s budgets again.  The
    bounds of ``more`` spread back over ``kept``'s points (copies: ``kept`` stays as it is)."""
    if (kept.axis, kept.fixed_budget, kept.eps) != (more.axis, more.fixed_budget, more.eps):
        raise ValueError("a frontier extends only one of the same axis, fixed budget and eps")
    if kept.points and more.points and more.budget_of(more.points[0]) <= kept.budget_of(kept.points[-1]):
        raise ValueError("the budgets of the extension must follow those of the frontier it extends")
    points = [replace(p) for p in kept.points] + list(more.points)
    _propagate_bounds(points)
    lo = kept.settings.get("budget_range", [kept.budgets[0] if kept.points else None])[0]
    hi = more.settings.get("budget_range", [None, more.budgets[-1] if more.points else None])[1]
    return replace(more, points=points, time_s=kept.time_s + more.time_s,
                   settings={**more.settings, "budget_range": [lo, hi]})


def _propagate_bounds(points: list[FrontierPoint]) -> None:
    """A bound at a larger budget bounds every smaller one: proofs spread back along plateaus."""
    running = np.inf
    for p in reversed(points):
        running = min(running, p.bound)
        p.bound = float(running)
        p.proven_optimal = p.proven_optimal or p.coverage >= running - _TOL


__all__ = ["AXES", "Frontier", "FrontierPoint", "WarmQGA", "coverable_rows", "default_range", "extended",
           "frontier", "lifted", "local_search", "qga_time_cap", "usable_rules"]
