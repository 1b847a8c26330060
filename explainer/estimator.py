"""The engine as a scikit-learn estimator."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .pipeline import explain_pool
from .pool import build_pool
from .report import TIE, UNCOVERED, vote


class RuleSetExplainer(ClassifierMixin, BaseEstimator):
    """Select a short rule set that explains (X, y); predict by the vote of the rules that fire.

    Parameters
    ----------
    max_depth : D of the CART grid (trees of depth 1 .. D-1).
    complexity_budget, error_budget : Bc and Be; ``None`` takes the best tree's suggestion.
    eps : conflict penalty.
    algorithm : registry name (``qga``, ``rfhc``, ``exact``, ...).
    algorithm_params : dict of the algorithm's parameters.
    n_repeats, source : pool richness and source (``grid`` or ``forest``).
    default_class : class for rows no rule covers (or tied); ``None`` = most frequent training class.
    random_state : seeds the pool and the algorithm.

    ``predict_proba`` gives, for a row, the share of each class among the rules
    that fire on it (two rules for A and one for B: 2/3 and 1/3).  A row no
    rule covers gets the fallback distribution ``fallback_proba_``: the training
    class frequencies, or all weight on ``default_class`` when one is given.
    ``predict`` is the class with the largest share; rows no rule covers, and
    rows where classes tie, get ``default_class_``.
    """

    def __init__(
        self,
        max_depth=5,
        complexity_budget=None,
        error_budget=None,
        eps=1.0,
        algorithm="qga",
        algorithm_params=None,
        n_repeats=1,
        source="grid",
        default_class=None,
        random_state=None,
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
        self.random_state = random_state

    def _names(self, X, n_columns):
        if isinstance(X, pd.DataFrame):
            return [str(c) for c in X.columns]
        names = getattr(self, "feature_names_in_", None)
        return [str(n) for n in names] if names is not None else [f"x{i}" for i in range(n_columns)]

    def _frame(self, X):
        arr = validate_data(self, X, reset=False, ensure_all_finite="allow-nan", dtype=np.float64)
        return pd.DataFrame(arr, columns=self._names(X, arr.shape[1]))

    def fit(self, X, y):
        arr, y = validate_data(self, X, y, ensure_all_finite="allow-nan", dtype=np.float64)
        frame = pd.DataFrame(arr, columns=self._names(X, arr.shape[1]))
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        rs = np.random.RandomState(self.random_state) if not isinstance(self.random_state, np.random.RandomState) else self.random_state
        pool_seed, solve_seed = (int(s) for s in rs.randint(0, 2**31 - 1, size=2))
        if len(self.classes_) < 2:
            # one class: nothing to explain, every row gets it
            self.pool_ = None
            self.rules_ = None
            self.result_ = None
            self.default_class_ = self.classes_[0]
            self.fallback_proba_ = np.ones(1)
            return self
        self.pool_ = build_pool(
            frame, y, self.max_depth, random_state=pool_seed, n_repeats=self.n_repeats,
            source=self.source, classes=list(self.classes_),
        )
        explanation = explain_pool(
            self.pool_, frame, y,
            complexity_budget=self.complexity_budget, error_budget=self.error_budget,
            eps=self.eps, algorithm=self.algorithm, random_state=solve_seed,
            algorithm_params=self.algorithm_params,
        )
        self.result_ = explanation.result
        self.report_ = explanation.report
        self.rules_ = explanation.rules
        if self.default_class is not None:
            self.default_class_ = self.default_class
        else:
            values, counts = np.unique(y, return_counts=True)
            self.default_class_ = values[np.argmax(counts)]
        self.fallback_proba_ = self._fallback(y)
        return self

    def _fallback(self, y) -> np.ndarray:
        """The class distribution given to rows no rule covers."""
        if self.default_class is not None:
            out = (self.classes_.astype(str) == str(self.default_class)).astype(float)
            if out.sum() == 1.0:
                return out
        _, counts = np.unique(np.asarray(y), return_counts=True)
        return counts / counts.sum()

    def predict(self, X):
        check_is_fitted(self, "default_class_")
        frame = self._frame(X)
        if self.rules_ is None or len(self.rules_) == 0:
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
        if self.rules_ is None or len(self.rules_) == 0:
            return counts
        column = {str(c): k for k, c in enumerate(self.classes_)}
        cov = self.rules_.coverage_matrix(frame)
        for i, rule in enumerate(self.rules_):
            counts[:, column[str(rule.label)]] += cov[:, i]
        return counts

    def predict_proba(self, X) -> np.ndarray:
        """Share of each class among the rules that fire on each row; ``fallback_proba_`` where none fires."""
        counts = self.rule_class_counts(X).astype(float)
        total = counts.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            proba = np.where(total > 0, counts / np.maximum(total, 1.0), self.fallback_proba_[None, :])
        return proba

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags
