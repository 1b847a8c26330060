"""Reading delimited text tables: bytes, decoding, delimiter sniffing, cells.

Files are only ever parsed as delimited text; nothing in a file is executed or
unpickled.  Every problem with the input is reported as a :class:`DataError`
whose message is one sentence meant for the person who supplied the file.
Parsing is linear in the size of the input (the delimiter is chosen from the
first records only; every record is then read once by :mod:`csv`).
"""

from __future__ import annotations

import csv
import json
import os
import pathlib
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from explainer.data.precision import exact_integer_columns, exact_integers

__all__ = [
    "DataError",
    "MISSING_MARKERS",
    "NUMBER_FORMATS_ATTR",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_ROWS",
    "MAX_COLUMNS",
    "SPREADSHEET_EXTENSIONS",
    "check_width",
    "read_table",
    "normalise_frame",
]

#: Cell contents (after stripping surrounding whitespace) read as a missing value.
MISSING_MARKERS: frozenset[str] = frozenset(
    {"", "?", "NA", "N/A", "NaN", "nan", "null", "NULL", "None"}
)

#: The key of a read table's ``attrs`` that maps a column to how its numbers are written in the file, when not
#: plainly (a key of :data:`~explainer.data.features.NUMBER_FORMATS`).
NUMBER_FORMATS_ATTR = "number_formats"

#: Default limits for uploaded files.
DEFAULT_MAX_BYTES = 50_000_000
DEFAULT_MAX_ROWS = 1_000_000

#: A table (or matrix) with more columns than this is refused with a message instead of minutes of
#: silence: reading, encoding and the pool grow linearly in the columns, about 1.5 s of CPU per 1,000
#: columns of digits from the command line (docs/benchmarks/wide_tables.md: 20 s at 10,000), so the
#: limit keeps a first explanation within about a minute on a loaded machine.
MAX_COLUMNS = 20_000

#: File name endings of spreadsheets; such files are refused with a message to export them as CSV.
SPREADSHEET_EXTENSIONS = (".xlsx", ".xlsm", ".xls", ".ods")

_DELIMITERS = (",", "\t", ";", "|")
_SAMPLE_RECORDS = 100
# csv.Sniffer's regular expressions are not linear on hostile text; it only breaks ties on a
# short prefix.
_SNIFFER_CHARS = 4096
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
# A number written with a decimal comma, optionally with '.' grouping thousands: 1,5  -2,25  1.234,5
_DECIMAL_COMMA = re.compile(r"[+-]?(?:\d+|\d{1,3}(?:\.\d{3})+)(?:,\d+)?(?:[eE][+-]?\d+)?")
# A number with ',' grouping thousands, as a spreadsheet exports it into a comma-delimited file (quoted there):
# 1,234  -12,345.5  (no group after a leading 0: "0,125" is a decimal comma, not a thousand)
_THOUSANDS = re.compile(r"[+-]?[1-9]\d{0,2}(?:,\d{3})+(?:\.\d+)?")
_PLAIN_NUMBER = re.compile(r"[+-]?\d+(?:\.\d+)?")


class DataError(ValueError):
    """Bad input; the message is one sentence naming the problem for an end user."""


def check_width(n_columns: int, label: str = "The table") -> None:
    """Refuse more than :data:`MAX_COLUMNS` columns with a message saying how to choose fewer."""
    if n_columns > MAX_COLUMNS:
        raise DataError(
            f"{label} has {n_columns:,} columns, more than the limit of {MAX_COLUMNS:,}; keep only the "
            "columns to explain (drop the others from the file, or select columns before fitting)."
        )


# --------------------------------------------------------------------------- bytes and text


def source_label(source: Any) -> str:
    """``The file 'x.csv'`` or ``The data``: how messages name the input."""
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
    label = source_label(source)
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
        # .xlsx and .ods are ZIP archives; both name their kind near the start.
        head = data[:4096]
        if b"opendocument.spreadsheet" in head or b"xl/" in head or b"[Content_Types]" in head:
            raise DataError(
                f"{label} is a spreadsheet (such as .xlsx or .ods), not a text table; "
                "export it as CSV."
            )
        raise DataError(
            f"{label} is a ZIP archive or spreadsheet (such as .xlsx), not a text table; "
            "export it as CSV."
        )
    if data.startswith(_OLE_MAGIC):
        raise DataError(
            f"{label} is an older Office spreadsheet or document (such as .xls), not a text table; "
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


# --------------------------------------------------------------------------- delimiter


def _looks_like_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _sample_records(text: str, delimiter: str) -> list[list[str]]:
    """The first non-blank records of ``text`` read as CSV with ``delimiter``.

    Records, not lines: a quoted field may hold line breaks.  A record that
    cannot be parsed ends the sample (the reader reports it later with its line).
    """
    reader = csv.reader(_lines(text), delimiter=delimiter, strict=True)
    out: list[list[str]] = []
    try:
        for fields in reader:
            if fields and "".join(fields).strip():
                out.append(fields)
                if len(out) >= _SAMPLE_RECORDS:
                    break
    except csv.Error:
        pass
    return out


def _score(counts: Sequence[int]) -> tuple[int, int, int]:
    """(every record has the header's field count, the header's count, records agreeing)."""
    consistent = sum(1 for c in counts if c == counts[0])
    return int(consistent == len(counts)), counts[0], consistent


def _sniff_delimiter(text: str) -> str | None:
    """Return the delimiter (``None`` means runs of whitespace).

    A delimiter that splits every sampled record (quoted fields and line breaks
    inside them included) into the same number (> 1) of fields wins; among
    several, the one giving more fields, then csv.Sniffer, then the order
    ``, TAB ; |``.  Runs of whitespace are chosen only when no delimiter gives a
    consistent table, so spaces inside column names never split them.
    """
    scores: dict[str | None, tuple[int, int, int]] = {}
    for d in _DELIMITERS:
        counts = [len(r) for r in _sample_records(text, d)]
        if counts:
            scores[d] = _score(counts)
    ws_lines = [ln.split() for ln in text.splitlines()[: _SAMPLE_RECORDS * 2] if ln.strip()]
    ws_counts = [len(r) for r in ws_lines[:_SAMPLE_RECORDS]]
    if ws_counts:
        scores[None] = _score(ws_counts)

    def ok(s: tuple[int, int, int]) -> bool:
        return s[0] == 1 and s[1] > 1

    good = [d for d in _DELIMITERS if d in scores and ok(scores[d])]
    if good:
        best = max(scores[d][1] for d in good)
        good = [d for d in good if scores[d][1] == best]
        if len(good) > 1:
            try:
                sniffed = csv.Sniffer().sniff(text[:_SNIFFER_CHARS], delimiters="".join(good)).delimiter
            except csv.Error:
                sniffed = None
            if sniffed in good:
                return sniffed
        return good[0]
    if None in scores and ok(scores[None]):
        return None
    # Nothing is consistent: pick the delimiter whose header splits into several
    # fields and which agrees with most records, so that the ragged-row error
    # points at a real line.
    candidates = [d for d in scores if scores[d][1] > 1]
    if not candidates:
        return ","
    return max(candidates, key=lambda d: (scores[d][2], d is not None))


# --------------------------------------------------------------------------- cells


def _is_json(text: str) -> bool:
    """The whole text is one JSON object or array (a header cell such as ``[id]`` is not)."""
    stripped = text.lstrip()
    if not stripped.startswith(("{", "[")):
        return False
    try:
        _, end = json.JSONDecoder().raw_decode(stripped)
    except ValueError:
        return False
    return not stripped[end:].strip()


def _clean_column(raw: list[str], name: str, decimal_comma: bool) -> tuple[pd.Series, str | None]:
    """Strip cells, mark missing values and convert to numbers where possible.

    Returns the column and how its numbers were written when not plainly, a key of
    :data:`~explainer.data.features.NUMBER_FORMATS`: decimal commas, with or without dots grouping thousands (a
    file not delimited by commas), or thousands separators (one delimited by commas); else None.
    """
    s = pd.Series(raw, dtype=object, name=name).map(str.strip)
    missing = s.isin(MISSING_MARKERS)
    s = s.where(~missing, None)
    out = to_best_dtype(s, missing.to_numpy())
    if out.dtype == object:
        if decimal_comma:
            converted = _from_decimal_commas(s, missing.to_numpy())
            if converted is not None:
                dots = s[~missing].str.contains(".", regex=False).any()
                return converted, "decimal commas and thousands dots" if dots else "decimal commas"
        else:
            converted = _from_thousands(s, missing.to_numpy())
            if converted is not None:
                return converted, "thousands separators"
    return out, None


def _from_thousands(s: pd.Series, missing: np.ndarray) -> pd.Series | None:
    """The column as numbers when each present cell is a plain number or one with ',' grouping thousands, and
    some are the latter (else None): a spreadsheet's "1,234" is the number 1234, not a text column."""
    grouped = False
    for cell in s[~missing]:
        if _THOUSANDS.fullmatch(cell):
            grouped = True
        elif not _PLAIN_NUMBER.fullmatch(cell):
            return None
    if not grouped:
        return None
    text = s.copy()
    text[~missing] = s[~missing].str.replace(",", "", regex=False)
    return to_best_dtype(text, missing)


def _from_decimal_commas(s: pd.Series, missing: np.ndarray) -> pd.Series | None:
    present = s[~missing].astype(str)
    if not len(present) or not present.str.contains(",", regex=False).any():
        return None
    if not present.map(lambda v: _DECIMAL_COMMA.fullmatch(v) is not None).all():
        return None
    text = s.copy()
    text[~missing] = present.str.replace(".", "", regex=False).str.replace(",", ".", regex=False)
    return to_best_dtype(text, missing)


def to_best_dtype(s: pd.Series, missing: np.ndarray) -> pd.Series:
    """Numbers when every present cell is one (int64 when whole and complete), else text."""
    cells = s.to_numpy(dtype=object)
    present = cells[~missing]
    if len(present) == 0:
        return pd.Series(np.full(len(s), np.nan), index=s.index, dtype=np.float64)
    try:
        num = present.astype(np.float64)
    except (ValueError, TypeError, OverflowError):
        num = None
    if num is not None:
        values = np.full(len(s), np.nan)
        values[~missing] = num
        if not np.isfinite(values[~missing]).all():
            raise DataError(
                f"Column '{s.name}' contains infinite values; replace them or mark them missing."
            )
        if not missing.any() and exact_integers(values):
            return pd.Series(values.astype(np.int64), index=s.index)
        return pd.Series(values, index=s.index, dtype=np.float64)
    text = cells.copy()  # numpy, not pandas: a table of thousands of text columns comes through here
    text[missing] = np.nan
    return pd.Series(text, index=s.index, dtype=object, name=s.name)


def _cell_text(v: Any) -> str | None:
    """A cell of a text column as text, stripped (None stays None)."""
    if isinstance(v, str):
        return v.strip()
    return None if v is None else str(v).strip()


def _text_column(values: np.ndarray, name: str) -> pd.Series:
    """One column of objects under the cell rules (:func:`normalise_frame`), on its numpy array: a table of
    thousands of text columns paid pandas' per-call cost many times a column (24 s for 5,000 of them)."""
    missing = np.asarray(pd.isna(values), dtype=bool).copy()
    present = values[~missing]
    if len(present) and all(isinstance(v, bool | np.bool_) for v in present):
        # booleans with gaps arrive as Python objects: 0/1 like a bool column
        return pd.Series(np.where(missing, np.nan, values == True), dtype=np.float64)  # noqa: E712
    text = np.empty(len(values), dtype=object)
    text[:] = [_cell_text(v) for v in values]
    missing |= np.fromiter((t is None or t in MISSING_MARKERS for t in text), dtype=bool, count=len(text))
    if all(isinstance(v, str) for v in values[~missing]):
        text[missing] = None
        return to_best_dtype(pd.Series(text, dtype=object, name=name), missing)
    # Mixed Python objects (e.g. labels 1 and "a"): keep them as they are.
    kept = np.empty(len(values), dtype=object)
    kept[:] = [v.strip() if isinstance(v, str) else v for v in values]
    kept[missing] = np.nan
    return pd.Series(kept, dtype=object)


def _number_column(col: pd.Series, name: str):
    """A numeric column as float64, or int64 when every value is a whole number (no gap); raises DataError on an
    infinite value.  A numpy column is read in numpy: pandas' calls cost more than the work on a table of
    thousands of columns."""
    if isinstance(col.dtype, np.dtype):
        values = col.to_numpy().astype(np.float64)
    else:  # an extension type (nullable integers, arrow numbers): pandas reads its gaps
        values = pd.to_numeric(col, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    if np.isinf(values).any():
        raise DataError(f"Column '{name}' contains infinite values.")
    return values.astype(np.int64) if exact_integers(values) else values  # a gap (NaN) is no whole number


def normalise_frame(df: pd.DataFrame) -> pd.DataFrame:
    """Apply :func:`read_table`'s cell rules to a DataFrame given directly.

    Names are stripped and must be unique; booleans become 0/1; text cells are
    stripped, missing markers become NaN, and text columns whose cells are all
    numbers become numbers.  pandas ``category`` columns keep their values (the
    encoder treats them as categorical).
    """
    check_width(df.shape[1])
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
            out[name] = _number_column(col, name)
        else:
            out[name] = _text_column(col.to_numpy(dtype=object), name)
    res = pd.DataFrame(out)
    res.index = pd.RangeIndex(len(res))
    # a table read_table gave keeps what it decided
    res.attrs["notes"] = list(df.attrs.get("notes", []))
    res.attrs[NUMBER_FORMATS_ATTR] = dict(df.attrs.get(NUMBER_FORMATS_ATTR, {}))
    return res


# --------------------------------------------------------------------------- tables


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
    all numbers become int64 (no missing value, integral) or float64; in a file
    not delimited by commas, numbers written with decimal commas (``1,5``) are
    numbers too, and in one delimited by commas so are numbers whose commas group
    thousands (``"1,234"``, quoted there).  Other columns hold Python strings (object
    dtype) with NaN for missing.  Completely blank rows are skipped.  What the reader
    had to decide for the person (decimal commas, thousands separators) is listed in
    ``df.attrs["notes"]``.
    """
    label = source_label(source)
    data = _read_bytes(source, max_bytes)
    text = _decode(data, label)
    if not text.strip():
        raise DataError(f"{label} is empty.")
    head = text.lstrip()[:200].lower()
    if _is_json(text):
        raise DataError(
            f"{label} looks like JSON, not a table with a header row; export it as CSV."
        )
    if head.startswith(("<!doctype", "<html", "<?xml", "<head", "<body")):
        raise DataError(f"{label} looks like an HTML or XML page, not a table; export it as CSV.")

    delimiter = _sniff_delimiter(text)
    read = _read_columns(text, delimiter, max_rows)
    del text  # the records hold what they need: the file's text need not outlive its reading
    if read.header is None:
        raise DataError(f"{label} is empty.")
    header = [h.strip() for h in read.header]
    check_width(len(header), label)
    if read.n_rows > max_rows:
        raise DataError(f"{label} has more than {max_rows:,} rows, the limit.")
    _check_header(header, label)
    if not read.n_rows:
        raise DataError(f"{label} has a header row but no data rows.")
    width = len(header)
    if read.misfit is not None:
        ln, n_fields = read.misfit
        raise DataError(
            f"Line {ln} has {n_fields} fields but the header has {width}; "
            "check the delimiter and quoting."
        )
    body = read.columns

    # whole-number columns as arrays: a frame made of 10,000 Series aligned their indexes one by one (1 s); the
    # others stay Series, which keep their dtype (text as object: pandas would read an array of it as str)
    columns: dict[str, Any] = {}
    written: dict[str, list[str]] = {"decimal commas": [], "thousands separators": []}
    formats: dict[str, str] = {}  # column -> how its numbers are written (the exports read the file's cells so)
    seen = set(header)
    numbers = _number_columns(body)
    for j, name in enumerate(header):
        col: np.ndarray | pd.Series | None = numbers.get(j)
        how = None
        if col is None:
            raw = body[j]
            col, how = _clean_column(raw, name or f"column {j + 1}", decimal_comma=delimiter != ",")
        if isinstance(col, pd.Series) and col.dtype == object:
            col = _shared_strings(col)
        if not name:
            if isinstance(col, pd.Series) and col.isna().all():  # (a column of whole numbers has no gap)
                continue  # a trailing delimiter produced an empty, unnamed column
            name = f"column {j + 1}"
            while name in seen:
                name += "_"
        columns[name] = col
        if how is not None:
            formats[name] = how
            written["thousands separators" if how == "thousands separators" else "decimal commas"].append(name)
    df = pd.DataFrame(columns, index=pd.RangeIndex(read.n_rows))
    notes = []
    for how, example in (("decimal commas", "1,5 = 1.5"), ("thousands separators", "1,234 = 1234")):
        if written[how]:
            names = ", ".join(f"'{c}'" for c in written[how])
            notes.append(f"Read numbers written with {how} ({example}) in {len(written[how])} "
                         f"column{'s' if len(written[how]) > 1 else ''}: {names}.")
    df.attrs["notes"] = notes
    df.attrs[NUMBER_FORMATS_ATTR] = formats
    return df


def _shared_strings(col: pd.Series) -> pd.Series:
    """A text column whose equal cells are one string object, not one each: the same values (NaN where
    missing), a pointer a cell instead of a string.  Every cell of a file is read as a string of its own
    (about 60 bytes): a 41.5 MB upload of 364,035 rows held 221 MB of them in 8 text columns."""
    values = col.to_numpy(dtype=object)
    if pd.api.types.infer_dtype(values, skipna=True) != "string":  # mixed objects keep theirs (1 == True)
        return col
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    shared = np.asarray(uniques, dtype=object).take(np.maximum(codes, 0))
    shared[codes < 0] = np.nan
    return pd.Series(shared, index=col.index, dtype=object, name=col.name)


def _number_columns(columns: list[list[str]]) -> dict[int, np.ndarray]:
    """The columns whose every cell is a whole number (as int64 arrays), read in one pass over the table.

    The common wide table (thousands of small integer columns) would otherwise pay
    pandas' per-column overhead several times over; every other column (text, gaps,
    fractions, decimal commas) is left to :func:`_clean_column`, which reads these
    columns the same way (int64).
    """
    width = len(columns)
    n = len(columns[0]) if columns else 0
    cells = np.array(columns, dtype=object).reshape(width, n).T  # a row per record, as the table reads
    try:
        values = cells.astype(np.float64)  # float() of each cell, as to_best_dtype does
        parsed = np.arange(width)
    except (ValueError, TypeError, OverflowError):  # some column holds text: the others one by one
        read, where = [], []
        for j in range(width):
            try:
                read.append(cells[:, j].astype(np.float64))
            except (ValueError, TypeError, OverflowError):
                continue
            where.append(j)
        parsed = np.array(where, dtype=np.int64)
        values = np.column_stack(read) if read else np.zeros((n, 0))
    # not finite: a gap float() reads as NaN ("nan") or an infinity, both for the full path to report
    whole = np.isfinite(values).all(axis=0) & exact_integer_columns(values)
    ints = np.ascontiguousarray(values[:, whole].T).astype(np.int64)  # a column per row: contiguous
    return {int(j): ints[k] for k, j in enumerate(parsed[whole])}


#: a line of a text read with universal newlines, its end kept (what ``io.StringIO(text, newline="")`` yields)
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def _lines(text: str) -> Iterator[str]:
    """The lines of ``text`` one at a time, as ``io.StringIO(text, newline="")`` gives them: a StringIO holds
    the text again at four bytes a character (166 MB for a 41.5 MB file)."""
    return (m.group() for m in _LINE.finditer(text))


@dataclass
class _Columns:
    """A table's records as they are read: the header, each column's cells, and what the checks need.

    Each record goes into its columns as it comes, and equal cells of a column share one string: the
    records as lists of their own strings took 311 MB for a 41.5 MB file of 364,035 rows."""

    header: list[str] | None = None
    columns: list[list[str]] = field(default_factory=list)
    n_rows: int = 0
    #: (line, fields) of the first record whose field count is not the header's
    misfit: tuple[int, int] | None = None
    _seen: list[dict[str, str]] = field(default_factory=list)

    def add(self, fields: list[str], line: int) -> None:
        if self.header is None:
            self.header = fields
            self.columns = [[] for _ in fields]
            self._seen = [{} for _ in fields]
            return
        self.n_rows += 1
        if self.misfit is not None:
            return  # the table is refused: its cells are not needed
        if len(fields) != len(self.columns):
            self.misfit = (line, len(fields))
            self.columns = [[] for _ in self.columns]
            return
        for cell, column, seen in zip(fields, self.columns, self._seen, strict=True):
            column.append(seen.setdefault(cell, cell))


def _read_columns(text: str, delimiter: str | None, max_rows: int) -> _Columns:
    """Every non-blank record into its columns, with the line it starts on (reading stops past ``max_rows``)."""
    read = _Columns()
    if delimiter is None:
        for i, line in enumerate(text.splitlines(), start=1):
            fields = line.split()
            if fields:
                read.add(fields, i)
                if read.n_rows > max_rows:
                    break
        return read
    reader = csv.reader(_lines(text), delimiter=delimiter, strict=True)
    last_line = 0
    try:
        for fields in reader:
            start_line, last_line = last_line + 1, reader.line_num
            if not fields or not "".join(fields).strip():
                if read.header is not None and fields and len(fields) != len(read.header):
                    raise DataError(
                        f"Line {start_line} has {len(fields)} fields but the header has "
                        f"{len(read.header)}; check the delimiter and quoting."
                    )
                continue
            read.add(fields, start_line)
            if read.n_rows > max_rows:
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
    return read


def _check_header(header: list[str], label: str) -> None:
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
