"""Alternatives (the other explanations nearly as good), checked by an independent evaluator: every subset of the
rules enumerated and scored from the coverage matrix itself, without the problem's own evaluation."""

import itertools

import numpy as np
import pytest
from lanes import seeds
from problems import random_problem

from explainer.selection.alternatives import (
    EXACT,
    HEURISTIC,
    alternatives,
    stable_core,
    threshold_of,
)
from explainer.selection.problem import SelectionProblem
from explainer.selection.solvers import solve
from explainer.selection.solvers.qga import QGA


def score(C, rule_class, y, lengths, w, eps, rules):
    """(f*, complexity, errors) of the rule indices ``rules``, from the dense coverage ``C`` and the row weights ``w``."""
    rules = list(rules)
    if not rules:
        return 0.0, 0, 0.0
    fire = C[:, rules]
    covered = float(w[fire.any(axis=1)].sum())
    pairs = 0.0
    for a, b in itertools.combinations(range(len(rules)), 2):
        if rule_class[rules[a]] != rule_class[rules[b]]:
            pairs += float(w[fire[:, a] & fire[:, b]].sum())
    errors = sum(float(w[C[:, i] & (y != rule_class[i])].sum()) for i in rules)
    return covered - eps * pairs, int(lengths[rules].sum()), errors


def brute_force(p: SelectionProblem, w=None):
    """Every feasible selection of rules that cover a row, as (f*, rules), best first."""
    C = p.coverage_dense
    w = np.ones(p.n_rows) if w is None else w
    rules = [i for i in range(p.n_rules) if C[:, i].any()]
    bc, be = p.budgets
    out = []
    for n in range(len(rules) + 1):
        for subset in itertools.combinations(rules, n):
            f, cx, err = score(C, p.rule_class, p.y, p.lengths, w, p.eps, subset)
            if (bc is None or cx <= bc) and (be is None or err <= be + 1e-9):
                out.append((f, tuple(subset)))
    out.sort(key=lambda t: -t[0])
    return out


def check_alternatives(p, found, w=None, *, exact: bool):
    truth = {rules: f for f, rules in brute_force(p, w)}
    best = tuple(found.best.tolist())
    seen = {best}
    assert found.threshold == pytest.approx(found.best_objective - 5.0 * float(p.total_weight) / 100)
    for alt in found:
        rules = tuple(alt.rules.tolist())
        assert rules not in seen  # distinct from the best and from each other
        seen.add(rules)
        assert rules in truth  # within the budgets (the brute force lists only those)
        assert alt.objective == pytest.approx(truth[rules])
        assert truth[rules] >= found.threshold - 1e-9
    if exact:
        # the k best distinct feasible selections other than the best, in order
        others = sorted((f for rules, f in truth.items() if rules != best), reverse=True)
        expect = [f for f in others if f >= found.threshold - 1e-9][: len(found.items) + 1]
        got = [alt.objective for alt in found]
        assert got == pytest.approx(expect[: len(got)])
        if len(got) < 5:  # fewer than asked: nothing else reaches the threshold
            assert len(expect) == len(got)


@pytest.mark.parametrize("seed", seeds(8))
def test_exact_alternatives_are_the_top_k(seed):
    p = random_problem(700 + seed, N=30, M=12)
    best = solve(p, "exact", warm_start="greedy").selection
    found = alternatives(p, best, 5, within=5.0)
    assert found.method == EXACT and found.complete
    check_alternatives(p, found, exact=True)


def test_exact_alternatives_with_twin_rules_and_weights():
    """Twins (same class, same rows) make distinct selections of the same objective; weighted rows count weight."""
    rng = np.random.default_rng(3)
    C = rng.random((25, 8)) < 0.25
    C[:, 7] = C[:, 6]
    rule_class = rng.integers(0, 2, 8)
    rule_class[7] = rule_class[6]
    y = rng.integers(0, 2, 25)
    lengths = rng.integers(1, 4, 8)
    w = rng.integers(1, 4, 25).astype(float)
    p = SelectionProblem(C, rule_class, y, lengths, complexity_budget=6, error_budget=8.0, sample_weight=w)
    best = solve(p, "exact", warm_start="greedy").selection
    found = alternatives(p, best, 5, within=5.0)
    check_alternatives(p, found, w, exact=True)


@pytest.mark.parametrize("seed", seeds(4))
def test_heuristic_alternatives_distinct_within_budgets_and_threshold(seed):
    p = random_problem(800 + seed, N=30, M=12)
    best = solve(p, "qga", random_state=seed).selection
    found = alternatives(p, best, 5, within=5.0, method="heuristic", random_state=seed)
    assert found.method == HEURISTIC and not found.complete
    check_alternatives(p, found, exact=False)
    # fittest first, and never better than the true top list, place by place
    got = [alt.objective for alt in found]
    assert got == sorted(got, reverse=True)
    best = tuple(found.best.tolist())
    top = [f for f, rules in brute_force(p) if rules != best and f >= found.threshold - 1e-9]
    assert len(got) <= len(top) and all(g <= t + 1e-9 for g, t in zip(got, top, strict=False))


def test_no_alternative_beyond_the_threshold_and_k_zero():
    p = random_problem(5, N=30, M=12)
    best = solve(p, "exact", warm_start="greedy").selection
    assert len(alternatives(p, best, 0)) == 0
    found = alternatives(p, best, 50, within=0.0)
    assert all(a.objective >= found.best_objective - 1e-9 for a in found)
    ties = [f for f, rules in brute_force(p) if f >= found.best_objective - 1e-9]
    assert len(found) == len(ties) - 1


def test_stable_core_is_the_intersection():
    assert stable_core([1, 2, 5], [[2, 5, 7], [0, 2, 5]]).tolist() == [2, 5]
    assert stable_core([1, 2], []).tolist() == [1, 2]
    p = random_problem(702, N=30, M=12)
    best = solve(p, "exact", warm_start="greedy").selection
    found = alternatives(p, best, 4, within=10.0)
    core = set(np.flatnonzero(best).tolist())
    for alt in found:
        core &= set(alt.rules.tolist())
    assert found.stable_core().tolist() == sorted(core)


def test_threshold_in_points_of_the_rows_weight():
    p = random_problem(1, N=40, M=10)
    assert threshold_of(p, 30.0, 2.5) == pytest.approx(30.0 - 1.0)
    w = np.full(p.n_rows, 2.0)
    pw = SelectionProblem(p.coverage_sparse, p.rule_class, p.y, p.lengths, sample_weight=w)
    assert threshold_of(pw, 30.0, 2.5) == pytest.approx(30.0 - 2.0)


def test_bad_arguments():
    p = random_problem(1, N=30, M=10)
    best = np.zeros(p.n_rules, dtype=bool)
    for kwargs in ({"k": -1}, {"k": 1, "within": -1.0}, {"k": 1, "method": "ga"}):
        with pytest.raises(ValueError):
            alternatives(p, best, **{"within": 1.0, **kwargs})


def test_qga_archive_off_by_default_and_bounded():
    p = random_problem(4, N=30, M=12)
    solver = QGA()
    solver.solve(p, random_state=0)
    assert solver.archive_ is None
    solver.keep_archive(3)
    solver.solve(p, random_state=0)
    kept = solver.archive_.selections()
    assert 0 < len(kept) <= 3
    assert len({r.tobytes() for r, _ in kept}) == len(kept)
    assert all(p.is_feasible(r) and f == pytest.approx(p.fitness(r)[0]) for r, f in kept)
    assert [f for _, f in kept] == sorted((f for _, f in kept), reverse=True)


def test_exact_alternatives_with_cpsat():
    pytest.importorskip("ortools")
    p = random_problem(703, N=30, M=12)
    best = solve(p, "exact", warm_start="greedy").selection
    found = alternatives(p, best, 5, within=5.0, backend="cpsat")
    assert found.complete
    check_alternatives(p, found, exact=True)


@pytest.mark.parametrize("seed", seeds(3))
def test_exact_alternatives_under_the_accuracy_objective(seed):
    """Ranked by the problem's own evaluation of every subset (the MILP never calls it)."""
    base = random_problem(900 + seed, N=30, M=11)
    p = SelectionProblem(base.coverage_sparse, base.rule_class, base.y, base.lengths, *base.budgets,
                         n_classes=base.n_classes, objective="accuracy")
    best = solve(p, "exact", warm_start="greedy").selection
    found = alternatives(p, best, 4, within=10.0)
    usable = [i for i in range(p.n_rules) if p.support[i] > 0]
    values = []
    for n in range(len(usable) + 1):
        for subset in itertools.combinations(usable, n):
            r = np.zeros(p.n_rules, dtype=bool)
            r[list(subset)] = True
            ev = p.evaluate(r)
            if ev.feasible and tuple(subset) != tuple(found.best.tolist()):
                values.append(ev.value)
    values.sort(reverse=True)
    expect = [v for v in values if v >= found.threshold - 1e-9][:4]
    assert [a.objective for a in found] == pytest.approx(expect)
    assert all(p.is_feasible(np.isin(np.arange(p.n_rules), a.rules)) for a in found)
