"""Explain page: rule pool, budgets, algorithm, a live run and its summary."""

import streamlit as st

from explainer.app import budgets, cards, forms, guards, pools, runs
from explainer.app.state import collect_finished, setup, sync_url
from explainer.app.text import algorithm_choices

state = setup("Explain")
st.title("Explain")
guards.need_data(state)

# ------------------------------------------------------------------ 1. rule pool
settings = pools.page_settings(state)  # the form's values (its defaults where none is set yet)

with st.container(border=True):
    st.subheader("1 · Rule pool")
    st.caption(
        "CART trees over the paper's hyper-parameter grid (criterion × splitter × max features × depth "
        "1 … D−1); every root-to-leaf path becomes a candidate rule."
    )
    forms.pool_form(state)
    pool = guards.pool_or_stop(state, settings)
    cards.pool_card(state, pool)

# ------------------------------------------------------------------ 2. budgets and algorithm
n_rows = pools.work_data(state).n_rows  # the rows the pool and the runs use
choices = algorithm_choices()
if not choices:
    st.error("No selection algorithm could be loaded.")
    st.stop()
budgets.chosen_algorithm(state)
# the defaults become values (the URL holds values only)
state.eps, state.seed, state.size = state.eps, state.seed, state.size

budget_box = st.container(border=True)
with budget_box:
    st.subheader("2 · Budgets and algorithm")
    defaults = budgets.page_defaults(state, pool)
    if defaults is None:  # being chosen: no budgets, frontier or Run until they are (the page is drawn again)
        st.stop()
    budgets.init_budgets(state, pool, defaults)
    bc_max, be_max = budgets.budget_limits(pool, n_rows)
    sync_url(state)
run_box = st.container(border=True)
# the result's one place, below the run: a run starting empties it at once, where the old result would
# otherwise stay greyed below the live chart until the run ends
results = st.empty()

# ------------------------------------------------------------------ results, drawn first
# A run that has just ended (Stop's click, the watch's last turn) is what changed: its result is drawn
# before the budgets, the frontier and the forms above it are drawn again, so it shows as soon as it is in
collect_finished(state)
running = runs.is_running(state)
if not running:
    with results.container():
        cards.results_card(state, pool, n_rows, running)

with budget_box:
    b1, b2 = st.columns([2, 3], gap="large")
    with b1:
        bc, be = forms.budget_form(state, pool, defaults, bc_max=bc_max, be_max=be_max, n_rows=n_rows)
    with b2:
        cards.frontier_card(state, pool, bc=bc, be=be, bc_max=bc_max, n_rows=n_rows)
    algorithm, eps, seed, class_weight = forms.algorithm_form(state, choices)

# ------------------------------------------------------------------ 3. run
with run_box:
    st.subheader("3 · Run")
    runs.run_panel(state, pool, algorithm=algorithm, seed=seed, bc=bc, be=be, eps=eps, class_weight=class_weight,
                   n_rows=n_rows)
    runs.command_box(state)
