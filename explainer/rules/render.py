"""Rule text, rendering: conditions, rules, names, values and labels as a person reads them.

A rule is one line in the paper's form::

    IF petal_length <= 2.45 AND 32 < Age <= 54 AND Margin = 5 AND Density is missing THEN CLASS=1

Conditions read the way a person writes them when the feature's
:class:`~explainer.data.features.FeatureSpec` is known: ``Margin = 5`` /
``Margin != 5`` for a one-hot feature, ``Margin is missing`` / ``Margin is not
missing`` for a missing indicator, whole numbers on a whole-number feature.
The conditions on one column are kept together as one phrase: two bounds as an
interval (``32 < Age <= 54``, still two conditions in the paper's count),
several excluded values as ``buying not in {high, vhigh}``, a value set as
``thal in {6, 7}``.

Quoting, one rule for names, values and labels in every text form: anything that
is not a plain word (a letter or ``_`` first, then letters, digits, ``_``, ``-``
or ``.``; not a word of the grammar) or, for a value or a label, a number, is
written in double quotes with backslash escapes (``\\"``, ``\\\\``, ``\\n``,
``\\t``, ``\\r``, ``\\xHH``, ``\\uHHHH``, ``\\UHHHHHHHH``): ``CLASS="**bold**"``,
``CLASS=">50K"``, ``4.185 < "a | b" <= 14.19``, ``"petal length" <= 2.45``.  Every
character that is not printable is escaped, so an exported rule never holds a
line break of any kind and re-reading a file gives back exactly the rules written
to it.  The parser reads the quoted and the older unquoted forms alike.  Rendering reads a condition's ``feature``, ``op``,
``threshold`` and ``spec`` (a value set's ``column``, ``values`` and ``negated``)
and a rule's ``conditions`` and ``label`` only, so
:mod:`explainer.rules.model` imports it and it imports nothing of the model.
"""

from __future__ import annotations

import math

import numpy as np

from explainer.rules.numbers import format_number, integer_threshold
from explainer.rules.scan import parse_number, quote

_LOWER_OPS = (">", ">=")
_UPPER_OPS = ("<=", "<")


# ---------------------------------------------------------------- names, values, labels


#: words of the grammar: a name or value spelled so is quoted; "false" with them, so that the two labels of a
#: boolean class read alike (CLASS="True", CLASS="False")
_GRAMMAR_WORDS = frozenset({"and", "then", "true", "false", "not", "in", "is", "missing", "if", "else", "class"})
_WORD_MARKS = frozenset("_-.")


def is_plain_word(text: str) -> bool:
    """A letter or ``_`` first, then letters, digits, ``_``, ``-`` or ``.``, and not a word of the grammar."""
    if not text or not (text[0].isalpha() or text[0] == "_"):
        return False
    if not all(ch.isalnum() or ch in _WORD_MARKS for ch in text) or not text.isprintable():
        return False
    # a word the number reader takes ("inf", "NaN", "Infinity") would read back as a number
    return text.lower() not in _GRAMMAR_WORDS and parse_number(text) is None


def is_plain_number(text: str) -> bool:
    """A number as the grammar reads it, written exactly so (``5``, ``-2.5``, ``1e3``)."""
    return parse_number(text) is not None and text.isascii()


def render_name(name: str) -> str:
    """A feature or column name as it appears in a condition: a plain word as it is, else quoted."""
    return name if is_plain_word(name) else quote(name)


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
    return text if is_plain_word(text) or is_plain_number(text) else quote(text)


def render_label(label) -> str:
    """A class label after ``CLASS=``: a plain word or number as it is, else quoted (``CLASS=">50K"``)."""
    text = str(label)
    return text if is_plain_word(text) or is_plain_number(text) else quote(text)


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
    if spec is None or not spec.binary:
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


def render_value_set(vs) -> str:
    """``column in {v, w}`` / ``column not in {v, w}``; one value reads ``column = v`` / ``column != v``."""
    column = render_name(vs.column)
    if len(vs.values) == 1:
        return f"{column} {'!=' if vs.negated else '='} {render_value(vs.values[0])}"
    values = ", ".join(render_value(v) for v in vs.values)
    return f"{column} {'not in' if vs.negated else 'in'} {{{values}}}"


def _column_of(cond) -> str:
    """The column a condition is on: its spec's, a value set's, else its feature (no encoding known)."""
    if cond.spec is not None:
        return cond.spec.column
    return getattr(cond, "column", cond.feature)


def phrase_plan(rule) -> list[tuple]:
    """What each phrase of the rule says, without writing it: ``(kind, column, payload)``.

    Conditions on one column are kept together, in the order columns first appear; per
    column: ``= v`` and ``in {...}`` first, then the excluded values (``!= v``, several as
    ``not in {v, w}``), then the numeric bounds (two bounds as one interval ``32 < Age <= 54``),
    then ``is missing`` / ``is not missing``.  Counting phrases needs only this plan.
    """
    groups: dict[str, list] = {}
    for c in rule.conditions:
        groups.setdefault(_column_of(c), []).append(c)
    plan: list[tuple] = []
    for column, conds in groups.items():
        positive: list[tuple] = []
        sets_out: list[tuple] = []
        excluded: list = []
        bounds: list = []
        missing: list[tuple] = []
        for c in conds:
            if hasattr(c, "values"):
                (sets_out if c.negated else positive).append(("set", column, c))
                continue
            reading = _reading(c)
            if reading == "=":
                positive.append(("condition", column, c))
            elif reading == "!=":
                excluded.append(c.spec.value)
            elif reading is not None or _always_present(c):
                missing.append(("condition", column, c))
            else:
                bounds.append(c)
        plan += positive
        if excluded:
            plan.append(("excluded", column, excluded))
        plan += sets_out
        plan += _bound_plan(column, bounds)
        plan += missing
    return plan


def _bound_plan(column: str, bounds: list) -> list[tuple]:
    """Numeric bounds on one column: one lower and one upper finite bound read as an interval."""
    finite = [c for c in bounds if math.isfinite(c.threshold)]
    lower = [c for c in finite if c.op in _LOWER_OPS]
    upper = [c for c in finite if c.op in _UPPER_OPS]
    if len(finite) == len(bounds) == 2 and len(lower) == 1 and len(upper) == 1 and lower[0].feature == upper[0].feature:
        return [("interval", column, (lower[0], upper[0]))]
    return [("condition", column, c) for c in bounds]


def _write_phrase(kind: str, column: str, payload) -> str:
    if kind == "condition":
        return render_condition(payload)
    if kind == "set":
        return render_value_set(payload)
    if kind == "excluded":
        if len(payload) == 1:
            return f"{render_name(column)} != {render_value(payload[0])}"
        return f"{render_name(column)} not in {{{', '.join(render_value(v) for v in payload)}}}"
    lo, hi = payload
    lo_op = "<" if lo.op == ">" else "<="
    return f"{_numeric_bound(lo)} {lo_op} {_numeric_name(hi)} {hi.op} {_numeric_bound(hi)}"


def render_phrases(rule) -> list[str]:
    """The rule's phrases as text (see :func:`phrase_plan` for their order)."""
    return [_write_phrase(*step) for step in phrase_plan(rule)]


def render_rule(rule) -> str:
    parts = render_phrases(rule)
    body = " AND ".join(parts) if parts else "TRUE"
    return f"IF {body} THEN CLASS={render_label(rule.label)}"


def counted(n: int, noun: str) -> str:
    """``n`` (thousands separated) and the noun, plural unless ``n`` is 1: ``1 rule``, ``0 rules``, ``8 rules``,
    ``3 classes``, ``32,561 rows``."""
    plural = noun + ("es" if noun.endswith(("s", "x", "ch", "sh")) else "s")
    return f"{n:,} {noun if n == 1 else plural}"
