"""The dashboard's frontier against default QGA runs at the same budgets, on a census-like table.

For a census-like table (explainer.bench.census.census_like) and an error budget Be, the
frontier is computed as the Explain page computes it (the worker's call: backward pass on,
seed 0, the QGA points' time cap from the problem's nonzeros); then, at five Bc values across its
range, a default QGA run (seed 0) at the same budgets.  Printed as Markdown: each point's
coverage, the run's, and the difference (the frontier should not be below a run by more than
0.1 point), and the frontier as the page draws it once the runs are known (lifted by them).

    PYTHONPATH=$PWD python scripts/frontier_vs_runs.py --rows 32561 --be 2539 [--quick]
        [--paper NAME] [--qga-seconds S] [--stall N] [--ratio R] [--population N] [--one-for-two auto]
        (QGA points otherwise as the page runs them)
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from explainer.bench.census import census_like
from explainer.data import load_dataset, load_paper_dataset
from explainer.rules.defaults import DEFAULT_DEPTH
from explainer.rules.pool import build_pool
from explainer.selection.frontier import default_range, frontier, lifted, local_search, qga_time_cap
from explainer.selection.problem import SelectionProblem
from explainer.selection.solvers import solve


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=32_561)
    parser.add_argument("--be", type=int, default=None, help="error budget (default: 43 %% of the best tree's e*)")
    parser.add_argument("--depth", type=int, default=DEFAULT_DEPTH)
    parser.add_argument("--paper", default=None, metavar="NAME",
                        help="one of the paper's data sets instead of the census-like table")
    parser.add_argument("--top", type=int, default=None,
                        help="largest Bc of the frontier (default: 60, or 2 c* with --paper, as the page's range)")
    parser.add_argument("--qga-seconds", type=float, default=None,
                        help="each QGA point's time cap (default: the page's, qga_time_cap of the problem)")
    parser.add_argument("--stall", type=int, default=None,
                        help="the QGA points end after this many generations without a better selection "
                             "(default: QGA's own)")
    parser.add_argument("--ratio", type=float, default=None,
                        help="QGA points at budgets about this ratio apart (default: the page's)")
    parser.add_argument("--population", type=int, default=None,
                        help="the QGA points keep this many individuals (default: QGA's own, 100 up to 2 M nonzeros); "
                             "their stall is then the page's (1) unless --stall says otherwise")
    parser.add_argument("--one-for-two", choices=("auto", "on", "off"), default=None,
                        help="the QGA points' 1-for-2 moves (default: the page's, off; auto: QGA's own, on under 100 "
                             "individuals); their stall and cap stay the page's unless given")
    parser.add_argument("--quick", action="store_true",
                        help="also a sweep without QGA and a greedy selection at each Bc (improved by the local moves)")
    args = parser.parse_args()

    t = time.perf_counter()
    ds = load_paper_dataset(args.paper) if args.paper else load_dataset(census_like(args.rows), "income")
    pool = build_pool(ds.X, ds.y, args.depth)
    best = pool.best_tree()
    be = args.be if args.be is not None else int(round(0.43 * best.errors))
    if args.top is None:
        args.top = default_range(pool)[1] if args.paper else 60
    args.rows = ds.n_rows
    base = SelectionProblem.from_pool(pool, eps=1.0)
    name = args.paper or f"census_like({args.rows:,})"
    print(f"{name}: {pool.n_rules} rules, {base.indices.size:,} nonzeros, best tree "
          f"c* = {best.complexity}, e* = {best.errors:,}; Be = {be:,}; pool in {time.perf_counter() - t:.1f} s; "
          f"QGA point cap {qga_time_cap(base):.2f} s\n")
    t = time.perf_counter()
    qga_params = None
    if (args.qga_seconds is not None or args.stall is not None or args.population is not None
            or args.one_for_two is not None):
        seconds = qga_time_cap(base) if args.qga_seconds is None else args.qga_seconds
        stall = 1 if args.stall is None and (args.population is not None or args.one_for_two is not None) \
            else args.stall
        one_for_two = {"auto": "auto", "on": True, "off": False}[args.one_for_two or "off"]
        qga_params = {"time_limit": seconds, "one_for_two": one_for_two, **({} if stall is None else {"stall": stall}),
                      **({} if args.population is None else {"n_population": args.population})}
    fr = frontier(base, be, (1, args.top), random_state=0, backward=True, qga_params=qga_params,
                  **({} if args.ratio is None else {"qga_ratio": args.ratio}))
    print(f"frontier Bc 1..{args.top} (QGA points {qga_params or 'as the page runs them'}, ratio "
          f"{fr.settings['qga_ratio']}): {fr.time_s:.1f} s, {fr.n_proven} of {len(fr)} points proven\n")
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
    if args.quick:
        _quick(base, be, fr, marks, runs, args)
    shown = lifted(fr, runs)
    print("\nAs the page draws it once these runs are known (each point lifted by the runs that fit):\n")
    print("| Bc | frontier | lifted | found by |")
    print("|---:|---:|---:|---|")
    for bc in marks:
        p, q = fr.at(bc), shown.at(bc)
        print(f"| {bc} | {100 * p.coverage_score:.2f} % | {100 * q.coverage_score:.2f} % | {q.algorithm} |")


def _quick(base, be: int, fr, marks: list[int], runs: list, args) -> None:
    """What a first curve without QGA would show: the sweep with QGA's points off, and at each Bc a greedy
    selection improved by the local moves, against the default QGA runs."""
    t = time.perf_counter()
    bare = frontier(base, be, (1, args.top), random_state=0, backward=True, qga_time_limit=0)
    bare_s = time.perf_counter() - t
    print(f"\nWithout QGA: the sweep Bc 1..{args.top} in {bare_s:.1f} s; a greedy selection at each Bc, improved "
          "by the local moves:\n")
    print("| Bc | frontier | sweep without QGA | greedy + local moves | its time | default QGA run |")
    print("|---:|---:|---:|---:|---:|---:|")
    for bc, run in zip(marks, runs, strict=True):
        problem = base.with_budgets(bc, be)
        t = time.perf_counter()
        greedy = local_search(problem, solve(problem, "greedy", random_state=0).selection)
        seconds = time.perf_counter() - t
        share = 100 * problem.evaluate(greedy).coverage / args.rows
        print(f"| {bc} | {100 * fr.at(bc).coverage_score:.2f} % | {100 * bare.at(bc).coverage_score:.2f} % | "
              f"{share:.2f} % | {seconds:.2f} s | {100 * run.coverage_score:.2f} % |")


if __name__ == "__main__":
    main()
