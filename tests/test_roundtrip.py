"""Property: render -> parse -> evaluate gives the same coverage as the rule itself, on every shared data set."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explainer.data import PAPER_DATASETS, load_paper_dataset
from explainer.pool import build_pool
from explainer.rules import (
    Condition,
    Rule,
    RuleSet,
    parse_rules,
    resolve_features,
    shorten_threshold,
)

_CACHE = {}


def _data(name, directory):
    if name not in _CACHE:
        _CACHE[name] = load_paper_dataset(name, directory)
    return _CACHE[name]


@pytest.mark.parametrize("name", sorted(PAPER_DATASETS))
def test_random_rules_round_trip(name, shared_datasets_dir):
    ds = _data(name, shared_datasets_dir)
    X = ds.X
    values = {c: np.unique(X[c].dropna().to_numpy()) for c in X.columns}

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.data())
    def check(data):
        n = data.draw(st.integers(1, 5))
        conds = []
        for _ in range(n):
            feat = data.draw(st.sampled_from(list(X.columns)))
            v = values[feat]
            lo, hi = (float(v.min()), float(v.max())) if v.size else (0.0, 1.0)
            t = data.draw(st.floats(lo - 1, hi + 1, allow_nan=False, allow_infinity=False))
            t = shorten_threshold(t, v) if data.draw(st.booleans()) else t
            conds.append(Condition(feat, data.draw(st.sampled_from(["<=", ">"])), t))
        label = data.draw(st.sampled_from(ds.classes))
        rule = Rule(tuple(conds), label)
        text = RuleSet([rule]).to_text()
        parsed = resolve_features(parse_rules(text, labels=ds.classes), ds.feature_names)
        assert len(parsed) == 1
        assert parsed[0].label == label
        assert np.array_equal(parsed[0].covers(X), rule.covers(X))

    check()


@pytest.mark.parametrize("name", ["iris", "wine", "mammographic_masses"])
def test_pool_rules_round_trip(name, shared_datasets_dir):
    ds = _data(name, shared_datasets_dir)
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
