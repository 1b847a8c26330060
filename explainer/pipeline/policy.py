"""The default budget policy: Bc, Be and the form of explanation when the user gives none.

The paper's objective and budgets stay the engine; this is a documented, deterministic policy above
it (docs/method.md#default-budgets): candidate explanations of a grid (complexity budgets, forms,
objectives, error budgets) are validated on held-out folds of the training rows, and the smallest whose
mean validation accuracy is within a few standard errors of the best gives the defaults
(:mod:`explainer.pipeline.validation`).  Given an error budget alone, Bc is the knee of the coverage
frontier at it (:func:`knee_budgets`).  Large tables are read on a stratified sample of rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from explainer.data.labels import fallback_code
from explainer.pipeline.reading import (
    as_budget,
    left_out_class,
    policy_rows,
    reference_errors,
)
from explainer.report.probabilities import vote_counts, voted
from explainer.rules.pool import RulePool
from explainer.selection.callbacks import Callback
from explainer.selection.frontier import coverable_rows, frontier, local_search
from explainer.selection.problem import SelectionProblem
from explainer.selection.settings import FORMS as RUN_FORMS
from explainer.selection.settings import RunSettings
from explainer.selection.solvers import objective_for, solve

#: the default Bc is the smallest whose coverage is within this many percentage points of the best at Be
KNEE_TOLERANCE = 3.0


@dataclass
class DefaultBudgets:
    """The default budgets and the points of the frontier searched to find them."""

    complexity_budget: int
    error_budget: float  # whole rows, or a weight when the rows are weighted
    coverage: float  # f* found at the default budgets (on the pool's rows)
    reference: float  # best f* known at the default Be (any Bc): what the knee is measured against
    n_rows: float  # the pool's rows (their weight, when weighted)
    searched: dict  # Bc -> f* found, for every Bc the search looked at (on the rows the policy read)
    tolerance: float = KNEE_TOLERANCE
    selection: np.ndarray | None = None  # what the search found at the default budgets
    #: Bc -> the selection found there, for every Bc the search looked at (up to the knee)
    selections: dict = field(default_factory=dict, repr=False)
    #: the candidates the policy validated (see :func:`default_budgets`), one dict each
    #: (:class:`~explainer.pipeline.validation.AccuracyPoint`), the chosen one marked
    candidates: list = field(default_factory=list)
    #: the form chosen: "all" (rules of every class) or "fallback" (rules of the classes other than
    #: the fallback class only, which takes the rest)
    form: str = "all"
    #: pool indices of the rules the explanation may use (``None``: all of them)
    rules: np.ndarray | None = field(default=None, repr=False)
    #: rows the policy read (all of the pool's, or the stratified subsample of a large table)
    policy_rows: int = 0
    #: the objective chosen: "coverage" (the paper's f*) or "accuracy"
    objective: str = "coverage"
    #: the size knob the choice was made with (``None``: not validated, the knee of :func:`knee_budgets`)
    size: str | None = None
    #: the validation curve (:class:`~explainer.pipeline.validation.AccuracyPoint` each), the chosen one marked
    frontier: tuple = field(default=(), repr=False)

    def to_dict(self) -> dict:
        n = self.n_rows or 1
        out = {
            "complexity_budget": self.complexity_budget,
            "error_budget": self.error_budget,
            "coverage_score": self.coverage / n,
            "reference_coverage_score": self.reference / n,
            "tolerance_points": self.tolerance,
            "form": self.form,
            "objective": self.objective,
            "policy_rows": self.policy_rows or self.n_rows,
        }
        if self.size is not None:
            out["size"] = self.size
        if self.candidates:
            out["candidates"] = self.candidates
        return out


#: the QGA run that estimates the frontier's maximum for the default budgets: small, for a first page load,
#: and without the population merge, which is the exact solver (measured: tic-tac-toe's defaults took
#: 4.5 s with it, the same budgets)
DEFAULTS_QGA = {"n_population": 20, "n_generations": 5, "merge": False}


#: the forms of explanation the policy weighs (those a run knows: :data:`explainer.selection.settings.FORMS`)
FORMS = RUN_FORMS


class _PolicyView:
    """The pool's problem on the rows the policy reads (all of them, or a subsample), with its scale."""

    def __init__(self, pool: RulePool, eps: float, n_max: int | None = None, sample_weight=None):
        self.pool = pool
        self.sample_weight = sample_weight
        self.rows = policy_rows(pool.y, n_max)
        self.sampled = len(self.rows) < pool.n_rows
        coverage = pool.coverage[self.rows] if self.sampled else pool.coverage
        weights = None if sample_weight is None else np.asarray(sample_weight, dtype=float)[self.rows]
        self.problem = SelectionProblem(coverage, pool.rule_class, pool.y[self.rows], pool.lengths,
                                        eps=eps, n_classes=len(pool.classes), sample_weight=weights)
        total = pool.n_rows if sample_weight is None else float(np.sum(sample_weight))
        #: pool rows (or weight) per policy row (or weight)
        self.scale = total / self.problem.total_weight if self.problem.total_weight else 1.0
        self.total_weight = total

    def evaluate_on_pool(self, selection: np.ndarray, lengths: np.ndarray):
        """The :class:`~explainer.selection.problem.Evaluation` of ``selection`` on all of the pool's rows
        (of a subsample's view: built from the selected rules' columns alone, not the whole matrix)."""
        if not self.sampled:
            return self.problem.evaluate(selection)
        idx = np.flatnonzero(selection)
        pool = self.pool
        own = SelectionProblem(pool.coverage[:, idx], pool.rule_class[idx], pool.y, lengths[idx],
                               eps=self.problem.eps, n_classes=len(pool.classes), sample_weight=self.sample_weight)
        return own.evaluate(np.ones(idx.size, dtype=bool))

    def to_view(self, errors):
        """An error count (or weight) of the pool's rows as one of the policy's rows."""
        return as_budget(errors if not self.sampled else errors / self.scale, self.sample_weight)

    def to_pool(self, errors):
        return as_budget(errors if not self.sampled else errors * self.scale, self.sample_weight)


def default_budgets(pool: RulePool, *, error_budget=None, eps: float = 1.0,
                    tolerance: float = KNEE_TOLERANCE, sample_weight=None, every_class: bool = False,
                    size: str | None = None, random_state: int = 0, curve=None) -> DefaultBudgets:
    """Default budgets, form and objective of the explanation, chosen on held-out evidence.

    With ``error_budget`` given, Bc is the knee of the coverage frontier at that Be
    (:func:`knee_budgets`).  Without it, every candidate of a grid (complexity budgets 1 .. 2 c*,
    about geometric; the forms ``"all"`` and ``"fallback"``; the objectives ``"coverage"`` and
    ``"accuracy"``; error budgets, shares of e*, the errors of the pool's reference tree) is built on
    the training rows of each fold of the pool's rows and scored on the fold's held-out rows, and the
    smallest (fewest conditions) whose mean validation accuracy is within ``size`` standard errors of
    the best is chosen (:func:`explainer.pipeline.validation.accuracy_frontier`; ``size``: ``"compact"``,
    ``"balanced"`` (default) or ``"accurate"``, :data:`explainer.pipeline.validation.SIZES`).  If no
    candidate holds a rule on every fold, the defaults are :func:`knee_budgets` at Be = e*.

    ``selection``: what the validation's own search finds at the chosen grid point on all rows.  The
    steps are deterministic for ``random_state`` (the folds' seed), so the same pool gives the same
    defaults everywhere.  Above :data:`POLICY_ROWS` rows each fold's training rows are a stratified
    subsample of that many (:func:`policy_rows`), and above
    :data:`~explainer.pipeline.validation.SPLIT_ROWS` one held-out split replaces the folds.

    ``sample_weight`` (row weights): the same policy in weights (error budgets are weights, accuracy
    counts the weight of the rows right).  ``every_class`` (:func:`every_class_explained`: with balanced
    class weights): every class is to be explained by rules of its own, so only the form ``"all"``.

    ``curve``: the validation curve of this pool at these settings, already computed at another ``size``
    (``DefaultBudgets.frontier``): only the pick depends on the size, so it is made on that curve rather
    than validating every candidate again.
    """
    from explainer.pipeline import validation  # built on this module's helpers

    if error_budget is not None:
        return knee_budgets(pool, error_budget=error_budget, eps=eps, tolerance=tolerance,
                            sample_weight=sample_weight)
    size = validation.DEFAULT_SIZE if size is None else size
    validation.size_standard_errors(size)
    if pool.best_tree() is None:
        raise ValueError("no budgets given and no tree to size them; pass both budgets")
    if curve:
        points = validation.choose(list(curve), size)
    else:
        points = validation.accuracy_frontier(pool, size, eps=eps, sample_weight=sample_weight,
                                              every_class=every_class, random_state=random_state)
    chosen = next((p for p in points if p.chosen), None)
    if chosen is None:  # no candidate holds a rule: the knee at Be = e*, where more rules fit
        return replace(knee_budgets(pool, eps=eps, tolerance=tolerance, sample_weight=sample_weight),
                       candidates=[p.to_dict() for p in points], frontier=tuple(points), size=size)
    selection = validation.solve_chosen(pool, chosen, eps=eps, sample_weight=sample_weight)
    view = _PolicyView(pool, eps, sample_weight=sample_weight)
    evaluation = view.evaluate_on_pool(selection, pool.lengths)
    be = chosen.error_budget
    if view.sampled:  # the subsample's selection keeps the budget on every row
        be = max(be, _budget_up(evaluation.errors, sample_weight))
    return DefaultBudgets(
        complexity_budget=chosen.complexity_budget, error_budget=be, coverage=float(evaluation.coverage),
        reference=float(evaluation.coverage), n_rows=view.total_weight, searched={}, tolerance=tolerance,
        selection=selection, candidates=[p.to_dict() for p in points], form=chosen.form,
        rules=form_rules(pool, chosen.form), policy_rows=view.problem.n_rows, objective=chosen.objective,
        size=size, frontier=tuple(points),
    )


def every_class_explained(class_weight=None) -> bool:
    """Whether the default policy explains every class by rules of its own (``default_budgets(every_class=)``):
    with ``class_weight="balanced"``, which asks for every class to count alike, where the fallback form
    and the fallback's credit leave the most frequent class to the ``ELSE`` line."""
    return isinstance(class_weight, str) and class_weight == "balanced"


def _budget_up(errors: float, sample_weight):
    """The errors of a selection as a budget it keeps (whole rows unweighted, its weight weighted)."""
    return int(round(errors)) if sample_weight is None else float(errors)


def _training_right(problem: SelectionProblem, selection: np.ndarray, every_class: bool = False):
    """Rows the selected rules' vote gets right (their weight when the problem is weighted): where none fires
    or classes tie, the fallback class, the most frequent by weight of the rows they leave uncovered
    (:func:`~explainer.data.labels.fallback_code`, as the explanation's); with ``every_class``, no class."""
    idx = np.flatnonzero(selection)
    counts = vote_counts(problem.coverage_sparse[:, idx], problem.rule_class[idx], problem.n_classes)
    fallback = -1 if every_class else fallback_code(problem.y, counts.any(axis=1), problem.n_classes,
                                                    problem.row_weight)
    code, _ = voted(counts, fallback)
    if problem.row_weight is not None:
        return float(problem.row_weight[code == problem.y].sum())
    return int(np.count_nonzero(code == problem.y))


@dataclass
class _Sweep:
    """One sweep of the frontier at one error budget, from Bc = 1 up to its knee."""

    knee: int
    knee_coverage: float
    reference: float
    reference_selection: np.ndarray
    searched: dict
    selections: dict


def _knee_sweep(base: SelectionProblem, top: int, be, tolerance: float, start=None) -> _Sweep:
    """Sweep the frontier of ``base`` at Be = ``be`` over Bc = 1 .. ``top`` and stop at its knee.

    The maximum is estimated at Bc = ``top`` by :func:`_best_known` (from ``start`` too, when
    given), or is the best frontier point, if higher; the sweep carries each point's selection
    forward and improves it by local search only (no exact solver, no QGA and no time limit: the
    same problem gives the same sweep on every machine).
    """
    at_top = base.with_budgets(top, be)
    ref_selection = _best_known(at_top, start)
    reference = at_top.evaluate(ref_selection).coverage
    slack = tolerance / 100.0 * base.total_weight

    class _StopAtKnee(Callback):
        def on_point(self, point):
            nonlocal reference
            reference = max(reference, point.coverage)
            return point.coverage >= reference - slack - 1e-9

    fr = frontier(base, be, (1, top), random_state=0, callback=_StopAtKnee(), exact_time_limit=0,
                  qga_time_limit=0, seeds=[ref_selection])
    knee = fr.knee(tolerance, reference=reference)
    if knee is None:
        raise RuntimeError(f"the frontier sweep over Bc = 1..{top} found no point")
    return _Sweep(knee=int(knee.complexity_budget), knee_coverage=float(knee.coverage), reference=float(reference),
                  reference_selection=ref_selection,
                  searched={p.complexity_budget: p.coverage for p in fr},
                  selections={p.complexity_budget: np.asarray(p.selection, dtype=bool) for p in fr})


def knee_budgets(pool: RulePool, *, error_budget=None, eps: float = 1.0,
                 tolerance: float = KNEE_TOLERANCE, sample_weight=None) -> DefaultBudgets:
    """Bc at the knee of the coverage frontier at one error budget.

    Be: ``error_budget``, or the errors e* of the pool's reference tree.  Bc: the knee of
    the frontier over Bc = 1 .. 2 c* at that Be (the frontier's default range),
    the smallest Bc whose coverage is within ``tolerance`` percentage points
    of the frontier's maximum.  That maximum is estimated at Bc = 2 c* by the
    best of a local search, the greedy and a short QGA run
    (:data:`DEFAULTS_QGA`), or is the best frontier point, if higher.

    The frontier is swept from Bc = 1 up and stops at the knee; the selection
    found at 2 c* is tried at every point where it fits.  Only deterministic
    steps are used (carry-forward, local search, greedy, small seeded QGA runs with
    a fixed number of generations; no time limit and no exact solver), so the
    same pool gives the same defaults on every machine.  Above :data:`POLICY_ROWS`
    rows the sweep reads the stratified subsample of :func:`policy_rows` (Be scaled to it).
    ``sample_weight``: row weights (f*, e* and Be are then weights, see :func:`default_budgets`).
    """
    best = pool.best_tree()
    if best is None:
        raise ValueError("no budgets given and no tree to size them; pass both budgets")
    be = as_budget(reference_errors(pool, sample_weight) if error_budget is None else error_budget, sample_weight)
    view = _PolicyView(pool, eps, sample_weight=sample_weight)
    top = max(2, 2 * int(best.complexity))
    sweep = _knee_sweep(view.problem, top, view.to_view(be), tolerance)
    selection = sweep.selections[sweep.knee]
    coverage = sweep.knee_coverage
    if view.sampled:
        coverage = view.evaluate_on_pool(selection, pool.lengths).coverage
    return DefaultBudgets(complexity_budget=sweep.knee, error_budget=be, coverage=float(coverage),
                          reference=float(sweep.reference) * view.scale, n_rows=view.total_weight,
                          searched=dict(sweep.searched), tolerance=tolerance, selection=selection,
                          selections=dict(sweep.selections), policy_rows=view.problem.n_rows)


def _best_known(problem, start=None) -> np.ndarray:
    """A good selection of ``problem``: the best of local search (from nothing and from ``start``, when it
    fits), greedy and, without a ``start`` and unless they meet the row bound, a small QGA run (a start,
    the best known at a smaller error budget, already carries what QGA found there)."""

    candidates = [local_search(problem, np.zeros(problem.n_rules, dtype=bool)), solve(problem, "greedy").selection]
    if start is not None and problem.is_feasible(start):
        candidates.append(local_search(problem, start))
    best = max(candidates, key=lambda r: problem.evaluate(r).coverage)
    if start is None and problem.evaluate(best).coverage < coverable_rows(problem) - 1e-9:
        q = solve(problem, "qga", random_state=0, **DEFAULTS_QGA).selection
        best = max([best, q], key=lambda r: problem.evaluate(r).coverage)
    return best


@dataclass(frozen=True)
class PolicyChoice:
    """What a run uses, as the policy settles it: the budgets (given, or chosen by :func:`default_budgets`), the
    form of explanation, its fallback class and the rules the form allows.

    ``fallback``: the class code (an index into ``pool.classes``) of the class that takes every row no rule
    covers.  ``rules``: pool indices of the rules the form allows (``None``: every rule).  ``chosen``: whether
    the policy chose both budgets (the form and objective are then its choice; with a given budget they are
    ``"all"`` and ``"coverage"``).  ``size``: the knob the choice was made with; ``frontier``: the validation
    curve it was made from (:class:`~explainer.pipeline.validation.AccuracyPoint` each, the chosen one
    marked; empty when the policy did not validate), so that nobody recomputes it.
    """

    complexity_budget: int
    error_budget: int | float
    form: str = "all"
    fallback: int = 0
    rules: np.ndarray | None = field(default=None, compare=False, repr=False)
    chosen: bool = False
    objective: str = "coverage"
    size: str | None = None
    frontier: tuple = field(default=(), compare=False, repr=False)

    @property
    def budgets(self) -> tuple:
        return self.complexity_budget, self.error_budget

    def run_settings(self, **run) -> RunSettings:
        """The :class:`~explainer.selection.settings.RunSettings` of a run at these budgets, this form and this
        objective (unless ``run`` names others; the paper's coverage for an algorithm that optimises nothing
        else); ``run``: its other fields (algorithm, parameters, eps, class weight, seed, time limit)."""
        if "objective" not in run:  # the policy's choice, for an algorithm that optimises it
            run["objective"] = objective_for(run.get("algorithm", RunSettings.algorithm), self.objective)
        run.setdefault("form", self.form)
        return RunSettings(complexity_budget=self.complexity_budget, error_budget=self.error_budget, **run)

    def form_at(self, complexity_budget, error_budget) -> str:
        """The form a run at these budgets uses: the chosen one at the chosen budgets, else ``"all"``."""
        return self.form if (complexity_budget, error_budget) == self.budgets else "all"

    def objective_at(self, complexity_budget, error_budget) -> str:
        """The objective a run at these budgets uses: the chosen one at the chosen budgets, else ``"coverage"``."""
        return self.objective if (complexity_budget, error_budget) == self.budgets else "coverage"

    def frontier_dicts(self) -> list[dict]:
        """The validation curve as plain dicts (one per candidate; ``chosen`` marks the default)."""
        return [p.to_dict() for p in self.frontier]


#: what the policy uses when no reference tree sizes the budgets (and it is asked not to refuse): a small
#: complexity budget, and an error budget of this share of the rows (at least one row)
NO_TREE_COMPLEXITY = 10
NO_TREE_ERROR_SHARE = 0.05


def form_rules(pool: RulePool, form: str) -> np.ndarray | None:
    """Pool indices of the rules ``form`` allows: ``None`` (every rule) for ``"all"``, the rules of the classes
    other than the fallback class for ``"fallback"``."""
    if form == "all":
        return None
    if form != "fallback":
        raise ValueError(f"form must be one of {', '.join(FORMS)}, got {form!r}")
    return np.flatnonzero(pool.rule_class != left_out_class(pool))


def resolve_defaults(pool: RulePool, complexity_budget=None, error_budget=None, eps: float = 1.0,
                     sample_weight=None, every_class: bool = False, refuse_without_tree: bool = True,
                     size: str | None = None, curve=None) -> PolicyChoice:
    """The :class:`PolicyChoice` of a run: missing budgets filled by :func:`default_budgets` (a given budget is
    kept), and, when the policy chose both budgets, the form and objective it chose, the rules that form
    allows and the validation curve.  Weighted (``sample_weight``), Be is a weight.  ``size``: the knob of the
    validated choice (``"compact"``, ``"balanced"``, ``"accurate"``; ``None``: the default); ``curve``: the
    validation curve chosen from at another size, to choose from again (see :func:`default_budgets`).

    Without a reference tree to size a missing budget: ValueError, or with ``refuse_without_tree=False``
    :data:`NO_TREE_COMPLEXITY` and :data:`NO_TREE_ERROR_SHARE` of the rows for the missing ones.
    """
    fallback = left_out_class(pool)
    missing = complexity_budget is None or error_budget is None
    if missing and pool.best_tree() is None:
        if refuse_without_tree:
            if complexity_budget is None:
                raise ValueError("no budgets given and no tree to size them; pass both budgets")
            raise ValueError("no error budget given and no tree to size it; pass --errors")
        bc = NO_TREE_COMPLEXITY if complexity_budget is None else complexity_budget
        be = max(1, int(NO_TREE_ERROR_SHARE * pool.n_rows)) if error_budget is None else error_budget
        return PolicyChoice(bc, as_budget(be, sample_weight), fallback=fallback)
    if complexity_budget is None:
        d = default_budgets(pool, error_budget=error_budget, eps=eps, sample_weight=sample_weight,
                            every_class=every_class, size=size, curve=curve)
        both = error_budget is None
        return PolicyChoice(d.complexity_budget, as_budget(d.error_budget, sample_weight),
                            form=d.form if both else "all", fallback=fallback, rules=d.rules if both else None,
                            chosen=both, objective=d.objective if both else "coverage",
                            size=d.size if both else None, frontier=d.frontier if both else ())
    if error_budget is None:
        error_budget = default_budgets(pool, eps=eps, sample_weight=sample_weight,
                                       every_class=every_class, size=size).error_budget
    return PolicyChoice(complexity_budget, as_budget(error_budget, sample_weight), fallback=fallback)


def resolve_budgets(pool: RulePool, complexity_budget=None, error_budget=None, eps: float = 1.0,
                    sample_weight=None, every_class: bool = False, size: str | None = None) -> tuple[int, int | float]:
    """Fill missing budgets with :func:`default_budgets` (a given budget is kept): (Bc, Be)."""
    return resolve_defaults(pool, complexity_budget, error_budget, eps, sample_weight=sample_weight,
                            every_class=every_class, size=size).budgets
