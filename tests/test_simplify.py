"""Rules in their simplest form: one phrase per column, the same training rows, budgets in phrases."""

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lanes import quick_first

from explainer.data import load_dataset, load_paper_dataset
from explainer.data.defaults import default_load_settings
from explainer.rules import Condition, Rule, build_pool, default_pool_settings
from explainer.rules.simplify import Simplifier
from explainer.selection.problem import SelectionProblem


def _table(seed=0, n=300, gaps=False):
    rng = np.random.default_rng(seed)
    safety = rng.choice(np.array(["low", "med", "high"], dtype=object), size=n)
    buying = rng.choice(np.array(["low", "med", "high", "vhigh"], dtype=object), size=n)
    thal = rng.choice([3, 6, 7], size=n).astype(float)
    sex = rng.integers(0, 2, size=n)
    age = rng.integers(20, 80, size=n)
    if gaps:
        safety[rng.random(n) < 0.1] = None
        thal[rng.random(n) < 0.1] = np.nan
    good = (safety == "high") & np.isin(buying, ["low", "med"]) | (thal > 4) & (sex == 1)
    y = np.where(good ^ (rng.random(n) < 0.05), "yes", "no")
    return pd.DataFrame({"safety": safety, "buying": buying, "thal": thal, "sex": sex, "age": age, "y": y})


def _spec(ds, name):
    return next(s for s in ds.feature_specs if s.name == name)


def _c(ds, name, op, t):
    return Condition(name, op, t, _spec(ds, name))


def test_chains_codes_and_flags_read_as_values():
    ds = load_dataset(_table(), target="y")
    simplify = Simplifier(ds.X.to_numpy(), ds.feature_specs)

    def text(*conds):
        return simplify(Rule(conds, "yes")).text.removeprefix("IF ").removesuffix(" THEN CLASS=yes")

    assert text(_c(ds, "safety=low", "<=", 0.5), _c(ds, "safety=med", "<=", 0.5)) == "safety = high"
    assert text(_c(ds, "buying=high", "<=", 0.5), _c(ds, "buying=vhigh", "<=", 0.5)) == "buying in {low, med}"
    assert text(_c(ds, "buying=high", "<=", 0.5)) == "buying != high"
    assert text(_c(ds, "thal", ">", 4.0)) == "thal in {6, 7}"
    assert text(_c(ds, "sex", ">", 0.0)) == "sex = 1"
    assert text(_c(ds, "sex", "<=", 0.0)) == "sex = 0"
    assert text(_c(ds, "age", ">", 32.0), _c(ds, "sex", ">", 0.0), _c(ds, "age", "<=", 54.0)) == "32 < age <= 54 AND sex = 1"


def test_a_column_with_gaps_keeps_what_a_gap_does():
    ds = load_dataset(_table(gaps=True), target="y")
    simplify = Simplifier(ds.X.to_numpy(), ds.feature_specs)
    # "!= low AND != med" holds on a gap: it stays "not in", never "= high"
    rule = simplify(Rule((_c(ds, "safety=low", "<=", 0.5), _c(ds, "safety=med", "<=", 0.5)), "yes"))
    assert rule.text == "IF safety not in {low, med} THEN CLASS=yes"
    rule = simplify(Rule((_c(ds, "thal", ">", 4.0),), "yes"))
    assert rule.text == "IF thal in {6, 7} THEN CLASS=yes"


@pytest.mark.parametrize("gaps", [False, True])
def test_simplified_rules_select_the_rows_of_their_conditions(gaps):
    """Brute force: any conjunction of conditions on the table's features selects the same rows simplified."""
    ds = load_dataset(_table(seed=3, gaps=gaps), target="y", **default_load_settings())
    X = ds.X.to_numpy()
    simplify = Simplifier(X, ds.feature_specs)
    index = {s.name: i for i, s in enumerate(ds.feature_specs)}

    @settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.data())
    def check(data):
        conds = []
        for _ in range(data.draw(st.integers(1, 5))):
            spec = data.draw(st.sampled_from(ds.feature_specs))
            op = data.draw(st.sampled_from(["<=", ">"]))
            t = 0.5 if spec.kind != "numeric" else data.draw(st.sampled_from(sorted(set(X[:, index[spec.name]]) - {np.nan})))
            conds.append(Condition(spec.name, op, float(t), spec))
        rule = Rule(tuple(conds), "yes")
        out = simplify(rule)
        assert np.array_equal(out.covers(X, index), rule.covers(X, index)), (rule.text, out.text)

    check()


def _columns(rule):
    return {c.spec.column if c.spec is not None else getattr(c, "column", c.feature) for c in rule.conditions}


@pytest.mark.parametrize("source", quick_first(["table", "tic_tac_toe", "mammographic_masses", "breast_cancer_wisconsin"]))
def test_default_pool_rules_have_one_phrase_per_column(source, paper_datasets_dir):
    if source == "table":
        ds = load_dataset(_table(gaps=True), target="y", **default_load_settings())
    else:
        ds = load_paper_dataset(source, paper_datasets_dir, **default_load_settings())
    pool = build_pool(ds.X, ds.y, random_state=0, classes=ds.classes, feature_specs=ds.feature_specs,
                      **default_pool_settings(max_depth=6))
    binary = {s.column for s in ds.feature_specs
              if s.kind == "numeric" and set(np.unique(ds.X[s.name].dropna())) <= {0.0, 1.0}}
    dense = pool.coverage.toarray().astype(bool)
    for i, rule in enumerate(pool.rules):
        assert rule.n_phrases == len(_columns(rule)), rule.text
        assert pool.lengths[i] == rule.length
        for column in binary:
            assert not re.search(rf"\b{re.escape(column)} (<=|>|<|>=) ", rule.text), rule.text
        assert np.array_equal(rule.covers(ds.X), dense[:, i]), rule.text


def test_both_pools_count_conditions_as_the_rule_text_reads_them():
    ds = load_dataset(_table(), target="y")
    paper = build_pool(ds.X, ds.y, 6, random_state=0, classes=ds.classes, feature_specs=ds.feature_specs)
    analyst = build_pool(ds.X, ds.y, 6, random_state=0, classes=ds.classes, feature_specs=ds.feature_specs,
                         phrase_length=True)
    assert paper.settings["phrase_length"] is False and analyst.settings["phrase_length"] is True
    # the paper's paths: one per comparison, so the length is the number of conditions
    assert np.array_equal(paper.lengths, [len(r.conditions) for r in paper.rules])
    # a chain such as "buying != high AND buying != vhigh" is 2 conditions but one phrase
    assert any(r.length > r.n_phrases for r in paper.rules)
    for pool in (paper, analyst):
        assert np.array_equal(pool.lengths, [r.length for r in pool.rules])
        for rule in pool.rules:
            # an interval is two conditions, a value set one, a set left out one per value
            expected = sum(len(c.values) if getattr(c, "negated", False) else 1 for c in rule.conditions)
            assert rule.length == expected, rule.text
    problem = SelectionProblem.from_pool(analyst)
    assert np.array_equal(problem.lengths, analyst.lengths)
    assert analyst.rule_set([0]).complexity == analyst.lengths[0]
