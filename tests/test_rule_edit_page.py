"""The Rules page's rule editor (streamlit.testing, no browser): a threshold edited shows the edited rule's
support at once, counted independently on the table's own values; "Keep this edit" records a text that
reads back as the edited rule."""

from __future__ import annotations

import operator
import pathlib

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest
from test_app import button, wait_job
from waits import HANG_S

from explainer.app.rule_edit import KEPT
from explainer.data import sample_datasets
from explainer.rules.binding import rules_for_data
from explainer.rules.editing import rule_parts
from explainer.rules.parse import parse_rule
from explainer.selection.solvers import available

ROOT = pathlib.Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
OPS = {"<=": operator.le, "<": operator.lt, ">": operator.gt, ">=": operator.ge}



@pytest.fixture(scope="module")
def rules_page():
    """Iris loaded, one run finished, the Rules page open."""
    algorithm = next((n for n in ("greedy", "rfhc", "qga") if n in available()), None)
    if algorithm is None:
        pytest.skip("no selection algorithm is installed")
    at = AppTest.from_file(APP, default_timeout=HANG_S)
    at.run()
    at.session_state["w_source_kind"] = "Bundled sample"
    at.session_state["w_sample"] = "iris"
    at.run()
    button(at, "Load data").click().run()
    at.switch_page("pages/1_Explain.py").run()
    at.session_state["w_algorithm"] = algorithm
    at.session_state["w_bc"] = 3
    at.run()
    button(at, "Run").click().run()
    wait_job(at, "job")
    at.switch_page("pages/2_Rules.py").run()
    assert not at.exception
    return at


def _support(frame: pd.DataFrame, conditions) -> int:
    """Rows of the table as read where every (column, op, threshold) holds."""
    mask = pd.Series(True, index=frame.index)
    for column, op, threshold in conditions:
        mask &= OPS[op](frame[column], threshold)
    return int(mask.sum())


def test_an_edited_threshold_shows_its_support_and_is_kept_as_text(rules_page):
    at = rules_page
    frame = pd.read_csv(sample_datasets()["iris"])
    report = at.session_state["explanation"].report
    dataset = at.session_state["explanation_data"] or at.session_state["dataset"]
    index = at.session_state["w_rule_pick"] or 0
    rule = report.rules[index]
    bounds = [c for p in rule_parts(rule) if p.kind == "bounds" for c in p.conditions]
    assert bounds, "iris rules are numeric bounds"
    own = [(c.spec.column, c.op, c.threshold) for c in bounds]
    assert _support(frame, own) == report.per_rule[index].support
    first = bounds[0]
    # a new threshold that moves the support: a value of the column that the old one leaves on the other side
    values = sorted(frame[first.spec.column].unique())
    new = next(v for v in values if _support(frame, [(first.spec.column, first.op, v), *own[1:]])
               != _support(frame, own))
    fields = [n for n in at.number_input if str(n.key).startswith("rule_edit_")]
    assert len(fields) == len(bounds)
    fields[0].set_value(float(new)).run()
    assert not at.exception
    shown = {m.label: m.value for m in at.metric}
    expected = _support(frame, [(first.spec.column, first.op, new), *own[1:]])
    assert shown["Support"] == f"{expected:,}"
    edits = at.session_state["rule_edits"]
    assert edits.report is report and edits.evaluated >= 1

    # a second edit: the explanation's precomputation is not made again
    evaluated = edits.evaluated
    fields = [n for n in at.number_input if str(n.key).startswith("rule_edit_")]
    fields[0].set_value(float(first.threshold)).run()
    assert at.session_state["rule_edits"] is edits and edits.evaluated > evaluated
    assert {m.label: m.value for m in at.metric}["Support"] == f"{report.per_rule[index].support:,}"
    assert button(at, "Keep this edit").disabled  # the rule as it is: nothing to keep

    fields = [n for n in at.number_input if str(n.key).startswith("rule_edit_")]
    fields[0].set_value(float(new)).run()
    button(at, "Keep this edit").click().run()
    assert any(s.value == KEPT for s in at.success)
    kept = at.session_state["pinned_rules"]
    assert len(kept) == 1
    back = rules_for_data([parse_rule(kept[0])], dataset.feature_specs, dataset.classes)[0]
    assert _support(frame, [(c.spec.column, c.op, c.threshold) for c in back.conditions]) == expected
    assert any(t.value == f"Edited: {kept[0]}" for t in at.text)
    assert back.label == rule.label


def test_a_kept_edit_joins_the_pool_and_the_next_run_holds_it(rules_page):
    """After the test above kept an edit: the Explain page's pool is built again with the edited rule, and a run
    there (pinned) selects it."""
    at = rules_page
    kept = at.session_state["pinned_rules"]
    assert kept and at.session_state["edited_rules"] == kept
    at.switch_page("pages/1_Explain.py").run()
    assert not at.exception
    pool = at.session_state["pool"]
    assert kept[0] in {r.text for r in pool.rules}
    assert at.session_state["pool_key"][1].extra_rules == tuple(kept)
    at.session_state["w_bc"] = max(int(at.session_state["w_bc"]), 6)
    at.run()
    button(at, "Run").click().run()
    wait_job(at, "job")
    assert kept[0] in at.session_state["explanation"].report.rules_text()
    assert kept[0] in at.session_state["run_settings"].pinned
