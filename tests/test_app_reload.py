"""A reload keeps the work: a finished run is shown again at its settings, an interrupted one says so."""

from __future__ import annotations

import pathlib

from streamlit.testing.v1 import AppTest
from waits import HANG_S

from explainer.app import state as app_state

ROOT = pathlib.Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
EXPLAIN = "pages/1_Explain.py"


def _explain_page(**settings) -> AppTest:
    """Iris on the Explain page, with the given widget values (a fresh session)."""
    at = AppTest.from_file(APP, default_timeout=HANG_S)
    at.run()
    at.switch_page(EXPLAIN).run()
    assert not at.exception
    for key, value in settings.items():
        at.session_state[key] = value
    at.run()
    assert not at.exception
    return at


def _reloaded(at: AppTest) -> AppTest:
    """A new session opened at ``at``'s URL (a reload or a copied link)."""
    again = AppTest.from_file(APP, default_timeout=HANG_S)
    for k in at.query_params:
        values = at.query_params[k]
        again.query_params[k] = values if not isinstance(values, list) or len(values) > 1 else values[0]
    again.switch_page(EXPLAIN).run()
    assert not again.exception
    return again


def _infos(at: AppTest) -> list[str]:
    return [i.value for i in at.info]


def _run(at: AppTest):
    next(b for b in at.button if b.label == "Run").click().run()
    return at.session_state["job"]


def test_a_finished_run_is_shown_again_after_a_reload():
    at = _explain_page(w_algorithm="greedy", w_bc=3, w_seed=11)
    job = _run(at)
    job.join(HANG_S)
    assert job.done
    at.run()
    shown = at.session_state["explanation"]
    assert shown is not None
    again = _reloaded(at)
    state = again.session_state
    assert state["explanation"] is not None
    assert state["explanation"].result.rule_indices.tolist() == shown.result.rule_indices.tolist()
    assert state["run_settings"] == at.session_state["run_settings"]
    assert any(h.value == "Result" for h in again.subheader)
    assert app_state.INTERRUPTED not in _infos(again)
    # other settings: nothing kept there, the page asks for a run
    at.session_state["w_seed"] = 12
    at.run()
    other = _reloaded(at)
    assert "explanation" not in other.session_state or other.session_state["explanation"] is None
    assert "Set the budgets and press **Run**." in _infos(other)


def test_a_run_stopped_by_its_page_leaving_says_it_was_interrupted(monkeypatch):
    at = _explain_page(w_algorithm="greedy", w_bc=4, w_seed=23)
    # the page goes away as the run starts: nothing collects its result (the orphan check then stops it)
    monkeypatch.setattr(app_state, "collect_finished", lambda state: None)
    job = _run(at)
    job.stop()
    job.join(HANG_S)
    assert job.done and not job.collected
    monkeypatch.undo()
    again = _reloaded(at)
    assert app_state.INTERRUPTED in _infos(again)
    assert "explanation" not in again.session_state or again.session_state["explanation"] is None
    # pressing Run there starts it again and, once it ends, the note gives way to the result
    job = _run(again)
    job.join(HANG_S)
    again.run()
    assert again.session_state["explanation"] is not None and app_state.INTERRUPTED not in _infos(again)
