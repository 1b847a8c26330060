"""Progress reporting: every algorithm reports through one callback protocol.

The dashboard's live chart, the CLI's progress bar and the benchmark all
listen the same way: ``on_start`` once, ``on_generation`` after every
generation (or step) with a :class:`GenerationRecord`, ``on_end`` with the
result.  ``on_generation`` returning ``True`` (or :meth:`StopFlag.set`) asks
the algorithm to stop; it then returns the best selection found so far.
A trade-off frontier (:mod:`explainer.selection.frontier`) calls ``on_point`` after each
of its points instead; returning ``True`` there ends the sweep.
"""

from __future__ import annotations

import sys
import threading
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class GenerationRecord:
    generation: int
    min: float
    mean: float
    max: float
    best: float  # best feasible coverage found so far
    diversity: int  # distinct individuals in the population
    population: int
    elapsed_s: float
    max_generations: int | None = None

    def to_dict(self) -> dict:
        return asdict(self)


class Callback:
    """Base class; override what you need."""

    def on_start(self, algorithm: str, problem) -> None:  # noqa: B027 - optional hook
        pass

    def on_generation(self, record: GenerationRecord) -> bool | None:
        return None

    def on_point(self, point) -> bool | None:
        """One point of a trade-off frontier (:class:`explainer.selection.frontier.FrontierPoint`)."""
        return None

    def on_best(self, selection, value: float) -> None:  # noqa: B027 - optional hook
        """A better feasible selection than any before in the run (boolean, one entry per rule of the problem
        the run solves), and its objective value: what Stop would keep now."""

    def on_end(self, result) -> None:  # noqa: B027 - optional hook
        pass


class CallbackList(Callback):
    def __init__(self, callbacks):
        self.callbacks = [c for c in callbacks if c is not None]

    def on_start(self, algorithm, problem):
        for c in self.callbacks:
            c.on_start(algorithm, problem)

    def on_generation(self, record):
        stop = False
        for c in self.callbacks:
            stop = bool(c.on_generation(record)) or stop
        return stop

    def on_point(self, point):
        stop = False
        for c in self.callbacks:
            stop = bool(c.on_point(point)) or stop
        return stop

    def on_best(self, selection, value):
        for c in self.callbacks:
            c.on_best(selection, value)

    def on_end(self, result):
        for c in self.callbacks:
            c.on_end(result)


class StopFlag(Callback):
    """A thread-safe stop button: ``set()`` from anywhere ends the run cleanly."""

    def __init__(self):
        self._event = threading.Event()

    def set(self) -> None:
        self._event.set()

    def clear(self) -> None:
        self._event.clear()

    @property
    def is_set(self) -> bool:
        return self._event.is_set()

    def on_generation(self, record):
        return self._event.is_set()

    def on_point(self, point):
        return self._event.is_set()


class Recorder(Callback):
    """Keeps every record, every frontier point and the result of a run."""

    def __init__(self):
        self.records: list[GenerationRecord] = []
        self.points: list = []  # frontier points, when recording a frontier
        self.result = None

    def on_start(self, algorithm, problem):
        self.records = []
        self.points = []
        self.result = None

    def on_generation(self, record):
        self.records.append(record)

    def on_point(self, point):
        self.points.append(point)

    def on_end(self, result):
        self.result = result


class ProgressBar(Callback):
    """A one-line text progress bar on stderr (the CLI's)."""

    def __init__(self, stream=None, width: int = 30, n_rows: int | None = None):
        self.stream = stream or sys.stderr
        self.width = width
        self.n_rows = n_rows
        self.algorithm = ""

    def on_start(self, algorithm, problem):
        self.algorithm = algorithm
        self.n_rows = problem.total_weight  # N, or the rows' total weight: f* of full coverage

    def on_generation(self, record):
        total = record.max_generations
        frac = min(1.0, record.generation / total) if total else 0.0
        filled = int(round(frac * self.width))
        bar = "#" * filled + "-" * (self.width - filled)
        pct = 100.0 * record.best / self.n_rows if self.n_rows else 0.0
        gen = f"{record.generation}/{total}" if total else f"{record.generation}"
        self.stream.write(
            f"\r{self.algorithm:>10} [{bar}] gen {gen}  best {pct:6.2f}%  {record.elapsed_s:6.1f}s"
        )
        self.stream.flush()

    def on_end(self, result):
        self.stream.write("\n")
        self.stream.flush()
