"""The fitted encoder: a table of mixed columns -> the float matrix rules are learned on.

:class:`TableEncoder` is fitted on a table (scikit-learn style) and learns, per
column, how it is read: numeric as it is; categorical as one 0/1 feature per
category (``Margin=5``); identifiers and constant or all-missing columns
dropped; a 0/1 ``Margin is missing`` feature for a column with gaps.  Applied to
new rows it encodes them the same way: a category it never saw is 0 in every
one-hot feature of its column, a gap in a column that had none when fitted is
NaN (numeric) or 0 (one-hot).  Every encoded feature has a
:class:`~explainer.data.features.FeatureSpec` saying what it stands for.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator

from explainer.data.features import FeatureSpec
from explainer.data.precision import FLOAT32_MAX, low_resolution_columns, low_resolution_pair
from explainer.data.tables import NUMBER_FORMATS_ATTR, DataError, normalise_frame
from explainer.data.target import ID_MIN_ROWS, ID_RATIO, looks_like_identifier_name

__all__ = [
    "ColumnInfo",
    "ColumnValues",
    "TableEncoder",
    "KINDS",
    "MAX_CATEGORIES",
    "MANY_VALUES",
    "left_out_message",
    "resolve_column",
]

#: A categorical column with more distinct values than this is refused.
MAX_CATEGORIES = 100
#: the kind of a categorical column left out for holding more than ``max_categories`` values
MANY_VALUES = "too many values"
#: ``ordinal_as_categorical=True`` means integer columns with at most this many distinct values.
ORDINAL_MAX_VALUES = 10

#: The values of ColumnInfo.kind.
KINDS = ("numeric", "categorical", "identifier", "target", "constant", "all missing", MANY_VALUES)


@dataclass
class ColumnInfo:
    """What became of one column of the input table."""

    name: str
    kind: str  # one of KINDS
    n_missing: int
    features: list[str]
    n_unique: int
    excluded: bool = False  # True when the column contributes no feature (and is not the target)

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "kind": self.kind,
            "n_missing": int(self.n_missing),
            "n_unique": int(self.n_unique),
            "features": list(self.features),
            "excluded": bool(self.excluded),
        }


@dataclass(frozen=True)
class ColumnValues:
    """The values one used column takes: a number, or one of its categories; missing where it had gaps."""

    name: str
    numeric: bool
    integer: bool
    categories: list
    missing_allowed: bool


@dataclass
class _Plan:
    """How one used column is encoded (fitted state)."""

    column: str
    numeric: bool  # a numeric feature (the column's values)
    integer: bool
    categories: list = field(default_factory=list)  # one-hot values, in feature order
    indicator: bool = False
    names: list[str] = field(default_factory=list)  # feature names, in order


@dataclass
class _Roles:
    """The columns the parameters name, resolved against one table."""

    categorical: set[str]
    excluded: set[str]
    kept: set[str]
    ordinal: int  # integer columns with at most this many values also get one-hot features


def _dedupe_feature_names(plans: list[_Plan], infos: list[ColumnInfo]) -> None:
    """Feature names unique across columns; plans and infos kept in step."""
    names = iter(unique_names([n for p in plans for n in p.names]))
    for p in plans:
        p.names = [next(names) for _ in p.names]
    by_column = {p.column: p for p in plans}
    for info in infos:
        if info.name in by_column:
            info.features = list(by_column[info.name].names)


def _feature_specs(plans: list[_Plan], low_columns: set[str],
                   formats: dict[str, str]) -> tuple[list[FeatureSpec], list[str]]:
    """One spec per feature, in output order, and the features float32 cannot resolve.  ``formats``: how the
    numbers of some columns are written in their file (a read table's ``attrs``), carried by their specs."""
    specs: list[FeatureSpec] = []
    low: list[str] = []
    for p in plans:
        names_iter = iter(p.names)
        written = formats.get(p.column)
        if p.numeric:
            feature = next(names_iter)
            specs.append(FeatureSpec(feature, p.column, "numeric", None, p.integer, written))
            if p.column in low_columns:
                low.append(feature)
        for v in p.categories:
            specs.append(FeatureSpec(next(names_iter), p.column, "onehot", v, False, written))
        if p.indicator:
            specs.append(FeatureSpec(next(names_iter), p.column, "missing", None, False))
    return specs, low


#: how a missing value is shown among a column's values (row tables, groups): in brackets, so that a category
#: written "missing" is not taken for one
MISSING_TEXT = "(missing)"


def format_value(v: Any) -> str:
    """A category as written in a feature name: whole floats without ``.0``."""
    if isinstance(v, float | np.floating):
        f = float(v)
        if f.is_integer() and abs(f) < 2**53:
            return str(int(f))
        return repr(f)
    if isinstance(v, np.generic):
        v = v.item()
    return str(v)


def clean_feature_name(name: str) -> str:
    """Line breaks become spaces and `` AND `` becomes `` and``, so a name reads as one condition."""
    name = name.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
    while " AND " in name:
        name = name.replace(" AND ", " and ")
    return name


def unique_names(names: list[str]) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    for n in names:
        candidate, k = n, 2
        while candidate in seen:
            candidate = f"{n} ({k})"
            k += 1
        seen.add(candidate)
        out.append(candidate)
    return out


def resolve_column(df: pd.DataFrame, ref: Any, what: str) -> str:
    """The column ``ref`` names (exact, stripped, or case-insensitive) or stands at (position)."""
    names = [str(c) for c in df.columns]
    available = ", ".join(f"'{n}'" for n in names)
    if isinstance(ref, bool):
        raise DataError(f"The {what} must be a column name or position, not {ref!r}.")
    if isinstance(ref, int | np.integer):
        i = int(ref)
        if -len(names) <= i < len(names):
            return names[i]
        raise DataError(
            f"The {what} position {i} is out of range; the table has {len(names)} columns: {available}."
        )
    key = str(ref)
    if key in names:
        return key
    if key.strip() in names:
        return key.strip()
    folded = [n for n in names if n.casefold() == key.strip().casefold()]
    if len(folded) == 1:
        return folded[0]
    raise DataError(f"The {what} '{key}' was not found; available columns: {available}.")


def as_list(value: Any) -> list:
    if value is None:
        return []
    if isinstance(value, str | int | np.integer):
        return [value]
    return list(value)


def _is_numeric(col: pd.Series) -> bool:
    return (
        pd.api.types.is_numeric_dtype(col)
        and not pd.api.types.is_bool_dtype(col)
        and not isinstance(col.dtype, pd.CategoricalDtype)
    )


def _number_blocks(df: pd.DataFrame) -> list[tuple[list[str], np.ndarray]]:
    """The columns held as numpy numbers (float, int) in one block per dtype: (their names, a contiguous
    array with a row per column).  pandas' per-column access costs about 80 us, 0.8 s on 10,000 columns."""
    positions: dict[np.dtype, list[int]] = {}
    for j, dtype in enumerate(df.dtypes):
        if isinstance(dtype, np.dtype) and dtype.kind in "fiu":
            positions.setdefault(dtype, []).append(j)
    names = df.columns.tolist()  # once: reading an arrow-backed index item by item is slow
    return [([str(names[j]) for j in where], np.ascontiguousarray(df.iloc[:, where].to_numpy(dtype=dtype).T))
            for dtype, where in positions.items()]


def _number_arrays(df: pd.DataFrame) -> dict[str, np.ndarray]:
    """Each column held as numpy numbers, by name (see :func:`_number_blocks`)."""
    return {name: block[k] for names, block in _number_blocks(df) for k, name in enumerate(names)}


@dataclass(frozen=True)
class _NumberFacts:
    """What the encoder reads from a column of numbers (found for a block of columns at once: numpy's
    per-call cost, a dozen calls a column, took seconds on a table of 10,000 columns)."""

    n_missing: int
    distinct: np.ndarray  # the distinct values present, ascending, in the column's dtype
    whole: bool  # every value present a whole number
    max_abs: float  # the largest magnitude present (0 when none is)
    low: bool  # two of the distinct values are one value to float32


def _number_facts(block: np.ndarray) -> list[_NumberFacts]:
    """:class:`_NumberFacts` of each row of ``block`` (a column per row; NaN = missing)."""
    k, n = block.shape
    values = block.astype(np.float64)
    missing = np.isnan(values)
    n_present = n - missing.sum(axis=1)
    ordered = np.sort(block, axis=1)  # missing values last; equal values side by side, as np.unique sees them
    inside = np.arange(n)[None, :] < n_present[:, None]
    first = inside.copy()  # the first of each run of equal values present
    first[:, 1:] &= ordered[:, 1:] != ordered[:, :-1]
    whole = np.all((values == np.round(values)) | missing, axis=1)
    max_abs = np.where(missing, 0.0, np.abs(values)).max(axis=1) if n else np.zeros(k)
    low = np.zeros(k, dtype=bool)
    with np.errstate(over="ignore", invalid="ignore"):  # beyond float32's range: refused by the range check
        low[low_resolution_columns(values.T)] = True
    return [_NumberFacts(int(n - n_present[i]), ordered[i][first[i]], bool(whole[i]), float(max_abs[i]), bool(low[i]))
            for i in range(k)]


def _present_numbers(column) -> np.ndarray:
    """The values present in a column of numbers (an array or a Series), as float64."""
    values = np.asarray(column, dtype=np.float64)
    return values[~np.isnan(values)]


def _looks_like_identifier(name: str, n: int, whole: bool, numeric: bool, n_unique: int) -> bool:
    """Whether a column of ``n`` values present, ``n_unique`` of them distinct, looks like row identifiers;
    ``whole``: whether those values are whole numbers (read for numeric columns only)."""
    if n < 2:
        return False
    if numeric and not whole:
        return False  # real-valued measurements are never identifiers
    if n < ID_MIN_ROWS:
        # few rows: distinct values alone prove nothing; a name like "id" settles it
        return n_unique == n and looks_like_identifier_name(name)
    return n_unique / n >= ID_RATIO


def _compact_frame(matrix: np.ndarray, specs: list[FeatureSpec]) -> pd.DataFrame:
    """The encoded rows as a DataFrame: numeric features as float64, the 0/1 features (one-hot, missing) as
    uint8, an eighth of the memory for the same values.  A census table of 364,000 rows has 102 such
    features of 108: its matrix takes 55 MB instead of 315 MB, which matters where a server keeps the
    data sets of several pages.  Read as float (``to_numpy(dtype=float)``), the values are the same."""
    names = pd.Index([s.name for s in specs], dtype=object)
    binary = np.array([s.binary for s in specs], dtype=bool)
    if not binary.any() or binary.all():
        dtype = np.uint8 if binary.any() else np.float64
        return pd.DataFrame(matrix.astype(dtype, copy=False), columns=names)
    parts = [pd.DataFrame(matrix[:, ~binary].astype(np.float64, copy=False), columns=names[~binary]),
             pd.DataFrame(matrix[:, binary].astype(np.uint8), columns=names[binary])]
    return pd.concat(parts, axis=1)[names]


def left_out_message(info: ColumnInfo, limit: int) -> str:
    """The sentence saying that a column of too many values (kind :data:`MANY_VALUES`) is left out."""
    return (f"Column '{info.name}' has {info.n_unique} distinct values, too many for a categorical feature "
            f"(limit {limit}): it is left out of the rules. Encode it (for example as numbers) to use it.")


class TableEncoder(BaseEstimator):
    """Encode a table's columns as features for rule learning (fit on one table, apply to any).

    Parameters
    ----------
    categorical : columns to one-hot encode even though they hold numbers (names or positions).
        Text and pandas ``category`` columns are categorical anyway.
    exclude : columns to drop.
    keep : columns to keep even when they look like identifiers.
    missing_indicators : ``"auto"`` or True adds a 0/1 ``"<column> is missing"`` feature for
        each column with gaps in the fitted table; False adds none.
    ordinal_as_categorical : False, True (integer columns with at most 10 distinct values) or an
        int k (at most k): such a column offers both its numeric feature (``Margin > 3``) and
        one-hot features (``Margin=5``); binary columns are left numeric only.
    max_categories : a categorical column with more distinct values is refused (``many_values``).
    many_values : ``"refuse"``: such a column is a :class:`DataError` naming it (the command line and the
        dashboard, where the person loading the table chooses what to exclude); ``"exclude"``: it is left out
        (its :class:`ColumnInfo` kind ``"too many values"``, a sentence in ``warnings_``), as the estimator
        does by default.
    detect_identifiers : drop columns that look like identifiers (about one value per row, or a
        name like ``id`` with a value per row); False keeps them (the estimator's choice: the
        caller chose its features).

    Fitted attributes
    -----------------
    columns_ : list of :class:`ColumnInfo`, one per input column, in input order.
    feature_specs_ : list of :class:`~explainer.data.features.FeatureSpec`, one per output feature.
    feature_names_in_ : input column names; ``n_features_in_`` their number.
    low_resolution_ : output features whose distinct values float32 cannot tell apart.
    warnings_ : sentences for the person who supplied the table (lost resolution).
    """

    def __init__(
        self,
        categorical: Iterable[str | int] = (),
        exclude: Iterable[str | int] = (),
        keep: Iterable[str | int] = (),
        missing_indicators: bool | str = "auto",
        ordinal_as_categorical: bool | int = False,
        max_categories: int = MAX_CATEGORIES,
        detect_identifiers: bool = True,
        many_values: str = "refuse",
    ):
        self.categorical = categorical
        self.exclude = exclude
        self.keep = keep
        self.missing_indicators = missing_indicators
        self.ordinal_as_categorical = ordinal_as_categorical
        self.max_categories = max_categories
        self.detect_identifiers = detect_identifiers
        self.many_values = many_values

    # ------------------------------------------------------------------ public API

    def fit(self, frame, y=None) -> TableEncoder:
        self._fit(*self._normalised(frame, fitted=False))
        return self

    def transform(self, frame) -> pd.DataFrame:
        """The feature matrix of ``frame`` with the fitted feature names: numeric features as float64, one-hot
        features and missing indicators (0 or 1) as uint8."""
        self._check_fitted()
        return self._transform(self._normalised(frame, fitted=True)[0])

    def fit_transform(self, frame, y=None) -> pd.DataFrame:
        df, declared = self._normalised(frame, fitted=False)
        self._fit(df, declared)
        return self._transform(df)

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        self._check_fitted()
        return np.asarray([s.name for s in self.feature_specs_], dtype=object)

    @property
    def feature_names_(self) -> list[str]:
        self._check_fitted()
        return [s.name for s in self.feature_specs_]

    def inverse_transform(self, X, columns: Iterable[str] | None = None) -> pd.DataFrame:
        """The used columns in their own values, from encoded rows (the inverse of :meth:`transform`).

        A numeric column is its feature; a categorical one is the category whose one-hot
        feature is 1, or missing (None) when none is (a missing value, or a category never
        seen when fitting).  Identifiers and other dropped columns are not recovered.
        ``columns``: only these of the used columns (in the table's order), every one by default.
        """
        self._check_fitted()
        frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X), columns=self.feature_names_)
        wanted = None if columns is None else set(columns)
        out: dict[str, np.ndarray] = {}
        for p in self._plans:
            if wanted is not None and p.column not in wanted:
                continue
            if p.numeric:
                out[p.column] = frame[p.names[0]].to_numpy(dtype=np.float64)
                continue
            onehot = frame[p.names[: len(p.categories)]].to_numpy(dtype=np.float64) > 0.5
            values = np.full(len(frame), None, dtype=object)
            hit = onehot.any(axis=1)
            values[hit] = np.array(p.categories + [None], dtype=object)[:-1][onehot[hit].argmax(axis=1)]
            out[p.column] = values
        return pd.DataFrame(out, index=frame.index)

    def column_values(self) -> list[ColumnValues]:
        """What each used column can hold, for a form that builds rows :meth:`transform` accepts."""
        self._check_fitted()
        missing = {c.name: c.n_missing > 0 for c in self.columns_}
        return [ColumnValues(p.column, p.numeric, p.integer, [] if p.numeric else list(p.categories),
                             missing.get(p.column, False)) for p in self._plans]

    # ------------------------------------------------------------------ fitting

    def _check_fitted(self) -> None:
        if not hasattr(self, "feature_specs_"):
            raise DataError("The encoder is not fitted yet; call fit() on a table first.")

    def _normalised(self, frame, fitted: bool) -> tuple[pd.DataFrame, set[str]]:
        """The table under read_table's cell rules, and its pandas ``category`` columns."""
        if not isinstance(frame, pd.DataFrame):
            arr = np.asarray(frame)
            if arr.ndim != 2:
                raise DataError("The table must be two-dimensional (rows and columns).")
            names = list(self.feature_names_in_) if fitted else [f"x{i}" for i in range(arr.shape[1])]
            if len(names) != arr.shape[1]:
                raise DataError(
                    f"The table has {arr.shape[1]} columns but the encoder was fitted on {len(names)}."
                )
            frame = pd.DataFrame(arr, columns=names)
        declared = {
            str(c).strip() for c, dt in frame.dtypes.items() if isinstance(dt, pd.CategoricalDtype)
        }
        return normalise_frame(frame), declared

    def _ordinal_limit(self) -> int:
        o = self.ordinal_as_categorical
        if o is True:
            return ORDINAL_MAX_VALUES
        if o is False or o is None:
            return 0
        if isinstance(o, int | np.integer) and o >= 0:
            return int(o)
        raise DataError("ordinal_as_categorical must be True, False or a number of distinct values.")

    def _fit(self, df: pd.DataFrame, declared: AbstractSet[str] = frozenset()) -> None:
        if self.missing_indicators not in ("auto", True, False):
            raise DataError("missing_indicators must be 'auto', True or False.")
        if self.many_values not in ("refuse", "exclude"):
            raise DataError("many_values must be 'refuse' or 'exclude'.")
        roles = self._roles(df, declared)
        if len(df) == 0:
            raise DataError("The table has no data rows.")
        infos: list[ColumnInfo] = []
        plans: list[_Plan] = []
        warnings: list[str] = []
        low_columns: set[str] = set()
        numbers = {name: (block[k], fact) for names, block in _number_blocks(df)
                   for k, (name, fact) in enumerate(zip(names, _number_facts(block), strict=True))}
        names = df.columns.tolist()  # once: iterating an arrow-backed index is slow
        for name in names:
            raw, fact = numbers.get(str(name), (None, None))
            col = df[name] if raw is None else None
            info, plan, warning = self._read_column(str(name), raw, fact, col, roles)
            infos.append(info)
            if plan is not None:
                plans.append(plan)
            if warning is not None:
                warnings.append(warning)
                low_columns.add(info.name)
            if info.kind == MANY_VALUES:
                warnings.append(left_out_message(info, self.max_categories))
        if not plans:
            raise DataError(_no_feature_message(infos, roles.excluded))
        _dedupe_feature_names(plans, infos)
        specs, low = _feature_specs(plans, low_columns, dict(df.attrs.get(NUMBER_FORMATS_ATTR) or {}))
        self.columns_ = infos
        self._plans = plans
        self.feature_specs_ = specs
        self.feature_names_in_ = np.asarray([str(c) for c in names], dtype=object)
        self.n_features_in_ = len(self.feature_names_in_)
        self.low_resolution_ = low
        self.warnings_ = warnings

    def _roles(self, df: pd.DataFrame, declared) -> _Roles:
        """The columns named in the parameters, resolved against the table (one set each)."""
        categorical = {resolve_column(df, c, "categorical column") for c in as_list(self.categorical)}
        # pandas category columns are categorical by declaration, whatever their values
        categorical |= set(declared) & set(df.columns)
        excluded = {resolve_column(df, c, "excluded column") for c in as_list(self.exclude)}
        kept = {resolve_column(df, c, "kept column") for c in as_list(self.keep)}
        return _Roles(categorical, excluded, kept, self._ordinal_limit())

    def _read_column(
        self, name: str, raw: np.ndarray | None, facts: _NumberFacts | None, col: pd.Series | None, roles: _Roles
    ) -> tuple[ColumnInfo, _Plan | None, str | None]:
        """What becomes of one column (numpy numbers in ``raw``, known by their ``facts``; any other column in
        ``col``): its info, its plan (None when dropped) and a precision warning."""
        present: Any = None
        if raw is not None and facts is not None:
            numeric, n_missing, n_unique = True, facts.n_missing, int(facts.distinct.size)
            n_present = len(raw) - n_missing
        else:
            assert col is not None
            numeric = _is_numeric(col)
            missing = col.isna().to_numpy()
            present = col[~missing]
            n_unique = int(present.nunique())
            n_missing = int(missing.sum())
            n_present = len(present)
            if numeric:  # numbers of a pandas dtype (a nullable integer, say): its values in their own type
                values = np.asarray(present)
                facts = _number_facts((values if values.dtype.kind in "fiu" else values.astype(np.float64))[None, :])[0]
            else:
                facts = None
        kind = self._kind(name, numeric, n_unique, n_present, facts is not None and facts.whole, roles)
        if name in roles.excluded or kind in ("constant", "identifier", "all missing", MANY_VALUES):
            return ColumnInfo(name, kind, n_missing, [], n_unique, excluded=True), None, None
        plan = _Plan(column=name, numeric=False, integer=False)
        warning = None
        if kind == "numeric":
            assert facts is not None
            warning = self._plan_numeric(plan, facts, raw if raw is not None else present, roles.ordinal)
        else:
            if raw is not None:
                present = raw[~np.isnan(raw)] if raw.dtype.kind == "f" else raw
            self._plan_categories(plan, pd.Series(present), numeric, n_unique)
        plan.indicator = bool(n_missing) and self.missing_indicators in ("auto", True)
        base = clean_feature_name(name)
        plan.names = (
            ([base] if plan.numeric else [])
            + [clean_feature_name(f"{name}={format_value(v)}") for v in plan.categories]
            + ([clean_feature_name(f"{name} is missing")] if plan.indicator else [])
        )
        return ColumnInfo(name, kind, n_missing, plan.names, n_unique), plan, warning

    def _kind(self, name: str, numeric: bool, n_unique: int, n_present: int, whole: bool, roles: _Roles) -> str:
        kind = "categorical" if (not numeric or name in roles.categorical) else "numeric"
        if n_unique == 0:
            return "all missing"
        if n_unique == 1:
            return "constant"
        if (
            self.detect_identifiers
            and name not in roles.kept
            and name not in roles.categorical
            and _looks_like_identifier(name, n_present, whole, numeric, n_unique)
        ):
            return "identifier"
        if kind == "categorical" and n_unique > self.max_categories and self.many_values == "exclude":
            return MANY_VALUES
        return kind

    def _plan_numeric(self, plan: _Plan, facts: _NumberFacts, column, ordinal: int) -> str | None:
        """Plan a numeric column from its ``facts`` (``column``, its values: read only to name a value out of
        range or two that float32 cannot tell apart, which the facts only flag)."""
        plan.numeric = True
        plan.integer = facts.whole
        if facts.max_abs > FLOAT32_MAX:
            self._check_range(plan.column, _present_numbers(column))
        if plan.integer and 2 < facts.distinct.size <= ordinal:
            plan.categories = sorted(facts.distinct.tolist(), key=float)
        pair = low_resolution_pair(_present_numbers(column)) if facts.low else None
        if pair is None:
            return None
        return (
            f"Column '{plan.column}' holds distinct values that the tree learner's float32 "
            f"precision cannot tell apart (such as {pair[0]!r} and {pair[1]!r}); "
            "trees learn it from the rank of each value, and its rules are written and "
            "checked on the original values."
        )

    def _plan_categories(self, plan: _Plan, present: pd.Series, numeric: bool, n_unique: int) -> None:
        if n_unique > self.max_categories:
            raise DataError(
                f"Column '{plan.column}' has {n_unique} distinct values, too many for a categorical "
                f"feature (limit {self.max_categories}); exclude it or treat it as an identifier."
            )
        values = present.unique().tolist()
        if numeric:
            values = sorted(values, key=float)
        else:
            values = sorted(values, key=lambda v: (str(v), type(v).__name__))
        plan.categories = values

    @staticmethod
    def _check_range(name: str, values: np.ndarray) -> None:
        if not len(values):
            return
        i = int(np.argmax(np.abs(values)))
        if abs(values[i]) > FLOAT32_MAX:
            raise DataError(
                f"Column '{name}' holds {values[i]:g}, beyond the largest magnitude the tree learner "
                f"accepts ({FLOAT32_MAX:.6g}, float32); rescale the column or mark such values missing."
            )

    # ------------------------------------------------------------------ applying

    def _transform(self, df: pd.DataFrame) -> pd.DataFrame:
        n = len(df)
        blocks: list[np.ndarray] = []
        present = set(df.columns.tolist())
        numbers = _number_arrays(df)
        for p in self._plans:
            if p.column not in present:
                given = ", ".join(f"'{c}'" for c in df.columns)
                raise DataError(
                    f"The column '{p.column}' the encoder was fitted on is missing; columns given: {given}."
                )
            blocks.extend(self._encode_column(p, numbers.get(p.column), df))
        # 2-D blocks (n x features of one column): one stack, not one per feature
        matrix = np.hstack(blocks) if blocks else np.zeros((n, 0))
        return _compact_frame(matrix, self.feature_specs_)

    def _encode_column(self, p: _Plan, numbers: np.ndarray | None, df: pd.DataFrame) -> list[np.ndarray]:
        """The features of ``p``'s column of ``df`` (its numbers in ``numbers`` when it holds numpy numbers: the
        column itself is read only where it holds something else) as n x 1 or n x k blocks, in the plan's order."""
        col: pd.Series | None = None
        if numbers is not None:
            values = numbers.astype(np.float64)
            missing = np.isnan(values)
        else:
            col = df[p.column]
            values = None
            missing = col.isna().to_numpy()
        out: list[np.ndarray] = []
        if p.numeric:
            if values is None:
                assert col is not None
                values = self._numbers_of(p, col, missing)
            self._check_range(p.column, values[~missing])
            out.append(values[:, None])
        if p.categories:
            if values is not None and all(isinstance(v, int | float | np.number) for v in p.categories):
                keys, cats = values, np.array([float(v) for v in p.categories])
                out.append((keys[:, None] == cats[None, :]).astype(np.float64))
            else:
                keys, cat_values = _category_keys(df[p.column] if col is None else col, missing, p.categories)
                # each value as an object: numpy turns a str into its own text type, which drops a trailing NUL
                # ('\x00' would match '' and never itself)
                out.extend((keys == np.array(v, dtype=object)).astype(np.float64)[:, None] for v in cat_values)
        if p.indicator:
            out.append(missing.astype(np.float64)[:, None])
        return out

    @staticmethod
    def _numbers_of(p: _Plan, col: pd.Series, missing: np.ndarray) -> np.ndarray:
        """A numeric column's values from a column that did not arrive as numbers (text or objects)."""
        if not _is_numeric(col) and len(col[~missing]):
            bad = col[~missing].iloc[0]
            try:
                return col.astype(np.float64).to_numpy()
            except (TypeError, ValueError):
                raise DataError(
                    f"Column '{p.column}' holds text ({str(bad)!r}) but held numbers when the "
                    "encoder was fitted."
                ) from None
        return col.to_numpy(dtype=np.float64, na_value=np.nan)


def _category_keys(col: pd.Series, missing: np.ndarray, categories: list) -> tuple[np.ndarray, list]:
    """Comparable cell values and category values (missing cells match no category).

    Numbers compare as numbers and text as text; when the types differ between
    the fitted table and the new rows (a code column read as numbers in one and
    as text in the other), both sides compare as written in feature names.
    """
    present = col[~missing]
    if _is_numeric(col) and all(isinstance(v, int | float | np.number) for v in categories):
        keys = col.to_numpy(dtype=np.float64, na_value=np.nan)
        return keys, [float(v) for v in categories]
    if all(isinstance(v, str) for v in categories) and all(isinstance(v, str) for v in present):
        keys = col.to_numpy(dtype=object).copy()
        keys[missing] = None
        return keys, list(categories)
    keys = np.array([None if m else format_value(v) for v, m in zip(col.tolist(), missing, strict=True)],
                    dtype=object)
    return keys, [format_value(v) for v in categories]


def _no_feature_message(infos: list[ColumnInfo], excl_cols: set[str]) -> str:
    why = ", ".join(f"'{c.name}' ({'excluded' if c.name in excl_cols else c.kind})" for c in infos)
    ids = [c.name for c in infos if c.kind == "identifier" and c.name not in excl_cols]
    if ids and len(ids) == len(infos):
        names = ", ".join(f"'{c}'" for c in ids)
        return (
            f"No usable feature is left: {names} look{'s' if len(ids) == 1 else ''} like "
            f"{'an identifier' if len(ids) == 1 else 'identifiers'} (a different value in every row), "
            "and no rule can generalise from an identifier; keep such a column (keep=..., --keep) "
            "only if it is a real measurement."
        )
    return f"No usable feature column is left after removing {why}."
