"""RF+HC: rule score, the weighted sampler, and the trial contract."""

import itertools

import numpy as np
import pytest

from explainer.selection.problem import SelectionProblem
from explainer.selection.solvers.rfhc import RFHC, rule_scores, sampling_weights, weighted_order


def small_problem(seed, N=40, M=10, K=3, eps=1.0):
    rng = np.random.default_rng(seed)
    C = rng.random((N, M)) < 0.3
    y = rng.integers(0, K, N)
    rc = rng.integers(0, K, M)
    L = rng.integers(1, 5, M)
    return SelectionProblem(C, rc, y, L, complexity_budget=int(rng.integers(3, 12)),
                            error_budget=int(rng.integers(2, 10)), eps=eps, n_classes=K)


def test_rule_score_hand_computed():
    # rule0: covers rows 0,1,2 (class 0), all correct -> cc=3, ic=0, rl=2
    # rule1: covers rows 0,3 (class 1); row 3 is class 1 -> cc=1, ic=1, rl=1
    # rule2: covers nothing -> 0 ; rule3: covers row 3 (class 0) wrongly, length 0 -> cc=0, ic=1
    C = np.zeros((4, 4), dtype=bool)
    C[[0, 1, 2], 0] = True
    C[[0, 3], 1] = True
    C[3, 3] = True
    y = np.array([0, 0, 0, 1])
    p = SelectionProblem(C, [0, 1, 0, 0], y, [2, 1, 3, 0])
    s = rule_scores(p, k=4.0)
    assert s[0] == pytest.approx(1 + 3 / 4 + 3 / 2)
    assert s[1] == pytest.approx(0 + 1 / 5 + 1 / 1)
    assert s[2] == pytest.approx(0.0)
    assert s[3] == pytest.approx(-1.0)
    w = sampling_weights(s)
    assert (w > 0).all() and w[0] == s[0] and w[1] == s[1]
    assert rule_scores(p, k=1.0)[0] == pytest.approx(1 + 3 / 1 + 3 / 2)


def test_weighted_order_is_sequential_sampling_without_replacement():
    """First draw ∝ w; the (first, second) pair follows w_a/W * w_b/(W - w_a)."""
    w = np.array([1.0, 2.0, 3.0, 4.0])
    rng = np.random.default_rng(12345)
    n = 40_000
    firsts = np.zeros(4)
    pairs = np.zeros((4, 4))
    for _ in range(n):
        o = weighted_order(w, rng)
        assert sorted(o.tolist()) == [0, 1, 2, 3]
        firsts[o[0]] += 1
        pairs[o[0], o[1]] += 1
    W = w.sum()
    np.testing.assert_allclose(firsts / n, w / W, atol=0.01)
    expected = np.array([[0 if a == b else w[a] / W * w[b] / (W - w[a]) for b in range(4)] for a in range(4)])
    np.testing.assert_allclose(pairs / n, expected, atol=0.01)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("eps", [0.0, 1.0])
def test_trials_are_feasible_and_locally_maximal(seed, eps):
    p = small_problem(seed, eps=eps)
    sels = RFHC(n_trials=5).trials(p, np.random.default_rng(seed))
    assert len(sels) == 5
    for r in sels:
        assert p.is_feasible(r)
        assert p.state(r).coverage == p.evaluate(r).coverage
        assert p.evaluate(r).coverage > 0 or not r.any()


@pytest.mark.parametrize("seed", range(3))
def test_solve_is_reproducible_and_best_of_trials(seed):
    p = small_problem(seed)
    a = RFHC(n_trials=7).solve(p, random_state=seed)
    b = RFHC(n_trials=7).solve(p, random_state=seed)
    assert np.array_equal(a.selection, b.selection)
    sels = RFHC(n_trials=7).trials(p, np.random.default_rng(seed))
    best = max(p.evaluate(r).coverage for r in sels)
    assert a.coverage == pytest.approx(max(best, 0.0))
    assert len(a.history) == 7 and [h.generation for h in a.history] == list(range(1, 8))
    assert a.feasible and a.status == "ok"


def test_reaches_brute_force_optimum_on_tiny_instance():
    p = small_problem(7, N=30, M=8)
    R = np.array(list(itertools.product([0, 1], repeat=8)), dtype=bool)
    out = p.evaluate_population(R)
    opt = out["coverage"][out["feasible"]].max()
    res = RFHC(n_trials=30).solve(p, random_state=0)
    assert res.coverage <= opt + 1e-9
    assert res.coverage >= 0.7 * opt
