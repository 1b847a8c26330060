"""The default budget policy (explainer.pipeline.default_budgets) on small tables whose answer is known."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from explainer import pipeline
from explainer.estimator import RuleSetExplainer
from explainer.pipeline import default_budgets, explain_pool, policy, policy_rows, resolve_budgets
from explainer.rules.pool import build_pool
from explainer.selection.problem import SelectionProblem


def _two_classes():
    """200 rows: "yes" exactly where x1 = 1 (60 rows), "no" elsewhere; x2 is noise."""
    rng = np.random.default_rng(3)
    x1 = np.zeros(200, dtype=int)
    x1[rng.permutation(200)[:60]] = 1
    X = pd.DataFrame({"x1": x1, "x2": rng.normal(size=200).round(2)})
    y = np.where(x1 == 1, "yes", "no")
    return X, y


def _three_classes():
    """150 rows, three classes of 50 told apart by x alone (a: x < 1, b: 1 <= x < 2, c: x >= 2)."""
    rng = np.random.default_rng(4)
    x = np.concatenate([rng.uniform(0, 0.9, 50), rng.uniform(1.1, 1.9, 50), rng.uniform(2.1, 3, 50)]).round(2)
    X = pd.DataFrame({"x": x, "noise": rng.normal(size=150).round(2)})
    y = np.repeat(["a", "b", "c"], 50)
    return X, y


def _pool(X, y):
    return build_pool(X, y, 3, random_state=0, classes=sorted(set(y)), phrase_length=True)


@pytest.fixture(scope="module")
def two():
    X, y = _two_classes()
    return X, y, _pool(X, y)


@pytest.fixture(scope="module")
def three():
    X, y = _three_classes()
    return X, y, _pool(X, y)


def _vote_right(pool, selection, fallback):
    """Rows the vote gets right, row by row in plain Python (the fallback where none fires or classes tie)."""
    cov = pool.coverage.toarray().astype(bool)
    right = 0
    for j in range(pool.n_rows):
        counts = {}
        for i in np.flatnonzero(selection):
            if cov[j, i]:
                counts[pool.rule_class[i]] = counts.get(pool.rule_class[i], 0) + 1
        top = max(counts.values(), default=0)
        winners = [k for k, c in counts.items() if c == top]
        label = winners[0] if top > 0 and len(winners) == 1 else fallback
        right += int(label == pool.y[j])
    return right


def test_one_exact_rule_for_the_minority_class_is_the_fallback_form(two):
    # every candidate of the form "all" needs a rule per class (two conditions) to get all 200 rows
    # right; "x1 = 1 -> yes" alone, "no" taking the rest, gets them right with one condition
    X, y, pool = two
    d = default_budgets(pool)
    assert (d.form, d.complexity_budget, d.error_budget) == ("fallback", 1, 0)
    yes = pool.classes.index("yes")
    assert d.selection.sum() == 1 and pool.rule_class[d.selection].tolist() == [yes]
    assert _vote_right(pool, d.selection, pool.classes.index("no")) == 200
    assert set(pool.rule_class[d.rules]) == {yes}
    # the same pool gives the same defaults
    again = default_budgets(pool)
    assert (again.form, again.complexity_budget, again.error_budget) == (d.form, d.complexity_budget,
                                                                           d.error_budget)
    assert np.array_equal(again.selection, d.selection) and again.candidates == d.candidates


def test_the_policy_takes_the_best_score_and_scores_by_the_vote(two, three):
    for _, _, pool in (two, three):
        d = default_budgets(pool)
        n = pool.n_rows
        price = max(1.0, pipeline.CONDITION_PRICE * n)
        for c in d.candidates:
            assert c["score"] == pytest.approx(c["training_accuracy"] * n - price * c["conditions"])
            assert c["conditions"] >= 1  # never the empty explanation
        best = max(d.candidates, key=lambda c: (c["score"], -c["conditions"], c["form"] == "all"))
        assert (best["form"], best["complexity_budget"], best["error_budget"]) == (
            d.form, d.complexity_budget, d.error_budget)
        fallback = int(np.argmax(np.bincount(pool.y)))
        assert _vote_right(pool, d.selection, fallback) == pytest.approx(best["training_accuracy"] * n)
        # the chosen selection keeps the budgets it is the default of, on every row
        ev = SelectionProblem.from_pool(pool, d.complexity_budget, d.error_budget).evaluate(d.selection)
        assert ev.feasible and ev.complexity == best["conditions"]


def test_without_a_majority_class_only_rules_of_every_class_are_weighed(three):
    # the fallback class holds a third of the rows: the fallback form is not weighed; one rule per
    # class (x <= 1, an interval of two conditions, x > 2: four conditions) gets every row right, which two
    # rules cannot
    _, _, pool = three
    d = default_budgets(pool)
    assert {c["form"] for c in d.candidates} == {"all"}
    assert (d.form, d.rules, d.complexity_budget, d.error_budget) == ("all", None, 4, 0)
    assert _vote_right(pool, d.selection, 0) == 150


def test_explanations_with_default_budgets_use_the_form_chosen(two):
    X, y, pool = two
    exp = explain_pool(pool, X, y, algorithm="qga", random_state=0)
    yes = pool.classes.index("yes")
    assert exp.result.selection.shape == (pool.n_rules,)
    assert exp.result.selection.any() and set(pool.rule_class[exp.result.selection]) == {yes}
    assert exp.report.settings["rule_classes"] == ["yes"]
    assert exp.problem.evaluate(exp.result.selection).coverage == exp.result.coverage
    # budgets given: every rule may be used
    free = explain_pool(pool, X, y, complexity_budget=2, error_budget=0, algorithm="qga", random_state=0)
    assert free.report.settings["rule_classes"] is None
    assert resolve_budgets(pool) == (1, 0)
    model = RuleSetExplainer(max_depth=3, random_state=0).fit(X, y)
    assert [r.label for r in model.rules_] == ["yes"] and model.default_class_ == "no"
    assert (model.predict(X) == y).all()


def test_policy_rows_are_a_fixed_stratified_sample():
    y = np.array(["a"] * 700 + ["b"] * 299 + ["c"])
    rows = policy_rows(y, 100)
    assert np.array_equal(rows, policy_rows(y, 100)) and np.array_equal(rows, np.unique(rows))
    assert [int((y[rows] == k).sum()) for k in "abc"] == [70, 30, 1]  # each class its share, at least one row
    assert np.array_equal(policy_rows(y, 1000), np.arange(1000))  # small tables: every row


def test_a_large_table_is_read_on_a_subsample_and_its_budgets_fit_every_row(two, monkeypatch):
    _, _, pool = two
    monkeypatch.setattr(policy, "POLICY_ROWS", 100)
    d = default_budgets(pool)
    assert d.policy_rows == 100
    ev = SelectionProblem.from_pool(pool, d.complexity_budget, d.error_budget).evaluate(d.selection)
    assert ev.feasible and ev.n_rules >= 1
    assert d.to_dict()["policy_rows"] == 100
    again = default_budgets(pool)
    assert (again.complexity_budget, again.error_budget) == (d.complexity_budget, d.error_budget)


def test_another_default_class_lets_every_rule_be_used(two):
    # the fallback form leaves "no" to the fallback; with "yes" as the default class rules for "no" are needed
    X, y, _ = two
    model = RuleSetExplainer(max_depth=3, random_state=0, default_class="yes").fit(X, y)
    assert "no" in {r.label for r in model.rules_}
    assert (model.predict(X) == y).all()


def test_without_a_candidate_rule_the_default_is_the_knee_at_the_trees_errors(two, monkeypatch):
    _, _, pool = two
    sweep = policy._knee_sweep

    def nothing_found(*args, **kwargs):
        s = sweep(*args, **kwargs)
        return dataclasses.replace(s, selections={b: np.zeros_like(v) for b, v in s.selections.items()})

    monkeypatch.setattr(policy, "_knee_sweep", nothing_found)
    d = default_budgets(pool)
    assert (d.form, d.rules, d.candidates) == ("all", None, [])
    assert d.error_budget == pool.best_tree().errors


@pytest.mark.parametrize("sampled", [False, True])
def test_weighted_defaults_are_weights_that_the_chosen_selection_keeps_on_every_row(two, monkeypatch, sampled):
    _, _, pool = two
    if sampled:
        monkeypatch.setattr(policy, "POLICY_ROWS", 100)
    weights = pipeline.row_weights(pool.y, pool.classes, "balanced")
    d = default_budgets(pool, sample_weight=weights)
    assert isinstance(d.error_budget, float)  # balanced weights are fractions: the budget is a weight
    assert d.n_rows == pytest.approx(weights.sum())
    ev = SelectionProblem.from_pool(pool, d.complexity_budget, d.error_budget,
                                    sample_weight=weights).evaluate(d.selection)
    assert ev.feasible and ev.n_rules >= 1
    # whole-number weights all 1 give exactly the unweighted defaults
    ones = default_budgets(pool, sample_weight=np.ones(pool.n_rows))
    plain = default_budgets(pool)
    assert (ones.complexity_budget, ones.error_budget, ones.form) == (plain.complexity_budget, plain.error_budget,
                                                                     plain.form)


def test_balanced_class_weights_explain_every_class_by_rules_of_its_own(two):
    X, y, pool = two
    assert pipeline.every_class_explained("balanced") and not pipeline.every_class_explained(None)
    plain = explain_pool(pool, X, y, algorithm="greedy", random_state=0)
    assert {str(r.label) for r in plain.rules} == {"yes"}  # the fallback form: "no" is the ELSE line
    weighted = explain_pool(pool, X, y, algorithm="greedy", random_state=0, class_weight="balanced")
    assert {str(r.label) for r in weighted.rules} == {"no", "yes"}
    est = RuleSetExplainer(class_weight="balanced", algorithm="greedy", random_state=0).fit(X, y)
    assert {str(r.label) for r in est.rules_} == {"no", "yes"}
