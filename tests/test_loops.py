"""The compiled loops: the warm-up prepares every one of them with the argument types real runs use."""

import numpy as np
from numba.core.registry import CPUDispatcher

import explainer.selection.loops as loops
from explainer.data import load_dataset, sample_datasets
from explainer.rules.pool import build_pool
from explainer.selection.problem import SelectionProblem
from explainer.selection.solvers import solve
from explainer.selection.solvers.warmup import compile_loops


def dispatchers():
    """The compiled loops called from Python (the private helpers are compiled into their callers)."""
    return {name: f for name, f in vars(loops).items() if isinstance(f, CPUDispatcher) and not name.startswith("_")}


def test_compile_loops_prepares_every_loop_with_the_types_of_real_runs():
    compile_loops()
    before = {name: list(f.signatures) for name, f in dispatchers().items()}
    assert before and all(before.values()), [name for name, sigs in before.items() if not sigs]
    ds = load_dataset(sample_datasets()["wine"])
    pool = build_pool(ds.X, ds.y, 4, random_state=0, classes=ds.classes, feature_specs=ds.feature_specs)
    problem = SelectionProblem.from_pool(pool, 6, 4)
    for algorithm, params in [("qga", {}), ("qga", {"n_population": 8}), ("qga_paper", {}), ("rfhc", {}),
                              ("greedy", {}), ("irfre", {}), ("ga", {})]:
        result = solve(problem, algorithm, random_state=0, **params)
        assert problem.is_feasible(result.selection)
    after = {name: list(f.signatures) for name, f in dispatchers().items()}
    assert after == before  # no loop had to be compiled again for other argument types


def test_flips_through_the_loops_leave_the_counts_of_a_fresh_state():
    rng = np.random.default_rng(3)
    ds = load_dataset(sample_datasets()["iris"])
    pool = build_pool(ds.X, ds.y, 3, random_state=0, classes=ds.classes, feature_specs=ds.feature_specs)
    problem = SelectionProblem.from_pool(pool, None, None)
    st = problem.state()
    for i in rng.integers(0, problem.n_rules, 200):
        st.flip(int(i))
    fresh = problem.state(st.r)
    assert np.array_equal(st.total, fresh.total) and np.array_equal(st.per_class, fresh.per_class)
    assert (st.covered, st.pairs, st.complexity, st.errors) == (fresh.covered, fresh.pairs, fresh.complexity,
                                                                fresh.errors)


def test_best_entries_are_the_largest_finite_ones_in_order():
    """Against a full sort: largest first, ties to the lower flat position, infinite entries never."""
    rng = np.random.default_rng(0)
    for _ in range(200):
        score = rng.integers(0, 6, (rng.integers(1, 5), rng.integers(1, 30))).astype(float)
        score[rng.random(score.shape) < 0.4] = -np.inf
        n = int(rng.integers(1, 20))
        flat = np.flatnonzero(np.isfinite(score.ravel()))
        want = flat[np.lexsort((flat, -score.ravel()[flat]))][:n]
        assert loops.best_entries(score, n).tolist() == want.tolist()
