"""The rule pool: CART trees over a hyper-parameter grid, every root-to-leaf path a rule.

Section 3 of the paper: criterion x splitter x max_features x max_depth in
``range(1, D)`` (12 (D-1) trees), paths turned into rules, conditions on one
feature and direction merged, identical and empirically equivalent rules (same
covered rows, same class) removed.  Each tree gets its own random state drawn
from ``random_state``: one shared state makes many trees identical and the
pool collapses (Iris, D=3: 12 distinct rules instead of about 40).
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from dataclasses import asdict, dataclass, field
from itertools import product

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.ensemble import RandomForestClassifier
from sklearn.tree import DecisionTreeClassifier

from explainer.data.features import FeatureSpec, numeric_specs
from explainer.data.labels import encode_labels, label_array
from explainer.data.precision import FeatureMatrix, Float32View, MixedPrecisionMatrix
from explainer.rules.binding import rules_for_data
from explainer.rules.forbid import allowed_features, forbidden_names, names_forbidden
from explainer.rules.grower import grow_rules
from explainer.rules.model import (
    Condition,
    Rule,
    RuleSet,
    drop_implied,
    merge_conditions,
    rule_masks,
)
from explainer.rules.numbers import shorten_threshold
from explainer.rules.simplify import Simplifier
from explainer.rules.tree_fit import tree_fitter

CRITERIA = ("gini", "entropy")
SPLITTERS = ("best", "random")
MAX_FEATURES = ("sqrt", "log2", None)
#: where the pool's trees come from: the paper's CART grid, or a random forest
SOURCES = ("grid", "forest")
#: grids on at least this many rows, or this many cells (rows x features: a wide table's trees scan every
#: feature at each node), fit their trees in threads (scikit-learn's tree fit releases the GIL); each
#: tree keeps its own seed, so the pool is the same as fitted one after another
PARALLEL_FIT_ROWS = 5_000
PARALLEL_FIT_CELLS = 1_000_000

#: asked between the pool's trees (in the thread that builds it): True when the pool is no longer wanted,
#: and the build then ends with :class:`BuildCancelled`.  The dashboard sets it in the threads that build a
#: pool, or choose default budgets, for pages that may close meanwhile; unset, every build finishes.  A
#: context variable, so a caller several calls up (the default budgets' validation grows pools of its own)
#: need not pass it down.
BUILD_STOP: ContextVar[Callable[[], bool] | None] = ContextVar("explainer_build_stop", default=None)


class BuildCancelled(Exception):
    """A pool build ended early: :data:`BUILD_STOP` said it was no longer wanted."""


def check_build_stop(stop: Callable[[], bool] | None = None) -> None:
    """Raise :class:`BuildCancelled` when ``stop`` (default: this context's :data:`BUILD_STOP`) says so."""
    stop = BUILD_STOP.get() if stop is None else stop
    if stop is not None and stop():
        raise BuildCancelled("the rule pool is no longer wanted")


@dataclass
class TreeInfo:
    """One trained tree and the rule set it gives on its own."""

    index: int
    criterion: str
    splitter: str
    max_features: str | None
    max_depth: int | None
    random_state: int
    n_leaves: int
    complexity: int  # sum of its (merged) rule lengths
    errors: int  # sum of its rules' errors
    covered: int  # rows its rules cover (all of them unless values are missing)
    rule_ids: list[int] = field(default_factory=list)  # pool indices of its rules (after dedup)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class BestTree:
    """The reference tree of section 6.3 and the budgets it suggests."""

    tree: TreeInfo
    complexity: int  # c*
    errors: int  # e*
    complexity_budget: int  # suggested Bc < c*
    error_budget: int  # suggested Be <= e*


@dataclass
class RulePool:
    rules: list[Rule]
    feature_names: list[str]
    classes: list
    y: np.ndarray  # class codes of the rows
    rule_class: np.ndarray  # class code of each rule
    coverage: sp.csc_matrix  # N x M, 1 where rule i covers row j
    trees: list[TreeInfo]
    n_candidate_rules: int  # paths before removing duplicates
    settings: dict
    feature_specs: list[FeatureSpec] = field(default_factory=list)  # what each feature means
    #: the table the trees learned from (the ``X`` given to :func:`build_pool`, not a copy), so that a
    #: validation can grow a pool on part of its rows; None when unknown, and never pickled (a worker
    #: process solving the pool does not need it)
    training_table: object = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.feature_specs:
            self.feature_specs = numeric_specs(self.feature_names)

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["training_table"] = None
        return state

    def build_settings(self) -> dict:
        """The :func:`build_pool` keyword arguments this pool was built with (its extra rules apart), so that a
        pool grown the same way on part of the rows can be built."""
        s = self.settings
        seed = s.get("random_state")
        kwargs = {"max_depth": s.get("max_depth", 5), "random_state": seed if isinstance(seed, int) else 0,
                  "n_repeats": s.get("n_repeats", 1), "source": s.get("source", "grid"),
                  "phrase_length": bool(s.get("phrase_length", False)), "grow": bool(s.get("grow", False)),
                  "max_fit_rows": s.get("max_fit_rows"), "forbidden_columns": self.forbidden_columns,
                  "classes": self.classes, "feature_names": self.feature_names, "feature_specs": self.feature_specs}
        if s.get("n_estimators"):
            kwargs["n_estimators"] = s["n_estimators"]
        return kwargs

    @property
    def n_rules(self) -> int:
        return len(self.rules)

    @property
    def n_trees(self) -> int:
        return len(self.trees)

    @property
    def n_rows(self) -> int:
        return len(self.y)

    @property
    def phrase_length(self) -> bool:
        """Whether the rules were rewritten in their simplest form (the analyst's pools) or kept as paths."""
        return bool(self.settings.get("phrase_length", False))

    @property
    def forbidden_columns(self) -> tuple[str, ...]:
        """The columns no rule of the pool may name (:mod:`explainer.rules.forbid`)."""
        return tuple(self.settings.get("forbidden_columns") or ())

    @property
    def lengths(self) -> np.ndarray:
        return np.array([r.length for r in self.rules], dtype=np.int64)

    def rule_set(self, selection) -> RuleSet:
        """The rules picked by a boolean mask or an index list."""
        sel = np.asarray(selection)
        idx = np.flatnonzero(sel) if sel.dtype == bool else sel.astype(int)
        return RuleSet([self.rules[i] for i in idx])

    def cart_tree(self, depth: int) -> TreeInfo | None:
        """The grid's plain CART tree grown to ``depth`` (gini, best splits, every feature, the first seed), or
        the deepest such tree when the grid stops short of ``depth``; None when the grid has none."""
        plain = [t for t in self.trees if t.criterion == "gini" and t.splitter == "best" and t.max_features is None
                 and t.max_depth is not None and t.max_depth <= depth]
        return max(plain, key=lambda t: (t.max_depth, -t.index)) if plain else None

    def best_tree(self, depth: int | None = None) -> BestTree | None:
        """The reference tree of section 6.3 and the budgets it suggests (Bc = c* - 1, Be = e*).

        The paper calls best the tree of smallest complexity, but over the
        whole grid that is always a stump with half the data wrong, and the
        paper's own budgets sit near the trees that balance size and errors.
        So the best tree here is the knee of the trees' (complexity, errors)
        front: the smallest sum of complexity and errors, each divided by its
        largest value in the grid (ties: smaller complexity).  ``depth``
        restricts the choice to trees of that max_depth.
        """
        trees = [t for t in self.trees if depth is None or t.max_depth == depth]
        if not trees:
            return None
        c_max = max(1, max(t.complexity for t in trees))
        e_max = max(1, max(t.errors for t in trees))
        best = min(trees, key=lambda t: (t.complexity / c_max + t.errors / e_max, t.complexity, t.index))
        return BestTree(
            tree=best,
            complexity=best.complexity,
            errors=best.errors,
            complexity_budget=max(1, best.complexity - 1),
            error_budget=best.errors,
        )

    def summary(self) -> dict:
        bt = self.best_tree()
        out = {
            "n_rows": self.n_rows,
            "n_features": len(self.feature_names),
            "n_classes": len(self.classes),
            "n_trees": self.n_trees,
            "n_candidate_rules": self.n_candidate_rules,
            "n_rules": self.n_rules,
            "settings": self.settings,
        }
        if bt is not None:
            out["best_tree"] = {
                "complexity": bt.complexity,
                "errors": bt.errors,
                "max_depth": bt.tree.max_depth,
                "criterion": bt.tree.criterion,
                "splitter": bt.tree.splitter,
                "max_features": bt.tree.max_features,
                "suggested_complexity_budget": bt.complexity_budget,
                "suggested_error_budget": bt.error_budget,
            }
        return out


def grid_params(max_depth: int, n_repeats: int = 1) -> list[dict]:
    """The paper's grid: 12 (max_depth - 1) combinations per repeat.

    Repeats only redo trees with randomness in them (``splitter="best"`` with
    all features is deterministic and would only repeat itself).
    """
    if max_depth < 2:
        raise ValueError("max_depth must be at least 2 (trees of depth 1 .. max_depth - 1)")
    params = []
    for rep in range(max(1, int(n_repeats))):
        for depth, crit, split, feats in product(range(1, max_depth), CRITERIA, SPLITTERS, MAX_FEATURES):
            if rep > 0 and split == "best" and feats is None:
                continue
            params.append({"criterion": crit, "splitter": split, "max_features": feats, "max_depth": depth})
    return params


class _Extractor:
    """Turns fitted trees into merged, readable-threshold rules with their covered rows.

    Thresholds are written as a person would, without moving any row: 0.5 on
    a one-hot or missing indicator (read ``Margin = 5``, ``Margin is
    missing``), a whole number on a whole-number feature (``Age <= 32`` for
    32.7: the same whole numbers satisfy both), otherwise the shortest decimal
    that splits the observed values where the tree did.  A split that sends
    every row of its node one way adds nothing to the path and is left out
    (``Margin <= inf`` on a node without missing values); ``x <= inf`` on a
    node with missing values is "x is not missing" and uses the missing
    indicator where the data has one.
    """

    def __init__(self, X: FeatureMatrix, feature_names: list[str], feature_specs: list[FeatureSpec],
                 view: Float32View | None = None):
        self.X = X
        self.view = view  # trees trained on ranks of low-resolution columns: thresholds mapped back
        self.feature_names = feature_names
        self.specs = feature_specs
        self._uniques: list[np.ndarray | None] = [None] * X.shape[1]  # per feature, read on first use
        self._short: dict[tuple[int, float, bool], float] = {}
        self._indicator = {s.column: i for i, s in enumerate(feature_specs) if s.kind == "missing"}
        #: the trees' feature k is the table's feature ``feature_map[k]`` (trees fitted without forbidden columns)
        self.feature_map: np.ndarray | None = None

    def _short_threshold(self, f: int, t: float, original: bool = False) -> float:
        """The threshold as printed and kept; ``original``: ``t`` is already in the data's units
        (a grown rule's), not a tree's threshold on the ranked view."""
        key = (f, t, original)
        if key not in self._short:
            if self.view is not None and not original:
                t = self.view.original_threshold(f, t)
            spec = self.specs[f]
            if spec.binary and 0 <= t < 1:
                short = 0.5  # the feature is 0/1: any threshold in [0, 1) splits it the same
            elif spec.integer and math.isfinite(t):
                short = float(math.floor(t))  # v <= 32.7 and v <= 32 agree on whole numbers, as do > 32.7, > 32
            else:
                uniques = self._uniques[f]
                if uniques is None:
                    col = np.asarray(self.X[:, f], dtype=np.float64)
                    uniques = self._uniques[f] = np.unique(col[~np.isnan(col)])
                short = shorten_threshold(t, uniques)
            self._short[key] = short
        return self._short[key]

    def _condition(self, f: int, op: str, thr: float) -> Condition:
        spec = self.specs[f]
        if op == "<=" and thr == math.inf and spec.kind == "numeric" and spec.column in self._indicator:
            ind = self._indicator[spec.column]
            return Condition(self.feature_names[ind], "<=", 0.5, self.specs[ind])
        return Condition(self.feature_names[f], op, thr, spec)

    def paths(self, tree, class_codes: np.ndarray):
        """Yield (conditions, class code, covered row indices) per leaf.

        Rows are routed by the conditions themselves: a missing value fails
        both ``<=`` and ``>``, so such a row follows neither branch, exactly as
        the rule text reads.
        """
        t = tree.tree_
        # each of the tree's arrays read once: every read of ``tree_.value`` and the like builds a new array
        left, right = t.children_left, t.children_right
        feature, threshold = t.feature, t.threshold
        leaf_class = class_codes[t.value[:, 0, :].argmax(axis=1)]
        # row numbers as int32, the coverage matrix's own index type: every leaf's rows are kept until the pool's
        # matrix is made, 25 million of them at 364,035 rows (200 MB as int64, then as much again to join them)
        stack: list[tuple[int, np.ndarray, tuple[Condition, ...]]] = [(0, row_numbers(self.X.shape[0]), ())]
        while stack:
            node, rows, conds = stack.pop()
            if left[node] == -1:
                yield conds, int(leaf_class[node]), rows
                continue
            f = int(feature[node]) if self.feature_map is None else int(self.feature_map[feature[node]])
            thr = self._short_threshold(f, float(threshold[node]))
            col = np.asarray(self.X[rows, f], dtype=np.float64)  # compared as the rule reads it (float32 would not)
            go_left = col <= thr  # a missing value (NaN) is False both ways, without a warning
            go_right = col > thr
            left_rows, right_rows = rows[go_left], rows[go_right]
            # a condition every row of the node satisfies is dropped: the path selects the same rows
            right_conds = conds if right_rows.size == rows.size else (*conds, self._condition(f, ">", thr))
            left_conds = conds if left_rows.size == rows.size else (*conds, self._condition(f, "<=", thr))
            stack.append((int(right[node]), right_rows, right_conds))
            stack.append((int(left[node]), left_rows, left_conds))


def feature_matrix(frame: pd.DataFrame) -> FeatureMatrix:
    """The features as one matrix, NaN = missing, every read of it float64: float32 when float32 holds every value
    exactly (0/1 features, whole numbers below 2**24, ...), else a :class:`MixedPrecisionMatrix` holding the columns
    float32 cannot hold (decimal fractions, ...) in float64 beside the float32 rest, or float64 when those are
    half the columns or more.

    Why: it is a pool build's largest array (rows x features, 300 MB as float64 at 364,035 rows and 108
    features); the trees learn in float32 anyway, and every comparison reads a column back as float64, so the
    trees, the rules and their rows are the same either way.
    """
    n_rows, n_cols = frame.shape
    out = np.empty((n_rows, n_cols), dtype=np.float32, order="F")  # a column's rows side by side, as pandas gives
    wide: dict[int, np.ndarray] = {}
    step = max(1, FEATURE_BLOCK_CELLS // max(n_rows, 1))  # columns read at a time: a block, not a second matrix
    with np.errstate(over="ignore", invalid="ignore"):
        for j in range(0, n_cols, step):
            try:
                block = frame.iloc[:, j:j + step].to_numpy(dtype=np.float64)
            except (TypeError, ValueError):  # the whole frame's conversion says what is wrong, as it always did
                del out
                return frame.to_numpy(dtype=float)
            narrow = block.astype(np.float32)
            out[:, j:j + step] = narrow
            held = ((narrow == block) | np.isnan(block)).all(axis=0)  # NaN stays NaN in float32
            for k in np.flatnonzero(~held):
                wide[j + int(k)] = np.ascontiguousarray(block[:, k])
    if not wide:
        return out
    if 2 * len(wide) < n_cols:
        return MixedPrecisionMatrix(out, wide)
    # half the columns or more in float64: the whole matrix in float64 is no larger than float32 and those copies
    full = out.astype(np.float64)
    del out
    for j, column in wide.items():
        full[:, j] = column
    return full


#: cells of the table turned into float64 at a time by :func:`feature_matrix` (32 MB)
FEATURE_BLOCK_CELLS = 1 << 22


def _as_frame(X, feature_names=None) -> pd.DataFrame:
    if isinstance(X, pd.DataFrame):
        return X
    X = np.asarray(X, dtype=float)
    names = list(feature_names) if feature_names is not None else [f"x{i}" for i in range(X.shape[1])]
    return pd.DataFrame(X, columns=names)


def build_pool(
    X,
    y,
    max_depth: int = 5,
    *,
    random_state=0,
    n_repeats: int = 1,
    source: str = "grid",
    n_estimators: int = 100,
    extra_rules=None,
    grow: bool = False,
    classes=None,
    feature_names=None,
    feature_specs=None,
    phrase_length: bool = False,
    max_fit_rows: int | None = None,
    forbidden_columns=(),
) -> RulePool:
    """Train the trees and collect their rules.

    Parameters
    ----------
    X : DataFrame (column names are the feature names) or 2-D array; NaN = missing.
    y : class labels of the rows.
    max_depth : D; trees of depth 1 .. D-1 (the paper's "Depth" column).
    random_state : seeds the per-tree random states.
    n_repeats : how many times the grid is trained (pool richness).
    source : ``"grid"`` (the paper) or ``"forest"`` (a random forest of depth D-1).
    extra_rules : rules from elsewhere (another learner, an expert), added to the pool.
    grow : also add rules grown one condition at a time (:mod:`explainer.rules.grower`), the
        conjunctions tree paths reach only as long, impure paths; the paper's pool has none.
    feature_specs : what each column of ``X`` means (``Dataset.feature_specs``), so
        rules print as ``Margin = 5`` or ``Age > 32``; default: every column numeric.
    phrase_length : rewrite each path in its simplest form (one phrase per column:
        ``safety = high``, ``buying in {low, med}``, ``thal in {6, 7}``, ``sex = 1``; same
        training rows, :mod:`explainer.rules.simplify`); a value set can cost fewer conditions
        than the path it replaces.  False keeps the paper's paths.  Either way a rule's length is
        :func:`~explainer.rules.model.rule_complexity`, the one count.
    max_fit_rows : the trees learn their splits from at most this many rows, a seeded sample
        stratified by class (``None``: every row).  Only the splits and the leaves' classes come
        from the sample: each rule's rows and errors are counted on every row, so on a large
        table the trees cost a fraction of their time and every rule still means what it says.
    forbidden_columns : table columns (``FeatureSpec.column``) no rule may name, e.g. a sensitive
        attribute: the trees and the grown rules learn from the other features only (a tree that split
        on the column first would shape every path below it, so filtering afterwards is not the same),
        and extra rules that name one are left out (counted in ``settings["n_extra_rules_forbidden"]``).
        A name that is no column of ``X`` is a ``ValueError``; so is forbidding every column.
    """
    data = _TrainingData.of(X, y, classes, feature_names, feature_specs)
    names, specs, Xv, codes, classes = data.names, data.specs, data.X, data.codes, data.classes
    forbidden = forbidden_names(forbidden_columns, specs)
    allowed = allowed_features(specs, forbidden) if forbidden else None
    rng = np.random.default_rng(random_state)
    check_build_stop()
    fitted, seeds = _fitted_trees(data, rng, source, max_depth, n_repeats, n_estimators, max_fit_rows, allowed)
    extractor = _Extractor(Xv, names, specs, data.view)
    extractor.feature_map = allowed
    simplify = Simplifier(Xv, specs) if phrase_length else None
    collected = _Collector()
    add = collected.add
    for tree_index, (p, seed, model) in enumerate(fitted):
        check_build_stop()
        collected.add_tree(tree_index, p, seed, model, extractor, simplify, codes, classes)
    index = {n: i for i, n in enumerate(names)}
    if grow:
        collected.add_grown(Xv, codes, names, index, int(seeds[-1]), extractor, simplify, classes, allowed)
    n_candidates = collected.n_candidates
    n_forbidden_extra = 0
    for rule in rules_for_data(extra_rules or [], specs, classes):  # labels bound to the classes
        if forbidden and names_forbidden(rule, forbidden):
            n_forbidden_extra += 1  # left out: the analyst's rules obey the same ban as the trees'
            continue
        n_candidates += 1
        add(rule, int(encode_labels(label_array([rule.label]), classes)[0][0]), np.flatnonzero(rule.covers(Xv, index)))

    settings = _pool_settings(max_depth, random_state, n_repeats, source, n_estimators, extra_rules, phrase_length,
                              grow, max_fit_rows)
    if forbidden:  # only when some are: a pool without them reads (and fingerprints) as before
        settings["forbidden_columns"] = list(forbidden)
    if n_forbidden_extra:
        settings["n_extra_rules_forbidden"] = n_forbidden_extra
    n_rows = Xv.shape[0]
    # the float matrix (rows x features x 4 or 8 bytes: 150 or 300 MB at 364,035 rows) is the build's largest array
    # and the coverage matrix does not need it: it goes before that matrix is made, when the rows' lists are held too
    del data, Xv, extractor, simplify
    return RulePool(
        rules=collected.rules,
        feature_names=names,
        classes=classes,
        y=codes,
        rule_class=np.array(collected.rule_class, dtype=np.int64),
        coverage=_csc_from_rows(collected.row_lists, n_rows),
        trees=collected.trees,
        n_candidate_rules=n_candidates,
        settings=settings,
        feature_specs=specs,
        training_table=X,
    )


def _pool_settings(max_depth, random_state, n_repeats, source, n_estimators, extra_rules, phrase_length, grow,
                   max_fit_rows) -> dict:
    return {
        "max_depth": max_depth,
        "random_state": random_state if random_state is None or np.isscalar(random_state) else str(random_state),
        "n_repeats": n_repeats,
        "source": source,
        "n_estimators": n_estimators if source == "forest" else None,
        "n_extra_rules": len(extra_rules or []),
        "phrase_length": bool(phrase_length),
        "grow": bool(grow),
        "max_fit_rows": None if max_fit_rows is None else int(max_fit_rows),
    }


@dataclass
class _TrainingData:
    """The table a pool is built from: feature matrix, names, specs and class codes, checked."""

    names: list[str]
    specs: list[FeatureSpec]
    X: FeatureMatrix  # read as float64, NaN = missing
    codes: np.ndarray
    classes: list
    view: Float32View | None  # the ranked copy the trees learn from, where float32 loses values
    fit_matrix: np.ndarray  # what the trees learn from: the view's matrix, or X's float32 part, or X

    @classmethod
    def of(cls, X, y, classes, feature_names, feature_specs) -> _TrainingData:
        frame = _as_frame(X, feature_names)
        names = [str(c) for c in frame.columns.tolist()]  # one conversion: iterating an arrow-backed index is slow
        specs = _check_specs(feature_specs, names)
        Xv = feature_matrix(frame)
        codes, classes = encode_labels(y, classes)
        if Xv.shape[0] != codes.shape[0]:
            raise ValueError("X and y have different numbers of rows")
        if Xv.shape[0] == 0:
            raise ValueError("no rows to learn from")
        # float32 (the tree learner's type) cannot tell some values apart (0.1 + 0.2 vs 0.3): such
        # columns are learned on their ranks and every threshold is mapped back to the original values
        view = Float32View(Xv)
        return cls(names, specs, Xv, codes, classes, view if view.ranked else None, view.matrix)


def _fitted_trees(data: _TrainingData, rng: np.random.Generator, source: str, max_depth: int, n_repeats: int,
                  n_estimators: int, max_fit_rows: int | None,
                  allowed: np.ndarray | None = None) -> tuple[list[tuple[dict, int, object]], np.ndarray]:
    """The grid's (or the forest's) fitted trees as (parameters, seed, tree), and the seeds drawn; ``allowed``:
    the only features the trees see (their feature k is then ``allowed[k]``)."""
    if source == "grid":
        params = grid_params(max_depth, n_repeats)
        models = [DecisionTreeClassifier(**p) for p in params]
    elif source == "forest":
        params = [{"criterion": "gini", "splitter": "best", "max_features": "sqrt", "max_depth": max_depth - 1}]
        models = []
    else:
        raise ValueError("source must be 'grid' or 'forest'")
    seeds = rng.integers(0, 2**31 - 1, size=max(len(models), 1) * max(1, n_repeats) + 1)
    # drawn after the trees' seeds, so a pool on every row keeps the seeds it always had
    sample = _fit_sample(data.codes, max_fit_rows, int(rng.integers(0, 2**31 - 1)))
    Xfit, yfit = data.fit_matrix, data.codes
    if allowed is not None:
        Xfit = Xfit[:, allowed]
    if sample is not None:
        Xfit, yfit = Xfit[sample], yfit[sample]
    if source == "forest":
        forest = RandomForestClassifier(
            n_estimators=n_estimators * max(1, n_repeats), max_depth=max_depth - 1, random_state=int(seeds[0])
        )
        forest.fit(Xfit, yfit)
        return [(params[0], int(est.random_state), est) for est in forest.estimators_], seeds
    for k, model in enumerate(models):
        model.set_params(random_state=int(seeds[k]))
    _fit_all(models, Xfit, yfit)
    return [(p, int(seeds[k]), model) for k, (p, model) in enumerate(zip(params, models, strict=True))], seeds


class _Collector:
    """The pool's rules as they arrive, without duplicates.

    A rule covering the same rows with the same class as a kept one is empirically equivalent:
    only the shorter wording stays.  A rule with the same text as a kept one adds nothing.
    """

    def __init__(self):
        self.rules: list[Rule] = []
        self.rule_class: list[int] = []
        self.row_lists: list[np.ndarray] = []
        self.by_rows: dict[tuple[bytes, int], int] = {}
        self.by_text: dict[tuple, int] = {}
        self.trees: list[TreeInfo] = []
        self.n_candidates = 0

    def add(self, rule: Rule, label: int, rows: np.ndarray) -> int | None:
        """The pool index of ``rule`` (added, or its kept equivalent); None for an empty rule."""
        if rows.size == 0 or rule.length == 0:
            return None
        key_rows = (hashlib.blake2b(rows.astype(np.int64).tobytes(), digest_size=16).digest(), label)
        hit = self.by_rows.get(key_rows)
        if hit is not None:
            # empirically equivalent: keep the shorter wording
            if rule.length < self.rules[hit].length:
                self.by_text.pop(self.rules[hit].key(), None)
                self.rules[hit] = rule
                self.by_text[rule.key()] = hit
            return hit
        hit = self.by_text.get(rule.key())
        if hit is not None:
            return hit
        self.by_rows[key_rows] = len(self.rules)
        self.by_text[rule.key()] = len(self.rules)
        self.rules.append(rule)
        self.rule_class.append(label)
        self.row_lists.append(rows)
        return len(self.rules) - 1

    def add_tree(self, index: int, p: dict, seed: int, model, extractor: _Extractor, simplify, codes: np.ndarray,
                 classes: list) -> None:
        """Every root-to-leaf path of one fitted tree, and the tree's own record."""
        complexity = errors = covered = n_leaves = 0
        ids = []
        for conds, label, rows in extractor.paths(model, model.classes_.astype(np.int64)):
            n_leaves += 1
            self.n_candidates += 1
            rule = Rule(drop_implied(merge_conditions(conds)), classes[label])
            if simplify is not None:
                rule = simplify(rule)
            complexity += rule.length
            errors += int(np.count_nonzero(codes[rows] != label))
            covered += rows.size
            rid = self.add(rule, label, rows)
            if rid is not None:
                ids.append(rid)
        self.trees.append(TreeInfo(
            index=index, criterion=p["criterion"], splitter=p["splitter"], max_features=p["max_features"],
            max_depth=p["max_depth"], random_state=seed, n_leaves=n_leaves, complexity=complexity,
            errors=errors, covered=covered, rule_ids=ids,
        ))

    def add_grown(self, X: FeatureMatrix, codes: np.ndarray, names: list[str], index: dict[str, int], seed: int,
                  extractor: _Extractor, simplify, classes: list, allowed: np.ndarray | None = None) -> None:
        """The rules grown one condition at a time, with the thresholds a tree path would get; ``index``: the
        position of each of ``names``; ``allowed``: the only features they may read."""
        A, grow_names = (X, names) if allowed is None else (_columns(X, allowed), [names[i] for i in allowed])
        for rule, label in grow_rules(A, codes, grow_names, random_state=seed):
            self.n_candidates += 1
            # shortest exact decimal, whole numbers on integer columns
            conds = []
            for c in rule.conditions:
                assert isinstance(c, Condition)  # a grown rule holds comparisons only
                conds.append(extractor._condition(index[c.feature], c.op, extractor._short_threshold(
                    index[c.feature], c.threshold, original=True)))
            grown = Rule(drop_implied(merge_conditions(conds)), classes[label])
            rows = np.flatnonzero(grown.covers(X, index))
            self.add(grown if simplify is None else simplify(grown), label, rows)


def _columns(X: FeatureMatrix, picked: np.ndarray) -> FeatureMatrix:
    """The columns ``picked`` of a feature matrix, in the same form (a mixed matrix's float64 part stays apart)."""
    if not isinstance(X, MixedPrecisionMatrix):
        return X[:, picked]
    where = {int(j): k for k, j in enumerate(picked)}
    return MixedPrecisionMatrix(X.narrow[:, picked], {where[j]: c for j, c in X.wide.items() if j in where})


def _fit_sample(codes: np.ndarray, max_rows: int | None, seed: int) -> np.ndarray | None:
    """Sorted row indices of a sample of at most about ``max_rows`` rows with each class in its
    share of the table (at least one row of each), or ``None`` when the table is no larger."""
    n = codes.shape[0]
    if max_rows is None or n <= max_rows:
        return None
    if max_rows < 1:
        raise ValueError("max_fit_rows must be at least 1")
    rng = np.random.RandomState(seed)
    parts = []
    for c in np.unique(codes):
        rows = np.flatnonzero(codes == c)
        k = min(rows.size, max(1, int(round(max_rows * rows.size / n))))
        parts.append(rng.choice(rows, k, replace=False))
    return np.sort(np.concatenate(parts))


def _fit_all(models: list, X: np.ndarray, codes: np.ndarray) -> None:
    """Fit every tree on (X, codes): in threads on large tables, one after another on small ones."""
    fit = tree_fitter(X, codes)
    workers = min(len(models), os.cpu_count() or 1)
    if (X.shape[0] < PARALLEL_FIT_ROWS and X.shape[0] * X.shape[1] < PARALLEL_FIT_CELLS) or workers < 2:
        for model in models:
            check_build_stop()
            fit(model)
        return
    stop = BUILD_STOP.get()  # the pool's threads do not see this thread's context: each tree asks it here

    def fit_unless_stopped(model):
        check_build_stop(stop)
        fit(model)

    with ThreadPoolExecutor(max_workers=workers) as ex:
        list(ex.map(fit_unless_stopped, models))


def _check_specs(feature_specs, names: list[str]) -> list[FeatureSpec]:
    if feature_specs is None:
        return numeric_specs(names)
    by_name = {s.name: s for s in feature_specs}
    missing = [n for n in names if n not in by_name]
    if missing:
        raise ValueError(f"feature_specs has no spec for the column {missing[0]!r} of X")
    return [by_name[n] for n in names]  # a subset or reordering of the columns is fine


def row_index_type(largest: int) -> np.dtype:
    """The index type scipy gives a sparse matrix whose indices reach ``largest``: int32 below 2**31."""
    return np.dtype(np.int32) if largest < 2**31 else np.dtype(np.int64)


def row_numbers(n_rows: int) -> np.ndarray:
    """0 .. n_rows - 1, in the index type of a sparse matrix of that many rows."""
    return np.arange(n_rows, dtype=row_index_type(n_rows))


def _csc_from_rows(row_lists: list, n_rows: int) -> sp.csc_matrix:
    """The N x len(row_lists) CSC float32 matrix whose column k holds the rows ``row_lists[k]``; the list is
    emptied as its arrays are copied, so they and the matrix are not all held at once."""
    n_cols = len(row_lists)
    lengths = np.array([r.size for r in row_lists], dtype=np.int64)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    # filled in place in the matrix's index type: joining lists of another type made a copy of them all first
    index_type = row_index_type(max(n_rows, int(indptr[-1])))
    indices = np.empty(int(indptr[-1]), dtype=index_type)
    for k, (start, end) in enumerate(zip(indptr[:-1], indptr[1:], strict=True)):
        indices[start:end] = row_lists[k]
        row_lists[k] = None
    row_lists.clear()
    data = np.ones(indices.size, dtype=np.float32)
    return sp.csc_matrix((data, indices, indptr.astype(index_type)), shape=(n_rows, n_cols))


def coverage_sparse(rules, X, feature_index: dict[str, int] | None = None) -> sp.csc_matrix:
    """The rows of ``X`` each rule covers, N x len(rules) CSC float32, built one rule's rows at a time.

    The dense boolean matrix (:func:`~explainer.rules.model.coverage_columns`) of a large table's rows takes
    rows x rules bytes whatever the rules cover, and its sparse copy as much again: 118 MB and 185 MB for the
    validation's held-out rows of a 364,035-row table."""
    index_type = row_index_type(len(X))
    # each rule's rows narrowed as they come: the lists wait for the matrix, and int64 ones would double them
    rows = [np.flatnonzero(covered).astype(index_type) for covered in rule_masks(rules, X, feature_index)]
    return _csc_from_rows(rows, len(X))


def pool_from_rules(rules, X, y, classes=None, feature_names=None, feature_specs=None) -> RulePool:
    """A pool made only of given rules (e.g. a rule text file), no trees."""
    frame = _as_frame(X, feature_names)
    codes, classes = encode_labels(y, classes)
    names = [str(c) for c in frame.columns.tolist()]
    specs = _check_specs(feature_specs, names)
    Xv = feature_matrix(frame)  # read as the pool's own build reads a table
    index = {n: i for i, n in enumerate(names)}
    out = list(rules_for_data(rules, specs, classes))  # labels bound to the classes
    rule_class = encode_labels(label_array([r.label for r in out]), classes)[0]
    return RulePool(
        rules=out,
        feature_names=names,
        classes=classes,
        y=codes,
        rule_class=np.array(rule_class, dtype=np.int64),
        coverage=coverage_sparse(out, Xv, index),
        trees=[],
        n_candidate_rules=len(out),
        settings={"source": "rules"},
        feature_specs=specs,
    )
