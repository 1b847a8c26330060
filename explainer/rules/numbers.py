"""Numbers in rule text: the shortest exact form and thresholds that split the data where the tree did."""

from __future__ import annotations

import functools
import math
from decimal import ROUND_CEILING, ROUND_HALF_EVEN, Decimal

import numpy as np


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


#: a tree's midpoint threshold is printed as it is when it has at most this many significant digits
MIDPOINT_DIGITS = 6


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
    if values is None:
        first = float(str(np.float32(t)))
        return first if abs(first - t) <= 1e-6 * max(1.0, abs(t)) else t
    u = np.asarray(values, dtype=float)
    idx = int(np.searchsorted(u, t, side="right"))
    lo = float(u[idx - 1]) if idx > 0 else -math.inf
    hi = float(u[idx]) if idx < u.size else math.inf
    return _between(t, lo, hi)


@functools.lru_cache(maxsize=1 << 14)
def _between(t: float, lo: float, hi: float) -> float:
    """:func:`shorten_threshold` once the threshold's neighbouring values are known: a function of those three
    numbers alone, so that the pools a default fit grows on its folds, which meet the same splits, work each
    out once."""
    first = float(str(np.float32(t)))
    # A best split is the midpoint of its neighbours: printed as the exact decimal midpoint
    # when that is short (2.45 between 1.9 and 3.0), as trees print it; any other threshold (the
    # random splitter's, a float32 value next to a data value, the midpoint of full-precision
    # measurements) becomes the shortest decimal between them.
    if math.isfinite(lo) and math.isfinite(hi):
        mid = float((Decimal(repr(float(lo))) + Decimal(repr(float(hi)))) / 2)
        digits = format_number(mid).lstrip("-").replace(".", "").strip("0")
        if abs(first - mid) <= 1e-6 * max(1.0, abs(mid)) and lo <= mid < hi and len(digits) <= MIDPOINT_DIGITS:
            return mid
    return shortest_between(lo, hi, t)


def shortest_between(lo: float, hi: float, near: float) -> float:
    """The decimal with the fewest digits in ``[lo, hi)``, the one nearest ``near`` among those.

    ``v <= c`` then splits the data exactly where any threshold in ``[lo, hi)``
    does: ``lo`` (the largest value on the left) stays left and ``hi`` goes
    right.  Float32 midpoints such as 3.79999995 (between 3.6 and 3.8) become 3.7.
    """
    lo, hi, near = float(lo), float(hi), float(near)
    if not math.isfinite(lo) and not math.isfinite(hi):
        return near
    if not math.isfinite(lo):
        lo = min(hi, near) - max(1.0, abs(hi))
    if not math.isfinite(hi):
        hi = max(lo, near) + max(1.0, abs(lo))
    if not lo < hi:
        return near
    top = math.floor(math.log10(max(abs(lo), abs(hi), 1e-300)))
    for exponent in range(top + 1, -330, -1):
        step = Decimal(1).scaleb(exponent)
        low = Decimal(repr(lo))
        first = (low / step).to_integral_value(rounding=ROUND_CEILING) * step
        cand = float(first)
        if cand < lo:  # the decimal rounded below lo: take the next multiple
            first += step
            cand = float(first)
        if not cand < hi:
            continue
        last = (Decimal(repr(hi)) / step).to_integral_value(rounding=ROUND_CEILING) * step - step
        if float(last) >= hi:
            last -= step
        target = (Decimal(repr(near)) / step).to_integral_value(rounding=ROUND_HALF_EVEN) * step
        best = min(max(target, first), last)
        out = float(best)
        return out if lo <= out < hi else cand
    return near


def integer_threshold(op: str, threshold: float) -> float:
    """The whole number that splits whole numbers exactly where ``op threshold`` does.

    ``v <= 32.7`` and ``v <= 32`` hold for the same whole numbers ``v``, as do
    ``v > 32.7`` and ``v > 32``; ``<`` and ``>=`` round up instead.
    """
    t = float(threshold)
    if not math.isfinite(t):
        return t
    return float(math.floor(t) if op in ("<=", ">") else math.ceil(t))
