"""Contract and quality checks shared by the baseline selection algorithms."""

import itertools

import numpy as np
import pytest
from lanes import seeds

from explainer.selection.callbacks import Callback
from explainer.selection.problem import SelectionProblem
from explainer.selection.solvers import get_solver
from explainer.selection.solvers.forex import forex_candidates
from explainer.selection.solvers.operators import (
    crossover_masks,
    pareto_ranks,
    random_feasible_population,
    select_pairs,
)

# test key -> (registry name, small parameters)
FAST = {
    "forex": ("forex", {}),
    "forex_trimmed": ("forex_trimmed", {}),
    "greedy": ("greedy", {}),
    "rfhc": ("rfhc", {"n_trials": 6}),
    "ga": ("ga", {"n_population": 16, "n_generations": 8}),
    "ga_one_point": ("ga", {"n_population": 16, "n_generations": 8, "crossover": "one_point"}),
    "ga_two_point": ("ga", {"n_population": 16, "n_generations": 8, "crossover": "two_point", "max_retries": 0}),
    "irfre": ("irfre", {"n_population": 16, "n_generations": 8}),
    "irfre_rfhc": ("irfre_rfhc", {"n_population": 16, "n_generations": 8, "n_trials": 4}),
}


def make(key):
    name, params = FAST[key]
    return get_solver(name, **params)


def random_problem(seed, N=None, M=None, K=None, eps=None, bc=None, be=None):
    rng = np.random.default_rng(1000 + seed)
    N = N or int(rng.integers(30, 61))
    M = M or int(rng.integers(10, 41))
    K = K or int(rng.integers(2, 5))
    C = rng.random((N, M)) < rng.uniform(0.1, 0.4)
    y = rng.integers(0, K, N)
    # rules mostly agree with the rows they cover, as tree leaves do
    rule_class = np.array([np.bincount(y[C[:, i]], minlength=K).argmax() if C[:, i].any() else 0 for i in range(M)])
    flip = rng.random(M) < 0.3
    rule_class[flip] = rng.integers(0, K, flip.sum())
    lengths = rng.integers(1, 5, M)
    p0 = SelectionProblem(C, rule_class, y, lengths, n_classes=K)
    bc = bc if bc is not None else int(rng.integers(0, lengths.sum() // 2 + 1))
    be = be if be is not None else int(rng.integers(0, p0.errors.sum() // 2 + 1))
    eps = eps if eps is not None else float(rng.choice([0.0, 1.0]))
    return SelectionProblem(C, rule_class, y, lengths, bc, be, eps=eps, n_classes=K)


def brute_force(problem):
    R = np.array(list(itertools.product([0, 1], repeat=problem.n_rules)), dtype=bool)
    out = problem.evaluate_population(R)
    return float(out["coverage"][out["feasible"]].max())


@pytest.mark.parametrize("key", list(FAST))
@pytest.mark.parametrize("seed", seeds(3, 1))
@pytest.mark.parametrize("instance", seeds(3, 1))
def test_contract(key, seed, instance):
    p = random_problem(instance * 7 + seed)
    res = make(key).solve(p, random_state=seed)
    again = make(key).solve(p, random_state=seed)
    assert np.array_equal(res.selection, again.selection)
    ev = p.evaluate(res.selection)
    assert res.coverage == ev.coverage
    assert res.selection.shape == (p.n_rules,)
    if key == "forex" and not ev.feasible:
        assert res.status == "over_budget" and res.message
    else:
        assert ev.feasible and res.feasible and res.status == "ok"
        assert ev.complexity <= p.complexity_budget and ev.errors <= p.error_budget
    h = res.history
    assert h and [r.generation for r in h] == list(range(1, len(h) + 1))
    for r in h:
        assert r.min <= r.mean + 1e-9 and r.mean <= r.max + 1e-9
    if key not in ("forex",):
        assert res.coverage >= 0.0  # the empty selection is always available


@pytest.mark.parametrize("seed", seeds(6))
def test_never_beats_brute_force_and_heuristics_are_sane(seed):
    p = random_problem(seed, N=40, M=10)
    opt = brute_force(p)
    for key in FAST:
        res = make(key).solve(p, random_state=seed)
        if res.feasible:
            assert res.coverage <= opt + 1e-9, key
    for key in ("greedy", "rfhc", "ga", "irfre_rfhc"):
        res = make(key).solve(p, random_state=seed)
        assert res.coverage >= 0.6 * opt - 1e-9, (key, res.coverage, opt)


def test_greedy_needs_the_best_single_rule():
    # rule0: length 1 covers 2 rows (ratio 2/1); rule1: length 10 covers 10 rows (ratio 10/10)
    C = np.zeros((12, 2), dtype=bool)
    C[[0, 1], 0] = True
    C[2:12, 1] = True
    p = SelectionProblem(C, [0, 0], np.zeros(12, dtype=int), [1, 10], complexity_budget=10, error_budget=0)
    res = get_solver("greedy").solve(p)
    assert res.selection.tolist() == [False, True]
    assert res.coverage == 10 and res.info["used_single_rule"]
    assert res.info["ratio_coverage"] == 2


def forex_instance():
    y = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1, 1])
    cover = {0: [0, 1, 2, 3], 1: [4, 6], 2: [3, 4, 5], 3: [6, 7], 4: [0], 5: [7, 8, 9]}
    C = np.zeros((10, 6), dtype=bool)
    for i, rows in cover.items():
        C[rows, i] = True
    return SelectionProblem(C, [0, 0, 0, 1, 1, 1], y, [1, 3, 2, 2, 1, 1], complexity_budget=2, error_budget=0)


def test_forex_hand_computed():
    p = forex_instance()
    # class 0: accuracy 1, .5, 1 (mean .83); support 4, 2, 3 (mean 3); length 1, 3, 2 (mean 2)
    # class 1: accuracy 1, 0, 1 (mean .67); support 2, 1, 3 (mean 2); length 2, 1, 1 (mean 1.33)
    assert np.flatnonzero(forex_candidates(p, inclusive=True)).tolist() == [0, 2, 5]
    assert np.flatnonzero(forex_candidates(p, inclusive=False)).tolist() == [0, 5]
    res = get_solver("forex").solve(p)
    assert np.flatnonzero(res.selection).tolist() == [0, 2, 5]
    assert res.status == "over_budget" and not res.feasible and "complexity 4/2" in res.message
    trimmed = get_solver("forex_trimmed").solve(p)
    assert trimmed.feasible and trimmed.status == "ok"
    assert not (trimmed.selection & ~forex_candidates(p)).any()
    # within budget 2 among {0, 2, 5}: {0, 5} covers 7 rows, the best choice
    assert np.flatnonzero(trimmed.selection).tolist() == [0, 5] and trimmed.coverage == 7


class StopAt(Callback):
    def __init__(self, at):
        self.at = at

    def on_generation(self, record):
        return record.generation == self.at


@pytest.mark.parametrize("key", ["rfhc", "ga", "irfre", "irfre_rfhc", "greedy"])
def test_stop_request(key):
    p = random_problem(3, N=60, M=40, eps=0.0, bc=12, be=10**6)  # 100 % (a stop of its own) out of reach
    res = make(key).solve(p, random_state=0, callback=StopAt(2))
    assert res.status == "stopped" and res.message
    assert len(res.history) == 2
    assert res.feasible and res.coverage == p.evaluate(res.selection).coverage


def test_pareto_ranks_hand_computed():
    # minimise all: a=(0,0) front 1, b=(1,1) dominated by a, c=(0,2) dominated by a, d=(2,0) by a
    obj = np.array([[0, 0], [1, 1], [0, 2], [2, 0], [3, 3]])
    assert pareto_ranks(obj).tolist() == [1, 2, 2, 2, 3]
    assert pareto_ranks(np.array([[1, 2], [2, 1], [1, 2]])).tolist() == [1, 1, 1]


def test_random_feasible_population():
    p = random_problem(5, N=50, M=40, bc=6, be=4)
    R = random_feasible_population(p, 30, np.random.default_rng(0))
    assert len(R) >= 1 and p.feasible_mask(R).all()
    assert len(np.unique(np.packbits(R, axis=1), axis=0)) == len(R)
    tight = random_problem(5, N=50, M=40, bc=0, be=0)
    if not ((tight.lengths == 0) & (tight.errors == 0)).any():
        assert random_feasible_population(tight, 10, np.random.default_rng(0)).tolist() == [[False] * 40]


def test_crossover_masks_and_pairs():
    rng = np.random.default_rng(0)
    one = crossover_masks("one_point", 50, 9, rng)
    assert all((row[:-1] >= row[1:]).all() and row[0] and not row[-1] for row in one)
    two = crossover_masks("two_point", 50, 9, rng)
    assert all(np.count_nonzero(np.diff(row.astype(int))) <= 2 for row in two)
    with pytest.raises(ValueError):
        crossover_masks("three_point", 1, 9, rng)
    a, b = select_pairs(np.array([0.0, 0.0, 5.0, 1.0]), 200, rng)
    assert (a != b).all() and set(a.tolist()) <= {2, 3}


@pytest.mark.slow
def test_iris_pool_depth3_budgets_4_5(paper_datasets_dir):
    pd = pytest.importorskip("pandas")
    from explainer.rules.pool import build_pool

    df = pd.read_csv(paper_datasets_dir / "iris.csv")
    p = SelectionProblem.from_pool(build_pool(df.drop(columns="class"), df["class"], max_depth=3, random_state=0), 4, 5)
    # optimum by enumeration: every rule has length >= 1, so at most 4 rules fit
    assert p.lengths.min() >= 1
    R = [np.isin(np.arange(p.n_rules), c) for k in range(1, 5) for c in itertools.combinations(range(p.n_rules), k)
         if p.lengths[list(c)].sum() <= 4]
    out = p.evaluate_population(np.array(R))
    opt = float(out["coverage"][out["feasible"]].max())
    for name in ("greedy", "rfhc", "ga", "irfre", "irfre_rfhc", "forex_trimmed"):
        res = get_solver(name).solve(p, random_state=0)
        assert res.feasible and res.coverage <= opt
    assert get_solver("rfhc").solve(p, random_state=0).coverage >= 0.9 * opt


def test_termination_criteria():
    from explainer.selection.solvers.termination import (
        FULL_COVERAGE,
        N_GENERATIONS,
        STALL,
        TIME_LIMIT,
        Termination,
    )

    t = Termination(n_generations=5, stall=2).start()
    assert t.update(0, 1.0, 10) is None  # the initial population never counts as a generation
    assert t.update(1, 2.0, 10) is None
    assert t.update(2, 2.0, 10) is None  # one generation without a better best
    assert t.update(3, 2.0, 10) == STALL
    t = Termination(n_generations=2).start()
    assert t.update(1, 1.0, 10) is None and t.update(2, 1.5, 10) == N_GENERATIONS
    assert Termination().start().update(1, 10.0, 10) == FULL_COVERAGE
    assert Termination(full_coverage=False).start().update(1, 10.0, 10) is None
    t = Termination(time_limit=0.0).start()
    assert t.out_of_time() and t.update(1, 1.0, 10) == TIME_LIMIT
    assert Termination().start().remaining() == float("inf")


def test_stall_ends_a_run_through_the_monitor():
    p = random_problem(4, N=60, M=40, eps=1.0, bc=12, be=10**6)
    res = get_solver("ga", n_population=16, n_generations=200, stall=2).solve(p, random_state=0)
    assert len(res.history) < 200 and res.status == "ok"
    best = [h.best for h in res.history]
    assert best[-1] == best[-3]  # two generations without improvement before the stop


def test_result_repr_is_one_line():
    p = random_problem(5, N=60, M=40, eps=1.0, bc=12, be=5)
    res = make("greedy").solve(p)
    text = repr(res)
    assert "\n" not in text and text.startswith("SelectionResult(greedy:")
    assert f"complexity {res.complexity}/12" in text and f"errors {res.errors}/5" in text
    assert f"{100 * res.coverage_score:.2f}%" in text and res.status in text
