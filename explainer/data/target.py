"""The class column: which column it is by default, and its labels.

:func:`suggest_target` is the one place that decides the default target; the
command line, :func:`~explainer.data.datasets.load_dataset` and the dashboard all
call it.  :func:`encode_labels` is the one place that turns class labels into
class codes: the data set, the rule pool and the report all call it.  A column named like a class column (``class``, ``target``, ``label``,
``y``, ``outcome``) wins over position; otherwise the last column is taken.  A
column with about one value per row is an identifier, not a class: it is
refused with a message that names better candidates.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pandas as pd

from explainer.data.tables import DataError

__all__ = [
    "TARGET_NAMES",
    "encode_labels",
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
    named = [c for c in out if _name_rank(c) is not None]
    named.sort(key=lambda c: _name_rank(c))
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
    """A warning when a target chosen by the user has about one value per row."""
    problem = target_problem(frame, name)
    if problem is None:
        return None
    candidates = target_candidates(frame, exclude=(name,))
    better = f" Better candidates: {_quoted(candidates)}." if candidates else ""
    return f"The target '{name}' looks like an identifier ({problem}); no rule can generalise from it.{better}"


# --------------------------------------------------------------------------- labels


def json_label(value: Any) -> Any:
    """A class label as a JSON value (numpy scalars unwrapped, non-finite floats as text)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool | int | str) or value is None:
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    return str(value)


def label_key(value: Any) -> tuple[str, str]:
    value = json_label(value)
    return (type(value).__name__, str(value))


def distinct(values: np.ndarray) -> tuple[np.ndarray, list]:
    """Codes into the distinct values (first-appearance order) and those values.

    Values of different types (1, 1.0, True, "1") are kept apart.
    """
    values = np.asarray(values, dtype=object)
    codes, _ = pd.factorize(values, use_na_sentinel=False)
    type_codes, _ = pd.factorize(np.array([type(v).__name__ for v in values], dtype=object))
    if len(values) and type_codes.max() > 0:
        codes, _ = pd.factorize(codes.astype(np.int64) * (type_codes.max() + 1) + type_codes)
    firsts = np.zeros(codes.max() + 1 if len(codes) else 0, dtype=np.int64)
    seen = np.zeros(len(firsts), dtype=bool)
    for i, c in enumerate(codes):
        if not seen[c]:
            seen[c] = True
            firsts[c] = i
            if seen.all():
                break
    return codes.astype(np.int64), [json_label(values[i]) for i in firsts]


def sorted_labels(values: np.ndarray) -> list:
    values = np.asarray(values)
    if values.dtype.kind in "iuf":
        return [v.item() for v in np.unique(values)]
    _, labels = distinct(values)
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in labels):
        return sorted(labels)
    if all(isinstance(v, str) for v in labels):
        return sorted(labels)
    return sorted(labels, key=lambda v: (str(v), type(v).__name__))


def encode_labels(values, classes=None) -> tuple[np.ndarray, list]:
    """The class code of each label (its index in ``classes``) and the classes.

    ``classes`` defaults to the distinct labels, sorted (:func:`sorted_labels`).  A label
    matches a class of the same type and value: numpy scalars read as the Python values
    they hold, while 1, 1.0, True and "1" stay four labels.  A label that is not one of
    ``classes`` raises ValueError naming it.
    """
    values = np.asarray(values)
    classes = sorted_labels(values) if classes is None else list(classes)
    index = {label_key(c): i for i, c in enumerate(classes)}
    codes, seen = distinct(values)
    unknown = [v for v in seen if label_key(v) not in index]
    if unknown:
        raise ValueError(f"label {unknown[0]!r} is not one of the classes {classes}")
    lookup = np.array([index[label_key(v)] for v in seen], dtype=np.int64)
    return (lookup[codes] if len(codes) else codes), classes


def labels_of(col: pd.Series) -> np.ndarray:
    """The class labels of a (normalised) column: int64 when whole numbers, else as read."""
    if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
        values = col.to_numpy(dtype=np.float64)
        if np.all(values == np.round(values)) and np.all(np.abs(values) < 2**53):
            return values.astype(np.int64)
        return values
    items = [v.item() if isinstance(v, np.generic) else v for v in col.tolist()]
    arr = np.empty(len(items), dtype=object)
    arr[:] = items
    return arr
