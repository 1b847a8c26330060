"""Accuracy by group: how well an explanation does on each group of rows of one column.

For a chosen column (often a sensitive one kept out of the rules, :mod:`explainer.rules.forbid`),
each of its groups gets its rows, the rows some selected rule covers (coverage), the rows
``predict`` gets right (the vote of the rules that fire, else the fallback class: the report's
:attr:`~explainer.report.metrics.RuleSetReport.accuracy`) and the balanced accuracy of those rows.
A group is one value of the column, a missing value a group of its own; a numeric column with more
than :data:`MAX_GROUPS` values is cut at its quantiles into at most that many ranges, each named by
the smallest and largest value of the table it holds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from explainer.data.encoder import MISSING_TEXT
from explainer.report.metrics import RuleSetReport, balanced_accuracy_of_codes
from explainer.rules.numbers import format_number

#: at most this many ranges for a numeric column of many values
MAX_GROUPS = 8
#: the group of the rows whose value is missing
MISSING_GROUP = MISSING_TEXT

COLUMNS = ("group", "rows", "covered", "coverage", "right", "accuracy", "balanced_accuracy")


@dataclass
class GroupAccuracy:
    """The accuracy and coverage of an explanation in each group of one column."""

    column: str
    frame: pd.DataFrame  # one line per group, in the column's order, the missing group last: :data:`COLUMNS`
    binned: bool  # whether the groups are ranges of a numeric column
    #: the ranges' upper edges and each range's name, to cut other rows (held-out ones) the same way
    ranges: tuple[np.ndarray, dict[int, str]] | None = field(default=None, repr=False)

    def to_dict(self) -> dict:
        return {"column": self.column, "binned": self.binned,
                "groups": [{k: _plain(v) for k, v in row.items()} for row in self.frame.to_dict("records")]}

    def to_text(self, rows: str = "") -> str:
        """A small table: group, rows, coverage, accuracy, balanced accuracy (``rows`` names the rows, e.g.
        held-out rows)."""
        f = self.frame
        width = max([len("group"), *(len(g) for g in f["group"])])
        what = ", ".join(w for w in ("ranges of its values" if self.binned else "", rows) if w)
        lines = [f"accuracy by group of {self.column}" + (f" ({what})" if what else "") + ":",
                 f"  {'group':<{width}s} {'rows':>7s} {'coverage':>9s} {'accuracy':>9s} {'balanced':>9s}"]
        for group, n, cov, acc, bal in zip(f["group"].tolist(), f["rows"].tolist(), f["coverage"].tolist(),
                                           f["accuracy"].tolist(), f["balanced_accuracy"].tolist(), strict=True):
            lines.append(f"  {str(group):<{width}s} {int(n):7d} {100 * float(cov):8.2f}% "
                         f"{100 * float(acc):8.2f}% {100 * float(bal):8.2f}%")
        return "\n".join(lines) + "\n"


def accuracy_by_group(report, values, column: str | None = None, *, max_groups: int = MAX_GROUPS,
                      like: GroupAccuracy | None = None) -> GroupAccuracy:
    """The explanation's coverage and accuracy in each group of ``values`` (one value per row of ``report``,
    in the table's own values, e.g. ``dataset.encoder.inverse_transform(X)[column]``).

    ``report``: a :class:`~explainer.report.RuleSetReport`, or a fitted estimator (its ``report_``) or an
    :class:`~explainer.pipeline.Explanation` (its ``report``); for held-out rows pass ``report.holdout`` and
    their values, and ``like=`` the training rows' table, so that a numeric column is cut into the same
    ranges (named by the training rows' values; a value beyond them falls in the first or last range).
    """
    report = getattr(report, "report_", None) or getattr(report, "report", report)  # an estimator's, an explanation's
    if not isinstance(report, RuleSetReport):
        raise TypeError("accuracy_by_group needs a RuleSetReport (or an Explanation)")
    series = pd.Series(values.to_numpy() if isinstance(values, pd.Series) else list(values), dtype=object)
    if len(series) != report.n_rows:
        raise ValueError(f"{len(series)} values for {report.n_rows} rows: give one value of the column per row")
    if max_groups < 2:
        raise ValueError("max_groups must be at least 2")
    name = column if column is not None else str(getattr(values, "name", None) or "column")
    labels, order, ranges = _groups(series, max_groups, like.ranges if like is not None else None)
    y, _, predicted = report._label_codes()
    covered = report.firing.covered_mask
    right = predicted == y
    rows = []
    for group in order:
        m = labels == group
        n = int(m.sum())
        if not n:
            continue  # a range of the training rows that none of these rows falls in
        rows.append({
            "group": group, "rows": n, "covered": int((covered & m).sum()),
            "coverage": float((covered & m).sum()) / n, "right": int((right & m).sum()),
            "accuracy": float((right & m).sum()) / n,
            "balanced_accuracy": balanced_accuracy_of_codes(y[m], predicted[m]),
        })
    return GroupAccuracy(name, pd.DataFrame(rows, columns=list(COLUMNS)), ranges is not None, ranges)


def _groups(series: pd.Series, max_groups: int, ranges=None) -> tuple[np.ndarray, list[str], tuple | None]:
    """Each row's group label, the labels in order (the missing group last) and the ranges (None: the groups
    are values); ``ranges``: cut the values at these instead."""
    missing = series.isna().to_numpy()
    present = series[~missing]
    numbers = pd.to_numeric(present, errors="coerce")
    numeric = bool(len(present)) and not numbers.isna().any() and not present.map(
        lambda v: isinstance(v, (bool, np.bool_, str))).any()
    labels = np.full(len(series), MISSING_GROUP, dtype=object)
    if numeric:
        values = numbers.to_numpy(dtype=float)
        distinct = np.unique(values)
        if ranges is not None or distinct.size > max_groups:
            if ranges is None:
                edges = np.unique(np.quantile(values, np.linspace(0, 1, max_groups + 1)[1:-1], method="lower"))
                bins = _bins(values, edges)
                ranges = (edges, {int(b): _range_name(values[bins == b]) for b in np.unique(bins)})
            edges, names = ranges
            # a value beyond the ranges named falls in the nearest one
            bins = np.clip(_bins(values, edges), min(names), max(names))
            texts = [names[int(b)] for b in bins]  # every range up to the last holds an edge: none is empty
            order = list(dict.fromkeys(names.values()))
        else:
            texts = [format_number(v) for v in values]
            order = [format_number(v) for v in distinct]
    else:
        texts = [str(v) for v in present]
        order = sorted(set(texts), key=lambda t: (t.casefold(), t))
    labels[~missing] = np.array(texts, dtype=object)
    if missing.any():
        order = [o for o in order if o != MISSING_GROUP] + [MISSING_GROUP]
    return labels, order, ranges


def _bins(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """The range of each value: range k is (edges[k-1], edges[k]], so a value heaping at an edge (a column
    mostly 0) closes its own range and the values above it still get theirs."""
    return np.searchsorted(edges, values, side="left")


def _range_name(values: np.ndarray) -> str:
    lo, hi = values.min(), values.max()
    return format_number(lo) if lo == hi else f"{format_number(lo)} to {format_number(hi)}"


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value
