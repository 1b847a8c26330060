"""The fittest distinct feasible selections a population-based run has seen (:class:`Archive`).

Off unless asked for (:meth:`explainer.selection.solvers.qga.QGA.keep_archive`): the alternatives of
:mod:`explainer.selection.alternatives` read it; a default run pays nothing.
"""

from __future__ import annotations

import numpy as np


class Archive:
    """At most ``size`` distinct feasible selections, the fittest seen (ties: the first seen)."""

    def __init__(self, problem, size: int):
        if int(size) < 1:
            raise ValueError(f"an archive holds at least one selection, got size={size!r}")
        self.problem = problem
        self.size = int(size)
        self._kept: dict[bytes, tuple[float, np.ndarray]] = {}

    def add(self, population, fitness) -> None:
        """Offer every feasible row of ``population`` (a P x M bool matrix) with its ``fitness``."""
        pop = np.atleast_2d(np.asarray(population, dtype=bool))
        fit = np.asarray(fitness, dtype=float).ravel()[: pop.shape[0]]
        pop = pop[: fit.size]
        feasible = self.problem.feasible_mask(pop) if pop.size else np.zeros(0, dtype=bool)
        for row, value in zip(pop[feasible], fit[feasible], strict=True):
            key = np.packbits(row).tobytes()
            if key not in self._kept:
                self._kept[key] = (float(value), row.copy())
        if len(self._kept) > 2 * self.size:  # trimmed now and then, not on every offer
            self._trim()

    def _trim(self) -> None:
        best = sorted(self._kept.items(), key=lambda kv: -kv[1][0])[: self.size]
        self._kept = dict(best)

    def selections(self) -> list[tuple[np.ndarray, float]]:
        """The kept selections with their fitness, fittest first."""
        self._trim()
        return [(row.copy(), value) for value, row in self._kept.values()]

    def __len__(self) -> int:
        return min(len(self._kept), self.size)
