"""Watching a running job from the page: one fragment run for the whole job.

The progress line (algorithm, generation, best so far, elapsed time from the
page's own clock) is rewritten every :data:`TEXT_REFRESH_S`; the chart only
when new generations arrived, and at most every :data:`CHART_REFRESH_S`
(a plotly redraw costs the browser far more than a line of text).  Nothing
else is sent, so the browser stays nearly idle and the solver, in its own
process, keeps its core.  When the job ends, the whole page is drawn again
with the result.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import streamlit as st

from explainer.app.jobs import FrontierJob, Job, RunJob

#: a job that tells its progress (a run's or a frontier's)
_Watched = TypeVar("_Watched", bound=RunJob | FrontierJob)

TEXT_REFRESH_S = 0.5
CHART_REFRESH_S = 2.0
#: How long Stop's click waits for the run to end before the page is drawn (drawn anyway after it).  At
#: 130,000 rows a stopped run ends and hands in its result 0.3-0.5 s after the click: a shorter wait drew the
#: run going on first, then the result (Stop's status 1.89 s after the click, median of five, against 1.36 s).
STOP_WAIT_S = 1.0


def stop_button(job: Job, *, key: str, what: str = "the run") -> None:
    """Stop, drawn outside the watching fragment.

    A click inside a fragment only queues that fragment's next run, which would wait for the
    watch to end; a click outside it interrupts the watch at once (its next line of text), the
    callback stops the job, and the page watches the job to its end again.
    """
    c1, c2 = st.columns([5, 1], vertical_alignment="center")
    c1.caption(f"Stop ends {what} with the best selection found so far.")
    c2.button("Stop", icon=":material/stop:", on_click=_stop, args=(job,), disabled=job.stopped, key=key,
              width="stretch")


def _stop(job: Job) -> None:
    """Stop's callback: the job is told, and given a moment to hand in its best selection before the page
    is drawn (the solvers return within about 0.5 s, :data:`STOP_WAIT_S`), so the page that follows the click
    shows the result rather than the run again and then a second page with the result."""
    job.stop()
    job.wait_for_end(STOP_WAIT_S)


@st.fragment
def watch(job: _Watched, figure: Callable[[_Watched], object | None], *, chart_key: str,
          best: Callable[[tuple[int, ...]], None] | None = None) -> None:
    """The progress line and a live chart (in a container keyed ``chart_key``) until ``job`` ends; with
    ``best``, below them, ``best(rules)`` draws a run's best selection so far each time a better one comes."""
    progress = st.empty()
    chart = st.container(key=chart_key).empty()
    best_box = st.empty() if best is not None else None
    drawn, drawn_at, draws, shown = None, 0.0, 0, None
    while True:
        progress.progress(job.progress(), text=job.status_text())
        if best is not None and best_box is not None and isinstance(job, RunJob):
            rules = job.best_so_far()
            if rules is not None and rules != shown:
                shown = rules
                with best_box.container():
                    best(rules)
        fresh = job.version != drawn
        if fresh and (drawn is None or time.perf_counter() - drawn_at >= CHART_REFRESH_S):
            drawn, drawn_at = job.version, time.perf_counter()
            fig = figure(job)
            if fig is not None:
                # every chart of this fragment run gets its own key: two equal figures drawn in one run
                # (news that did not change the curve) would otherwise share an element id and raise
                draws += 1
                chart.plotly_chart(fig, width="stretch", key=f"{chart_key}_{draws}")
            else:
                chart.caption("The chart starts once the first generation has been evaluated…")
        if job.done:
            break
        if fresh:  # news is waiting for the chart's next turn: only the text moves meanwhile (or the end comes)
            job.wait_for_end(TEXT_REFRESH_S)
        else:
            job.wait_for_news(TEXT_REFRESH_S, since=drawn)
    st.rerun()
