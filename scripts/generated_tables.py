"""The held-out benchmark on tables written from their published definitions, none of them seen by a choice.

The tables, and where each definition comes from, are in :mod:`explainer.bench.defined`: balance scale (all 625
settings), MONK's problems 1, 2 and 3 (all 432 robots; 3 with 5 % of the classes flipped, seed 0), LED display
(3,000 rows, seed 0) and waveform (5,000 rows, seed 0).  UCI ships MONK's as a training sample and the full set
as its test set; here the full set goes through the same 5-fold protocol as every table.

None of these is in the corpus, and no constant of the default was chosen on them (they were first run after
every constant was set).  The LED display's first run showed a cause the validation then changed for (settled
on the corpus's tuning half), so that one table has since been seen.  The models and the protocol are
``scripts/heldout_bench.py``'s (stratified 5-fold, seed 0; the targets' lines the same).  Needs the ``bench``
extra.  ``--fit-time`` prints instead the default's fit on each whole table, CPU seconds of two fits after one
untimed warm-up fit.

    python scripts/generated_tables.py [--models explainer,ripper,tree4,figs,rug,rulefit] [--ripper-budget]
        [--jobs 2] [--out docs/benchmarks/generated_tables]
    python scripts/generated_tables.py --fit-time [--tables led_display,waveform]
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from functools import partial

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import heldout_bench as hb  # noqa: E402

from explainer.bench.defined import TABLES  # noqa: E402
from explainer.estimator import RuleSetExplainer  # noqa: E402


def load(key):
    return TABLES[key]()


def run(key, models, ripper_budget):
    return hb.evaluate(key, models, ripper_budget, load=load)


def fit_times(keys) -> None:
    """The default's fit on each whole table: CPU seconds of two fits (after one untimed, so that no fit carries
    the one-off compilation), and the rules it gives."""
    warm_X, warm_y = TABLES[keys[0]]()
    RuleSetExplainer(random_state=0).fit(warm_X.iloc[:200], warm_y[:200])
    for key in keys:
        X, y = TABLES[key]()
        seconds = []
        for _ in range(2):
            start = time.process_time()
            model = RuleSetExplainer(random_state=0).fit(X, y)
            seconds.append(time.process_time() - start)
        print(f"{key}: {len(y):,} rows, {len(model.rules_)} rules, fit {seconds[0]:.2f} and {seconds[1]:.2f} CPU s")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default=",".join(hb.MODELS))
    parser.add_argument("--ripper-budget", action="store_true", help="also the explainer at Bc = RIPPER's conditions")
    parser.add_argument("--jobs", type=int, default=1, help="tables run at once (processes)")
    parser.add_argument("--out", default=str(hb.corpus.OUT / "generated_tables"))
    parser.add_argument("--fit-time", action="store_true", help="time the default's fit on each whole table instead")
    parser.add_argument("--tables", default="", help="comma-separated names (led_display, ...); default: all six")
    args = parser.parse_args(argv)
    models = [m for m in args.models.split(",") if m]
    keys = [f"generated/{k}" for k in args.tables.split(",") if k] or list(TABLES)
    unknown = [k for k in keys if k not in TABLES]
    if unknown:
        parser.error(f"unknown tables: {', '.join(unknown)}")
    if args.fit_time:
        fit_times(keys)
        return
    rows = []
    with ProcessPoolExecutor(max(1, args.jobs)) as pool:
        for found in pool.map(partial(run, models=models, ripper_budget=args.ripper_budget), keys):
            rows += found
    command = "`python scripts/generated_tables.py " + " ".join(argv if argv is not None else sys.argv[1:]) + "`"
    print(hb.write(rows, pathlib.Path(args.out), command.replace(" `", "`"), "generated", keys,
                   title="Held-out accuracy on tables written from their published definitions"))


if __name__ == "__main__":
    main()
