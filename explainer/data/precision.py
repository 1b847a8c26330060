"""What float32 holds: the tree learner computes in float32, the rules are written on float64 values.

:data:`FLOAT32_MAX` bounds the magnitudes a column may hold; :func:`low_resolution_pair` finds
two values float32 cannot tell apart; :class:`Float32View` ranks such columns so the trees still
split between any two values, and maps a split back onto the original values.
"""

from __future__ import annotations

import numpy as np

__all__ = ["FLOAT32_MAX", "Float32View", "FeatureMatrix", "MixedPrecisionMatrix", "exact_integer_columns", "exact_integers",
           "low_resolution_columns", "low_resolution_pair"]

#: The largest magnitude the tree learner accepts (it computes in float32).
FLOAT32_MAX = float(np.finfo(np.float32).max)


def exact_integers(values: np.ndarray) -> bool:
    """Whether every value is a whole number that int64 and float64 both hold exactly (below 2**53 in size);
    False when one is NaN."""
    return bool(exact_integer_columns(np.reshape(values, (-1, 1)))[0])


def exact_integer_columns(values: np.ndarray) -> np.ndarray:
    """:func:`exact_integers` of each column of the 2-D ``values`` (a boolean per column)."""
    return np.all(values == np.round(values), axis=0) & np.all(np.abs(values) < 2**53, axis=0)


def low_resolution_pair(values: np.ndarray) -> tuple[float, float] | None:
    """Two distinct values that float32 cannot tell apart, or None."""
    u = np.unique(values)
    if len(u) < 2:
        return None
    same = np.flatnonzero(np.diff(u.astype(np.float32)) == 0)
    if not len(same):
        return None
    return float(u[same[0]]), float(u[same[0] + 1])


#: columns sorted at a time by :func:`low_resolution_columns` (a bound on the sorted copy: about 8 MB)
_SORT_CELLS = 1 << 20


def low_resolution_columns(X: np.ndarray) -> np.ndarray:
    """Indices of the columns of ``X`` (2-D, float64, NaN = missing) that hold a :func:`low_resolution_pair`.

    The same test as that function's, for every column at once: sorted, a column holds such a pair where two
    neighbouring distinct values become equal in float32 (float32 keeps the order, so only neighbours can
    merge; a missing value sorts last and never counts).  Column by column, a table of 10,000 columns took
    seconds.
    """
    n_rows, n_cols = X.shape
    if n_rows < 2 or n_cols == 0:
        return np.zeros(0, dtype=np.int64)
    step = max(1, _SORT_CELLS // n_rows)
    found = []
    for start in range(0, n_cols, step):
        s = np.sort(X[:, start : start + step], axis=0)
        merged = (np.diff(s, axis=0) != 0) & (np.diff(s.astype(np.float32), axis=0) == 0)
        found.append(start + np.flatnonzero(merged.any(axis=0)))
    return np.concatenate(found)


class MixedPrecisionMatrix:
    """A feature matrix held in float32, with each column float32 cannot hold exactly kept beside it in float64.

    Why: a table with a few columns of decimal fractions (0.1 is not a float32 number) would otherwise be held
    whole in float64, twice the size of its float32 form, its 0/1 features included.

    Every read gives float64, the table's own values: ``m[rows, j]`` (a column, ``rows`` a slice or
    indices), ``m[rows, cols]`` (a 2-D float64 copy), :meth:`column`, and ``np.asarray(m)`` (the whole
    matrix, a full float64 copy: for callers that need no more than correctness).  ``narrow`` holds every
    column as the tree learner reads it (float32); in the columns of ``wide`` it holds the learner's reading,
    not the values (:class:`Float32View` writes ranks there), so nothing else reads those.
    """

    def __init__(self, narrow: np.ndarray, wide: dict[int, np.ndarray]):
        self.narrow, self.wide = narrow, wide
        self.shape = narrow.shape

    def __len__(self) -> int:
        return self.shape[0]

    @property
    def nbytes(self) -> int:
        return self.narrow.nbytes + sum(c.nbytes for c in self.wide.values())

    def column(self, j: int, rows=slice(None)) -> np.ndarray:
        """Column ``j`` at ``rows`` as float64."""
        exact = self.wide.get(int(j))
        if exact is not None:
            return exact[rows]
        return self.narrow[rows, int(j)].astype(np.float64)

    def __getitem__(self, key):
        if not (isinstance(key, tuple) and len(key) == 2):
            raise IndexError("index a MixedPrecisionMatrix by [rows, columns]")
        rows, cols = key
        if isinstance(cols, (int, np.integer)):
            return self.column(int(cols), rows)
        picked = np.arange(self.shape[1])[cols]
        if not picked.size:
            return np.empty((len(np.arange(self.shape[0])[rows]), 0))
        first = self.column(int(picked[0]), rows)
        out = np.empty((first.shape[0], picked.size), dtype=np.float64, order="F")
        out[:, 0] = first
        for k, j in enumerate(picked[1:], start=1):
            out[:, k] = self.column(int(j), rows)
        return out

    def __array__(self, dtype=None, copy=None):
        out = self[:, :]
        return out if dtype is None else out.astype(dtype, copy=False)


#: a feature matrix as the rule stage reads it: every read float64 (a float32 or float64 array, or a mixed one)
FeatureMatrix = np.ndarray | MixedPrecisionMatrix


class Float32View:
    """A copy of a feature matrix that the tree learner (float32) reads without losing distinctions.

    Every column holding distinct values that float32 cannot tell apart is replaced by
    the rank of its value among the column's distinct values (0, 1, 2, ...; NaN stays
    NaN), which float32 holds exactly; the other columns are as float32 reads them, which is all the tree
    learner reads of them anyway (the view is float32 then; without a ranked column it is the matrix itself).
    Trees trained on
    :attr:`matrix` split ranked columns between any two values;
    :meth:`original_threshold` turns such a split back into a threshold on the original
    values that selects the same rows, so rules are still written and evaluated on
    the original matrix.
    """

    def __init__(self, X):
        #: column index -> sorted distinct values, for the ranked columns
        self.ranked: dict[int, np.ndarray] = {}
        if isinstance(X, MixedPrecisionMatrix):
            self._rank_in_place(X)
            return
        X = np.asarray(X)
        if X.dtype == np.float32:  # float32 already: nothing it cannot tell apart, and no copy
            self.matrix = X
            return
        X = np.asarray(X, dtype=np.float64)
        ranked = low_resolution_columns(X)
        if not ranked.size:  # the view of a table float32 reads without loss is the table itself: no copy
            self.matrix = X
            return
        # the copy in the learner's own float32, half the size of the table: the other columns are what the learner
        # would read of them anyway, and every rank below 2**24 is a float32 number
        self.matrix = np.asarray(X, dtype=np.float32, order="F")
        for j in ranked:
            self._rank(int(j), X[:, j])

    def _rank_in_place(self, X: MixedPrecisionMatrix) -> None:
        """The view of a mixed matrix is its own float32 part, without a copy: only its float64 columns can hold
        values float32 cannot tell apart, and the float32 part's copies of those are the learner's alone."""
        self.matrix = X.narrow
        for j, col in X.wide.items():
            if low_resolution_columns(col.reshape(-1, 1)).size:
                self._rank(j, col)

    def _rank(self, j: int, col: np.ndarray) -> None:
        """Column ``j`` of :attr:`matrix` as the ranks of ``col``'s values (its float64 values; NaN stays NaN)."""
        present = ~np.isnan(col)
        u = np.unique(col[present])
        self.ranked[j] = u
        self.matrix[present, j] = np.searchsorted(u, col[present])

    def original_threshold(self, column: int, threshold: float) -> float:
        """``rank <= t`` as ``value <= u[floor(t)]`` (same rows, also for ``>``); others unchanged."""
        u = self.ranked.get(column)
        if u is None:
            return float(threshold)
        if threshold < 0:
            return float(np.nextafter(u[0], -np.inf))
        return float(u[min(int(np.floor(threshold)), len(u) - 1)])
