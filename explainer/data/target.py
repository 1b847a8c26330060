"""The class column: which column it is by default.

:func:`suggest_target` is the one place that decides the default target; the
command line, :func:`~explainer.data.datasets.load_dataset` and the dashboard all
call it.  What the column's labels mean is :mod:`explainer.data.labels`' matter.
A column named like a class column (``class``, ``target``, ``label``,
``y``, ``outcome``) wins over position; otherwise the last column is taken.  A
column with about one value per row is an identifier, not a class: it is
refused with a message that names better candidates.
"""

from __future__ import annotations

import re

import pandas as pd

from explainer.data.tables import DataError

__all__ = [
    "TARGET_NAMES",
    "suggest_target",
    "target_candidates",
    "target_problem",
    "looks_like_identifier_name",
]

#: Column names (compared without case) taken as the class column, best first.
TARGET_NAMES = ("class", "target", "label", "y", "outcome")

#: A column whose distinct values per non-missing row reach this ratio has about one value per row.
ID_RATIO = 0.9
#: Below this many rows the ratio alone says little; a name like ``id`` is needed as well.
ID_MIN_ROWS = 10
#: Candidate targets have at most this many classes.
MAX_CANDIDATE_CLASSES = 50

_ID_NAME = re.compile(
    r"(?:^|[\s_\-.])(?:id|ids|identifier|uuid|guid|key|index|idx|name)$"
    r"|[a-z](?:Id|ID)$"
    r"|^(?:row|record|sample|case)[\s_\-.]*(?:no|nr|num|number|code)\.?$",
)


def looks_like_identifier_name(name: str) -> bool:
    """True for names such as ``id``, ``customer_id``, ``rowID``, ``Sequence Name``, ``record no``."""
    name = str(name).strip()
    return bool(_ID_NAME.search(name) or _ID_NAME.search(name.lower()))


def _name_rank(name: str) -> int | None:
    """Rank of a class-like name (lower is better), or None."""
    key = str(name).strip().casefold()
    if key in TARGET_NAMES:
        return TARGET_NAMES.index(key)
    words = [w for w in re.split(r"[\W_]+", key) if w]
    for i, word in enumerate(TARGET_NAMES):
        # "Class Name", "class_label", "target variable"; a lone "y" only as the whole name
        if word != "y" and words and word in (words[0], words[-1]):
            return len(TARGET_NAMES) + i
    return None


def _counts(col: pd.Series) -> tuple[int, int]:
    present = col.dropna()
    return int(len(present)), int(present.nunique())


def target_problem(frame: pd.DataFrame, name: str) -> str | None:
    """Why ``name`` cannot be the class column (about one value per row), or None when it can."""
    n, k = _counts(frame[name])
    if n < 3 or k < 2 or k / n < ID_RATIO:
        return None
    if n < ID_MIN_ROWS and not looks_like_identifier_name(name):
        return None
    per_row = "one per row" if k == n else "almost one per row"
    return f"it has {k} distinct values in {n} rows, {per_row}, like an identifier"


def target_candidates(frame: pd.DataFrame, exclude: tuple[str, ...] = ()) -> list[str]:
    """Columns that could be the class: 2 to 50 distinct values, not one per row.

    Class-like names come first, then the other columns from last to first.
    """
    out = []
    for name in frame.columns:
        name = str(name)
        if name in exclude:
            continue
        n, k = _counts(frame[name])
        if 2 <= k <= min(MAX_CANDIDATE_CLASSES, max(2, n // 2)) and target_problem(frame, name) is None:
            out.append(name)
    ranks = {c: rank for c in out if (rank := _name_rank(c)) is not None}
    named = sorted(ranks, key=ranks.__getitem__)
    return named + [c for c in reversed(out) if c not in named]


def _quoted(names: list[str], limit: int = 5) -> str:
    shown = ", ".join(f"'{c}'" for c in names[:limit])
    return shown + (", ..." if len(names) > limit else "")


def suggest_target(frame: pd.DataFrame) -> tuple[str, str]:
    """The default class column of ``frame`` and why it was chosen.

    Returns ``(name, reason)``; ``reason`` is a short phrase such as ``"its name
    says it is the class"`` or ``"it is the last column"``.  Raises
    :class:`DataError` naming better candidates when the chosen column has about
    one value per row (an identifier, not a class).
    """
    names = [str(c) for c in frame.columns]
    if not names:
        raise DataError("The table has no columns.")
    ranked = [(r, -i, c) for i, c in enumerate(names) if (r := _name_rank(c)) is not None]
    exact = [t for t in ranked if t[0] < len(TARGET_NAMES)]
    if exact:
        name, reason = min(exact)[2], "its name says it is the class"
    else:
        fuzzy = [t for t in ranked if target_problem(frame, t[2]) is None and _counts(frame[t[2]])[1] >= 2]
        if fuzzy:
            name, reason = min(fuzzy)[2], "its name says it is the class"
        else:
            name, reason = names[-1], "it is the last column"
    problem = target_problem(frame, name)
    if problem is not None:
        candidates = target_candidates(frame, exclude=(name,))
        where = "the last column" if reason == "it is the last column" else "the column"
        hint = (
            f"choose the target column (candidates: {_quoted(candidates)})"
            if candidates
            else "no column looks like a class (2 to 50 distinct values); choose the target column"
        )
        raise DataError(f"The default target, {where} '{name}', cannot be the class: {problem}; {hint}.")
    return name, reason


def explicit_target_warning(frame: pd.DataFrame, name: str) -> str | None:
    """A warning when a target chosen by the user has about one value per row, or fewer than two classes (the
    load would refuse it: said before it is asked for)."""
    _, k = _counts(frame[name])
    problem = None if k < 2 else target_problem(frame, name)
    if k >= 2 and problem is None:
        return None
    candidates = target_candidates(frame, exclude=(name,))  # only for a warning: a pass over every column
    better = f" Better candidates: {_quoted(candidates)}." if candidates else ""
    if k < 2:
        held = "no value" if k == 0 else "one value only"
        return f"The target '{name}' has {held}: at least two classes are needed to explain.{better}"
    return f"The target '{name}' looks like an identifier ({problem}); no rule can generalise from it.{better}"
