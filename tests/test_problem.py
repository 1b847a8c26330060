"""The selection problem against hand computation and a naive reference."""

import itertools

import numpy as np
import pytest
from lanes import seeds

from explainer.selection.problem import SelectionProblem, error_tolerance, within_error_budget


def naive_metrics(C, rule_class, y, lengths, r, eps):
    """Straight from the paper's definitions, with explicit loops and Q."""
    N, M = C.shape
    covered = sum(1 for j in range(N) if any(C[j, i] and r[i] for i in range(M)))
    Q = np.zeros((M, M), dtype=int)
    for i in range(M):
        for k in range(M):
            if rule_class[i] != rule_class[k]:
                Q[i, k] = sum(1 for j in range(N) if C[j, i] and C[j, k])
    rv = np.asarray(r, dtype=int)
    quad = rv @ Q @ rv
    errors = sum(int(r[i]) * sum(1 for j in range(N) if C[j, i] and y[j] != rule_class[i]) for i in range(M))
    return covered - eps / 2 * quad, covered, quad // 2, int(rv @ lengths), errors, Q


def random_problem(seed, N=12, M=7, K=3, eps=1.0, bc=None, be=None):
    rng = np.random.default_rng(seed)
    C = rng.random((N, M)) < 0.35
    rule_class = rng.integers(0, K, M)
    y = rng.integers(0, K, N)
    lengths = rng.integers(1, 5, M)
    return C, rule_class, y, lengths, SelectionProblem(C, rule_class, y, lengths, bc, be, eps=eps, n_classes=K)


def test_hand_computed_tiny_table():
    # 4 rows, 3 rules.  rule0 (class 0) covers rows 0,1; rule1 (class 1) rows 1,2; rule2 (class 0) row 3
    C = np.array([[1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1]], dtype=bool)
    y = np.array([0, 0, 1, 1])
    p = SelectionProblem(C, [0, 1, 0], y, [1, 2, 3], complexity_budget=4, error_budget=1)
    assert p.errors.tolist() == [0, 1, 1]  # rule1 wrong on row1, rule2 wrong on row3
    assert p.support.tolist() == [2, 2, 1]
    ev = p.evaluate([1, 1, 0])
    assert (ev.covered, ev.conflicting_pairs, ev.coverage) == (3, 1, 2.0)  # row1 in conflict
    assert (ev.complexity, ev.errors, ev.feasible) == (3, 1, True)
    assert ev.to_dict() == {"n_rules": 2, "complexity": 3, "errors": 1, "covered": 3, "conflicting_pairs": 1,
                            "coverage": 2.0, "coverage_score": 0.5}
    assert not p.evaluate([1, 1, 1]).feasible
    assert p.conflict_matrix.toarray().tolist() == [[0, 1, 0], [1, 0, 0], [0, 0, 0]]


@pytest.mark.parametrize("seed", seeds(8))
@pytest.mark.parametrize("eps", [0.0, 0.5, 1.0, 2.0])
def test_population_matches_naive_definition(seed, eps):
    C, rc, y, L, p = random_problem(seed, eps=eps)
    R = np.array(list(itertools.product([0, 1], repeat=C.shape[1])), dtype=bool)
    out = p.evaluate_population(R)
    for idx in range(0, len(R), 9):
        f, cov, pairs, comp, err, Q = naive_metrics(C, rc, y, L, R[idx], eps)
        assert out["coverage"][idx] == pytest.approx(f)
        assert out["covered"][idx] == cov
        assert out["conflicting_pairs"][idx] == pairs
        assert out["complexity"][idx] == comp
        assert out["errors"][idx] == err
    assert np.array_equal(p.conflict_matrix.toarray(), Q)


@pytest.mark.parametrize("seed", seeds(6))
def test_incremental_flips_match_full_evaluation(seed):
    C, rc, y, L, p = random_problem(seed, N=40, M=15, eps=1.0)
    rng = np.random.default_rng(seed)
    st = p.state()
    for _ in range(60):
        i = int(rng.integers(p.n_rules))
        predicted = st.coverage + st.delta_coverage(i)
        st.flip(i)
        ev = p.evaluate(st.r)
        assert st.coverage == pytest.approx(ev.coverage) == pytest.approx(predicted)
        assert (st.covered, st.pairs, st.complexity, st.errors) == (
            ev.covered, ev.conflicting_pairs, ev.complexity, ev.errors)
    clone = st.copy()
    clone.flip(0)
    assert clone.r[0] != st.r[0]


def test_feasibility_and_A_b():
    C, rc, y, L, p = random_problem(3, bc=5, be=3)
    R = np.random.default_rng(0).random((50, p.n_rules)) < 0.3
    feas = p.feasible_mask(R)
    Ax = R.astype(int) @ p.A.T
    assert np.array_equal(feas, (Ax <= p.b).all(axis=1))


def test_sparse_input_equals_dense():
    C, rc, y, L, p = random_problem(5, N=30, M=10)
    import scipy.sparse as sp
    q = SelectionProblem(sp.csr_matrix(C), rc, y, L, n_classes=3)
    R = np.random.default_rng(1).random((20, 10)) < 0.5
    assert np.array_equal(p.fitness(R), q.fitness(R))


def test_bad_shapes_raise():
    with pytest.raises(ValueError):
        SelectionProblem(np.ones((3, 2), bool), [0], [0, 1, 0], [1, 1])
    with pytest.raises(ValueError):
        SelectionProblem(np.ones((3, 2), bool), [0, 1], [0, 1, 0], [1, 1], eps=-1)


@pytest.mark.parametrize("seed", seeds(6))
def test_add_in_order_equals_checking_each_rule_by_full_evaluation(seed):
    """First-fit adds: each rule in turn, kept when it fits both budgets and raises f* (naive metrics)."""
    C, rc, y, L, free = random_problem(seed, N=30, M=12, eps=1.0)
    p = SelectionProblem(C, rc, y, L, int(L.sum() * 0.5), int(free.errors.sum() * 0.5), n_classes=3)
    order = np.random.default_rng(seed).permutation(p.n_rules)
    r = np.zeros(p.n_rules, dtype=bool)
    checks = 0
    for i in order:
        x = r.copy()
        x[i] = True
        if not p.is_feasible(x):
            continue
        checks += 1
        if naive_metrics(C, rc, y, L, x, 1.0)[0] > naive_metrics(C, rc, y, L, r, 1.0)[0]:
            r = x
    st = p.state()
    assert st.add_in_order(order) == checks
    assert np.array_equal(st.r, r)
    ev = p.evaluate(r)
    assert (st.covered, st.pairs, st.complexity, st.errors) == (
        ev.covered, ev.conflicting_pairs, ev.complexity, ev.errors)


@pytest.mark.parametrize("seed", range(4))
def test_fits_alone_is_each_rule_checked_on_its_own(seed):
    C, rc, y, L, free = random_problem(seed, N=20, M=9)
    assert free.fits_alone.all()  # no budget: every rule fits
    for bc, be in [(0, 0), (2, 1), (3, 0), (4, 5)]:
        p = free.with_budgets(bc, be)
        alone = [p.is_feasible(np.eye(p.n_rules, dtype=bool)[i]) for i in range(p.n_rules)]
        assert p.fits_alone.tolist() == alone
    with pytest.raises(ValueError):
        free.fits_alone[0] = False  # shared by every solver: read-only


@pytest.mark.parametrize("seed", range(4))
def test_with_budgets_equals_a_fresh_problem(seed):
    """Other budgets, nothing stale: same metrics as the problem built from scratch, and the original
    keeps its own budgets and rules that fit."""
    C, rc, y, L, p = random_problem(seed, N=20, M=9, eps=0.5, bc=6, be=2)
    fits_before = p.fits_alone.copy()
    built = p.conflict_matrix  # a budget-free cache, built before the copy
    q = p.with_budgets(3, None)
    fresh = SelectionProblem(C, rc, y, L, 3, None, eps=0.5, n_classes=3)
    R = np.random.default_rng(seed).random((40, p.n_rules)) < 0.4
    for key, value in fresh.evaluate_population(R).items():
        assert np.array_equal(q.evaluate_population(R)[key], value), key
    assert np.array_equal(q.fits_alone, fresh.fits_alone)
    assert q.conflict_matrix is built  # shared, not rebuilt
    assert np.array_equal(built.toarray(), fresh.conflict_matrix.toarray())
    assert (p.complexity_budget, p.error_budget) == (6, 2)
    assert np.array_equal(p.fits_alone, fits_before)
    assert q.evaluate(R[0]).coverage_score == pytest.approx(q.evaluate(R[0]).coverage / 20)


def test_results_and_frontier_points_read_their_evaluation():
    """The metrics are stored once, in the Evaluation of the selection, and read through it."""
    from explainer.selection.frontier import frontier
    from explainer.selection.solvers import solve

    C, rc, y, L, p = random_problem(2, N=25, M=8, bc=6, be=4)
    result = solve(p, "greedy")
    assert result.evaluation == p.evaluate(result.selection)
    fields = ("coverage", "coverage_score", "covered", "conflicting_pairs", "complexity", "errors", "feasible",
              "n_rules")
    for name in fields:
        assert getattr(result, name) == getattr(result.evaluation, name), name
    metrics = result.evaluation.to_dict()
    assert set(metrics) == set(fields) - {"feasible"} and metrics.items() <= result.summary().items()
    assert result.summary()["feasible"] is result.feasible and result.summary()["algorithm"] == "greedy"
    sweep = frontier(p, 4, (1, 6), exact_time_limit=0, qga_time_limit=0)
    for point in sweep:
        assert point.evaluation.to_dict().items() <= point.to_dict().items()
        assert point.evaluation == p.with_budgets(point.complexity_budget, 4).evaluate(point.selection)
        assert (point.coverage, point.n_rules, point.errors) == (
            point.evaluation.coverage, point.evaluation.n_rules, point.evaluation.errors)


def test_within_error_budget_at_the_boundary():
    # counted rows: an exact comparison, no slack
    assert error_tolerance(None) == 0
    assert within_error_budget(5, 5) and not within_error_budget(6, 5) and within_error_budget(10**9, None)
    # weighed rows: a billionth of the total weight, at least 1e-9
    assert error_tolerance(1000.0) == pytest.approx(1e-6) and error_tolerance(0.5) == pytest.approx(1e-9)
    assert within_error_budget(5.0 + 0.9e-6, 5, 1000.0) and not within_error_budget(5.0 + 1.1e-6, 5, 1000.0)
    assert within_error_budget(5.0 + 0.9e-9, 5, 0.5) and not within_error_budget(5.0 + 1.1e-9, 5, 0.5)
    # 0.1 + 0.2 is a few ulps above 0.3: a weighted budget of 0.3 holds it, an unweighted comparison would not
    assert 0.1 + 0.2 > 0.3 and within_error_budget(0.1 + 0.2, 0.3, 1.3)


@pytest.mark.parametrize("weighted", [False, True])
def test_problem_feasibility_is_the_within_budget_helper(weighted):
    """Rule 0 errs on row 1, rule 1 on row 3: the pair's errors sit exactly at the budget, or just over it."""
    C = np.array([[1, 0], [1, 0], [0, 1], [0, 1]], dtype=bool)
    y = np.array([0, 1, 1, 0])
    w = np.array([1.0, 0.1, 1.0, 0.2]) if weighted else None
    at = 0.1 + 0.2 if weighted else 2
    total = None if w is None else float(w.sum())
    for budget, fits in ((0.3 if weighted else 2, True), (0.3 - 1e-6 if weighted else 1, False)):
        p = SelectionProblem(C, [0, 1], y, [1, 1], None, budget, n_classes=2, sample_weight=w)
        ev = p.evaluate([True, True])
        assert ev.errors == pytest.approx(at) and ev.total_weight == total
        assert ev.feasible is fits and within_error_budget(ev.errors, budget, total) is fits
        assert p.is_feasible([True, True]) is fits and p.state([True, True]).feasible is fits


def test_budget_copies_share_the_budget_free_caches():
    """A cache first computed on a with_budgets copy serves the original and every other copy."""
    C, _, _, _, p = random_problem(3)
    a, b = p.with_budgets(3, 2), p.with_budgets(5, None)
    rows = a.coverage_rows
    assert b.coverage_rows is rows and p.coverage_rows is rows
    assert np.array_equal(rows.toarray().astype(bool), C)
    assert b.coverage_dense is a.coverage_dense
    assert (a.complexity_budget, b.complexity_budget) == (3, 5)
    # the budget caches stay each copy's own
    assert np.array_equal(a.fits_alone, (p.lengths <= 3) & (p.errors <= 2))
    assert np.array_equal(b.fits_alone, p.lengths <= 5)


@pytest.mark.parametrize("weighted", [False, True])
def test_each_rules_errors_and_rows_against_a_dense_count(weighted):
    """A rule's errors (the rows it covers of another class) and its rows, weighted or not, as a dense
    loop over the coverage matrix counts them."""
    rng = np.random.default_rng(7)
    N, M, K = 300, 40, 3
    C = rng.random((N, M)) < 0.15
    rc, y, L = rng.integers(0, K, M), rng.integers(0, K, N), rng.integers(1, 4, M)
    w = rng.uniform(0.1, 3.0, N) if weighted else None
    p = SelectionProblem(C, rc, y, L, 10, 50, n_classes=K, sample_weight=w)
    weight = np.ones(N) if w is None else w
    for i in range(M):
        rows = np.flatnonzero(C[:, i])
        assert p.errors[i] == pytest.approx(weight[rows][y[rows] != rc[i]].sum())
        assert p.weighted_support[i] == pytest.approx(weight[rows].sum())
    assert p.errors.dtype == (np.float64 if weighted else np.int64)
