"""How long does an analyst wait in the dashboard on a census-sized table, and does Stop keep a selection?

For each size, a census-like table (:func:`explainer.bench.census.census_like`: 6 numeric columns with
skew and ties, 8 categorical columns of 2 to 40 values, missing values, a 24 % minority class) is
written as CSV, a fresh dashboard is started (``tests/dashboard_server.py``) and headless
Chromium does what a new user does, as fast as the page lets it: upload the file, press Load data,
open Explain, press Run as soon as it is there.  Timed from the page (each wait ends when Streamlit
has finished drawing):

* *preview*: from the file given to the uploader until the Data page shows its Load data form;
* *load*: Load data pressed until the class distribution is shown;
* *pool + budgets*: the Explain link clicked until Run is on the page (pool and default budgets chosen);
* *first rules*: Run pressed until the run's best selection so far (its rules and accuracy, under the live
  chart) is first on the page, read from the page's own clock;
* *run*: Run pressed until the result's fitness chart is shown;
* *upload to first rules*: preview + load + pool and budgets + first rules (from the file to the first rules
  the analyst can read);
* *upload to explanation*: preview + load + pool and budgets + run (from the file to the finished run);
* *frontier*: from Run appearing until the frontier beside the budgets is complete (the first run
  computes meanwhile, as it would for the analyst);
* *Stop*: ``--stops`` runs at Bc = max(48, 3 x the default), each stopped at a random moment (0.3-4 s in):
  from the click until the page shows the stopped run's status line ("status: stopped", its best
  selection kept) and until its fitness chart is drawn, both read from the page's own clock (a
  MutationObserver), so the driver's own delays do not count.

The server's log is scanned for tracebacks; *server peak RSS* is the Streamlit process's own (workers
apart).  Writes ``<out>.md``.

    python scripts/dashboard_timing.py                      # 32,561 and 130,000 rows, 10 Stops each
    python scripts/dashboard_timing.py --sizes 8000 --stops 3 [--shots DIR]

Needs the ``dev`` extra (Playwright) and a Chromium (``/usr/bin/chromium``, or ``EXPLAINER_CHROMIUM``).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from explainer.bench.census import census_like

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the helper the browser tests use too
from dashboard_server import start_dashboard, stop_dashboard  # noqa: E402

CHROMIUM = os.environ.get("EXPLAINER_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
#: Stop is tried on runs at least this large in Bc (the issue's own: long enough to be stopped on any table)
STOP_BC = 48
LIMIT_S = 300_000  # ms: a step that never ends fails the script rather than hanging it
IDLE = "() => !document.querySelector('[data-testid=\"stStatusWidgetRunningIcon\"]')"
#: Set just before Stop is clicked: records (in window.__seen, ms after the click, from the page's own clock)
#: when the stopped run's status line and its fitness chart are first on the page.
WATCH_STOP = """() => {
  const t0 = performance.now();
  window.__seen = {};
  const obs = new MutationObserver(() => {
    const now = performance.now() - t0;
    if (window.__seen.status === undefined && document.body.innerText.includes('status: stopped')) window.__seen.status = now;
    if (window.__seen.plot === undefined && document.querySelector('.st-key-final_fitness .main-svg')) window.__seen.plot = now;
    if (window.__seen.status !== undefined && window.__seen.plot !== undefined) obs.disconnect();
  });
  obs.observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


#: Set just before Run is clicked: records (in window.__first, ms after the click, from the page's own clock) when
#: the run's best selection so far is first on the page.
WATCH_FIRST = """() => {
  const t0 = performance.now();
  window.__first = undefined;
  const obs = new MutationObserver(() => {
    if (document.body.innerText.includes('Best selection so far')) {
      window.__first = performance.now() - t0;
      obs.disconnect();
    }
  });
  obs.observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


def _run_with_shot(page, shots, n_rows: int) -> None:
    """Run pressed; with ``shots``, the page once the run's best selection so far is on it (if before its end)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.locator(".st-key-run button").first.click()
    if shots:
        try:
            page.get_by_text("Best selection so far").first.wait_for(timeout=60_000)
            _shot(page, shots, f"{n_rows}_2a_best_so_far")
        except PlaywrightTimeout:
            pass


def _idle(page) -> None:
    page.wait_for_timeout(100)
    page.wait_for_function(IDLE, timeout=LIMIT_S)


def _timed(page, act, done) -> float:
    """Seconds from ``act()`` until ``done`` is on the page and Streamlit has finished drawing."""
    t = time.perf_counter()
    act()
    done.first.wait_for()
    _idle(page)
    return time.perf_counter() - t


def _median(values):
    return statistics.median(values) if values else None


def _max(values):
    return max(values) if values else None


def _peak_rss_mib(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _shot(page, shots: str | None, name: str) -> None:
    """A full-page screenshot to ``shots/name.png`` (nothing without ``--shots``)."""
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(shots) / f"{name}.png"), full_page=True)


def open_upload_form(page, url: str):
    """Open the dashboard at ``url`` and choose "Upload a CSV" on the Data page; returns the page's main area."""
    main = page.get_by_test_id("stMain")
    page.goto(url)
    page.locator(".st-key-w_sample").first.wait_for()
    _idle(page)
    page.locator(".st-key-w_source_kind").get_by_text("Upload a CSV").click()
    main.locator("input[type='file']").wait_for(state="attached")
    _idle(page)
    return main


def measure(n_rows: int, stops: int, seed: int, workdir: str, shots: str | None = None) -> dict:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright

    csv = Path(workdir) / f"census_{n_rows}.csv"
    census_like(n_rows, seed=0).to_csv(csv, index=False)
    log = Path(workdir) / f"server_{n_rows}.log"
    with open(log, "wb") as out:
        proc, url = start_dashboard(stdout=out)
    row: dict = {"rows": n_rows, "load_avg": os.getloadavg()[0]}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
            page = browser.new_page(viewport={"width": 1440, "height": 1000})
            page.set_default_timeout(LIMIT_S)
            main = open_upload_form(page, url)
            sidebar = page.get_by_test_id("stSidebar")

            upload = main.locator("input[type='file']")
            preview = _timed(page, lambda: upload.set_input_files(str(csv)), page.locator(".st-key-load_data button"))
            load = _timed(page, lambda: page.locator(".st-key-load_data button").first.click(),
                          main.get_by_text("Class distribution of"))
            pool_budgets = _timed(page, lambda: sidebar.get_by_role("link", name="Explain", exact=True).click(),
                                  page.locator(".st-key-run button:not([disabled])"))
            run_shown = time.perf_counter()
            _shot(page, shots, f"{n_rows}_1_ready_to_run")
            page.evaluate(WATCH_FIRST)
            run = _timed(page, lambda: _run_with_shot(page, shots, n_rows), page.locator(".st-key-final_fitness"))
            first_ms = page.evaluate("() => window.__first")
            first = run if first_ms is None else first_ms / 1000  # a run over before its rules were drawn
            _shot(page, shots, f"{n_rows}_2_explanation")
            page.locator(".st-key-frontier_done").first.wait_for()
            _idle(page)
            _shot(page, shots, f"{n_rows}_3_frontier")
            row.update(preview=preview, load=load, pool_budgets=pool_budgets, run=run, first=first,
                       first_total=preview + load + pool_budgets + first,
                       total=preview + load + pool_budgets + run, frontier=time.perf_counter() - run_shown)
            steps = page.evaluate("() => [...document.querySelectorAll('[data-testid=\"stExpander\"] summary')]"
                                  ".map(e => e.innerText.trim().replace(/^check\\s*/, ''))")
            row["steps"] = "; ".join(s for s in steps if " in " in s and "s:" in s)
            bc = int(page.locator(".st-key-bc_number input").first.input_value())

            # Stop: runs at a larger Bc (long enough to be stopped), each stopped at a random moment
            field = page.locator(".st-key-bc_number input").first
            field.fill(str(max(3 * bc, STOP_BC)))
            field.press("Enter")
            _idle(page)
            rng = random.Random(seed)
            latencies, kept, ended_first = [], 0, 0
            for _ in range(stops):
                page.locator(".st-key-run button:not([disabled])").first.click()
                try:
                    page.locator(".st-key-stop_run button").first.wait_for(timeout=20_000)
                except PlaywrightTimeout:  # the run ended before the page showed it running
                    ended_first += 1
                    _idle(page)
                    continue
                page.wait_for_timeout(int(rng.uniform(300, 4000)))
                if not latencies:
                    _shot(page, shots, f"{n_rows}_4_running")
                stop = page.locator(".st-key-stop_run button:not([disabled])")
                if not stop.count():
                    ended_first += 1
                    page.locator(".st-key-final_fitness").first.wait_for()
                    _idle(page)
                    continue
                page.evaluate(WATCH_STOP)
                stop.first.click()
                page.locator(".st-key-final_fitness .main-svg").first.wait_for()
                _idle(page)
                seen = page.evaluate("() => window.__seen")
                latencies.append((seen["status"] / 1000, seen["plot"] / 1000))
                kept += int(main.get_by_text("status: stopped").count() > 0)
                if len(latencies) == 1:
                    _shot(page, shots, f"{n_rows}_5_stopped")
            statuses, plots = [a for a, _ in latencies], [b for _, b in latencies]
            row.update(stops=len(latencies), stop_status_median=_median(statuses), stop_status_worst=_max(statuses),
                       stop_chart_median=_median(plots), stop_chart_worst=_max(plots),
                       stops_within_1s=sum(t <= 1.0 for t in plots), stops_kept=kept, runs_ended_first=ended_first)
            browser.close()
    finally:
        row["server_peak_rss_mib"] = _peak_rss_mib(proc.pid)
        stop_dashboard(proc)
    row["tracebacks"] = log.read_text(errors="replace").count("Traceback")
    return row


def _s(v, digits: int = 1) -> str:
    return "-" if v is None else f"{v:.{digits}f}s"


def markdown(rows: list[dict], info: dict) -> str:
    from explainer.bench.writers import _provenance_md

    head = ("# The dashboard on census-sized tables, in a browser\n\n"
            "`scripts/dashboard_timing.py` (its docstring says what each column times): a census-like table "
            "uploaded into a fresh dashboard in headless Chromium, loaded, explained at the default budgets, "
            "then runs stopped at random moments (a run that ended before its Stop is not counted).  The browser "
            "runs on the same machine as the server; *load before* is the 1-minute load average before the size "
            "started.\n\n")
    table = ["| rows | preview | load | pool + budgets | first rules | run | upload to first rules | "
             "upload to explanation | frontier | "
             "Stop: status median / worst | Stop: chart median / worst | charts within 1 s | kept a selection | "
             "server peak RSS | tracebacks | load before |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        table.append(f"| {r['rows']:,} | {_s(r['preview'])} | {_s(r['load'])} | {_s(r['pool_budgets'])} | "
                     f"{_s(r['first'])} | {_s(r['run'])} | {_s(r['first_total'])} | {_s(r['total'])} | "
                     f"{_s(r['frontier'])} | "
                     f"{_s(r['stop_status_median'], 2)} / {_s(r['stop_status_worst'], 2)} | "
                     f"{_s(r['stop_chart_median'], 2)} / {_s(r['stop_chart_worst'], 2)} | "
                     f"{r['stops_within_1s']} of {r['stops']} | {r['stops_kept']} of {r['stops']} | "
                     f"{r['server_peak_rss_mib']:.0f} MiB | {r['tracebacks']} | {r['load_avg']:.2f} |")
    steps = ["", "The steps' own lines on the Explain page:", ""] + [f"- {r['rows']:,} rows: {r['steps']}"
                                                                    for r in rows]
    return head + _provenance_md(info) + "\n" + "\n".join(table + steps) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="32561,130000", help="comma-separated row counts")
    ap.add_argument("--stops", type=int, default=10, help="runs stopped at a random moment, per size")
    ap.add_argument("--seed", type=int, default=0, help="seeds the moments Stop is pressed")
    ap.add_argument("--out", default="docs/benchmarks/dashboard_timing", help="output path without extension")
    ap.add_argument("--shots", default=None, help="folder for full-page screenshots of each step (none without)")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            row = measure(n, args.stops, args.seed, tmp, shots=args.shots)
            rows.append(row)
            print({k: (round(v, 2) if isinstance(v, float) else v) for k, v in row.items()}, flush=True)
    from explainer.bench.writers import provenance

    command = "python scripts/dashboard_timing.py" + "".join(f" {a}" for a in sys.argv[1:])
    info = provenance(command, {"uptime": subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()})
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(f"{args.out}.md").write_text(markdown(rows, info), encoding="utf-8")
    bad = [r for r in rows if r["tracebacks"] or r["stops_kept"] < r["stops"]]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
