"""Rule model: text form, parsing, merging, short thresholds."""

import numpy as np
import pandas as pd
import pytest

from explainer.rules import (
    Condition,
    Rule,
    RuleSet,
    RuleSyntaxError,
    ValueSet,
    coverage_columns,
    format_number,
    merge_conditions,
    parse_rule,
    parse_rules,
    resolve_features,
    shorten_threshold,
)


def test_renders_the_paper_form():
    rule = Rule((Condition("petal_length", "<=", 2.45), Condition("petal_width", ">", 0.8)), "Iris-versicolor")
    assert rule.text == "IF petal_length <= 2.45 AND petal_width > 0.8 THEN CLASS=Iris-versicolor"
    assert rule.length == 2
    assert RuleSet([rule]).to_text() == rule.text + "\n"


def test_parse_round_trip_and_labels():
    line = "IF OD280/OD315 of diluted wines <= 3.73 AND Color intensity > -3.5e-05 THEN CLASS=2"
    rule = parse_rule(line, labels=[1, 2, 3])
    assert rule.label == 2 and isinstance(rule.label, int)
    assert rule.conditions[0] == Condition("OD280/OD315 of diluted wines", "<=", 3.73)
    assert rule.conditions[1].threshold == -3.5e-05
    assert parse_rule(rule.text, labels=[1, 2, 3]) == rule


def test_parse_wrapped_lines_comments_and_errors():
    text = """# a comment
IF a <= 1 AND b > 2
THEN CLASS=x

IF c > 0.5 THEN CLASS=y
"""
    rules = parse_rules(text)
    assert [r.text for r in rules] == ["IF a <= 1 AND b > 2 THEN CLASS=x", "IF c > 0.5 THEN CLASS=y"]
    with pytest.raises(RuleSyntaxError, match="line 1"):
        parse_rules("WHEN a < 1 THEN x")
    with pytest.raises(RuleSyntaxError, match="not a class"):
        parse_rules("IF a <= 1 THEN CLASS=z", labels=["x", "y"])
    with pytest.raises(RuleSyntaxError, match="no class"):
        parse_rules("IF a <= 1 THEN CLASS=")


def test_onehot_and_equality_resolution():
    # names only (no specs): "Margin = 5" still finds the one-hot column named "Margin=5"
    names = ["Margin=5", "Margin=?", "Age", "petal width"]
    rules = parse_rules("IF Margin = 5 AND age > 40 AND Petal_Width <= 1 THEN CLASS=1\nIF Margin=5 > 0.5 THEN CLASS=0")
    out = resolve_features(rules, names)
    assert [(c.feature, c.op, c.threshold) for c in out[0].conditions] == [
        ("Margin=5", ">", 0.5), ("Age", ">", 40.0), ("petal width", "<=", 1.0)]
    assert out[1].conditions == (Condition("Margin=5", ">", 0.5),)
    # a name holding "=" is quoted when nothing says it is a category
    assert out[1].text == 'IF "Margin=5" > 0.5 THEN CLASS=0'
    with pytest.raises(KeyError, match="colour"):
        resolve_features(parse_rules("IF colour > 1 THEN CLASS=1"), names)


def test_merge_keeps_tightest_and_order():
    conds = [Condition("x", "<=", 3), Condition("y", ">", 1), Condition("x", "<=", 2), Condition("y", ">", 4),
             Condition("x", ">", 0)]
    merged = merge_conditions(conds)
    assert [c.text for c in merged] == ["x <= 2", "y > 4", "x > 0"]


def test_missing_values_fail_every_condition():
    X = pd.DataFrame({"a": [1.0, np.nan, 3.0]})
    assert Rule((Condition("a", "<=", 5),), "k").covers(X).tolist() == [True, False, True]
    assert Rule((Condition("a", ">", 0),), "k").covers(X).tolist() == [True, False, True]


def test_short_thresholds_never_move_a_row():
    rng = np.random.default_rng(0)
    values = np.unique(np.round(rng.normal(size=300), 4))
    for _ in range(300):
        t = float(rng.uniform(values.min() - 1, values.max() + 1))
        s = shorten_threshold(t, values)
        assert np.array_equal(values <= s, values <= t)
        assert len(format_number(s)) <= len(repr(t))
    # a float32 midpoint prints as the tree prints it
    assert shorten_threshold(2.450000047683716, np.array([1.9, 3.0])) == 2.45
    assert format_number(1125.0) == "1125"
    assert format_number(-0.5) == "-0.5"


def test_parsed_rule_set_binds_labels():
    rs = RuleSet(parse_rules("IF a <= 1 THEN CLASS=2\n", labels=[1, 2]))
    assert len(rs) == 1 and rs[0].label == 2 and rs.complexity == 1


@pytest.mark.parametrize("cache_bytes", [None, 1])
def test_coverage_columns_is_each_rules_own_coverage(monkeypatch, cache_bytes):
    import explainer.rules.model as model
    from explainer.rules.model import rule_masks

    if cache_bytes is not None:  # a cache of one mask: every other condition is evaluated afresh
        monkeypatch.setattr(model, "MASK_CACHE_BYTES", cache_bytes)
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"a": rng.integers(0, 5, 200).astype(float), "b": rng.normal(size=200)})
    X.loc[rng.choice(200, 20, replace=False), "b"] = np.nan
    shared = Condition("a", "<=", 2)
    rules = [Rule((shared, Condition("b", ">", t)), "yes") for t in (-1.0, 0.0, 1.0)]
    rules += [Rule((Condition("b", "<=", 0.5), shared), "no"), Rule((ValueSet("a", (1.0, 4.0), numeric="a"),), "no")]
    got = coverage_columns(rules, X)
    assert got.shape == (200, len(rules)) and got.dtype == bool
    for j, rule in enumerate(rules):
        assert np.array_equal(got[:, j], rule.covers(X))
    assert coverage_columns([], X).shape == (200, 0)
    assert np.array_equal(RuleSet(rules).coverage_matrix(X), got)
    # one rule at a time, for a rule file of any size
    masks = rule_masks(iter(rules), X)
    assert all(np.array_equal(m, got[:, j]) for j, m in enumerate(masks))
