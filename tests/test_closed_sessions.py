"""A closed page's session is released once it can no longer reconnect, and not before."""

import pytest

from explainer.app import closed_sessions
from explainer.app.closed_sessions import MARGIN_S, _Seen, release_closed_sessions


class _State(dict):
    @property
    def filtered_state(self):
        return dict(self)


class _Uploads:
    def __init__(self):
        self.files = {"a": [b"x" * 10], "b": [b"y" * 10]}

    def remove_session_files(self, session_id):
        self.files.pop(session_id, None)


class _Tables:
    def __init__(self):
        self.cleared = []

    def clear_all_for_session(self, session_id):
        self.cleared.append(session_id)


class _Media:
    def __init__(self):
        self.cleared, self.pruned = [], 0

    def clear_session_refs(self, session_id):
        self.cleared.append(session_id)

    def remove_orphaned_files(self):
        self.pruned += 1


@pytest.fixture
def two_sessions(monkeypatch):
    monkeypatch.setattr(closed_sessions, "_SEEN", {})
    monkeypatch.setattr(closed_sessions, "_LEFT", set())
    monkeypatch.setattr(closed_sessions, "reconnect_window_s", lambda: 120.0)
    uploads = _Uploads()
    states = {sid: _State(dataset="big table", explanation="rules") for sid in ("a", "b")}
    for sid, state in states.items():
        closed_sessions._SEEN[sid] = _Seen(state, uploads)
    return uploads, states


def test_a_session_is_released_only_after_the_reconnection_window(two_sessions):
    uploads, states = two_sessions
    media, tables = _Media(), _Tables()
    active = {"a"}

    def check(now):
        return release_closed_sessions(now, is_active=lambda sid: sid in active, media=media, tables=tables)

    assert check(0.0) == []  # "b" inactive from now on
    assert check(120.0 + MARGIN_S) == []  # not yet longer than the window plus the margin
    assert states["b"] and "b" in uploads.files
    assert check(121.0 + MARGIN_S) == ["b"]
    assert states["b"] == {} and "b" not in uploads.files and media.cleared == ["b"] and media.pruned == 1
    assert tables.cleared == ["b"]
    # the open page keeps everything
    assert states["a"] and "a" in uploads.files and closed_sessions.remembered() == ["a"]


def test_a_page_that_reconnects_in_time_keeps_its_session(two_sessions):
    uploads, states = two_sessions
    media = _Media()
    active = set()
    check = lambda now: release_closed_sessions(now, is_active=lambda sid: sid in active, media=media)  # noqa: E731
    check(0.0)
    active.add("b")  # the page came back within the window
    check(100.0)
    active.discard("b")
    assert check(200.0) == ["a"]  # "a" has been gone since 0; "b" only since 200
    assert states["b"] and "b" in uploads.files
    assert check(200.0 + 121.0 + MARGIN_S) == ["b"]


def test_under_memory_pressure_closed_pages_go_at_once_with_the_entries_only_they_used(monkeypatch):
    from explainer.app.caching import BoundedStore
    from explainer.app.sources import Source

    monkeypatch.setattr(closed_sessions, "_SEEN", {})
    uploads, media, tables = _Uploads(), _Media(), _Tables()
    uploads.files["c"] = [b"z"]
    # "a" is open on table t1; "b" closed on t2; "c" closed on t1 too (the same file in another tab)
    states = {"a": _State(data_ref={"ident": "t1"}, pool_key=("f1", "settings")),
              "b": _State(data_ref={"ident": "t2"}, pool_key=("f2", "settings"), upload=Source("upload", "b.csv", digest="t3")),
              "c": _State(data_ref={"ident": "t1"}, pool_key=("f1", "settings"))}
    for sid, state in states.items():
        closed_sessions._SEEN[sid] = _Seen(state, uploads)
    store = BoundedStore(10_000, 10_000)
    keys = [("table", "t1"), ("dataset", "t1", None, (), (), ()), ("pool", "f1", "settings"),
            ("default budgets", ("f1", "settings"), "compact"), ("table", "t2"), ("table", "upload:b.csv:t3"),
            ("dataset", "t2", None, (), (), ()), ("run", ("f2", "settings"), "run settings"),
            ("frontier", ("f2", "settings"), 3, 1.0), ("split", "f9", 0.0, 0)]
    for key in keys:
        store.put(key, "value", size=10)

    released = closed_sessions.release_inactive_sessions(store, is_active=lambda sid: sid == "a", media=media,
                                                         tables=tables)

    # no waiting for the reconnection window: both closed pages go now, as they would once it has passed,
    # with the four entries made for data only "b" had, its finished run apart (a reload shows it again)
    assert released == 2 + 4 and closed_sessions.remembered() == ["a"]
    assert states["b"] == {} and states["c"] == {} and states["a"]
    assert set(uploads.files) == {"a"} and sorted(media.cleared) == ["b", "c"] and sorted(tables.cleared) == ["b", "c"]
    # what only "b" used is forgotten, however recently; what "a" uses too, "b"'s run, and what no session
    # names, stay
    assert [k for k, _ in store.items()] == keys[:4] + [("run", ("f2", "settings"), "run settings"),
                                                        ("split", "f9", 0.0, 0)]
    assert closed_sessions.release_inactive_sessions(store, is_active=lambda sid: True, media=media) == 0


def test_entries_of_pages_released_after_the_window_go_at_the_next_relief(monkeypatch):
    from explainer.app.caching import BoundedStore

    monkeypatch.setattr(closed_sessions, "_SEEN", {})
    monkeypatch.setattr(closed_sessions, "_LEFT", set())
    monkeypatch.setattr(closed_sessions, "reconnect_window_s", lambda: 120.0)
    uploads, media = _Uploads(), _Media()
    states = {"a": _State(data_ref={"ident": "t1"}), "b": _State(data_ref={"ident": "t2"}),
              "c": _State(data_ref={"ident": "t3"})}
    for sid, state in states.items():
        closed_sessions._SEEN[sid] = _Seen(state, uploads)
    store = BoundedStore(10_000, 10_000)
    for key in [("table", "t1"), ("table", "t2"), ("table", "t3")]:
        store.put(key, "value", size=10)
    active = {"a", "c"}
    release_closed_sessions(0.0, is_active=lambda sid: sid in active, media=media)
    assert release_closed_sessions(200.0, is_active=lambda sid: sid in active, media=media) == ["b"]
    assert len(store) == 3  # released by the window: its entries stay, until the memory guard asks
    states["c"]["data_ref"] = {"ident": "t2"}  # the same file opened again in another page meanwhile
    assert closed_sessions.release_inactive_sessions(store, is_active=lambda sid: True, media=media) == 0
    assert [k for k, _ in store.items()] == [("table", "t1"), ("table", "t2"), ("table", "t3")]
    closed_sessions._LEFT.add("t3")  # released earlier, and no page works with it now
    assert closed_sessions.release_inactive_sessions(store, is_active=lambda sid: True, media=media) == 1
    assert [k for k, _ in store.items()] == [("table", "t1"), ("table", "t2")] and not closed_sessions._LEFT


def test_the_marks_of_a_session_are_what_the_cache_keys_carry():
    from explainer.app.sources import Source

    class _Data:
        fingerprint = "fp"

    class _Split:
        train = type("Train", (), {"fingerprint": "fp-train"})()

    marks = closed_sessions.data_marks({"data_ref": {"ident": "id"}, "upload": Source("upload", "x.csv", digest="up"),
                                        "dataset": _Data(), "split": _Split(), "pool_key": ("fp-train", "s")})
    assert marks == {"id", "upload:x.csv:up", "fp", "fp-train"}
    assert closed_sessions.data_marks({}) == set()


def test_outside_a_server_nothing_happens(monkeypatch):
    monkeypatch.setattr(closed_sessions, "_SEEN", {})
    closed_sessions.remember_session()  # no script context: nothing remembered
    assert closed_sessions.remembered() == [] and release_closed_sessions(0.0) == []
    assert closed_sessions.release_inactive_sessions() == 0


def test_the_memory_log_is_one_json_line_a_round(tmp_path, monkeypatch):
    import json

    import pandas as pd

    log = tmp_path / "held.jsonl"
    frame = pd.DataFrame({"x": range(1000)})  # alive while the account is taken
    monkeypatch.delenv(closed_sessions.MEMORY_LOG_ENV, raising=False)
    closed_sessions.log_held_memory()
    assert not log.exists()  # unset: nothing written
    monkeypatch.setenv(closed_sessions.MEMORY_LOG_ENV, str(log))
    closed_sessions.log_held_memory()
    closed_sessions.log_held_memory()
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(lines) == 2
    assert {"time", "uploads_cache_mb", "data_cache_mb", "dataframes", "dataframes_mb", "guard_relieved",
            "data_cache_kinds", "large_dataframes_held_by", "pools_held_by"} <= set(lines[0])
    assert lines[0]["dataframes"] >= 1 and lines[0]["dataframes_mb"] >= frame.memory_usage().sum() / 2**20


def test_housekeeping_runs_every_task_each_round_even_after_one_fails():
    import threading

    from explainer.app.caching import start_housekeeping

    ran = []
    done = threading.Event()

    def failing():
        ran.append("failing")
        raise RuntimeError("a bug in one task (expected in this test)")

    def counting():
        ran.append("counting")
        if ran.count("counting") >= 3:
            done.set()

    stop = threading.Event()
    thread = start_housekeeping(failing, counting, every_s=0.01, stop=stop)
    try:
        assert done.wait(timeout=60)  # rounds went on after the first task failed
        assert thread.is_alive() and ran[:2] == ["failing", "counting"]
    finally:
        stop.set()
        thread.join(timeout=60)
    assert not thread.is_alive()


_BLOCK_PROBE = """
import sys
import numpy as np
from explainer.app.caching import c_allocator_mb, map_large_blocks_apart
big = np.ones(20 * 2**20 // 8)  # 20 MB, mapped on its own; freeing it raises glibc's threshold to 20 MB
del big
if sys.argv[1] == "fixed":
    map_large_blocks_apart()
before = c_allocator_mb()["large_blocks"]
block = np.ones(2 * 2**20 // 8)
print(c_allocator_mb()["large_blocks"] - before)
"""


def test_a_large_block_is_mapped_apart_even_after_a_larger_one_was_freed():
    import subprocess
    import sys

    from explainer.app.caching import c_allocator_mb

    if c_allocator_mb() is None:
        pytest.skip("not glibc")

    def mapped_mb(mode):
        out = subprocess.run([sys.executable, "-c", _BLOCK_PROBE, mode], capture_output=True, text=True, check=True)
        return float(out.stdout.strip())

    assert mapped_mb("default") < 0.1  # glibc's moving threshold: the 2 MB block came from a heap
    assert mapped_mb("fixed") >= 1.9  # mapped on its own, so given back whole when freed


def test_a_closed_pages_pool_stops_building_and_another_pages_goes_on(monkeypatch):
    """Work started for a page that closed (its pool, half a minute and 600 MB at 364,035 rows) ends at its next
    tree once the page is released; work for a page still open goes on, and a page that asks for the key later
    starts it again."""
    import threading

    import numpy as np

    from explainer.app import steps
    from explainer.app.caching import BoundedStore
    from explainer.rules.pool import BuildCancelled, build_pool

    monkeypatch.setattr(closed_sessions, "_SEEN", {})
    monkeypatch.setattr(closed_sessions, "_LEFT", set())
    monkeypatch.setattr(steps, "_steps", {})
    uploads, media = _Uploads(), _Media()
    closed_sessions._SEEN["a"] = _Seen(_State(data_ref={"ident": "t1"}), uploads)
    closed_sessions._SEEN["b"] = _Seen(_State(data_ref={"ident": "t2"}), uploads)
    rng = np.random.default_rng(0)
    X, y = rng.random((300, 4)), rng.integers(0, 2, 300)
    trees = {"t1": 0, "t2": 0}
    gate = threading.Event()

    def make(ident):
        def build():
            import explainer.rules.pool as pool_module

            asked = pool_module.BUILD_STOP.get()

            def stop():  # counts the trees the build asked about; waits for the test before the second
                trees[ident] += 1
                if trees[ident] == 2:
                    gate.wait(30)
                return asked()

            pool_module.BUILD_STOP.set(stop)
            return build_pool(X, y, max_depth=4, random_state=0)
        return build

    mine, theirs = steps.start(("pool", "t1"), make("t1")), steps.start(("pool", "t2"), make("t2"))
    for _ in range(3000):  # both builds are under way, each at its second tree (a hang fails, not waits)
        if min(trees.values()) >= 2:
            break
        threading.Event().wait(0.01)
    assert min(trees.values()) >= 2
    released = closed_sessions.release_inactive_sessions(BoundedStore(10_000, 10_000), is_active=lambda sid: sid == "a",
                                                         media=media)
    gate.set()
    assert released == 1 and mine.wait(30) and theirs.wait(30)
    assert theirs.cancelled.is_set() and isinstance(theirs.error, BuildCancelled) and trees["t2"] == 2
    assert mine.error is None and not mine.cancelled.is_set() and trees["t1"] > 10  # every tree of the grid
    # the error keeps no data alive: the frames below the step's own hold no locals (the table, the trees)
    frames = [f for f, _ in __import__("traceback").walk_tb(theirs.error.__traceback__)]
    assert len(frames) > 2 and all(not f.f_locals for f in frames[1:])
    again = steps.start(("pool", "t2"), make("t2"))  # the page comes back: the work starts again
    assert again is not theirs and again.wait(30) and again.error is None


def test_the_work_of_a_page_closed_a_while_is_cancelled_and_its_session_kept(monkeypatch):
    monkeypatch.setattr(closed_sessions, "_SEEN", {})
    uploads = _Uploads()
    states = {"open": _State(data_ref={"ident": "t1"}), "closed": _State(data_ref={"ident": "t2"}),
              "shared": _State(data_ref={"ident": "t1"})}
    for sid, state in states.items():
        closed_sessions._SEEN[sid] = _Seen(state, uploads)
    cancelled = []
    monkeypatch.setattr(closed_sessions.steps, "cancel_where",
                        lambda test: cancelled.append(sorted(k for k in ("t1", "t2", "t3") if test(("pool", k)))) or 0)
    active = {"open"}
    closed_sessions.cancel_unwatched_work(0.0, is_active=lambda sid: sid in active)
    # just closed (a reload's new page may not have asked yet): nothing cancelled
    assert cancelled == []
    closed_sessions.cancel_unwatched_work(closed_sessions.UNWATCHED_S, is_active=lambda sid: sid in active)
    # closed for the grace: the work only it wanted goes; t1 stays, an open page works with it too
    assert cancelled == [["t2"]]
    assert closed_sessions.remembered() == ["open", "closed", "shared"] and states["closed"]  # sessions kept
    active.add("closed")  # it reconnects: watched again, nothing cancelled
    cancelled.clear()
    closed_sessions.cancel_unwatched_work(100.0, is_active=lambda sid: sid in active)
    assert cancelled == []
    assert closed_sessions.cancel_unwatched_work() == 0  # outside a server: nothing
