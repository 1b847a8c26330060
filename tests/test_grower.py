"""Rules grown one condition at a time: what they find, and that they stay candidates only."""

import numpy as np
import pandas as pd
import pytest

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


def _brute_force_best(A, pos, neg, min_support, max_thresholds):
    """Every candidate condition counted one by one, in the documented order; the first of the largest gain."""
    n0, p0 = neg.sum(), pos.sum()
    base = np.log2(p0 / (p0 + n0))
    candidates = []
    present = ~np.isnan(A)
    binary = [f for f in range(A.shape[1]) if present[:, f].all() and set(np.unique(A[:, f])) <= {0.0, 1.0}]
    for op in (">", "<="):
        for f in binary:
            candidates.append((f, op, 0.5, None))
    for f in range(A.shape[1]):
        if f in binary:
            continue
        values = np.unique(A[present[:, f], f])
        if values.size < 2:
            continue
        mids = (values[:-1] + values[1:]) / 2
        if mids.size > max_thresholds:
            mids = mids[np.unique(np.linspace(0, mids.size - 1, max_thresholds).round().astype(int))]
        candidates += [(f, "<=", t, values) for t in mids] + [(f, ">", t, values) for t in mids]
    best = None
    for f, op, t, _ in candidates:
        with np.errstate(invalid="ignore"):
            holds = A[:, f] <= t if op == "<=" else A[:, f] > t
        p1, n1 = float(pos[holds].sum()), float(neg[holds].sum())
        if p1 < min_support:
            continue
        gain = p1 * (np.log2(p1 / (p1 + n1)) - base)
        if gain > 0 and (best is None or gain > best[0]):
            best = (gain, f, op, t)
    return best


@pytest.mark.parametrize("cells", [1 << 20, 40, 1])  # numeric features counted all at once, in blocks, one by one
def test_the_best_condition_is_the_brute_force_one(monkeypatch, cells):
    from explainer.rules import grower

    monkeypatch.setattr(grower, "_BLOCK_CELLS", cells)
    rng = np.random.default_rng(7)
    for _ in range(60):
        n, m = int(rng.integers(4, 40)), int(rng.integers(1, 8))
        A = rng.integers(0, rng.integers(2, 9), size=(n, m)).astype(float)
        A[:, rng.random(m) < 0.4] += 0.5  # some columns not 0/1
        A[rng.random((n, m)) < 0.1] = np.nan
        pos = (rng.random(n) < 0.5).astype(float)
        neg = (1 - pos) * (rng.random(n) < 0.8)
        if not pos.sum() or not neg.sum():
            continue
        max_thresholds = int(rng.integers(1, 6))
        features = grower._Features(A, max_thresholds)
        found = features.best(pos, neg, float(np.log2(pos.sum() / (pos.sum() + neg.sum()))), 2)
        expected = _brute_force_best(A, pos, neg, 2, max_thresholds)
        if expected is None:
            assert found is None
        else:
            assert found[1:4] == expected[1:] and found[0] == pytest.approx(expected[0])
