"""Figures shared by the benchmark and the dashboard (plotly; no Streamlit).

:func:`fitness_figure` is the paper's Figure 4: min / mean / max fitness per
generation, with the best feasible coverage found so far.  The benchmark writes
it to HTML for one run per data set; the dashboard draws it live.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

#: Line colours of the fitness curves.
PLOT_COLORS = {"min": "#9aa5b1", "mean": "#4c78a8", "max": "#f58518", "best": "#2ca02c"}

#: A long run is drawn from at most this many generations (first and last kept).
MAX_PLOT_POINTS = 300


def _get(record, key: str):
    return record[key] if isinstance(record, dict) else getattr(record, key)


def thin(records: Sequence, limit: int = MAX_PLOT_POINTS) -> list:
    """At most ``limit`` records, evenly spaced, first and last kept (long runs stay light to draw)."""
    records = list(records)
    if len(records) <= limit:
        return records
    idx = np.unique(np.linspace(0, len(records) - 1, limit).round().astype(int))
    return [records[i] for i in idx]


#: what the fitness counts, by the run's objective (:mod:`explainer.selection.objectives`), as the y axis names it
FITNESS_NAMES = {"coverage": "coverage f*", "accuracy": "rows right"}


def after_clean_up(last, final: float | None, scale: float, colour: str, name: str, *, unit: str = "%",
                   group: str | None = None) -> go.Scatter | None:
    """A diamond at the last generation (record ``last``) marking a result the clean-up after the loop raised
    above the curve's best (``final``); None when it did not."""
    if final is None or final <= _get(last, "best") + 1e-9:
        return None
    return go.Scatter(
        x=[_get(last, "generation")], y=[final * scale], mode="markers", name=name, cliponaxis=False,
        legendgroup=group, showlegend=group is None,
        marker=dict(color=colour, symbol="diamond", size=11, line=dict(color="white", width=1)),
        hovertemplate="the result, after the clean-up: %{y:.2f}" + unit + "<extra>" + (group or "") + "</extra>",
    )


def fitness_figure(records: Sequence, n_rows: int | None = None, *, title: str = "Fitness per generation",
                   height: int = 360, width: int | None = None, live: bool = False,
                   objective: str = "coverage", final: float | None = None) -> go.Figure:
    """min / mean / max fitness (in % of rows when ``n_rows`` is given) per generation: the coverage f* or,
    with ``objective="accuracy"``, the rows the explanation gets right, as the axis says.

    ``records`` are :class:`~explainer.selection.callbacks.GenerationRecord` objects or dicts with the same
    keys; ``best`` (the best feasible coverage so far) is drawn when present.  The x axis starts at
    generation 0 (the initial population); with ``live=True`` it runs ahead of the curve, up to
    the run's last generation, so a growing curve does not rescale at every point.  ``final``: the result's
    fitness, marked at the last generation when the clean-up after the loop raised it above the curve.
    """
    scale = 100.0 / n_rows if n_rows else 1.0
    n_records = len(records)
    records = thin(records)
    gens = [_get(r, "generation") for r in records]
    has_best = bool(records) and (
        "best" in records[0] if isinstance(records[0], dict) else hasattr(records[0], "best")
    )
    fig = go.Figure()
    for name, dash in (("max", None), ("mean", None), ("min", "dot"), ("best", "dash")):
        if name == "best" and not has_best:
            continue
        fig.add_trace(
            go.Scatter(
                x=gens,
                y=[_get(r, name) * scale for r in records],
                mode="lines+markers" if n_records < 40 else "lines",
                name="best feasible" if name == "best" else name,
                line=dict(color=PLOT_COLORS[name], dash=dash, width=2),
                hovertemplate="generation %{x}: %{y:.2f}" + ("%" if n_rows else "") + "<extra>" + name + "</extra>",
            )
        )
    if has_best:
        marker = after_clean_up(records[-1], final, scale, PLOT_COLORS["best"], "after the clean-up",
                                unit="%" if n_rows else "")
        if marker is not None:
            fig.add_trace(marker)
    fig.update_layout(
        title=title,
        xaxis_title="generation",
        yaxis_title=f"fitness ({FITNESS_NAMES[objective]}{', % of rows' if n_rows else ''})",
        height=height,
        width=width,
        template="plotly_white",
        margin=dict(l=10, r=10, t=40, b=10),
        legend=dict(orientation="h", yanchor="top", y=-0.18, xanchor="left", x=0.0),
        uirevision="fitness",
    )
    last = records[-1] if records else None
    max_gen = None
    if last is not None:
        max_gen = last.get("max_generations") if isinstance(last, dict) else getattr(last, "max_generations", None)
    span = None
    if live and max_gen:
        span = min(max_gen, max(2 * _get(last, "generation"), 10))
    elif last is not None:
        span = max(_get(last, "generation"), 2)
    if span is not None:
        fig.update_xaxes(range=[-0.5, span + 0.5])
        if span < 15:  # whole generations only (never a tick per generation on a long axis)
            fig.update_xaxes(dtick=1)
    return fig
