"""Alternatives as the command line and the estimator publish them, each checked by the evaluate command (an
evaluator that knows nothing of the selection: it reads the rules as text)."""

import json

import pytest

from explainer.cli import main
from explainer.estimator import RuleSetExplainer

BUDGETS = ["--complexity", "5", "--errors", "3"]
ARGS = ["--depth", "3", "--repeats", "1", *BUDGETS, "--quiet"]


@pytest.fixture
def iris_csv():
    from explainer.data import sample_datasets

    return str(sample_datasets()["iris"])


def _evaluate(iris_csv, tmp_path, capsys, texts, name):
    path = tmp_path / name
    path.write_text("".join(t + "\n" for t in texts))
    assert main(["evaluate", iris_csv, str(path), *BUDGETS, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("algorithm", ["exact", "qga"])
def test_cli_json_alternatives_round_trip(iris_csv, tmp_path, capsys, algorithm):
    assert main(["explain", iris_csv, *ARGS, "--algorithm", algorithm, "--alternatives", "3", "--within", "5",
                 "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    search = d["alternatives_search"]
    assert search["method"].startswith("exact" if algorithm == "exact" else "heuristic")
    assert search["k"] == 3 and search["within"] == 5.0
    best = [r["text"] for r in d["rules"]]
    n_rows = d["n_rows"]
    seen = {frozenset(best)}
    core = set(best)
    assert 0 < len(d["alternatives"]) <= 3
    for n, alt in enumerate(d["alternatives"]):
        assert frozenset(alt["rules"]) not in seen  # differs from the best and the others by a rule at least
        seen.add(frozenset(alt["rules"]))
        core &= set(alt["rules"])
        assert set(alt["differs_from_best"]) == set(alt["rules"]) ^ set(best)
        assert set(alt["added"]) == set(alt["rules"]) - set(best)
        truth = _evaluate(iris_csv, tmp_path, capsys, alt["rules"], f"alt{n}.txt")
        assert truth["within_budgets"] is True
        assert truth["complexity"] == alt["complexity"] and truth["errors"] == alt["errors"]
        assert truth["coverage_score"] == pytest.approx(alt["coverage"])
        assert truth["accuracy"] == pytest.approx(alt["accuracy"])
        assert truth["coverage"] >= d["coverage"] - 5.0 * n_rows / 100 - 1e-9
    assert set(d["stable_core"]) == core


def test_cli_text_section_and_refusals(iris_csv, capsys):
    assert main(["explain", iris_csv, *ARGS, "--algorithm", "exact", "--alternatives", "2", "--within", "5"]) == 0
    out = capsys.readouterr().out
    assert "alternatives:" in out and "stable core" in out and "#1:" in out
    assert main(["explain", iris_csv, *ARGS, "--algorithm", "greedy", "--alternatives", "2"]) == 2
    assert "need the exact (MILP) or the qga algorithm" in capsys.readouterr().err
    assert main(["explain", iris_csv, *ARGS, "--alternatives", "-1"]) == 2
    assert main(["explain", iris_csv, *ARGS, "--alternatives", "1", "--within", "-2"]) == 2


def test_estimator_alternatives(iris_csv):
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    kwargs = {"complexity_budget": 5, "error_budget": 3, "random_state": 0, "algorithm": "exact"}
    model = RuleSetExplainer(**kwargs, n_alternatives=3, alternatives_within=5.0).fit(X, y)
    best = frozenset(r.text for r in model.rules_)
    threshold = model.result_.evaluation.value - 5.0 * len(y) / 100
    assert 0 < len(model.alternatives_) <= 3
    sets = {frozenset(a["rules"]) for a in model.alternatives_}
    assert len(sets) == len(model.alternatives_) and best not in sets
    for alt in model.alternatives_:
        assert alt["method"].startswith("exact")
        assert alt["complexity"] <= 5 and alt["errors"] <= 3 and alt["objective"] >= threshold - 1e-9
    assert RuleSetExplainer(**kwargs).fit(X, y).alternatives_ == []
    with pytest.raises(ValueError, match="exact .* or the qga"):
        RuleSetExplainer(**{**kwargs, "algorithm": "greedy"}, n_alternatives=2).fit(X, y)
    with pytest.raises(ValueError):
        RuleSetExplainer(**kwargs, n_alternatives=-1).fit(X, y)
