"""Exact rule selection: the paper's problem as a mixed-integer linear program.

The quadratic conflict term of section 4 is linearised with one variable per
conflicting rule pair.  With r_i (rule chosen), e_g (row group covered) and
z_p (both rules of pair p chosen)::

    maximise   sum_g w_g e_g  -  eps * sum_p Q_p z_p
    subject to e_g <= sum_{i covers g} r_i          (one row per row group)
               z_p >= r_i + r_i' - 1                (one row per pair p = {i, i'})
               sum L_i r_i <= Bc,  sum E_i r_i <= Be
               r binary, 0 <= e, z <= 1

e and z may stay continuous: at an optimum e_g = min(1, sum r) and
z_p = max(0, r_i + r_i' - 1), both integral once r is.

Reductions applied before the model is built (all keep the optimum):

* rules with L_i > Bc, E_i > Be or no covered row are fixed to 0;
* rules with the same class and the same covered rows are interchangeable
  (same conflicts, same errors), and two of them never help; only the
  shortest of each group is kept;
* rows covered by exactly the same kept rules are merged into one e variable
  with weight w_g = number of rows.

Subset dominance (rule a covers a subset of rule b's rows) is *not* used: with
eps > 0 the larger rule can bring conflicts that the smaller one avoids.

Lazy conflicts.  Dropping pair terms only removes penalties, so a model with a
subset of the pairs is a relaxation: its dual bound is a valid upper bound on
f*.  ``lazy_conflicts=True`` starts with the pairs among the warm start's
rules, solves, evaluates the true f* of the solution and, if the model missed
conflicts among its rules, adds every conflicting pair that touches one of
its rules, then repeats.  It stops when the
incumbent reaches the relaxation's bound; if the model's solution has no
missing pair its model value is its true f*, which is then optimal.  Every
bound reported is that of a relaxation, hence valid.

Objective "accuracy" (:mod:`explainer.selection.objectives`): e_g becomes "group g is right"
under the constraints of :mod:`explainer.selection.solvers.milp` (rows grouped by covering rules
and class); the pairs, the lazy conflicts and the reductions are the same.

Backends: ``"highs"`` (``scipy.optimize.milp``, always available) and
``"cpsat"`` (OR-Tools CP-SAT, optional: ``pip install ortools``; it takes the
warm start as a solution hint).  scipy's milp has no MIP start: the warm start
is the fallback incumbent and seeds the lazy pair set.
"""

from __future__ import annotations

import os
import sys
import threading
import time

import numpy as np

from explainer.selection.objectives import OBJECTIVES
from explainer.selection.problem import Evaluation, SelectionProblem
from explainer.selection.result import FEASIBLE, OPTIMAL
from explainer.selection.solvers.base import STOP_REQUEST, Monitor, RunOutcome, Solver, StopRelay
from explainer.selection.solvers.local_search import greedy_fill, move_scorer
from explainer.selection.solvers.milp import (
    _TOL,
    _OutOfTime,
    _reduce,
    _Reduced,
    _round_bound,
    _solve_cpsat,
    _solve_highs,
    _SubResult,
    _TooLarge,
    f_grid,
    model_memory_mb,
)
from explainer.selection.solvers.registry import ALGORITHMS, get_solver
from explainer.selection.solvers.termination import Termination


def greedy_incumbent(problem: SelectionProblem) -> np.ndarray:
    """A quick feasible selection: the better of a gain greedy and a gain/cost greedy.

    Both are :func:`~explainer.selection.solvers.local_search.greedy_fill` from the empty
    selection (the shared engine: per-rule gains from per-row counts).
    """
    scorer = move_scorer(problem)
    best_r, best_f = np.zeros(problem.n_rules, dtype=bool), 0.0
    for use_ratio in (False, True):
        st = problem.state()
        greedy_fill(st, scorer, ratio=use_ratio)
        if st.value > best_f + _TOL:
            best_r, best_f = st.r.copy(), st.value
    return best_r


# ------------------------------------------------------------------ solver
#: How often a HiGHS solve running in its thread is asked whether the run was stopped (seconds).
STOP_POLL_S = 0.05


#: HiGHS solves given up on a stop, finishing in the background (see :func:`exit_now_if_solving`)
_GIVEN_UP: list[threading.Thread] = []


def solves_in_background() -> bool:
    """True while a HiGHS solve given up on a stop still runs in its thread."""
    _GIVEN_UP[:] = [t for t in _GIVEN_UP if t.is_alive()]
    return bool(_GIVEN_UP)


def exit_now_if_solving(status: int) -> None:
    """End the process with ``status`` at once while a given-up HiGHS solve still runs.

    A normal exit tears the solve's C++ state down under its running thread, and the C++
    runtime then aborts the process ("terminate called without an active exception", exit
    status 134) whatever the program's own status.  Output is flushed first.  For the ends
    of whole programs only (the command line, the test run), never inside a library call.
    """
    if solves_in_background():
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(int(status))


def _value(ev: Evaluation) -> float:
    """The objective value of an evaluation (:meth:`SelectionProblem.evaluate` always sets it)."""
    assert ev.value is not None
    return ev.value


class _Progress:
    """What a run reports, with or without a model: incumbent, bound, message, the last model's figures."""

    def __init__(self, incumbent: np.ndarray, value: float):
        self.incumbent = incumbent
        self.inc_value = self.warm_value = value
        self.bound: float = np.inf
        self.K = 0
        self.pa = np.zeros(0, dtype=np.int64)  # pair set of the model, kept numbering
        self.message = ""
        self.proven_model = False
        self.last_model_value: float | None = None
        self.n_vars = self.n_cons = self.iterations = 0

    def forget_model(self) -> None:
        """No model result stands (it could not be built or solved in time)."""
        self.proven_model, self.n_vars, self.n_cons, self.iterations, self.last_model_value = False, 0, 0, 0, None


class _Search(_Progress):
    """The exact solver's state over its rounds, once the model is reduced: its conflict pairs, hint, bound."""

    def __init__(self, problem: SelectionProblem, red: _Reduced, grid: int | None, incumbent: np.ndarray,
                 value: float):
        super().__init__(incumbent, value)
        self.problem, self.eps, self.grid = problem, problem.eps, grid
        self.red, self.K = red, red.n_kept
        # every coverable (right) row, no conflicts
        self.bound = _round_bound(float(red.weights.sum()) + red.constant, grid)
        self.pb = self.pq = np.zeros(0, dtype=np.int64)
        self.in_model: set[tuple[int, int]] = set()
        # a warm start may use rules that the reduction dropped (duplicates): mapping them
        # onto their kept twin is unnecessary for correctness, it only seeds pairs/hints
        self.hint = self.red_view(incumbent)
        self.step = 1.0 / grid if grid else 1e-6  # the smallest f* gain the cutoff asks for

    def red_view(self, r: np.ndarray) -> np.ndarray:
        return r[self.red.kept]

    def full(self, sel_k: np.ndarray) -> np.ndarray:
        r = np.zeros(self.problem.n_rules, dtype=bool)
        r[self.red.kept[sel_k]] = True
        return r

    def set_pairs(self, pa: np.ndarray, pb: np.ndarray, pq: np.ndarray) -> None:
        self.pa, self.pb, self.pq = pa, pb, pq
        self.in_model = set(zip(pa.tolist(), pb.tolist(), strict=True))

    def not_in_model(self, a: np.ndarray, b: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        new = np.array([(i, j) not in self.in_model for i, j in zip(a.tolist(), b.tolist(), strict=True)],
                       dtype=bool)
        return a[new], b[new], q[new]

    def add_pairs(self, a: np.ndarray, b: np.ndarray, q: np.ndarray) -> None:
        a, b, q = self.not_in_model(a, b, q)
        self.pa = np.concatenate([self.pa, a])
        self.pb = np.concatenate([self.pb, b])
        self.pq = np.concatenate([self.pq, q])
        self.in_model.update(zip(a.tolist(), b.tolist(), strict=True))

    def on_solution(self, sel_k: np.ndarray, monitor: Monitor) -> bool:
        """A solution the solver reports while it runs (CP-SAT): kept when it beats the incumbent."""
        r = self.full(sel_k)
        ev = self.problem.evaluate(r)
        if ev.feasible and _value(ev) > self.inc_value + _TOL:
            self.incumbent, self.inc_value = r, _value(ev)
        return monitor.generation(np.array([self.inc_value]), self.incumbent[None, :])


def _until_stopped(solve_model, stop) -> _SubResult:
    """``solve_model()``, ended early (no selection, nothing proven) once ``stop()`` returns True.

    scipy's HiGHS takes no callback, so it runs in a daemon thread (HiGHS releases the
    interpreter lock while it solves) and this thread polls ``stop``.  A solve given up this
    way finishes in the background within its own time and node limits and is discarded; in
    the dashboard's worker process it ends with the process.
    """
    box: list = []
    thread = threading.Thread(target=lambda: box.append(solve_model()), name="explainer-highs", daemon=True)
    thread.start()
    while thread.is_alive():
        thread.join(STOP_POLL_S)
        if thread.is_alive() and stop():
            _GIVEN_UP.append(thread)
            return _SubResult(None, None, np.inf, False, STOP_REQUEST)
    if not box:  # pragma: no cover - _solve_highs catches HiGHS's own failures
        raise RuntimeError("the MILP solve ended without a result")
    return box[0]


class Exact(Solver):
    """Optimal rule selection by mixed-integer programming (HiGHS, or OR-Tools CP-SAT).

    Parameters
    ----------
    time_limit : seconds for the whole run (model building included).
    mip_rel_gap : stop once (bound - f*) / max(1, |bound|) <= this; 0 = prove optimality.
    warm_start : ``"qga"`` (default: the nested GA's selection, or greedy's if better),
        ``"greedy"`` (a quick heuristic), another registered algorithm's name, ``None``,
        or an explicit boolean selection (must be feasible).  It is the incumbent returned when the
        solver finds nothing better in time; CP-SAT also uses it as a solution hint.
    lazy_conflicts : add conflict pairs only when a solution violates them (exact;
        see the module docstring).  ``False`` builds every pair up front.
    backend : ``"highs"`` (scipy) or ``"cpsat"`` (needs ``ortools``).
    workers : CP-SAT search workers (HiGHS ignores it).  With more than one the
        CP-SAT run is not guaranteed to be reproducible.
    max_memory_mb : a model whose estimated size (:func:`model_memory_mb`: ``BYTES_PER_NONZERO`` per
        constraint nonzero, ``BYTES_PER_VARIABLE`` per variable) exceeds this is not built: the run
        returns its warm start, status "feasible", with a message saying so.  None: no limit.
    node_limit : branch-and-bound nodes per HiGHS solve (None: no limit).  Unlike a time limit it
        gives the same result on any machine, which is why QGA's population merge uses it.
    cutoff : HiGHS seeks only selections better than the incumbent (a constraint on the model's
        value, since scipy's HiGHS takes no starting solution); a model left infeasible proves the
        incumbent optimal.  Much faster when the warm start is already optimal or nearly so.
    primal_heuristics : False switches HiGHS's own primal heuristics off (CP-SAT ignores it): with a
        cutoff from a good incumbent they rarely find anything, and on small models they take most of
        the solve (the population merge's setting).

    Time: ``time_limit`` covers the whole run - the warm start (given at most half of it), the
    presolve, every model build (the clock is read while building) and every solve (each gets only
    the time left).  The overshoot is what one step that cannot be interrupted takes after the
    deadline: evaluating a solution, or the solver's own return from its time limit (HiGHS and
    CP-SAT honour it within about a second on the paper's data sets).
    The result is never worse than the warm start: the incumbent starts there and only improves.
    """

    name = "exact"
    objectives = OBJECTIVES

    def __init__(
        self,
        time_limit: float = 60.0,
        mip_rel_gap: float = 0.0,
        warm_start="qga",
        lazy_conflicts: bool = True,
        backend: str = "highs",
        workers: int = 8,
        max_memory_mb: float | None = 4000.0,
        node_limit: int | None = None,
        cutoff: bool = False,
        primal_heuristics: bool = True,
    ):
        if backend not in ("highs", "cpsat"):
            raise ValueError(f"backend must be 'highs' or 'cpsat', got {backend!r}")
        self.time_limit = time_limit
        self.mip_rel_gap = mip_rel_gap
        self.warm_start = warm_start
        self.lazy_conflicts = lazy_conflicts
        self.backend = backend
        self.workers = workers
        self.max_memory_mb = max_memory_mb
        self.node_limit = node_limit
        self.cutoff = cutoff
        self.primal_heuristics = primal_heuristics

    # ------------------------------------------------------------ incumbent
    def _warm_start(self, problem: SelectionProblem, seed: int = 0, stop=None) -> np.ndarray:
        ws = self.warm_start
        if ws is None or ws is False:
            return problem.pinned_mask.copy()  # the empty selection, or the pins alone
        if isinstance(ws, str):
            if ws == "greedy":
                return greedy_incumbent(problem)

            if ws not in ALGORITHMS or ws == self.name:
                raise ValueError(
                    f"warm_start must be 'greedy', another algorithm's name, None or a selection, got {ws!r}"
                )
            # the warm start gets at most half of the run's time; the model gets the rest
            budget = None if self.time_limit is None else 0.5 * float(self.time_limit)
            relay = StopRelay(stop) if stop is not None else None  # a Stop also ends the warm start's run
            heuristic = get_solver(ws, time_limit=budget).solve(problem, random_state=seed, callback=relay)
            greedy = greedy_incumbent(problem)
            better = _value(heuristic.evaluation) >= _value(problem.evaluate(greedy))
            return heuristic.selection if better else greedy
        r = np.asarray(ws, dtype=bool).ravel()
        if r.shape != (problem.n_rules,):
            raise ValueError("warm_start selection needs one entry per rule")
        if not problem.is_feasible(r):
            raise ValueError("warm_start selection is over budget")
        return r

    # ------------------------------------------------------------------ run
    def termination(self) -> Termination:
        # the deadline (warm start and model building included) is the solver's own
        return Termination(full_coverage=False)

    def _check_size(self, red: _Reduced, n_pairs: int) -> None:
        mb = model_memory_mb(int(red.groups.nnz), red.groups.shape[0], red.n_kept, int(n_pairs), len(red.budget_rows))
        if self.max_memory_mb is not None and mb > float(self.max_memory_mb):
            raise _TooLarge(
                f"model too large: about {mb:.0f} MB estimated ({red.n_kept} rules, {red.groups.shape[0]} row "
                f"groups, {int(n_pairs)} conflict pairs) > max_memory_mb={self.max_memory_mb}; "
                "returning the warm start (raise max_memory_mb or shrink the pool)",
                round(mb, 1),
            )

    def _run(self, problem: SelectionProblem, rng: np.random.Generator, monitor: Monitor) -> RunOutcome:
        t0 = time.perf_counter()
        deadline = t0 + (float(self.time_limit) if self.time_limit is not None else 1e9)
        grid = f_grid(problem.eps, problem.row_weight)  # f* on a grid only for whole-number weights
        seed = int(rng.integers(0, 2**31 - 1))
        warm = self._warm_start(problem, seed, monitor.interrupted)
        progress = _Progress(warm, _value(problem.evaluate(warm)))
        stats: dict = {}
        if monitor.interrupted():  # stopped during the warm start: building the model would only delay the answer
            monitor.generation(np.array([progress.inc_value]), warm[None, :])
            progress.message = STOP_REQUEST
            return self._outcome(progress, stats)
        try:
            red, stats = _reduce(problem, deadline)
            s = _Search(problem, red, grid, progress.incumbent, progress.inc_value)
            progress = s
            self._initial_pairs(s)
            if s.inc_value >= s.bound - _TOL:
                # the incumbent covers every coverable row without conflicts: nothing to solve
                monitor.generation(np.array([s.inc_value]), s.incumbent[None, :])
                s.proven_model = True
                return self._outcome(s, stats)
            self._rounds(s, seed, deadline, monitor)
        except _OutOfTime:
            progress.message = "time limit reached while building the model; best selection so far"
            progress.forget_model()
        except _TooLarge as exc:
            progress.message = str(exc)
            progress.forget_model()
            stats["refused_model_mb"] = exc.args[1] if len(exc.args) > 1 else None
        if progress.inc_value < progress.warm_value - _TOL:  # pragma: no cover - the incumbent only ever improves
            raise AssertionError("the exact solver lost its warm start")
        return self._outcome(progress, stats)

    def _initial_pairs(self, s: _Search) -> None:
        """The model's first pair set: the warm start's (lazy), every pair (eager), or none (eps = 0)."""
        red = s.red
        if self.lazy_conflicts and s.eps > 0:
            s.set_pairs(*red.pairs_among(np.flatnonzero(s.hint)))
        elif s.eps > 0:
            per_group = np.diff(red.groups.indptr)
            most = min(red.n_kept * (red.n_kept - 1) // 2, int((per_group * (per_group - 1) // 2).sum()))
            self._check_size(red, most)
            s.set_pairs(*red.all_pairs())

    def _rounds(self, s: _Search, seed: int, deadline: float, monitor: Monitor) -> None:
        """Solve, take the solution, add the conflicts it missed; until proven, out of time or stopped."""
        empty = np.zeros(0, dtype=np.int64)
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                s.message = "time limit reached"
                return
            s.iterations += 1
            self._check_size(s.red, s.pa.size)
            sub = self._solve_model(s, left, seed, deadline, monitor)
            s.n_vars, s.n_cons = sub.n_variables, sub.n_constraints
            sub_bound = _round_bound(sub.bound, s.grid)
            if sub_bound >= s.inc_value - _TOL:  # a bound below a known solution is no bound
                s.bound = min(s.bound, sub_bound)
            sel_k = sub.selection
            missing = self._take_solution(s, sub, sel_k) if sel_k is not None else (empty, empty, empty)
            stop = monitor.generation(np.array([s.inc_value]), s.incumbent[None, :])
            # _finished ends the rounds on a solve without a solution; the test of sel_k only tells the type checker
            if self._finished(s, sub, missing, stop) or sel_k is None:
                return
            # add every pair touching a chosen rule, not only the violated ones: far
            # fewer rounds (measured: 15 -> 4 on a dense random instance)
            s.add_pairs(*s.red.pairs_touching(np.flatnonzero(sel_k)))
            s.hint = s.red_view(s.incumbent)

    def _solve_model(self, s: _Search, left: float, seed: int, deadline: float, monitor: Monitor) -> _SubResult:
        red, pa, pb, pq, hint = s.red, s.pa, s.pb, s.pq, s.hint
        if self.backend != "highs":
            return _solve_cpsat(
                red, pa, pb, pq, s.eps, left, self.mip_rel_gap, hint, self.workers, seed,
                lambda sel_k: s.on_solution(sel_k, monitor), deadline,
            )
        cut = s.inc_value + s.step if self.cutoff else None
        sub = _until_stopped(
            lambda: _solve_highs(red, pa, pb, pq, s.eps, left, self.mip_rel_gap, hint, node_limit=self.node_limit,
                                 cutoff=cut, primal_heuristics=self.primal_heuristics),
            monitor.interrupted)
        if cut is not None and sub.proven and sub.selection is None:
            sub.bound = s.inc_value  # nothing reaches incumbent + one step
        return sub

    def _take_solution(self, s: _Search, sub: _SubResult,
                       sel_k: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Check the model's solution ``sel_k`` against the true f*, keep it when better; the pairs it missed."""
        reported = sub.model_value
        assert reported is not None  # a backend reports a value with every solution
        r = s.full(sel_k)
        ev = s.problem.evaluate(r)
        if not ev.feasible:  # pragma: no cover - would be a modelling bug
            raise AssertionError("the MILP solution breaks a budget")
        true_value = _value(ev)
        model_value = self._model_value(s.red, sel_k, s.pa, s.pb, s.pq, s.eps)
        # e and z set from r can only raise the value of an unfinished solution
        # (CP-SAT may leave e_g = 0 on a covered row); at an optimum they agree
        tol = 1e-4 * max(1.0, abs(model_value))
        if model_value < reported - tol or (
            sub.proven and self.mip_rel_gap == 0 and abs(model_value - reported) > tol
        ):
            raise AssertionError(
                f"rounded MILP solution has value {model_value}, solver reported {reported}"
            )
        missing = s.not_in_model(*s.red.pairs_among(np.flatnonzero(sel_k)))
        # model value minus the penalties it missed is the true f*
        if abs(model_value - s.eps * missing[2].sum() - true_value) > 1e-6 * max(1.0, abs(true_value)):
            raise AssertionError(
                f"model value {model_value} and true objective {true_value} disagree"
            )
        s.last_model_value = model_value
        if true_value > s.inc_value + _TOL or (abs(true_value - s.inc_value) <= _TOL and missing[0].size == 0):
            s.incumbent, s.inc_value = r, true_value
        return missing

    def _finished(self, s: _Search, sub: _SubResult, missing, stop: bool) -> bool:
        """Whether the rounds end after this one (setting the message and the model's proof)."""
        if sub.message and sub.selection is None and not sub.proven:
            s.message = sub.message
        if s.inc_value >= s.bound - _TOL:
            s.proven_model = True
            return True
        if not sub.proven or sub.selection is None:
            s.message = sub.message or s.message
            return True
        if missing[0].size == 0:
            # solved within mip_rel_gap and no pair missing: nothing more to learn
            s.proven_model = sub.proven
            return True
        if stop:
            s.message = "stopped on request"
            return True
        return False

    def _outcome(self, p: _Progress, stats: dict) -> RunOutcome:
        bound = p.bound
        gap = max(0.0, (bound - p.inc_value) / max(1.0, abs(bound))) if np.isfinite(bound) else np.inf
        optimal = bool(p.proven_model and gap <= self.mip_rel_gap + 1e-9)
        status = OPTIMAL if optimal else FEASIBLE
        message = p.message
        if not optimal and not message:
            message = f"optimality not proven, gap {gap:.4g}"
        info = {
            "optimal": optimal,
            "bound": float(bound),
            "gap": float(gap),
            "backend": self.backend,
            "n_variables": int(p.n_vars),
            "n_constraints": int(p.n_cons),
            "n_pairs": int(p.pa.size),
            "n_rules_kept": int(p.K),
            "iterations": p.iterations,
            "model_objective": p.last_model_value,
            **stats,
        }
        return RunOutcome(selection=p.incumbent, status=status, message=message, info=info)

    @staticmethod
    def _model_value(red: _Reduced, sel_k, pa, pb, pq, eps) -> float:
        return float(red.value_of(sel_k, pa, pb, pq, eps))
