"""Time the command line and the estimator on wide tables: 20 rows, 1,000 to 10,000 columns.

    python scripts/wide_tables.py [--columns 1000,2000,5000,10000] [--rows 20]

Each table holds digits 0-9 (a column of the kind a gene or survey table has: few distinct
values, so the default reading gives each column its threshold and its ``= v`` features) and
a two-class target.  For each width, in a fresh Python process each: ``explainer explain FILE.csv
--quiet`` (read, encode, pool, budgets, QGA), and ``RuleSetExplainer().fit(X, y)`` on the same
numbers as a numpy matrix.  Prints a markdown table of wall-clock and CPU seconds (the CPU time
is the process's own, so it shows the scaling on a shared, loaded machine too) and the CPU seconds
each 1,000 columns added since the previous width cost, which stays flat when the work is linear
in the columns (the first width's CPU includes the start-up: imports, the fixed part of the search).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ESTIMATOR = """
import sys
import numpy as np
from explainer.estimator import RuleSetExplainer
data = np.load(sys.argv[1], allow_pickle=False)
RuleSetExplainer().fit(data["X"], data["y"])
"""


def write_table(directory: Path, n_rows: int, n_columns: int) -> tuple[Path, Path]:
    rng = np.random.default_rng(0)
    X = rng.integers(0, 10, size=(n_rows, n_columns))
    y = rng.choice(["a", "b"], n_rows)
    csv = directory / f"wide_{n_columns}.csv"
    with csv.open("w") as f:
        f.write(",".join(f"c{j}" for j in range(n_columns)) + ",class\n")
        for i in range(n_rows):
            f.write(",".join(map(str, X[i])) + f",{y[i]}\n")
    npz = directory / f"wide_{n_columns}.npz"
    np.savez(npz, X=X.astype(float), y=y)
    return csv, npz


def timed(command: list[str]) -> tuple[float, float]:
    """Wall-clock and CPU (user + system) seconds of a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env={**os.environ, "PYTHONHASHSEED": "0"})
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--columns", default="1000,2000,5000,10000")
    ap.add_argument("--rows", type=int, default=20)
    args = ap.parse_args(argv)
    widths = [int(c) for c in args.columns.split(",")]
    print(f"{args.rows} rows; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs at the start\n")
    print("| columns | CSV size | CLI wall s | CLI CPU s | CLI CPU s per 1k columns added | estimator wall s | "
          "estimator CPU s | estimator CPU s per 1k columns added |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    previous = None
    with tempfile.TemporaryDirectory() as tmp:
        for k in widths:
            csv, npz = write_table(Path(tmp), args.rows, k)
            cli_wall, cli_cpu = timed([sys.executable, "-m", "explainer.cli", "explain", str(csv), "--quiet"])
            est_wall, est_cpu = timed([sys.executable, "-c", ESTIMATOR, str(npz)])
            if previous is None:
                cli_step = est_step = "-"
            else:
                added = (k - previous[0]) / 1000
                cli_step = f"{(cli_cpu - previous[1]) / added:.2f}"
                est_step = f"{(est_cpu - previous[2]) / added:.2f}"
            previous = (k, cli_cpu, est_cpu)
            print(f"| {k:,} | {csv.stat().st_size / 1e6:.2f} MB | {cli_wall:.1f} | {cli_cpu:.1f} | {cli_step} | "
                  f"{est_wall:.1f} | {est_cpu:.1f} | {est_step} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
