"""QGA's population merge and lazy swaps, and the restricted problem behind the merge, against brute force."""

import itertools

import numpy as np
import pytest
from lanes import seeds
from problems import random_problem

from explainer.selection.solvers.local_search import lazy_swaps, usable_rules
from explainer.selection.solvers.merge import PopulationMerge
from explainer.selection.solvers.moves import MoveScorer


def random_population(problem, rng, n=6, k=3):
    """n feasible selections of up to k rules each (rules dropped until both budgets hold)."""
    pop = np.zeros((n, problem.n_rules), dtype=bool)
    for i in range(n):
        for j in rng.choice(problem.n_rules, size=k, replace=False):
            pop[i, j] = True
            if not problem.is_feasible(pop[i]):
                pop[i, j] = False
    return pop


def best_over(problem, rules):
    """Brute force: the best f* of a feasible selection that uses only ``rules``."""
    R = np.zeros((2 ** rules.size, problem.n_rules), dtype=bool)
    R[:, rules] = np.array(list(itertools.product([False, True], repeat=rules.size)), dtype=bool)
    R = R[problem.feasible_mask(R)]
    return float(problem.fitness(R).max())


@pytest.mark.parametrize("seed", seeds(10))
def test_restrict_keeps_every_evaluation(seed):
    p = random_problem(seed, N=50, M=30)
    rng = np.random.default_rng(seed)
    rules = np.sort(rng.choice(p.n_rules, size=12, replace=False))
    sub = p.restrict(rules)
    assert (sub.n_rows, sub.n_rules) == (p.n_rows, 12)
    for _ in range(20):
        r_sub = rng.random(12) < 0.3
        r = np.zeros(p.n_rules, dtype=bool)
        r[rules[r_sub]] = True
        assert sub.evaluate(r_sub) == p.evaluate(r)


@pytest.mark.parametrize("seed", seeds(12))
def test_merge_is_the_best_selection_of_the_parents_rules(seed):
    p = random_problem(100 + seed, N=50, M=30)
    rng = np.random.default_rng(seed)
    pop = random_population(p, rng)
    fit = p.fitness(pop)
    merge = PopulationMerge(max_rules=14)
    rules = merge.rules(pop, fit)
    assert rules.size <= 14 or rules.size == pop[np.argmax(fit)].sum()
    assert pop[np.argmax(fit)][rules].sum() == pop[np.argmax(fit)].sum()  # the fittest is always in
    out = merge(p, pop, fit)
    assert out is not None and p.is_feasible(out)
    assert not out[np.setdiff1d(np.arange(p.n_rules), rules)].any()  # only the parents' rules
    value = p.evaluate(out).coverage
    assert value >= fit.max() - 1e-9
    assert merge.proven == 1
    assert value == pytest.approx(best_over(p, rules), abs=1e-9)


def four_individuals(p, last):
    """Four individuals, fittest first: rules 0-2, 3-4, 5-7 and ``last``."""
    pop = np.zeros((4, p.n_rules), dtype=bool)
    for i, rules in enumerate(([0, 1, 2], [3, 4], [5, 6, 7], last)):
        pop[i, rules] = True
    return pop, np.array([4.0, 3.0, 2.0, 1.0])


def test_merge_takes_individuals_from_the_fittest_down_within_the_cap():
    p = random_problem(7, N=50, M=30)
    pop, fit = four_individuals(p, [0, 8])
    assert PopulationMerge(max_rules=5).rules(pop, fit).tolist() == [0, 1, 2, 3, 4]
    assert PopulationMerge(max_rules=2).rules(pop, fit).tolist() == [0, 1, 2]  # the fittest, whatever its size
    assert PopulationMerge(max_rules=100, n_parents=2).rules(pop, fit).tolist() == [0, 1, 2, 3, 4]


def _groups_by_hand(p, rules):
    """Distinct sets of ``rules`` covering a row, over the rows some of them cover."""
    cov = p.coverage_dense[:, rules]
    return len({tuple(row) for row in cov[cov.any(axis=1)]})


def test_merge_takes_fewer_parents_when_their_model_holds_too_many_row_groups():
    from explainer.selection.solvers.merge import row_groups

    p = random_problem(7, N=50, M=30)
    pop, fit = four_individuals(p, [8, 9])
    for rules in ([0, 1, 2], [0, 1, 2, 3, 4], list(range(10))):
        assert row_groups(p, np.array(rules)) == _groups_by_hand(p, rules)
    two, four = _groups_by_hand(p, [0, 1, 2, 3, 4]), _groups_by_hand(p, list(range(10)))
    assert two < four < p.n_rows
    merge = PopulationMerge(max_groups=four)  # the four parents fit
    assert merge.rules(pop, fit, p).tolist() == list(range(10)) and merge.narrowed == 0
    merge = PopulationMerge(max_groups=four - 1)  # halved to the two fittest
    assert merge.rules(pop, fit, p).tolist() == [0, 1, 2, 3, 4] and merge.narrowed == 1
    merge = PopulationMerge(max_groups=two - 1)  # even two exceed it: no merge
    assert merge.rules(pop, fit, p).size == 0
    assert merge(p, pop, fit) is None and merge.calls == 0
    # a table of no more rows than the cap is never narrowed
    assert PopulationMerge(max_groups=p.n_rows).rules(pop, fit, p).tolist() == list(range(10))


def test_merge_is_skipped_when_a_proven_merge_covered_the_same_rules():
    p = random_problem(11, N=50, M=30)
    pop = random_population(p, np.random.default_rng(11))
    fit = p.fitness(pop)
    merge = PopulationMerge(max_rules=14)
    assert merge(p, pop, fit) is not None
    assert merge(p, pop[:3], fit[:3]) is None  # a subset of the same rules: nothing better to find
    assert merge.skipped == 1 and merge.calls == 1


def _states_before_a_swap(p, scorer, rng, tries=60):
    """Selection states at which best_move's choice is a swap (drop a, add b): add/drop optima of random starts."""
    for _ in range(tries):
        st = p.state(random_population(p, rng, n=1, k=int(rng.integers(1, 4)))[0])
        while (move := scorer.best_move(st)) is not None:
            _, a, b = move
            if a >= 0 and b >= 0:
                yield st, move
                break
            st.flip(a if a >= 0 else b)


def test_lazy_swaps_only_apply_augmenting_feasible_swaps():
    seen = 0
    for seed in range(8):
        p = random_problem(200 + seed, N=150, M=80)
        scorer = MoveScorer(p, usable_rules(p))
        rng = np.random.default_rng(seed)
        for st, (_, a, b) in _states_before_a_swap(p, scorer, rng):
            st.flip(a)
            st.flip(b)
            before = st.coverage
            runner_ups = scorer.runner_up_swaps()
            done = lazy_swaps(st, scorer, limit=100)
            assert st.feasible
            assert st.coverage == pytest.approx(p.evaluate(st.r).coverage)
            assert st.coverage >= before + done - 1e-9  # eps = 1: every augmenting swap gains at least 1
            assert done <= len(runner_ups)
            seen += done
    assert seen > 0, "no runner-up swap was applied on any state: the test exercised nothing"
