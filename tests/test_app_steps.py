"""Long steps are shown while they last: a status with the step's name, running, then one collapsed line
with a check mark (an expander, drawn as a completed status looks); the page below a running step is not drawn (nothing old stays greyed), and Run
is not on the page while the default budgets are chosen (streamlit.testing, no browser).

``tests/conftest.py`` lets other page tests wait for their steps inside the run; here the wait is zero,
so every step not already in the server's cache goes through its status, as in a browser.
"""

from __future__ import annotations

import pathlib
import threading
import uuid

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest
from waits import HANG_S

from explainer.app import budgets, pools, steps
from explainer.app import state as app_state
from explainer.app.caching import COMPUTED
from explainer.app.session import Session
from explainer.app.sources import dataset_key
from explainer.bench.census import census_like
from explainer.data import load_dataset
from explainer.pipeline import resolve_budgets
from explainer.rules.pool import BuildCancelled

ROOT = pathlib.Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")


@pytest.fixture(autouse=True)
def steps_shown(monkeypatch):
    monkeypatch.setattr(steps, "INLINE_WAIT_S", 0.0)
    yield
    assert steps.wait_all(HANG_S), "a step was still computing after its test"


def gated_page():
    """A page with one step whose computation waits for ``st.session_state["gate"]``."""
    import streamlit as st

    from explainer.app import steps
    from explainer.app.session import Session
    from explainer.data import DataError

    state = Session()

    def make():
        st_gate.wait(60)
        if st_fail:
            raise DataError("column 'x' has no values")
        return 42

    st_gate, st_fail = st.session_state["gate"], st.session_state.get("fail", False)
    try:
        value = steps.ready(state, "count", ("count", st.session_state["key"]), make,
                            title="Counting the rows …", detail="One by one.",
                            done=lambda v, seconds: f"Rows counted in {seconds:.1f} s: {v}")
    except DataError as exc:
        st.error(f"Could not count: {exc}")
        st.stop()
    if value is None:
        st.stop()
    st.markdown(f"value = {value}")


def gated_app(fail: bool = False) -> tuple[AppTest, threading.Event]:
    at = AppTest.from_function(gated_page, default_timeout=HANG_S)
    gate = threading.Event()
    at.session_state["gate"] = gate
    at.session_state["fail"] = fail
    at.session_state["key"] = uuid.uuid4().hex  # a key no other test computed
    return at, gate


def test_a_step_shows_its_name_while_it_runs_and_one_complete_line_after():
    at, gate = gated_app()
    at.run()
    assert not at.exception
    [status] = at.status
    assert status.state == "running" and status.proto.expanded
    assert status.label.startswith("Counting the rows … · ") and status.label.endswith(" s")
    assert [c.value for c in status.caption] == ["One by one."]
    assert not at.markdown, "the page below a running step is not drawn"

    at.run()  # looked at again while it still runs: the same step, not a second one
    assert [s.state for s in at.status] == ["running"]
    assert len(steps.running()) == 1

    gate.set()
    assert steps.wait_all(HANG_S)
    at.run()
    assert not at.exception and not at.status
    [line] = [e for e in at.expander if e.icon == steps.DONE_ICON]
    assert not line.proto.expanded
    assert line.label.startswith("Rows counted in ") and line.label.endswith(" s: 42")
    assert [m.value for m in at.markdown] == ["value = 42"]

    at.run()  # from the cache now: the line stays while the page shows that value
    assert step_lines(at) == [("complete", line.label)]


def test_a_failing_step_says_why_and_leaves_no_status():
    at, gate = gated_app(fail=True)
    at.run()
    assert [s.state for s in at.status] == ["running"]
    gate.set()
    assert steps.wait_all(HANG_S)
    at.run()
    assert not at.exception and not at.status
    assert [e.value for e in at.error] == ["Could not count: column 'x' has no values"]
    assert not steps.running()


def let_go_once_page():
    """A page with one step that ends as if no page wanted it the first time (its pool let go while it waited
    its turn), then counts."""
    import streamlit as st

    from explainer.app import steps
    from explainer.app.session import Session
    from explainer.rules.pool import BuildCancelled

    tries = st.session_state["tries"]

    def make():
        tries.append(1)
        if len(tries) == 1:
            raise BuildCancelled("the rule pool was let go")
        return 42

    value = steps.ready(Session(), "count", ("count", st.session_state["key"]), make, title="Counting the rows …",
                        done=lambda v, seconds: f"Rows counted in {seconds:.1f} s: {v}")
    if value is None:
        st.stop()
    st.markdown(f"value = {value}")


def test_a_step_that_ended_unwanted_is_computed_again_for_the_page_that_asks():
    """A step can end with BuildCancelled without its page closing (the default budgets, when the pool they
    waited for was let go): the page asking for it then gets the value, not that error."""
    at = AppTest.from_function(let_go_once_page, default_timeout=HANG_S)
    at.session_state["tries"] = tries = []
    at.session_state["key"] = key = uuid.uuid4().hex
    at.run()
    assert steps.wait_all(HANG_S)
    at.run()  # the step ended unwanted: started again, for this page
    assert steps.wait_all(HANG_S)
    at.run()
    assert not at.exception and not at.error, (at.exception, at.error)
    assert [m.value for m in at.markdown] == ["value = 42"] and len(tries) == 2

    def let_go():
        raise BuildCancelled("the rule pool was let go")

    first = steps.start(("again", key), let_go)
    assert first.wait(HANG_S) and isinstance(first.error, BuildCancelled)
    second = steps.start(("again", key), lambda: 7)  # start() too gives a new step for one that ended so
    assert second is not first and second.wait(HANG_S) and second.result() == 7


def step_lines(at: AppTest) -> list[tuple[str, str]]:
    """The page's step lines: ("running", label) for a step being computed, ("complete", label) for a done one."""
    return [(s.state, s.label) for s in at.status] + [("complete", e.label) for e in at.expander
                                                       if e.icon == steps.DONE_ICON]


def settle(at: AppTest, seen: list, rounds: int = 20, on_seen=None, held=lambda step: False) -> None:
    """Draw the page until no step runs (what the polling fragment does in a browser), keeping each run's
    statuses and checking that a running step hides the rest of the page; ``on_seen(lines)`` is called with
    each run's step lines before the running steps are waited for, and a step ``held(step)`` is not waited for
    (the test holds it until the page has shown it)."""
    for _ in range(rounds):
        assert not at.exception, at.exception
        running = [s for s in at.status if s.state == "running"]
        seen.append(step_lines(at))
        if on_seen is not None:
            on_seen(seen[-1])
        if not running:
            return
        assert len(running) == 1 and running[0].proto.expanded
        # below a running step nothing is drawn: no Run, no budget widgets, no numbers of an old pool
        assert not [b for b in at.button if b.label == "Run"]
        assert not [w for w in at.slider if "budget" in w.label]
        if running[0].label.startswith("Building the rule pool"):
            assert not at.metric
        # the steps computing now, not the ones they start as they end (a pool its default budgets):
        # those are what the next look at the page may find still running
        assert all(step.wait(HANG_S) for step in steps.running() if not held(step))
        at.run()
    raise AssertionError(f"the page still had a running step after {rounds} runs: {seen[-1]}")


@pytest.mark.slow
def test_explain_shows_the_pool_and_the_budgets_being_computed_then_done(monkeypatch):
    # the budgets' step is held until the page has been seen drawing it: on a fast machine it could
    # otherwise end between two looks at the page
    gate = threading.Event()
    choose = budgets.choose_defaults

    def held(*args, **kwargs):
        assert gate.wait(HANG_S), "the page never showed the budgets being chosen"
        return choose(*args, **kwargs)

    def release(lines):
        if ("running", ) == tuple(s for s, lb in lines if lb.startswith("Choosing default budgets … · ")):
            gate.set()

    monkeypatch.setattr(budgets, "choose_defaults", held)  # the pool's step too starts the budgets through it
    at = AppTest.from_file(APP, default_timeout=HANG_S)
    at.run()
    # a pool seed no other test uses: the pool and its budgets are not in the server's cache
    at.session_state["w_pool_seed"] = 4242
    at.switch_page("pages/1_Explain.py").run()
    seen = []
    settle(at, seen, on_seen=release,
           held=lambda step: not gate.is_set() and isinstance(step.key, tuple) and step.key[:1] == budgets.defaults_key(())[:1])
    labels = [label for run in seen for _, label in run]
    trees = pools.n_trees(pools.PoolSettings())
    assert any(lb.startswith(f"Building the rule pool … ({trees} trees) · ") or lb.startswith("Rule pool built in ")
               for lb in labels), labels
    assert any(lb.startswith("Choosing default budgets … · ") for lb in labels), labels

    pool = at.session_state["pool"]
    final = dict((lb.split(" in ")[0], (state, lb)) for state, lb in seen[-1])
    assert final["Rule pool built"][0] == "complete"
    assert final["Rule pool built"][1].endswith(f": {pool.n_rules:,} rules from {pool.n_trees} trees")
    bc, be = resolve_budgets(pool)
    assert final["Default budgets chosen"][0] == "complete"
    assert final["Default budgets chosen"][1].endswith(f": Bc = {bc}, Be = {be:,}")
    assert (at.session_state["w_bc"], at.session_state["w_be"]) == (bc, be)
    assert [b for b in at.button if b.label == "Run"] and not at.error
    entry = at.session_state["frontier"]
    if entry.job is not None:
        entry.job.stop()
        entry.job.join(HANG_S)


@pytest.mark.slow
def test_data_page_shows_reading_and_encoding_an_upload():
    data = census_like(3000, seed=4242).to_csv(index=False).encode()
    at = AppTest.from_file(APP, default_timeout=HANG_S)
    at.run()
    at.session_state["w_source_kind"] = "Upload a CSV"
    source = app_state.remember_upload(Session(at.session_state), "census.csv", data)
    at.run()
    seen = []
    settle(at, seen)
    assert any(lb.startswith("Reading the table") for run in seen for _, lb in run), seen
    assert [s for s, lb in seen[-1] if lb.startswith("Table read in ")] == ["complete"], seen[-1]

    at.selectbox(key=app_state.target_key(source)).set_value("income").run()
    next(b for b in at.button if b.label == "Load data").click().run()
    seen = []
    settle(at, seen)
    assert any(lb.startswith("Encoding the table …") or lb.startswith("Table encoded in")
               for run in seen for _, lb in run), seen
    assert at.session_state["dataset"].target == "income" and at.session_state["dataset"].n_rows == 3000
    encoded = [(s, lb) for s, lb in seen[-1] if lb.startswith("Table encoded in")]
    dataset = at.session_state["dataset"]
    assert encoded == [("complete", encoded[0][1])]
    assert encoded[0][1].endswith(f": {dataset.n_rows:,} rows, {dataset.n_features} features")
    assert not at.error


def test_a_read_table_is_encoded_and_its_pool_and_budgets_built_before_load_is_pressed():
    """What Load data and the Explain page will ask for is under way as soon as the table is read: the
    encoding with the form's options, then the pool at the Explain page's settings, then its default
    budgets, each in the server's cache without a page asking for it."""
    data = census_like(2500, seed=4343).to_csv(index=False).encode()
    at = AppTest.from_file(APP, default_timeout=HANG_S)
    at.run()
    at.session_state["w_source_kind"] = "Upload a CSV"
    state = Session(at.session_state)
    source = app_state.remember_upload(state, "ahead.csv", data)
    at.run()
    settle(at, [])  # the table is read; the page now shows its preview and the Load form
    at.selectbox(key=app_state.target_key(source)).set_value("income").run()
    assert steps.wait_all(HANG_S)
    options = {"target": "income", "categorical": [], "exclude": [], "keep": []}
    dataset = COMPUTED.get(dataset_key(source, **options))
    assert dataset is not None and dataset.n_rows == 2500, "encoded before Load data"
    settings = pools.page_settings(state)
    pool, _ = COMPUTED.get(("pool", dataset.fingerprint, settings))
    assert pool.n_rows == 2500, "its pool built too"
    defaults = COMPUTED.get(budgets.defaults_key((dataset.fingerprint, settings)))
    assert defaults is not None and defaults.budgets == resolve_budgets(pool), "and its default budgets"

    next(b for b in at.button if b.label == "Load data").click().run()
    seen = []
    settle(at, seen)
    assert not [lb for run in seen for st, lb in run if st == "running"], "nothing left to wait for"
    assert at.session_state["dataset"].fingerprint == dataset.fingerprint


def test_the_pool_step_starts_its_default_budgets_as_it_ends():
    dataset = load_dataset(census_like(1500, seed=4444), target="income")
    settings = pools.PoolSettings(random_state=4444)
    pools.start_pool(dataset, settings)
    assert steps.wait_all(HANG_S)
    pool, _ = COMPUTED.get(("pool", dataset.fingerprint, settings))
    defaults = COMPUTED.get(budgets.defaults_key((dataset.fingerprint, settings)))
    assert defaults is not None and defaults.budgets == resolve_budgets(pool)


def test_a_finished_step_holds_its_value_only_in_the_cache():
    """Work started ahead for a page never opened must not hold memory beyond the cache's byte budget:
    once done, a step keeps neither its value (the cache does) nor what it was made from."""
    made_from = [0] * 1000
    value = ("made", len(made_from))
    step = steps.start(("held only in the cache", uuid.uuid4().hex), lambda: (made_from, value)[1])
    assert step.wait(HANG_S)
    assert step._make is None and step._value is None
    assert step.result() == value
    with COMPUTED._lock:  # the cache drops it (its budget, or idle): the step says so, and holds nothing
        COMPUTED._drop(step.key)
    assert step.result() is steps._MISSING


def test_a_step_holds_a_value_too_large_for_the_cache_and_not_one_the_cache_let_go_of(monkeypatch):
    from explainer.app.caching import BoundedStore

    class LettingGo(BoundedStore):
        def get_or_make(self, key, make):  # kept, then forgotten at once (as the memory guard may)
            value = super().get_or_make(key, make)
            self.discard(key)
            return value

    big = b"x" * 1000
    monkeypatch.setattr(steps, "COMPUTED", BoundedStore(100, 60))
    step = steps.Step(("test", uuid.uuid4().hex), lambda: big).start()
    assert step.wait(HANG_S) and step.result() is big  # over the cache's budget: handed over by the step

    monkeypatch.setattr(steps, "COMPUTED", LettingGo(10_000, 60))
    step = steps.Step(("test", uuid.uuid4().hex), lambda: big).start()
    assert step.wait(HANG_S) and step.result() is steps._MISSING  # asked for again, it is computed again
    assert step._value is None  # and nothing of it stays with a step nobody claims


def test_a_target_like_an_identifier_is_said_before_load_data():
    """Choosing a column of about one value per row as the class is warned of on the form, before Load data."""
    rng = np.random.default_rng(3)
    table = pd.DataFrame({"x0": rng.normal(size=400).round(4), "colour": rng.choice(["a", "b"], 400),
                          "class": rng.choice(["p", "q"], 400)})
    at = AppTest.from_file(APP, default_timeout=HANG_S)
    at.run()
    at.session_state["w_source_kind"] = "Upload a CSV"
    source = app_state.remember_upload(Session(at.session_state), "measure.csv", table.to_csv(index=False).encode())
    at.run()
    settle(at, [])
    assert not any("looks like an identifier" in w.value for w in at.warning)
    at.selectbox(key=app_state.target_key(source)).set_value("x0").run()
    settle(at, [])
    assert any("The target 'x0' looks like an identifier" in w.value for w in at.warning)
    assert "dataset" not in at.session_state or at.session_state["dataset"] is None \
        or at.session_state["dataset"].target != "x0"  # nothing loaded yet
