"""The Explain page's run: its Run button, what the run does, and the run going on, watched live."""

from __future__ import annotations

import numpy as np
import streamlit as st

from explainer.app import charts, live, pools
from explainer.app import state as app_state
from explainer.app.budgets import page_choice, page_size, pins_in_pool, run_settings
from explainer.app.command_line import command_argv, command_text
from explainer.app.jobs import RunJob
from explainer.app.session import Session
from explainer.app.text import label
from explainer.pipeline import row_weights
from explainer.report import selection_scores
from explainer.rules.pool import RulePool
from explainer.rules.render import render_label
from explainer.selection.settings import RunSettings


def start_run(state: Session, pool_key, run: RunSettings) -> None:
    """on_click of Run (and of the Rules page's Re-run): the worker starts before the page is drawn again, with
    the settings the page showed.

    ``run`` was bound when the button was drawn, so a click while the page is being recomputed (a new pool,
    its new default budgets) runs what the user saw; if the pool has changed since, nothing runs and
    the page asks again.
    """
    if pool_key != state.pool_key:
        state.run_error = "The rule pool changed while the page was drawn: check the budgets and press Run again."
        return
    # a result always belongs to the settings it shows: the old one goes now (put aside, should the run be
    # stopped before it begins)
    app_state.replace_results(state)
    app_state.start_job(state, Session.job, run)


def run_button(state: Session, column, *, running: bool) -> None:
    """Run, bound to the run the page shows (its :class:`RunSettings`, built here once); a click starts it."""
    column.button("Run", type="primary", icon=":material/play_arrow:", disabled=running, width="stretch",
                  key=Session.run.key, on_click=start_run, args=(state, state.pool_key, run_settings(state)))


def is_running(state: Session) -> bool:
    """Whether the Explain page's run is going on."""
    job = state.job
    return job is not None and not job.done


def run_panel(state: Session, pool: RulePool, *, algorithm: str, seed: int, bc: int, be: int, eps: float,
              class_weight: str, n_rows: int) -> None:
    """Run and the line beside it, then the run going on (if any), watched."""
    job = state.job
    running = is_running(state)
    r1, r2 = st.columns([1, 5], vertical_alignment="center")
    run_button(state, r1, running=running)
    if running:  # said in the same place, so the line the page showed before a run never stays greyed
        r2.caption(f"Running {label(job.tasks[0].algorithm)} on the {pool.n_rules} rules with "
                   f"Bc = {job.complexity_budget}, Be = {job.error_budget}, eps = {job.eps:g}"
                   + (", rows weighted by class (balanced)." if job.class_weight == "balanced" else "."))
    else:
        r2.caption(f"Runs {label(algorithm)} on the {pool.n_rules} rules with Bc = {bc}, Be = {be}, eps = {eps:g}"
                   + (", rows weighted by class (balanced)." if class_weight == "balanced" else ".")
                   + pins_phrase(*pins_in_pool(state)))

    if running:
        # drawn in the run that Run's click started the job in (its on_click runs before this run), and before
        # the watch, which holds this run until the job ends: Stop waits for nothing the worker does
        live.stop_button(job, key=Session.stop_run.key)
        live.watch(job, lambda job: charts.fitness_figure(job.records(), n_rows, live=True,
                                                          objective=job.settings.objective) if job.records() else None,
                   chart_key=Session.live_fitness.key, best=lambda rules: best_so_far(pool, job, rules))


def best_so_far(pool: RulePool, job: RunJob, rules: tuple[int, ...]) -> None:
    """The run's best selection so far (pool indices ``rules``), under its chart: what Stop would keep, with
    its accuracy counted as the result's report will count it (:func:`~explainer.report.selection_scores`)."""
    idx = np.asarray(rules, dtype=np.int64)
    if idx.size and idx.max() >= pool.n_rules:  # a pinned rule the pool lacked: shown with the result
        return
    if rules not in job.scored:  # counted once: the page after a Stop draws the same selection again
        weights = row_weights(pool.y, pool.classes, job.class_weight)
        job.scored = {rules: selection_scores(pool.coverage[:, idx], pool.rule_class[idx], pool.y, len(pool.classes),
                                              weights)}
    accuracy, balanced, fallback = job.scored[rules]
    st.caption(f"Best selection so far: {idx.size} rules, {int(pool.lengths[idx].sum())} conditions, accuracy "
               f"{100 * accuracy:.2f} % (balanced {100 * balanced:.2f} %) on the table's rows. The run goes on; "
               "Stop keeps this.")
    text = "".join(pool.rules[i].text + "\n" for i in idx) + f"ELSE CLASS={render_label(pool.classes[fallback])}"
    st.code(text, language=None, wrap_lines=True)


def command_box(state: Session) -> None:
    """The ``explainer explain`` line of the run the page shows (its data, pool and run settings), to copy."""
    ref = state.data_ref
    if not ref:
        return
    asked = state.alternatives_asked is not None and state.alt_k is not None
    argv = command_argv(ref, pools.page_settings(state), run_settings(state), size=page_size(state),
                        policy=page_choice(state),
                        alternatives=(state.alt_k, state.alt_within or 1.0) if asked else None,
                        group_by=state.group_by)
    with st.expander("Same in the command line"):
        st.code(command_text(argv), language="bash", wrap_lines=True)
        if (ref.get("ref") or "").startswith("upload:"):
            st.caption("Run it where the uploaded file is saved, under the same name.")


def pins_phrase(pinned, banned) -> str:
    """" With 2 pinned rules and 1 banned (Rules page)." when a run has some, else nothing."""
    if not pinned and not banned:
        return ""
    parts = [f"{len(pinned)} pinned rule{'s' if len(pinned) != 1 else ''}"] if pinned else []
    parts += [f"{len(banned)} banned" if pinned else f"{len(banned)} banned rule{'s' if len(banned) != 1 else ''}"] \
        if banned else []
    return f" With {' and '.join(parts)} (Rules page)."
