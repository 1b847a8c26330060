"""Command line: machine-readable output and clear errors."""

import json

import pytest
from test_exports import BUILTINS

from explainer.cli import main


@pytest.fixture
def iris_csv(tmp_path):
    from explainer.data import sample_datasets

    return str(sample_datasets()["iris"])


def test_rules_prints_pool_and_budgets(iris_csv, capsys):
    assert main(["rules", iris_csv, "--target", "class", "--depth", "3", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    assert "trees:       24" in out and "rules (M):" in out and "best tree:" in out


def test_rules_json(iris_csv, capsys):
    assert main(["rules", iris_csv, "--depth", "4", "--repeats", "1", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["n_trees"] == 36 and d["n_rules"] > 0
    assert d["best_tree"]["suggested_complexity_budget"] < d["best_tree"]["complexity"]


def test_evaluate_json(iris_csv, tmp_path, capsys):
    rules = tmp_path / "r.txt"
    rules.write_text("IF petal_length <= 2.45 THEN CLASS=setosa\nIF petal_width > 1.75 THEN CLASS=virginica\n")
    assert main(["evaluate", iris_csv, str(rules), "--target", "class", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    for key in ("n_rows", "n_rules", "complexity", "errors", "covered", "conflicting_pairs", "coverage",
                "coverage_score", "rules"):
        assert key in d
    assert d["n_rows"] == 150 and d["n_rules"] == 2 and d["complexity"] == 2
    assert d["covered"] == 96 and d["errors"] == 1 and d["coverage"] == 96
    assert 0 <= d["coverage_score"] <= 1
    assert d["rules"][1] == {**d["rules"][1], "text": "IF petal_width > 1.75 THEN CLASS=virginica",
                             "length": 1, "support": 46, "errors": 1, "conflicts": 0}


def test_explain_json(iris_csv, capsys):
    rc = main(["explain", iris_csv, "--depth", "3", "--complexity", "4", "--errors", "5",
               "--algorithm", "rfhc", "--seed", "0", "--json", "--quiet"])
    assert rc == 0
    d = json.loads(capsys.readouterr().out)
    assert d["algorithm"] == "rfhc" and d["complexity"] <= 4 and d["errors"] <= 5
    assert d["rules_text"].startswith("IF ")
    # the keys scripts read, in their order: the report's, then the run's
    assert list(d) == [
        "n_rows", "n_rules", "complexity", "errors", "covered", "conflicting_pairs", "coverage", "coverage_score",
        "eps", "uncovered_rows", "tied_rows", "vote_accuracy", "accuracy", "balanced_accuracy", "fallback_class",
        "else_text", "fallback_right", "wrong_rows", "target", "complexity_budget", "error_budget", "within_budgets",
        "rules",
        "data_fingerprint", "settings", "algorithm", "status", "message", "time_s", "generations", "rules_text",
        "pool_rules", "pool_trees"]


@pytest.mark.parametrize(
    "argv, phrase",
    [
        (["rules", "no_such_file.csv"], "no file"),
        (["rules", "iris", "--target", "colour"], "colour"),
        (["evaluate", "iris", "missing_rules.txt"], "no rule file"),
    ],
)
def test_bad_input_is_one_clear_line(argv, phrase, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and phrase in err and "Traceback" not in err


def test_bad_rule_file(iris_csv, tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("IF petal_length <= 2.45 THEN CLASS=rose\n")
    assert main(["evaluate", iris_csv, str(bad)]) == 2
    assert "rose" in capsys.readouterr().err
    bad.write_text("IF sepal_colour > 1 THEN CLASS=setosa\n")
    assert main(["evaluate", iris_csv, str(bad)]) == 2
    assert "sepal_colour" in capsys.readouterr().err


@pytest.mark.slow
def test_pools_table_lists_every_paper_data_set(paper_datasets_dir, capsys):
    assert main(["pools", "--json", "--data-dir", str(paper_datasets_dir)]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 10
    by = {r["dataset"]: r for r in rows}
    assert by["iris"]["trees"] == 24 and by["tic_tac_toe"]["trees"] == 108
    assert by["iris"]["paper_M"] == 64
    assert all(0 < r["M"] <= r["paths"] for r in rows)


def test_option_that_does_not_apply_is_a_clear_error(capsys):
    assert main(["explain", "iris", "--algorithm", "rfhc", "--generations", "5", "--quiet"]) == 2
    assert "--generations does not apply to the rfhc algorithm" in capsys.readouterr().err
    assert main(["explain", "iris", "--algorithm", "greedy", "--generations", "5", "--quiet"]) == 2


@pytest.mark.slow
def test_explain_out_then_evaluate_gives_the_same_numbers_on_hostile_names(tmp_path, capsys):
    import numpy as np
    import pandas as pd

    from explainer.rules.render import render_label

    rng = np.random.default_rng(1)
    n = 150
    pd.DataFrame({
        "before then after": rng.integers(0, 50, n),
        "x THEN y": rng.normal(size=n).round(3),
        "tail AND": rng.choice(["v AND", "w THEN CLASS=q", "plain"], n),
        "label": rng.choice(["a\nIF x > -100 THEN CLASS=b", "c\u2028d", "e\x85f", "ok"], n),
    }).to_csv(tmp_path / "hostile.csv", index=False)
    data, rules = str(tmp_path / "hostile.csv"), str(tmp_path / "rules.txt")
    args = ["--target", "label", "--complexity", "12", "--errors", "40"]
    assert main(["explain", data, *args, "--out", rules, "--json"]) == 0
    explained = json.loads(capsys.readouterr().out)
    text = (tmp_path / "rules.txt").read_text(encoding="utf-8")
    # the header's comment lines, then one rule a line, and the fallback class as the last line
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    assert len(lines) == explained["n_rules"] + 1 > 2
    assert text.splitlines()[-1] == explained["else_text"] == f"ELSE CLASS={render_label(explained['fallback_class'])}"
    assert main(["evaluate", data, rules, *args, "--json"]) == 0
    evaluated = json.loads(capsys.readouterr().out)
    for key in ("n_rules", "complexity", "errors", "covered", "coverage", "fallback_class", "accuracy", "target"):
        assert evaluated[key] == explained[key], key
    assert [r["label"] for r in evaluated["rules"]] == [r["label"] for r in explained["rules"]]
    assert [r["text"] for r in evaluated["rules"]] == [r["text"] for r in explained["rules"]]


def test_evaluate_refuses_an_overlong_line_at_once(iris_csv, tmp_path, capsys):
    rules = tmp_path / "r.txt"
    rules.write_text("IF sepal_length" + " " * 900_000 + "<= 5 THEN CLASS=setosa\n")
    assert main(["evaluate", iris_csv, str(rules), "--target", "class"]) == 2
    assert "line 1 has 900037 characters; the limit is 32768" in capsys.readouterr().err

def test_frontier_json(iris_csv, capsys):
    assert main(["frontier", iris_csv, "--target", "class", "--depth", "3", "--errors", "5",
                 "--complexity-range", "1:6", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["axis"] == "complexity" and d["fixed_budget"] == 5 and d["n_points"] == 6
    pts = d["points"]
    assert [p["complexity_budget"] for p in pts] == [1, 2, 3, 4, 5, 6]
    assert all(a["coverage"] <= b["coverage"] for a, b in zip(pts, pts[1:], strict=False))
    # Iris at 4 / 5 is 141 rows (94 %) when conditions are counted; the CLI counts phrases (an
    # interval is one), which can only free budget
    assert pts[3]["coverage"] >= 141 and pts[3]["proven_optimal"] is True
    assert pts[3]["rules_text"].count("IF ") == len(pts[3]["rules"])
    # the ELSE class: the most frequent class of the rows the point's rules leave uncovered
    import pandas as pd

    from explainer.rules import RuleSet, parse_rules

    table = pd.read_csv(iris_csv)
    lines = pts[3]["rules_text"].splitlines()
    uncovered = ~RuleSet(parse_rules("\n".join(lines[:-1]))).coverage_matrix(table).any(axis=1)
    left = table["class"][uncovered].value_counts()
    assert uncovered.any() and (left == left.max()).sum() == 1 and lines[-1] == f"ELSE CLASS={left.idxmax()}"


def test_frontier_errors_axis_and_bad_ranges(iris_csv, capsys):
    assert main(["frontier", iris_csv, "--depth", "3", "--axis", "errors", "--complexity", "4",
                 "--errors-range", "0:3", "--quiet"]) == 0
    assert "Be" in capsys.readouterr().out
    for argv in (["--errors", "5", "--complexity-range", "5:2"], ["--errors", "5", "--complexity-range", "x"]):
        assert main(["frontier", iris_csv, "--depth", "3", *argv]) == 2
        assert capsys.readouterr().err.startswith("error:")


def test_frontier_takes_the_default_error_budget_of_explain(iris_csv, capsys):
    # without --errors both commands use the reference tree's errors e*
    assert main(["explain", iris_csv, "--depth", "3", "--quiet", "--json"]) == 0
    be = json.loads(capsys.readouterr().out)["error_budget"]
    assert main(["frontier", iris_csv, "--depth", "3", "--quiet", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["fixed_budget"] == be and all(p["error_budget"] == be and p["errors"] <= be for p in d["points"])


@pytest.mark.slow
def test_explain_holdout_json(iris_csv, capsys):
    argv = ["explain", iris_csv, "--depth", "3", "--holdout", "0.2", "--seed", "1", "--quiet", "--json"]
    assert main(argv) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["n_rows"] == 120 and d["holdout"]["n_rows"] == 30 and d["training"]["n_rows"] == 120
    for key in ("coverage_score", "errors", "vote_accuracy", "covered"):
        assert key in d["holdout"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["holdout"] == d["holdout"]  # seeded split, same numbers
    assert main(["explain", iris_csv, "--depth", "3", "--holdout", "1.5", "--quiet"]) == 2
    assert "between 0 and 1" in capsys.readouterr().err


def test_split_holdout_is_stratified():
    import numpy as np

    from explainer.data import load_dataset
    from explainer.pipeline import split_holdout

    ds = load_dataset("sample_data/iris.csv", target="class")
    X_tr, X_te, y_tr, y_te = split_holdout(ds.X, ds.y, 0.2, random_state=0)
    assert len(X_te) == 30 and len(X_tr) == 120
    assert sorted(np.unique(y_te, return_counts=True)[1].tolist()) == [10, 10, 10]


@pytest.mark.slow
def test_explain_exports_sql_and_python_and_shows_accuracy_first(tmp_path, capsys):
    import sqlite3

    from explainer.data import load_dataset, sample_datasets
    from explainer.data.tables import read_table
    from explainer.rules import parse_rule_text

    loans = str(sample_datasets()["loans"])
    args = ["explain", loans, "--quiet", "--complexity", "12", "--errors", "20"]
    assert main(args) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    else_at = next(i for i, line in enumerate(lines) if line.startswith("ELSE CLASS="))
    assert lines[else_at + 2].startswith("target column:      decision")
    assert lines[else_at + 3].startswith("accuracy:")
    assert any(line.startswith("coverage:") for line in lines[else_at:else_at + 12])
    # the exports, written as their suffix says, give the same classes as the report
    for suffix in ("txt", "sql", "py", "json", "csv"):
        assert main([*args, "--out", str(tmp_path / f"rules.{suffix}")]) == 0
    capsys.readouterr()
    assert main([*args, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    rules, fallback = parse_rule_text((tmp_path / "rules.txt").read_text(encoding="utf-8"))
    assert len(rules) == report["n_rules"] and fallback == report["fallback_class"]
    table = read_table(loans).drop(columns=["decision"])
    with sqlite3.connect(":memory:") as con:
        table.to_sql("data", con, index=False)
        sql = (tmp_path / "rules.sql").read_text(encoding="utf-8")
        by_sql = [r[0] for r in con.execute(f"SELECT {sql} FROM data")]
    namespace: dict = {}
    exec((tmp_path / "rules.py").read_text(encoding="utf-8"), {"__builtins__": BUILTINS}, namespace)
    by_python = [namespace["predict"](row) for row in table.to_dict("records")]
    ds = load_dataset(loans)
    right = sum(str(a) == str(b) for a, b in zip(by_sql, ds.y, strict=True))
    assert by_sql == by_python
    assert right == round(report["accuracy"] * ds.n_rows)
    assert (tmp_path / "rules.csv").read_text(encoding="utf-8").splitlines()[-1].startswith('"ELSE","ELSE CLASS=')
    # --format prints an export instead of the report
    assert main([*args, "--format", "sql"]) == 0
    sql = capsys.readouterr().out.splitlines()
    assert sql[0].startswith("-- ") and "CASE" in sql  # its header's comment lines, then the expression


def test_explain_class_weight_balanced(capsys):
    from sklearn.metrics import balanced_accuracy_score

    from explainer.data import load_paper_dataset
    from explainer.rules import parse_rule_text, rules_for_data

    args = ["explain", "ecoli", "--depth", "3", "--complexity", "6", "--errors", "7.5", "--algorithm", "exact",
            "--json", "--quiet"]
    assert main(args + ["--class-weight", "balanced"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["settings"]["class_weight"] == "balanced"
    assert d["weighted_errors"] <= 7.5 + 1e-9 and d["within_budgets"] is True
    # balanced accuracy of the printed rules, recomputed from their text
    ds = load_paper_dataset("ecoli")
    parsed, fallback = parse_rule_text(d["rules_text"], labels=None)
    rules = rules_for_data(parsed, ds.feature_specs, ds.classes)
    from explainer.report import evaluate_rules

    predicted = evaluate_rules(rules, ds.X, ds.y, fallback=d["fallback_class"]).predicted
    assert d["balanced_accuracy"] == pytest.approx(balanced_accuracy_score(ds.y.astype(str), predicted.astype(str)))
    # unweighted, the error budget counts rows: a whole number
    assert main(args) == 2
    assert "--errors counts rows" in capsys.readouterr().err


@pytest.mark.parametrize("args", [["--errors", "inf"], ["--errors", "nan"], ["--errors", "-1"], ["--complexity", "-2"],
                                  ["--generations", "-2"], ["--time-limit", "-1"], ["--repeats", "0"],
                                  ["--pool-seed", "-1"], ["--complexity", "2.5"]])
def test_numbers_out_of_range_are_an_error_naming_the_option(args, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["explain", "iris", *args, "--quiet"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {args[0]}: expected a " in err and "Traceback" not in err


@pytest.mark.parametrize("param", ["n_population=0", "n_population=2.5", "stall=abc", "stall=-5", "time_limit=-1",
                                   "n_generations=0"])
def test_algorithm_parameters_out_of_range_are_an_error_naming_them(param, capsys):
    assert main(["explain", "iris", "--param", param, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"the qga algorithm's {param.split('=')[0]} must be" in err and "Traceback" not in err


@pytest.mark.parametrize("args", [["--json", "--format", "csv"], ["--out", "rules.xyz"]])
def test_outputs_that_overrule_each_other_are_an_error_before_any_work(args, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["explain", "iris", *args, "--quiet"]) == 2
    assert "error: --" in capsys.readouterr().err and not (tmp_path / "rules.xyz").exists()


def test_a_name_both_a_sample_and_a_paper_data_set_has_a_prefix_for_each():
    from explainer.data.sources import find_source

    assert find_source("iris").kind == "sample" == find_source("sample:iris").kind
    assert find_source("paper:iris").kind == "paper" and find_source("paper:wine").kind == "paper"
    assert find_source("paper:loans") is None  # a sample, not a paper data set


@pytest.mark.parametrize("suffix", [".txt", ".json", ".csv"])
def test_evaluating_an_export_gives_the_explanations_totals(suffix, tmp_path, capsys):
    """The text, JSON and CSV exports read back by evaluate: the complexity, errors and coverage of the explanation
    that wrote them; the SQL and Python exports, code, are refused with a message."""
    out = tmp_path / f"rules{suffix}"
    assert main(["explain", "loans", "--quiet", "--json", "--out", str(out)]) == 0
    explained = json.loads(capsys.readouterr().out)
    assert main(["evaluate", "loans", str(out), "--json"]) == 0
    evaluated = json.loads(capsys.readouterr().out)
    for key in ("complexity", "errors", "coverage", "accuracy", "n_rules"):
        assert evaluated[key] == explained[key], key
    for code in (".sql", ".py") if suffix == ".txt" else ():  # once
        path = tmp_path / f"rules{code}"
        assert main(["explain", "loans", "--quiet", "--out", str(path)]) == 0
        capsys.readouterr()
        assert main(["evaluate", "loans", str(path)]) == 2
        assert "holds the rules as code" in capsys.readouterr().err


def test_explain_says_on_stderr_and_in_its_json_how_many_rows_had_no_class(tmp_path, capsys):
    path = tmp_path / "gaps.csv"
    path.write_text("a,b,class\n" + "".join(f"{i},{'xy'[i % 2]},{'' if i in (3, 7) else 'pq'[i % 3 == 0]}\n"
                                            for i in range(40)))
    assert main(["explain", str(path), "--json", "--quiet", "--complexity", "3", "--errors", "10"]) == 0
    out, err = capsys.readouterr()
    d = json.loads(out)
    assert d["n_rows"] == 38 and d["dropped_missing_target"] == 2
    assert err == "note: 2 rows without a value of the class column 'class' left out; 38 rows used\n"


@pytest.mark.parametrize("argv, says", [
    (["explain", "iris", "--holdout-seed", "3"], "--holdout-seed seeds the split of --holdout"),
    (["explain", "iris", "--size", "compact", "--complexity", "4", "--errors", "3"], "--size chooses the default"),
    (["frontier", "iris", "--metric", "accuracy", "--axis", "errors"], "--metric accuracy shows"),
])
def test_an_option_that_would_be_ignored_is_an_error_before_any_work(argv, says, capsys):
    assert main(argv) == 2
    assert says in capsys.readouterr().err


def test_evaluate_refuses_a_file_without_rules_but_reads_an_empty_selections_else_line(tmp_path, capsys):
    empty, only_else = tmp_path / "empty.txt", tmp_path / "else.txt"
    empty.write_text("")
    only_else.write_text("# an empty selection\nELSE CLASS=setosa\n")
    assert main(["evaluate", "iris", str(empty)]) == 2
    assert "no rule in it" in capsys.readouterr().err
    assert main(["evaluate", "iris", str(only_else), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["n_rules"] == 0


def test_an_argument_error_is_one_line(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["explain", "iris", "--errors", "nan"])
    assert stop.value.code == 2
    assert capsys.readouterr().err.splitlines() == [
        "explainer explain: error: argument --errors: expected a finite number >= 0, got 'nan' "
        "(see explainer explain --help)"]


def test_an_empty_target_is_an_error_not_the_suggested_column(capsys):
    assert main(["explain", "iris", "--target", ""]) == 2
    assert "--target is empty" in capsys.readouterr().err
