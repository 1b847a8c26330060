"""Rows as the analyst knows them: the table's own columns and values, never the encoded matrix.

Every row view (misclassified rows, the rows a rule covers, uncovered rows) is
built by :func:`rows_frame`: the row number as read, the true and the voted
class first, then the original columns, a gap shown as ``missing``.  The
"explain a row" editor works on the same values (:func:`editor_frame`,
:func:`editor_columns`) and turns what was edited back into a row the fitted
encoder accepts (:func:`encode_edited`), or says what is wrong with it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from explainer.app.text import md_escape
from explainer.data import Dataset
from explainer.data.encoder import MISSING_TEXT, ColumnValues, format_value
from explainer.report import TIE, UNCOVERED, RuleSetReport, explain_row
from explainer.rules.forbid import rule_columns
from explainer.rules.render import render_label

#: how a missing value is shown and chosen
MISSING = MISSING_TEXT


def original_values(dataset: Dataset, rows, columns=None) -> pd.DataFrame:
    """The used columns (those named in ``columns``, all by default) of the rows at positions ``rows``, in the
    table's own values."""
    encoded = dataset.X.iloc[np.asarray(rows, dtype=int)]
    if dataset.encoder is None:  # a data set built by hand: its columns are its values
        return (encoded if columns is None else encoded[list(columns)]).reset_index(drop=True)
    return dataset.encoder.inverse_transform(encoded, columns).reset_index(drop=True)


def rules_first(columns, report: RuleSetReport | None) -> list:
    """``columns`` with those the rules of ``report`` read first, in the order the rules name them (a wide
    table's row is read where its rules look, not 7,000 columns to the right), the others as they were."""
    columns = list(columns)
    if report is None:
        return columns
    named: dict[str, None] = {}
    for rule in report.rules:
        for column in sorted(rule_columns(rule), key=lambda c: columns.index(c) if c in columns else len(columns)):
            named.setdefault(column, None)
    first = [c for c in named if c in columns]
    return first + [c for c in columns if c not in named]


def shown_values(frame: pd.DataFrame) -> pd.DataFrame:
    """Columns with gaps become text, each gap reading ``(missing)``; full numeric columns stay numbers."""
    out = frame.copy()
    for name in out.columns:
        col = out[name]
        gaps = col.isna().to_numpy()
        if gaps.any() or col.dtype == object:
            out[name] = [MISSING if gap else format_value(v) for v, gap in zip(col.tolist(), gaps, strict=True)]
    return out


def rows_frame(dataset: Dataset, rows, report: RuleSetReport | None = None, extra: dict | None = None,
               columns=None) -> pd.DataFrame:
    """One line per row: its number as read, the true class, the voted class (with ``report``), the columns of
    ``extra`` (name -> values), then the original columns (those named in ``columns``, all by default; with
    ``report``, those its rules read first) and values."""
    rows = np.asarray(rows, dtype=int)
    lead: dict[str, object] = {"row": row_numbers(dataset)[rows]}
    lead[f"{dataset.target} (true)"] = [str(v) for v in np.asarray(dataset.y)[rows]]
    if report is not None:
        lead["voted class"] = voted_texts(report, rows)
    lead.update(extra or {})
    values = shown_values(original_values(dataset, rows, columns))
    values = values[rules_first(values.columns, report)]
    # a data column named like one of the leading columns keeps its values under a longer name
    values.columns = [f"{c} (data)" if c in lead else c for c in values.columns]
    return pd.concat([pd.DataFrame(lead), values], axis=1)


def voted_texts(report: RuleSetReport, rows) -> list[str]:
    """The class each row gets, as the row tables show it: the vote, or the fallback saying why it is given."""
    fallback = str(report.fallback)
    why = {UNCOVERED: f"{fallback} (no rule fires: ELSE)", TIE: f"{fallback} (classes tie: ELSE)"}
    return [why.get(str(v), str(v)) for v in report.predictions[np.asarray(rows, dtype=int)]]


def row_numbers(dataset: Dataset) -> np.ndarray:
    """The number of each row in the data as read (training rows keep theirs when some are held out)."""
    return np.asarray(dataset.X.index) + 1


def row_position(dataset: Dataset, number: int) -> int | None:
    """The position of the row numbered ``number`` (as read), or None when it is not among these rows."""
    found = dataset.X.index.get_indexer(pd.Index([int(number) - 1]))[0]
    return None if found < 0 else int(found)


def misclassified_rows(report: RuleSetReport) -> tuple[np.ndarray, list[str], list[str]]:
    """Every row that gets another class than its own (the vote, else the ELSE class: the rows accuracy
    counts wrong), why (:data:`~explainer.report.diagnosis.REASONS`), and the firing rules of another
    class (1-based)."""
    wrong = report.wrong_rows()
    names = [", ".join(str(k + 1) for k in ks) for ks in wrong.rule_lists()]
    return wrong.rows, [str(r) for r in wrong.reasons], names


def misclassified_frame(dataset: Dataset, report: RuleSetReport) -> pd.DataFrame:
    """Every misclassified row in one table: the row, true and voted class, the reason, the wrong rules,
    its values."""
    rows, reasons, names = misclassified_rows(report)
    return rows_frame(dataset, rows, report, {"reason": reasons, "wrong rules": names})


# --------------------------------------------------------------------------- the row editor


@dataclass(frozen=True)
class EditorColumn:
    """One column of the row editor: a number, or a choice among ``options`` (display texts)."""

    values: ColumnValues
    options: list[str]  # for a categorical column: its categories as shown, and MISSING where allowed

    @property
    def name(self) -> str:
        return self.values.name


def editor_columns(dataset: Dataset) -> list[EditorColumn]:
    if dataset.encoder is None:
        return [EditorColumn(ColumnValues(str(c), True, False, [], True), []) for c in dataset.X.columns]
    out = []
    for col in dataset.encoder.column_values():
        options = [] if col.numeric else [format_value(v) for v in col.categories]
        if options and col.missing_allowed:
            options.append(MISSING)
        out.append(EditorColumn(col, options))
    return out


def editor_frame(dataset: Dataset, position: int) -> pd.DataFrame:
    """The row at ``position`` as the editor shows it: numbers as numbers, categories as their texts."""
    values = original_values(dataset, [position])
    for col in editor_columns(dataset):
        if not col.values.numeric:
            values[col.name] = [MISSING if v is None or v != v else format_value(v) for v in values[col.name]]
    return values


def encode_edited(dataset: Dataset, edited: pd.DataFrame) -> tuple[pd.DataFrame | None, str]:
    """(the edited row encoded as the rules read it, "") or (None, what is wrong with it)."""
    row: dict[str, object] = {}
    for col in editor_columns(dataset):
        value = edited[col.name].iloc[0] if col.name in edited.columns else MISSING
        gap = value == MISSING if isinstance(value, str) else bool(pd.isna(value))
        if gap and not col.values.missing_allowed:
            return None, f"'{col.name}' needs a value: it has no missing values in the data."
        if gap:
            row[col.name] = np.nan if col.values.numeric else None
        elif col.values.numeric:
            try:
                row[col.name] = float(value)
            except (TypeError, ValueError):
                return None, f"'{col.name}' takes a number, not {str(value)!r}."
        else:
            by_text = {format_value(v): v for v in col.values.categories}
            if str(value) not in by_text:
                return None, f"'{col.name}' takes one of its values, not {str(value)!r}."
            row[col.name] = by_text[str(value)]
    frame = pd.DataFrame([row])
    if dataset.encoder is None:
        return frame, ""
    return dataset.encoder.transform(frame), ""


def explain_one_row(report: RuleSetReport, row: pd.DataFrame) -> tuple[list[int], object | None]:
    """(positions of the selected rules that fire on a one-row encoded frame, their vote or None when none fires)."""
    fired, voted = explain_row(report.rules, row)
    return fired, (None if isinstance(voted, str) and voted == UNCOVERED else voted)


def vote_text(voted, true_label=None) -> str:
    """The vote in words, against the true class when it is known (labels escaped for st.success / st.info)."""
    if voted is None:
        return "No rule fires on this row: it is uncovered."
    if isinstance(voted, str) and voted == TIE:
        return "The rules that fire disagree and tie: no class wins the vote."
    text = f"The rules that fire vote for class {md_escape(render_label(voted))}"
    if true_label is None:
        return text + "."
    if str(voted) == str(true_label):
        return text + " — right."
    return text + f"; the true class is {md_escape(render_label(true_label))}."
