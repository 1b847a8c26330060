"""explainer: explain a classification data set with a short set of IF-THEN decision rules.

Pipeline: :mod:`~explainer.data` (intake) -> :mod:`~explainer.pool` (CART grid -> rules)
-> :mod:`~explainer.problem` (coverage, conflicts, budgets) -> :mod:`~explainer.solvers`
(QGA and the baselines, exact MILP) -> :mod:`~explainer.report` (metrics, exports).
"""

__version__ = "0.1.0"

from .callbacks import Callback, GenerationRecord, ProgressBar, Recorder, StopFlag  # noqa: E402
from .pool import RulePool, build_pool, pool_from_rules  # noqa: E402
from .problem import SelectionProblem  # noqa: E402
from .report import evaluate_rules, rules_for_data  # noqa: E402
from .result import SelectionResult  # noqa: E402
from .rules import Condition, Rule, RuleSet, parse_rules  # noqa: E402
from .solvers import ALGORITHMS, solve  # noqa: E402

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
