"""A rule taken apart phrase by phrase, to change a threshold or a value set, or to drop a phrase.

:func:`rule_parts` splits a rule into the phrases its text prints (:func:`~explainer.rules.render.phrase_plan`):
numeric bounds (one bound, or the two of an interval ``32 < Age <= 54``), value sets (``Margin = 5``,
``buying in {low, med}``, ``buying not in {high, vhigh}``, ``thal in {6, 7}``) and the rest
(``Density is missing``, ``Age is not missing``), which can only be kept or dropped.  A part gives the
conditions that replace it (:meth:`RulePart.with_bounds`, :meth:`RulePart.with_values`); :func:`replace_parts`
puts a rule back together and :func:`settle` reads it back from its own text, bound to the data, so the
rule that is evaluated is exactly the rule its text says (a threshold of 32.5 on a whole-number column
prints, and so is, 32).

A rule may lose every condition: it then reads ``IF TRUE THEN CLASS=...`` and covers every row (the
rule model, its text and the parser all allow it).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from explainer.rules.binding import rules_for_data
from explainer.rules.model import Condition, Rule, ValueSet
from explainer.rules.parse import parse_rule
from explainer.rules.render import phrase_plan, render_phrases

#: what a part of a rule is: numeric bounds, a set of values, or a phrase that can only be dropped
PART_KINDS = ("bounds", "values", "fixed")


@dataclass(frozen=True)
class RulePart:
    """One phrase of a rule: its ``kind`` (:data:`PART_KINDS`), the column it reads, its conditions and text.

    For ``values``: the values named and whether they are excluded (``negated``); ``numeric`` when the
    values are numbers of a numeric column (``thal in {6, 7}``) rather than categories.
    """

    kind: str
    column: str
    conditions: tuple
    text: str
    values: tuple = ()
    negated: bool = False
    numeric: bool = False

    @property
    def lower(self) -> Condition | None:
        """The lower bound of a ``bounds`` part (``x > 3`` / ``x >= 3``), if it has one."""
        return next((c for c in self.conditions if c.op in (">", ">=")), None) if self.kind == "bounds" else None

    @property
    def upper(self) -> Condition | None:
        """The upper bound of a ``bounds`` part (``x <= 3`` / ``x < 3``), if it has one."""
        return next((c for c in self.conditions if c.op in ("<=", "<")), None) if self.kind == "bounds" else None

    def with_bounds(self, lower: float | None, upper: float | None) -> tuple:
        """The conditions of a ``bounds`` part with new thresholds; ``None`` leaves that bound out."""
        if self.kind != "bounds":
            raise ValueError(f"{self.text!r} has no numeric bounds")
        out = []
        for cond, value in ((self.lower, lower), (self.upper, upper)):
            if cond is not None and value is not None:
                if not math.isfinite(float(value)):
                    raise ValueError(f"a bound of {self.column!r} must be a finite number, not {value!r}")
                out.append(Condition(cond.feature, cond.op, float(value), cond.spec))
        return tuple(out)

    def with_values(self, values: Iterable) -> tuple:
        """The conditions of a ``values`` part naming ``values`` instead (in or not in, as before).

        No value left: ``not in {}`` excludes nothing, so the part is dropped; ``in {}`` would hold on no
        row, which no rule text can say (``ValueError``).
        """
        if self.kind != "values":
            raise ValueError(f"{self.text!r} names no values")
        values = tuple(values)
        if not values:
            if self.negated:
                return ()
            raise ValueError(f"{self.column!r} needs at least one value (or drop the condition)")
        return (ValueSet(self.column, values, self.negated),)


def rule_parts(rule: Rule) -> list[RulePart]:
    """The rule's phrases as editable parts, in the order its text prints them."""
    texts = render_phrases(rule)
    parts = []
    for (kind, column, payload), text in zip(phrase_plan(rule), texts, strict=True):
        if kind == "interval":
            parts.append(RulePart("bounds", column, tuple(payload), text))
        elif kind == "excluded":
            conds = tuple(c for c in rule.conditions if _excludes(c, column, payload))
            parts.append(RulePart("values", column, conds, text, tuple(payload), negated=True))
        elif kind == "set":
            parts.append(RulePart("values", column, (payload,), text, payload.values, payload.negated,
                                  numeric=payload.numeric is not None))
        else:
            parts.append(_condition_part(column, payload, text))
    return parts


def _condition_part(column: str, cond: Condition, text: str) -> RulePart:
    spec = cond.spec
    kind = spec.kind if spec is not None else "numeric"
    t = cond.threshold
    if spec is not None and kind == "onehot" and ((cond.op == ">" and 0 <= t < 1) or (cond.op == ">=" and 0 < t <= 1)):
        return RulePart("values", column, (cond,), text, (spec.value,))  # "= v": the one category
    if kind == "numeric" and math.isfinite(cond.threshold):
        return RulePart("bounds", column, (cond,), text)
    return RulePart("fixed", column, (cond,), text)


def _excludes(cond, column: str, values: Sequence) -> bool:
    """Whether ``cond`` is one of the ``!= v`` conditions of ``column`` (an excluded category)."""
    spec = cond.spec
    return (isinstance(cond, Condition) and spec is not None and spec.kind == "onehot" and spec.column == column
            and cond.op in ("<=", "<") and any(spec.value is v or spec.value == v for v in values))


def replace_parts(rule: Rule, parts: Sequence[RulePart], replacements: dict[int, tuple]) -> Rule:
    """``rule`` with the conditions of ``parts[k]`` replaced by ``replacements[k]`` (an empty tuple drops it)."""
    conditions: list[Condition | ValueSet] = []
    for k, part in enumerate(parts):
        conditions.extend(replacements.get(k, part.conditions))
    return Rule(tuple(conditions), rule.label)


def settle(rule: Rule, feature_specs: Sequence, classes: Iterable) -> Rule:
    """The rule its own text reads back as, bound to the data (its features and classes): what a kept
    edit is, once its text is read again.  Raises ``KeyError`` / ``ValueError`` as binding does."""
    return rules_for_data([parse_rule(rule.text)], feature_specs, classes)[0]
