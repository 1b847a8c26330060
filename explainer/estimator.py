"""The engine as a scikit-learn estimator: :class:`RuleSetExplainer`.

It follows scikit-learn's conduct: keyword-only parameters stored as given, every one of them
checked at the start of ``fit`` (:attr:`RuleSetExplainer._parameter_constraints`, then the
algorithm against the solver registry and ``algorithm_params`` against that algorithm's
parameters) before the table is encoded or a tree is grown, ``random_state`` read through
``check_random_state``, and the same fitted attributes after every fit.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    _check_feature_names,
    _check_n_features,
    _check_sample_weight,
    check_is_fitted,
    validate_data,
)

from explainer.data.encoder import TableEncoder
from explainer.data.tables import check_width
from explainer.pipeline import every_class_explained, explain_pool, row_weights
from explainer.report import TIE, UNCOVERED, evaluate_rules, vote
from explainer.report.evaluation import majority_class
from explainer.rules.defaults import default_pool_settings
from explainer.rules.model import RuleSet
from explainer.rules.pool import SOURCES, build_pool
from explainer.selection.solvers.registry import check_params, get_solver_class

#: m of the m-estimate that smooths a rule's class distribution towards the training class
#: frequencies: a rule covering n rows, k of them right, gives its class (k + m p) / (n + m)
PROBA_SMOOTHING = 2.0


class RuleSetExplainer(ClassifierMixin, BaseEstimator):
    """Select a short rule set that explains (X, y); predict by the vote of the rules that fire.

    Parameters (keyword only)
    ----------
    max_depth : D of the CART grid (trees of depth 1 .. D-1), an integer >= 2; ``None`` = the
        default pool's (8).
    complexity_budget, error_budget : Bc and Be, integers >= 0 (Be any number >= 0 when the rows are
        weighted: a weight); ``None`` takes the default budgets (:func:`explainer.pipeline.default_budgets`).
    eps : conflict penalty, a number >= 0.
    algorithm : registry name (``qga``, ``rfhc``, ``exact``, ...; see ``explainer.selection.ALGORITHMS``).
    algorithm_params : dict of the algorithm's parameters (e.g. ``{"n_generations": 50}``).
    n_repeats, source : pool richness (an integer >= 1) and source (``grid`` or ``forest``);
        ``None`` = the default pool's (1 repeat, ``grid``).
    default_class : class for rows no rule covers (or tied), one of the classes of ``y``;
        ``None`` = most frequent training class.
    class_weight : ``None`` (every row counts 1), ``"balanced"`` (a row of class k counts
        ``n_rows / (n_classes * rows of k)``, as scikit-learn's ``compute_sample_weight``) or a dict
        from class label to weight (classes left out weigh 1).  The weights, times ``fit``'s
        ``sample_weight``, weigh the rows of the selection: f* counts covered weight, a rule's errors
        the weight of the rows it gets wrong, and ``error_budget`` (then any number >= 0) bounds that
        weight.  The rule pool is grown from the unweighted rows (the trees propose candidates;
        the weights act where rules are chosen).
    random_state : seeds the pool and the algorithm (``None``, an int or a ``RandomState``).
    encoder : a :class:`~explainer.data.encoder.TableEncoder` (cloned at fit) for DataFrame input; ``None``
        = ``TableEncoder(detect_identifiers=False)``: numbers are read as numbers, so a DataFrame
        and the same values as an array give the same rules (pass
        ``TableEncoder(ordinal_as_categorical=True)`` for the command line's reading, where small
        integer codes also offer ``= v`` conditions).  A DataFrame may hold text, pandas
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

    ``predict`` is the vote of the rules that fire on a row (the class most of
    them give); rows no rule covers, and rows where classes tie, get
    ``default_class_``.  ``predict_proba`` says how far to trust it: each rule
    carries its class distribution on the training rows it covers, smoothed
    towards the class frequencies (``rule_proba_``; a rule right on 18 of 20
    rows gives its class about 0.9), and a row gets the mean over the rules
    that fire on it.  A row no rule covers gets ``fallback_proba_``: the
    smoothed class distribution of the training rows no rule covers, or all
    weight on ``default_class`` when one is given.
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
            y = np.asarray(y)
            if y.ndim != 1 or len(y) != len(X):
                raise ValueError(f"y must hold one label per row of X ({len(X)} rows)")
            return X, y
        arr, y = validate_data(self, X, y, ensure_all_finite="allow-nan", dtype=np.float64)
        check_width(arr.shape[1], "X")  # a DataFrame is checked by its encoder
        return arr, y

    def _fit_frame(self, X, checked):
        """The encoded training matrix: a DataFrame through the fitted encoder, an array as it is."""
        if isinstance(checked, pd.DataFrame):
            self.encoder_ = (
                clone(self.encoder) if self.encoder is not None
                else TableEncoder(detect_identifiers=False)
            )
            return self.encoder_.fit_transform(checked)
        self.encoder_ = None
        return pd.DataFrame(checked, columns=self._names(X, checked.shape[1]))

    def fit(self, X, y, sample_weight=None):
        """Grow the pool on (X, y) and select the rules; ``sample_weight`` (one non-negative weight per row,
        or ``None``) weighs the rows of the selection, times ``class_weight``."""
        self._validate_params()
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
        y_named = y  # a Series names the target column for the report
        checked, y = self._check_fit_input(X, y)
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        self.default_class_ = self._default_class(y)
        codes = np.searchsorted(self.classes_, y)
        weights = row_weights(codes, list(self.classes_), self.class_weight,
                              _check_sample_weight(sample_weight, checked) if sample_weight is not None else None)
        frame = self._fit_frame(X, checked)
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
            self.class_prior_ = self.fallback_proba_ = np.ones(1)
            self.rule_proba_ = np.zeros((0, 1))
            return self
        settings = default_pool_settings(
            max_depth=self.max_depth, n_repeats=self.n_repeats, source=self.source
        )
        self.pool_ = build_pool(
            frame, y, random_state=pool_seed, classes=list(self.classes_), **settings,
            feature_specs=self.encoder_.feature_specs_ if self.encoder_ is not None else None,
        )
        # the default policy's fallback form leaves the most frequent class to the fallback: with another
        # default_class every rule may be used
        own_fallback = self.default_class is not None and self.default_class_ != majority_class(y)
        explanation = explain_pool(
            self.pool_, frame, y,
            complexity_budget=self.complexity_budget, error_budget=self.error_budget,
            eps=self.eps, algorithm=self.algorithm, random_state=solve_seed,
            algorithm_params=self.algorithm_params, sample_weight=weights,
            every_class=every_class_explained(self.class_weight),
            rules=np.arange(self.pool_.n_rules) if own_fallback else None,
        )
        self.result_ = explanation.result
        self.report_ = explanation.report
        self.rules_ = explanation.rules
        # the report says what predict does: uncovered and tied rows get default_class_
        self.report_.fallback = self.default_class_
        self.report_.target = getattr(y_named, "name", None)
        covered = self._fit_probabilities(frame, y)
        self.fallback_proba_ = self._fallback(y, covered)
        return self

    def _default_class(self, y):
        """``default_class`` as one of ``classes_`` (labels compared as text, like the rules'), else the most
        frequent training class."""
        if self.default_class is None:
            return majority_class(y)
        match = np.flatnonzero(self.classes_.astype(str) == str(self.default_class))
        if match.size != 1:
            raise ValueError(
                f"default_class {self.default_class!r} is not one of the classes of y "
                f"({', '.join(map(str, self.classes_))})"
            )
        return self.classes_[match[0]]

    def _class_counts(self, y, rows) -> np.ndarray:
        codes = np.searchsorted(self.classes_, np.asarray(y)[rows])
        return np.bincount(codes, minlength=len(self.classes_)).astype(float)

    def _fit_probabilities(self, frame, y) -> np.ndarray:
        """Each selected rule's class distribution on the training rows it covers, smoothed
        towards the training class frequencies (an m-estimate with m = :data:`PROBA_SMOOTHING`),
        so a rule's probability is its precision, not 1; returns the covered-row mask."""
        all_rows = np.ones(len(y), dtype=bool)
        self.class_prior_ = self._class_counts(y, all_rows) / len(y)
        rules = self.rules_ if self.rules_ is not None else []
        self.rule_proba_ = np.zeros((len(rules), len(self.classes_)))
        if not len(rules):
            return np.zeros(len(y), dtype=bool)
        cov = self.rules_.coverage_matrix(frame)
        for i in range(len(rules)):
            counts = self._class_counts(y, cov[:, i])
            self.rule_proba_[i] = (counts + PROBA_SMOOTHING * self.class_prior_) / (counts.sum() + PROBA_SMOOTHING)
        return cov.any(axis=1)

    def _fallback(self, y, covered) -> np.ndarray:
        """The class distribution given to rows no rule covers: that of the training rows no rule
        covers (smoothed like a rule's), or all weight on ``default_class`` when one is given."""
        if self.default_class is not None:
            return (self.classes_ == self.default_class_).astype(float)
        counts = self._class_counts(y, ~covered)
        return (counts + PROBA_SMOOTHING * self.class_prior_) / (counts.sum() + PROBA_SMOOTHING)

    def predict(self, X):
        check_is_fitted(self, "default_class_")
        frame = self._frame(X)
        if len(self.rules_) == 0:
            return np.full(len(frame), self.default_class_, dtype=self.classes_.dtype)
        voted = vote(self.rules_.coverage_matrix(frame), [r.label for r in self.rules_])
        missing = (voted == UNCOVERED) | (voted == TIE)
        voted[missing] = self.default_class_
        return voted.astype(self.classes_.dtype)

    def rule_class_counts(self, X) -> np.ndarray:
        """(n_rows, n_classes) number of selected rules of each class (order of ``classes_``) firing on each row."""
        check_is_fitted(self, "default_class_")
        frame = self._frame(X)
        counts = np.zeros((len(frame), len(self.classes_)), dtype=np.int64)
        if len(self.rules_) == 0:
            return counts
        column = {str(c): k for k, c in enumerate(self.classes_)}
        cov = self.rules_.coverage_matrix(frame)
        for i, rule in enumerate(self.rules_):
            counts[:, column[str(rule.label)]] += cov[:, i]
        return counts

    def predict_proba(self, X) -> np.ndarray:
        """The mean of the class distributions (``rule_proba_``) of the rules that fire on each row;
        ``fallback_proba_`` where none fires."""
        check_is_fitted(self, "default_class_")
        frame = self._frame(X)
        if self.rules_ is None or len(self.rules_) == 0:
            return np.tile(self.fallback_proba_, (len(frame), 1))
        cov = self.rules_.coverage_matrix(frame).astype(float)
        fired = cov.sum(axis=1, keepdims=True)
        mixed = (cov @ self.rule_proba_) / np.maximum(fired, 1.0)
        return np.where(fired > 0, mixed, self.fallback_proba_[None, :])

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags
