"""The reading an analyst gets without choosing (the CLI and the dashboard share it).

The estimator does not: its default encoder reads numbers as numbers, so that a DataFrame and the
same values as an array give the same rules;
``RuleSetExplainer(encoder=TableEncoder(**default_load_settings()))`` gives it this reading.
"""

from __future__ import annotations

#: ``load_dataset`` / ``TableEncoder`` settings of the default reading: an integer-coded column with
#: 3 to 10 values (``BI-RADS``, ``Shape``) offers ``= v`` conditions beside its thresholds, so
#: ``BI-RADS = 5`` costs one condition instead of two
DEFAULT_LOAD_SETTINGS = {"ordinal_as_categorical": True}


def default_load_settings() -> dict:
    """Keyword arguments for ``load_dataset`` (and ``TableEncoder``) of the default reading."""
    return dict(DEFAULT_LOAD_SETTINGS)
