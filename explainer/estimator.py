"""The engine as a scikit-learn estimator: :class:`RuleSetExplainer`.

It follows scikit-learn's conduct: keyword-only parameters stored as given, every one of them
checked at the start of ``fit`` (:attr:`RuleSetExplainer._parameter_constraints`, then the
algorithm against the solver registry and ``algorithm_params`` against that algorithm's
parameters) before the table is encoded or a tree is grown, ``random_state`` read through
``check_random_state``, and the same fitted attributes after every fit.
"""

from __future__ import annotations

import warnings
from dataclasses import replace
from numbers import Integral, Real

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import (
    _check_feature_names,
    _check_n_features,
    _check_sample_weight,
    check_is_fitted,
    validate_data,
)

from explainer.data.encoder import MANY_VALUES, TableEncoder, left_out_message
from explainer.data.labels import (
    class_array,
    encode_labels,
    fallback_code,
    label_array,
    label_key,
    majority_class,
    match_label,
)
from explainer.data.tables import check_width
from explainer.data.target import ID_MIN_ROWS, ID_RATIO
from explainer.pipeline import (
    SIZES,
    every_class_explained,
    explain_pool,
    resolve_defaults,
    room_for_pins,
    row_weights,
)
from explainer.pipeline.alternatives import check_method, explain_alternatives
from explainer.pipeline.validation import validation_splits
from explainer.report import evaluate_rules
from explainer.report.probabilities import (
    PROBA_SMOOTHING,
    REFERENCE_DEPTHS,
    VoteProbabilities,
    fit_patterns,
    fit_probabilities,
    rule_conditions,
    vote_probabilities,
)
from explainer.rules.defaults import default_pool_settings
from explainer.rules.model import RuleSet
from explainer.rules.pinned import check_rule_texts
from explainer.rules.pool import SOURCES, build_pool
from explainer.selection.settings import RunSettings
from explainer.selection.solvers.registry import check_params, get_solver_class


def _encoded_columns(forbidden, specs, frame) -> list[str]:
    """The forbidden columns the encoded table still holds (the encoder may have dropped one, e.g. a constant
    column: no rule can name it anyway)."""
    columns = {s.column for s in specs} if specs is not None else {str(c) for c in frame.columns}
    return [c for c in forbidden if c in columns]


class RuleSetExplainer(ClassifierMixin, BaseEstimator):
    """Select a short rule set that explains (X, y); predict by the vote of the rules that fire.

    Parameters (keyword only)
    ----------
    max_depth : D of the CART grid (trees of depth 1 .. D-1), an integer >= 2; ``None`` = the
        default pool's (8).
    complexity_budget, error_budget : Bc and Be, integers >= 0 (Be any number >= 0 when the rows are
        weighted: a weight); ``None`` takes the default budgets (:func:`explainer.pipeline.default_budgets`).
    size : the default explanation's size when both budgets are ``None``: ``"compact"``, ``"balanced"`` (default)
        or ``"accurate"``, the smallest candidate whose held-out accuracy and Brier score are within 1, 0.5
        or 0 standard errors of the best (:mod:`explainer.pipeline.validation`); unused when a budget is given.
    eps : conflict penalty, a number >= 0.
    algorithm : registry name (``qga``, ``rfhc``, ``exact``, ...; see ``explainer.selection.ALGORITHMS``).
    algorithm_params : dict of the algorithm's parameters (e.g. ``{"n_generations": 50}``).
    n_repeats, source : pool richness (an integer >= 1) and source (``grid`` or ``forest``);
        ``None`` = the default pool's (1 repeat, ``grid``).
    default_class : class for rows no rule covers (or tied), one of the classes of ``y``;
        ``None`` = the most frequent class, by weight, of the training rows the selected rules leave uncovered.
    class_weight : ``None`` (every row counts 1), ``"balanced"`` (a row of class k counts
        ``n_rows / (n_classes * rows of k)``, as scikit-learn's ``compute_sample_weight``) or a dict
        from class label to weight (classes left out weigh 1).  The weights, times ``fit``'s
        ``sample_weight``, weigh the rows of the selection: f* counts covered weight, a rule's errors
        the weight of the rows it gets wrong, and ``error_budget`` (then any number >= 0) bounds that
        weight.  The rule pool is grown from the unweighted rows (the trees propose candidates;
        the weights act where rules are chosen).
    random_state : seeds the pool and the algorithm (``None``, an int or a ``RandomState``).
    n_alternatives, alternatives_within : up to ``n_alternatives`` other rule sets (``alternatives_``), each
        differing by at least one rule, within ``alternatives_within`` percentage points of the rows of the
        selection's objective at the same budgets: exact with ``algorithm="exact"`` (no-good cuts in the MILP),
        heuristic with ``"qga"`` (its distinct individuals); other algorithms refuse ``n_alternatives`` > 0.
    pinned_rules, banned_rules : lists of rule texts (``"IF ... THEN CLASS=..."``, as ``rules_`` prints them)
        that the selection must hold / must not; a pinned rule the pool lacks joins it (``pool_`` then holds
        it).  A budget left to the default policy grows by what the pins take (their conditions, their
        errors), so the pins come on top of the explanation it chose.  A text that does not read, or names a
        column or class the data lacks, is a ``ValueError``, as are pins that alone exceed a budget given.
    encoder : a :class:`~explainer.data.encoder.TableEncoder` (cloned at fit) for DataFrame input; ``None``
        = ``TableEncoder(detect_identifiers=False, many_values="exclude")``: numbers are read as numbers, so a
        DataFrame and the same values as an array give the same rules; a text column of more than 100 distinct
        values is left out of the rules with a ``UserWarning`` naming it (pass
        ``TableEncoder(ordinal_as_categorical=True)`` for the command line's reading, where small
        integer codes also offer ``= v`` conditions).
    forbidden_columns : columns of X no rule may name (e.g. a sensitive attribute), a list of names
        (``x0``, ``x1``, ... for an array); ``None``: none.  The pool's trees learn without them
        (:mod:`explainer.rules.forbid`); they stay in the table, so
        :func:`~explainer.report.accuracy_by_group` can still report on their groups.  A DataFrame may hold text, pandas
        ``category``, boolean and missing values: rules name its columns (``colour = red``,
        ``age is missing``) and ``predict`` encodes new rows with the fitted ``encoder_``.
        Arrays must be numeric; their features are ``x0``, ``x1``, ... (or the fitted names).

    Every parameter is checked when ``fit`` starts, before any work: a bad one raises
    ``ValueError`` naming it (an unknown ``algorithm`` names the registered ones; an
    ``algorithm_params`` key the algorithm does not take names the ones it does).

    Attributes (after ``fit``)
    ----------
    classes_, n_features_in_, feature_names_in_ (DataFrame input) : as in scikit-learn.
    encoder_ : the fitted encoder (DataFrame input), else ``None``.
    rules_ : the selected :class:`~explainer.rules.model.RuleSet` (empty for one class).
    report_ : its :class:`~explainer.report.RuleSetReport` on the training rows.
    result_, pool_ : the :class:`~explainer.selection.result.SelectionResult` and the rule pool
        (``None`` for one class: nothing is selected).
    default_class_, fallback_proba_, rule_proba_, class_prior_ : the fallback class and the
        probabilities (below).
    proba_smoothing_ : the m of the probabilities' m-estimate: chosen by held-out Brier score with the
        default explanation, else 2.
    pattern_smoothing_ : the m of the step by the rules' conditions (below), or ``None`` when that step is
        off (the folds of the training rows found it no better, or ``default_class`` is given).
    pattern_conditions_ : the conditions that step groups the rows by: the rules' own, with those of one of
        the pool's plain CART trees (depth 2 to 4) where the folds preferred them; empty when the step is off.
    forbidden_columns_ : the forbidden columns, checked (a tuple; empty when none).
    accuracy_frontier_ : the validation curve the default explanation was chosen from, one dict per
        candidate (held-out ``accuracy``, its ``accuracy_se``, ``balanced_accuracy``, ``brier`` and its
        ``brier_se``, the ``smoothing`` that scored it, ``complexity``, budgets, form, objective; ``chosen``
        marks the default); empty when a budget was given.
    alternatives_ : with ``n_alternatives`` > 0, the other rule sets nearly as good, one dict each as the
        command line's JSON report gives them (``rules`` as text, ``objective``, ``coverage``, ``accuracy``,
        ``complexity``, ``errors``, ``added``, ``dropped``, ``differs_from_best``, ``method``); else empty.

    ``predict`` is the vote of the rules that fire on a row (the class most of
    them give); rows no rule covers, and rows where classes tie, get
    ``default_class_``: the most frequent class, by weight, of the training rows
    no selected rule covers (:func:`~explainer.data.labels.fallback_class`), or
    ``default_class`` when one is given.  ``predict_proba`` says how far to trust
    it, and its largest probability is always the class ``predict`` gives: each
    rule carries its class distribution on the training rows it covers (their
    weight, when weighted), smoothed towards the class shares (``rule_proba_``, an
    m-estimate: with m = 2 a rule right on 18 of 20 rows gives its class about 0.9;
    the default policy chooses m on held-out rows), and a row the vote
    decides gets the mean over the rules that fire on it.  A row left to the
    fallback gets ``fallback_proba_``: the smoothed class distribution of the
    training rows no rule covers, or all weight on ``default_class`` when one is
    given.  Then each row's probabilities move towards the class shares of the
    training rows that meet the same of the rules' conditions (a row meeting all
    but one condition of a rule is not like a row meeting none), by an m-estimate
    whose m, or none, is chosen by Brier score on folds of the training rows
    (``pattern_smoothing_``); where the folds prefer it, the conditions of one of
    the pool's small CART trees group the rows too (``pattern_conditions_``).
    Where the rules' distributions favour another class than their vote, the two
    classes exchange their probabilities.

    Class labels may be of any type: integers, floats (0.5, 1.5), booleans, text;
    ``classes_`` holds them as ``y`` does (:mod:`explainer.data.labels`).
    """

    _parameter_constraints: dict = {
        "max_depth": [Interval(Integral, 2, None, closed="left"), None],
        "complexity_budget": [Interval(Integral, 0, None, closed="left"), None],
        "error_budget": [Interval(Real, 0, None, closed="left"), None],  # a weight when rows are weighted
        "eps": [Interval(Real, 0, None, closed="left")],
        "algorithm": [str],  # a name of the solver registry: checked against it in fit
        "algorithm_params": [dict, None],
        "n_repeats": [Interval(Integral, 1, None, closed="left"), None],
        "source": [StrOptions(set(SOURCES)), None],
        "default_class": "no_validation",  # any label; checked against the classes of y in fit
        "class_weight": [StrOptions({"balanced"}), dict, None],  # a dict's labels are checked against y in fit
        "random_state": ["random_state"],
        "encoder": [TableEncoder, None],
        "size": [StrOptions(set(SIZES))],
        "forbidden_columns": [list, tuple, None],  # names checked against the columns of X in fit
        "n_alternatives": [Interval(Integral, 0, None, closed="left")],
        "alternatives_within": [Interval(Real, 0, None, closed="left")],
        "pinned_rules": [list, tuple, None],  # rule texts: read against the data in fit
        "banned_rules": [list, tuple, None],
    }

    def __init__(
        self,
        *,
        max_depth=None,
        complexity_budget=None,
        error_budget=None,
        eps=1.0,
        algorithm="qga",
        algorithm_params=None,
        n_repeats=None,
        source=None,
        default_class=None,
        class_weight=None,
        random_state=None,
        encoder=None,
        size="balanced",
        forbidden_columns=None,
        n_alternatives=0,
        alternatives_within=1.0,
        pinned_rules=None,
        banned_rules=None,
    ):
        self.max_depth = max_depth
        self.complexity_budget = complexity_budget
        self.error_budget = error_budget
        self.eps = eps
        self.algorithm = algorithm
        self.algorithm_params = algorithm_params
        self.n_repeats = n_repeats
        self.source = source
        self.default_class = default_class
        self.class_weight = class_weight
        self.random_state = random_state
        self.encoder = encoder
        self.size = size
        self.forbidden_columns = forbidden_columns
        self.n_alternatives = n_alternatives
        self.alternatives_within = alternatives_within
        self.pinned_rules = pinned_rules
        self.banned_rules = banned_rules

    def _names(self, X, n_columns):
        if isinstance(X, pd.DataFrame):
            return [str(c) for c in X.columns]
        names = getattr(self, "feature_names_in_", None)
        return [str(n) for n in names] if names is not None else [f"x{i}" for i in range(n_columns)]

    def _frame(self, X):
        if getattr(self, "encoder_", None) is not None:
            _check_feature_names(self, X, reset=False)
            _check_n_features(self, X, reset=False)
            return self.encoder_.transform(X)
        arr = validate_data(self, X, reset=False, ensure_all_finite="allow-nan", dtype=np.float64)
        return pd.DataFrame(arr, columns=self._names(X, arr.shape[1]))

    def _check_fit_input(self, X, y):
        """``(X, y)`` checked (a DataFrame as it is, anything else as a float array) and the labels."""
        if isinstance(X, pd.DataFrame):
            _check_feature_names(self, X, reset=True)
            _check_n_features(self, X, reset=True)
            y = label_array(y) if np.ndim(y) == 1 else np.asarray(y)
            if y.ndim != 1 or len(y) != len(X):
                raise ValueError(f"y must hold one label per row of X ({len(X)} rows)")
        else:
            X, y = validate_data(self, X, y, ensure_all_finite="allow-nan", dtype=np.float64)
            check_width(X.shape[1], "X")  # a DataFrame is checked by its encoder
        _check_labels(y)
        return X, y

    def _rule_texts(self, frame: pd.DataFrame, classes) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """``pinned_rules`` and ``banned_rules`` as tuples, each text checked against the encoded table."""
        out = []
        for name in ("pinned_rules", "banned_rules"):
            texts = getattr(self, name) or ()
            if not all(isinstance(t, str) and t.strip() for t in texts):
                raise ValueError(f"The {name!r} parameter of {type(self).__name__} must be a list of rule texts, "
                                 f"got {texts!r}")
            out.append(tuple(texts))
        specs = self.encoder_.feature_specs_ if self.encoder_ is not None else list(frame.columns)
        try:
            check_rule_texts(out[0], out[1], specs, classes)
            RunSettings(pinned=out[0], banned=out[1])  # a rule both pinned and banned
        except ValueError as exc:
            raise ValueError(f"pinned_rules / banned_rules: {exc}") from None
        return out[0], out[1]

    def _fit_frame(self, X, checked):
        """The encoded training matrix: a DataFrame through the fitted encoder, an array as it is."""
        if isinstance(checked, pd.DataFrame):
            self.encoder_ = (
                clone(self.encoder) if self.encoder is not None
                else TableEncoder(detect_identifiers=False, many_values="exclude")
            )
            encoded = self.encoder_.fit_transform(checked)
            for info in self.encoder_.columns_:
                if info.kind == MANY_VALUES:  # fit goes on without it; the caller hears of it
                    warnings.warn(left_out_message(info, self.encoder_.max_categories), UserWarning, stacklevel=3)
            return encoded
        self.encoder_ = None
        return pd.DataFrame(checked, columns=self._names(X, checked.shape[1]))

    def fit(self, X, y, sample_weight=None):
        """Grow the pool on (X, y) and select the rules; ``sample_weight`` (one non-negative weight per row,
        or ``None``) weighs the rows of the selection, times ``class_weight``."""
        self._validate_params()
        for name in ("max_depth", "complexity_budget", "error_budget", "n_repeats", "n_alternatives"):
            if isinstance(getattr(self, name), bool | np.bool_):  # a bool passes for the integer 1 or 0
                raise ValueError(f"The {name!r} parameter of {type(self).__name__} must be a number, "
                                 f"got {getattr(self, name)!r}")
        if self.error_budget is not None and self.class_weight is None and sample_weight is None and (
            float(self.error_budget) != int(self.error_budget)
        ):
            raise ValueError(f"The 'error_budget' parameter of {type(self).__name__} must be a whole number >= 0 "
                             "unless the rows are weighted (class_weight or sample_weight): it counts rows; "
                             f"got {self.error_budget!r}")
        get_solver_class(self.algorithm)  # an unknown name: ValueError naming the registered ones
        try:
            check_params(self.algorithm, self.algorithm_params or {})
        except ValueError as exc:
            raise ValueError(f"algorithm_params: {exc}") from None
        if self.n_alternatives:
            check_method(self.algorithm)
        y_named = y  # a Series names the target column for the report
        checked, y = self._check_fit_input(X, y)
        self.forbidden_columns_ = self._check_forbidden(X, checked)
        codes, classes = encode_labels(y)
        self.classes_ = class_array(classes)  # the labels of y, of their own type (0.5, 1.5 stay floats)
        own_weights = _check_sample_weight(sample_weight, checked) if sample_weight is not None else None
        weights = row_weights(codes, classes, self.class_weight, own_weights)
        self.default_class_ = self._default_class(codes, np.zeros(len(codes), dtype=bool), weights)
        frame = self._fit_frame(X, checked)
        pinned, banned = self._rule_texts(frame, classes)
        rng = check_random_state(self.random_state)
        pool_seed, solve_seed = (int(s) for s in rng.randint(0, 2**31 - 1, size=2))
        if len(self.classes_) < 2:
            # one class: nothing to explain, every row gets it
            self.pool_ = None
            self.result_ = None
            self.rules_ = RuleSet([])
            self.report_ = evaluate_rules(self.rules_, frame, y, eps=self.eps, sample_weight=weights)
            self.report_.fallback = self.default_class_
            self.report_.target = getattr(y_named, "name", None)
            self._rule_codes = np.zeros(0, dtype=np.int64)
            self.accuracy_frontier_ = []
            self._fit_probabilities(np.zeros((len(codes), 0)), codes, weights, frame)
            self.alternatives_ = []
            return self
        settings = default_pool_settings(
            max_depth=self.max_depth, n_repeats=self.n_repeats, source=self.source
        )
        specs = self.encoder_.feature_specs_ if self.encoder_ is not None else None
        self.pool_ = build_pool(
            frame, y, random_state=pool_seed, classes=classes, **settings, feature_specs=specs,
            forbidden_columns=_encoded_columns(self.forbidden_columns_, specs, frame),
        )
        # the default policy's fallback form leaves the most frequent class to the fallback: with another
        # default_class every rule may be used
        majority = majority_class(codes, classes=range(len(classes)))  # by rows, as the policy's fallback form
        own_fallback = self.default_class is not None and self._code_of(self.default_class_) != majority
        choice = resolve_defaults(self.pool_, self.complexity_budget, self.error_budget, self.eps,
                                  sample_weight=weights, every_class=every_class_explained(self.class_weight),
                                  size=self.size)
        self.accuracy_frontier_ = choice.frontier_dicts()
        choice = room_for_pins(choice, self.pool_, frame, pinned, weights,
                               complexity_given=self.complexity_budget is not None,
                               errors_given=self.error_budget is not None)
        run = choice.run_settings(algorithm=self.algorithm, algorithm_params=self.algorithm_params or {},
                                  eps=self.eps, class_weight=self.class_weight, seed=solve_seed,
                                  pinned=pinned, banned=banned)
        if own_fallback:  # the accuracy objective counts the majority class right on uncovered rows: not so here
            run = replace(run, form="all", objective="coverage")
        explanation = explain_pool(self.pool_, frame, y, run, sample_weight=own_weights)
        self.pool_ = explanation.pool  # with the pinned rules it lacked, which the selection indexes
        self.result_ = explanation.result
        self.report_ = explanation.report
        self.alternatives_ = self._alternatives(self.pool_, frame, y, run, explanation.result.selection, own_weights)
        self.rules_ = explanation.rules
        self._rule_codes = encode_labels(label_array([r.label for r in self.rules_]), classes)[0]
        cov = self.rules_.coverage_matrix(frame)
        # the fallback class: the most frequent class, by weight, of the training rows the rules leave
        # uncovered (unless default_class names one); the report says what predict does with it
        self.default_class_ = self._default_class(codes, cov.any(axis=1), weights)
        self.report_.fallback = self.default_class_
        self.report_.target = getattr(y_named, "name", None)
        self._fit_probabilities(cov, codes, weights, frame)
        return self

    def _check_forbidden(self, X, checked) -> tuple[str, ...]:
        """``forbidden_columns`` as a tuple of column names of ``X`` (``x0``, ``x1``, ... for an array)."""
        if self.forbidden_columns is None:
            return ()
        names = self._names(X, checked.shape[1])
        out = []
        for name in self.forbidden_columns:
            if not isinstance(name, str) or name not in names:
                raise ValueError(f"The 'forbidden_columns' parameter of {type(self).__name__} names "
                                 f"{name!r}, which is not a column of X (columns: {', '.join(names[:20])}"
                                 f"{', ...' if len(names) > 20 else ''})")
            out.append(name)
        if out and not set(names) - set(out):
            raise ValueError(f"The 'forbidden_columns' parameter of {type(self).__name__} names every column of X: "
                             "no rule could be made")
        return tuple(dict.fromkeys(out))
    def _alternatives(self, pool, frame, y, run, selection, sample_weight) -> list[dict]:
        """The other rule sets nearly as good (``n_alternatives`` of them at most), as the JSON report gives them."""
        if not self.n_alternatives:
            return []
        found = explain_alternatives(pool, frame, y, run, selection, self.n_alternatives, self.alternatives_within,
                                     sample_weight=sample_weight)
        return [{**alt, "method": found["method"]} for alt in found["alternatives"]]

    def _default_class(self, codes, covered, weights):
        """``default_class`` as one of ``classes_`` (:func:`~explainer.data.labels.match_label`: a label of the
        same type and value, else the one class with its text), else the fallback class of the training rows
        that ``covered`` leaves out (:func:`~explainer.data.labels.fallback_code`)."""
        classes = self.classes_.tolist()
        if self.default_class is None:
            return self.classes_[fallback_code(codes, covered, len(classes), weights)]
        try:
            return self.classes_[classes.index(match_label(self.default_class, classes))]
        except ValueError:
            raise ValueError(
                f"default_class {self.default_class!r} is not one of the classes of y "
                f"({', '.join(map(str, classes))})"
            ) from None

    def _code_of(self, label) -> int:
        """The class code (index into ``classes_``) of one of the classes (1 and True are two classes)."""
        key = label_key(label)
        return next(i for i, c in enumerate(self.classes_) if label_key(c) == key)

    def _fit_probabilities(self, cov, codes, weights, frame) -> None:
        """Each selected rule's class distribution on the training rows it covers (their weight, when weighted),
        and that of the rows no rule covers, smoothed towards the training class shares
        (:mod:`explainer.report.probabilities`; m chosen on held-out rows with the default, else
        :data:`~explainer.report.probabilities.PROBA_SMOOTHING`); then the rows grouped by which of the rules'
        conditions they meet (or of those and a small reference tree's), the grouping and the m of that step (or
        none) chosen on folds of the training rows."""
        chosen = next((p for p in self.accuracy_frontier_ if p.get("chosen")), {})
        self.proba_smoothing_ = float(chosen.get("smoothing", PROBA_SMOOTHING))
        fallback = self._code_of(self.default_class_)
        fitted = fit_probabilities(cov, codes, self._rule_codes, len(self.classes_), weights,
                                   m=self.proba_smoothing_, fallback=fallback)
        if self.default_class is not None:  # the user's class takes every row the rules leave
            fitted = replace(fitted, fallback_proba=np.eye(len(self.classes_))[fallback])
        if len(self.rules_) and self.default_class is None:  # the user's class keeps every row the rules leave
            vote, proba = vote_probabilities(fitted, np.asarray(cov, dtype=float))
            own = rule_conditions(self.rules_)
            patterns = fit_patterns(own, frame, codes, len(self.classes_), proba, vote, validation_splits(codes, 0),
                                    weights, finer=self._finer_groupings(own))
            fitted = replace(fitted, patterns=patterns)
        self._probabilities = fitted

    def _finer_groupings(self, own: tuple) -> tuple:
        """Groupings finer than the rules' conditions ``own``, for the step by conditions: ``own`` with the
        conditions of one of the pool's plain CART trees, for each depth of
        :data:`~explainer.report.probabilities.REFERENCE_DEPTHS`."""
        if self.pool_ is None:
            return ()
        trees = {t.index: t for t in (self.pool_.cart_tree(d) for d in REFERENCE_DEPTHS) if t is not None}
        return tuple((*own, *rule_conditions([self.pool_.rules[i] for i in t.rule_ids])) for t in trees.values())

    # read from the fitted probabilities, never kept beside them
    @property
    def class_prior_(self) -> np.ndarray:
        return self._fitted_probabilities().prior

    @property
    def rule_proba_(self) -> np.ndarray:
        return self._fitted_probabilities().rule_proba

    @property
    def fallback_proba_(self) -> np.ndarray:
        return self._fitted_probabilities().fallback_proba

    @property
    def pattern_smoothing_(self) -> float | None:
        """The m by which a row's probabilities move towards the class shares of the training rows that meet
        the same of the rules' conditions (None: they do not; the folds of the training rows found no gain, or
        ``default_class`` is given)."""
        patterns = self._fitted_probabilities().patterns
        return None if patterns is None else patterns.m

    @property
    def pattern_conditions_(self) -> tuple:
        """The conditions by which that step groups the rows (the rules' own, and a reference tree's when the folds
        preferred them: :meth:`_finer_groupings`); empty when the step is off."""
        patterns = self._fitted_probabilities().patterns
        return () if patterns is None else patterns.conditions

    def _fitted_probabilities(self) -> VoteProbabilities:
        check_is_fitted(self, "default_class_")
        return self._probabilities

    def _decide(self, X) -> tuple[np.ndarray, np.ndarray]:
        """(class code of each row, its class probabilities): the one decision ``predict`` and
        ``predict_proba`` both give (:func:`~explainer.report.probabilities.vote_probabilities`): the vote of
        the rules that fire, else (none fires, or classes tie) the fallback ``default_class_``."""
        fitted = self._fitted_probabilities()  # first: "not fitted" before the table is read
        frame = self._frame(X)
        if len(self.rules_) == 0:
            n = len(frame)
            return np.full(n, fitted.fallback, dtype=np.int64), np.tile(fitted.fallback_proba, (n, 1))
        return vote_probabilities(fitted, self.rules_.coverage_matrix(frame).astype(float), frame)

    def predict(self, X):
        """The class of each row: the vote of the rules that fire on it, else ``default_class_``."""
        codes, _ = self._decide(X)  # first: it says "not fitted" before classes_ is read
        return self.classes_[codes]

    def score(self, X, y, sample_weight=None) -> float:
        """The share of rows (their weight, when weighted) whose class ``predict`` gives, labels compared as
        :mod:`explainer.data.labels` reads them (scikit-learn's ``accuracy_score`` refuses float labels)."""
        y = label_array(y)
        codes = self._decide(X)[0]
        keys = [label_key(c) for c in self.classes_]
        right = np.array([keys[k] == label_key(v) for k, v in zip(codes, y, strict=True)], dtype=float)
        return float(np.average(right, weights=sample_weight)) if right.size else 0.0

    def rule_class_counts(self, X) -> np.ndarray:
        """(n_rows, n_classes) number of selected rules of each class (order of ``classes_``) firing on each row."""
        check_is_fitted(self, "default_class_")
        frame = self._frame(X)
        if len(self.rules_) == 0:
            return np.zeros((len(frame), len(self.classes_)), dtype=np.int64)
        cov = self.rules_.coverage_matrix(frame).astype(np.int64)
        return cov @ np.eye(len(self.classes_), dtype=np.int64)[self._rule_codes]

    def predict_proba(self, X) -> np.ndarray:
        """The class probabilities of each row, in the order of ``classes_``; their largest is the class
        ``predict`` gives (the same decision, :meth:`_decide`)."""
        return self._decide(X)[1]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags


def _check_labels(y) -> None:
    """Refuse what cannot be a class column: missing labels, and numbers with about one value per row
    (a regression target: scikit-learn's "Unknown label type").  Floats such as 0.5 and 1.5 are classes."""
    items = label_array(y)
    missing = pd.isna(items)
    if np.any(missing):
        raise ValueError(f"y holds {int(np.count_nonzero(missing))} missing labels; drop those rows or label them")
    if items.dtype.kind == "f" and not np.all(items == np.round(items)):
        n, k = len(items), len(np.unique(items))
        if n >= ID_MIN_ROWS and k / n >= ID_RATIO:
            raise ValueError(f"Unknown label type: continuous (y holds {k} distinct numbers in {n} rows, about "
                             "one per row: a regression target, not classes)")
