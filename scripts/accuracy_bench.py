"""Held-out accuracy of the default explanation against the rule learners people use.

Stratified 5-fold cross-validation with fixed seeds on the paper's ten data sets and the three
bundled samples.  Per data set and model: accuracy, balanced accuracy, Brier score (multi-class:
mean over rows of sum_k (p_k - [y = k])^2), conditions and fit time (CPU seconds of this
process), each the mean over the folds.

Models:
- ``explainer``: ``RuleSetExplainer(random_state=0)`` as it comes (default pool and budgets);
  conditions: the size its budgets count, one per phrase (``buying in {low, med}`` and
  ``32 < Age <= 54`` are one each, as RIPPER's ``buying=low`` and ``Age=32-54`` are);
- ``ripper``: wittgenstein's RIPPER (``pip install wittgenstein``), binary problems with the
  minority class as the positive class, more classes one against the rest (the class whose
  ruleset gives the highest probability wins); conditions summed over the rulesets;
- ``tree4``: scikit-learn's CART of depth 4 on the same encoded features the rule pool uses;
  conditions: the sum of its root-to-leaf path lengths (the tree read as a rule list);
- ``rug``: ruleopt's RUG where it installs (``pip install ruleopt``); conditions summed over its rules.

    python scripts/accuracy_bench.py                       # all 13 data sets -> docs/benchmarks/accuracy.{csv,md}
    python scripts/accuracy_bench.py --datasets iris,zoo --models explainer,ripper

The target (docs/benchmarks/README.md#accuracy-against-peers): the default explanation's held-out accuracy is at
least RIPPER's minus 0.5 points and it has no more conditions than RIPPER's rule set.
"""

from __future__ import annotations

import argparse
import pathlib
import platform
import sys
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import StratifiedKFold
from sklearn.tree import DecisionTreeClassifier

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from explainer.data import (  # noqa: E402
    PAPER_DATASETS,
    load_dataset,
    load_paper_dataset,
    paper_data_dir,
    sample_datasets,
)
from explainer.data.encoder import TableEncoder  # noqa: E402
from explainer.estimator import RuleSetExplainer  # noqa: E402

SAMPLE_TARGETS = {"iris": "class", "wine": "class", "loans": None}
MODELS = ("explainer", "ripper", "tree4", "rug")
N_FOLDS = 5
SEED = 0


def datasets(names):
    """name -> (raw feature frame, labels) of the paper's data sets and the samples."""
    out = {}
    for name in names:
        if name.startswith("sample:"):
            path = sample_datasets()[name.split(":", 1)[1]]
            ds = load_dataset(path, target=SAMPLE_TARGETS.get(name.split(":", 1)[1]))
            frame = pd.read_csv(path)
        else:
            ds = load_paper_dataset(name)
            frame = ds_frame(name)
        y = frame[ds.target].astype(str).to_numpy()
        # what the loader sets aside (an identifier such as E. coli's sequence name) no model sees
        dropped = [c.name for c in ds.columns if c.kind == "identifier" and c.name != ds.target]
        out[name] = (frame.drop(columns=[ds.target, *dropped]), y)
    return out


def ds_frame(name):
    # the raw table: the estimator and RIPPER see the original values
    return pd.read_csv(paper_data_dir() / PAPER_DATASETS[name]["file"])


def brier(proba, y, classes):
    onehot = (np.asarray(y)[:, None] == np.asarray(classes)[None, :]).astype(float)
    return float(np.mean(np.sum((proba - onehot) ** 2, axis=1)))


class Explainer:
    name = "explainer"

    def fit(self, X, y):
        self.model = RuleSetExplainer(random_state=SEED).fit(X, y)
        return self

    def predict_proba(self, X):
        return self.model.predict_proba(X), list(self.model.classes_)

    def conditions(self):
        # the size the budgets count: one per phrase (a column's conditions in a rule read as one)
        return int(self.model.rules_.complexity)


class Ripper:
    name = "ripper"

    def fit(self, X, y):
        import wittgenstein as lw  # noqa: PLC0415 - an optional peer

        self.classes = sorted(set(y))
        counts = {c: int(np.sum(y == c)) for c in self.classes}
        targets = [min(self.classes, key=lambda c: (counts[c], c))] if len(self.classes) == 2 else self.classes
        self.models = {}
        for c in targets:
            m = lw.RIPPER(random_state=SEED)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                m.fit(X.reset_index(drop=True), (y == c).astype(int), pos_class=1)
            self.models[c] = m
        return self

    def predict_proba(self, X):
        X = X.reset_index(drop=True)
        if len(self.classes) == 2:
            (pos, m), = self.models.items()
            p = np.asarray(m.predict_proba(X))[:, 1]
            neg = [c for c in self.classes if c != pos][0]
            cols = {pos: p, neg: 1 - p}
            return np.column_stack([cols[c] for c in self.classes]), self.classes
        scores = np.column_stack([np.asarray(self.models[c].predict_proba(X))[:, 1] for c in self.classes])
        total = scores.sum(axis=1, keepdims=True)
        proba = np.where(total > 0, scores / np.where(total > 0, total, 1), 1.0 / len(self.classes))
        return proba, self.classes

    def conditions(self):
        return int(sum(len(rule.conds) for m in self.models.values() for rule in m.ruleset_.rules))


class Encoded:
    """A peer on the encoded matrix the rule pool uses (the same one-hot and missing features, read by the
    estimator's default encoder)."""

    def fit(self, X, y):
        self.encoder = TableEncoder(detect_identifiers=False, many_values="exclude").fit(X)
        self.model = self.make().fit(self.encoder.transform(X).to_numpy(dtype=float), y)
        return self

    def predict_proba(self, X):
        Z = self.encoder.transform(X).to_numpy(dtype=float)
        return np.asarray(self.model.predict_proba(Z)), list(self.model.classes_)


class Tree4(Encoded):
    name = "tree4"

    def make(self):
        return DecisionTreeClassifier(max_depth=4, random_state=SEED)

    def conditions(self):
        t = self.model.tree_
        total, stack = 0, [(0, 0)]
        while stack:
            node, depth = stack.pop()
            if t.children_left[node] == -1:
                total += depth
            else:
                stack += [(t.children_left[node], depth + 1), (t.children_right[node], depth + 1)]
        return total


class RUG(Encoded):
    name = "rug"

    def make(self):
        from ruleopt import RUGClassifier  # noqa: PLC0415 - an optional peer

        return _RUG(RUGClassifier(random_state=SEED, max_depth=2))

    def conditions(self):
        return int(sum(len(rule) for rule in self.model.model.decision_rules.values()))


class _RUG:
    """ruleopt wants integer classes: code them, decode in predict_proba."""

    def __init__(self, model):
        self.model = model

    def fit(self, Z, y):
        self.classes_, codes = np.unique(y, return_inverse=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.model.fit(Z, codes)
        return self

    def predict_proba(self, Z):
        p = np.asarray(self.model.predict_proba(Z), dtype=float)
        out = np.zeros((len(Z), len(self.classes_)))
        out[:, : p.shape[1]] = p
        return out


PEERS = {"explainer": Explainer, "ripper": Ripper, "tree4": Tree4, "rug": RUG}


def evaluate(name, X, y, model_names):
    rows = []
    folds = StratifiedKFold(n_splits=N_FOLDS, shuffle=True, random_state=SEED)
    for fold, (tr, te) in enumerate(folds.split(X, y)):
        for model_name in model_names:
            model = PEERS[model_name]()
            start = time.process_time()
            try:
                model.fit(X.iloc[tr], y[tr])
            except ImportError as exc:
                print(f"  {model_name}: not installed ({exc})", file=sys.stderr)
                continue
            fit_s = time.process_time() - start
            proba, classes = model.predict_proba(X.iloc[te])
            pred = np.asarray(classes)[np.argmax(proba, axis=1)]
            rows.append({
                "dataset": name, "fold": fold, "model": model_name,
                "accuracy": float(np.mean(pred == y[te])),
                "balanced_accuracy": float(balanced_accuracy_score(y[te], pred)),
                "brier": brier(proba, y[te], classes),
                "conditions": model.conditions(),
                "fit_cpu_s": fit_s,
            })
    return rows


def model_cells(block, models) -> list[str]:
    """One table row's cells per model (accuracy, balanced accuracy, Brier, conditions, fit s), '-' where absent."""
    cells: list[str] = []
    for m in models:
        r = block[block["model"] == m]
        if r.empty:
            cells += ["-"] * 5
            continue
        r = r.iloc[0]
        cells += [f"{100 * r.accuracy:.1f}", f"{100 * r.balanced_accuracy:.1f}", f"{r.brier:.3f}",
                  f"{r.conditions:.1f}", f"{r.fit_cpu_s:.2f}"]
    return cells


def markdown(summary: pd.DataFrame, command: str) -> str:
    lines = [
        "# Held-out accuracy against peers",
        "",
        f"Stratified {N_FOLDS}-fold CV, seed {SEED}; means over the folds. Command: `{command}`",
        f"Machine: {platform.machine()}, {platform.python_version()}, "
        f"{pd.Timestamp.now(tz='UTC'):%Y-%m-%d}.",
        "",
        "Accuracy and balanced accuracy in %, Brier score (lower is better), conditions, fit CPU s.",
        "",
    ]
    models = list(dict.fromkeys(summary["model"]))
    head = ["data set"] + [f"{m} {k}" for m in models for k in ("acc", "bal", "brier", "cond", "s")]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for ds, block in summary.groupby("dataset", sort=False):
        lines.append("| " + " | ".join([ds, *model_cells(block, models)]) + " |")
    if {"explainer", "ripper"} <= set(models):
        wide = summary.pivot(index="dataset", columns="model")
        ok = ((wide[("accuracy", "explainer")] >= wide[("accuracy", "ripper")] - 0.005)
              & (wide[("conditions", "explainer")] <= wide[("conditions", "ripper")]))
        lines += ["", f"Target met (accuracy >= RIPPER's - 0.5 points and no more conditions): "
                  f"{int(ok.sum())} of {len(ok)}" + (f"; missed: {', '.join(ok.index[~ok])}" if (~ok).any() else "")]
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default=",".join(list(PAPER_DATASETS) + [f"sample:{s}" for s in SAMPLE_TARGETS]))
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--out", default=str(ROOT / "docs" / "benchmarks" / "accuracy"))
    args = parser.parse_args(argv)
    names = [n for n in args.datasets.split(",") if n]
    model_names = [m for m in args.models.split(",") if m]
    rows = []
    for name, (X, y) in datasets(names).items():
        print(f"{name}: {len(y)} rows", file=sys.stderr, flush=True)
        rows += evaluate(name, X, y, model_names)
    runs = pd.DataFrame(rows)
    summary = runs.groupby(["dataset", "model"], sort=False).mean(numeric_only=True).drop(columns="fold").reset_index()
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    runs.to_csv(out.with_suffix(".csv"), index=False)
    command = "python scripts/accuracy_bench.py" + (f" {' '.join(argv)}" if argv else "")
    text = markdown(summary, command if argv is not None else "python scripts/accuracy_bench.py " + " ".join(sys.argv[1:]))
    out.with_suffix(".md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
