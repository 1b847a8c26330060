"""The dashboard's state is what it shows: Run uses the values on the page, results and errors belong to
their run, the held-out share to its data set; live charts never raise (streamlit.testing, no browser)."""

from __future__ import annotations

import pathlib
import re
import threading
import time

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest
from waits import HANG_S

from explainer.app import jobs, live, sources
from explainer.app.jobs import RunJob
from explainer.app.session import FrontierEntry, Session
from explainer.bench.census import census_like
from explainer.selection.solvers import available

ROOT = pathlib.Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")


def button(at: AppTest, label: str):
    for b in at.button:
        if b.label == label:
            return b
    raise AssertionError(f"no button {label!r}; have {[b.label for b in at.button]}")


def run_and_wait(at: AppTest) -> None:
    button(at, "Run").click().run()
    job = at.session_state["job"]
    job.join(HANG_S)
    assert job.done
    at.run()
    assert not at.exception


def stop_frontier(at: AppTest) -> None:
    entry = at.session_state["frontier"] if "frontier" in at.session_state else None
    if entry is not None and entry.job is not None:
        entry.job.stop()


@pytest.fixture
def explain_page():
    if "ga" not in available():
        pytest.skip("ga is not installed")
    at = AppTest.from_file(APP, default_timeout=HANG_S)
    at.run()
    at.switch_page("pages/1_Explain.py").run()
    assert not at.exception
    yield at
    stop_frontier(at)


def test_the_session_accessor_reads_and_writes_the_plain_keys():
    store = {"w_bc": 7}
    state = Session(store)
    assert state.bc == 7 and state.be is None and state.eps == 1.0  # a default, not stored
    state.be = 3
    assert store["w_be"] == 3 and Session.be.key == "w_be" and not state.has(Session.eps)
    state.kept_widgets = {"w_bc": 7}
    state.forget(Session.bc)
    assert "w_bc" not in store and state.kept_widgets == {}
    state.frontier = FrontierEntry(key=("k", 3, 1.0, (1, 5)), range=(1, 5), job=None, result=None)
    assert store["frontier"].range == (1, 5)
    del state.frontier
    assert "frontier" not in store


def test_run_uses_the_budgets_the_page_showed(explain_page):
    at = explain_page
    at.session_state["w_algorithm"] = "greedy" if "greedy" in available() else "ga"
    at.session_state["w_bc"] = 3
    at.run()
    # the value changes behind the page's back (a new pool's defaults computed while the page is greyed)
    at.session_state["w_bc"] = 9
    run_and_wait(at)
    assert at.session_state["job"].complexity_budget == 3
    assert at.session_state["run_settings"].complexity_budget == 3


def test_a_failed_run_leaves_no_old_result_and_its_error_goes_with_the_next_run(explain_page):
    at = explain_page
    at.session_state["w_algorithm"] = "ga"
    at.session_state["w_bc"] = 3
    at.run()
    run_and_wait(at)
    assert at.session_state["explanation"] is not None
    at.session_state["w_param_ga_n_population"] = 0  # a setting the solver cannot run with
    at.run()
    run_and_wait(at)
    assert "explanation" not in at.session_state  # the old result belonged to other settings
    assert any("could not run" in e.value for e in at.error)  # a ValueError: the settings, said as such
    assert not any(s.label == "Coverage f*" for s in at.metric)
    at.session_state["w_param_ga_n_population"] = 20
    at.run()
    run_and_wait(at)
    assert at.session_state["explanation"] is not None and not at.error  # the stale error is gone


@pytest.mark.slow
def test_the_held_out_share_and_results_reset_with_the_data_set(explain_page):
    at = explain_page
    at.session_state["w_pool_holdout"] = 0.3
    at.run()
    assert at.session_state["split"].fraction == pytest.approx(0.3)
    at.session_state["w_algorithm"] = "ga"
    run_and_wait(at)
    assert at.session_state["explanation"] is not None
    at.switch_page("app.py").run()
    at.session_state["w_sample"] = "wine"
    at.run()
    button(at, "Load data").click().run()
    assert at.session_state["dataset"].name == "wine"
    at.switch_page("pages/1_Explain.py").run()
    assert not at.exception
    assert at.session_state["w_pool_holdout"] == 0.0 and at.session_state["split"].X_test is None
    assert "explanation" not in at.session_state


@pytest.mark.slow
def test_a_new_pool_drops_the_old_pools_result(explain_page):
    at = explain_page
    at.session_state["w_algorithm"] = "ga"
    run_and_wait(at)
    assert at.session_state["explanation"] is not None
    at.session_state["w_pool_depth"] = int(at.session_state["w_pool_depth"]) - 1
    at.run()
    assert not at.exception and "explanation" not in at.session_state


def live_script():
    """A page that watches a job whose news never changes its chart: the same figure drawn again and again."""
    import plotly.graph_objects as go
    import streamlit as st

    from explainer.app import live

    class SilentJob:
        """Its version moves (news arrives) but the records, hence the figure, stay the same."""

        def __init__(self):
            self.version = 0
            self.done = False
            self.stopped = False

        def progress(self):
            return min(1.0, self.version / 12)

        def status_text(self):
            return f"news {self.version}"

        def _news(self):
            self.version += 1
            self.done = self.version >= 12

        def wait_for_end(self, timeout):
            self._news()

        def wait_for_news(self, timeout, since=None):
            self._news()

        def stop(self):
            self.stopped = True

    live.CHART_REFRESH_S = 0.0  # redraw at every piece of news
    if not st.session_state.get("watched"):
        st.session_state["watched"] = True
        live.watch(SilentJob(), lambda job: go.Figure(go.Scatter(x=[0, 1], y=[0, 1])), chart_key="live")
    st.write("watched")


def test_a_live_chart_redrawn_with_the_same_figure_never_raises():
    at = AppTest.from_function(live_script, default_timeout=HANG_S)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(m.value == "watched" for m in at.markdown)


def test_the_census_like_table_has_the_shape_it_claims():
    table = census_like(5000, seed=3)
    assert table.shape == (5000, 15)
    assert (table["income"] == ">50K").mean() == pytest.approx(0.24, abs=0.002)
    categorical = [c for c in table.columns if not pd.api.types.is_numeric_dtype(table[c]) and c != "income"]
    assert len(categorical) == 8 and all(2 <= table[c].nunique() <= 40 for c in categorical)
    assert table.isna().any().sum() == 3 and census_like(50, seed=1).equals(census_like(50, seed=1))


@pytest.mark.slow
def test_a_long_live_run_on_a_large_table_never_raises(monkeypatch):
    if "qga" not in available():
        pytest.skip("qga is not installed")
    monkeypatch.setattr(live, "CHART_REFRESH_S", 0.0)  # redraw the chart at every piece of news
    data = census_like(8000, seed=0).to_csv(index=False).encode()
    at = AppTest.from_file(APP, default_timeout=HANG_S)
    at.run()
    at.session_state["w_source_kind"] = "Upload a CSV"
    at.session_state["upload"] = sources.upload_source("census.csv", data)
    at.run()
    button(at, "Load data").click().run()
    assert not at.exception and at.session_state["dataset"].n_rows == 8000
    at.session_state["w_pool_depth"] = 4
    at.switch_page("pages/1_Explain.py").run()
    assert not at.exception
    at.session_state["w_algorithm"] = "qga"
    at.session_state["w_bc"], at.session_state["w_be"] = 12, 100  # tight: no 100 % to end the run early
    at.session_state["w_param_qga_n_generations"] = 10**6
    at.session_state["w_param_qga_early_stopping"] = False
    at.session_state["w_param_qga_stall"] = 10**6
    at.run()

    def press_stop_after(seconds):  # Stop pressed while the page watches (its script run is busy watching)
        deadline = time.time() + HANG_S
        while time.time() < deadline:
            running = [j for j in jobs.LINE.running if isinstance(j, RunJob)]
            # the run has lasted and drawn several generations, however slowly a busy machine computes them
            if running and running[0].elapsed > seconds and len(running[0].records()) > 3:
                running[0].stop()
                return
            time.sleep(0.1)

    threading.Thread(target=press_stop_after, args=(8.0,), daemon=True).start()
    button(at, "Run").click().run()  # the page watches the run to its end inside this script run
    assert not at.exception, [e.value for e in at.exception]
    job = at.session_state["job"]
    job.join(HANG_S)
    assert job.done and len(job.records()) > 3
    at.run()
    assert not at.exception and at.session_state["explanation"].result.status == "stopped"
    stop_frontier(at)


def test_every_algorithm_parameter_the_page_offers_has_its_docstrings_help():
    """The parameters' tooltips come from the solvers' own ``Parameters`` sections (a subclass's from its bases
    for what it inherits), without the code's markup."""
    from explainer.app.text import algorithm_choices, algorithm_parameters, parameter_help

    for name in algorithm_choices():
        helps = parameter_help(name)
        missing = [p for p in algorithm_parameters(name) if not helps.get(p)]
        assert not missing, (name, missing)
        assert not any("``" in text or "module docstring" in text for text in helps.values()), name
    qga = parameter_help("qga")
    shown = {p: qga[p] for p in algorithm_parameters("qga")}
    assert len(set(shown.values())) == len(shown)  # each parameter its own words
    assert not any(re.search(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b", text) for text in shown.values())  # no constant names
    assert qga["stall"].startswith("stop after this many generations")
    assert qga["n_population"].endswith("more than 2 million nonzeros, at least 6.")
