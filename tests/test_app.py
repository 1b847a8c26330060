"""The Streamlit dashboard, page by page, with streamlit.testing (no browser)."""

from __future__ import annotations

import pathlib
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest
from waits import HANG_S

from explainer.app import budgets, downloads, rows, sources
from explainer.app import state as app_state
from explainer.app.session import Session
from explainer.app.text import algorithm_parameters, md_escape
from explainer.data import DataError, load_dataset, sample_datasets
from explainer.pipeline import resolve_budgets
from explainer.rules.defaults import DEFAULT_DEPTH
from explainer.selection.problem import SelectionProblem
from explainer.selection.solvers import available

ROOT = pathlib.Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
BAD = ROOT / "tests" / "bad_inputs"


def pick_algorithm() -> str:
    names = available()
    for name in ("qga", "rfhc", "greedy"):
        if name in names:
            return name
    pytest.skip("no selection algorithm is installed yet")


def new_app() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=HANG_S)
    at.run()
    assert not at.exception
    return at


def load_iris(at: AppTest) -> AppTest:
    at.switch_page("app.py").run()
    at.session_state["w_source_kind"] = "Bundled sample"
    at.session_state["w_sample"] = "iris"
    at.run()
    button(at, "Load data").click().run()
    assert not at.exception
    assert at.session_state["dataset"].name == "iris"
    return at


def button(at: AppTest, label: str):
    for b in at.button:
        if b.label == label:
            return b
    raise AssertionError(f"no button {label!r}; have {[b.label for b in at.button]}")


def metric_values(at: AppTest) -> dict:
    return {m.label: m.value for m in at.metric}


def wait_job(at: AppTest, key: str, timeout: float = HANG_S) -> None:
    """The page watches its job until it ends (one fragment run); draw the result once more."""
    job = at.session_state[key]
    job.join(timeout)
    assert job.done, "the run did not finish in time"
    at.run()
    assert not at.exception


@pytest.fixture(scope="module")
def explained():
    """An app with Iris loaded, the pool built and one run finished."""
    algorithm = pick_algorithm()
    at = load_iris(new_app())
    at.switch_page("pages/1_Explain.py").run()
    assert not at.exception
    at.session_state["w_algorithm"] = algorithm
    at.session_state["w_bc"] = 3
    at.run()
    button(at, "Run").click().run()
    wait_job(at, "job")
    return at


# ------------------------------------------------------------------ Data page


def test_data_page_loads_a_sample_and_shows_columns():
    at = load_iris(new_app())
    values = metric_values(at)
    assert values["Rows"] == "150" and values["Classes"] == "3"
    kinds = at.dataframe[0].value
    assert list(kinds["column"]) == ["sepal_length", "sepal_width", "petal_length", "petal_width", "class"]
    assert set(kinds["treated as"]) == {"numeric", "target"}
    assert not at.error


@pytest.mark.slow
def test_column_overrides_are_applied():
    at = new_app()
    at.session_state["w_sample"] = "iris"
    at.run()
    exclude = next(m for m in at.multiselect if m.label == "Exclude")
    exclude.set_value(["sepal_width"])
    button(at, "Load data").click().run()
    ds = at.session_state["dataset"]
    assert "sepal_width" not in ds.feature_names and ds.n_features == 3


@pytest.mark.slow
def test_good_upload_replaces_data():
    at = load_iris(new_app())
    at.session_state["w_source_kind"] = "Upload a CSV"
    at.session_state["upload"] = sources.upload_source("wine.csv", sample_datasets()["wine"].read_bytes())
    at.run()
    button(at, "Load data").click().run()
    assert not at.error
    assert at.session_state["dataset"].name == "wine"


def test_upload_handling_function_with_bytes():
    data = sample_datasets()["iris"].read_bytes()
    ds = sources.load_upload("iris.csv", data)
    assert ds.n_rows == 150 and ds.fingerprint == load_dataset(sample_datasets()["iris"]).fingerprint
    with pytest.raises(DataError):
        sources.load_upload("x.csv", (BAD / "one_class.csv").read_bytes())
    state = Session({})
    assert app_state.load_into(state, sources.upload_source("iris.csv", data))[0]
    ok, message = app_state.load_into(state, sources.upload_source("bad.csv", (BAD / "binary_nul.csv").read_bytes()))
    assert not ok and message and state.dataset.n_rows == 150


# ------------------------------------------------------------------ Explain page


def test_explain_page_needs_data():
    at = new_app()
    at.switch_page("pages/1_Explain.py").run()
    assert not at.exception and at.info


def test_pool_and_budget_defaults_are_the_engines():
    at = new_app()
    at.switch_page("pages/1_Explain.py").run()
    pool = at.session_state["pool"]
    best = pool.best_tree()
    values = metric_values(at)
    assert values["Rules in the pool (M)"] == str(pool.n_rules)
    assert values["Best tree c* / e*"] == f"{best.complexity} / {best.errors}"
    assert (at.session_state["w_bc"], at.session_state["w_be"]) == resolve_budgets(pool)  # the engine's defaults
    key = at.session_state["pool_key"]
    at.session_state["w_eps"] = 0.5  # another widget: no rebuild
    at.run()
    assert at.session_state["pool"] is pool and at.session_state["pool_key"] == key
    frontier = at.session_state["frontier"]
    if frontier.job is not None:
        frontier.job.stop()


def test_run_gives_history_and_summary_cards(explained):
    at = explained
    ex = at.session_state["explanation"]
    assert ex.result.history, "no fitness history"
    assert ex.result.complexity <= 3
    labels = [m.label for m in at.metric]
    for wanted in ("Accuracy", "Balanced accuracy", "Coverage f*", "Complexity", "Errors", "Rules", "Complexity c*"):
        assert wanted in labels
    # each total alone as the value (short enough for a narrow column), its budget under it
    metrics: dict = {}
    for m in at.metric:  # the selection's first, then the best tree's under the same labels
        metrics.setdefault(m.label, m)
    bc, be = ex.result.complexity_budget, ex.result.error_budget
    assert (metrics["Complexity"].value, metrics["Complexity"].delta) == (str(ex.result.complexity), f"budget {bc}")
    assert (metrics["Errors"].value, metrics["Errors"].delta) == (str(ex.result.errors), f"budget {be}")
    for name in ("Accuracy", "Balanced accuracy", "Coverage f*"):  # a difference from the tree, never "+0.00"
        delta = metrics[name].delta
        assert delta == "as the tree" or (delta.endswith(" pp vs tree") and delta[1:5] != "0.00"), (name, delta)
    assert any(md_escape(f"Found in {ex.result.time_s:.2f} s") in c.value for c in at.caption)
    assert any(c.value.strip() == ex.report.rules_text().strip() for c in at.code)


def test_a_result_at_other_budgets_than_the_forms_says_so(explained):
    at = explained
    at.switch_page("pages/1_Explain.py").run()
    ex = at.session_state["explanation"]
    bc, be = ex.result.complexity_budget, ex.result.error_budget

    def said():
        return [i.value for i in at.info if i.value.startswith("This result is the run at")]

    assert not said()
    at.session_state["w_bc"] = bc + 1
    at.run()
    assert said() == [f"This result is the run at Bc = {bc}, Be = {be}; the budgets above are now Bc = {bc + 1}, "
                      f"Be = {at.session_state['w_be']}: press **Run** for them."]
    at.session_state["w_bc"] = bc
    at.run()
    assert not said()


def test_rules_of_one_side_have_their_coverage_shown_without_the_trees(explained):
    """Rules for the classes other than the fallback class cover only their rows: their f* beside a tree's, which
    covers every row, read as a loss of 75 points on the census table; their accuracy is what compares."""
    at = explained
    at.switch_page("pages/1_Explain.py").run()
    bc, be = at.session_state["w_bc"], at.session_state["w_be"]
    at.session_state["accuracy_pick"] = (bc, be, "fallback", "coverage")  # a click on the accuracy frontier
    at.session_state["w_algorithm"] = "greedy"
    at.run()
    button(at, "Run").click().run()
    wait_job(at, "job")
    ex = at.session_state["explanation"]
    assert ex.report.settings["form"] == "fallback"
    metrics: dict = {}
    for m in at.metric:
        metrics.setdefault(m.label, m)
    assert not metrics["Coverage f*"].delta
    assert metrics["Accuracy"].delta == "as the tree" or metrics["Accuracy"].delta.endswith(" pp vs tree")


@pytest.mark.slow
def test_bad_pool_setting_keeps_state(explained):
    at = explained
    at.switch_page("pages/1_Explain.py").run()
    ex = at.session_state["explanation"]
    at.session_state["w_bc"] = 2
    at.switch_page("pages/2_Rules.py").run()
    at.switch_page("pages/1_Explain.py").run()
    assert at.session_state["w_bc"] == 2  # widget values survive a page switch
    assert at.session_state["explanation"] is ex
    at.session_state["w_bc"] = 3
    at.run()


# ------------------------------------------------------------------ Rules page


def test_rules_page_table_conflicts_and_uncovered(explained):
    at = explained
    at.switch_page("pages/2_Rules.py").run()
    assert not at.exception
    report = at.session_state["explanation"].report
    table = at.dataframe[0].value
    assert list(table["IF-THEN"]) == [r.text for r in report.rules]
    assert {"class", "length", "support", "errors", "precision", "conflicts", "in conflict",
            "rows via missing"} <= set(table.columns)
    assert table["rows via missing"].tolist() == [0] * report.n_rules  # iris has no gaps
    assert any(x.value.startswith(f"ELSE CLASS={report.fallback}") for x in at.text)  # the fallback beside the rules
    assert any(m.label == "Accuracy" for m in at.metric)
    headers = [h.value for h in at.subheader]
    assert {"Selected rules", "Inspect a rule", "Coverage per class", "Rows no rule covers"} <= set(headers)


def test_rules_page_without_a_run():
    at = load_iris(new_app())
    at.switch_page("pages/2_Rules.py").run()
    assert not at.exception and at.info


# ------------------------------------------------------------------ Compare page


def test_compare_page_runs_several_algorithms(explained):
    at = explained
    at.switch_page("pages/3_Compare.py").run()
    assert not at.exception
    # the runs share the Explain page's form and objective, and the page says which
    objective = at.session_state["explanation"].report.settings["objective"]  # the last run: at the defaults
    assert md_escape(budgets.OBJECTIVE_TEXT[objective]) in at.caption[0].value
    fast = [n for n in ("greedy", "rfhc", "exact") if n in available()]
    at.session_state["w_cmp_algorithms"] = fast
    at.session_state["w_cmp_seeds"] = "0, 1"
    at.run()
    button(at, "Run all").click().run()
    wait_job(at, "compare_job")
    table = at.dataframe[0].value
    assert len(table) == sum(2 if n == "rfhc" else 1 for n in fast)
    assert (table["status"] != "failed").all()
    if "exact" in fast:
        assert "gap to optimum (pp)" in table.columns
        assert (table["gap to optimum (pp)"] >= -1e-9).all()


def test_a_stopped_comparison_lists_the_runs_it_skipped_apart_and_no_exact_gap_it_never_tried(explained):
    """The runs after a stop have no figures: they are named in the stop's warning, not rows of "None"s; the
    exact solver's "no proof" caption comes only when it ran."""
    from types import SimpleNamespace

    from explainer.app.downloads import comparison_frame, skipped_runs
    from explainer.selection.settings import RunSettings

    done = explained.session_state["explanation"]
    tasks = [RunSettings(complexity_budget=5, error_budget=9, algorithm=a, seed=s)
             for a, s in (("greedy", 1), ("qga", 2), ("exact", None))]
    job = SimpleNamespace(tasks=tasks, explanations=[done, None, None], errors=[None, None, None])
    frame = comparison_frame(job, done.report.n_rows)
    assert list(frame["run"]) == ["Greedy (budgeted max coverage) (seed 1)"] and not frame.isna().any().any()
    assert skipped_runs(job) == ["QGA (nested GA) (seed 2)", "Exact (MILP, HiGHS)"]
    job.errors[1] = "QGA (seed 2): could not run."
    assert list(comparison_frame(job, done.report.n_rows)["status"]) == ["ok", "failed"]
    assert skipped_runs(job) == ["Exact (MILP, HiGHS)"]


@pytest.mark.slow
def test_compare_page_rejects_bad_seeds(explained):
    at = explained
    at.switch_page("pages/3_Compare.py").run()
    at.session_state["w_cmp_seeds"] = "1, two"
    at.run()
    assert at.error and not at.exception
    at.session_state["w_cmp_seeds"] = "0"
    at.run()


# ------------------------------------------------------------------ Export page


def test_export_text_equals_library_rendering(explained):
    at = explained
    at.switch_page("pages/4_Export.py").run()
    assert not at.exception
    ex = at.session_state["explanation"]
    payloads = downloads.export_payloads(ex, at.session_state["dataset"])
    rules = ex.pool.rule_set(ex.result.selection)
    expected = rules.to_text(fallback=ex.report.fallback)  # the rules, then ELSE CLASS=<fallback>
    # the text export: its header (totals, how complexity counts) as comment lines, then the rules
    assert payloads["text"][2].endswith(expected) and expected == ex.report.rules_text()
    assert all(line.startswith("# ") for line in payloads["text"][2][: -len(expected)].splitlines())
    assert expected.splitlines()[-1] == f"ELSE CLASS={ex.report.fallback}"
    assert at.code[0].value.strip() == payloads["text"][2].strip()  # the page shows the file it hands out
    # the CSV: the same header lines, then every rule's metrics and the ELSE row, text cells quoted
    csv_text = payloads["csv"][2]
    head = [line for line in csv_text.splitlines() if line.startswith("# ")]
    assert head == payloads["text"][2].splitlines()[: len(head)] and len(head) >= 2
    assert csv_text == "".join(f"{line}\n" for line in head) + ex.report.to_csv(quote_text=True)
    assert f'"data_fingerprint": "{at.session_state["dataset"].fingerprint}"' in payloads["json"][2]
    sql_lines = [line for line in payloads["sql"][2].splitlines() if not line.startswith("--")]
    assert sql_lines[0].upper().startswith("CASE") and "def predict(row)" in payloads["python"][2]
    assert [c.value.strip() for c in at.code[3:5]] == [payloads["sql"][2].strip(), payloads["python"][2].strip()]
    assert len(at.get("download_button")) == 5


def test_export_evaluates_uploaded_rules(explained):
    at = explained
    at.switch_page("pages/4_Export.py").run()
    text = at.session_state["explanation"].report.rules.to_text()
    at.session_state["rules_upload"] = {"name": "rules.txt", "data": text.encode()}
    at.run()
    assert not at.error and not at.exception
    assert at.dataframe[0].value["IF-THEN"].tolist() == [line for line in text.splitlines() if line]
    for bad in (b"IF nonsense THEN", b"IF petal_width <= 1 THEN CLASS=unicorn", b"IF nope > 1 THEN CLASS=setosa",
                b"\xff\xfe\x00\x00garbage", b""):
        at.session_state["rules_upload"] = {"name": "bad.txt", "data": bad}
        at.run()
        assert at.error, bad
        assert not at.exception
    assert at.session_state["explanation"] is not None


def test_export_reads_a_ripper_rule_list_for_the_class_chosen():
    """A peer's rules on the same page: wittgenstein's form, its class chosen, counted by hand."""
    at = load_iris(new_app())
    at.switch_page("pages/4_Export.py").run()
    # petal_width <= 0.8 is exactly the 50 setosa rows of Iris; 0.8 < petal_width <= 1.75 holds 54 rows,
    # 49 versicolor and 5 virginica
    text = "[[petal_width=<0.8] V [petal_width=0.8-1.75]]"
    at.session_state["rules_upload"] = {"name": "ripper.txt", "data": text.encode()}
    at.run()
    assert not at.exception
    at.selectbox(key="ripper_class").set_value("versicolor").run()  # the class the rules predict is asked
    assert not at.exception and not at.error
    errors = next(m for m in at.metric if m.label == "Errors").value
    # as versicolor: wrong on the 50 setosa rows and on the 5 virginica rows with petal width <= 1.75
    assert errors.split(" / ")[0] == "55"
    at.selectbox(key="ripper_class").set_value("setosa").run()
    assert not at.exception and not at.error
    shown = at.dataframe[-1].value["IF-THEN"].tolist()
    assert shown == ["IF petal_width <= 0.8 THEN CLASS=setosa", "IF 0.8 < petal_width <= 1.75 THEN CLASS=setosa"]
    errors = next(m for m in at.metric if m.label == "Errors").value
    assert errors.split(" / ")[0] == "54"  # as setosa: the 54 rows of the second rule are not setosa


def test_opens_on_a_bundled_sample():
    at = new_app()
    dataset = at.session_state["dataset"]
    assert dataset.name == "iris" and dataset.n_rows == 150


def test_auto_parameters_are_offered_as_zero():
    params = algorithm_parameters("qga")
    assert params["n_population"] == 0 and params["n_generations"] == 100


# ------------------------------------------------------------------ layout, URL state, budgets, analyst views

PAGES = ["app.py", "pages/1_Explain.py", "pages/2_Rules.py", "pages/3_Compare.py", "pages/4_Export.py"]


def test_pages_folder_holds_exactly_the_pages():
    assert sorted(str(p.relative_to(ROOT)) for p in (ROOT / "pages").glob("*.py")) == sorted(PAGES[1:])
    assert [path for path, _, _ in app_state.PAGES] == PAGES


@pytest.mark.parametrize("page", PAGES)
def test_every_page_opens_in_a_fresh_session(page):
    at = AppTest.from_file(APP, default_timeout=HANG_S)
    at.switch_page(page).run()
    assert not at.exception
    assert at.title[0].value == {p: t for p, t, _ in app_state.PAGES}[page]
    links = {link.proto.page for link in at.get("page_link")}  # URL paths: "" is app.py
    assert {"", "Explain", "Rules", "Compare", "Export"} <= links, links


@pytest.mark.slow
def test_settings_live_in_the_url_and_a_reload_restores_them():
    at = new_app()
    at.session_state["w_sample"] = "wine"
    at.run()
    button(at, "Load data").click().run()
    at.switch_page("pages/1_Explain.py").run()
    at.session_state["w_pool_depth"] = 4  # a new pool: its default budgets first
    at.run()
    at.session_state["w_bc"] = 7
    at.session_state["w_be"] = 4
    at.session_state["w_eps"] = 0.5
    at.session_state["w_seed"] = 3
    at.run()
    params = {k: at.query_params[k] for k in at.query_params}
    assert params["data"] == ["sample:wine"] or params["data"] == "sample:wine"
    flat = {k: (v[0] if isinstance(v, list) else v) for k, v in params.items()}
    assert flat["bc"] == "7" and flat["be"] == "4" and flat["eps"] == "0.5" and flat["seed"] == "3"
    assert flat["depth"] == "4" and flat["alg"] == at.session_state["w_algorithm"]

    again = AppTest.from_file(APP, default_timeout=HANG_S)  # a new session: the reload of that URL
    for k, v in flat.items():
        again.query_params[k] = v
    again.switch_page("pages/1_Explain.py").run()
    assert not again.exception
    state = again.session_state
    assert state["dataset"].name == "wine"
    assert (state["w_bc"], state["w_be"], state["w_eps"], state["w_seed"]) == (7, 4, 0.5, 3)
    assert state["pool"].settings["max_depth"] == 4


def test_a_link_to_a_paper_data_set_uses_its_target():
    papers = {s.name: s for s in sources.paper_choices()}
    if "zoo" not in papers:
        pytest.skip("the paper's data sets are not here")
    at = AppTest.from_file(APP, default_timeout=HANG_S)
    at.query_params["data"] = "paper:zoo"
    at.run()
    assert at.session_state["dataset"].target == papers["zoo"].default_target


def test_a_link_with_bad_values_says_so_and_keeps_the_defaults():
    at = AppTest.from_file(APP, default_timeout=HANG_S)
    for k, v in {"data": "sample:iris", "target": "no_such_column", "depth": "100", "trees": "xyz",
                 "eps": "-1", "bc": "abc", "seed": "nan", "holdout": "0.9"}.items():
        at.query_params[k] = v
    at.switch_page("pages/1_Explain.py").run()
    assert not at.exception
    text = " ".join(w.value for w in at.warning)
    for bad in ("depth=100", "trees=xyz", "eps=-1", "bc=abc", "seed=nan", "holdout=0.9", "no_such_column"):
        assert md_escape(bad) in text, bad  # the page shows user text markdown-escaped
    at.run()  # drawn again (a finished step does that): the notices stay until dismissed
    assert any("depth=100" in w.value for w in at.warning)
    button(at, "Dismiss").click().run()
    assert not any("depth=100" in w.value for w in at.warning)
    state = at.session_state
    assert state["dataset"].name == "iris" and state["dataset"].target == "class"  # the default sample

    assert state["w_pool_depth"] == DEFAULT_DEPTH and state["w_eps"] == 1.0 and state["w_pool_source"] == "grid"

@pytest.mark.slow

def test_an_upload_is_restored_while_the_server_keeps_it():
    data = sample_datasets()["loans"].read_bytes()
    at = new_app()
    at.session_state["w_source_kind"] = "Upload a CSV"
    app_state.remember_upload(Session(at.session_state), "my loans.csv", data)  # what the uploader's callback does
    at.run()
    button(at, "Load data").click().run()
    assert at.session_state["dataset"].name == "my loans"
    flat = {k: at.query_params[k] for k in at.query_params}
    flat = {k: (v[0] if isinstance(v, list) else v) for k, v in flat.items()}
    assert flat["data"] == "upload:" + sources.digest(data)[:16] and flat["file"] == "my loans.csv"

    again = AppTest.from_file(APP, default_timeout=HANG_S)
    for k, v in flat.items():
        again.query_params[k] = v
    again.run()
    assert again.session_state["dataset"].name == "my loans" and not again.warning

    gone = AppTest.from_file(APP, default_timeout=HANG_S)
    for k, v in flat.items():
        gone.query_params[k] = v
    gone.query_params["data"] = "upload:" + "0" * 16  # a file this server never saw (or forgot)
    gone.run()
    assert not gone.exception
    assert any("upload it again" in w.value for w in gone.warning)
    assert any("my loans" in w.value for w in gone.warning)


@pytest.mark.slow
def test_budget_inputs_reach_the_whole_pool(explained):
    at = explained
    at.switch_page("pages/1_Explain.py").run()
    pool = at.session_state["pool"]

    def widget(kind, prefix):
        return next(w for w in getattr(at, kind) if str(w.key).startswith(prefix))

    assert widget("number_input", "bc_number_").max == int(pool.lengths.sum())  # every rule: no hidden cap
    # the slider spans the frontier's range (twice the best tree's c*), and stretches to a typed value
    assert widget("slider", "bc_slider_").max == min(int(pool.lengths.sum()), 2 * pool.best_tree().complexity)
    assert widget("number_input", "be_number_").max == at.session_state["dataset"].n_rows
    widget("number_input", "bc_number_").set_value(45).run()
    assert at.session_state["w_bc"] == 45 and widget("slider", "bc_slider_").value == 45
    assert widget("slider", "bc_slider_").max >= 45
    widget("slider", "bc_slider_").set_value(5).run()
    assert at.session_state["w_bc"] == 5 and widget("number_input", "bc_number_").value == 5
    at.session_state["w_bc"] = 3
    at.run()


def test_misclassified_rows_are_every_row_the_explanation_gets_wrong(explained):
    # the rules' vote by hand, else the ELSE class: the table lists every row whose class that is not,
    # the fallback's included, and is as long as accuracy says
    at = explained
    report = at.session_state["explanation"].report
    dataset = at.session_state["dataset"]
    y = [str(v) for v in dataset.y]
    fires = np.array([rule.covers(dataset.X) for rule in report.rules]).reshape(len(report.rules), dataset.n_rows)
    expected, by_fallback = set(), set()
    for i in range(dataset.n_rows):
        votes = [str(report.rules[k].label) for k in np.flatnonzero(fires[:, i])]
        top = max((votes.count(c) for c in set(votes)), default=0)
        winners = sorted({c for c in votes if votes.count(c) == top})
        gets = winners[0] if len(winners) == 1 else str(report.fallback)  # none fires, or a tie
        if gets != y[i]:
            expected.add(i)
            if len(winners) != 1:
                by_fallback.add(i)
    frame = rows.misclassified_frame(dataset, report)
    assert set(frame["row"] - 1) == expected and len(frame) == len(expected)
    assert len(expected) == round(dataset.n_rows * (1 - report.accuracy))
    assert (frame["reason"].isin(["tie -> fallback", "fallback"])).sum() == len(by_fallback)
    assert by_fallback, "the run should leave some rows to a wrong ELSE class"
    at.switch_page("pages/2_Rules.py").run()
    assert "Misclassified rows" in [h.value for h in at.subheader]
    shown = next(d.value for d in at.dataframe if "reason" in d.value.columns)
    assert len(shown) == len(expected) and list(shown["row"]) == list(frame["row"])
    caption = " ".join(c.value for c in at.caption)
    assert f"{len(expected):,} of {dataset.n_rows:,} rows get another class than theirs" in caption
    per_class = next(d.value for d in at.dataframe if "by_fallback" in d.value.columns)
    assert per_class["right"].sum() == dataset.n_rows - len(expected)


def test_result_warnings_say_why_in_words():
    from types import SimpleNamespace

    over = SimpleNamespace(algorithm="forex", complexity=30, errors=9, coverage=-12.0, covered=80,
                           conflicting_pairs=92, total_weight=None)
    text = " ".join(downloads.result_warnings(over, 10, 5, 150, 1.0))
    assert "ignores the budgets" in text and "30 conditions" in text and "9 errors" in text
    assert "negative" in text and "92 conflicts" in text
    fine = SimpleNamespace(algorithm="qga", complexity=4, errors=2, coverage=120.0, covered=120, conflicting_pairs=0,
                           total_weight=None)
    assert downloads.result_warnings(fine, 4, 5, 150, 1.0) == []
    # weighted errors at the budget, a few ulps over it, fit (the selection's tolerance, scaled by the weight)
    weighed = SimpleNamespace(**{**vars(fine), "errors": 0.1 + 0.2, "total_weight": 40.0})
    assert downloads.result_warnings(weighed, 4, 0.3, 150, 1.0) == []
    assert "errors against a budget" in " ".join(downloads.result_warnings(weighed, 4, 0.3 - 1e-6, 150, 1.0))


def test_the_server_answers_its_health_check():
    import subprocess

    from dashboard_server import health, start_dashboard, stop_dashboard

    proc, url = start_dashboard(stdout=subprocess.DEVNULL, timeout=HANG_S)
    try:
        assert health(url) == (200, b"ok")
    finally:
        stop_dashboard(proc)


@pytest.mark.slow
def test_the_library_core_imports_without_streamlit():
    import subprocess
    import sys

    code = ("import sys; import explainer, explainer.cli, explainer.pipeline, explainer.estimator, "
            "explainer.app.jobs, explainer.app.worker; "
            "assert 'streamlit' not in sys.modules, 'streamlit was imported'")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
    outside = [p for p in (ROOT / "explainer").rglob("*.py")
               if "app" not in p.relative_to(ROOT / "explainer").parts and "streamlit" in p.read_text()]
    assert not outside, outside


# ------------------------------------------------------------------ frontier, held-out rows, one row explained


def test_the_frontier_is_drawn_beside_the_budgets_and_a_point_sets_bc(explained):
    from explainer.app.budgets import choose_point

    at = explained
    at.switch_page("pages/1_Explain.py").run()
    entry = at.session_state["frontier"]
    if entry.job is not None:
        entry.job.join(HANG_S)
    at.run()
    assert not at.exception
    entry = at.session_state["frontier"]
    assert entry.result is not None
    pool, be = at.session_state["pool"], at.session_state["w_be"]
    eps = float(at.session_state["w_eps"])
    lo, hi = entry.range
    points = list(entry.result)
    assert [p.complexity_budget for p in points] == list(range(lo, hi + 1))
    coverages = [p.coverage for p in points]
    assert coverages == sorted(coverages)  # a larger budget never covers less
    for p in points:  # each point is what its selection really achieves, within both budgets
        ev = SelectionProblem.from_pool(pool, p.complexity_budget, be, eps=eps).evaluate(p.selection)
        assert ev.coverage == pytest.approx(p.coverage) and ev.complexity <= p.complexity_budget and ev.errors <= be
    # the best coverage at Bc = 1 and 2, by brute force over every selection that fits
    problem_rules = range(pool.n_rules)
    lengths = pool.lengths
    for bc in (1, 2):
        problem = SelectionProblem.from_pool(pool, bc, be, eps=eps)
        best = 0.0
        singles = [i for i in problem_rules if lengths[i] <= bc]
        for i in singles:
            sel = np.zeros(pool.n_rules, dtype=bool)
            sel[i] = True
            ev = problem.evaluate(sel)
            best = max(best, ev.coverage) if ev.feasible else best
            for k in singles:
                if k > i and lengths[i] + lengths[k] <= bc:
                    both = sel.copy()
                    both[k] = True
                    ev = problem.evaluate(both)
                    best = max(best, ev.coverage) if ev.feasible else best
        point = points[bc - lo]
        assert point.coverage <= best + 1e-9
        if point.proven_optimal:
            assert point.coverage == pytest.approx(best)
    charts = at.get("plotly_chart")
    assert any("Trade-off frontier" in e.proto.spec for e in charts)

    state = {"frontier_chart": {"selection": {"points": [{"x": 7, "y": 90.0}]}}, "w_bc": 3, "w_be": be}
    choose_point(Session(state))
    assert state["w_bc"] == 7 and state["w_be"] == be


@pytest.mark.slow
def test_held_out_rows_are_reported_beside_the_training_rows():
    from explainer.report import evaluate_rules

    algorithm = pick_algorithm()
    at = load_iris(new_app())
    at.switch_page("pages/1_Explain.py").run()
    at.session_state["w_pool_holdout"] = 0.2
    at.session_state["w_algorithm"] = algorithm
    at.run()
    split = at.session_state["split"]
    assert len(split.y_test) == 30 and split.train.n_rows == 120
    assert len(set(split.train.X.index)) == 120  # the training rows keep their row numbers
    button(at, "Run").click().run()
    wait_job(at, "job")
    report = at.session_state["explanation"].report
    assert report.n_rows == 120 and report.holdout is not None
    iris = at.session_state["dataset"]
    held = sorted(set(range(150)) - set(split.train.X.index))
    by_hand = evaluate_rules(report.rules, iris.X.iloc[held], iris.y[held])
    assert report.holdout.covered == by_hand.covered and report.holdout.errors == by_hand.errors
    table = at.table[0].value
    assert list(table.columns) == ["training rows", "held-out rows"]
    at.switch_page("pages/2_Rules.py").run()
    assert not at.exception


def test_explain_a_row_shows_the_rules_that_fire(explained):
    at = explained
    at.switch_page("pages/2_Rules.py").run()
    assert not at.exception
    assert "Explain a row" in [h.value for h in at.subheader]
    report = at.session_state["explanation"].report
    dataset = at.session_state["dataset"]
    for row in (0, 60, 120):
        fired, voted = rows.explain_one_row(report, dataset.X.iloc[[row]].reset_index(drop=True))
        by_hand = [k for k, rule in enumerate(report.rules) if rule.covers(dataset.X)[row]]
        assert fired == by_hand
        if not by_hand:
            assert voted is None
        elif len({str(report.rules[k].label) for k in by_hand}) == 1:
            assert str(voted) == str(report.rules[by_hand[0]].label)
    next(n for n in at.number_input if n.key == "w_explain_row").set_value(61).run()
    assert not at.exception
    assert at.session_state["w_explain_row"] == 61
    # the row number belonged to another table: this one's first misclassified row again
    at.session_state["_explain_row_data"] = "the fingerprint of another table"
    at.run()
    wrong = report.wrong_rows().rows
    assert at.session_state["w_explain_row"] == int(rows.row_numbers(dataset)[wrong[0] if len(wrong) else 0]) != 61


#: corpus files the reader or the loader must refuse with a message
REFUSED = {"binary_nul.csv", "one_class.csv", "empty.csv", "ragged_rows.csv", "spreadsheet.xlsx", "data.json"}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(p.name for p in BAD.iterdir()))
def test_every_corpus_file_uploaded_gives_a_page_without_a_traceback(name):
    # the hostile-input corpus through the Data page: a message or a loaded table, never a traceback,
    # and when the file is refused the data loaded before stays
    at = load_iris(new_app())
    before = at.session_state["dataset"]
    at.session_state["w_source_kind"] = "Upload a CSV"
    at.session_state["upload"] = sources.upload_source(name, (BAD / name).read_bytes())
    at.run()
    if not at.error and any(b.label == "Load data" for b in at.button):
        button(at, "Load data").click().run()
    assert not at.exception
    shown = " ".join(e.value for e in [*at.error, *at.warning, *at.info])
    assert "Traceback" not in shown
    if name in REFUSED:
        assert at.error, f"no error shown for {name}"
    if at.error:
        assert at.session_state["dataset"] is before


def test_row_tables_give_uncovered_and_tied_rows_the_fallback_and_say_why():
    import pandas as pd

    from explainer.data import load_dataset
    from explainer.report import evaluate_rules
    from explainer.rules import parse_rules

    frame = pd.DataFrame({"x": [1, 2, 3, 4], "class": ["a", "b", "a", "a"]})
    dataset = load_dataset(frame, target="class")
    rules_ = parse_rules("IF x <= 1 THEN CLASS=b\nIF x <= 2 THEN CLASS=a\nIF x <= 1 THEN CLASS=a\n"
                         "IF x > 1 AND x <= 2 THEN CLASS=b")
    report = evaluate_rules(rules_, dataset.X, dataset.y)
    # row 1: b, a, a fire -> a; row 2: a and b fire -> tie; rows 3 and 4: none fires
    assert rows.voted_texts(report, range(4)) == [
        "a", "a (classes tie: ELSE)", "a (no rule fires: ELSE)", "a (no rule fires: ELSE)"]
    shown = rows.rows_frame(dataset, [1, 2], report)
    assert shown["voted class"].tolist() == ["a (classes tie: ELSE)", "a (no rule fires: ELSE)"]


def test_row_tables_of_some_columns_are_those_columns_of_the_whole_table():
    import pandas as pd

    from explainer.data import load_dataset

    frame = pd.DataFrame({"x": [1.5, None, 3.0, 4.0], "colour": ["red", "blue", None, "red"],
                          "n": [1, 2, 3, 4], "class": ["a", "b", "a", "a"]})
    dataset = load_dataset(frame, target="class")
    whole = rows.rows_frame(dataset, [0, 1, 2])
    assert list(whole.columns) == ["row", "class (true)", "x", "colour", "n"]
    assert whole["colour"].tolist() == ["red", "blue", "(missing)"] and whole["x"].tolist() == ["1.5", "(missing)", "3"]
    for some in (["colour"], ["x", "n"], ["n", "x"], []):
        part = rows.rows_frame(dataset, [0, 1, 2], columns=some)
        shown = [c for c in ["x", "colour", "n"] if c in some]  # in the table's order
        pd.testing.assert_frame_equal(part, whole[["row", "class (true)", *shown]])


def test_class_weight_reaches_the_run_and_balanced_accuracy_is_shown(explained):
    at = explained
    at.switch_page("pages/1_Explain.py").run()
    at.session_state["w_class_weight"] = "balanced"
    at.run()
    assert at.query_params.get("cw") == "balanced"  # kept in the link
    button(at, "Run").click().run()
    wait_job(at, "job")
    ex = at.session_state["explanation"]
    assert at.session_state["run_settings"].class_weight == "balanced"
    assert ex.report.settings["class_weight"] == "balanced" and ex.report.weighted is not None
    assert ex.result.evaluation.total_weight is not None  # the selection weighed the rows
    shown = next(m.value for m in at.metric if m.label == "Balanced accuracy")  # the selection's, before the tree's
    assert shown == f"{100 * ex.report.balanced_accuracy:.2f}%"
    at.switch_page("pages/2_Rules.py").run()
    assert metric_values(at)["Balanced accuracy"] == f"{100 * ex.report.balanced_accuracy:.1f}%"
    at.switch_page("pages/1_Explain.py").run()
    at.session_state["w_class_weight"] = "none"
    at.run()


def test_the_frontier_says_why_a_run_in_the_fallback_form_sits_below_it():
    from types import SimpleNamespace

    from explainer.app import budgets

    def state(classes, objective="coverage"):
        report = SimpleNamespace(settings={"rule_classes": classes, "objective": objective}, fallback="<=50K")
        return SimpleNamespace(explanation=SimpleNamespace(report=report))

    assert budgets._form_note(SimpleNamespace(explanation=None)) == ""
    assert budgets._form_note(state(None)) == ""
    note = budgets._form_note(state([">50K"]))
    assert 'rules for ">50K" only' in note and 'gets "<=50K"' in note  # quoted as the rules quote them
    # a run of the accuracy objective covers fewer rows by design: said too
    note = budgets._form_note(state(None, "accuracy"))
    assert "accuracy objective" in note and "maximises coverage" in note


def test_rules_table_and_rule_detail_say_which_rows_come_through_a_missing_value():
    import pandas as pd

    from explainer.app import rule_cards
    from explainer.report import evaluate_rules
    from explainer.rules import parse_rules, rules_for_data

    # colour is missing on rows 2, 3 and 5; row 6 is green
    frame = pd.DataFrame({"colour": ["red", "blue", None, None, "red", None, "green", "blue"],
                          "class": ["a", "b", "a", "b", "a", "b", "a", "b"]})
    dataset = load_dataset(frame, target="class")
    rules_ = rules_for_data(parse_rules("IF colour not in {red, blue} THEN CLASS=a\nIF colour = red THEN CLASS=a"),
                            dataset.feature_specs, dataset.classes)
    report = evaluate_rules(rules_, dataset.X, dataset.y, feature_specs=dataset.feature_specs)
    table = downloads.rules_table(report)
    assert list(table.columns) == downloads.RULE_COLUMNS
    assert table["rows via missing"].tolist() == [3, 0]
    assert rule_cards.missing_detail(0, report.per_rule[0]) == md_escape(
        "Rule 1 takes 3 rows through a missing colour of its 4: 'colour not in {red, blue}' holds on a missing "
        "colour (3 rows).")
    # rule 1 fires on the b rows 3 and 5 (colour missing); rows 1 and 7 (blue, b) get the ELSE class b
    wrong = report.wrong_rows()
    assert (report.fallback, wrong.rows.tolist()) == ("b", [3, 5])
    caption = rule_cards.wrong_caption([str(r) for r in wrong.reasons], report)
    assert caption == md_escape("2 of 8 rows get another class than theirs (25.0 %, what accuracy counts wrong): "
                                "2 a wrong rule (only rules of another class fire). 'wrong rules' are the rule "
                                "numbers above that fire with another class. Click a row to explain it below.")


def test_only_a_run_of_the_frontiers_own_problem_is_marked_or_lifts_it():
    from explainer.app.budgets import comparable
    from explainer.selection.settings import RunSettings

    run = RunSettings(complexity_budget=5, error_budget=3)
    assert comparable(run, 1.0)
    # the fallback form leaves a class to the ELSE line: its coverage is not a point of the every-rule frontier
    assert not comparable(replace(run, form="fallback"), 1.0)
    assert not comparable(replace(run, class_weight="balanced"), 1.0)  # weighted rows
    assert not comparable(run, 0.5)  # another eps


def test_a_wide_tables_preview_shows_its_first_columns_and_the_target():
    from explainer.app.cards import PREVIEW_COLUMNS, preview_columns

    wide = pd.DataFrame(np.zeros((3, PREVIEW_COLUMNS + 50)), columns=[f"c{i}" for i in range(PREVIEW_COLUMNS + 50)])
    shown = preview_columns(wide, keep=("c140",))
    assert list(shown.columns) == [f"c{i}" for i in range(PREVIEW_COLUMNS - 1)] + ["c140"]
    narrow = wide.iloc[:, :PREVIEW_COLUMNS]
    assert preview_columns(narrow, keep=("c3",)) is narrow


def test_sentences_quote_the_else_class_as_the_rules_do():
    """A label that is not a plain word is quoted in every sentence naming the ELSE class, as in the rules."""
    from explainer.app import rule_cards
    from explainer.report import evaluate_rules
    from explainer.report.exports import export_text
    from explainer.rules import parse_rules, rules_for_data
    from explainer.rules.render import counted

    frame = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6], "class": [">50K", ">50K", "**bold**", "**bold**", ">50K", ">50K"]})
    dataset = load_dataset(frame, target="class")
    rules_ = rules_for_data(parse_rules('IF x in {3, 4} THEN CLASS="**bold**"\nIF x = 5 THEN CLASS="**bold**"'),
                            dataset.feature_specs, dataset.classes)
    report = evaluate_rules(rules_, dataset.X, dataset.y, feature_specs=dataset.feature_specs)
    assert report.fallback == ">50K" and report.rules_text().rstrip().endswith('ELSE CLASS=">50K"')
    text = downloads.accuracy_text(report)
    assert '(ELSE CLASS=">50K")' in text and f"Coverage f* counts the {report.covered} rows" in text
    assert report.conflicting_pairs == 0 and "pair of rules" not in text
    rules_ = rules_for_data(parse_rules('IF x in {3, 4} THEN CLASS="**bold**"\nIF x = 4 THEN CLASS=">50K"'),
                            dataset.feature_specs, dataset.classes)
    clash = evaluate_rules(rules_, dataset.X, dataset.y, feature_specs=dataset.feature_specs)
    assert (clash.covered, clash.conflicting_pairs, clash.coverage) == (2, 1, 1)  # f* = 2 rows - eps x 1 pair
    assert "Coverage f* counts the 2 rows a rule fires on, right or wrong, less eps = 1 for each pair of rules of " \
           "different classes that fire on one row (1 such pair)." in downloads.accuracy_text(clash)
    assert "the ELSE class" not in rule_cards.wrong_caption(["a wrong rule"], report)
    assert md_escape('no rule fires and the ELSE class ">50K" is wrong') in rule_cards.wrong_caption(["fallback"],
                                                                                                      report)
    voted, true = md_escape('">50K"'), md_escape('"**bold**"')
    assert rows.vote_text(">50K", "**bold**") == f"The rules that fire vote for class {voted}; the true class is {true}."
    assert export_text(report, "text").startswith("# 2 rules, ")
    assert (counted(1, "rule"), counted(0, "rule"), counted(2, "rule")) == ("1 rule", "0 rules", "2 rules")
    assert (counted(3, "class"), counted(1, "class"), counted(32561, "row")) == ("3 classes", "1 class", "32,561 rows")


def test_runs_read_the_default_algorithm_before_the_explain_page_drew_its_widget():
    """The Compare page reads the Explain page's run settings before that page drew its algorithm widget (the
    default budgets still under way): the default algorithm, not a traceback."""
    state = Session({"w_bc": 3, "w_be": 1, "w_eps": 1.0, "w_seed": 0, "w_class_weight": "none"})
    assert budgets.run_settings(state).algorithm == pick_algorithm() == state.algorithm
    state.algorithm = "no such algorithm"
    assert budgets.chosen_algorithm(state) == pick_algorithm()


def test_row_tables_show_the_columns_the_rules_read_first():
    from explainer.app import rows
    from explainer.report import evaluate_rules
    from explainer.rules import parse_rules, rules_for_data

    frame = pd.DataFrame({f"c{i}": np.arange(8) % (i + 2) for i in range(6)})
    frame["class"] = ["a", "b"] * 4
    dataset = load_dataset(frame, target="class")
    rules_ = rules_for_data(parse_rules("IF c4 > 2 AND c1 <= 1 THEN CLASS=a\nIF c3 = 0 THEN CLASS=b"),
                            dataset.feature_specs, dataset.classes)
    report = evaluate_rules(rules_, dataset.X, dataset.y, feature_specs=dataset.feature_specs)
    assert rows.rules_first([f"c{i}" for i in range(6)], report) == ["c1", "c4", "c3", "c0", "c2", "c5"]
    table = rows.rows_frame(dataset, [0, 1], report)
    assert list(table.columns)[3:] == ["c1", "c4", "c3", "c0", "c2", "c5"]  # after row, true and voted class
    assert list(rows.rows_frame(dataset, [0, 1]).columns)[2:] == [f"c{i}" for i in range(6)]  # no rules: as read


def test_another_target_for_the_loaded_table_is_a_preview_until_load_data():
    at = load_iris(new_app())
    loaded = at.session_state["dataset"].target
    source = next(s for s in sources.sample_choices() if s.name == "iris")
    other = next(c for c in sources.read_source(source).columns if c != loaded)
    assert not any(h.value == "Preview" for h in at.subheader)
    at.selectbox(key=app_state.target_key(source)).set_value(other).run()
    assert any(h.value == "Preview" for h in at.subheader)
    assert any("Not loaded yet" in c.value for c in at.caption)
    assert at.session_state["dataset"].target == loaded  # still the data in use


@pytest.mark.parametrize("table, target, expected", [
    (pd.DataFrame({"petal width": [0.2, 1.4, 2.1, 0.3], "kind": ["a", "b", "b", "a"]}), "kind",
     'IF "petal width" <= 0.85 THEN CLASS=a'),
    (pd.DataFrame({"colour": ["red", "blue", "red", "green"], "n": [1, 2, 3, 4], "y": [">50K", "<=50K"] * 2}),
     "y", 'IF colour = blue THEN CLASS="<=50K"'),
    (pd.DataFrame({"age": [20, 31, 40, 52, 60], "ok": [True, False, True, False, True]}), "ok",
     'IF age <= 40 THEN CLASS="False"'),  # the grammar's own word, quoted
])
def test_rule_file_example_is_in_the_tables_own_terms_and_reads_back(table, target, expected):
    from explainer.data.datasets import dataset_from_table

    dataset = dataset_from_table(table, target)
    line = downloads.example_rule_line(dataset)
    assert line == expected
    report = downloads.evaluate_rule_text(line, dataset)  # the form's own reader takes it
    assert report.n_rules == 1
