"""Command line: ``explainer rules|evaluate|explain|frontier|datasets|pools|bench``.

Bad input ends with one ``error: ...`` line on stderr and exit status 2, never a traceback.
Standard output carries the program's output only: what solvers print from native code (HiGHS
writes some lines with ``printf``, whatever its output flag) and libraries' warnings are dropped,
or sent to stderr with ``--verbose``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import pathlib
import sys
import warnings

import numpy as np

from explainer import __version__
from explainer.bench import add_arguments, encoding_kwargs, paper_settings
from explainer.bench import main as bench_main
from explainer.data import PAPER_DATASETS, load_paper_dataset, paper_data_dir
from explainer.data.defaults import default_load_settings
from explainer.data.labels import fallback_code, majority_class
from explainer.data.sources import find_source, load_source, sample_sources, unknown_source_message
from explainer.pipeline import (
    SIZES,
    default_budgets,
    every_class_explained,
    explain_pool,
    resolve_budgets,
    resolve_defaults,
    room_for_pins,
    row_weights,
    split_holdout,
)
from explainer.pipeline.alternatives import alternatives_text, check_method, explain_alternatives
from explainer.pipeline.validation import frontier_table
from explainer.report import accuracy_by_group, evaluate_rules
from explainer.report.exports import EXPORT_FORMATS, export_rule_text, export_text
from explainer.rules import MAX_TEXT_CHARS, parse_rule_text, parse_rules, rules_for_data
from explainer.rules.defaults import DEFAULT_DEPTH, DEFAULT_REPEATS, default_pool_settings
from explainer.rules.pinned import check_rule_texts
from explainer.rules.pool import build_pool
from explainer.rules.render import counted
from explainer.rules.ripper import parse_ripper
from explainer.selection.callbacks import ProgressBar
from explainer.selection.frontier import default_range, frontier
from explainer.selection.problem import SelectionProblem
from explainer.selection.settings import FORMS
from explainer.selection.solvers import ALGORITHMS, native_output
from explainer.selection.solvers.exact import exit_now_if_solving
from explainer.selection.solvers.native_output import flush_native_stdout
from explainer.selection.solvers.registry import check_params, parameter_names

EXIT_BAD_INPUT = 2
#: 128 + SIGPIPE: the conventional status of a writer whose reader went away (``| head``).
EXIT_CLOSED_PIPE = 141


class CLIError(Exception):
    pass


def _add_data_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("data", help="CSV file, or the name of a bundled sample / paper data set")
    p.add_argument("--target", help="target column (default: a column named class, target, label, y or "
                   "outcome, else the last column; one with a value per row is refused)")
    p.add_argument("--categorical", action="append", default=[], metavar="COL",
                   help="treat this integer-coded column as categorical (repeatable)")
    p.add_argument("--exclude", action="append", default=[], metavar="COL", help="drop this column (repeatable)")
    p.add_argument("--keep", action="append", default=[], metavar="COL",
                   help="keep this column even if it looks like an identifier (repeatable)")
    p.add_argument("--no-missing-indicators", action="store_true",
                   help="do not add '<column> is missing' features")
    p.add_argument("--data-dir", help="directory of the paper's data sets (default: the copy shipped "
                   "with the package)")


def _at_least(minimum: float, *, whole: bool = False, above: bool = False):
    """An argparse type: a finite number (a whole one with ``whole``) >= ``minimum`` (> with ``above``), else
    argparse's own ``error: argument --x: ...`` and status 2 (``inf`` once reached the solver as a traceback)."""
    def parse(text: str):
        try:
            value = int(text) if whole else float(text)
        except ValueError:
            value = None
        if value is None or not math.isfinite(value) or value < minimum or (above and value == minimum):
            kind = "a whole number" if whole else "a finite number"
            raise argparse.ArgumentTypeError(f"expected {kind} {'>' if above else '>='} {minimum:g}, got {text!r}")
        return value
    return parse


def _add_pool_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--depth", type=int, default=None,
                   help=f"D: trees of depth 1..D-1 (default {DEFAULT_DEPTH})")
    p.add_argument("--pool-seed", type=_at_least(0, whole=True), default=0,
                   help="random state of the tree grid (default 0)")
    p.add_argument("--repeats", type=_at_least(1, whole=True), default=None,
                   help=f"train the grid this many times (pool richness; default {DEFAULT_REPEATS})")
    p.add_argument("--source", choices=["grid", "forest"], default=None, help="default: grid")
    p.add_argument("--extra-rules", help="rule text file whose rules join the pool")


def _load(args):
    ds = _load_dataset(args)
    if ds.n_dropped_missing_target:
        print(f"note: {counted(ds.n_dropped_missing_target, 'row')} without a value of the class column "
              f"'{ds.target}' left out; {ds.n_rows:,} rows used", file=sys.stderr)
    for note in ds.notes:
        print(f"note: {note}", file=sys.stderr)
    for warning in ds.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return ds


def _load_dataset(args):
    if args.target is not None and not str(args.target).strip():
        raise CLIError("--target is empty: name the class column, or leave --target out for the suggested one")
    kwargs = {
        **default_load_settings(),
        "categorical": args.categorical,
        "exclude": args.exclude,
        "keep": args.keep,
        "missing_indicators": False if args.no_missing_indicators else "auto",
    }
    source = find_source(args.data, data_dir=args.data_dir)
    if source is None:
        raise CLIError(unknown_source_message(args.data))
    return load_source(source, args.target or None, **kwargs)


def _pool(args, ds, X=None, y=None):
    """The pool of ``ds`` (or of the rows ``X, y`` of it, e.g. the training rows of a held-out split)."""

    settings = default_pool_settings(max_depth=args.depth, n_repeats=args.repeats, source=args.source)
    extra = None
    if args.extra_rules:
        extra = parse_rules(_read_text(args.extra_rules))
    pool = build_pool(
        ds.X if X is None else X, ds.y if y is None else y, random_state=args.pool_seed, extra_rules=extra,
        classes=ds.classes, feature_specs=ds.feature_specs, forbidden_columns=_forbidden(args, ds), **settings,
    )
    left_out = pool.settings.get("n_extra_rules_forbidden")
    if left_out:
        print(f"note: {left_out} of the extra rules name a forbidden column and are left out of the pool",
              file=sys.stderr)
    return pool


def _add_forbid_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--forbid", action="append", default=[], metavar="COL",
                   help="keep this column out of every rule (repeatable); it stays in the table, the rows shown "
                        "and the accuracy by group. The trees of the pool learn without it")


def _forbidden(args, ds) -> list[str]:
    """``--forbid``: columns of the table (not the target) no rule may name; build_pool checks the rest."""
    forbidden = list(getattr(args, "forbid", None) or [])
    if ds.target in forbidden:
        raise CLIError(f"--forbid {ds.target}: that is the target column (the class), never in a condition")
    return forbidden


def _add_group_by_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--group-by", metavar="COL",
                   help="also report the coverage and accuracy of the explanation in each group of this column "
                        "(its values, missing as a group, a numeric column of many values in at most 8 ranges)")


def _group_values(ds, X, y, column: str):
    """The column's values on the rows ``X, y`` (the table's own values), or None without ``--group-by``."""
    if column is None:
        return None
    if column == ds.target:
        return np.asarray(y, dtype=object)
    table = ds.encoder.inverse_transform(X) if ds.encoder is not None else X
    if column not in table.columns:
        raise CLIError(f"--group-by {column}: not a column of the table (columns: {', '.join(map(str, table.columns))})")
    return table[column].to_numpy()


def _by_group(args, ds, exp, X, X_test, y, y_test) -> list:
    """``--group-by``: the by-group tables of the training rows (and of the held-out rows), none without it."""
    if args.group_by is None:
        return []
    tables = [accuracy_by_group(exp.report, _group_values(ds, X, y, args.group_by), args.group_by)]
    if exp.report.holdout is not None:
        tables.append(accuracy_by_group(exp.report.holdout, _group_values(ds, X_test, y_test, args.group_by),
                                        args.group_by, like=tables[0]))
    return tables


def _by_group_dict(tables: list) -> dict:
    out = tables[0].to_dict()
    if len(tables) > 1:
        out["holdout"] = tables[1].to_dict()["groups"]
    return out


def _read_text(path: str) -> str:
    p = pathlib.Path(path)
    if not p.is_file():
        raise CLIError(f"no rule file {path!r}")

    if p.stat().st_size > 4 * MAX_TEXT_CHARS:
        raise CLIError(f"rule file {path!r} is {p.stat().st_size} bytes; the limit is {MAX_TEXT_CHARS} characters")
    try:
        return p.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise CLIError(f"rule file {path!r} is not UTF-8 text") from None


def cmd_rules(args) -> int:
    ds = _load(args)
    pool = _pool(args, ds)
    summary = pool.summary()
    defaults = _default_budgets(pool)
    if defaults is not None:
        summary["default_budgets"] = defaults.to_dict()
    summary["data"] = {"name": ds.name, "rows": ds.n_rows, "features": ds.n_features,
                       "dropped_missing_target": ds.n_dropped_missing_target}
    if args.json:
        print(json.dumps(summary, indent=2, default=str))
        return 0
    bt = summary.get("best_tree")
    print(f"data:        {ds.name}: {ds.n_rows} rows, {ds.n_features} features, {len(ds.classes)} classes")
    if ds.n_dropped_missing_target:
        print(f"             {ds.n_dropped_missing_target} rows dropped (missing target)")
    print(f"trees:       {pool.n_trees} (depth 1..{pool.settings['max_depth'] - 1}, {pool.settings['source']})")
    print(f"rules (M):   {pool.n_rules} distinct of {pool.n_candidate_rules} paths")
    if bt:
        print(f"best tree:   complexity c* = {bt['complexity']}, errors e* = {bt['errors']} "
              f"(depth {bt['max_depth']}, {bt['criterion']}, {bt['splitter']}, max_features={bt['max_features']})")
    if defaults is not None:
        form = ("rules of every class" if defaults.form == "all" else
                f"rules only for the classes other than the fallback {majority_class(ds.y, classes=ds.classes)}")
        print(f"budgets:     --complexity {defaults.complexity_budget} --errors {defaults.error_budget} "
              f"(the default policy's, {form}; {100 * defaults.coverage / ds.n_rows:.2f}% coverage)")
    if args.show:
        for i, r in enumerate(pool.rules):
            print(f"{i:5d}  {r.text}")
    return 0


def _default_budgets(pool):

    return default_budgets(pool) if pool.trees else None


def cmd_evaluate(args) -> int:

    ds = _load(args)
    if args.ripper_class is not None:
        # a peer's rule set: wittgenstein RIPPER's ruleset_ for one class against the rest
        parsed, fallback = parse_ripper(_read_text(args.rules), _class_of(ds, args.ripper_class)), None
    else:
        try:  # the text export, or the JSON's or CSV's rules
            text = export_rule_text(_read_text(args.rules))
        except ValueError as exc:
            raise CLIError(f"{args.rules}: {exc}") from None
        parsed, fallback = parse_rule_text(text, labels=None)
    if not len(parsed) and fallback is None:  # an empty selection's export still holds its ELSE line
        raise CLIError(f"{args.rules}: no rule in it (IF ... THEN CLASS=... lines, or an export of explain)")
    rules = rules_for_data(parsed, ds.feature_specs, ds.classes)
    if fallback is not None:
        fallback = _class_of(ds, fallback)
    report = evaluate_rules(rules, ds.X, ds.y, eps=args.eps, complexity_budget=args.complexity,
                            error_budget=args.errors, fingerprint=ds.fingerprint, fallback=fallback,
                            target=ds.target, feature_specs=ds.feature_specs)
    if args.json:
        print(report.to_json())
    else:
        print(report.to_text(), end="")
        print()
        print(report.rules_frame().to_string(index=False))
    return 0


def _class_of(ds, label):
    by_text = {str(c): c for c in ds.classes}
    if str(label) not in by_text:
        raise CLIError(f"the class {label!r} is not a class of the data "
                       f"(classes: {', '.join(by_text)})")
    return by_text[str(label)]


#: --out file suffix -> the export written
OUT_FORMATS = {".txt": "text", ".json": "json", ".csv": "csv", ".sql": "sql", ".py": "python"}


def _class_weight(args):
    """``--class-weight``: None or ``"balanced"``; ``--errors`` then a weight, else a whole number of rows."""
    cw = None if args.class_weight == "none" else args.class_weight
    if args.errors is not None:
        if cw is None and float(args.errors) != int(args.errors):
            raise CLIError(f"--errors counts rows: a whole number unless --class-weight balanced, got {args.errors:g}")
        if cw is None:
            args.errors = int(args.errors)
    return cw


def _add_weight_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--class-weight", choices=["none", "balanced"], default="none",
                   help="weigh each row by its class: balanced gives every class the same total weight "
                        "(rows / (classes x rows of the class)); coverage and the error budget then count weight")


def _add_pin_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--pin", action="append", default=[], metavar='"IF ... THEN ..."',
                   help="a rule every selection holds (repeatable); a rule the pool lacks joins it")
    p.add_argument("--ban", action="append", default=[], metavar='"IF ... THEN ..."',
                   help="a rule no selection holds (repeatable)")


def _add_size_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--size", choices=list(SIZES), default=None,
                   help="size of the default explanation: the smallest whose held-out accuracy and Brier score "
                        "are within 1 (compact), 0.5 (balanced, default) or 0 (accurate) standard errors of the "
                        "best")


def _check_params(algorithm: str, params: dict) -> None:
    accepted = parameter_names(algorithm)
    for name in params:
        if accepted is not None and name not in accepted:
            flag = {"n_generations": "--generations", "time_limit": "--time-limit"}.get(name, name)
            raise CLIError(f"{flag} does not apply to the {algorithm} algorithm")
    check_params(algorithm, params)


def _algorithm_params(items) -> dict:
    """``--param KEY=VALUE`` items as the algorithm's parameters (VALUE read as JSON when it parses, else text)."""
    params: dict = {}
    for item in items or []:
        key, eq, value = str(item).partition("=")
        if not eq or not key.strip():
            raise CLIError(f"--param {item!r} is not KEY=VALUE")
        try:
            params[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            params[key.strip()] = value
    return params


def _check_outputs(args) -> None:
    """--json, --format and --out that say what to write, before any work (each was silently overruled)."""
    if args.json and args.format and not args.out:
        raise CLIError("--json and --format both choose what is printed: give one (with --out FILE, --format is "
                       "the file's export and --json the report printed)")
    if args.out and not args.format and pathlib.Path(args.out).suffix.lower() not in OUT_FORMATS:
        raise CLIError(f"--out {args.out}: its suffix names no export ({', '.join(OUT_FORMATS)}); give --format")
    if args.holdout_seed is not None and args.holdout is None:
        raise CLIError("--holdout-seed seeds the split of --holdout FRACTION: give --holdout too")
    if args.size is not None and args.complexity is not None and args.errors is not None:
        raise CLIError("--size chooses the default budgets; with both --complexity and --errors given there are "
                       "none to choose: leave one out, or --size")


def cmd_explain(args) -> int:
    _check_outputs(args)

    ds = _load(args)
    class_weight = _class_weight(args)
    X, y, X_test, y_test = ds.X, ds.y, None, None
    if args.holdout is not None:

        split_seed = args.seed if args.holdout_seed is None else args.holdout_seed
        X, X_test, y, y_test = split_holdout(ds.X, ds.y, args.holdout, random_state=split_seed)
    _group_values(ds, X.iloc[:0], y[:0], args.group_by)  # a bad --group-by fails before the run
    check_rule_texts(args.pin, args.ban, ds.feature_specs, ds.classes)  # before any work
    pool = _pool(args, ds, X, y)
    params = _algorithm_params(args.param)
    if args.generations is not None:
        params["n_generations"] = args.generations
    # checked before the default policy spends its time
    _check_alternatives(args)
    _check_params(args.algorithm, {**params, **({} if args.time_limit is None else {"time_limit": args.time_limit})})
    weights = row_weights(pool.y, pool.classes, class_weight)
    choice = resolve_defaults(pool, args.complexity, args.errors, args.eps, sample_weight=weights,
                              every_class=every_class_explained(class_weight), size=args.size)
    choice = room_for_pins(choice, pool, X, args.pin, weights, complexity_given=args.complexity is not None,
                           errors_given=args.errors is not None)
    run = choice.run_settings(algorithm=args.algorithm, algorithm_params=params, eps=args.eps,
                              class_weight=class_weight, seed=args.seed, time_limit=args.time_limit,
                              pinned=tuple(args.pin), banned=tuple(args.ban),
                              **({} if args.objective is None else {"objective": args.objective}),
                              **({} if args.form is None else {"form": args.form}))
    callback = None if args.quiet else ProgressBar()
    exp = explain_pool(pool, X, y, run, callback=callback, fingerprint=ds.fingerprint, X_test=X_test, y_test=y_test,
                       target=ds.target)
    found = None
    if args.alternatives:
        found = explain_alternatives(pool, X, y, run, exp.result.selection, args.alternatives, args.within)
    if args.out:
        kind = args.format or OUT_FORMATS.get(pathlib.Path(args.out).suffix.lower(), "text")
        pathlib.Path(args.out).write_text(export_text(exp.report, kind, exp.result.status), encoding="utf-8")
    by_group = _by_group(args, ds, exp, X, X_test, y, y_test)
    if args.json:
        d = exp.to_dict()
        if pool.forbidden_columns:  # as the other keys of a choice, there only when made
            d["forbidden_columns"] = list(pool.forbidden_columns)
        if ds.n_dropped_missing_target:
            d["dropped_missing_target"] = int(ds.n_dropped_missing_target)
        if by_group:
            d["accuracy_by_group"] = _by_group_dict(by_group)
        print(json.dumps(_with_alternatives(d, found), indent=2, default=str))
        return 0
    if args.format and not args.out:
        print(export_text(exp.report, args.format, exp.result.status), end="")
        return 0
    print(exp.report.to_text(), end="")
    if pool.forbidden_columns:
        print(f"forbidden columns:  {', '.join(pool.forbidden_columns)} (in no rule)")
    for table, rows in zip(by_group, ("", "held-out rows"), strict=False):
        print(table.to_text(rows), end="")
    r = exp.result
    print(f"algorithm:          {r.algorithm} ({r.status}{': ' + r.message if r.message else ''})")
    print(f"time:               {r.time_s:.2f}s, {counted(len(r.history), 'generation')}; pool M = {pool.n_rules}")
    if r.algorithm == "exact":
        print(f"optimal:            {r.info.get('optimal')}  (bound {r.info.get('bound')}, gap {r.info.get('gap')})")
    if found is not None:
        print(alternatives_text(found), end="")
    return 0


# ------------------------------------------------------------ --alternatives
def _add_alternatives_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--alternatives", type=int, default=0, metavar="K",
                   help="also find up to K other rule sets nearly as good, each differing by at least one rule "
                        "(exact with --algorithm exact: no-good cuts in the MILP; heuristic with qga: its "
                        "distinct individuals)")
    p.add_argument("--within", type=float, default=1.0, metavar="PTS",
                   help="how far below the best's objective an alternative may be, in percentage points of "
                        "the rows (default 1)")


def _check_alternatives(args) -> None:
    if args.alternatives < 0:
        raise CLIError(f"--alternatives counts rule sets: 0 or more, got {args.alternatives}")
    if not np.isfinite(args.within) or args.within < 0:
        raise CLIError(f"--within is a number of percentage points >= 0, got {args.within:g}")
    if args.alternatives:
        check_method(args.algorithm)


def _with_alternatives(out: dict, found: dict | None) -> dict:
    """The JSON report with the alternatives, the stable core and how they were found."""
    if found is None:
        return out
    out["alternatives"] = found["alternatives"]
    out["stable_core"] = found["stable_core"]
    out["alternatives_search"] = {key: found[key] for key in ("method", "k", "within", "complete", "message")}
    return out


def _parse_range(text: str) -> tuple[int, int]:
    try:
        lo, hi = (int(v) for v in text.split(":"))
    except ValueError:
        raise CLIError(f"a budget range reads A:B with whole numbers, got {text!r}") from None
    if lo < 0 or hi < lo:
        raise CLIError(f"a budget range A:B needs 0 <= A <= B, got {text!r}")
    return lo, hi


class _PointPrinter:
    """One stderr line per frontier point as the sweep goes."""

    def __init__(self, axis: str, n_rows: int):
        self.axis, self.n_rows = axis, n_rows

    def on_start(self, algorithm, problem):
        pass

    def on_point(self, point):
        b = point.complexity_budget if self.axis == "complexity" else point.error_budget
        mark = "optimal" if point.proven_optimal else "best found"
        print(f"\r{'Bc' if self.axis == 'complexity' else 'Be'} {b:5d}: {100 * point.coverage_score:6.2f}% ({mark})",
              end="", file=sys.stderr, flush=True)

    def on_end(self, result):
        print(file=sys.stderr)


def cmd_frontier(args) -> int:
    if args.metric == "accuracy" and (args.axis != "complexity" or args.errors_range or args.complexity_range):
        raise CLIError("--metric accuracy shows the default policy's validation curve, against conditions: "
                       "--axis, --complexity-range and --errors-range are for --metric coverage")
    ds = _load(args)
    class_weight = _class_weight(args)
    pool = _pool(args, ds)
    weights = row_weights(pool.y, pool.classes, class_weight)
    if args.metric == "accuracy":
        return _accuracy_frontier(args, ds, pool, weights, class_weight)
    if args.axis == "complexity" and args.errors is None:
        try:  # the same default Be as explain: the reference tree's errors e* (any Bc: only Be is filled)
            args.errors = resolve_budgets(pool, complexity_budget=1, sample_weight=weights,
                                          every_class=every_class_explained(class_weight))[1]
        except ValueError as exc:
            raise CLIError(str(exc)) from None
    if args.axis == "errors" and args.complexity is None:
        raise CLIError("give the complexity budget: --complexity BC")
    budget = args.errors if args.axis == "complexity" else args.complexity
    text_range = args.complexity_range if args.axis == "complexity" else args.errors_range
    budget_range = _parse_range(text_range) if text_range else default_range(pool, args.axis)
    if budget < 0:
        raise CLIError("budgets must be >= 0")
    callback = None if args.quiet or args.json else _PointPrinter(args.axis, ds.n_rows)
    source = pool if weights is None else SelectionProblem.from_pool(pool, eps=args.eps, sample_weight=weights)
    fr = frontier(source, budget, budget_range, axis=args.axis, eps=args.eps, random_state=args.seed,
                  callback=callback, exact_time_limit=args.exact_time_limit, qga_time_limit=args.qga_time_limit,
                  backward=True)  # as on the dashboard: larger budgets warm-start smaller ones too
    if args.json:
        d = fr.to_dict()
        for point, p in zip(d["points"], fr, strict=True):
            # what predict gives rows no rule covers: the most frequent class, by weight, of those rows
            covered = np.asarray(pool.coverage[:, np.flatnonzero(p.selection)].sum(axis=1)).ravel() > 0
            fallback = pool.classes[fallback_code(pool.y, covered, len(pool.classes), weights)]
            point["rules_text"] = pool.rule_set(p.selection).to_text(fallback=fallback)
        d["data"] = {"name": ds.name, "rows": ds.n_rows, "fingerprint": ds.fingerprint}
        d["pool_rules"] = pool.n_rules
        d["forbidden_columns"] = list(pool.forbidden_columns)
        print(json.dumps(d, indent=2, default=str))
        return 0
    print(fr.to_text(), end="")
    return 0


def _accuracy_frontier(args, ds, pool, weights, class_weight) -> int:
    """``frontier --metric accuracy``: the default policy's validation curve, held-out accuracy against conditions,
    with the default it chose marked."""
    try:
        choice = resolve_defaults(pool, eps=args.eps, sample_weight=weights,
                                  every_class=every_class_explained(class_weight), size=args.size)
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    if args.json:
        print(json.dumps({"metric": "accuracy", "size": choice.size, "points": choice.frontier_dicts(),
                          "default": {"complexity_budget": choice.complexity_budget,
                                      "error_budget": choice.error_budget, "form": choice.form,
                                      "objective": choice.objective},
                          "data": {"name": ds.name, "rows": ds.n_rows, "fingerprint": ds.fingerprint},
                          "pool_rules": pool.n_rules, "forbidden_columns": list(pool.forbidden_columns)},
                         indent=2, default=str))
        return 0
    print(f"held-out accuracy of the default policy's candidates ({ds.name}, size {choice.size}; * the default)")
    print(frontier_table(list(choice.frontier)), end="")
    return 0


def cmd_datasets(args) -> int:

    print("bundled samples:")
    for sample in sample_sources():
        print(f"  {sample.name:26s} {sample.path}")
    d = pathlib.Path(args.data_dir) if args.data_dir else paper_data_dir()
    print(f"paper data sets ({d if d.is_dir() else f'{d}: directory not found'}):")
    for name in PAPER_DATASETS:
        paper = find_source(name, ("paper",), args.data_dir)
        if paper is None:  # the name is the paper's own: found unless the folder lacks it
            print(f"  {name:26s} (missing)")
            continue
        print(f"  {name:26s} target {paper.target!r}{'' if paper.available else '  (missing)'}")
    return 0


def cmd_pools(args) -> int:
    """Pool sizes of the paper's data sets at the paper's depths, beside the paper's M."""

    settings = paper_settings()
    rows = []
    for name, st in settings.items():
        ds = load_paper_dataset(name, args.data_dir, **encoding_kwargs(name, args.encoding))
        pool = build_pool(ds.X, ds.y, int(st["depth"]), random_state=args.pool_seed,
                          n_repeats=args.repeats, classes=ds.classes, feature_specs=ds.feature_specs)
        rows.append({"dataset": name, "depth": int(st["depth"]), "features": ds.n_features,
                     "trees": pool.n_trees, "paper_trees": int(st["trees"]),
                     "paths": pool.n_candidate_rules, "M": pool.n_rules, "paper_M": int(st["rules"])})
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{'dataset':26s} {'D':>3s} {'features':>8s} {'trees':>6s} {'paper':>6s} {'paths':>6s} {'M':>6s} {'paper M':>8s}")
    for r in rows:
        print(f"{r['dataset']:26s} {r['depth']:3d} {r['features']:8d} {r['trees']:6d} {r['paper_trees']:6d} "
              f"{r['paths']:6d} {r['M']:6d} {r['paper_M']:8d}")
    return 0


def cmd_bench(args) -> int:

    return bench_main(args)


class _Parser(argparse.ArgumentParser):
    """argparse's parser whose errors are one line, as every other error of the program (its usage block, some
    twenty lines, stays behind ``--help``)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:

    parser = _Parser(prog="explainer", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"explainer {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("rules", help="build the rule pool; print its size and the best-tree budgets")
    _add_data_args(p)
    _add_pool_args(p)
    p.add_argument("--show", action="store_true", help="also list every rule of the pool")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_rules)

    p = sub.add_parser("evaluate", help="metrics report of a rule file on the data")
    _add_data_args(p)
    p.add_argument("rules", help="rule text file, one 'IF ... THEN CLASS=...' a line (and 'ELSE CLASS=...')")
    p.add_argument("--ripper-class", metavar="CLASS",
                   help="the file is a wittgenstein RIPPER rule set (str(clf.ruleset_)) for this class")
    p.add_argument("--eps", type=float, default=1.0)
    p.add_argument("--complexity", type=_at_least(0, whole=True), help="complexity budget to check against")
    p.add_argument("--errors", type=_at_least(0, whole=True), help="error budget to check against")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("explain", help="select a rule set within the budgets")
    _add_data_args(p)
    _add_pool_args(p)
    p.add_argument("--complexity", type=_at_least(0, whole=True),
                   help="complexity budget Bc (default: the default policy's, with its form of explanation)")
    p.add_argument("--errors", type=_at_least(0), help="error budget Be (default: the default policy's; "
                   "a weight with --class-weight balanced)")
    p.add_argument("--eps", type=float, default=1.0)
    _add_weight_args(p)
    p.add_argument("--algorithm", default="qga", choices=list(ALGORITHMS))
    p.add_argument("--objective", default=None, choices=["coverage", "accuracy"],
                   help="what the selection maximises: the paper's coverage f* or the training rows "
                        "the rules get right, the ELSE class included, minus the same conflict penalty "
                        "(default: the default policy's at its budgets, else coverage)")
    _add_size_arg(p)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--generations", type=_at_least(1, whole=True), help="generation limit of the genetic algorithms")
    p.add_argument("--time-limit", type=_at_least(0, above=True),
                   help="seconds; every algorithm stops there with its best selection so far")
    _add_pin_args(p)
    p.add_argument("--out", help="also write the rules to this file, in the --format or as its suffix says "
                   "(.txt rules with the ELSE line, .json, .csv, .sql a CASE WHEN expression, .py a Python function)")
    p.add_argument("--format", choices=list(EXPORT_FORMATS),
                   help="the export to print (or to write with --out) instead of the report")
    p.add_argument("--holdout", type=float, metavar="FRACTION",
                   help="hold out this share of the rows (stratified, seeded by --holdout-seed, else --seed); "
                        "pool and selection use the rest, the report shows both")
    p.add_argument("--holdout-seed", type=int, default=None,
                   help="random state of the held-out split (default: --seed; the dashboard uses its pool seed)")
    p.add_argument("--form", default=None, choices=list(FORMS),
                   help="rules for every class (all) or only for the classes other than the most frequent one, "
                        "which takes the rest (fallback); default: the default policy's at its budgets, else all")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="a parameter of the algorithm (repeatable; VALUE read as JSON when it parses)")
    _add_alternatives_args(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true")
    _add_forbid_arg(p)
    _add_group_by_arg(p)
    p.set_defaults(func=cmd_explain)

    p = sub.add_parser("frontier", help="the best coverage found at every complexity budget (or error budget); "
                                        "each point says whether it is proven optimal")
    _add_data_args(p)
    _add_pool_args(p)
    p.add_argument("--errors", type=_at_least(0),
                   help="error budget Be, fixed while Bc is swept (default, as for explain: the reference tree's errors e*; "
                        "a weight with --class-weight balanced)")
    _add_weight_args(p)
    p.add_argument("--complexity-range", metavar="A:B", help="complexity budgets to sweep (default 1:2c*)")
    p.add_argument("--axis", choices=["complexity", "errors"], default="complexity",
                   help="sweep Bc at a fixed --errors (default) or Be at a fixed --complexity")
    p.add_argument("--complexity", type=_at_least(0, whole=True), help="complexity budget Bc (fixed with --axis errors)")
    p.add_argument("--errors-range", metavar="A:B", help="error budgets to sweep with --axis errors (default 0:2e*)")
    p.add_argument("--eps", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--exact-time-limit", type=_at_least(0), default=0.5,
                   help="seconds of the exact solver per point (0: none)")
    p.add_argument("--qga-time-limit", type=float, default=0.5, help="seconds of one QGA run")
    p.add_argument("--metric", choices=["coverage", "accuracy"], default="coverage",
                   help="coverage: the best f* at every budget (default); accuracy: the default policy's held-out "
                        "(validation) accuracy and balanced accuracy against conditions, its default marked")
    _add_size_arg(p)
    p.add_argument("--quiet", action="store_true", help="no progress line")
    p.add_argument("--json", action="store_true")
    _add_forbid_arg(p)
    p.set_defaults(func=cmd_frontier)

    p = sub.add_parser("pools", help="pool sizes of the paper's data sets beside the paper's M")
    p.add_argument("--data-dir")
    p.add_argument("--encoding", choices=["paper", "plain"], default="paper")
    p.add_argument("--pool-seed", type=int, default=0)
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_pools)

    p = sub.add_parser("datasets", help="list bundled samples and the paper's data sets")
    p.add_argument("--data-dir")
    p.set_defaults(func=cmd_datasets)

    p = sub.add_parser("bench", help="reproduce the paper's Table 3 (and more)")
    add_arguments(p)
    p.set_defaults(func=cmd_bench)
    for p in sub.choices.values():
        p.add_argument("--verbose", action="store_true",
                       help="show what solvers and libraries print (on stderr; stdout stays the output)")
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    with _stdout_for_output_only(verbose=getattr(args, "verbose", False)):
        return _run_command(args)


def _run_command(args) -> int:
    try:
        status = int(args.func(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        return status
    except BrokenPipeError:
        return _closed_pipe()
    except (CLIError, ValueError, KeyError, OSError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        print(f"error: {msg}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


@contextlib.contextmanager
def _stdout_for_output_only(verbose: bool):
    """While a command runs, ``print`` writes to the real stdout and file descriptor 1 goes to
    /dev/null (stderr with ``verbose``), so native code that prints (HiGHS) cannot mix its lines
    into the output; Python warnings are shown only with ``verbose``."""
    with warnings.catch_warnings():
        if not verbose:
            warnings.simplefilter("ignore")
        try:
            redirect = sys.stdout.fileno() == 1
        except (AttributeError, OSError, ValueError):  # stdout is captured or replaced: nothing to keep clean
            redirect = False
        if not redirect:
            yield
            return
        original = sys.stdout
        original.flush()
        output_fd = os.dup(1)
        elsewhere = os.dup(2) if verbose else os.open(os.devnull, os.O_WRONLY)
        os.dup2(elsewhere, 1)
        os.close(elsewhere)
        sys.stdout = open(output_fd, "w", encoding=original.encoding, errors=original.errors,  # noqa: SIM115
                          buffering=1 if original.line_buffering else -1)
        aside = native_output.solver_lines_to
        native_output.solver_lines_to = 2 if verbose else None  # what a solve's filter takes out, as the rest
        try:
            yield
        finally:
            native_output.solver_lines_to = aside
            with contextlib.suppress(OSError, ValueError):
                sys.stdout.flush()
            flush_native_stdout()  # what native code buffered goes where it was printed, not to stdout
            os.dup2(sys.stdout.fileno(), 1)
            with contextlib.suppress(OSError, ValueError):
                sys.stdout.close()
            sys.stdout = original


def _closed_pipe() -> int:
    """The reader of our output went away (``explainer rules X --show | head``): stop quietly."""
    try:
        # Python flushes stdout once more at exit; let that write go nowhere.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return EXIT_CLOSED_PIPE


def run() -> None:
    """The ``explainer`` command: :func:`main`, then the process's end (at once while a stopped exact
    solve still finishes in the background, see :func:`~explainer.selection.solvers.exact.exit_now_if_solving`)."""
    status = main()
    exit_now_if_solving(status)
    sys.exit(status)


if __name__ == "__main__":
    run()
