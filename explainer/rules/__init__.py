"""Rules and the rule pool: the second stage of the pipeline (data -> **rules** -> selection -> report).

- :mod:`explainer.rules.model`: :class:`Condition`, :class:`Rule`, :class:`RuleSet`;
- :mod:`explainer.rules.numbers`: exact short numbers and thresholds;
- :mod:`explainer.rules.render` and :mod:`explainer.rules.parse`: the text form, written and read
  (the scanner and quoting in :mod:`explainer.rules.scan`);
- :mod:`explainer.rules.binding`: parsed rules tied to a data set's features and classes;
- :mod:`explainer.rules.simplify`: a rule's conditions on one column as one phrase;
- :mod:`explainer.rules.pool`: the CART grid and its root-to-leaf rules (:func:`build_pool`);
- :mod:`explainer.rules.defaults`: the pool an analyst gets without choosing.

This package is the public face of the stage: ``from explainer.rules import build_pool, RuleSet``.
"""

from explainer.rules.binding import resolve_features, rules_for_data
from explainer.rules.defaults import DEFAULT_DEPTH, DEFAULT_REPEATS, default_pool_settings
from explainer.rules.model import (
    COMPLEXITY_COUNTS,
    OPS,
    Condition,
    Rule,
    RuleSet,
    ValueSet,
    coverage_columns,
    drop_implied,
    merge_conditions,
    rule_complexity,
)
from explainer.rules.numbers import format_number, integer_threshold, shorten_threshold
from explainer.rules.parse import (
    MAX_LINE_CHARS,
    MAX_TEXT_CHARS,
    parse_condition,
    parse_rule,
    parse_rule_text,
    parse_rules,
)
from explainer.rules.pool import RulePool, build_pool, pool_from_rules
from explainer.rules.scan import RuleSyntaxError

__all__ = [
    "COMPLEXITY_COUNTS",
    "DEFAULT_DEPTH",
    "DEFAULT_REPEATS",
    "MAX_LINE_CHARS",
    "MAX_TEXT_CHARS",
    "OPS",
    "Condition",
    "Rule",
    "RulePool",
    "RuleSet",
    "RuleSyntaxError",
    "ValueSet",
    "build_pool",
    "coverage_columns",
    "default_pool_settings",
    "drop_implied",
    "format_number",
    "integer_threshold",
    "merge_conditions",
    "parse_condition",
    "parse_rule",
    "parse_rule_text",
    "parse_rules",
    "pool_from_rules",
    "resolve_features",
    "rule_complexity",
    "rules_for_data",
    "shorten_threshold",
]
