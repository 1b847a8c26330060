"""The corpus of bad and awkward input files: the library, the command line, a closed pipe.

Every bad file gives one DataError sentence naming the problem (library) and that sentence as
one ``error:`` line with exit status 2 (command line), never a traceback.  Every awkward file
that is a legitimate table loads, and what was decided for the reader is said.
"""

from __future__ import annotations

import io
import pathlib
import subprocess
import sys

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier
from waits import HANG_S

from explainer.cli import main
from explainer.data import DataError, load_dataset
from explainer.selection.problem import SelectionProblem

BAD = pathlib.Path(__file__).parent / "bad_inputs"
ROOT = pathlib.Path(__file__).resolve().parent.parent

# file -> (expected phrase in the message, extra keyword arguments)
BAD_CASES: dict[str, tuple[str, dict]] = {
    "empty.csv": ("is empty", {}),
    "whitespace_only.csv": ("is empty", {}),
    "header_only.csv": ("no data rows", {}),
    "one_column.csv": ("only one column", {}),
    "latin1.csv": ("is not utf-8 text", {}),
    "binary_nul.csv": ("binary data", {}),
    "utf16.csv": ("utf-16", {}),
    "spreadsheet.xlsx": ("is a spreadsheet (such as .xlsx or .ods), not a text table; export it as csv", {}),
    "spreadsheet.ods": ("is a spreadsheet (such as .xlsx or .ods), not a text table; export it as csv", {}),
    "spreadsheet.xls": ("spreadsheet or document (such as .xls), not a text table; export it as csv", {}),
    "duplicate_columns.csv": ("'x' is duplicated", {}),
    "ragged_rows.csv": ("line 4 has 4 fields but the header has 3", {}),
    "unclosed_quote.csv": ("line 3 has an unclosed quote", {}),
    "one_class.csv": ("only one class", {}),
    "target_all_missing.csv": ("no rows are left", {}),
    "only_identifier.csv": ("no usable feature is left: 'id' looks like an identifier", {}),
    "identifiers_only_small.csv": ("no usable feature is left: 'id' looks like an identifier", {}),
    "all_constant.csv": ("no usable feature", {}),
    "only_all_missing.csv": ("no usable feature column is left after removing 'e' (all missing)", {}),
    "huge_categorical.csv": ("150 distinct values", {}),
    "too_large.csv": ("larger than the limit", {"max_bytes": 200}),
    "too_many_rows.csv": ("more than 5 rows", {"max_rows": 5}),
    "data.json": ("looks like json", {}),
    "page.html": ("looks like an html", {}),
    "no_header.csv": ("header row", {}),
    "unknown_target.csv": ("'label' was not found", {"target": "label"}),
    "infinite_values.csv": ("column 'b' contains infinite values", {}),
    "beyond_float32.csv": (
        "column 'big' holds 1e+308, beyond the largest magnitude the tree learner accepts "
        "(3.40282e+38, float32)",
        {},
    ),
    "id_like_target.csv": (
        "the default target, the last column 'ref', cannot be the class: it has 15 distinct values "
        "in 15 rows, one per row, like an identifier; choose the target column "
        "(candidates: 'size', 'colour')",
        {},
    ),
}

#: Awkward files that are legitimate tables: they load (checked one by one below).
AWKWARD = {
    "class_first.csv",
    "monks_id_last.csv",
    "voting_class_first.csv",
    "quoted_newline_names.csv",
    "decimal_commas.csv",
    "low_resolution.csv",
    "all_missing_column.csv",
}


def test_corpus_is_complete():
    files = {p.name for p in BAD.iterdir() if p.is_file()}
    assert files == set(BAD_CASES) | AWKWARD
    assert not set(BAD_CASES) & AWKWARD


# --------------------------------------------------------------------------- library


@pytest.mark.parametrize("how", ["path", "bytes", "upload"])
@pytest.mark.parametrize("filename", sorted(BAD_CASES))
def test_bad_inputs_raise_data_error(filename, how):
    phrase, kwargs = BAD_CASES[filename]
    path = BAD / filename
    source = {"path": path, "bytes": path.read_bytes(), "upload": io.BytesIO(path.read_bytes())}[how]
    with pytest.raises(DataError) as exc_info:
        load_dataset(source, **kwargs)
    assert type(exc_info.value) is DataError
    message = str(exc_info.value)
    assert phrase in message.lower(), message
    assert "\n" not in message and message.endswith(".")
    assert "Traceback" not in message


def test_class_named_column_wins_over_position():
    mushroom = load_dataset(BAD / "class_first.csv")
    assert mushroom.target == "class" and "habitat=g" in mushroom.feature_names
    monks = load_dataset(BAD / "monks_id_last.csv")
    assert monks.target == "class" and monks.classes == [0, 1]
    assert next(c for c in monks.columns if c.name == "id").kind == "identifier"
    voting = load_dataset(BAD / "voting_class_first.csv")
    assert voting.target == "Class Name" and voting.n_dropped_missing_target == 0
    assert voting.classes == ["democrat", "republican"]
    assert not (mushroom.warnings or monks.warnings or voting.warnings)


def test_explicit_identifier_target_is_kept_with_a_loud_warning():
    ds = load_dataset(BAD / "monks_id_last.csv", target="id")
    assert ds.target == "id" and len(ds.classes) == 30
    (warning,) = ds.warnings
    assert warning.startswith("The target 'id' looks like an identifier (it has 30 distinct values in 30 rows")
    assert "Better candidates: 'class'," in warning
    assert ds.summary()["warnings"] == [warning]


def test_comma_table_with_spaces_in_names_and_quoted_line_breaks():
    ds = load_dataset(BAD / "quoted_newline_names.csv")
    assert [c.name for c in ds.columns] == ["before then after", "a <= 3 AND b", "tail AND", "label"]
    assert ds.target == "label"
    assert ds.y.tolist() == ["plain", "two\nlines", "plain", "two\nlines"]
    assert ds.X["before then after"].tolist() == [1, 4, 7, 1]


def test_decimal_commas_are_numbers_and_the_report_says_so():
    ds = load_dataset(BAD / "decimal_commas.csv")
    assert ds.n_rows == 300 and ds.feature_names == ["length", "width"]
    assert {c.name: c.kind for c in ds.columns}["length"] == "numeric"
    raw = (BAD / "decimal_commas.csv").read_text().splitlines()[1:]
    first = float(raw[0].split(";")[0].replace(",", "."))
    assert ds.X["length"][0] == first
    # the class was written as length > 5, which the numbers now show
    assert ((ds.X["length"] > 5).to_numpy() == (ds.y == "long")).all()
    assert ds.notes == ["Read numbers written with decimal commas (1,5 = 1.5) in 2 columns: 'length', 'width'."]
    assert ds.summary()["notes"] == ds.notes


def test_values_below_float32_resolution_are_named_and_a_training_matrix_keeps_them_apart():
    ds = load_dataset(BAD / "low_resolution.csv")
    assert ds.low_resolution_features == ["x", "offset"]
    assert [w.split("'")[1] for w in ds.warnings] == ["x", "offset"]
    x = ds.X["x"].to_numpy()
    assert len(np.unique(x)) == 2 and len(np.unique(x.astype(np.float32))) == 1  # the loss is real
    codes = ds.y_codes()
    # on X the tree learner sees one value, so no split; on the training matrix it separates the classes
    assert DecisionTreeClassifier(random_state=0).fit(ds.X, codes).get_depth() == 0
    M = ds.training_matrix()
    assert M.shape == ds.X.shape and sorted(np.unique(M[:, 0])) == [0.0, 1.0]
    tree = DecisionTreeClassifier(max_depth=1, random_state=0).fit(M, codes)
    assert tree.score(M, codes) == 1.0
    feature = ds.feature_names[int(tree.tree_.feature[0])]
    threshold = ds.original_threshold(feature, float(tree.tree_.threshold[0]))
    # the rule on the original values selects exactly the rows the tree sent left
    left = tree.apply(M) == tree.tree_.children_left[0]
    assert ((ds.X[feature].to_numpy() <= threshold) == left).all()
    assert ds.original_threshold("offset", 2.5) == 1e15 + 0.25
    assert ds.training_matrix()[:, 1].tolist() == [float(i % 4) for i in range(20)]


def test_all_missing_column_is_called_all_missing():
    ds = load_dataset(BAD / "all_missing_column.csv")
    assert {c.name: c.kind for c in ds.columns}["e"] == "all missing"
    assert ds.feature_names == ["a"]


# --------------------------------------------------------------------------- command line

CLI_BAD = sorted(f for f, (_, kw) in BAD_CASES.items() if not {"max_bytes", "max_rows"} & set(kw))


@pytest.mark.parametrize("filename", CLI_BAD)
def test_cli_bad_input_is_one_error_line(filename, capsys):
    _, kwargs = BAD_CASES[filename]
    extra = ["--target", kwargs["target"]] if "target" in kwargs else []
    with pytest.raises(DataError) as exc_info:
        load_dataset(BAD / filename, **kwargs)
    assert main(["rules", str(BAD / filename), "--depth", "2", *extra]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"error: {exc_info.value}\n"


@pytest.mark.parametrize("filename", sorted(AWKWARD))
def test_cli_awkward_input_loads_and_says_what_it_decided(filename, capsys):
    assert main(["rules", str(BAD / filename), "--depth", "2"]) == 0
    out, err = capsys.readouterr()
    ds = load_dataset(BAD / filename)
    assert out.startswith(f"data:        {ds.name}: {ds.n_rows} rows")
    expected = [f"note: {n}" for n in ds.notes] + [f"warning: {w}" for w in ds.warnings]
    assert err.splitlines() == expected


@pytest.mark.slow
def test_cli_output_into_a_closed_pipe_ends_quietly():
    # enough output to overflow the pipe after the reader has gone
    cmd = [sys.executable, "-m", "explainer.cli", "rules", "wine", "--depth", "7", "--repeats", "3", "--show"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = proc.stdout.readline()
    proc.stdout.close()  # like `| head -1`
    err = proc.stderr.read().decode()
    proc.stderr.close()
    status = proc.wait(timeout=HANG_S)
    assert first.startswith(b"data:")
    assert err == ""
    assert status in (0, 141)


def test_a_class_decided_below_float32_resolution_is_explained_exactly():
    from explainer.rules.pool import build_pool

    ds = load_dataset(BAD / "low_resolution.csv")
    pool = build_pool(ds.X, ds.y, 3, random_state=0, classes=ds.classes, feature_specs=ds.feature_specs)
    problem = SelectionProblem.from_pool(pool, complexity_budget=2, error_budget=0)
    coverage = pool.coverage.toarray().astype(bool)
    used = {c.feature for r in pool.rules for c in r.conditions}
    assert "x" in used  # the column that decides the class is usable
    # every rule's rows are the rows its text selects on the original values
    for i, rule in enumerate(pool.rules):
        assert (rule.covers(ds.X) == coverage[:, i]).all()
    from explainer.selection.solvers import solve

    result = solve(problem, "exact")
    assert result.coverage == ds.n_rows  # two one-condition rules on x explain every row without error
