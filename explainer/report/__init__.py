"""Report: the fourth stage of the pipeline (data -> rules -> selection -> **report**).

- :mod:`explainer.report.evaluation`: a rule set evaluated on data (:func:`evaluate_rules`), the vote of
  its rules, held-out rows, one row explained;
- :mod:`explainer.report.metrics`: what an evaluation holds (:class:`RuleSetReport`, per-rule
  :class:`RuleMetrics`) and its exports (text, JSON, CSV);
- :mod:`explainer.report.diagnosis`: why a row is wrong (:meth:`RuleSetReport.wrong_rows`), and the rows
  each rule takes through a missing value (:attr:`RuleMetrics.missing_rows`);
- :mod:`explainer.report.figures`: the min/avg/max fitness figure of a run;
- :mod:`explainer.report.probabilities`: the class probabilities of a rule set's vote (``predict_proba``,
  and the held-out Brier score the default policy weighs);
- :mod:`explainer.report.groups`: accuracy and coverage in each group of one column
  (:func:`accuracy_by_group`).

This package is the public face of the stage: ``from explainer.report import evaluate_rules``.
"""

from explainer.report.coverage import TIE, UNCOVERED
from explainer.report.evaluation import (
    evaluate_rules,
    explain_row,
    firing_rules,
    holdout_report,
    selection_scores,
    vote,
)
from explainer.report.groups import GroupAccuracy, accuracy_by_group
from explainer.report.metrics import (
    RuleMetrics,
    RuleSetReport,
    balanced_accuracy,
    frame_to_safe_csv,
    neutralise_cell,
)

__all__ = [
    "TIE",
    "GroupAccuracy",
    "UNCOVERED",
    "RuleMetrics",
    "RuleSetReport",
    "accuracy_by_group",
    "balanced_accuracy",
    "evaluate_rules",
    "explain_row",
    "firing_rules",
    "frame_to_safe_csv",
    "holdout_report",
    "neutralise_cell",
    "selection_scores",
    "vote",
]
