"""The dashboard keeps columns out of the rules (Explain page) and shows the accuracy by group (Rules page)."""

from __future__ import annotations

import pathlib

import pandas as pd
from streamlit.testing.v1 import AppTest
from test_app import button, wait_job
from test_app_reload import _reloaded
from waits import HANG_S

from explainer.report import accuracy_by_group
from explainer.report.exports import export_text
from explainer.rules.forbid import rule_columns

ROOT = pathlib.Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
EXPLAIN = "pages/1_Explain.py"
FORBID = "Columns kept out of the rules"


def _explain_page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=HANG_S)
    at.run()
    at.switch_page(EXPLAIN).run()
    assert not at.exception
    return at



def test_the_multiselect_changes_the_pool_and_the_url():
    at = _explain_page()
    free = at.session_state["pool_key"]
    assert free[1].forbidden == ()
    free_pool = at.session_state["pool"]
    assert any("petal_width" in rule_columns(r) for r in free_pool.rules)
    select = next(m for m in at.multiselect if m.label == FORBID)
    assert select.options == ["sepal_length", "sepal_width", "petal_length", "petal_width"]
    select.set_value(["petal_width", "petal_length"])
    button(at, "Build pool").click().run()
    assert not at.exception
    key = at.session_state["pool_key"]
    assert key != free and set(key[1].forbidden) == {"petal_width", "petal_length"}
    pool = at.session_state["pool"]
    assert pool.n_rules > 0 and not any({"petal_width", "petal_length"} & rule_columns(r) for r in pool.rules)
    assert sorted(at.query_params["forbid"]) == ["petal_length", "petal_width"]
    # a reload (or a copied link) builds the same pool
    again = _reloaded(at)
    assert again.session_state["pool_key"] == key


def test_forbidding_every_column_keeps_none_out_and_says_so():
    at = _explain_page()
    select = next(m for m in at.multiselect if m.label == FORBID)
    select.set_value(list(select.options))
    button(at, "Build pool").click().run()
    assert not at.exception
    assert at.session_state["pool_key"][1].forbidden == ()
    assert any("Every column is kept out" in w.value for w in at.warning)


def test_rules_page_shows_accuracy_by_group_of_the_forbidden_column():
    at = _explain_page()
    next(m for m in at.multiselect if m.label == FORBID).set_value(["petal_width"])
    button(at, "Build pool").click().run()
    at.session_state["w_algorithm"] = "greedy"
    at.run()
    button(at, "Run").click().run()
    wait_job(at, "job")
    at.switch_page("pages/2_Rules.py").run()
    assert not at.exception
    select = next(s for s in at.selectbox if s.label == "Accuracy by group of:")
    assert select.value == "petal_width"  # the column kept out of the rules comes first
    report = at.session_state["explanation"].report
    assert "# forbidden columns: petal_width\n" in export_text(report, "text")  # the Export page's header
    data = at.session_state["dataset"]
    shown = at.dataframe[-1].value if "group" in at.dataframe[-1].value.columns else next(
        d.value for d in at.dataframe if "group" in d.value.columns)
    expected = accuracy_by_group(report, data.X["petal_width"], "petal_width").frame
    assert list(shown["group"]) == list(expected["group"]) and shown["rows"].sum() == data.n_rows
    # another column: its own groups
    select.set_value("sepal_width").run()
    assert not at.exception
    shown = next(d.value for d in at.dataframe if "group" in d.value.columns)
    assert isinstance(shown, pd.DataFrame) and shown["rows"].sum() == data.n_rows
    assert len(shown) <= 8


def test_other_data_starts_with_no_column_kept_out():
    at = _explain_page()
    next(m for m in at.multiselect if m.label == FORBID).set_value(["petal_width"])
    button(at, "Build pool").click().run()
    assert at.session_state["pool_key"][1].forbidden == ("petal_width",)
    at.switch_page("app.py").run()
    at.session_state["w_source_kind"] = "Bundled sample"
    at.session_state["w_sample"] = "wine"
    at.run()
    button(at, "Load data").click().run()
    assert not at.exception and at.session_state["dataset"].name == "wine"
    at.switch_page(EXPLAIN).run()
    assert not at.exception and not at.error
    assert at.session_state["pool_key"][1].forbidden == ()
    assert next(m for m in at.multiselect if m.label == FORBID).value == []
    assert "forbid" not in at.query_params
