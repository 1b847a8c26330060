"""Default budgets and the coverage they give, on the bundled samples and the paper's data sets.

    python scripts/default_budgets.py [--data-dir DIR] [NAME ...]

For each data set, read and pooled as the command line does (``explainer.rules.defaults``):
the default budgets and form (``all``: rules of every class; ``fallback``: rules for the classes
other than the fallback class only), the time to find them, the accuracy (on the training rows)
and the coverage QGA reaches at them in that form (seed 0, as ``explainer explain`` without budgets),
the maximum of the full frontier (``explainer.selection.frontier.frontier`` with its default
settings, Bc = 1 .. 2 c*) at the default error budget and the gap to it in percentage
points, and the best coverage at that error budget with no complexity budget at all.
"""

from __future__ import annotations

import argparse
import time

from explainer.data import PAPER_DATASETS, load_dataset, load_paper_dataset, sample_datasets
from explainer.data.defaults import default_load_settings
from explainer.pipeline import default_budgets, explain_pool
from explainer.rules.defaults import default_pool_settings
from explainer.rules.pool import build_pool
from explainer.selection.frontier import frontier
from explainer.selection.problem import SelectionProblem
from explainer.selection.solvers import solve


def best_at(pool, be: int) -> tuple[float, bool]:
    """Best f* at error budget ``be`` with no complexity budget (exact, QGA warm start)."""
    problem: SelectionProblem = SelectionProblem.from_pool(pool, None, be)
    res = solve(problem, "exact", random_state=0, time_limit=60)
    return res.coverage, bool(res.info.get("optimal"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("names", nargs="*")
    ap.add_argument("--data-dir")
    args = ap.parse_args()
    samples = sample_datasets()
    names = args.names or [*samples, *PAPER_DATASETS]
    print("| data set | rows | Bc | Be | form | time s | accuracy % (QGA, training rows) | coverage % (QGA) "
          "| frontier max % (Bc <= 2c*) | gap (pp) | best at Be, any Bc % |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in names:
        if name in samples:
            ds = load_dataset(samples[name], **default_load_settings())
        else:
            ds = load_paper_dataset(name, args.data_dir, **default_load_settings())
        pool = build_pool(ds.X, ds.y, random_state=0, classes=ds.classes, feature_specs=ds.feature_specs,
                          **default_pool_settings())
        t = time.perf_counter()
        d = default_budgets(pool)
        t_d = time.perf_counter() - t
        exp = explain_pool(pool, ds.X, ds.y, complexity_budget=d.complexity_budget, error_budget=d.error_budget,
                           algorithm="qga", random_state=0, rules=d.rules)
        fr_max = 100 * frontier(pool, d.error_budget, random_state=0).max_coverage / ds.n_rows
        top, proven = best_at(pool, d.error_budget)
        cov = 100 * exp.report.coverage_score
        best = 100 * top / ds.n_rows
        acc = 100 * exp.report.accuracy
        print(f"| {name} | {ds.n_rows} | {d.complexity_budget} | {d.error_budget} | {d.form} | {t_d:.2f} | {acc:.2f} | "
              f"{cov:.2f} | "
              f"{fr_max:.2f} | {fr_max - cov:.2f} | {best:.2f}{'' if proven else ' (not proven)'} |", flush=True)


if __name__ == "__main__":
    main()
