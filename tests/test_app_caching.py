"""The server's caches: bounded in bytes, least recently used out first, idle entries expiring."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from explainer.app.caching import BoundedStore, approx_bytes
from explainer.data import load_dataset, sample_datasets


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_store_keeps_its_bytes_within_the_budget_dropping_the_least_recently_used():
    store = BoundedStore(100, idle_seconds=60, clock=Clock())
    for key in "abc":
        store.put(key, key, size=30)
    assert store.total_bytes == 90 and len(store) == 3
    assert store.get("a") == "a"  # now "b" is the least recently used
    store.put("d", "d", size=30)
    assert store.get("b") is None and [store.get(k) for k in "acd"] == ["a", "c", "d"]
    assert store.total_bytes == 90
    store.put("c", "c2", size=70)  # replacing an entry counts its new size only
    assert store.get("c") == "c2" and store.total_bytes <= 100


def test_an_entry_larger_than_the_budget_is_returned_but_not_kept():
    store = BoundedStore(100, idle_seconds=60, clock=Clock())
    store.put("small", 1, size=10)
    assert store.put("huge", "value", size=101) == "value"
    assert store.get("huge") is None and store.get("small") == 1 and store.total_bytes == 10


def test_idle_entries_expire_and_use_keeps_them():
    clock = Clock()
    store = BoundedStore(1000, idle_seconds=10, clock=clock)
    store.put("used", 1, size=1)
    store.put("idle", 2, size=1)
    for _ in range(3):
        clock.now += 6
        assert store.get("used") == 1
    assert store.get("idle") is None and store.total_bytes == 1


def test_get_or_make_makes_once_while_kept():
    store = BoundedStore(1000, idle_seconds=10, clock=Clock())
    calls = []
    for _ in range(3):
        assert store.get_or_make("k", lambda: calls.append(1) or np.zeros(10)).shape == (10,)
    assert len(calls) == 1 and store.total_bytes == 80


def test_sizes_count_the_arrays_and_tables_a_value_holds():
    assert approx_bytes(b"x" * 1000) == 1000
    assert approx_bytes(np.zeros(1000)) == 8000
    frame = pd.DataFrame({"a": np.zeros(1000), "b": ["text"] * 1000})
    assert approx_bytes(frame) >= 8000 + 1000 * len("text")
    ds = load_dataset(sample_datasets()["wine"])
    assert approx_bytes(ds) >= ds.X.to_numpy().nbytes
    assert approx_bytes((ds, ds.X)) >= 2 * ds.X.to_numpy().nbytes


class _Sweep:
    """Stands for a FrontierJob: finishes at once with an empty frontier, and counts the sweeps started."""

    started: list = []
    stopped_frontiers = False

    def __init__(self, pool, *, error_budget, budget_range, eps, seeds, alive):
        from explainer.selection.frontier import Frontier

        self.done = False
        self.frontier = Frontier(points=[("point at Be", error_budget)], axis="complexity", fixed_budget=error_budget,
                                 n_rows=10, eps=eps, stopped=self.stopped_frontiers)

    def start(self):
        type(self).started.append(self.frontier.fixed_budget)
        self.done = True
        return self

    def stop(self):  # pragma: no cover - every sweep here is done when asked
        raise AssertionError("a finished sweep is not stopped")


@pytest.fixture
def sweeps(monkeypatch):
    """``ensure_frontier`` with :class:`_Sweep` for its jobs and an empty server cache of its own."""
    from types import SimpleNamespace

    from explainer.app import budgets
    from explainer.app.session import Session

    monkeypatch.setattr(budgets, "COMPUTED", BoundedStore(1 << 30, idle_seconds=60))
    monkeypatch.setattr(budgets, "FrontierJob", _Sweep)
    monkeypatch.setattr(_Sweep, "started", [])
    state = Session({})
    state.pool_key = ("fingerprint", "pool settings")
    pool = SimpleNamespace(best_tree=lambda: None)

    def at(be, eps=1.0):
        return budgets.ensure_frontier(state, pool, bc=4, be=be, eps=eps, bc_max=50)

    return SimpleNamespace(at=at, state=state, budgets=budgets)


@pytest.mark.parametrize("redrawn", [True, False])
def test_a_frontier_is_computed_once_per_be_and_kept_when_be_changes(sweeps, redrawn):
    first = sweeps.at(5)
    assert _Sweep.started == [5]
    if redrawn:  # the page redrew once after the sweep ended (otherwise Be changes first)
        assert sweeps.at(5) is first and first.result is first.job.frontier and _Sweep.started == [5]
    sweeps.at(7)
    assert _Sweep.started == [5, 7]
    back = sweeps.at(5)
    assert _Sweep.started == [5, 7] and back.job is None and back.result is first.job.frontier
    assert sweeps.at(7).job is None and _Sweep.started == [5, 7]
    # another eps is another frontier
    sweeps.at(5, eps=0.5)
    assert _Sweep.started == [5, 7, 5]


def test_a_stopped_frontier_is_not_kept(sweeps, monkeypatch):
    monkeypatch.setattr(_Sweep, "stopped_frontiers", True)
    sweeps.at(5)
    sweeps.at(7)
    sweeps.at(5)
    assert _Sweep.started == [5, 7, 5]


def test_known_selections_come_from_the_kept_frontiers_at_a_smaller_be(sweeps):
    for be in (3, 5, 9):
        sweeps.at(be)
    sweeps.at(1)  # the sweep at Be = 9 is harvested when Be changes
    known = sweeps.budgets.known_selections(sweeps.state, 6, 1.0)
    assert sorted(known) == [("point at Be", 3), ("point at Be", 5)]
    assert sweeps.budgets.known_selections(sweeps.state, 6, 0.5) == []


def test_items_list_what_is_kept_without_using_it():
    clock = Clock()
    store = BoundedStore(100, idle_seconds=60, clock=clock)
    store.put("a", 1, size=10)
    clock.now = 50.0
    store.put("b", 2, size=10)
    assert store.items() == [("a", 1), ("b", 2)]
    clock.now = 70.0  # "a" was only looked through at 50: idle 70 s, it expires
    assert store.items() == [("b", 2)]
