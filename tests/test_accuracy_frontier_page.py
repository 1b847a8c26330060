"""The Explain page's explanation size and accuracy frontier (streamlit.testing and the chart's data; no browser)."""

from __future__ import annotations

import json
import pathlib

import plotly.io as pio
import pytest
from streamlit.testing.v1 import AppTest
from waits import HANG_S

from explainer.app import budgets, charts
from explainer.app import state as app_state
from explainer.app.caching import COMPUTED
from explainer.app.session import Session
from explainer.cli import main
from explainer.pipeline import PolicyChoice, default_budgets
from explainer.pipeline.validation import SIZES, AccuracyPoint

ROOT = pathlib.Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")


def _point(complexity, accuracy, se=0.01, balanced=None, bc=None, be=0, form="all", objective="coverage",
           chosen=False, n_rules=None) -> AccuracyPoint:
    return AccuracyPoint(complexity=complexity, accuracy=accuracy, accuracy_se=se,
                         balanced_accuracy=accuracy - 0.05 if balanced is None else balanced,
                         complexity_budget=int(round(complexity)) if bc is None else bc, error_budget=be,
                         error_share=0.0, form=form, objective=objective,
                         n_rules=max(1.0, complexity / 2) if n_rules is None else n_rules, chosen=chosen)


#: a curve of seven candidates: the front is 1 -> 3 -> 8 -> 20 conditions; 5 and 12 are beaten by smaller
#: ones, 9 ties 8's accuracy with more conditions; the default is the one at 8 conditions
CURVE = [
    _point(1.0, 0.60), _point(3.0, 0.80, balanced=0.70), _point(5.0, 0.78), _point(8.0, 0.90, se=0.02, chosen=True),
    _point(9.0, 0.90), _point(12.0, 0.85, form="fallback", objective="accuracy"), _point(20.0, 0.92, se=0.015),
]


def _traces(fig) -> dict:
    return {t.name: t for t in fig.data}


def test_the_chart_draws_every_candidate_once_and_marks_the_default():
    fig = charts.accuracy_frontier_figure(CURVE, n_se=0.5)
    traces = _traces(fig)
    front, balanced = traces["held-out accuracy"], traces["balanced accuracy"]
    assert list(front.x) == [1.0, 3.0, 8.0, 20.0]  # by hand, see CURVE
    assert list(front.y) == pytest.approx([60.0, 80.0, 90.0, 92.0])
    assert list(balanced.x) == list(front.x)
    assert list(balanced.y) == pytest.approx([55.0, 70.0, 85.0, 87.0])
    # the front, by brute force: nothing with fewer or as many conditions is as accurate
    on_front = set(front.x)
    for p in CURVE:
        beaten = any((q.complexity < p.complexity and q.accuracy >= p.accuracy)
                     or (q.complexity == p.complexity and q.accuracy > p.accuracy) for q in CURVE)
        assert (p.complexity in on_front) == (not beaten), p
    # every candidate is a dot of the accuracy (the front or the grey ones), once
    dots = sorted(zip([*front.x, *traces["other candidates (accuracy)"].x],
                      [round(y, 9) for y in (*front.y, *traces["other candidates (accuracy)"].y)], strict=True))
    assert dots == sorted((p.complexity, round(100 * p.accuracy, 9)) for p in CURVE)
    star = traces["the default"]
    assert list(star.x) == [8.0] and list(star.y) == pytest.approx([90.0])
    assert star.customdata[0][:5] == [8, 0, "all", "coverage", 1]
    # the default: on the front lines and its star (the band's legend entry holds no candidate)
    assert sum(row[4] for t in fig.data if t.customdata is not None for row in t.customdata) == 3
    grey = traces["other candidates (accuracy)"]
    twelve = [row for x, row in zip(grey.x, grey.customdata, strict=True) if x == 12.0][0]
    assert twelve[:5] == [12, 0, "fallback", "accuracy", 0]  # what a click on it takes
    # the band: the best (92 %) +- its standard error (1.5 points); the size's floor half of that below
    band = [s for s in fig.layout.shapes if s.type == "rect"][0]
    assert (band.y0, band.y1) == pytest.approx((90.5, 93.5))
    assert list(traces["best ± 1 standard error"].x) == [None]  # named in the legend, not written over the dots
    floor = [s for s in fig.layout.shapes if s.type == "line"][0]
    assert floor.y0 == pytest.approx(92 - 0.75)


def test_the_caption_says_what_ten_more_conditions_buy():
    assert charts.accuracy_caption(CURVE) == (
        "The default: 8.0 conditions, 90.0 % held-out accuracy. Up to 10 more conditions than the default buy "
        "no held-out accuracy.")  # 9 and 12 conditions: 90 % and 85 %; 20 is 12 more
    assert charts.accuracy_caption(CURVE, more=12) == (
        "The default: 8.0 conditions, 90.0 % held-out accuracy. Up to 12 more conditions than the default: +2.0 "
        "points held-out accuracy (92.0 % with 20.0 conditions, Bc = 20).")
    moved = [_point(p.complexity, p.accuracy, chosen=p.complexity == 20.0) for p in CURVE]
    assert charts.accuracy_caption(moved).endswith(
        "No candidate has 1 to 10 more conditions than the default. 10 fewer conditions: -2.0 points at best.")
    assert charts.accuracy_caption([_point(3.0, 0.8)]) == ""  # no default


def test_a_click_on_the_accuracy_frontier_takes_the_candidates_budgets_form_and_objective():
    pool_key = ("accuracy click test", "pool")
    default = PolicyChoice(8, 2, form="fallback", chosen=True, objective="coverage", size="balanced",
                           frontier=tuple(CURVE))
    COMPUTED.put(budgets.defaults_key(pool_key), default)
    store = {"w_bc": 8, "w_be": 2, "w_algorithm": "greedy"}
    state = Session(store)
    state.pool_key = pool_key
    assert (budgets.run_settings(state).form, budgets.run_settings(state).objective) == ("fallback", "coverage")

    row = [12, 0, "fallback", "accuracy", 0, 80.0, 1.0, 6.0]
    store["accuracy_chart"] = {"selection": {"points": [{"x": 12.0, "y": 85.0, "customdata": row}]}}
    budgets.choose_accuracy_point(state)
    run = budgets.run_settings(state)
    assert (run.complexity_budget, run.error_budget, run.form, run.objective) == (12, 0, "fallback", "accuracy")
    state.bc = 13  # away from the clicked budgets: every rule, the paper's coverage
    assert (budgets.run_settings(state).form, budgets.run_settings(state).objective) == ("all", "coverage")

    # the default's dot gives the policy's own budgets (its Be may differ from the curve's on a large table)
    store["accuracy_chart"] = {"selection": {"points": [{"customdata": [8, 0, "all", "coverage", 1]}]}}
    budgets.choose_accuracy_point(state)
    assert (state.bc, state.be, state.accuracy_pick) == (8, 2, None)
    assert budgets.run_settings(state).form == "fallback"
    COMPUTED.discard(budgets.defaults_key(pool_key))


def test_the_size_round_trips_through_the_url():
    assert app_state.url_params(Session({"w_size": "compact"}))["size"] == "compact"
    at = AppTest.from_file(APP, default_timeout=HANG_S)
    at.query_params["size"] = "accurate"
    at.run()
    assert not at.exception and at.session_state["w_size"] == "accurate"
    bad = AppTest.from_file(APP, default_timeout=HANG_S)
    bad.query_params["size"] = "tiny"
    bad.run()
    assert not bad.exception and Session(bad.session_state).size == "balanced"
    assert any("size=tiny" in w.value for w in bad.warning)


# ---------------------------------------------------------------------- the page, on a bundled sample

@pytest.fixture(scope="module")
def loans_page():
    return _sample_page("loans")


def _sample_page(name: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=HANG_S)
    at.run()
    at.session_state["w_source_kind"] = "Bundled sample"
    at.session_state["w_sample"] = name
    at.run()
    next(b for b in at.button if b.label == "Load data").click().run()
    at.switch_page("pages/1_Explain.py").run()
    assert not at.exception and at.session_state["dataset"].name == name
    return at


def _size_control(at: AppTest):
    return next(b for b in at.button_group if b.label == "Explanation size")


def _query(at: AppTest) -> dict:
    return {k: at.query_params[k] for k in at.query_params}


def test_a_new_size_moves_the_budgets_to_the_policys_pick_unless_set_by_hand():
    # wine, where the sizes pick different budgets (on loans all three now take the same 15 conditions)
    at = _sample_page("wine")
    pool = at.session_state["pool"]
    picks = {size: default_budgets(pool, size=size) for size in SIZES}
    assert len({p.complexity_budget for p in picks.values()}) > 1, "the sample should tell the sizes apart"
    assert _size_control(at).value == "balanced"
    for size in ("compact", "accurate", "balanced"):
        _size_control(at).set_value(size).run()
        assert not at.exception
        expected = picks[size]
        assert (at.session_state["w_bc"], at.session_state["w_be"]) == (expected.complexity_budget,
                                                                       expected.error_budget), size
        assert budgets.page_choice(Session(at.session_state)).form == expected.form
        assert _query(at)["size"] == size and _query(at)["bc"] == str(expected.complexity_budget)
    at.session_state["w_bc"] = picks["balanced"].complexity_budget + 3  # by hand
    at.run()
    _size_control(at).set_value("compact").run()
    assert at.session_state["w_bc"] == picks["balanced"].complexity_budget + 3, "a budget set by hand stays"
    # the defaults again: they follow the size
    at.session_state["w_bc"], at.session_state["w_be"] = picks["compact"].complexity_budget, picks["compact"].error_budget
    at.run()
    _size_control(at).set_value("balanced").run()
    assert at.session_state["w_bc"] == picks["balanced"].complexity_budget


def test_a_size_picked_on_another_sizes_curve_is_that_sizes_own_choice(loans_page):
    pool = loans_page.session_state["pool"]
    curve = default_budgets(pool).frontier
    for size in SIZES:
        again, afresh = default_budgets(pool, size=size, curve=curve), default_budgets(pool, size=size)
        assert again.frontier == afresh.frontier and again.size == afresh.size == size
        assert (again.complexity_budget, again.error_budget, again.form, again.objective) == (
            afresh.complexity_budget, afresh.error_budget, afresh.form, afresh.objective)
        assert (again.selection == afresh.selection).all()
        assert [p.chosen for p in again.frontier].count(True) == 1


def test_the_chart_on_the_page_agrees_with_the_command_line(loans_page, capsys):
    at = loans_page
    size = at.session_state["w_size"]
    spec = next(e.proto.spec for e in at.get("plotly_chart") if "Held-out accuracy of the candidate" in e.proto.spec)
    fig = pio.from_json(spec)
    dots = []
    for trace in fig.data:
        if trace.name in ("held-out accuracy", "other candidates (accuracy)"):
            dots += [(round(x, 9), round(y, 9), *row[:5]) for x, y, row in
                     zip(trace.x, trace.y, trace.customdata, strict=True)]
    balanced = _traces(fig)["balanced accuracy"]
    chart_balanced = [(round(x, 9), *row[:4], round(y, 9))
                      for x, y, row in zip(balanced.x, balanced.y, balanced.customdata, strict=True)]

    assert main(["frontier", "loans", "--metric", "accuracy", "--size", size, "--json"]) == 0
    points = json.loads(capsys.readouterr().out)["points"]
    cli = [(round(p["complexity"], 9), round(100 * p["accuracy"], 9), p["complexity_budget"], p["error_budget"],
            p["form"], p["objective"], int(p["chosen"])) for p in points]
    assert sorted(dots) == sorted(cli)
    by_candidate = {(round(p["complexity"], 9), p["complexity_budget"], p["error_budget"], p["form"],
                     p["objective"]): round(100 * p["balanced_accuracy"], 9) for p in points}
    assert chart_balanced and all(by_candidate[dot[:5]] == dot[5] for dot in chart_balanced)
    star = _traces(fig)["the default"]
    chosen = [p for p in points if p["chosen"]]
    assert len(chosen) == 1 and list(star.x) == pytest.approx([chosen[0]["complexity"]])
    caption = " ".join(c.value for c in at.caption)
    assert "more conditions than the default" in caption


def _card_script(pool_key, with_tree):
    from types import SimpleNamespace

    from explainer.app import cards
    from explainer.app.session import Session

    state = Session()
    state.pool_key = pool_key
    pool = SimpleNamespace(best_tree=lambda: object() if with_tree else None)
    cards.accuracy_frontier_card(state, pool, bc=10, be=7)


def test_without_a_validated_curve_the_tab_says_so_in_one_line():
    key = ("accuracy note test", "no tree")
    COMPUTED.put(budgets.defaults_key(key), PolicyChoice(10, 7))  # what the policy uses without a tree
    at = AppTest.from_function(_card_script, args=(key, False), default_timeout=HANG_S).run()
    assert not at.exception and not at.get("plotly_chart")
    assert [c.value for c in at.caption] == ["No held-out accuracy to show: the pool has no reference tree to "
                                             "size the candidates, so the defaults are a fixed guess."]
    # validated, but no candidate held a rule: the curve without a default, and why the defaults are the knee
    unmarked = tuple(_point(p.complexity, p.accuracy) for p in CURVE)
    COMPUTED.put(budgets.defaults_key(key), PolicyChoice(10, 7, frontier=unmarked))
    at = AppTest.from_function(_card_script, args=(key, True), default_timeout=HANG_S).run()
    assert not at.exception and len(at.get("plotly_chart")) == 1
    assert at.caption[0].value.startswith("No candidate kept a rule")
    COMPUTED.discard(budgets.defaults_key(key))


def test_a_link_with_a_size_opens_at_that_sizes_defaults(loans_page):
    expected = default_budgets(loans_page.session_state["pool"], size="compact")
    again = AppTest.from_file(APP, default_timeout=HANG_S)  # a new session: the reload of a link
    again.query_params["data"] = "sample:loans"
    again.query_params["size"] = "compact"
    again.switch_page("pages/1_Explain.py").run()
    assert not again.exception and _size_control(again).value == "compact"
    assert (again.session_state["w_bc"], again.session_state["w_be"]) == (expected.complexity_budget,
                                                                         expected.error_budget)
