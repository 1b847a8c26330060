"""Time of the default policy (``explainer.pipeline.default_budgets``) on large census-like tables.

    python scripts/default_budgets_scale.py [--rows 32561,130000] [--out docs/benchmarks/default_budgets_scale.md]

For each size: the census-like table (:func:`explainer.bench.census.census_like`, seed 0) written
to CSV and read back as an upload is (:func:`explainer.data.load_dataset` with the loader's
defaults, target ``income``), the default pool built (``explainer.rules.defaults``, seed 0), then
``default_budgets(pool)`` timed alone (wall clock and CPU seconds of this process): the budgets,
the form, the rows the policy read and the accuracy on all training rows of the selection it chose.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import platform
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from explainer.bench.census import census_like  # noqa: E402
from explainer.data import load_dataset  # noqa: E402
from explainer.data.defaults import default_load_settings  # noqa: E402
from explainer.pipeline.policy import _training_right, default_budgets  # noqa: E402
from explainer.rules.defaults import default_pool_settings  # noqa: E402
from explainer.rules.pool import build_pool  # noqa: E402
from explainer.selection.problem import SelectionProblem  # noqa: E402


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", default="32561,130000")
    ap.add_argument("--out", help="also write the table to this markdown file")
    args = ap.parse_args(argv)
    lines = [
        "| rows | pool rules | pool s | default_budgets wall s | CPU s | policy rows | Bc | Be | form "
        "| training accuracy % of the chosen selection |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    print(lines[0] + "\n" + lines[1], flush=True)
    load = os.getloadavg()[0]  # the machine may be shared: how busy it was when the run began
    for n in (int(v) for v in args.rows.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "census.csv")
            census_like(n).to_csv(path, index=False)
            ds = load_dataset(path, target="income", **default_load_settings())
        t = time.perf_counter()
        pool = build_pool(ds.X, ds.y, random_state=0, classes=ds.classes, feature_specs=ds.feature_specs,
                          **default_pool_settings())
        t_pool = time.perf_counter() - t
        wall, cpu = time.perf_counter(), time.process_time()
        d = default_budgets(pool)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        problem = SelectionProblem.from_pool(pool)
        acc = 100 * _training_right(problem, d.selection) / pool.n_rows  # the fallback of the selection
        line = (f"| {n} | {pool.n_rules} | {t_pool:.1f} | {wall:.2f} | {cpu:.2f} | {d.policy_rows} | "
                f"{d.complexity_budget} | {d.error_budget} | {d.form} | {acc:.2f} |")
        lines.append(line)
        print(line, flush=True)
    if args.out:
        head = ["# Default budgets on census-like tables", "",
                f"Command: `python scripts/default_budgets_scale.py {' '.join(argv or sys.argv[1:])}`; "
                f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
                f"{time.strftime('%Y-%m-%d', time.gmtime())}, 1-minute load average {load:.2f} before the run.", ""]
        pathlib.Path(args.out).write_text("\n".join(head + lines) + "\n")


if __name__ == "__main__":
    main()
