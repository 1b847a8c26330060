"""Pool -> problem -> solve -> report in one call (used by the CLI, the estimator and the dashboard)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from explainer.data.labels import class_counts, label_key, match_label
from explainer.pipeline.policy import (
    PolicyChoice,
    every_class_explained,
    form_rules,
    resolve_defaults,
)
from explainer.pipeline.reading import as_budget, left_out_class, widen_selection
from explainer.report import RuleSetReport, evaluate_rules
from explainer.rules.pinned import canonical_texts, resolve_rules
from explainer.rules.pool import RulePool
from explainer.selection.callbacks import CallbackList
from explainer.selection.problem import SelectionProblem
from explainer.selection.result import SelectionResult
from explainer.selection.settings import RunSettings
from explainer.selection.solvers import solve_run


@dataclass
class Explanation:
    pool: RulePool | None  # None once sent from a worker to the page, which has the pool
    problem: SelectionProblem | None  # None once sent from a worker: no page reads it
    result: SelectionResult
    report: RuleSetReport

    @property
    def rules(self):
        return self.report.rules

    def to_dict(self) -> dict:
        out = self.report.to_dict()  # the metrics of the rows as counted (the run's may be weighted)
        out.update(self.result.run_dict(), rules_text=self.report.rules_text())
        if self.pool is not None:
            out.update(pool_rules=self.pool.n_rules, pool_trees=self.pool.n_trees)
        if self.result.algorithm == "exact":
            out["optimal"] = bool(self.result.info.get("optimal", False))
            out["bound"] = self.result.info.get("bound")
            out["gap"] = self.result.info.get("gap")
        return out



def explain_pool(
    pool: RulePool,
    X,
    y,
    settings: RunSettings | None = None,
    *,
    complexity_budget=None,
    error_budget=None,
    eps: float = 1.0,
    algorithm: str = "qga",
    random_state=None,
    callback=None,
    fingerprint: str | None = None,
    algorithm_params: dict | None = None,
    X_test=None,
    y_test=None,
    target: str | None = None,
    rules=None,
    sample_weight=None,
    class_weight=None,
    every_class=None,
    objective: str | None = None,
) -> Explanation:
    """Solve ``pool`` as ``settings`` asks and report on ``(X, y)``.

    ``settings``: the :class:`~explainer.selection.settings.RunSettings` of the run, handed to the solver
    unchanged; its budgets are used as they are (``None``: no budget) and its form picks the rules
    (:func:`form_rules`).  Without it, the run is described by the keywords instead (``complexity_budget``
    ... ``class_weight``), missing budgets filled by the default policy (:func:`resolve_defaults`), and
    ``rules`` (pool indices) may name the rules the selection may use.

    With ``X_test, y_test`` (rows the pool never saw, see :func:`split_holdout`) the report also holds the
    rules' metrics on them (``report.holdout``); ``target`` names the class column in the report.
    ``sample_weight`` (one per row of the pool) weighs the selection's rows
    (:class:`~explainer.selection.problem.SelectionProblem`), the error budget then being a weight; the
    class weight (``None``, ``"balanced"`` or a mapping of class label to weight) multiplies them by the
    weight of each row's class (:func:`row_weights`).  The report counts rows either way, and gives the
    weighted errors and f* beside them.  ``every_class``: see :func:`default_budgets` (``None``:
    :func:`every_class_explained` of ``class_weight``).  ``objective`` (keyword path only; else the settings'):
    what the selection maximises (``None``: the policy's choice at its default budgets, else "coverage"),
    "coverage" (f*) or "accuracy" (the rows the rules get right,
    :mod:`explainer.selection.objectives`, the uncovered rows counted right when of the class the fallback form
    leaves out, :func:`left_out_class`); the report's ELSE class is the fallback of the rows the rules leave.
    """
    if settings is None:
        weights = row_weights(pool.y, pool.classes, class_weight, sample_weight)
        choice = resolve_defaults(pool, complexity_budget, error_budget, eps, sample_weight=weights,
                                  every_class=every_class_explained(class_weight) if every_class is None
                                  else every_class)
        settings = choice.run_settings(algorithm=algorithm, algorithm_params=algorithm_params or {}, eps=eps,
                                       class_weight=class_weight, seed=random_state,
                                       **({} if objective is None else {"objective": objective}))
    else:
        passed = {"complexity_budget": complexity_budget, "error_budget": error_budget, "algorithm_params": algorithm_params,
                  "random_state": random_state, "rules": rules, "class_weight": class_weight, "every_class": every_class,
                  "objective": objective}
        given = [k for k, v in passed.items() if v is not None] + (["eps"] if eps != 1.0 else []) + (
            ["algorithm"] if algorithm != "qga" else [])
        if given:
            raise TypeError(f"explain_pool: the settings describe the run; do not pass {', '.join(given)} too")
        weights = row_weights(pool.y, pool.classes, settings.class_weight, sample_weight)
    rules = form_rules(pool, settings.form) if rules is None else np.asarray(rules, dtype=np.int64).ravel()
    # the pinned and banned rules, by their text; a pinned rule the pool lacks joins it (and the rules allowed)
    pool, pinned, banned = resolve_rules(pool, X, settings.pinned, settings.banned)
    if rules is not None and pinned.size:
        rules = np.union1d(rules, pinned)
    return _explain(pool, X, y, settings, rules, weights, callback=callback, fingerprint=fingerprint,
                    X_test=X_test, y_test=y_test, target=target, pinned=pinned, banned=banned)


def room_for_pins(choice: PolicyChoice, pool: RulePool, X, pinned, weights=None, *, complexity_given: bool = False,
                  errors_given: bool = False) -> PolicyChoice:
    """``choice`` with room for the ``pinned`` rule texts: each budget the policy chose (not one the user gave)
    grows by what the pins take (their conditions; their errors, weighted by ``weights``), so the pins come on
    top of the explanation the policy chose instead of crowding it out, or exceeding a budget nobody set."""
    if not pinned or (complexity_given and errors_given):
        return choice
    pool, idx, _ = resolve_rules(pool, X, tuple(pinned), ())
    problem = SelectionProblem.from_pool(pool, 0, 0, sample_weight=weights)
    extra_complexity = 0 if complexity_given else int(problem.lengths[idx].sum())
    extra_errors = 0 if errors_given else problem.errors[idx].sum()
    return replace(choice, complexity_budget=choice.complexity_budget + extra_complexity,
                   error_budget=as_budget(choice.error_budget + extra_errors, weights))


def _explain(pool: RulePool, X, y, settings: RunSettings, rules, weights, *, callback, fingerprint, X_test, y_test,
             target, pinned=None, banned=None) -> Explanation:
    """The run itself: problem (the budgets as the settings give them, the pinned and banned pool indices),
    solver, report."""
    bc, be = settings.complexity_budget, settings.error_budget
    # the ELSE class the accuracy objective counts right: the class the fallback form leaves out
    fallback = left_out_class(pool) if settings.objective == "accuracy" else None
    problem = SelectionProblem.from_pool(pool, bc, be, eps=settings.eps, sample_weight=weights,
                                         objective=settings.objective, fallback=fallback, pinned=pinned,
                                         banned=banned)
    solved = problem if rules is None else problem.restrict(rules)
    if rules is not None and callback is not None:
        callback = _PoolSelections(callback, rules, pool.n_rules)
    result = solve_run(solved, settings, callback=callback)
    if rules is not None:  # the selection over the pool's rules, as every reader expects it
        selection = widen_selection(result.selection, rules, pool.n_rules)
        result = replace(result, selection=selection, evaluation=problem.evaluate(selection))
    cw = settings.class_weight
    report = evaluate_rules(
        pool.rule_set(result.selection),
        X,
        y,
        eps=settings.eps,
        complexity_budget=bc,
        error_budget=be,
        fingerprint=fingerprint,
        X_test=X_test,
        y_test=y_test,
        target=target,
        sample_weight=weights,
        feature_specs=pool.feature_specs,
        settings={
            "objective": settings.objective,
            "form": settings.form,
            "class_weight": cw if cw is None or isinstance(cw, str) else {str(k): float(v) for k, v in cw.items()},
            "algorithm": settings.algorithm,
            "random_state": settings.seed,
            "complexity_budget": bc,
            "error_budget": be,
            "eps": settings.eps,
            "pool": pool.settings,
            "algorithm_params": settings.solver_params(),
            # the classes whose rules the selection could use (None: every class's)
            "rule_classes": None if rules is None
            else [str(pool.classes[k]) for k in np.unique(pool.rule_class[rules])],
            # the rules the analyst pinned and banned, as the pool writes them (a ban the pool lacks too)
            "pinned": [pool.rules[i].text for i in problem.pinned],
            "banned": canonical_texts(settings.banned, pool),
        },
    )
    return Explanation(pool=pool, problem=problem, result=result, report=report)


class _PoolSelections(CallbackList):
    """A run's callback, told its best selections over the pool's rules rather than the form's (what a reader of
    the pool indexes)."""

    def __init__(self, callback, rules: np.ndarray, n_rules: int):
        super().__init__([callback])
        self.rules, self.n_rules = rules, n_rules

    def on_best(self, selection, value):
        super().on_best(widen_selection(selection, self.rules, self.n_rules), value)


CLASS_WEIGHTS = (None, "balanced")


def row_weights(codes, classes, class_weight=None, sample_weight=None):
    """The rows' weights: ``sample_weight`` (ones when ``None``) times the weight of each row's class.

    ``codes``: each row's class code (an index into ``classes``).  ``class_weight``: ``None``
    (every class 1), ``"balanced"`` (``n_rows / (n_classes * rows of the class)``, as
    scikit-learn's ``compute_sample_weight``, the classes present in the rows counted) or a dict
    from class label (or its text) to weight (classes it leaves out weigh 1).  ``None`` when both
    are ``None``: the selection then counts rows as integers.
    """
    if class_weight is None and sample_weight is None:
        return None
    codes = np.asarray(codes, dtype=np.int64)
    w = np.ones(codes.size) if sample_weight is None else np.asarray(sample_weight, dtype=float).ravel().copy()
    if w.shape != codes.shape:
        raise ValueError(f"sample_weight needs one weight per row ({codes.size}), got {w.size}")
    if not np.all(np.isfinite(w)) or (w < 0).any():
        raise ValueError("sample_weight must be finite and >= 0")
    if class_weight is None:
        return w
    if isinstance(class_weight, str):
        if class_weight != "balanced":
            raise ValueError(f"class_weight must be None, 'balanced' or a dict, got {class_weight!r}")
        counts = np.bincount(codes, minlength=len(classes)).astype(float)
        present = np.count_nonzero(counts)
        per_class = np.where(counts > 0, codes.size / (present * np.maximum(counts, 1.0)), 0.0)
    elif isinstance(class_weight, Mapping):
        # each key names a class as the label module reads labels (a key from a link or a file is text)
        per_class = np.ones(len(classes))
        unknown = []
        for key, weight in class_weight.items():
            try:
                per_class[[label_key(c) for c in classes].index(label_key(match_label(key, classes)))] = float(weight)
            except ValueError:
                unknown.append(str(key))
        if unknown:
            raise ValueError(f"class_weight names classes not in y: {', '.join(sorted(unknown))}")
        if not np.all(np.isfinite(per_class)) or (per_class < 0).any():
            raise ValueError("class_weight values must be finite and >= 0")
    else:
        raise ValueError(f"class_weight must be None, 'balanced' or a dict, got {class_weight!r}")
    return w * per_class[codes]


def split_holdout(X, y, fraction: float, random_state=None):
    """(X_train, X_test, y_train, y_test): a stratified split holding out ``fraction`` of the rows.

    Falls back to a plain shuffled split when a class has too few rows to stratify.
    """
    from sklearn.model_selection import train_test_split

    if not 0.0 < float(fraction) < 1.0:
        raise ValueError(f"the held-out fraction must be between 0 and 1, got {fraction}")
    y = np.asarray(y)
    n = len(y)
    n_test = int(np.ceil(float(fraction) * n))
    if n_test < 1 or n - n_test < 2:
        raise ValueError(f"holding out {fraction:g} of {n} rows leaves too few rows to learn from or to test on")
    counts, _ = class_counts(y)
    classes = len(counts)
    stratify = y if counts.min() >= 2 and n_test >= classes and n - n_test >= classes else None
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=n_test, random_state=random_state, stratify=stratify
    )
    if isinstance(X_train, pd.DataFrame):
        X_train, X_test = X_train.reset_index(drop=True), X_test.reset_index(drop=True)
    return X_train, X_test, y_train, y_test
