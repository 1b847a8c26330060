"""Load (or, on a fresh install, compile) the compiled loops of :mod:`explainer.selection.loops` ahead of a run.

numba compiles each loop on its first call and caches the machine code beside
the module; a fresh install spends about 15 s compiling, and every new
process a fraction of a second loading the cache.  :func:`compile_loops` pays that once, on a
tiny problem that takes every path the solvers take (the same argument types,
so a real run finds every loop ready): the set-up script runs it after
installing, and the dashboard's fork server runs it before forking a worker
per run.  ``python -m explainer.selection.solvers.warmup`` does the same.
"""

from __future__ import annotations

import numpy as np

from explainer.selection.problem import SelectionProblem
from explainer.selection.solvers.registry import solve


def compile_loops() -> None:
    """Run the solvers that use the compiled loops once on a tiny random problem, unweighted and weighted."""

    rng = np.random.default_rng(0)
    N, M, K = 40, 16, 3
    coverage = rng.random((N, M)) < 0.3
    lengths = rng.integers(1, 5, M)
    problem = SelectionProblem(coverage, rng.integers(0, K, M), rng.integers(0, K, N), lengths,
                               int(lengths.sum() // 3), 6, n_classes=K)
    # weighted rows (class_weight="balanced"): the loops' weighted versions, compiled apart
    weighted = SelectionProblem(coverage, problem.rule_class, problem.y, lengths, problem.complexity_budget, 6.0,
                                n_classes=K, sample_weight=rng.uniform(0.5, 2.0, N))
    for p in (problem, weighted):
        # a population under 100 turns the 1-for-2 moves on, which use the remaining loop
        solve(p, "qga", random_state=0, n_population=4, n_generations=3)
        solve(p, "greedy", random_state=0)
        # the objective "accuracy" has loops of its own
        accuracy = SelectionProblem(coverage, p.rule_class, p.y, lengths, p.complexity_budget, p.error_budget,
                                    n_classes=K, sample_weight=p.row_weight, objective="accuracy")
        solve(accuracy, "qga", random_state=0, n_population=4, n_generations=3)


if __name__ == "__main__":
    compile_loops()
