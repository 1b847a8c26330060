"""One rule of a report edited, its numbers and the set's at once: :class:`RuleEdits`.

A report already holds, per row, how many of its rules name each class (its
:class:`~explainer.report.coverage.RuleCoverage`).  Putting an edited rule in the place of rule ``i``
is then: take rule ``i``'s rows out of its class's count, add the edited rule's rows to its class,
vote again (:func:`~explainer.report.coverage.vote_codes`, the reports' own vote) and give the
fallback class where no rule fires or classes tie, as ``predict`` does.  Only the edited rule is
evaluated on the rows (one comparison per condition, on the columns it reads); the other rules are
never evaluated again.  The fallback class stays the report's (its ``ELSE CLASS``): the numbers are
those of the explanation with one rule replaced, before any new run.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from explainer.data.labels import label_key, sorted_labels
from explainer.report.coverage import vote_codes
from explainer.report.evaluation import _reads
from explainer.report.metrics import RuleSetReport, balanced_accuracy_of_codes
from explainer.rules.model import Rule


@dataclass(frozen=True)
class EditMetrics:
    """The numbers of an edited rule and of the rule set with it in place of rule ``index``."""

    index: int
    support: int  # rows the edited rule covers
    correct: int  # of those, rows of its class
    accuracy: float  # the set's, with the fallback class where no rule fires or classes tie
    balanced_accuracy: float
    changed: int  # rows whose class (vote, else fallback) is not the one they got before

    @property
    def errors(self) -> int:
        """Covered rows not of the rule's class."""
        return self.support - self.correct

    @property
    def precision(self) -> float:
        return self.correct / self.support if self.support else 0.0


class RuleEdits:
    """Edits of the rules of ``report``, evaluated on the rows ``X`` (the encoded rows of the report, in order).

    Made once per report: it keeps the report's per-row class counts and class codes, and the columns of
    ``X`` that edited rules have read (each read once).  :meth:`evaluate` then costs one pass of the
    edited rule over the rows and one vote over (classes x rows) counts.
    """

    def __init__(self, report: RuleSetReport, X: pd.DataFrame):
        if len(X) != report.n_rows:
            raise ValueError(f"the report counts {report.n_rows} rows, the data has {len(X)}")
        self.report = report
        self.X = X
        firing = report.firing
        self._counts = firing.class_counts  # (K, N), read only
        self._y = firing.y
        classes = report.classes if report.classes is not None else sorted_labels(report.y)
        keys = [label_key(c) for c in classes]
        fallback = label_key(report.fallback)
        self._keys = keys
        self._fallback = keys.index(fallback) if fallback in keys else -3  # a fallback of no class: never right
        before = vote_codes(self._counts)
        self._before = np.where(before >= 0, before, self._fallback)
        self._columns: dict[str, np.ndarray] = {}
        #: how many columns of ``X`` have been read (each once), and how many edits evaluated
        self.columns_read = 0
        self.evaluated = 0

    def class_code(self, label) -> int:
        """The class code of a rule's label among the report's classes."""
        key = label_key(label)
        if key not in self._keys:
            raise ValueError(f"{label!r} is not a class of these rules' data ({', '.join(map(str, self._keys))})")
        return self._keys.index(key)

    def covers(self, rule: Rule) -> np.ndarray:
        """The rows ``rule`` fires on, from the columns it reads (kept for the next edit)."""
        names = list(dict.fromkeys(f for c in rule.conditions for f in _reads(c)))
        for name in names:
            if name not in self._columns:
                if name not in self.X.columns:
                    raise KeyError(f"the data has no feature {name!r}")
                self._columns[name] = self.X[name].to_numpy(dtype=np.float64)
                self.columns_read += 1
        if not names:
            return np.ones(self.report.n_rows, dtype=bool)
        matrix = np.column_stack([self._columns[name] for name in names])
        return rule.covers(matrix, {name: j for j, name in enumerate(names)})

    def evaluate(self, index: int, rule: Rule) -> EditMetrics:
        """``rule`` in the place of rule ``index``: its support and errors, and the set's accuracies."""
        if index not in range(self.report.n_rules):
            raise IndexError(f"rule {index} is not among the report's {self.report.n_rules} rules")
        firing = self.report.firing
        new_class = self.class_code(rule.label)
        rows = self.covers(rule)
        counts = self._counts.copy()
        counts[firing.rule_class[index]] -= np.unpackbits(firing.bits[index], count=self.report.n_rows)
        counts[new_class] += rows
        votes = vote_codes(counts)
        given = np.where(votes >= 0, votes, self._fallback)
        self.evaluated += 1
        n = self.report.n_rows
        return EditMetrics(
            index=index,
            support=int(np.count_nonzero(rows)),
            correct=int(np.count_nonzero(rows & (self._y == new_class))),
            accuracy=float(np.mean(given == self._y)) if n else 0.0,
            balanced_accuracy=balanced_accuracy_of_codes(self._y, given),
            changed=int(np.count_nonzero(given != self._before)),
        )
