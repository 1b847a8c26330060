"""explainer: explain a classification data set with a short set of IF-THEN decision rules.

One package per pipeline stage, each importing only the stages before it:
:mod:`explainer.data` (tables, encoder, target, data sets) -> :mod:`explainer.rules` (the rule
model, its text, the CART pool) -> :mod:`explainer.selection` (the problem, QGA and the
baselines, the exact MILP, the frontier) -> :mod:`explainer.report` (metrics, exports); then
:mod:`explainer.pipeline`, :mod:`explainer.estimator`, :mod:`explainer.cli`,
:mod:`explainer.bench` and :mod:`explainer.app` (the dashboard).
"""

__version__ = "0.1.0"

from explainer.report import evaluate_rules  # noqa: E402
from explainer.rules import (  # noqa: E402
    Condition,
    Rule,
    RulePool,
    RuleSet,
    build_pool,
    parse_rules,
    pool_from_rules,
    rules_for_data,
)
from explainer.selection import (  # noqa: E402
    ALGORITHMS,
    Callback,
    GenerationRecord,
    ProgressBar,
    Recorder,
    SelectionProblem,
    SelectionResult,
    StopFlag,
    solve,
)

__all__ = [
    "ALGORITHMS",
    "Callback",
    "Condition",
    "GenerationRecord",
    "ProgressBar",
    "Recorder",
    "Rule",
    "RuleSet",
    "RulePool",
    "SelectionProblem",
    "SelectionResult",
    "StopFlag",
    "build_pool",
    "evaluate_rules",
    "parse_rules",
    "pool_from_rules",
    "rules_for_data",
    "solve",
]
