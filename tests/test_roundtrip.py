"""Property: render -> parse -> evaluate gives the same coverage as the rule itself, on every paper data set."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lanes import quick_first

from explainer.data import PAPER_DATASETS, load_paper_dataset
from explainer.rules import (
    Condition,
    Rule,
    RuleSet,
    parse_rules,
    resolve_features,
    rules_for_data,
    shorten_threshold,
)
from explainer.rules.pool import build_pool

_CACHE = {}


def _data(name, directory):
    if name not in _CACHE:
        _CACHE[name] = load_paper_dataset(name, directory)
    return _CACHE[name]


@pytest.mark.parametrize("name", quick_first(sorted(PAPER_DATASETS)))
def test_random_rules_round_trip(name, paper_datasets_dir):
    """Rules on any encoded feature (one-hot, missing indicator, whole-number or decimal
    threshold, an interval, "is not missing") read back to the same rows and the same length."""
    ds = _data(name, paper_datasets_dir)
    X = ds.X
    specs = ds.feature_specs
    values = {c: np.unique(X[c].dropna().to_numpy()) for c in X.columns}

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.data())
    def check(data):
        n = data.draw(st.integers(1, 5))
        conds = []
        for _ in range(n):
            spec = data.draw(st.sampled_from(specs))
            v = values[spec.name]
            op = data.draw(st.sampled_from(["<=", ">", "<", ">="]))
            if spec.kind != "numeric":
                t = data.draw(st.sampled_from([0.5, 0.0, 0.25, 1.0, -0.5, 1.5]))
            elif data.draw(st.integers(0, 9)) == 0:
                op, t = "<=", math.inf
            else:
                lo, hi = (float(v.min()), float(v.max())) if v.size else (0.0, 1.0)
                t = data.draw(st.floats(lo - 1, hi + 1, allow_nan=False, allow_infinity=False))
                t = shorten_threshold(t, v) if data.draw(st.booleans()) else t
            conds.append(Condition(spec.name, op, t, spec))
        label = data.draw(st.sampled_from(ds.classes))
        rule = Rule(tuple(conds), label)
        text = RuleSet([rule]).to_text()
        parsed = resolve_features(parse_rules(text, labels=ds.classes), specs)
        assert len(parsed) == 1
        assert parsed[0].label == label
        assert parsed[0].length == rule.length
        assert np.array_equal(parsed[0].covers(X), rule.covers(X)), text

    check()


@pytest.mark.parametrize("name", quick_first(["iris", "wine", "mammographic_masses"], 1))
def test_pool_rules_round_trip(name, paper_datasets_dir):
    ds = _data(name, paper_datasets_dir)
    pool = build_pool(ds.X, ds.y, 4, random_state=0, classes=ds.classes, feature_specs=ds.feature_specs)
    text = RuleSet(pool.rules).to_text()
    parsed = resolve_features(parse_rules(text, labels=ds.classes), ds.feature_specs)
    dense = pool.coverage.toarray().astype(bool)
    assert len(parsed) == pool.n_rules
    for i, rule in enumerate(parsed):
        # the same conditions (an interval reads lower bound first) and the same rows
        assert rule.key() == pool.rules[i].key()
        assert rule.length == pool.rules[i].length
        assert np.array_equal(rule.covers(ds.X), dense[:, i])


@pytest.mark.parametrize("name", ["tic_tac_toe", "mammographic_masses", "breast_cancer_wisconsin", "zoo", "hayes_roth"])
def test_simplest_form_pool_rules_round_trip(name, paper_datasets_dir):
    """The default pool's rules (sets, values, phrase lengths) read back to the same rows and lengths,
    and the rule set printed whole with its ELSE line reads back whole."""
    from explainer.data.defaults import default_load_settings
    from explainer.rules import default_pool_settings, parse_rule_text

    ds = load_paper_dataset(name, paper_datasets_dir, **default_load_settings())
    pool = build_pool(ds.X, ds.y, random_state=0, classes=ds.classes, feature_specs=ds.feature_specs,
                      **default_pool_settings(max_depth=5))
    text = RuleSet(pool.rules).to_text(fallback=ds.classes[-1])
    parsed, fallback = parse_rule_text(text, labels=ds.classes)
    assert fallback == ds.classes[-1]
    bound = rules_for_data(parsed, ds.feature_specs, ds.classes)
    dense = pool.coverage.toarray().astype(bool)
    assert len(bound) == pool.n_rules
    for i, rule in enumerate(bound):
        assert rule.key() == pool.rules[i].key(), rule.text
        assert (rule.length, rule.n_phrases) == (pool.lengths[i], pool.rules[i].n_phrases)
        assert np.array_equal(rule.covers(ds.X), dense[:, i]), rule.text


_hostile_text = st.text(st.characters(codec="utf-8"), min_size=1, max_size=10)
_awkward = st.sampled_from(
    ["tail AND", "a\tAND\tb", "a\xa0AND\xa0b", "before then after", "v AND", "w THEN CLASS=q", "x <= 3", '"q"',
     "lab\nel", "\r", "\x0c", "\x85", "\u2028", "a\nIF x > -100 THEN CLASS=b", "5", "is missing", "TRUE"]
)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    names=st.lists(st.one_of(_awkward, _hostile_text), min_size=3, max_size=3, unique_by=lambda s: s.strip()),
    categories=st.lists(st.one_of(_awkward, _hostile_text), min_size=2, max_size=3, unique_by=lambda s: s.strip()),
    labels=st.lists(st.one_of(_awkward, _hostile_text), min_size=2, max_size=3, unique_by=lambda s: s.strip()),
    seed=st.integers(0, 2**16),
    phrase_length=st.booleans(),
)
def test_hostile_names_values_and_labels_round_trip(names, categories, labels, seed, phrase_length):
    """A table with hostile column names, category values and class labels: every pool
    rule renders, parses and binds back to the same rows and the same class."""
    from hypothesis import assume

    from explainer.data import DataError, load_dataset

    rng = np.random.default_rng(seed)
    n = 40
    numeric = rng.integers(0, 6, size=n).astype(float)
    numeric[rng.random(n) < 0.1] = np.nan
    frame = pd.DataFrame(
        {
            names[0]: numeric,
            names[1]: rng.choice(np.array(categories, dtype=object), size=n),
            names[2]: rng.choice(np.array(labels, dtype=object), size=n),
        }
    )
    try:
        ds = load_dataset(frame, target=2)
    except DataError:
        assume(False)
    assume(len(ds.classes) >= 2)
    pool = build_pool(ds.X, ds.y, 3, random_state=0, classes=ds.classes, feature_specs=ds.feature_specs,
                      phrase_length=phrase_length)
    text = RuleSet(pool.rules).to_text(fallback=ds.classes[0])
    assert len(text.splitlines()) == pool.n_rules + 1
    parsed = rules_for_data(parse_rules(text), ds.feature_specs, ds.classes)
    dense = pool.coverage.toarray().astype(bool)
    assert len(parsed) == pool.n_rules
    for i, rule in enumerate(parsed):
        assert rule.label == pool.rules[i].label
        assert rule.length == pool.rules[i].length
        assert np.array_equal(rule.covers(ds.X), dense[:, i]), rule.text
