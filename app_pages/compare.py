"""Compare page: several algorithms and seeds on the same pool and budgets."""

import streamlit as st

from explainer import dashboard as db

state = st.session_state

st.title("Compare")
dataset = state.get(db.KEYS["dataset"])
pool = state.get(db.KEYS["pool"])
if dataset is None or pool is None:
    st.info("Load data and build the rule pool on the Explain page first.", icon=":material/info:")
    st.page_link("app_pages/explain.py", label="Go to the Explain page", icon=":material/psychology:")
    st.stop()

bc = int(state.get("w_bc", 1))
be = int(state.get("w_be", 0))
eps = float(state.get("w_eps", 1.0))
st.caption(
    f"Same pool ({pool.n_rules} rules) and budgets as the Explain page: Bc = {bc}, Be = {be}, eps = {eps:g}. "
    "Change them there."
)

choices = db.algorithm_choices()
if "w_cmp_algorithms" not in state:
    state["w_cmp_algorithms"] = [n for n in ("qga", "ga", "rfhc", "greedy", "exact") if n in choices] or choices[:2]
else:
    state["w_cmp_algorithms"] = [n for n in state["w_cmp_algorithms"] if n in choices]
state.setdefault("w_cmp_seeds", "0")

job = state.get(db.KEYS["compare_job"])
running = job is not None and not job.done

with st.container(border=True):
    c1, c2, c3 = st.columns([4, 2, 1], vertical_alignment="bottom")
    algorithms = c1.multiselect("Algorithms", choices, default=state["w_cmp_algorithms"], key="w_cmp_algorithms", format_func=db.label)
    seeds_text = c2.text_input("Seeds (comma-separated)", value=state["w_cmp_seeds"], key="w_cmp_seeds",
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
    deterministic = {"forex", "forex_trimmed", "greedy", "exact"}
    tasks = [
        db.Task(a, s)
        for a in algorithms
        for s in (seeds[:1] if a in deterministic else seeds)
    ]
    start = c3.button("Run all", type="primary", icon=":material/play_arrow:",
                      disabled=running or not tasks or bad_seeds, width="stretch")
    if start:
        job = db.start_job(state, db.KEYS["compare_job"], tasks, complexity_budget=bc, error_budget=be, eps=eps)
        running = not job.done
    elif not running:
        st.caption(f"{len(tasks)} runs.")

if running:

    @st.fragment(run_every=0.4)
    def live_compare(job):
        name = db.label(job.tasks[job.current].algorithm)
        recs = job.records()
        gen = f", generation {recs[-1].generation}" if recs else ""
        p1, p2 = st.columns([5, 1], vertical_alignment="center")
        p1.progress(job.progress(),
                    text=f"Run {job.current + 1} of {len(job.tasks)}: {name}{gen} · {job.elapsed:.1f} s")
        p2.button("Stop", icon=":material/stop:", on_click=job.stop, disabled=job.stopped, key="stop_compare",
                  width="stretch")
        curves = [(db.label(t.algorithm) + f" (seed {t.seed})", job.records(i))
                  for i, t in enumerate(job.tasks[: job.current + 1])]
        st.plotly_chart(db.curves_figure(curves, dataset.n_rows), key="live_curves", width="stretch")
        if job.done:
            st.rerun()

    live_compare(job)

if job is not None and job.done:
    for err in job.errors:
        if err:
            st.error(db.md_escape(err), icon=":material/error:")
    if job.stopped:
        st.warning("Stopped: the running algorithm kept its best selection so far; later runs were skipped.",
                   icon=":material/warning:")
    frame = db.comparison_frame(job, dataset.n_rows)
    done = frame[frame["status"].isin(["ok", "stopped", "optimal", "feasible", "over_budget"])] \
        if "status" in frame else frame
    st.subheader("Results")
    st.caption(f"Bc = {job.complexity_budget}, Be = {job.error_budget}, eps = {job.eps:g}")
    show = [c for c in frame.columns if c not in ("algorithm", "seed")]
    st.dataframe(frame[show], hide_index=True, width="stretch")
    if "gap to optimum (pp)" in frame:
        st.caption("Gap to optimum: how much less coverage than the exact solver's proven optimum "
                   "(pp: percentage points of the rows).")
    elif any(t.algorithm == "exact" for t in job.tasks):
        st.caption("The exact solver did not prove optimality, so no gap is shown.")
    if not done.empty:
        st.plotly_chart(db.comparison_bars(done), width="stretch", key="cmp_bars")
    curves = [(db.label(t.algorithm) + f" (seed {t.seed})", ex.result.history)
              for t, ex in zip(job.tasks, job.explanations, strict=True) if ex is not None]
    st.plotly_chart(db.curves_figure(curves, dataset.n_rows), width="stretch", key="cmp_curves")
elif not running:
    st.info("Choose algorithms and seeds, then press **Run all**.", icon=":material/info:")
