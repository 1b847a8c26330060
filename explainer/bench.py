"""Benchmark: the paper's Table 3 and Figure 4, and a synthetic scale test.

``explainer bench`` runs every selected algorithm ``--runs`` times on each of
the paper's data sets, at the paper's depths and budgets (read from the
paper's results CSV, never typed in here), and writes a Table 3 look-alike
(markdown and CSV) with extra columns, the per-run numbers and, per data set,
the QGA fitness-evolution figure.

* Every run is an independent task ``(data set, algorithm, run k)``.  Its seed
  comes from ``SeedSequence([seed, crc32(data set), k])``, so any subset of
  runs re-run later gives the same numbers, bit for bit.
* Tasks run on local cores with joblib (``--jobs``) or on a Dask cluster
  (``--scheduler tcp://host:port``; needs the optional ``distributed``).
* Each process builds the rule pool of a data set once (cached) with a fixed
  pool seed, from the data encoded as the paper did (``--encoding paper``).
* The exact solver is deterministic: it runs once per data set and its
  optimum gives every algorithm's gap.

``explainer bench --synthetic`` times QGA and greedy on synthetic selection
problems of growing size (N rows x M rules), each in a fresh subprocess that
reports its wall time and peak memory.  QGA runs there with a time limit of
``SYNTHETIC_PARAMS["qga"]["time_limit"]`` seconds (its "auto" population
already shrinks on huge instances; the limit ends the largest run with the best
selection so far, status "stopped"); ``--param qga.time_limit=null`` lifts it.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import math
import os
import pathlib
import platform
import shlex
import statistics
import subprocess
import sys
import time
import zlib
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

_PROJECT_ROOT = pathlib.Path(__file__).resolve().parent.parent

# the paper's algorithm names in its table -> our registry names
PAPER_ALGORITHMS = {"RF+HC": "rfhc", "IRFRE": "irfre", "IRFRE RF+HC": "irfre_rfhc", "QGA": "qga"}

#: Short names in the tables: the paper's, then ours.
TABLE_LABELS = {**{v: k for k, v in PAPER_ALGORITHMS.items()}, "greedy": "Greedy", "exact": "Exact (MILP)",
                "ga": "Standard GA", "forex": "ForEx++", "forex_trimmed": "ForEx++ trimmed"}

#: Algorithms of a full benchmark (the paper's four, plus greedy and the exact optimum).
DEFAULT_ALGORITHMS = ("rfhc", "irfre", "irfre_rfhc", "qga", "greedy", "exact")

#: Algorithms that give the same answer whatever the seed: run once per data set.
DETERMINISTIC = frozenset({"exact", "greedy"})

#: The paper's preprocessing, as :func:`~explainer.data.load_dataset` keyword arguments.
#: The paper one-hot encoded every column that held a ``?`` (its rules read
#: ``margin_?``, ``age_42``, ``bare nuclei_10``); the missing indicators
#: (``X is missing``) play the part of its ``X_?`` columns.  Its Hayes-Roth rules
#: use the ``name`` column, which our loader would drop as an identifier.
PAPER_ENCODING: dict[str, dict] = {
    "mammographic_masses": {
        "categorical": ["BI-RADS", "Age", "Shape", "Margin", "Density"],
        "missing_indicators": "auto",
    },
    "breast_cancer_wisconsin": {"categorical": ["Bare Nuclei"], "missing_indicators": "auto"},
    "hayes_roth": {"keep": ["name"]},
}

ENCODINGS = ("paper", "plain")

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
]


# ------------------------------------------------------------------ paper table
def paper_dir() -> pathlib.Path | None:
    env = os.environ.get("EXPLAINER_PAPER_DIR")
    if env:
        return pathlib.Path(env).expanduser()
    candidate = _PROJECT_ROOT.parent / "shared" / "paper"
    return candidate if candidate.is_dir() else None


def paper_table(path=None) -> list[dict]:
    """Rows of the paper's Table 3 (with Table 2's settings), numbers as numbers."""
    if path is None:
        d = paper_dir()
        if d is None:
            raise OSError("the paper's results table was not found (set EXPLAINER_PAPER_DIR)")
        path = d / "table3_results.csv"
    rows = []
    with open(path, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            for key, value in row.items():
                if key in ("dataset", "algorithm"):
                    continue
                row[key] = float(value) if "." in value else int(value)
            row["algorithm_key"] = PAPER_ALGORITHMS.get(row["algorithm"], row["algorithm"])
            rows.append(row)
    return rows


def paper_settings(path=None) -> dict[str, dict]:
    """Per data set: depth, trees, rules (M), complexity_budget, errors_budget from the paper."""
    out: dict[str, dict] = {}
    for row in paper_table(path):
        out.setdefault(
            row["dataset"],
            {k: row[k] for k in ("instances", "attributes", "classes", "depth", "trees", "rules",
                                 "complexity_budget", "errors_budget")},
        )
    return out


# ------------------------------------------------------------------ runs
def run_seed(base_seed: int, dataset: str, run: int) -> int:
    """The seed of run ``run`` on ``dataset``: stable across machines, Python versions and subsets."""
    ss = np.random.SeedSequence([int(base_seed), zlib.crc32(dataset.encode("utf-8")), int(run)])
    return int(ss.generate_state(1, dtype=np.uint64)[0])


def encoding_kwargs(dataset: str, encoding: str = "paper") -> dict:
    """``load_dataset`` keyword arguments of ``dataset`` under ``encoding`` ("paper" or "plain")."""
    if encoding not in ENCODINGS:
        raise ValueError(f"encoding must be one of {', '.join(ENCODINGS)}, got {encoding!r}")
    if encoding == "plain":
        return {}
    return {k: list(v) if isinstance(v, list) else v for k, v in PAPER_ENCODING.get(dataset, {}).items()}


@dataclass(frozen=True)
class Task:
    """One run: everything a worker needs, nothing it must look up elsewhere."""

    dataset: str
    algorithm: str
    run: int
    seed: int
    depth: int
    complexity_budget: int
    error_budget: int
    data_dir: str | None = None
    encoding: str = "paper"
    pool_seed: int = 0
    eps: float = 1.0
    params: tuple = ()  # sorted (key, value) pairs for the solver
    keep_history: bool = False


@lru_cache(maxsize=16)
def _pool(dataset: str, data_dir: str | None, encoding: str, depth: int, pool_seed: int):
    from .data import load_paper_dataset
    from .pool import build_pool

    ds = load_paper_dataset(dataset, data_dir, **encoding_kwargs(dataset, encoding))
    pool = build_pool(ds.X, ds.y, depth, random_state=pool_seed, classes=ds.classes, feature_specs=ds.feature_specs)
    return ds, pool


def clear_cache() -> None:
    """Forget the pools built in this process."""
    _pool.cache_clear()


def task_problem(task: Task):
    """(data set, pool, selection problem) of a task; the pool is built once per process."""
    ds, pool = _pool(task.dataset, task.data_dir, task.encoding, task.depth, task.pool_seed)
    return ds, pool, pool.problem(task.complexity_budget, task.error_budget, eps=task.eps)


def run_task(task: Task) -> dict:
    """Run one task; a plain dict of its numbers (and the fitness history when asked)."""
    from .solvers import solve

    ds, pool, problem = task_problem(task)
    result = solve(problem, task.algorithm, random_state=task.seed, **dict(task.params))
    n = problem.n_rows
    rec = {
        "dataset": task.dataset,
        "algorithm": task.algorithm,
        "run": task.run,
        "seed": task.seed,
        "M": problem.n_rules,
        "coverage": 100.0 * result.coverage / n if n else 0.0,
        "covered": result.covered,
        "conflicting_pairs": result.conflicting_pairs,
        "complexity": result.complexity,
        "errors": result.errors,
        "feasible": bool(result.feasible),
        "n_rules": result.n_rules,
        "status": result.status,
        "time_s": result.time_s,
        "generations": len(result.history),
        "n_rows": n,
        "features": ds.n_features,
        "classes": len(ds.classes),
        "trees": pool.n_trees,
    }
    if task.algorithm == "exact":
        info = result.info
        rec["optimal"] = bool(info.get("optimal", result.status == "optimal"))
        bound = info.get("bound")
        rec["bound"] = None if bound is None or not np.isfinite(bound) else 100.0 * float(bound) / n
    if task.keep_history:
        rec["history"] = [
            {"generation": h.generation, "min": h.min, "mean": h.mean, "max": h.max, "best": h.best}
            for h in result.history
        ]
    return rec


def scale_budgets(settings: dict[str, dict], factor: float) -> dict[str, dict]:
    """The paper's settings with both budgets multiplied by ``factor`` (rounded down; Bc >= 1)."""
    out = {}
    for name, s in settings.items():
        s = dict(s)
        s["complexity_budget"] = max(1, int(s["complexity_budget"] * factor))
        s["errors_budget"] = max(0, int(s["errors_budget"] * factor))
        out[name] = s
    return out


def make_tasks(
    datasets,
    algorithms,
    runs: int,
    settings: dict[str, dict],
    *,
    seed: int = 0,
    data_dir=None,
    encoding: str = "paper",
    pool_seed: int = 0,
    eps: float = 1.0,
    params: dict[str, dict] | None = None,
    run_ids=None,
    figure_algorithm: str | None = "qga",
    figure_run: int = 0,
) -> list[Task]:
    """Every (data set, algorithm, run) task; deterministic algorithms get one run (run 0)."""
    params = params or {}
    ids = list(range(runs)) if run_ids is None else sorted({int(k) for k in run_ids})
    tasks = []
    for d in datasets:
        if d not in settings:
            raise ValueError(f"the paper has no settings for data set {d!r}; known: {', '.join(settings)}")
        s = settings[d]
        for a in algorithms:
            ks = [0] if a in DETERMINISTIC else ids
            if a in DETERMINISTIC and run_ids is not None and 0 not in ids:
                ks = []
            for k in ks:
                tasks.append(Task(
                    dataset=d, algorithm=a, run=k, seed=run_seed(seed, d, k), depth=int(s["depth"]),
                    complexity_budget=int(s["complexity_budget"]), error_budget=int(s["errors_budget"]),
                    data_dir=None if data_dir is None else str(data_dir), encoding=encoding,
                    pool_seed=pool_seed, eps=eps, params=tuple(sorted(params.get(a, {}).items())),
                    keep_history=(a == figure_algorithm and k == figure_run),
                ))
    return tasks


# ------------------------------------------------------------------ execution
class Progress:
    """``bench [#####-----] 12/40 runs  iris/qga#3  1m02s`` on stderr."""

    def __init__(self, total: int, stream=None, width: int = 30, enabled: bool = True):
        self.total = total
        self.done = 0
        self.stream = stream or sys.stderr
        self.width = width
        self.enabled = enabled
        self.t0 = time.perf_counter()
        isatty = getattr(self.stream, "isatty", None)
        self.tty = bool(isatty and isatty())
        self._step = max(1, total // 20)  # without a terminal: a line every 5 %

    def update(self, last: dict | None = None) -> None:
        if last is not None:
            self.done += 1
        if not self.enabled:
            return
        if not self.tty:
            if last is not None and (self.done % self._step == 0 or self.done == self.total):
                el = int(time.perf_counter() - self.t0)
                self.stream.write(f"bench: {self.done}/{self.total} runs  {el // 60}m{el % 60:02d}s\n")
                self.stream.flush()
            return
        frac = self.done / self.total if self.total else 1.0
        filled = int(round(frac * self.width))
        bar = "#" * filled + "-" * (self.width - filled)
        what = f"  {last['dataset']}/{last['algorithm']}#{last['run']}" if last else ""
        el = int(time.perf_counter() - self.t0)
        self.stream.write(f"\rbench [{bar}] {self.done}/{self.total} runs  {el // 60}m{el % 60:02d}s{what}\x1b[K")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.tty:
            self.stream.write("\n")
            self.stream.flush()


def _connect(scheduler):
    """A ``distributed.Client`` for an address (or a Client / LocalCluster passed in)."""
    try:
        from distributed import Client
    except ImportError:
        raise ImportError(
            "--scheduler needs the optional Dask dependency: pip install 'explainer[dask]' "
            "(or pip install distributed)"
        ) from None
    if isinstance(scheduler, Client):
        return scheduler, False
    address = getattr(scheduler, "scheduler_address", scheduler)
    return Client(address), True


def execute(tasks: list[Task], *, jobs: int = 1, scheduler=None, progress: Progress | None = None) -> list[dict]:
    """Run the tasks (joblib on local cores, or Dask); results sorted by (data set, algorithm, run)."""
    progress = progress or Progress(len(tasks), enabled=False)
    progress.update()
    out: list[dict] = []
    if scheduler is not None:
        client, own = _connect(scheduler)
        try:
            from distributed import as_completed

            futures = client.map(run_task, tasks, pure=False)
            for fut in as_completed(futures):
                rec = fut.result()
                out.append(rec)
                progress.update(rec)
        finally:
            if own:
                client.close()
    elif jobs == 1 or len(tasks) <= 1:
        for t in tasks:
            rec = run_task(t)
            out.append(rec)
            progress.update(rec)
    else:
        from joblib import Parallel, delayed

        par = Parallel(n_jobs=jobs, return_as="generator_unordered")
        for rec in par(delayed(run_task)(t) for t in tasks):
            out.append(rec)
            progress.update(rec)
    progress.close()
    out.sort(key=lambda r: (r["dataset"], r["algorithm"], r["run"]))
    return out


# ------------------------------------------------------------------ tables
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
            p = paper.get((d, a), {})
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


# ------------------------------------------------------------------ provenance
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
    from . import __version__

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


# ------------------------------------------------------------------ figures
def fitness_figure(history: list[dict], n_rows: int | None = None, title: str = ""):
    """Figure 4: min / mean / max fitness (f*, in % of N when ``n_rows`` is given) per generation."""
    import plotly.graph_objects as go

    scale = 100.0 / n_rows if n_rows else 1.0
    gens = [h["generation"] for h in history]
    fig = go.Figure()
    for key, dash in (("max", "solid"), ("mean", "dash"), ("min", "dot")):
        fig.add_trace(go.Scatter(x=gens, y=[h[key] * scale for h in history], mode="lines+markers",
                                 name=key, line={"dash": dash}))
    fig.update_layout(title=title, xaxis_title="generation",
                      yaxis_title="fitness f* (% of N)" if n_rows else "fitness f*",
                      template="plotly_white", width=800, height=400)
    return fig


_PNG_OK: bool | None = None


def _write_png(fig, path) -> bool:
    """Write a PNG with kaleido when it can (it needs a Chrome browser); False otherwise."""
    global _PNG_OK
    if _PNG_OK is False:
        return False
    try:
        fig.write_image(str(path))
    except Exception:  # noqa: BLE001 - kaleido missing, no browser, ...: HTML only
        _PNG_OK = False
        return False
    _PNG_OK = True
    return True


def write_figures(records: list[dict], out_dir, png: bool = True) -> list[pathlib.Path]:
    """One HTML (and PNG when possible) per run that kept its history: figures/<data set>_<algorithm>.*"""
    from .data import PAPER_DATASETS

    fig_dir = pathlib.Path(out_dir) / "figures"
    written = []
    for r in records:
        hist = r.get("history")
        if not hist:
            continue
        fig_dir.mkdir(parents=True, exist_ok=True)
        title = (f"{PAPER_DATASETS.get(r['dataset'], {}).get('title', r['dataset'])}: "
                 f"{TABLE_LABELS.get(r['algorithm'], r['algorithm'])}, run {r['run']}")
        fig = fitness_figure(hist, r["n_rows"], title)
        stem = fig_dir / f"{r['dataset']}_{r['algorithm']}"
        fig.write_html(str(stem.with_suffix(".html")), include_plotlyjs="cdn", full_html=True)
        written.append(stem.with_suffix(".html"))
        if png and _write_png(fig, stem.with_suffix(".png")):
            written.append(stem.with_suffix(".png"))
    return written


# ------------------------------------------------------------------ synthetic scale test
def synthetic_problem(n_rows: int, n_rules: int, *, n_classes: int = 3, n_features: int = 12,
                      seed: int = 0, complexity_budget: int | None = None, error_budget: int | None = None):
    """A SelectionProblem that looks like a rule pool, without any tree.

    Rows carry a latent score; their class is its tercile (3 % label noise).
    Each of ``n_features`` orderings of the rows sorts them by the score plus
    noise of a feature-specific strength, and a rule covers an interval of one
    ordering (a threshold rule): contiguous in that ordering, scattered in the
    others.  Supports are log-uniform in [0.05 %, 5 %] of N, lengths 1..8,
    the rule's class the majority of its rows.  The default budgets (about 25
    rules, 5 % errors) bind.
    """
    from .problem import SelectionProblem

    rng = np.random.default_rng(seed)
    score = rng.random(n_rows)
    y = np.minimum((score * n_classes).astype(np.int64), n_classes - 1)
    noisy = rng.random(n_rows) < 0.03
    y[noisy] = rng.integers(0, n_classes, int(noisy.sum()))
    strengths = np.linspace(0.0, 1.0, n_features)
    orders = np.empty((n_features, n_rows), dtype=np.int32)
    for f, s in enumerate(strengths):
        orders[f] = np.argsort(score + s * rng.standard_normal(n_rows), kind="stable")
    lo, hi = max(1, int(0.0005 * n_rows)), max(2, int(0.05 * n_rows))
    support = np.exp(rng.uniform(np.log(lo), np.log(hi), n_rules)).astype(np.int64).clip(1, n_rows)
    start = (rng.random(n_rules) * (n_rows - support + 1)).astype(np.int64)
    feat = rng.integers(0, n_features, n_rules)
    indptr = np.concatenate([[0], np.cumsum(support)])
    indices = np.empty(int(indptr[-1]), dtype=np.int32)
    for i in range(n_rules):
        indices[indptr[i]:indptr[i + 1]] = orders[feat[i], start[i]:start[i] + support[i]]
    owner = np.repeat(np.arange(n_rules), support)
    counts = np.zeros((n_rules, n_classes), dtype=np.int64)
    np.add.at(counts, (owner, y[indices]), 1)
    rule_class = counts.argmax(axis=1)
    lengths = rng.integers(1, 9, n_rules)
    import scipy.sparse as sp

    cov = sp.csc_matrix((np.ones(indices.size, dtype=np.float32), indices, indptr), shape=(n_rows, n_rules))
    bc = complexity_budget if complexity_budget is not None else 110
    be = error_budget if error_budget is not None else max(1, int(0.05 * n_rows))
    return SelectionProblem(cov, rule_class, y, lengths, bc, be, n_classes=n_classes)


def parse_sizes(text: str) -> list[tuple[int, int]]:
    sizes = []
    for part in text.split(","):
        part = part.strip().lower().replace("_", "")
        if not part:
            continue
        try:
            n, m = part.split("x")
            sizes.append((int(float(n)), int(float(m))))
        except ValueError:
            raise ValueError(f"size {part!r} is not N x M, e.g. 10000x2000") from None
    if not sizes:
        raise ValueError("no sizes given")
    return sizes


def _rss_mib() -> float:
    import resource

    kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kib / 1024.0 if sys.platform != "darwin" else kib / 2**20


#: solver parameters of the synthetic scale test (``--param`` overrides them)
SYNTHETIC_PARAMS: dict[str, dict] = {"qga": {"time_limit": 50.0}}


def synthetic_child(spec: dict) -> dict:
    """Body of one scale measurement (run in a fresh process): build, solve, time, peak RSS."""
    from .solvers import solve

    base = _rss_mib()
    t0 = time.perf_counter()
    problem = synthetic_problem(spec["n_rows"], spec["n_rules"], seed=spec.get("seed", 0))
    build_s = time.perf_counter() - t0
    after_build = _rss_mib()
    result = solve(problem, spec["algorithm"], random_state=spec.get("seed", 0), **spec.get("params", {}))
    return {
        **spec,
        "nnz": int(problem.indices.size),
        "build_s": build_s,
        "solve_s": result.time_s,
        "coverage": 100.0 * result.coverage / problem.n_rows,
        "complexity": result.complexity,
        "complexity_budget": problem.complexity_budget,
        "errors": result.errors,
        "error_budget": problem.error_budget,
        "generations": len(result.history),
        "status": result.status,
        "rss_start_mib": base,
        "rss_after_build_mib": after_build,
        "peak_rss_mib": _rss_mib(),
    }


def run_synthetic_size(spec: dict, timeout: float | None = None) -> dict:
    """Measure one (size, algorithm) in a subprocess, so that its peak memory is its own."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(_PROJECT_ROOT), env.get("PYTHONPATH")) if p)
    code = ("import json, sys; from explainer.bench import synthetic_child; "
            "print(json.dumps(synthetic_child(json.loads(sys.argv[1]))))")
    t0 = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-c", code, json.dumps(spec)], capture_output=True, text=True,
                              env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {**spec, "error": f"timed out after {timeout:.0f}s", "wall_s": time.perf_counter() - t0}
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
        return {**spec, "error": tail, "wall_s": wall}
    return {**json.loads(proc.stdout.strip().splitlines()[-1]), "wall_s": wall}


def scale_markdown(results: list[dict], info: dict) -> str:
    out = ["# Scale benchmark (synthetic selection problems)", "",
           "Each row is one run in a fresh Python process: build the synthetic problem "
           "(`explainer.bench.synthetic_problem`), then solve it once.  *Solve* is the solver's wall time, "
           "*peak RSS* the process's maximum resident memory (interpreter and libraries included; "
           "*RSS at start* is that baseline).  Target: N = 100,000, M = 20,000 within 60 s and under 2 GB.  "
           "Solver parameters other than the defaults are listed under *params* (status *stopped*: "
           "the time limit ended the run with the best selection so far).", "",
           _provenance_md(info),
           "| N | M | nnz | algorithm | build | solve | coverage % | complexity | errors | generations "
           "| peak RSS (MiB) | RSS at start (MiB) | status |",
           "|" + "|".join(["---"] * 13) + "|"]
    for r in results:
        if "error" in r:
            out.append(f"| {r['n_rows']:,} | {r['n_rules']:,} |  | {r['algorithm']} |  |  |  |  |  |  |  |  "
                       f"| failed: {r['error']} |")
            continue
        out.append(
            f"| {r['n_rows']:,} | {r['n_rules']:,} | {r['nnz']:,} | {r['algorithm']} | {r['build_s']:.1f}s "
            f"| {r['solve_s']:.1f}s | {r['coverage']:.1f} | {r['complexity']} / {r['complexity_budget']} "
            f"| {r['errors']} / {r['error_budget']} | {r['generations']} | {r['peak_rss_mib']:.0f} "
            f"| {r['rss_start_mib']:.0f} | {r['status']} |")
    params = {r["algorithm"]: r.get("params") for r in results if r.get("params")}
    if params:
        out += ["", "params: " + "; ".join(f"{a}: " + ", ".join(f"{k}={v}" for k, v in p.items())
                                          for a, p in sorted(params.items()))]
    out += _growth_md(results)
    return "\n".join(out) + "\n"


def _growth_md(results: list[dict]) -> list[str]:
    """How solve time and peak memory grow from one size to the next, per algorithm."""
    rows = []
    for alg in dict.fromkeys(r["algorithm"] for r in results):
        ok = [r for r in results if r["algorithm"] == alg and "error" not in r]
        for a, b in zip(ok, ok[1:], strict=False):
            rows.append(
                f"| {alg} | {a['n_rows']:,} x {a['n_rules']:,} -> {b['n_rows']:,} x {b['n_rules']:,} "
                f"| {b['n_rows'] / a['n_rows']:.0f}x | {b['n_rules'] / a['n_rules']:.0f}x "
                f"| {b['nnz'] / max(a['nnz'], 1):.0f}x | {b['solve_s'] / max(a['solve_s'], 1e-9):.1f}x"
                f"{' (time limit)' if b.get('status') == 'stopped' else ''} "
                f"| {b['peak_rss_mib'] - b['rss_start_mib']:.0f} MiB |")
    if not rows:
        return []
    return ["", "## Growth", "",
            "| algorithm | sizes | N | M | nnz | solve time | memory above start (larger size) |",
            "|---|---|---|---|---|---|---|", *rows]


# ------------------------------------------------------------------ command line
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
    g.add_argument("--data-dir", help="directory of the paper's data sets (default: ../shared/datasets)")
    g.add_argument("--paper-csv", help="the paper's results table (default: ../shared/paper/table3_results.csv)")
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

    from .solvers import ALGORITHMS

    settings = paper_settings(args.paper_csv)
    paper_rows = paper_table(args.paper_csv)
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
    if _PNG_OK is False:
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
    from .solvers import get_solver_class

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


__all__ = [
    "DEFAULT_ALGORITHMS", "DETERMINISTIC", "ENCODINGS", "PAPER_ALGORITHMS", "PAPER_ENCODING", "RUN_COLUMNS",
    "TABLE_COLUMNS", "Task", "add_arguments", "clear_cache", "encoding_kwargs", "execute", "machine_info",
    "main", "make_tasks", "markdown_table", "paper_settings", "paper_table", "parse_sizes", "run_seed",
    "run_task", "summarise", "synthetic_problem", "write_csv", "write_figures",
]
