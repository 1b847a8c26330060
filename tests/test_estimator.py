"""The scikit-learn estimator."""

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils.estimator_checks import parametrize_with_checks

from explainer.data import TableEncoder
from explainer.data.tables import DataError
from explainer.estimator import RuleSetExplainer

# Expected to fail, and why (every other scikit-learn check runs and passes; check_classifiers_train,
# which wants high training accuracy, passes since the default is chosen on held-out folds):
# check_sample_weight_equivalence_on_dense_data: sample weights act where rules are chosen, not where
# the candidate pool is grown (the trees see the rows as given), so repeating rows changes the pool and
# weighting them does not; tests/test_weights.py checks the equivalence where it holds, in the selection.
# check_class_weight_classifiers (class weights 1000 : 0.0001 : 0.0001 on three noisy blobs): the default
# keeps at least one rule, and rules for the classes of almost no weight cost nothing within Be = 0, so
# 86 % of the test rows, not the 87 % asked, get class 0.
EXPECTED_FAILED = {
    "check_sample_weight_equivalence_on_dense_data": "the pool is grown from the unweighted rows",
    "check_class_weight_classifiers": "rules of classes of almost no weight are kept when they cost nothing",
}


@pytest.mark.slow
@parametrize_with_checks(
    [RuleSetExplainer(max_depth=3, algorithm="greedy", random_state=0)],
    expected_failed_checks=lambda est: EXPECTED_FAILED,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_fit_predict_score_on_iris():
    X, y = load_iris(return_X_y=True, as_frame=True)
    est = RuleSetExplainer(max_depth=3, n_repeats=1, complexity_budget=4, error_budget=5, algorithm="rfhc", random_state=0)
    est.fit(X, y)
    assert est.rules_ is not None and est.rules_.complexity <= 4
    assert est.result_.errors <= 5 and est.result_.feasible
    assert est.pool_.n_trees == 24
    assert est.score(X, y) > 0.8
    assert set(np.unique(est.predict(X))) <= set(est.classes_)


@pytest.mark.slow
def test_same_seed_same_rules():
    X, y = load_iris(return_X_y=True)
    a = RuleSetExplainer(max_depth=4, algorithm="ga", random_state=3).fit(X, y)
    b = clone(a).fit(X, y)
    assert a.rules_.to_text() == b.rules_.to_text()


@pytest.mark.slow
def test_get_params_clone_and_pipeline():
    est = RuleSetExplainer(max_depth=4, algorithm="greedy", algorithm_params={"x": 1})
    assert est.get_params()["algorithm_params"] == {"x": 1}
    assert clone(est).get_params() == est.get_params()
    X, y = load_iris(return_X_y=True)
    pipe = make_pipeline(FunctionTransformer(), RuleSetExplainer(max_depth=3, algorithm="greedy", random_state=0))
    scores = cross_val_score(pipe, X, y, cv=3)
    assert scores.mean() > 0.6


def test_bad_algorithm_raises_value_error():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="unknown algorithm"):
        RuleSetExplainer(algorithm="nope").fit(X, y)


@pytest.mark.parametrize(
    "params, message",
    [
        ({"algorithm": "qgaa"}, r"unknown algorithm 'qgaa' \(did you mean 'qga'\?\); choose one of .*greedy"),
        ({"algorithm": 3}, "'algorithm' parameter"),
        ({"algorithm_params": {"generations": 5}}, "qga algorithm has no parameter 'generations'.*n_generations"),
        ({"algorithm": "exact", "algorithm_params": {"backend": "nope"}}, "exact algorithm refuses.*backend must be"),
        ({"algorithm_params": [1]}, "'algorithm_params' parameter"),
        ({"max_depth": 1}, "'max_depth' parameter"),
        ({"complexity_budget": -1}, "'complexity_budget' parameter"),
        ({"error_budget": 2.5}, "'error_budget' parameter"),
        ({"eps": -0.5}, "'eps' parameter"),
        ({"n_repeats": 0}, "'n_repeats' parameter"),
        ({"source": "tree"}, "'source' parameter"),
        ({"random_state": "seed"}, "'random_state' parameter"),
        ({"encoder": "one-hot"}, "'encoder' parameter"),
        ({"default_class": 7}, r"default_class 7 is not one of the classes of y \(0, 1, 2\)"),
        ({"class_weight": "balance"}, "'class_weight' parameter"),
        ({"class_weight": [1, 2]}, "'class_weight' parameter"),
        ({"class_weight": {5: 2.0}}, "class_weight names classes not in y: 5"),
        ({"class_weight": {0: -1.0}}, "class_weight values must be finite and >= 0"),
    ],
)
def test_every_parameter_is_checked_before_any_work(monkeypatch, params, message):
    """A bad parameter fails with a ValueError naming it before the table is encoded or a tree grown."""
    import explainer.estimator as estimator

    def no_work(*args, **kwargs):
        raise AssertionError("work began before the parameters were checked")

    monkeypatch.setattr(estimator, "build_pool", no_work)
    monkeypatch.setattr(estimator, "explain_pool", no_work)
    monkeypatch.setattr(estimator.TableEncoder, "fit_transform", no_work)
    X, y = load_iris(return_X_y=True, as_frame=True)
    with pytest.raises(ValueError, match=message):
        RuleSetExplainer(**params).fit(X, y)


def test_parameters_are_keyword_only():
    with pytest.raises(TypeError):
        RuleSetExplainer(3)


@pytest.mark.slow
def test_random_state_instance_and_int_give_the_same_rules():
    X, y = load_iris(return_X_y=True)
    by_int = RuleSetExplainer(max_depth=3, algorithm="greedy", random_state=5).fit(X, y)
    by_state = RuleSetExplainer(max_depth=3, algorithm="greedy", random_state=np.random.RandomState(5)).fit(X, y)
    assert by_int.rules_.to_text() == by_state.rules_.to_text()


def _mixed_frame(n=60, seed=0):
    import pandas as pd

    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "blue", "green"], size=n, p=[0.3, 0.4, 0.3])
    frame = pd.DataFrame(
        {
            "colour": colour,
            "size": pd.Categorical(rng.choice(["S", "M", "L"], size=n)),
            "flag": pd.array(rng.choice([True, False, None], size=n), dtype="boolean"),
            "weight": np.where(rng.random(n) < 0.2, np.nan, rng.normal(50, 10, size=n)),
        }
    )
    y = np.where(colour == "red", "yes", "no")
    return frame, y


def test_dataframe_with_text_category_boolean_and_missing_values():
    import pandas as pd

    X, y = _mixed_frame()
    est = RuleSetExplainer(max_depth=3, complexity_budget=2, error_budget=0, algorithm="greedy", random_state=0)
    est.fit(X, y)
    assert list(est.feature_names_in_) == ["colour", "size", "flag", "weight"]
    # the class is exactly colour == red, so the rules are about colour and fit perfectly
    used = {c.feature for r in est.rules_ for c in r.conditions}
    assert used and all(f.startswith("colour=") for f in used)
    assert (est.predict(X) == y).all()
    # and they read as the analyst's columns and values, not as encoded features
    assert all(str(c).startswith(("colour = ", "colour != ")) for r in est.rules_ for c in r.conditions)
    specs = {s.name: s for s in est.encoder_.feature_specs_}
    assert specs["colour=red"].column == "colour" and specs["colour=red"].kind == "onehot"
    assert specs["size=M"].kind == "onehot"  # pandas category -> categorical
    assert specs["weight is missing"].kind == "missing"
    # new rows go through the fitted encoder; an unseen colour is in no colour=... feature
    new = pd.DataFrame(
        {"colour": ["red", "blue", "purple"], "size": ["S", "XL", None], "flag": [True, None, False],
         "weight": [40.0, np.nan, 70.0]}
    )
    assert est.predict(new).tolist() == ["yes", "no", "no"]
    assert est.encoder_.transform(new).loc[2, ["colour=blue", "colour=green", "colour=red"]].tolist() == [0, 0, 0]


def test_dataframe_with_other_columns_at_predict_is_refused():
    import pandas as pd

    X, y = _mixed_frame()
    est = RuleSetExplainer(max_depth=3, complexity_budget=2, error_budget=0, algorithm="greedy", random_state=0)
    est.fit(X, y)
    with pytest.raises(ValueError):
        est.predict(pd.DataFrame({"colour": ["red"], "shape": ["round"]}))

def test_predict_proba_is_the_mean_smoothed_precision_of_the_firing_rules():
    X, y = load_iris(return_X_y=True, as_frame=True)
    est = RuleSetExplainer(max_depth=3, complexity_budget=3, error_budget=5, algorithm="exact", random_state=0)
    est.fit(X, y)
    proba = est.predict_proba(X)
    assert proba.shape == (len(X), 3) and np.allclose(proba.sum(axis=1), 1.0)
    assert est.pattern_smoothing_ is None  # the folds found no gain in the rules' conditions here: the vote's alone
    cov = est.rules_.coverage_matrix(X)
    y = np.asarray(y)
    prior = np.bincount(y) / len(y)
    m = 2.0  # the m-estimate: (count + m * prior) / (rows + m)

    def smoothed(rows):
        return (np.bincount(y[rows], minlength=3) + m * prior) / (rows.sum() + m)

    per_rule = [smoothed(cov[:, i]) for i in range(len(est.rules_))]
    uncovered = ~cov.any(axis=1)
    for j in range(len(X)):
        fired = np.flatnonzero(cov[j])
        expected = smoothed(uncovered) if fired.size == 0 else np.mean([per_rule[i] for i in fired], axis=0)
        assert np.allclose(proba[j], expected)
    assert uncovered.any()  # Bc = 3 leaves rows uncovered: the fallback is exercised
    # a rule right on all of its rows still leaves room for doubt
    assert proba.max() < 1.0


def test_brier_score_beats_the_shares_of_firing_rules_on_held_out_rows():
    # the smoothed precisions are better calibrated than counting the firing rules' classes
    from sklearn.model_selection import train_test_split

    X, y = load_iris(return_X_y=True)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.4, random_state=0, stratify=y)
    est = RuleSetExplainer(max_depth=3, complexity_budget=2, error_budget=5, algorithm="exact",
                           random_state=0).fit(X_tr, y_tr)
    onehot = np.eye(3)[y_te]
    counts = est.rule_class_counts(X_te).astype(float)
    fired = counts.sum(axis=1, keepdims=True)
    shares = np.where(fired > 0, counts / np.maximum(fired, 1), np.bincount(y_tr) / len(y_tr))
    brier = lambda p: float(np.mean(np.sum((p - onehot) ** 2, axis=1)))  # noqa: E731
    assert brier(est.predict_proba(X_te)) < brier(shares)


def _partial_table(n, seed):
    """Class 1 mostly where a and b both exceed 0.5, about half the time where only a does, a fifth else."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, 2))
    share = np.where((X[:, 0] > 0.5) & (X[:, 1] > 0.5), 0.95, np.where(X[:, 0] > 0.5, 0.45, 0.2))
    return X, (rng.random(n) < share).astype(int)


def test_predict_proba_tells_rows_apart_by_the_rules_conditions_they_meet():
    """The one rule the error budget allows (a > 0.5 and b > 0.5 gives class 1) leaves rows of two kinds to the
    fallback: those where a alone holds (class 1 about half the time) and the others (a fifth). The vote gives
    them one distribution; the step by the conditions each row meets tells them apart."""
    from explainer.report.probabilities import vote_probabilities

    X, y = _partial_table(3000, 0)
    est = RuleSetExplainer(max_depth=3, complexity_budget=2, error_budget=60, algorithm="exact",
                           random_state=0).fit(X, y)
    assert len(est.rules_) == 1 and len(est.rules_[0].conditions) == 2 and est.pattern_smoothing_ is not None
    m = est.pattern_smoothing_
    X_te, y_te = _partial_table(3000, 1)
    frame = est._frame(X_te)
    cov = est.rules_.coverage_matrix(frame).astype(float)
    _, vote_only = vote_probabilities(est._probabilities, cov)
    proba = est.predict_proba(X_te)
    assert (est.classes_[proba.argmax(axis=1)] == est.predict(X_te)).all()
    # by hand: the training rows grouped by the conditions they meet, each test row's probabilities moved
    # towards its group's class counts by the m-estimate
    conditions = est.pattern_conditions_  # the rules' own first, then a reference tree's if the folds took them
    assert conditions[:2] == tuple(est.rules_[0].conditions)
    met_tr = np.column_stack([c.mask(est._frame(X)) for c in conditions])
    met_te = np.column_stack([c.mask(frame) for c in conditions])
    for j in range(0, 3000, 37):
        same = (met_tr == met_te[j]).all(axis=1)
        counts = np.bincount(y[same], minlength=2).astype(float)
        expected = (counts + m * vote_only[j]) / (counts.sum() + m)
        if expected.argmax() != proba[j].argmax():  # the vote's class keeps the largest: the two swap
            expected = expected[::-1]
        assert np.allclose(proba[j], expected)
    onehot = np.eye(2)[y_te]
    brier = lambda p: float(np.mean(np.sum((p - onehot) ** 2, axis=1)))  # noqa: E731
    assert brier(proba) < brier(vote_only) - 0.01


def _graded_table(n, seed):
    """Class 1 with probability 0.95, 0.65, 0.35, 0.05 in the four quarters of (a > 0.5, b > 0.5): a alone gives
    the likelier class, b says how sure.  Returns X, y and the probabilities the labels were drawn from."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, 2))
    share = np.where(X[:, 0] > 0.5, np.where(X[:, 1] > 0.5, 0.95, 0.65), np.where(X[:, 1] > 0.5, 0.35, 0.05))
    return X, (rng.random(n) < share).astype(int), share


def test_predict_proba_groups_rows_by_a_reference_tree_where_the_rules_say_too_little():
    """One rule on a is the whole explanation Bc = 1 allows; b, which no rule reads, still tells likely rows from
    unlikely ones.  The pool's small CART trees split on it, and the folds take their conditions into the
    grouping: the held-out Brier score comes close to that of the probabilities the labels were drawn from,
    while predict stays the rule's vote."""
    from explainer.report.probabilities import (
        brier_score,
        fit_patterns,
        rule_conditions,
        vote_probabilities,
    )

    X, y, _ = _graded_table(3000, 0)
    est = RuleSetExplainer(max_depth=4, complexity_budget=1, error_budget=320, algorithm="exact",
                           random_state=0).fit(X, y)
    assert len(est.rules_) == 1 and {c.feature for c in est.rules_[0].conditions} == {"x0"}
    assert any(c.feature == "x1" for c in est.pattern_conditions_)  # b, which no rule reads, groups the rows
    X_te, y_te, truth = _graded_table(3000, 1)
    proba = est.predict_proba(X_te)
    assert (est.classes_[proba.argmax(axis=1)] == est.predict(X_te)).all()
    # the same step on the rules' conditions alone (the m the estimator chose): the probabilities without the tree
    frame, frame_te = est._frame(X), est._frame(X_te)
    bare = replace(est._probabilities, patterns=None)
    vote, flat = vote_probabilities(bare, est.rules_.coverage_matrix(frame).astype(float))
    own = fit_patterns(rule_conditions(est.rules_), frame, y, 2, flat, vote, [], grid=(est.pattern_smoothing_,))
    _, flat_te = vote_probabilities(bare, est.rules_.coverage_matrix(frame_te).astype(float))
    rules_only = flat_te if own is None else own.refine(flat_te, frame_te)
    assert brier_score(proba, y_te) < brier_score(rules_only, y_te) - 0.02
    assert brier_score(proba, y_te) < brier_score(np.column_stack([1 - truth, truth]), y_te) + 0.01


def test_predict_proba_with_a_default_class_and_one_class():
    X, y = load_iris(return_X_y=True)
    est = RuleSetExplainer(max_depth=3, complexity_budget=1, error_budget=0, algorithm="greedy",
                           default_class=2, random_state=0).fit(X, y)
    proba = est.predict_proba(X)
    uncovered = ~est.rules_.coverage_matrix(est._frame(X)).any(axis=1)
    assert np.allclose(proba[uncovered], [0, 0, 1])
    one = RuleSetExplainer(max_depth=3).fit(X[:10], np.zeros(10, dtype=int))
    assert np.allclose(one.predict_proba(X[:3]), 1.0) and one.predict_proba(X[:3]).shape == (3, 1)


def test_a_one_class_fit_sets_every_fitted_attribute():
    X, y = load_iris(return_X_y=True)
    many = RuleSetExplainer(max_depth=3, complexity_budget=2, error_budget=0, algorithm="greedy").fit(X, y)
    one = RuleSetExplainer(max_depth=3, algorithm="greedy").fit(X[:10], np.full(10, "setosa"))
    fitted = {k for k in vars(many) if k.endswith("_") and not k.startswith("_")}
    assert fitted <= set(vars(one))
    assert one.classes_.tolist() == ["setosa"] and one.default_class_ == "setosa"
    assert len(one.rules_) == 0 and one.pool_ is None and one.result_ is None
    assert (one.report_.n_rows, one.report_.covered, one.report_.n_rules) == (10, 0, 0)
    assert one.predict(X[:4]).tolist() == ["setosa"] * 4


def test_a_text_column_of_too_many_values_is_left_out_with_a_warning():
    rng = np.random.default_rng(0)
    n = 400
    x = rng.normal(size=n)
    X = pd.DataFrame({"x": x, "when": [f"{h}:{m:02d}" for h, m in zip(rng.integers(7, 18, n), rng.integers(0, 60, n),
                                                                       strict=True)],
                      "colour": rng.choice(["red", "blue"], n)})
    assert X["when"].nunique() > 100
    y = np.where(x > 0.3, "yes", "no")
    with pytest.warns(UserWarning, match=r"Column 'when' has \d+ distinct values, too many for a categorical feature "
                                         r"\(limit 100\): it is left out of the rules"):
        model = RuleSetExplainer(random_state=0).fit(X, y)
    assert "when" not in model.rules_.to_text()
    assert {c.name: c.kind for c in model.encoder_.columns_}["when"] == "too many values"
    assert any(w.startswith("Column 'when' has") for w in model.encoder_.warnings_)
    assert model.score(X, y) == 1.0
    new = X.iloc[:5].assign(when=["23:59"] * 5)  # values never seen: the column is not read
    np.testing.assert_array_equal(model.predict(new), model.predict(X.iloc[:5]))


def test_an_encoder_given_keeps_its_own_refusal():
    X = pd.DataFrame({"x": np.arange(300.0), "code": [f"c{i}" for i in range(300)]})
    y = np.where(X["x"] > 150, "a", "b")
    with pytest.raises(DataError, match="Column 'code' has 300 distinct values, too many for a categorical"):
        RuleSetExplainer(random_state=0, encoder=TableEncoder(detect_identifiers=False)).fit(X, y)
    with pytest.raises(DataError, match="many_values must be 'refuse' or 'exclude'"):
        TableEncoder(many_values="drop").fit(X)


@pytest.mark.parametrize("params", [{"n_population": 0}, {"stall": -5}, {"n_generations": -2}, {"time_limit": -1.0},
                                    {"time_limit": float("inf")}])
def test_algorithm_parameters_out_of_range_are_refused_before_any_work(params):
    X = np.random.default_rng(0).random((40, 2))
    y = np.repeat([0, 1], 20)
    with pytest.raises(ValueError, match=f"algorithm_params: the qga algorithm's {next(iter(params))} must be"):
        RuleSetExplainer(algorithm_params=params).fit(X, y)


def test_an_algorithm_that_optimises_coverage_only_runs_at_the_default_budgets():
    """The default policy may choose the accuracy objective; ForEx++ and IRFRE optimise the paper's f* only, so
    at the defaults they run on it (asked for explicitly, the accuracy objective is still refused)."""
    from explainer.data import load_dataset, sample_datasets
    from explainer.pipeline import PolicyChoice
    from explainer.selection.solvers import objective_for

    assert objective_for("forex", "accuracy") == objective_for("irfre", "accuracy") == "coverage"
    assert objective_for("qga", "accuracy") == "accuracy" and objective_for("forex", "coverage") == "coverage"
    choice = PolicyChoice(5, 3, objective="accuracy", chosen=True)
    assert choice.run_settings(algorithm="forex_trimmed").objective == "coverage"
    assert choice.run_settings(algorithm="qga").objective == "accuracy"
    assert choice.run_settings(algorithm="forex", objective="accuracy").objective == "accuracy"  # the caller's
    ds = load_dataset(sample_datasets()["loans"])
    for algorithm in ("forex_trimmed", "irfre"):
        est = RuleSetExplainer(algorithm=algorithm, random_state=0, max_depth=4).fit(ds.X, ds.y)
        assert est.report_.settings["objective"] == "coverage" and est.rules_ is not None


@pytest.mark.parametrize("name", ["complexity_budget", "error_budget", "max_depth", "n_repeats", "n_alternatives"])
def test_a_boolean_for_a_number_is_refused_before_any_work(name, monkeypatch):
    from explainer import estimator

    def no_pool(*a, **k):
        raise AssertionError("a pool was built")

    monkeypatch.setattr(estimator, "build_pool", no_pool)
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(ValueError, match=f"'{name}' parameter .*(must be a number, got|Got) True"):
        RuleSetExplainer(**{name: True}).fit(X, ["p", "q", "p", "q"])
