"""Pool -> problem -> solve -> report in one call, and the defaults it fills in.

- :mod:`explainer.pipeline.explain`: :func:`explain_pool` (used by the CLI, the estimator and the
  dashboard), :class:`Explanation`, the rows' weights (:func:`row_weights`) and held-out splits;
- :mod:`explainer.pipeline.policy`: the default budget policy (:func:`default_budgets`);
- :mod:`explainer.pipeline.validation`: its held-out validation and the accuracy frontier
  (:func:`accuracy_frontier`).
"""

from __future__ import annotations

from explainer.pipeline.explain import (
    CLASS_WEIGHTS,
    Explanation,
    explain_pool,
    room_for_pins,
    row_weights,
    split_holdout,
)
from explainer.pipeline.policy import (
    DEFAULTS_QGA,
    FORMS,
    KNEE_TOLERANCE,
    DefaultBudgets,
    PolicyChoice,
    default_budgets,
    every_class_explained,
    form_rules,
    knee_budgets,
    resolve_budgets,
    resolve_defaults,
)
from explainer.pipeline.reading import POLICY_ROWS, left_out_class, policy_rows, reference_errors
from explainer.pipeline.validation import SIZES, AccuracyPoint, accuracy_frontier, one_se_rule
from explainer.selection.settings import RunSettings

__all__ = [
    "CLASS_WEIGHTS", "DEFAULTS_QGA", "FORMS", "KNEE_TOLERANCE", "POLICY_ROWS", "SIZES", "AccuracyPoint",
    "DefaultBudgets", "Explanation", "PolicyChoice", "RunSettings", "accuracy_frontier", "default_budgets",
    "every_class_explained", "explain_pool", "left_out_class", "form_rules", "knee_budgets", "one_se_rule",
    "policy_rows", "reference_errors", "resolve_budgets", "resolve_defaults", "room_for_pins", "row_weights", "split_holdout",
]
