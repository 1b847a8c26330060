"""The server's caches: bounded in bytes, least recently used out first, idle entries expiring."""

from __future__ import annotations

import numpy as np
import pandas as pd

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
