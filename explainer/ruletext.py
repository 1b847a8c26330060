"""The rule text format: rendering, quoting and a linear-time parser.

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

The parser is a hand-written scanner: each step consumes at least one
character and looks at each character a bounded number of times, so its time
is linear in the input.  Lines longer than :data:`MAX_LINE_CHARS` and texts
longer than :data:`MAX_TEXT_CHARS` are refused with a :class:`RuleSyntaxError`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from .features import FeatureSpec
from .rules import Condition, Rule, format_number, integer_threshold

# The limits keep the worst case of one call to a fraction of a second on a slow machine.
#: Longest rule line read (characters); a rule of 100 conditions on long names fits easily.
MAX_LINE_CHARS = 32_768
#: Longest rule text read (characters): about 13 000 typical rules.
MAX_TEXT_CHARS = 1_000_000

_RESERVED_WORDS = frozenset({"and", "then"})
_SPECIAL = frozenset('<>=!"\\')
_LOWER_OPS = (">", ">=")
_UPPER_OPS = ("<=", "<")
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_UNESCAPES = {"\\": "\\", '"': '"', "n": "\n", "r": "\r", "t": "\t"}
_HEX_LENGTH = {"x": 2, "u": 4, "U": 8}

# Each pattern is one character class under one quantifier, matched at a given
# position: it can only consume, never backtrack, so scanning stays linear.
_SPACE_RUN = re.compile(r"\s+")
_WORD_RUN = re.compile(r'[^\s"<>=!]+')
_DIGITS = re.compile(r"[0-9]+")
#: Every pattern the scanner uses (a test checks each is a single character class).
SCANNER_PATTERNS = (_SPACE_RUN, _WORD_RUN, _DIGITS)


class RuleSyntaxError(ValueError):
    """A rule line that cannot be read; the message names the line."""


# ---------------------------------------------------------------- quoting


def quote(text: str) -> str:
    """``text`` in double quotes, with every non-printable character escaped."""
    out = ['"']
    for ch in text:
        esc = _ESCAPES.get(ch)
        if esc is not None:
            out.append(esc)
        elif ch.isprintable():
            out.append(ch)
        else:
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def _is_plain(text: str, *, number_ok: bool = False) -> bool:
    """Whether ``text`` reads back unquoted as itself (one operand of a condition)."""
    if not text or not text.isprintable() or text.strip(" ") != text or "  " in text:
        return False
    if any(ch in _SPECIAL for ch in text):
        return False
    words = text.lower().split(" ")
    if any(w in _RESERVED_WORDS for w in words) or text.lower() == "true":
        return False
    if number_ok:
        return True
    try:
        float(text)  # accepts more than the rule grammar does ("nan", "1_000"): quote those too
    except ValueError:
        return True
    return False


def render_name(name: str) -> str:
    """A feature or column name as it appears in a condition (quoted if it must be)."""
    return name if _is_plain(name) else quote(name)


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
    return text if _is_plain(text, number_ok=True) else quote(text)


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


def _interval_partner(conds: tuple[Condition, ...]) -> dict[int, int]:
    """Pairs (lower bound index -> upper bound index) printable as one interval."""
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


# ---------------------------------------------------------------- scanning


# A token is (kind, text, start, end) with kind "w" (word), "q" (quoted) or "o" (operator).
_WORD, _QUOTED, _OP = "w", "q", "o"


def _scan(line: str, pos: int, stop_at_then: bool) -> tuple[list[list[tuple]], int]:
    """Condition token groups (split at the word AND) from ``pos``, and where scanning stopped.

    With ``stop_at_then`` scanning ends after the first word THEN (the class
    label after it is never tokenised) and the position returned is just past
    it; -1 means there was no THEN.
    """
    space, word = _SPACE_RUN.match, _WORD_RUN.match
    n = len(line)
    groups: list[list[tuple]] = [[]]
    current = groups[0]
    while True:
        m = space(line, pos)
        if m is not None:
            pos = m.end()
        if pos >= n:
            return groups, (-1 if stop_at_then else pos)
        ch = line[pos]
        if ch == '"':
            text, end = _read_quoted(line, pos)
            current.append((_QUOTED, text, pos, end))
        elif ch in "<>=!":
            two = line[pos : pos + 2]
            if two in ("<=", ">=", "==", "!="):
                end = pos + 2
                current.append((_OP, "=" if two == "==" else two, pos, end))
            elif ch == "!":
                raise RuleSyntaxError(f"unexpected '!' at column {pos + 1} (quote a name that holds it)")
            else:
                end = pos + 1
                current.append((_OP, ch, pos, end))
        else:
            end = word(line, pos).end()
            text = line[pos:end]
            if len(text) <= 4:
                key = text.lower()
                if key == "and":
                    current = []
                    groups.append(current)
                    pos = end
                    continue
                if key == "then" and stop_at_then:
                    return groups, end
            current.append((_WORD, text, pos, end))
        pos = end


def _read_quoted(line: str, start: int) -> tuple[str, int]:
    """The unescaped text of the quoted string at ``line[start]`` and the position after it."""
    out = []
    i = start + 1
    n = len(line)
    q = line.find('"', i)
    while True:
        if 0 <= q < i:
            # the quote found last was escaped: look for the next one (each character is searched once)
            q = line.find('"', i)
        b = line.find("\\", i, q if q >= 0 else n)
        if b < 0:
            if q < 0:
                raise RuleSyntaxError(f"the quote at column {start + 1} is never closed")
            out.append(line[i:q])
            return "".join(out), q + 1
        out.append(line[i:b])
        if b + 1 >= n:
            raise RuleSyntaxError(f"the quote at column {start + 1} is never closed")
        code = line[b + 1]
        if code in _UNESCAPES:
            out.append(_UNESCAPES[code])
            i = b + 2
        elif code in _HEX_LENGTH:
            k = _HEX_LENGTH[code]
            digits = line[b + 2 : b + 2 + k]
            if len(digits) != k or any(d not in "0123456789abcdefABCDEF" for d in digits):
                raise RuleSyntaxError(f"bad escape \\{code} at column {b + 1}: expected {k} hex digits")
            value = int(digits, 16)
            if value > 0x10FFFF:
                raise RuleSyntaxError(f"escape at column {b + 1} is beyond Unicode")
            out.append(chr(value))
            i = b + 2 + k
        else:
            raise RuleSyntaxError(f"unknown escape \\{code} at column {b + 1}")


def _number(word: str) -> float | None:
    """The value of a number word (``-3.5e-05``, ``.5``, ``inf``), or None."""
    if word[0] not in "0123456789+-.iI":
        return None
    i, n = 0, len(word)
    if i < n and word[i] in "+-":
        i += 1
    rest = word[i:].lower()
    if rest in ("inf", "infinity"):
        return float(word)
    m = _DIGITS.match(word, i)
    int_end = m.end() if m else i
    frac_end = int_end
    if frac_end < n and word[frac_end] == ".":
        m2 = _DIGITS.match(word, frac_end + 1)
        frac_end = m2.end() if m2 else frac_end + 1
    if frac_end - i == 0 or (frac_end - i == 1 and word[i] == "."):
        return None
    end = frac_end
    if end < n and word[end] in "eE":
        j = end + 1
        if j < n and word[j] in "+-":
            j += 1
        m3 = _DIGITS.match(word, j)
        if m3 is None:
            return None
        end = m3.end()
    if end != n:
        return None
    return float(word)


# ---------------------------------------------------------------- parsing


@dataclass(frozen=True)
class _Operand:
    text: str
    number: float | None  # set for an unquoted number word

    @property
    def is_number(self) -> bool:
        return self.number is not None


def _operand(tokens: list[tuple], what) -> _Operand:
    if not tokens:
        raise RuleSyntaxError(f"{what()}: a name or number is missing")
    if len(tokens) == 1:
        kind, text = tokens[0][0], tokens[0][1]
        return _Operand(text, None if kind == _QUOTED else _number(text))
    for tok in tokens:
        if tok[0] == _QUOTED:
            raise RuleSyntaxError(f"{what()}: a quoted name must stand alone")
    return _Operand(" ".join(tok[1] for tok in tokens), None)


def _onehot(column: str, value: str, positive: bool) -> Condition:
    spec = FeatureSpec(f"{column}={value}", column, "onehot", value)
    return Condition(spec.name, ">" if positive else "<=", 0.5, spec)


def _missing(column: str, positive: bool) -> Condition:
    spec = FeatureSpec(f"{column} is missing", column, "missing")
    return Condition(spec.name, ">" if positive else "<=", 0.5, spec)


def _words(tokens: list[tuple], *words: str) -> bool:
    """Whether ``tokens`` end with these (unquoted, any case) words after at least one more token."""
    k = len(words)
    if len(tokens) <= k:
        return False
    return all(tok[0] == _WORD and tok[1].lower() == w for tok, w in zip(tokens[-k:], words, strict=True))


def _condition(tokens: list[tuple], line: str) -> list[Condition]:
    def what() -> str:
        return f"condition {_short(line[tokens[0][2] : tokens[-1][3]])}"

    groups: list[list[tuple]] = [[]]
    ops = []
    for tok in tokens:
        if tok[0] == _OP:
            ops.append(tok[1])
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


def _conditions(groups: list[list[tuple]], line: str) -> list[Condition]:
    if len(groups) == 1 and len(groups[0]) == 1 and groups[0][0][0] == _WORD and groups[0][0][1].upper() == "TRUE":
        return []
    out: list[Condition] = []
    for group in groups:
        if not group:
            raise RuleSyntaxError("empty condition (two ANDs in a row, or AND next to IF or THEN)")
        out.extend(_condition(group, line))
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
    groups, _ = _scan(text, 0, stop_at_then=False)
    if len(groups) != 1:
        raise RuleSyntaxError(f"{_short(text)} is several conditions")
    if not groups[0]:
        raise RuleSyntaxError("empty condition")
    return _condition(groups[0], text)


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
        label, end = _read_quoted(text, 0)
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
    m = _SPACE_RUN.match(line)
    start = m.end() if m else 0
    if line[start : start + 2].upper() != "IF" or not line[start + 2 : start + 3].isspace():
        raise RuleSyntaxError(f"expected 'IF <conditions> THEN CLASS=<label>', got {_short(line)}")
    groups, then_end = _scan(line, start + 2, stop_at_then=True)
    if then_end < 0:
        raise RuleSyntaxError(f"no THEN in {_short(line)} (a name holding THEN must be quoted)")
    label = _match_label(_parse_label(line[then_end:], line), labels)
    try:
        conditions = _conditions(groups, line)
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
