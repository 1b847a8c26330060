"""The default pool: its settings, and that it holds a hand-checkable peer's coverage on Iris."""

import numpy as np
import pandas as pd
import pytest

from explainer.cli import main
from explainer.data import load_dataset, sample_datasets
from explainer.data.defaults import default_load_settings
from explainer.estimator import RuleSetExplainer
from explainer.report import evaluate_rules
from explainer.rules import parse_rules, rules_for_data
from explainer.rules.defaults import default_pool_settings
from explainer.rules.pool import build_pool
from explainer.selection.problem import SelectionProblem
from explainer.selection.solvers import solve


def _table(n_rows):
    return pd.DataFrame({"a": np.arange(n_rows, dtype=float)})


def test_defaults_are_the_readme_values_and_take_overrides():
    # docs/method.md#default-pool: depth 8, the grid trained once
    # and trees that learn from at most 20,000 rows
    assert default_pool_settings() == {"max_depth": 8, "n_repeats": 1, "source": "grid", "phrase_length": True,
                                       "grow": True, "max_fit_rows": 20000}
    assert default_pool_settings(max_depth=3, n_repeats=1) == {"max_depth": 3, "n_repeats": 1, "source": "grid",
                                                                 "phrase_length": True, "grow": True,
                                                                 "max_fit_rows": 20000}
    # a forest's repeats multiply its trees: trained once unless asked
    assert default_pool_settings(source="forest") == {"max_depth": 8, "n_repeats": 1, "source": "forest",
                                                      "phrase_length": True, "grow": True, "max_fit_rows": 20000}
    assert default_pool_settings(source="forest", n_repeats=2)["n_repeats"] == 2


def test_default_reading_offers_values_of_small_integer_codes():
    df = pd.DataFrame({
        "code": [1, 2, 3, 4, 5, 1, 2, 3] * 3,  # 5 integer values: a code, read both ways
        "flag": [0, 1] * 12,  # two values: one threshold already says '= v'
        "size": np.linspace(0.5, 9.5, 24),  # not integers
        "y": ["a", "b", "c"] * 8,
    })
    assert default_load_settings() == {"ordinal_as_categorical": True}
    ds = load_dataset(df, target="y", **default_load_settings())
    code = [s for s in ds.feature_specs if s.column == "code"]
    assert [(s.kind, s.value) for s in code] == [("numeric", None)] + [("onehot", v) for v in range(1, 6)]
    assert [s.kind for s in ds.feature_specs if s.column in ("flag", "size")] == ["numeric", "numeric"]
    # 'code = 3' is one condition; with thresholds alone it takes two
    rows = np.flatnonzero(ds.X[[s.name for s in code if s.value == 3][0]].to_numpy() == 1)
    assert rows.tolist() == np.flatnonzero(df["code"].to_numpy() == 3).tolist()


# A depth-3 CART tree on Iris written out by hand (scikit-learn's bundled copy, 150 rows).
IRIS_TREE = """\
IF petal_length <= 2.45 THEN CLASS=setosa
IF petal_length > 2.45 AND petal_width <= 1.75 AND petal_length <= 4.95 THEN CLASS=versicolor
IF petal_width <= 1.75 AND petal_length > 4.95 AND petal_width <= 1.55 THEN CLASS=virginica
IF petal_width <= 1.75 AND petal_length > 4.95 AND petal_width > 1.55 THEN CLASS=versicolor
IF petal_width > 1.75 AND petal_length > 4.85 THEN CLASS=virginica
IF petal_width > 1.75 AND petal_length <= 4.85 AND sepal_width > 3.1 THEN CLASS=versicolor
IF petal_width > 1.75 AND petal_length <= 4.85 AND sepal_width <= 3.1 THEN CLASS=virginica
"""


def test_default_pool_reaches_a_peer_tree_on_iris():
    ds = load_dataset(sample_datasets()["iris"], target="class")
    X, y = ds.X, np.asarray(ds.y).astype(str)
    pl, pw, sw = X["petal_length"], X["petal_width"], X["sepal_width"]
    # the rows each rule covers, counted with pandas, independently of the rule machinery
    masks = [
        (pl <= 2.45, "setosa"),
        ((pl > 2.45) & (pw <= 1.75) & (pl <= 4.95), "versicolor"),
        ((pw <= 1.75) & (pl > 4.95) & (pw <= 1.55), "virginica"),
        ((pw <= 1.75) & (pl > 4.95) & (pw > 1.55), "versicolor"),
        ((pw > 1.75) & (pl > 4.85), "virginica"),
        ((pw > 1.75) & (pl <= 4.85) & (sw > 3.1), "versicolor"),
        ((pw > 1.75) & (pl <= 4.85) & (sw <= 3.1), "virginica"),
    ]
    hand_errors = sum(int(((y != label) & m.to_numpy()).sum()) for m, label in masks)
    fired = sum(m.to_numpy().astype(int) for m, _ in masks)
    assert hand_errors == 2
    assert np.all(fired == 1)  # a partition: every row covered once, so no conflict and f* = 150

    rules = rules_for_data(parse_rules(IRIS_TREE), ds.feature_names, ds.classes)
    peer = evaluate_rules(rules, ds.X, ds.y, eps=1.0)
    assert (peer.complexity, peer.errors, peer.coverage) == (1 + 3 + 3 + 3 + 2 + 3 + 3, hand_errors, 150)

    def best_coverage(settings):
        pool = build_pool(ds.X, ds.y, random_state=0, classes=ds.classes, **settings)
        result = solve(SelectionProblem.from_pool(pool, peer.complexity, peer.errors, eps=1.0), "exact", time_limit=60)
        assert result.info["optimal"]
        return result.coverage

    assert best_coverage(default_pool_settings()) >= peer.coverage
    # the paper's Iris pool (trees of depth 1..2) has too few accurate rules for these budgets
    assert best_coverage({"max_depth": 3, "n_repeats": 1, "source": "grid"}) < peer.coverage


@pytest.mark.slow
def test_cli_and_estimator_use_the_defaults(capsys):
    import json

    iris = str(sample_datasets()["iris"])
    assert main(["rules", iris, "--json"]) == 0
    settings = json.loads(capsys.readouterr().out)["settings"]
    assert (settings["max_depth"], settings["n_repeats"], settings["source"]) == (8, 1, "grid")
    assert main(["rules", iris, "--depth", "4", "--repeats", "2", "--json"]) == 0
    settings = json.loads(capsys.readouterr().out)["settings"]
    assert (settings["max_depth"], settings["n_repeats"]) == (4, 2)

    ds = load_dataset(iris, target="class")
    clf = RuleSetExplainer(complexity_budget=4, error_budget=5, algorithm="greedy", random_state=0)
    clf.fit(ds.X, ds.y)
    assert clf.pool_.settings["max_depth"] == 8 and clf.pool_.settings["n_repeats"] == 1
