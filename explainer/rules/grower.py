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
The counts are vectorised: one matrix product for the 0/1 features and one pass over each
numeric feature's fixed sort order per step, so growing costs about O(steps x rows x features),
on at most ``max_rows`` rows (a seeded sample of larger tables: the rules are only candidates,
their coverage is counted on every row by the pool).
"""

from __future__ import annotations

import numpy as np

from explainer.rules.model import Condition, Rule
from explainer.rules.numbers import shorten_threshold


class _Features:
    """The candidate conditions of a matrix and their counts on masked rows."""

    def __init__(self, A: np.ndarray, max_thresholds: int):
        present = ~np.isnan(A)
        binary = np.all(present & ((A == 0) | (A == 1)) | ~present, axis=0) & present.all(axis=0)
        self.binary = np.flatnonzero(binary)
        self.B = A[:, self.binary].astype(np.float64)
        self.numeric = []  # (feature, row order, sorted values, threshold positions, thresholds)
        for f in np.flatnonzero(~binary):
            col = A[:, f]
            values = np.unique(col[present[:, f]])
            if values.size < 2:
                continue
            mids = (values[:-1] + values[1:]) / 2
            if mids.size > max_thresholds:
                mids = mids[np.unique(np.linspace(0, mids.size - 1, max_thresholds).round().astype(int))]
            order = np.argsort(col, kind="stable")  # NaN last
            sorted_values = col[order]
            n_present = int(present[:, f].sum())
            cut = np.searchsorted(sorted_values[:n_present], mids, side="right")  # rows <= each threshold
            self.numeric.append((f, order, values, cut, mids, n_present))

    def best(self, pos: np.ndarray, neg: np.ndarray, base: float, min_support: int):
        """The candidate with the largest FOIL gain: (gain, feature, op, threshold, values) or None."""
        best = None

        def consider(p1, n1, make):
            nonlocal best
            with np.errstate(divide="ignore", invalid="ignore"):
                gain = p1 * (np.log2(p1 / (p1 + n1)) - base)
            gain = np.where(p1 >= min_support, gain, -np.inf)
            k = int(np.argmax(gain)) if gain.size else -1
            if k >= 0 and np.isfinite(gain[k]) and gain[k] > 0 and (best is None or gain[k] > best[0]):
                best = (float(gain[k]), *make(k))

        if self.binary.size:
            p_one, n_one = pos @ self.B, neg @ self.B
            p_all, n_all = pos.sum(), neg.sum()
            consider(p_one, n_one, lambda k: (int(self.binary[k]), ">", 0.5, None))
            consider(p_all - p_one, n_all - n_one, lambda k: (int(self.binary[k]), "<=", 0.5, None))
        for f, order, values, cut, mids, n_present in self.numeric:
            p_cum = np.concatenate([[0.0], np.cumsum(pos[order][:n_present])])
            n_cum = np.concatenate([[0.0], np.cumsum(neg[order][:n_present])])
            p_le, n_le = p_cum[cut], n_cum[cut]
            consider(p_le, n_le, lambda k, f=f, m=mids, v=values: (f, "<=", m[k], v))
            consider(p_cum[-1] - p_le, n_cum[-1] - n_le, lambda k, f=f, m=mids, v=values: (f, ">", m[k], v))
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
    A = np.asarray(X, dtype=np.float64)
    y = np.asarray(y_codes)
    if len(y) > max_rows:
        keep = np.sort(np.random.RandomState(random_state).choice(len(y), max_rows, replace=False))
        A, y = A[keep], y[keep]
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
