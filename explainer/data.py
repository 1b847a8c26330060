"""Reading and preparing a classification data set.

A data set is a table with a header row: one column is the target (the class
label), the others are candidate features.  This module turns such a table into
a :class:`Dataset`: a float64 feature matrix ``X`` whose column names are the
feature names used in rules, and the class labels ``y`` exactly as read.

Files are only ever parsed as delimited text; nothing in a file is executed or
unpickled.  Every problem with the input is reported as a :class:`DataError`
whose message is one sentence meant for the person who supplied the file.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import os
import pathlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .features import FeatureSpec, numeric_specs

__all__ = [
    "DataError",
    "ColumnInfo",
    "Dataset",
    "read_table",
    "load_dataset",
    "shared_data_dir",
    "PAPER_DATASETS",
    "load_paper_dataset",
    "sample_datasets",
    "MISSING_MARKERS",
]

#: Cell contents (after stripping surrounding whitespace) read as a missing value.
MISSING_MARKERS: frozenset[str] = frozenset(
    {"", "?", "NA", "N/A", "NaN", "nan", "null", "NULL", "None"}
)

#: Default limits for uploaded files.
DEFAULT_MAX_BYTES = 50_000_000
DEFAULT_MAX_ROWS = 1_000_000

#: A categorical column with more distinct values than this is refused.
MAX_CATEGORIES = 100

#: Identifier detection: distinct / non-missing ratio and minimum non-missing rows.
IDENTIFIER_RATIO = 0.9
IDENTIFIER_MIN_ROWS = 10

_DELIMITERS = (",", "\t", ";", "|")
_SAMPLE_LINES = 100
_PROJECT_ROOT = pathlib.Path(__file__).resolve().parent.parent

#: The values of ColumnInfo.kind.
KINDS = ("numeric", "categorical", "identifier", "target", "constant")


class DataError(ValueError):
    """Bad input; the message is one sentence naming the problem for an end user."""


@dataclass
class ColumnInfo:
    """What became of one column of the input table."""

    name: str
    kind: str  # "numeric" | "categorical" | "identifier" | "target" | "constant"
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


@dataclass
class Dataset:
    """A prepared classification data set."""

    X: pd.DataFrame
    y: np.ndarray
    target: str
    classes: list
    columns: list[ColumnInfo]
    name: str
    n_rows_read: int
    n_dropped_missing_target: int
    n_rows_with_missing: int
    fingerprint: str = ""
    #: what each column of ``X`` stands for (source column, numeric / one-hot / missing indicator)
    feature_specs: list[FeatureSpec] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.fingerprint:
            self.fingerprint = _fingerprint(self.X, self.y)
        if not self.feature_specs:
            self.feature_specs = numeric_specs(self.X.columns)

    @property
    def feature_names(self) -> list[str]:
        return [str(c) for c in self.X.columns]

    @property
    def n_rows(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    def y_codes(self) -> np.ndarray:
        """Integer codes of ``y``: the position of each label in :attr:`classes`."""
        return _label_codes(self.y, self.classes)

    def class_counts(self) -> dict:
        codes = self.y_codes()
        counts = np.bincount(codes, minlength=len(self.classes))
        return {c: int(n) for c, n in zip(self.classes, counts, strict=True)}

    def summary(self) -> dict:
        """A JSON-serialisable description of the data set."""
        counts = self.class_counts()
        return {
            "name": self.name,
            "target": self.target,
            "rows": self.n_rows,
            "rows_read": int(self.n_rows_read),
            "features": self.n_features,
            "feature_names": self.feature_names,
            "classes": [{"label": _json_label(c), "count": counts[c]} for c in self.classes],
            "n_classes": len(self.classes),
            "dropped_missing_target": int(self.n_dropped_missing_target),
            "rows_with_missing": int(self.n_rows_with_missing),
            "missing_cells": int(sum(c.n_missing for c in self.columns if c.features)),
            "columns": [c.to_dict() for c in self.columns],
            "column_kinds": {c.name: c.kind for c in self.columns},
            "fingerprint": self.fingerprint,
        }


# --------------------------------------------------------------------------- labels


def _json_label(value: Any) -> Any:
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool | int | str) or value is None:
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    return str(value)


def _label_key(value: Any) -> tuple[str, str]:
    value = _json_label(value)
    return (type(value).__name__, str(value))


def _distinct(values: np.ndarray) -> tuple[np.ndarray, list]:
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
    return codes.astype(np.int64), [_json_label(values[i]) for i in firsts]


def _sorted_labels(values: np.ndarray) -> list:
    values = np.asarray(values)
    if values.dtype.kind in "iuf":
        return [v.item() for v in np.unique(values)]
    _, labels = _distinct(values)
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in labels):
        return sorted(labels)
    if all(isinstance(v, str) for v in labels):
        return sorted(labels)
    return sorted(labels, key=lambda v: (str(v), type(v).__name__))


def _label_codes(values: np.ndarray, classes: list) -> np.ndarray:
    values = np.asarray(values)
    index = {_label_key(c): i for i, c in enumerate(classes)}
    codes, distinct = _distinct(values)
    lookup = np.array([index[_label_key(v)] for v in distinct], dtype=np.int64)
    return lookup[codes] if len(codes) else codes


def _fingerprint(X: pd.DataFrame, y: np.ndarray) -> str:
    h = hashlib.sha256()
    h.update(json.dumps([str(c) for c in X.columns], ensure_ascii=False).encode("utf-8"))
    values = np.ascontiguousarray(X.to_numpy(dtype=np.float64, copy=True))
    missing = np.isnan(values)
    values[missing] = 0.0
    values = values + 0.0  # turn -0.0 into 0.0
    h.update(str(values.shape).encode())
    h.update(values.astype("<f8").tobytes())
    h.update(np.packbits(missing).tobytes())
    codes, distinct = _distinct(np.asarray(y))
    h.update(json.dumps([_label_key(v) for v in distinct], ensure_ascii=False).encode("utf-8"))
    h.update(codes.astype("<i8").tobytes())
    return h.hexdigest()


# --------------------------------------------------------------------------- reading


def _source_label(source: Any) -> str:
    name = None
    if isinstance(source, str | os.PathLike):
        name = os.path.basename(os.fspath(source))
    else:
        name = getattr(source, "name", None)
        if isinstance(name, str | os.PathLike):
            name = os.path.basename(os.fspath(name))
        else:
            name = None
    return f"The file '{name}'" if name else "The data"


def _read_bytes(source: Any, max_bytes: int) -> bytes:
    limit_msg = "{label} is larger than the limit of {limit} bytes."
    label = _source_label(source)
    if isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source)
    elif isinstance(source, str | os.PathLike):
        path = pathlib.Path(source)
        if not path.exists():
            raise DataError(f"{label} does not exist.")
        if path.is_dir():
            raise DataError(f"{label} is a folder, not a file.")
        try:
            size = path.stat().st_size
        except OSError as exc:  # pragma: no cover - depends on the file system
            raise DataError(f"{label} could not be read ({exc.strerror}).") from exc
        if size > max_bytes:
            raise DataError(limit_msg.format(label=label, limit=f"{max_bytes:,}"))
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise DataError(f"{label} could not be read ({exc.strerror}).") from exc
    elif hasattr(source, "getvalue") and not hasattr(source, "read"):
        data = source.getvalue()
    elif hasattr(source, "read"):
        data = source.read(max_bytes + 1)
    elif hasattr(source, "getvalue"):
        data = source.getvalue()
    else:
        raise DataError(
            f"Cannot read data from an object of type {type(source).__name__}; "
            "give a file path, bytes or an uploaded file."
        )
    if isinstance(data, str):
        data = data.encode("utf-8")
    if not isinstance(data, bytes | bytearray):
        raise DataError(f"{label} did not return bytes or text when read.")
    data = bytes(data)
    if len(data) > max_bytes:
        raise DataError(limit_msg.format(label=label, limit=f"{max_bytes:,}"))
    return data


def _decode(data: bytes, label: str) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise DataError(f"{label} is UTF-16 text, not UTF-8 text; save it as UTF-8 CSV.")
    if data.startswith(b"PK\x03\x04"):
        raise DataError(
            f"{label} is a ZIP archive or spreadsheet (such as .xlsx), not a text table; "
            "export it as CSV."
        )
    if b"\x00" in data:
        raise DataError(f"{label} contains binary data (NUL bytes), not a text table.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        bad = data[exc.start : exc.start + 1].hex()
        line = data[: exc.start].count(b"\n") + 1
        raise DataError(
            f"{label} is not UTF-8 text (byte 0x{bad} on line {line}); save it as UTF-8 CSV."
        ) from exc
    return text


def _looks_like_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _split_whitespace(lines: Sequence[str]) -> list[list[str]]:
    return [line.split() for line in lines]


def _parse_lines(lines: Sequence[str], delimiter: str) -> list[list[str]] | None:
    try:
        return list(csv.reader(lines, delimiter=delimiter, strict=True))
    except csv.Error:
        return None


def _sniff_delimiter(text: str) -> str | None:
    """Return the delimiter (``None`` means runs of whitespace)."""
    sample = [ln for ln in text.splitlines()[: _SAMPLE_LINES * 2] if ln.strip()][:_SAMPLE_LINES]
    # The last sampled line may be cut in the middle of a quoted field; keep it
    # only when the whole text is in the sample.
    scores: dict[str | None, tuple[int, int, int]] = {}
    for d in _DELIMITERS:
        rows = _parse_lines(sample, d)
        if rows is None:
            continue
        counts = [len(r) for r in rows if r]
        if not counts:
            continue
        consistent = sum(1 for c in counts if c == counts[0])
        scores[d] = (int(consistent == len(counts)), counts[0], consistent)
    ws_rows = _split_whitespace(sample)
    ws_counts = [len(r) for r in ws_rows if r]
    if ws_counts:
        consistent = sum(1 for c in ws_counts if c == ws_counts[0])
        scores[None] = (int(consistent == len(ws_counts)), ws_counts[0], consistent)

    def ok(s: tuple[int, int, int]) -> bool:
        return s[0] == 1 and s[1] > 1

    # A delimiter that splits every sampled line into the same number (> 1) of
    # fields wins; among several, the one giving more fields, then the usual order.
    # csv.Sniffer breaks ties that remain.
    good = [d for d in _DELIMITERS if d in scores and ok(scores[d])]
    if good:
        best = max(scores[d][1] for d in good)
        good = [d for d in good if scores[d][1] == best]
        if len(good) > 1:
            try:
                sniffed = csv.Sniffer().sniff("\n".join(sample), delimiters="".join(good)).delimiter
            except csv.Error:
                sniffed = None
            if sniffed in good:
                return sniffed
        return good[0]
    if None in scores and ok(scores[None]):
        return None
    # Nothing is consistent: pick the delimiter whose header splits the line
    # into several fields and which agrees with most lines, so that the
    # ragged-row error points at a real line.
    candidates = [d for d in scores if scores[d][1] > 1]
    if not candidates:
        return ","
    return max(candidates, key=lambda d: (scores[d][2], d is not None))


def _clean_column(raw: list[str], name: str) -> pd.Series:
    """Strip cells, mark missing values and convert to numbers where possible."""
    s = pd.Series(raw, dtype=object, name=name).map(str.strip)
    missing = s.isin(MISSING_MARKERS)
    s = s.where(~missing, None)
    return _to_best_dtype(s, missing.to_numpy())


def _to_best_dtype(s: pd.Series, missing: np.ndarray) -> pd.Series:
    present = s[~missing]
    if len(present) == 0:
        return pd.Series(np.full(len(s), np.nan), index=s.index, dtype=np.float64)
    try:
        num = np.asarray(present.to_numpy(dtype=object)).astype(np.float64)
    except (ValueError, TypeError, OverflowError):
        num = None
    if num is not None:
        values = np.full(len(s), np.nan)
        values[~missing] = num
        if not np.isfinite(values[~missing]).all():
            raise DataError(
                f"Column '{s.name}' contains infinite values; replace them or mark them missing."
            )
        if (
            not missing.any()
            and np.all(values == np.round(values))
            and np.all(np.abs(values) < 2**53)
        ):
            return pd.Series(values.astype(np.int64), index=s.index)
        return pd.Series(values, index=s.index, dtype=np.float64)
    out = s.astype(object)
    out[missing] = np.nan
    return out


def read_table(
    source: Any,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_rows: int = DEFAULT_MAX_ROWS,
) -> pd.DataFrame:
    """Read a delimited text table with a header row into a DataFrame.

    ``source`` is a path, bytes, or a binary/text file-like object (an
    uploaded file).  The delimiter is detected among ``, ; TAB |`` and runs of
    whitespace.  Cells are stripped of surrounding whitespace; the markers in
    :data:`MISSING_MARKERS` become missing values.  Columns whose values are
    all numbers become int64 (no missing value, integral) or float64; other
    columns hold Python strings (object dtype) with NaN for missing.
    Completely blank rows are skipped.
    """
    label = _source_label(source)
    data = _read_bytes(source, max_bytes)
    text = _decode(data, label)
    if not text.strip():
        raise DataError(f"{label} is empty.")
    head = text.lstrip()[:200].lower()
    if head.startswith(("{", "[")):
        raise DataError(
            f"{label} looks like JSON, not a table with a header row; export it as CSV."
        )
    if head.startswith(("<!doctype", "<html", "<?xml", "<head", "<body")):
        raise DataError(f"{label} looks like an HTML or XML page, not a table; export it as CSV.")

    delimiter = _sniff_delimiter(text)
    lines = text.splitlines()
    rows: list[list[str]] = []
    line_numbers: list[int] = []
    if delimiter is None:
        for i, line in enumerate(lines, start=1):
            fields = line.split()
            if fields:
                rows.append(fields)
                line_numbers.append(i)
                if len(rows) > max_rows + 1:
                    break
    else:
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
        last_line = 0
        try:
            for fields in reader:
                start_line, last_line = last_line + 1, reader.line_num
                if not fields or not "".join(fields).strip():
                    if rows and fields and len(fields) != len(rows[0]):
                        raise DataError(
                            f"Line {start_line} has {len(fields)} fields but the header has "
                            f"{len(rows[0])}; check the delimiter and quoting."
                        )
                    continue
                rows.append(fields)
                line_numbers.append(start_line)
                if len(rows) > max_rows + 1:
                    break
        except csv.Error as exc:
            start = last_line + 1
            if "end of data" in str(exc):
                raise DataError(
                    f"Line {start} has an unclosed quote, so the rest of the file cannot be parsed."
                ) from exc
            raise DataError(
                f"Line {start} could not be parsed ({exc}); check the quotes in that line."
            ) from exc

    if not rows:
        raise DataError(f"{label} is empty.")
    header = [h.strip() for h in rows[0]]
    body = rows[1:]
    if len(body) > max_rows:
        raise DataError(f"{label} has more than {max_rows:,} rows, the limit.")
    if len(header) < 2:
        raise DataError(
            f"{label} has only one column; a table needs feature columns and a target column "
            "separated by commas, semicolons, tabs, '|' or spaces."
        )
    numeric_header = [h for h in header if _looks_like_number(h)]
    if len(numeric_header) >= len(header) - 1 and any(
        not re.fullmatch(r"[+-]?\d+", h) for h in numeric_header
    ):
        where = label[0].lower() + label[1:]
        raise DataError(
            "The first line looks like data (numbers) rather than column names; "
            f"{where} needs a header row."
        )
    seen: dict[str, int] = {}
    for i, h in enumerate(header):
        if h in seen and h:
            raise DataError(
                f"The column name '{h}' is duplicated (columns {seen[h] + 1} and {i + 1}); "
                "column names must be unique."
            )
        seen[h] = i
    if not body:
        raise DataError(f"{label} has a header row but no data rows.")
    width = len(header)
    for fields, ln in zip(body, line_numbers[1:], strict=True):
        if len(fields) != width:
            raise DataError(
                f"Line {ln} has {len(fields)} fields but the header has {width}; "
                "check the delimiter and quoting."
            )

    columns: dict[str, pd.Series] = {}
    for j, name in enumerate(header):
        raw = [r[j] for r in body]
        col = _clean_column(raw, name or f"column {j + 1}")
        if not name:
            if col.isna().all():
                continue  # a trailing delimiter produced an empty, unnamed column
            name = f"column {j + 1}"
            while name in seen:
                name += "_"
        columns[name] = col
    df = pd.DataFrame(columns)
    df.index = pd.RangeIndex(len(df))
    return df


# --------------------------------------------------------------------------- preparing


def _normalise_frame(df: pd.DataFrame) -> pd.DataFrame:
    """Apply read_table's cell rules to a DataFrame given directly."""
    names = [str(c).strip() for c in df.columns]
    dup = pd.Index(names)[pd.Index(names).duplicated()]
    if len(dup):
        raise DataError(f"The column name '{dup[0]}' is duplicated; column names must be unique.")
    out: dict[str, pd.Series] = {}
    for name, (_, col) in zip(names, df.items(), strict=True):
        col = col.reset_index(drop=True)
        if pd.api.types.is_bool_dtype(col):
            out[name] = col.astype(np.float64)
        elif pd.api.types.is_numeric_dtype(col) and not isinstance(col.dtype, pd.CategoricalDtype):
            values = pd.to_numeric(col, errors="coerce").astype(np.float64)
            if np.isinf(values.to_numpy()).any():
                raise DataError(f"Column '{name}' contains infinite values.")
            if values.notna().all() and np.all(values == np.round(values)):
                out[name] = values.astype(np.int64)
            else:
                out[name] = values
        else:
            obj = col.astype(object)
            missing = obj.isna().to_numpy().copy()
            text = obj.map(lambda v: v if isinstance(v, str) else None if v is None else str(v))
            text = text.map(lambda v: v.strip() if isinstance(v, str) else v)
            missing |= text.isin(MISSING_MARKERS).to_numpy() | text.isna().to_numpy()
            if all(isinstance(v, str) for v in obj[~missing]):
                text = text.where(~pd.Series(missing), None).rename(name)
                out[name] = _to_best_dtype(text, missing)
            else:
                # Mixed Python objects (e.g. labels 1 and "a"): keep them as they are.
                kept = obj.where(~pd.Series(missing), np.nan)
                out[name] = kept
    res = pd.DataFrame(out)
    res.index = pd.RangeIndex(len(res))
    return res


def _clean_feature_name(name: str) -> str:
    name = name.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
    while " AND " in name:
        name = name.replace(" AND ", " and ")
    return name


def _format_value(v: Any) -> str:
    if isinstance(v, float | np.floating):
        f = float(v)
        if f.is_integer() and abs(f) < 2**53:
            return str(int(f))
        return repr(f)
    return str(v)


def _is_numeric(col: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col)


def _resolve_column(df: pd.DataFrame, ref: Any, what: str) -> str:
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


def _as_list(value: Any) -> list:
    if value is None:
        return []
    if isinstance(value, str | int | np.integer):
        return [value]
    return list(value)


def load_dataset(
    source: Any,
    target: str | int | None = None,
    *,
    categorical: Iterable[str | int] = (),
    exclude: Iterable[str | int] = (),
    keep: Iterable[str | int] = (),
    missing_indicators: bool | str = "auto",
    name: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_rows: int = DEFAULT_MAX_ROWS,
) -> Dataset:
    """Read ``source`` and prepare it for rule learning.

    ``source`` is anything :func:`read_table` accepts, or a DataFrame.
    ``target`` names the class column (name or position; default: the last
    column).  ``categorical`` lists numeric columns to one-hot encode,
    ``exclude`` columns to drop and ``keep`` columns to keep even when they look
    like identifiers.  ``missing_indicators`` ("auto"/True or False) controls
    the 0/1 ``"<column> is missing"`` features.
    """
    if missing_indicators not in ("auto", True, False):
        raise DataError("missing_indicators must be 'auto', True or False.")
    if isinstance(source, pd.DataFrame):
        df = _normalise_frame(source)
        default_name = "data"
    else:
        df = read_table(source, max_bytes=max_bytes, max_rows=max_rows)
        if isinstance(source, str | os.PathLike):
            default_name = pathlib.Path(source).stem
        else:
            src_name = getattr(source, "name", None)
            default_name = (
                pathlib.Path(src_name).stem if isinstance(src_name, str) and src_name else "data"
            )
    if df.shape[1] < 2:
        raise DataError("The table needs at least two columns: one feature and the target.")
    if len(df) > max_rows:
        raise DataError(f"The data has more than {max_rows:,} rows, the limit.")

    target_name = _resolve_column(df, df.columns[-1] if target is None else target, "target column")
    cat_cols = {_resolve_column(df, c, "categorical column") for c in _as_list(categorical)}
    excl_cols = {_resolve_column(df, c, "excluded column") for c in _as_list(exclude)}
    keep_cols = {_resolve_column(df, c, "kept column") for c in _as_list(keep)}
    if target_name in excl_cols:
        raise DataError(f"The target column '{target_name}' cannot also be excluded.")

    n_rows_read = int(len(df))
    if n_rows_read == 0:
        raise DataError("The table has no data rows.")
    target_missing = df[target_name].isna().to_numpy()
    n_dropped = int(target_missing.sum())
    if n_dropped == n_rows_read:
        raise DataError(f"The target column '{target_name}' has no values, so no rows are left.")
    df = df.loc[~target_missing].reset_index(drop=True)

    y = _labels(df[target_name])
    classes = _sorted_labels(y)
    if len(classes) < 2:
        raise DataError(
            f"The target column '{target_name}' has only one class ({classes[0]!r}); "
            "at least two classes are needed."
        )

    infos: list[ColumnInfo] = []
    blocks: list[tuple[str, np.ndarray]] = []
    spec_parts: list[tuple[str, str, Any, bool]] = []  # (column, kind, category, integer) per block
    used_missing = np.zeros(len(df), dtype=bool)
    for col_name in df.columns:
        col_name = str(col_name)
        col = df[col_name]
        missing = col.isna().to_numpy()
        n_missing = int(missing.sum())
        present = col[~missing]
        n_unique = int(present.nunique())
        if col_name == target_name:
            infos.append(ColumnInfo(col_name, "target", n_missing, [], n_unique))
            continue
        numeric = _is_numeric(col)
        is_cat = (not numeric) or col_name in cat_cols
        kind = "categorical" if is_cat else "numeric"
        if n_unique <= 1:
            kind = "constant"
        elif (
            col_name not in keep_cols
            and col_name not in cat_cols
            and _looks_like_identifier(present, numeric, n_unique)
        ):
            kind = "identifier"
        if col_name in excl_cols or kind in ("constant", "identifier"):
            infos.append(ColumnInfo(col_name, kind, n_missing, [], n_unique, excluded=True))
            continue
        feats: list[tuple[str, np.ndarray]] = []
        kinds: list[tuple[str, Any, bool]] = []  # (spec kind, category, integer) per feature
        base = _clean_feature_name(col_name)
        if kind == "numeric":
            values = col.to_numpy(dtype=np.float64, na_value=np.nan)
            present_values = values[~missing]
            feats.append((base, values))
            kinds.append(("numeric", None, bool(np.all(present_values == np.round(present_values)))))
        else:
            if n_unique > MAX_CATEGORIES:
                raise DataError(
                    f"Column '{col_name}' has {n_unique} distinct values, too many for a categorical "
                    f"feature (limit {MAX_CATEGORIES}); exclude it or treat it as an identifier."
                )
            values = present.unique().tolist()
            if numeric:
                values = sorted(values, key=float)
            else:
                values = sorted(values, key=lambda v: (str(v), type(v).__name__))
            for v in values:
                onehot = np.zeros(len(col), dtype=np.float64)
                onehot[(~missing) & (col == v).to_numpy(dtype=bool, na_value=False)] = 1.0
                feats.append((_clean_feature_name(f"{col_name}={_format_value(v)}"), onehot))
                kinds.append(("onehot", v, False))
        if n_missing and missing_indicators in ("auto", True):
            feats.append(
                (_clean_feature_name(f"{col_name} is missing"), missing.astype(np.float64))
            )
            kinds.append(("missing", None, False))
        used_missing |= missing
        blocks.extend(feats)
        spec_parts.extend((col_name, *k) for k in kinds)
        infos.append(ColumnInfo(col_name, kind, n_missing, [f for f, _ in feats], n_unique))

    if not blocks:
        why = ", ".join(
            f"'{c.name}' ({'excluded' if c.name in excl_cols else c.kind})"
            for c in infos
            if c.kind != "target"
        )
        raise DataError(f"No usable feature column is left after removing {why}.")

    names = _unique_names([f for f, _ in blocks])
    # Keep ColumnInfo.features in step with any renaming done for uniqueness.
    rename = iter(names)
    for info in infos:
        if info.features:
            info.features = [next(rename) for _ in info.features]
    X = pd.DataFrame(
        np.column_stack([v for _, v in blocks]).astype(np.float64, copy=False),
        columns=pd.Index(names, dtype=object),
    )
    return Dataset(
        X=X,
        y=y,
        target=target_name,
        classes=classes,
        columns=infos,
        name=name if name is not None else default_name,
        n_rows_read=n_rows_read,
        n_dropped_missing_target=n_dropped,
        n_rows_with_missing=int(used_missing.sum()),
        feature_specs=[
            FeatureSpec(name, column, kind, value, integer)
            for name, (column, kind, value, integer) in zip(names, spec_parts, strict=True)
        ],
    )


def _unique_names(names: list[str]) -> list[str]:
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


def _labels(col: pd.Series) -> np.ndarray:
    if _is_numeric(col):
        values = col.to_numpy(dtype=np.float64)
        if np.all(values == np.round(values)) and np.all(np.abs(values) < 2**53):
            return values.astype(np.int64)
        return values
    items = [v.item() if isinstance(v, np.generic) else v for v in col.tolist()]
    arr = np.empty(len(items), dtype=object)
    arr[:] = items
    return arr


def _looks_like_identifier(present: pd.Series, numeric: bool, n_unique: int) -> bool:
    n = len(present)
    if n < IDENTIFIER_MIN_ROWS:
        return False
    if numeric:
        values = present.to_numpy(dtype=np.float64)
        if not np.all(values == np.round(values)):
            return False  # real-valued measurements are never identifiers
    return n_unique / n >= IDENTIFIER_RATIO


# --------------------------------------------------------------------------- bundled data

#: The paper's ten data sets (files in the shared data directory).
PAPER_DATASETS: dict[str, dict] = {
    "iris": {"file": "iris.csv", "target": "class", "title": "Iris"},
    "wine": {"file": "wine.csv", "target": "class", "title": "Wine"},
    "zoo": {"file": "zoo.csv", "target": "type", "title": "Zoo"},
    "breast_cancer_wisconsin": {
        "file": "breast_cancer_wisconsin.csv",
        "target": "Class",
        "title": "Breast cancer (Wisconsin)",
    },
    "banknote": {"file": "banknote.csv", "target": "class", "title": "Banknote authentication"},
    "hayes_roth": {"file": "hayes_roth.csv", "target": "class", "title": "Hayes-Roth"},
    "mammographic_masses": {
        "file": "mammographic_masses.csv",
        "target": "Severity",
        "title": "Mammographic masses",
    },
    "blood_transfusion": {
        "file": "blood_transfusion.csv",
        "target": "class",
        "title": "Blood transfusion",
    },
    "ecoli": {"file": "ecoli.csv", "target": "class", "title": "E. coli"},
    "tic_tac_toe": {"file": "tic_tac_toe.csv", "target": "class", "title": "Tic-tac-toe"},
}


def shared_data_dir() -> pathlib.Path | None:
    """Directory of the paper's data sets, or None when it cannot be found.

    ``EXPLAINER_DATA_DIR`` wins when set; otherwise ``<project root>/../shared/datasets``
    is used if it exists.
    """
    env = os.environ.get("EXPLAINER_DATA_DIR")
    if env:
        return pathlib.Path(env).expanduser()
    candidate = _PROJECT_ROOT.parent / "shared" / "datasets"
    return candidate if candidate.is_dir() else None


def load_paper_dataset(
    name: str, data_dir: str | os.PathLike | None = None, **kwargs: Any
) -> Dataset:
    """Load one of :data:`PAPER_DATASETS` by name (extra arguments go to :func:`load_dataset`)."""
    if name not in PAPER_DATASETS:
        known = ", ".join(sorted(PAPER_DATASETS))
        raise DataError(f"Unknown paper data set '{name}'; known data sets: {known}.")
    spec = PAPER_DATASETS[name]
    directory = pathlib.Path(data_dir) if data_dir is not None else shared_data_dir()
    if directory is None or not directory.is_dir():
        where = f" ({directory})" if directory is not None else ""
        raise DataError(
            f"The paper's data set directory was not found{where}; set EXPLAINER_DATA_DIR "
            "or place the files in ../shared/datasets next to the project."
        )
    path = directory / spec["file"]
    if not path.is_file():
        raise DataError(f"The data set file '{spec['file']}' is missing from {directory}.")
    kwargs.setdefault("target", spec["target"])
    kwargs.setdefault("name", name)
    return load_dataset(path, **kwargs)


def sample_datasets() -> dict[str, pathlib.Path]:
    """The CSV files bundled in ``<project root>/sample_data/``: name -> path."""
    directory = _PROJECT_ROOT / "sample_data"
    if not directory.is_dir():
        return {}
    return {p.stem: p for p in sorted(directory.glob("*.csv"))}
