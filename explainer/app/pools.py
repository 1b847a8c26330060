"""Rule pools (built once per data fingerprint and settings) and the budgets that go with them."""

from __future__ import annotations

import time
from dataclasses import dataclass

import streamlit as st

from ..data import Dataset
from ..pool import RulePool, build_pool
from ..report import RuleSetReport, evaluate_rules

DEFAULT_DEPTH = 5


@dataclass(frozen=True)
class PoolSettings:
    max_depth: int = DEFAULT_DEPTH
    source: str = "grid"
    n_repeats: int = 1
    random_state: int = 0


def default_depth(data_ref: dict | None) -> int:
    """The depth the CLI uses for the same data: the paper's for its data sets, else 5."""
    ref = (data_ref or {}).get("ref", "")
    if ref.startswith("paper:"):
        try:
            from ..bench import paper_settings

            row = paper_settings().get(ref.split(":", 1)[1])
        except (OSError, ValueError, ImportError):
            row = None
        if row:
            return int(row["depth"])
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
    )
    return pool, time.perf_counter() - t0


def cached_pool(dataset: Dataset, settings: PoolSettings) -> tuple[RulePool, float]:
    """The rule pool of ``dataset`` (built once per data fingerprint and settings)."""
    return _pool_cached(dataset.fingerprint, settings, dataset)


def ensure_pool(state, settings: PoolSettings) -> RulePool:
    dataset = state["dataset"]
    key = (dataset.fingerprint, settings)
    if state.get("pool_key") != key:
        pool, seconds = cached_pool(dataset, settings)
        state["pool"] = pool
        state["pool_key"] = key
        state["pool_time"] = seconds
    return state["pool"]


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


def best_tree_report(state, bc: int, be: int, eps: float) -> RuleSetReport | None:
    """Metrics of the best tree's own rules, for comparison with a selection."""
    return _best_tree_report(state["pool_key"], int(bc), int(be), float(eps), state["pool"], state["dataset"])

