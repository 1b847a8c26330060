"""The dashboard's frontier against default QGA runs at the same budgets, on a census-like table.

For a census-like table (explainer.bench.census.census_like) and an error budget Be, the
frontier is computed as the Explain page computes it (the worker's call: backward pass on,
seed 0, the QGA points' time cap from the problem's nonzeros); then, at five Bc values across its
range, a default QGA run (seed 0) at the same budgets.  Printed as Markdown: each point's
coverage, the run's, and the difference (the frontier should not be below a run by more than
0.1 point), and the frontier as the page draws it once the runs are known (lifted by them).

    PYTHONPATH=$PWD python scripts/frontier_vs_runs.py --rows 32561 --be 2539
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from explainer.bench.census import census_like
from explainer.data import load_dataset
from explainer.rules.defaults import DEFAULT_DEPTH
from explainer.rules.pool import build_pool
from explainer.selection.frontier import frontier, lifted, qga_time_cap
from explainer.selection.problem import SelectionProblem
from explainer.selection.solvers import solve


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=32_561)
    parser.add_argument("--be", type=int, default=None, help="error budget (default: 43 %% of the best tree's e*)")
    parser.add_argument("--depth", type=int, default=DEFAULT_DEPTH)
    parser.add_argument("--top", type=int, default=60, help="largest Bc of the frontier")
    args = parser.parse_args()

    t = time.perf_counter()
    ds = load_dataset(census_like(args.rows), "income")
    pool = build_pool(ds.X, ds.y, args.depth)
    best = pool.best_tree()
    be = args.be if args.be is not None else int(round(0.43 * best.errors))
    base = SelectionProblem.from_pool(pool, eps=1.0)
    print(f"census_like({args.rows:,}): {pool.n_rules} rules, {base.indices.size:,} nonzeros, best tree "
          f"c* = {best.complexity}, e* = {best.errors:,}; Be = {be:,}; pool in {time.perf_counter() - t:.1f} s; "
          f"QGA point cap {qga_time_cap(base):.2f} s\n")
    t = time.perf_counter()
    fr = frontier(base, be, (1, args.top), random_state=0, backward=True)
    print(f"frontier Bc 1..{args.top}: {fr.time_s:.1f} s, {fr.n_proven} of {len(fr)} points proven\n")
    marks = sorted({int(round(x)) for x in np.linspace(args.top / 5, args.top, 5)})
    runs = []
    print("| Bc | frontier | found by | default QGA run | run time | frontier - run |")
    print("|---:|---:|---|---:|---:|---:|")
    for bc in marks:
        p = fr.at(bc)
        t = time.perf_counter()
        run = solve(base.with_budgets(bc, be), "qga", random_state=0)
        runs.append(run)
        diff = 100 * (p.coverage - run.coverage) / args.rows
        print(f"| {bc} | {100 * p.coverage_score:.2f} % | {p.algorithm} | {100 * run.coverage_score:.2f} % "
              f"(Bc used {run.complexity}) | {time.perf_counter() - t:.1f} s | {diff:+.2f} |")
    shown = lifted(fr, runs)
    print("\nAs the page draws it once these runs are known (each point lifted by the runs that fit):\n")
    print("| Bc | frontier | lifted | found by |")
    print("|---:|---:|---:|---|")
    for bc in marks:
        p, q = fr.at(bc), shown.at(bc)
        print(f"| {bc} | {100 * p.coverage_score:.2f} % | {100 * q.coverage_score:.2f} % | {q.algorithm} |")


if __name__ == "__main__":
    main()
