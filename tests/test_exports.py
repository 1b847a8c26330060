"""SQL and Python exports give exactly the estimator's predictions, missing values included."""

import csv
import io
import sqlite3

import numpy as np
import pandas as pd
import pytest
from lanes import quick_first
from test_semantics import gappy_table

from explainer.data import PAPER_DATASETS
from explainer.data.tables import read_table
from explainer.estimator import RuleSetExplainer
from explainer.report.exports import rules_to_python, rules_to_sql
from explainer.rules import Condition, Rule, RuleSet
from explainer.rules.model import ValueSet

#: all the exported function may call: it imports nothing
BUILTINS = {"max": max, "len": len, "isinstance": isinstance, "str": str, "float": float, "ValueError": ValueError,
            "any": any}


def _sql_votes(table: pd.DataFrame, expression: str) -> list:
    with sqlite3.connect(":memory:") as con:
        table.to_sql("data", con, index=False)
        return [row[0] for row in con.execute(f"SELECT {expression} FROM data ORDER BY rowid")]


def _sql_votes_on_text(table: pd.DataFrame, expression: str, gap=None) -> list:
    """The SQL's classes on the table imported as text (every column TEXT, as many CSV imports give), a missing
    cell stored as ``gap`` (NULL, or '' as sqlite3's .import of a CSV stores an empty cell)."""
    names = [str(c) for c in table.columns]
    quoted = ", ".join('"' + n.replace('"', '""') + '" TEXT' for n in names)
    rows = [[gap if pd.isna(v) else str(v) for v in row] for row in table.itertuples(index=False)]
    with sqlite3.connect(":memory:") as con:
        con.execute(f"CREATE TABLE data ({quoted})")
        con.executemany(f"INSERT INTO data VALUES ({', '.join('?' * len(names))})", rows)
        assert {r[0] for r in con.execute("SELECT typeof(" + '"' + names[0].replace('"', '""') + '"' + ") FROM data")} \
            <= {"text", "null"}
        return [row[0] for row in con.execute(f"SELECT {expression} FROM data ORDER BY rowid")]


def _python_votes(table: pd.DataFrame, source: str) -> list:
    namespace: dict = {}
    exec(compile(source, "<export>", "exec"), {"__builtins__": BUILTINS}, namespace)
    predict = namespace["predict"]
    return [predict(row) for row in table.to_dict("records")]


def _python_votes_on_text(table: pd.DataFrame, source: str, gap: str = "") -> list:
    """The Python export's classes on the rows as ``csv.DictReader`` reads the table's CSV: every value text,
    a missing one written ``gap`` (one of the reader's markers: '' or '?')."""
    namespace: dict = {}
    exec(compile(source, "<export>", "exec"), {"__builtins__": BUILTINS}, namespace)
    rows = list(csv.DictReader(io.StringIO(table.to_csv(index=False, na_rep=gap))))
    assert all(isinstance(v, str) for row in rows for v in row.values())
    return [namespace["predict"](row) for row in rows]


def _check(table: pd.DataFrame, target: str, **params):
    X, y = table.drop(columns=[target]), table[target].to_numpy()
    est = RuleSetExplainer(random_state=0, **params).fit(X, y)
    assert est.rules_ is not None and len(est.rules_) > 0
    expected = [str(v) for v in est.predict(X)]
    sql = rules_to_sql(est.rules_, est.default_class_)
    assert [str(v) for v in _sql_votes(X, sql)] == expected
    for gap in (None, "", "?"):  # NULL, and an import that keeps the file's '' or '?'
        assert [str(v) for v in _sql_votes_on_text(X, sql, gap)] == expected
    python = rules_to_python(est.rules_, est.default_class_)
    assert [str(v) for v in _python_votes(X, python)] == expected
    for gap in ("", "?"):
        assert [str(v) for v in _python_votes_on_text(X, python, gap)] == expected
    return est


@pytest.mark.parametrize("name", quick_first(sorted(PAPER_DATASETS)))
def test_exports_give_predict_on_every_paper_data_set(name, paper_datasets_dir):
    spec = PAPER_DATASETS[name]
    table = read_table(paper_datasets_dir / spec["file"])
    # the estimator keeps every column it is given: leave out text identifiers (ecoli's names)
    table = table[[c for c in table.columns if not (table[c].dtype == object and table[c].nunique() == len(table))]]
    # a small pool keeps the test short; the rule forms are those of the default pool
    _check(table, spec["target"], max_depth=4)


def test_exports_on_a_table_with_gaps():
    table = gappy_table(5, n=300)
    assert table.isna().any().any()
    _check(table, "label", max_depth=5)


def test_sql_compares_numbers_as_numbers_on_a_text_import():
    """Thousands of mixed rows (numbers of several digits, categories, gaps) stored as TEXT: "9" > "12" as
    text, so only a cast to a number gives the rules' classes."""
    rng = np.random.default_rng(7)
    n = 3000
    table = pd.DataFrame({
        "years": rng.integers(1, 40, n),
        "score": rng.normal(50, 30, n).round(1),
        "grade": rng.choice(["a", "b", "c"], n),
        "level": rng.choice([1, 2, 3, 11], n),
    })
    table.loc[rng.random(n) < 0.05, "score"] = np.nan
    table["label"] = np.where((table["years"] > 12) & (table["score"].fillna(0) > 40), "high", "low")
    flip = rng.random(n) < 0.1
    table.loc[flip, "label"] = np.where(table.loc[flip, "label"] == "high", "low", "high")
    est = _check(table, "label", max_depth=5)
    assert "CAST(" in rules_to_sql(est.rules_, est.default_class_)
    rule = Rule((Condition("years", ">", 12.0),), "high")
    sql = rules_to_sql(RuleSet([rule]), "low")
    votes = _sql_votes_on_text(table[["years"]], sql)
    assert votes == ["high" if v > 12 else "low" for v in table["years"]]


def test_every_condition_form_on_hand_built_rules():
    """``!=`` and ``not in`` hold on a missing value; ``=``, ``in`` and comparisons do not; ties fall back."""
    from explainer.data import load_dataset

    table = pd.DataFrame({
        "c": ["a", "b", None, "c", "a", None, "b", "c"],
        "x": [1.0, np.nan, 3.0, 4.0, np.nan, 6.0, 7.0, 8.0],
        "k": [3, 6, 7, 3, 6, 7, 3, 6],
        "y": ["p", "q", "r", "p", "q", "r", "p", "q"],
    })
    ds = load_dataset(table, target="y")
    spec = {s.name: s for s in ds.feature_specs}
    rules = RuleSet([
        Rule((Condition("c=a", "<=", 0.5, spec["c=a"]),), "p"),  # c != a
        Rule((ValueSet("c", ("a", "b"), True, features=("c=a", "c=b")),), "q"),  # c not in {a, b}
        Rule((ValueSet("c", ("b", "c"), features=("c=b", "c=c")), Condition("x", ">", 2.0, spec["x"])), "r"),
        Rule((ValueSet("k", (6.0, 7.0), numeric="k"),), "r"),
        Rule((Condition("x is missing", ">", 0.5, spec["x is missing"]),), "p"),
        Rule((Condition("x", "<=", float("inf"), spec["x"]), Condition("c=b", ">", 0.5, spec["c=b"])), "q"),
    ])
    cov = rules.coverage_matrix(ds.X)
    from explainer.report import TIE, UNCOVERED, vote

    voted = vote(cov, [r.label for r in rules])
    expected = [str("p" if v in (TIE, UNCOVERED) else v) for v in voted]
    X = table.drop(columns=["y"])
    assert [str(v) for v in _sql_votes(X, rules_to_sql(rules, "p"))] == expected
    assert [str(v) for v in _python_votes(X, rules_to_python(rules, "p"))] == expected
    assert TIE in set(voted.tolist())


def test_names_and_labels_cannot_become_code():
    spec_name = 'a"); DROP TABLE data; --'
    from explainer.data.features import FeatureSpec

    spec = FeatureSpec(f"{spec_name}=v", spec_name, "onehot", "it's\n")
    rules = RuleSet([Rule((Condition(spec.name, ">", 0.5, spec),), "x'); --\n\"\"\"")])
    table = pd.DataFrame({spec_name: ["it's\n", "other"]})
    assert _sql_votes(table, rules_to_sql(rules, "none")) == ["x'); --\n\"\"\"", "none"]
    assert _python_votes(table, rules_to_python(rules, "none")) == ["x'); --\n\"\"\"", "none"]


# ---------------------------------------------------------------- every export read back


@pytest.fixture(scope="module")
def explained_sample():
    """A packaged sample explained with the default pool (its rules hold intervals and one-hot phrases)."""
    from explainer.data.defaults import default_load_settings
    from explainer.data.sources import find_source, load_source
    from explainer.pipeline import explain_pool
    from explainer.rules import build_pool, default_pool_settings

    ds = load_source(find_source("loans"), **default_load_settings())
    pool = build_pool(ds.X, ds.y, random_state=0, classes=ds.classes, feature_specs=ds.feature_specs,
                      **default_pool_settings(max_depth=4))
    exp = explain_pool(pool, ds.X, ds.y, complexity_budget=12, error_budget=len(ds.y), algorithm="greedy",
                       random_state=0)
    original = read_table(find_source("loans").path).drop(columns=[ds.target])
    return ds, exp.report, original


def _read_back(ds, text: str):
    from explainer.report import evaluate_rules
    from explainer.rules import parse_rule_text, rules_for_data

    parsed, fallback = parse_rule_text(text, labels=ds.classes)
    rules = rules_for_data(parsed, ds.feature_specs, ds.classes)
    return evaluate_rules(rules, ds.X, ds.y, fallback=fallback)


def _header_totals(text: str, mark: str) -> tuple[int, int, float]:
    import re

    first = text.splitlines()[0]
    assert first.startswith(mark), first
    m = re.search(r"complexity (\d+), errors (\d+), coverage f\* (\S+) of", first)
    return int(m.group(1)), int(m.group(2)), float(m.group(3))


def _header_accuracy(text: str) -> tuple[float, float]:
    """(accuracy %, balanced accuracy %) as an export's header states them."""
    import re

    m = re.search(r"accuracy ([\d.]+) %, balanced accuracy ([\d.]+) % of the \d+ rows", text)
    return float(m.group(1)), float(m.group(2))


def test_every_export_reads_back_to_the_pages_complexity_errors_and_coverage(explained_sample):
    import io
    import json

    from explainer.report.exports import export_text

    ds, report, original = explained_sample
    page = (report.complexity, report.errors, report.coverage)
    text = export_text(report, "text")
    assert "interval 'a < x <= b' counts 2" in text.splitlines()[1]
    for back in (_read_back(ds, text),
                 _read_back(ds, json.loads(export_text(report, "json"))["rules_text"])):
        assert (back.complexity, back.errors, back.coverage) == page
        assert [m.length for m in back.per_rule] == [m.length for m in report.per_rule]
    assert json.loads(export_text(report, "json"))["complexity"] == report.complexity
    frame = pd.read_csv(io.StringIO(export_text(report, "csv")), dtype=str, keep_default_na=False, comment="#")
    rules = frame[frame["rule"] != "ELSE"]
    else_line = frame.loc[frame["rule"] == "ELSE", "text"].iloc[0]
    back = _read_back(ds, "\n".join([*rules["text"], else_line]))
    assert (back.complexity, back.errors, back.coverage) == page
    assert rules["length"].astype(int).sum() == report.complexity
    expected = [str(v) for v in report.predicted]
    for kind, mark in (("text", "# "), ("csv", "# "), ("sql", "-- "), ("python", "# ")):
        out = export_text(report, kind)
        assert _header_totals(out, mark) == (report.complexity, report.errors, pytest.approx(report.coverage))
        assert _header_accuracy(out) == pytest.approx((100 * report.accuracy, 100 * report.balanced_accuracy), abs=0.005)
    assert [str(v) for v in _sql_votes(original, export_text(report, "sql"))] == expected
    assert [str(v) for v in _sql_votes_on_text(original, export_text(report, "sql"))] == expected
    assert [str(v) for v in _python_votes(original, export_text(report, "python"))] == expected


def test_exports_on_the_loans_sample_read_its_gaps_as_written():
    """The bundled loans table writes gaps as '' and '?': the exports read both as missing, as the table's reader
    does, on its rows as text (csv.DictReader) and on a text import in SQLite."""
    from pathlib import Path

    table = read_table(Path(__file__).resolve().parents[1] / "sample_data" / "loans.csv")
    assert table.isna().any().any()
    _check(table.drop(columns=["applicant_id"]), "decision")


def test_the_csv_and_json_exports_list_the_rules_each_rule_conflicts_with_as_the_rules_page_does():
    """Hand-built: rule 1 (class a) meets rule 2 (class b) on rows x = 2 and rule 3 (class b) on none; rules 2
    and 3 share rows but one class, so they do not conflict."""
    import json

    from explainer.app.downloads import rules_table
    from explainer.report import evaluate_rules

    X = pd.DataFrame({"x": [1, 2, 2, 3, 4, 5]})
    y = np.array(["a", "a", "b", "b", "b", "a"])
    rules = RuleSet([
        Rule((Condition("x", "<=", 2),), "a"),
        Rule((Condition("x", ">=", 2), Condition("x", "<=", 3)), "b"),
        Rule((Condition("x", ">=", 3),), "b"),
    ])
    report = evaluate_rules(rules, X, y)
    expected = ["2", "1", ""]
    exported = pd.read_csv(io.StringIO(report.to_csv()), keep_default_na=False, dtype=str)
    assert list(exported["conflicts_with"][:3]) == expected and exported["conflicts_with"].iloc[3] == ""
    assert list(rules_table(report)["conflicts with"]) == expected
    assert [r["conflicts_with"] for r in json.loads(json.dumps(report.to_dict()))["rules"]] == [[2], [1], []]


def test_a_stopped_runs_exports_say_so_first_and_read_back_the_same(explained_sample):
    import json

    from explainer.report.exports import export_rule_text, export_text
    from explainer.selection.result import STATUS_NOTES

    _, report, _ = explained_sample
    note = STATUS_NOTES["stopped"]
    for kind, mark in (("text", "# "), ("csv", "# "), ("sql", "-- "), ("python", "# ")):
        stopped, finished = export_text(report, kind, "stopped"), export_text(report, kind, "ok")
        assert stopped.splitlines()[0] == f"{mark}run {note}"
        assert note not in finished and stopped.split("\n", 1)[1] == finished
        if kind in ("text", "csv"):  # the rules read back are the same (the text export keeps its # lines)
            def rules(text):
                return [line for line in export_rule_text(text).splitlines() if not line.startswith("#")]
            assert rules(stopped) == rules(finished) and rules(finished)
    assert json.loads(export_text(report, "json", "stopped"))["status"] == "stopped"


def _file_rows_and_predict(text: str, target: str):
    """A table as a file: the class ``explain`` gives each row (the reader's table, fitted) and the rows as a
    CSV import (text) and as pandas types them (``pd.read_csv``: spaces kept, booleans as bool)."""
    table = read_table(io.BytesIO(text.encode()))
    X, y = table.drop(columns=[target]), table[target].to_numpy()
    est = RuleSetExplainer(random_state=0, max_depth=4).fit(X, y)
    raw = pd.read_csv(io.StringIO(text)).drop(columns=[target])
    return est, [str(v) for v in est.predict(X)], raw


@pytest.mark.parametrize("kind", ["spaces", "booleans"])
def test_exports_read_cells_as_the_reader_does_spaces_around_a_category_and_booleans(kind):
    """UCI's adult table writes ' Private': the reader drops the space, so the rules say Private; a column of
    True and False is text in a CSV, booleans to pandas and 1 or 0 in a database."""
    rng = np.random.default_rng(3)
    n = 300
    colour = rng.choice(["red", "blue", "green"], n)
    flag = rng.random(n) < 0.5
    label = np.where((colour == "blue") | (flag & (colour == "red")), "yes", "no")
    cells = [f" {c}" for c in colour] if kind == "spaces" else list(colour)
    text = "colour,flag,label\n" + "".join(f"{c},{f},{lab}\n" for c, f, lab in zip(cells, flag, label, strict=True))
    est, expected, raw = _file_rows_and_predict(text, "label")
    assert expected == list(label)  # the rules are right on every row: the exports must be too
    sql = rules_to_sql(est.rules_, est.default_class_)
    python = rules_to_python(est.rules_, est.default_class_)
    assert raw["flag"].dtype == bool and (kind == "booleans" or raw["colour"].str.startswith(" ").all())
    assert [str(v) for v in _sql_votes(raw, sql)] == expected  # typed: booleans stored as 1 and 0
    assert [str(v) for v in _sql_votes_on_text(raw, sql)] == expected
    assert [str(v) for v in _python_votes(raw, python)] == expected  # pandas' rows: spaces and bools as read
    assert [str(v) for v in _python_votes_on_text(raw, python)] == expected  # csv.DictReader's: all text
    # fitted on pandas' types (booleans, which the reader makes 1 and 0), the exports read the file's text too
    est = RuleSetExplainer(random_state=0, max_depth=4).fit(raw, label)
    expected = [str(v) for v in est.predict(raw)]
    for source in (rules_to_python(est.rules_, est.default_class_),):
        assert [str(v) for v in _python_votes_on_text(raw, source)] == expected
    assert [str(v) for v in _sql_votes_on_text(raw, rules_to_sql(est.rules_, est.default_class_))] == expected


def _file_cells(text: str, delimiter: str, target: str) -> pd.DataFrame:
    """The file's cells as written (every one text, as a CSV import into a database keeps them)."""
    rows = list(csv.DictReader(io.StringIO(text), delimiter=delimiter))
    return pd.DataFrame(rows, dtype=object).drop(columns=[target])


@pytest.mark.parametrize("written", ["decimal commas", "decimal commas and thousands dots", "thousands separators"])
def test_exports_read_numbers_as_the_file_writes_them(written):
    """A file of decimal commas ('1,5'; '1.234,5' with dots grouping thousands) or of thousands separators
    ('"1,234"'): the reader reads the numbers, and the exports, run on the file's own cells, must too (a database
    casting '1,5' gives 1; Python's float refuses it)."""
    rng = np.random.default_rng(11)
    n = 3000
    size = rng.gamma(2.0, 900.0, n).round(2)  # into the thousands, so grouped numbers occur
    rate = rng.uniform(0, 10, n).round(2)
    kind = rng.choice(["a", "b"], n)
    label = np.where((size > 1500) & (rate < 6) | (kind == "b") & (rate > 8), "yes", "no")
    flip = rng.random(n) < 0.05
    label[flip] = np.where(label[flip] == "yes", "no", "yes")

    def cell(x: float) -> str:
        if written == "thousands separators":
            return f'"{x:,.2f}"' if x >= 1000 else f"{x:.2f}"
        whole, frac = f"{x:.2f}".split(".")
        if written == "decimal commas and thousands dots":
            whole = f"{int(whole):,}".replace(",", ".")
        return f"{whole},{frac}"

    sep = "," if written == "thousands separators" else ";"
    lines = [f"size{sep}rate{sep}kind{sep}label"]
    lines += [sep.join([cell(s), cell(r), k, lab]) for s, r, k, lab in zip(size, rate, kind, label, strict=True)]
    lines[5] = sep.join(["", cell(rate[4]), kind[4], label[4]])  # a gap
    text = "\n".join(lines) + "\n"
    table = read_table(io.BytesIO(text.encode()))
    X, y = table.drop(columns=["label"]), table["label"].to_numpy()
    assert X["size"].dtype.kind == "f" and X["rate"].dtype.kind == "f"
    est = RuleSetExplainer(random_state=0, max_depth=5).fit(X, y)
    numeric = {c.spec.written for r in est.rules_ for c in r.conditions if c.spec is not None and c.spec.written}
    assert numeric, "the rules should compare a column written so"
    expected = [str(v) for v in est.predict(X)]
    cells = _file_cells(text, sep, "label")
    assert cells["size"].str.contains(",").any()
    sql = rules_to_sql(est.rules_, est.default_class_)
    python = rules_to_python(est.rules_, est.default_class_)
    assert [str(v) for v in _sql_votes_on_text(cells, sql)] == expected
    namespace: dict = {}
    exec(compile(python, "<export>", "exec"), {"__builtins__": BUILTINS}, namespace)
    assert [str(namespace["predict"](row)) for row in cells.to_dict("records")] == expected
    if written != "decimal commas and thousands dots":  # there a typed column's 1.5 would lose its point
        assert [str(v) for v in _sql_votes(X, sql)] == expected  # a typed table, numbers as numbers
        assert [str(v) for v in _python_votes(X, python)] == expected
