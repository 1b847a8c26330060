"""Pinned and banned rules: every solver keeps the pins and leaves out the bans, the exact solvers are
optimal under them (brute force over the subsets holding every pin and no ban), and pins that alone break
a budget are refused before any run."""

import itertools

import numpy as np
import pytest
from lanes import seeds
from problems import mostly_right

from explainer.selection.problem import SelectionProblem
from explainer.selection.solvers import ALGORITHMS, get_solver_class, solve

FAST = {
    "irfre": {"n_generations": 10, "n_population": 20},
    "irfre_rfhc": {"n_generations": 10, "n_population": 20, "n_trials": 5},
    "ga": {"n_generations": 10, "n_population": 20},
    "qga": {"n_generations": 8},
    "qga_paper": {"n_generations": 8},
    "rfhc": {"n_trials": 10},
}


def installed(name):
    try:
        get_solver_class(name)
    except ImportError:
        return False
    return True


def instance(seed, objective="coverage", weighted=False):
    """A small random problem (no pins) and a pinned and a banned set that leave room to choose."""
    rng = np.random.default_rng(seed)
    N, M, K = int(rng.integers(20, 36)), int(rng.integers(8, 12)), 3
    C, rule_class, y, lengths = mostly_right(rng, N, M, K, (0.1, 0.4))
    w = rng.uniform(0.5, 2.0, N) if weighted else None
    eps = float(rng.choice([0.0, 0.5, 1.0]))
    loose = SelectionProblem(C, rule_class, y, lengths, eps=eps, n_classes=K, sample_weight=w)
    order = rng.permutation(M)
    pinned, banned = list(order[:2]), list(order[2:4])
    bc = int(lengths[pinned].sum() + rng.integers(2, 8))
    be = float(loose.errors[pinned].sum() + rng.uniform(1, 6))
    be = be if weighted else int(be)
    base = SelectionProblem(C, rule_class, y, lengths, bc, be, eps=eps, n_classes=K, sample_weight=w,
                            objective=objective)
    return base, [int(i) for i in pinned], [int(i) for i in banned]


def brute_force(base, pinned, banned):
    """The best objective over the subsets within budgets holding every pin and no ban (``base`` has no pins)."""
    R = np.array(list(itertools.product([False, True], repeat=base.n_rules)), dtype=bool)
    R = R[R[:, pinned].all(axis=1) & ~R[:, banned].any(axis=1)]
    m = base.evaluate_population(R)
    return float(np.where(m["feasible"], m["value"], -np.inf).max())


def backends():
    out = ["highs"]
    try:
        import ortools  # noqa: F401
    except ImportError:
        return out
    return [*out, "cpsat"]


@pytest.mark.parametrize("backend", backends())
@pytest.mark.parametrize("objective", ["coverage", "accuracy"])
@pytest.mark.parametrize("seed", seeds(12, 4))
def test_exact_is_optimal_under_pins_and_bans(seed, objective, backend):
    base, pinned, banned = instance(seed, objective)
    problem = base.with_rules(pinned, banned)
    for warm in ("greedy", None):
        res = solve(problem, "exact", backend=backend, warm_start=warm)
        assert res.selection[pinned].all() and not res.selection[banned].any()
        assert res.evaluation.value == pytest.approx(brute_force(base, pinned, banned), abs=1e-9)
    # the optimum without pins is at least as good: the pins only narrow the choice
    free = solve(base, "exact", backend=backend)
    assert free.evaluation.value >= res.evaluation.value - 1e-9


@pytest.mark.parametrize("seed", seeds(6, 2))
def test_exact_under_pins_with_weighted_rows(seed):
    base, pinned, banned = instance(seed, weighted=True)
    res = solve(base.with_rules(pinned, banned), "exact")
    assert res.selection[pinned].all() and not res.selection[banned].any()
    assert res.evaluation.value == pytest.approx(brute_force(base, pinned, banned), abs=1e-6)


@pytest.mark.parametrize("objective", ["coverage", "accuracy"])
@pytest.mark.parametrize("name", sorted(ALGORITHMS))
@pytest.mark.parametrize("seed", seeds(4, 2))
def test_every_algorithm_keeps_pins_and_drops_bans(name, seed, objective):
    if not installed(name):
        pytest.skip(f"{name} needs a dependency that is not installed")
    if objective not in get_solver_class(name).objectives:
        pytest.skip(f"{name} does not optimise objective={objective}")
    base, pinned, banned = instance(100 + seed, objective)
    problem = base.with_rules(pinned, banned)
    res = solve(problem, name, random_state=seed, **FAST.get(name, {}))
    assert res.selection[pinned].all(), f"{name} dropped a pinned rule"
    assert not res.selection[banned].any(), f"{name} kept a banned rule"
    ev = base.evaluate(res.selection)  # the budgets checked by the problem without pins
    if get_solver_class(name).respects_budgets:
        assert ev.feasible
    assert ev.value <= brute_force(base, pinned, banned) + 1e-9 or not ev.feasible


def test_a_rule_with_no_rows_or_over_budget_alone_is_kept_when_pinned():
    # rule 2 covers nothing; rule 1 alone takes the whole complexity budget
    C = np.array([[1, 0, 0], [1, 1, 0], [0, 1, 0], [1, 0, 0]], dtype=bool)
    base = SelectionProblem(C, [0, 1, 0], [0, 1, 1, 0], [1, 3, 1], complexity_budget=4, error_budget=2)
    problem = base.with_rules(pinned=[1, 2])
    for name in ("exact", "greedy", "qga", "rfhc"):
        res = solve(problem, name, random_state=0)
        assert res.selection.tolist() == [False, True, True], name


def test_pins_that_alone_exceed_a_budget_are_an_error():
    C = np.eye(4, dtype=bool)
    base = SelectionProblem(C, [0, 1, 0, 1], [0, 1, 1, 1], [2, 3, 4, 1], complexity_budget=6, error_budget=1)
    assert base.errors.tolist() == [0, 0, 1, 0]
    with pytest.raises(ValueError, match=r"complexity budget: complexity 7 > 6 \(over by 1\)"):
        base.with_rules(pinned=[1, 2])
    with pytest.raises(ValueError, match="complexity budget"):
        SelectionProblem(C, [0, 1, 0, 1], [0, 1, 1, 1], [2, 3, 4, 1], 6, 1, pinned=[1, 2])
    ok = base.with_rules(pinned=[2, 3])
    with pytest.raises(ValueError, match=r"error budget: errors 1 > 0 \(over by 1\)"):
        ok.with_budgets(6, 0)
    with pytest.raises(ValueError, match="both pinned and banned"):
        base.with_rules(pinned=[0], banned=[0, 1])
    with pytest.raises(ValueError, match="rule indices"):
        base.with_rules(pinned=[4])


def test_feasibility_means_every_pin_and_no_ban():
    C = np.eye(4, dtype=bool)
    p = SelectionProblem(C, [0, 1, 0, 1], [0, 1, 0, 1], [1, 1, 1, 1], pinned=[0], banned=[3])
    R = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 1], [1, 1, 1, 0]], dtype=bool)
    assert p.feasible_mask(R).tolist() == [True, False, False, True]
    assert p.evaluate_population(R)["feasible"].tolist() == [True, False, False, True]
    st = p.state()
    assert st.r.tolist() == [True, False, False, False] and st.feasible
    assert not st.flip_fits(0) and not st.flip_fits(3) and st.flip_fits(1)
    sub = p.restrict([3, 2, 0])
    assert sub.pinned.tolist() == [2] and sub.banned.tolist() == [0]
