"""Pool -> problem -> solve -> report in one call, and the defaults it fills in.

- :mod:`explainer.pipeline.explain`: :func:`explain_pool` (used by the CLI, the estimator and the
  dashboard), :class:`Explanation`, the rows' weights (:func:`row_weights`) and held-out splits;
- :mod:`explainer.pipeline.policy`: the default budget policy (:func:`default_budgets`).
"""

from __future__ import annotations

from explainer.pipeline.explain import (
    CLASS_WEIGHTS,
    Explanation,
    explain_pool,
    row_weights,
    split_holdout,
)
from explainer.pipeline.policy import (
    CONDITION_PRICE,
    DEFAULTS_QGA,
    ERROR_SHARES,
    FALLBACK_FORM_SHARE,
    FORMS,
    KNEE_TOLERANCE,
    POLICY_ROWS,
    DefaultBudgets,
    PolicyChoice,
    default_budgets,
    every_class_explained,
    form_rules,
    knee_budgets,
    left_out_class,
    policy_rows,
    reference_errors,
    resolve_budgets,
    resolve_defaults,
)
from explainer.selection.settings import RunSettings

__all__ = [
    "CLASS_WEIGHTS", "CONDITION_PRICE", "DEFAULTS_QGA", "ERROR_SHARES", "FALLBACK_FORM_SHARE", "FORMS",
    "KNEE_TOLERANCE", "POLICY_ROWS", "DefaultBudgets", "Explanation", "PolicyChoice", "RunSettings",
    "default_budgets", "every_class_explained", "explain_pool", "left_out_class", "form_rules", "knee_budgets",
    "policy_rows", "reference_errors", "resolve_budgets", "resolve_defaults", "row_weights", "split_holdout",
]
