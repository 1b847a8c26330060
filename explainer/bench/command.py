"""``explainer bench``: its options and the two benchmarks it writes."""

from __future__ import annotations

import argparse
import json
import pathlib
import shlex
import sys
import time

from explainer.bench import figures as figure_files
from explainer.bench.execution import Progress, execute
from explainer.bench.figures import write_figures
from explainer.bench.paper import (
    DEFAULT_ALGORITHMS,
    ENCODINGS,
    paper_settings,
    paper_table,
    scale_budgets,
)
from explainer.bench.runner import make_tasks
from explainer.bench.synthetic import (
    SYNTHETIC_PARAMS,
    parse_sizes,
    run_synthetic_size,
    scale_markdown,
)
from explainer.bench.writers import (
    RUN_COLUMNS,
    _provenance_md,
    markdown_table,
    provenance,
    summarise,
    write_csv,
)
from explainer.selection.solvers import ALGORITHMS, get_solver_class


def _csv_list(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def _parse_params(items: list[str]) -> dict[str, dict]:
    """``ALG.KEY=VALUE`` (VALUE read as JSON when it parses, else a string) -> {ALG: {KEY: VALUE}}."""
    out: dict[str, dict] = {}
    for item in items or []:
        try:
            lhs, value = item.split("=", 1)
            alg, key = lhs.split(".", 1)
        except ValueError:
            raise ValueError(f"--param {item!r} is not ALGORITHM.KEY=VALUE") from None
        try:
            v = json.loads(value)
        except json.JSONDecodeError:
            v = value
        out.setdefault(alg.strip(), {})[key.strip()] = v
    return out


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``explainer bench``."""
    g = p.add_argument_group("Table 3 benchmark")
    g.add_argument("--data-dir", help="directory of the paper's data sets (default: the copy shipped "
                   "with the package)")
    g.add_argument("--paper-csv", help="the paper's results table (default: the copy shipped with the "
                   "package, explainer/data/paper/table3_results.csv)")
    g.add_argument("--datasets", help="comma-separated data sets (default: all of the paper's)")
    g.add_argument("--algorithms", default=",".join(DEFAULT_ALGORITHMS),
                   help=f"comma-separated registry names (default: {','.join(DEFAULT_ALGORITHMS)})")
    g.add_argument("--runs", type=int, default=30, help="runs per (data set, algorithm) (default 30)")
    g.add_argument("--run-ids", help="only these run indices, e.g. 3,7 (reproduces those cells)")
    g.add_argument("--seed", type=int, default=0, help="base seed; run k of data set d uses (seed, d, k)")
    g.add_argument("--pool-seed", type=int, default=0, help="random state of the tree grid (default 0)")
    g.add_argument("--encoding", choices=ENCODINGS, default="paper",
                   help="paper: one-hot as the paper did (see PAPER_ENCODING); plain: the loader's defaults")
    g.add_argument("--eps", type=float, default=1.0, help="conflict penalty (the paper's 1)")
    g.add_argument("--budget-scale", type=float, default=1.0,
                   help="multiply the paper's budgets by this factor (rounded down; e.g. 0.5 for a harder "
                        "table; the paper's columns are then left empty)")
    g.add_argument("--time-limit", type=float, default=300.0, help="seconds per exact solve (default 300)")
    g.add_argument("--param", action="append", default=[], metavar="ALG.KEY=VALUE",
                   help="solver parameter, e.g. qga.n_generations=50 (repeatable)")
    g.add_argument("--figure-algorithm", default="qga",
                   help="algorithm whose fitness evolution is plotted (default qga)")
    g.add_argument("--no-png", action="store_true", help="figures as HTML only")
    g.add_argument("--jobs", type=int, default=1, help="local worker processes (joblib; -1 = all cores)")
    g.add_argument("--scheduler", help="Dask scheduler address (tcp://host:port) instead of local workers")
    g.add_argument("--out", default="docs/benchmarks", help="output directory (default docs/benchmarks)")
    g.add_argument("--quiet", action="store_true", help="no progress bar")
    g.add_argument("--note", help="a line of text for the header of the written tables")
    s = p.add_argument_group("synthetic scale benchmark")
    s.add_argument("--synthetic", action="store_true", help="time solvers on synthetic N x M problems instead")
    s.add_argument("--sizes", default="1000x500,10000x2000,100000x20000", help="N x M list (default: %(default)s)")
    s.add_argument("--synthetic-algorithms", default="greedy,qga",
                   help="solvers of the scale test (default greedy,qga)")
    s.add_argument("--size-timeout", type=float, default=600.0, help="seconds per size and solver (default 600)")


def _command_line(args, argv=None) -> str:
    """The command as typed (from ``argv``, or ``sys.argv`` when it is an ``explainer bench`` call)."""
    if argv is None and "bench" in sys.argv[1:2]:
        argv = sys.argv[1:]
    if argv is None:  # called from Python: rebuild it from the options
        argv = ["bench"]
        for key, value in sorted(vars(args).items()):
            if key in ("func", "command") or value is None or value is False or value == []:
                continue
            flag = "--" + key.replace("_", "-")
            if value is True:
                argv.append(flag)
            elif isinstance(value, list):
                for v in value:
                    argv += [flag, str(v)]
            else:
                argv += [flag, str(value)]
    return "explainer " + " ".join(shlex.quote(str(a)) for a in argv)


def main(args, argv=None) -> int:
    """``explainer bench``: see :func:`add_arguments`."""
    command = _command_line(args, argv)
    out = pathlib.Path(args.out)
    if args.synthetic:
        return _main_synthetic(args, out, command)


    settings = paper_settings(args.paper_csv)
    paper_rows: list[dict] | None = paper_table(args.paper_csv)
    scale = float(getattr(args, "budget_scale", 1.0))
    if scale <= 0:
        raise ValueError("--budget-scale must be positive")
    if scale != 1.0:
        settings = scale_budgets(settings, scale)
        paper_rows = None  # the paper has no cells at other budgets
    datasets = _csv_list(args.datasets) if args.datasets else list(settings)
    algorithms = _csv_list(args.algorithms)
    for a in algorithms:
        if a not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {a!r}; choose from {', '.join(ALGORITHMS)}")
    if args.runs < 1:
        raise ValueError("--runs must be at least 1")
    params = _parse_params(args.param)
    if "exact" in algorithms:
        params.setdefault("exact", {}).setdefault("time_limit", args.time_limit)
    run_ids = [int(k) for k in _csv_list(args.run_ids)] if args.run_ids else None
    data_dir = args.data_dir
    tasks = make_tasks(datasets, algorithms, args.runs, settings, seed=args.seed, data_dir=data_dir,
                       encoding=args.encoding, pool_seed=args.pool_seed, eps=args.eps, params=params,
                       run_ids=run_ids, figure_algorithm=args.figure_algorithm)
    progress = Progress(len(tasks), enabled=not args.quiet)
    t0 = time.perf_counter()
    records = execute(tasks, jobs=args.jobs, scheduler=args.scheduler, progress=progress)
    wall = time.perf_counter() - t0
    rows = summarise(records, settings, paper_rows, encoding=args.encoding, datasets=datasets,
                     algorithms=algorithms)

    out.mkdir(parents=True, exist_ok=True)
    write_csv(rows, out / "table3.csv")
    write_csv(records, out / "runs.csv", RUN_COLUMNS)
    figures = write_figures(records, out, png=not args.no_png)
    info = provenance(command, {
        "encoding": args.encoding, "seed": args.seed, "pool_seed": args.pool_seed, "runs": args.runs,
        "jobs": args.jobs if args.scheduler is None else f"Dask scheduler {args.scheduler}",
        "exact time limit": f"{args.time_limit:g}s" if "exact" in algorithms else None,
        "solver parameters": json.dumps(params) if params else None,
        "wall time": f"{wall:.0f}s",
        "budgets": None if scale == 1.0 else f"the paper's x {scale:g}, rounded down",
        "note": args.note,
    })
    md = ["# Table 3, reproduced", "",
          "Averages over the runs of each algorithm (the exact solver and greedy are deterministic and run "
          "once).  Coverage is f*/N in percent (mean ± std over the runs), complexity and errors are means / "
          "the paper's budgets, time is the median solve time per run (pool building excluded).  "
          "*Optimum* is the exact MILP solver's coverage at the same budgets and *gap* = optimum - mean "
          "coverage (percentage points).  The paper's coverage and time are those of its Table 3 (30 runs, "
          "its machine).", "", _provenance_md(info), markdown_table(rows)]
    if figures:
        md += ["", "## Fitness evolution (Figure 4)", ""]
        md += [f"- [{f.name}](figures/{f.name})" for f in figures]
    elif args.figure_algorithm in algorithms:
        md += ["", f"(no fitness history was recorded for {args.figure_algorithm})"]
    (out / "table3.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    if figure_files.png_failed():
        print("note: PNG export failed (kaleido needs a Chrome browser); figures written as HTML only",
              file=sys.stderr)
    print(markdown_table(rows), end="")
    print(f"wrote {out / 'table3.md'}, {out / 'table3.csv'}, {out / 'runs.csv'} and {len(figures)} figure file(s)"
          f" in {wall:.1f}s")
    return 0


def _main_synthetic(args, out: pathlib.Path, command: str) -> int:
    sizes = parse_sizes(args.sizes)
    algs = _csv_list(args.synthetic_algorithms)
    params = _parse_params(args.param)

    results = []
    for n, m in sizes:
        for a in algs:
            try:
                get_solver_class(a)
            except ImportError as exc:
                results.append({"n_rows": n, "n_rules": m, "algorithm": a, "error": f"not available ({exc})"})
                continue
            run_params = {**SYNTHETIC_PARAMS.get(a, {}), **params.get(a, {})}
            spec = {"n_rows": n, "n_rules": m, "algorithm": a, "seed": args.seed, "params": run_params}
            if not args.quiet:
                print(f"scale: N={n:,} M={m:,} {a} ...", file=sys.stderr, flush=True)
            r = run_synthetic_size(spec, timeout=args.size_timeout)
            results.append(r)
            if not args.quiet:
                msg = r.get("error") or f"solve {r['solve_s']:.1f}s, peak RSS {r['peak_rss_mib']:.0f} MiB"
                print(f"       {msg}", file=sys.stderr, flush=True)
    info = provenance(command, {"seed": args.seed, "note": args.note})
    out.mkdir(parents=True, exist_ok=True)
    text = scale_markdown(results, info)
    (out / "scale.md").write_text(text, encoding="utf-8")
    write_csv(results, out / "scale.csv", [
        "n_rows", "n_rules", "algorithm", "nnz", "build_s", "solve_s", "wall_s", "coverage", "complexity",
        "complexity_budget", "errors", "error_budget", "generations", "status", "peak_rss_mib",
        "rss_start_mib", "rss_after_build_mib", "error"])
    print(text, end="")
    return 0
