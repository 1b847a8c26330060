"""The trade-off frontier against brute force, its monotonicity, proofs, callback and defaults."""

import dataclasses
import itertools

import numpy as np
import pytest
from lanes import seeds

from explainer.data import load_dataset
from explainer.pipeline import default_budgets, explain_pool
from explainer.rules.pool import build_pool
from explainer.selection.callbacks import Callback, Recorder, StopFlag
from explainer.selection.frontier import frontier, lifted
from explainer.selection.problem import SelectionProblem
from explainer.selection.solvers import solve


def random_problem(seed):
    rng = np.random.default_rng(seed)
    N, M, K = int(rng.integers(10, 22)), int(rng.integers(5, 10)), int(rng.integers(2, 4))
    C = rng.random((N, M)) < rng.uniform(0.2, 0.5)
    return SelectionProblem(C, rng.integers(0, K, M), rng.integers(0, K, N), rng.integers(1, 4, M),
                            eps=float(rng.choice([0.0, 0.5, 1.0])), n_classes=K)


def brute_force(problem):
    R = np.array(list(itertools.product([False, True], repeat=problem.n_rules)), dtype=bool)
    m = problem.evaluate_population(R)
    return float(np.where(m["feasible"], m["coverage"], -np.inf).max())


def check_points(fr, base):
    previous = -np.inf
    for p in fr:
        problem = base.with_budgets(p.complexity_budget, p.error_budget)
        ev = problem.evaluate(p.selection)
        assert ev.feasible and ev.coverage == pytest.approx(p.coverage)
        best = brute_force(problem)
        assert p.coverage <= best + 1e-9
        assert p.bound >= best - 1e-9  # a bound never cuts the optimum
        if p.proven_optimal:
            assert p.coverage == pytest.approx(best)
        assert p.coverage >= previous - 1e-9  # monotone along the sweep
        previous = p.coverage


@pytest.mark.parametrize("seed", seeds(12, 1))
def test_every_point_is_the_brute_force_optimum(seed):
    base = random_problem(seed)
    be = int(np.random.default_rng(seed).integers(0, base.errors.sum() + 1))
    fr = frontier(base, be, (0, int(base.lengths.sum()) + 1), random_state=seed)
    check_points(fr, base)
    assert fr.n_proven == len(fr)  # tiny instances: the exact solver proves every point
    assert [p.complexity_budget for p in fr] == list(range(0, int(base.lengths.sum()) + 2))
    assert all(p.error_budget == be for p in fr)


@pytest.mark.parametrize("seed", seeds(12, 1))
def test_error_axis_against_brute_force(seed):
    base = random_problem(100 + seed)
    bc = int(base.lengths.sum()) // 2
    fr = frontier(base, bc, (0, int(base.errors.sum())), axis="errors", random_state=seed)
    check_points(fr, base)
    assert fr.budgets == list(range(0, int(base.errors.sum()) + 1))
    assert all(p.complexity_budget == bc for p in fr)


@pytest.mark.parametrize("seed", seeds(12))
def test_without_solvers_points_flagged_optimal_are_optimal(seed):
    # carry-forward and local search only: the flags then come from bounds alone
    base = random_problem(200 + seed)
    fr = frontier(base, int(base.errors.sum()), (0, int(base.lengths.sum())), exact_time_limit=0, qga_time_limit=0)
    check_points(fr, base)
    # every rule usable and no complexity limit left: the coverable-rows bound is met at the top
    assert fr[-1].bound <= np.count_nonzero(base.coverage_dense.any(axis=1))


def test_callback_sees_every_point_and_can_stop():
    base = random_problem(1)
    rec = Recorder()
    fr = frontier(base, 100, (1, 6), callback=rec)
    assert [p.complexity_budget for p in rec.points] == [1, 2, 3, 4, 5, 6]
    assert rec.result is fr and not fr.stopped

    class StopAfterThree(Callback):
        def on_point(self, point):
            return point.complexity_budget >= 3

    fr = frontier(base, 100, (1, 6), callback=StopAfterThree())
    assert fr.budgets == [1, 2, 3] and fr.stopped
    flag = StopFlag()
    flag.set()
    assert len(frontier(base, 100, (1, 6), callback=flag)) == 1


def test_same_seed_same_frontier_and_bad_arguments():
    base = random_problem(3)
    a = frontier(base, 5, (1, 5), random_state=4)
    b = frontier(base, 5, (1, 5), random_state=4)
    assert [p.rule_indices for p in a] == [p.rule_indices for p in b]
    with pytest.raises(ValueError, match="axis"):
        frontier(base, 5, (1, 5), axis="rows")
    with pytest.raises(ValueError, match="range"):
        frontier(base, 5, (4, 2))
    with pytest.raises(ValueError, match="range explicitly"):
        frontier(base, 5)  # a bare problem has no reference tree
    with pytest.raises(TypeError):
        frontier([1, 2], 5, (1, 2))


@pytest.fixture(scope="module")
def iris_pool():
    ds = load_dataset("sample_data/iris.csv", target="class")
    return ds, build_pool(ds.X, ds.y, 3, random_state=0, classes=ds.classes)


def test_pool_frontier_default_range_knee_and_exports(iris_pool):
    ds, pool = iris_pool
    fr = frontier(pool, 5)
    c_star = pool.best_tree().complexity
    assert fr.budgets == list(range(1, 2 * c_star + 1))
    # the paper's own budgets on Iris (4 / 5) reach 94 %, proven by the exact solver
    p4 = fr.at(4)
    assert p4.proven_optimal and p4.coverage == 141
    knee = fr.knee(5.0)
    assert knee.coverage >= fr.max_coverage - 0.05 * ds.n_rows
    assert all(p.coverage < fr.max_coverage - 0.05 * ds.n_rows for p in fr if p.complexity_budget < knee.complexity_budget)
    d = fr.to_dict()
    assert d["n_points"] == len(fr) and d["points"][3]["rules"] == p4.rule_indices
    assert "Bc" in fr.to_text() and "Frontier(" in repr(fr)
    assert len(fr.to_frame()) == len(fr)

@pytest.mark.slow

def test_default_budgets_give_a_good_first_explanation_on_iris(iris_pool):
    ds, pool = iris_pool
    d = default_budgets(pool)
    assert d.complexity_budget <= 5
    exp = explain_pool(pool, ds.X, ds.y, algorithm="qga", random_state=0)
    assert exp.report.complexity_budget == d.complexity_budget and exp.report.error_budget == d.error_budget
    assert exp.report.complexity <= 5
    # the policy aims at held-out accuracy (its ELSE class counts), not at coverage: three rules and
    # ELSE versicolor cover 68 % of the rows and get 97.3 % right
    assert exp.report.accuracy >= 0.94
    # and its validation curve holds no point more accurate by more than a standard error (the 1-SE rule)
    best = max(p.accuracy for p in d.frontier)
    chosen = next(p for p in d.frontier if p.chosen)
    assert chosen.accuracy >= best - chosen.accuracy_se - 1e-12


def test_a_seed_selection_is_used_wherever_it_fits():
    base = random_problem(5)
    full = np.ones(base.n_rules, dtype=bool)
    lo = int(base.lengths.sum())
    fr = frontier(base, int(base.errors.sum()), (lo - 1, lo), seeds=[full], exact_time_limit=0, qga_time_limit=0)
    assert fr.at(lo).coverage >= base.evaluate(full).coverage
    assert not fr.at(lo - 1).selection.all()  # over budget there: never taken
    with pytest.raises(ValueError, match="one entry per rule"):
        frontier(base, 5, (1, 2), seeds=[np.ones(2, dtype=bool)])


def test_a_stop_flag_ends_the_sweep_and_reaches_the_inner_solver(iris_pool):
    _, pool = iris_pool
    flag = StopFlag()

    class SetFlagAfterFirst(Callback):
        def on_point(self, point):
            flag.set()  # pressed while the sweep runs: the next call sees it

    from explainer.selection.callbacks import CallbackList

    fr = frontier(pool, 5, (1, 8), callback=CallbackList([SetFlagAfterFirst(), flag]))
    assert fr.stopped and len(fr) == 1
    from explainer.selection.solvers.base import StopRelay, stop_flag_set

    assert stop_flag_set(CallbackList([Recorder(), flag])) and not stop_flag_set(Recorder())
    # the relay handed to the exact solver and QGA asks them to stop once the flag is set
    relay = StopRelay(lambda: stop_flag_set(CallbackList([flag])))
    assert relay.on_generation(None) is True and relay.is_set
    flag.clear()
    assert relay.on_generation(None) is False and not relay.is_set


@pytest.mark.slow
def test_default_budgets_do_not_depend_on_the_clock(monkeypatch):
    # the defaults' search uses no time limit: a clock that jumps a minute at every reading
    # (a very slow or loaded machine) gives the same budgets
    import itertools
    import time as time_module

    from explainer.data import load_dataset
    from explainer.pipeline import default_budgets
    from explainer.rules.pool import build_pool

    ds = load_dataset("sample_data/iris.csv")
    pool = build_pool(ds.X, ds.y, 8, random_state=0, classes=ds.classes, feature_specs=ds.feature_specs)
    expected = default_budgets(pool)
    ticks = itertools.count()
    monkeypatch.setattr(time_module, "perf_counter", lambda: 60.0 * next(ticks))
    slow = default_budgets(pool)
    assert (slow.complexity_budget, slow.error_budget, slow.coverage) == (
        expected.complexity_budget, expected.error_budget, expected.coverage)


@pytest.mark.parametrize("seed", range(12))
def test_a_lifted_frontier_is_never_below_a_known_selection_and_stays_monotone(seed):
    base = random_problem(seed)
    be_low, be_high = 1, 3
    low = frontier(base, be_low, (1, 8), exact_time_limit=0, qga_time_limit=0)
    high = frontier(base, be_high, (1, 8), exact_time_limit=0, qga_time_limit=0)
    if seed % 2:  # a sweep stopped early leaves its points low (here: empty selections) for the lift to raise
        empty = np.zeros(base.n_rules, dtype=bool)
        high.points = [dataclasses.replace(p, selection=empty, evaluation=base.evaluate(empty),
                                           proven_optimal=False) for p in high.points]
    run = solve(base.with_budgets(5, be_high), "exact", warm_start="greedy")  # a finished run at Bc = 5
    up = lifted(high, [*low.points, run])
    check_points(up, base)  # feasible, true f*, never above the brute-force optimum
    coverage = [p.coverage for p in up]
    assert coverage == sorted(coverage)  # monotone in Bc
    for p, before, under in zip(up, high, low, strict=True):
        assert p.coverage >= before.coverage - 1e-9  # never lowered
        assert p.coverage >= under.coverage - 1e-9  # monotone in Be: never below the smaller error budget
        if p.complexity_budget >= run.complexity:
            assert p.coverage >= run.coverage - 1e-9  # never below the run at its budgets
    # brute force over the known selections says the same: each point is the best of what fits
    known = [*high.points, *low.points, run]
    for p in up:
        fits = [k.coverage for k in known if k.complexity <= p.complexity_budget and k.errors <= p.error_budget]
        assert p.coverage == pytest.approx(max(fits))
    if seed % 2 and run.coverage > 0:
        assert any(p.algorithm == "known" for p in up)


@pytest.mark.parametrize("seed", range(12))
def test_the_backward_pass_never_lowers_a_point_and_keeps_every_invariant(seed):
    base = random_problem(200 + seed)
    be = int(np.random.default_rng(seed).integers(0, base.errors.sum() + 1))
    hi = int(base.lengths.sum()) + 1
    # no exact solver and no QGA: the sweep alone leaves room for the backward pass
    forward = frontier(base, be, (0, hi), exact_time_limit=0, qga_time_limit=0)
    both = frontier(base, be, (0, hi), exact_time_limit=0, qga_time_limit=0, backward=True)
    check_points(both, base)  # feasible, its true f*, never above the brute-force optimum, monotone
    assert [p.complexity_budget for p in both] == [p.complexity_budget for p in forward]
    for p, q in zip(both, forward, strict=True):
        assert p.coverage >= q.coverage - 1e-9


@pytest.mark.slow
def test_the_backward_pass_raises_points_the_sweep_left_low():
    # on some small instances the local search from below stops short of what a larger budget's
    # selection, trimmed, reaches: the pass must find such a point, and raise it
    raised = 0
    for seed in range(60):
        base = random_problem(seed)
        hi = int(base.lengths.sum())
        forward = frontier(base, 10**6, (1, hi), exact_time_limit=0, qga_time_limit=0)
        both = frontier(base, 10**6, (1, hi), exact_time_limit=0, qga_time_limit=0, backward=True)
        higher = [p for p, q in zip(both, forward, strict=True) if p.coverage > q.coverage + 1e-9]
        assert all(p.algorithm in ("backward", "carried") for p in higher)
        raised += bool(higher)
    assert raised > 0


def test_no_exact_calls_above_the_nonzero_limit(monkeypatch):
    """A coverage matrix over EXACT_MAX_NNZ nonzeros gets no exact call; below it, the sweep uses it."""
    import explainer.selection.frontier as frontier_module

    base = random_problem(4)
    calls = []
    real = frontier_module.solve

    def spy(problem, algorithm, **kw):
        calls.append(algorithm)
        return real(problem, algorithm, **kw)

    monkeypatch.setattr(frontier_module, "solve", spy)
    frontier(base, int(base.errors.sum()), (0, int(base.lengths.sum())), random_state=0)
    assert "exact" in calls
    calls.clear()
    monkeypatch.setattr(frontier_module, "EXACT_MAX_NNZ", int(base.indices.size) - 1)
    fr = frontier(base, int(base.errors.sum()), (0, int(base.lengths.sum())), random_state=0)
    assert "exact" not in calls
    check_points(fr, base)


@pytest.mark.parametrize("seed", seeds(6))
def test_the_qga_points_start_from_the_previous_point_and_the_known_selections(seed, monkeypatch):
    """Every QGA point's initial population holds the previous Bc's selection and each seed that fits."""
    from explainer.selection.frontier import WarmQGA

    base = random_problem(300 + seed)
    be = int(base.errors.sum())
    seed_selection = np.zeros(base.n_rules, dtype=bool)
    seed_selection[int(np.argmax(base.lengths))] = True  # one rule: fits wherever Bc >= its length
    populations = []
    real = WarmQGA.initial_population

    def spy(self, problem, *args, **kwargs):
        population = real(self, problem, *args, **kwargs)
        populations.append((int(problem.complexity_budget), population))
        return population

    monkeypatch.setattr(WarmQGA, "initial_population", spy)
    fr = frontier(base, be, (1, int(base.lengths.sum())), exact_time_limit=0, qga_params={"n_generations": 1},
                  qga_ratio=1.0, seeds=[seed_selection], random_state=seed)
    assert populations  # the sweep ran QGA (no exact solver here, so nothing was proven before it)
    for bc, population in populations:
        rows = {row.tobytes() for row in population}
        if bc > 1:
            assert fr.at(bc - 1).selection.tobytes() in rows
        if base.lengths[seed_selection].sum() <= bc:
            assert seed_selection.tobytes() in rows
        problem = base.with_budgets(bc, be)
        assert problem.evaluate_population(population)["feasible"].all()  # a start over budget is left out


def test_the_qga_time_cap_grows_with_the_nonzeros_and_is_validated():
    from explainer.selection.frontier import QGA_MIN_S, qga_time_cap

    small = random_problem(0)
    assert qga_time_cap(small) == QGA_MIN_S
    rng = np.random.default_rng(0)
    big = SelectionProblem(rng.random((40_000, 60)) < 0.5, rng.integers(0, 2, 60), rng.integers(0, 2, 40_000),
                           np.ones(60, dtype=int), n_classes=2)
    assert big.indices.size > 1_000_000
    assert qga_time_cap(big) > 2 * QGA_MIN_S
    for bad in ("fast", -1.0):
        with pytest.raises(ValueError, match="qga_time_limit"):
            frontier(small, 3, (1, 2), qga_time_limit=bad)


def test_the_qga_points_end_at_their_first_stalled_generation_at_budgets_a_quarter_apart(monkeypatch):
    """Each QGA point gets the time cap and ends after one generation without a better selection (a default run
    waits three); the points are at budgets about 1.25x apart, and only there."""
    from explainer.selection.frontier import WarmQGA, _geometric_marks, qga_time_cap

    base = random_problem(41)
    be, hi = int(base.errors.sum()), int(base.lengths.sum())
    made, solved = [], []
    real_init, real_solve = WarmQGA.__init__, WarmQGA.solve

    def init(self, **kwargs):
        made.append(kwargs)
        real_init(self, **kwargs)

    def solve(self, problem, **kwargs):
        solved.append(int(problem.complexity_budget))
        return real_solve(self, problem, **kwargs)

    monkeypatch.setattr(WarmQGA, "__init__", init)
    monkeypatch.setattr(WarmQGA, "solve", solve)
    frontier(base, be, (1, hi), exact_time_limit=0, random_state=0)
    assert solved and set(solved) <= _geometric_marks(1, hi, 1.25)
    assert all(kw == {"time_limit": qga_time_cap(base), "stall": 1, "one_for_two": False} for kw in made)
    made.clear()
    frontier(base, be, (1, hi), exact_time_limit=0, qga_stall=None, random_state=0)
    assert made and all(kw["stall"] is None for kw in made)
    made.clear()
    frontier(base, be, (1, hi), exact_time_limit=0, qga_params={"n_generations": 1}, random_state=0)
    assert made and all(kw == {"n_generations": 1} for kw in made)  # the caller's parameters, as given
    made.clear()
    frontier(base, be, (1, hi), exact_time_limit=0, qga_time_limit=0, random_state=0)
    assert not made  # no QGA points
    for bad in (0, -1, 1.5, True, "1"):
        with pytest.raises(ValueError, match="qga_stall"):
            frontier(base, be, (1, 2), qga_stall=bad)


@pytest.mark.parametrize("seed", seeds(6, 1))
def test_a_frontier_extended_by_the_budgets_beyond_it_is_one_frontier_of_the_whole_range(seed):
    from explainer.selection.frontier import extended

    base = random_problem(seed)
    be = int(np.random.default_rng(seed).integers(0, base.errors.sum() + 1))
    top = int(base.lengths.sum()) + 1
    middle = max(1, top // 2)
    kept = frontier(base, be, (0, middle), random_state=seed)
    bounds = [p.bound for p in kept]
    more = frontier(base, be, (middle + 1, top), random_state=seed, seeds=[kept.points[-1].selection])
    whole = extended(kept, more)
    assert [p.complexity_budget for p in whole] == list(range(0, top + 1))
    assert whole.settings["budget_range"] == [0, top] and whole.time_s == pytest.approx(kept.time_s + more.time_s)
    check_points(whole, base)  # feasible, never above the optimum, bounds that hold, monotone
    assert [p.bound for p in kept] == bounds  # the kept frontier is not changed
    with pytest.raises(ValueError, match="follow"):
        extended(more, kept)
    with pytest.raises(ValueError, match="same axis"):
        extended(kept, frontier(base, be + 1, (middle + 1, top), random_state=seed))
