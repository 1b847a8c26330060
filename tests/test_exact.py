"""The exact solver against brute force, by hand and under a time limit."""

import itertools
import time
import warnings

import numpy as np
import pytest
from lanes import seeds

from explainer.selection.problem import SelectionProblem
from explainer.selection.result import FEASIBLE, OPTIMAL
from explainer.selection.solvers import get_solver
from explainer.selection.solvers.exact import Exact, greedy_incumbent


def random_problem(seed, N=None, M=None, K=None, eps=None):
    rng = np.random.default_rng(seed)
    N = N or int(rng.integers(10, 26))
    M = M or int(rng.integers(6, 13))
    K = K or int(rng.integers(2, 4))
    eps = eps if eps is not None else float(rng.choice([0.0, 0.5, 1.0]))
    C = rng.random((N, M)) < rng.uniform(0.15, 0.5)
    rule_class = rng.integers(0, K, M)
    y = rng.integers(0, K, N)
    lengths = rng.integers(1, 6, M)
    p0 = SelectionProblem(C, rule_class, y, lengths, eps=eps, n_classes=K)
    bc = int(rng.integers(0, lengths.sum() + 1))
    be = int(rng.integers(0, p0.errors.sum() + 1))
    return SelectionProblem(C, rule_class, y, lengths, bc, be, eps=eps, n_classes=K)


def brute_force(problem):
    M = problem.n_rules
    R = np.array(list(itertools.product([False, True], repeat=M)), dtype=bool)
    m = problem.evaluate_population(R)
    values = np.where(m["feasible"], m["coverage"], -np.inf)
    return float(values.max())


def _configs():
    return [
        {"warm_start": "greedy"},
        {"lazy_conflicts": False, "warm_start": "greedy"},
        {"warm_start": None},
        {"warm_start": None, "lazy_conflicts": False},
        {"warm_start": "greedy", "cutoff": True},
        {"warm_start": "greedy", "lazy_conflicts": False, "cutoff": True},
        # the population merge's setting
        {"warm_start": "greedy", "lazy_conflicts": False, "cutoff": True, "primal_heuristics": False},
    ]


@pytest.mark.parametrize(
    "config", _configs(),
    ids=["lazy", "full", "lazy-cold", "full-cold", "lazy-cutoff", "full-cutoff", "merge-setting"],
)
@pytest.mark.parametrize("seed", seeds(36))
def test_matches_brute_force(seed, config):
    problem = random_problem(seed)
    result = Exact(**config).solve(problem)
    assert result.status == OPTIMAL
    assert result.info["optimal"] is True
    assert result.feasible
    assert result.coverage == pytest.approx(brute_force(problem), abs=1e-9)
    assert result.info["bound"] >= result.coverage - 1e-6
    assert result.info["gap"] == pytest.approx(0.0, abs=1e-9)
    for key in ("n_variables", "n_constraints", "n_pairs"):
        assert key in result.info


@pytest.mark.parametrize("seed", seeds(10))
def test_eps_variants_same_instance(seed):
    for eps in (0.0, 0.5, 1.0, 2.0):
        problem = random_problem(100 + seed, eps=eps)
        result = Exact(warm_start="greedy").solve(problem)
        assert result.coverage == pytest.approx(brute_force(problem), abs=1e-9)


@pytest.mark.parametrize("seed", seeds(10))
def test_greedy_incumbent_is_feasible(seed):
    problem = random_problem(200 + seed)
    r = greedy_incumbent(problem)
    assert problem.is_feasible(r)
    assert problem.evaluate(r).coverage >= 0


def test_two_conflicting_rules_worse_than_one():
    # rows 0..3; rule 0 (class 0) covers 0,1,2; rule 1 (class 1) covers 1,2,3.
    # both: 4 rows covered - eps * 2 conflicts (rows 1, 2)
    C = np.array([[1, 0], [1, 1], [1, 1], [0, 1]], dtype=bool)
    y = np.array([0, 0, 1, 1])
    for eps, expected, n_rules in ((1.0, 3.0, 1), (0.4, 3.2, 2), (0.0, 4.0, 2)):
        p = SelectionProblem(C, [0, 1], y, [1, 1], complexity_budget=10, error_budget=10, eps=eps)
        assert p.evaluate([1, 1]).coverage == pytest.approx(4 - 2 * eps)
        res = Exact(warm_start="greedy").solve(p)
        assert res.coverage == pytest.approx(expected)
        assert res.n_rules == n_rules
        assert res.status == OPTIMAL


def test_budget_excludes_rules():
    C = np.array([[1, 0], [1, 1], [0, 1]], dtype=bool)
    y = np.array([0, 0, 0])
    # rule 0 is too long for the budget, rule 1 is within it
    p = SelectionProblem(C, [0, 0], y, [5, 2], complexity_budget=3, error_budget=0)
    res = Exact(warm_start="greedy").solve(p)
    assert res.selection.tolist() == [False, True]
    assert res.coverage == 2


def test_duplicate_rules_keep_shortest():
    C = np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1]], dtype=bool)
    y = np.array([0, 0, 1])
    p = SelectionProblem(C, [0, 0, 1], y, [3, 1, 1], complexity_budget=3, error_budget=0)
    res = Exact(warm_start="greedy").solve(p)
    assert res.selection.tolist() == [False, True, True]
    assert res.info["duplicates"] == 1


def test_empty_problem_and_zero_budget():
    C = np.array([[1, 0], [0, 1]], dtype=bool)
    p = SelectionProblem(C, [0, 1], [0, 1], [1, 1], complexity_budget=0, error_budget=0)
    res = Exact(warm_start="greedy").solve(p)
    assert res.n_rules == 0 and res.coverage == 0 and res.status == OPTIMAL


@pytest.mark.parametrize("seed", seeds(8))
def test_within_budgets_and_deterministic(seed):
    problem = random_problem(300 + seed, N=60, M=40)
    a = Exact(warm_start="greedy").solve(problem, random_state=1)
    b = Exact(warm_start="greedy").solve(problem, random_state=1)
    assert a.feasible and b.feasible
    assert a.complexity <= problem.complexity_budget and a.errors <= problem.error_budget
    assert np.array_equal(a.selection, b.selection)
    assert a.coverage == b.coverage
    # lazy and full models agree on the optimum
    c = Exact(lazy_conflicts=False, warm_start="greedy").solve(problem)
    assert c.coverage == pytest.approx(a.coverage)


def test_warm_start_selection_and_registry():
    problem = random_problem(7)
    r = greedy_incumbent(problem)
    res = get_solver("exact", warm_start=r).solve(problem)
    assert res.algorithm == "exact"
    assert res.coverage >= problem.evaluate(r).coverage
    with pytest.raises(ValueError):
        Exact(warm_start="nope").solve(problem)
    with pytest.raises(ValueError):
        Exact(backend="gurobi")


def _record_highs_limits(monkeypatch) -> list[float]:
    """The time limit of every HiGHS solve the exact solver starts (what it leaves HiGHS of its deadline)."""
    import explainer.selection.solvers.exact as exact_module

    limits: list[float] = []
    real = exact_module._solve_highs

    def recording(red, pa, pb, pq, eps, time_limit, *args, **kwargs):
        limits.append(float(time_limit))
        return real(red, pa, pb, pq, eps, time_limit, *args, **kwargs)

    monkeypatch.setattr(exact_module, "_solve_highs", recording)
    return limits


def _check_time_limit_kept(res, limits: list[float], time_limit: float) -> None:
    """What the solver did with its deadline, not how long the machine took: every HiGHS solve was
    given at most what was left of the limit, each later one less than the one before, and a run
    that was not proven optimal says that the limit ended it."""
    assert limits and all(0 < t <= time_limit for t in limits), limits
    assert all(b < a for a, b in zip(limits, limits[1:], strict=False)), limits
    if res.status != OPTIMAL:
        assert "time limit" in res.message.lower(), res.message


@pytest.mark.slow
def test_time_limit_on_larger_instance(monkeypatch):
    rng = np.random.default_rng(5)
    N, M, K = 300, 400, 3
    C = rng.random((N, M)) < 0.04
    rule_class = rng.integers(0, K, M)
    y = rng.integers(0, K, N)
    lengths = rng.integers(1, 6, M)
    p = SelectionProblem(C, rule_class, y, lengths, 60, 40, eps=1.0, n_classes=K)
    for lazy in (True, False):
        limits = _record_highs_limits(monkeypatch)
        res = Exact(time_limit=1.0, lazy_conflicts=lazy, warm_start="greedy").solve(p)
        _check_time_limit_kept(res, limits, 1.0)
        assert res.feasible
        assert res.status in (OPTIMAL, FEASIBLE)
        assert np.isfinite(res.info["bound"])
        assert res.info["bound"] >= res.coverage - 1e-6
        assert res.coverage >= problem_greedy_value(p) - 1e-9


def problem_greedy_value(p):
    return p.evaluate(greedy_incumbent(p)).coverage


def test_stop_request_returns_incumbent():
    from explainer.selection.callbacks import Callback

    class StopNow(Callback):
        def on_generation(self, record):
            return True

    problem = random_problem(11, N=60, M=40, eps=1.0)
    res = Exact(warm_start="greedy").solve(problem, callback=StopNow())
    assert res.feasible



@pytest.mark.parametrize("seed", seeds(12))
def test_cpsat_matches_brute_force(seed):
    pytest.importorskip("ortools")
    problem = random_problem(400 + seed)
    res = Exact(backend="cpsat", workers=1).solve(problem)
    assert res.status == OPTIMAL
    assert res.coverage == pytest.approx(brute_force(problem), abs=1e-9)
    assert res.info["bound"] >= res.coverage - 1e-6


@pytest.mark.parametrize("seed", seeds(6))
def test_default_warm_start_from_qga_stays_exact(seed):
    problem = random_problem(100 + seed)
    result = Exact().solve(problem, random_state=seed)
    assert result.status == OPTIMAL
    assert result.coverage == pytest.approx(brute_force(problem), abs=1e-9)


def _binding_problem(seed):
    """A problem whose greedy start is not provably optimal (so a model must be built)."""
    for s in range(seed, seed + 200):
        p = random_problem(s, N=40, M=12, eps=1.0)
        r = greedy_incumbent(p)
        if p.evaluate(r).coverage < brute_force(p) - 1e-9:
            return p, r
    raise AssertionError("no binding instance found")


@pytest.mark.parametrize("lazy", [True, False])
def test_a_model_over_the_memory_limit_is_refused_and_the_warm_start_returned(lazy):
    from explainer.selection.solvers.milp import model_memory_mb

    p, start = _binding_problem(0)
    res = Exact(warm_start=start, max_memory_mb=1e-6, lazy_conflicts=lazy).solve(p)
    assert res.status == FEASIBLE and "model too large" in res.message and "max_memory_mb" in res.message
    assert res.coverage >= p.evaluate(start).coverage  # the warm start (possibly cleaned, never worse)
    assert res.feasible and not res.info["optimal"]
    # the estimate grows with every part of the model
    base = model_memory_mb(100, 10, 20, 5, 2)
    assert all(model_memory_mb(*a) > base for a in [(200, 10, 20, 5, 2), (100, 20, 20, 5, 2), (100, 10, 40, 5, 2),
                                                    (100, 10, 20, 50, 2), (100, 10, 20, 5, 3)])
    assert Exact(warm_start=start).solve(p).info["optimal"]  # the default limit lets it through


@pytest.mark.parametrize("seed", seeds(6))
def test_never_worse_than_the_warm_start(seed):
    p, start = _binding_problem(10 * seed)
    for limit in (0.0, 0.05, 30.0):
        res = Exact(warm_start=start, time_limit=limit).solve(p, random_state=seed)
        assert res.feasible and res.coverage >= p.evaluate(start).coverage - 1e-9


def test_warm_start_heuristic_gets_at_most_half_the_time(monkeypatch):
    from explainer.selection.solvers import qga

    seen = {}
    original = qga.QGA.__init__

    def spy(self, *args, **kwargs):
        seen["time_limit"] = kwargs.get("time_limit")
        original(self, *args, **kwargs)

    monkeypatch.setattr(qga.QGA, "__init__", spy)
    p, _ = _binding_problem(3)
    Exact(warm_start="qga", time_limit=8.0).solve(p)
    assert seen["time_limit"] == 4.0


@pytest.mark.slow
@pytest.mark.parametrize("lazy", [True, False])
def test_time_limit_holds_on_a_hard_instance(paper_datasets_dir, lazy, monkeypatch):
    """tic-tac-toe at half the paper's budgets is not proven in 2 s; the limit ends the run."""
    from explainer.bench import paper_settings
    from explainer.data import load_paper_dataset
    from explainer.rules.pool import build_pool

    st = paper_settings()["tic_tac_toe"]
    ds = load_paper_dataset("tic_tac_toe", paper_datasets_dir)
    pool = build_pool(ds.X, ds.y, int(st["depth"]), random_state=0, classes=ds.classes)
    p = SelectionProblem.from_pool(pool, int(st["complexity_budget"]) // 2, int(st["errors_budget"]) // 2)
    start = greedy_incumbent(p)
    limits = _record_highs_limits(monkeypatch)
    cpu0 = time.process_time()
    res = Exact(time_limit=2.0, warm_start=start, lazy_conflicts=lazy).solve(p)
    cpu = time.process_time() - cpu0
    # HiGHS was stopped by the limit: the run is not proven, and says the limit ended it
    assert res.status == FEASIBLE and "time limit" in res.message.lower(), res.message
    _check_time_limit_kept(res, limits, 2.0)
    # CPU time, which waiting for a busy machine does not add to: a generous bound on two threads' work
    assert cpu < 30.0, f"{cpu:.1f} s of CPU for a 2 s limit"
    assert res.feasible and res.coverage >= p.evaluate(start).coverage


@pytest.mark.parametrize("seed", seeds(12))
def test_cutoff_proves_an_optimal_warm_start(seed):
    """Started from the optimum, the cutoff model (incumbent + 1) is infeasible: proven at once, nothing lost."""
    problem = random_problem(300 + seed, eps=1.0)
    best = Exact(warm_start="greedy").solve(problem)
    again = Exact(warm_start=best.selection, cutoff=True, lazy_conflicts=False).solve(problem)
    assert again.status == OPTIMAL and again.info["gap"] == pytest.approx(0.0, abs=1e-9)
    assert again.coverage == pytest.approx(best.coverage, abs=1e-9)
    assert again.coverage == pytest.approx(brute_force(problem), abs=1e-9)


@pytest.mark.parametrize("seed", seeds(8))
def test_node_limit_keeps_the_warm_start_and_the_budgets(seed):
    problem = random_problem(400 + seed, N=40, M=12)
    warm = greedy_incumbent(problem)
    res = Exact(warm_start=warm, node_limit=1, cutoff=True).solve(problem)
    assert res.feasible
    assert res.coverage >= problem.evaluate(warm).coverage - 1e-9
    assert res.coverage <= brute_force(problem) + 1e-9


def test_the_merge_setting_solves_without_warnings():
    problem = random_problem(5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = Exact(warm_start="greedy", lazy_conflicts=False, cutoff=True, primal_heuristics=False).solve(problem)
    assert res.coverage == pytest.approx(brute_force(problem), abs=1e-9)
