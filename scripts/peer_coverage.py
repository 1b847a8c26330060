"""Does our rule pool reach a peer rule learner's coverage at the peer's own budgets?

For every data set (the paper's ten and the bundled samples) and every peer
learner, the peer's rule set is written in explainer's rule language and
evaluated on the training rows with explainer's own metrics: its complexity
(sum of conditions), its errors (sum over rules of the misclassified rows each
covers) and its coverage f* (eps = 1).  Then, for each candidate pool
configuration, the exact solver selects rules from our pool at exactly those
budgets (Bc = peer complexity, Be = peer errors).  A run counts as reached when
our f* is at least the peer's.

Peers (``pip install -e .[peers]``):

* ``ripper``: wittgenstein's RIPPER, one model per class against the rest, on
  a fixed discretisation (quantile bins with thresholds halfway between data
  values, or one bin per value for columns with few values) so that each of its
  conditions maps exactly onto ``<=`` / ``>`` conditions;
* ``ripper/own``: the same rules at RIPPER's own count of conditions (a bin is
  one condition, written with thresholds a middle bin takes two): a tighter
  complexity budget;
* ``cart-d4``, ``cart-d6``: scikit-learn decision trees of that depth;
* ``cart-leaf5``: an unbounded tree with at least 5 rows a leaf.

Each tree becomes one rule per leaf (conditions on one feature and direction
merged).

    python scripts/peer_coverage.py                     # everything
    python scripts/peer_coverage.py --datasets iris,wine --configs default,d6r5

Writes ``docs/benchmarks/peers.csv`` and ``docs/benchmarks/peers.md``.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from explainer.bench import paper_settings  # noqa: E402
from explainer.data import (  # noqa: E402
    PAPER_DATASETS,
    load_dataset,
    load_paper_dataset,
    sample_datasets,
)
from explainer.data.defaults import default_load_settings  # noqa: E402
from explainer.report import evaluate_rules  # noqa: E402
from explainer.rules import Condition, Rule, RuleSet, merge_conditions  # noqa: E402
from explainer.rules.defaults import default_pool_settings  # noqa: E402
from explainer.rules.pool import build_pool  # noqa: E402
from explainer.selection.problem import SelectionProblem  # noqa: E402
from explainer.selection.solvers import solve  # noqa: E402

N_BINS = 10


# ----------------------------------------------------------------------------- data
def datasets(names=None):
    """(name, Dataset, paper depth or None) of the paper's data sets and the bundled samples."""
    settings = paper_settings()
    out = []
    for name in PAPER_DATASETS:
        out.append((name, lambda n=name, **kw: load_paper_dataset(n, **kw), int(settings[name]["depth"])))
    for name, path in sample_datasets().items():
        out.append((f"sample:{name}", lambda p=path, **kw: load_dataset(p, **kw), None))
    if names:
        wanted = set(names)
        out = [o for o in out if o[0] in wanted]
    return out


# ----------------------------------------------------------------------------- peers
def tree_rules(tree, feature_names, classes) -> list[Rule]:
    """One rule per leaf of a fitted scikit-learn tree."""
    t = tree.tree_
    out = []
    stack = [(0, ())]
    while stack:
        node, conds = stack.pop()
        if t.children_left[node] == -1:
            label = classes[int(tree.classes_[int(np.argmax(t.value[node][0]))])]
            if conds:
                out.append(Rule(merge_conditions(conds), label))
            continue
        name = feature_names[int(t.feature[node])]
        thr = float(t.threshold[node])
        stack.append((int(t.children_right[node]), (*conds, Condition(name, ">", thr))))
        stack.append((int(t.children_left[node]), (*conds, Condition(name, "<=", thr))))
    return out


def cart_rules(X: pd.DataFrame, codes: np.ndarray, classes, **params) -> list[Rule]:
    from sklearn.tree import DecisionTreeClassifier

    # scikit-learn routes NaN down one branch; our conditions never hold on NaN,
    # so the rules are evaluated as written (missing rows fall out of both sides)
    tree = DecisionTreeClassifier(random_state=0, **params).fit(X.to_numpy(float), codes)
    return tree_rules(tree, [str(c) for c in X.columns], classes)


@dataclass
class _Bins:
    """A column's bins: label -> conditions (exact on the training values)."""

    conditions: dict


def _binning(name: str, values: np.ndarray, missing_feature: str | None) -> tuple[list, _Bins]:
    present = values[~np.isnan(values)]
    uniq = np.unique(present)
    if uniq.size <= N_BINS:
        cuts = (uniq[:-1] + uniq[1:]) / 2.0
    else:
        qs = np.quantile(present, np.linspace(0, 1, N_BINS + 1)[1:-1])
        # a cut halfway between the data values around each quantile
        idx = np.unique(np.clip(np.searchsorted(uniq, qs, side="right"), 1, uniq.size - 1))
        cuts = (uniq[idx - 1] + uniq[idx]) / 2.0
    conds = {}
    labels = np.empty(values.size, dtype=object)
    code = np.searchsorted(cuts, values, side="left")  # value <= cuts[k] -> bin k
    for k in range(cuts.size + 1):
        c = []
        if k > 0:
            c.append(Condition(name, ">", float(cuts[k - 1])))
        if k < cuts.size:
            c.append(Condition(name, "<=", float(cuts[k])))
        conds[f"b{k}"] = tuple(c)
    labels[:] = [f"b{k}" for k in code]
    nan = np.isnan(values)
    if nan.any():
        labels[nan] = "missing"
        conds["missing"] = (Condition(missing_feature, ">", 0.5),) if missing_feature else None
    return labels.tolist(), _Bins(conds)


def ripper_rules(ds, X: pd.DataFrame, codes: np.ndarray, classes) -> tuple[list[Rule], int]:
    """RIPPER's rules in explainer's language, and their number of conditions as RIPPER counts them.

    RIPPER counts a bin (``3.5 < x <= 4.5``, or ``x = 4`` on an integer code)
    as one condition; written with thresholds a middle bin takes two.
    """
    import warnings

    import wittgenstein as lw

    missing_of = {s.column: s.name for s in ds.feature_specs if s.kind == "missing"}
    column_of = {s.name: s.column for s in ds.feature_specs}
    frame = {}
    bins = {}
    for name in X.columns:
        labels, b = _binning(name, X[name].to_numpy(float), missing_of.get(column_of.get(name, name)))
        frame[name] = labels
        bins[name] = b
    frame = pd.DataFrame(frame)
    out = []
    own = 0
    target = "__class__"
    for k, label in enumerate(classes):
        if not np.any(codes == k) or np.all(codes == k):
            continue
        data = frame.assign(**{target: np.where(codes == k, "pos", "neg")})
        clf = lw.RIPPER(random_state=0, verbosity=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clf.fit(data, class_feat=target, pos_class="pos")
        for r in clf.ruleset_.rules:
            conds = []
            for cond in r.conds:
                mapped = bins[cond.feature].conditions.get(str(cond.val))
                if mapped is None:
                    conds = None
                    break
                conds.extend(mapped)
            if conds:
                out.append(Rule(merge_conditions(conds), label))
                own += len(r.conds)
    return out, own


#: name -> rules (and, for RIPPER, its own count of conditions)
PEERS = {
    "ripper": lambda ds, X, codes, classes: ripper_rules(ds, X, codes, classes),
    # the same rule set at RIPPER's own count of conditions: a tighter complexity budget
    "ripper/own": lambda ds, X, codes, classes: ripper_rules(ds, X, codes, classes),
    "cart-d4": lambda ds, X, codes, classes: cart_rules(X, codes, classes, max_depth=4),
    "cart-d6": lambda ds, X, codes, classes: cart_rules(X, codes, classes, max_depth=6),
    "cart-leaf5": lambda ds, X, codes, classes: cart_rules(X, codes, classes, min_samples_leaf=5),
}


# ----------------------------------------------------------------------------- pools
#: name -> (description, pool settings from (dataset, paper depth), reading)
def _cfg(depth=None, repeats=1, source="grid", reading="plain"):
    def settings(ds, paper_depth):
        d = depth if depth is not None else (paper_depth or 5)
        return {"max_depth": d, "n_repeats": repeats, "source": source}

    return settings, reading


CONFIGS = {
    "before": ("the default before: paper depth (else 5), 1 repeat, grid", *_cfg()),
    "r10": ("paper depth (else 5), 10 repeats", *_cfg(repeats=10)),
    "forest": ("paper depth (else 5), forest of 100 trees", *_cfg(source="forest")),
    "d6": ("depth 6, 1 repeat", *_cfg(depth=6)),
    "d8": ("depth 8, 1 repeat", *_cfg(depth=8)),
    "d6r3": ("depth 6, 3 repeats", *_cfg(depth=6, repeats=3)),
    "d6r5": ("depth 6, 5 repeats", *_cfg(depth=6, repeats=5)),
    "d8r3": ("depth 8, 3 repeats", *_cfg(depth=8, repeats=3)),
    "before+values": ("the default before, with ordinal_as_categorical (integer codes with 3-10 values also read as '= v')", *_cfg(reading="both")),
    "d6r5+values": ("depth 6, 5 repeats, ordinal_as_categorical", *_cfg(depth=6, repeats=5, reading="both")),
    "d10": ("depth 10, 1 repeat", *_cfg(depth=10)),
    "d8+values": ("depth 8, 1 repeat, ordinal_as_categorical", *_cfg(depth=8, reading="both")),
    "d8r3+values": ("depth 8, 3 repeats, ordinal_as_categorical", *_cfg(depth=8, repeats=3, reading="both")),
    "default": ("the chosen default (default_pool_settings)", None, "default"),
}


def pool_for(config: str, ds, loader, paper_depth, seed: int = 0):
    """Our pool under ``config``; peers and pools see the same rows, the pool maybe more features."""
    _, settings_of, reading = CONFIGS[config]
    if reading == "default":
        settings = default_pool_settings()
        X = loader(**default_load_settings()).X
    else:
        settings = settings_of(ds, paper_depth)
        X = loader(ordinal_as_categorical=True).X if reading == "both" else ds.X
    t0 = time.perf_counter()
    pool = build_pool(X, ds.y, random_state=seed, classes=ds.classes, **settings)
    return pool, time.perf_counter() - t0


# ----------------------------------------------------------------------------- run
def incumbent(pool, problem) -> tuple[np.ndarray, str]:
    """The better of the greedy selection and the best whole tree of the pool within the budgets.

    The pool holds every tree's rules, so a tree that fits the budgets is a
    feasible selection; on large pools the exact solver finds it slowly from
    the greedy start alone.
    """
    best = solve(problem, "greedy").selection
    best_cov, how = problem.evaluate(best).coverage, "greedy"
    for tree in pool.trees:
        r = np.zeros(pool.n_rules, dtype=bool)
        r[tree.rule_ids] = True
        ev = problem.evaluate(r)
        if ev.feasible and ev.coverage > best_cov:
            best, best_cov, how = r, ev.coverage, "tree"
    return best, how


def run(args) -> pd.DataFrame:
    rows = []
    for name, loader, paper_depth in datasets(args.datasets):
        ds = loader()
        codes = ds.y_codes()
        peers = {}
        for peer in args.peers:
            found = PEERS[peer](ds, ds.X, codes, ds.classes)
            rules, own = found if isinstance(found, tuple) else (found, None)
            rules = RuleSet(rules)
            rep = evaluate_rules(rules, ds.X, ds.y, eps=1.0)
            budget = own if peer.endswith("/own") else rep.complexity
            peers[peer] = (rules, rep, budget)
            print(f"{name:28s} {peer:10s} rules {len(rules):4d}  Bc {budget:4d}  Be {rep.errors:4d}  "
                  f"f* {rep.coverage:6.0f} ({100 * rep.coverage / rep.n_rows:5.1f}%)", flush=True)
        for config in args.configs:
            pool, build_s = pool_for(config, ds, loader, paper_depth)
            for peer, (rules, rep, budget) in peers.items():
                row = {
                    "dataset": name, "rows": ds.n_rows, "peer": peer, "peer_rules": len(rules),
                    "complexity_budget": budget, "peer_complexity": rep.complexity, "error_budget": rep.errors,
                    "peer_coverage": rep.coverage, "peer_coverage_pct": 100 * rep.coverage / rep.n_rows,
                    "config": config, "pool_rules": pool.n_rules, "pool_build_s": build_s,
                }
                if len(rules) == 0 or budget == 0:
                    row.update(coverage=0.0, coverage_pct=0.0, method="none", optimal=True, solve_s=0.0,
                               reached=True)
                    rows.append(row)
                    continue
                problem = SelectionProblem.from_pool(pool, budget, rep.errors, eps=1.0)
                t0 = time.perf_counter()
                # a feasible selection that already reaches the peer answers the question
                # without the (costlier) proof of optimality
                start, method = incumbent(pool, problem)
                coverage, optimal = problem.evaluate(start).coverage, False
                if coverage < rep.coverage or args.always_exact:
                    res = solve(problem, "exact", time_limit=args.time_limit, warm_start=start)
                    coverage, optimal, method = res.coverage, bool(res.info.get("optimal", False)), "exact"
                row.update(
                    coverage=coverage, coverage_pct=100 * coverage / ds.n_rows, method=method,
                    optimal=optimal, solve_s=time.perf_counter() - t0,
                    reached=bool(coverage >= rep.coverage - 1e-9),
                )
                rows.append(row)
                print(f"    {config:18s} M {pool.n_rules:5d} ({build_s:4.1f}s)  {peer:10s} ours {coverage:6.0f} "
                      f"{'>=' if row['reached'] else '< '} {rep.coverage:6.0f}"
                      f"  {method}{'' if row['optimal'] or method != 'exact' else ' (time limit)'}  {row['solve_s']:.1f}s",
                      flush=True)
    return pd.DataFrame(rows)


def summary_lines(df: pd.DataFrame) -> list[str]:
    out = []
    for config in dict.fromkeys(df["config"]):
        part = df[df["config"] == config]
        n, hit = len(part), int(part["reached"].sum())
        label = "default pool" if config == "default" else f"pool `{config}`"
        out.append(f"{label} reaches the peer's coverage in {hit} of {n} runs ({CONFIGS[config][0]})")
    return out


def markdown(df: pd.DataFrame, commands: list[str], time_limit: float) -> str:
    configs = list(dict.fromkeys(df["config"]))
    lines = [
        "# Our pool at a peer rule learner's own budgets",
        "",
        "Written by `scripts/peer_coverage.py`. For each data set and peer learner: the peer's rule set",
        "evaluated on the training rows (complexity = sum of conditions, errors = sum over rules of the",
        "misclassified rows each covers, coverage f* with eps = 1), then the exact solver on each pool",
        "configuration at exactly those budgets. A quick feasible selection is tried first, the better of",
        "the greedy one and the best whole tree of the pool within the budgets: when it already reaches",
        "the peer (`g` greedy, `t` tree; a lower bound on our optimum) the run stops there; otherwise the exact",
        f"solver runs (time limit {time_limit:g} s; `*` = stopped by the limit, best selection found).",
        "A cell is our f* in % of the rows; `✗` marks runs below the peer.",
        "",
        "Commands (in this order; `--merge` keeps the other configurations' rows):",
        "",
        *[f"    {c}" for c in commands],
        "",
        "## Summary",
        "",
        *[f"- {s}" for s in summary_lines(df)],
        "",
        "## Configurations",
        "",
        *[f"- `{c}`: {CONFIGS[c][0]}" for c in configs],
        "",
        "## Runs",
        "",
        "| data set | peer | rules | Bc | Be | peer % | " + " | ".join(f"`{c}`" for c in configs) + " |",
        "|---|---|---:|---:|---:|---:|" + "---:|" * len(configs),
    ]
    for (ds, peer), part in df.groupby(["dataset", "peer"], sort=False):
        first = part.iloc[0]
        cells = []
        for c in configs:
            r = part[part["config"] == c]
            if r.empty:
                cells.append("")
                continue
            r = r.iloc[0]
            mark = "" if r["reached"] else " ✗"
            star = {"greedy": "g", "tree": "t"}.get(r["method"], "" if r["optimal"] else "*")
            cells.append(f"{r['coverage_pct']:.1f}{star}{mark}")
        lines.append(
            f"| {ds} | {peer} | {int(first['peer_rules'])} | {int(first['complexity_budget'])} | "
            f"{int(first['error_budget'])} | {first['peer_coverage_pct']:.1f} | " + " | ".join(cells) + " |"
        )
    pools = df.groupby(["dataset", "config"], sort=False)[["pool_rules", "pool_build_s"]].first().reset_index()
    lines += [
        "",
        "## Pool sizes (M) and build times (s, one process, machine shared with other work)",
        "",
        "| data set | " + " | ".join(f"`{c}`" for c in configs) + " |",
        "|---|" + "---:|" * len(configs),
    ]
    for ds, part in pools.groupby("dataset", sort=False):
        cells = []
        for c in configs:
            r = part[part["config"] == c]
            cells.append("" if r.empty else f"{int(r.iloc[0]['pool_rules'])} ({r.iloc[0]['pool_build_s']:.2f})")
        lines.append(f"| {ds} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--datasets", type=lambda s: s.split(","), help="comma-separated names (default: all)")
    p.add_argument("--peers", type=lambda s: s.split(","), default=list(PEERS))
    p.add_argument("--configs", type=lambda s: s.split(","), default=list(CONFIGS))
    p.add_argument("--time-limit", type=float, default=20.0, help="seconds per exact run")
    p.add_argument("--always-exact", action="store_true", help="run the exact solver even when greedy reaches")
    p.add_argument("--merge", action="store_true",
                   help="keep the rows of other configurations already in STEM.csv")
    p.add_argument("--out", default=str(ROOT / "docs" / "benchmarks" / "peers"),
                   help="output stem: writes STEM.csv and STEM.md")
    args = p.parse_args(argv)
    unknown = [c for c in args.configs if c not in CONFIGS] + [q for q in args.peers if q not in PEERS]
    if unknown:
        p.error(f"unknown configuration or peer: {', '.join(unknown)}")
    df = run(args)
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    command = ("python scripts/peer_coverage.py " + " ".join(argv if argv is not None else sys.argv[1:])).strip()
    commands = [command]
    if args.merge and out.with_suffix(".csv").is_file():
        old = pd.read_csv(out.with_suffix(".csv"))
        old = old[~old["config"].isin(args.configs)]
        df = pd.concat([old, df], ignore_index=True)
        log = out.with_suffix(".commands")
        commands = (log.read_text(encoding="utf-8").splitlines() if log.is_file() else []) + commands
    out.with_suffix(".commands").write_text("\n".join(commands) + "\n", encoding="utf-8")
    df.to_csv(out.with_suffix(".csv"), index=False, float_format="%.6g")
    out.with_suffix(".md").write_text(markdown(df, commands, args.time_limit), encoding="utf-8")
    for line in summary_lines(df):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
