"""The pool's tree fitter grows the trees scikit-learn's own fit grows, node for node."""

from __future__ import annotations

import os

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from explainer.data import load_paper_dataset
from explainer.rules import tree_fit
from explainer.rules.pool import grid_params
from explainer.rules.tree_fit import tree_fitter


def _same_tree(a: DecisionTreeClassifier, b: DecisionTreeClassifier) -> bool:
    ta, tb = a.tree_, b.tree_
    return (ta.node_count == tb.node_count
            and all(np.array_equal(getattr(ta, k), getattr(tb, k))
                    for k in ("children_left", "children_right", "feature", "threshold", "value",
                              "n_node_samples", "impurity"))
            and np.array_equal(a.classes_, b.classes_) and a.n_classes_ == b.n_classes_
            and a.max_features_ == b.max_features_ and a.n_features_in_ == b.n_features_in_)


def _reference(params: dict, seed: int, X: np.ndarray, codes: np.ndarray) -> DecisionTreeClassifier:
    return DecisionTreeClassifier(**params, random_state=seed).fit(X, codes)


def _grid_trees(X, codes, params=None):
    fit = tree_fitter(X, codes)
    params = params or grid_params(6, 2)
    out = []
    for seed, p in enumerate(params):
        model = DecisionTreeClassifier(**p, random_state=seed)
        fit(model)
        out.append((p, seed, model))
    return out


@pytest.mark.parametrize("name", ["iris", "ecoli", "tic_tac_toe"])
def test_every_grid_tree_is_the_one_fit_grows(name, monkeypatch):
    ds = load_paper_dataset(name)
    X = ds.X.to_numpy(dtype=float)
    codes = np.unique(np.asarray(ds.y), return_inverse=True)[1].astype(np.int64)
    built = []
    direct = tree_fit._LabelledMatrix.build
    monkeypatch.setattr(tree_fit._LabelledMatrix, "build", lambda self, model: built.append(direct(self, model)))
    trees = _grid_trees(X, codes)
    assert len(built) == len(trees)  # every tree of the grid was built directly, none by fit()
    for p, seed, model in trees:
        assert _same_tree(model, _reference(p, seed, X, codes)), (name, p, seed)
        # the fitted tree answers as a fitted scikit-learn tree does
        np.testing.assert_array_equal(model.predict(X.astype(np.float32)),
                                      _reference(p, seed, X, codes).predict(X.astype(np.float32)))


def test_class_codes_with_gaps_keep_their_values():
    # a fold may lack a class: the codes the trees see are then not 0..k-1
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    codes = np.where(X[:, 0] > 0, 4, 1).astype(np.int64)
    for p, seed, model in _grid_trees(X, codes, grid_params(4)):
        assert list(model.classes_) == [1, 4]
        assert _same_tree(model, _reference(p, seed, X, codes))


def test_settings_it_does_not_reproduce_go_through_fit():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 5))
    codes = (X[:, 1] + 0.3 * X[:, 2] > 0).astype(np.int64)
    fit = tree_fitter(X, codes)
    model = DecisionTreeClassifier(max_depth=4, min_samples_leaf=7, random_state=3)
    fit(model)
    assert _same_tree(model, DecisionTreeClassifier(max_depth=4, min_samples_leaf=7, random_state=3).fit(X, codes))
    assert model.tree_.n_node_samples.min() >= 7


def test_internals_that_refuse_send_every_tree_back_to_fit(monkeypatch):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(150, 3))
    codes = (X[:, 0] > 0.2).astype(np.int64)
    calls = []

    def refusing(*args):
        calls.append(args)
        raise TypeError("another signature")

    monkeypatch.setattr(tree_fit, "DENSE_SPLITTERS", {"best": refusing, "random": refusing})
    for p, seed, model in _grid_trees(X, codes, grid_params(3)):
        assert _same_tree(model, _reference(p, seed, X, codes))
    assert len(calls) == 1  # the first refusal is remembered


def test_missing_values_are_routed_as_fit_routes_them(monkeypatch):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 4))
    X[::7, 1] = np.nan
    X[::5, 3] = np.nan
    codes = np.where(np.isnan(X[:, 1]), 2, (np.nan_to_num(X[:, 3]) > 0).astype(np.int64))
    masks = []
    compute = DecisionTreeClassifier._compute_missing_values_in_feature_mask
    monkeypatch.setattr(DecisionTreeClassifier, "_compute_missing_values_in_feature_mask",
                        lambda self, X, *a: masks.append(compute(self, X, *a)) or masks[-1])
    trees = _grid_trees(X, codes, grid_params(5, 2))
    assert len(masks) == 2  # once per splitter kind, not per tree
    assert any(t.tree_.missing_go_to_left.any() for _, _, t in trees if hasattr(t.tree_, "missing_go_to_left"))
    monkeypatch.undo()
    for p, seed, model in trees:
        assert _same_tree(model, _reference(p, seed, X.astype(np.float32), codes))
        assert np.array_equal(model.tree_.missing_go_to_left, _reference(p, seed, X.astype(np.float32),
                                                                         codes).tree_.missing_go_to_left)


def test_an_infinite_value_is_refused_as_fit_refuses_it():
    X = np.array([[0.0, 1.0], [np.inf, 2.0], [1.0, 3.0], [2.0, 0.5]])
    codes = np.array([0, 1, 0, 1])
    with pytest.raises(ValueError):
        DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, codes)
    with pytest.raises(ValueError):
        tree_fitter(X, codes)(DecisionTreeClassifier(max_depth=2, random_state=0))


@pytest.mark.parametrize("seed", [0, 7, 2**31 - 2])
def test_a_splitters_state_draws_what_its_seed_draws(seed):
    for _ in range(2):  # the first draw computed, then taken from the cache
        state, real = tree_fit._random_state(seed), np.random.RandomState(seed)
        assert state.randint(0, 2**31 - 1) == real.randint(0, 2**31 - 1)
        assert state.randint(0, 10) == real.randint(0, 10)
        np.testing.assert_array_equal(state.rand(4), real.rand(4))
    # a state asked something else first goes to the real one from the start
    state, real = tree_fit._random_state(seed), np.random.RandomState(seed)
    np.testing.assert_array_equal(state.rand(2), real.rand(2))
    assert state.randint(0, 2**31 - 1) == real.randint(0, 2**31 - 1)


def test_trees_fitted_in_threads_are_those_fit_grows():
    from explainer.rules.pool import PARALLEL_FIT_ROWS, _fit_all

    rng = np.random.default_rng(4)
    X = rng.normal(size=(PARALLEL_FIT_ROWS + 500, 5))
    codes = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(np.int64) + (X[:, 3] > 1.2)
    params = grid_params(4, 2)
    models = [DecisionTreeClassifier(**p, random_state=seed % 5) for seed, p in enumerate(params)]
    _fit_all(models, X, codes)  # in threads on a table this size (two cores or more)
    for seed, (p, model) in enumerate(zip(params, models, strict=True)):
        assert _same_tree(model, _reference(p, seed % 5, X, codes))


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="threads only where there are two cores")
def test_a_short_wide_table_fits_its_trees_in_threads_and_the_same(monkeypatch):
    import explainer.rules.pool as pool_module

    rng = np.random.default_rng(5)
    X = rng.integers(0, 3, size=(30, 400)).astype(float)
    codes = (X[:, 7] + X[:, 300] > 2).astype(np.int64)
    pools = []

    class Spy(pool_module.ThreadPoolExecutor):
        def __init__(self, *args, **kwargs):
            pools.append(self)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(pool_module, "ThreadPoolExecutor", Spy)
    monkeypatch.setattr(pool_module, "PARALLEL_FIT_CELLS", X.size)  # few rows, many cells
    params = grid_params(4, 2)
    models = [DecisionTreeClassifier(**p, random_state=seed % 5) for seed, p in enumerate(params)]
    pool_module._fit_all(models, X, codes)
    assert len(pools) == 1
    for seed, (p, model) in enumerate(zip(params, models, strict=True)):
        assert _same_tree(model, _reference(p, seed % 5, X, codes))
    monkeypatch.setattr(pool_module, "PARALLEL_FIT_CELLS", X.size + 1)
    pool_module._fit_all([DecisionTreeClassifier(max_depth=2, random_state=0)], X, codes)
    assert len(pools) == 1  # fewer cells: one after another
