"""Compare page: several algorithms and seeds on the same pool and budgets."""

import streamlit as st

from explainer.app import budgets, cards, forms, guards, live
from explainer.app.session import Session
from explainer.app.state import setup, start_job
from explainer.app.text import algorithm_choices, md_escape

state = setup("Compare")
st.title("Compare")
guards.need_pool(state)
pool = state.pool

bc, be, eps = state.bc, state.be, state.eps
st.caption(md_escape(
    f"Same pool ({pool.n_rules} rules), budgets and form as the Explain page: Bc = {bc}, Be = {be}, eps = {eps:g}; "
    f"{budgets.run_form_text(state, budgets.run_settings(state))}. Change them there."
))

job = state.compare_job
running = job is not None and not job.done

with st.container(border=True):
    tasks, start = forms.compare_form(state, algorithm_choices(), running)
    if start:
        job = start_job(state, Session.compare_job, tasks)
        running = not job.done
    elif not running:
        st.caption(f"{len(tasks)} runs, one after the other.")

if running:
    live.stop_button(job, key=Session.stop_compare.key, what="the running algorithm (later runs are skipped)")
    live.watch(job, cards.live_curves, chart_key=Session.live_curves.key)

cards.compare_card(job, running)
