"""Tables and provenance: the per-(data set, algorithm) summary, CSV and markdown, machine and command."""

from __future__ import annotations

import csv
import datetime
import math
import os
import pathlib
import platform
import statistics
import subprocess

import numpy as np

from explainer import __version__
from explainer.bench.paper import _PROJECT_ROOT, PAPER_COLUMN, TABLE_LABELS

#: Columns of ``table3.csv`` (the first twelve are the stable interface).
TABLE_COLUMNS = [
    "dataset", "algorithm", "runs", "M", "coverage_mean", "coverage_std", "complexity_mean",
    "errors_mean", "time_median_s", "optimum_coverage", "paper_coverage", "paper_time_s",
    "label", "paper_M", "instances", "features", "classes", "depth", "trees",
    "complexity_budget", "errors_budget", "coverage_min", "coverage_max", "feasible_runs",
    "time_mean_s", "optimum_proven", "optimum_bound", "gap_pp", "paper_coverage_std", "paper_complexity_mean",
    "paper_errors_mean", "encoding",
]

#: Columns of ``runs.csv``: one row per run.
RUN_COLUMNS = [
    "dataset", "algorithm", "run", "seed", "M", "coverage", "covered", "conflicting_pairs",
    "complexity", "errors", "feasible", "n_rules", "status", "time_s", "generations",
    "children", "merge_calls", "merge_time_s",
]


def _mean(xs):
    return float(statistics.fmean(xs)) if xs else float("nan")


def _std(xs):
    # the population standard deviation, as numpy's default
    return float(np.std(xs)) if xs else float("nan")


def summarise(records: list[dict], settings: dict[str, dict], paper_rows: list[dict] | None = None,
              *, encoding: str = "paper", datasets=None, algorithms=None) -> list[dict]:
    """One row per (data set, algorithm) in the given orders; paper numbers and the optimum beside ours."""
    paper = {(r["dataset"], r["algorithm_key"]): r for r in (paper_rows or [])}

    groups: dict[tuple[str, str], list[dict]] = {}
    for r in records:
        groups.setdefault((r["dataset"], r["algorithm"]), []).append(r)
    datasets = datasets or list(dict.fromkeys(r["dataset"] for r in records))
    algorithms = algorithms or list(dict.fromkeys(r["algorithm"] for r in records))
    rows = []
    for d in datasets:
        exact = groups.get((d, "exact"))
        opt = exact[0]["coverage"] if exact else None
        proven = exact[0].get("optimal") if exact else None
        bound = exact[0].get("bound") if exact else None
        for a in algorithms:
            g = groups.get((d, a))
            if not g:
                continue
            s = settings.get(d, {})
            p = paper.get((d, PAPER_COLUMN.get(a, a)), {})
            cov = [r["coverage"] for r in g]
            times = [r["time_s"] for r in g]
            mean = _mean(cov)
            rows.append({
                "dataset": d, "algorithm": a, "runs": len(g), "M": g[0]["M"],
                "coverage_mean": mean, "coverage_std": _std(cov),
                "complexity_mean": _mean([r["complexity"] for r in g]),
                "errors_mean": _mean([r["errors"] for r in g]),
                "time_median_s": float(statistics.median(times)),
                "optimum_coverage": opt,
                "paper_coverage": p.get("coverage_pct"), "paper_time_s": p.get("time_s"),
                "label": TABLE_LABELS.get(a, a), "paper_M": s.get("rules"),
                "instances": g[0]["n_rows"], "features": g[0]["features"], "classes": g[0]["classes"],
                "depth": s.get("depth"), "trees": g[0]["trees"],
                "complexity_budget": s.get("complexity_budget"), "errors_budget": s.get("errors_budget"),
                "coverage_min": min(cov), "coverage_max": max(cov),
                "feasible_runs": sum(bool(r["feasible"]) for r in g),
                "time_mean_s": _mean(times),
                "optimum_proven": proven,
                "optimum_bound": bound,
                "gap_pp": None if opt is None else opt - mean,
                "paper_coverage_std": p.get("coverage_std"),
                "paper_complexity_mean": p.get("complexity_mean"),
                "paper_errors_mean": p.get("errors_mean"),
                "encoding": encoding,
            })
    return rows


def write_csv(rows: list[dict], path, columns=TABLE_COLUMNS) -> None:
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({c: _csv_value(r.get(c)) for c in columns})


def _csv_value(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "" if math.isnan(v) else repr(round(v, 6))
    return v


def _time(s) -> str:
    if s is None:
        return ""
    return f"{s:.2f}s" if s < 10 else f"{s:.1f}s"


def markdown_table(rows: list[dict]) -> str:
    """Table 3's layout (data set, algorithm, complexity, errors, time, coverage) plus our extra columns."""
    head = ("| Data set | M (ours / paper) | Algorithm | Runs | Complexity | Errors | Time (median) "
            "| Coverage % | Paper coverage % | Paper time | Optimum % | Gap (pp) |")
    lines = [head, "|" + "|".join(["---"] * 12) + "|"]
    last = None
    for r in rows:
        first = r["dataset"] != last
        last = r["dataset"]
        opt = r["optimum_coverage"]
        opt_s = "" if opt is None else f"{opt:.1f}"
        if opt is not None and not r["optimum_proven"]:
            b = r.get("optimum_bound")
            opt_s += " (not proven" + ("" if b is None else f", bound {b:.1f}") + ")"
        paper_cov = r["paper_coverage"]
        lines.append("| " + " | ".join([
            r["dataset"] if first else "",
            f"{r['M']} / {r['paper_M']}" if first else "",
            r["label"],
            str(r["runs"]),
            f"{r['complexity_mean']:.1f} / {r['complexity_budget']}",
            f"{r['errors_mean']:.1f} / {r['errors_budget']}",
            _time(r["time_median_s"]),
            f"{r['coverage_mean']:.1f} (±{r['coverage_std']:.1f})",
            "" if paper_cov is None else f"{paper_cov:.1f} (±{r['paper_coverage_std']:.1f})",
            "" if r["paper_time_s"] is None else _time(r["paper_time_s"]),
            opt_s,
            "" if r["gap_pp"] is None else f"{r['gap_pp']:.1f}",
        ]) + " |")
    return "\n".join(lines) + "\n"


def machine_info() -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    import scipy
    import sklearn

    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
    }


def _git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=_PROJECT_ROOT, capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def provenance(command: str, extra: dict | None = None) -> dict:

    return {
        "command": command,
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "explainer": __version__,
        "commit": _git_commit(),
        **machine_info(),
        **(extra or {}),
    }


def _provenance_md(info: dict) -> str:
    lines = [f"**Note:** {info['note']}", ""] if info.get("note") else []
    lines.append(f"- command: `{info['command']}`")
    for k, v in info.items():
        if k not in ("command", "note") and v is not None:
            lines.append(f"- {k}: {v}")
    return "\n".join(lines) + "\n"
