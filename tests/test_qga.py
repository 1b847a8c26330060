"""The nested genetic algorithm QGA: contract, determinism, early stopping, optimality on small problems."""

import itertools

import numpy as np
import pytest
from lanes import seeds
from problems import random_problem

from explainer.selection.callbacks import Callback
from explainer.selection.problem import SelectionProblem
from explainer.selection.result import STOPPED
from explainer.selection.solvers import get_solver
from explainer.selection.solvers.local_search import LocalSearch
from explainer.selection.solvers.moves import MoveScorer
from explainer.selection.solvers.qga import QGA
from explainer.selection.solvers.qubo import GeneticQUBOSampler

FAST = dict(n_population=20, n_generations=15, rfhc_trials=5)


def brute_force(problem):
    R = np.array(list(itertools.product([0, 1], repeat=problem.n_rules)), dtype=bool)
    R = R[problem.feasible_mask(R)]
    return float(problem.fitness(R).max())


@pytest.mark.parametrize("seed", seeds(8))
def test_contract_on_random_problems(seed):
    p = random_problem(seed)
    res = QGA(**FAST).solve(p, random_state=seed)
    ev = p.evaluate(res.selection)
    assert res.feasible and ev.feasible
    assert ev.complexity <= p.complexity_budget and ev.errors <= p.error_budget
    assert res.coverage == ev.coverage
    assert res.history, "one record per generation"
    # generation 0 is the initial population
    assert [h.generation for h in res.history] == list(range(len(res.history)))
    for h in res.history:
        assert h.min <= h.mean <= h.max
    assert len(res.history) <= FAST["n_generations"] + 1
    assert res.coverage >= res.history[-1].max - 1e-9


@pytest.mark.parametrize("seed", range(3))
def test_same_seed_same_selection(seed):
    p = random_problem(100 + seed)
    a = QGA(**FAST).solve(p, random_state=7)
    b = QGA(**FAST).solve(p, random_state=7)
    np.testing.assert_array_equal(a.selection, b.selection)
    assert [h.max for h in a.history] == [h.max for h in b.history]


@pytest.mark.parametrize("seed", seeds(10))
def test_never_beats_brute_force_and_usually_equals_it(seed):
    p = random_problem(200 + seed, M=int(np.random.default_rng(seed).integers(6, 13)))
    opt = brute_force(p)
    res = QGA(**FAST).solve(p, random_state=seed)
    assert res.coverage <= opt + 1e-9


@pytest.mark.slow
def test_matches_brute_force_on_most_small_problems():
    hits = 0
    for seed in range(12):
        p = random_problem(300 + seed, M=int(np.random.default_rng(seed).integers(6, 13)))
        hits += QGA(**FAST).solve(p, random_state=seed).coverage == brute_force(p)
    assert hits >= 10


def test_early_stopping_on_convergence_or_full_coverage():
    p = random_problem(5)
    res = QGA(n_population=10, n_generations=200, rfhc_trials=3, stall=None).solve(p, random_state=0)
    last = res.history[-1]
    assert len(res.history) < 201
    assert last.min == last.max or last.max >= p.n_rows
    # full coverage is reached at once on a trivially easy problem
    C = np.eye(6, dtype=bool)
    easy = SelectionProblem(C, np.zeros(6, int), np.zeros(6, int), np.ones(6, int), 6, 0)
    res = QGA(**FAST).solve(easy, random_state=0)
    assert res.coverage == 6 and len(res.history) == 1
    assert "100%" in res.info["stop_reason"]


def test_early_stopping_can_be_turned_off():
    p = random_problem(5)
    res = QGA(n_population=10, n_generations=12, rfhc_trials=3, early_stopping=False, stall=None).solve(
        p, random_state=0
    )
    assert len(res.history) == 13 or res.coverage >= p.n_rows


def test_stall_ends_a_run_without_progress():
    p = random_problem(5)
    res = QGA(n_population=10, n_generations=200, rfhc_trials=3, early_stopping=False, stall=3).solve(
        p, random_state=0
    )
    best = [h.best for h in res.history]
    assert best[-1] < p.n_rows  # this instance stalls below full coverage
    assert res.info["stop_reason"] == "stalled"
    # the last three generations did not raise the best; the one before them did (or it is generation 0)
    assert best[-1] == best[-4] and (len(best) == 4 or best[-4] > best[-5])


class StopAt(Callback):
    def __init__(self, n):
        self.n = n

    def on_generation(self, record):
        return record.generation >= self.n


def test_stop_request_returns_feasible_best_so_far():
    p = random_problem(11, N=60, M=40)
    res = QGA(n_population=20, n_generations=50, rfhc_trials=3, early_stopping=False).solve(
        p, random_state=1, callback=StopAt(2)
    )
    assert res.status == STOPPED
    assert [h.generation for h in res.history] == [0, 1, 2]
    assert res.feasible and p.is_feasible(res.selection)
    assert res.coverage == p.evaluate(res.selection).coverage


class CountingSampler(GeneticQUBOSampler):
    def __init__(self):
        super().__init__(n_population=10, n_generations=5)
        self.calls = 0

    def sample(self, qubo, n, rng):
        self.calls += 1
        return super().sample(qubo, n, rng)


class OnesSampler:
    """Not a subclass: anything with ``sample`` will do."""

    def __init__(self):
        self.calls = 0

    def sample(self, qubo, n, rng):
        self.calls += 1
        return np.ones((1, qubo.n_vars), dtype=bool)


def test_custom_sampler_is_used():
    p = random_problem(3)
    s = CountingSampler()
    res = QGA(**FAST, sampler=s).solve(p, random_state=0)
    assert s.calls > 0 and res.feasible
    o = OnesSampler()
    res = QGA(**FAST, sampler=o).solve(p, random_state=0)
    assert o.calls > 0 and res.feasible


def test_registry_and_params():
    solver = get_solver("qga", n_population=7)
    assert isinstance(solver, QGA)
    assert solver.get_params()["n_population"] == 7
    assert solver.n_generations == 100


@pytest.mark.parametrize("crossover", ["uniform", "one_point", "two_point"])
def test_crossovers(crossover):
    p = random_problem(21)
    res = QGA(**FAST, crossover=crossover).solve(p, random_state=0)
    assert res.feasible
    with pytest.raises(ValueError):
        QGA(**FAST, crossover="three_point").solve(p, random_state=0)


@pytest.mark.parametrize("seed", seeds(6))
def test_move_gains_are_exact(seed):
    """Every add/drop/swap/1-for-2 gain equals the change of f* computed from scratch."""
    p = random_problem(400 + seed, N=50, M=30)
    rng = np.random.default_rng(seed)
    usable = np.ones(p.n_rules, dtype=bool)
    scorer = MoveScorer(p, usable)
    r = rng.random(p.n_rules) < 0.2
    st = p.state(r)
    f0 = st.coverage
    gadd, gdrop, _ = scorer.add_drop_gains(st)
    for i in range(p.n_rules):
        x = r.copy()
        x[i] = not x[i]
        expect = p.evaluate(x).coverage - f0
        assert (gdrop[i] if r[i] else gadd[i]) == pytest.approx(expect)
    # swap matrix and 1-for-2 moves via an unconstrained copy of the problem
    free = SelectionProblem(p.coverage_dense, p.rule_class, p.y, p.lengths, None, None, n_classes=p.n_classes)
    scorer = MoveScorer(free, usable)
    st = free.state(r)
    move = scorer.best_move(st)
    if move is not None and move[1] >= 0 and move[2] >= 0:
        x = r.copy()
        x[move[1]] = False
        x[move[2]] = True
        assert move[0] == pytest.approx(free.evaluate(x).coverage - f0)
    # force the swap branch: a state where no add or drop improves
    st = free.state(r)
    while (m := scorer.best_move(st)) is not None and (m[1] < 0 or m[2] < 0):
        for i in m[1:]:
            if i >= 0:
                st.flip(i)
    if scorer.ctx is not None:
        S = scorer.ctx["S"]
        G = scorer.swap_gains()
        base = st.r.copy()
        f = st.coverage
        for ia, a in enumerate(S):
            for b in np.flatnonzero(~base)[:10]:
                x = base.copy()
                x[a] = False
                x[b] = True
                assert G[ia, b] == pytest.approx(free.evaluate(x).coverage - f)
        three = scorer.best_one_for_two(st, 50)
        if three is not None:
            x = base.copy()
            x[three[1]] = False
            x[three[2]] = True
            x[three[3]] = True
            assert three[0] == pytest.approx(free.evaluate(x).coverage - f)


def test_super_mutation_strictly_increases_and_stays_feasible():
    p = random_problem(77, N=60, M=40)
    usable = (p.lengths <= p.complexity_budget) & (p.errors <= p.error_budget)
    scorer = MoveScorer(p, usable)
    search = LocalSearch(p, scorer)
    rng = np.random.default_rng(0)
    for _ in range(10):
        st = p.state(np.zeros(p.n_rules, dtype=bool))
        for i in rng.permutation(p.n_rules):
            if st.flip_fits(int(i)) and rng.random() < 0.5:
                st.flip(int(i))
        before = st.coverage
        search.run(st)
        assert st.feasible and st.coverage >= before
        assert st.coverage == p.evaluate(st.r).coverage
        assert scorer.best_move(st) is None  # a local optimum of the structured mutations


@pytest.mark.parametrize("seed", range(4))
def test_incremental_gains_match_fresh_scoring(seed):
    """The scorer's sums updated across flips (and across unrelated states) equal a fresh scoring."""
    p = random_problem(500 + seed, N=80, M=40)
    rng = np.random.default_rng(seed)
    usable = np.ones(p.n_rules, dtype=bool)
    scorer = MoveScorer(p, usable)
    st = p.state(rng.random(p.n_rules) < 0.3)
    for step in range(30):
        if step % 10 == 9:
            # a new child: most rows change how often they are covered, a full product
            st = p.state(rng.random(p.n_rules) < (0.02 if step % 20 == 9 else 0.3))
        else:
            for i in rng.choice(p.n_rules, size=int(rng.integers(1, 3)), replace=False):
                st.flip(int(i))
        got = scorer.add_drop_gains(st)
        want = MoveScorer(p, usable).add_drop_gains(st)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w)
    assert scorer.updates > 0 and scorer.products >= 3


def test_state_construction_equals_flips():
    p = random_problem(9, N=70, M=35)
    r = np.random.default_rng(1).random(p.n_rules) < 0.4
    a = p.state(r)
    b = p.state()
    for i in np.flatnonzero(r):
        b.flip(int(i))
    np.testing.assert_array_equal(a.total, b.total)
    np.testing.assert_array_equal(a.per_class, b.per_class)
    assert (a.covered, a.pairs, a.complexity, a.errors) == (b.covered, b.pairs, b.complexity, b.errors)
    assert a.coverage == p.evaluate(r).coverage


def test_time_limit_stops_early_with_a_feasible_selection():
    p = random_problem(11, N=200, M=60)
    res = QGA(n_generations=1000, early_stopping=False, time_limit=0.0).solve(p, random_state=0)
    assert res.status == STOPPED and res.message == "time limit"
    assert res.feasible and p.is_feasible(res.selection)
    assert res.info["stop_reason"] == "time limit"
    assert res.info["generations"] <= 1


def test_generous_time_limit_changes_nothing():
    p = random_problem(12)
    a = QGA(**FAST).solve(p, random_state=3)
    b = QGA(**FAST, time_limit=3600.0).solve(p, random_state=3)
    assert b.status != STOPPED
    assert np.array_equal(a.selection, b.selection) and a.coverage == b.coverage


def test_auto_population_is_deterministic_and_scales_with_nonzeros(monkeypatch):
    import explainer.selection.solvers.qga as qga_module

    p = random_problem(13, N=60, M=40)
    assert QGA().population_size(p) == 100
    assert QGA(n_population=7).population_size(p) == 7
    nnz = p.indices.size
    monkeypatch.setattr(qga_module, "AUTO_NNZ", nnz / 4)
    assert QGA().population_size(p) == 19  # 100 * 0.25 ** 1.2 = 18.9
    monkeypatch.setattr(qga_module, "AUTO_NNZ", nnz / 100)
    assert QGA().population_size(p) == 6  # 100 * 0.01 ** 1.2 = 0.4: the floor
    monkeypatch.setattr(qga_module, "AUTO_NNZ", nnz / 4)
    assert QGA().population_size(p) == QGA().population_size(p)
    a = QGA(n_generations=5).solve(p, random_state=1)
    b = QGA(n_generations=5).solve(p, random_state=1)
    assert a.info["population"] == QGA().population_size(p)
    assert np.array_equal(a.selection, b.selection)


def test_population_evaluation_paths_agree(monkeypatch):
    import explainer.selection.problem as problem_module

    p = random_problem(14, N=300, M=50)
    rng = np.random.default_rng(0)
    R = rng.random((40, p.n_rules)) < 0.2
    small = p.evaluate_population(R)
    monkeypatch.setattr(problem_module, "SMALL_NNZ", -1)
    monkeypatch.setattr(SelectionProblem, "EVAL_BLOCK_ENTRIES", 3 * p.n_rows * p.n_classes)
    big = p.evaluate_population(R)
    for key in ("coverage", "covered", "conflicting_pairs", "feasible"):
        assert np.array_equal(small[key], big[key]), key
    assert np.array_equal(small["coverage"], [p.state(r).coverage for r in R])


# ---------------------------------------------------------------- inner GAs feed the outer loop
def _inner_inputs(q, p):
    from explainer.selection.solvers.local_search import usable_rules

    return q._sampler(), q._weights(p), usable_rules(p)


@pytest.mark.parametrize("seed", range(4))
def test_initial_population_holds_algorithm_6_samples_all_feasible(seed):
    p = random_problem(600 + seed, N=60, M=40)
    q = QGA(**FAST)
    sampler, weights, usable = _inner_inputs(q, p)
    samples = q.feasible_samples(p, np.random.default_rng(seed), sampler, weights, usable)
    pop = q.initial_population(p, np.random.default_rng(seed), sampler, weights, usable)
    assert len(samples) > 0 and samples.any(axis=1).any(), "Algorithm 6 found no non-empty feasible sample"
    assert p.feasible_mask(samples).all() and p.feasible_mask(pop).all()
    rows = {r.tobytes() for r in pop}
    assert all(s.tobytes() in rows for s in samples)
    assert len(rows) == len(pop)  # distinct


@pytest.mark.parametrize("n_kernel", [None, 64, 7])
def test_kernel_vectors_are_ternary_and_closed_under_negation(n_kernel):
    p = random_problem(610, N=60, M=40)
    q = QGA(**FAST, n_kernel=n_kernel)
    sampler, weights, usable = _inner_inputs(q, p)
    K = q.approximate_kernel(p, np.random.default_rng(0), sampler, weights, usable)
    assert K.shape[0] > 0 and K.shape[1] == p.n_rules
    assert np.isin(K, [-1, 0, 1]).all() and (K != 0).any(axis=1).all()
    keys = {k.tobytes() for k in K}
    assert len(keys) == len(K)
    assert all((-k).tobytes() in keys for k in K)
    if n_kernel is not None:
        assert len(K) <= n_kernel
    # every vector lives on rules that fit the budgets alone, and is nearly in the kernel of A
    assert not K[:, ~usable].any()


@pytest.mark.slow
def test_qga_paper_uses_only_kernel_mutations(monkeypatch):
    from explainer.selection.solvers import solve

    def forbidden(*args, **kwargs):
        raise AssertionError("a structured move was scored")

    for name in ("best_move", "best_one_for_two", "add_drop_gains"):
        monkeypatch.setattr(MoveScorer, name, forbidden)
    monkeypatch.setattr("explainer.selection.solvers.qga.repair", forbidden)
    monkeypatch.setattr("explainer.selection.solvers.local_search.lazy_adds", forbidden)
    kernel_steps = 0
    for seed in range(4):
        p = random_problem(620 + seed, N=80, M=40)
        res = solve(p, "qga_paper", random_state=seed, n_generations=10)
        imp = res.info["improvements"]
        assert {k for k, v in imp.items() if v} <= {"kernel"}
        assert res.feasible and res.info["initial_population"] >= 1
        assert res.info["cleanup"]["added"] == 0  # the clean-up only drops here
        kernel_steps += imp["kernel"]
    assert kernel_steps > 0, "Algorithm 7's mutations never augmented anything"


def test_qga_paper_is_deterministic_and_keeps_every_initial_individual():
    from explainer.selection.solvers.qga_paper import QGAPaper

    p = random_problem(630, N=80, M=40)
    a = QGAPaper(n_population=5, n_generations=5).solve(p, random_state=1)
    b = QGAPaper(n_population=5, n_generations=5).solve(p, random_state=1)
    assert np.array_equal(a.selection, b.selection)
    assert a.history[0].population == a.info["initial_population"] > 5  # not cut before generation 1
    assert all(h.population <= 5 for h in a.history[1:])


def test_a_swap_is_found_when_it_is_the_only_improvement():
    """Rows 0-3; A covers {0, 1}, B covers {0, 1, 2, 3}; both of length 2, Bc = 2.

    From {A}: no add fits, dropping A loses 2 rows, swapping A for B gains 2.
    """
    C = np.zeros((4, 2), dtype=bool)
    C[[0, 1], 0] = True
    C[:, 1] = True
    p = SelectionProblem(C, [0, 0], [0, 0, 0, 0], [2, 2], complexity_budget=2, error_budget=0)
    st = p.state(np.array([True, False]))
    search = LocalSearch(p, MoveScorer(p, np.ones(2, dtype=bool)), one_for_two=False)
    search.run(st)
    assert st.r.tolist() == [False, True] and st.coverage == 4
    assert search.improvements["swap"] == 1
    assert sum(search.improvements.values()) == 1


@pytest.mark.parametrize(
    "switch",
    ["rfhc_seeds", "qubo_population", "kernel_mutations", "structured_moves", "one_for_two", "lazy_adds",
     "lazy_swaps", "weighted_subspaces", "merge", "greedy_seed"],
)
def test_ablation_switches(switch):
    p = random_problem(640, N=80, M=40)
    params = {**FAST, "one_for_two": True, switch: False}  # 1-for-2 is off by default: on, to be switched off
    res = QGA(**params).solve(p, random_state=0)
    again = QGA(**params).solve(p, random_state=0)
    assert res.feasible and np.array_equal(res.selection, again.selection)
    imp = res.info["improvements"]
    assert sum(imp.values()) - imp["merge"] == res.info["super_mutation_steps"]
    assert 0 < res.info["distinct_children"] <= res.info["children"]
    if switch == "merge":
        assert imp["merge"] == 0 and res.info["merge_calls"] == 0
    if switch == "lazy_swaps":
        assert imp["lazy_swap"] == 0
    if switch == "kernel_mutations":
        assert res.info["kernel_size"] == 0 and imp["kernel"] == 0
    if switch == "structured_moves":
        assert imp["add"] == imp["drop"] == imp["swap"] == imp["one_for_two"] == imp["lazy_add"] == 0
        assert imp["lazy_swap"] == 0
    if switch == "one_for_two":
        assert imp["one_for_two"] == 0
    if switch == "lazy_adds":
        assert imp["lazy_add"] == 0
    none = QGA(**FAST, rfhc_seeds=False, qubo_population=False, greedy_seed=False).solve(p, random_state=0)
    assert none.info["initial_population"] == 1  # the empty selection only


@pytest.mark.parametrize("seed", range(4))
def test_kernel_gains_equal_full_evaluation(seed):
    from explainer.selection.solvers.local_search import flip_gains

    def kernel_gains(st, R):  # f*(R[i]) - f*(st), from the flips each row of R makes
        vid, rules = np.nonzero(R != st.r[None, :])
        return flip_gains(st, vid, rules, R.shape[0])

    p = random_problem(650 + seed, N=70, M=40)
    free = SelectionProblem(p.coverage_dense, p.rule_class, p.y, p.lengths, None, None, n_classes=p.n_classes)
    rng = np.random.default_rng(seed)
    st = free.state(rng.random(free.n_rules) < 0.3)
    kernel = rng.integers(-1, 2, (25, free.n_rules)) * (rng.random((25, free.n_rules)) < 0.2)
    R = np.where(kernel > 0, True, np.where(kernel < 0, False, st.r[None, :]))
    np.testing.assert_allclose(kernel_gains(st, R), free.fitness(R) - st.coverage)


@pytest.mark.parametrize("seed", range(4))
def test_sparse_kernel_step_picks_the_best_feasible_mutation(seed):
    from explainer.selection.solvers.local_search import KernelMoves

    p = random_problem(660 + seed, N=70, M=40)
    rng = np.random.default_rng(seed)
    kernel = (rng.integers(-1, 2, (30, p.n_rules)) * (rng.random((30, p.n_rules)) < 0.15)).astype(np.int8)
    st = p.state()
    for i in rng.permutation(p.n_rules):
        if st.flip_fits(int(i)) and rng.random() < 0.3:
            st.flip(int(i))
    R = np.where(kernel > 0, True, np.where(kernel < 0, False, st.r[None, :]))
    ok = p.feasible_mask(R) & (R != st.r[None, :]).any(axis=1)
    f = np.where(ok, p.fitness(R), -np.inf)
    before = st.coverage
    applied = KernelMoves(kernel).step(st)
    assert applied == bool(f.max() > before + 1e-9)
    if applied:
        assert np.array_equal(st.r, R[int(np.argmax(f))]) and st.coverage == f.max()


def test_one_for_two_auto_follows_the_population():
    from explainer.selection.solvers.qga import ONE_FOR_TWO_BELOW

    assert not QGA().uses_one_for_two(ONE_FOR_TWO_BELOW)
    assert QGA().uses_one_for_two(ONE_FOR_TWO_BELOW - 1)
    assert QGA(one_for_two=True).uses_one_for_two(ONE_FOR_TWO_BELOW)
    assert not QGA(one_for_two=False).uses_one_for_two(6)
    p = random_problem(660, N=80, M=40)
    res = QGA(n_population=ONE_FOR_TWO_BELOW, n_generations=3, rfhc_trials=5).solve(p, random_state=0)
    assert res.info["improvements"]["one_for_two"] == 0


@pytest.mark.slow
def test_merges_are_counted_and_never_lower_the_best():
    calls = 0
    for seed in range(6):
        p = random_problem(670 + seed, N=80, M=40)
        res = QGA(**FAST).solve(p, random_state=seed)
        imp = res.info["improvements"]
        assert sum(imp.values()) - imp["merge"] == res.info["super_mutation_steps"]
        assert imp["merge"] <= res.info["merge_calls"] <= res.info["generations"]
        best = [h.best for h in res.history]
        assert best == sorted(best)
        calls += res.info["merge_calls"]
    assert calls > 0, "no merge ran: the test exercised nothing"
