"""The Explain page's "Other explanations nearly as good" (streamlit.testing, no browser)."""

from __future__ import annotations

from test_app import button, load_iris, new_app, wait_job

from explainer.app import steps
from explainer.app.session import Session
from explainer.pipeline.alternatives import explain_alternatives


def _run(algorithm: str):
    at = load_iris(new_app())
    at.switch_page("pages/1_Explain.py").run()
    at.session_state["w_algorithm"] = algorithm
    at.session_state["w_bc"] = 4
    at.run()
    button(at, "Run").click().run()
    wait_job(at, "job")
    return at


def test_alternatives_side_by_side_with_the_stable_core():
    at = _run("exact")
    at.session_state[Session.alt_k.key] = 2
    at.session_state[Session.alt_within.key] = 5.0
    at.run()
    button(at, "Find them").click().run()
    assert steps.wait_all(120)
    at.run()
    assert not at.exception
    state = at.session_state
    run, data, pool = state["run_settings"], state["explanation_data"], state["pool"]
    truth = explain_alternatives(pool, data.X, data.y, run, state["explanation"].result.selection, 2, 5.0)
    assert truth["alternatives"], "iris at Bc = 4 has rule sets within 5 points"
    codes = [c.value.strip() for c in at.code]
    core = set(truth["stable_core"])
    assert "\n".join(truth["stable_core"]) in codes
    for alt in truth["alternatives"]:
        varying = "\n".join(t for t in alt["rules"] if t not in core)
        assert (varying or "(the stable core only)") in codes
    accuracies = [m.value for m in at.metric if m.label == "Accuracy"]
    for alt in truth["alternatives"]:
        assert f"{100 * alt['accuracy']:.2f}%" in accuracies


def test_alternatives_need_an_exact_or_qga_run():
    at = _run("greedy")
    assert not at.exception
    assert not [b for b in at.button if b.label == "Find them"]
    assert any("Exact (MILP) algorithm" in c.value for c in at.caption)
