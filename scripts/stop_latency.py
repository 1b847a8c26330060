"""How soon does Stop end a run in the dashboard's worker process, and does the run keep its selection?

Generates a census-like table (:func:`explainer.bench.census.census_like`: numeric columns with
skew and ties, categorical columns of 2 to 40 values, missing values, a 24 % minority class),
builds its rule pool, then starts the
same run as the dashboard's Run (a :class:`~explainer.app.jobs.RunJob` in a worker process)
several times and presses Stop at a random moment of each.  For every try it prints when Stop
was pressed, how long the run took to end after it, what the run returned, and the CPU time of that
selection's report (which the worker computes once the run ends), computed again in this process.

    python scripts/stop_latency.py                           # 32,561 rows, QGA, Bc 48, Be 2000, 10 tries
    python scripts/stop_latency.py --rows 8000 --algorithm exact --tries 5
    python scripts/stop_latency.py --rows 130000 --errors 13882 --latest 6 --pool-file /tmp/census130k.pkl

``--pool-file`` keeps the table and its pool in a file (built once, then read: the pool of 130,000
rows takes minutes to build on a loaded machine).  The load average is printed at the start and at
the end, since every figure depends on it.  The exit status is 1 when a try took more than ``--limit``
seconds (default 1), did not end within ``--wait`` seconds, or lost its selection.
"""

from __future__ import annotations

import argparse
import os
import pickle
import random
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

from explainer.app.jobs import RunJob, start_fork_server
from explainer.bench.census import census_like
from explainer.data import load_dataset
from explainer.report import evaluate_rules
from explainer.rules.pool import build_pool
from explainer.selection.settings import RunSettings


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=32561)
    parser.add_argument("--algorithm", default="qga")
    parser.add_argument("--complexity", type=int, default=48)
    parser.add_argument("--errors", type=int, default=2000)
    parser.add_argument("--depth", type=int, default=6)
    parser.add_argument("--tries", type=int, default=10)
    parser.add_argument("--latest", type=float, default=10.0, help="press Stop at most this many s after the start")
    parser.add_argument("--limit", type=float, default=1.0, help="seconds a Stop may take")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--wait", type=float, default=120.0, help="seconds to wait for a stopped run to end")
    parser.add_argument("--pool-file", type=Path, default=None, help="read the table and pool here (built once)")
    args = parser.parse_args(argv)

    start_fork_server()
    print("load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    t0 = time.perf_counter()
    dataset, pool = _table_and_pool(args)
    print(f"{dataset.n_rows} rows, {dataset.n_features} features, {pool.n_rules} rules in the pool "
          f"({time.perf_counter() - t0:.1f} s)")
    counts = np.bincount(pool.y)
    print(f"majority class: {100 * counts.max() / counts.sum():.2f} % of the rows")
    rng = random.Random(args.seed)
    worst, failures = 0.0, 0
    for k in range(args.tries):
        job = RunJob(pool, dataset, RunSettings(complexity_budget=args.complexity, error_budget=args.errors,
                                                algorithm=args.algorithm, seed=k,
                                                time_limit=600 if args.algorithm == "exact" else None))
        job.start()
        wait = rng.uniform(0.2, args.latest)
        ended_first = job.wait_for_end(wait)
        if ended_first:
            print(f"try {k + 1}: the run ended on its own before Stop ({job.elapsed:.1f} s); not counted")
            continue
        pressed = time.perf_counter()
        job.stop()
        job.join(args.wait)
        if job.finished_at is None:
            print(f"try {k + 1}: Stop at {wait:.1f} s, not ended {args.wait:g} s later")
            worst, failures = max(worst, args.wait), failures + 1
            continue
        took = job.finished_at - pressed
        explanation = job.explanations[0]
        if explanation is None and job.errors[0] is None:
            # no answer and no error: stopped before the run began (the worker was still taking the request
            # in, seconds at 130,000 rows), so there was nothing to keep
            print(f"try {k + 1}: Stop at {wait:.1f} s, before the run began; ended {took:.2f} s later")
            worst = max(worst, took)
            failures += took > args.limit
            continue
        kept = explanation is not None and explanation.result.feasible
        what = (f"{explanation.result.status}, {explanation.result.n_rules} rules, "
                f"{100 * explanation.result.coverage_score:.2f} %, {_accuracy(explanation)}"
                if explanation is not None else job.errors[0])
        print(f"try {k + 1}: Stop at {wait:.1f} s, ended {took:.2f} s later: {what}")
        if explanation is not None:
            print(f"  its report, computed again here: {_report_seconds(explanation, dataset):.3f} CPU s "
                  "(the worker computes it after the run ends)")
        worst = max(worst, took)
        failures += (not kept) or took > args.limit
    print(f"worst: {worst:.2f} s after Stop; {failures} of {args.tries} tries over {args.limit:g} s or without a selection")
    print("load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    return 1 if failures else 0


def _report_seconds(explanation, dataset) -> float:
    """CPU seconds (best of three) of the report of the kept selection on the table, as the worker makes it."""
    rules = explanation.report.rules
    best = float("inf")
    for _ in range(3):
        t = time.process_time()
        evaluate_rules(rules, dataset.X, dataset.y, complexity_budget=explanation.report.complexity_budget,
                       error_budget=explanation.report.error_budget, feature_specs=dataset.feature_specs)
        best = min(best, time.process_time() - t)
    return best


def _accuracy(explanation) -> str:
    """The explanation's accuracy and balanced accuracy, and how many of its rules predict each class."""
    report = explanation.report.to_dict()
    per_class = Counter(str(rule.label) for rule in explanation.report.rules)
    return (f"accuracy {100 * report['accuracy']:.2f} %, balanced {100 * report['balanced_accuracy']:.2f} %, rules per "
            f"class {dict(sorted(per_class.items()))}")


def _table_and_pool(args):
    """The census-like table and its pool, from ``--pool-file`` when it holds the same rows, seed and depth."""
    key = (args.rows, args.seed, args.depth)
    if args.pool_file is not None and args.pool_file.exists():
        with args.pool_file.open("rb") as f:
            saved = pickle.load(f)
        if saved[0] == key:
            return saved[1], saved[2]
    dataset = load_dataset(census_like(args.rows, args.seed), "income", name="census-like")
    pool = build_pool(dataset.X, dataset.y, args.depth, random_state=0, classes=dataset.classes,
                      feature_specs=dataset.feature_specs)
    if args.pool_file is not None:
        with args.pool_file.open("wb") as f:
            pickle.dump((key, dataset, pool), f)
    return dataset, pool


if __name__ == "__main__":
    sys.exit(main())
