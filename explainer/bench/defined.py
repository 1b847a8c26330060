"""Classic UCI tables written from their published definitions: balance scale, MONK's problems 1-3, LED display,
waveform.  Each is defined by a rule or a generator, so it is written here exactly (or drawn, seeded, where the
definition is random) without a download; ``scripts/generated_tables.py`` runs the held-out benchmark on them.

* **balance scale** (Siegler, 1976; UCI): every one of the 625 settings of the left and right weights and
  distances (1-5 each); the scale tips to the side of the larger weight x distance, else it balances.
* **MONK's problems 1, 2 and 3** (Thrun et al., 1991; UCI): every one of the 432 robots of six nominal
  attributes.  1: ``a1 = a2`` or ``a5 = 1``; 2: exactly two attributes take their first value; 3: ``a5 = 3`` and
  ``a4 = 1``, or ``a5 != 4`` and ``a2 != 3``, with 5 % of the classes flipped (the published training set's noise,
  drawn here over all rows).
* **LED display** (Breiman et al., 1984, *CART*; UCI's generator): a digit's seven segments, each shown wrong
  with probability 0.1.
* **waveform** (Breiman et al., 1984; UCI's generator, version 1): 21 values of a mix of two of three
  triangular waves plus unit Gaussian noise; the class names the pair.
"""

from __future__ import annotations

import itertools
from functools import partial

import numpy as np
import pandas as pd

SEED = 0


def balance_scale():
    X = pd.DataFrame(list(itertools.product(range(1, 6), repeat=4)),
                     columns=["left_weight", "left_distance", "right_weight", "right_distance"])
    left, right = X.left_weight * X.left_distance, X.right_weight * X.right_distance
    return X, np.where(left > right, "L", np.where(left < right, "R", "B")).astype(object)


def monks(problem: int):
    X = pd.DataFrame(list(itertools.product([1, 2, 3], [1, 2, 3], [1, 2], [1, 2, 3], [1, 2, 3, 4], [1, 2])),
                     columns=[f"a{i}" for i in range(1, 7)])
    if problem == 1:
        y = (X.a1 == X.a2) | (X.a5 == 1)
    elif problem == 2:
        y = (X == 1).sum(axis=1) == 2
    else:
        y = ((X.a5 == 3) & (X.a4 == 1)) | ((X.a5 != 4) & (X.a2 != 3))
        y = y ^ (np.random.default_rng(SEED).random(len(X)) < 0.05)
    return X.astype(str), np.where(y, "1", "0").astype(object)  # nominal attributes, as UCI describes them


#: the segments lit for each digit (top, upper left, upper right, middle, lower left, lower right, bottom)
_SEGMENTS = ["1110111", "0010010", "1011101", "1011011", "0111010", "1101011", "1101111", "1010010", "1111111",
             "1111011"]


def led_display(n: int = 3000, noise: float = 0.1, seed: int = SEED):
    """``n`` digits, each segment shown wrong with probability ``noise``."""
    rng = np.random.default_rng(seed)
    digits = rng.integers(0, 10, n)
    lit = np.array([[int(c) for c in _SEGMENTS[d]] for d in digits])
    lit = np.where(rng.random(lit.shape) < noise, 1 - lit, lit)
    return pd.DataFrame(lit, columns=[f"segment{i}" for i in range(1, 8)]), digits.astype(str).astype(object)


def waveform(n: int = 5000):
    rng = np.random.default_rng(SEED)
    i = np.arange(1, 22)
    h1 = np.maximum(6 - np.abs(i - 11), 0)  # h1(j) = max(6 - |j - 11|, 0), h2(j) = h1(j - 4), h3(j) = h1(j + 4)
    h2, h3 = np.maximum(6 - np.abs(i - 15), 0), np.maximum(6 - np.abs(i - 7), 0)
    pairs = {0: (h1, h2), 1: (h1, h3), 2: (h2, h3)}
    y = rng.integers(0, 3, n)
    u = rng.random(n)[:, None]
    first = np.array([pairs[k][0] for k in y])
    second = np.array([pairs[k][1] for k in y])
    X = u * first + (1 - u) * second + rng.normal(size=(n, 21))
    return pd.DataFrame(X.round(2), columns=[f"x{k}" for k in i]), y.astype(str).astype(object)


TABLES = {
    "generated/balance_scale": balance_scale,
    "generated/monks1": partial(monks, 1),
    "generated/monks2": partial(monks, 2),
    "generated/monks3": partial(monks, 3),
    "generated/led_display": led_display,
    "generated/waveform": waveform,
}


__all__ = ["TABLES", "balance_scale", "led_display", "monks", "waveform"]
