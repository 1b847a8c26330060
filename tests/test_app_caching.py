"""The server's caches: bounded in bytes, least recently used out first, idle entries expiring."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
import pytest

from explainer.app import caching
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


class _Point(NamedTuple):
    """A frontier point as the stand-in sweep makes it: equal to a plain tuple, with a selection of nothing."""

    label: str
    be: int

    @property
    def selection(self):
        return None


class _Sweep:
    """Stands for a FrontierJob: finishes at once with an empty frontier, and counts the sweeps started."""

    started: list = []
    stopped_frontiers = False

    def __init__(self, pool, *, error_budget, budget_range, eps, seeds, alive, before=None):
        from explainer.selection.frontier import Frontier

        self.budget_range, self.seeds, self.before = budget_range, seeds, before
        self.done = False
        self.frontier = Frontier(points=[_Point("point at Be", error_budget)], axis="complexity", fixed_budget=error_budget,
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

    from explainer.app import budgets, kept_runs
    from explainer.app.session import Session

    store = BoundedStore(1 << 30, idle_seconds=60)
    monkeypatch.setattr(budgets, "COMPUTED", store)
    monkeypatch.setattr(kept_runs, "COMPUTED", store)
    monkeypatch.setattr(budgets, "FrontierJob", _Sweep)
    monkeypatch.setattr(_Sweep, "started", [])
    state = Session({})
    state.pool_key = ("fingerprint", "pool settings")
    pool = SimpleNamespace(best_tree=lambda: None)

    def at(be, eps=1.0):
        return budgets.ensure_frontier(state, pool, bc=4, be=be, eps=eps, bc_max=50)

    return SimpleNamespace(at=at, state=state, budgets=budgets, kept_runs=kept_runs)


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


def test_a_frontier_kept_by_the_server_serves_a_new_session_at_any_bc_in_its_range(sweeps):
    """A reload (a new session) at the same pool, Be and eps reuses the kept frontier, at any Bc it reaches."""
    from explainer.app.session import Session

    first = sweeps.at(5)
    sweeps.at(7)  # the sweep at Be = 5 is harvested into the server's cache
    reloaded = Session({})
    reloaded.pool_key = sweeps.state.pool_key
    pool = type("Pool", (), {"best_tree": lambda self: None})()
    for bc in (1, 4, first.range[1]):
        entry = sweeps.budgets.ensure_frontier(reloaded, pool, bc=bc, be=5, eps=1.0, bc_max=50)
        assert entry.job is None and entry.result is first.job.frontier
    assert _Sweep.started == [5, 7]
    beyond = sweeps.budgets.ensure_frontier(reloaded, pool, bc=first.range[1] + 1, be=5, eps=1.0, bc_max=50)
    assert beyond.job is not None and _Sweep.started == [5, 7, 5]  # a longer range is computed


def test_a_longer_frontier_computes_only_the_budgets_beyond_the_one_kept(sweeps):
    """Bc past a kept frontier's range: the new sweep starts where the kept one ends, from its last selection,
    and the page's entry covers the whole range."""
    from explainer.rules.pool import build_pool
    from explainer.selection.frontier import frontier

    ds = load_dataset(sample_datasets()["iris"])
    kept = frontier(build_pool(ds.X, ds.y, 4, random_state=0), 5, (1, 20), exact_time_limit=0, qga_time_limit=0)
    sweeps.budgets.COMPUTED.put(sweeps.budgets.frontier_key((sweeps.state.pool_key, 5, 1.0, (1, 20))), kept)
    pool = type("Pool", (), {"best_tree": lambda self: None})()
    entry = sweeps.budgets.ensure_frontier(sweeps.state, pool, bc=21, be=5, eps=1.0, bc_max=50)
    assert entry.range == (1, 25) and entry.key[3] == (1, 25)
    assert entry.job.budget_range == (21, 25) and entry.job.before is kept
    assert entry.job.seeds[-1] is kept.points[-1].selection
    # another Be has no kept frontier: the whole range
    other = sweeps.budgets.ensure_frontier(sweeps.state, pool, bc=21, be=6, eps=1.0, bc_max=50)
    assert other.job.budget_range == (1, 25) and other.job.before is None


def _run(selection, problem):
    from types import SimpleNamespace

    from explainer.selection.result import SelectionResult

    result = SelectionResult(selection=np.asarray(selection, dtype=bool), evaluation=problem.evaluate(selection),
                             algorithm="test", status="ok", message="", time_s=0.0)
    return SimpleNamespace(result=result, report=None)


@pytest.mark.parametrize("seed", range(8))
def test_every_kept_run_lifts_the_frontier_not_only_the_latest(sweeps, seed):
    """Property over random runs: a shown point is never below a kept run (same eps, every rule, unweighted
    rows, within Be) at a Bc >= the run's complexity, and runs of other settings do not lift it."""
    from explainer.selection.frontier import frontier
    from explainer.selection.problem import SelectionProblem
    from explainer.selection.settings import RunSettings

    rng = np.random.default_rng(seed)
    n, m = 30, 9
    base = SelectionProblem(rng.random((n, m)) < 0.35, rng.integers(0, 2, m), rng.integers(0, 2, n),
                            rng.integers(1, 4, m), eps=1.0, n_classes=2)
    be = int(rng.integers(1, 5))
    # a weak sweep (carry-forward and local search only) with its selections emptied: the runs must lift it
    sweep = frontier(base, be, (1, 12), exact_time_limit=0, qga_time_limit=0)
    empty = np.zeros(m, dtype=bool)
    low = [type(p)(**{**p.__dict__, "selection": empty, "evaluation": base.evaluate(empty),
                      "proven_optimal": False}) for p in sweep.points]
    runs, others = [], []
    for i in range(6):
        selection = rng.random(m) < 0.4
        run = _run(selection, base)
        settings = RunSettings(complexity_budget=12, error_budget=be, algorithm="greedy", seed=i, eps=1.0)
        if i % 3 == 2:  # another eps or class weight: a selection of another problem
            settings = RunSettings(complexity_budget=12, error_budget=be, algorithm="greedy", seed=i,
                                   eps=0.5 if i == 2 else 1.0, class_weight=None if i == 2 else "balanced")
            others.append(run.result)
        else:
            runs.append(run.result)
        sweeps.kept_runs.keep_finished(sweeps.state.pool_key, settings, run, dataset=None)
    shown = sweeps.budgets.shown_points(sweeps.state, type("E", (), {"key": (sweeps.state.pool_key, be, 1.0)})(),
                                        low, n)
    for p in shown:
        fits = [r.coverage for r in runs if r.complexity <= p.complexity_budget and r.errors <= be]
        assert p.coverage == pytest.approx(max(fits, default=0.0))  # the best kept run that fits, none other
        assert base.with_budgets(p.complexity_budget, be).evaluate(p.selection).coverage == pytest.approx(p.coverage)


def test_runs_are_kept_by_pool_and_settings_and_a_failed_one_is_forgotten(sweeps):
    from explainer.selection.settings import RunSettings

    kr = sweeps.kept_runs
    key = sweeps.state.pool_key
    a = RunSettings(complexity_budget=3, error_budget=2, algorithm="greedy")
    b = RunSettings(complexity_budget=3, error_budget=2, algorithm="greedy", seed=1)
    kr.mark_started(key, a)
    assert isinstance(kr.kept(key, a), kr.Started) and kr.kept(key, b) is None and kr.kept_runs(key) == []
    kr.keep_finished(key, a, _run([True, False], _problem2()), dataset="rows")
    found = kr.kept(key, a)
    assert isinstance(found, kr.KeptRun) and found.dataset == "rows" and found.settings == a
    assert kr.kept(("another pool",), a) is None and kr.kept_runs(key) == [found]
    kr.mark_started(key, b)
    kr.forget_run(key, b)
    assert kr.kept(key, b) is None


def _problem2():
    from explainer.selection.problem import SelectionProblem

    return SelectionProblem(np.array([[True, False], [False, True]]), np.array([0, 1]), np.array([0, 1]),
                            np.array([1, 1]), n_classes=2)


def test_discard_forgets_a_key_and_its_bytes():
    store = BoundedStore(100, idle_seconds=60)
    store.put("a", 1, size=10)
    store.discard("a")
    store.discard("never kept")
    assert len(store) == 0 and store.total_bytes == 0


@pytest.mark.skipif(caching._malloc_trim() is None, reason="malloc_trim is glibc's")
def test_freed_memory_goes_back_to_the_system():
    import psutil

    process = psutil.Process()

    def rss_mb():
        return process.memory_info().rss / 2**20

    caching.return_freed_memory()  # what earlier tests freed is not counted, nor reused below
    base = rss_mb()
    chunks = [bytes(4000) + bytes([i % 256]) for i in range(50_000)]  # about 200 MB from malloc's heap
    kept = chunks[::100]  # a few stay alive, as in a server: the freed memory is not all at the heap's top
    held = rss_mb()
    del chunks
    assert caching.return_freed_memory()
    after = rss_mb()
    assert held - base > 150 and len(kept) == 500
    assert held - after > 0.5 * (held - base), (base, held, after)


class FakeProcess:
    """A process whose resident memory is a base plus what the stores' entries hold (their sizes)."""

    def __init__(self, base: int, *stores: BoundedStore):
        self.base, self.stores = base, stores

    def __call__(self) -> int:
        return self.base + sum(store.total_bytes for store in self.stores)


@pytest.fixture
def guard(monkeypatch):
    monkeypatch.setattr(caching, "GUARD", caching.MemoryGuard())
    return caching.GUARD


def test_the_guard_drops_the_oldest_entries_until_the_process_is_within_its_limit(guard, monkeypatch):
    clock = Clock()
    data, uploads = BoundedStore(1000, 10_000, clock=clock), BoundedStore(1000, 10_000, clock=clock)
    monkeypatch.setattr(caching, "return_freed_memory", lambda: True)
    for i, key in enumerate("abcd"):
        data.put(key, key, size=100)
        clock.now = 10.0 * (i + 1)
    uploads.put("file", "bytes", size=100)
    clock.now = 1000.0
    process = FakeProcess(250, data, uploads)  # 750 in all
    guard.limit_bytes = 520
    dropped = caching.keep_within_limit(process, data)
    # the data cache gives up its oldest first, and no more than needed (a, b, c: then 450 <= 520)
    assert dropped == 3 and [k for k, _ in data.items()] == ["d"] and len(uploads) == 1
    assert process() <= guard.limit_bytes and guard.dropped == 3
    guard.limit_bytes = 300  # the data cache gives its last; the user's uploads stay, the process over
    assert caching.keep_within_limit(process, data) == 1 and len(data) == 0 and len(uploads) == 1
    assert caching.keep_within_limit(process, data) == 0  # nothing left to give


def test_room_is_made_before_a_computation_not_after_its_peak(guard, monkeypatch):
    clock = Clock()
    data = BoundedStore(1000, 10_000, clock=clock)
    monkeypatch.setattr(caching, "return_freed_memory", lambda: True)
    for i, key in enumerate("abc"):
        data.put(key, key, size=100)
        clock.now = 10.0 * (i + 1)
    clock.now = 1000.0
    process = FakeProcess(200, data)  # 500 in all, within the limit
    guard.limit_bytes = 600
    assert caching.keep_within_limit(process, data) == 0 and len(data) == 3  # nothing to do yet
    # a build that will hold 250 at its peak: 750 would be over, so the oldest two go first (then 300 + 250)
    assert caching.keep_within_limit(process, data, need_bytes=250) == 2
    assert [k for k, _ in data.items()] == ["c"] and process() + 250 <= guard.limit_bytes
    assert caching.make_room(100, process, data) == 0 and guard.room_made == 0  # 300 + 100: room enough
    assert caching.make_room(400, process, data) == 1 and guard.room_made == 1 and len(data) == 0
    calls = []
    monkeypatch.setattr(caching, "keep_within_limit", lambda rss, store, need_bytes: calls.append(need_bytes) or 0)
    caching.make_room(-5)
    assert calls == [0]


def test_a_pool_build_and_its_default_budgets_make_room_for_their_peaks_first(monkeypatch):
    from explainer.app import budgets, pools
    from explainer.data import load_paper_dataset

    asked = []
    monkeypatch.setattr(caching, "make_room", lambda need, rss=None, store=None: asked.append(need) or 0)
    monkeypatch.setattr(budgets, "choose_defaults", lambda pool, size=None: "budgets")
    dataset = load_paper_dataset("iris")
    pool, _ = pools._build(pools.PoolSettings(), dataset)
    table = caching.frame_bytes(dataset.X)
    assert asked == [pools.POOL_PEAK_PER_BYTE * table] and pool.n_rules > 0
    assert budgets.validated_defaults(lambda: pool, 123) == "budgets" and asked[-1] == 123
    assert budgets.budgets_need(pool) == budgets.BUDGETS_PEAK_PER_BYTE * table  # the pool's own table


def test_computations_that_make_room_run_one_at_a_time_and_a_waiting_one_ends_when_unwanted(monkeypatch):
    """Two builds at once each made room for itself alone (peaks of 1,788-2,009 MB against 1,342): the second
    waits for the first; while it waits, a step no page wants any more ends at its next look."""
    import threading

    from explainer.rules.pool import BUILD_STOP, BuildCancelled

    monkeypatch.setattr(caching, "make_room", lambda need, rss=None, store=None: 0)
    monkeypatch.setattr(caching, "ROOM_POLL_S", 0.01)
    inside, events = threading.Event(), []
    leave = threading.Event()

    def first():
        with caching.room_to_work(1):
            events.append("first in")
            inside.set()
            leave.wait(30)
            events.append("first out")

    trying = threading.Event()

    def second():
        trying.set()
        with caching.room_to_work(1):
            events.append("second in")

    one = threading.Thread(target=first)
    one.start()
    assert inside.wait(30)
    two = threading.Thread(target=second)
    two.start()
    # the second is at the door before the first leaves (on a busy machine it might otherwise only start after,
    # and pass without ever having waited)
    assert trying.wait(30)
    two.join(0.2)
    assert two.is_alive() and events == ["first in"]  # waiting its turn
    leave.set()
    one.join(30)
    two.join(30)
    assert events == ["first in", "first out", "second in"]

    # a computation no longer wanted stops waiting, and never takes its turn
    wanted = threading.Event()
    wanted.set()
    outcome = []

    def unwanted_later():
        BUILD_STOP.set(lambda: not wanted.is_set())
        try:
            with caching.room_to_work(1):
                outcome.append("ran")
        except BuildCancelled:
            outcome.append("cancelled")

    with caching.room_to_work(1):
        three = threading.Thread(target=unwanted_later)
        three.start()
        three.join(0.1)
        assert three.is_alive()
        wanted.clear()  # its page closed
        three.join(30)
    assert outcome == ["cancelled"]
    with caching.room_to_work(1):  # and the lock is free again
        pass


def test_default_budgets_waiting_their_turn_do_not_keep_a_pool_the_cache_let_go(monkeypatch):
    import gc
    import weakref

    from explainer.app import budgets
    from explainer.rules.pool import BuildCancelled

    class Pool:
        pass

    monkeypatch.setattr(caching, "make_room", lambda need, rss=None, store=None: 0)
    monkeypatch.setattr(budgets, "choose_defaults", lambda pool, size=None: "budgets")
    pool = Pool()
    ref = weakref.ref(pool)
    assert budgets.validated_defaults(ref, 0) == "budgets"
    del pool
    gc.collect()
    with pytest.raises(BuildCancelled):
        budgets.validated_defaults(ref, 0)


def test_the_guard_keeps_entries_just_used_and_does_nothing_without_a_limit(guard, monkeypatch):
    clock = Clock()
    data = BoundedStore(1000, 10_000, clock=clock)
    monkeypatch.setattr(caching, "return_freed_memory", lambda: True)
    data.put("old", 1, size=100)
    clock.now = 500.0
    data.put("fresh", 2, size=100)  # what a page is working with
    clock.now = 500.0 + guard.grace_s / 2
    process = FakeProcess(500, data)
    assert caching.keep_within_limit(process, data) == 0 and len(data) == 2  # no guard set
    guard.limit_bytes = 100
    assert caching.keep_within_limit(process, data) == 1
    assert [k for k, _ in data.items()] == ["fresh"]  # within its grace, though the process is still over


def test_once_the_grace_holds_the_rest_closed_pages_are_released_and_their_entries_go(guard, monkeypatch):
    clock = Clock()
    data = BoundedStore(1000, 10_000, clock=clock)
    monkeypatch.setattr(caching, "return_freed_memory", lambda: True)
    for key in ("closed page's pool", "open page's pool"):
        data.put(key, key, size=100)  # both used within the grace
    process = FakeProcess(250, data)  # 450 in all
    calls = []

    def relieve(store):
        calls.append(store)
        store.discard("closed page's pool")  # what the closed page alone used
        process.base -= 50  # and its session's own data set
        return 1

    guard.limit_bytes, guard.relieve = 400, relieve
    assert caching.keep_within_limit(process, data) == 0  # nothing dropped by age: the grace holds both
    assert calls == [data] and guard.relieved == 1 and process() == 300
    assert [k for k, _ in data.items()] == ["open page's pool"]

    guard.limit_bytes = 100  # still over: relieved once a round, then nothing more to give
    assert caching.keep_within_limit(process, data) == 0 and len(calls) == 2 and len(data) == 1
    guard.relieve = lambda store: 0  # no closed page: the guard stops at once
    assert caching.keep_within_limit(process, data) == 0 and len(data) == 1


_GUARD_PROBE = """
import numpy as np
from explainer.app import caching
from explainer.app.caching import COMPUTED, MB, UPLOADS, guard_memory, map_large_blocks_apart, resident_bytes
map_large_blocks_apart()
UPLOADS.max_bytes, COMPUTED.max_bytes = 50 * MB, 150 * MB  # a limit of the base plus 200 MB
caching.GUARD.grace_s = 0.0
guard_memory()
held = np.ones(100 * MB // 8)  # what a session holds, outside the caches
for i in range(3):
    COMPUTED.put(i, np.ones(60 * MB // 8))  # two fit the cache's own budget, the third drops the first
print(len(COMPUTED), int(resident_bytes() <= caching.GUARD.limit_bytes), caching.GUARD.dropped)
"""


@pytest.mark.skipif(caching.c_allocator_mb() is None, reason="needs glibc")
def test_a_real_process_over_its_limit_is_brought_back_by_the_caches_giving_way():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _GUARD_PROBE], capture_output=True, text=True, timeout=300, check=True)
    kept, within, dropped = map(int, out.stdout.split())
    # the session's 100 MB leaves the caches room for one of their 60 MB entries, not the two their budget holds
    assert (kept, within, dropped) == (1, 1, 2), out.stdout


def test_a_tables_bytes_are_what_pandas_counts_column_by_column():
    from explainer.app.caching import frame_bytes

    rng = np.random.default_rng(0)
    frames = [
        pd.DataFrame(rng.random((7, 40)).astype(np.float32)),
        pd.DataFrame({"a": [1, 2], "b": ["x", None], "c": pd.Categorical(["u", "v"]), "d": [True, False],
                      "e": pd.to_datetime(["2020-01-01", "2021-01-01"]), "f": pd.array([1, None], dtype="Int64"),
                      "g": np.array([1, 2], dtype=np.uint8)}, index=["r1", "r2"]),
        pd.DataFrame({"s": pd.array(["long text " * 20, "t"], dtype="string")}),
        pd.DataFrame(),
    ]
    for frame in frames:
        assert frame_bytes(frame) == int(frame.memory_usage(index=True, deep=True).sum())


def test_a_tables_shared_objects_count_once():
    import sys

    from explainer.app.caching import frame_bytes

    word = "".join(["shared ", "text"])  # built, not a constant the compiler would share anyway
    apart = [word[:6] + word[6:] for _ in range(1000)]  # 1,000 equal strings, each its own object
    assert len({id(w) for w in apart}) == 1000
    one = pd.DataFrame({"s": [word] * 1000, "t": [word] * 999 + [None]}, dtype=object)  # as read_table reads text
    other = [word[:5] + word[5:] for _ in range(999)]
    many = pd.DataFrame({"s": apart, "t": other + [None]}, dtype=object)
    pointers = 2 * 1000 * 8 + one.index.memory_usage(deep=True)
    assert frame_bytes(one) == pointers + sys.getsizeof(word) + sys.getsizeof(None)
    assert frame_bytes(many) == int(many.memory_usage(index=True, deep=True).sum())  # nothing shared: pandas' count
    assert frame_bytes(many) > frame_bytes(one) + 999 * sys.getsizeof(word)


def test_a_size_whose_default_curve_is_gone_is_validated_whole_in_its_turn(monkeypatch):
    """The compact or accurate choice re-picks on the default's curve; when that step ended without one (its page
    closed), the whole validation runs, and as the one computation making room, like the default's."""
    import contextlib
    import types

    from explainer.app import budgets, steps
    from explainer.rules.pool import BuildCancelled

    calls, turns = [], []
    monkeypatch.setattr(budgets, "choose_defaults",
                        lambda pool, size=None, curve=(): calls.append((size, tuple(curve))) or "chosen")

    class Ended:
        error = BuildCancelled("its page closed")

        def wait(self, timeout):
            return True

        def result(self):
            return None

    monkeypatch.setattr(steps, "start", lambda key, make: Ended())

    @contextlib.contextmanager
    def turn(need_bytes):
        turns.append(need_bytes)
        yield

    monkeypatch.setattr(budgets, "room_to_work", turn)
    pool = types.SimpleNamespace(training_table=None)
    assert budgets._choose_at(pool, ("pool",), "compact") == "chosen"
    assert calls == [("compact", ())] and turns == [0]
