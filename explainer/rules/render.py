"""Rule text, rendering: conditions, rules, names, values and labels as a person reads them.

A rule is one line in the paper's form::

    IF petal_length <= 2.45 AND 32 < Age <= 54 AND Margin = 5 AND Density is missing THEN CLASS=1

Conditions read the way a person writes them when the feature's
:class:`~explainer.data.features.FeatureSpec` is known: ``Margin = 5`` /
``Margin != 5`` for a one-hot feature, ``Margin is missing`` / ``Margin is not
missing`` for a missing indicator, whole numbers on a whole-number feature, and
two bounds on one feature as one interval (still two conditions: a rule's
length is its number of conditions, as in the paper).

Quoting: a name, category value or class label that could be misread (it holds
``AND`` or ``THEN`` as a word, an operator character, a quote, a backslash,
leading, trailing or repeated spaces, any other white space or control
character, or looks like a number) is written in double quotes with backslash
escapes (``\\"``, ``\\\\``, ``\\n``, ``\\t``, ``\\r``, ``\\xHH``, ``\\uHHHH``,
``\\UHHHHHHHH``).  Every character that is not printable is escaped, so an
exported rule never holds a line break of any kind and re-reading a file gives
back exactly the rules written to it.  Ordinary names stay unquoted, so the
paper's form is unchanged.  Rendering reads a condition's ``feature``, ``op``,
``threshold`` and ``spec`` and a rule's ``conditions`` and ``label`` only, so
:mod:`explainer.rules.model` imports it and it imports nothing of the model.
"""

from __future__ import annotations

import math

import numpy as np

from explainer.rules.numbers import format_number, integer_threshold
from explainer.rules.scan import is_plain, quote

_LOWER_OPS = (">", ">=")
_UPPER_OPS = ("<=", "<")


# ---------------------------------------------------------------- names, values, labels


def render_name(name: str) -> str:
    """A feature or column name as it appears in a condition (quoted if it must be)."""
    return name if is_plain(name) else quote(name)


def value_text(value) -> str:
    """The text a category value is known by: its string, or the shortest exact number."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return format_number(float(value))
    return str(value)


def render_value(value) -> str:
    text = value_text(value)
    return text if is_plain(text, number_ok=True) else quote(text)


def render_label(label) -> str:
    """A class label after ``CLASS=``: quoted when it could be misread (``CLASS=">50K"``, not ``CLASS=>50K``)."""
    text = str(label)
    plain = text and text.isprintable() and text.strip() == text and text[0] not in _MISREAD_START
    return text if plain else quote(text)


#: a label starting with one of these would read as part of ``CLASS=`` (or as a quoted label)
_MISREAD_START = frozenset('"<>=!')


# ---------------------------------------------------------------- rendering


def _numeric_name(cond) -> str:
    """The name a numeric condition is written with: its column (the encoded name may be tidied)."""
    spec = cond.spec
    return render_name(spec.column if spec is not None and spec.kind == "numeric" else cond.feature)


def _numeric_bound(cond) -> str:
    t = cond.threshold
    if cond.spec is not None and cond.spec.kind == "numeric" and cond.spec.integer:
        t = integer_threshold(cond.op, t)
    return format_number(t)


def _reading(cond) -> str | None:
    """``=``/``!=``/``missing``/``not missing`` for a 0/1 feature condition, else None."""
    spec = cond.spec
    if spec is None or spec.kind not in ("onehot", "missing"):
        return None
    t = cond.threshold
    if cond.op in (">", "<="):
        inside = 0 <= t < 1
    else:
        inside = 0 < t <= 1
    if not inside:
        return None
    positive = cond.op in _LOWER_OPS
    if spec.kind == "onehot":
        return "=" if positive else "!="
    return "missing" if positive else "not missing"


def _always_present(cond) -> bool:
    """A numeric condition that holds on every present value: ``<= inf`` or ``>= -inf``."""
    return (cond.op == "<=" and cond.threshold == math.inf) or (cond.op == ">=" and cond.threshold == -math.inf)


def render_condition(cond) -> str:
    """One condition as text (see the module docstring for the forms)."""
    spec = cond.spec
    reading = _reading(cond)
    if reading is not None:
        column = render_name(spec.column)
        if reading in ("=", "!="):
            return f"{column} {reading} {render_value(spec.value)}"
        return f"{column} is {reading}"
    if _always_present(cond):
        # NaN fails every comparison, so this is exactly "the value is present".
        return f"{_numeric_name(cond)} is not missing"
    return f"{_numeric_name(cond)} {cond.op} {_numeric_bound(cond)}"


def _interval_partner(conds: tuple) -> dict[int, tuple[int, int] | None]:
    """Two bounds on one feature printable as one interval: first index -> (lower, upper), second -> None."""
    bounds: dict[str, list[int]] = {}
    for i, c in enumerate(conds):
        numeric = c.spec is None or c.spec.kind == "numeric"
        if numeric and math.isfinite(c.threshold):
            bounds.setdefault(c.feature, []).append(i)
    pairs = {}
    for idx in bounds.values():
        if len(idx) != 2:
            continue
        a, b = idx
        lower = [i for i in idx if conds[i].op in _LOWER_OPS]
        upper = [i for i in idx if conds[i].op in _UPPER_OPS]
        if len(lower) == 1 and len(upper) == 1:
            pairs[min(a, b)] = (lower[0], upper[0])
            pairs[max(a, b)] = None
    return pairs


def render_rule(rule) -> str:
    conds = rule.conditions
    pairs = _interval_partner(conds)
    parts = []
    for i, c in enumerate(conds):
        if i in pairs:
            pair = pairs[i]
            if pair is None:
                continue
            lo, hi = conds[pair[0]], conds[pair[1]]
            lo_op = "<" if lo.op == ">" else "<="
            parts.append(f"{_numeric_bound(lo)} {lo_op} {_numeric_name(hi)} {hi.op} {_numeric_bound(hi)}")
        else:
            parts.append(render_condition(c))
    body = " AND ".join(parts) if parts else "TRUE"
    return f"IF {body} THEN CLASS={render_label(rule.label)}"
