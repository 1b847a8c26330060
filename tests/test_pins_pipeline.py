"""Pinned and banned rules through the command line, the estimator and the exports: rule texts read against
the data, a pinned rule the pool lacks joins it, and every export's header names them."""

import json

import numpy as np
import pytest

from explainer.cli import main
from explainer.data import load_paper_dataset, sample_datasets
from explainer.estimator import RuleSetExplainer
from explainer.report.exports import export_text
from explainer.rules import build_pool
from explainer.rules.pinned import resolve_rules
from explainer.selection.settings import RunSettings

# a rule the default pool of iris does not hold, and one it does
NEW = "IF sepal_length > 7 THEN CLASS=virginica"
BANNED = "IF petal_width > 1.8 THEN CLASS=virginica"
PIN_IRIS = NEW.replace("virginica", "Iris-virginica")  # the estimator reads the labels as they are
BAN_IRIS = "IF petal_width > 1.85 THEN CLASS=Iris-virginica"  # in the estimator's pool and its selection


@pytest.fixture
def iris_csv():
    return str(sample_datasets()["iris"])


def run_json(argv, capsys):
    assert main(argv + ["--quiet", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_pin_and_ban_round_trip(iris_csv, tmp_path, capsys):
    out = tmp_path / "rules.txt"
    free = run_json(["explain", iris_csv, "--algorithm", "greedy"], capsys)
    free_rules = [r["text"] for r in free["rules"]]
    assert NEW not in free_rules and BANNED in free_rules  # else the run below would show nothing
    d = run_json(["explain", iris_csv, "--algorithm", "greedy", "--pin", NEW, "--ban", BANNED,
                  "--out", str(out)], capsys)
    rules = [r["text"] for r in d["rules"]]
    assert NEW in rules and BANNED not in rules
    assert d["settings"]["pinned"] == [NEW] and d["settings"]["banned"] == [BANNED]
    assert d["pool_rules"] == free["pool_rules"] + 1  # the pinned rule joined the pool
    head = [line for line in out.read_text().splitlines() if line.startswith("#")]
    assert f"# pinned: {NEW}" in head and f"# banned: {BANNED}" in head
    # the written rules read back as the same selection
    body = [line for line in out.read_text().splitlines() if line.startswith("IF")]
    assert body == rules


def test_cli_pins_hold_for_the_exact_solver_too(iris_csv, capsys):
    d = run_json(["explain", iris_csv, "--algorithm", "exact", "--complexity", "4", "--pin", NEW], capsys)
    assert NEW in [r["text"] for r in d["rules"]] and d["complexity"] <= 4


@pytest.mark.parametrize("argv, phrase", [
    (["--pin", "IF nonsense > 1 THEN CLASS=virginica"], "no feature 'nonsense'"),
    (["--ban", "IF petal_length > THEN"], "no class after THEN"),
    (["--pin", "IF petal_length > 1 THEN CLASS=rose"], "not a class of the data"),
    (["--pin", NEW, "--ban", NEW], "both pinned and banned"),
    (["--complexity", "1", "--pin", "IF 2.45 < petal_length <= 4.95 THEN CLASS=versicolor"],
     "exceed the complexity budget: complexity 2 > 1 (over by 1)"),
])
def test_cli_bad_pins_are_one_clear_line(iris_csv, argv, phrase, capsys):
    assert main(["explain", iris_csv, "--algorithm", "greedy", "--quiet", *argv]) == 2
    err = capsys.readouterr().err
    assert phrase in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_every_export_states_the_pins():
    ds = load_paper_dataset("iris")
    model = RuleSetExplainer(algorithm="greedy", random_state=0, pinned_rules=[PIN_IRIS],
                             banned_rules=[BAN_IRIS, "IF sepal_width > 99 THEN CLASS=Iris-setosa"]).fit(ds.X, ds.y)
    report = model.report_
    pinned, banned = PIN_IRIS, BAN_IRIS
    for kind, mark in (("text", "# "), ("csv", "# "), ("python", "# "), ("sql", "-- ")):
        text = export_text(report, kind)
        assert f"{mark}pinned: {pinned}\n" in text and f"{mark}banned: {banned}\n" in text, kind
        assert "banned: IF sepal_width > 99 THEN CLASS=Iris-setosa\n" in text  # banned, though in no pool
    settings = json.loads(export_text(report, "json"))["settings"]
    assert settings["pinned"] == [pinned] and settings["banned"][0] == banned


def test_estimator_pinned_rule_not_in_pool_joins_it():
    ds = load_paper_dataset("iris")
    pin, ban = PIN_IRIS, BAN_IRIS
    free = RuleSetExplainer(algorithm="greedy", random_state=0).fit(ds.X, ds.y)
    assert pin not in [r.text for r in free.pool_.rules] and ban in [r.text for r in free.rules_]
    model = RuleSetExplainer(algorithm="greedy", random_state=0, pinned_rules=[pin], banned_rules=[ban])
    model.fit(ds.X, ds.y)
    texts = [r.text for r in model.rules_]
    assert pin in texts and ban not in texts
    assert model.pool_.n_rules == free.pool_.n_rules + 1 and model.pool_.rules[-1].text == pin
    assert model.result_.selection.shape == (model.pool_.n_rules,)
    # the joined rule's rows are the rows the rule's condition holds on, counted here by hand
    rows = np.flatnonzero(model.pool_.coverage[:, -1].toarray().ravel())
    assert rows.tolist() == np.flatnonzero(ds.X["sepal_length"].to_numpy() > 7).tolist()
    # predictions come from the rules: the pinned rule fires on its rows
    assert (model.predict(ds.X.iloc[rows]) == "Iris-virginica").all()


@pytest.mark.parametrize("params, phrase", [
    ({"pinned_rules": ["IF foo > 1 THEN CLASS=Iris-setosa"]}, "no feature 'foo'"),
    ({"pinned_rules": ["IF petal_width <= 0.8 THEN CLASS=Iris-setosa"],
      "banned_rules": ["IF petal_width <= 0.8 THEN CLASS=Iris-setosa"]}, "both pinned and banned"),
    ({"pinned_rules": [3]}, "list of rule texts"),
    ({"pinned_rules": "IF petal_width <= 0.8 THEN CLASS=Iris-setosa"}, "pinned_rules"),
    ({"complexity_budget": 1, "error_budget": 5,
      "pinned_rules": ["IF 2.45 < petal_length <= 4.95 THEN CLASS=Iris-versicolor"]}, "complexity budget"),
])
def test_estimator_bad_pins_raise(params, phrase):
    ds = load_paper_dataset("iris")
    with pytest.raises(ValueError, match=phrase):
        RuleSetExplainer(algorithm="greedy", **params).fit(ds.X, ds.y)


def test_resolve_rules_finds_a_rule_by_any_spelling():
    ds = load_paper_dataset("iris")
    pool = build_pool(ds.X, ds.y, 3, classes=ds.classes, feature_specs=ds.feature_specs)
    i = 3
    spelled = pool.rules[i].text.replace(" THEN CLASS=", "  THEN  CLASS = ")
    same, pinned, banned = resolve_rules(pool, ds.X, [spelled], [pool.rules[i + 1].text, "IF petal_width > 99 THEN "
                                                                  f"CLASS={ds.classes[0]}"])
    assert same is pool and pinned.tolist() == [i] and banned.tolist() == [i + 1]


def test_run_settings_hold_rule_texts():
    s = RunSettings(pinned=["IF a > 1 THEN CLASS=x", "IF a > 1 THEN CLASS=x"], banned=("IF b > 1 THEN CLASS=y",))
    assert s.pinned == ("IF a > 1 THEN CLASS=x",) and s.banned == ("IF b > 1 THEN CLASS=y",)
    hash(s)
    with pytest.raises(ValueError, match="sequence of rule texts"):
        RunSettings(pinned="IF a > 1 THEN CLASS=x")
    with pytest.raises(ValueError, match="both pinned and banned"):
        RunSettings(pinned=["IF a > 1 THEN CLASS=x"], banned=["IF a > 1 THEN CLASS=x"])


# complexity 4 (an interval counts 2), wrong on some rows: over the compact default's complexity budget
LONG_PIN = "IF 2.45 < petal_length <= 5.35 AND sepal_width <= 3.1 AND petal_width > 1 THEN CLASS=Iris-versicolor"


def _pin_cost(text):
    """(conditions, wrong rows) of a rule on iris, counted by hand from the table."""
    ds = load_paper_dataset("iris")
    X = ds.X
    covers = ((X["petal_length"] > 2.45) & (X["petal_length"] <= 5.35) & (X["sepal_width"] <= 3.1)
              & (X["petal_width"] > 1)).to_numpy()
    return 2 + 1 + 1, int(np.count_nonzero(covers & (np.asarray(ds.y) != "Iris-versicolor")))  # an interval counts 2


def test_default_budgets_make_room_for_the_pins():
    # budgets nobody set must not turn a pin into an error: each grows by what the pins take
    ds = load_paper_dataset("iris")
    free = RuleSetExplainer(random_state=0, size="compact").fit(ds.X, ds.y)
    bc, be = free.report_.settings["complexity_budget"], free.report_.settings["error_budget"]
    length, wrong = _pin_cost(LONG_PIN)
    assert length > bc and wrong > 0  # else this shows nothing
    pinned = RuleSetExplainer(random_state=0, size="compact", pinned_rules=[LONG_PIN]).fit(ds.X, ds.y)
    settings = pinned.report_.settings
    assert (settings["complexity_budget"], settings["error_budget"]) == (bc + length, be + wrong)
    texts = [r.text for r in pinned.rules_]
    assert LONG_PIN in texts and pinned.report_.complexity <= bc + length
    # a budget the user gave is kept as given: the pin that exceeds it is the user's error to see
    with pytest.raises(ValueError, match="exceed the complexity budget"):
        RuleSetExplainer(random_state=0, complexity_budget=bc, pinned_rules=[LONG_PIN]).fit(ds.X, ds.y)
    given_errors = RuleSetExplainer(random_state=0, size="compact", error_budget=be + wrong,
                                    pinned_rules=[LONG_PIN]).fit(ds.X, ds.y)
    assert given_errors.report_.settings["error_budget"] == be + wrong


def test_cli_default_budgets_make_room_for_the_pins(capsys):
    path = str(sample_datasets()["iris"])
    pin = LONG_PIN.replace("Iris-versicolor", "versicolor")
    free = run_json(["explain", path, "--size", "compact"], capsys)
    d = run_json(["explain", path, "--size", "compact", "--pin", pin], capsys)
    length, wrong = _pin_cost(LONG_PIN)
    assert d["settings"]["complexity_budget"] == free["settings"]["complexity_budget"] + length
    assert d["settings"]["error_budget"] == free["settings"]["error_budget"] + wrong
    assert pin in [r["text"] for r in d["rules"]]
