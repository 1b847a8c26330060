"""Pool sizes and build times at the default pool settings (the tables of docs/method.md#default-pool).

For the paper's ten data sets and the bundled samples, loaded as the command
line loads them without options (``default_load_settings``): the settings of
``explainer.rules.defaults.default_pool_settings``, the number of trees, the
distinct rules M and the build time of ``build_pool`` (median of ``--runs``).

    python scripts/default_pools.py [--runs 3]
    python scripts/default_pools.py --first-click    # QGA at the suggested budgets, before and now
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from explainer.bench import paper_settings  # noqa: E402
from explainer.data import PAPER_DATASETS, load_dataset, load_paper_dataset, sample_datasets  # noqa: E402
from explainer.data.defaults import default_load_settings  # noqa: E402
from explainer.pipeline import explain_pool  # noqa: E402
from explainer.rules.defaults import default_pool_settings  # noqa: E402
from explainer.rules.pool import build_pool  # noqa: E402


def first_click() -> None:
    """QGA (seed 0) at the best tree's budgets: the paper's pool and plain reading, then the defaults."""
    paper = paper_settings()
    print("| data set | before: M, Bc/Be, coverage %, QGA s | default: M, Bc/Be, coverage %, QGA s |")
    print("|---|---|---|")
    for name in PAPER_DATASETS:
        cells = []
        for kind in ("before", "default"):
            if kind == "before":
                ds = load_paper_dataset(name)
                settings = {"max_depth": int(paper[name]["depth"]), "n_repeats": 1, "source": "grid"}
            else:
                ds = load_paper_dataset(name, **default_load_settings())
                settings = default_pool_settings()
            pool = build_pool(ds.X, ds.y, random_state=0, classes=ds.classes, **settings)
            t0 = time.perf_counter()
            rep = explain_pool(pool, ds.X, ds.y, algorithm="qga", random_state=0).report
            seconds = time.perf_counter() - t0
            cells.append(f"{pool.n_rules}, {rep.complexity_budget}/{rep.error_budget}, "
                         f"{100 * rep.coverage / ds.n_rows:.1f}, {seconds:.1f}")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3, help="builds per data set; the median time is shown")
    p.add_argument("--first-click", action="store_true",
                   help="instead: QGA at the best tree's budgets, the paper's pool beside the default one")
    args = p.parse_args(argv)
    if args.first_click:
        first_click()
        return 0
    read = default_load_settings()
    sets = [(n, lambda n=n: load_paper_dataset(n, **read)) for n in PAPER_DATASETS]
    sets += [(f"sample:{n}", lambda p=path: load_dataset(p, **read)) for n, path in sample_datasets().items()]
    print("| data set | rows | features | depth | repeats | trees | rules M | build s (median) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, load in sets:
        ds = load()
        settings = default_pool_settings()
        times = []
        for _ in range(max(1, args.runs)):
            t0 = time.perf_counter()
            pool = build_pool(ds.X, ds.y, classes=ds.classes, random_state=0, **settings)
            times.append(time.perf_counter() - t0)
        print(f"| {name} | {ds.n_rows} | {ds.n_features} | {settings['max_depth']} | {settings['n_repeats']} | "
              f"{pool.n_trees} | {pool.n_rules} | {statistics.median(times):.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
