"""Numbers in rule text: the shortest exact form and thresholds that split the data where the tree did."""

from __future__ import annotations

import math

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


def integer_threshold(op: str, threshold: float) -> float:
    """The whole number that splits whole numbers exactly where ``op threshold`` does.

    ``v <= 32.7`` and ``v <= 32`` hold for the same whole numbers ``v``, as do
    ``v > 32.7`` and ``v > 32``; ``<`` and ``>=`` round up instead.
    """
    t = float(threshold)
    if not math.isfinite(t):
        return t
    return float(math.floor(t) if op in ("<=", ">") else math.ceil(t))
