"""Time the command line and the estimator on wide tables: 20 rows, 1,000 to 10,000 columns.

    python scripts/wide_tables.py [--columns 1000,2000,5000,10000] [--rows 20]
    python scripts/wide_tables.py --page --columns 10000     (the dashboard instead, in headless Chromium)

Each table holds digits 0-9 (a column of the kind a gene or survey table has: few distinct
values, so the default reading gives each column its threshold and its ``= v`` features) and
a two-class target.  For each width, in a fresh Python process each: ``explainer explain FILE.csv
--quiet`` (read, encode, pool, budgets, QGA), and ``RuleSetExplainer().fit(X, y)`` on the same
numbers as a numpy matrix.  Prints a markdown table of wall-clock and CPU seconds (the CPU time
is the process's own, so it shows the scaling on a shared, loaded machine too) and the CPU seconds
each 1,000 columns added since the previous width cost, which stays flat when the work is linear
in the columns (the first width's CPU includes the start-up: imports, the fixed part of the search).

With ``--page``, each table goes through the dashboard instead, as an analyst would: uploaded on the
Data page (until its preview is shown), loaded (until its class distribution is), the Explain page
opened (until Run is ready: the pool and the default budgets), and Run pressed (until the result's
chart is drawn); the seconds of each step from the browser's side, their sum, and the CPU seconds the
server (with its workers) and the browser spent over them, both on the same cores.  Needs playwright,
psutil and Chromium (the ``dev`` extra; as ``scripts/dashboard_timing.py``, whose helpers it uses).

With ``--collections``, what one full garbage collection costs in a dashboard server holding each table
(prepared, its pool and its default budgets, the libraries frozen as the server freezes them): the
collection Streamlit would run after every script run (``runner.postScriptGC``, off in this project).

    python scripts/wide_tables.py --collections --columns 10000
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


def _cpu_seconds(processes) -> float:
    """The CPU seconds (user and system) of ``processes`` so far, those of their reaped children included."""
    import psutil

    total = 0.0
    for proc in processes:
        try:
            t = proc.cpu_times()
        except psutil.Error:  # ended meanwhile
            continue
        total += t.user + t.system + t.children_user + t.children_system
    return total


def _server_and_browser_cpu(server_pid: int) -> tuple[float, float]:
    """CPU seconds so far of the dashboard server with its fork server and workers, and of the browser's
    processes (this script's Chromium children)."""
    import psutil

    server = psutil.Process(server_pid)
    browser = [c for c in psutil.Process().children(recursive=True) if "chrom" in c.name().lower()]
    return _cpu_seconds([server, *server.children(recursive=True)]), _cpu_seconds(browser)


def page_steps(csv: Path) -> dict[str, float]:
    """Seconds of each step of ``csv`` through a fresh dashboard (see the module docstring), their sum, and the
    CPU seconds the server and the browser spent over the walk."""
    from dashboard_timing import (
        ARGS,
        CHROMIUM,
        LIMIT_S,
        _timed,
        open_upload_form,
        start_dashboard,
        stop_dashboard,
    )
    from playwright.sync_api import sync_playwright

    with open(csv.with_suffix(".log"), "wb") as out:
        proc, url = start_dashboard(stdout=out)
    try:
        with sync_playwright() as p:
            page = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS).new_page(
                viewport={"width": 1440, "height": 1000})
            page.set_default_timeout(LIMIT_S)
            main = open_upload_form(page, url)
            load, run = page.locator(".st-key-load_data button"), page.locator(".st-key-run button:not([disabled])")
            server0, browser0 = _server_and_browser_cpu(proc.pid)
            steps = {
                "upload": _timed(page, lambda: main.locator("input[type='file']").set_input_files(str(csv)), load),
                "load": _timed(page, lambda: load.first.click(), main.get_by_text("Class distribution of")),
                "pool and budgets": _timed(page, lambda: page.get_by_test_id("stSidebar").get_by_role(
                    "link", name="Explain", exact=True).click(), run),
                "run": _timed(page, lambda: run.first.click(), page.locator(".st-key-final_fitness")),
            }
            server1, browser1 = _server_and_browser_cpu(proc.pid)
    finally:
        stop_dashboard(proc)
    return {**steps, "total": sum(steps.values()), "server CPU": server1 - server0, "browser CPU": browser1 - browser0}


def collection_cost(csv: Path, repeats: int = 3) -> tuple[int, list[float]]:
    """What one full garbage collection costs in a dashboard server holding ``csv`` prepared, its pool and its
    default budgets: the libraries the server loads, frozen as it freezes them once warmed up, then the data;
    (the objects the collector walks, the seconds of each of ``repeats`` collections)."""
    import gc

    from explainer.app import budgets, charts, pools, sources, state  # noqa: F401  (the server's libraries)

    gc.collect()
    gc.freeze()
    source = sources.upload_source(csv.name, csv.read_bytes())
    dataset = sources.prepare_source(source, target="class")
    pool, _ = pools._build(pools.PoolSettings(), dataset)
    kept = [dataset, pool, budgets.choose_defaults(pool)]  # alive while measured, as in the server
    seconds = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        gc.collect()
        seconds.append(time.perf_counter() - t0)
    n_objects = len(gc.get_objects())
    del kept
    gc.unfreeze()
    return n_objects, seconds


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--columns", default="1000,2000,5000,10000")
    ap.add_argument("--rows", type=int, default=20)
    ap.add_argument("--page", action="store_true", help="time the dashboard's steps instead")
    ap.add_argument("--collections", action="store_true",
                    help="time a full garbage collection in a server holding each table instead")
    args = ap.parse_args(argv)
    widths = [int(c) for c in args.columns.split(",")]
    print(f"{args.rows} rows; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs at the start\n")
    if args.collections:
        print("| columns | objects walked | seconds a full collection |\n|---:|---:|---|")
        with tempfile.TemporaryDirectory() as tmp:
            for k in widths:
                n, seconds = collection_cost(write_table(Path(tmp), args.rows, k)[0])
                print(f"| {k:,} | {n:,} | " + ", ".join(f"{v:.2f}" for v in seconds) + " |", flush=True)
        return 0
    if args.page:
        print("| columns | upload s | load s | pool and budgets s | run s | total s | server CPU s | browser CPU s |\n"
              "|---:|---:|---:|---:|---:|---:|---:|---:|")
        with tempfile.TemporaryDirectory() as tmp:
            for k in widths:
                t = page_steps(write_table(Path(tmp), args.rows, k)[0])
                print(f"| {k:,} | " + " | ".join(f"{v:.1f}" for v in t.values()) + " |", flush=True)
        return 0
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
