"""Why the explanation gets a row wrong, and which rows a rule takes through a missing value.

Wrong rows (:func:`find_wrong_rows`): a row is wrong when the class it gets (the rules' vote, else the
fallback ``ELSE`` class where no rule fires or classes tie) is not its class, so the wrong rows are
exactly the rows :attr:`~explainer.report.metrics.RuleSetReport.accuracy` counts wrong.  Each gets one
reason, in :data:`REASONS`:

- ``"a wrong rule"``: only rules of another class fire, and one class wins their vote;
- ``"outvoted"``: rules of its class fire, but another class gets more of the firing rules;
- ``"tie -> fallback"``: classes tie among the firing rules and the ELSE class is wrong;
- ``"fallback"``: no rule fires and the ELSE class is wrong.

Missing values (:func:`missing_use`): a condition can hold on a row because the row's value is missing
(``stalk-root not in {c, r}`` holds on a missing stalk-root, see ``docs/method.md``).  Per rule, the
rows it fires on where a column one of its conditions reads is missing, and per column how many (the
conditions on one column are one phrase of the rule's text, ``32 < Age <= 54``);
a condition on a ``X is missing`` indicator says so in its text and is not counted.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from explainer.data.features import FeatureSpec
from explainer.report.coverage import RuleCoverage
from explainer.rules.model import Condition, Rule, ValueSet

#: the reasons a row is wrong, in the order they are listed
REASONS = ("a wrong rule", "outvoted", "tie -> fallback", "fallback")


@dataclass(frozen=True)
class WrongRows:
    """The rows the explanation gets wrong (positions, ascending), each with its reason and the firing
    rules that name another class than the row's (``rules``: (len(rows), R) boolean)."""

    rows: np.ndarray
    reasons: np.ndarray
    rules: np.ndarray

    def __len__(self) -> int:
        return len(self.rows)

    def counts(self) -> dict[str, int]:
        """Rows per reason, every reason of :data:`REASONS` in order (zeros included)."""
        return {r: int(np.count_nonzero(self.reasons == r)) for r in REASONS}

    def rule_lists(self) -> list[list[int]]:
        """Per wrong row, the positions of the firing rules of another class."""
        return [np.flatnonzero(w).tolist() for w in self.rules]


def find_wrong_rows(firing: RuleCoverage, predicted: np.ndarray) -> WrongRows:
    """The rows whose class code in ``predicted`` (the vote, else the fallback) is not their class."""
    y = firing.y
    rows = np.flatnonzero(np.asarray(predicted) != y)
    votes = firing.votes()[0][rows]
    own = firing.class_counts[y[rows], rows] if firing.n_classes else np.zeros(len(rows), dtype=np.int64)
    reasons = np.where(votes == -1, REASONS[3], np.where(votes == -2, REASONS[2],
                                                          np.where(own == 0, REASONS[0], REASONS[1])))
    other = firing.rule_class[None, :] != y[rows][:, None]
    return WrongRows(rows, reasons.astype(object), firing.firing(rows) & other)


# --------------------------------------------------------------------------- missing values


@dataclass(frozen=True)
class MissingUse:
    """Rows a rule fires on through a missing value: ``rows`` in all, and per column whose gaps let it
    fire ``(column, rows, positions in the rule of the conditions on that column)``."""

    rows: int = 0
    columns: tuple[tuple[str, int, tuple[int, ...]], ...] = ()

    def text(self) -> str:
        """``takes 1,728 rows through a missing stalk-root`` (or "" when it takes none)."""
        if not self.rows:
            return ""
        if len(self.columns) == 1:
            return f"takes {self.rows:,} rows through a missing {self.columns[0][0]}"
        parts = ", ".join(f"{column} ({n:,})" for column, n, _ in self.columns)
        return f"takes {self.rows:,} rows through a missing value: {parts}"


def _source(cond: Condition | ValueSet) -> tuple[str | None, tuple[str, ...]]:
    """(the column a condition reads, or None for a missing indicator; the encoded features it reads)."""
    if isinstance(cond, ValueSet):
        return cond.column, ((cond.numeric,) if cond.numeric is not None else cond.features)
    spec = cond.spec
    if spec is not None and spec.kind == "missing":
        return None, (cond.feature,)
    return (spec.column if spec is not None else cond.feature), (cond.feature,)


def missing_masks(X: pd.DataFrame, specs: Sequence[FeatureSpec], columns: Iterable[str]) -> dict[str, np.ndarray]:
    """Per source column of ``columns`` that ``specs`` describe: (N,) where its value is missing.

    Read from the column's ``is missing`` indicator, else from its numeric feature (NaN), else from its
    one-hot features (all 0: no category; without an indicator, a category the encoder never saw is read
    as missing too, as every one-hot condition reads it)."""
    wanted = set(columns)
    groups: dict[str, list[FeatureSpec]] = {}
    for spec in specs:
        if spec.column in wanted and spec.name in X.columns:
            groups.setdefault(spec.column, []).append(spec)
    out = {}
    for column, group in groups.items():
        by_kind = {kind: [s.name for s in group if s.kind == kind] for kind in ("missing", "numeric", "onehot")}
        if by_kind["missing"]:
            out[column] = X[by_kind["missing"][0]].to_numpy(dtype=np.float64) > 0.5
        elif by_kind["numeric"]:
            out[column] = np.isnan(X[by_kind["numeric"][0]].to_numpy(dtype=np.float64))
        else:
            out[column] = np.logical_not((X[by_kind["onehot"]].to_numpy(dtype=np.float64) > 0.5).any(axis=1))
    return out


def missing_use(rules: Sequence[Rule], X: pd.DataFrame, firing: RuleCoverage,
                specs: Sequence[FeatureSpec] | None = None) -> list[MissingUse]:
    """Per rule, the rows it fires on through a missing value (:class:`MissingUse`).

    ``specs`` (``Dataset.feature_specs``) say which cells were missing; without them a cell is missing
    where a feature the condition reads is NaN (a numeric column)."""
    sources = [[_source(c) for c in rule.conditions] for rule in rules]
    columns = {col for conds in sources for col, _ in conds if col is not None}
    masks = missing_masks(X, specs or [], columns)
    for conds in sources:
        for column, features in conds:
            if column is not None and column not in masks and all(f in X.columns for f in features):
                masks[column] = np.isnan(X[list(features)].to_numpy(dtype=np.float64)).any(axis=1)
    gaps = {column for column, mask in masks.items() if mask.any()}
    out = []
    for i, conds in enumerate(sources):
        used = [(k, column) for k, (column, _) in enumerate(conds) if column in gaps]
        if not used:  # the common case: no column this rule reads has a gap
            out.append(MissingUse())
            continue
        rows = firing.rows_of(i)
        hit = np.zeros(len(rows), dtype=bool)
        positions: dict[str, list[int]] = {}
        for k, column in used:
            positions.setdefault(column, []).append(k)
        per_column = []
        for column, ks in positions.items():
            # every condition on the column holds on these rows (the rule fires), through the gap
            here = masks[column][rows]
            hit |= here
            if here.any():
                per_column.append((column, int(np.count_nonzero(here)), tuple(ks)))
        out.append(MissingUse(int(np.count_nonzero(hit)), tuple(per_column)))
    return out
