"""Selection runs in a worker process, watched from the page.

A :class:`Job` starts one child process (:func:`.worker.run`) for its tasks.
The solver then runs at full speed on a core of its own: the page's redraws
happen in the Streamlit server, which no longer shares an interpreter lock
with the solver.  Generation records come back through a queue, drained by a
small thread into lists the page reads; Stop sets an event the solver checks
every generation, so it returns its best selection so far.  Never imports
Streamlit.
"""

from __future__ import annotations

import multiprocessing
import queue as queue_module
import threading
import time
from dataclasses import dataclass
from multiprocessing import spawn

from explainer.app import worker
from explainer.app.text import label
from explainer.pipeline import Explanation

#: After Stop, a run that does not report a generation (e.g. the exact solver inside its MILP)
#: gets this long to return before its process is ended.
STOP_GRACE_S = 5.0

_context_lock = threading.Lock()
_context = None
_starting = threading.local()


def _preparation_data(name, _original=spawn.get_preparation_data):
    """What a new process is told about its parent, minus the main script while a job starts.

    Streamlit runs each page as module ``__main__`` with ``__file__`` set to the page, and
    multiprocessing would re-run that page in the child before calling the worker.  The worker
    needs nothing from it (its entry point is :func:`.worker.run`), so a job's process skips it.
    """
    data = _original(name)
    if getattr(_starting, "job", False):
        data.pop("init_main_from_path", None)
        data.pop("init_main_from_name", None)
    return data


def mp_context():
    """The process start method: a fork server that has imported the solvers once, so a job starts fast.

    ``fork`` from the multi-threaded Streamlit server is unsafe; ``spawn`` would import numpy,
    scikit-learn and the solvers again for every run.
    """
    global _context
    with _context_lock:
        if _context is None:
            methods = multiprocessing.get_all_start_methods()
            if "forkserver" in methods:
                ctx = multiprocessing.get_context("forkserver")
                ctx.set_forkserver_preload(["explainer.app.worker", "explainer.app.preload"])
            else:
                ctx = multiprocessing.get_context("spawn")
            spawn.get_preparation_data = _preparation_data
            _context = ctx
        return _context


def warm_up() -> None:
    """Start the fork server (and its imports) ahead of the first run."""
    ctx = mp_context()
    if ctx.get_start_method() == "forkserver":
        from multiprocessing import forkserver

        _starting.job = True
        try:
            forkserver.ensure_running()
        finally:
            _starting.job = False


@dataclass
class Task:
    algorithm: str
    seed: int | None


class Job:
    """One or more selection runs on the same pool and budgets, in a worker process.

    Read :meth:`records` (the running task's generations so far), :attr:`version`
    (grows with every batch of news), :attr:`done`, :attr:`explanations` and
    :attr:`errors`.  :meth:`stop` ends the current run cleanly (the algorithm
    returns its best selection so far) and skips the rest.
    """

    def __init__(self, pool, dataset, tasks: list[Task], *, complexity_budget: int, error_budget: int,
                 eps: float, algorithm_params: dict | None = None, holdout: tuple | None = None):
        self.pool = pool
        self.dataset = dataset
        self.n_rows = dataset.n_rows
        self.tasks = list(tasks)
        self.complexity_budget = int(complexity_budget)
        self.error_budget = int(error_budget)
        self.eps = float(eps)
        self.algorithm_params = {k: dict(v) for k, v in (algorithm_params or {}).items()}
        self._payload = {
            "pool": pool,
            "X": dataset.X,
            "y": dataset.y,
            "fingerprint": dataset.fingerprint,
            "tasks": [{"algorithm": t.algorithm, "seed": t.seed} for t in self.tasks],
            "complexity_budget": self.complexity_budget,
            "error_budget": self.error_budget,
            "eps": self.eps,
            "algorithm_params": self.algorithm_params,
            "holdout": holdout,  # (X_test, y_test): rows the pool never saw, reported beside the training rows
        }
        self._records: list[list] = [[] for _ in self.tasks]
        self.points: list = []  # frontier points as they arrive (a frontier job)
        self.frontier = None  # the finished Frontier (a frontier job)
        self._lock = threading.Lock()
        self._news = threading.Condition(self._lock)
        self.version = 0
        self.explanations: list[Explanation | None] = [None] * len(self.tasks)
        self.errors: list[str | None] = [None] * len(self.tasks)
        self.current = 0
        self.started_at = time.perf_counter()
        self.finished_at: float | None = None
        self.stop_requested_at: float | None = None
        self.collected = False
        self.settings = {
            "algorithms": [t.algorithm for t in self.tasks],
            "seeds": [t.seed for t in self.tasks],
            "complexity_budget": self.complexity_budget,
            "error_budget": self.error_budget,
            "eps": self.eps,
        }
        ctx = mp_context()
        self._queue = ctx.Queue()
        self._stop = ctx.Event()
        self._process = None
        self._reader = threading.Thread(target=self._read, name="explainer-job-reader", daemon=True)

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> Job:
        ctx = mp_context()
        self.started_at = time.perf_counter()
        self._process = ctx.Process(target=worker.run, args=(self._payload, self._queue, self._stop),
                                    name="explainer-worker", daemon=True)
        _starting.job = True
        try:
            self._process.start()
        finally:
            _starting.job = False
        self._payload = None  # sent; the page keeps only what it shows
        self._reader.start()
        return self

    def _read(self) -> None:
        """Drain the worker's queue (this thread never touches Streamlit)."""
        ended = False
        try:
            while not ended:
                try:
                    message = self._queue.get(timeout=0.2)
                except queue_module.Empty:
                    if self._process is not None and not self._process.is_alive():
                        self._fail_running("the worker process ended unexpectedly")
                        break
                    if self.stop_requested_at is not None and \
                            time.perf_counter() - self.stop_requested_at > STOP_GRACE_S:
                        self._process.terminate()
                        self._fail_running(f"stopped; no selection was returned within {STOP_GRACE_S:g} s")
                        break
                    continue
                ended = self._handle(message)
        finally:
            with self._news:
                self.finished_at = time.perf_counter()
                self.version += 1
                self._news.notify_all()
            if self._process is not None:
                self._process.join(timeout=5)

    def _handle(self, message) -> bool:
        kind = message[0]
        with self._news:
            if kind == "start":
                self.current = message[1]
            elif kind == "gen":
                self._records[message[1]].extend(message[2])
            elif kind == "done":
                explanation = message[2]
                explanation.pool = self.pool
                self.explanations[message[1]] = explanation
            elif kind == "point":
                self.points.append(message[2])
            elif kind == "frontier":
                self.frontier = message[2]
            elif kind == "error":
                self.errors[message[1]] = message[2]
            self.version += 1
            self._news.notify_all()
        return kind == "end"

    def _fail_running(self, why: str) -> None:
        i = self.current
        if self.explanations[i] is None and self.errors[i] is None:
            self.errors[i] = f"{label(self.tasks[i].algorithm)}: {why}."

    def wait_for_news(self, timeout: float, since: int | None = None) -> bool:
        """Block up to ``timeout`` s until :attr:`version` passes ``since`` (default: now); True if it did."""
        with self._news:
            base = self.version if since is None else since
            return self._news.wait_for(lambda: self.version > base or self.finished_at is not None, timeout)

    def wait_for_end(self, timeout: float) -> bool:
        """Block up to ``timeout`` s until the job ends; True if it has."""
        with self._news:
            return self._news.wait_for(lambda: self.finished_at is not None, timeout)

    def stop(self) -> None:
        if self.stop_requested_at is None:
            self.stop_requested_at = time.perf_counter()
        self._stop.set()

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
    def elapsed(self) -> float:
        """Seconds since the start, from the page's own clock (moves even while the solver is silent)."""
        end = self.finished_at if self.finished_at is not None else time.perf_counter()
        return end - self.started_at

    def records(self, i: int | None = None) -> list:
        with self._lock:
            return list(self._records[self.current if i is None else i])

    def progress(self) -> float:
        """Fraction done: tasks finished plus the running task's generations."""
        if self.done:
            return 1.0
        if self.tasks[0].algorithm == "frontier":
            points = self.frontier_points()
            lo, hi = self.budget_range
            return min(1.0, (points[-1].complexity_budget - lo + 1) / (hi - lo + 1)) if points else 0.0
        recs = self.records()
        frac = 0.0
        if recs and recs[-1].max_generations:
            frac = min(1.0, (recs[-1].generation + 1) / (recs[-1].max_generations + 1))
        return min(1.0, (self.current + frac) / len(self.tasks))

    @classmethod
    def for_frontier(cls, pool, dataset, *, error_budget: int, budget_range: tuple[int, int], eps: float) -> Job:
        """A job that computes the trade-off frontier over ``budget_range`` (Bc) at ``error_budget``."""
        job = cls(pool, dataset, [Task("frontier", None)], complexity_budget=budget_range[1],
                  error_budget=error_budget, eps=eps)
        job._payload.update(kind="frontier", budget_range=tuple(int(b) for b in budget_range))
        job.budget_range = tuple(int(b) for b in budget_range)
        return job

    def frontier_points(self) -> list:
        with self._lock:
            return list(self.frontier.points if self.frontier is not None else self.points)

    def status_text(self) -> str:
        """One line for the progress bar: algorithm, generation, best so far, elapsed time."""
        if self.tasks[0].algorithm == "frontier":
            points = self.frontier_points()
            where = f"Bc = {points[-1].complexity_budget} of {self.budget_range[1]}" if points else "starting…"
            return f"Frontier: {where} · {self.elapsed:.1f} s"
        name = label(self.tasks[self.current].algorithm)
        prefix = f"Run {self.current + 1} of {len(self.tasks)}: " if len(self.tasks) > 1 else ""
        recs = self.records()
        if recs:
            last = recs[-1]
            gen = f"{last.generation}/{last.max_generations}" if last.max_generations else f"{last.generation}"
            best = f" · best {100 * last.best / self.n_rows:.2f}%" if self.n_rows else ""
            text = f"{prefix}{name}: generation {gen}{best} · {self.elapsed:.1f} s"
        else:
            text = f"{prefix}{name}: starting… {self.elapsed:.1f} s"
        if self.stopped and not self.done:
            text += " · stopping"
        return text

