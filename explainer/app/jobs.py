"""Selection runs and frontier sweeps in a worker process, watched from the page.

A :class:`RunJob` (selection runs, one task after the other) or a
:class:`FrontierJob` (a trade-off frontier) starts one child process
(:func:`.worker.run`) with its typed request.  The solver then runs at full
speed on a core of its own: the page's redraws happen in the Streamlit server,
which no longer shares an interpreter lock with the solver.  Messages come
back through a queue, drained by a small thread into what the page reads;
Stop sets an event the solver polls inside its long steps, so it returns its
best selection so far.

At most :data:`MAX_RUNNING` jobs compute at once (one per core); later ones wait
in line, and say so.  A job whose page has gone (``alive()`` false for
:data:`ORPHAN_GRACE_S`) is stopped.  Never imports Streamlit.
"""

from __future__ import annotations

import multiprocessing
import os
import queue as queue_module
import threading
import time
from collections.abc import Callable
from multiprocessing import spawn
from typing import TYPE_CHECKING

from explainer.app import lifeline, worker
from explainer.app.text import label
from explainer.app.worker import (
    BestSoFar,
    Ended,
    Explained,
    Failed,
    FrontierFound,
    FrontierRequest,
    PointFound,
    Records,
    RunRequest,
    TaskStarted,
)
from explainer.pipeline import Explanation
from explainer.report.figures import FITNESS_NAMES
from explainer.selection.frontier import Frontier, extended
from explainer.selection.settings import RunSettings

if TYPE_CHECKING:  # the fork server's context exists only where there is fork
    from multiprocessing.context import ForkServerContext, SpawnContext
    from multiprocessing.process import BaseProcess

#: After Stop, a run gets this long to return its best selection before its process is ended
#: (the solvers poll the stop flag inside their long steps, so this is a safety net).
STOP_GRACE_S = 5.0
#: Jobs computing at once: one per core; later ones wait for a free core.
MAX_RUNNING = max(1, os.cpu_count() or 1)
#: A job whose page has been gone this long is stopped.  A page switch keeps the session (and
#: ``alive()`` true); a dropped connection makes the session inactive until the browser reconnects,
#: which it tries at once: a reconnect within this grace keeps the job.  With the reader's checks
#: every POLL_S, a closed page's job is stopped within 2 s.
ORPHAN_GRACE_S = 1.5
#: How often the reader polls the queue (and the page's presence, and the line of waiting jobs).
POLL_S = 0.2

_context_lock = threading.Lock()
_context: ForkServerContext | SpawnContext | None = None
_starting = threading.local()


def _preparation_data(name, _original=spawn.get_preparation_data):
    """What a new process is told about its parent, minus the main script while a job starts.

    Streamlit runs each page as module ``__main__`` with ``__file__`` set to the page, and
    multiprocessing would re-run that page in the child before calling the worker.  The worker
    needs nothing from it (its entry point is :func:`.worker.run`), so a job's process skips it.
    The fork server instead runs :mod:`.lifeline` as its main module (``main_path``, read by
    the fork server only), before it imports anything else.
    """
    data = _original(name)
    if getattr(_starting, "job", False):
        data.pop("init_main_from_path", None)
        data.pop("init_main_from_name", None)
        data["main_path"] = lifeline.__file__
    return data


def mp_context() -> ForkServerContext | SpawnContext:
    """The process start method: a fork server that has imported the solvers once, so a job starts fast.

    ``fork`` from the multi-threaded Streamlit server is unsafe; ``spawn`` would import numpy,
    scikit-learn and the solvers again for every run.  The fork server and the workers learn this
    process's pid from the environment, to end with it (see :mod:`.lifeline`).
    """
    global _context
    with _context_lock:
        if _context is None:
            os.environ[lifeline.SERVER_PID_ENV] = str(os.getpid())
            methods = multiprocessing.get_all_start_methods()
            ctx: ForkServerContext | SpawnContext
            if "forkserver" in methods:
                ctx = multiprocessing.get_context("forkserver")
                ctx.set_forkserver_preload(["__main__", "explainer.app.worker", "explainer.app.preload"])
            else:
                ctx = multiprocessing.get_context("spawn")
            spawn.get_preparation_data = _preparation_data
            _context = ctx
        return _context


def start_fork_server() -> None:
    """Start the fork server (and its imports) ahead of the first run."""
    ctx = mp_context()
    if ctx.get_start_method() == "forkserver":
        from multiprocessing import forkserver

        _starting.job = True
        try:
            forkserver.ensure_running()
        finally:
            _starting.job = False


class _Line:
    """The jobs computing now (at most ``MAX_RUNNING``) and the jobs waiting for a core, first come first served."""

    def __init__(self, capacity: int):
        self.capacity = capacity
        self.running: list[Job] = []
        self.waiting: list[Job] = []
        self._lock = threading.Lock()

    def join(self, job: Job) -> None:
        with self._lock:
            self.waiting.append(job)

    def try_start(self, job: Job) -> bool:
        """Move ``job`` from the line to the running jobs if a core is free and it is next; True if it moved."""
        with self._lock:
            if job in self.running:
                return True
            if len(self.running) < self.capacity and self.waiting and self.waiting[0] is job:
                self.waiting.pop(0)
                self.running.append(job)
                return True
            return False

    def ahead_of(self, job: Job) -> int | None:
        """Jobs waiting before ``job`` (None once it runs or has left the line)."""
        with self._lock:
            return self.waiting.index(job) if job in self.waiting else None

    def leave(self, job: Job) -> None:
        with self._lock:
            if job in self.waiting:
                self.waiting.remove(job)
            if job in self.running:
                self.running.remove(job)


#: The one line of this server (every session's jobs share the cores).
LINE = _Line(MAX_RUNNING)


class Job:
    """What every job shares: its worker process, its line for a core, the message reader, Stop.

    Read :attr:`version` (grows with every batch of news), :attr:`done`, :attr:`errors`;
    :meth:`stop` ends the current computation cleanly (the solver returns its best so far).
    ``alive()`` (optional) says whether the page that started the job is still there.
    """

    #: the worker's entry point (a module-level function: the fork server imports it by name)
    target = staticmethod(worker.run)

    def __init__(self, request: RunRequest | FrontierRequest, n_tasks: int, *,
                 alive: Callable[[], bool] | None = None, line: _Line | None = None):
        self._request: RunRequest | FrontierRequest | None = request
        self._alive = alive
        self._line = LINE if line is None else line
        self._lock = threading.Lock()
        self._news = threading.Condition(self._lock)
        self.version = 0
        self.errors: list[str | None] = [None] * n_tasks
        self.current = 0
        self.started_at = time.perf_counter()
        self.finished_at: float | None = None
        self.stop_requested_at: float | None = None
        self.collected = False
        ctx = mp_context()
        self._queue = ctx.Queue()
        self._stop = ctx.Event()
        self._process: BaseProcess | None = None
        self._ended = False  # the worker's "end" message arrived
        self._began = False  # a message from the worker arrived (a run's first says it started a task)
        self._reader = threading.Thread(target=self._read, name="explainer-job-reader", daemon=True)

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> Job:
        """Queue the job for a core; it starts as soon as one is free (at once, usually)."""
        self.started_at = time.perf_counter()
        self._line.join(self)
        self._reader.start()
        return self

    def _launch(self) -> None:
        ctx = mp_context()
        self.started_at = time.perf_counter()
        process = ctx.Process(target=self.target, args=(self._request, self._queue, self._stop),
                              name="explainer-worker", daemon=True)
        self._process = process
        _starting.job = True
        try:
            process.start()
        finally:
            _starting.job = False
        self._request = None  # sent; the page keeps only what it shows
        with self._news:
            self.version += 1
            self._news.notify_all()

    def _read(self) -> None:
        """Wait for a core, start the worker, drain its queue (this thread never touches Streamlit)."""
        try:
            if self._wait_for_core():
                self._launch()
                self._drain()
        except Exception as exc:  # e.g. the process could not be started: said on the page, never raised
            self._fail_running(f"the worker could not run ({type(exc).__name__}: {exc})")
        finally:
            self._line.leave(self)
            with self._news:
                if self.finished_at is None:  # else it ended when stopped before it began
                    self.finished_at = time.perf_counter()
                self.version += 1
                self._news.notify_all()
            if self._process is not None:
                self._process.join(timeout=5)

    def _wait_for_core(self) -> bool:
        """Block until this job may start; False when it was stopped (or its page left) while waiting."""
        gone_since = None
        while not self._line.try_start(self):
            if self._stop.is_set():
                return False
            gone_since = self._orphan_check(gone_since)
            time.sleep(POLL_S)
        return not self._stop.is_set()

    def _orphan_check(self, gone_since: float | None) -> float | None:
        """Stop the job once its page has been gone for ORPHAN_GRACE_S; returns since when it is gone."""
        if self._alive is None or self._alive():
            return None
        now = time.perf_counter()
        if gone_since is None:
            return now
        if now - gone_since >= ORPHAN_GRACE_S:
            self.stop()
        return gone_since

    def _worker(self) -> BaseProcess:
        if self._process is None:
            raise RuntimeError("the worker process has not been started")
        return self._process

    def _drain(self) -> None:
        gone_since, checked = None, time.perf_counter()
        while True:
            try:
                message = self._queue.get(timeout=POLL_S)
            except queue_module.Empty:
                if not self._worker().is_alive():
                    # the worker may have put its last messages just before it ended: read them all first
                    self._drain_after_exit()
                    return
                message = None
            if message is not None and self._handle(message):
                return
            now = time.perf_counter()
            if now - checked < POLL_S:  # a busy queue (records every 0.1 s) must not delay these checks
                continue
            checked = now
            gone_since = self._orphan_check(gone_since)
            if self.stop_requested_at is not None and now - self.stop_requested_at > STOP_GRACE_S:
                self._worker().terminate()
                self._fail_running(f"stopped; no selection was returned within {STOP_GRACE_S:g} s")
                return

    def _drain_after_exit(self) -> None:
        """Everything the ended worker left in the queue; an error only if its "end" never came."""
        while True:
            try:
                message = self._queue.get(timeout=POLL_S)
            except queue_module.Empty:
                break
            if self._handle(message):
                return
        code = self._worker().exitcode
        self._fail_running("the worker process ended unexpectedly" + (f" (exit status {code})" if code else ""))

    def _handle(self, message) -> bool:
        """Take one reply in; True for the last one."""
        with self._news:
            self._began = True
            match message:
                case TaskStarted(task=i):
                    self.current = i
                case Failed(task=i, message=why):
                    self.errors[i] = why
                case Ended():
                    self._ended = True
                case _:
                    self._take(message)
            self.version += 1
            self._news.notify_all()
        return isinstance(message, Ended)

    def _take(self, message) -> None:
        """A reply only this kind of job gets (called with the lock held)."""
        raise NotImplementedError

    def _has_answer(self, i: int) -> bool:
        return self.errors[i] is not None

    def _fail_running(self, why: str) -> None:
        i = self.current
        if not self._has_answer(i):
            self.errors[i] = f"{self.title(i)}: {why}."

    def title(self, i: int) -> str:
        raise NotImplementedError

    def wait_for_news(self, timeout: float, since: int | None = None) -> bool:
        """Block up to ``timeout`` s until :attr:`version` passes ``since`` (default: now); True if it did."""
        with self._news:
            base = self.version if since is None else since
            return self._news.wait_for(lambda: self.version > base or self.finished_at is not None, timeout)

    def wait_for_end(self, timeout: float) -> bool:
        """Block up to ``timeout`` s until the job ends; True if it has."""
        with self._news:
            return self._news.wait_for(lambda: self.finished_at is not None, timeout)

    def adopt(self, alive: Callable[[], bool] | None) -> None:
        """Another page watches the job from now on (a reload of the page that started it): its presence, not
        the gone page's, keeps the job from being stopped as an orphan."""
        self._alive = alive

    def stop(self) -> None:
        if self.stop_requested_at is None:
            self.stop_requested_at = time.perf_counter()
        self._stop.set()
        with self._news:
            if not self._began and self.finished_at is None:
                # nothing computed yet, nothing to wait for: the job ends now, while its worker may still be
                # receiving the request (seconds at 130,000 rows); it sees the stop and ends without computing
                self.finished_at = time.perf_counter()
                self.version += 1
                self._news.notify_all()

    def join(self, timeout: float | None = None) -> None:
        if self._reader.is_alive():
            self._reader.join(timeout)

    # ------------------------------------------------------------------ what the page reads
    @property
    def done(self) -> bool:
        return self.finished_at is not None

    @property
    def stopped(self) -> bool:
        return self.stop_requested_at is not None

    @property
    def waiting(self) -> int | None:
        """Jobs ahead of this one in the line for a core (None once it runs)."""
        return None if self.done else self._line.ahead_of(self)

    @property
    def elapsed(self) -> float:
        """Seconds since the start, from the page's own clock (moves even while the solver is silent)."""
        end = self.finished_at if self.finished_at is not None else time.perf_counter()
        return end - self.started_at

    def waiting_text(self) -> str | None:
        """What the page says while the job waits for a core, else None."""
        ahead = self.waiting
        if ahead is None:
            return None
        n = self._line.capacity
        others = f"{ahead} more waiting before it" if ahead else "it is next"
        return (f"Waiting for a free core: {n} computation{'s' if n > 1 else ''} already running on this "
                f"server ({others}) · {self.elapsed:.0f} s")


class RunJob(Job):
    """One or more selection runs on the same pool, budgets, eps and class weights, in a worker process.

    ``runs``: the :class:`~explainer.selection.settings.RunSettings` of each run (one value for a single
    run), sent to the worker as they are; they may differ only in algorithm, parameters and seed.
    Besides :class:`Job`'s: :meth:`records` (the running task's generations so far),
    :attr:`explanations`; :meth:`stop` ends the current run (best selection so far) and skips the rest.
    """

    def __init__(self, pool, dataset, runs: RunSettings | list[RunSettings], *, holdout: tuple | None = None,
                 alive: Callable[[], bool] | None = None, line: _Line | None = None):
        self.runs = (runs,) if isinstance(runs, RunSettings) else tuple(runs)
        if not self.runs or not all(isinstance(r, RunSettings) for r in self.runs):
            raise ValueError("a run job needs one or more RunSettings")
        shared = {_shared(r) for r in self.runs}
        if len(shared) > 1:
            raise ValueError("the runs of a job share their budgets, eps, form and class weights")
        self.pool = pool
        self.dataset = dataset
        self.n_rows = dataset.n_rows
        X_test, y_test = holdout if holdout is not None else (None, None)
        request = RunRequest(pool=pool, X=dataset.X, y=dataset.y, fingerprint=dataset.fingerprint, runs=self.runs,
                             X_test=X_test, y_test=y_test, target=dataset.target)
        super().__init__(request, len(self.runs), alive=alive, line=line)
        self._records: list[list] = [[] for _ in self.runs]
        self._best: list[tuple[int, ...] | None] = [None] * len(self.runs)
        #: the page's figures of the latest best selection it drew (rules -> accuracy, balanced, fallback)
        self.scored: dict[tuple[int, ...], tuple] = {}
        self.explanations: list[Explanation | None] = [None] * len(self.runs)

    # what every run shares, read from the settings (never kept twice)
    @property
    def settings(self) -> RunSettings:
        """The first run's settings (the only run's, on the Explain page)."""
        return self.runs[0]

    @property
    def tasks(self) -> tuple[RunSettings, ...]:
        """The runs in order (each has ``algorithm`` and ``seed``)."""
        return self.runs

    @property
    def complexity_budget(self):
        return self.settings.complexity_budget

    @property
    def error_budget(self):
        return self.settings.error_budget

    @property
    def eps(self) -> float:
        return self.settings.eps

    @property
    def class_weight(self):
        return self.settings.class_weight

    def _take(self, message):
        match message:
            case Records(task=i, records=records):
                self._records[i].extend(records)
            case BestSoFar(task=i, rules=rules):
                self._best[i] = rules
            case Explained(task=i, explanation=explanation):
                explanation.pool = self.pool
                self.explanations[i] = explanation

    def _has_answer(self, i):
        return self.explanations[i] is not None or self.errors[i] is not None

    def title(self, i):
        return label(self.tasks[i].algorithm)

    def best_so_far(self, i: int | None = None) -> tuple[int, ...] | None:
        """Pool indices of the rules of the running task's (or task ``i``'s) best selection so far, None
        before the first."""
        with self._lock:
            return self._best[self.current if i is None else i]

    def records(self, i: int | None = None) -> list:
        with self._lock:
            return list(self._records[self.current if i is None else i])

    def progress(self) -> float:
        """Fraction done: tasks finished plus the running task's generations."""
        if self.done:
            return 1.0
        recs = self.records()
        frac = 0.0
        if recs and recs[-1].max_generations:
            frac = min(1.0, (recs[-1].generation + 1) / (recs[-1].max_generations + 1))
        return min(1.0, (self.current + frac) / len(self.tasks))

    def status_text(self) -> str:
        """One line for the progress bar: algorithm, generation, best so far, elapsed time."""
        waiting = self.waiting_text()
        if waiting is not None:
            return waiting
        name = label(self.tasks[self.current].algorithm)
        prefix = f"Run {self.current + 1} of {len(self.tasks)}: " if len(self.tasks) > 1 else ""
        # the clock runs from Run (all), not from this run's start: said so when there are several runs
        clock = f"{self.elapsed:.1f} s" + (" in all" if len(self.tasks) > 1 else "")
        recs = self.records()
        if recs:
            last = recs[-1]
            gen = f"{last.generation}/{last.max_generations}" if last.max_generations else f"{last.generation}"
            what = FITNESS_NAMES[self.tasks[self.current].objective]  # as the fitness chart's axis says it
            best = f" · best {what} {100 * last.best / self.n_rows:.2f}%" if self.n_rows else ""
            text = f"{prefix}{name}: generation {gen}{best} · {clock}"
        else:
            text = f"{prefix}{name}: starting… {clock}"
        if self.stopped and not self.done:
            text += " · stopping"
        return text


class FrontierJob(Job):
    """The trade-off frontier over ``budget_range`` (Bc) at ``error_budget``, point by point.

    Besides :class:`Job`'s: :meth:`frontier_points` (so far), :attr:`frontier` (the finished
    :class:`~explainer.selection.frontier.Frontier`).  ``seeds``: selections already known
    (a run's, a frontier's at a smaller Be), tried at every point where they fit.  ``before``: a finished
    frontier of the budgets just below ``budget_range`` (same Be and eps), whose points come first and are not
    computed again (:func:`~explainer.selection.frontier.extended`).
    """

    def __init__(self, pool, *, error_budget: int, budget_range: tuple[int, int], eps: float,
                 seeds=(), alive: Callable[[], bool] | None = None, line: _Line | None = None,
                 before: Frontier | None = None):
        self.pool = pool
        self.error_budget = int(error_budget)
        low, high = budget_range
        self.budget_range = (int(low), int(high))
        self.before = before
        #: the whole range shown: from the first budget of ``before``, when given
        self.shown_range = (before.budgets[0] if before is not None and len(before) else self.budget_range[0],
                            self.budget_range[1])
        self.eps = float(eps)
        request = FrontierRequest(pool=pool, error_budget=self.error_budget, budget_range=self.budget_range,
                                  eps=self.eps, seeds=tuple(seeds))
        super().__init__(request, 1, alive=alive, line=line)
        self.points: list = []
        self.frontier: Frontier | None = None

    def _take(self, message):
        match message:
            case PointFound(point=point):
                self.points.append(point)
            case FrontierFound(frontier=found):
                self.frontier = found if self.before is None else extended(self.before, found)

    def _has_answer(self, i):
        return self.frontier is not None or self.errors[i] is not None

    def title(self, i):
        return "Frontier"

    def frontier_points(self) -> list:
        with self._lock:
            if self.frontier is not None:
                return list(self.frontier.points)
            return [*(self.before.points if self.before is not None else ()), *self.points]

    def progress(self) -> float:
        if self.done:
            return 1.0
        points = self.frontier_points()
        lo, hi = self.shown_range
        return min(1.0, (points[-1].complexity_budget - lo + 1) / (hi - lo + 1)) if points else 0.0

    def status_text(self) -> str:
        waiting = self.waiting_text()
        if waiting is not None:
            return waiting
        points = self.frontier_points()
        where = f"Bc = {points[-1].complexity_budget} of {self.budget_range[1]}" if points else "starting…"
        if points and points[-1].complexity_budget >= self.budget_range[1] and self.frontier is None:
            where = "every Bc done; the larger budgets now warm-start the smaller ones"
        return f"Frontier: {where} · {self.elapsed:.1f} s"


def _shared(settings: RunSettings) -> tuple:
    """What the runs of one job have in common."""
    return (settings.complexity_budget, settings.error_budget, settings.eps, settings.form, settings.class_weight)


__all__ = ["FrontierJob", "Job", "MAX_RUNNING", "RunJob", "mp_context", "start_fork_server"]
