"""Report: the fourth stage of the pipeline (data -> rules -> selection -> **report**).

- :mod:`explainer.report.evaluation`: a rule set's metrics on data (:func:`evaluate_rules`,
  :class:`RuleSetReport`), the vote of its rules, and its exports (text, JSON, CSV);
- :mod:`explainer.report.figures`: the min/avg/max fitness figure of a run.

This package is the public face of the stage: ``from explainer.report import evaluate_rules``.
"""

from explainer.report.evaluation import (
    TIE,
    UNCOVERED,
    RuleMetrics,
    RuleSetReport,
    balanced_accuracy,
    evaluate_rules,
    explain_row,
    firing_rules,
    frame_to_safe_csv,
    holdout_report,
    neutralise_cell,
    vote,
)

__all__ = [
    "TIE",
    "UNCOVERED",
    "RuleMetrics",
    "RuleSetReport",
    "balanced_accuracy",
    "evaluate_rules",
    "explain_row",
    "firing_rules",
    "frame_to_safe_csv",
    "holdout_report",
    "neutralise_cell",
    "vote",
]
