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

The length of a rule (its complexity in the paper's sense) is its number of
conditions.  An interval such as ``32 < Age <= 54`` is printed as one phrase
but is two conditions and counts 2.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from explainer.data.features import FeatureSpec
from explainer.rules.numbers import format_number, integer_threshold, shorten_threshold  # noqa: F401 - the rule model's public names
from explainer.rules.render import render_condition, render_rule

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
            continue
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


def _number(value) -> float | None:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if math.isfinite(out) else None


@dataclass(frozen=True)
class Rule:
    """IF all conditions hold THEN the class is ``label``."""

    conditions: tuple[Condition, ...]
    label: object

    def __post_init__(self) -> None:
        object.__setattr__(self, "conditions", tuple(self.conditions))

    @property
    def length(self) -> int:
        return len(self.conditions)

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
        n = len(X)
        mask = np.ones(n, dtype=bool)
        for cond in self.conditions:
            if feature_index is None:
                if cond.feature not in X.columns:
                    raise KeyError(f"the data has no feature {cond.feature!r}")
                column = X[cond.feature].to_numpy(dtype=float)
            else:
                column = X[:, feature_index[cond.feature]]
            mask &= cond.holds(column)
        return mask

    def key(self) -> tuple:
        """Identity of the rule up to the order of its conditions."""
        conds = tuple(sorted((c.feature, c.op, c.threshold) for c in self.conditions))
        return conds, str(self.label)

    def to_dict(self) -> dict:
        return {
            "text": self.text,
            "conditions": [c.to_dict() for c in self.conditions],
            "label": _jsonable(self.label),
            "length": self.length,
        }


def _jsonable(value):
    if isinstance(value, np.generic):
        return value.item()
    return value


@dataclass
class RuleSet(Sequence):
    """An ordered collection of rules (the explanation)."""

    rules: list[Rule] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rules = list(self.rules)

    def __len__(self) -> int:
        return len(self.rules)

    def __getitem__(self, i):
        return self.rules[i]

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules)

    @property
    def complexity(self) -> int:
        return sum(r.length for r in self.rules)

    def to_text(self) -> str:
        """The paper's form: one rule a line, newline-terminated."""
        return "".join(r.text + "\n" for r in self.rules)

    def __str__(self) -> str:
        return self.to_text().rstrip("\n")

    def __repr__(self) -> str:
        return f"RuleSet({len(self.rules)} rules, complexity {self.complexity})"

    def coverage_matrix(self, X) -> np.ndarray:
        """N x len(self) boolean matrix: row j is covered by rule i."""
        if not self.rules:
            return np.zeros((len(X), 0), dtype=bool)
        return np.column_stack([r.covers(X) for r in self.rules])

