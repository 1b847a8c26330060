"""Is a Brier score above the depth-4 tree's the default's choice, or every candidate's?

    python scripts/brier_ceiling.py [--tables Stat2Data/Whickham2,MASS/Aids2,...]

For each table of the corpus (``scripts/corpus.py``; default: four tables of the tuning half whose default
Brier score is above the depth-4 tree's), on the first fold of the benchmark's cross-validation
(``scripts/heldout_bench.py``): the default explanation is fitted on the fold's training rows, and beside the
validation Brier score of the candidate it chose and of the best candidate of its grid
(``accuracy_frontier_``), the depth-4 tree's Brier score on the same validation folds of the same rows
(:func:`explainer.pipeline.validation.validation_splits`).  Needs the ``bench`` extra.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np
from sklearn.model_selection import StratifiedKFold

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import accuracy_bench as ab  # noqa: E402
import corpus  # noqa: E402

from explainer.estimator import RuleSetExplainer  # noqa: E402
from explainer.pipeline.validation import validation_splits  # noqa: E402

TABLES = "Stat2Data/Whickham2,MASS/Aids2,AER/HealthInsurance,carData/Chile"


def tree_brier(X, y) -> float:
    """The depth-4 tree's mean Brier score over the validation folds the explainer's choice uses on these rows."""
    scores = []
    for train, held in validation_splits(np.unique(y, return_inverse=True)[1]):
        tree = ab.Tree4().fit(X.iloc[train], y[train])
        proba, classes = tree.predict_proba(X.iloc[held])
        scores.append(ab.brier(proba, y[held], classes))
    return float(np.mean(scores))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", default=TABLES)
    args = parser.parse_args()
    print("| table | chosen: conditions, Brier | best candidate: conditions, Brier | depth-4 tree: Brier | best - tree |")
    print("|---|---|---|---|---:|")
    for key in args.tables.split(","):
        X, y = corpus.load(key)
        train, _ = next(StratifiedKFold(n_splits=ab.N_FOLDS, shuffle=True, random_state=ab.SEED).split(X, y))
        X, y = X.iloc[train].reset_index(drop=True), y[train]
        model = RuleSetExplainer(random_state=ab.SEED).fit(X, y)
        points = model.accuracy_frontier_
        chosen = next(p for p in points if p["chosen"])
        best = min(points, key=lambda p: p["brier"])
        tree = tree_brier(X, y)
        print(f"| {key} | {chosen['complexity']:.1f}, {chosen['brier']:.4f} | {best['complexity']:.1f}, "
              f"{best['brier']:.4f} | {tree:.4f} | {best['brier'] - tree:+.4f} |")


if __name__ == "__main__":
    main()
