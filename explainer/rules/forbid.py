"""Columns kept out of the rules: the pool's trees never see them, so no rule can name them.

A forbidden column stays in the table (its rows, the report, the accuracy by group): it is only
the rules that may not read it.  Filtering a pool after the fact is not the same thing, since a
tree that split on the column first grows every other path under that split; so the trees are
fitted on the other features only (:func:`allowed_features`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from explainer.data.features import FeatureSpec


def forbidden_names(forbidden_columns, specs: Sequence[FeatureSpec]) -> tuple[str, ...]:
    """The forbidden columns, checked against the table's columns (each name once, in the order given).

    A name that is no column of the table is a ``ValueError`` naming it; forbidding every column
    is one too (no feature would be left to learn from).
    """
    if forbidden_columns is None:
        return ()
    if isinstance(forbidden_columns, str):  # one name, not its letters
        forbidden_columns = [forbidden_columns]
    names = tuple(dict.fromkeys(str(c) for c in forbidden_columns))
    if not names:
        return names  # nothing to check: the specs are not read (a wide table has 100,000 of them)
    columns = list(dict.fromkeys(s.column for s in specs))
    unknown = [n for n in names if n not in columns]
    if unknown:
        shown = ", ".join(columns[:20]) + (", ..." if len(columns) > 20 else "")
        raise ValueError(f"forbidden column {unknown[0]!r} is not a column of the table (columns: {shown})")
    if names and not set(columns) - set(names):
        raise ValueError("every column of the table is forbidden: no rule could be made from what is left")
    return names


def allowed_features(specs: Sequence[FeatureSpec], forbidden: Iterable[str]) -> np.ndarray:
    """Indices of the encoded features whose column is not forbidden (every feature when none is)."""
    out = set(forbidden)
    return np.array([i for i, s in enumerate(specs) if s.column not in out], dtype=np.int64)


def rule_columns(rule) -> set[str]:
    """The table columns a rule's conditions read (a condition's spec names its column; an unbound
    condition its feature)."""
    columns = set()
    for cond in rule.conditions:
        column = getattr(cond, "column", None)  # a value set names its column itself
        if column is None:
            spec = cond.spec
            column = spec.column if spec is not None else cond.feature
        columns.add(str(column))
    return columns


def names_forbidden(rule, forbidden: Iterable[str]) -> bool:
    """Whether ``rule`` reads one of the ``forbidden`` columns."""
    return not rule_columns(rule).isdisjoint(set(forbidden))
