"""The Explain page's run: its Run button, what the run does, and the run going on, watched live."""

from __future__ import annotations

import streamlit as st

from explainer.app import charts, live
from explainer.app import state as app
from explainer.app.budgets import changed_parameters
from explainer.app.jobs import Task
from explainer.app.session import Session
from explainer.app.text import label
from explainer.rules.pool import RulePool


def run_button(state: Session, column, *, running: bool, algorithm: str, seed: int, bc: int, be: int, eps: float,
               class_weight: str) -> None:
    """Run, bound to the settings the page shows; a click starts the run (the settings are built here only)."""

    def start_run(shown: dict) -> None:
        """on_click of Run: the worker starts before the page is drawn again, with the settings the page showed.

        ``shown`` was bound when Run was drawn, so a click while the page is being recomputed (a new pool,
        its new default budgets) runs what the user saw; if the pool has changed since, nothing runs and
        the page asks again.
        """
        if shown["pool_key"] != state.pool_key:
            state.run_error = "The rule pool changed while the page was drawn: check the budgets and press Run again."
            return
        app.forget_results(state)  # a result always belongs to the settings it shows: the old one goes now
        name = shown["algorithm"]
        app.start_job(state, Session.job, [Task(name, shown["seed"])], complexity_budget=shown["bc"],
                      error_budget=shown["be"], eps=shown["eps"], algorithm_params={name: shown["params"]},
                      class_weight=shown["class_weight"])

    shown = {"pool_key": state.pool_key, "algorithm": algorithm, "seed": int(seed), "bc": int(bc), "be": int(be),
             "eps": float(eps), "params": changed_parameters(state, algorithm), "class_weight": class_weight}
    column.button("Run", type="primary", icon=":material/play_arrow:", disabled=running, width="stretch",
                  key=Session.run.key, on_click=start_run, args=(shown,))


def run_panel(state: Session, pool: RulePool, *, algorithm: str, seed: int, bc: int, be: int, eps: float,
              class_weight: str, n_rows: int) -> bool:
    """Run and the line beside it, then the run going on (if any), watched; returns whether one is."""
    job = state.job
    running = job is not None and not job.done
    r1, r2 = st.columns([1, 5], vertical_alignment="center")
    run_button(state, r1, running=running, algorithm=algorithm, seed=seed, bc=bc, be=be, eps=eps,
               class_weight=class_weight)
    if running:  # said in the same place, so the line the page showed before a run never stays greyed
        r2.caption(f"Running {label(job.tasks[0].algorithm)} on the {pool.n_rules} rules with "
                   f"Bc = {job.complexity_budget}, Be = {job.error_budget}, eps = {job.eps:g}"
                   + (", rows weighted by class (balanced)." if job.class_weight == "balanced" else "."))
    else:
        r2.caption(f"Runs {label(algorithm)} on the {pool.n_rules} rules with Bc = {bc}, Be = {be}, eps = {eps:g}"
                   + (", rows weighted by class (balanced)." if class_weight == "balanced" else "."))

    if running:
        live.stop_button(job, key=Session.stop_run.key)
        live.watch(job, lambda job: charts.fitness_figure(job.records(), n_rows, live=True) if job.records() else None,
                   chart_key=Session.live_fitness.key)
    return running
