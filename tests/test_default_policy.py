"""The default budget policy (explainer.pipeline.default_budgets) on small tables whose answer is known
(its validation and 1-SE rule: tests/test_validation.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from explainer import pipeline
from explainer.estimator import RuleSetExplainer
from explainer.pipeline import (
    default_budgets,
    explain_pool,
    policy_rows,
    reading,
    resolve_budgets,
)
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


def _fallback(pool, selection):
    """The most frequent class of the rows no selected rule covers (ties: the overall majority, then the first
    class), counted row by row in plain Python; every row covered: the overall majority."""
    cov = pool.coverage.toarray().astype(bool)[:, np.flatnonzero(selection)]
    left = [int(pool.y[j]) for j in range(pool.n_rows) if not cov[j].any()]
    overall = [int(v) for v in pool.y]
    return min(range(len(pool.classes)), key=lambda k: (-left.count(k), -overall.count(k), k))


def _vote_right(pool, selection, fallback=None):
    """Rows the vote gets right, row by row in plain Python (the fallback where none fires or classes tie;
    default: the fallback of the selection, :func:`_fallback`)."""
    fallback = _fallback(pool, selection) if fallback is None else fallback
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


def test_one_exact_rule_and_the_else_line_explain_two_classes(two):
    # one rule for either class, the other class taking the rows it leaves (ELSE), gets every held-out row right
    # with one condition: both forms find such a rule, and on the tie the first candidate (form "all") is taken
    X, y, pool = two
    d = default_budgets(pool)
    assert (d.form, d.complexity_budget, d.error_budget, d.objective) == ("all", 1, 0, "coverage")
    assert d.selection.sum() == 1 and _vote_right(pool, d.selection) == 200
    assert _fallback(pool, d.selection) != pool.rule_class[d.selection][0]
    fallback_form = [c for c in d.candidates if c["form"] == "fallback" and c["complexity"] == 1]
    assert fallback_form and max(c["accuracy"] for c in fallback_form) == 1.0
    # the same pool gives the same defaults
    again = default_budgets(pool)
    assert (again.form, again.complexity_budget, again.error_budget) == (d.form, d.complexity_budget,
                                                                           d.error_budget)
    assert np.array_equal(again.selection, d.selection) and again.candidates == d.candidates


def test_the_chosen_selection_keeps_its_budgets_and_its_point_is_marked(two, three):
    for _, _, pool in (two, three):
        d = default_budgets(pool)
        (chosen,) = [c for c in d.candidates if c["chosen"]]
        assert (chosen["form"], chosen["complexity_budget"], chosen["error_budget"], chosen["objective"]) == (
            d.form, d.complexity_budget, d.error_budget, d.objective)
        assert all(c["n_rules"] >= 1 for c in d.candidates if c["chosen"])  # never the empty explanation
        ev = SelectionProblem.from_pool(pool, d.complexity_budget, d.error_budget).evaluate(d.selection)
        assert ev.feasible and ev.n_rules >= 1


def test_three_classes_told_apart_by_one_feature_take_two_rules_and_the_else_line(three):
    # two one-phrase rules and the ELSE line (the class of the rows they leave) get every row right, which one
    # rule cannot
    _, _, pool = three
    d = default_budgets(pool)
    assert (d.form, d.rules, d.complexity_budget, d.error_budget) == ("all", None, 2, 0)
    assert _vote_right(pool, d.selection) == 150


def test_explanations_with_default_budgets_use_the_form_chosen(two):
    X, y, pool = two
    exp = explain_pool(pool, X, y, algorithm="qga", random_state=0)
    d = default_budgets(pool)
    assert exp.result.selection.shape == (pool.n_rules,)
    assert exp.result.selection.any()
    allowed = None if d.rules is None else [pool.classes[k] for k in np.unique(pool.rule_class[d.rules])]
    assert exp.report.settings["rule_classes"] == allowed
    assert exp.report.accuracy == 1.0 and exp.report.fallback not in {r.label for r in exp.rules}
    assert exp.problem.evaluate(exp.result.selection).coverage == exp.result.coverage
    # the policy's fallback form leaves the most frequent class ("no") to the ELSE line
    only = explain_pool(pool, X, y, algorithm="qga", random_state=0, rules=np.flatnonzero(pool.rule_class == 1))
    assert {r.label for r in only.rules} == {"yes"} and only.report.fallback == "no"
    # budgets given: every rule may be used
    free = explain_pool(pool, X, y, complexity_budget=2, error_budget=0, algorithm="qga", random_state=0)
    assert free.report.settings["rule_classes"] is None
    assert resolve_budgets(pool) == (1, 0)
    model = RuleSetExplainer(max_depth=3, random_state=0).fit(X, y)
    assert len(model.rules_) == 1 and model.default_class_ != model.rules_[0].label
    assert (model.predict(X) == y).all()


def test_policy_rows_are_a_fixed_stratified_sample():
    y = np.array(["a"] * 700 + ["b"] * 299 + ["c"])
    rows = policy_rows(y, 100)
    assert np.array_equal(rows, policy_rows(y, 100)) and np.array_equal(rows, np.unique(rows))
    assert [int((y[rows] == k).sum()) for k in "abc"] == [70, 30, 1]  # each class its share, at least one row
    assert np.array_equal(policy_rows(y, 1000), np.arange(1000))  # small tables: every row


def test_a_large_table_is_read_on_a_subsample_and_its_budgets_fit_every_row(two, monkeypatch):
    _, _, pool = two
    monkeypatch.setattr(reading, "POLICY_ROWS", 100)
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
    from explainer.pipeline import validation

    _, _, pool = two
    monkeypatch.setattr(validation, "_improve", lambda problem, selection: np.zeros(problem.n_rules, dtype=bool))
    d = default_budgets(pool)
    assert (d.form, d.rules) == ("all", None) and d.candidates and not any(c["chosen"] for c in d.candidates)
    assert d.error_budget == pool.best_tree().errors


@pytest.mark.parametrize("sampled", [False, True])
def test_weighted_defaults_are_weights_that_the_chosen_selection_keeps_on_every_row(two, monkeypatch, sampled):
    _, _, pool = two
    if sampled:
        monkeypatch.setattr(reading, "POLICY_ROWS", 100)
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
    assert len(plain.rules) == 1 and plain.report.accuracy == 1.0  # one class is the ELSE line
    weighted = explain_pool(pool, X, y, algorithm="greedy", random_state=0, class_weight="balanced")
    assert {str(r.label) for r in weighted.rules} == {"no", "yes"}
    est = RuleSetExplainer(class_weight="balanced", algorithm="greedy", random_state=0).fit(X, y)
    assert {str(r.label) for r in est.rules_} == {"no", "yes"}
