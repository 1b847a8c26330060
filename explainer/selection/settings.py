"""What one selection run is asked to do: :class:`RunSettings`, built once and read by everything after.

The dashboard, the command line and the estimator each build one value from their own inputs and hand it,
unchanged, to :func:`explainer.pipeline.explain_pool`, which gives it to the solver
(:func:`explainer.selection.solvers.solve_run`).  A budget of ``None`` means "no budget" all the way down:
only :class:`~explainer.selection.problem.SelectionProblem` turns it into a number it can compare.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any

#: the forms of explanation: rules for every class, or for the classes other than the fallback class only
FORMS = ("all", "fallback")
#: what a selection maximises: the paper's coverage f*, or the rows the explanation gets right
#: (:mod:`explainer.selection.objectives`, which checks it against the same names)
OBJECTIVES = ("coverage", "accuracy")
#: the class weights a run knows by name (a mapping from class label to weight is accepted too)
CLASS_WEIGHTS = (None, "balanced")


class FrozenMapping(Mapping):
    """A read-only mapping (a copy of the one it is built from) that pickles, compares equal to a dict with the
    same items, and hashes when its values do."""

    __slots__ = ("_items",)
    _items: dict[Any, Any]

    def __init__(self, items: Mapping | None = None):
        object.__setattr__(self, "_items", dict(items or {}))

    def __getitem__(self, key):
        return self._items[key]

    def __iter__(self) -> Iterator:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __hash__(self) -> int:
        return hash(frozenset(self._items.items()))

    def __repr__(self) -> str:
        return repr(self._items)

    def __getstate__(self):
        return self._items

    def __setstate__(self, state):
        object.__setattr__(self, "_items", dict(state))


def _whole(name: str, value, *, none_ok: bool = True) -> None:
    if value is None and none_ok:
        return
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 0:
        raise ValueError(f"{name} must be a whole number >= 0{' or None' if none_ok else ''}, got {value!r}")


def _amount(name: str, value) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0 or None, got {value!r}")


@dataclass(frozen=True)
class RunSettings:
    """One selection run: budgets, algorithm and parameters, eps, form, class weights, seed and time limit.

    complexity_budget : Bc, a whole number >= 0, or ``None`` (no budget).
    error_budget : Be, a number >= 0 (a whole number of rows unless the rows are weighted, when it is a
        weight), or ``None`` (no budget).
    algorithm, algorithm_params : a registry name and its parameters (kept as a read-only mapping).
    eps : the conflict penalty (>= 0).
    form : ``"all"`` (rules of every class may be chosen) or ``"fallback"`` (only the rules of the classes
        other than the fallback class, which takes every row no rule covers).
    class_weight : ``None`` (every row counts 1), ``"balanced"`` or a mapping from class label to weight.
    seed : seeds the algorithm (``None`` or a whole number >= 0).
    time_limit : seconds the algorithm may run (``None``: no limit beyond the algorithm's own parameters).
    objective : ``"coverage"`` (the paper's f*) or ``"accuracy"`` (rows right, :mod:`~explainer.selection.objectives`).
    pinned, banned : texts of rules (``IF ... THEN CLASS=...``) every selection holds / none holds, as tuples;
        a text is the rule's identity whatever pool a run builds (:mod:`explainer.rules.pinned` finds it, and a
        pinned rule the pool lacks joins it).
    """

    complexity_budget: int | None = None
    error_budget: int | float | None = None
    algorithm: str = "qga"
    algorithm_params: Mapping[str, Any] = field(default_factory=FrozenMapping)
    eps: float = 1.0
    form: str = "all"
    class_weight: str | Mapping | None = None
    seed: int | None = None
    time_limit: float | None = None
    objective: str = "coverage"
    pinned: tuple[str, ...] = ()
    banned: tuple[str, ...] = ()

    def __post_init__(self):
        _whole("complexity_budget", self.complexity_budget)
        _amount("error_budget", self.error_budget)
        if not isinstance(self.algorithm, str) or not self.algorithm:
            raise ValueError(f"algorithm must be a registry name, got {self.algorithm!r}")
        if not isinstance(self.algorithm_params, Mapping):
            raise ValueError(f"algorithm_params must be a mapping, got {type(self.algorithm_params).__name__}")
        if "time_limit" in self.algorithm_params and self.time_limit is not None:
            raise ValueError("give the time limit once: time_limit or algorithm_params['time_limit']")
        object.__setattr__(self, "algorithm_params", FrozenMapping(self.algorithm_params))
        if isinstance(self.eps, bool) or not isinstance(self.eps, Real) or not math.isfinite(self.eps) or self.eps < 0:
            raise ValueError(f"eps must be a finite number >= 0, got {self.eps!r}")
        if self.form not in FORMS:
            raise ValueError(f"form must be one of {', '.join(FORMS)}, got {self.form!r}")
        self._check_class_weight()
        _whole("seed", self.seed)
        _amount("time_limit", self.time_limit)
        if self.objective not in OBJECTIVES:
            raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, got {self.objective!r}")
        self._check_rule_texts()

    def _check_rule_texts(self) -> None:
        for name in ("pinned", "banned"):
            texts = getattr(self, name)
            if isinstance(texts, str) or not isinstance(texts, Iterable):
                raise ValueError(f"{name} must be a sequence of rule texts, got {texts!r}")
            texts = tuple(dict.fromkeys(texts))  # in order, once each
            if not all(isinstance(t, str) and t.strip() for t in texts):
                raise ValueError(f"{name} rules must be non-empty rule texts, got {texts!r}")
            object.__setattr__(self, name, texts)
        both = set(self.pinned) & set(self.banned)
        if both:
            raise ValueError(f"rule {sorted(both)[0]!r} is both pinned and banned")

    def _check_class_weight(self) -> None:
        cw = self.class_weight
        if isinstance(cw, Mapping):
            for label, weight in cw.items():
                _amount(f"class_weight[{label!r}]", weight)
            object.__setattr__(self, "class_weight", FrozenMapping(cw))
        elif cw not in CLASS_WEIGHTS:
            raise ValueError(f"class_weight must be None, 'balanced' or a mapping of class to weight, got {cw!r}")

    @property
    def weighted(self) -> bool:
        """Whether the rows are weighted by class (the error budget is then a weight)."""
        return self.class_weight is not None

    def solver_params(self) -> dict:
        """The keyword arguments of the solver: its parameters, and the time limit when one is set."""
        params = dict(self.algorithm_params)
        if self.time_limit is not None:
            params["time_limit"] = self.time_limit
        return params


__all__ = ["CLASS_WEIGHTS", "FORMS", "OBJECTIVES", "FrozenMapping", "RunSettings"]
