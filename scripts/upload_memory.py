"""The dashboard server's memory as large tables are uploaded one after the other.

    python scripts/upload_memory.py [--uploads 6] [--mb 41.5] [--sessions] [--fractions] [--after-close 240]

Starts ``streamlit run app.py`` on a free local port, then in headless
Chromium uploads ``--uploads`` different CSV files of about ``--mb`` MB each
(an adult-census-like mix of numeric and categorical columns, with gaps) on
the Data page and loads each one, as an analyst would (in one session, or
each from a new one with ``--sessions``).  After each load it prints the
resident memory of the server process (its worker processes apart); then it
closes the browser, waits ``--after-close`` seconds (Streamlit keeps a closed
session for 120 s; the server releases it within a minute after) and prints it
again, against the budget: the server's memory at the start plus the caches'
byte budgets.  Each measure also gives the largest memory the server held since the previous one
(sampled every 0.2 s): the work a load starts in the background (the pool's build, the default budgets)
peaks between the measures.  Beside each figure, the server's own account of what it holds
(its caches, Streamlit's uploaded files, pandas tables alive, sessions), which
it writes every 30 s to the file ``EXPLAINER_MEMORY_LOG`` names.  Needs playwright and Debian's
chromium (``/usr/bin/chromium``).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import tempfile
import time

import numpy as np
import pandas as pd
import psutil

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the helper that starts the dashboard (the browser tests use it too)

from dashboard_server import start_dashboard, stop_dashboard  # noqa: E402

from explainer.app.caching import COMPUTED, MB, UPLOADS  # noqa: E402
from explainer.app.closed_sessions import MEMORY_LOG_ENV  # noqa: E402

#: the caches' byte budgets, as the server reads them from the same environment
CACHES = UPLOADS.max_bytes + COMPUTED.max_bytes

CHROMIUM = "/usr/bin/chromium"
BYTES_PER_ROW = 114  # of the table below, as written by pandas (measured)


def census_like(n_rows: int, seed: int, fractions: bool = False) -> pd.DataFrame:
    """The uploaded table; ``fractions``: two of its number columns hold decimal fractions (``fnlwgt`` to two
    places, ``hours`` to one), which float32 cannot hold, so its rule pool is built on a float64 matrix."""
    rng = np.random.default_rng(seed)
    cats = {f"c{k}": [f"cat{k}-val{i}" for i in range(n)] for k, n in enumerate((2, 5, 7, 9, 16, 6, 15, 40))}
    frame = pd.DataFrame({
        "age": rng.integers(17, 90, n_rows),
        "fnlwgt": rng.lognormal(12, 0.5, n_rows).round(2 if fractions else 0),
        "education_num": rng.integers(1, 17, n_rows),
        "capital_gain": np.where(rng.random(n_rows) < 0.08, rng.lognormal(8, 1, n_rows).round(0), 0),
        "capital_loss": np.where(rng.random(n_rows) < 0.05, rng.lognormal(7, 0.5, n_rows).round(0), 0),
        "hours": rng.normal(40, 12, n_rows).clip(1, 99).round(1 if fractions else 0),
        **{name: rng.choice(values, n_rows) for name, values in cats.items()},
    })
    for name in ("c3", "c6"):
        frame.loc[rng.random(n_rows) < 0.05, name] = None
    frame["income"] = np.where(rng.random(n_rows) < 0.24, ">50K", "<=50K")
    return frame


def idle(page, timeout: float = 600_000) -> None:
    """Wait until Streamlit has finished the current script run."""
    page.wait_for_timeout(300)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"] "
        "[data-testid=\"stStatusWidgetRunningIcon\"]')", timeout=timeout)


def server_mb(pid: int) -> float:
    return psutil.Process(pid).memory_info().rss / 2**20


class PeakWatch:
    """The server's largest resident memory between two measures, sampled every ``every`` seconds in a thread: a
    measure after each load sees the memory once the page is idle, not what the work behind it (the pool's build,
    the default budgets) held on the way."""

    def __init__(self, pid: int, every: float = 0.2):
        import threading

        self.pid, self.every, self.peak = pid, every, 0.0
        self._lock, self._done = threading.Lock(), threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._done.wait(self.every):
            try:
                mb = server_mb(self.pid)
            except psutil.Error:
                return
            with self._lock:
                self.peak = max(self.peak, mb)

    def take(self) -> float:
        """The peak since the previous ``take`` (or the start), then start again."""
        with self._lock:
            peak, self.peak = self.peak, 0.0
        return peak

    def stop(self) -> None:
        self._done.set()
        self._thread.join()


def held(log: pathlib.Path) -> str:
    """The server's own account of what it holds, from its last housekeeping round (``EXPLAINER_MEMORY_LOG``)."""
    lines = log.read_text().splitlines() if log.exists() else []
    if not lines:
        return "no housekeeping round yet"
    last = json.loads(lines[-1])
    return ", ".join(f"{k} {v:.0f}" if isinstance(v, float) else f"{k} {v}" for k, v in last.items() if k != "time")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uploads", type=int, default=6)
    parser.add_argument("--mb", type=float, default=41.5)
    parser.add_argument("--sessions", action="store_true",
                        help="each upload from a new session (Streamlit keeps a closed one for 2 minutes)")
    parser.add_argument("--fractions", action="store_true",
                        help="number columns with decimal fractions, which keep the pool's matrix float64")
    parser.add_argument("--after-close", type=float, default=240.0,
                        help="seconds to wait after the browser closes before the last measure")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright  # only this script needs a browser driver

    n_rows = int(args.mb * 1e6 / BYTES_PER_ROW)
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for i in range(args.uploads):
            path = pathlib.Path(tmp) / f"census_{i}.csv"
            census_like(n_rows, seed=i, fractions=args.fractions).to_csv(path, index=False)
            files.append(path)
        log = pathlib.Path(tmp) / "held.jsonl"
        os.environ[MEMORY_LOG_ENV] = str(log)  # the server writes what it holds there every 30 s
        proc, url = start_dashboard(stdout=None)
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.goto(url, timeout=120_000)
                page.get_by_text("Loaded data").first.wait_for(timeout=120_000)
                time.sleep(2)
                start_mb = server_mb(proc.pid)
                budget = start_mb + CACHES / MB
                watch = PeakWatch(proc.pid)
                print(f"server at start: {start_mb:.0f} MB; budget {budget:.0f} MB (at start {start_mb:.0f} + caches "
                      f"{CACHES / MB:.0f})")
                for i, path in enumerate(files):
                    if args.sessions:  # a fresh page, and so a new session, for each upload
                        page.goto(url, timeout=120_000)
                    main_block = page.get_by_test_id("stMain")
                    idle(page)
                    main_block.get_by_text("Upload a CSV").first.click()
                    main_block.locator("input[type='file']").set_input_files(str(path))
                    # the preview of a file read but not loaded yet: the new file has arrived
                    main_block.get_by_role("heading", name="Preview").wait_for(timeout=600_000)
                    main_block.get_by_role("button", name="Load data").wait_for(timeout=600_000)
                    idle(page)
                    t0 = time.perf_counter()
                    main_block.get_by_role("button", name="Load data").click(timeout=600_000)
                    try:
                        page.get_by_test_id("stSidebar").get_by_text(f"{path.name} (uploaded)").first.wait_for(
                            timeout=300_000)
                    except Exception:
                        page.screenshot(path=str(pathlib.Path(tempfile.gettempdir()) / "upload_memory.png"),
                                        full_page=True)
                        raise
                    time.sleep(3)
                    size = path.stat().st_size / 1e6
                    print(f"after upload {i + 1} ({size:.1f} MB, {n_rows:,} rows, loaded in "
                          f"{time.perf_counter() - t0:.1f} s): server {server_mb(proc.pid):.0f} MB; its peak since the "
                          f"previous measure {_against(watch.take(), budget)}")
                    print(f"  server's account: {held(log)}")
                browser.close()
            time.sleep(args.after_close)
            after = server_mb(proc.pid)
            closing_peak = watch.take()
            watch.stop()
            print(f"{args.after_close:.0f} s after the browser closed: server {after:.0f} MB; budget {budget:.0f} MB "
                  f"(at start {start_mb:.0f} + caches {CACHES / MB:.0f}): "
                  f"{'within' if after <= budget else 'OVER'}; its peak over those seconds "
                  f"{_against(closing_peak, budget)}")
            print(f"  server's account: {held(log)}")
        finally:
            stop_dashboard(proc)
    return 0


def _against(mb: float, budget: float) -> str:
    return f"{mb:.0f} MB ({'within' if mb <= budget else 'OVER'})"


if __name__ == "__main__":
    raise SystemExit(main())
