"""MoveScorer's alternative gather routes (chosen by size) against brute force and against each other."""

import numpy as np
import pytest
from lanes import seeds

import explainer.selection.solvers.moves as moves
from explainer.selection.problem import SelectionProblem
from explainer.selection.solvers.moves import MoveScorer


def random_problem(seed, N=70, M=36, K=3, budgets=True):
    rng = np.random.default_rng(seed)
    C = rng.random((N, M)) < rng.uniform(0.08, 0.3)
    rule_class = rng.integers(0, K, M)
    y = rng.integers(0, K, N)
    lengths = rng.integers(1, 6, M)
    if not budgets:
        return SelectionProblem(C, rule_class, y, lengths, n_classes=K)
    p0 = SelectionProblem(C, rule_class, y, lengths)
    bc = max(int(lengths.sum() * 0.4), 1)
    be = max(int(p0.errors.sum() * 0.4), 0)
    return SelectionProblem(C, rule_class, y, lengths, bc, be, n_classes=K)


def swap_optimum(p, scorer, seed):
    """A random selection improved by adds and drops until only swaps (or nothing) can augment."""
    rng = np.random.default_rng(seed)
    st = p.state()
    for i in rng.permutation(p.n_rules):
        if st.flip_fits(int(i)) and rng.random() < 0.4:
            st.flip(int(i))
    while (m := scorer.best_move(st)) is not None and (m[1] < 0 or m[2] < 0):
        for i in m[1:]:
            if i >= 0:
                st.flip(i)
    return st


@pytest.mark.parametrize("seed", range(3))
def test_owner_overlaps_count_rows_by_owner(seed):
    """Entry (s, j) = rows of rule cols[j] whose owner is s."""
    p = random_problem(700 + seed)
    rng = np.random.default_rng(seed)
    n_sets = 5
    owner = rng.integers(-1, n_sets, p.n_rows)
    cols = np.sort(rng.choice(p.n_rules, 12, replace=False))
    got = MoveScorer(p, np.ones(p.n_rules, dtype=bool))._owner_overlaps(owner, cols, n_sets)
    C = p.coverage_dense
    want = np.array([[np.sum(C[:, j] & (owner == s)) for j in cols] for s in range(n_sets)], dtype=float)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("seed", range(3))
def test_row_sums_count_rules_per_row_set(seed):
    """Entry (s, b) = rows of set s that rule b covers (a row may sit in several sets, or twice in one)."""
    p = random_problem(710 + seed)
    rng = np.random.default_rng(seed)
    n_sets = 4
    rows = rng.integers(0, p.n_rows, 90)
    row_sets = rng.integers(0, n_sets, rows.size)
    got = MoveScorer(p, np.ones(p.n_rules, dtype=bool))._row_sums(row_sets, rows, n_sets)
    C = p.coverage_dense.astype(np.int64)
    want = np.zeros((n_sets, p.n_rules))
    for j, s in zip(rows, row_sets, strict=True):
        want[s] += C[j]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("seed", range(4))
def test_incremental_sums_equal_recomputation_after_random_flips(seed):
    """The scorer's sums C' [z0 z1 n c_own], followed flip by flip (few rows crossing), over whole new
    selections (most rows crossing: a full pass) and over steps with no flip, equal the sums
    recomputed from the dense coverage at every step; the gains follow from them."""
    p = random_problem(720 + seed, N=90, M=45)
    rng = np.random.default_rng(seed)
    scorer = MoveScorer(p, np.ones(p.n_rules, dtype=bool))
    st = p.state(rng.random(p.n_rules) < 0.3)
    C = p.coverage_dense.astype(np.int64)
    routes = set()
    for _ in range(60):
        before = (scorer.products, scorer.updates)
        kind = rng.integers(0, 6)
        if kind == 0:
            st = p.state(rng.random(p.n_rules) < rng.uniform(0.0, 0.5))
        elif kind > 1:  # kind 1: nothing flipped since the last call
            for i in rng.choice(p.n_rules, size=int(rng.integers(1, 5)), replace=False):
                st.flip(int(i))
        gadd, gdrop, ones = scorer.add_drop_gains(st)
        routes.add((scorer.products - before[0], scorer.updates - before[1]))
        total = C @ st.r.astype(np.int64)
        own = np.stack([C[:, st.r & (p.rule_class == k)].sum(axis=1) for k in range(st.per_class.shape[1])], axis=1)
        X0, X1 = C.T @ (total == 0), C.T @ (total == 1)
        Xt = C.T @ total
        Xo = (C * own[:, p.rule_class]).sum(axis=0)
        _, _, *sums = scorer._sums
        for got, want in zip(sums, (X0, X1, Xt, Xo), strict=True):
            np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(gadd, X0 - p.eps * (Xt - Xo))
        np.testing.assert_array_equal(gdrop, -X1 + p.eps * (Xt - Xo))
        np.testing.assert_array_equal(ones, total == 1)
    # every route was taken: a first full pass, the rules' Gram rows with a full pass over the
    # crossing rows' counts, the same with only the crossing rows, and nothing to do
    assert {(1, 0), (1, 1), (0, 1), (0, 0)} <= routes


def brute_one_for_two(p, st, cost):
    """The best gain of dropping one selected rule and adding two, over every triple (budgets kept)."""
    base = st.coverage
    S, U = np.flatnonzero(st.r), np.flatnonzero(~st.r)
    best = None
    for a in S:
        for ib, b in enumerate(U):
            for c in U[ib + 1:]:
                x = st.r.copy()
                x[[a]] = False
                x[[b, c]] = True
                if not p.is_feasible(x):
                    continue
                g = p.evaluate(x).coverage - base
                if g > 1e-9 and (best is None or g - cost[b] - cost[c] > best[1]):
                    best = (g, g - cost[b] - cost[c])
    return None if best is None else best[0]


def test_one_for_two_routes_agree_and_find_the_best_triple(monkeypatch):
    """The column route (few nonzeros in the useful columns) and the row route choose the same move;
    with every pair allowed, its gain is the brute-force best over all (drop a, add b, add c).

    Tight complexity budgets and lengths 1..8: dropping a long rule for two short ones pays.
    """
    found = 0
    for seed in range(80):
        rng = np.random.default_rng(seed)
        N, M = 40, 14
        C = rng.random((N, M)) < rng.uniform(0.08, 0.3)
        lengths = rng.integers(1, 9, M)
        p = SelectionProblem(C, rng.integers(0, 3, M), rng.integers(0, 3, N), lengths,
                             int(lengths.sum() * 0.3), None, n_classes=3)
        usable = np.ones(M, dtype=bool)
        st = swap_optimum(p, MoveScorer(p, usable), seed)
        results = {}
        for route, owned in (("columns", 10**12), ("rows", 0)):
            monkeypatch.setattr(MoveScorer, "_owned_nnz", lambda self, *a, owned=owned: owned)
            sc = MoveScorer(p, usable)
            if sc.best_move(st) is not None or sc.ctx is None:
                break  # a swap still augments, or nothing to swap
            results[route] = sc.best_one_for_two(st, M * M)
        if len(results) < 2:
            continue
        assert results["columns"] == results["rows"]
        got, want = results["rows"], brute_one_for_two(p, st, sc.cost)
        assert (got is None) == (want is None)
        if got is not None:
            found += 1
            assert got[0] == pytest.approx(want)
            x = st.r.copy()
            x[got[1]] = False
            x[list(got[2:])] = True
            assert p.is_feasible(x) and p.evaluate(x).coverage - st.coverage == pytest.approx(got[0])
    assert found >= 2


def test_gram_update_follows_flips_exactly():
    """C'n and C'c_own kept from Gram rows equal the sparse products after random flips."""
    p = random_problem(740)
    rng = np.random.default_rng(0)
    scorer = MoveScorer(p, np.ones(p.n_rules, dtype=bool))
    st = p.state(rng.random(p.n_rules) < 0.3)
    scorer.add_drop_gains(st)
    C = p.coverage_dense.astype(np.int64)
    for _ in range(20):
        for i in rng.choice(p.n_rules, size=int(rng.integers(1, 4)), replace=False):
            st.flip(int(i))
        scorer.add_drop_gains(st)
        _, _, X0, X1, Xt, Xo = scorer._sums
        np.testing.assert_array_equal(Xt, C.T @ st.total)
        np.testing.assert_array_equal(Xo, (C * st.per_class[:, p.rule_class]).sum(axis=0))
        np.testing.assert_array_equal(X0, C.T @ (st.total == 0))
        np.testing.assert_array_equal(X1, C.T @ (st.total == 1))


@pytest.mark.parametrize("seed", seeds(12))
def test_swap_scores_are_exact_and_leave_out_only_swaps_that_cannot_augment(seed):
    """Every swap best_move scores has its brute-force gain; every swap it leaves out fits no budget or
    does not augment; the swap it returns is the best by gain - cost difference."""
    p = random_problem(seed)
    scorer = MoveScorer(p, np.ones(p.n_rules, dtype=bool))
    st = swap_optimum(p, scorer, seed)
    move = scorer.best_move(st)
    if scorer.ctx is None:
        pytest.skip("no swap to score from this selection")
    S, cols = scorer.ctx["S"], scorer.ctx["cols"]
    score = np.full((S.size, p.n_rules), -np.inf)
    if scorer._swap_scores is not None:
        sc, _, cl = scorer._swap_scores
        score[:, cl] = sc
    f = st.coverage
    best = -np.inf
    for ia, a in enumerate(S):
        for b in np.flatnonzero(~st.r):
            x = st.r.copy()
            x[a], x[b] = False, True
            gain = p.evaluate(x).coverage - f
            if p.is_feasible(x) and gain > moves.TOL:
                assert b in cols
                want = gain - (scorer.cost[b] - scorer.cost[a])
                best = max(best, want)
                assert scorer._swap_scores is not None  # an augmenting swap exists: best_move scored it
                assert score[ia, b] == pytest.approx(want)
            else:
                assert score[ia, b] == -np.inf
    if np.isfinite(best):
        assert move is not None and move[1] >= 0 and move[2] >= 0
        x = st.r.copy()
        x[move[1]], x[move[2]] = False, True
        assert move[0] - (scorer.cost[move[2]] - scorer.cost[move[1]]) == pytest.approx(best)
    else:
        assert move is None
