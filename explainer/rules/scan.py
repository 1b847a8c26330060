"""The lexical layer of the rule text format: quoting, escapes and a linear-time scanner.

Every function here looks at each character of its input a bounded number of
times: the only regular expressions are single character classes under one
quantifier, matched at a given position, so they consume and never backtrack.
"""

from __future__ import annotations

import re

_RESERVED_WORDS = frozenset({"and", "then"})
#: the comparison signs a rule may be written with instead of ``<=``, ``>=`` and ``!=`` (a page's Markdown shows
#: ``<=`` as ``≤``, and an analyst's document may hold them): read as those
_SIGNS = {"\u2264": "<=", "\u2265": ">=", "\u2260": "!="}
#: the characters that end a word (besides white space)
_WORD_ENDS = '<>=!"{},' + "".join(_SIGNS)
_SPECIAL = frozenset(_WORD_ENDS + "\\")
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_UNESCAPES = {"\\": "\\", '"': '"', "n": "\n", "r": "\r", "t": "\t"}
_HEX_LENGTH = {"x": 2, "u": 4, "U": 8}

# Each pattern is one character class under one quantifier, matched at a given
# position: it can only consume, never backtrack, so scanning stays linear.
_SPACE_RUN = re.compile(r"\s+")
_WORD_RUN = re.compile(f"[^\\s{re.escape(_WORD_ENDS)}]+")
#: Every pattern the scanner uses (a test checks each is a single character class).
SCANNER_PATTERNS = (_SPACE_RUN, _WORD_RUN)
_NUMBER_CHARS = "0123456789.eE+-"


class RuleSyntaxError(ValueError):
    """A rule line that cannot be read; the message names the line."""


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


def is_plain(text: str, *, number_ok: bool = False) -> bool:
    """Whether ``text`` reads back unquoted as itself (one operand of a condition)."""
    if not text or not text.isprintable() or text.strip(" ") != text or "  " in text:
        return False
    if any(ch in _SPECIAL for ch in text):
        return False
    words = text.lower().split(" ")
    if any(w in _RESERVED_WORDS for w in words) or text.lower() in ("true", "false"):  # alike: see render
        return False
    if words[-1] == "not":
        return False  # "x not" before "in {...}" would read as "x" and "not in"
    if number_ok:
        return True
    try:
        float(text)  # accepts more than the rule grammar does ("nan", "1_000"): quote those too
    except ValueError:
        return True
    return False


# A token is one string: its kind, "w" (word), "q" (quoted), "o" (operator) or "p" (one of the
# set punctuation marks ``{ , }``), then its text.
# (Strings, unlike tuples, are not tracked by the garbage collector, which would otherwise
# dominate the time of a long line.)
WORD, QUOTED, OP, PUNCT = "w", "q", "o", "p"


def scan(line: str, pos: int, stop_at_then: bool) -> tuple[list[list[str]], int]:
    """Condition token groups (split at the word AND) from ``pos``, and where scanning stopped.

    With ``stop_at_then`` scanning ends after the first word THEN (the class
    label after it is never tokenised) and the position returned is just past
    it; -1 means there was no THEN.
    """
    space, word = _SPACE_RUN.match, _WORD_RUN.match
    n = len(line)
    groups: list[list[str]] = [[]]
    current = groups[0]
    while True:
        m = space(line, pos)
        if m is not None:
            pos = m.end()
        if pos >= n:
            return groups, (-1 if stop_at_then else pos)
        ch = line[pos]
        if ch == '"':
            text, end = read_quoted(line, pos)
            current.append(QUOTED + text)
        elif ch in "{},":
            end = pos + 1
            current.append(PUNCT + ch)
        elif ch in _SIGNS:
            end = pos + 1
            current.append(OP + _SIGNS[ch])
        elif ch in "<>=!":
            two = line[pos : pos + 2]
            if two in ("<=", ">=", "==", "!="):
                end = pos + 2
                current.append(OP + ("=" if two == "==" else two))
            elif ch == "!":
                raise RuleSyntaxError(f"unexpected '!' at column {pos + 1} (quote a name that holds it)")
            else:
                end = pos + 1
                current.append(OP + ch)
        else:
            m = word(line, pos)
            # every character that opens no other token starts a word, so the match never fails
            assert m is not None
            end = m.end()
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
            current.append(WORD + text)
        pos = end


def read_quoted(line: str, start: int) -> tuple[str, int]:
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


def parse_number(word: str) -> float | None:
    """The value of a number word (``-3.5e-05``, ``.5``, ``1e3``, ``inf``), or None.

    Only digits, a point, an exponent and signs make a number (``float`` alone
    would also take ``nan``, ``1_000`` or ``infinity``; of those only the
    infinities are numbers here).
    """
    if not word or word[0] not in "0123456789+-.iI":
        return None
    if word.lstrip("+-").lower() in ("inf", "infinity") or not word.strip(_NUMBER_CHARS):
        try:
            return float(word)
        except ValueError:  # e.g. "1e", "+-1", "."
            return None
    return None
