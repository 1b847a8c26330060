"""Columns kept out of the rules: the pool is built without them, the table keeps them."""

import json
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import balanced_accuracy_score

from explainer.bench.census import census_like
from explainer.data import load_dataset, sample_datasets
from explainer.data.encoder import TableEncoder
from explainer.report import accuracy_by_group
from explainer.rules import parse_rules
from explainer.rules.forbid import rule_columns
from explainer.rules.pool import build_pool


@pytest.fixture(scope="module")
def census():
    """A census-like table (held back from every other test), encoded as the estimator encodes it."""
    df = census_like(1500, seed=7)
    y = df.pop("income").to_numpy()
    enc = TableEncoder(detect_identifiers=False)
    X = enc.fit_transform(df)
    return df, X, y, enc.feature_specs_


def _columns(rules) -> Counter:
    return Counter(c for r in rules for c in rule_columns(r))


def _used_columns(pool) -> Counter:
    """The columns the pool's rules read, counted by the features they test (not by the rule text)."""
    by_feature = {s.name: s.column for s in pool.feature_specs}
    out = Counter()
    for rule in pool.rules:
        for cond in rule.conditions:
            features = (cond.features or (cond.numeric,)) if hasattr(cond, "features") else (cond.feature,)
            out.update({by_feature[f] for f in features if f is not None})
    return out


@pytest.mark.parametrize("source", ["grid", "forest"])
def test_forbidden_column_in_no_pool_rule(census, source):
    _, X, y, specs = census
    kw = dict(feature_specs=specs, source=source, n_estimators=15, grow=True, phrase_length=True, random_state=3)
    free = build_pool(X, y, 4, **kw)
    # the column the unforbidden pool leans on most, and the sensitive one
    top = _used_columns(free).most_common(1)[0][0]
    assert top != "sex" and (_used_columns(free)["sex"] > 0 or source == "forest")  # the grid splits on it
    pool = build_pool(X, y, 4, forbidden_columns=[top, "sex"], **kw)
    used = _used_columns(pool)
    assert used[top] == 0 and used["sex"] == 0 and sum(used.values()) > 0
    assert _columns(pool.rules)[top] == 0 and _columns(pool.rules)["sex"] == 0
    assert pool.forbidden_columns == (top, "sex")
    # the reference tree is one of the pool's own trees: none of its rules reads them either
    best = pool.best_tree()
    assert not _columns(pool.rule_set(best.tree.rule_ids))[top]


def test_trees_learn_without_the_column_not_filtered_after(census):
    """Every tree of the forbidden pool equals a tree fitted on the table without the column's features."""
    _, X, y, specs = census
    keep = [s for s in specs if s.column != "marital_status"]
    dropped = build_pool(X[[s.name for s in keep]], y, 4, feature_specs=keep, random_state=5)
    pool = build_pool(X, y, 4, feature_specs=specs, forbidden_columns=["marital_status"], random_state=5)
    assert [r.text for r in pool.rules] == [r.text for r in dropped.rules]
    assert [(t.complexity, t.errors) for t in pool.trees] == [(t.complexity, t.errors) for t in dropped.trees]


def test_forbidden_names_are_checked(census):
    _, X, y, specs = census
    with pytest.raises(ValueError, match="'salary' is not a column"):
        build_pool(X, y, 3, feature_specs=specs, forbidden_columns=["salary"])
    with pytest.raises(ValueError, match="every column"):
        build_pool(X, y, 3, feature_specs=specs, forbidden_columns=sorted({s.column for s in specs}))
    # one name as a string is that name
    assert build_pool(X, y, 3, feature_specs=specs, forbidden_columns="sex").forbidden_columns == ("sex",)
    assert build_pool(X, y, 3, feature_specs=specs).forbidden_columns == ()


def test_extra_rules_naming_a_forbidden_column_are_left_out(census):
    _, X, y, specs = census
    extra = parse_rules('IF sex = sex_0 AND age > 40 THEN CLASS=">50K"\nIF age > 60 THEN CLASS="<=50K"\n')
    pool = build_pool(X, y, 3, feature_specs=specs, extra_rules=extra, forbidden_columns=["sex"])
    plain = build_pool(X, y, 3, feature_specs=specs, forbidden_columns=["sex"])
    assert pool.n_candidate_rules == plain.n_candidate_rules + 1  # the rule on age only
    assert 'IF age > 60 THEN CLASS="<=50K"' in [r.text for r in pool.rules]
    assert not _columns(pool.rules)["sex"]
    assert pool.settings["n_extra_rules_forbidden"] == 1


def test_forbidden_on_a_bundled_sample():
    ds = load_dataset(sample_datasets()["loans"], target="decision")
    free = build_pool(ds.X, ds.y, 4, feature_specs=ds.feature_specs, classes=ds.classes, grow=True)
    top = _used_columns(free).most_common(1)[0][0]
    pool = build_pool(ds.X, ds.y, 4, feature_specs=ds.feature_specs, classes=ds.classes, grow=True,
                      forbidden_columns=[top])
    assert _used_columns(pool)[top] == 0 and pool.n_rules > 0
    assert top in ds.X.columns or any(s.column == top for s in ds.feature_specs)  # still in the table


# ---------------------------------------------------------------- accuracy by group


@pytest.fixture(scope="module")
def fitted_census():
    from explainer.estimator import RuleSetExplainer

    df = census_like(1200, seed=11)
    y = df.pop("income")
    clf = RuleSetExplainer(max_depth=4, random_state=0, forbidden_columns=["sex"]).fit(df, y)
    return clf, df, y


def _by_hand(clf, df, y, groups) -> pd.DataFrame:
    """The same numbers from predict and the rules' coverage, grouped by pandas."""
    covered = clf.rules_.coverage_matrix(clf.encoder_.transform(df)).any(axis=1)
    frame = pd.DataFrame({"g": groups, "right": clf.predict(df) == y.to_numpy(), "covered": covered,
                          "y": y.to_numpy(), "pred": clf.predict(df)})
    out = frame.groupby("g", dropna=False).agg(rows=("right", "size"), right=("right", "sum"),
                                               covered=("covered", "sum"))
    out["balanced"] = [balanced_accuracy_score(part["y"], part["pred"]) for _, part in frame.groupby("g", dropna=False)]
    return out


def test_forbidden_column_keeps_its_rows_and_its_groups(fitted_census):
    clf, df, y = fitted_census
    assert clf.forbidden_columns_ == ("sex",)
    assert not any("sex" in rule_columns(r) for r in clf.pool_.rules)
    assert not any("sex" in rule_columns(r) for r in clf.rules_)
    table = accuracy_by_group(clf.report_, df["sex"], "sex")
    hand = _by_hand(clf, df, y, df["sex"])
    got = table.frame.set_index("group")
    assert sorted(got.index) == sorted(hand.index) == ["sex_0", "sex_1"]
    for g in hand.index:
        assert got.loc[g, "rows"] == hand.loc[g, "rows"]
        assert got.loc[g, "right"] == hand.loc[g, "right"]
        assert got.loc[g, "covered"] == hand.loc[g, "covered"]
        assert got.loc[g, "accuracy"] == pytest.approx(hand.loc[g, "right"] / hand.loc[g, "rows"])
        assert got.loc[g, "balanced_accuracy"] == pytest.approx(hand.loc[g, "balanced"])
    assert got["rows"].sum() == len(df)


def test_a_category_written_missing_is_not_the_group_of_missing_values(fitted_census):
    clf, df, y = fitted_census
    words = pd.Series(np.where(np.arange(len(df)) % 3 == 0, "missing", "present"), dtype=object)
    words.iloc[:10] = None
    got = accuracy_by_group(clf.report_, words, "words").frame.set_index("group")["rows"]
    assert got.to_dict() == {"missing": int((words == "missing").sum()), "present": int((words == "present").sum()),
                             "(missing)": 10}


def test_groups_of_a_numeric_column_are_ranges_of_its_values(fitted_census):
    clf, df, y = fitted_census
    ages = df["age"].astype(float).copy()
    ages.iloc[:25] = np.nan  # a missing value is a group of its own
    table = accuracy_by_group(clf.report_, ages, "age")
    groups = list(table.frame["group"])
    assert table.binned and groups[-1] == "(missing)" and 2 <= len(groups) - 1 <= 8
    # each range names the smallest and largest age it holds; the ranges cover every row once
    bounds = [tuple(float(v) for v in g.split(" to ")) for g in groups[:-1]]
    labels = np.full(len(ages), "(missing)", dtype=object)
    for g, (lo, *hi) in zip(groups[:-1], bounds, strict=True):
        inside = (ages >= lo) & (ages <= (hi[0] if hi else lo))
        assert not (labels[inside.to_numpy()] != "(missing)").any()  # no row in two ranges
        labels[inside.to_numpy()] = g
        assert ages[inside].min() == lo and ages[inside].max() == (hi[0] if hi else lo)
    hand = _by_hand(clf, df, y, labels)
    got = table.frame.set_index("group")
    for g in groups:
        assert (got.loc[g, "rows"], got.loc[g, "right"], got.loc[g, "covered"]) == tuple(
            hand.loc[g, ["rows", "right", "covered"]])
    # a column of few numbers keeps its values as groups; a mostly-zero column still gets more than one range
    few = accuracy_by_group(clf.report_, df["education_num"] % 3, "edu")
    assert not few.binned and list(few.frame["group"]) == ["0", "1", "2"]
    gain = accuracy_by_group(clf.report_, df["capital_gain"], "capital_gain")
    assert gain.binned and gain.frame["group"].iloc[0] == "0" and len(gain.frame) >= 2


def test_held_out_rows_are_cut_into_the_training_ranges(fitted_census):
    from explainer.report import evaluate_rules

    clf, df, y = fitted_census
    train = accuracy_by_group(clf.report_, df["age"], "age")
    held_df = census_like(300, seed=99)
    held_y = held_df.pop("income")
    held = evaluate_rules(clf.rules_, clf.encoder_.transform(held_df), held_y.to_numpy(),
                          feature_specs=clf.encoder_.feature_specs_)
    table = accuracy_by_group(held, held_df["age"], "age", like=train)
    assert set(table.frame["group"]) <= set(train.frame["group"]) and table.frame["rows"].sum() == 300
    # a held-out age lands in the training range that holds it (beyond them: the first or the last)
    names = list(train.frame["group"])
    highs = [float(g.split(" to ")[-1]) for g in names]
    expected = [names[min(int(np.searchsorted(highs, a, side="left")), len(names) - 1)] for a in held_df["age"]]
    counts = Counter(expected)
    assert dict(zip(table.frame["group"], table.frame["rows"], strict=True)) == dict(counts)


def test_by_group_checks_its_rows(fitted_census):
    clf, df, _ = fitted_census
    with pytest.raises(ValueError, match="one value of the column per row"):
        accuracy_by_group(clf.report_, df["sex"].iloc[:-1], "sex")
    assert accuracy_by_group(clf, df["sex"]).column == "sex"  # the name of a Series, the report of an estimator


def test_estimator_checks_forbidden_columns_before_any_work(monkeypatch):
    from explainer import estimator
    from explainer.estimator import RuleSetExplainer

    df = census_like(200, seed=2)
    y = df.pop("income")
    monkeypatch.setattr(estimator, "build_pool", lambda *a, **k: pytest.fail("the pool was built"))
    with pytest.raises(ValueError, match="'salary', which is not a column of X"):
        RuleSetExplainer(forbidden_columns=["salary"]).fit(df, y)
    with pytest.raises(ValueError, match="forbidden_columns"):
        RuleSetExplainer(forbidden_columns="sex").fit(df, y)  # a list of names, not one string
    with pytest.raises(ValueError, match="every column"):
        RuleSetExplainer(forbidden_columns=list(df.columns)).fit(df, y)
    with pytest.raises(ValueError, match="'x9', which is not a column"):
        RuleSetExplainer(forbidden_columns=["x9"]).fit(np.zeros((10, 3)), np.arange(10) % 2)


def test_estimator_forbids_array_columns_by_their_names():
    from explainer.estimator import RuleSetExplainer

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] > 0).astype(int)  # x0 decides everything
    clf = RuleSetExplainer(max_depth=3, random_state=0, forbidden_columns=["x0"]).fit(X, y)
    assert clf.forbidden_columns_ == ("x0",)
    assert all("x0" not in rule_columns(r) for r in clf.pool_.rules) and clf.pool_.n_rules > 0
    free = RuleSetExplainer(max_depth=3, random_state=0).fit(X, y)
    assert any("x0" in rule_columns(r) for r in free.rules_) and free.forbidden_columns_ == ()


# ---------------------------------------------------------------- command line


def _cli(args, capsys):
    from explainer.cli import main

    status = main(args)
    out = capsys.readouterr()
    return status, out.out, out.err


def test_cli_forbid_round_trip(capsys, tmp_path):
    loans = str(sample_datasets()["loans"])
    base = ["explain", loans, "--target", "decision", "--depth", "4", "--algorithm", "greedy", "--quiet"]
    status, out, _ = _cli([*base, "--json", "--forbid", "credit_score", "--forbid", "home", "--group-by", "home"],
                          capsys)
    assert status == 0
    d = json.loads(out)
    assert d["forbidden_columns"] == ["credit_score", "home"]
    assert d["settings"]["pool"]["forbidden_columns"] == ["credit_score", "home"]
    assert not any({"credit_score", "home"} & set(rule_columns(r)) for r in parse_rules(d["rules_text"]))
    groups = d["accuracy_by_group"]
    assert groups["column"] == "home" and sum(g["rows"] for g in groups["groups"]) == d["n_rows"]
    # the groups' right rows add up to the report's accuracy
    assert sum(g["right"] for g in groups["groups"]) == round(d["accuracy"] * d["n_rows"])
    # every export written says which columns the rules were kept from
    for suffix, comment in ((".txt", "# "), (".csv", "# "), (".sql", "-- "), (".py", "# ")):
        path = tmp_path / f"rules{suffix}"
        assert _cli([*base, "--forbid", "credit_score", "--forbid", "home", "--out", str(path)], capsys)[0] == 0
        assert f"{comment}forbidden columns: credit_score, home\n" in path.read_text()
    path = tmp_path / "rules.json"
    assert _cli([*base, "--forbid", "home", "--out", str(path)], capsys)[0] == 0
    assert json.loads(path.read_text())["forbidden_columns"] == ["home"]
    for name in ("free.txt", "free.json"):
        path = tmp_path / name
        assert _cli([*base, "--out", str(path)], capsys)[0] == 0
        text = path.read_text()
        assert "forbidden" not in (text if name.endswith(".txt") else str(list(json.loads(text))))


def test_cli_forbid_errors(capsys):
    loans = str(sample_datasets()["loans"])
    base = ["explain", loans, "--target", "decision", "--depth", "3", "--algorithm", "greedy", "--quiet"]
    status, out, err = _cli([*base, "--forbid", "salary"], capsys)
    assert status == 2 and out == "" and "error: forbidden column 'salary' is not a column of the table" in err
    assert "Traceback" not in err
    status, _, err = _cli([*base, "--forbid", "decision"], capsys)
    assert status == 2 and "target column" in err
    status, _, err = _cli([*base, "--group-by", "salary"], capsys)
    assert status == 2 and "--group-by salary: not a column" in err
    status, out, _ = _cli(["frontier", loans, "--target", "decision", "--depth", "3", "--forbid", "credit_score",
                           "--complexity-range", "1:2", "--json"], capsys)
    assert status == 0 and json.loads(out)["forbidden_columns"] == ["credit_score"]
    assert all("credit_score" not in rule_columns(r) for p in json.loads(out)["points"]
               for r in parse_rules(p["rules_text"]))


def test_cli_says_which_extra_rules_it_left_out(capsys, tmp_path):
    loans = str(sample_datasets()["loans"])
    rules = tmp_path / "extra.txt"
    rules.write_text("IF home = rent AND age > 30 THEN CLASS=reject\nIF age > 60 THEN CLASS=approve\n")
    status, out, err = _cli(["explain", loans, "--target", "decision", "--depth", "3", "--algorithm", "greedy",
                             "--quiet", "--json", "--forbid", "home", "--extra-rules", str(rules)], capsys)
    assert status == 0 and "note: 1 of the extra rules name a forbidden column" in err
    assert json.loads(out)["settings"]["pool"]["n_extra_rules_forbidden"] == 1
