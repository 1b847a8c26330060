"""What the worker process does: the selection runs or the frontier of one job, reported through a queue.

Runs in a child process (see :mod:`.jobs`), so the solver has a core of its
own and never competes with the Streamlit server for the interpreter lock.
Never imports Streamlit.  A job sends one typed request, :class:`RunRequest`
or :class:`FrontierRequest` (the runs' :class:`~explainer.selection.settings.RunSettings`,
arrays, the pool and the data frame: what multiprocessing pickles to start the process,
nothing else).  Replies are frozen dataclasses put on the queue, in order:

* :class:`TaskStarted` when task ``i`` begins;
* :class:`Records`: batches of generation records;
* :class:`BestSoFar`: each better selection the run finds (what Stop would keep);
* :class:`Explained` (the explanation, its ``pool`` and ``problem`` detached: the page holds the
  pool and reads no problem) or :class:`Failed` (a message for the page);
* :class:`Ended` last, always.

A frontier request sends a :class:`PointFound` after each point and a
:class:`FrontierFound` at the end instead of records and an explanation.

The process ends with its parent (the fork server, which ends with the
Streamlit server) and with the Streamlit server itself: a killed server
leaves no worker computing (:func:`die_with_parent`).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import time
import traceback
from dataclasses import dataclass
from multiprocessing import forkserver

import numpy as np
import pandas as pd

from explainer.app.lifeline import SERVER_PID_ENV, end_with, server_pid  # noqa: F401 (SERVER_PID_ENV: for jobs)
from explainer.app.text import label
from explainer.pipeline import Explanation, explain_pool
from explainer.rules.pool import RulePool
from explainer.selection.callbacks import Callback, GenerationRecord
from explainer.selection.frontier import Frontier, FrontierPoint, frontier
from explainer.selection.settings import RunSettings

#: Records are sent in batches at most this often (a greedy run makes thousands of steps a second).
FLUSH_S = 0.1
_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class RunRequest:
    """Selection runs on one pool and data, one run after the other, each as its settings say."""

    pool: RulePool
    X: pd.DataFrame
    y: np.ndarray
    fingerprint: str
    runs: tuple[RunSettings, ...]
    X_test: pd.DataFrame | None = None  # held-out rows (never in the pool), reported beside the training rows
    y_test: np.ndarray | None = None
    target: str | None = None  # the class column, named in the report


@dataclass(frozen=True)
class FrontierRequest:
    """The trade-off frontier of a pool over a range of Bc at one Be."""

    pool: RulePool
    error_budget: int
    budget_range: tuple[int, int]
    eps: float
    seeds: tuple[np.ndarray, ...] = ()  # selections already known (runs, frontiers at a smaller Be): warm starts


# ------------------------------------------------------------------ the replies, read by type


@dataclass(frozen=True)
class TaskStarted:
    """Task ``task`` of the job has begun."""

    task: int


@dataclass(frozen=True)
class Records:
    """A batch of the running task's generation records."""

    task: int
    records: tuple[GenerationRecord, ...]


@dataclass(frozen=True)
class BestSoFar:
    """Task ``task``'s best selection so far: the pool indices of its rules."""

    task: int
    rules: tuple[int, ...]


@dataclass(frozen=True)
class Explained:
    """Task ``task`` ended with an explanation (its pool and problem detached)."""

    task: int
    explanation: Explanation


@dataclass(frozen=True)
class Failed:
    """Task ``task`` failed; ``message`` says how, for the page."""

    task: int
    message: str


@dataclass(frozen=True)
class PointFound:
    """One more point of the frontier being computed."""

    point: FrontierPoint


@dataclass(frozen=True)
class FrontierFound:
    """The finished (or stopped) frontier."""

    frontier: Frontier


@dataclass(frozen=True)
class Ended:
    """The worker's last reply: nothing follows."""


Reply = TaskStarted | Records | BestSoFar | Explained | Failed | PointFound | FrontierFound | Ended


class QueueReporter(Callback):
    """Batches generation records onto ``queue``; its ``is_set`` is the job's stop request."""

    def __init__(self, queue, stop_event, task: int):
        self.queue = queue
        self.stop_event = stop_event
        self.task = task
        self.buffer: list = []
        self.last_flush = 0.0

    @property
    def is_set(self) -> bool:
        """The solvers poll this inside long steps (see ``Monitor.interrupted``), not only per generation."""
        return self.stop_event.is_set()

    def on_generation(self, record):
        self.buffer.append(record)
        now = time.perf_counter()
        # the first record goes out at once: generation 0 shows as soon as it exists
        if len(self.buffer) == 1 and self.last_flush == 0.0 or now - self.last_flush >= FLUSH_S:
            self.flush(now)
        return self.stop_event.is_set()

    def on_best(self, selection, value):
        # its own message, at once: the page shows the rules Stop would keep while the run goes on
        self.queue.put(BestSoFar(self.task, tuple(int(i) for i in np.flatnonzero(selection))))

    def flush(self, now: float | None = None) -> None:
        if self.buffer:
            self.queue.put(Records(self.task, tuple(self.buffer)))
            self.buffer = []
        self.last_flush = time.perf_counter() if now is None else now

    def on_end(self, result):
        self.flush()


class PointReporter(Callback):
    """Sends each frontier point as it is found; its ``is_set`` is the job's stop request."""

    def __init__(self, queue, stop_event):
        self.queue = queue
        self.stop_event = stop_event

    @property
    def is_set(self) -> bool:
        return self.stop_event.is_set()

    def on_point(self, point):
        self.queue.put(PointFound(point))
        return self.stop_event.is_set()


def _close_fork_server_lifeline() -> None:
    """Close this worker's copy of the write end of the fork server's "alive" pipe.

    multiprocessing gives every process forked by the fork server that write end, and the fork
    server ends only when the last copy is closed.  The Streamlit server holds one; a worker that
    kept its own would keep the fork server running after the Streamlit server died, and the
    fork server, in turn, this worker (it ends with its parent): both would outlive a killed
    server.  A worker starts no process, so it needs no fork server.
    """
    server = forkserver._forkserver
    # the fd is a private attribute of multiprocessing's ForkServer (its stub declares none of them)
    attributes = vars(server)
    alive_fd = attributes.get("_forkserver_alive_fd")
    if server.get_inherited_fds() is None or alive_fd is None:
        return  # not a process forked by the fork server (spawn, or a test calling in-process)
    try:
        os.close(alive_fd)
    except OSError:
        pass
    attributes["_forkserver_alive_fd"] = None


def die_with_parent() -> None:
    """End this process when its parent or the dashboard server ends.

    The parent is the fork server (or, without one, the Streamlit server).  Linux: the kernel
    sends SIGKILL on the parent's death (prctl PR_SET_PDEATHSIG; the fork server forks from its
    only thread, which lives as long as it does).  Besides, :func:`end_with` watches the
    dashboard server itself, and the parent where prctl is missing.
    """
    _close_fork_server_lifeline()
    parent = os.getppid()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        armed = libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):  # not Linux: no prctl
        armed = False
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)
    server = server_pid()
    if server is not None and server != parent:
        end_with(server)
    if not armed:
        end_with(parent)


def run_frontier(request: FrontierRequest, queue, stop_event) -> None:
    """The trade-off frontier of the pool at one error budget, point by point."""
    if hasattr(os, "nice"):  # a run started meanwhile gets the CPU first: the frontier is a guide, the run the work
        os.nice(10)
    queue.put(TaskStarted(0))
    try:
        result = frontier(request.pool, request.error_budget, request.budget_range, eps=request.eps,
                          random_state=0, callback=PointReporter(queue, stop_event), seeds=list(request.seeds),
                          backward=True)  # the page reads Bc off this curve: let larger budgets lift smaller ones
    except Exception as exc:  # reported on the page, never a traceback there
        traceback.print_exc()
        queue.put(Failed(0, f"The frontier failed: {type(exc).__name__}: {exc}"))
    else:
        queue.put(FrontierFound(result))


def _raised_at(exc: BaseException) -> str:
    """``file:line in function`` of the frame that raised ``exc``."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "no traceback"
    last = frames[-1]
    return f"{last.filename}:{last.lineno} in {last.name}"


def run_selection(request: RunRequest, queue, stop_event) -> None:
    """Every run of ``request`` in turn, until stopped."""
    for i, settings in enumerate(request.runs):
        if stop_event.is_set():
            break
        queue.put(TaskStarted(i))
        reporter = QueueReporter(queue, stop_event, i)
        y_test = None if request.X_test is None else request.y_test  # held-out rows come as a pair
        try:
            explanation = explain_pool(request.pool, request.X, request.y, settings, callback=reporter,
                                       fingerprint=request.fingerprint, target=request.target,
                                       X_test=request.X_test, y_test=y_test)
        except ValueError as exc:  # what the settings ask cannot be done (pins over a budget): the user's to fix
            # the page says it plainly; the server's log says where it was raised, in case it is a bug
            print(f"explainer worker: {label(settings.algorithm)} could not run: {exc} ({_raised_at(exc)})",
                  file=sys.stderr, flush=True)
            reporter.flush()
            queue.put(Failed(i, f"{label(settings.algorithm)} could not run: {exc}"))
            continue
        except Exception as exc:  # reported on the page, never a traceback there
            traceback.print_exc()
            reporter.flush()
            queue.put(Failed(i, f"{label(settings.algorithm)} failed: {type(exc).__name__}: {exc}"))
            continue
        reporter.flush()
        explanation.pool = None  # the page has it; no need to send it back
        # nor the selection problem, which no page reads: the bulk of the message (about 46 of 47 MB
        # at 32,561 rows, scripts/stop_latency.py's table), a second in the pipe after a Stop
        explanation.problem = None
        queue.put(Explained(i, explanation))


def run(request: RunRequest | FrontierRequest, queue, stop_event) -> None:
    """Entry point of the worker process."""
    die_with_parent()
    try:
        if isinstance(request, FrontierRequest):
            run_frontier(request, queue, stop_event)
        else:
            run_selection(request, queue, stop_event)
    finally:
        queue.put(Ended())
