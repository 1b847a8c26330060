"""The dashboard's plotly figures.  Labels from the data are HTML-escaped (:func:`.text.plot_text`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explainer.app.text import plot_text
from explainer.report.figures import after_clean_up, fitness_figure, thin  # noqa: F401 - one fitness figure for the benchmark and the app

PALETTE = ["#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#eeca3b", "#b279a2", "#ff9da6", "#9d755d"]


def _count_bars(labels, values, *, title: str, xaxis_title: str, color: str, height: int, text=None) -> go.Figure:
    fig = go.Figure(
        go.Bar(
            x=labels,
            y=values,
            text=text,
            textposition="auto" if text is not None else None,
            marker_color=color,
            hovertemplate="%{x}: %{y} rows<extra></extra>",
        )
    )
    fig.update_layout(title=title, xaxis_title=xaxis_title, yaxis_title="rows", height=height,
                      margin=dict(l=10, r=10, t=50, b=10))
    fig.update_xaxes(type="category")
    return fig


def class_distribution_figure(dataset) -> go.Figure:
    counts = dataset.class_counts()
    values = list(counts.values())
    total = max(1, sum(values))
    return _count_bars(
        [plot_text(c) for c in counts], values,
        title=f"Class distribution of '{plot_text(dataset.target)}'", xaxis_title="class",
        color="#4c78a8", height=320, text=[f"{v} ({100 * v / total:.1f}%)" for v in values],
    )


def preview_figure(table: pd.DataFrame, target: str) -> go.Figure:
    """Class counts of ``target`` in a raw table (before loading), at most 30 bars."""
    counts = table[target].astype("string").fillna("(missing)").value_counts().head(30)
    return _count_bars(
        [plot_text(v) for v in counts.index], counts.to_numpy(),
        title=f"Values of '{plot_text(target)}'", xaxis_title="value", color="#9aa5b1", height=280,
    )


def per_class_figure(per_class: pd.DataFrame) -> go.Figure:
    fig = go.Figure()
    x = per_class["class"].map(plot_text)
    fig.add_bar(x=x, y=per_class["covered"], name="covered", marker_color="#4c78a8")
    fig.add_bar(x=x, y=per_class["rows"] - per_class["covered"], name="uncovered", marker_color="#d3d9e0")
    fig.update_layout(barmode="stack", height=300, margin=dict(l=10, r=10, t=30, b=10), yaxis_title="rows",
                      legend=dict(orientation="h", y=1.1))
    fig.update_xaxes(type="category")
    return fig


#: the line of a run, by how many runs of its algorithm came before it (its seeds)
DASHES = ("solid", "dash", "dot", "dashdot", "longdash")


def curves_figure(curves: Sequence[tuple[str, str, Sequence, float | None]], n_rows: int) -> go.Figure:
    """The best feasible fitness per generation of several runs, overlaid: ``(name, algorithm, records, final)``
    each, ``final`` the f* of the run's result (None while it runs), marked at its last generation when the
    clean-up after the loop raised it (the table's figure).  One colour an algorithm, one dash a seed."""
    scale = 100.0 / n_rows if n_rows else 1.0
    fig = go.Figure()
    colours: dict[str, str] = {}
    seen: dict[str, int] = {}
    for name, algorithm, records, final in curves:
        colour = colours.setdefault(algorithm, PALETTE[len(colours) % len(PALETTE)])
        dash = DASHES[seen.get(algorithm, 0) % len(DASHES)]
        seen[algorithm] = seen.get(algorithm, 0) + 1
        if not records:
            continue
        records = thin(records)
        text = plot_text(name)
        fig.add_trace(go.Scatter(
            x=[r.generation for r in records], y=[r.best * scale for r in records],
            mode="lines+markers" if len(records) < 40 else "lines", line=dict(color=colour, width=2, dash=dash),
            cliponaxis=False, name=text, legendgroup=text,
            hovertemplate="generation %{x}: %{y:.2f}%<extra>" + text + "</extra>",
        ))
        marker = after_clean_up(records[-1], final, scale, colour, text + " after clean-up", group=text)
        if marker is not None:
            fig.add_trace(marker)
    fig.update_layout(
        title="Best feasible fitness per generation (a diamond: the result after its clean-up)",
        xaxis_title="generation (or step)",
        yaxis_title="fitness (% of rows)",
        height=380,
        margin=dict(l=10, r=20, t=50, b=10),
    )
    fig.update_xaxes(rangemode="tozero")
    return fig


COMPARE_METRICS = [("coverage %", "{:.2f}%"), ("accuracy %", "{:.2f}%"), ("balanced accuracy %", "{:.2f}%"),
                   ("complexity", "{:.0f}"), ("errors", "{:.0f}"), ("time (s)", "{:.2f}")]


def comparison_dots(frame: pd.DataFrame) -> go.Figure:
    """Coverage, accuracy, balanced accuracy, complexity, errors and time of each run as labelled dots, one
    panel per metric.

    Each axis spans the values themselves (not from 0), so 92 % and 99 % look different,
    and every dot carries its value.
    """
    names = [plot_text(r) for r in frame["run"]]
    fig = make_subplots(rows=1, cols=len(COMPARE_METRICS), subplot_titles=[m for m, _ in COMPARE_METRICS],
                        shared_yaxes=True, horizontal_spacing=0.04)
    for col, (metric, fmt) in enumerate(COMPARE_METRICS, start=1):
        values = frame[metric].astype(float).to_numpy()
        fig.add_trace(
            go.Scatter(
                x=values,
                y=names,
                mode="markers+text",
                text=[fmt.format(v) for v in values],
                textposition="top center",
                marker=dict(size=12, color=[PALETTE[i % len(PALETTE)] for i in range(len(names))]),
                cliponaxis=False,
                showlegend=False,
                hovertemplate="%{y}: %{x}<extra>" + metric + "</extra>",
            ),
            row=1,
            col=col,
        )
        lo, hi = float(np.nanmin(values)), float(np.nanmax(values))
        pad = (hi - lo) * 0.15 or max(abs(hi) * 0.05, 0.5)
        fig.update_xaxes(range=[lo - pad, hi + pad], row=1, col=col)
    # the first run at the top, with room above its dot for its value: the panels' titles sit just above that
    fig.update_yaxes(type="category", range=[len(names) - 0.5, -0.9])
    fig.update_layout(height=140 + 48 * len(names), margin=dict(l=10, r=20, t=40, b=10))
    return fig


def _clickable_layout(fig: go.Figure, title: str, xaxis_title: str, yaxis_title: str, revision: str) -> None:
    """The layout of a chart whose points the analyst clicks (a frontier): title, axes, legend below, selection
    events, and ``revision`` keeping the zoom across redraws."""
    fig.update_layout(
        title=title, xaxis_title=xaxis_title, yaxis_title=yaxis_title, height=340,
        margin=dict(l=10, r=20, t=40, b=10),
        legend=dict(orientation="h", yanchor="top", y=-0.25, xanchor="left", x=0.0),
        clickmode="event+select",
        uirevision=revision,
    )


def frontier_figure(points, n_rows: int, *, complexity_budget: int | None = None, error_budget: int | None = None,
                    best_tree: tuple | None = None, result: tuple[int, float] | None = None,
                    x_max: int | None = None) -> go.Figure:
    """Best coverage (% of rows) at every complexity budget, at one error budget.

    Filled dots are proven optimal, hollow ones the best found.  Marked: the current Bc
    (a vertical line), the best tree (c*, its coverage, e*) and the last run's result.
    Clicking a dot chooses its Bc.
    """
    scale = 100.0 / n_rows if n_rows else 1.0
    fig = go.Figure()
    x = [p.complexity_budget for p in points]
    y = [p.coverage * scale for p in points]
    fig.add_trace(
        go.Scatter(
            x=x,
            y=y,
            mode="lines+markers",
            name=f"best coverage at Be = {error_budget}" if error_budget is not None else "best coverage",
            line=dict(color=PALETTE[0], width=2, shape="hv"),
            marker=dict(size=8, color=[PALETTE[0] if p.proven_optimal else "white" for p in points],
                        line=dict(color=PALETTE[0], width=2)),
            customdata=[[p.n_rules, p.errors, "proven optimal" if p.proven_optimal else "best found"]
                        for p in points],
            hovertemplate="Bc %{x}: %{y:.2f}% with %{customdata[0]} rules, %{customdata[1]} errors "
                          "(%{customdata[2]})<extra></extra>",
            unselected=dict(marker=dict(opacity=1.0)),  # a chosen point only sets Bc; the curve stays whole
            cliponaxis=False,
        )
    )
    if best_tree is not None:
        errors = f", e* = {best_tree[2]}" if len(best_tree) > 2 else ""
        over = " (over this Be)" if len(best_tree) > 2 and error_budget is not None and best_tree[2] > error_budget \
            else ""
        fig.add_trace(go.Scatter(x=[best_tree[0]], y=[best_tree[1] * scale], mode="markers",
                                 name=f"best tree (c* = {best_tree[0]}{errors}){over}",
                                 marker=dict(symbol="star", size=14, color=PALETTE[1]), cliponaxis=False,
                                 hovertemplate=f"best tree: c* = %{{x}}{errors}, %{{y:.2f}}%{over}<extra></extra>"))
    if result is not None:
        fig.add_trace(go.Scatter(x=[result[0]], y=[result[1] * scale], mode="markers", name="last run",
                                 marker=dict(symbol="diamond", size=12, color=PALETTE[2]), cliponaxis=False,
                                 hovertemplate="last run: complexity %{x}, %{y:.2f}%<extra></extra>"))
    if complexity_budget is not None:
        fig.add_vline(x=complexity_budget, line=dict(color=PALETTE[3], dash="dash", width=1.5),
                      annotation_text=f"Bc = {complexity_budget}", annotation_position="bottom right")
    _clickable_layout(fig, "Trade-off frontier: the best coverage at each complexity budget",
                      "complexity budget Bc (conditions)", "coverage f* (% of rows)", "frontier")
    top = max([x_max or 0, *x, complexity_budget or 0, best_tree[0] if best_tree else 0])
    fig.update_xaxes(range=[0, top + 1])
    return fig


# --------------------------------------------------------------------------- the accuracy frontier


def accuracy_front(points) -> list:
    """The candidates no smaller one beats: by conditions, each of a higher held-out accuracy than every
    candidate of fewer (or as many) conditions before it."""
    front, best = [], -np.inf
    for p in sorted(points, key=lambda p: (p.complexity, -p.accuracy)):
        if p.accuracy > best + 1e-12:
            front.append(p)
            best = p.accuracy
    return front


def _candidate_data(points) -> list[list]:
    """What a dot of the accuracy frontier carries: (Bc, Be, form, objective, default?, balanced %, se %, rules,
    Brier score)."""
    return [[p.complexity_budget, p.error_budget, p.form, p.objective, int(p.chosen), 100 * p.balanced_accuracy,
             100 * p.accuracy_se, p.n_rules, p.brier] for p in points]


ACCURACY_HOVER = ("%{x:.1f} conditions, %{customdata[7]:.1f} rules: %{y:.2f}% (accuracy ± %{customdata[6]:.2f}, "
                  "balanced %{customdata[5]:.2f}%, Brier score %{customdata[8]:.3f})<br>Bc = %{customdata[0]}, "
                  "Be = %{customdata[1]}, "
                  "form %{customdata[2]}, objective %{customdata[3]}")


def accuracy_frontier_figure(points, *, n_se: float | None = None, best_candidates=None) -> go.Figure:
    """Held-out accuracy and balanced accuracy (% of the held-out rows) against conditions: the default
    policy's validation curve (:class:`~explainer.pipeline.validation.AccuracyPoint` each).

    Two lines join the candidates no smaller one beats (:func:`accuracy_front`): their accuracy and their
    balanced accuracy.  The other candidates are grey dots, the default (``chosen``) a star.  The band is the
    best mean accuracy ± one standard error, among ``best_candidates`` (indices into ``points``; default every
    point); the dotted line is the floor ``n_se`` standard errors below the best, where the size knob lets
    the smallest candidate above it be the default.  Every dot carries (Bc, Be, form, objective, default?,
    ...) as ``customdata``: a click chooses them.
    """
    points = list(points)
    front = accuracy_front(points)
    on_front = {id(p) for p in front}
    others = [p for p in points if id(p) not in on_front]
    fig = go.Figure()
    for name, values, color, dash in (("held-out accuracy", [p.accuracy for p in front], PALETTE[0], "solid"),
                                      ("balanced accuracy", [p.balanced_accuracy for p in front], PALETTE[1], "dash")):
        fig.add_trace(go.Scatter(
            x=[p.complexity for p in front], y=[100 * v for v in values], mode="lines+markers", name=name,
            line=dict(color=color, width=2, dash=dash), marker=dict(size=8, color=color),
            customdata=_candidate_data(front), hovertemplate=ACCURACY_HOVER.replace("%{y:.2f}%", name + " %{y:.2f}%")
            + "<extra></extra>", unselected=dict(marker=dict(opacity=1.0)), cliponaxis=False))
    fig.add_trace(go.Scatter(
        x=[p.complexity for p in others], y=[100 * p.accuracy for p in others], mode="markers",
        name="other candidates (accuracy)", marker=dict(size=6, color="#b8c0c8"), customdata=_candidate_data(others),
        hovertemplate=ACCURACY_HOVER + "<extra></extra>", unselected=dict(marker=dict(opacity=1.0)),
        cliponaxis=False))
    chosen = [p for p in points if p.chosen]
    if chosen:
        fig.add_trace(go.Scatter(
            x=[p.complexity for p in chosen], y=[100 * p.accuracy for p in chosen], mode="markers",
            name="the default", marker=dict(symbol="star", size=16, color=PALETTE[3]),
            customdata=_candidate_data(chosen), hovertemplate="the default: " + ACCURACY_HOVER + "<extra></extra>",
            unselected=dict(marker=dict(opacity=1.0)), cliponaxis=False))
    pool = [points[i] for i in best_candidates] if best_candidates is not None else points
    if pool:
        best = max(pool, key=lambda p: p.accuracy)
        top, se = 100 * best.accuracy, 100 * best.accuracy_se
        fig.add_hrect(y0=top - se, y1=top + se, fillcolor=PALETTE[0], opacity=0.12, line_width=0)
        # named in the legend, not on the band, where the candidates near the best would hide the words
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name="best ± 1 standard error",
                                 marker=dict(symbol="square", size=12, color=PALETTE[0], opacity=0.25),
                                 hoverinfo="skip"))
        if n_se:
            fig.add_hline(y=top - n_se * se, line=dict(color=PALETTE[3], dash="dot", width=1))
    _clickable_layout(fig, "Held-out accuracy of the candidate explanations", "conditions (mean over the folds)",
                      "held-out accuracy (%)", "accuracy")
    fig.update_xaxes(rangemode="tozero")
    return fig


def accuracy_caption(points, more: int = 10) -> str:
    """What ``more`` conditions than the default buy in held-out accuracy (and what as many fewer cost), from
    the candidates of the curve, in words; empty without a default."""
    default = next((p for p in points if p.chosen), None)
    if default is None:
        return ""
    here = default.complexity
    parts = [f"The default: {here:.1f} conditions, {100 * default.accuracy:.1f} % held-out accuracy."]
    ahead = [p for p in points if here < p.complexity <= here + more]
    best = max(ahead, key=lambda p: (p.accuracy, -p.complexity), default=None)
    if best is None:
        parts.append(f"No candidate has 1 to {more} more conditions than the default.")
    elif round(100 * (best.accuracy - default.accuracy), 1) > 0:
        parts.append(f"Up to {more} more conditions than the default: {100 * (best.accuracy - default.accuracy):+.1f} "
                     f"points held-out accuracy ({100 * best.accuracy:.1f} % with {best.complexity:.1f} conditions, "
                     f"Bc = {best.complexity_budget}).")
    else:
        parts.append(f"Up to {more} more conditions than the default buy no held-out accuracy.")
    behind = [p for p in points if p.complexity <= here - more]
    if behind:
        best = max(behind, key=lambda p: (p.accuracy, -p.complexity))
        parts.append(f"{more} fewer conditions: {100 * (best.accuracy - default.accuracy):+.1f} points at best.")
    return " ".join(parts)
