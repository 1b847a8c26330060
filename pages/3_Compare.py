"""Compare page: several algorithms and seeds on the same pool and budgets."""

from dataclasses import replace

import streamlit as st

from explainer.app import budgets, charts, downloads, live
from explainer.app import state as app
from explainer.app.session import Session
from explainer.app.text import algorithm_choices, algorithm_parameters, label, md_escape

state = app.setup("Compare")
st.title("Compare")
dataset = state.dataset
pool = state.pool
if dataset is None or pool is None:
    st.info("Load data and build the rule pool on the Explain page first.", icon=":material/info:")
    st.page_link(app.PAGE_FILES["Explain"], label="Go to the Explain page", icon=":material/psychology:")
    st.stop()

bc = int(state.bc if state.bc is not None else 1)
be = int(state.be if state.be is not None else 0)
eps = float(state.eps)
st.caption(
    f"Same pool ({pool.n_rules} rules) and budgets as the Explain page: Bc = {bc}, Be = {be}, eps = {eps:g}. "
    "Change them there."
)

choices = algorithm_choices()
if state.cmp_algorithms is None:
    state.cmp_algorithms = [n for n in ("qga", "ga", "rfhc", "greedy", "exact") if n in choices] or choices[:2]
else:
    state.cmp_algorithms = [n for n in state.cmp_algorithms if n in choices]
if state.cmp_seeds is None:
    state.cmp_seeds = "0"

job = state.compare_job
running = job is not None and not job.done
DETERMINISTIC = {"forex", "forex_trimmed", "greedy", "exact"}

with st.container(border=True):
    algorithms = st.pills("Algorithms", choices, selection_mode="multi", default=state.cmp_algorithms,
                          key=Session.cmp_algorithms.key, format_func=label)
    c2, c3 = st.columns([5, 1], vertical_alignment="bottom")
    seeds_text = c2.text_input("Seeds (comma-separated)", value=state.cmp_seeds, key=Session.cmp_seeds.key,
                               help="Each randomised algorithm runs once per seed; deterministic ones once.")
    seeds: list[int] = []
    bad_seeds = False
    for part in seeds_text.replace(";", ",").split(","):
        part = part.strip()
        if not part:
            continue
        try:
            seeds.append(int(part))
        except ValueError:
            bad_seeds = True
    if bad_seeds:
        st.error("Seeds must be whole numbers separated by commas, e.g. 0, 1, 2.", icon=":material/error:")
    seeds = list(dict.fromkeys(seeds))[:10] or [0]
    run = budgets.run_settings(state)  # each algorithm with its own defaults
    tasks = [replace(run, algorithm=a, algorithm_params={}, seed=s)
             for a in algorithms for s in (seeds[:1] if a in DETERMINISTIC else seeds)]
    start = c3.button("Run all", type="primary", icon=":material/play_arrow:", key="run_all",
                      disabled=running or not tasks or bad_seeds, width="stretch")
    if "exact" in algorithms:
        limit = algorithm_parameters("exact").get("time_limit")
        if limit:
            st.caption(f"The exact solver runs with its own time limit of {limit:g} s, as from the command line.")
    if start:
        job = app.start_job(state, Session.compare_job, tasks)
        running = not job.done
    elif not running:
        st.caption(f"{len(tasks)} runs, one after the other.")

if running:

    def live_curves(job):
        curves = [(label(t.algorithm) + f" (seed {t.seed})", job.records(i))
                  for i, t in enumerate(job.tasks[: job.current + 1])]
        return charts.curves_figure(curves, job.n_rows)

    live.stop_button(job, key="stop_compare", what="the running algorithm (later runs are skipped)")
    live.watch(job, live_curves, chart_key="live_curves")

if job is not None and job.done:
    for err in job.errors:
        if err:
            st.error(md_escape(err), icon=":material/error:")
    if job.stopped:
        st.warning("Stopped: the running algorithm kept its best selection so far; later runs were skipped.",
                   icon=":material/warning:")
    frame = downloads.comparison_frame(job, job.n_rows)
    done = frame[frame["status"].isin(["ok", "stopped", "optimal", "feasible", "over_budget"])] \
        if "status" in frame else frame
    st.subheader("Results")
    st.caption(f"Bc = {job.complexity_budget}, Be = {job.error_budget}, eps = {job.eps:g}, "
               f"class weight: {job.class_weight or 'none'}")
    show = [c for c in frame.columns if c not in ("algorithm", "seed")]
    st.dataframe(frame[show], hide_index=True, width="stretch")
    if "gap to optimum (pp)" in frame:
        st.caption("Gap to optimum: how much less coverage than the exact solver's proven optimum "
                   "(pp: percentage points of the rows).")
    elif any(t.algorithm == "exact" for t in job.tasks):
        st.caption("The exact solver did not prove optimality, so no gap is shown.")
    if not done.empty:
        st.plotly_chart(charts.comparison_dots(done), width="stretch", key="cmp_dots")
        st.caption("Each panel spans the values themselves (not from 0), so small differences show.")
    curves = [(label(t.algorithm) + f" (seed {t.seed})", ex.result.history)
              for t, ex in zip(job.tasks, job.explanations, strict=True) if ex is not None]
    st.plotly_chart(charts.curves_figure(curves, job.n_rows), width="stretch", key="cmp_curves")
elif not running:
    st.info("Choose algorithms and seeds, then press **Run all**.", icon=":material/info:")
