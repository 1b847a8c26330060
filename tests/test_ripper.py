"""A wittgenstein RIPPER rule list read into the evaluator covers exactly the rows RIPPER predicts."""

import warnings

import numpy as np
import pytest

from explainer.data import PAPER_DATASETS, load_dataset, load_paper_dataset, sample_datasets
from explainer.data.tables import read_table
from explainer.rules import Condition, RuleSyntaxError, rules_for_data
from explainer.rules.ripper import parse_ripper

lw = pytest.importorskip("wittgenstein")


def test_ripper_text_forms():
    (rule,) = parse_ripper("[[a=x^b=1.5-2.0^c=<0.5^d=>-3^e=-3.2--1.0^f=1e-05-0.002]]", "pos")
    conds = rule.conditions
    assert (conds[0].spec.column, conds[0].spec.value, conds[0].op) == ("a", "x", ">")
    assert conds[1:] == (
        Condition("b", ">", 1.5), Condition("b", "<=", 2.0), Condition("c", "<=", 0.5), Condition("d", ">", -3.0),
        Condition("e", ">", -3.2), Condition("e", "<=", -1.0), Condition("f", ">", 1e-05), Condition("f", "<=", 0.002),
    )
    assert rule.label == "pos"
    assert parse_ripper("[]", "pos") == [] and parse_ripper("[[True]]", "pos")[0].conditions == ()
    with pytest.raises(RuleSyntaxError):
        parse_ripper("a=b", "pos")


def _cases():
    return [("sample", "loans"), ("sample", "iris"), ("sample", "wine"),
            ("paper", "mammographic_masses"), ("paper", "tic_tac_toe"), ("paper", "breast_cancer_wisconsin")]


@pytest.mark.parametrize("where, name", _cases())
def test_read_ripper_rules_cover_what_ripper_predicts(where, name, paper_datasets_dir):
    if where == "sample":
        path = sample_datasets()[name]
        ds = load_dataset(path)
    else:
        path = paper_datasets_dir / PAPER_DATASETS[name]["file"]
        ds = load_paper_dataset(name, paper_datasets_dir)
    table = read_table(path)
    X = table[[c.name for c in ds.columns if not c.excluded and c.name != ds.target]]
    positive = ds.classes[-1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ripper = lw.RIPPER(random_state=0)
        ripper.fit(X, table[ds.target], pos_class=positive)
        theirs = np.asarray(ripper.predict(X), dtype=bool)
    rules = rules_for_data(parse_ripper(str(ripper.ruleset_), positive), ds.feature_specs, ds.classes)
    assert len(rules) == len(ripper.ruleset_.rules) > 0
    assert np.array_equal(rules.coverage_matrix(ds.X).any(axis=1), theirs)


def test_cli_evaluates_a_ripper_rule_set(tmp_path, capsys):
    import json

    from explainer.cli import main

    path = str(sample_datasets()["iris"])
    (tmp_path / "ripper.txt").write_text("[[petal_width=<0.6] V [petal_length=<1.9]]\n", encoding="utf-8")
    assert main(["evaluate", path, str(tmp_path / "ripper.txt"), "--ripper-class", "setosa", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    ds = load_dataset(path)
    expected = int(((ds.X["petal_width"] <= 0.6) | (ds.X["petal_length"] <= 1.9)).sum())
    assert report["covered"] == expected and report["n_rules"] == 2
    assert main(["evaluate", path, str(tmp_path / "ripper.txt"), "--ripper-class", "rose"]) == 2
    assert "'rose' is not a class" in capsys.readouterr().err
