"""The pool an analyst gets without choosing: the default settings, in one place.

The paper's grid at its per-data-set depth (3 on Iris, 5 on most) is too
shallow for tight error budgets: its rules are short but inaccurate, so a peer
rule learner's budgets (few errors, many conditions) leave it behind.  Deeper
trees add long, accurate rules and repeats add the random-split variants; both
cost build time, so repeats shrink as the table grows.  The measurements behind
the numbers: ``scripts/peer_coverage.py`` and ``scripts/default_pools.py``
(README, "Default pool").  The benchmark keeps the paper's own settings.
"""

from __future__ import annotations

#: D of the default grid: trees of depth 1 .. 7
DEFAULT_DEPTH = 8
#: (largest number of rows, repeats of the grid): up to 2,000 rows 3 repeats, up to 10,000 rows 2, else 1
REPEATS_BY_ROWS = ((2_000, 3), (10_000, 2))
#: ``load_dataset`` / ``TableEncoder`` settings of the default reading: an integer-coded column with
#: 3 to 10 values (``BI-RADS``, ``Shape``) offers ``= v`` conditions beside its thresholds, so
#: ``BI-RADS = 5`` costs one condition instead of two
DEFAULT_LOAD_SETTINGS = {"ordinal_as_categorical": True}


def default_n_repeats(n_rows: int) -> int:
    for limit, repeats in REPEATS_BY_ROWS:
        if n_rows <= limit:
            return repeats
    return 1


def default_pool_settings(data=None, *, max_depth=None, n_repeats=None, source=None) -> dict:
    """``build_pool`` keyword arguments of the default pool for ``data``.

    ``data`` is a :class:`~explainer.data.Dataset`, a table (anything with a
    length: DataFrame, array) or ``None`` (settings for a small table).  The
    result is ``{"max_depth": 8, "n_repeats": 3, "source": "grid"}`` up to
    2,000 rows, with 2 repeats up to 10,000 rows and 1 beyond.  Arguments
    that are not ``None`` replace the defaults; a forest is trained once
    unless ``n_repeats`` says otherwise (its repeats multiply its 100 trees).
    """
    if data is None:
        n_rows = 0
    else:
        n_rows = int(getattr(data, "n_rows", None) or len(getattr(data, "X", data)))
    source = "grid" if source is None else source
    if n_repeats is None:
        n_repeats = default_n_repeats(n_rows) if source == "grid" else 1
    return {
        "max_depth": DEFAULT_DEPTH if max_depth is None else int(max_depth),
        "n_repeats": int(n_repeats),
        "source": source,
    }


def default_load_settings() -> dict:
    """Keyword arguments for ``load_dataset`` (and ``TableEncoder``) of the default reading."""
    return dict(DEFAULT_LOAD_SETTINGS)
