"""Decision rules: conditions, rules and rule sets.

A condition compares one encoded feature with a threshold (``feature op
threshold``), so evaluating it on the encoded matrix is exact; it may carry the
feature's :class:`~explainer.data.features.FeatureSpec`, from which its text reads
the way a person writes it (``Margin = 5``, ``Margin is missing``,
``Age > 32``).  The text is written by :mod:`explainer.rules.render` and read
by :mod:`explainer.rules.parse`; binding parsed rules to a data set is
:mod:`explainer.rules.binding`.

Missing values (one semantics for the engine, the text, the parser and every
export): a comparison (``Age > 32``), ``Margin = 5`` and ``Margin in {4, 5}``
are false on a missing value; ``Margin != 5`` and ``Margin not in {4, 5}`` are
true on it ("is not 5" holds for a missing value); ``Margin is missing`` says
so.  This is what the encoded matrix gives (a one-hot feature is 0 on a missing
cell, a comparison with NaN is false), so every rule selects the same rows as
the tree path it came from.

Complexity has one count everywhere (:func:`rule_complexity`, the paper's length of
a rule: its number of conditions), stated in words by :data:`COMPLEXITY_COUNTS`.
It is what the tree paths tested, so it reads the same from a rule and from its
text read back: an interval such as ``32 < Age <= 54`` is printed as one phrase
but is two conditions (a lower and an upper bound); ``buying not in {high, vhigh}``
is one condition per value left out (``buying != high AND buying != vhigh``);
``thal in {6, 7}``, ``Margin = 5`` and ``Density is missing`` are one each.
``Rule.n_phrases`` counts the phrases the text prints, for display only.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from explainer.data.features import FeatureSpec
from explainer.rules.numbers import format_number, integer_threshold, shorten_threshold  # noqa: F401 - the rule model's public names
from explainer.rules.render import (
    phrase_plan,
    render_condition,
    render_label,
    render_rule,
    render_value_set,
)

OPS = ("<=", ">", "<", ">=")


@dataclass(frozen=True)
class Condition:
    """``feature op threshold`` with op one of ``<=``, ``>``, ``<``, ``>=``.

    ``spec`` (optional, not part of equality) says what the encoded feature
    means; it only changes how the condition is printed, never what it selects.
    """

    feature: str
    op: str
    threshold: float
    spec: FeatureSpec | None = field(default=None, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        if self.op not in OPS:
            raise ValueError(f"unknown comparison {self.op!r}; use one of {', '.join(OPS)}")
        object.__setattr__(self, "threshold", float(self.threshold))

    def holds(self, values: np.ndarray) -> np.ndarray:
        """Boolean mask; NaN (missing) never satisfies a comparison.

        On a one-hot feature a missing cell is 0, so ``Margin != 5`` (``<= 0.5``) holds there.
        """
        v = np.asarray(values, dtype=float)
        with np.errstate(invalid="ignore"):
            if self.op == "<=":
                return v <= self.threshold
            if self.op == ">":
                return v > self.threshold
            if self.op == "<":
                return v < self.threshold
            return v >= self.threshold

    def mask(self, X, feature_index: dict[str, int] | None = None) -> np.ndarray:
        """Rows of ``X`` (DataFrame, or 2-D array with ``feature_index``) where the condition holds."""
        return self.holds(_column(X, self.feature, feature_index))

    @property
    def text(self) -> str:
        return render_condition(self)

    def __str__(self) -> str:
        return self.text

    def to_dict(self) -> dict:
        out = {"feature": self.feature, "op": self.op, "threshold": self.threshold, "text": self.text}
        if self.spec is not None:
            out["column"] = self.spec.column
            out["kind"] = self.spec.kind
            if self.spec.kind == "onehot":
                out["value"] = self.spec.to_dict()["value"]
        return out


def _column(X, feature: str, feature_index: dict[str, int] | None) -> np.ndarray:
    if feature_index is None:
        if feature not in X.columns:
            raise KeyError(f"the data has no feature {feature!r}")
        return X[feature].to_numpy(dtype=float)
    return X[:, feature_index[feature]]


@dataclass(frozen=True)
class ValueSet:
    """``column in {v, w}`` or ``column not in {v, w}`` (``column = v`` / ``!= v`` with one value).

    It reads either the one 0/1 feature of each value (``features``, a categorical
    column's one-hot features) or one numeric feature compared with the values
    (``numeric``, e.g. ``thal in {6, 7}`` or ``sex = 1``).  ``in`` is false on a
    missing value and ``not in`` true, as everywhere (see the module docstring).
    A parsed set is unbound (no features) until :mod:`explainer.rules.binding`
    ties it to a data set.  It is one condition.
    """

    column: str
    values: tuple
    negated: bool = False
    features: tuple[str, ...] = ()  # one-hot features, one per value, in the order of values
    numeric: str | None = None  # or the numeric feature the values are compared with
    specs: tuple = field(default=(), compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", tuple(self.values))
        object.__setattr__(self, "features", tuple(self.features))

    @property
    def op(self) -> str:
        return "not in" if self.negated else "in"

    @property
    def feature(self) -> str:
        """The encoded feature a reader of ``Rule.features`` is shown (the first one read)."""
        if self.numeric is not None:
            return self.numeric
        return self.features[0] if self.features else self.column

    @property
    def spec(self):
        return None

    @property
    def bound(self) -> bool:
        return self.numeric is not None or len(self.features) == len(self.values)

    def mask(self, X, feature_index: dict[str, int] | None = None) -> np.ndarray:
        if not self.bound:
            raise KeyError(f"{self.text!r} is not tied to the data's features; bind the rules first")
        if self.numeric is not None:
            column = _column(X, self.numeric, feature_index)
            hit = np.isin(column, np.asarray([float(v) for v in self.values]))  # NaN is in no set
        else:
            hit = np.zeros(len(X), dtype=bool)
            for f in self.features:
                hit |= _column(X, f, feature_index) > 0.5
        return ~hit if self.negated else hit

    @property
    def text(self) -> str:
        return render_value_set(self)

    def __str__(self) -> str:
        return self.text

    def key(self) -> tuple:
        return self._key

    @cached_property
    def _key(self) -> tuple:  # a pool asks it of every rule many times while it removes duplicates
        return (self.column, self.op, tuple(sorted(str(v) for v in self.values)))

    def to_dict(self) -> dict:
        return {
            "column": self.column,
            "op": self.op,
            "values": [v.item() if isinstance(v, np.generic) else v for v in self.values],
            "features": list(self.features) if self.numeric is None else [self.numeric],
            "text": self.text,
        }


def merge_conditions(conditions: Iterable[Condition]) -> tuple[Condition, ...]:
    """Merge conditions on the same feature and direction (keep the tightest).

    ``x <= 3 AND x <= 2`` becomes ``x <= 2``; the order of first appearance is kept.
    """
    merged: dict[tuple[str, str], Condition] = {}
    for cond in conditions:
        upper = cond.op in ("<=", "<")
        key = (cond.feature, "upper" if upper else "lower")
        old = merged.get(key)
        if old is None:
            merged[key] = cond
            continue
        if upper:
            tighter = cond.threshold < old.threshold or (
                cond.threshold == old.threshold and cond.op == "<"
            )
        else:
            tighter = cond.threshold > old.threshold or (
                cond.threshold == old.threshold and cond.op == ">"
            )
        if tighter:
            # keep the old slot so the first-appearance order survives
            merged[key] = cond
    return tuple(merged.values())


def drop_implied(conditions: Iterable[Condition]) -> tuple[Condition, ...]:
    """Leave out conditions that the others already imply (the rule selects the same rows).

    Reads the conditions' feature specs: ``Margin = 1`` implies ``Margin != 2`` and
    ``Margin is not missing``; any condition on a column's values implies that the
    column is not missing (a missing value fails every condition); ``Margin = 5``
    implies ``Margin > 3`` when the column also offers numeric conditions.
    """
    conditions = tuple(conditions)
    equal: dict[str, object] = {}  # column -> the value an "=" condition fixes
    valued: set[str] = set()  # columns some condition reads the values of
    for c in conditions:
        spec = c.spec
        if spec is None:
            continue  # no reading known (or a value set)
        if spec.kind == "onehot" and c.op in (">", ">=") and c.threshold < 1:
            equal[spec.column] = spec.value
            valued.add(spec.column)
        elif spec.kind == "numeric":
            valued.add(spec.column)
    if not valued:
        return conditions
    kept = []
    for c in conditions:
        spec = c.spec
        if spec is not None and spec.column in valued:
            if spec.kind == "missing" and c.op in ("<=", "<") and c.threshold < 1:
                continue  # "is not missing" beside a condition on the values
            fixed = equal.get(spec.column, _UNSET)
            if fixed is not _UNSET:
                if spec.kind == "onehot" and c.op in ("<=", "<") and c.threshold >= 0 and spec.value != fixed:
                    continue  # "!= w" beside "= v"
                if spec.kind == "numeric" and _number(fixed) is not None and bool(
                    c.holds(np.array([_number(fixed)]))[0]
                ):
                    continue  # "> 3" beside "= 5"
        kept.append(c)
    return tuple(kept)


_UNSET = object()


def condition_count(cond) -> int:
    """How many conditions ``cond`` is in the complexity count (see :func:`rule_complexity`)."""
    if isinstance(cond, ValueSet) and cond.negated:
        # "x not in {a, b}" is how "x != a AND x != b" prints, so it costs what that costs
        return max(1, len(cond.values))
    return 1


def rule_complexity(rule) -> int:
    """The complexity of a rule: its number of conditions in the paper's sense.

    The one count of the project (the pool's lengths, the budgets, reports, exports and
    the evaluation of a rule file all use it).  A comparison is one condition, so an
    interval ``a < x <= b`` is two; ``x in {...}``, ``x = v`` and ``x is missing`` are one;
    ``x not in {v, w}`` is one per value.  The count of a rule and of its text read back
    agree, since the text only groups conditions and never merges them.
    """
    return sum(condition_count(c) for c in rule.conditions)


#: how :func:`rule_complexity` counts, in words (every export states it)
COMPLEXITY_COUNTS = (
    "complexity = the number of conditions: a comparison, '= v', 'in {...}' and 'is missing' count 1; "
    "an interval 'a < x <= b' counts 2; 'not in {v, w}' counts 1 per value"
)


def _number(value) -> float | None:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if math.isfinite(out) else None


@dataclass(frozen=True)
class Rule:
    """IF all conditions hold THEN the class is ``label``."""

    conditions: tuple[Condition | ValueSet, ...]
    label: object

    def __post_init__(self) -> None:
        object.__setattr__(self, "conditions", tuple(self.conditions))

    @cached_property
    def length(self) -> int:
        """Its complexity (:func:`rule_complexity`): the number of conditions.  Kept once counted: a pool's
        ``lengths`` and the duplicate check ask it of every rule many times."""
        return rule_complexity(self)

    @cached_property
    def n_phrases(self) -> int:
        """Its length in phrases: conditions on one column read as one (``buying in {low, med}``,
        ``32 < Age <= 54``), as the rule text prints them."""
        return len(phrase_plan(self))

    @property
    def features(self) -> list[str]:
        return [c.feature for c in self.conditions]

    @property
    def text(self) -> str:
        """One line in the paper's form; names and labels that need it are quoted."""
        return render_rule(self)

    def __str__(self) -> str:
        return self.text

    def covers(self, X, feature_index: dict[str, int] | None = None) -> np.ndarray:
        """Rows of ``X`` (DataFrame or 2-D array with ``feature_index``) where the rule fires."""
        mask = np.ones(len(X), dtype=bool)
        for cond in self.conditions:
            mask &= cond.mask(X, feature_index)
        return mask

    def key(self) -> tuple:
        """Identity of the rule up to the order of its conditions."""
        return self._key

    @cached_property
    def _key(self) -> tuple:  # a pool asks it of every rule many times while it removes duplicates
        conds = tuple(sorted(c.key() if isinstance(c, ValueSet) else (c.feature, c.op, c.threshold)
                             for c in self.conditions))
        return conds, str(self.label)

    def to_dict(self) -> dict:
        return {
            "text": self.text,
            "conditions": [c.to_dict() for c in self.conditions],
            "label": _jsonable(self.label),
            "length": self.length,
            "phrases": self.n_phrases,
        }


#: the condition masks :func:`coverage_columns` keeps at most (bytes): a census-sized table's pool shares
#: thousands of conditions, whose masks would not all fit
MASK_CACHE_BYTES = 64 * 2**20


def rule_masks(rules: Iterable[Rule], X, feature_index: dict[str, int] | None = None) -> Iterator[np.ndarray]:
    """The rows of ``X`` each rule covers (as :meth:`Rule.covers`), one rule at a time, so that memory stays
    linear in the rows however many rules a file holds.

    The rules of a pool share most of their conditions (every path of a tree begins with its root's), so
    each distinct condition is evaluated once while the cache of its rows stays within
    :data:`MASK_CACHE_BYTES`."""
    n = len(X)
    masks: dict = {}
    keep = max(1, MASK_CACHE_BYTES // max(n, 1))
    for rule in rules:
        covered = np.ones(n, dtype=bool)
        for cond in rule.conditions:
            mask = masks.get(cond)
            if mask is None:
                mask = cond.mask(X, feature_index)
                if len(masks) < keep:
                    masks[cond] = mask
            covered &= mask
        yield covered


def coverage_columns(rules: Sequence[Rule], X, feature_index: dict[str, int] | None = None) -> np.ndarray:
    """N x len(rules) boolean matrix: row j is covered by rule i (:func:`rule_masks`)."""
    out = np.empty((len(X), len(rules)), dtype=bool, order="F")  # a column per rule, contiguous
    for j, covered in enumerate(rule_masks(rules, X, feature_index)):
        out[:, j] = covered
    return out


def _jsonable(value):
    if isinstance(value, np.generic):
        return value.item()
    return value


_NO_FALLBACK = object()


@dataclass
class RuleSet(Sequence):
    """An ordered collection of rules (the explanation)."""

    rules: list[Rule] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rules = list(self.rules)

    @staticmethod
    def rule_length(rule: Rule) -> int:
        """A rule's share of the complexity (:func:`rule_complexity`)."""
        return rule_complexity(rule)

    def __len__(self) -> int:
        return len(self.rules)

    def __getitem__(self, i):
        return self.rules[i]

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules)

    @property
    def complexity(self) -> int:
        return sum(self.rule_length(r) for r in self.rules)

    def to_text(self, fallback=_NO_FALLBACK) -> str:
        """The paper's form: one rule a line, newline-terminated; with ``fallback``, a last
        line ``ELSE CLASS=fallback`` (the class of rows no rule covers, or where classes tie)."""
        text = "".join(r.text + "\n" for r in self.rules)
        if fallback is not _NO_FALLBACK:
            text += f"ELSE CLASS={render_label(fallback)}\n"
        return text

    def __str__(self) -> str:
        return self.to_text().rstrip("\n")

    def __repr__(self) -> str:
        return f"RuleSet({len(self.rules)} rules, complexity {self.complexity})"

    def coverage_matrix(self, X) -> np.ndarray:
        """N x len(self) boolean matrix: row j is covered by rule i."""
        return coverage_columns(self.rules, X)

