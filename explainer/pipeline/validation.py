"""The default explanation chosen on held-out evidence: candidates validated on folds, then the 1-SE rule.

The pool's training rows are split into folds (stratified, seeded).  For each fold, every candidate
explanation is built on the other folds' rows and its accuracy measured on the fold's rows.  A candidate
is a point of a grid: a complexity budget (1 .. 2 c*, about geometric), a form of explanation ("all" or
"fallback"), an objective ("coverage", the paper's f*, or "accuracy") and an error budget, a share of e*
(the errors of the pool's reference tree).  These are grid points, each tried, not tuned constants.

Then the 1-SE rule of CART's cost-complexity pruning picks the smallest candidate (fewest conditions)
whose mean validation accuracy is within ``n_se`` standard errors of the best mean (:data:`SIZES`).

What the estimate is: each fold grows its own pool on its training rows, as the pool itself was grown (the
same trees, settings and seed), and its rules are counted on the held-out rows they never saw; so the
validation accuracy measures the whole explanation, rule growing included.  (A pool that does not know its
table, ``RulePool.training_table`` None, as after pickling, is validated on its own rules restricted to each
fold's training rows: then the held-out rows shaped the rules, which favours large explanations, since the
more rules a selection holds, the more of them were fitted to those rows.)  Each candidate is solved by a
fast, deterministic local search (carried forward from the smaller complexity budget); the chosen budgets are
then solved on all training rows by the run's own algorithm, which usually finds at least as good a selection.
"""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass, replace

import numpy as np
import pandas as pd
import scipy.sparse as sp

from explainer.data.labels import fallback_code
from explainer.pipeline.reading import (
    as_budget,
    left_out_class,
    policy_rows,
    reference_errors,
    widen_selection,
)
from explainer.report.metrics import balanced_accuracy_of_codes
from explainer.report.probabilities import (
    PROBA_SMOOTHING,
    SMOOTHING_GRID,
    brier_by_smoothing,
    count_classes,
    vote_counts,
    voted,
)
from explainer.rules.pool import RulePool, build_pool, coverage_sparse
from explainer.selection.problem import SelectionProblem
from explainer.selection.solvers.local_search import LocalSearch, move_scorer, usable_rules

#: the size knob: how many standard errors of the best mean validation accuracy a smaller explanation may
#: lose and still be chosen.  "compact" is CART's 1-SE rule, "accurate" takes the best mean.
SIZES = {"compact": 1.0, "balanced": 0.5, "accurate": 0.0}
#: "balanced" halves the 1-SE rule's allowance: one standard error of a 5-fold mean is a wide band on small
#: tables (a few rows of each fold), where the 1-SE rule is known to prune hard; half of it still prefers a
#: smaller explanation when the evidence cannot tell the two apart
DEFAULT_SIZE = "balanced"
#: folds of the validation (fewer when the table has fewer rows)
FOLDS = 5
#: above this many rows one stratified split holds out :data:`VALIDATION_SHARE` of them instead of folds
SPLIT_ROWS = 5000
VALIDATION_SHARE = 0.25
#: the grid of (objective, error budget as a share of e*): grid points, each validated.  The accuracy
#: objective counts a wrong row against the selection itself, so it is given the reference tree's errors
#: as room and no smaller budget
ERROR_GRID = (("coverage", 0.0), ("coverage", 0.5), ("accuracy", 1.0))
#: a cost limit, not a tuned choice: the accuracy objective is weighed only on pools of at most this many
#: nonzeros (rule, row).  Its local moves score every rule exactly, O(nnz) a move and O(|S| nnz) a swap,
#: so the final run at its budgets grows with the pool: measured 54.8 CPU s on a 5,000-row census-like
#: table (421,028 nonzeros) and 33.6 s at 12,000 rows, against about a second for the coverage objective.
ACCURACY_MAX_NNZ = 200_000
#: complexity budgets of the grid: 1, 2, 3, then about this ratio apart, up to 2 c*
COMPLEXITY_RATIO = 1.5


@dataclass(frozen=True)
class AccuracyPoint:
    """One candidate of the validation: its grid point and what it scored on the held-out rows.

    ``complexity``: the mean number of conditions of its explanations over the folds; ``accuracy`` and
    ``balanced_accuracy``: their means on the held-out rows (accuracy counts weight when the rows are
    weighted); ``accuracy_se``: the standard error of the mean accuracy; ``brier``, ``brier_se``: the mean
    held-out Brier score of its probabilities and its standard error, at ``smoothing``, the m of
    :data:`~explainer.report.probabilities.SMOOTHING_GRID` that scored best; ``error_budget``: the grid
    point's Be on all training rows; ``chosen``: the default explanation.
    """

    complexity: float
    accuracy: float
    accuracy_se: float
    balanced_accuracy: float
    complexity_budget: int
    error_budget: int | float
    error_share: float
    form: str
    objective: str
    n_rules: float
    brier: float = 0.0
    brier_se: float = 0.0
    smoothing: float = PROBA_SMOOTHING
    chosen: bool = False

    def to_dict(self) -> dict:
        return asdict(self)


def one_se_rule(means, ses, sizes, n_se: float, also=None) -> int:
    """Index of the smallest candidate (by ``sizes``) whose mean is within ``n_se`` standard errors of the best.

    The allowance is ``n_se`` times the standard error of the best mean, as in CART's 1-SE rule; among
    candidates of the same size, the higher mean, then the earlier index.  ``also``: indices the candidate
    must be among as well, when any of them is within the allowance.
    """
    means, sizes = np.asarray(means, dtype=float), np.asarray(sizes, dtype=float)
    if means.size == 0:
        raise ValueError("no candidates to choose from")
    within = within_one_se(means, ses, n_se)
    if also is not None:
        both = np.intersect1d(within, np.asarray(also, dtype=np.int64))
        within = both if both.size else within
    return int(min(within, key=lambda i: (sizes[i], -means[i], i)))


def within_one_se(means, ses, n_se: float) -> np.ndarray:
    """Indices of the candidates whose mean is at least the best mean less ``n_se`` times its standard error."""
    means, ses = np.asarray(means, dtype=float), np.asarray(ses, dtype=float)
    best = int(np.argmax(means))  # the first of equal bests
    return np.flatnonzero(means >= means[best] - float(n_se) * ses[best] - 1e-12)


def validation_splits(y: np.ndarray, random_state: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """(training rows, held-out rows) of each fold: stratified :data:`FOLDS` folds, or above
    :data:`SPLIT_ROWS` rows one stratified split holding out :data:`VALIDATION_SHARE` of them."""
    from sklearn.model_selection import StratifiedKFold, train_test_split

    y = np.asarray(y)
    n = len(y)
    rows = np.arange(n)
    _, counts = np.unique(y, return_counts=True)
    if n > SPLIT_ROWS:
        stratify = y if counts.min() >= 2 else None
        train, held = train_test_split(rows, test_size=VALIDATION_SHARE, random_state=random_state, stratify=stratify)
        return [(np.sort(train), np.sort(held))]
    # stratified folds need a class of at least as many rows as folds (a tiny table has fewer)
    k = max(2, min(FOLDS, n, int(counts.max())))
    if counts.max() < 2:  # one row a class: nothing to stratify
        from sklearn.model_selection import KFold

        return list(KFold(n_splits=min(k, n), shuffle=True, random_state=random_state).split(rows))
    with warnings.catch_warnings():  # a class with fewer rows than folds is spread as far as it goes
        warnings.simplefilter("ignore", UserWarning)
        folds = StratifiedKFold(n_splits=k, shuffle=True, random_state=random_state)
        return [(train, held) for train, held in folds.split(rows, y)]


def complexity_grid(c_star: int) -> list[int]:
    """The complexity budgets validated: 1, 2, 3, then about :data:`COMPLEXITY_RATIO` apart, up to 2 c*."""
    top = max(2, 2 * int(c_star))
    grid: list[int] = []
    x = 1.0
    while int(round(x)) <= top:
        b = int(round(x))
        if not grid or b > grid[-1]:
            grid.append(b)
        x = x + 1 if x < 3 else x * COMPLEXITY_RATIO
    if grid[-1] != top:
        grid.append(top)
    return grid


def _improve(problem: SelectionProblem, selection: np.ndarray) -> np.ndarray:
    """``selection`` (feasible) improved by augmenting moves of the problem's objective until none applies."""
    state = problem.state(selection)
    LocalSearch(problem, move_scorer(problem, usable_rules(problem))).run(state)
    return state.r.copy()


class _TreeStarts:
    """The pool's trees as selections of a fold's problem, each with its complexity, errors and value, so a chain
    of budgets can start from the best tree that fits where that beats the selection carried along.  Why: the
    chain grows one selection by local moves, and on a table where every rule carries errors (ten noisy classes)
    it ended far below trees that fitted the same budgets (validation accuracy 50 % at Bc 51 on the LED display
    table, where the knee tree's leaves, feasible there, give about 70 %)."""

    def __init__(self, problem: SelectionProblem, pool: RulePool, rules):
        position = None
        if rules is not None:  # the problem holds only ``rules`` of the pool: a tree keeps those of its rules
            position = np.full(pool.n_rules, -1, dtype=np.int64)
            position[rules] = np.arange(len(rules))
        starts = []
        for tree in pool.trees:
            ids = np.asarray(tree.rule_ids, dtype=np.int64)
            if position is not None:
                ids = position[ids]
                ids = ids[ids >= 0]
            if ids.size:
                sel = np.zeros(problem.n_rules, dtype=bool)
                sel[ids] = True
                starts.append(sel)
        self.selections = np.array(starts, dtype=bool).reshape(len(starts), problem.n_rules)
        metrics = problem.evaluate_population(self.selections) if starts else None
        self.complexity = np.zeros(0) if metrics is None else np.asarray(metrics["complexity"], dtype=float)
        self.errors = np.zeros(0) if metrics is None else np.asarray(metrics["errors"], dtype=float)
        self.value = np.zeros(0) if metrics is None else np.asarray(metrics.get("value", metrics["coverage"]),
                                                                    dtype=float)

    def better(self, problem: SelectionProblem, selection: np.ndarray) -> np.ndarray:
        """``selection``, or the tree of the highest value within the problem's budgets when its value is higher
        (the carried selection keeps a tie)."""
        if not self.value.size or problem.pinned.size or problem.banned.size:
            return selection
        bc, be = problem.budgets
        fits = np.ones(self.value.size, dtype=bool)
        if bc is not None:
            fits &= self.complexity <= bc
        if be is not None:
            fits &= self.errors <= problem.error_limit
        if not fits.any():
            return selection
        best = int(np.flatnonzero(fits)[np.argmax(self.value[fits])])
        if self.value[best] > float(problem.evaluate(selection).value or 0.0) + 1e-9:
            return self.selections[best].copy()
        return selection


@dataclass
class _Candidate:
    form: str
    objective: str
    share: float
    complexity_budget: int
    accuracy: list
    balanced: list
    conditions: list
    n_rules: list
    brier: list  # per fold: (mean, standard error within the fold) at each m of SMOOTHING_GRID


class _Fold:
    """One split of the pool's rows: the selection problems on its training rows, and the scoring of a
    selection on its held-out rows."""

    def __init__(self, pool: RulePool, cov_rows, lengths, train, held, weights, eps: float, every_class: bool = False):
        self.pool, self.held, self.lengths = pool, held, lengths
        self.every_class = every_class
        self.train = train[policy_rows(pool.y[train])]  # the stratified subsample of a large table
        self.w_train = None if weights is None else weights[self.train]
        self.w_held = None if weights is None else weights[held]
        # by column: every score reads the columns of one selection (a column slice of a row-wise matrix walks
        # every held-out row, 19 ms a score at 130,000 rows)
        self.cov_train = cov_rows[self.train].tocsc()
        self.cov_held = cov_rows[held].tocsc()
        self.y_train, self.y_held = pool.y[self.train], pool.y[held]
        self.n_classes = len(pool.classes)
        self.problems: dict[tuple, SelectionProblem] = {}
        self.eps = eps
        self._scores: dict = {}

    def problem(self, objective: str, rules) -> SelectionProblem:
        key = (objective, None if rules is None else rules.size)
        if key not in self.problems:
            pool = self.pool
            base = SelectionProblem(self.cov_train, pool.rule_class, self.y_train, self.lengths, eps=self.eps,
                                    n_classes=self.n_classes, sample_weight=self.w_train, objective=objective,
                                    fallback=left_out_class(pool) if objective == "accuracy" else None)
            self.problems[key] = base if rules is None else base.restrict(rules)
        return self.problems[key]

    def error_budget(self, errors, total, sample_weight):
        """An error budget of all the pool's rows (``errors`` of ``total``) in proportion to the rows read."""
        read = len(self.train) if self.w_train is None else float(self.w_train.sum())
        return as_budget(errors * read / (total or 1), sample_weight)

    def score(self, selection: np.ndarray) -> tuple[float, float, np.ndarray]:
        """(accuracy, balanced accuracy, Brier) on the held-out rows of the rules' vote, the fallback class (of
        the training rows the rules leave, as the explanation's) where none fires or classes tie (with
        ``every_class``, no class: such a row is not right).  Brier: (mean, its standard error within the
        held-out rows) of the probabilities fitted on the training rows, for each m of
        :data:`~explainer.report.probabilities.SMOOTHING_GRID`."""
        idx = np.flatnonzero(selection)
        key = idx.tobytes()
        if key not in self._scores:
            self._scores[key] = self._score(idx)
        return self._scores[key]

    def _score(self, idx: np.ndarray) -> tuple[float, float, np.ndarray]:
        rule_codes = self.pool.rule_class[idx]
        cov_train, cov_held = self.cov_train[:, idx], self.cov_held[:, idx]
        train_counts = vote_counts(cov_train, rule_codes, self.n_classes)
        fallback = fallback_code(self.y_train, train_counts.any(axis=1), self.n_classes, self.w_train)
        # with every class to be explained by rules of its own, a row no rule decides is not right
        code, _ = voted(vote_counts(cov_held, rule_codes, self.n_classes), -1 if self.every_class else fallback)
        right = code == self.y_held
        accuracy = float(np.average(right, weights=self.w_held)) if right.size else 0.0
        weights = count_classes(cov_train, self.y_train, rule_codes, self.n_classes, self.w_train, fallback)
        briers = brier_by_smoothing(weights, cov_held, self.y_held, self.w_held)
        return accuracy, balanced_accuracy_of_codes(self.y_held, code), briers


def _fold_pool(pool: RulePool, train: np.ndarray, held: np.ndarray) -> tuple[RulePool, sp.csr_matrix]:
    """A pool grown as ``pool`` was, on the fold's training rows only (those the fold's selection reads: their
    stratified sample of :data:`~explainer.pipeline.reading.POLICY_ROWS` on a large table), and its coverage of
    those rows and of the held-out rows (counted by the rules' own conditions): (the fold's pool, read with the
    whole pool's rows and classes, and its coverage in rows of the whole table, CSR; other rows empty)."""
    table = pool.training_table
    frame = table if isinstance(table, pd.DataFrame) else pd.DataFrame(np.asarray(table), columns=pool.feature_names)
    labels = [pool.classes[c] for c in pool.y]
    train = train[policy_rows(pool.y[train])]
    grown = build_pool(frame.iloc[train], [labels[i] for i in train], **pool.build_settings())
    held_cov = _held_coverage(grown, frame, held)
    stacked = sp.vstack([grown.coverage.tocsr().astype(np.float32, copy=False), held_cov], format="csr")
    del held_cov  # each copy of the nonzeros is let go once the next is made: a large table's fold holds few at once
    order = np.concatenate([train, held])
    if order.size == pool.n_rows:
        rows = np.empty(pool.n_rows, dtype=np.int64)
        rows[order] = np.arange(order.size)  # row r of the table is row rows[r] of the stack
        cov = stacked[rows]
    else:
        cov = _spread(stacked, order, pool.n_rows)
    del stacked
    view = replace(grown, y=pool.y, coverage=cov.tocsc(), training_table=None)
    return view, cov


#: held-out rows turned into numbers at a time: the float matrix of every column is rows x features x 8 bytes
#: (75 MB for a fifth of a 364,035-row table of 108 features), a block of these 4 MB
HELD_BLOCK_ROWS = 4096


def _held_coverage(grown: RulePool, frame: pd.DataFrame, held: np.ndarray) -> sp.csr_matrix:
    """The rows of ``frame.iloc[held]`` each of ``grown``'s rules covers (CSR, in ``held``'s order), counted by
    the rules' own conditions a block of rows at a time."""
    names = grown.feature_names
    index = {name: i for i, name in enumerate(names)}
    blocks = [coverage_sparse(grown.rules, frame.iloc[held[s:s + HELD_BLOCK_ROWS]][names].to_numpy(dtype=float),
                              index).tocsr() for s in range(0, held.size, HELD_BLOCK_ROWS)]
    if not blocks:
        return sp.csr_matrix(np.zeros((0, grown.n_rules), dtype=np.float32))
    return sp.vstack(blocks, format="csr") if len(blocks) > 1 else blocks[0]


def _spread(stacked: sp.csr_matrix, order: np.ndarray, n_rows: int) -> sp.csr_matrix:
    """Rows ``order`` of an ``n_rows`` matrix from ``stacked`` (in that order); the other rows empty.

    The stacked rows are put in the table's order and the empty rows are only a repeated pointer: one copy of
    the nonzeros (a product with a selection matrix made three)."""
    by_row = np.argsort(order, kind="stable")
    sorted_rows = stacked[by_row]
    counts = np.zeros(n_rows, dtype=np.int64)
    counts[order[by_row]] = np.diff(sorted_rows.indptr)
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(sorted_rows.indptr.dtype)
    return sp.csr_matrix((sorted_rows.data, sorted_rows.indices, indptr), shape=(n_rows, stacked.shape[1]))


def _forms(pool: RulePool, every_class: bool) -> list[tuple[str, np.ndarray | None]]:
    """The forms validated and the pool indices of the rules each allows (``None``: every rule)."""
    forms: list[tuple[str, np.ndarray | None]] = [("all", None)]
    if not every_class:
        rules = np.flatnonzero(pool.rule_class != left_out_class(pool))
        if 0 < rules.size < pool.n_rules:
            forms.append(("fallback", rules))
    return forms


def validate_candidates(pool: RulePool, *, eps: float = 1.0, sample_weight=None, every_class: bool = False,
                        random_state: int = 0) -> list[AccuracyPoint]:
    """Every candidate of the grid, validated on the folds of the pool's rows (none chosen yet).

    ``every_class`` (balanced class weights): only the form "all".  ``sample_weight``: the folds' problems
    are weighted, error budgets are weights, and accuracy counts the weight of the rows right.
    """
    best = pool.best_tree()
    if best is None:
        raise ValueError("no budgets given and no tree to size them; pass both budgets")
    weights = None if sample_weight is None else np.asarray(sample_weight, dtype=float)
    total = pool.n_rows if weights is None else float(weights.sum())
    e_star = reference_errors(pool, sample_weight)
    grid = complexity_grid(best.complexity)
    folds = _folds(pool, weights, eps, every_class, random_state)
    candidates = []
    for form, _ in _forms(pool, every_class):
        for objective, share in ERROR_GRID:
            if objective == "accuracy" and pool.coverage.nnz > ACCURACY_MAX_NNZ:
                continue
            row = [_Candidate(form, objective, share, bc, [], [], [], [], []) for bc in grid]
            for fold in folds:
                # the form's rules in the fold's own pool: none when all its rules are of the class left out
                rules = None if form == "all" else np.flatnonzero(fold.pool.rule_class != left_out_class(fold.pool))
                be = fold.error_budget(share * e_star, total, sample_weight)
                problem = None if rules is not None and not rules.size else fold.problem(objective, rules)
                selection = np.zeros(0 if problem is None else problem.n_rules, dtype=bool)
                trees = None if problem is None else _TreeStarts(problem, fold.pool, rules)
                for cand in row:
                    if problem is not None and trees is not None:  # (the one implies the other)
                        budgeted = problem.with_budgets(cand.complexity_budget, be)
                        selection = _improve(budgeted, trees.better(budgeted, selection))
                    full = selection if rules is None else widen_selection(selection, rules, fold.pool.n_rules)
                    accuracy, balanced, brier = fold.score(full)
                    cand.accuracy.append(accuracy)
                    cand.balanced.append(balanced)
                    cand.brier.append(brier)
                    cand.conditions.append(int(fold.lengths[full].sum()))
                    cand.n_rules.append(int(full.sum()))
            candidates.extend(row)
    return [_point(c, e_star, sample_weight, len(folds), folds) for c in candidates]


def _folds(pool: RulePool, weights, eps: float, every_class: bool, random_state: int) -> list[_Fold]:
    """The validation's folds: each with a pool grown on its training rows (:func:`_fold_pool`) when the pool
    knows its table, else with the pool's own rules."""
    splits = validation_splits(pool.y, random_state)
    if pool.training_table is None:
        cov_rows, lengths = pool.coverage.tocsr(), pool.lengths  # lengths measures every rule: read once
        return [_Fold(pool, cov_rows, lengths, train, held, weights, eps, every_class) for train, held in splits]
    folds = []
    for train, held in splits:
        grown, cov_rows = _fold_pool(pool, train, held)
        folds.append(_Fold(grown, cov_rows, grown.lengths, train, held, weights, eps, every_class))
    return folds


def _point(c: _Candidate, e_star, sample_weight, n_folds: int, folds) -> AccuracyPoint:
    acc = np.asarray(c.accuracy)
    brier = np.asarray(c.brier)  # (folds, m, [mean, se within the fold])
    best_m = int(np.argmin(brier[:, :, 0].mean(axis=0)))
    if n_folds > 1:
        se = float(acc.std(ddof=1) / np.sqrt(n_folds))
        brier_se = float(brier[:, best_m, 0].std(ddof=1) / np.sqrt(n_folds))
    else:  # one held-out split: the standard errors over its rows
        n_held = len(folds[0].held)
        se = float(np.sqrt(max(acc[0] * (1 - acc[0]), 0.0) / max(n_held, 1)))
        brier_se = float(brier[0, best_m, 1])
    return AccuracyPoint(
        complexity=float(np.mean(c.conditions)), accuracy=float(acc.mean()), accuracy_se=se,
        balanced_accuracy=float(np.mean(c.balanced)), complexity_budget=int(c.complexity_budget),
        error_budget=as_budget(c.share * e_star, sample_weight), error_share=float(c.share), form=c.form,
        objective=c.objective, n_rules=float(np.mean(c.n_rules)), brier=float(brier[:, best_m, 0].mean()),
        brier_se=brier_se, smoothing=float(SMOOTHING_GRID[best_m]),
    )


def choose(points: list[AccuracyPoint], size: str = DEFAULT_SIZE) -> list[AccuracyPoint]:
    """``points`` with the default marked (``chosen``), among the candidates with at least one rule on every
    fold: the smallest whose held-out accuracy and Brier score are both within the knob's standard errors
    (:data:`SIZES`) of the best (the 1-SE rule, :func:`one_se_rule`, on each); when no candidate is within
    both, on accuracy alone.  The Brier score asks for probabilities worth reading: an explanation whose
    accuracy a smaller one matches may still tell likely rows from unlikely ones better."""
    n_se = size_standard_errors(size)
    eligible = eligible_points(points)
    if not eligible:
        return list(points)
    chosen = [points[i] for i in eligible]
    good_brier = within_one_se([-p.brier for p in chosen], [p.brier_se for p in chosen], n_se)
    pick = eligible[one_se_rule([p.accuracy for p in chosen], [p.accuracy_se for p in chosen],
                                [p.complexity for p in chosen], n_se, also=good_brier)]
    return [replace(p, chosen=(i == pick)) for i, p in enumerate(points)]


def eligible_points(points: list[AccuracyPoint]) -> list[int]:
    """Indices of the candidates the default may be (:func:`choose`): at least one rule and one condition, as
    means over the folds."""
    return [i for i, p in enumerate(points) if p.n_rules >= 1 and p.complexity >= 1]


def size_standard_errors(size: str) -> float:
    """The standard errors the knob ``size`` allows (:data:`SIZES`); ValueError for an unknown one."""
    if size not in SIZES:
        raise ValueError(f"size must be one of {', '.join(SIZES)}, got {size!r}")
    return SIZES[size]


def accuracy_frontier(pool: RulePool, size: str = DEFAULT_SIZE, *, eps: float = 1.0, sample_weight=None,
                      every_class: bool = False, random_state: int = 0) -> list[AccuracyPoint]:
    """The validation curve: every candidate's held-out accuracy against its conditions, the default marked
    (what :func:`explainer.pipeline.resolve_defaults` chose from, also kept in ``PolicyChoice.frontier``)."""
    size_standard_errors(size)
    points = validate_candidates(pool, eps=eps, sample_weight=sample_weight, every_class=every_class,
                                 random_state=random_state)
    return choose(points, size)


def frontier_table(points: list[AccuracyPoint]) -> str:
    """The validation curve as text, one line per candidate, fewest conditions first; ``*`` marks the default.
    Beside accuracy, the Brier score the choice also weighs (lower is better)."""
    lines = [f"{'':1s} {'conditions':>10s} {'accuracy %':>10s} {'+- se':>6s} {'balanced %':>10s} {'Brier':>6s} "
             f"{'+- se':>6s} {'Bc':>4s} {'Be':>8s} {'form':>8s} {'objective':>9s}"]
    for p in sorted(points, key=lambda p: (p.complexity, -p.accuracy)):
        lines.append(f"{'*' if p.chosen else ' ':1s} {p.complexity:10.1f} {100 * p.accuracy:10.2f} "
                     f"{100 * p.accuracy_se:6.2f} {100 * p.balanced_accuracy:10.2f} {p.brier:6.3f} {p.brier_se:6.3f} "
                     f"{p.complexity_budget:4d} {p.error_budget:8g} {p.form:>8s} {p.objective:>9s}")
    return "\n".join(lines) + "\n"


def solve_chosen(pool: RulePool, point: AccuracyPoint, *, eps: float = 1.0, sample_weight=None) -> np.ndarray:
    """A selection (over every pool rule) at ``point``'s grid point, by the validation's own search on all of the
    pool's rows (their stratified subsample on a large table): what the policy reports beside the budgets."""
    weights = None if sample_weight is None else np.asarray(sample_weight, dtype=float)
    lengths = pool.lengths
    fold = _Fold(pool, pool.coverage.tocsr(), lengths, np.arange(pool.n_rows), np.zeros(0, dtype=np.int64),
                 weights, eps)
    rules = dict(_forms(pool, False))[point.form]
    total = pool.n_rows if weights is None else float(weights.sum())
    be = fold.error_budget(point.error_share * reference_errors(pool, sample_weight), total, sample_weight)
    problem = fold.problem(point.objective, rules)
    selection = np.zeros(problem.n_rules, dtype=bool)
    best = pool.best_tree()
    assert best is not None  # a point was validated, so the pool has its reference tree
    for bc in complexity_grid(best.complexity):
        if bc > point.complexity_budget:
            break
        selection = _improve(problem.with_budgets(bc, be), selection)
    return selection if rules is None else widen_selection(selection, rules, pool.n_rules)


__all__ = ["ACCURACY_MAX_NNZ", "DEFAULT_SIZE", "ERROR_GRID", "FOLDS", "SIZES", "AccuracyPoint", "accuracy_frontier", "choose",
           "complexity_grid", "eligible_points", "frontier_table", "one_se_rule", "solve_chosen", "validate_candidates",
           "validation_splits", "within_one_se"]
