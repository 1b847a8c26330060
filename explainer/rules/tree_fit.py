"""Fitting the rule pool's many CART trees on one matrix.

The default pool fits 84 trees, and the default fit builds six pools (one per validation fold and the
final one): about 500 trees, most of them small.  On a table of a few hundred rows, scikit-learn's
``DecisionTreeClassifier.fit`` spends more time in Python around the tree builder than in it, even with
its input checks skipped: it checks and encodes the class labels again for every tree (``np.unique``,
``type_of_target``), which it must, not knowing that the trees share them.  :func:`tree_fitter` does that
work once per matrix and then, for each tree, runs the steps of scikit-learn's own ``_fit`` that remain
(criterion, splitter, depth-first builder), with the same arguments: the trees are the ones
``fit`` grows, node for node (``tests/test_tree_fit.py`` checks it on every tree of a grid).

The builder classes are scikit-learn's internals.  Should the installed version build them otherwise,
the first tree it refuses sends every tree of the matrix back to ``fit`` itself, so a pool is never
wrong, only slower.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable

import numpy as np
import sklearn
from sklearn.tree import DecisionTreeClassifier

try:  # scikit-learn's internals: used only where they take the arguments its own fit gives them
    from sklearn.tree._classes import CRITERIA_CLF, DENSE_SPLITTERS
    from sklearn.tree._tree import DepthFirstTreeBuilder, Tree
    from sklearn.utils import check_random_state
except ImportError:  # pragma: no cover - another scikit-learn layout: fit() does the work
    CRITERIA_CLF = DENSE_SPLITTERS = None

#: what a direct build leaves at scikit-learn's defaults; a tree set otherwise is fitted by ``fit``
_DEFAULTS = {"min_samples_split": 2, "min_samples_leaf": 1, "min_weight_fraction_leaf": 0.0,
             "max_leaf_nodes": None, "min_impurity_decrease": 0.0, "class_weight": None, "ccp_alpha": 0.0,
             "monotonic_cst": None}


class _SeedState:
    """Stands for ``check_random_state(seed)``, a NumPy ``RandomState``, in a splitter.  A splitter draws one
    number from it to seed its own generator, and the six pools of a default fit give their trees the same 84
    seeds: seeding a ``RandomState`` took about a fifth of a small tree's fit.  The first draw with the same
    arguments is the one that seed always gives, so it is kept per seed; anything else asked of the state goes
    to a real ``RandomState(seed)`` that has made that first draw, so every draw is what it would have been."""

    _first: dict[tuple, object] = {}  # (seed, arguments) -> the first draw: at most _KEEP seeds
    _KEEP = 4096

    def __init__(self, seed: int):
        self._seed = int(seed)
        self._real: np.random.RandomState | None = None
        self._drawn: tuple | None = None  # the arguments of the first draw, once given from the cache

    def _state(self) -> np.random.RandomState:
        if self._real is None:
            self._real = np.random.RandomState(self._seed)
            if self._drawn is not None:
                self._real.randint(*self._drawn)
        return self._real

    def randint(self, *args):
        if self._real is not None or self._drawn is not None:
            return self._state().randint(*args)
        key = (self._seed, *args)
        value = self._first.get(key)  # one read: trees fitted in threads share the cache
        if value is None:
            value = self._state().randint(*args)
            if len(self._first) >= self._KEEP:
                self._first.clear()
            self._first[key] = value
        else:
            self._drawn = args
        return value

    def __getattr__(self, name: str):
        return getattr(self._state(), name)


def _random_state(seed):
    """A splitter's random state for ``seed`` (an int: :class:`_SeedState`), as ``check_random_state`` gives."""
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
        return _SeedState(int(seed))
    return check_random_state(seed)


def _max_features(setting, n_features: int) -> int:
    """The number of features a split draws from, as scikit-learn's ``_fit`` reads ``max_features``."""
    if setting is None:
        return n_features
    if setting == "sqrt":
        return max(1, int(np.sqrt(n_features)))
    if setting == "log2":
        return max(1, int(np.log2(n_features)))
    if isinstance(setting, numbers.Integral):
        return int(setting)
    return max(1, int(setting * n_features)) if setting > 0.0 else 0


def _direct(model: DecisionTreeClassifier) -> bool:
    """Whether ``model``'s settings are those a direct build reproduces."""
    if CRITERIA_CLF is None or not isinstance(model.criterion, str) or not isinstance(model.splitter, str):
        return False
    if model.criterion not in CRITERIA_CLF or model.splitter not in DENSE_SPLITTERS:
        return False
    # the attributes, not get_params(): that reads the constructor's signature, a cost on every tree
    return all(getattr(model, name, None) == value for name, value in _DEFAULTS.items())


class _LabelledMatrix:
    """One float32 matrix and its class codes, encoded once for every tree; with missing values, the mask of
    the columns holding them, computed once per splitter kind as scikit-learn's checks compute it."""

    def __init__(self, X32: np.ndarray, codes: np.ndarray, finite: bool):
        self.X, self.finite = X32, finite
        self.classes, encoded = np.unique(np.asarray(codes), return_inverse=True)
        self.y = np.ascontiguousarray(encoded.reshape(-1, 1), dtype=np.float64)
        self.n_classes = np.array([self.classes.size], dtype=np.intp)
        self.masks: dict[str, object] = {}
        self.broken = False  # set once a direct build failed: the rest go through fit()

    def _missing_mask(self, model: DecisionTreeClassifier):
        if self.finite:
            return None
        if model.splitter not in self.masks:  # whether a splitter takes missing values is its own
            self.masks[model.splitter] = model._compute_missing_values_in_feature_mask(self.X)
        return self.masks[model.splitter]

    def build(self, model: DecisionTreeClassifier) -> None:
        """What ``model.fit`` does, its input checked, for the settings :func:`_direct` accepts."""
        n_features = self.X.shape[1]
        max_features = _max_features(model.max_features, n_features)
        missing = self._missing_mask(model)
        criterion = CRITERIA_CLF[model.criterion](1, self.n_classes)
        splitter = DENSE_SPLITTERS[model.splitter](criterion, max_features, 1, 0.0,
                                                    _random_state(model.random_state), None)
        tree = Tree(n_features, self.n_classes, 1)
        depth = np.iinfo(np.int32).max if model.max_depth is None else model.max_depth
        DepthFirstTreeBuilder(splitter, 2, 1, 0.0, depth, 0.0).build(tree, self.X, self.y, None, missing)
        model.n_features_in_, model.n_outputs_, model.max_features_ = n_features, 1, max_features
        model.classes_, model.n_classes_, model.tree_ = self.classes, int(self.classes.size), tree


def tree_fitter(X: np.ndarray, codes: np.ndarray) -> Callable[[DecisionTreeClassifier], None]:
    """A function fitting one tree on (X, codes), the matrix made the tree learner's float32 once."""
    X32 = np.ascontiguousarray(X, dtype=np.float32)
    finite = bool(np.isfinite(X32).all())
    matrix = _LabelledMatrix(X32, codes, finite)

    def fit(model: DecisionTreeClassifier) -> None:
        if not matrix.broken and _direct(model):
            try:
                matrix.build(model)
                return
            except (TypeError, ValueError, AttributeError):  # another scikit-learn's internals, or a bad matrix
                matrix.broken = True
        if not finite:
            # the checked way (it computes the mask of columns with missing values), with the float32 matrix:
            # the checks take it as it is instead of copying it for every tree (in the dashboard server, where
            # each copy is mapped apart, those copies took the pool of a 32,561-row table with gaps from 4.6 s
            # to 5.9 s, measured in the page)
            model.fit(X32, codes)
            return
        # sklearn's configuration is per thread: set it in the thread that fits
        with sklearn.config_context(skip_parameter_validation=True):
            model.fit(X32, codes, check_input=False)

    return fit


__all__ = ["tree_fitter"]
