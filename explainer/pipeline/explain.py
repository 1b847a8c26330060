"""Pool -> problem -> solve -> report in one call (used by the CLI, the estimator and the dashboard)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from explainer.pipeline.policy import every_class_explained, resolve_defaults, widen_selection
from explainer.report import RuleSetReport, evaluate_rules
from explainer.report.evaluation import majority_class
from explainer.rules.pool import RulePool
from explainer.selection.problem import SelectionProblem
from explainer.selection.result import SelectionResult
from explainer.selection.solvers import solve


@dataclass
class Explanation:
    pool: RulePool
    problem: SelectionProblem
    result: SelectionResult
    report: RuleSetReport

    @property
    def rules(self):
        return self.report.rules

    def to_dict(self) -> dict:
        out = self.report.to_dict()
        out.update(
            algorithm=self.result.algorithm,
            status=self.result.status,
            message=self.result.message,
            time_s=self.result.time_s,
            generations=len(self.result.history),
            rules_text=self.report.rules_text(),
            pool_rules=self.pool.n_rules,
            pool_trees=self.pool.n_trees,
        )
        if self.result.algorithm == "exact":
            out["optimal"] = bool(self.result.info.get("optimal", False))
            out["bound"] = self.result.info.get("bound")
            out["gap"] = self.result.info.get("gap")
        return out



def explain_pool(
    pool: RulePool,
    X,
    y,
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
    objective: str = "coverage",
    fallback=None,
) -> Explanation:
    """Solve ``pool`` within the budgets (missing ones: :func:`default_budgets`) and report on ``(X, y)``.

    ``rules``: pool indices of the rules the selection may use (``None``: all of them, or, when
    the policy chooses both budgets, the rules of the form it chose; see :func:`resolve_defaults`).
    With ``X_test, y_test`` (rows the pool never saw, see :func:`split_holdout`) the
    report also holds the rules' metrics on them (``report.holdout``); ``target`` names the
    class column in the report.  ``sample_weight`` (one per row of the pool) weighs the
    selection's rows (:class:`~explainer.selection.problem.SelectionProblem`), the error budget
    then being a weight; ``class_weight`` (``None``, ``"balanced"`` or a dict of class label to
    weight) multiplies them by the weight of each row's class (:func:`row_weights`).  The report
    counts rows either way, and gives the weighted errors and f* beside them.  ``every_class``: see
    :func:`default_budgets` (``None``: :func:`every_class_explained` of ``class_weight``).
    ``objective``: what the selection maximises, "coverage" (f*) or "accuracy" (the rows the rules
    get right, :mod:`explainer.selection.objectives`), the uncovered rows then counted right when of
    class ``fallback`` (a class label; ``None``: the pool's majority class, which the report then uses too).
    """
    weights = row_weights(pool.y, pool.classes, class_weight, sample_weight)
    bc, be, chosen = resolve_defaults(pool, complexity_budget, error_budget, eps, sample_weight=weights,
                                      every_class=every_class_explained(class_weight) if every_class is None else every_class)
    sample_weight = weights
    rules = chosen if rules is None else np.asarray(rules, dtype=np.int64).ravel()
    fallback_code = None
    if objective == "accuracy":  # the ELSE class the objective counts is the one the report predicts with
        fallback = majority_class(np.asarray(pool.classes)[pool.y]) if fallback is None else fallback
        fallback_code = [str(c) for c in pool.classes].index(str(fallback))
    problem = SelectionProblem.from_pool(pool, bc, be, eps=eps, sample_weight=sample_weight,
                                         objective=objective, fallback=fallback_code)
    solved = problem if rules is None else problem.restrict(rules)
    result = solve(solved, algorithm, random_state=random_state, callback=callback, **(algorithm_params or {}))
    if rules is not None:  # the selection over the pool's rules, as every reader expects it
        selection = widen_selection(result.selection, rules, pool.n_rules)
        result = replace(result, selection=selection, evaluation=problem.evaluate(selection))
    report = evaluate_rules(
        pool.rule_set(result.selection),
        X,
        y,
        eps=eps,
        complexity_budget=bc,
        error_budget=be,
        fingerprint=fingerprint,
        X_test=X_test,
        y_test=y_test,
        target=target,
        sample_weight=sample_weight,
        fallback=fallback,
        settings={
            "objective": objective,
            "class_weight": class_weight if class_weight is None or isinstance(class_weight, str)
            else {str(k): float(v) for k, v in class_weight.items()},
            "algorithm": algorithm,
            "random_state": random_state,
            "complexity_budget": bc,
            "error_budget": be,
            "eps": eps,
            "pool": pool.settings,
            "algorithm_params": algorithm_params or {},
            # the classes whose rules the selection could use (None: every class's)
            "rule_classes": None if rules is None
            else [str(pool.classes[k]) for k in np.unique(pool.rule_class[rules])],
        },
    )
    return Explanation(pool=pool, problem=problem, result=result, report=report)


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
    elif isinstance(class_weight, dict):
        by_text = {str(k): v for k, v in class_weight.items()}
        unknown = set(by_text) - {str(c) for c in classes}
        if unknown:
            raise ValueError(f"class_weight names classes not in y: {', '.join(sorted(unknown))}")
        per_class = np.array([float(by_text.get(str(c), 1.0)) for c in classes])
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
    _, counts = np.unique(y.astype(str), return_counts=True)
    classes = len(counts)
    stratify = y if counts.min() >= 2 and n_test >= classes and n - n_test >= classes else None
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=n_test, random_state=random_state, stratify=stratify
    )
    if isinstance(X_train, pd.DataFrame):
        X_train, X_test = X_train.reset_index(drop=True), X_test.reset_index(drop=True)
    return X_train, X_test, y_train, y_test
