"""The pool an analyst gets without choosing: the default settings, in one place.

The paper's grid at its per-data-set depth (3 on Iris, 5 on most) is too
shallow for tight error budgets: its rules are short but inaccurate, so a peer
rule learner's budgets (few errors, many conditions) leave it behind.  Deeper
trees add long, accurate rules.  Repeats of the grid add random-split variants
but triple the pool and the solver's time on the first click for one more
covered row in a hundred over the peers' runs (``scripts/peer_coverage.py``), so
the default trains the grid once.  The measurements behind
the numbers: ``scripts/peer_coverage.py`` and ``scripts/default_pools.py``
(README, "Default pool").  The benchmark keeps the paper's own settings.
"""

from __future__ import annotations

#: D of the default grid: trees of depth 1 .. 7
DEFAULT_DEPTH = 8
#: repeats of the grid
DEFAULT_REPEATS = 1
#: ``load_dataset`` / ``TableEncoder`` settings of the default reading: an integer-coded column with
#: 3 to 10 values (``BI-RADS``, ``Shape``) offers ``= v`` conditions beside its thresholds, so
#: ``BI-RADS = 5`` costs one condition instead of two
DEFAULT_LOAD_SETTINGS = {"ordinal_as_categorical": True}


def default_pool_settings(data=None, *, max_depth=None, n_repeats=None, source=None) -> dict:
    """``build_pool`` keyword arguments of the default pool for ``data``.

    ``data`` (a :class:`~explainer.data.Dataset` or a table) is accepted so that the
    defaults may depend on the table; today they do not: ``{"max_depth": 8,
    "n_repeats": 1, "source": "grid"}``.  Arguments that are not ``None`` replace
    the defaults.
    """
    source = "grid" if source is None else source
    if n_repeats is None:
        n_repeats = DEFAULT_REPEATS
    return {
        "max_depth": DEFAULT_DEPTH if max_depth is None else int(max_depth),
        "n_repeats": int(n_repeats),
        "source": source,
    }


def default_load_settings() -> dict:
    """Keyword arguments for ``load_dataset`` (and ``TableEncoder``) of the default reading."""
    return dict(DEFAULT_LOAD_SETTINGS)
