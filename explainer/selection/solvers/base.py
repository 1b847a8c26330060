"""The common shape of every selection algorithm.

An algorithm is a small object: parameters in ``__init__``, the search in
``_run(problem, rng, monitor)``.  :meth:`Solver.solve` seeds the generator,
starts the :class:`~explainer.selection.solvers.termination.Termination` (built from the
solver's ``n_generations``, ``time_limit`` and ``stall`` parameters), feeds
progress to the callback, removes dead rules (see :meth:`Solver.solve`) and
packs a :class:`~explainer.selection.result.SelectionResult`.  Same ``random_state``,
same result (unless a time limit ends the run).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from explainer.selection.callbacks import Callback, CallbackList, GenerationRecord
from explainer.selection.pins import check_result
from explainer.selection.problem import SelectionProblem
from explainer.selection.result import FEASIBLE, OK, OVER_BUDGET, STOPPED, SelectionResult
from explainer.selection.solvers.local_search import clean_up
from explainer.selection.solvers.termination import FULL_COVERAGE, TIME_LIMIT, Termination

STOP_REQUEST = "stopped on request"


def stop_flag_set(callback) -> bool:
    """Has a stop flag inside ``callback`` been set?

    A flag is any callback with a true ``is_set`` (a
    :class:`~explainer.selection.callbacks.StopFlag`, :class:`StopRelay`, the dashboard worker's
    reporter), alone or inside a :class:`~explainer.selection.callbacks.CallbackList`.
    """
    if bool(getattr(callback, "is_set", False)):
        return True
    return any(stop_flag_set(c) for c in getattr(callback, "callbacks", ()))


class StopRelay(Callback):
    """A stop flag that reads another run's stop request (``stop()``): for a solver run inside a run."""

    def __init__(self, stop):
        self._stop = stop

    @property
    def is_set(self) -> bool:
        return bool(self._stop())

    def on_generation(self, record):
        return self.is_set


@dataclass
class RunOutcome:
    """What ``_run`` hands back; status/message default to a normal finish."""

    selection: np.ndarray
    status: str = OK
    message: str = ""
    info: dict = field(default_factory=dict)


class Monitor:
    """Records per-generation statistics, tracks the best feasible selection, relays stop requests."""

    def __init__(self, problem: SelectionProblem, callback: Callback | None, name: str, max_generations=None,
                 termination: Termination | None = None):
        self.problem = problem
        self.termination = (termination or Termination(n_generations=max_generations)).start()
        self.stop_reason = ""  # why generation() asked to stop: a Termination reason or STOP_REQUEST
        self.callback = callback if callback is not None else Callback()
        self.name = name
        self.max_generations = max_generations
        self.history: list[GenerationRecord] = []
        # the empty selection, or the pins alone when rules are pinned: what every selection holds
        self.best_selection = problem.pinned_mask.copy()
        self.best_coverage = float(problem.fitness(self.best_selection)[0]) if problem.pinned.size else 0.0
        self.stop_requested = False
        self.evaluations = 0
        self._t0 = time.perf_counter()

    def elapsed(self) -> float:
        return time.perf_counter() - self._t0

    def out_of_time(self) -> bool:
        return self.termination.out_of_time()

    def interrupted(self) -> bool:
        """Should a long step end now: a stop flag in the callback is set, or the time limit has passed?

        Solvers ask this inside a generation (every climb step, before a merge, while a MILP
        solves), so a Stop takes effect at once rather than when the generation ends; a set flag
        counts as a stop request, as if ``on_generation`` had returned True.
        """
        return self.stop_asked() or self.out_of_time()

    def stop_asked(self) -> bool:
        """Is a stop flag in the callback set (the time limit aside)?  For a step that is cut short only on
        request, as the evaluation of QGA's initial population is."""
        if not self.stop_requested and stop_flag_set(self.callback):
            self.stop_requested = True
            self.stop_reason = STOP_REQUEST
        return self.stop_requested

    def offer(self, selection: np.ndarray, coverage: float) -> None:
        """Keep ``selection`` if it is feasible and strictly better than the best so far (and tell the callback,
        ``on_best``)."""
        if coverage > self.best_coverage and self.problem.is_feasible(selection):
            self.best_coverage = float(coverage)
            self.best_selection = np.asarray(selection, dtype=bool).copy()
            self.callback.on_best(self.best_selection, self.best_coverage)

    def generation(self, fitness, population=None, *, diversity: int | None = None, initial: bool = False) -> bool:
        """Report one generation; returns True when the run should stop.

        It stops when the callback asks (``stop_requested``) or the
        termination criteria say so (``stop_reason`` tells which).
        ``initial=True`` reports the starting population as generation 0 (only
        as the first record); later records count 1, 2, ...
        """
        fitness = np.asarray(fitness, dtype=float)
        if population is not None:
            population = np.asarray(population, dtype=bool)
            feas = self.problem.feasible_mask(population)
            if feas.any():
                j = int(np.argmax(np.where(feas, fitness, -np.inf)))
                self.offer(population[j], fitness[j])
            if diversity is None:
                diversity = len(np.unique(np.packbits(population, axis=1), axis=0))
        record = GenerationRecord(
            generation=0 if initial else (self.history[-1].generation + 1 if self.history else 1),
            min=float(fitness.min()) if fitness.size else 0.0,
            mean=float(fitness.mean()) if fitness.size else 0.0,
            max=float(fitness.max()) if fitness.size else 0.0,
            best=self.best_coverage,
            diversity=int(diversity if diversity is not None else fitness.size),
            population=int(fitness.size),
            elapsed_s=self.elapsed(),
            max_generations=self.max_generations,
        )
        self.history.append(record)
        if self.callback.on_generation(record):
            self.stop_requested = True
            self.stop_reason = STOP_REQUEST
            return True
        reason = self.termination.update(record.generation, self.best_coverage, self.problem.total_weight)
        if reason:
            self.stop_reason = reason
            return True
        return self.stop_requested


class Solver:
    """Base class of all selection algorithms.

    ``clean_up``: what :meth:`solve` does to the selection ``_run`` returns -
    ``"full"`` drops dead rules (whose removal leaves f* unchanged or higher)
    and spends the freed budget on augmenting adds, repeatedly; ``"drop"``
    only drops them; ``None`` leaves the selection as it is.
    """

    name = "solver"
    respects_budgets = True
    clean_up: str | None = "full"
    #: the problem objectives (:mod:`explainer.selection.objectives`) the algorithm optimises
    objectives: tuple[str, ...] = ("coverage",)

    def _max_generations(self):
        return getattr(self, "n_generations", None)

    def termination(self) -> Termination:
        """The stopping rules of a run, from the solver's own parameters."""
        return Termination(
            n_generations=self._max_generations(),
            time_limit=getattr(self, "time_limit", None),
            stall=getattr(self, "stall", None),
        )

    def get_params(self) -> dict:
        return {k: v for k, v in vars(self).items() if not k.startswith("_")}

    def solve(self, problem: SelectionProblem, *, random_state=None, callback=None) -> SelectionResult:
        """Run the algorithm on ``problem``: its selection holds the problem's pinned rules and none of its banned
        ones (the algorithm runs on the problem without the banned rules, :mod:`explainer.selection.pins`)."""
        if isinstance(callback, list | tuple):
            callback = CallbackList(callback)
        if problem.objective not in self.objectives:
            raise ValueError(f"the {self.name} algorithm optimises only objective={'/'.join(self.objectives)}, "
                             f"not objective={problem.objective!r}")
        rng = np.random.default_rng(random_state)
        full, (problem, kept) = problem, problem.without_banned()
        monitor = Monitor(problem, callback, self.name, self._max_generations(), self.termination())
        monitor.callback.on_start(self.name, full)
        outcome = self._run(problem, rng, monitor)
        if monitor.stop_requested and outcome.status in (OK, FEASIBLE):
            outcome.status = STOPPED
            outcome.message = outcome.message or "stopped on request; best selection so far"
        elif monitor.stop_reason == TIME_LIMIT and outcome.status == OK:
            outcome.status = STOPPED
            outcome.message = outcome.message or TIME_LIMIT
        elif monitor.stop_reason == FULL_COVERAGE:
            outcome.message = outcome.message or FULL_COVERAGE
        selection = np.asarray(outcome.selection, dtype=bool)
        if self.clean_up and self.respects_budgets:
            selection, outcome.info["cleanup"] = self._clean_up(problem, selection, outcome.info,
                                                                stopped=monitor.stop_requested)
        if kept is not None:  # back to the rules of the problem with its banned rules
            selection = np.isin(np.arange(full.n_rules), kept[selection])
            problem = full
        check_result(self.name, selection, problem.pinned, problem.banned)
        ev = problem.evaluate(selection)
        if not ev.feasible and self.respects_budgets:
            # a budget-respecting algorithm never hands back an infeasible selection
            raise AssertionError(f"{self.name} produced a selection over budget")
        status = outcome.status
        message = outcome.message
        if not ev.feasible and status == OK:
            status = OVER_BUDGET
            message = message or (
                f"ignores the budgets: complexity {ev.complexity}/{problem.budgets[0]}, "
                f"errors {ev.errors}/{problem.budgets[1]}"
            )
        info = {"evaluations": monitor.evaluations, **outcome.info}
        result = SelectionResult(
            algorithm=self.name,
            selection=selection,
            evaluation=ev,
            status=status,
            message=message,
            time_s=monitor.elapsed(),
            history=monitor.history,
            info=info,
            complexity_budget=problem.budgets[0],
            error_budget=problem.budgets[1],
        )
        monitor.callback.on_end(result)
        return result

    def _clean_up(self, problem: SelectionProblem, selection: np.ndarray, info: dict, *, stopped: bool = False):
        """No dead rules; never lowers f*, never breaks a budget (a gap/bound in ``info`` is refreshed).

        A run stopped on request answers at once: its dead rules are dropped but the freed budget is not
        filled (the greedy adds need a move scorer, 0.3 s to set up on 130,000 rows when the run had none).
        """

        before = problem.evaluate(selection).value
        cleaned, stats = clean_up(problem, selection, fill=self.clean_up == "full" and not stopped)
        after = problem.evaluate(cleaned).value
        assert before is not None and after is not None  # an Evaluation's value is set when it is made
        if after < before - 1e-9 or not problem.is_feasible(cleaned):  # pragma: no cover - a bug guard
            raise AssertionError(f"{self.name}: the clean-up lowered f* or broke a budget")
        stats["gain"] = after - before
        bound = info.get("bound")
        if bound is not None and np.isfinite(bound) and "gap" in info:
            info["gap"] = max(0.0, (bound - after) / max(1.0, abs(bound)))
        return cleaned, stats

    def _run(self, problem: SelectionProblem, rng: np.random.Generator, monitor: Monitor) -> RunOutcome:
        raise NotImplementedError

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({params})"
