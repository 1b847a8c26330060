"""Rule text, parsing: the paper's form and the rendered form read back into rules.

The rendered forms of :mod:`explainer.rules.render` and the paper's raw forms
(``Margin_5 > 0.5``, ``margin_? > 0.5``, ``Margin=5 > 0.5``, ``x = 3``) are
read; :mod:`explainer.rules.binding` ties what was read to a data set.

The parser reads tokens from a hand-written scanner (:mod:`explainer.rules.scan`)
that looks at each character a bounded number of times, so its time is linear
in the input.  Lines longer than :data:`MAX_LINE_CHARS` and texts longer than
:data:`MAX_TEXT_CHARS` are refused with a :class:`RuleSyntaxError`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from explainer.data.features import FeatureSpec
from explainer.rules.model import Condition, Rule, ValueSet
from explainer.rules.scan import (
    OP,
    PUNCT,
    QUOTED,
    WORD,
    RuleSyntaxError,
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


# ---------------------------------------------------------------- parsing


@dataclass(frozen=True)
class _Operand:
    text: str
    number: float | None  # set for an unquoted number word


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


def _condition(tokens: list[str]) -> list[Condition | ValueSet]:
    def what() -> str:
        return f"condition {_short(' '.join(quote(t[1:]) if t[0] == QUOTED else t[1:] for t in tokens))}"

    if any(tok[0] == PUNCT for tok in tokens):
        return [_value_set(tokens, what)]
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
        if a.number is None and b.number is not None:
            return [Condition(a.text, op, b.number)]
        if a.number is not None and b.number is None:
            return [Condition(b.text, _FLIP[op], a.number)]
        raise RuleSyntaxError(f"{what()} needs a feature on one side and a number on the other")
    if len(ops) == 2:
        a, b, c = operands
        if ops[0] == "=" and ops[1] in _FLIP and c.number is not None:
            # The paper's raw one-hot form: ``Margin=5 > 0.5``.
            return [Condition(f"{a.text}={b.text}", ops[1], c.number)]
        same_way = (ops[0] in ("<", "<=") and ops[1] in ("<", "<=")) or (
            ops[0] in (">", ">=") and ops[1] in (">", ">=")
        )
        if same_way and a.number is not None and c.number is not None and b.number is None:
            return [Condition(b.text, _FLIP[ops[0]], a.number), Condition(b.text, ops[1], c.number)]
        raise RuleSyntaxError(f"{what()}: expected an interval like '32 < Age <= 54'")
    raise RuleSyntaxError(f"{what()} has too many comparisons")


def _value_set(tokens: list[str], what) -> ValueSet:
    """``name in {a, b}`` / ``name not in {a, b}`` (unbound: the values as written)."""
    opening = next(i for i, tok in enumerate(tokens) if tok[0] == PUNCT)
    if tokens[opening] != PUNCT + "{" or tokens[-1] != PUNCT + "}" or not _words(tokens[:opening], "in"):
        raise RuleSyntaxError(f"{what()}: expected a set like 'colour in {{red, blue}}'")
    head = tokens[: opening - 1]
    negated = _words(head, "not")
    if negated:
        head = head[:-1]
    values: list[str] = []
    group: list[str] = []
    for tok in tokens[opening + 1 :]:
        if tok[0] == PUNCT and tok[1:] in ",}":
            values.append(_operand(group, what).text)
            group = []
        elif tok[0] == PUNCT or tok[0] == OP:
            raise RuleSyntaxError(f"{what()}: unexpected {tok[1:]!r} in the set")
        else:
            group.append(tok)
    return ValueSet(_operand(head, what).text, tuple(values), negated)


def _conditions(groups: list[list[str]]) -> list[Condition | ValueSet]:
    if len(groups) == 1 and len(groups[0]) == 1 and groups[0][0][0] == WORD and groups[0][0][1:].upper() == "TRUE":
        return []
    out: list[Condition | ValueSet] = []
    for group in groups:
        if not group:
            raise RuleSyntaxError("empty condition (two ANDs in a row, or AND next to IF or THEN)")
        out.extend(_condition(group))
    return out


def parse_condition(text: str) -> list[Condition | ValueSet]:
    """The conditions one condition phrase stands for (an interval is two).

    ``x <= 2.5``, ``x > 2.5``, ``x < 2``, ``x >= 2``, ``2 < x`` as they read;
    ``32 < x <= 54`` (two conditions); ``Margin = 5`` / ``Margin != 5`` (a
    category, or for a numeric column ``5 <= Margin <= 5``, decided when the
    rule is bound to data); ``Margin is missing`` / ``Margin is not missing``;
    the raw ``Margin=5 > 0.5``; a bare name is read as ``name > 0.5``.  ``≤``, ``≥`` and ``≠`` read as
    ``<=``, ``>=`` and ``!=``.
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
    never wrap: every line break inside a name or label is escaped.  A last line
    ``ELSE CLASS=label`` (the fallback class of an export) is read and left out;
    :func:`parse_rule_text` returns it.
    """
    return parse_rule_text(text, labels)[0]


def _starts_else(line: str) -> bool:
    return line[:4].upper() == "ELSE" and (len(line) == 4 or line[4].isspace())


def parse_rule_text(text: str, labels: Iterable | None = None) -> tuple[list[Rule], object | None]:
    """``(rules, fallback)``: the rules of :func:`parse_rules` and the class of a last
    ``ELSE CLASS=label`` line (None without one)."""
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
        if _starts_rule(line) or _starts_else(line) or not logical:
            logical.append((number, [line], len(line)))
        else:
            start, pieces, size = logical[-1]
            size += len(line) + 1
            if size > MAX_LINE_CHARS:
                raise RuleSyntaxError(f"line {start}: the rule has over {MAX_LINE_CHARS} characters")
            pieces.append(line)
            logical[-1] = (start, pieces, size)
    rules = []
    fallback = None
    for k, (number, pieces, _size) in enumerate(logical):
        line = " ".join(pieces)
        try:
            if _starts_else(line):
                if k != len(logical) - 1:
                    raise RuleSyntaxError("the ELSE line must be the last one")
                fallback = _match_label(_parse_label(line[4:], line), labels)
                continue
            rules.append(parse_rule(line, labels=labels))
        except RuleSyntaxError as exc:
            raise RuleSyntaxError(f"line {number}: {exc}") from None
    return rules, fallback
