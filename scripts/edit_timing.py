"""How long does an analyst wait for an edited rule's numbers on the Rules page, on a census-sized table?

A census-like table (:func:`explainer.bench.census.census_like`) is uploaded into a fresh dashboard in
headless Chromium, loaded and explained at the default budgets; then the Rules page's editor changes the
first bound of the picked rule ``--edits`` times (a new value typed, Enter).  Each edit is timed on the page's
own clock (a MutationObserver) from the key press until the "Support" figure of the edited rule changes, so the
driver's own delays do not count.  Prints the times and writes ``<out>.md`` when ``--out`` is given.

    python scripts/edit_timing.py --rows 32561 --edits 8

Needs the ``dev`` extra (Playwright) and a Chromium (``/usr/bin/chromium``, or ``EXPLAINER_CHROMIUM``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from dashboard_timing import ARGS, CHROMIUM, LIMIT_S, _idle  # the same browser and the same waits

from explainer.bench.census import census_like

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from dashboard_server import start_dashboard, stop_dashboard  # noqa: E402

#: Set just before an edit's Enter: records in window.__edit the ms until the edited support shows a new text.
WATCH_EDIT = """(before) => {
  const t0 = performance.now();
  window.__edit = undefined;
  const read = () => {
    const m = [...document.querySelectorAll('[data-testid="stMetric"]')]
      .find(e => e.innerText.includes('Support'));
    return m ? m.innerText : null;
  };
  const obs = new MutationObserver(() => {
    const now = read();
    if (now !== null && now !== before) { window.__edit = performance.now() - t0; obs.disconnect(); }
  });
  obs.observe(document.body, {subtree: true, childList: true, characterData: true});
}"""
SUPPORT = ("() => { const m = [...document.querySelectorAll('[data-testid=\"stMetric\"]')]"
           ".find(e => e.innerText.includes('Support')); return m ? m.innerText : null; }")


def measure(n_rows: int, edits: int, workdir: str) -> dict:
    from playwright.sync_api import sync_playwright

    csv = Path(workdir) / f"census_{n_rows}.csv"
    census_like(n_rows, seed=0).to_csv(csv, index=False)
    log = Path(workdir) / "server.log"
    with open(log, "wb") as out:
        proc, url = start_dashboard(stdout=out)
    times: list[float] = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
            page = browser.new_page(viewport={"width": 1440, "height": 1000})
            page.set_default_timeout(LIMIT_S)
            main, sidebar = page.get_by_test_id("stMain"), page.get_by_test_id("stSidebar")
            page.goto(url)
            page.locator(".st-key-w_sample").first.wait_for()
            _idle(page)
            page.locator(".st-key-w_source_kind").get_by_text("Upload a CSV").click()
            main.locator("input[type='file']").set_input_files(str(csv))
            page.locator(".st-key-load_data button").first.click()
            main.get_by_text("Class distribution of").first.wait_for()
            _idle(page)
            sidebar.get_by_role("link", name="Explain", exact=True).click()
            page.locator(".st-key-run button:not([disabled])").first.click()
            page.locator(".st-key-final_fitness").first.wait_for()
            _idle(page)
            sidebar.get_by_role("link", name="Rules", exact=True).click()
            field = page.locator("[class*='st-key-rule_edit_'] input[type='number']").first
            field.wait_for()
            _idle(page)
            start = float(field.input_value())
            for i in range(edits):
                value = start + (i + 1) * (1 if abs(start) >= 10 else 0.1) * (1 if i % 2 else -1)
                before = page.evaluate(SUPPORT)
                field.fill(f"{value:g}")
                page.evaluate(WATCH_EDIT, before)
                field.press("Enter")
                page.wait_for_function("() => window.__edit !== undefined", timeout=LIMIT_S)
                times.append(page.evaluate("() => window.__edit") / 1000)
                _idle(page)
            if os.environ.get("EXPLAINER_SCREENSHOT"):
                page.screenshot(path=os.environ["EXPLAINER_SCREENSHOT"], full_page=True)
            browser.close()
    finally:
        stop_dashboard(proc)
    return {"rows": n_rows, "times": times, "median": statistics.median(times), "worst": max(times),
            "tracebacks": log.read_text(errors="replace").count("Traceback"), "load_avg": os.getloadavg()[0]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=32561)
    parser.add_argument("--edits", type=int, default=8)
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        t0 = time.perf_counter()
        row = measure(args.rows, args.edits, work)
    text = (f"# An edited rule's numbers on the Rules page, in a browser\n\n"
            f"- command: `python scripts/edit_timing.py --rows {args.rows} --edits {args.edits}`\n"
            f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n"
            f"- load average before: {row['load_avg']:.2f}; whole script {time.perf_counter() - t0:.0f} s\n\n"
            f"{args.rows:,} rows, {len(row['times'])} edits: median {row['median']:.2f} s, worst {row['worst']:.2f} s "
            f"(each: {', '.join(f'{t:.2f}' for t in row['times'])}); tracebacks in the server log: "
            f"{row['tracebacks']}\n")
    print(text)
    if args.out:
        Path(args.out).with_suffix(".md").write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
