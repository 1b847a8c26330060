"""Rules grown one condition at a time: a second source of rules beside the tree paths.

A tree path must share its first split with every other path of its tree, so conjunctions that
no single split separates well (tic-tac-toe's "three in a row", a small class that a few
conditions isolate) reach the pool only as long, impure paths.  Sequential covering in the
manner of FOIL and RIPPER grows them directly: for each class, a rule starts empty and takes
the condition with the largest FOIL gain on the class's rows that no grown rule covers yet
against all rows of the other classes, until it covers no other class's row or reaches
``max_conditions``; the rows it covers are set aside and the next rule is grown.  The grown
rules are candidates only: the selection decides which of them, if any, explain the data.

Candidate conditions are those of the trees: ``feature <= t`` and ``feature > t`` with ``t`` a
midpoint between neighbouring values (at most ``max_thresholds`` per feature, at quantiles), and
``> 0.5`` / ``<= 0.5`` on 0/1 features.  A missing value satisfies no comparison, as everywhere.
The counts are vectorised: one matrix product for the 0/1 features and cumulative counts along the
numeric features' fixed sort orders, a block of features at a time (a table of 10,000 columns spent
seconds on one feature after another), so growing costs about O(steps x rows x features),
on at most ``max_rows`` rows (a seeded sample of larger tables: the rules are only candidates,
their coverage is counted on every row by the pool).
"""

from __future__ import annotations

import numpy as np

from explainer.data.precision import MixedPrecisionMatrix
from explainer.rules.model import Condition, Rule
from explainer.rules.numbers import shorten_threshold

#: numeric features whose cumulative counts are taken at once (a bound on the rows x features arrays: about
#: 8 MB each)
_BLOCK_CELLS = 1 << 20


class _NumericBlock:
    """Numeric features counted together: their row orders side by side, their thresholds' positions padded."""

    def __init__(self, features: list, order: np.ndarray, values: list, cuts: list, mids: list, n_present: list):
        self.features, self.order, self.values, self.mids = features, order, values, mids
        width = max(c.size for c in cuts)
        self.cut = np.zeros((len(cuts), width), dtype=np.int64)
        self.real = np.zeros((len(cuts), width), dtype=bool)  # a threshold, not padding
        for i, c in enumerate(cuts):
            self.cut[i, : c.size], self.real[i, : c.size] = c, True
        self.n_present = np.asarray(n_present, dtype=np.int64)
        self.columns = np.arange(len(features))

    def counts(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(weight at or below each threshold, per feature and threshold; the weight of the present rows)."""
        cum = np.zeros((self.order.shape[0] + 1, self.order.shape[1]))
        np.cumsum(weights[self.order], axis=0, out=cum[1:])
        return cum[self.cut, self.columns[:, None]], cum[self.n_present, self.columns]


class _Features:
    """The candidate conditions of a matrix and their counts on masked rows."""

    def __init__(self, A: np.ndarray, max_thresholds: int):
        present = ~np.isnan(A)
        binary = np.all(present & ((A == 0) | (A == 1)) | ~present, axis=0) & present.all(axis=0)
        self.binary = np.flatnonzero(binary)
        self.B = A[:, self.binary].astype(np.float64)
        self.blocks: list[_NumericBlock] = []
        step = max(1, _BLOCK_CELLS // max(A.shape[0], 1))
        numeric = np.flatnonzero(~binary)
        for start in range(0, numeric.size, step):
            self._add_block(A, present, numeric[start : start + step], max_thresholds)

    def _add_block(self, A: np.ndarray, present: np.ndarray, columns: np.ndarray, max_thresholds: int) -> None:
        orders = np.argsort(A[:, columns], axis=0, kind="stable")  # NaN last
        ordered = np.take_along_axis(A[:, columns], orders, axis=0)
        n_present = present[:, columns].sum(axis=0)
        # each column's distinct values, read off its sorted present values (no sort again per column)
        new_value = np.ones(ordered.shape, dtype=bool)
        new_value[1:] = ordered[1:] != ordered[:-1]
        new_value &= np.arange(ordered.shape[0])[:, None] < n_present
        kept, values_of, cuts, mids_of = [], [], [], []
        for k in np.flatnonzero(new_value.sum(axis=0) >= 2):
            sorted_values = ordered[: n_present[k], k]
            values = sorted_values[new_value[: n_present[k], k]]
            mids = (values[:-1] + values[1:]) / 2
            if mids.size > max_thresholds:
                mids = mids[np.unique(np.linspace(0, mids.size - 1, max_thresholds).round().astype(int))]
            cuts.append(np.searchsorted(sorted_values, mids, side="right"))  # rows <= each threshold
            kept.append(k)
            values_of.append(values)
            mids_of.append(mids)
        if kept:
            self.blocks.append(_NumericBlock([int(columns[k]) for k in kept], orders[:, kept], values_of, cuts,
                                             mids_of, n_present[kept]))

    def best(self, pos: np.ndarray, neg: np.ndarray, base: float, min_support: int):
        """The candidate with the largest FOIL gain: (gain, feature, op, threshold, values) or None.

        Ties go to the first candidate in a fixed order: the 0/1 features' ``> 0.5``, their ``<= 0.5``, then
        each numeric feature in turn, its ``<=`` thresholds before its ``>`` ones.
        """
        best = None

        def gains(p1, n1):
            with np.errstate(divide="ignore", invalid="ignore"):
                gain = p1 * (np.log2(p1 / (p1 + n1)) - base)
            return np.where(p1 >= min_support, gain, -np.inf)

        def consider(gain, make):
            nonlocal best
            k = int(np.argmax(gain)) if gain.size else -1
            if k >= 0 and np.isfinite(gain.flat[k]) and gain.flat[k] > 0 and (best is None or gain.flat[k] > best[0]):
                best = (float(gain.flat[k]), *make(k))

        if self.binary.size:
            p_one, n_one = pos @ self.B, neg @ self.B
            p_all, n_all = pos.sum(), neg.sum()
            consider(gains(p_one, n_one), lambda k: (int(self.binary[k]), ">", 0.5, None))
            consider(gains(p_all - p_one, n_all - n_one), lambda k: (int(self.binary[k]), "<=", 0.5, None))
        for block in self.blocks:
            (p_le, p_tot), (n_le, n_tot) = block.counts(pos), block.counts(neg)
            le = np.where(block.real, gains(p_le, n_le), -np.inf)
            gt = np.where(block.real, gains(p_tot[:, None] - p_le, n_tot[:, None] - n_le), -np.inf)
            width = le.shape[1]

            def make(k, block=block, width=width):  # k in the (feature, <= or >, threshold) order
                i, rest = divmod(k, 2 * width)
                op, t = ("<=", rest) if rest < width else (">", rest - width)
                return block.features[i], op, block.mids[i][t], block.values[i]

            consider(np.stack([le, gt], axis=1), make)
        return best


def grow_rules(
    X,
    y_codes,
    feature_names,
    *,
    max_conditions: int = 4,
    min_precision: float = 0.8,
    max_rules_per_class: int = 30,
    max_rows: int = 5000,
    max_thresholds: int = 32,
    random_state=0,
) -> list[tuple[Rule, int]]:
    """Rules grown by sequential covering, each with its class code (see the module docstring).

    ``X`` is the encoded matrix (NaN = missing), ``y_codes`` the class code of each row.  A rule
    is kept when its precision on the rows it was grown on is at least ``min_precision``; the
    rules' labels are the class codes, to be replaced by the caller's labels.
    """
    A = X if isinstance(X, MixedPrecisionMatrix) else np.asarray(X)  # a mixed matrix read row by row, not whole
    y = np.asarray(y_codes)
    if len(y) > max_rows:
        keep = np.sort(np.random.RandomState(random_state).choice(len(y), max_rows, replace=False))
        A, y = A[keep, :], y[keep]
    A = np.asarray(A, dtype=np.float64)  # the sample's rows only: a whole float32 matrix as float64 is large
    n = len(y)
    if n == 0 or A.shape[1] == 0:
        return []
    features = _Features(A, max_thresholds)
    min_support = max(2, n // 200)
    grown: list[tuple[Rule, int]] = []
    for c in np.unique(y):
        in_class = y == c
        remaining = in_class.copy()
        for _ in range(max_rules_per_class):
            if remaining.sum() < min_support:
                break
            covered = np.ones(n, dtype=bool)
            conditions: list[tuple[int, str, float]] = []
            while len(conditions) < max_conditions:
                pos = (remaining & covered).astype(np.float64)
                neg = (~in_class & covered).astype(np.float64)
                p0, n0 = pos.sum(), neg.sum()
                if n0 == 0 or p0 == 0:
                    break
                found = features.best(pos, neg, float(np.log2(p0 / (p0 + n0))), min_support)
                if found is None:
                    break
                _, f, op, t, values = found
                if values is not None:
                    t = shorten_threshold(t, values)
                conditions.append((f, op, float(t)))
                col = A[:, f]
                with np.errstate(invalid="ignore"):
                    covered &= (col <= t) if op == "<=" else (col > t)
            if not conditions:
                break
            right, total = int((in_class & covered).sum()), int(covered.sum())
            if total == 0 or right / total < min_precision or not (remaining & covered).any():
                break
            rule = Rule(tuple(Condition(str(feature_names[f]), op, t) for f, op, t in conditions), int(c))
            grown.append((rule, int(c)))
            remaining &= ~covered
    return grown
