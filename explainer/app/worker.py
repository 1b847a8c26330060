"""What the worker process does: the selection runs of one job, reported through a queue.

Runs in a child process (see :mod:`.jobs`), so the solver has a core of its
own and never competes with the Streamlit server for the interpreter lock.
Never imports Streamlit.  Messages put on the queue, in order:

* ``("start", i)`` when task ``i`` begins;
* ``("gen", i, [GenerationRecord, ...])`` batches of generation records;
* ``("done", i, Explanation)`` (its ``pool`` detached: the page holds it) or
  ``("error", i, message)``;
* ``("end",)`` last, always.

A frontier payload (``kind="frontier"``) sends ``("point", 0, FrontierPoint)`` after
each point and ``("frontier", 0, Frontier)`` at the end instead.
"""

from __future__ import annotations

import os
import time
import traceback

from explainer.app.text import label
from explainer.pipeline import explain_pool
from explainer.selection.callbacks import Callback
from explainer.selection.frontier import frontier

#: Records are sent in batches at most this often (a greedy run makes thousands of steps a second).
FLUSH_S = 0.1


class QueueReporter(Callback):
    """Batches generation records onto ``queue``; asks the solver to stop once ``stop_event`` is set."""

    def __init__(self, queue, stop_event, task: int):
        self.queue = queue
        self.stop_event = stop_event
        self.task = task
        self.buffer: list = []
        self.last_flush = 0.0

    def on_generation(self, record):
        self.buffer.append(record)
        now = time.perf_counter()
        # the first record goes out at once: generation 0 shows as soon as it exists
        if len(self.buffer) == 1 and self.last_flush == 0.0 or now - self.last_flush >= FLUSH_S:
            self.flush(now)
        return self.stop_event.is_set()

    def flush(self, now: float | None = None) -> None:
        if self.buffer:
            self.queue.put(("gen", self.task, self.buffer))
            self.buffer = []
        self.last_flush = time.perf_counter() if now is None else now

    def on_end(self, result):
        self.flush()


class PointReporter(Callback):
    """Sends each frontier point as it is found; asks the sweep to stop once ``stop_event`` is set."""

    def __init__(self, queue, stop_event):
        self.queue = queue
        self.stop_event = stop_event

    def on_point(self, point):
        self.queue.put(("point", 0, point))
        return self.stop_event.is_set()


def run_frontier(payload: dict, queue, stop_event) -> None:
    """The trade-off frontier of the pool at one error budget, point by point."""

    if hasattr(os, "nice"):  # a run started meanwhile gets the CPU first: the frontier is a guide, the run the work
        os.nice(10)
    try:
        queue.put(("start", 0))
        try:
            result = frontier(payload["pool"], payload["error_budget"], payload["budget_range"], eps=payload["eps"],
                              random_state=0, callback=PointReporter(queue, stop_event))
        except Exception as exc:  # reported on the page, never a traceback there
            traceback.print_exc()
            queue.put(("error", 0, f"The frontier failed: {type(exc).__name__}: {exc}"))
        else:
            queue.put(("frontier", 0, result))
    finally:
        queue.put(("end",))


def run(payload: dict, queue, stop_event) -> None:
    """Entry point of the worker process: every task of ``payload`` in turn, until stopped."""
    if payload.get("kind") == "frontier":
        run_frontier(payload, queue, stop_event)
        return
    try:
        for i, task in enumerate(payload["tasks"]):
            if stop_event.is_set():
                break
            queue.put(("start", i))
            reporter = QueueReporter(queue, stop_event, i)
            held = payload.get("holdout")
            extra = {"X_test": held[0], "y_test": held[1]} if held is not None else {}
            try:
                explanation = explain_pool(
                    payload["pool"],
                    payload["X"],
                    payload["y"],
                    complexity_budget=payload["complexity_budget"],
                    error_budget=payload["error_budget"],
                    eps=payload["eps"],
                    algorithm=task["algorithm"],
                    random_state=task["seed"],
                    callback=reporter,
                    fingerprint=payload["fingerprint"],
                    algorithm_params=payload["algorithm_params"].get(task["algorithm"]),
                    **extra,
                )
            except Exception as exc:  # reported on the page, never a traceback there
                traceback.print_exc()
                reporter.flush()
                queue.put(("error", i, f"{label(task['algorithm'])} failed: {type(exc).__name__}: {exc}"))
                continue
            reporter.flush()
            explanation.pool = None  # the page has it; no need to send it back
            queue.put(("done", i, explanation))
    finally:
        queue.put(("end",))
