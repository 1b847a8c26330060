"""What one uploaded table costs the server, step by step, in one process.

    python scripts/table_memory.py [--mb 41.5] [--seed 1] [--fractions]

Writes the table ``scripts/upload_memory.py`` uploads (about ``--mb`` MB of CSV, census-like), then, as the
dashboard does for an upload: reads it (``read_table``), encodes it (``dataset_from_table``) and builds its rule
pool at the Explain page's settings.  Prints, for the table as read, the memory its objects keep and the peak
while it was read (Python's ``tracemalloc``, which numpy reports to), the data cache's estimate of it
(``frame_bytes``) and pandas' own count (one string a cell); for the pool, the peak of what was allocated while
it was built and its size by the cache's estimate; for the default budgets chosen next (``choose_defaults``: the
validation's folds, each with a pool of its own), the peak of what was allocated beyond the pool.

``--resident`` measures the process's resident memory instead (sampled every 0.2 s, without tracemalloc): what
the server needs room for while it builds.  Python's allocations are only part of it: the trees' own
(scikit-learn's compiled code) and the compiled loops' are not traced, and the resident peaks come out
several times the traced ones.  Each peak is also given per byte of the data set's feature table, the unit of
``POOL_PEAK_PER_BYTE`` and ``BUDGETS_PEAK_PER_BYTE``.
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

from upload_memory import BYTES_PER_ROW, PeakWatch, census_like, server_mb  # noqa: E402

from explainer.app.budgets import choose_defaults  # noqa: E402
from explainer.app.caching import MB, approx_bytes, frame_bytes, return_freed_memory  # noqa: E402
from explainer.app.pools import PoolSettings, _build  # noqa: E402
from explainer.data.datasets import dataset_from_table  # noqa: E402
from explainer.data.tables import read_table  # noqa: E402


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=41.5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--fractions", action="store_true",
                        help="number columns with decimal fractions, which keep the pool's matrix float64")
    parser.add_argument("--resident", action="store_true",
                        help="the process's resident memory at each step's peak instead of what Python allocated")
    args = parser.parse_args(argv)
    if args.resident:
        resident(args)
        return
    data = census_csv(args)
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


def census_csv(args) -> bytes:
    """The CSV file ``scripts/upload_memory.py`` uploads, of about ``--mb`` MB."""
    n_rows = int(args.mb * 1e6 / BYTES_PER_ROW)
    return census_like(n_rows, seed=args.seed, fractions=args.fractions).to_csv(index=False).encode()


def resident(args) -> None:
    """The resident memory each step holds at its peak beyond what the process held before it."""
    import os

    table = read_table(census_csv(args))
    dataset = dataset_from_table(table, str(table.columns[-1]))
    del table
    features = frame_bytes(dataset.X)
    print(f"{dataset.n_rows:,} rows, {dataset.n_features} features; the feature table {features / MB:.0f} MB by the "
          f"cache's estimate")
    pid = os.getpid()

    def settled() -> float:
        gc.collect()
        return_freed_memory()
        return server_mb(pid)

    before = settled()
    watch = PeakWatch(pid)
    pool, seconds = _build(PoolSettings(), dataset)
    peak = max(watch.take(), server_mb(pid))
    print(f"rule pool built in {seconds:.1f} s: resident peak {peak - before:.0f} MB beyond the {before:.0f} MB "
          f"before it ({(peak - before) * MB / features:.1f} times the feature table)")
    before = settled()
    watch.take()
    choose_defaults(pool)
    peak = max(watch.take(), server_mb(pid))
    watch.stop()
    print(f"default budgets: resident peak {peak - before:.0f} MB beyond the {before:.0f} MB before them "
          f"({(peak - before) * MB / features:.1f} times the feature table)")


if __name__ == "__main__":
    main()
