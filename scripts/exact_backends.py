"""Compare the exact solver's engines (HiGHS, CP-SAT) cold on the paper's data sets.

Prints the markdown table of docs/method.md#the-algorithms; CP-SAT needs ``pip install ortools``.
Run from the project root: ``python scripts/exact_backends.py``.
"""

import time

from explainer.bench import encoding_kwargs, paper_settings
from explainer.data import load_paper_dataset
from explainer.rules.pool import build_pool
from explainer.selection.problem import SelectionProblem
from explainer.selection.solvers import solve


def main() -> None:
    print("| data set | M | HiGHS | CP-SAT |")
    print("|---|---|---|---|")
    for name, st in paper_settings().items():
        ds = load_paper_dataset(name, **encoding_kwargs(name, "paper"))
        pool = build_pool(ds.X, ds.y, int(st["depth"]), random_state=0, classes=ds.classes)
        problem = SelectionProblem.from_pool(pool, int(st["complexity_budget"]), int(st["errors_budget"]), eps=1.0)
        cells = []
        for backend in ("highs", "cpsat"):
            t = time.perf_counter()
            r = solve(problem, "exact", time_limit=60, warm_start=None, backend=backend, workers=2)
            cells.append(f"{100 * r.coverage_score:.2f}%, {r.status}, {time.perf_counter() - t:.1f} s")
        print(f"| {name} | {pool.n_rules} | {cells[0]} | {cells[1]} |", flush=True)


if __name__ == "__main__":
    main()
