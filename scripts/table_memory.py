"""What one uploaded table costs the server, step by step, in one process.

    python scripts/table_memory.py [--mb 41.5] [--seed 1] [--fractions]

Writes the table ``scripts/upload_memory.py`` uploads (about ``--mb`` MB of CSV, census-like), then, as the
dashboard does for an upload: reads it (``read_table``), encodes it (``dataset_from_table``) and builds its rule
pool at the Explain page's settings.  Prints, for the table as read, the memory its objects keep and the peak
while it was read (Python's ``tracemalloc``, which numpy reports to), the data cache's estimate of it
(``frame_bytes``) and pandas' own count (one string a cell); for the pool, the peak of what was allocated while
it was built and its size by the cache's estimate; for the default budgets chosen next (``choose_defaults``: the
validation's folds, each with a pool of its own), the peak of what was allocated beyond the pool.
"""

from __future__ import annotations

import argparse
import gc
import pathlib
import sys
import tracemalloc

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from upload_memory import BYTES_PER_ROW, census_like  # noqa: E402

from explainer.app.budgets import choose_defaults  # noqa: E402
from explainer.app.caching import MB, approx_bytes, frame_bytes  # noqa: E402
from explainer.app.pools import PoolSettings, _build  # noqa: E402
from explainer.data.datasets import dataset_from_table  # noqa: E402
from explainer.data.tables import read_table  # noqa: E402


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=41.5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--fractions", action="store_true",
                        help="number columns with decimal fractions, which keep the pool's matrix float64")
    args = parser.parse_args(argv)
    n_rows = int(args.mb * 1e6 / BYTES_PER_ROW)
    data = census_like(n_rows, seed=args.seed, fractions=args.fractions).to_csv(index=False).encode()
    tracemalloc.start()
    table = read_table(data)  # (not timed: tracemalloc slows it several times)
    gc.collect()
    kept, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"table of {len(data) / 1e6:.1f} MB, {len(table):,} rows, read: {kept / MB:.0f} MB "
          f"kept ({peak / MB:.0f} MB at the peak of reading); the cache's estimate {frame_bytes(table) / MB:.0f} MB, "
          f"pandas' count {table.memory_usage(index=True, deep=True).sum() / MB:.0f} MB")
    dataset = dataset_from_table(table, str(table.columns[-1]))
    print(f"data set of {dataset.n_features} features: the cache's estimate {approx_bytes(dataset) / MB:.0f} MB")
    tracemalloc.start()
    pool, seconds = _build(PoolSettings(), dataset)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"rule pool of {pool.n_rules:,} rules, {pool.coverage.nnz:,} nonzeros, built in {seconds:.1f} s: "
          f"arrays at their peak {peak / MB:.0f} MB; the cache's estimate {approx_bytes(pool) / MB:.0f} MB")
    tracemalloc.start()
    choice = choose_defaults(pool)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"default budgets Bc = {choice.complexity_budget}, Be = {choice.error_budget}: arrays at their peak "
          f"{peak / MB:.0f} MB beyond the pool")


if __name__ == "__main__":
    main()
