"""Binding parsed rules to a data set: its encoded features and its class labels.

A parsed condition names what a person wrote (``Margin = 5``, ``Margin is
missing``, ``petal width <= 1``, the paper's ``Margin_5 > 0.5``); binding finds
the encoded feature it means from the data's feature specs and returns a
condition on that feature, so evaluation runs on the encoded matrix exactly.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from explainer.data.features import FeatureSpec
from explainer.data.labels import match_label
from explainer.rules.model import Condition, Rule, RuleSet, ValueSet
from explainer.rules.render import value_text

_AMBIGUOUS = object()


def _loose(name: str) -> str:
    """Case, space and underscore blind form of a name, for hand-written rules."""
    return "".join(ch for ch in name if not (ch.isspace() or ch == "_")).lower()


def _as_specs(features: Iterable) -> list[FeatureSpec]:
    return [f if isinstance(f, FeatureSpec) else FeatureSpec(str(f), str(f)) for f in features]


class _Table:
    """Keys to specs; a key two specs share is ambiguous and found by neither."""

    def __init__(self):
        self.exact: dict = {}
        self.loose: dict = {}

    @staticmethod
    def _put(table: dict, key, spec: FeatureSpec) -> None:
        old = table.get(key)
        table[key] = spec if old is None or old is spec else _AMBIGUOUS

    def add(self, key, loose_key, spec: FeatureSpec) -> None:
        self._put(self.exact, key, spec)
        self._put(self.loose, loose_key, spec)

    def alias(self, loose_key, spec: FeatureSpec) -> None:
        self._put(self.loose, loose_key, spec)

    def find(self, key, loose_key, what: str) -> FeatureSpec | None:
        for table, k in ((self.exact, key), (self.loose, loose_key)):
            hit = table.get(k)
            if hit is _AMBIGUOUS:
                raise KeyError(f"{what!r} matches several features of the data; write the exact name")
            if hit is not None:
                return hit
        return None


class _Binder:
    def __init__(self, features: Iterable):
        self.specs = _as_specs(features)
        self.names = _Table()  # encoded feature names (and the paper's raw spellings)
        self.numeric = _Table()  # numeric features by column
        self.onehot = _Table()  # one-hot features by (column, value text)
        self.missing = _Table()  # missing indicators by column
        self.onehot_values: dict[str, list[FeatureSpec]] = {}
        for s in self.specs:
            self.names.add(s.name, _loose(s.name), s)
            if s.kind == "onehot":
                text = value_text(s.value)
                self.onehot.add((s.column, text), (_loose(s.column), _loose(text)), s)
                self.onehot_values.setdefault(_loose(s.column), []).append(s)
                # the paper's raw one-hot names: Margin_5, Margin=5
                self.names.alias(_loose(f"{s.column}={text}"), s)
                self.names.alias(_loose(f"{s.column}_{text}"), s)
            elif s.kind == "missing":
                self.missing.add(s.column, _loose(s.column), s)
                for alias in (f"{s.column} is missing", f"{s.column}=?", f"{s.column}_?"):
                    self.names.alias(_loose(alias), s)
            else:
                self.numeric.add(s.column, _loose(s.column), s)

    def by_name(self, name: str) -> FeatureSpec | None:
        return self.names.find(name, _loose(name), name)

    def by_column(self, column: str) -> FeatureSpec | None:
        """The numeric feature a written name means: its column first, then any feature of that name."""
        for table in (self.numeric.exact, self.names.exact):
            hit = table.get(column)
            if isinstance(hit, FeatureSpec):
                return hit
        return self.numeric.find(column, _loose(column), column) or self.by_name(column)

    def bind(self, cond: Condition | ValueSet) -> list[Condition | ValueSet]:
        if isinstance(cond, ValueSet):
            return self._bind_value_set(cond)
        reading = cond.spec
        if reading is not None and reading.kind == "onehot":
            return self._bind_onehot(cond, reading)
        if reading is not None and reading.kind == "missing":
            return self._bind_missing(cond, reading)
        spec = None
        if reading is not None:
            # already bound (a pool's own rule): its feature is the encoded name
            spec = self.names.exact.get(cond.feature)
        if not isinstance(spec, FeatureSpec):
            spec = self.by_column(cond.feature)
        if spec is None:
            categories = self.onehot_values.get(_loose(cond.feature))
            if categories:
                example = f"{categories[0].column} = {value_text(categories[0].value)}"
                raise KeyError(f"{cond.feature!r} is a categorical column in this data; write e.g. {example!r}")
            raise KeyError(f"the data has no feature {cond.feature!r}")
        return [Condition(spec.name, cond.op, cond.threshold, spec)]

    def _bind_onehot(self, cond: Condition, reading: FeatureSpec) -> list[Condition | ValueSet]:
        column, text = reading.column, value_text(reading.value)
        shown = f"{column} = {text}"
        spec = self.onehot.find((column, text), (_loose(column), _loose(text)), shown)
        if spec is None:
            spec = self._numeric_equal_value(column, text)
        if spec is None:
            # data encoded without specs: the one-hot column is just a name like "Margin=5"
            spec = self.by_name(f"{column}={text}")
        if spec is not None:
            return [Condition(spec.name, cond.op, cond.threshold, spec)]
        numeric = self.numeric.find(column, _loose(column), column)
        number = _as_number(text)
        if numeric is not None and number is not None:
            # x = 3 on a numeric feature: the value set {3} of that feature, one condition
            return [ValueSet(numeric.column, (number,), cond.op not in (">", ">="), numeric=numeric.name, specs=(numeric,))]
        raise KeyError(f"the data has no feature {shown!r}")

    def _bind_value_set(self, vs: ValueSet) -> list[Condition | ValueSet]:
        """``c in {a, b}`` on a categorical column: its one-hot features (one value: ``c = a``);
        ``c not in {a, b}``: ``c != a AND c != b``, the same rows; on a numeric column the values."""
        if vs.bound:
            return [vs]
        texts = [value_text(v) for v in vs.values]
        onehots = []
        for text in texts:
            spec = self.onehot.find((vs.column, text), (_loose(vs.column), _loose(text)), f"{vs.column} = {text}")
            onehots.append(spec if spec is not None else self._numeric_equal_value(vs.column, text))
        found = [spec for spec in onehots if spec is not None]
        if len(found) == len(onehots):
            if vs.negated:
                return [Condition(spec.name, "<=", 0.5, spec) for spec in found]
            if len(found) == 1:
                return [Condition(found[0].name, ">", 0.5, found[0])]
            return [ValueSet(found[0].column, tuple(spec.value for spec in found), False,
                             features=tuple(spec.name for spec in found), specs=tuple(found))]
        numeric = self.numeric.find(vs.column, _loose(vs.column), vs.column)
        numbers = [_as_number(text) for text in texts]
        if numeric is not None and all(n is not None for n in numbers):
            return [ValueSet(numeric.column, tuple(numbers), vs.negated, numeric=numeric.name, specs=(numeric,))]
        unknown = next((t for t, spec in zip(texts, onehots, strict=True) if spec is None), texts[0])
        if numeric is not None:
            raise KeyError(f"{unknown!r} is not a number; the column {vs.column!r} holds numbers")
        raise KeyError(f"the data has no feature {vs.column + ' = ' + unknown!r}")

    def _numeric_equal_value(self, column: str, text: str) -> FeatureSpec | None:
        number = _as_number(text)
        if number is None:
            return None
        hits = [s for s in self.onehot_values.get(_loose(column), []) if _as_number(value_text(s.value)) == number]
        return hits[0] if len(hits) == 1 else None

    def _bind_missing(self, cond: Condition, reading: FeatureSpec) -> list[Condition | ValueSet]:
        column = reading.column
        spec = self.missing.find(column, _loose(column), f"{column} is missing")
        if spec is None:
            spec = self.by_name(f"{column} is missing")
        if spec is not None:
            return [Condition(spec.name, cond.op, cond.threshold, spec)]
        numeric = self.by_column(column)
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
    rules = list(rules)
    if not rules:
        return []  # the index over every feature is not worth building for no rule
    binder = _Binder(features)
    out = []
    for rule in rules:
        conds: list[Condition | ValueSet] = []
        for cond in rule.conditions:
            conds.extend(binder.bind(cond))
        out.append(Rule(tuple(conds), rule.label))
    return out


def rules_for_data(rules: Iterable[Rule], features: Sequence, classes: Iterable) -> RuleSet:
    """Bind parsed rules to a data set: its features (specs or names) and class labels (a label read as text
    names the class with that text: :func:`~explainer.data.labels.match_label`).

    Raises ``KeyError`` for an unknown feature and ``ValueError`` for an unknown class.
    """
    classes = list(classes)
    out = []
    for rule in resolve_features(rules, features):
        try:
            label = match_label(rule.label, classes)
        except ValueError:
            raise ValueError(
                f"rule {rule.text!r} predicts {rule.label!r}, which is not a class of the data "
                f"(classes: {', '.join(map(str, classes))})"
            ) from None
        out.append(Rule(rule.conditions, label))
    return RuleSet(out)
