"""Time the whole trade-off frontier Bc = 1 .. 2 c* on each paper data set at the paper's depth.

    python scripts/frontier_bench.py [--data-dir DIR] [--errors paper|default] [DATASET ...]

The error budget is the paper's (``--errors paper``, default) or the default budget's.
Prints one Markdown table row per data set: points, points proven optimal, the largest
coverage, time of the pool and of the frontier.
"""

from __future__ import annotations

import argparse
import time

from explainer.bench import paper_settings
from explainer.data import load_paper_dataset
from explainer.pipeline import default_budgets
from explainer.rules.pool import build_pool
from explainer.selection.frontier import frontier


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("datasets", nargs="*")
    ap.add_argument("--data-dir")
    ap.add_argument("--errors", choices=["paper", "default"], default="paper")
    args = ap.parse_args()
    settings = paper_settings()
    names = args.datasets or list(settings)
    print("| data set | M | Be | range (2 c*) | points | proven optimal | max coverage % | pool s | frontier s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in names:
        st = settings[name]
        ds = load_paper_dataset(name, args.data_dir)
        t = time.perf_counter()
        pool = build_pool(ds.X, ds.y, int(st["depth"]), random_state=0, classes=ds.classes)
        t_pool = time.perf_counter() - t
        be = int(st["errors_budget"]) if args.errors == "paper" else default_budgets(pool).error_budget
        t = time.perf_counter()
        fr = frontier(pool, be, random_state=0)
        t_fr = time.perf_counter() - t
        lo, hi = fr.budgets[0], fr.budgets[-1]
        print(f"| {name} | {pool.n_rules} | {be} | {lo}..{hi} | {len(fr)} | {fr.n_proven} | "
              f"{100 * fr.max_coverage / fr.n_rows:.2f} | {t_pool:.2f} | {t_fr:.2f} |", flush=True)


if __name__ == "__main__":
    main()
