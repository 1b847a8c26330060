"""Rules in their simplest form: the conditions on one column become one phrase.

A tree path often says ``safety != low AND safety != med`` where safety takes
three values, or ``thal > 4`` where thal takes 3, 6 and 7, or ``sex > 0`` on a
0/1 column.  :class:`Simplifier` rewrites each column's conditions of a rule as
the one phrase that selects the same training rows: a value (``safety =
high``), a set (``buying in {low, med}``, ``maint not in {vhigh, high}``) or,
for a numeric column, the bounds it had (``32 < Age <= 54``).  It works from
the values each column takes in the training table, and keeps the semantics of
missing values (:mod:`explainer.rules.model`): where a column has gaps, a
phrase that is true on a gap (``not in``) replaces only conditions that are
true on it too, and a phrase false on a gap (``in``, ``=``) only conditions
false on it.  Every rewritten rule therefore selects exactly the training rows
of its path, and means exactly what its text says.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from explainer.data.features import FeatureSpec
from explainer.data.precision import FeatureMatrix, MixedPrecisionMatrix
from explainer.rules.model import Condition, Rule, ValueSet

#: an integer column with at most this many distinct values reads as its values (``thal in {6, 7}``)
CODE_MAX_VALUES = 10
#: a threshold on such a column is rewritten only when the values it selects are at most this many
CODE_MAX_SHOWN = 2


@dataclass
class ColumnDomain:
    """The values one column takes in the training table, and the features that read them."""

    column: str
    values: list  # distinct values seen (the categories, or the numbers of a code column), in order
    onehot: dict = field(default_factory=dict)  # value -> one-hot FeatureSpec
    numeric: FeatureSpec | None = None
    indicator: FeatureSpec | None = None
    has_missing: bool = False

    def points(self) -> tuple[np.ndarray, dict[str, int]]:
        """One encoded row per value and a last one for a missing value, over the column's features."""
        specs = [*self.onehot.values(), *([self.numeric] if self.numeric else []), *([self.indicator] if self.indicator else [])]
        index = {s.name: i for i, s in enumerate(specs)}
        rows = np.zeros((len(self.values) + 1, len(specs)))
        for r, value in enumerate(self.values):
            for s in specs:
                if s.kind == "onehot":
                    rows[r, index[s.name]] = float(s.value == value)
                elif s.kind == "numeric":
                    rows[r, index[s.name]] = float(value)
        for s in specs:
            rows[-1, index[s.name]] = {"onehot": 0.0, "numeric": np.nan, "missing": 1.0}[s.kind]
        return rows, index


def column_features(specs: list[FeatureSpec]) -> dict[str, list[int]]:
    """The encoded features of each table column (positions in ``specs``), in one pass over them."""
    by_column: dict[str, list[int]] = {}
    for j, s in enumerate(specs):
        by_column.setdefault(s.column, []).append(j)
    return by_column


def column_domain(X: FeatureMatrix, specs: list[FeatureSpec], column: str, idx: list[int]) -> ColumnDomain | None:
    """The domain of ``column`` (its features ``idx`` of the encoded training matrix ``X``), or None when its
    values cannot be listed."""
    onehot = {specs[j].value: specs[j] for j in idx if specs[j].kind == "onehot"}
    j_numeric = next((j for j in idx if specs[j].kind == "numeric"), None)
    numeric = specs[j_numeric] if j_numeric is not None else None
    indicator = next((specs[j] for j in idx if specs[j].kind == "missing"), None)
    num_col = np.asarray(X[:, j_numeric], dtype=np.float64) if j_numeric is not None else None
    if onehot:
        values = list(onehot)
        coded = X[:, [j for j in idx if specs[j].kind == "onehot"]]
        gaps = bool(np.any(coded.sum(axis=1) == 0)) if num_col is None else bool(np.isnan(num_col).any())
    elif numeric is not None and numeric.integer and num_col is not None:
        present = num_col[~np.isnan(num_col)]
        values = np.unique(present).tolist()
        if not 2 <= len(values) <= CODE_MAX_VALUES:
            return None
        gaps = bool(np.isnan(num_col).any())
    else:
        return None
    if indicator is not None:
        gaps = True
    return ColumnDomain(column, values, onehot, numeric, indicator, gaps)


class Simplifier:
    """Rewrites a rule's conditions column by column (see the module docstring)."""

    def __init__(self, X: FeatureMatrix, specs: list[FeatureSpec]):
        if not isinstance(X, MixedPrecisionMatrix):
            X = np.asarray(X)
            X = X if X.dtype in (np.float32, np.float64) else X.astype(np.float64)
        # a pool's float32 (or mixed) matrix is read as it is (its columns are read back as float64): no copy of it
        self.X, self.specs = X, specs
        self._features = column_features(specs)
        # each column's domain and points when a rule first names it: the rules of a pool name few of a
        # wide table's columns (all 10,000 of them took seconds a pool)
        self._domains: dict[str, ColumnDomain | None] = {}
        self._points: dict[str, tuple[np.ndarray, dict[str, int]]] = {}
        self._done: dict[tuple, list] = {}  # the paths of a grid share most of their column groups
        self._rules: dict[Rule, Rule] = {}  # and many trees of a grid end in the same paths

    def __call__(self, rule: Rule) -> Rule:
        out = self._rules.get(rule)
        if out is None:
            out = self._rules[rule] = self._simplified(rule)
        return out

    def _simplified(self, rule: Rule) -> Rule:
        groups: dict[str, list] = {}
        for c in rule.conditions:
            column = c.spec.column if c.spec is not None else getattr(c, "column", c.feature)
            groups.setdefault(column, []).append(c)
        out: list = []
        for column, conds in groups.items():
            domain = self._domain(column)
            if domain is None:
                out.extend(conds)
                continue
            key = (column, tuple(c.key() if isinstance(c, ValueSet) else (c.feature, c.op, c.threshold) for c in conds))
            if key not in self._done:
                self._done[key] = self._phrase(domain, conds)
            out.extend(self._done[key])
        return Rule(tuple(out), rule.label)

    def _domain(self, column: str) -> ColumnDomain | None:
        if column not in self._domains:
            idx = self._features.get(column)
            domain = self._domains[column] = None if idx is None else column_domain(self.X, self.specs, column, idx)
            if domain is not None:
                self._points[column] = domain.points()
        return self._domains[column]

    def _phrase(self, d: ColumnDomain, conds: list) -> list:
        rows, index = self._points[d.column]
        mask = np.ones(len(rows), dtype=bool)
        for c in conds:
            mask &= c.mask(rows, index)
        chosen = [v for v, m in zip(d.values, mask[:-1], strict=True) if m]
        others = [v for v, m in zip(d.values, mask[:-1], strict=True) if not m]
        on_gap = bool(mask[-1])
        if not chosen and on_gap:
            return self._missing(d, conds, True)
        if not others:
            return [] if on_gap else self._missing(d, conds, False)
        categorical = any((c.spec is not None and c.spec.kind == "onehot") or (isinstance(c, ValueSet) and c.numeric is None)
                          for c in conds)
        if not categorical and len(chosen) > CODE_MAX_SHOWN and not (len(others) == 1 and (on_gap or not d.has_missing)):
            return conds  # a threshold on a code column reads better than a long list
        # where the column has gaps, the phrase must agree with the conditions on a gap
        if d.has_missing:
            negated = on_gap
        elif categorical:
            negated = len(others) < len(chosen)
        else:
            negated = len(chosen) > CODE_MAX_SHOWN  # a code column reads as the values it takes
        return self._write(d, others if negated else chosen, negated)

    @staticmethod
    def _missing(d: ColumnDomain, conds: list, missing: bool) -> list:
        """``is missing`` / ``is not missing`` alone, where the column has the indicator."""
        if d.indicator is None:
            return conds
        return [Condition(d.indicator.name, ">" if missing else "<=", 0.5, d.indicator)]

    @staticmethod
    def _write(d: ColumnDomain, values: list, negated: bool) -> list:
        if d.onehot and all(v in d.onehot for v in values):
            specs = [d.onehot[v] for v in values]
            if negated:
                return [Condition(s.name, "<=", 0.5, s) for s in specs]  # != a AND != b: "not in {a, b}"
            if len(specs) == 1:
                return [Condition(specs[0].name, ">", 0.5, specs[0])]
            return [ValueSet(d.column, tuple(values), False, features=tuple(s.name for s in specs), specs=tuple(specs))]
        numeric = d.numeric
        # values not all one-hot come from a code column (column_domain), which has its numeric feature
        assert numeric is not None, f"column {d.column!r}: values outside its one-hot features"
        return [ValueSet(d.column, tuple(float(v) for v in values), negated, numeric=numeric.name, specs=(numeric,))]
