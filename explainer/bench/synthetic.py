"""The synthetic scale test: selection problems of growing size, each measured in a fresh process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np

from explainer.bench.paper import _PROJECT_ROOT
from explainer.bench.writers import _provenance_md
from explainer.selection.problem import SelectionProblem
from explainer.selection.solvers import solve


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
           "*RSS at start* is that baseline).  Target: N = 100,000, M = 20,000 within 30 s and under 1.5 GB, "
           "QGA ended by its own stopping rules (`--param qga.time_limit=null`).  "
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
    params = {r["algorithm"]: r["params"] for r in results if r.get("params")}
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
