"""Ablation of QGA: each of our additions to the paper's algorithm switched off in turn.

For each data set, at the paper's budgets and at half of them, runs the paper's QGA as written
(``qga_paper``), our ``qga`` as it comes, and ``qga`` with one addition off (or, for the 1-for-2
moves that are off by default, on), ``--runs``
seeded runs each, next to the exact optimum. Writes ``docs/benchmarks/ablation.md`` and ``.csv``:
mean coverage, gap to the optimum, median time, and the share of improvements made by each kind
of move (what QGA reports in ``result.info["improvements"]``).

Run from the project root::

    python scripts/ablation.py --runs 5 --jobs 2
"""

from __future__ import annotations

import argparse
import dataclasses
import pathlib
import statistics
import sys
import time

from explainer.bench import (
    execute,
    make_tasks,
    paper_settings,
    provenance,
    scale_budgets,
    write_csv,
)
from explainer.bench.execution import Progress

#: label -> (registry name, parameters): the paper's algorithm, ours, ours less one addition
VARIANTS: dict[str, tuple[str, dict]] = {
    "qga_paper": ("qga_paper", {}),
    "qga": ("qga", {}),
    "- RF+HC seeds": ("qga", {"rfhc_seeds": False}),
    "- Algorithm 6": ("qga", {"qubo_population": False}),
    "- Algorithm 7": ("qga", {"kernel_mutations": False}),
    "- structured moves": ("qga", {"structured_moves": False}),
    "- lazy adds": ("qga", {"lazy_adds": False}),
    "- lazy swaps": ("qga", {"lazy_swaps": False}),
    "- weighted sub-spaces": ("qga", {"weighted_subspaces": False}),
    "- population merge": ("qga", {"merge": False}),
    "- stall rule": ("qga", {"stall": None}),
    "+ 1-for-2 moves": ("qga", {"one_for_two": True}),
}

DATASETS = ("wine", "breast_cancer_wisconsin", "mammographic_masses", "blood_transfusion", "tic_tac_toe")
MOVES = ("add", "lazy_add", "drop", "swap", "lazy_swap", "one_for_two", "kernel", "merge")
COLUMNS = ["dataset", "budgets", "variant", "runs", "coverage_mean", "coverage_std", "optimum", "gap_pp",
           "time_median_s", "time_mean_s", *[f"share_{m}" for m in MOVES]]


def tasks_for(datasets, settings, runs, seed, scale_label):
    tasks = []
    for label, (algorithm, params) in VARIANTS.items():
        for t in make_tasks(datasets, [algorithm], runs, settings, seed=seed, params={algorithm: params},
                            figure_algorithm=None):
            tasks.append(dataclasses.replace(t, label=f"{scale_label}|{label}"))
    for t in make_tasks(datasets, ["exact"], 1, settings, params={"exact": {"time_limit": 120.0}},
                        figure_algorithm=None):
        tasks.append(dataclasses.replace(t, label=f"{scale_label}|exact"))
    return tasks


def summarise(records):
    groups: dict[tuple, list[dict]] = {}
    for r in records:
        scale, variant = r["algorithm"].split("|", 1)
        groups.setdefault((r["dataset"], scale, variant), []).append(r)
    rows = []
    for (dataset, scale, variant), g in groups.items():
        if variant == "exact":
            continue
        opt = groups.get((dataset, scale, "exact"), [{}])[0].get("coverage")
        cov = [r["coverage"] for r in g]
        times = [r["time_s"] for r in g]
        moves = {m: sum(r.get("improvements", {}).get(m, 0) for r in g) for m in MOVES}
        total = sum(moves.values())
        mean = statistics.fmean(cov)
        rows.append({
            "dataset": dataset, "budgets": scale, "variant": variant, "runs": len(g),
            "coverage_mean": mean, "coverage_std": statistics.pstdev(cov),
            "optimum": opt, "gap_pp": None if opt is None else opt - mean,
            "time_median_s": statistics.median(times), "time_mean_s": statistics.fmean(times),
            **{f"share_{m}": (moves[m] / total if total else None) for m in MOVES},
        })
    order = {v: i for i, v in enumerate(VARIANTS)}
    rows.sort(key=lambda r: (r["dataset"], r["budgets"] != "paper", order[r["variant"]]))
    return rows


def markdown(rows) -> str:
    head = ("| data set | budgets | variant | coverage % | gap (pp) | time (median) | improvements: add / lazy add / drop / "
            "swap / lazy swap / 1-for-2 / kernel / merge |")
    lines = [head, "|---|---|---|---|---|---|---|"]
    for r in rows:
        shares = " / ".join("-" if r[f"share_{m}"] is None else f"{100 * r[f'share_{m}']:.0f}%" for m in MOVES)
        gap = "" if r["gap_pp"] is None else f"{r['gap_pp']:.2f}"
        lines.append(f"| {r['dataset']} | {r['budgets']} | {r['variant']} | {r['coverage_mean']:.2f} "
                     f"(±{r['coverage_std']:.2f}) | {gap} | {r['time_median_s']:.2f} s | {shares} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--datasets", default=",".join(DATASETS))
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--out", default="docs/benchmarks")
    args = p.parse_args(argv)
    datasets = [d for d in args.datasets.split(",") if d]
    settings = paper_settings()
    tasks = tasks_for(datasets, settings, args.runs, args.seed, "paper")
    tasks += tasks_for(datasets, scale_budgets(settings, 0.5), args.runs, args.seed, "half")
    t0 = time.perf_counter()
    records = execute(tasks, jobs=args.jobs, progress=Progress(len(tasks)))
    wall = time.perf_counter() - t0
    rows = summarise(records)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    write_csv(rows, out / "ablation.csv", COLUMNS)
    info = provenance("python scripts/ablation.py " + " ".join(argv if argv is not None else sys.argv[1:]),
                      {"runs": args.runs, "wall time": f"{wall:.0f}s"})
    text = ["# QGA ablation", "",
            "Each row: one variant, mean coverage over the runs (f*/N, %), its gap to the exact optimum on "
            "the same pool and budgets, the median solve time, and which kind of move made the "
            "improvements (share of all improving steps: the moves inside the super-mutations, and the "
            "population merges that raised the best).  `qga_paper` is "
            "the paper's Algorithms 5-8 as written; `qga` is ours as it comes; `- X` is `qga` "
            "with addition X switched off, `+ X` with X (off by default) switched on.  *half* = both of the paper's budgets halved (rounded down).",
            "", *(f"- {k}: {v}" for k, v in info.items() if v is not None), "", markdown(rows)]
    (out / "ablation.md").write_text("\n".join(text), encoding="utf-8")
    print(markdown(rows), end="")
    print(f"wrote {out / 'ablation.md'} in {wall:.0f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
