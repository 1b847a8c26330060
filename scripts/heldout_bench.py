"""Held-out accuracy of the default explanation on the corpus of docs/benchmarks/corpus.md.

The same measurement as scripts/accuracy_bench.py (whose models it imports): stratified 5-fold
cross-validation with fixed seeds; per table and model the fold means of accuracy, balanced
accuracy, Brier score, conditions and fit CPU seconds (after one untimed warm-up fit per process,
so that the one-off compilation is in no table's time).  The tables are those of
docs/benchmarks/corpus.csv, one half or both (``--half``); the tuning half may be run as often as
wanted, the report half once, after the default is settled (see corpus.md).

Models: ``explainer``, ``ripper``, ``tree4`` and ``rug`` as in accuracy_bench.py, and
``figs``: imodels' FIGS (12 splits at most, its default) on the same encoded matrix, conditions
the sum of its trees' root-to-leaf path lengths; ``rulefit``: imodels' RuleFit (its defaults: 30 rules
at most beside the linear terms) on the same matrix, one against the rest when there are more than two
classes (it takes two only), conditions its ``complexity_`` (each rule's conditions and each linear term
with a nonzero coefficient), summed over the classes.  A model that does not install is left out.
``explainer_accurate``: the explainer with ``size="accurate"`` (the best validated candidate; no target, a
summary line of its own).  ``--ripper-budget`` adds ``explainer_bc``: the explainer with Bc = the conditions of RIPPER's rule
set on the same fold.

    pip install -e ".[bench]"
    python scripts/heldout_bench.py --half tuning --jobs 1
    python scripts/heldout_bench.py --half tuning --tables MASS/fgl,HSAUR/skulls --models explainer,tree4

Writes docs/benchmarks/heldout_<half>.{csv,md} (``--out`` for another stem), after every table.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import platform
import sys
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import StratifiedKFold

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import accuracy_bench as ab  # noqa: E402
import corpus  # noqa: E402

from explainer.estimator import RuleSetExplainer  # noqa: E402

MODELS = ("explainer", "ripper", "tree4", "figs", "rug", "rulefit")
SMALL_ROWS = 5_000  # the fit-time target is on tables up to this size


class FIGS(ab.Encoded):
    name = "figs"

    def make(self):
        from imodels import FIGSClassifier  # noqa: PLC0415 - an optional peer

        return _Coded(FIGSClassifier(random_state=ab.SEED))

    def conditions(self):
        total = 0
        for root in self.model.model.trees_:
            stack = [(root, 0)]
            while stack:
                node, depth = stack.pop()
                if node.left is None:
                    total += depth
                else:
                    stack += [(node.left, depth + 1), (node.right, depth + 1)]
        return total


class _Coded(ab._RUG):
    """FIGS wants integer classes and no missing value: a missing number becomes the training median
    (the encoded matrix has an "is missing" feature beside it, so nothing is lost)."""

    def fit(self, Z, y):
        self.medians_ = np.nan_to_num(np.nanmedian(Z, axis=0)) if np.isnan(Z).any() else np.zeros(Z.shape[1])
        return super().fit(self._fill(Z), y)

    def predict_proba(self, Z):
        return super().predict_proba(self._fill(Z))

    def _fill(self, Z):
        return np.where(np.isnan(Z), self.medians_, Z)


class RuleFit(ab.Encoded):
    name = "rulefit"

    def make(self):
        from imodels import RuleFitClassifier  # noqa: PLC0415 - an optional peer

        return _OneAgainstRest(lambda: RuleFitClassifier(random_state=ab.SEED))

    def conditions(self):
        return int(sum(m.complexity_ for m in self.model.models))


class _OneAgainstRest(_Coded):
    """A two-class model on any number of classes: one model, or one per class against the rest (the
    probabilities of the classes normalised to sum to 1); missing numbers filled as for FIGS."""

    def __init__(self, make):
        self.make = make

    def fit(self, Z, y):
        self.medians_ = np.nan_to_num(np.nanmedian(Z, axis=0)) if np.isnan(Z).any() else np.zeros(Z.shape[1])
        Z = self._fill(Z)
        self.classes_, codes = np.unique(y, return_inverse=True)
        targets = [codes] if len(self.classes_) == 2 else [(codes == k).astype(int) for k in range(len(self.classes_))]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.models = [self.make().fit(Z, t) for t in targets]
        return self

    def predict_proba(self, Z):
        Z = self._fill(Z)
        if len(self.models) == 1:
            return np.asarray(self.models[0].predict_proba(Z), dtype=float)
        scores = np.column_stack([np.asarray(m.predict_proba(Z), dtype=float)[:, 1] for m in self.models])
        total = scores.sum(axis=1, keepdims=True)
        return np.where(total > 0, scores / np.where(total > 0, total, 1), 1.0 / len(self.models))


class ExplainerBc(ab.Explainer):
    name = "explainer_bc"

    def __init__(self, budget):
        self.budget = int(budget)

    def fit(self, X, y):
        self.model = RuleSetExplainer(random_state=ab.SEED, complexity_budget=self.budget).fit(X, y)
        return self


class ExplainerAccurate(ab.Explainer):
    """The explainer with the size knob at ``accurate``: the candidate of the best validation accuracy (and
    Brier score within it), what the default's choice gives up for brevity."""

    name = "explainer_accurate"

    def fit(self, X, y):
        self.model = RuleSetExplainer(random_state=ab.SEED, size="accurate").fit(X, y)
        return self


PEERS = {**ab.PEERS, "figs": FIGS, "rulefit": RuleFit, "explainer_accurate": ExplainerAccurate}


def score(model, X, y, tr, te):
    """Fit on the training rows, the figures on the test rows; None when the model is not installed."""
    start = time.process_time()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X.iloc[tr], y[tr])
    except ImportError as exc:
        print(f"  {model.name}: not installed ({exc})", file=sys.stderr)
        return None
    fit_s = time.process_time() - start
    proba, classes = model.predict_proba(X.iloc[te])
    pred = np.asarray(classes)[np.argmax(proba, axis=1)]
    return {**_frontier_gap(model),
        "model": model.name,
        "accuracy": float(np.mean(pred == y[te])),
        "balanced_accuracy": float(balanced_accuracy_score(y[te], pred)),
        "brier": ab.brier(proba, y[te], classes),
        "conditions": model.conditions(),
        "fit_cpu_s": fit_s,
    }


def _frontier_gap(model) -> dict:
    """For the default explanation: how far (in accuracy, 0..1) its held-out validation accuracy is below the
    best candidate's on its own accuracy frontier (``accuracy_frontier_``); nothing for other models."""
    points = getattr(getattr(model, "model", None), "accuracy_frontier_", None)
    chosen = [p for p in points or [] if p["chosen"]]
    if not chosen:
        return {}
    return {"frontier_gap": max(p["accuracy"] for p in points) - chosen[0]["accuracy"]}


def warm_up():
    """One untimed fit in this process, so that no table's fit time carries the one-off compilation."""
    global _WARM
    if not _WARM:
        rng = np.random.default_rng(0)
        X = pd.DataFrame({"a": rng.normal(size=60), "b": rng.choice(["u", "v"], size=60)})
        RuleSetExplainer(random_state=ab.SEED).fit(X, np.where(X["a"] > 0, "p", "n"))
        _WARM = True


_WARM = False


def evaluate(key, model_names, ripper_budget=False, load=None):
    """The rows of every fold of table ``key`` (read by ``load``, default the corpus's) for each model."""
    X, y = (load or corpus.load)(key)
    if any(name.startswith("explainer") for name in model_names) or ripper_budget:
        warm_up()
    print(f"{key}: {len(y)} rows", file=sys.stderr, flush=True)
    rows = []
    folds = StratifiedKFold(n_splits=ab.N_FOLDS, shuffle=True, random_state=ab.SEED)
    for fold, (tr, te) in enumerate(folds.split(X, y)):
        ripper = None
        for name in model_names:
            row = _score_or_report(PEERS[name](), X, y, tr, te, key, fold)
            if row is not None:
                rows.append({"table": key, "rows": len(y), "fold": fold, **row})
                ripper = row if name == "ripper" else ripper
        if ripper_budget and ripper is not None:
            row = _score_or_report(ExplainerBc(ripper["conditions"]), X, y, tr, te, key, fold)
            if row is not None:
                rows.append({"table": key, "rows": len(y), "fold": fold, **row})
    return rows


def _score_or_report(model, X, y, tr, te, key, fold):
    """:func:`score`, or None when the model fails on the table: the failure is printed (and the table's
    missing cells say so in the report), not fatal to the run."""
    try:
        return score(model, X, y, tr, te)
    except Exception as exc:
        print(f"  {key} fold {fold} {model.name}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return None


def share(ok):
    return f"{int(ok.sum())} of {len(ok)} ({100 * ok.mean():.0f} %)" if len(ok) else "no tables"


def targets(summary):
    """The summary lines: each target, how many tables meet it, and which miss it."""
    wide = summary.pivot(index="table", columns="model")
    models = set(summary["model"])
    acc, cond = wide["accuracy"], wide["conditions"]
    lines = []

    def line(text, ok, need):
        met = "met" if len(ok) and ok.mean() >= need else "NOT met"
        missed = f"; missed: {', '.join(ok.index[~ok])}" if (~ok).any() else ""
        lines.append(f"- {text} (target: at least {100 * need:.0f} %): {share(ok)}, {met}{missed}")

    if {"explainer", "tree4"} <= models:
        both = acc[["explainer", "tree4"]].dropna()
        line("accuracy >= depth-4 tree's - 1 point", both["explainer"] >= both["tree4"] - 0.01, 0.90)
        brier = wide["brier"][["explainer", "tree4"]].dropna()
        line("Brier score <= depth-4 tree's", brier["explainer"] <= brier["tree4"], 0.80)
    if {"explainer", "ripper"} <= models:
        both = pd.concat([acc[["explainer", "ripper"]], cond[["explainer", "ripper"]].add_prefix("c_")], axis=1).dropna()
        ok = (both["explainer"] >= both["ripper"] - 0.005) & (both["c_explainer"] <= both["c_ripper"])
        line("accuracy >= RIPPER's - 0.5 points with no more conditions", ok, 0.75)
    if {"explainer_bc", "ripper"} <= models:
        both = acc[["explainer_bc", "ripper"]].dropna()
        line("at Bc = RIPPER's conditions: accuracy >= RIPPER's - 0.5 points",
             both["explainer_bc"] >= both["ripper"] - 0.005, 0.75)
    if "frontier_gap" in summary and summary["frontier_gap"].notna().any():
        gap = summary[summary["model"] == "explainer"].set_index("table")["frontier_gap"].dropna()
        line("validation accuracy within 1 point of the best on its own accuracy frontier (fold mean)",
             gap <= 0.01, 1.0)
    if {"explainer", "rulefit"} <= models:  # a peer added later: no target, the comparison as it comes
        both = pd.concat([acc[["explainer", "rulefit"]], cond[["explainer", "rulefit"]].add_prefix("c_"),
                          wide["brier"][["explainer", "rulefit"]].add_prefix("b_")], axis=1).dropna()
        diff = 100 * (both["explainer"] - both["rulefit"])
        lines.append(f"- beside RuleFit (no target): accuracy >= RuleFit's - 1 point on "
                     f"{share(both['explainer'] >= both['rulefit'] - 0.01)}, - 0.5 point on "
                     f"{share(both['explainer'] >= both['rulefit'] - 0.005)}; no more conditions on "
                     f"{share(both['c_explainer'] <= both['c_rulefit'])}; median conditions "
                     f"{both['c_explainer'].median():.1f} against {both['c_rulefit'].median():.1f}; median accuracy "
                     f"difference {diff.median():+.2f} points; Brier score <= RuleFit's on "
                     f"{share(both['b_explainer'] <= both['b_rulefit'])}; RuleFit's median fit "
                     f"{wide['fit_cpu_s']['rulefit'].median():.2f} CPU s")
    if {"explainer_accurate", "tree4"} <= models:  # the knob at its other end: no target, as it comes
        both = pd.concat([acc[["explainer_accurate", "tree4"]], wide["brier"][["explainer_accurate", "tree4"]]
                          .add_prefix("b_"), cond[["explainer_accurate"]].add_prefix("c_")], axis=1).dropna()
        lines.append(f"- size=\"accurate\" (no target): accuracy >= depth-4 tree's - 1 point on "
                     f"{share(both['explainer_accurate'] >= both['tree4'] - 0.01)}; Brier score <= the tree's on "
                     f"{share(both['b_explainer_accurate'] <= both['b_tree4'])}; median conditions "
                     f"{both['c_explainer_accurate'].median():.1f}")
    if "explainer" in models:
        small = summary[(summary["model"] == "explainer") & (summary["rows"] <= SMALL_ROWS)]
        median = float(small["fit_cpu_s"].median()) if len(small) else float("nan")
        met = "met" if median <= 2.0 else "NOT met"
        lines.append(f"- median fit CPU s of the default on the {len(small)} tables up to {SMALL_ROWS:,} rows "
                     f"(target: <= 2 s): {median:.2f} s, {met}")
    return lines or ["- no target concerns the models run"]


def machine():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores"


def markdown(summary, command, half, expected, title=None):
    done = set(summary["table"])
    left = [k for k in expected if k not in done]
    lines = [
        f"# {title or f'Held-out accuracy on the corpus: {half} half'}",
        "",
        f"Stratified {ab.N_FOLDS}-fold CV, seed {ab.SEED}; means over the folds. Command: {command}",
        f"Machine: {machine()}, Python {platform.python_version()}, "
        f"{pd.Timestamp.now(tz='UTC'):%Y-%m-%d}. Tables run: {len(done)} of {len(expected)}"
        + (f"; not run: {', '.join(left)}." if left else "."),
        "",
        "Accuracy and balanced accuracy in %, Brier score (lower is better), conditions, fit CPU s.",
        "",
        "## Targets",
        "",
        *targets(summary),
        "",
        "## Per table",
        "",
    ]
    models = [m for m in (*MODELS, "explainer_bc", "explainer_accurate") if m in set(summary["model"])]
    head = ["table", "rows"] + [f"{m} {k}" for m in models for k in ("acc", "bal", "brier", "cond", "s")]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for table, block in summary.groupby("table", sort=False):
        cells = [table, str(int(block["rows"].iloc[0])), *ab.model_cells(block, models)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write(rows, out, command, half, expected, title=None):
    runs = pd.DataFrame(rows).sort_values(["rows", "table", "fold"], kind="stable")
    summary = (runs.groupby(["table", "model"], sort=False).mean(numeric_only=True)
               .drop(columns="fold").reset_index())
    runs.to_csv(out.with_suffix(".csv"), index=False)
    text = markdown(summary, command, half, expected, title)
    out.with_suffix(".md").write_text(text)
    return text


def previous(out, keys, model_names, command):
    """The rows an earlier run wrote that this one does not redo, and both commands."""
    old = pd.read_csv(out.with_suffix(".csv"))
    redo = old["table"].isin(keys) & old["model"].isin(model_names)
    text = out.with_suffix(".md").read_text()
    # every command the file records (``A`, then `B``), not only the first, whether it says "Command:" or, in
    # words, "Commands:"
    before = "an earlier run"
    for mark in ("Command: ", "Commands: "):
        if mark in text:
            before = text.split(mark, 1)[1].split("\n", 1)[0].rstrip()
            break
    return old[~redo].to_dict("records"), f"{before}, then {command}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--half", choices=("tuning", "report", "all"), default="tuning")
    parser.add_argument("--tables", default="", help="comma-separated keys (package/item); default: the half's")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--ripper-budget", action="store_true", help="also the explainer at Bc = RIPPER's conditions")
    parser.add_argument("--jobs", type=int, default=1, help="tables run at once (processes)")
    parser.add_argument("--out", default="", help="output stem; default docs/benchmarks/heldout_<half>")
    parser.add_argument("--render", action="store_true",
                        help="write the output's .md again from its .csv, running nothing (e.g. after a change of "
                             "the summary lines)")
    parser.add_argument("--append", action="store_true",
                        help="keep the output's other rows: replace only the (table, model) pairs this run makes")
    args = parser.parse_args(argv)
    table = corpus.read_corpus(args.half).sort_values(["rows", "key"])  # small tables first
    keys = list(table["key"])
    expected = list(keys)
    if args.tables:
        wanted = [k for k in args.tables.split(",") if k]
        unknown = set(wanted) - set(keys)
        if unknown:
            parser.error(f"not in the {args.half} half: {', '.join(sorted(unknown))}")
        keys = [k for k in keys if k in wanted]
    model_names = [m for m in args.models.split(",") if m]
    if args.ripper_budget and "ripper" not in model_names:
        model_names.append("ripper")
    out = pathlib.Path(args.out or corpus.OUT / f"heldout_{args.half}")
    out.parent.mkdir(parents=True, exist_ok=True)
    command = "`python scripts/heldout_bench.py " + " ".join(sys.argv[1:] if argv is None else argv).strip() + "`"

    if args.render:
        old = pd.read_csv(out.with_suffix(".csv"))
        _, command = previous(out, [], [], "")
        print(write(old.to_dict("records"), out, command.removesuffix(", then ").strip(), args.half, expected))
        return

    from joblib import Parallel, delayed  # noqa: PLC0415

    rows, text = [], ""
    if args.append and out.with_suffix(".csv").exists():
        redone = model_names + (["explainer_bc"] if args.ripper_budget else [])
        rows, command = previous(out, keys, redone, command)
    tasks = (delayed(evaluate)(k, model_names, args.ripper_budget) for k in keys)
    for block in Parallel(n_jobs=args.jobs, return_as="generator")(tasks):
        rows += block
        if rows:
            text = write(rows, out, command.strip(), args.half, expected)
    print(text)


if __name__ == "__main__":
    main()
