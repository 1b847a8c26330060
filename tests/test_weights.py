"""Row weights in the selection problem, checked against independent truths.

* brute force: every one of the 2^M selections of a small weighted problem is evaluated from its
  definition (here, in plain numpy, not through the problem's own evaluation), so the weighted
  optimum is known; the MILP and QGA must reach it, and no solver may return a selection over a
  budget;
* replication: a problem with whole-number weights is the same problem with row j repeated w_j
  times (f*, covered rows, pairs, errors and the optimum);
* weights all 1 give the unweighted problem exactly (same numbers, same selections);
* the incremental state and the move scorer agree with a full evaluation after any flips.
"""

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lanes import seeds

from explainer.selection import ALGORITHMS, SelectionProblem
from explainer.selection.solvers.local_search import usable_rules
from explainer.selection.solvers.moves import MoveScorer
from explainer.selection.solvers.registry import get_solver_class, solve

#: quick settings for the solvers on these tiny problems (every one of them, same seed)
FAST = {
    "ga": {"n_generations": 30},
    "irfre": {"n_generations": 30},
    "irfre_rfhc": {"n_generations": 30},
    "qga_paper": {"n_generations": 10},
}


def random_weighted(seed, integer=None, N=None, M=None):
    """A small random problem with random weights (whole numbers or not) and random budgets."""
    rng = np.random.default_rng(seed)
    N = N or int(rng.integers(5, 31))
    M = M or int(rng.integers(2, 11))
    K = int(rng.integers(2, 4))
    cov = rng.random((N, M)) < rng.uniform(0.1, 0.5)
    y = rng.integers(0, K, N)
    rule_class = rng.integers(0, K, M)
    for i in range(M):  # rules mostly right, so the error budget matters
        rows = np.flatnonzero(cov[:, i])
        y[rows[rng.random(rows.size) < 0.5]] = rule_class[i]
    lengths = rng.integers(1, 5, M)
    integer = bool(seed % 2) if integer is None else integer
    w = rng.integers(1, 6, N).astype(float) if integer else rng.uniform(0.05, 4.0, N)
    errors = np.array([w[cov[:, i] & (y != rule_class[i])].sum() for i in range(M)])
    bc = int(rng.integers(1, lengths.sum() + 1))
    be = float(rng.uniform(0, errors.sum())) if rng.random() < 0.8 else float(errors[rng.integers(M)])
    if integer:
        be = float(np.floor(be))
    eps = float(rng.choice([1.0, 0.5, 2.0]))
    return SelectionProblem(cov, rule_class, y, lengths, bc, be, eps=eps, n_classes=K, sample_weight=w), cov, w


def truth(cov, rule_class, y, lengths, w, eps, R):
    """f*, covered weight, weighted pairs, complexity and weighted errors of each selection (rows of R),
    from the definitions."""
    out = []
    for r in R:
        fire = cov[:, r]
        n = fire.sum(axis=1)
        per_class = np.stack([(fire & (rule_class[r] == k)[None, :]).sum(axis=1) for k in range(rule_class.max() + 2)],
                             axis=1)
        pairs_row = (n * n - (per_class**2).sum(axis=1)) // 2
        covered = float(w[n > 0].sum())
        pairs = float((w * pairs_row).sum())
        wrong = fire & (y[:, None] != rule_class[r][None, :])
        errors = float((w[:, None] * wrong).sum())
        out.append((covered - eps * pairs, covered, pairs, int(lengths[r].sum()), errors))
    return np.array(out)


def all_selections(M):
    return np.array(list(itertools.product([False, True], repeat=M)), dtype=bool)


def brute_optimum(p, cov, w):
    R = all_selections(p.n_rules)
    t = truth(cov, p.rule_class, p.y, p.lengths, w, p.eps, R)
    ok = (t[:, 3] <= p.complexity_budget) & (t[:, 4] <= p.error_budget + 1e-9)
    return float(t[ok, 0].max()), R, t


@pytest.mark.parametrize("seed", seeds(12))
def test_evaluation_matches_the_definitions(seed):
    p, cov, w = random_weighted(seed)
    R = all_selections(p.n_rules)
    t = truth(cov, p.rule_class, p.y, p.lengths, w, p.eps, R)
    m = p.evaluate_population(R)
    np.testing.assert_allclose(m["coverage"], t[:, 0], rtol=0, atol=1e-9)
    np.testing.assert_allclose(m["covered"], t[:, 1], rtol=0, atol=1e-9)
    np.testing.assert_allclose(m["conflicting_pairs"], t[:, 2], rtol=0, atol=1e-9)
    np.testing.assert_array_equal(m["complexity"], t[:, 3])
    np.testing.assert_allclose(m["errors"], t[:, 4], rtol=0, atol=1e-9)
    ev = p.evaluate(R[-1])
    assert isinstance(ev.errors, float) and isinstance(ev.covered, float)
    assert ev.coverage_score == pytest.approx(t[-1, 0] / w.sum())


@pytest.mark.parametrize("seed", seeds(12))
def test_exact_and_qga_reach_the_weighted_optimum_and_no_solver_breaks_a_budget(seed):
    p, cov, w = random_weighted(seed)
    best, _, _ = brute_optimum(p, cov, w)
    for name in ALGORITHMS:
        res = solve(p, name, random_state=seed, **FAST.get(name, {}))
        ev = p.evaluate(res.selection)
        assert ev.coverage == pytest.approx(res.coverage, abs=1e-9)
        if get_solver_class(name).respects_budgets:
            t = truth(cov, p.rule_class, p.y, p.lengths, w, p.eps, res.selection[None, :])[0]
            assert t[3] <= p.complexity_budget, name
            assert t[4] <= p.error_budget + 1e-9, name
            assert ev.coverage <= best + 1e-9, name
        if name in ("exact", "qga"):
            assert ev.coverage == pytest.approx(best, abs=1e-7), name


@pytest.mark.parametrize("seed", seeds(8))
def test_whole_number_weights_equal_replicated_rows(seed):
    p, cov, w = random_weighted(seed, integer=True)
    reps = w.astype(int)
    big = SelectionProblem(np.repeat(cov, reps, axis=0), p.rule_class, np.repeat(p.y, reps), p.lengths,
                           p.complexity_budget, int(p.error_budget), eps=p.eps, n_classes=p.n_classes)
    np.testing.assert_allclose(p.errors, big.errors)
    R = all_selections(p.n_rules)
    a, b = p.evaluate_population(R), big.evaluate_population(R)
    for key in ("coverage", "covered", "conflicting_pairs", "errors", "feasible"):
        np.testing.assert_allclose(a[key].astype(float), b[key].astype(float), rtol=0, atol=1e-9, err_msg=key)
    ex_w = solve(p, "exact", random_state=0)
    ex_r = solve(big, "exact", random_state=0)
    assert ex_w.coverage == pytest.approx(ex_r.coverage, abs=1e-9)
    assert solve(p, "qga", random_state=seed).coverage == pytest.approx(ex_r.coverage, abs=1e-9)


@pytest.mark.parametrize("seed", seeds(6))
def test_weights_all_one_are_the_unweighted_problem(seed):
    p, cov, _ = random_weighted(seed)
    budgets = (p.complexity_budget, int(p.error_budget))
    plain = SelectionProblem(cov, p.rule_class, p.y, p.lengths, *budgets, eps=p.eps, n_classes=p.n_classes)
    ones = SelectionProblem(cov, p.rule_class, p.y, p.lengths, *budgets, eps=p.eps, n_classes=p.n_classes,
                            sample_weight=np.ones(p.n_rows))
    R = all_selections(p.n_rules)
    a, b = plain.evaluate_population(R), ones.evaluate_population(R)
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    assert a["covered"].dtype == np.int64 and plain.errors.dtype == np.int64
    for name in ALGORITHMS:
        ra = solve(plain, name, random_state=seed, **FAST.get(name, {}))
        rb = solve(ones, name, random_state=seed, **FAST.get(name, {}))
        np.testing.assert_array_equal(ra.selection, rb.selection, err_msg=name)
        assert ra.coverage == rb.coverage


@pytest.mark.parametrize("seed", seeds(4))
def test_same_seed_same_result(seed):
    p, _, _ = random_weighted(seed)
    for name in ("qga", "ga", "rfhc", "irfre", "qga_paper"):
        a = solve(p, name, random_state=seed, **FAST.get(name, {}))
        b = solve(p, name, random_state=seed, **FAST.get(name, {}))
        np.testing.assert_array_equal(a.selection, b.selection, err_msg=name)


@settings(max_examples=40, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), flips=st.lists(st.integers(0, 9), max_size=25))
def test_incremental_state_and_move_gains_follow_any_flips(seed, flips):
    p, cov, w = random_weighted(seed, M=10)
    state = p.state()
    scorer = MoveScorer(p, usable_rules(p))
    for i in flips:
        before = p.evaluate(state.r).coverage
        assert state.delta_coverage(i) == pytest.approx(
            p.evaluate(np.where(np.arange(p.n_rules) == i, ~state.r, state.r)).coverage - before, abs=1e-9)
        gadd, gdrop, _ = scorer.add_drop_gains(state)
        flipped = state.r.copy()
        flipped[i] = not flipped[i]
        gain = p.evaluate(flipped).coverage - before
        assert (gdrop[i] if state.r[i] else gadd[i]) == pytest.approx(gain, abs=1e-9)
        state.flip(i)
        ev = p.evaluate(state.r)
        assert state.coverage == pytest.approx(ev.coverage, abs=1e-9)
        assert state.errors == pytest.approx(ev.errors, abs=1e-9)
        assert state.feasible == ev.feasible


def test_weights_are_checked_and_budgets_typed():
    cov = np.eye(3, dtype=bool)
    with pytest.raises(ValueError, match="sample_weight"):
        SelectionProblem(cov, [0, 1, 0], [0, 1, 1], [1, 1, 1], sample_weight=[1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match="sample_weight"):
        SelectionProblem(cov, [0, 1, 0], [0, 1, 1], [1, 1, 1], sample_weight=[1.0, 1.0])
    p = SelectionProblem(cov, [0, 1, 0], [0, 1, 1], [1, 1, 1], 3, 0.5, sample_weight=[1.0, 2.0, 0.5])
    # rule 2 (class 0) covers row 2 (class 1, weight 0.5): its error is 0.5, within Be = 0.5
    assert p.errors.tolist() == [0.0, 0.0, 0.5] and p.error_budget == 0.5
    assert p.fits_alone.tolist() == [True, True, True]
    assert p.with_budgets(3, 0.4).fits_alone.tolist() == [True, True, False]
    assert p.restrict([2, 0]).errors.tolist() == [0.5, 0.0]
    assert solve(p, "exact").coverage == pytest.approx(3.5)
    assert solve(p.with_budgets(3, 0.4), "exact").coverage == pytest.approx(3.0)


# ------------------------------------------------------------------ estimator and pipeline
def _iris():
    from sklearn.datasets import load_iris

    return load_iris(return_X_y=True, as_frame=True)


def test_balanced_class_weight_is_sample_weight_of_compute_sample_weight():
    from sklearn.utils.class_weight import compute_sample_weight

    from explainer.estimator import RuleSetExplainer

    X, y = _iris()
    keep = np.r_[0:50, 50:70, 100:150]  # an imbalanced Iris: 50 / 20 / 50
    X, y = X.iloc[keep].reset_index(drop=True), y.iloc[keep].reset_index(drop=True)
    kw = dict(max_depth=3, complexity_budget=4, error_budget=3, algorithm="exact", random_state=0)
    a = RuleSetExplainer(class_weight="balanced", **kw).fit(X, y)
    b = RuleSetExplainer(**kw).fit(X, y, sample_weight=compute_sample_weight("balanced", y))
    assert a.rules_.to_text() == b.rules_.to_text()
    w = compute_sample_weight("balanced", y)
    np.testing.assert_allclose(a.result_.evaluation.total_weight, w.sum())
    assert a.result_.errors <= 3 + 1e-9
    # the report's weighted errors are the selection's
    assert a.report_.weighted_errors == pytest.approx(a.result_.errors)
    assert a.report_.weighted_coverage == pytest.approx(a.result_.coverage)
    from sklearn.metrics import balanced_accuracy_score

    assert a.report_.balanced_accuracy == pytest.approx(balanced_accuracy_score(y, a.predict(X)))


def test_weights_all_one_fit_as_unweighted_with_default_budgets():
    from explainer.estimator import RuleSetExplainer

    X, y = _iris()
    kw = dict(max_depth=3, algorithm="greedy", random_state=0)
    plain = RuleSetExplainer(**kw).fit(X, y)
    ones = RuleSetExplainer(class_weight={0: 1.0}, **kw).fit(X, y, sample_weight=np.ones(len(y)))
    assert plain.rules_.to_text() == ones.rules_.to_text()
    assert plain.report_.weighted is None and ones.report_.weighted_errors == plain.report_.errors


def test_a_class_of_weight_zero_gets_no_rule():
    from explainer.estimator import RuleSetExplainer

    X, y = _iris()
    est = RuleSetExplainer(max_depth=3, complexity_budget=6, error_budget=0, algorithm="exact",
                           class_weight={2: 0.0}, random_state=0).fit(X, y)
    # covering a row of class 2 gains nothing, and a class-2 rule errs on any row of the others
    assert len(est.rules_) > 0 and all(r.label != 2 for r in est.rules_)


def test_sample_weight_is_checked():
    from explainer.estimator import RuleSetExplainer

    X, y = _iris()
    with pytest.raises(ValueError):
        RuleSetExplainer(max_depth=3).fit(X, y, sample_weight=np.ones(3))
    with pytest.raises(ValueError, match="sample_weight must be finite and >= 0"):
        RuleSetExplainer(max_depth=3).fit(X, y, sample_weight=-np.ones(len(y)))


def test_row_weights_by_hand():
    from explainer.pipeline import row_weights

    codes = np.array([0, 0, 0, 1])  # 3 rows of "a", 1 of "b"
    assert row_weights(codes, ["a", "b"]) is None
    # balanced: n / (classes * rows of the class) = 4 / (2 * 3), 4 / (2 * 1)
    np.testing.assert_allclose(row_weights(codes, ["a", "b"], "balanced"), [2 / 3, 2 / 3, 2 / 3, 2.0])
    np.testing.assert_allclose(row_weights(codes, ["a", "b"], {"b": 3}, [1, 2, 1, 2]), [1, 2, 1, 6])
    # a class with no row does not count among the classes
    np.testing.assert_allclose(row_weights(codes, ["a", "b", "c"], "balanced"), [2 / 3, 2 / 3, 2 / 3, 2.0])


@pytest.mark.parametrize("seed", seeds(4))
def test_weighted_frontier_points_are_feasible_and_proven_points_optimal(seed):
    from explainer.selection.frontier import frontier

    p, cov, w = random_weighted(seed)
    R = all_selections(p.n_rules)
    t = truth(cov, p.rule_class, p.y, p.lengths, w, p.eps, R)
    hi = int(p.lengths.sum())
    fr = frontier(p, p.error_budget, (1, hi), random_state=0, exact_time_limit=5.0)
    assert fr.fixed_budget == p.error_budget and fr.total_weight == pytest.approx(w.sum())
    for point in fr:
        ok = (t[:, 3] <= point.complexity_budget) & (t[:, 4] <= p.error_budget + 1e-9)
        best = float(t[ok, 0].max())
        mine = truth(cov, p.rule_class, p.y, p.lengths, w, p.eps, point.selection[None, :])[0]
        assert mine[3] <= point.complexity_budget and mine[4] <= p.error_budget + 1e-9
        assert point.coverage == pytest.approx(mine[0], abs=1e-9) and point.coverage <= best + 1e-9
        if point.proven_optimal:
            assert point.coverage == pytest.approx(best, abs=1e-7)
