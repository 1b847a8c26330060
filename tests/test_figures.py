"""The one fitness figure of the benchmark and the dashboard."""

from __future__ import annotations

from explainer.report.figures import fitness_figure, thin
from explainer.selection.callbacks import GenerationRecord


def _records(n, max_generations=None):
    return [GenerationRecord(generation=g, min=g, mean=2 * g, max=3 * g, best=3 * g, diversity=1, population=10,
                             elapsed_s=0.1 * g, max_generations=max_generations) for g in range(n)]


def test_generation_zero_is_on_the_axis_and_values_are_percent():
    fig = fitness_figure(_records(1), n_rows=50)
    lo, hi = fig.layout.xaxis.range
    assert lo < 0 < hi  # the initial population (generation 0) is drawn, not cut at 0.5
    by_name = {t.name: t for t in fig.data}
    assert list(by_name["max"].x) == [0]
    recs = _records(5)
    fig = fitness_figure(recs, n_rows=50)
    assert list(fitness_figure(recs, n_rows=50).data[0].y) == [3 * g * 2.0 for g in range(5)]  # max, % of 50 rows
    assert {t.name for t in fig.data} == {"max", "mean", "min", "best feasible"}


def test_records_as_dicts_and_live_axis_runs_ahead():
    recs = [r.to_dict() for r in _records(4, max_generations=100)]
    fig = fitness_figure(recs, n_rows=None, live=True)
    assert fig.layout.yaxis.title.text == "fitness (coverage f*)"
    assert fig.layout.xaxis.range[1] > 3 + 1  # room for the generations still to come
    without_best = [{k: v for k, v in r.items() if k != "best"} for r in recs]
    assert {t.name for t in fitness_figure(without_best).data} == {"max", "mean", "min"}


def test_the_axis_names_what_the_run_maximised():
    """A run of the accuracy objective climbs in rows right, not in coverage: its axis says so."""
    assert fitness_figure(_records(3), n_rows=50).layout.yaxis.title.text == "fitness (coverage f*, % of rows)"
    fig = fitness_figure(_records(3), n_rows=50, objective="accuracy")
    assert fig.layout.yaxis.title.text == "fitness (rows right, % of rows)"


def test_thin_keeps_first_and_last():
    recs = _records(1000)
    out = thin(recs, 50)
    assert len(out) <= 50 and out[0] is recs[0] and out[-1] is recs[-1]
    assert thin(recs[:10], 50) == recs[:10]


def test_a_result_raised_by_its_clean_up_is_marked_where_the_curve_ends():
    """The curve ends at the loop's best; the result after the clean-up is higher: a diamond at the last
    generation shows the figure the tables give, and none when the clean-up changed nothing."""
    recs = _records(4)  # best 0, 3, 6, 9
    fig = fitness_figure(recs, n_rows=50, final=12)
    diamond = [t for t in fig.data if t.name == "after the clean-up"]
    assert len(diamond) == 1 and list(diamond[0].x) == [3] and list(diamond[0].y) == [24.0]
    assert not [t for t in fitness_figure(recs, n_rows=50, final=9).data if t.name == "after the clean-up"]


def test_compared_runs_one_colour_an_algorithm_one_dash_a_seed_and_their_results():
    from explainer.app.charts import curves_figure

    curves = [("QGA (seed 0)", "qga", _records(3), 6), ("QGA (seed 1)", "qga", _records(4), 20),
              ("Greedy (seed 0)", "greedy", _records(2), None)]
    fig = curves_figure(curves, 50)
    lines = {t.name: t for t in fig.data if t.mode != "markers"}
    assert lines["QGA (seed 0)"].line.color == lines["QGA (seed 1)"].line.color != lines["Greedy (seed 0)"].line.color
    assert lines["QGA (seed 0)"].line.dash != lines["QGA (seed 1)"].line.dash
    assert list(lines["QGA (seed 1)"].y) == [3 * g * 2.0 for g in range(4)]  # the best feasible, % of 50 rows
    marks = [t for t in fig.data if t.mode == "markers"]  # only the run whose result is above its curve
    assert len(marks) == 1 and list(marks[0].y) == [40.0] and list(marks[0].x) == [3]


def test_the_compare_dots_leave_room_above_the_first_run_for_its_values():
    """Each dot's value sits above it: the first run's values had run into the panels' titles."""
    import pandas as pd

    from explainer.app.charts import COMPARE_METRICS, comparison_dots

    frame = pd.DataFrame({"run": ["a (seed 0)", "b (seed 1)"], **{m: [1.0, 2.0] for m, _ in COMPARE_METRICS}})
    fig = comparison_dots(frame)
    for axis in ("yaxis", "yaxis2"):
        low, high = fig.layout[axis].range
        assert low == 1.5 and high < -0.5  # reversed: the first run on top, half a row and more of room above it
