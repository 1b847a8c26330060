"""The quick lane (``pytest -m "not slow"``): which cases of a repeated check it keeps.

A check repeated over random seeds or data sets runs its first few cases in the quick lane
and every case in the whole suite, so the quick lane still runs that check.
"""

import pytest


def quick_first(values, quick: int = 2) -> list:
    """``values`` as parameters, those after the first ``quick`` marked slow."""
    return [v if i < quick else pytest.param(v, marks=pytest.mark.slow) for i, v in enumerate(values)]


def seeds(n: int, quick: int = 2) -> list:
    """Seeds ``0 .. n-1`` as parameters, the seeds from ``quick`` on marked slow."""
    return quick_first(range(n), quick)
