"""The probabilities of a rule set's vote, against hand counts."""

import numpy as np
import pytest
import scipy.sparse as sp

from explainer.report.probabilities import (
    agree,
    brier_score,
    brier_terms,
    fit_probabilities,
    vote_probabilities,
)

# six training rows of classes 0, 0, 0, 1, 1, 2; rule 0 (class 0) covers rows 0-3, rule 1 (class 1) rows 3-4
CODES = np.array([0, 0, 0, 1, 1, 2])
COV = np.array([[1, 0], [1, 0], [1, 0], [1, 1], [0, 1], [0, 0]], dtype=float)
RULE_CODES = np.array([0, 1])


def test_rule_and_fallback_distributions_are_m_estimates_of_their_rows():
    fitted = fit_probabilities(COV, CODES, RULE_CODES, 3, m=2.0)
    prior = np.array([3, 2, 1]) / 6
    assert np.allclose(fitted.prior, prior)
    # rule 0: classes (3, 1, 0) of 4 rows -> ((3, 1, 0) + 2 prior) / 6
    assert np.allclose(fitted.rule_proba[0], (np.array([3, 1, 0]) + 2 * prior) / 6)
    assert np.allclose(fitted.rule_proba[1], (np.array([0, 2, 0]) + 2 * prior) / 4)
    # the one uncovered row is of class 2: the fallback class, its distribution (0, 0, 1) smoothed
    assert fitted.fallback == 2
    assert np.allclose(fitted.fallback_proba, (np.array([0, 0, 1]) + 2 * prior) / 3)


def test_weights_count_in_every_distribution():
    weights = np.array([1, 1, 1, 1, 1, 10.0])
    fitted = fit_probabilities(COV, CODES, RULE_CODES, 3, weights, m=0.0)
    assert np.allclose(fitted.prior, np.array([3, 2, 10]) / 15)
    assert np.allclose(fitted.rule_proba[0], [0.75, 0.25, 0])


def test_the_vote_decides_and_ties_go_to_the_fallback():
    fitted = fit_probabilities(COV, CODES, RULE_CODES, 3, m=2.0)
    new = np.array([[1, 0], [0, 1], [1, 1], [0, 0]], dtype=float)
    code, proba = vote_probabilities(fitted, new)
    assert code.tolist() == [0, 1, 2, 2]  # rule 0; rule 1; a tie; none fires
    assert np.allclose(proba[0], fitted.rule_proba[0]) and np.allclose(proba[1], fitted.rule_proba[1])
    assert np.allclose(proba[2], fitted.fallback_proba) and np.allclose(proba[3], fitted.fallback_proba)
    assert np.allclose(proba.sum(axis=1), 1)
    # sparse coverage gives the same
    code_s, proba_s = vote_probabilities(fitted, sp.csr_matrix(new))
    assert np.array_equal(code, code_s) and np.allclose(proba, proba_s)


def test_two_rules_of_one_class_give_the_mean_of_their_distributions():
    cov = np.array([[1, 1], [1, 0], [0, 1], [0, 0]], dtype=float)
    fitted = fit_probabilities(cov, np.array([0, 0, 1, 1]), np.array([0, 0]), 2, m=1.0)
    code, proba = vote_probabilities(fitted, np.array([[1.0, 1.0]]))
    assert code.tolist() == [0]
    assert np.allclose(proba[0], fitted.rule_proba.mean(axis=0))


def test_agree_gives_the_decided_class_the_largest_probability():
    out = agree(np.array([[0.6, 0.4], [0.5, 0.5], [0.2, 0.8]]), np.array([1, 1, 1]))
    assert out.argmax(axis=1).tolist() == [1, 1, 1]
    assert np.allclose(out[0], [0.4, 0.6]) and np.allclose(out[2], [0.2, 0.8])
    assert np.allclose(out.sum(axis=1), 1)


def test_the_brier_score_and_its_standard_error_by_hand():
    proba = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    codes = np.array([0, 0, 0])
    terms = np.array([0.0, 0.5, 2.0])
    assert brier_score(proba, codes) == pytest.approx(terms.mean())
    mean, se = brier_terms(proba, codes)
    assert mean == pytest.approx(terms.mean())
    assert se == pytest.approx(terms.std() / np.sqrt(3))
    assert brier_score(proba, codes, weights=[0, 0, 1]) == pytest.approx(2.0)


def test_brier_by_smoothing_is_the_brier_score_of_each_smoothing():
    from explainer.report.probabilities import brier_by_smoothing, count_classes

    held = np.array([[1, 0], [0, 1], [1, 1], [0, 0], [1, 0]], dtype=float)
    held_codes = np.array([0, 1, 1, 2, 1])
    weights = count_classes(COV, CODES, RULE_CODES, 3)
    got = brier_by_smoothing(weights, held, held_codes, grid=(0.5, 4.0))
    for row, m in zip(got, (0.5, 4.0), strict=True):
        _, proba = vote_probabilities(fit_probabilities(COV, CODES, RULE_CODES, 3, m=m), held)
        assert row[0] == pytest.approx(brier_score(proba, held_codes))


# ------------------------------------------------------------------ the step by the rules' conditions
def _two_condition_rule():
    import pandas as pd

    from explainer.rules.model import Condition, Rule

    a, b = Condition("a", "<=", 0.5), Condition("b", "<=", 0.5)
    return (a, b), Rule((a, b), 0), pd


def test_condition_patterns_move_each_row_towards_its_groups_shares_by_hand():
    from explainer.report.probabilities import fit_patterns, rule_conditions

    (a, b), rule, pd = _two_condition_rule()
    assert rule_conditions([rule, rule]) == (a, b)  # distinct conditions, in order
    # patterns (a met, b met): rows 0-1 both (the rule fires), rows 2-4 only a, rows 5-7 neither
    frame = pd.DataFrame({"a": [0, 0, 0, 0, 0, 1, 1, 1], "b": [0, 0, 1, 1, 1, 1, 1, 1]}, dtype=float)
    codes = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    proba = np.tile([0.5, 0.5], (8, 1))
    vote = np.zeros(8, dtype=np.int64)
    fitted = fit_patterns((a, b), frame, codes, 2, proba, vote, splits=[], grid=(2.0,))
    assert fitted is not None and fitted.m == 2.0
    new = pd.DataFrame({"a": [0.0, 0.0, 1.0, 1.0], "b": [0.0, 1.0, 1.0, 0.0]})
    p = np.array([[0.6, 0.4], [0.7, 0.3], [0.2, 0.8], [0.9, 0.1]])
    out = fitted.refine(p, new)
    assert np.allclose(out[0], (np.array([2, 0]) + 2 * p[0]) / 4)  # both met: 2 rows of class 0
    assert np.allclose(out[1], (np.array([2, 1]) + 2 * p[1]) / 5)  # only a: 2 of class 0, 1 of class 1
    assert np.allclose(out[2], (np.array([0, 3]) + 2 * p[2]) / 5)  # neither: 3 of class 1
    assert np.allclose(out[3], p[3])  # only b: no training row met that pattern, the row keeps its own


def test_condition_patterns_are_chosen_on_held_out_rows_or_left_out():
    from explainer.report.probabilities import fit_patterns

    (a, b), _, pd = _two_condition_rule()
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.integers(0, 2, 400), "b": rng.integers(0, 2, 400)}, dtype=float)
    # class 0 where a holds, 9 times in 10, as the vote says; its flat probabilities do not say how sure: the
    # groups do
    vote = (frame["a"] > 0.5).to_numpy().astype(np.int64)
    codes = np.where(rng.random(400) < 0.9, vote, 1 - vote)
    flat = np.tile([0.5, 0.5], (400, 1))
    folds = [(np.setdiff1d(np.arange(400), np.arange(k, 400, 4)), np.arange(k, 400, 4)) for k in range(4)]
    chosen = fit_patterns((a, b), frame, codes, 2, flat, vote, folds)
    assert chosen is not None and chosen.m in (2.0, 8.0, 32.0)
    # nothing to gain when the class ignores both conditions, and no step when the grid offers none
    noise = rng.integers(0, 2, 400)
    shares = np.tile(np.bincount(noise, minlength=2) / 400, (400, 1))
    assert fit_patterns((a, b), frame, noise, 2, shares, vote, folds, grid=(None, 32.0)) is None
    assert fit_patterns((a, b), frame, codes, 2, flat, vote, folds, grid=(None,)) is None
    # every row a pattern of its own: no group could tell more than the row
    assert fit_patterns((a, b), frame.iloc[:3], codes[:3], 2, flat[:3], vote[:3], []) is None


def test_a_finer_grouping_is_taken_only_where_the_held_out_rows_prefer_it():
    """``finer`` groupings (a reference tree's conditions) are tried beside the rules' own: one that tells the
    classes apart is taken, one of noise is not."""
    import pandas as pd

    from explainer.report.probabilities import fit_patterns
    from explainer.rules.model import Condition

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.random(2000), "b": rng.random(2000), "c": rng.random(2000)})
    a, b, c = (Condition(name, "<=", 0.5) for name in "abc")
    vote = (frame["a"] > 0.5).to_numpy().astype(np.int64)
    share = np.where(vote == 1, np.where(frame["b"] > 0.5, 0.95, 0.65), np.where(frame["b"] > 0.5, 0.35, 0.05))
    codes = (rng.random(2000) < share).astype(np.int64)
    flat = np.where(vote[:, None] == 1, [0.2, 0.8], [0.8, 0.2])
    folds = [(np.setdiff1d(np.arange(2000), np.arange(k, 2000, 5)), np.arange(k, 2000, 5)) for k in range(5)]
    assert fit_patterns((a,), frame, codes, 2, flat, vote, folds) is None  # a alone tells nothing the vote does not
    taken = fit_patterns((a,), frame, codes, 2, flat, vote, folds, finer=((a, c), (a, b)))
    assert taken is not None and taken.conditions == (a, b)
    assert fit_patterns((a,), frame, codes, 2, flat, vote, folds, finer=((a, c), (c,))) is None
