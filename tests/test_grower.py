"""Rules grown one condition at a time: what they find, and that they stay candidates only."""

import numpy as np
import pandas as pd

from explainer.rules.grower import grow_rules
from explainer.rules.pool import build_pool


def _planted(seed=0, n=400):
    rng = np.random.RandomState(seed)
    X = pd.DataFrame(rng.randint(0, 2, size=(n, 6)).astype(float), columns=[f"b{i}" for i in range(6)])
    X["num"] = rng.normal(size=n).round(2)
    # class 1 exactly where b1 = 1, b4 = 1 and num > 0.5: a conjunction no single split isolates
    y = ((X["b1"] == 1) & (X["b4"] == 1) & (X["num"] > 0.5)).astype(int).to_numpy()
    return X, y


def test_a_planted_conjunction_is_grown_exactly():
    X, y = _planted()
    grown = grow_rules(X.to_numpy(), y, list(X.columns))
    rows_of_class_1 = set(np.flatnonzero(y == 1))
    index = {n: i for i, n in enumerate(X.columns)}
    found = [r for r, c in grown if c == 1 and set(np.flatnonzero(r.covers(X.to_numpy(), index))) == rows_of_class_1]
    assert found, [str(r) for r, _ in grown]
    assert sorted(c.feature for c in found[0].conditions) == ["b1", "b4", "num"]


def test_every_grown_rule_meets_the_precision_it_was_grown_to():
    rng = np.random.RandomState(3)
    X = pd.DataFrame(rng.normal(size=(300, 4)), columns=list("abcd"))
    X.iloc[rng.rand(300) < 0.1, 2] = np.nan  # missing values satisfy no comparison
    y = (X["a"].fillna(0) + 0.5 * rng.normal(size=300) > 0).astype(int).to_numpy() + (X["b"] > 1).to_numpy()
    index = {n: i for i, n in enumerate(X.columns)}
    grown = grow_rules(X.to_numpy(), y, list(X.columns), min_precision=0.8)
    assert grown
    for rule, c in grown:
        rows = rule.covers(X.to_numpy(), index)
        assert rows.sum() >= 2 and np.mean(y[rows] == c) >= 0.8 - 1e-12
        assert 1 <= rule.length <= 4


def test_same_seed_same_rules_and_the_sample_bounds_large_tables():
    X, y = _planted(seed=1, n=3000)
    a = grow_rules(X.to_numpy(), y, list(X.columns), max_rows=500, random_state=7)
    b = grow_rules(X.to_numpy(), y, list(X.columns), max_rows=500, random_state=7)
    assert [(str(r), c) for r, c in a] == [(str(r), c) for r, c in b]


def test_the_pool_counts_grown_rules_on_every_row_and_the_paper_pool_has_none():
    X, y = _planted(seed=2)
    plain = build_pool(X, y, max_depth=3, random_state=0)
    grown = build_pool(X, y, max_depth=3, random_state=0, grow=True)
    assert plain.settings["grow"] is False and grown.settings["grow"] is True
    assert grown.n_rules > plain.n_rules
    dense = grown.coverage.toarray().astype(bool)
    for i, rule in enumerate(grown.rules):
        assert np.array_equal(dense[:, i], rule.covers(X))
    # the planted class is one rule of the grown pool, and none of the trees' of depth 1..2
    target = y == 1
    assert any(np.array_equal(dense[:, i], target) for i in range(grown.n_rules))
    plain_dense = plain.coverage.toarray().astype(bool)
    assert not any(np.array_equal(plain_dense[:, i], target) for i in range(plain.n_rules))
