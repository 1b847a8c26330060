"""Where a Brier score above the depth-4 tree's goes: the groupings, or the voted class keeping the largest probability?

    python scripts/brier_agree.py [--tables carData/Mroz,modeldata/wa_churn,...]

For each table of the corpus (``scripts/corpus.py``; default: the eight tables of the report half whose default
Brier score was above the depth-4 tree's in docs/benchmarks/heldout_report_third.md), on the benchmark's folds
(``scripts/heldout_bench.py``), the default explanation fitted on each fold's training rows and, on its test
rows, the mean Brier score of three sets of probabilities:

* *vote*: the rules' own distributions, before the step by conditions;
* *grouped*: those moved towards the class shares of the rows' groups (the step by conditions), before the
  voted class is given the largest probability (:func:`explainer.report.probabilities.agree`);
* *predict_proba*: what the estimator gives, the voted class holding the largest probability.

*grouped* less the tree's is what the groupings miss; *predict_proba* less *grouped* is the price of ``predict``
being the rules' vote.  Needs the ``bench`` extra.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import warnings
from dataclasses import replace

import numpy as np
from sklearn.model_selection import StratifiedKFold

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import accuracy_bench as ab  # noqa: E402
import corpus  # noqa: E402

from explainer.data.labels import label_key  # noqa: E402
from explainer.estimator import RuleSetExplainer  # noqa: E402
from explainer.report.probabilities import brier_score, vote_probabilities  # noqa: E402

MISSES = ("carData/Mroz", "ISLR/OJ", "Stat2Data/Putts1", "carData/WVS", "modeldata/cells", "Stat2Data/Gunnels",
          "carData/BEPS", "modeldata/wa_churn")


def fold_scores(est: RuleSetExplainer, X_test, y_test) -> tuple[float, float, float, bool]:
    """(vote, grouped, predict_proba) Brier scores on the test rows, and whether the step by conditions is on."""
    code_of = {label_key(c): i for i, c in enumerate(est.classes_)}
    codes = np.array([code_of[label_key(v)] for v in y_test])
    frame = est._frame(X_test)
    fitted = est._probabilities
    _, vote = vote_probabilities(replace(fitted, patterns=None), est.rules_.coverage_matrix(frame).astype(float))
    grouped = vote if fitted.patterns is None else fitted.patterns.refine(vote, frame)
    return (brier_score(vote, codes), brier_score(grouped, codes), brier_score(est.predict_proba(X_test), codes),
            fitted.patterns is not None)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default=",".join(MISSES), help="comma-separated keys (package/item)")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    print("| table | vote | grouped | predict_proba | depth-4 tree | folds with the step |")
    print("|---|---:|---:|---:|---:|---:|")
    for key in (k for k in args.tables.split(",") if k):
        X, y = corpus.load(key)
        y = np.asarray(y)
        scores, trees = [], []
        for tr, te in StratifiedKFold(n_splits=ab.N_FOLDS, shuffle=True, random_state=ab.SEED).split(X, y):
            scores.append(fold_scores(RuleSetExplainer(random_state=ab.SEED).fit(X.iloc[tr], y[tr]), X.iloc[te], y[te]))
            tree = ab.PEERS["tree4"]()
            tree.fit(X.iloc[tr], y[tr])
            proba, classes = tree.predict_proba(X.iloc[te])
            trees.append(ab.brier(proba, y[te], classes))
        s = np.array(scores, dtype=float)
        print(f"| {key} | {s[:, 0].mean():.4f} | {s[:, 1].mean():.4f} | {s[:, 2].mean():.4f} | {np.mean(trees):.4f} | "
              f"{int(s[:, 3].sum())} of {len(s)} |", flush=True)


if __name__ == "__main__":
    main()
