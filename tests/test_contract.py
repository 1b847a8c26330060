"""Every registered algorithm keeps the same contract.

Never over a budget (ForEx++ untrimmed excepted, and then flagged), same seed
same selection, a well-formed history, metrics that match the problem's own
evaluation; on brute-forceable instances the exact solver equals the optimum
and no heuristic beats it.
"""

import itertools

import numpy as np
import pytest
from lanes import seeds

from explainer.bench import paper_settings
from explainer.data import load_paper_dataset
from explainer.selection.problem import SelectionProblem
from explainer.selection.result import OVER_BUDGET
from explainer.selection.solvers import ALGORITHMS, solve

FAST = {
    "irfre": {"n_generations": 15, "n_population": 30},
    "irfre_rfhc": {"n_generations": 15, "n_population": 30, "n_trials": 10},
    "ga": {"n_generations": 15, "n_population": 30},
    "qga": {"n_generations": 20},
    "qga_paper": {"n_generations": 20},
    "rfhc": {"n_trials": 10},
    "exact": {"time_limit": 20, "warm_start": "greedy"},
}


def random_problem(seed, N=40, M=14, K=3):
    rng = np.random.default_rng(seed)
    C = rng.random((N, M)) < rng.uniform(0.1, 0.4)
    rule_class = rng.integers(0, K, M)
    y = rng.integers(0, K, N)
    lengths = rng.integers(1, 5, M)
    eps = float(rng.choice([0.0, 1.0]))
    base = SelectionProblem(C, rule_class, y, lengths, eps=eps, n_classes=K)
    bc = int(rng.integers(1, max(2, lengths.sum() // 2)))
    be = int(rng.integers(0, max(1, base.errors.sum() // 3)))
    return SelectionProblem(C, rule_class, y, lengths, bc, be, eps=eps, n_classes=K)


def brute_force(problem):
    R = np.array(list(itertools.product([False, True], repeat=problem.n_rules)), dtype=bool)
    m = problem.evaluate_population(R)
    return float(np.where(m["feasible"], m["coverage"], -np.inf).max())


def check_contract(problem, name, seed):
    res = solve(problem, name, random_state=seed, **FAST.get(name, {}))
    again = solve(problem, name, random_state=seed, **FAST.get(name, {}))
    assert np.array_equal(res.selection, again.selection), f"{name} is not deterministic"
    ev = problem.evaluate(res.selection)
    assert res.coverage == pytest.approx(ev.coverage)
    assert (res.complexity, res.errors, res.covered) == (ev.complexity, ev.errors, ev.covered)
    if name == "forex":
        assert ev.feasible or res.status == OVER_BUDGET
    else:
        assert ev.feasible, f"{name} went over budget"
        assert res.complexity <= problem.complexity_budget and res.errors <= problem.error_budget
    assert res.history, f"{name} reported no progress"
    first = res.history[0].generation
    assert first in (0, 1)  # 0: the initial population is reported too
    assert [h.generation for h in res.history] == list(range(first, first + len(res.history)))
    for h in res.history:
        assert h.min <= h.mean + 1e-9 <= h.max + 2e-9
    return res


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
@pytest.mark.parametrize("seed", seeds(3, 1))
def test_contract_on_random_problems(name, seed):
    problem = random_problem(seed)
    res = check_contract(problem, name, seed)
    optimum = brute_force(problem)
    if name != "forex":
        assert res.coverage <= optimum + 1e-9, f"{name} beat the brute-force optimum"
    if name == "exact":
        assert res.coverage == pytest.approx(optimum)
        assert res.info["optimal"]


@pytest.fixture(scope="module")
def shared_pools(paper_datasets_dir):
    from explainer.rules.pool import build_pool

    pools = {}
    settings = paper_settings()
    for name in ("iris", "wine", "zoo"):
        st = settings[name]
        ds = load_paper_dataset(name, paper_datasets_dir)
        pool = build_pool(ds.X, ds.y, int(st["depth"]), random_state=0, classes=ds.classes)
        pools[name] = SelectionProblem.from_pool(pool, int(st["complexity_budget"]), int(st["errors_budget"]))
    return pools


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(ALGORITHMS))
@pytest.mark.parametrize("dataset", ["iris", "wine", "zoo"])
def test_contract_on_shared_data(name, dataset, shared_pools):
    problem = shared_pools[dataset]
    res = check_contract(problem, name, 0)
    exact = solve(problem, "exact", time_limit=30)
    if name != "forex":
        assert res.coverage <= exact.info["bound"] + 1e-9


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_every_algorithm_honours_a_time_limit(name):
    """A zero time limit ends every run at once with a feasible selection (exact: its warm start)."""
    problem = random_problem(5, N=300, M=40)
    params = {**FAST.get(name, {}), "time_limit": 0.0}
    if name == "exact":
        params["warm_start"] = "greedy"
    res = solve(problem, name, random_state=0, **params)
    assert name == "forex" or res.feasible
    if name in ("forex", "forex_trimmed"):
        return  # one pass, nothing to stop
    if name == "exact":
        assert res.status == "feasible" and "time limit" in res.message
    else:
        assert res.status == "stopped" and res.message == "time limit", (res.status, res.message)
        assert len(res.history) <= 2


def dead_rules(problem, selection):
    """Selected rules whose removal leaves f* unchanged or higher (brute force over the selection)."""
    f = problem.evaluate(selection).coverage
    dead = []
    for i in np.flatnonzero(selection):
        x = selection.copy()
        x[i] = False
        if problem.evaluate(x).coverage >= f - 1e-9:
            dead.append(int(i))
    return dead


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_no_dead_rules_on_random_problems(name, seed):
    problem = random_problem(seed)
    res = solve(problem, name, random_state=seed, **FAST.get(name, {}))
    if name != "forex":  # reproduced as published: not cleaned
        assert dead_rules(problem, res.selection) == []


SMALL = {
    "irfre": {"n_generations": 5, "n_population": 20},
    "irfre_rfhc": {"n_generations": 5, "n_population": 20, "n_trials": 5},
    "ga": {"n_generations": 5, "n_population": 20},
    "qga": {"n_generations": 2, "n_population": 10, "rfhc_trials": 5},
    "qga_paper": {"n_generations": 2, "n_population": 10, "n_kernel_subspaces": 4, "rfhc_trials": 5},
    "rfhc": {"n_trials": 5},
    # a limit most of the paper problems reach: stopped runs are cleaned too
    "exact": {"time_limit": 0.3, "warm_start": "greedy"},
}


@pytest.fixture(scope="module")
def paper_problems(paper_datasets_dir):
    from explainer.rules.pool import build_pool

    out = {}
    for name, st in paper_settings().items():
        ds = load_paper_dataset(name, paper_datasets_dir)
        pool = build_pool(ds.X, ds.y, int(st["depth"]), random_state=0, classes=ds.classes)
        bc, be = int(st["complexity_budget"]), int(st["errors_budget"])
        out[name] = (SelectionProblem.from_pool(pool, bc, be), SelectionProblem.from_pool(pool, max(bc // 2, 1), be // 2))
    return out


@pytest.mark.slow
def test_no_dead_rules_on_the_paper_data_sets(paper_problems):
    """Every algorithm (forex aside), the 10 paper data sets, the paper's budgets and half of them."""
    found = []
    for dataset, problems in paper_problems.items():
        for problem in problems:
            for name in sorted(ALGORITHMS):
                if name == "forex":
                    continue
                res = solve(problem, name, random_state=0, **SMALL.get(name, {}))
                assert res.feasible
                dead = dead_rules(problem, res.selection)
                if dead:
                    found.append((dataset, problem.complexity_budget, name, dead))
    assert found == []
