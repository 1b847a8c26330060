"""CPU time of the default fit, ``RuleSetExplainer(random_state=0).fit(X, y)``, and what the default chose.

    python scripts/default_fit_time.py [NAME ...]          (default: the bundled samples and the paper's data sets)
    python scripts/default_fit_time.py --census 32561      (a census-like table of that many rows)

One line per table, a Markdown row: rows, CPU seconds of ``fit`` (``time.process_time``: the machine's
load does not count), conditions and training accuracy of the explanation, and the chosen candidate's
form, objective and mean held-out (validation) accuracy.  One small fit runs first, so compiling is not
counted.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from explainer.bench.census import census_like
from explainer.data import PAPER_DATASETS, load_dataset, load_paper_dataset
from explainer.data.sources import sample_sources
from explainer.estimator import RuleSetExplainer


def _row(name: str, X, y) -> str:
    t = time.process_time()
    model = RuleSetExplainer(random_state=0).fit(X, y)
    cpu = time.process_time() - t
    chosen = next((p for p in model.accuracy_frontier_ if p["chosen"]), {})
    return (f"| {name} | {len(y)} | {cpu:.2f} | {model.report_.complexity} | {100 * model.report_.accuracy:.2f} | "
            f"{chosen.get('form')} | {chosen.get('objective')} | {100 * chosen.get('accuracy', 0.0):.2f} |")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--census", type=int, help="rows of a census-like table to fit instead")
    args = parser.parse_args(argv)
    RuleSetExplainer(random_state=0).fit(np.random.default_rng(0).random((60, 2)), np.repeat([0, 1], 30))
    print("| data set | rows | fit CPU s | conditions | training accuracy % | form | objective | validation accuracy % |")
    print("|---|---|---|---|---|---|---|---|")
    if args.census:
        frame = census_like(args.census)
        y = frame.pop(frame.columns[-1])
        print(_row(f"census-like {args.census}", frame, y), flush=True)
        return
    names = args.names or [str(s.path) for s in sample_sources()] + list(PAPER_DATASETS)
    for name in names:
        ds = load_paper_dataset(name) if name in PAPER_DATASETS else load_dataset(name)
        print(_row(ds.name, ds.X, ds.y), flush=True)


if __name__ == "__main__":
    main()
