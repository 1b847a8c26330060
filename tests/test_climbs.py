"""The local search's shortcuts against the plain moves: lazy adds against repeated exact best adds, and
climbs that reach a known (or remembered) selection."""

import numpy as np
import pytest
from lanes import seeds
from problems import random_problem

from explainer.selection.solvers.local_search import LocalSearch, lazy_adds, repair, usable_rules
from explainer.selection.solvers.moves import TOL, MoveScorer
from explainer.selection.solvers.operators import row_key


def _best_adds_by_rescoring(st, cand, cost):
    """Add, while one augments and fits, the candidate of largest exact gain - cost (ties: smaller index)."""
    while True:
        best, pick = -np.inf, -1
        for i in cand:
            if st.r[i] or not st.flip_fits(int(i)):
                continue
            g = st.delta_coverage(int(i))
            if g > TOL and g - cost[i] > best + 1e-12:
                best, pick = g - cost[i], int(i)
        if pick < 0:
            return
        st.flip(pick)


@pytest.mark.parametrize("seed", seeds(60))
def test_lazy_adds_make_the_same_adds_as_rescoring_every_candidate(seed):
    rng = np.random.default_rng(seed)
    p = random_problem(seed, N=int(rng.integers(30, 300)), M=int(rng.integers(10, 200)))
    scorer = MoveScorer(p, usable_rules(p))
    st = p.state()
    move = scorer.best_move(st)
    if move is None or move[1] >= 0:
        pytest.skip("the first move is not an add on this instance")
    st.flip(move[2])
    ref = st.copy()
    cand, _, cost = scorer.last_adds
    done = lazy_adds(st, scorer, limit=10_000)
    _best_adds_by_rescoring(ref, cand, cost)
    assert np.array_equal(st.r, ref.r)
    assert done == int(ref.r.sum()) - 1
    assert st.feasible


def test_lazy_adds_stop_at_the_limit():
    p = random_problem(3, N=200, M=150)
    scorer = MoveScorer(p, usable_rules(p))
    st = p.state()
    move = scorer.best_move(st)
    st.flip(move[2])
    assert lazy_adds(st, scorer, limit=1) == 1
    assert int(st.r.sum()) == 2


def _search(p, **kw):
    # one move per step (no lazy moves), so that "the state after one step" is well defined
    return LocalSearch(p, MoveScorer(p, usable_rules(p)), lazy=False, lazy_swaps=False, **kw)


def _climb(p, start, known=None):
    st = p.state(start)
    _search(p).run(st, known)
    return st.r.copy()


@pytest.mark.parametrize("seed", seeds(20))
def test_a_climb_reaching_a_known_selection_jumps_to_its_end(seed):
    p = random_problem(seed, N=120, M=60)
    start = np.zeros(p.n_rules, dtype=bool)
    end = _climb(p, start)
    # the end of a climb is known as itself: the climb ends there as it would have anyway
    assert np.array_equal(_climb(p, start, {row_key(end): (end, p.evaluate(end).coverage)}), end)
    # a state on the way that is "known" to end elsewhere: the climb goes there and stops
    if _search(p).run(p.state(start)) < 2:
        pytest.skip("a climb of one step has no state on the way")
    first = p.state(start)
    _search(p, max_steps=1).run(first)
    elsewhere = np.zeros(p.n_rules, dtype=bool)
    elsewhere[int(np.argmax(p.support))] = True
    jumped = _climb(p, start, {row_key(first.r): (elsewhere, p.evaluate(elsewhere).coverage)})
    assert np.array_equal(jumped, elsewhere)


@pytest.mark.parametrize("seed", seeds(12))
def test_remembered_selections_climb_to_the_end_they_are_remembered_with(seed):
    """``remember=True`` files every selection a climb started from or passed through under its end: climbing afresh
    from any of them (no memo) ends there, so a later jump to it changes nothing but the time."""
    rng = np.random.default_rng(seed)
    p = random_problem(seed, N=150, M=80)
    search = LocalSearch(p, MoveScorer(p, usable_rules(p)))
    known = {}
    for _ in range(4):
        start = rng.random(p.n_rules) < 0.15
        st = p.state(start)
        repair(st)
        first = row_key(st.r)
        search.run(st, known, remember=True)
        assert first in known and row_key(st.r) in known  # its start and its end are filed too
    for key, (end, f) in known.items():
        r = np.unpackbits(np.frombuffer(key, dtype=np.uint8))[: p.n_rules].astype(bool)
        st = p.state(r)
        LocalSearch(p, MoveScorer(p, usable_rules(p))).run(st)
        assert np.array_equal(st.r, end)
        assert st.coverage == pytest.approx(f)


def test_a_climb_cut_short_remembers_nothing():
    p = random_problem(5, N=150, M=80)
    assert LocalSearch(p, MoveScorer(p, usable_rules(p)), lazy=False).run(p.state()) > 2
    known = {}
    cut = LocalSearch(p, MoveScorer(p, usable_rules(p)), lazy=False, max_steps=2)
    assert cut.run(p.state(), known, remember=True) == 2
    assert known == {}
