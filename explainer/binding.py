"""Binding parsed rules to a data set: its encoded features and its class labels.

A parsed condition names what a person wrote (``Margin = 5``, ``Margin is
missing``, ``petal width <= 1``, the paper's ``Margin_5 > 0.5``); binding finds
the encoded feature it means from the data's feature specs and returns a
condition on that feature, so evaluation runs on the encoded matrix exactly.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from .features import FeatureSpec
from .rules import Condition, Rule, RuleSet
from .ruletext import value_text

_AMBIGUOUS = object()


def _loose(name: str) -> str:
    """Case, space and underscore blind form of a name, for hand-written rules."""
    return "".join(ch for ch in name if not (ch.isspace() or ch == "_")).lower()


def _as_specs(features: Iterable) -> list[FeatureSpec]:
    return [f if isinstance(f, FeatureSpec) else FeatureSpec(str(f), str(f)) for f in features]


class _Binder:
    def __init__(self, features: Iterable):
        self.specs = _as_specs(features)
        self.by_name = {s.name: s for s in self.specs}
        self.loose: dict[str, object] = {}
        self.onehot: dict[tuple[str, str], object] = {}
        self.onehot_values: dict[str, list[FeatureSpec]] = {}
        self.missing: dict[str, object] = {}
        self.numeric: dict[str, object] = {}
        for s in self.specs:
            self._add(self.loose, _loose(s.name), s)
            if s.kind == "onehot":
                text = value_text(s.value)
                self._add(self.onehot, (s.column, text), s)
                self._add(self.onehot, (_loose(s.column), _loose(text)), s)
                self.onehot_values.setdefault(_loose(s.column), []).append(s)
                # the paper's raw one-hot names: Margin_5, Margin=5
                self._add(self.loose, _loose(f"{s.column}={text}"), s)
                self._add(self.loose, _loose(f"{s.column}_{text}"), s)
            elif s.kind == "missing":
                self._add(self.missing, s.column, s)
                self._add(self.missing, _loose(s.column), s)
                for alias in (f"{s.column} is missing", f"{s.column}=?", f"{s.column}_?"):
                    self._add(self.loose, _loose(alias), s)
            else:
                self._add(self.numeric, s.column, s)
                self._add(self.numeric, _loose(s.column), s)

    @staticmethod
    def _add(table: dict, key, spec: FeatureSpec) -> None:
        old = table.get(key)
        table[key] = spec if old is None or old is spec else _AMBIGUOUS

    def _pick(self, table: dict, keys, what: str) -> FeatureSpec | None:
        for key in keys:
            hit = table.get(key)
            if hit is _AMBIGUOUS:
                raise KeyError(f"{what!r} matches several features of the data; write the exact name")
            if hit is not None:
                return hit
        return None

    def by_feature(self, name: str) -> FeatureSpec | None:
        spec = self.by_name.get(name)
        return spec if spec is not None else self._pick(self.loose, [_loose(name)], name)

    def bind(self, cond: Condition) -> list[Condition]:
        reading = cond.spec
        if reading is not None and reading.kind == "onehot":
            return self._bind_onehot(cond, reading)
        if reading is not None and reading.kind == "missing":
            return self._bind_missing(cond, reading)
        spec = self.by_feature(cond.feature)
        if spec is None:
            raise KeyError(f"the data has no feature {cond.feature!r}")
        return [Condition(spec.name, cond.op, cond.threshold, spec)]

    def _bind_onehot(self, cond: Condition, reading: FeatureSpec) -> list[Condition]:
        column, text = reading.column, value_text(reading.value)
        shown = f"{column} = {text}"
        spec = self._pick(self.onehot, [(column, text), (_loose(column), _loose(text))], shown)
        if spec is None:
            spec = self._numeric_equal_value(column, text)
        if spec is None:
            # data encoded without specs: the one-hot column is just a name like "Margin=5"
            spec = self.by_feature(f"{column}={text}")
        if spec is not None:
            return [Condition(spec.name, cond.op, cond.threshold, spec)]
        numeric = self._pick(self.numeric, [column, _loose(column)], column)
        number = _as_number(text)
        if numeric is not None and number is not None:
            if cond.op in (">", ">="):
                # x = 3 on a numeric feature: 3 <= x <= 3, two conditions
                return [Condition(numeric.name, ">=", number, numeric), Condition(numeric.name, "<=", number, numeric)]
            raise ValueError(f"'{column} != {text}' on a numeric feature is not one condition; write two rules")
        raise KeyError(f"the data has no feature {shown!r}")

    def _numeric_equal_value(self, column: str, text: str) -> FeatureSpec | None:
        number = _as_number(text)
        if number is None:
            return None
        for s in self.onehot_values.get(_loose(column), []):
            value = _as_number(value_text(s.value))
            if value is not None and value == number:
                return s
        return None

    def _bind_missing(self, cond: Condition, reading: FeatureSpec) -> list[Condition]:
        column = reading.column
        spec = self._pick(self.missing, [column, _loose(column)], f"{column} is missing")
        if spec is None:
            spec = self.by_feature(f"{column} is missing")
        if spec is not None:
            return [Condition(spec.name, cond.op, cond.threshold, spec)]
        numeric = self._pick(self.numeric, [column, _loose(column)], column) or self.by_feature(column)
        if numeric is not None and cond.op in ("<=", "<"):
            # a comparison is false on a missing value, so "<= inf" holds exactly where x is present
            return [Condition(numeric.name, "<=", math.inf, numeric)]
        if numeric is not None:
            raise KeyError(f"the data has no missing values in {column!r} (no feature {column + ' is missing'!r})")
        raise KeyError(f"the data has no feature {column!r}")


def _as_number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def resolve_features(rules: Iterable[Rule], features: Sequence) -> list[Rule]:
    """Map the features of parsed rules onto a data set's encoded features.

    ``features`` are the data's :class:`FeatureSpec` (``Dataset.feature_specs``)
    or just its feature names.  Exact names win; otherwise a case-, space- and
    underscore-blind match.  ``Margin = 5`` binds to the one-hot feature of
    that category (or, for a numeric column, to ``5 <= Margin <= 5``, two
    conditions), ``Margin is missing`` to the missing indicator, and the
    paper's raw ``Margin_5 > 0.5`` / ``margin_? > 0.5`` to the same features.
    Raises ``KeyError`` naming the first feature the data does not have.
    """
    binder = _Binder(features)
    out = []
    for rule in rules:
        conds: list[Condition] = []
        for cond in rule.conditions:
            conds.extend(binder.bind(cond))
        out.append(Rule(tuple(conds), rule.label))
    return out


def rules_for_data(rules: Iterable[Rule], features: Sequence, classes: Iterable) -> RuleSet:
    """Bind parsed rules to a data set: its features (specs or names) and class labels (matched as strings).

    Raises ``KeyError`` for an unknown feature and ``ValueError`` for an unknown class.
    """
    by_str = {str(c): c for c in classes}
    out = []
    for rule in resolve_features(rules, features):
        label = by_str.get(str(rule.label))
        if label is None:
            raise ValueError(
                f"rule {rule.text!r} predicts {rule.label!r}, which is not a class of the data "
                f"(classes: {', '.join(map(str, by_str.values()))})"
            )
        out.append(Rule(rule.conditions, label))
    return RuleSet(out)
