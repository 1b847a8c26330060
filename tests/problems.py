"""Random selection problems shared by the solver tests (rules mostly right, budgets that bind)."""

import numpy as np

from explainer.selection.problem import SelectionProblem


def mostly_right(rng, N, M, K, density):
    """Coverage (N x M, each rule firing on a share drawn from ``density``), rule classes, labels with
    most rules mostly right, and lengths 1..5: the draws every random problem of the tests makes."""
    C = rng.random((N, M)) < rng.uniform(*density)
    rule_class = rng.integers(0, K, M)
    y = rng.integers(0, K, N)
    for i in range(M):
        rows = np.flatnonzero(C[:, i])
        y[rows[rng.random(rows.size) < 0.6]] = rule_class[i]
    lengths = rng.integers(1, 6, M)
    return C, rule_class, y, lengths


def random_problem(seed, N=None, M=None, K=3):
    rng = np.random.default_rng(seed)
    N = N or int(rng.integers(30, 61))
    M = M or int(rng.integers(10, 41))
    C, rule_class, y, lengths = mostly_right(rng, N, M, K, (0.05, 0.3))
    p0 = SelectionProblem(C, rule_class, y, lengths)
    bc = max(int(lengths.sum() * rng.uniform(0.1, 0.3)), 1)
    be = max(int(p0.errors.sum() * rng.uniform(0.05, 0.3)), 0)
    return SelectionProblem(C, rule_class, y, lengths, bc, be, n_classes=K)
