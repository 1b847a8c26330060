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


def _reloaded(at: AppTest, page: str = EXPLAIN) -> AppTest:
    """A new session opened at ``at``'s URL (a reload or a copied link), on ``page``."""
    again = AppTest.from_file(APP, default_timeout=HANG_S)
    for k in at.query_params:
        values = at.query_params[k]
        again.query_params[k] = values if not isinstance(values, list) or len(values) > 1 else values[0]
    again.switch_page(page).run()
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


def test_a_reload_while_the_run_goes_on_takes_the_run_up_and_shows_its_result(monkeypatch):
    from explainer.app import jobs

    at = _explain_page(w_algorithm="greedy", w_bc=7, w_seed=51)
    _held_back(monkeypatch)  # the run waits for a core: it is still going on at the reload
    job = _run(at)
    assert not job.done
    again = _reloaded(at)
    assert again.session_state["job"] is job and not job.done
    assert app_state.INTERRUPTED not in _infos(again)
    monkeypatch.setattr(jobs, "LINE", jobs._Line(1))
    job._line.capacity = 1  # a core comes free: the run the reloaded page took up goes on to its end
    job.join(HANG_S)
    assert job.done
    again.run()
    assert again.session_state["explanation"] is job.explanations[0] is not None
    assert any(h.value == "Result" for h in again.subheader)


def test_a_run_that_ended_with_no_page_to_collect_it_is_shown_after_a_reload(monkeypatch):
    at = _explain_page(w_algorithm="greedy", w_bc=8, w_seed=53)
    monkeypatch.setattr(app_state, "collect_finished", lambda state: None)  # its page went away as it ended
    job = _run(at)
    job.join(HANG_S)
    assert job.done and not job.collected
    monkeypatch.undo()
    again = _reloaded(at)
    again.run()
    assert again.session_state["explanation"] is job.explanations[0] is not None and job.collected
    assert app_state.INTERRUPTED not in _infos(again)


def test_a_run_stopped_by_its_page_leaving_before_it_began_says_it_was_interrupted(monkeypatch):
    at = _explain_page(w_algorithm="greedy", w_bc=4, w_seed=23)
    # the page goes away as the run starts: nothing collects it, and the orphan check stops it before it began
    # (it waits for a core), so nothing of it is left
    monkeypatch.setattr(app_state, "collect_finished", lambda state: None)
    _held_back(monkeypatch)
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


def test_a_finished_run_is_shown_again_after_a_reload_on_the_other_pages():
    at = _explain_page(w_algorithm="greedy", w_bc=5, w_seed=31)
    job = _run(at)
    job.join(HANG_S)
    at.run()
    shown = at.session_state["explanation"].result.rule_indices.tolist()
    rules = _reloaded(at, "pages/2_Rules.py")
    assert rules.session_state["explanation"].result.rule_indices.tolist() == shown
    assert "Run an explanation first (Data → Explain → Run)." not in _infos(rules)
    assert any(h.value == "Selected rules" for h in rules.subheader)
    assert "Last explanation" in [c.value for c in rules.sidebar.caption]  # the sidebar, drawn first, too
    export = _reloaded(at, "pages/4_Export.py")
    assert export.session_state["explanation"].result.rule_indices.tolist() == shown
    assert not [i for i in _infos(export) if i.startswith("Run an explanation first")]
    compare = _reloaded(at, "pages/3_Compare.py")
    assert compare.session_state["pool"] is not None
    assert (compare.session_state["w_bc"], compare.session_state["w_be"]) == (5, at.session_state["w_be"])
    assert not [i for i in _infos(compare) if i.startswith("Load data and build the rule pool")]
    # another seed: no run kept there, so the Rules page asks for one (and builds no pool to find that out)
    at.session_state["w_seed"] = 32
    at.run()
    other = _reloaded(at, "pages/2_Rules.py")
    assert "Run an explanation first (Data → Explain → Run)." in _infos(other)


def _held_back(monkeypatch) -> None:
    """The next job waits for a core (a line of no capacity), so a stop comes before it begins; the live watch,
    which would hold the page's run until the job ends, is left out."""
    from explainer.app import jobs, live

    monkeypatch.setattr(jobs, "LINE", jobs._Line(0))
    monkeypatch.setattr(live, "watch", lambda job, *a, **k: None)


def test_a_run_stopped_before_it_began_leaves_the_result_before_it(monkeypatch):
    from explainer.app.session import Session

    at = _explain_page(w_algorithm="greedy", w_bc=4, w_seed=41)
    first = _run(at)
    first.join(HANG_S)
    at.run()
    before = at.session_state["explanation"]
    settings = at.session_state["run_settings"]
    assert before is not None
    _held_back(monkeypatch)
    at.session_state["w_bc"] = 6
    at.run()
    job = _run(at)
    assert not job.done
    at.button(key=Session.stop_run.key).click().run()
    job.join(HANG_S)
    assert job.done and job.explanations == [None]
    at.run()
    assert not at.exception
    assert at.session_state["explanation"] is before and at.session_state["run_settings"] == settings
    assert app_state.STOPPED_BEFORE_BEGIN in _infos(at)
    assert not at.error
    assert any(h.value == "Result" for h in at.subheader)
    # the next run that ends takes the note away
    monkeypatch.undo()
    job = _run(at)
    job.join(HANG_S)
    at.run()
    assert at.session_state["explanation"] is not before
    assert app_state.STOPPED_BEFORE_BEGIN not in _infos(at)


def test_a_first_run_stopped_before_it_began_says_nothing_was_computed(monkeypatch):
    from explainer.app.session import Session

    at = _explain_page(w_algorithm="greedy", w_bc=4, w_seed=43)
    at.session_state["explanation"] = None  # no result before it (another test's run may be kept at these settings)
    _held_back(monkeypatch)
    job = _run(at)
    at.button(key=Session.stop_run.key).click().run()
    job.join(HANG_S)
    at.run()
    assert "explanation" not in at.session_state or at.session_state["explanation"] is None
    assert [e.value for e in at.error] == ["The run was stopped before it began\\: nothing was computed\\."]
