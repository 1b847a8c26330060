"""Rule sets to take away: a SQL ``CASE WHEN`` expression and a dependency-free Python function.

Both give exactly the vote of :func:`explainer.report.evaluation.vote` with the
fallback of the estimator's ``predict``: the class of most of the rules that
fire on a row; a row no rule covers, or where classes tie, gets the fallback
class.  They read the table's *original* columns and values, under the one
semantics for missing values (:mod:`explainer.rules.model`): a comparison,
``=`` and ``in`` are false on a missing value (SQL ``NULL``; ``None`` or NaN in
Python), ``!=`` and ``not in`` true.

Conditions are translated from what the engine evaluates (feature, operator,
threshold, and the feature's :class:`~explainer.data.features.FeatureSpec`), so
an export can never drift from ``predict``.  Names, values and labels are
written as quoted literals (SQL ``"name"`` and ``'text'`` with doubled quotes,
Python ``repr``), so nothing a table holds can become code.
"""

from __future__ import annotations

import csv
import io
import json
import math

import numpy as np

from explainer.data.features import NUMBER_FORMATS
from explainer.data.tables import MISSING_MARKERS
from explainer.report.metrics import csv_comment_line
from explainer.rules.model import COMPLEXITY_COUNTS, RuleSet, ValueSet
from explainer.rules.numbers import format_number
from explainer.rules.render import counted
from explainer.selection.result import status_note

__all__ = ["EXPORT_FORMATS", "export_header", "export_rule_text", "export_text", "forbidden_columns", "pin_lines",
           "rules_to_python",
           "rules_to_sql"]

#: the exports of a report: kind -> (file suffix, MIME type)
EXPORT_FORMATS = {
    "text": (".txt", "text/plain"),
    "json": (".json", "application/json"),
    "csv": (".csv", "text/csv"),
    "sql": (".sql", "application/sql"),
    "python": (".py", "text/x-python"),
}


# ---------------------------------------------------------------- what a condition tests


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def _written(cond) -> str | None:
    """How the numbers of the condition's column are written in its file (a key of ``NUMBER_FORMATS``), or None."""
    specs = cond.specs if isinstance(cond, ValueSet) else (cond.spec,)
    return next((s.written for s in specs if s is not None and s.written), None)


def _test(cond) -> tuple:
    """The test on the original column: ``(kind, column, detail)``.

    kinds: ``cmp`` (op, threshold), ``eq`` / ``ne`` (value), ``in`` / ``not in`` (values),
    ``missing`` / ``present``, ``true`` / ``false``.
    """
    if isinstance(cond, ValueSet):
        values = tuple(_plain(v) for v in cond.values)
        return ("not in" if cond.negated else "in", cond.column, values)
    spec = cond.spec
    column = spec.column if spec is not None else cond.feature
    if spec is not None and spec.binary:
        # a 0/1 feature: the condition holds on 1, on 0, on both or on neither
        on_one, on_zero = (bool(cond.holds(np.array([v]))[0]) for v in (1.0, 0.0))
        if on_one and on_zero:
            return ("true", column, None)
        if not on_one and not on_zero:
            return ("false", column, None)
        if spec.kind == "missing":
            return ("missing" if on_one else "present", column, None)
        return ("eq" if on_one else "ne", column, _plain(spec.value))
    t = cond.threshold
    if math.isinf(t):
        # NaN fails every comparison: "<= inf" holds exactly on the present values
        holds_everywhere = bool(cond.holds(np.array([0.0]))[0])
        return ("present" if holds_everywhere else "false", column, None)
    return ("cmp", column, (cond.op, t))


def _label_groups(rules: RuleSet) -> list[tuple[object, list]]:
    """Rules grouped by class (compared as strings, as the vote does), classes in order of first rule."""
    groups: dict[str, tuple[object, list]] = {}
    for rule in rules:
        groups.setdefault(str(rule.label), (_plain(rule.label), []))[1].append(rule)
    return list(groups.values())


# ---------------------------------------------------------------- SQL


def _sql_name(name: str) -> str:
    return '"' + str(name).replace('"', '""') + '"'


def _sql_literal(value) -> str:
    value = _plain(value)
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, float)) and math.isfinite(value):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


def _is_number(value) -> bool:
    value = _plain(value)
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


#: the reader's missing markers, in a fixed order (a cell that is one of them is missing, as when the table was read)
_MARKERS = tuple(sorted(MISSING_MARKERS))
#: the same, as a SQL list
_SQL_MARKERS = ", ".join(_sql_literal(m) for m in _MARKERS)


def _sql_number(column: str, written: str | None = None) -> str:
    """A column's value as a number: NULL where the cell is one of the reader's missing markers (:func:`_sql_cell`),
    a boolean's text as its 1 or 0 (as the reader reads a column of booleans), else the value cast.  Why the cast:
    a table imported from CSV often holds every column as TEXT, where "9" > "12".  One CASE, not the missing
    test's CASE nested inside the boolean one, which wrote the markers twice.  ``written``: how the column's
    numbers are written in the file (:data:`~explainer.data.features.NUMBER_FORMATS`), turned into a plain
    number's text before the cast ('1,5' cast as it is gives 1)."""
    return (f"(CASE WHEN TRIM({column}) IN ({_SQL_MARKERS}) THEN NULL WHEN LOWER(TRIM({column})) = 'true' THEN 1 "
            f"WHEN LOWER(TRIM({column})) = 'false' THEN 0 ELSE CAST({_sql_plain_number(column, written)} AS REAL) END)")


def _sql_plain_number(column: str, written: str | None) -> str:
    """The column's text with its file's grouping characters dropped and its decimal mark a point.  A number a
    typed column holds prints with a point and no grouping, so it is unchanged where only commas are touched;
    with dots grouping thousands ("1.234,5") the cells must be the file's text."""
    if written is None:
        return column
    dropped, point = NUMBER_FORMATS[written]
    text = column if not dropped else f"REPLACE({column}, {_sql_literal(dropped)}, '')"
    return text if point == "." else f"REPLACE({text}, {_sql_literal(point)}, '.')"


def _sql_cell(column: str) -> str:
    """A column's value, NULL where the cell is one of the reader's missing markers ('' and '?' among them): a
    table imported as text keeps them as they were written."""
    return f"(CASE WHEN TRIM({column}) IN ({_SQL_MARKERS}) THEN NULL ELSE {column} END)"


#: text values the reader may have read from a column that pandas holds as booleans (and a database as 1 and 0)
_BOOLEAN_TEXTS = {"true": 1, "false": 0}


def _sql_text_in(column: str, values) -> str:
    """The column's value, as the reader reads a cell (surrounding spaces dropped), among the text ``values``;
    a boolean's text also matches its 1 or 0 (a table whose column was stored as booleans)."""
    text = f"TRIM({column}) IN ({', '.join(_sql_literal(x) for x in values)})"
    ones = sorted({_BOOLEAN_TEXTS[str(x).lower()] for x in values if str(x).lower() in _BOOLEAN_TEXTS})
    return f"({text} OR {column} IN ({', '.join(map(str, ones))}))" if ones else text


def _sql_condition(cond) -> str:
    kind, column, detail = _test(cond)
    name = _sql_name(column)
    c = _sql_cell(name)
    if kind == "cmp":
        op, t = detail
        return f"{_sql_number(name, _written(cond))} {op} {format_number(t)}"
    if kind in ("eq", "ne", "in", "not in"):
        values = tuple(detail) if kind in ("in", "not in") else (detail,)
        if values and all(_is_number(x) for x in values):
            test = f"{_sql_number(name, _written(cond))} IN ({', '.join(_sql_literal(x) for x in values)})"
        else:
            test = _sql_text_in(c, values)
        return test if kind in ("eq", "in") else f"({c} IS NULL OR NOT {test})"
    return {"missing": f"{c} IS NULL", "present": f"{c} IS NOT NULL", "true": "1 = 1", "false": "1 = 0"}[kind]


def rules_to_sql(rules: RuleSet, fallback) -> str:
    """A SQL ``CASE WHEN`` expression giving each row's class (use it as ``SELECT <expr> FROM t``).

    Each class's votes are a sum of ``CASE WHEN <rule> THEN 1 ELSE 0 END``; the class
    with strictly more votes than every other wins, else ``fallback``.  Standard SQL;
    checked with SQLite.  A comparison with a number casts its column (``CAST("x" AS REAL)``),
    so a table whose columns were imported as text gives the same classes as a typed one.
    """
    groups = _label_groups(rules)
    counts = []
    for _label, members in groups:
        terms = []
        for rule in members:
            body = " AND ".join(_sql_condition(c) for c in rule.conditions) or "1 = 1"
            terms.append(f"(CASE WHEN {body} THEN 1 ELSE 0 END)")
        counts.append("(" + " + ".join(terms) + ")")
    lines = ["CASE"]
    for k, (label, _members) in enumerate(groups):
        others = [f"{counts[k]} > {counts[j]}" for j in range(len(groups)) if j != k] or [f"{counts[k]} > 0"]
        lines.append(f"  WHEN {' AND '.join(others)} THEN {_sql_literal(label)}")
    lines.append(f"  ELSE {_sql_literal(fallback)}")
    lines.append("END")
    return "\n".join(lines)


# ---------------------------------------------------------------- Python


def _py_condition(cond) -> str:
    kind, column, detail = _test(cond)
    v = f"row.get({column!r})"
    # as the SQL export casts: a value compared with a number is read as one (rows read from a CSV hold text),
    # as its file writes numbers
    written = _written(cond)
    n = f"_number({v})" if written is None else f"_number({v}, {NUMBER_FORMATS[written]!r})"
    if kind == "cmp":
        op, t = detail
        return f"(not _missing({v}) and {n} {op} {format_number(t)})"
    if kind in ("eq", "ne", "in", "not in"):
        values = tuple(detail) if kind in ("in", "not in") else (detail,)
        test = f"{n} in {values!r}" if values and all(_is_number(x) for x in values) else f"_text_in({v}, {values!r})"
        return f"(not _missing({v}) and {test})" if kind in ("eq", "in") else f"(_missing({v}) or not {test})"
    return {"missing": f"_missing({v})", "present": f"not _missing({v})", "true": "True", "false": "False"}[kind]


def rules_to_python(rules: RuleSet, fallback, name: str = "predict") -> str:
    """Source text of a function ``name(row)`` (``row`` maps column names to values; a value
    that is ``None``, NaN or an empty string, or a column that is absent, is missing) returning the row's
    class.  A value compared with a number may be a number or its text (``csv.DictReader``'s rows).
    It imports nothing."""
    if not name.isidentifier():
        raise ValueError(f"{name!r} is not a Python function name")
    lines = [
        f"def {name}(row):",
        '    """The class the rule set gives a row: the vote of the rules that fire, else the fallback."""',
        "",
        "    def _missing(value):",
        "        # NaN is the one value unequal to itself; a CSV read as text holds the reader's markers ('', '?', ...)",
        f"        return value is None or value != value or (isinstance(value, str) and value.strip() in {_MARKERS!r})",
        "",
        "    def _number(value, written=('', '.')):",
        "        # written: (characters grouping digits, the decimal mark) as the table's file writes numbers",
        "        if not isinstance(value, str):",
        "            return value",
        "        try:",
        "            dropped, point = written",
        "            text = value.replace(dropped, '') if dropped else value",
        "            return float(text.replace(point, '.') if point != '.' else text)",
        "        except ValueError:",
        f"            return {_BOOLEAN_TEXTS!r}.get(value.strip().lower(), float('nan'))  # not a number: none holds",
        "",
        "    def _text_in(value, texts):",
        "        # as the reader reads a cell: surrounding spaces dropped; a boolean or its 1 and 0 as its text",
        "        if isinstance(value, str):",
        "            return value in texts or value.strip() in texts",
        f"        return any(value == {_BOOLEAN_TEXTS!r}.get(t.lower(), t) if isinstance(t, str) else value == t "
        "for t in texts)",
        "",
        "    votes = {}",
    ]
    for label, members in _label_groups(rules):
        for rule in members:
            lines.append(f"    # {rule.text}")
            body = " and ".join(_py_condition(c) for c in rule.conditions) or "True"
            lines.append(f"    if {body}:")
            lines.append(f"        votes[{label!r}] = votes.get({label!r}, 0) + 1")
    lines += [
        "    if votes:",
        "        top = max(votes.values())",
        "        winners = [label for label, n in votes.items() if n == top]",
        "        if len(winners) == 1:",
        "            return winners[0]",
        f"    return {_plain(fallback)!r}  # ELSE: no rule fires, or classes tie",
        "",
    ]
    return "\n".join(lines)



def forbidden_columns(report) -> list[str]:
    """The columns the report's rules were kept from naming (its pool's settings say them; [] when none)."""
    pool = (report.settings or {}).get("pool") or {}
    return [str(c) for c in pool.get("forbidden_columns") or ()]


def export_header(report, status: str | None = None) -> list[str]:
    """What every export states first: how the run ended when it did not end as it should (``status``, e.g.
    stopped), the totals the page shows (accuracy beside coverage), how complexity counts, the columns kept out
    of the rules (when any), then the rules the run was told to keep (pinned) and to leave out (banned), one a
    line."""
    forbidden = forbidden_columns(report)
    # a name is written as it is, on a comment line: a line break in it would end the comment
    names = ", ".join(" ".join(c.splitlines()) for c in forbidden)
    note = status_note(status)
    return [
        *([f"run {note}"] if note else []),
        f"{counted(report.n_rules, 'rule')}, complexity {report.complexity}, errors {report.errors}, "
        f"coverage f* {report.coverage:g} of {report.n_rows} rows (eps {report.eps:g})",
        COMPLEXITY_COUNTS,
        f"accuracy {100 * report.accuracy:.2f} %, balanced accuracy {100 * report.balanced_accuracy:.2f} % of the "
        f"{report.n_rows} rows: the rules' vote, else the ELSE class",
        *([f"forbidden columns: {names}"] if forbidden else []),
        *_number_format_lines(report.rules),
        *pin_lines(report.settings),
    ]


def _number_format_lines(rules) -> list[str]:
    """The columns whose numbers the rules read as their file writes them (decimal commas, thousands
    separators), one line, or none."""
    formats: dict[str, str] = {}
    for rule in rules:
        for cond in rule.conditions:
            written = _written(cond)
            if written is not None:
                formats.setdefault(" ".join(str(_test(cond)[1]).splitlines()), written)
    if not formats:
        return []
    return ["numbers read as the file writes them: " + ", ".join(f"{c} ({w})" for c, w in formats.items())]


def pin_lines(settings: dict | None) -> list[str]:
    """``pinned: <rule>`` and ``banned: <rule>`` lines of a run's settings (none when it had neither)."""
    settings = settings or {}
    return [f"{kind}: {text}" for kind in ("pinned", "banned") for text in settings.get(kind) or ()]


def export_text(report, kind: str, status: str | None = None) -> str:
    """A :class:`~explainer.report.metrics.RuleSetReport`'s rule set as ``kind`` (one of
    :data:`EXPORT_FORMATS`): the rules with the ``ELSE`` line, JSON, CSV, a SQL ``CASE WHEN``
    expression or a Python function ``predict(row)``.  The command line and the dashboard call it.
    The text, CSV, SQL and Python forms open with comment lines (:func:`export_header`) saying the
    totals, how complexity counts, the columns kept out of the rules and the pinned and banned rules;
    the JSON says them under ``complexity_counts``, ``forbidden_columns`` (when any) and ``settings``.
    ``status``: the run's (:data:`~explainer.selection.result.STATUS_NOTES`), said first when it did not end as
    it should (a stopped run), under ``status`` in the JSON.
    The CSV's header lines start with ``#`` (``pandas.read_csv(..., comment="#")`` skips them) and
    its text cells are quoted, so a ``#`` inside a rule is never taken for one; its ``length``
    column holds each rule's count."""
    header = export_header(report, status)
    if kind == "text":
        return "".join(f"# {line}\n" for line in header) + report.rules_text()
    if kind == "json":
        forbidden = forbidden_columns(report)
        return report.to_json(complexity_counts=COMPLEXITY_COUNTS, **({"status": status} if status else {}),
                              **({"forbidden_columns": forbidden} if forbidden else {})) + "\n"
    if kind == "csv":
        return "".join(map(csv_comment_line, header)) + report.to_csv(quote_text=True)
    if kind == "sql":
        return "".join(f"-- {line}\n" for line in header) + rules_to_sql(report.rules, report.fallback) + "\n"
    if kind == "python":
        return "".join(f"# {line}\n" for line in header) + rules_to_python(report.rules, report.fallback)
    raise ValueError(f"unknown export {kind!r}; choose one of {', '.join(EXPORT_FORMATS)}")


def export_rule_text(text: str) -> str:
    """The rule text (IF-THEN lines and the ELSE line) of an export read back: the text export as it is, the
    JSON's ``rules_text``, the CSV's ``text`` column (its ``#`` lines skipped).  ValueError for the SQL and Python
    exports, which hold the rules as code."""
    body = text.lstrip("\ufeff")
    if body.lstrip().startswith("{"):
        try:
            found = json.loads(body).get("rules_text")
        except (ValueError, AttributeError):
            found = None
        if not isinstance(found, str):
            raise ValueError("a JSON file without the rules_text of an explainer export")
        return found
    lines = [line for line in body.splitlines() if not line.startswith(("#", "--"))]
    head = next((line for line in lines if line.strip()), "")
    if head.startswith(('"rule",', "rule,")):
        rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
        if not rows or "text" not in rows[0]:
            raise ValueError("a CSV file without the text column of an explainer export")
        return "".join(row["text"] + "\n" for row in rows)
    if head.lstrip().upper().startswith("CASE") or head.startswith("def "):
        raise ValueError("a SQL or Python export holds the rules as code and is not read back; give the text, JSON "
                         "or CSV export")
    return text

