"""The rule text format: rendering and parsing (the scanner and quoting are in :mod:`explainer.rulescan`).

A rule is one line in the paper's form::

    IF petal_length <= 2.45 AND 32 < Age <= 54 AND Margin = 5 AND Density is missing THEN CLASS=1

Conditions read the way a person writes them when the feature's
:class:`~explainer.features.FeatureSpec` is known: ``Margin = 5`` /
``Margin != 5`` for a one-hot feature, ``Margin is missing`` / ``Margin is not
missing`` for a missing indicator, whole numbers on a whole-number feature, and
two bounds on one feature as one interval (still two conditions: a rule's
length is its number of conditions, as in the paper).  The paper's raw forms
(``Margin_5 > 0.5``, ``margin_? > 0.5``, ``Margin=5 > 0.5``, ``x = 3``) are
read as well; :mod:`explainer.binding` ties what was read to a data set.

Quoting: a name, category value or class label that could be misread (it holds
``AND`` or ``THEN`` as a word, an operator character, a quote, a backslash,
leading, trailing or repeated spaces, any other white space or control
character, or looks like a number) is written in double quotes with backslash
escapes (``\\"``, ``\\\\``, ``\\n``, ``\\t``, ``\\r``, ``\\xHH``, ``\\uHHHH``,
``\\UHHHHHHHH``).  Every character that is not printable is escaped, so an
exported rule never holds a line break of any kind and re-reading a file gives
back exactly the rules written to it.  Ordinary names stay unquoted, so the
paper's form is unchanged.

The parser reads tokens from a hand-written scanner that looks at each
character a bounded number of times, so its time is linear in the input.
Lines longer than :data:`MAX_LINE_CHARS` and texts
longer than :data:`MAX_TEXT_CHARS` are refused with a :class:`RuleSyntaxError`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from .features import FeatureSpec
from .rules import Condition, Rule, format_number, integer_threshold
from .rulescan import (
    OP,
    QUOTED,
    WORD,
    RuleSyntaxError,
    is_plain,
    parse_number,
    quote,
    read_quoted,
    scan,
)

# The limits keep the worst case of one call to a fraction of a second on a slow machine.
#: Longest rule line read (characters); a rule of 100 conditions on long names fits easily.
MAX_LINE_CHARS = 32_768
#: Longest rule text read (characters): about 13 000 typical rules.
MAX_TEXT_CHARS = 1_000_000

_LOWER_OPS = (">", ">=")
_UPPER_OPS = ("<=", "<")
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


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
    text = str(label)
    plain = text and text.isprintable() and text.strip() == text and not text.startswith('"')
    return text if plain else quote(text)


# ---------------------------------------------------------------- rendering


def _numeric_name(cond: Condition) -> str:
    """The name a numeric condition is written with: its column (the encoded name may be tidied)."""
    spec = cond.spec
    return render_name(spec.column if spec is not None and spec.kind == "numeric" else cond.feature)


def _numeric_bound(cond: Condition) -> str:
    t = cond.threshold
    if cond.spec is not None and cond.spec.kind == "numeric" and cond.spec.integer:
        t = integer_threshold(cond.op, t)
    return format_number(t)


def _reading(cond: Condition) -> str | None:
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


def _always_present(cond: Condition) -> bool:
    """A numeric condition that holds on every present value: ``<= inf`` or ``>= -inf``."""
    return (cond.op == "<=" and cond.threshold == math.inf) or (cond.op == ">=" and cond.threshold == -math.inf)


def render_condition(cond: Condition) -> str:
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


def _interval_partner(conds: tuple[Condition, ...]) -> dict[int, tuple[int, int] | None]:
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


def render_rule(rule: Rule) -> str:
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


# ---------------------------------------------------------------- parsing


@dataclass(frozen=True)
class _Operand:
    text: str
    number: float | None  # set for an unquoted number word

    @property
    def is_number(self) -> bool:
        return self.number is not None


def _operand(tokens: list[str], what) -> _Operand:
    if not tokens:
        raise RuleSyntaxError(f"{what()}: a name or number is missing")
    if len(tokens) == 1:
        kind, text = tokens[0][0], tokens[0][1:]
        return _Operand(text, None if kind == QUOTED else parse_number(text))
    for tok in tokens:
        if tok[0] == QUOTED:
            raise RuleSyntaxError(f"{what()}: a quoted name must stand alone")
    return _Operand(" ".join(tok[1:] for tok in tokens), None)


def _onehot(column: str, value: str, positive: bool) -> Condition:
    spec = FeatureSpec(f"{column}={value}", column, "onehot", value)
    return Condition(spec.name, ">" if positive else "<=", 0.5, spec)


def _missing(column: str, positive: bool) -> Condition:
    spec = FeatureSpec(f"{column} is missing", column, "missing")
    return Condition(spec.name, ">" if positive else "<=", 0.5, spec)


def _words(tokens: list[str], *words: str) -> bool:
    """Whether ``tokens`` end with these (unquoted, any case) words after at least one more token."""
    k = len(words)
    if len(tokens) <= k:
        return False
    return all(tok[0] == WORD and tok[1:].lower() == w for tok, w in zip(tokens[-k:], words, strict=True))


def _condition(tokens: list[str]) -> list[Condition]:
    def what() -> str:
        return f"condition {_short(' '.join(quote(t[1:]) if t[0] == QUOTED else t[1:] for t in tokens))}"

    groups: list[list[str]] = [[]]
    ops = []
    for tok in tokens:
        if tok[0] == OP:
            ops.append(tok[1:])
            groups.append([])
        else:
            groups[-1].append(tok)
    if not ops:
        if _words(tokens, "is", "missing"):
            return [_missing(_operand(tokens[:-2], what).text, True)]
        if _words(tokens, "is", "not", "missing"):
            return [_missing(_operand(tokens[:-3], what).text, False)]
        # A 0/1 feature written as a fact (``Margin=5`` in some printouts).
        return [Condition(_operand(tokens, what).text, ">", 0.5)]
    operands = [_operand(g, what) for g in groups]
    if len(ops) == 1:
        a, b = operands
        op = ops[0]
        if op in ("=", "!="):
            return [_onehot(a.text, b.text, op == "=")]
        if not a.is_number and b.is_number:
            return [Condition(a.text, op, b.number)]
        if a.is_number and not b.is_number:
            return [Condition(b.text, _FLIP[op], a.number)]
        raise RuleSyntaxError(f"{what()} needs a feature on one side and a number on the other")
    if len(ops) == 2:
        a, b, c = operands
        if ops[0] == "=" and ops[1] in _FLIP and c.is_number:
            # The paper's raw one-hot form: ``Margin=5 > 0.5``.
            return [Condition(f"{a.text}={b.text}", ops[1], c.number)]
        same_way = (ops[0] in ("<", "<=") and ops[1] in ("<", "<=")) or (
            ops[0] in (">", ">=") and ops[1] in (">", ">=")
        )
        if same_way and a.is_number and c.is_number and not b.is_number:
            return [Condition(b.text, _FLIP[ops[0]], a.number), Condition(b.text, ops[1], c.number)]
        raise RuleSyntaxError(f"{what()}: expected an interval like '32 < Age <= 54'")
    raise RuleSyntaxError(f"{what()} has too many comparisons")


def _conditions(groups: list[list[str]]) -> list[Condition]:
    if len(groups) == 1 and len(groups[0]) == 1 and groups[0][0][0] == WORD and groups[0][0][1:].upper() == "TRUE":
        return []
    out: list[Condition] = []
    for group in groups:
        if not group:
            raise RuleSyntaxError("empty condition (two ANDs in a row, or AND next to IF or THEN)")
        out.extend(_condition(group))
    return out


def parse_condition(text: str) -> list[Condition]:
    """The conditions one condition phrase stands for (an interval is two).

    ``x <= 2.5``, ``x > 2.5``, ``x < 2``, ``x >= 2``, ``2 < x`` as they read;
    ``32 < x <= 54`` (two conditions); ``Margin = 5`` / ``Margin != 5`` (a
    category, or for a numeric column ``5 <= Margin <= 5``, decided when the
    rule is bound to data); ``Margin is missing`` / ``Margin is not missing``;
    the raw ``Margin=5 > 0.5``; a bare name is read as ``name > 0.5``.
    """
    if len(text) > MAX_LINE_CHARS:
        raise RuleSyntaxError(f"the condition has {len(text)} characters; the limit is {MAX_LINE_CHARS}")
    groups, _ = scan(text, 0, stop_at_then=False)
    if len(groups) != 1:
        raise RuleSyntaxError(f"{_short(text)} is several conditions")
    if not groups[0]:
        raise RuleSyntaxError("empty condition")
    return _condition(groups[0])


def _short(line: str) -> str:
    line = line.strip()
    return repr(line if len(line) <= 80 else line[:77] + "...")


def _parse_label(head: str, line: str) -> str:
    text = head.strip()
    if text[:5].upper() == "CLASS":
        rest = text[5:].lstrip()
        if rest.startswith("="):
            text = rest[1:].lstrip()
    if text.startswith('"'):
        label, end = read_quoted(text, 0)
        if text[end:].strip():
            raise RuleSyntaxError(f"rule {_short(line)} has text after the quoted class")
        return label
    if not text:
        raise RuleSyntaxError(f"rule {_short(line)} has no class after THEN")
    return text


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
    if len(line) > MAX_LINE_CHARS:
        raise RuleSyntaxError(f"the rule has {len(line)} characters; the limit is {MAX_LINE_CHARS}")
    start = len(line) - len(line.lstrip())
    if line[start : start + 2].upper() != "IF" or not line[start + 2 : start + 3].isspace():
        raise RuleSyntaxError(f"expected 'IF <conditions> THEN CLASS=<label>', got {_short(line)}")
    groups, then_end = scan(line, start + 2, stop_at_then=True)
    if then_end < 0:
        raise RuleSyntaxError(f"no THEN in {_short(line)} (a name holding THEN must be quoted)")
    label = _match_label(_parse_label(line[then_end:], line), labels)
    try:
        conditions = _conditions(groups)
    except RuleSyntaxError as exc:
        raise RuleSyntaxError(f"in rule {_short(line)}: {exc}") from None
    return Rule(tuple(conditions), label)


def _starts_rule(line: str) -> bool:
    return line[:2].upper() == "IF" and (len(line) == 2 or line[2].isspace())


def parse_rules(text: str, labels: Iterable | None = None) -> list[Rule]:
    """Rules from text, one a line; blank lines and lines starting with ``#`` are skipped.

    A rule may wrap onto following lines (as in the paper's figures): a line
    that does not start with ``IF`` continues the previous one.  Exported rules
    never wrap: every line break inside a name or label is escaped.
    """
    if len(text) > MAX_TEXT_CHARS:
        raise RuleSyntaxError(
            f"the rule text has {len(text)} characters; the limit is {MAX_TEXT_CHARS} "
            "(an explanation is usually a few dozen lines)"
        )
    text = text.removeprefix("\ufeff")
    logical: list[tuple[int, list[str], int]] = []  # first line number, pieces, total length
    for number, raw in enumerate(text.splitlines(), start=1):
        if len(raw) > MAX_LINE_CHARS:
            raise RuleSyntaxError(f"line {number} has {len(raw)} characters; the limit is {MAX_LINE_CHARS}")
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if _starts_rule(line) or not logical:
            logical.append((number, [line], len(line)))
        else:
            start, pieces, size = logical[-1]
            size += len(line) + 1
            if size > MAX_LINE_CHARS:
                raise RuleSyntaxError(f"line {start}: the rule has over {MAX_LINE_CHARS} characters")
            pieces.append(line)
            logical[-1] = (start, pieces, size)
    rules = []
    for number, pieces, _size in logical:
        try:
            rules.append(parse_rule(" ".join(pieces), labels=labels))
        except RuleSyntaxError as exc:
            raise RuleSyntaxError(f"line {number}: {exc}") from None
    return rules
