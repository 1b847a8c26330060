"""When a run ends: one small object every solver honours.

``Termination(n_generations=None, time_limit=None, stall=None, full_coverage=True)``

* ``n_generations`` - at most this many generations (steps, trials) are reported;
* ``time_limit`` - seconds since the run started (the solver checks it between
  generations, and the long-running ones also inside a generation); the run
  ends with the best feasible selection so far, status "stopped";
* ``stall`` - this many generations in a row without a better best selection;
* ``full_coverage`` - f* == N (100 %): nothing can beat it.

:class:`~explainer.selection.solvers.base.Monitor` asks :meth:`Termination.update` after
every generation it records; a solver that loops long inside a generation asks
:meth:`Termination.out_of_time` as well.  A run that ends on its time limit
depends on the machine's speed, so it is not reproducible; the other criteria are.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

#: the reason strings :meth:`Termination.update` returns
TIME_LIMIT = "time limit"
N_GENERATIONS = "n_generations"
STALL = "stalled"
FULL_COVERAGE = "100% coverage reached"


@dataclass
class Termination:
    n_generations: int | None = None
    time_limit: float | None = None
    stall: int | None = None
    full_coverage: bool = True
    _t0: float = field(default=0.0, init=False, repr=False)
    _best: float = field(default=float("-inf"), init=False, repr=False)
    _since: int = field(default=0, init=False, repr=False)

    def start(self) -> Termination:
        """Reset the clock and the stall counter (called when the run starts)."""
        self._t0 = time.perf_counter()
        self._best = float("-inf")
        self._since = 0
        return self

    def elapsed(self) -> float:
        return time.perf_counter() - self._t0

    def remaining(self) -> float:
        """Seconds left (inf without a time limit)."""
        return float("inf") if self.time_limit is None else float(self.time_limit) - self.elapsed()

    def out_of_time(self) -> bool:
        return self.time_limit is not None and self.elapsed() >= float(self.time_limit)

    def update(self, generation: int, best: float, n_rows: float) -> str | None:
        """The reason to stop after ``generation`` (0 = the initial population) with best f* ``best``, or None
        (``n_rows``: the rows' total weight, N unweighted: f* at full coverage)."""
        if best > self._best + 1e-9:
            self._best, self._since = best, 0
        elif generation > 0:
            self._since += 1
        if self.full_coverage and n_rows and best >= n_rows - 1e-9:
            return FULL_COVERAGE
        if self.out_of_time():
            return TIME_LIMIT
        if self.n_generations is not None and generation >= int(self.n_generations):
            return N_GENERATIONS
        if self.stall is not None and self._since >= int(self.stall):
            return STALL
        return None


__all__ = ["FULL_COVERAGE", "N_GENERATIONS", "STALL", "TIME_LIMIT", "Termination"]
