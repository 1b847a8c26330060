"""One benchmark run: a self-contained task, the pool cache of a worker process, the run's numbers."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from explainer.bench.paper import DETERMINISTIC, encoding_kwargs, run_seed
from explainer.data import load_paper_dataset
from explainer.rules.pool import build_pool
from explainer.selection.problem import SelectionProblem
from explainer.selection.solvers import solve


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
    label: str | None = None  # the name in the tables when one algorithm runs with several settings

    @property
    def name(self) -> str:
        return self.label or self.algorithm


@lru_cache(maxsize=16)
def _pool(dataset: str, data_dir: str | None, encoding: str, depth: int, pool_seed: int):

    ds = load_paper_dataset(dataset, data_dir, **encoding_kwargs(dataset, encoding))
    pool = build_pool(ds.X, ds.y, depth, random_state=pool_seed, classes=ds.classes, feature_specs=ds.feature_specs,
                      phrase_length=False)  # the paper counts conditions
    return ds, pool


def clear_cache() -> None:
    """Forget the pools built in this process."""
    _pool.cache_clear()


def task_problem(task: Task):
    """(data set, pool, selection problem) of a task; the pool is built once per process."""
    ds, pool = _pool(task.dataset, task.data_dir, task.encoding, task.depth, task.pool_seed)
    return ds, pool, SelectionProblem.from_pool(pool, task.complexity_budget, task.error_budget, eps=task.eps)


def run_task(task: Task) -> dict:
    """Run one task; a plain dict of its numbers (and the fitness history when asked)."""

    ds, pool, problem = task_problem(task)
    result = solve(problem, task.algorithm, random_state=task.seed, **dict(task.params))
    n = problem.n_rows
    rec = {
        "dataset": task.dataset,
        "algorithm": task.name,
        "solver": task.algorithm,
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
    for key in ("children", "merge_calls", "merge_time_s"):  # where QGA's time went (empty for the others)
        if key in result.info:
            rec[key] = result.info[key]
    if isinstance(result.info.get("improvements"), dict):
        # which kind of move made each improvement (QGA reports it; the ablation table shows shares)
        rec["improvements"] = {k: int(v) for k, v in result.info["improvements"].items()}
    if task.keep_history:
        rec["history"] = [h.to_dict() for h in result.history]
    return rec


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
