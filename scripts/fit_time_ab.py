"""CPU time of the default fit at an earlier commit against the working tree, on the corpus's tables.

    python scripts/fit_time_ab.py --base 5a12a8e [--half report] [--max-rows 5000]

The machine this project is measured on is shared, and the CPU seconds of one fit drift by a third from
one hour to the next; two benchmark runs an hour apart cannot tell a 15 % change.  This script runs the
two versions side by side instead: a worker process for each (the base commit checked out in a
temporary git worktree, and this tree), each fitting ``RuleSetExplainer(random_state=0)`` on a whole
table when asked, in the order base, new, new, base for every table, so that a drift of the machine's
speed falls on both; each version's time is the smaller of its two.  It also says whether both versions
gave the same rules.  The tables are those of docs/benchmarks/corpus.csv (one half, up to ``--max-rows``
rows); Stat2Data/Hawks without its ``CaptureTime`` column, which commits before 00aa33a refuse.

Prints one Markdown row per table, then the medians.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent

WORKER = r"""
import sys, time, warnings, hashlib
import numpy as np
sys.path.insert(0, sys.argv[1])
import corpus
from explainer.estimator import RuleSetExplainer
warnings.simplefilter("ignore")
RuleSetExplainer(random_state=0).fit(np.random.default_rng(0).random((60, 2)), np.repeat([0, 1], 30))
print("ready", flush=True)
for line in sys.stdin:
    key = line.strip()
    X, y = corpus.load(key)
    if key == "Stat2Data/Hawks":
        X = X.drop(columns=["CaptureTime"])
    t = time.process_time()
    model = RuleSetExplainer(random_state=0).fit(X, y)
    cpu = time.process_time() - t
    print(f"{cpu:.4f} {hashlib.sha256(model.rules_.to_text().encode()).hexdigest()[:12]}", flush=True)
"""


class Worker:
    def __init__(self, tree: pathlib.Path):
        env = dict(os.environ, PYTHONPATH=str(tree))  # this tree's explainer before the installed one
        self.proc = subprocess.Popen([sys.executable, "-c", WORKER, str(HERE)], cwd=tree, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        if self.proc.stdout.readline().strip() != "ready":
            raise RuntimeError(f"the worker in {tree} did not start")

    def fit(self, key: str) -> tuple[float, str]:
        self.proc.stdin.write(key + "\n")
        self.proc.stdin.flush()
        cpu, digest = self.proc.stdout.readline().split()
        return float(cpu), digest

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the earlier commit")
    parser.add_argument("--half", default="report", choices=("tuning", "report", "all"))
    parser.add_argument("--max-rows", type=int, default=5000)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(HERE))
    import corpus  # noqa: PLC0415 - beside this script

    table = corpus.read_corpus(args.half)
    keys = [k for k, rows in zip(table["key"], table["rows"], strict=True) if rows <= args.max_rows]
    with tempfile.TemporaryDirectory() as tmp:
        base_tree = pathlib.Path(tmp) / "base"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(base_tree), args.base],
                       check=True)
        try:
            base, new = Worker(base_tree), Worker(ROOT)
            print(f"| table | base {args.base} CPU s | working tree CPU s | same rules |\n|---|---|---|---|")
            times = []
            for key in keys:
                b1, db = base.fit(key)
                n1, dn = new.fit(key)
                n2, _ = new.fit(key)
                b2, _ = base.fit(key)
                times.append((min(b1, b2), min(n1, n2)))
                print(f"| {key} | {times[-1][0]:.2f} | {times[-1][1]:.2f} | {'yes' if db == dn else 'no'} |", flush=True)
            base.close()
            new.close()
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base_tree)], check=False)
    print(f"\nmedian over {len(times)} tables: base {statistics.median(t[0] for t in times):.2f} CPU s, "
          f"working tree {statistics.median(t[1] for t in times):.2f} CPU s")


if __name__ == "__main__":
    main()
