"""How much slower is a run watched live in the dashboard than the same run from the command line?

Times one run from the CLI (``explainer explain ... --json``), then the same
data, pool depth, budgets, algorithm and seed in the dashboard, driven by
headless chromium (Playwright) with the Explain page open the whole time:
from pressing Run until the result is on the page.  The dashboard is opened
through a link carrying the settings in its query parameters (the same link
an analyst would share).  Prints both times, their ratio and whether the two
runs selected the same rules.

    python scripts/live_speed.py                      # mammographic masses, depth 7, Bc 40, Be 60
    python scripts/live_speed.py --data banknote --complexity 23 --errors 35 --depth 5

Three denominators are printed: the CLI's solver time (its JSON ``time_s``: the
search alone), the library call a Run makes (``explain_pool``: problem, search,
report; timed in a fresh process with data and pool ready) and the whole CLI
command (start-up, reading and the pool too).  The exit status follows the
strictest, the solver time.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the helper that starts the dashboard (the browser tests use it too)

from dashboard_server import start_dashboard  # noqa: E402

CHROMIUM = os.environ.get("EXPLAINER_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
TARGET_RATIO = 1.25


def cli_run(args) -> tuple[float, dict]:
    cmd = [sys.executable, "-m", "explainer.cli", "explain", args.data, "--depth", str(args.depth),
           "--complexity", str(args.complexity), "--errors", str(args.errors), "--algorithm", args.algorithm,
           "--seed", str(args.seed), "--quiet", "--json"]
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    t0 = time.perf_counter()
    out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    return time.perf_counter() - t0, json.loads(out.stdout)


LIBRARY_CALL = """
import json, sys, time
from explainer.data import load_dataset, load_paper_dataset, sample_datasets
from explainer.pipeline import explain_pool
from explainer.rules.pool import build_pool
from explainer.data.defaults import default_load_settings
from explainer.rules.defaults import default_pool_settings
a = json.loads(sys.argv[1])
read = default_load_settings()  # the reading the CLI and the dashboard use
ds = load_paper_dataset(a["data"], **read) if a["paper"] else load_dataset(sample_datasets()[a["data"]], **read)
pool = build_pool(ds.X, ds.y, random_state=0, classes=ds.classes, feature_specs=ds.feature_specs,
                  **default_pool_settings(max_depth=a["depth"]))
t0 = time.perf_counter()
explain_pool(pool, ds.X, ds.y, complexity_budget=a["complexity"], error_budget=a["errors"], algorithm=a["algorithm"],
             random_state=a["seed"], fingerprint=ds.fingerprint)
print(time.perf_counter() - t0)
"""


def library_call(args) -> float:
    """Seconds of the call a Run makes (``explain_pool``: problem, solver, report), data and pool ready."""
    settings = json.dumps({k: getattr(args, k) for k in ("data", "paper", "depth", "complexity", "errors",
                                                          "algorithm", "seed")})
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", LIBRARY_CALL, settings], cwd=ROOT, env=env, capture_output=True,
                         text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def start_server() -> tuple[subprocess.Popen, str]:
    try:
        return start_dashboard(stdout=subprocess.DEVNULL)
    except RuntimeError as exc:
        raise SystemExit(str(exc)) from None


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of one process (all its threads), 0 if it is gone."""
    try:
        fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _descendants(root: int) -> list[int]:
    parents = {}
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        kids = [c for c, p in parents.items() if p == pid]
        out.extend(kids)
        todo.extend(kids)
    return out


def cpu_snapshot(server_pid: int) -> dict:
    """CPU seconds so far of the Streamlit server itself and of the browser (this script's other children)."""
    server_tree = set(_descendants(server_pid))
    browser = [p for p in _descendants(os.getpid()) if p != server_pid and p not in server_tree]
    return {"server": _cpu_seconds(server_pid), "browser": sum(_cpu_seconds(p) for p in browser)}


def idle(page, timeout=60_000) -> None:
    page.wait_for_timeout(150)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"] [data-testid=\"stStatusWidgetRunningIcon\"]')",
        timeout=timeout,
    )


def watched_run(browser, url: str, args, server_pid: int) -> dict:
    """Open the link with the settings on the Explain page, press Run, wait for the result on the page."""
    kind = "paper" if args.paper else "sample"
    query = urllib.parse.urlencode({"data": f"{kind}:{args.data}", "depth": args.depth, "bc": args.complexity,
                                    "be": args.errors, "alg": args.algorithm, "seed": args.seed})
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    page.set_default_timeout(120_000)
    page.goto(f"{url}/Explain?{query}")
    main = page.get_by_test_id("stMain")
    main.get_by_text("Rules in the pool (M)").first.wait_for()
    # the frontier beside the budgets is computed first, so that it does not compete with the run
    page.locator(".st-key-frontier_done").first.wait_for(timeout=args.timeout * 1000)
    idle(page)
    page.wait_for_timeout(1000)  # the page settles
    run = page.locator(".st-key-run button")
    cpu0 = cpu_snapshot(server_pid)
    t0 = time.perf_counter()
    run.click()
    page.locator(".st-key-final_fitness").first.wait_for(timeout=args.timeout * 1000)
    page.locator("[data-testid='stCode']").first.wait_for()
    watched = time.perf_counter() - t0
    cpu1 = cpu_snapshot(server_pid)
    rules = page.locator("[data-testid='stCode']").first.inner_text()
    shown_time = page.locator("[data-testid='stMetric']").filter(has_text="Time").first.inner_text()
    page.close()
    return {"cpu": {k: cpu1[k] - cpu0[k] for k in cpu0}, "watched_s": watched, "rules": rules.strip(),
            "shown_time": shown_time.replace("\n", " ")}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="mammographic_masses", help="a paper data set or a bundled sample")
    parser.add_argument("--sample", dest="paper", action="store_false", help="--data names a bundled sample")
    parser.add_argument("--depth", type=int, default=7)
    parser.add_argument("--complexity", type=int, default=40)
    parser.add_argument("--errors", type=int, default=60)
    parser.add_argument("--algorithm", default="qga")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=600, help="seconds to wait for the watched run")
    parser.add_argument("--repeats", type=int, default=3, help="pairs of runs (CLI, watched); medians are reported")
    args = parser.parse_args(argv)

    if not os.path.exists(CHROMIUM):
        raise SystemExit(f"chromium not found at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    proc, url = start_server()
    cli_walls, cli_solver, calls, watched, cpu_server, cpu_browser, same = [], [], [], [], [], [], True
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            for i in range(args.repeats):  # alternate, so a change in the machine's load hits both alike
                wall, cli = cli_run(args)
                call = library_call(args)
                web = watched_run(browser, url, args, proc.pid)
                cli_walls.append(wall)
                cli_solver.append(cli["time_s"])
                calls.append(call)
                watched.append(web["watched_s"])
                cpu_server.append(web["cpu"]["server"])
                cpu_browser.append(web["cpu"]["browser"])
                same = same and web["rules"] == cli["rules_text"].strip()
                print(f"  pair {i + 1}: CLI solver {cli['time_s']:.2f} s (command {wall:.2f} s), "
                      f"library call {call:.2f} s, "
                      f"watched {web['watched_s']:.2f} s (page reports {web['shown_time']})", flush=True)
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    med = statistics.median
    ratio = med(watched) / med(cli_solver)
    print(f"data {args.data} (depth {args.depth}), Bc {args.complexity}, Be {args.errors}, "
          f"{args.algorithm} seed {args.seed}; {args.repeats} pairs; {os.cpu_count()} CPUs, load average "
          + ", ".join(f"{x:.1f}" for x in os.getloadavg()))
    print(f"CLI:       solver {med(cli_solver):.2f} s (median), whole command {med(cli_walls):.2f} s; "
          f"{cli['generations']} generations, status {cli['status']}")
    print(f"dashboard: {med(watched):.2f} s (median) from Run to the result on the page, watched live")
    print(f"CPU used during a watched run (median): Streamlit server {med(cpu_server):.1f} s, "
          f"browser {med(cpu_browser):.1f} s")
    print(f"library call (explain_pool: problem, solver, report; data and pool ready): {med(calls):.2f} s (median)")
    print(f"ratio watched / CLI solver: {ratio:.2f} (target <= {TARGET_RATIO}); "
          f"watched / library call: {med(watched) / med(calls):.2f}; "
          f"watched / whole CLI command: {med(watched) / med(cli_walls):.2f}")
    print("same rules as the CLI: " + ("yes" if same else "NO"))
    return 0 if ratio <= TARGET_RATIO and same else 1


if __name__ == "__main__":
    sys.exit(main())
