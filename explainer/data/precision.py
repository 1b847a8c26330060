"""What float32 holds: the tree learner computes in float32, the rules are written on float64 values.

:data:`FLOAT32_MAX` bounds the magnitudes a column may hold; :func:`low_resolution_pair` finds
two values float32 cannot tell apart; :class:`Float32View` ranks such columns so the trees still
split between any two values, and maps a split back onto the original values.
"""

from __future__ import annotations

import numpy as np

__all__ = ["FLOAT32_MAX", "Float32View", "low_resolution_pair"]

#: The largest magnitude the tree learner accepts (it computes in float32).
FLOAT32_MAX = float(np.finfo(np.float32).max)


def low_resolution_pair(values: np.ndarray) -> tuple[float, float] | None:
    """Two distinct values that float32 cannot tell apart, or None."""
    u = np.unique(values)
    if len(u) < 2:
        return None
    same = np.flatnonzero(np.diff(u.astype(np.float32)) == 0)
    if not len(same):
        return None
    return float(u[same[0]]), float(u[same[0] + 1])


class Float32View:
    """A copy of a feature matrix that the tree learner (float32) reads without losing distinctions.

    Every column holding distinct values that float32 cannot tell apart is replaced by
    the rank of its value among the column's distinct values (0, 1, 2, ...; NaN stays
    NaN), which float32 holds exactly; other columns are unchanged.  Trees trained on
    :attr:`matrix` split ranked columns between any two values;
    :meth:`original_threshold` turns such a split back into a threshold on the original
    values that selects the same rows, so rules are still written and evaluated on
    the original matrix.
    """

    def __init__(self, X):
        self.matrix = np.array(X, dtype=np.float64, copy=True)
        #: column index -> sorted distinct values, for the ranked columns
        self.ranked: dict[int, np.ndarray] = {}
        for j in range(self.matrix.shape[1]):
            col = self.matrix[:, j]
            present = ~np.isnan(col)
            if low_resolution_pair(col[present]) is None:
                continue
            u = np.unique(col[present])
            self.ranked[j] = u
            col[present] = np.searchsorted(u, col[present]).astype(np.float64)

    def original_threshold(self, column: int, threshold: float) -> float:
        """``rank <= t`` as ``value <= u[floor(t)]`` (same rows, also for ``>``); others unchanged."""
        u = self.ranked.get(column)
        if u is None:
            return float(threshold)
        if threshold < 0:
            return float(np.nextafter(u[0], -np.inf))
        return float(u[min(int(np.floor(threshold)), len(u) - 1)])
