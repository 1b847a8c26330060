"""Pool sizes and build times at the default pool settings (the README's table).

For the paper's ten data sets and the bundled samples, loaded as the command
line loads them without options (``default_load_settings``): the settings of
``explainer.pool_defaults.default_pool_settings``, the number of trees, the
distinct rules M and the build time of ``build_pool`` (median of ``--runs``).

    python scripts/default_pools.py [--runs 3]
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from explainer.data import PAPER_DATASETS, load_dataset, load_paper_dataset, sample_datasets  # noqa: E402
from explainer.pool import build_pool  # noqa: E402
from explainer.pool_defaults import default_load_settings, default_pool_settings  # noqa: E402


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3, help="builds per data set; the median time is shown")
    args = p.parse_args(argv)
    read = default_load_settings()
    sets = [(n, lambda n=n: load_paper_dataset(n, **read)) for n in PAPER_DATASETS]
    sets += [(f"sample:{n}", lambda p=path: load_dataset(p, **read)) for n, path in sample_datasets().items()]
    print("| data set | rows | features | depth | repeats | trees | rules M | build s (median) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, load in sets:
        ds = load()
        settings = default_pool_settings(ds)
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
