"""Pool -> problem -> solve -> report in one call (used by the CLI, the estimator and the dashboard)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from explainer.report import RuleSetReport, evaluate_rules
from explainer.rules.pool import RulePool
from explainer.selection.callbacks import Callback
from explainer.selection.frontier import coverable_rows, frontier, local_search
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


#: the default Bc is the smallest whose coverage is within this many percentage points of the best at Be
KNEE_TOLERANCE = 3.0


@dataclass
class DefaultBudgets:
    """The default budgets and the points of the frontier searched to find them."""

    complexity_budget: int
    error_budget: int
    coverage: float  # f* found at the default budgets
    reference: float  # best f* known at the default Be (any Bc): what the knee is measured against
    n_rows: int
    searched: dict  # Bc -> f* found, for every Bc the search looked at
    tolerance: float = KNEE_TOLERANCE
    selection: np.ndarray | None = None  # what the search found at the default budgets
    #: Bc -> the selection found there, for every Bc the search looked at (up to the knee)
    selections: dict = field(default_factory=dict, repr=False)
    #: the error budgets the policy weighed (see :func:`default_budgets`), one dict each
    candidates: list = field(default_factory=list)

    def to_dict(self) -> dict:
        n = self.n_rows or 1
        out = {
            "complexity_budget": self.complexity_budget,
            "error_budget": self.error_budget,
            "coverage_score": self.coverage / n,
            "reference_coverage_score": self.reference / n,
            "tolerance_points": self.tolerance,
        }
        if self.candidates:
            out["candidates"] = self.candidates
        return out


#: the QGA run that estimates the frontier's maximum for the default budgets: small, for a first page load,
#: and without the population merge, which is the exact solver (measured: tic-tac-toe's defaults took
#: 4.5 s with it, the same budgets)
DEFAULTS_QGA = {"n_population": 20, "n_generations": 5, "merge": False}


#: the error budgets the default policy weighs, as shares of e*, the errors of the pool's reference tree
ERROR_SHARES = (0.0, 0.25, 0.5)
#: training rows one condition must win to be worth its place in the default explanation (a price
#: of 0.5 % of the rows left larger tables with tiny explanations on the first click: tic-tac-toe
#: got 12 conditions and 81 % of its training rows right; README, "Accuracy against peers")
CONDITION_PRICE = 1.0


def default_budgets(pool: RulePool, *, error_budget=None, eps: float = 1.0,
                    tolerance: float = KNEE_TOLERANCE, sample_weight=None) -> DefaultBudgets:
    """Default budgets, chosen for accuracy and size together.

    With ``error_budget`` given, Bc is the knee of the coverage frontier at that Be
    (:func:`knee_budgets`).  Without it, the policy weighs the error budgets Be = s e*
    for s in :data:`ERROR_SHARES` (e*: the errors of the pool's reference tree, what a
    compact tree gets wrong on this data): at each, the selections the frontier sweep
    found from Bc = 1 up to the knee Bc, each scored by its accuracy on the training rows (the rules' vote, the
    most frequent class where none fires or classes tie) less :data:`CONDITION_PRICE`
    rows per condition.  The best score wins (the smaller
    size on a tie).  A data set that small exact rules explain gets them (Be = 0),
    and an error budget is spent only where it buys accuracy: the solver uses all
    of the error budget it is given, and rules with errors vote rows wrong.  The
    steps are deterministic, so the same pool gives the same defaults everywhere.

    ``sample_weight`` (row weights, see :class:`~explainer.selection.problem.SelectionProblem`):
    the same policy in weights: e* is the weight of the rows the reference tree gets wrong, the
    error budgets are weights, a selection's accuracy counts the weight of the rows it gets right,
    the knee's tolerance is a share of the total weight.
    """
    if error_budget is not None:
        return knee_budgets(pool, error_budget=error_budget, eps=eps, tolerance=tolerance,
                            sample_weight=sample_weight)
    best = pool.best_tree()
    if best is None:
        raise ValueError("no budgets given and no tree to size them; pass both budgets")
    fallback = int(np.argmax(np.bincount(pool.y, minlength=len(pool.classes))))
    e_star = reference_errors(pool, sample_weight)
    total = pool.n_rows if sample_weight is None else float(np.sum(sample_weight))
    chosen, candidates = None, []
    for be in sorted({_budget(share * e_star, sample_weight) for share in ERROR_SHARES}):
        d = knee_budgets(pool, error_budget=be, eps=eps, tolerance=tolerance, sample_weight=sample_weight)
        # every point the sweep found up to the knee is a candidate: a smaller Bc may vote as well
        for bc, selection in sorted(d.selections.items()):
            if bc > d.complexity_budget:
                continue
            right = _training_right(pool, selection, fallback, sample_weight)
            conditions = int(pool.lengths[selection].sum())
            score = right - CONDITION_PRICE * conditions
            candidates.append({"complexity_budget": int(bc), "error_budget": be,
                               "training_accuracy": right / max(total, 1), "conditions": conditions,
                               "score": score})
            if chosen is None or (score, -conditions) > (chosen[0], -chosen[1]):
                chosen = (score, conditions, d, int(bc), selection)
    _, _, out, bc, selection = chosen
    out.complexity_budget, out.selection = bc, selection
    out.coverage = float(out.searched[bc])  # the sweep's f* at that Bc: no second problem to build
    out.candidates = candidates
    return out


def _budget(value: float, sample_weight):
    """An error budget: whole rows (rounded down) unweighted, a weight weighted (rounded down too when the
    weights are whole numbers: the errors are then whole, so the same selections fit, and weights all 1
    give the unweighted budgets)."""
    if sample_weight is None:
        return int(value)
    w = np.asarray(sample_weight, dtype=float)
    return float(np.floor(value)) if np.all(w == np.round(w)) else float(value)


def reference_errors(pool: RulePool, sample_weight=None):
    """e*: the errors of the pool's reference tree (the weight of the rows it gets wrong, when weighted)."""
    best = pool.best_tree()
    if sample_weight is None:
        return best.errors
    problem = SelectionProblem.from_pool(pool, sample_weight=sample_weight)
    return float(problem.errors[np.asarray(best.tree.rule_ids, dtype=np.int64)].sum())


def _training_right(pool: RulePool, selection: np.ndarray, fallback: int, sample_weight=None) -> int:
    """Training rows the selected rules' vote gets right (the fallback class where none fires or classes tie;
    their weight when weighted)."""
    idx = np.flatnonzero(selection)
    counts = np.zeros((pool.n_rows, len(pool.classes)))
    if idx.size:
        onehot = np.eye(len(pool.classes))[pool.rule_class[idx]]
        counts = np.asarray(pool.coverage[:, idx] @ onehot)
    top = counts.max(axis=1)
    winners = (counts == top[:, None]).sum(axis=1)
    voted = np.where((top > 0) & (winners == 1), counts.argmax(axis=1), fallback)
    if sample_weight is not None:
        return float(np.asarray(sample_weight, dtype=float)[voted == pool.y].sum())
    return int(np.count_nonzero(voted == pool.y))


def knee_budgets(pool: RulePool, *, error_budget=None, eps: float = 1.0,
                 tolerance: float = KNEE_TOLERANCE, sample_weight=None) -> DefaultBudgets:
    """Bc at the knee of the coverage frontier at one error budget.

    Be: ``error_budget``, or the errors e* of the pool's reference tree.  Bc: the knee of
    the frontier over Bc = 1 .. 2 c* at that Be (the frontier's default range),
    the smallest Bc whose coverage is within ``tolerance`` percentage points
    of the frontier's maximum.  That maximum is estimated at Bc = 2 c* by the
    best of a local search, the greedy and a short QGA run
    (:data:`DEFAULTS_QGA`), or is the best frontier
    point, if higher.

    The frontier is swept from Bc = 1 up and stops at the knee; the selection
    found at 2 c* is tried at every point where it fits.  Only deterministic
    steps are used (carry-forward, local search, greedy, small seeded QGA runs with
    a fixed number of generations; no time limit and no exact solver), so the
    same pool gives the same defaults on every machine.  ``sample_weight``: row weights (f*,
    e* and Be are then weights, see :func:`default_budgets`).
    """
    best = pool.best_tree()
    if best is None:
        raise ValueError("no budgets given and no tree to size them; pass both budgets")
    be = _budget(reference_errors(pool, sample_weight) if error_budget is None else error_budget, sample_weight)
    base = SelectionProblem.from_pool(pool, eps=eps, sample_weight=sample_weight)
    top = max(2, 2 * int(best.complexity))
    at_top = base.with_budgets(top, be)
    ref_selection = _best_known(at_top)
    reference = at_top.evaluate(ref_selection).coverage
    slack = tolerance / 100.0 * base.total_weight

    class _StopAtKnee(Callback):
        def on_point(self, point):
            nonlocal reference
            reference = max(reference, point.coverage)
            return point.coverage >= reference - slack - 1e-9

    # no time limits anywhere here: the same pool gives the same defaults on any machine
    fr = frontier(base, be, (1, top), random_state=0, callback=_StopAtKnee(), exact_time_limit=0,
                  qga_params=DEFAULTS_QGA, seeds=[ref_selection])
    knee = fr.knee(tolerance, reference=reference)
    return DefaultBudgets(complexity_budget=int(knee.complexity_budget), error_budget=be, coverage=knee.coverage,
                          reference=float(reference), n_rows=base.total_weight,  # N, or the total weight
                          searched={p.complexity_budget: p.coverage for p in fr}, tolerance=tolerance,
                          selection=np.asarray(knee.selection, dtype=bool),
                          selections={p.complexity_budget: np.asarray(p.selection, dtype=bool) for p in fr})


def _best_known(problem) -> np.ndarray:
    """A good selection of ``problem``: the best of local search, greedy and (unless they meet the row bound) QGA."""

    candidates = [local_search(problem, np.zeros(problem.n_rules, dtype=bool)), solve(problem, "greedy").selection]
    best = max(candidates, key=lambda r: problem.evaluate(r).coverage)
    if problem.evaluate(best).coverage < coverable_rows(problem) - 1e-9:
        q = solve(problem, "qga", random_state=0, **DEFAULTS_QGA).selection
        best = max([best, q], key=lambda r: problem.evaluate(r).coverage)
    return best


def resolve_budgets(pool: RulePool, complexity_budget=None, error_budget=None, eps: float = 1.0,
                    sample_weight=None) -> tuple[int, int]:
    """Fill missing budgets with :func:`default_budgets` (a given budget is kept).  Weighted
    (``sample_weight``), the error budget is a weight (a float)."""
    if complexity_budget is None:
        d = default_budgets(pool, error_budget=error_budget, eps=eps, sample_weight=sample_weight)
        complexity_budget, error_budget = d.complexity_budget, d.error_budget
    elif error_budget is None:
        if pool.best_tree() is None:
            raise ValueError("no error budget given and no tree to size it; pass --errors")
        error_budget = default_budgets(pool, eps=eps, sample_weight=sample_weight).error_budget
    return int(complexity_budget), _budget(error_budget, sample_weight)


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
    sample_weight=None,
    class_weight=None,
) -> Explanation:
    """Solve ``pool`` within the budgets (missing ones: :func:`default_budgets`) and report on ``(X, y)``.

    With ``X_test, y_test`` (rows the pool never saw, see :func:`split_holdout`) the
    report also holds the rules' metrics on them (``report.holdout``); ``target`` names the
    class column in the report.  ``sample_weight`` (one per row of the pool) weighs the
    selection's rows (:class:`~explainer.selection.problem.SelectionProblem`), the error budget
    then being a weight; ``class_weight`` (``None``, ``"balanced"`` or a dict of class label to
    weight) multiplies them by the weight of each row's class (:func:`row_weights`).  The report
    counts rows either way, and gives the weighted errors and f* beside them.
    """
    sample_weight = row_weights(pool.y, pool.classes, class_weight, sample_weight)
    bc, be = resolve_budgets(pool, complexity_budget, error_budget, eps, sample_weight=sample_weight)
    problem = SelectionProblem.from_pool(pool, bc, be, eps=eps, sample_weight=sample_weight)
    result = solve(problem, algorithm, random_state=random_state, callback=callback, **(algorithm_params or {}))
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
        settings={
            "class_weight": class_weight if class_weight is None or isinstance(class_weight, str)
            else {str(k): float(v) for k, v in class_weight.items()},
            "algorithm": algorithm,
            "random_state": random_state,
            "complexity_budget": bc,
            "error_budget": be,
            "eps": eps,
            "pool": pool.settings,
            "algorithm_params": algorithm_params or {},
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
