"""Rule pools (built once per data fingerprint and settings) and the budgets that go with them."""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from explainer.app.session import Session
from explainer.app.state import forget_pool_results
from explainer.data import Dataset
from explainer.pipeline import split_holdout
from explainer.report import RuleSetReport, evaluate_rules
from explainer.rules.defaults import DEFAULT_DEPTH, DEFAULT_REPEATS
from explainer.rules.pool import RulePool, build_pool


@dataclass(frozen=True)
class PoolSettings:
    max_depth: int = DEFAULT_DEPTH
    source: str = "grid"
    n_repeats: int = DEFAULT_REPEATS
    random_state: int = 0
    holdout: float = 0.0  # share of the rows held out (stratified, seeded by random_state): never in the pool
    phrase_length: bool = True  # rules in their simplest form, budgets in phrases: the default pool's


@dataclass
class Split:
    """The rows the pool and the selection use, and the rows held out from them (if any)."""

    train: Dataset
    X_test: pd.DataFrame | None = None
    y_test: np.ndarray | None = None
    fraction: float = 0.0


@st.cache_resource(show_spinner=False, max_entries=16)
def _split_cached(fingerprint: str, fraction: float, seed: int, _dataset: Dataset) -> Split:
    if fraction <= 0:
        return Split(_dataset)

    y = np.asarray(_dataset.y)
    # split row positions, so the training rows keep their row numbers (the frame's index)
    train, test, _, _ = split_holdout(np.arange(len(y))[:, None], y, fraction, random_state=seed)
    train, test = np.sort(train.ravel()), np.sort(test.ravel())
    part = dataclasses.replace(_dataset, X=_dataset.X.iloc[train], y=y[train], fingerprint="")
    return Split(part, _dataset.X.iloc[test].reset_index(drop=True), y[test], float(fraction))


def training_split(dataset: Dataset, settings: PoolSettings) -> Split:
    """The rows the pool is built on and the held-out rows (cached per data, share and seed)."""
    return _split_cached(dataset.fingerprint, float(settings.holdout), int(settings.random_state), dataset)


def default_depth(data_ref: dict | None = None) -> int:
    """The depth the CLI uses for the same data (:mod:`explainer.rules.defaults`)."""
    return DEFAULT_DEPTH


@st.cache_resource(show_spinner=False, max_entries=32)
def _pool_cached(fingerprint: str, settings: PoolSettings, _dataset: Dataset) -> tuple[RulePool, float]:
    t0 = time.perf_counter()
    pool = build_pool(
        _dataset.X,
        _dataset.y,
        settings.max_depth,
        random_state=settings.random_state,
        n_repeats=settings.n_repeats,
        source=settings.source,
        classes=_dataset.classes,
        feature_specs=_dataset.feature_specs,
        phrase_length=settings.phrase_length,
    )
    return pool, time.perf_counter() - t0


def cached_pool(dataset: Dataset, settings: PoolSettings) -> tuple[RulePool, float]:
    """The rule pool of ``dataset`` (built once per data fingerprint and settings)."""
    return _pool_cached(dataset.fingerprint, settings, dataset)


def ensure_pool(state: Session, settings: PoolSettings) -> RulePool:
    """The pool of the session's data and settings (built on the training rows when some are held out).

    A new pool drops what was computed from the old one: its results and frontier belong to other rules.
    """
    dataset = state.dataset
    key = (dataset.fingerprint, settings)
    if state.pool_key != key:
        split = training_split(dataset, settings)
        pool, seconds = cached_pool(split.train, settings)
        if state.pool_key is not None:
            forget_pool_results(state)
        state.pool = pool
        state.pool_key = key
        state.pool_time = seconds
        state.split = split
    return state.pool


def work_data(state: Session) -> Dataset:
    """The rows the pool and the runs use: the training rows, or all of them."""
    split = state.split
    return split.train if split is not None else state.dataset


@st.cache_resource(show_spinner=False, max_entries=64)
def _best_tree_report(pool_key, bc: int, be: int, eps: float, _pool: RulePool,
                      _dataset: Dataset) -> RuleSetReport | None:
    best = _pool.best_tree()
    if best is None:
        return None
    return evaluate_rules(
        _pool.rule_set(best.tree.rule_ids),
        _dataset.X,
        _dataset.y,
        eps=eps,
        complexity_budget=bc,
        error_budget=be,
        fingerprint=_dataset.fingerprint,
    )


def best_tree_report(state: Session, bc: int, be: int, eps: float) -> RuleSetReport | None:
    """Metrics of the best tree's own rules, for comparison with a selection."""
    return _best_tree_report(state.pool_key, int(bc), int(be), float(eps), state.pool, work_data(state))

