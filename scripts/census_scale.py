"""Time the engine from file to first explanation on census-like tables of 32,561 and 130,000 rows.

    python scripts/census_scale.py [--sizes 32561,130000] [--exact-time-limit 60] [--out docs/benchmarks/census_scale]

For each size, in a fresh Python process (so peak memory is that size's): generate the table
(:func:`explainer.bench.census.census_like`, seed 0) and write it as CSV, then time each step as the
dashboard and the CLI take it: read the CSV, encode it (``load_dataset`` with the default load
settings), build the default pool, choose the default budgets, run QGA at those budgets (seed 0),
and sweep the frontier at the default Be as the ``frontier`` command does (``backward=True``).
Records QGA's coverage, the frontier's point at the default Bc, the exact solver's upper bound at
the default budgets (HiGHS, warm-started from QGA's selection, ``--exact-time-limit`` seconds, on
tables of at most ``--exact-max-rows`` rows) and the gap between QGA and that bound, and the process's peak resident memory.

Then, when the default pool fitted its trees on a sample of the rows, the pool with every row and QGA
at the same budgets on it: what the sample costs or gains.

Writes ``<out>.csv`` and ``<out>.md`` (command, date, machine, load average before each size).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COLUMNS = [
    "rows", "columns", "features", "rules", "nnz", "read_s", "encode_s", "pool_s", "budgets_s", "qga_s",
    "file_to_explanation_s", "frontier_s", "complexity_budget", "error_budget", "form", "accuracy_pct",
    "balanced_accuracy_pct", "qga_coverage_pct",
    "frontier_at_bc_pct", "frontier_gap_pp", "exact_bound_pct", "qga_gap_to_bound_pp", "exact_s", "exact_status",
    "peak_rss_mib", "rss_at_start_mib", "load_before", "pool_every_row_s", "pool_again_s", "qga_coverage_every_row_pct",
]


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def measure(n_rows: int, exact_time_limit: float, exact_max_rows: int, workdir: str) -> dict:
    """Every step for one table size, in this process."""
    from explainer.bench.census import census_like
    from explainer.data import load_dataset
    from explainer.data.defaults import default_load_settings
    from explainer.data.tables import read_table
    from explainer.pipeline import default_budgets, explain_pool
    from explainer.rules import build_pool
    from explainer.rules.defaults import default_pool_settings
    from explainer.selection.frontier import default_range, frontier
    from explainer.selection.problem import SelectionProblem
    from explainer.selection.solvers import solve
    from explainer.selection.solvers.warmup import compile_loops

    compile_loops()  # the compiled loops loaded (as the set-up script and the dashboard do), not timed
    start_rss = _rss_mib()  # the interpreter, the libraries and the compiled loops
    path = Path(workdir) / f"census_{n_rows}.csv"
    census_like(n_rows).to_csv(path, index=False)
    row = {"rows": n_rows, "rss_at_start_mib": round(start_rss), "load_before": round(os.getloadavg()[0], 2)}

    t = time.perf_counter()
    frame = read_table(path)
    row["read_s"] = time.perf_counter() - t
    t = time.perf_counter()
    ds = load_dataset(frame, target="income", **default_load_settings())
    row["encode_s"] = time.perf_counter() - t
    row["columns"] = frame.shape[1] - 1
    row["features"] = ds.X.shape[1]
    t = time.perf_counter()
    pool = build_pool(ds.X, ds.y, random_state=0, classes=ds.classes, feature_specs=ds.feature_specs,
                      **default_pool_settings())
    row["pool_s"] = time.perf_counter() - t
    row["rules"], row["nnz"] = pool.n_rules, int(pool.coverage.nnz)
    t = time.perf_counter()
    d = default_budgets(pool)
    row["budgets_s"] = time.perf_counter() - t
    bc, be = int(d.complexity_budget), int(d.error_budget)
    row["complexity_budget"], row["error_budget"] = bc, be
    row["form"] = d.form
    t = time.perf_counter()  # the first explanation as the CLI and the dashboard make it: in the policy's form
    exp = explain_pool(pool, ds.X, ds.y, complexity_budget=bc, error_budget=be, algorithm="qga", random_state=0,
                       rules=d.rules)
    row["qga_s"] = time.perf_counter() - t
    row["file_to_explanation_s"] = sum(row[k] for k in ("read_s", "encode_s", "pool_s", "budgets_s", "qga_s"))
    row["accuracy_pct"] = 100 * exp.report.accuracy
    row["balanced_accuracy_pct"] = 100 * exp.report.balanced_accuracy
    # the frontier and the exact solver choose among every rule: QGA on every rule is their like
    problem = SelectionProblem.from_pool(pool, bc, be)
    selection = exp.result.selection if d.rules is None else solve(problem, "qga", random_state=0).selection
    qga_cov = problem.evaluate(selection).coverage
    row["qga_coverage_pct"] = 100 * qga_cov / n_rows

    t = time.perf_counter()
    fr = frontier(pool, be, default_range(pool), random_state=0, backward=True)
    row["frontier_s"] = time.perf_counter() - t
    lo, hi = fr.budgets[0], fr.budgets[-1]
    at = fr.at(bc) if lo <= bc <= hi else None
    row["frontier_at_bc_pct"] = None if at is None else 100 * at.coverage_score
    row["frontier_gap_pp"] = None if at is None else row["qga_coverage_pct"] - row["frontier_at_bc_pct"]

    row["exact_s"] = row["exact_bound_pct"] = row["qga_gap_to_bound_pp"] = None
    row["exact_status"] = "not run"
    if n_rows <= exact_max_rows:
        t = time.perf_counter()
        res = solve(problem, "exact", random_state=0, warm_start=selection, time_limit=exact_time_limit)
        row["exact_s"] = time.perf_counter() - t
        bound = float(res.info.get("bound", float("inf")))
        row["exact_bound_pct"] = 100 * bound / n_rows if bound < float("inf") else None
        row["qga_gap_to_bound_pp"] = (None if row["exact_bound_pct"] is None
                                      else row["exact_bound_pct"] - row["qga_coverage_pct"])
        row["exact_status"] = "optimal" if res.info.get("optimal") else (res.info.get("message") or str(res.status))
    row["peak_rss_mib"] = round(_rss_mib())

    # what the default pool's sample of rows costs: the pool with every row, QGA at the same budgets
    row["pool_every_row_s"] = row["pool_again_s"] = row["qga_coverage_every_row_pct"] = None
    settings = default_pool_settings()
    if settings["max_fit_rows"] is not None and n_rows > settings["max_fit_rows"]:
        t = time.perf_counter()
        full = build_pool(ds.X, ds.y, random_state=0, classes=ds.classes, feature_specs=ds.feature_specs,
                          **{**settings, "max_fit_rows": None})
        row["pool_every_row_s"] = time.perf_counter() - t
        t = time.perf_counter()  # the sampled pool once more, right after: the machine's load drifts
        build_pool(ds.X, ds.y, random_state=0, classes=ds.classes, feature_specs=ds.feature_specs, **settings)
        row["pool_again_s"] = time.perf_counter() - t
        res = solve(SelectionProblem.from_pool(full, bc, be), "qga", random_state=0)
        row["qga_coverage_every_row_pct"] = 100 * res.coverage / n_rows
    return row


def _fmt(v, digits=1) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:,.{digits}f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def markdown(rows: list[dict], info: dict) -> str:
    from explainer.bench.writers import _provenance_md

    head = ("# Census-like tables: file to first explanation\n\n"
            "Each size runs in a fresh Python process (`scripts/census_scale.py`): a census-like table "
            "(`explainer.bench.census.census_like`, 6 numeric and 8 categorical columns, seed 0) written as CSV, "
            "then read, encoded with the default load settings, the default pool built, the default budgets "
            "chosen, QGA run at them (seed 0) in the form of explanation the policy chose (*form*: rules of every "
            "class, or of the classes other than the fallback class only), as the command line and the dashboard "
            "run it: *file to explanation* is the sum of those steps, *accuracy* and *balanced* that explanation's "
            "on the table's rows.  The frontier is "
            "swept at the default Be over Bc = 1 .. 2 c* as the `frontier` command sweeps it, among every rule; "
            "*QGA coverage* is QGA's run on every rule at the default budgets (seed 0), *frontier at Bc* the "
            "frontier's point there and *gap* how far it is below QGA.  The exact solver "
            "(HiGHS, warm-started from QGA's selection, time-limited) gives an upper bound at the default budgets, "
            "and *gap to bound* how far QGA may be from the optimum.  *Peak RSS* is the process's maximum resident "
            "memory (interpreter and libraries included; *RSS at start* is that baseline).  *load* is the "
            "machine's 1-minute load average before the size started: the machine is shared, so times taken at a "
            "load above its 2 cores are slower than on an idle machine.\n\n")
    table = [
        "| rows | features | rules | nnz | read | encode | pool | budgets | QGA | file to explanation | frontier | Bc | Be "
        "| form | accuracy % | balanced % | QGA coverage % | frontier at Bc % | gap (pp) | exact bound % | gap to bound (pp) | exact | peak RSS (MiB) "
        "| RSS at start (MiB) | load |",
        "|" + "---|" * 25,
    ]
    for r in rows:
        table.append("| " + " | ".join([
            _fmt(r["rows"]), _fmt(r["features"]), _fmt(r["rules"]), _fmt(r["nnz"]),
            *(f"{r[k]:.1f}s" for k in ("read_s", "encode_s", "pool_s", "budgets_s", "qga_s",
                                        "file_to_explanation_s", "frontier_s")),
            _fmt(r["complexity_budget"]), _fmt(r["error_budget"]), _fmt(r["form"]), _fmt(r["accuracy_pct"], 2),
            _fmt(r["balanced_accuracy_pct"], 2), _fmt(r["qga_coverage_pct"], 2),
            _fmt(r["frontier_at_bc_pct"], 2), _fmt(r["frontier_gap_pp"], 2), _fmt(r["exact_bound_pct"], 2),
            _fmt(r["qga_gap_to_bound_pp"], 2), "-" if r["exact_s"] is None else f"{r['exact_s']:.0f}s {r['exact_status']}", _fmt(r["peak_rss_mib"]),
            _fmt(r["rss_at_start_mib"]), _fmt(r["load_before"], 2),
        ]) + " |")
    sample = ["", "## The default pool's sample of rows", "",
              "The default pool's trees learn their splits from at most 20,000 rows (a seeded, class-stratified "
              "sample; every rule is still counted on every row).  The same pool with every row, and QGA at the "
              "same budgets (seed 0) on it:", "",
              "| rows | pool (sample) | pool (every row) | pool (sample, again) | QGA coverage % (sample) "
              "| QGA coverage % (every row) |",
              "|---|---|---|---|---|---|"]
    for r in rows:
        if r.get("pool_every_row_s") is not None:
            sample.append(f"| {r['rows']:,} | {r['pool_s']:.1f}s | {r['pool_every_row_s']:.1f}s | {r['pool_again_s']:.1f}s | "
                          f"{r['qga_coverage_pct']:.2f} | {r['qga_coverage_every_row_pct']:.2f} |")
    if any(r["exact_bound_pct"] is not None and r["exact_bound_pct"] >= 100 and r["exact_status"] != "optimal"
           for r in rows):
        table += ["", "An exact bound of 100 % is the trivial one (no selection covers more than every row): within "
                  "its time the exact solver proved nothing tighter, so that gap to the bound says nothing of QGA."]
    return head + _provenance_md(info) + "\n" + "\n".join(table + sample) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="32561,130000", help="comma-separated row counts")
    ap.add_argument("--exact-time-limit", type=float, default=60.0, help="seconds for the exact solver's bound")
    ap.add_argument("--exact-max-rows", type=int, default=40_000,
                    help="run the exact solver only on tables of at most this many rows")
    ap.add_argument("--out", default="docs/benchmarks/census_scale", help="output path without extension")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)  # internal: measure one size, print JSON
    args = ap.parse_args()
    if args.one is not None:
        with tempfile.TemporaryDirectory() as tmp:
            print(json.dumps(measure(args.one, args.exact_time_limit, args.exact_max_rows, tmp)))
        return
    rows = []
    for n in (int(s) for s in args.sizes.split(",")):
        out = subprocess.run([sys.executable, __file__, "--one", str(n), "--exact-time-limit",
                              str(args.exact_time_limit), "--exact-max-rows", str(args.exact_max_rows)],
                             capture_output=True, text=True, check=True)
        row = json.loads(out.stdout.strip().splitlines()[-1])
        rows.append(row)
        print({k: (round(v, 2) if isinstance(v, float) else v) for k, v in row.items()}, flush=True)
    from explainer.bench.writers import provenance

    command = "python scripts/census_scale.py" + "".join(f" {a}" for a in sys.argv[1:])
    info = provenance(command, {"uptime": subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()})
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    import csv

    with open(f"{args.out}.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS)
        w.writeheader()
        for r in rows:
            w.writerow({k: (round(r[k], 3) if isinstance(r[k], float) else r[k]) for k in COLUMNS})
    Path(f"{args.out}.md").write_text(markdown(rows, info), encoding="utf-8")


if __name__ == "__main__":
    main()
