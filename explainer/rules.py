"""Decision rules: conditions, rules and rule sets, with the paper's text form.

A rule renders as one line, exactly as in the paper::

    IF petal_length <= 2.45 AND petal_width > 0.8 THEN CLASS=Iris-versicolor

and :func:`parse_rules` reads that form back.  A condition on a missing value
is false, so a rule never fires on a row where one of its features is missing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

OPS = ("<=", ">", "<", ">=")


class RuleSyntaxError(ValueError):
    """A rule line that cannot be read; the message names the line."""


def format_number(value: float) -> str:
    """Shortest text that reads back as exactly ``value`` (no exponent for usual sizes)."""
    if value == 0:
        return "0"
    text = repr(float(value))
    if "e" in text or "E" in text:
        positional = np.format_float_positional(float(value), unique=True, trim="-")
        if float(positional) == float(value) and len(positional) <= 24:
            text = positional
    if text.endswith(".0"):
        text = text[:-2]
    return text


def _round_sig(value: float, digits: int) -> float:
    if value == 0 or not math.isfinite(value):
        return value
    return float(f"{value:.{digits}g}")


def shorten_threshold(threshold: float, values: np.ndarray | None) -> float:
    """A short decimal that splits ``values`` exactly where ``threshold`` does.

    Tree thresholds are float midpoints such as 2.450000047683716 (or random
    points for the random splitter); printing them short must not move any row
    to the other side.  ``values`` are the feature's distinct observed values,
    sorted, without NaN; without them only float32 noise is trimmed.
    """
    t = float(threshold)
    if not math.isfinite(t):
        return t
    first = float(str(np.float32(t)))
    if values is None:
        return first if abs(first - t) <= 1e-6 * max(1.0, abs(t)) else t
    u = np.asarray(values, dtype=float)
    idx = int(np.searchsorted(u, t, side="right"))
    lo = u[idx - 1] if idx > 0 else -math.inf
    hi = u[idx] if idx < u.size else math.inf
    # Tree midpoints print with few digits as float32; random thresholds do not.
    digits = format_number(first).replace("-", "").replace(".", "").strip("0")
    if len(digits) <= 4 and lo <= first < hi:
        return first
    for d in range(3, 18):
        cand = _round_sig(t, d)
        if lo <= cand < hi:
            return cand
    return t


@dataclass(frozen=True)
class Condition:
    """``feature op threshold`` with op one of ``<=``, ``>``, ``<``, ``>=``."""

    feature: str
    op: str
    threshold: float

    def __post_init__(self) -> None:
        if self.op not in OPS:
            raise ValueError(f"unknown comparison {self.op!r}; use one of {', '.join(OPS)}")
        object.__setattr__(self, "threshold", float(self.threshold))

    def holds(self, values: np.ndarray) -> np.ndarray:
        """Boolean mask; NaN (missing) never satisfies a condition."""
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
        return f"{self.feature} {self.op} {format_number(self.threshold)}"

    def __str__(self) -> str:
        return self.text

    def to_dict(self) -> dict:
        return {"feature": self.feature, "op": self.op, "threshold": self.threshold}


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
        body = " AND ".join(c.text for c in self.conditions) if self.conditions else "TRUE"
        return f"IF {body} THEN CLASS={self.label}"

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

    @classmethod
    def from_text(cls, text: str, labels: Iterable | None = None) -> RuleSet:
        return cls(parse_rules(text, labels=labels))

    def coverage_matrix(self, X) -> np.ndarray:
        """N x len(self) boolean matrix: row j is covered by rule i."""
        if not self.rules:
            return np.zeros((len(X), 0), dtype=bool)
        return np.column_stack([r.covers(X) for r in self.rules])


_RULE_RE = re.compile(r"^\s*IF\s+(?P<body>.+?)\s+THEN\s+(?P<head>.+?)\s*$", re.IGNORECASE | re.DOTALL)
_HEAD_RE = re.compile(r"^CLASS\s*=\s*(?P<label>.*?)$", re.IGNORECASE)
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?inf"
_COND_RE = re.compile(rf"^(?P<feature>.+?)\s*(?P<op><=|>=|<|>|==|=)\s*(?P<value>{_NUMBER})$")
_SPLIT_AND = re.compile(r"\s+AND\s+")


def parse_condition(text: str) -> list[Condition]:
    """One condition of a rule line.

    ``x <= 2.5``, ``x > 2.5``, ``x < 2``, ``x >= 2`` as they are; ``x = 3`` or
    ``x == 3`` (an equality another learner may print) becomes ``3 <= x <= 3``,
    which is two conditions; ``Margin=5`` alone (a one-hot feature written as a
    fact) becomes ``Margin=5 > 0.5``.
    """
    text = text.strip()
    match = _COND_RE.match(text)
    if match is None:
        if text:
            return [Condition(text, ">", 0.5)]
        raise RuleSyntaxError("empty condition")
    feature = match.group("feature").strip()
    op = match.group("op")
    value = float(match.group("value"))
    if not feature:
        raise RuleSyntaxError(f"condition {text!r} has no feature name")
    if op in ("=", "=="):
        # Could be a one-hot name like "Margin=5" on its own: the caller resolves
        # which reading fits the data; here equality is kept as a closed interval.
        return [Condition(feature, ">=", value), Condition(feature, "<=", value)]
    return [Condition(feature, op, value)]


def _match_label(raw: str, labels: Iterable | None):
    if labels is None:
        return raw
    by_text = {str(lab): lab for lab in labels}
    if raw in by_text:
        return by_text[raw]
    raise RuleSyntaxError(
        f"class {raw!r} is not a class of the data (classes: {', '.join(sorted(by_text))})"
    )


def parse_rule(line: str, labels: Iterable | None = None) -> Rule:
    """Read one ``IF ... THEN CLASS=label`` line."""
    match = _RULE_RE.match(line)
    if match is None:
        raise RuleSyntaxError(f"expected 'IF <conditions> THEN CLASS=<label>', got {line.strip()!r}")
    body = match.group("body").strip()
    head_text = match.group("head").strip()
    head = _HEAD_RE.match(head_text)
    label_text = head.group("label").strip() if head else head_text
    if not label_text:
        raise RuleSyntaxError(f"rule {line.strip()!r} has no class after THEN")
    conditions: list[Condition] = []
    if body.upper() != "TRUE":
        for part in _SPLIT_AND.split(body):
            try:
                conditions.extend(parse_condition(part))
            except ValueError as exc:
                raise RuleSyntaxError(f"in rule {line.strip()!r}: {exc}") from None
    return Rule(tuple(conditions), _match_label(label_text, labels))


def parse_rules(text: str, labels: Iterable | None = None) -> list[Rule]:
    """Rules from text, one a line; blank lines and lines starting with ``#`` are skipped.

    A rule may wrap onto following lines (as in the paper's figures): a line
    that does not start with ``IF`` continues the previous one.
    """
    logical: list[tuple[int, str]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if re.match(r"^IF\s", line, re.IGNORECASE) or not logical:
            logical.append((number, line))
        else:
            start, prev = logical[-1]
            logical[-1] = (start, prev + " " + line)
    rules = []
    for number, line in logical:
        try:
            rules.append(parse_rule(line, labels=labels))
        except RuleSyntaxError as exc:
            raise RuleSyntaxError(f"line {number}: {exc}") from None
    return rules


def resolve_features(rules: Iterable[Rule], feature_names: Sequence[str]) -> list[Rule]:
    """Map rule features onto the data's feature names.

    Exact names win; otherwise a case- and space-insensitive match; an equality
    on a categorical column (``Margin >= 5 AND Margin <= 5`` from ``Margin = 5``)
    becomes the one-hot feature ``Margin=5 > 0.5`` where that feature exists.
    Raises ``KeyError`` naming the first unknown feature.
    """
    names = list(feature_names)
    exact = set(names)
    loose = {_loose(n): n for n in names}
    out = []
    for rule in rules:
        conds: list[Condition] = []
        pending = list(rule.conditions)
        i = 0
        while i < len(pending):
            c = pending[i]
            nxt = pending[i + 1] if i + 1 < len(pending) else None
            if (
                c.feature not in exact
                and c.op == ">="
                and nxt is not None
                and nxt.feature == c.feature
                and nxt.op == "<="
                and nxt.threshold == c.threshold
            ):
                onehot = _onehot_name(c.feature, c.threshold, exact, loose)
                if onehot is not None:
                    conds.append(Condition(onehot, ">", 0.5))
                    i += 2
                    continue
            if c.feature in exact:
                conds.append(c)
            elif _loose(c.feature) in loose:
                conds.append(Condition(loose[_loose(c.feature)], c.op, c.threshold))
            else:
                raise KeyError(f"the data has no feature {c.feature!r}")
            i += 1
        out.append(Rule(tuple(conds), rule.label))
    return out


def _loose(name: str) -> str:
    return re.sub(r"[\s_]+", "", name).lower()


def _onehot_name(feature: str, value: float, exact: set, loose: dict) -> str | None:
    for text in (format_number(value), str(value)):
        cand = f"{feature}={text}"
        if cand in exact:
            return cand
        if _loose(cand) in loose:
            return loose[_loose(cand)]
    return None


def rules_for_data(rules: Iterable[Rule], feature_names: Sequence[str], classes: Iterable) -> RuleSet:
    """Bind parsed rules to a data set: its feature names and its class labels (matched as strings).

    Raises ``KeyError`` for an unknown feature and ``ValueError`` for an unknown class.
    """
    by_str = {str(c): c for c in classes}
    out = []
    for rule in resolve_features(rules, feature_names):
        label = by_str.get(str(rule.label))
        if label is None:
            raise ValueError(
                f"rule {rule.text!r} predicts {rule.label!r}, which is not a class of the data "
                f"(classes: {', '.join(map(str, by_str.values()))})"
            )
        out.append(Rule(rule.conditions, label))
    return RuleSet(out)
