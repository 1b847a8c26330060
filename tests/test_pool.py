"""Rule pool: grid size, determinism, per-tree random states, merging, dedup, missing values."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris

from explainer.data.precision import MixedPrecisionMatrix
from explainer.rules import parse_rules
from explainer.rules.defaults import default_pool_settings
from explainer.rules.pool import build_pool, feature_matrix, grid_params, pool_from_rules
from explainer.selection.problem import SelectionProblem


@pytest.fixture(scope="module")
def iris():
    data = load_iris(as_frame=True)
    X = data.data
    X.columns = ["sepal_length", "sepal_width", "petal_length", "petal_width"]
    y = np.array(data.target_names)[data.target]
    return X, y


def test_grid_sizes_match_the_paper():
    assert len(grid_params(3)) == 24
    assert len(grid_params(5)) == 48
    assert len(grid_params(10)) == 108
    # repeats skip the deterministic (best, all features) trees
    assert len(grid_params(3, n_repeats=3)) == 24 + 2 * 20


def test_pool_is_deterministic_and_well_formed(iris):
    X, y = iris
    a = build_pool(X, y, 3, random_state=7)
    b = build_pool(X, y, 3, random_state=7)
    assert [r.text for r in a.rules] == [r.text for r in b.rules]
    assert a.n_trees == 24
    dense = a.coverage.toarray().astype(bool)
    for i, rule in enumerate(a.rules):
        assert np.array_equal(rule.covers(X), dense[:, i])  # coverage is the rule's text, evaluated
        assert a.classes[a.rule_class[i]] == rule.label
        features = [(c.feature, c.op in ("<=", "<")) for c in rule.conditions]
        assert len(features) == len(set(features))  # merged: one bound per feature and direction
    keys = {(dense[:, i].tobytes(), int(a.rule_class[i])) for i in range(a.n_rules)}
    assert len(keys) == a.n_rules  # no two empirically equivalent rules


def test_each_tree_gets_its_own_random_state(iris):
    X, y = iris
    pool = build_pool(X, y, 3, random_state=0)
    seeds = [t.random_state for t in pool.trees]
    assert len(set(seeds)) == len(seeds)
    # one shared state for all trees (the pitfall) makes many trees identical
    from sklearn.tree import DecisionTreeClassifier

    def structures(states):
        out = set()
        for p, state in zip(grid_params(3), states, strict=True):
            tree = DecisionTreeClassifier(**p, random_state=state).fit(X, y)
            out.add(tuple(tree.tree_.threshold.round(6)) + tuple(tree.tree_.feature))
        return out

    shared = structures([0] * len(seeds))
    own = structures(seeds)
    assert len(own) > len(shared)


def test_repeats_enrich_the_pool(iris):
    X, y = iris
    one = build_pool(X, y, 3, random_state=0)
    five = build_pool(X, y, 3, random_state=0, n_repeats=5)
    assert five.n_rules > one.n_rules


def test_missing_values_follow_the_rule_text():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=200), "b": rng.normal(size=200)})
    y = np.where(X["a"] + 0.3 * X["b"] > 0, "pos", "neg")
    X.loc[rng.choice(200, 30, replace=False), "a"] = np.nan
    pool = build_pool(X, y, 4, random_state=1)
    dense = pool.coverage.toarray().astype(bool)
    for i, rule in enumerate(pool.rules):
        assert np.array_equal(rule.covers(X), dense[:, i])
        if "a" in rule.features:
            assert not dense[X["a"].isna().to_numpy(), i].any()


def test_best_tree_budgets(iris):
    X, y = iris
    pool = build_pool(X, y, 4, random_state=0)
    bt = pool.best_tree()
    assert bt.complexity_budget < bt.complexity and bt.error_budget <= bt.errors
    assert bt.tree in pool.trees


def test_cart_tree_is_the_grids_plain_tree_of_a_depth(iris):
    """gini, best splits, every feature, at the depth asked (or the deepest the grid has); its rules are the
    paths of scikit-learn's own tree of that depth, every row covered once."""
    from sklearn.tree import DecisionTreeClassifier

    X, y = iris
    pool = build_pool(X, y, 5, random_state=0)  # depths 1..4
    tree = pool.cart_tree(3)
    assert (tree.criterion, tree.splitter, tree.max_features, tree.max_depth) == ("gini", "best", None, 3)
    assert pool.cart_tree(9).max_depth == 4 and pool.cart_tree(0) is None
    cov = pool.coverage.toarray().astype(bool)[:, tree.rule_ids]
    assert (cov.sum(axis=1) == 1).all()  # a tree's leaves split the rows
    reference = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    assert len(tree.rule_ids) == reference.get_n_leaves()


def test_forest_source_and_extra_rules(iris):
    X, y = iris
    forest = build_pool(X, y, 4, random_state=0, source="forest", n_estimators=10)
    assert forest.n_trees == 10 and forest.n_rules > 0
    extra = parse_rules("IF sepal_width > 3.95 AND sepal_length > 5.05 THEN CLASS=virginica")
    pool = build_pool(X, y, 3, random_state=0, extra_rules=extra)
    assert any(r.text == extra[0].text for r in pool.rules)
    with pytest.raises(ValueError, match="not a class"):
        build_pool(X, y, 3, extra_rules=parse_rules("IF petal_width > 1 THEN CLASS=rose"))


def test_pool_from_rules(iris):
    X, y = iris
    pool = pool_from_rules(parse_rules("IF petal_length <= 2.45 THEN CLASS=setosa\nIF petal_width > 1.75 THEN CLASS=virginica"), X, y)
    ev = SelectionProblem.from_pool(pool).evaluate(np.ones(2, bool))
    assert ev.covered == 50 + 46
    assert ev.errors == 1


def test_pool_rules_read_like_a_person_wrote_them(paper_datasets_dir):
    """Mammographic masses (whole-number columns with gaps, missing indicators): thresholds are
    whole numbers, indicators read "is missing", no always-true condition, and every rule's
    text still selects exactly its rows."""
    import math
    import re

    from explainer.data import load_dataset

    ds = load_dataset(paper_datasets_dir / "mammographic_masses.csv", target="Severity")
    ds_cat = load_dataset(paper_datasets_dir / "mammographic_masses.csv", target="Severity", categorical=["Margin"])
    for data in (ds, ds_cat):
        pool = build_pool(data.X, data.y, 5, random_state=0, classes=data.classes, feature_specs=data.feature_specs)
        assert pool.feature_specs == data.feature_specs
        dense = pool.coverage.toarray().astype(bool)
        texts = [r.text for r in pool.rules]
        for i, rule in enumerate(pool.rules):
            assert np.array_equal(rule.covers(data.X), dense[:, i])
            for c in rule.conditions:
                if c.spec.kind == "numeric":
                    assert c.spec.integer and (c.threshold == int(c.threshold) or c.threshold == math.inf)
                else:
                    assert c.threshold == 0.5
        forbidden = re.compile(r"<= 0\.5|> 0\.5|is missing <=|is missing >|\binf\b|=\d+ [<>]")
        assert not [t for t in texts if forbidden.search(t)]
        assert any(" is missing" in t for t in texts) and any(" is not missing" in t for t in texts)
        if data is ds_cat:
            assert any("Margin = " in t for t in texts) and any("Margin != " in t for t in texts)


def test_feature_specs_are_matched_by_name(iris):
    from explainer.data.features import FeatureSpec

    X, y = iris
    specs = [FeatureSpec(n, n, "numeric", integer=False) for n in reversed(X.columns)] + [FeatureSpec("extra", "extra")]
    pool = build_pool(X[["petal_width", "petal_length"]], y, 3, random_state=0, feature_specs=specs)
    assert [s.name for s in pool.feature_specs] == ["petal_width", "petal_length"]
    with pytest.raises(ValueError, match="no spec for the column 'sepal_length'"):
        build_pool(X, y, 3, feature_specs=specs[:1])


def test_implied_conditions_are_left_out_and_rows_stay_the_same():
    from explainer.data.features import FeatureSpec
    from explainer.rules import Condition, drop_implied

    specs = {
        "m1": FeatureSpec("Margin=1", "Margin", "onehot", 1),
        "m2": FeatureSpec("Margin=2", "Margin", "onehot", 2),
        "miss": FeatureSpec("Margin is missing", "Margin", "missing"),
        "num": FeatureSpec("Margin", "Margin", "numeric", integer=True),
        "age": FeatureSpec("Age", "Age", "numeric", integer=True),
        "agem": FeatureSpec("Age is missing", "Age", "missing"),
    }

    def cond(key, op, t):
        return Condition(specs[key].name, op, t, spec=specs[key])

    kept = drop_implied([cond("m2", "<=", 0.5), cond("m1", ">", 0.5), cond("miss", "<=", 0.5),
                         cond("num", ">", 0), cond("num", "<=", 3), cond("agem", "<=", 0.5)])
    # "= 1" implies "!= 2", "is not missing", "> 0" and "<= 3" (1 satisfies both);
    # "Age is not missing" stays: nothing else reads Age
    assert [str(c) for c in kept] == ["Margin = 1", "Age is not missing"]
    assert [str(c) for c in drop_implied([cond("age", ">", 32), cond("agem", "<=", 0.5)])] == ["Age > 32"]
    # "!=" alone holds on missing rows, so it does not imply "is not missing"
    alone = [cond("m2", "<=", 0.5), cond("miss", "<=", 0.5)]
    assert drop_implied(alone) == tuple(alone)


def test_paper_encoded_pools_hold_no_implied_condition(paper_datasets_dir):
    from explainer.bench import encoding_kwargs
    from explainer.data import load_paper_dataset
    from explainer.rules import drop_implied

    for name in ("mammographic_masses", "breast_cancer_wisconsin"):
        ds = load_paper_dataset(name, paper_datasets_dir, **encoding_kwargs(name))
        pool = build_pool(ds.X, ds.y, 5, random_state=0, classes=ds.classes, feature_specs=ds.feature_specs)
        cov = pool.coverage.toarray().astype(bool)
        for i, rule in enumerate(pool.rules):
            assert drop_implied(rule.conditions) == rule.conditions
            assert (rule.covers(ds.X) == cov[:, i]).all()


def test_threaded_tree_fits_give_the_same_pool(iris, monkeypatch):
    """Trees fitted in threads (large tables) and one after another (small ones) make the same pool."""
    import explainer.rules.pool as pool_module

    X, y = iris
    monkeypatch.setattr(pool_module, "PARALLEL_FIT_ROWS", 0)
    threaded = build_pool(X, y, 4, random_state=3)
    monkeypatch.setattr(pool_module, "PARALLEL_FIT_ROWS", 10**9)
    serial = build_pool(X, y, 4, random_state=3)
    assert [r.text for r in threaded.rules] == [r.text for r in serial.rules]
    assert (threaded.coverage != serial.coverage).nnz == 0
    assert [t.random_state for t in threaded.trees] == [t.random_state for t in serial.trees]


def test_fit_sample_is_stratified_seeded_and_only_when_the_table_is_larger():
    from explainer.rules.pool import _fit_sample

    codes = np.repeat([0, 1, 2], [600, 300, 100])
    assert _fit_sample(codes, None, 0) is None and _fit_sample(codes, 1000, 0) is None
    s = _fit_sample(codes, 200, 5)
    assert np.array_equal(np.bincount(codes[s]), [120, 60, 20])  # each class in its share
    assert np.all(np.diff(s) > 0)  # sorted, distinct rows
    assert np.array_equal(s, _fit_sample(codes, 200, 5)) and not np.array_equal(s, _fit_sample(codes, 200, 6))
    assert np.bincount(codes[_fit_sample(codes, 3, 0)]).tolist() == [2, 1, 1]  # every class keeps a row


def test_pool_fitted_on_a_sample_counts_its_rules_on_every_row(iris):
    """Only the splits come from the sample: coverage and errors are those of every row."""
    X, y = iris
    full = build_pool(X, y, 4, random_state=0)
    assert build_pool(X, y, 4, random_state=0, max_fit_rows=150).settings["max_fit_rows"] == 150
    same = build_pool(X, y, 4, random_state=0, max_fit_rows=150)  # no smaller than the table: no sample
    assert [r.text for r in same.rules] == [r.text for r in full.rules]
    small = build_pool(X, y, 4, random_state=0, max_fit_rows=40)
    assert [t.random_state for t in small.trees] == [t.random_state for t in full.trees]
    assert [r.text for r in small.rules] != [r.text for r in full.rules]
    dense = small.coverage.toarray().astype(bool)
    assert dense.shape[0] == len(y)
    for i, rule in enumerate(small.rules):
        assert np.array_equal(rule.covers(X), dense[:, i])
    problem = SelectionProblem.from_pool(small)
    for i, rule in enumerate(small.rules):
        assert problem.errors[i] == int(np.sum(rule.covers(X) & (y != rule.label)))


def test_the_coverage_matrix_is_made_from_the_rows_in_its_own_index_type():
    import scipy.sparse as sp

    from explainer.rules.pool import _csc_from_rows, row_index_type

    rng = np.random.default_rng(0)
    lists = [np.sort(rng.choice(50, size=k, replace=False)).astype(t) for k, t in
             [(5, np.int32), (0, np.int64), (12, np.int64), (50, np.int32)]]
    m = _csc_from_rows(list(lists), 50)
    dense = np.zeros((50, 4), dtype=np.float32)
    for j, rows in enumerate(lists):
        dense[rows, j] = 1
    assert isinstance(m, sp.csc_matrix) and (m.toarray() == dense).all()
    assert m.indices.dtype == np.int32 and m.indptr.dtype == np.int32 and m.data.dtype == np.float32
    assert row_index_type(2**31 - 1) == np.int32 and row_index_type(2**31) == np.int64
    X = pd.DataFrame({"a": rng.random(200), "b": rng.integers(0, 3, 200)})
    pool = build_pool(X, (X["a"] > 0.5).astype(int).to_numpy(), 3)
    assert pool.coverage.indices.dtype == np.int32


def test_sparse_coverage_is_the_dense_one_and_problems_share_its_indices():
    from explainer.rules.model import coverage_columns
    from explainer.rules.pool import coverage_sparse
    from explainer.selection.problem import SelectionProblem

    rng = np.random.default_rng(3)
    X = pd.DataFrame({"a": rng.random(300), "b": rng.integers(0, 4, 300), "c": rng.normal(size=300)})
    y = np.where(X["a"] + 0.2 * X["b"] > 0.8, "yes", "no")
    pool = build_pool(X, y, 4)
    Xv, index = X.to_numpy(dtype=float), {n: i for i, n in enumerate(X.columns)}
    sparse = coverage_sparse(pool.rules, Xv, index)
    assert sparse.format == "csc" and sparse.indices.dtype == np.int32 and sparse.data.dtype == np.float32
    assert (sparse.toarray().astype(bool) == coverage_columns(pool.rules, Xv, index)).all()
    assert (sparse != pool.coverage).nnz == 0  # the rules' own conditions count what the trees counted
    problem = SelectionProblem.from_pool(pool)
    assert problem.indices.dtype == np.int32 and np.shares_memory(problem.indices, pool.coverage.indices)


def test_a_pool_build_ends_when_it_is_no_longer_wanted(monkeypatch):
    """BUILD_STOP is asked between the trees (also where they are fitted in threads): True ends the build with
    BuildCancelled; unset, or always False, the pool is the same as ever."""
    import contextvars

    import explainer.rules.pool as pool_module
    from explainer.rules.pool import BUILD_STOP, BuildCancelled, build_pool

    rng = np.random.default_rng(0)
    X, y = rng.random((400, 3)), rng.integers(0, 2, 400)
    plain = build_pool(X, y, max_depth=4, random_state=0)
    for threaded in (False, True):
        if threaded:  # the grid's trees fitted in threads, as on a large table
            monkeypatch.setattr(pool_module, "PARALLEL_FIT_ROWS", 100)
        asked: list = []

        def run(stop):
            BUILD_STOP.set(stop)
            return build_pool(X, y, max_depth=4, random_state=0)

        never = contextvars.copy_context().run(run, lambda asked=asked: asked.append(1) or False)
        assert [r.text for r in never.rules] == [r.text for r in plain.rules] and len(asked) > plain.n_trees
        asked.clear()
        with pytest.raises(BuildCancelled):  # no longer wanted from the fifth question on: it ends there
            contextvars.copy_context().run(run, lambda asked=asked: asked.append(1) or len(asked) >= 5)
        # one after another it stops at once; in threads, the trees already handed out still finish
        assert 5 <= len(asked) and (threaded or len(asked) == 5)
    assert BUILD_STOP.get() is None  # each build ran in a context of its own


def test_the_feature_matrix_is_float32_only_where_float32_holds_every_value(monkeypatch):
    from explainer.rules import pool as pool_module

    exact = pd.DataFrame({"a": [0, 1, 1, 0], "b": [3.0, np.nan, 16777216.0, -2.5], "c": np.array([1, 0, 1, 1], np.uint8)})
    m = feature_matrix(exact)
    assert m.dtype == np.float32 and m.flags.f_contiguous
    np.testing.assert_array_equal(m.astype(np.float64), exact.to_numpy(dtype=float))
    for value in (0.1, 16777217.0, 1e39):  # not a float32 number: that column alone is kept in float64 too
        inexact = exact.assign(b=[3.0, np.nan, value, -2.5])
        m = feature_matrix(inexact)
        assert isinstance(m, MixedPrecisionMatrix) and sorted(m.wide) == [1] and m.narrow.dtype == np.float32
        np.testing.assert_array_equal(np.asarray(m), inexact.to_numpy(dtype=float))
    monkeypatch.setattr(pool_module, "FEATURE_BLOCK_CELLS", 5)  # a block of one column at four rows, then of two
    wide = pd.DataFrame(np.arange(40).reshape(4, 10) % 7, columns=[f"x{i}" for i in range(10)])
    np.testing.assert_array_equal(feature_matrix(wide), wide.to_numpy(dtype=float))
    inexact = wide.assign(x4=wide.x4 + 0.1, x9=wide.x9 / 3)  # columns in the middle and the last block
    m = feature_matrix(inexact)
    assert sorted(m.wide) == [4, 9]
    np.testing.assert_array_equal(np.asarray(m), inexact.to_numpy(dtype=float))
    monkeypatch.setattr(pool_module, "FEATURE_BLOCK_CELLS", 1 << 22)
    assert sorted(feature_matrix(inexact).wide) == [4, 9]
    # half the columns or more not float32 numbers: float64 whole, no larger than float32 beside float64 copies
    for tenths in (wide / 10, wide.assign(**{f"x{i}": wide[f"x{i}"] + 0.1 for i in range(5)})):
        m = feature_matrix(tenths)
        assert isinstance(m, np.ndarray) and m.dtype == np.float64
        np.testing.assert_array_equal(m, tenths.to_numpy(dtype=float))


def test_a_mixed_precision_matrix_reads_the_table_own_values():
    """Every form of read gives float64, the float64 columns' own values (not their float32 roundings)."""
    rng = np.random.default_rng(7)
    frame = pd.DataFrame({"whole": rng.integers(0, 50, 200).astype(float), "tenths": rng.integers(0, 100, 200) / 10,
                          "flag": rng.integers(0, 2, 200), "third": rng.random(200) / 3,
                          "count": rng.integers(0, 9, 200)})
    frame.loc[rng.random(200) < 0.1, "tenths"] = np.nan
    m = feature_matrix(frame)
    truth = frame.to_numpy(dtype=float)
    assert isinstance(m, MixedPrecisionMatrix) and sorted(m.wide) == [1, 3]
    assert len(m) == 200 and m.shape == (200, 5) and m.nbytes == 200 * (5 * 4 + 2 * 8) < truth.nbytes
    rows = np.array([5, 0, 199, 17], dtype=np.int32)
    for j in range(5):
        assert m[:, j].dtype == np.float64
        np.testing.assert_array_equal(m[:, j], truth[:, j])
        np.testing.assert_array_equal(m[rows, j], truth[rows, j])
        np.testing.assert_array_equal(m.column(j, rows), truth[rows, j])
    np.testing.assert_array_equal(m[:, [3, 0, 1]], truth[:, [3, 0, 1]])
    np.testing.assert_array_equal(m[rows, :], truth[rows])
    np.testing.assert_array_equal(m[:, np.array([False, True, False, True, False])], truth[:, [1, 3]])
    assert m[rows, []].shape == (4, 0)
    with pytest.raises(IndexError):
        m[0]
    # a rule reads the float64 column: 0.1 and float32's 0.1 (0.100000001...) fall on either side of this threshold
    from explainer.rules.model import Condition

    tenth = pd.DataFrame({"x": [0.1, 0.2, 1.0]})
    assert Condition("x", "<=", 0.1).mask(feature_matrix(tenth), {"x": 0}).tolist() == [True, False, False]


def test_a_float32_matrix_is_compared_as_float64_by_a_rule():
    """1.00000006 lies between 1 and the next float32 number, 1.0000001192...; rounded to float32 it would be that
    number, and a float32 comparison would put it on the other side of the threshold."""
    from explainer.rules.model import Condition

    X = np.array([[1.0000001192092896], [1.0]], dtype=np.float32)
    assert Condition("x", "<=", 1.00000006).mask(X, {"x": 0}).tolist() == [False, True]
    assert Condition("x", ">", 1.00000006).mask(X, {"x": 0}).tolist() == [True, False]


def test_a_pool_on_a_mixed_precision_matrix_is_the_pool_on_float64(monkeypatch):
    """Decimal fractions, values float32 cannot tell apart (ranked for the trees), whole numbers and gaps, with the
    grown rules, the simplifier and a forbidden column: the pool built on the mixed matrix is the one built on the
    float64 matrix, rule for rule and row for row, and its trees learn from the mixed matrix's float32 part."""
    from explainer.data.precision import Float32View
    from explainer.rules import pool as pool_module

    rng = np.random.default_rng(11)
    n = 3000
    X = pd.DataFrame({"age": rng.integers(17, 90, n).astype(float), "rate": np.round(rng.random(n) * 20, 2),
                      "huge": 1e15 + 0.125 * rng.integers(0, 9, n), "flag": rng.integers(0, 2, n),
                      "ratio": rng.random(n) / 3, "id": np.arange(n) / 7,
                      **{f"code{i}": rng.integers(0, 2 + i, n) for i in range(5)}})
    X.loc[rng.random(n) < 0.05, "rate"] = np.nan
    y = np.where((X.rate.fillna(0) > 10.05) & (X.age > 40) | (X.huge > 1e15 + 0.5) & (X.flag == 1), "a", "b")
    y = np.where(X.ratio > 0.3, "c", np.where(X.code3 == 4, "d", y))
    m = pool_module.feature_matrix(X)
    assert isinstance(m, MixedPrecisionMatrix) and sorted(m.wide) == [1, 2, 4, 5]
    view = Float32View(m)
    assert list(view.ranked) == [2] and view.matrix is m.narrow  # ranked in place: no copy of the table
    settings = {**default_pool_settings(), "forbidden_columns": ["id"]}
    mixed = build_pool(X, y, **settings)
    monkeypatch.setattr(pool_module, "feature_matrix", lambda frame: frame.to_numpy(dtype=float))
    wide = build_pool(X, y, **settings)
    assert [str(r) for r in mixed.rules] == [str(r) for r in wide.rules]
    assert any("rate" in str(r) for r in mixed.rules) and any("huge" in str(r) for r in mixed.rules)
    assert (mixed.coverage != wide.coverage).nnz == 0 and (mixed.rule_class == wide.rule_class).all()


def test_a_pool_on_a_float32_matrix_is_the_pool_on_float64(monkeypatch):
    """Whole numbers, 0/1 features and gaps (float32 holds them all): the pool built on the float32 matrix is the
    one built on the float64 matrix, rule for rule and row for row."""
    from explainer.rules import pool as pool_module

    rng = np.random.default_rng(4)
    X = pd.DataFrame({"age": rng.integers(17, 90, 3000).astype(float), "hours": rng.integers(1, 99, 3000),
                      "flag": rng.integers(0, 2, 3000), "big": rng.integers(0, 2**23, 3000).astype(float)})
    X.loc[rng.random(3000) < 0.05, "age"] = np.nan
    # two neighbouring float32 numbers: the short threshold between them (1.0000002), rounded to float32, is the
    # larger one, so any comparison made in float32 would put that value on the wrong side
    a = np.nextafter(np.float32(1), np.float32(2))
    X["fine"] = np.where(rng.random(3000) < 0.5, float(a), float(np.nextafter(a, np.float32(2))))
    y = np.where((X.age.fillna(0) > 40) & (X.hours > 30) | (X.flag == 1) & (X.big < 2**22), "a", "b")
    y = np.where(X.fine > float(a), "c", y)
    assert pool_module.feature_matrix(X).dtype == np.float32
    narrow = build_pool(X, y, **default_pool_settings())
    monkeypatch.setattr(pool_module, "feature_matrix", lambda frame: frame.to_numpy(dtype=float))
    wide = build_pool(X, y, **default_pool_settings())
    assert [str(r) for r in narrow.rules] == [str(r) for r in wide.rules]
    assert (narrow.coverage != wide.coverage).nnz == 0 and (narrow.rule_class == wide.rule_class).all()
