"""Held-out accuracy of the coverage objective f* against the accuracy objective at the same budgets.

Stratified k-fold cross-validation (seed 0) on the paper's quick data sets.  Per fold: a pool of
trees of depth < ``--depth`` on the training rows, the default policy's budgets (Bc0, Be0) for that
pool (:func:`explainer.pipeline.policy.resolve_defaults`, every rule allowed), then for each
complexity budget ``scale * Bc0`` (error budget Be0) one selection per objective by QGA, scored on
the held-out fold.  Means over the folds: held-out and training accuracy (%), conditions used.

    python scripts/objective_bench.py                                     # -> docs/benchmarks/objective.md
    python scripts/objective_bench.py --datasets iris,wine --scales 1 --folds 3 --out -
"""

from __future__ import annotations

import argparse
import pathlib
import platform
import sys
import time

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from explainer.data import load_paper_dataset  # noqa: E402
from explainer.pipeline.explain import explain_pool  # noqa: E402
from explainer.pipeline.policy import resolve_defaults  # noqa: E402
from explainer.rules.pool import build_pool  # noqa: E402

DATASETS = ("iris", "wine", "zoo", "hayes_roth", "tic_tac_toe")
OBJECTIVES = ("coverage", "accuracy")


def fold_runs(name: str, scales, folds: int, depth: int, qga: dict) -> list[dict]:
    ds = load_paper_dataset(name)
    X, y = ds.X, np.asarray(ds.y)
    rows = []
    split = StratifiedKFold(n_splits=folds, shuffle=True, random_state=0)
    for fold, (tr, te) in enumerate(split.split(np.zeros(len(y)), y.astype(str))):
        X_tr, X_te = X.iloc[tr].reset_index(drop=True), X.iloc[te].reset_index(drop=True)
        pool = build_pool(X_tr, y[tr], depth, random_state=0, classes=ds.classes, feature_specs=ds.feature_specs)
        bc0, be0, _ = resolve_defaults(pool)
        for scale in scales:
            bc = max(1, int(round(scale * bc0)))
            for objective in OBJECTIVES:
                t0 = time.process_time()
                exp = explain_pool(pool, X_tr, y[tr], complexity_budget=bc, error_budget=be0, objective=objective,
                                   random_state=0, algorithm_params=qga, X_test=X_te, y_test=y[te])
                rows.append({
                    "dataset": name, "fold": fold, "scale": scale, "Bc": bc, "Be": be0, "objective": objective,
                    "test_acc": 100 * exp.report.holdout.accuracy, "train_acc": 100 * exp.report.accuracy,
                    "conditions": exp.result.complexity, "rules": exp.result.n_rules,
                    "cpu_s": time.process_time() - t0,
                })
    return rows


def markdown(df: pd.DataFrame, command: str, folds: int, depth: int) -> str:
    mean = df.groupby(["dataset", "scale", "objective"], sort=False).mean(numeric_only=True).reset_index()
    lines = [
        "# Coverage objective f* against the accuracy objective",
        "",
        f"Stratified {folds}-fold CV, seed 0, pool of trees of depth < {depth} on the training rows, QGA (seed 0); "
        f"means over the folds. Command: `{command}`",
        f"Machine: {platform.machine()}, Python {platform.python_version()}, {time.strftime('%Y-%m-%d')} "
        "(2 cores shared with other work: CPU seconds, not wall-clock).",
        "",
        "Bc = scale x the default policy's complexity budget Bc0 of the fold's pool, Be = its error budget Be0.",
        "",
        "| data set | scale | mean Bc | f* test acc % | accuracy test acc % | f* train acc % | accuracy train acc % "
        "| f* conditions | accuracy conditions | f* cpu s | accuracy cpu s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for (ds, scale), grp in mean.groupby(["dataset", "scale"], sort=False):
        c = grp[grp.objective == "coverage"].iloc[0]
        a = grp[grp.objective == "accuracy"].iloc[0]
        lines.append(
            f"| {ds} | {scale:g} | {c.Bc:.1f} | {c.test_acc:.1f} | {a.test_acc:.1f} | {c.train_acc:.1f} | "
            f"{a.train_acc:.1f} | {c.conditions:.1f} | {a.conditions:.1f} | {c.cpu_s:.2f} | {a.cpu_s:.2f} |"
        )
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--scales", default="1,2", help="complexity budgets as multiples of the default Bc0")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--depth", type=int, default=4)
    ap.add_argument("--population", type=int, default=30, help="QGA population (small: the machine is shared)")
    ap.add_argument("--generations", type=int, default=20)
    ap.add_argument("--out", default=str(ROOT / "docs" / "benchmarks" / "objective.md"), help="'-': print only")
    args = ap.parse_args(argv)
    scales = [float(s) for s in args.scales.split(",")]
    qga = {"n_population": args.population, "n_generations": args.generations}
    rows = []
    for name in args.datasets.split(","):
        rows += fold_runs(name, scales, args.folds, args.depth, qga)
        print(f"{name}: done", file=sys.stderr)
    command = "python scripts/objective_bench.py " + " ".join(argv if argv is not None else sys.argv[1:])
    text = markdown(pd.DataFrame(rows), command.strip(), args.folds, args.depth)
    print(text)
    if args.out != "-":
        pathlib.Path(args.out).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
