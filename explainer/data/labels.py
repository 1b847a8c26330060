"""Class labels: what a label is, how labels become class codes, and which class is the majority.

This is the one place that decides what a class label means; the data set, the rule pool, the
report, the default policy, the estimator and the command line all call it.

What a label is
    A label matches a class of the same type and value.  numpy scalars read as the Python
    values they hold (``np.int64(1)`` is ``1``, ``np.float64(0.5)`` is ``0.5``), while ``1``,
    ``1.0``, ``True`` and ``"1"`` are four labels.  Labels of any of these types (integers,
    floats such as 0.5 and 1.5, booleans, text), and mixtures of them, are classes alike.
Where text must be compared
    A label read back from text (a rule file, a query string) may only hold the text of a class:
    :func:`match_label` is the one function that turns it into the class it names (the class of
    the same type and value, else the one class whose text is that text).
The classes
    :func:`sorted_labels` orders them (numbers by value, text alphabetically, a mixture by text
    then type name); the class code of a label is its index in that order (:func:`encode_labels`).
The majority and the fallback
    :func:`majority_class` is the most frequent class, by weight when rows are weighted (ties: the
    first class in order).  :func:`fallback_class` is the class given to rows no rule covers:
    the most frequent class, by weight, among the rows that no selected rule covers (ties: the
    overall majority, then the first class in order); when every row is covered, the overall
    majority.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from explainer.data.precision import exact_integers

__all__ = [
    "json_label",
    "label_key",
    "label_array",
    "class_array",
    "distinct",
    "sorted_labels",
    "encode_labels",
    "encode_distinct",
    "labels_of",
    "match_label",
    "class_counts",
    "majority_class",
    "fallback_class",
    "fallback_code",
]


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
    """What makes two labels the same label: their type and value (numpy scalars as Python values)."""
    value = json_label(value)
    return (type(value).__name__, str(value))


def label_array(values) -> np.ndarray:
    """Labels as a 1-D array without changing any of them: a numpy array or Series as it holds them, a
    list as an object array (``np.asarray([1, "a"])`` would turn the 1 into text, ``[1, 0.5]`` into floats)."""
    if isinstance(values, np.ndarray):
        return values.ravel()
    if isinstance(values, pd.Series | pd.Index):
        return values.to_numpy()
    items = list(values)
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


def class_array(classes) -> np.ndarray:
    """Classes as an array of their own type (int, float, bool or text), an object array when they mix types."""
    items = [json_label(c) if isinstance(c, np.generic) else c for c in classes]
    kinds = {type(c) for c in items}
    if len(kinds) == 1 and kinds <= {int, float, bool, str}:
        return np.array(items)
    return label_array(items)


def distinct(values: np.ndarray) -> tuple[np.ndarray, list]:
    """Codes into the distinct values (first-appearance order) and those values.

    Values of different types (1, 1.0, True, "1") are kept apart.
    """
    values = np.asarray(label_array(values), dtype=object)
    codes, _ = pd.factorize(values, use_na_sentinel=False)
    if len(set(map(type, values))) > 1:  # one type throughout, the usual case, needs no type codes (130,000 rows:
        # the names took 0.07 s of a stopped run's report)
        type_codes, _ = pd.factorize(np.array([type(v).__name__ for v in values], dtype=object))
        if type_codes.max() > 0:
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


def sorted_labels(values) -> list:
    """The distinct labels in class order: numbers by value, text alphabetically, a mixture by text then type."""
    values = label_array(values)
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
    matches a class of the same type and value (see the module's docstring).  A label that is
    not one of ``classes`` raises ValueError naming it.
    """
    values = label_array(values)
    classes = sorted_labels(values) if classes is None else list(classes)
    return encode_distinct(*distinct(values), classes), classes


def encode_distinct(codes: np.ndarray, seen: list, classes) -> np.ndarray:
    """The class code of each label from its :func:`distinct` reading (``codes`` into the distinct labels
    ``seen``): each label's index in ``classes``.  A label that is not one of ``classes`` raises ValueError."""
    index = {label_key(c): i for i, c in enumerate(classes)}
    unknown = [v for v in seen if label_key(v) not in index]
    if unknown:
        raise ValueError(f"label {unknown[0]!r} is not one of the classes {list(classes)}")
    lookup = np.array([index[label_key(v)] for v in seen], dtype=np.int64)
    return lookup[codes] if len(codes) else codes


def labels_of(col: pd.Series) -> np.ndarray:
    """The class labels of a (normalised) column: int64 when whole numbers, else as read."""
    if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
        values = col.to_numpy(dtype=np.float64)
        if exact_integers(values):
            return values.astype(np.int64)
        return values
    items = [v.item() if isinstance(v, np.generic) else v for v in col.tolist()]
    arr = np.empty(len(items), dtype=object)
    arr[:] = items
    return arr


def match_label(value, classes):
    """The class ``value`` names: the class of the same type and value, else the one class whose text is
    ``str(value)`` (a label read back from a rule file or a link is text).  ValueError when none does."""
    classes = list(classes)
    key = label_key(value)
    for c in classes:
        if label_key(c) == key:
            return c
    text = str(json_label(value))
    named = [c for c in classes if str(json_label(c)) == text]
    if len(named) == 1:
        return named[0]
    raise ValueError(f"label {value!r} is not one of the classes ({', '.join(map(str, classes))})")


def class_counts(values, classes=None, sample_weight=None) -> tuple[np.ndarray, list]:
    """(rows of each class, or their weight when ``sample_weight`` is given, in the order of ``classes``; the
    classes).  ``classes`` defaults to the distinct labels, sorted."""
    codes, classes = encode_labels(values, classes)
    weights = None if sample_weight is None else np.asarray(sample_weight, dtype=float).ravel()
    if weights is not None and weights.shape != codes.shape:
        raise ValueError(f"sample_weight needs one weight per label ({codes.size}), got {weights.size}")
    return np.bincount(codes, weights=weights, minlength=len(classes)).astype(float), classes


def majority_class(values, sample_weight=None, classes=None):
    """The most frequent class (by weight, when weighted); ties: the first in class order.  None without rows."""
    counts, classes = class_counts(values, classes, sample_weight)
    if not len(label_array(values)):
        return None
    return classes[int(np.argmax(counts))]


def fallback_code(codes, covered, n_classes: int, sample_weight=None) -> int:
    """:func:`fallback_class` on class codes (``0 .. n_classes - 1``): the code of the class for uncovered rows."""
    codes = np.asarray(codes, dtype=np.int64).ravel()
    covered = np.asarray(covered, dtype=bool).ravel()
    if covered.shape != codes.shape:
        raise ValueError(f"covered needs one flag per row ({codes.size}), got {covered.size}")
    w = np.ones(codes.size) if sample_weight is None else np.asarray(sample_weight, dtype=float).ravel()
    overall = np.bincount(codes, weights=w, minlength=n_classes)
    left = ~covered
    if not left.any():
        return int(np.argmax(overall))
    uncovered = np.bincount(codes[left], weights=w[left], minlength=n_classes)
    # ties among the uncovered rows go to the overall majority, then to the first class in order
    order = np.lexsort((np.arange(n_classes), -overall, -uncovered))
    return int(order[0])


def fallback_class(values, covered, sample_weight=None, classes=None):
    """The class for rows no rule covers: the most frequent class (by weight, when weighted) among the rows
    that ``covered`` leaves out; ties go to the overall majority, then to the first class in order; when
    every row is covered, the overall majority.  None without rows.  ``classes`` defaults to the distinct
    labels, sorted."""
    codes, classes = encode_labels(values, classes)
    if not codes.size:
        return None
    return classes[fallback_code(codes, covered, len(classes), sample_weight)]
