"""Explain page: rule pool, budgets, algorithm, a live run and its summary."""

import streamlit as st

from explainer.app import budgets, charts, downloads, live, pools
from explainer.app import state as app
from explainer.app.budgets import changed_parameters
from explainer.app.session import Session
from explainer.app.text import (
    algorithm_choices,
    algorithm_parameters,
    default_algorithm,
    label,
    md_escape,
    missing_algorithms,
)

state = app.setup("Explain")
st.title("Explain")
dataset = state.dataset
if dataset is None:
    st.info("Load a data set first.", icon=":material/info:")
    st.page_link(app.PAGE_FILES["Data"], label="Go to the Data page", icon=":material/table_chart:")
    st.stop()

# ------------------------------------------------------------------ 1. rule pool
settings = pools.page_settings(state)  # the form's values (its defaults where none is set yet)

with st.container(border=True):
    st.subheader("1 · Rule pool")
    st.caption(
        "CART trees over the paper's hyper-parameter grid (criterion × splitter × max features × depth "
        "1 … D−1); every root-to-leaf path becomes a candidate rule."
    )
    with st.form("pool_form", border=False):
        c1, c2, c3, c4, c6, c5 = st.columns([3, 2, 2, 2, 2, 2], vertical_alignment="bottom")
        c1.slider("Max depth D", 2, 10, value=state.pool_depth, key=Session.pool_depth.key,
                  help="Trees of depth 1 … D−1.")
        c2.radio("Trees", ["grid", "forest"], index=["grid", "forest"].index(state.pool_source),
                 key=Session.pool_source.key, horizontal=True,
                 format_func={"grid": "CART grid", "forest": "random forest"}.get)
        c3.number_input("Repeats", 1, 10, value=state.pool_repeats, step=1, key=Session.pool_repeats.key,
                        help="How often the grid is trained.")
        c4.number_input("Pool seed", 0, 2**31 - 1, value=state.pool_seed, step=1, key=Session.pool_seed.key)
        shares = sorted({0.0, 0.2, 0.3, float(state.pool_holdout)})
        c6.selectbox("Held-out rows", shares, index=shares.index(float(state.pool_holdout)),
                     key=Session.pool_holdout.key,
                     format_func=lambda f: "none" if f == 0 else f"{100 * f:g} %",
                     help="Rows kept out of the pool and the selection (stratified, seeded by the pool seed); "
                          "the result then shows coverage and accuracy on them beside the training rows.")
        c5.form_submit_button("Build pool", icon=":material/construction:", width="stretch")

    try:
        pool = pools.ensure_pool(state, settings)
        if pool is None:  # being built: its status is on the page, which is drawn again when it is done
            st.stop()
    except Exception as exc:  # keep the earlier pool and results
        st.error("The rule pool could not be built: " + md_escape(exc), icon=":material/error:")
        pool = state.pool
        if pool is None:
            st.stop()
        st.caption("The pool built before stays in use.")

    best = pool.best_tree()
    split = state.split
    if split is not None and split.X_test is not None:
        st.caption(f"The pool and the selection use {split.train.n_rows} training rows; "
                   f"{len(split.y_test)} rows ({100 * split.fraction:g} %) are held out for the check.")
    m1, m2, m3, m4, m5 = st.columns(5)
    m1.metric("Rules in the pool (M)", pool.n_rules)
    m2.metric("Trees", pool.n_trees)
    m3.metric("Paths before de-duplication", pool.n_candidate_rules)
    m4.metric("Best tree c* / e*", f"{best.complexity} / {best.errors}" if best else "—",
              help="The reference tree: complexity (sum of rule lengths) and errors.")
    m5.metric("Built in", f"{state.pool_time:.2f} s",
              help="Cached: the same data and settings reuse this pool.")

# ------------------------------------------------------------------ 2. budgets and algorithm
n_rows = pools.work_data(state).n_rows  # the rows the pool and the runs use
choices = algorithm_choices()
if not choices:
    st.error("No selection algorithm could be loaded.")
    st.stop()
if state.algorithm not in choices:
    state.algorithm = default_algorithm(choices)
state.eps, state.seed = state.eps, state.seed  # the defaults become values (the URL holds values only)

with st.container(border=True):
    st.subheader("2 · Budgets and algorithm")
    defaults = budgets.default_budgets(state, pool)
    if defaults is None:  # being chosen: no budgets, frontier or Run until they are (the page is drawn again)
        st.stop()
    budgets.init_budgets(state, pool, defaults)
    bc_max, be_max = budgets.budget_limits(pool, n_rows)
    app.sync_url(state)
    b1, b2 = st.columns([2, 3], gap="large")
    with b1:
        bc_slider = budgets.slider_top(pool, int(state.bc), bc_max)
        bc = budgets.budget_input(state, "bc", "Complexity budget Bc (total conditions)", "Bc", 1, bc_max,
                                  slider_high=bc_slider)
        st.caption((f"Best tree: c\\* = {best.complexity}. " if best else "")
                   + (f"The slider reaches {bc_slider}; type up to {bc_max} (every rule of the pool)."
                      if bc_slider < bc_max else f"Up to {bc_max} (every rule of the pool)."))
        be = budgets.budget_input(state, "be", "Error budget Be (misclassified rows)", "Be", 0, be_max)
        st.caption((f"Best tree: e\\* = {best.errors}. " if best else "")
                   + f"Now {be} rows = {100 * be / n_rows:.1f}% of {n_rows}.")
        default_bc, default_be = defaults
        st.caption(md_escape(
            f"Defaults for this pool: Bc = {default_bc}, Be = {default_be}, "
            f"{budgets.default_form_text(state, pool)}. The engine's own: of the selections found at a few error "
            "budgets (0, a quarter and half of the best tree's errors), with rules for every class or only for "
            "the classes other than the most frequent, the one whose training accuracy, less 0.25 % of the "
            "rows per condition, is best; at these budgets a run keeps that form."))
    with b2:
        eps_now = float(state.eps)
        tree = pools.best_tree_report(state, bc, be, eps_now)
        last = state.explanation
        settings_now = state.run_settings or {}
        marks = {
            "bc": bc,
            "be": be,
            "best_tree": (best.complexity, tree.coverage, best.errors) if best is not None and tree is not None else None,
            "result": (last.result.complexity, last.result.coverage)
            if last is not None and settings_now.get("error_budget") == be and settings_now.get("eps") == eps_now
            and settings_now.get("class_weight", "none") == "none"  # the frontier counts rows, unweighted
            else None,
        }
        entry = budgets.ensure_frontier(state, pool, bc=bc, be=be, eps=eps_now, bc_max=bc_max)
        budgets.frontier_panel(state, entry, n_rows=n_rows, marks=marks)
    a1, a2, a3, a4 = st.columns([3, 1, 1, 1])
    algorithm = a1.selectbox("Algorithm", choices, index=choices.index(state.algorithm), key=Session.algorithm.key,
                             format_func=label)
    eps = a2.number_input("eps (conflict penalty)", 0.0, 10.0, value=float(state.eps), step=0.1,
                          key=Session.eps.key, format="%.2f")
    seed = a3.number_input("Seed", 0, 2**31 - 1, value=int(state.seed), step=1, key=Session.seed.key)
    class_weight = a4.selectbox("Class weight", app.CLASS_WEIGHT_CHOICES,
                                index=app.CLASS_WEIGHT_CHOICES.index(state.class_weight), key=Session.class_weight.key,
                                help="balanced: each row counts rows / (classes × rows of its class), so every class "
                                     "weighs the same in the coverage; Be then bounds the weight of the rows the "
                                     "rules get wrong.")
    defaults = algorithm_parameters(algorithm)
    if defaults:
        with st.expander(f"{label(algorithm)} parameters"):
            cols = st.columns(4)
            for i, (name, default) in enumerate(defaults.items()):
                key = Session.param_key(algorithm, name)
                value = state.value(key, default)
                state.set_value(key, value)
                col = cols[i % 4]
                if isinstance(default, bool):
                    col.checkbox(name, value=bool(value), key=key)
                elif isinstance(default, int):
                    text = f"{name} (0 = auto)" if default == 0 and name.startswith("n_") else name
                    col.number_input(text, min_value=0, value=int(value), step=1, key=key)
                else:
                    col.number_input(name, min_value=0.0, value=float(value), key=key)
            params = changed_parameters(state, algorithm)
            if params:
                st.caption("Changed from the defaults: " + ", ".join(f"{k} = {v}" for k, v in params.items()))
    missing = missing_algorithms()
    if missing:
        st.caption("Not installed here: " + ", ".join(label(n) for n in missing))

# ------------------------------------------------------------------ 3. run
job = state.job
running = job is not None and not job.done


def start_run(pool_key, run) -> None:
    """on_click of Run: the worker starts before the page is drawn again, with the settings the page showed.

    ``run`` (its :class:`RunSettings`) was bound when Run was drawn, so a click while the page is being
    recomputed (a new pool, its new default budgets) runs what the user saw; if the pool has changed since,
    nothing runs and the page asks again.
    """
    if pool_key != state.pool_key:
        state.run_error = "The rule pool changed while the page was drawn: check the budgets and press Run again."
        return
    app.forget_results(state)  # a result always belongs to the settings it shows: the old one goes now
    app.start_job(state, Session.job, run)


run_box = st.container(border=True)
# the result's one place, drawn before the run is watched: a run starting empties it at once, where the
# old result would otherwise stay greyed below the live chart until the run ends
results = st.empty()
with run_box:
    st.subheader("3 · Run")
    r1, r2 = st.columns([1, 5], vertical_alignment="center")
    r1.button("Run", type="primary", icon=":material/play_arrow:", disabled=running, width="stretch", key="run",
              on_click=start_run, args=(state.pool_key, budgets.run_settings(state)))
    if running:  # said in the same place, so the line the page showed before a run never stays greyed
        r2.caption(f"Running {label(job.tasks[0].algorithm)} on the {pool.n_rules} rules with "
                   f"Bc = {job.complexity_budget}, Be = {job.error_budget}, eps = {job.eps:g}"
                   + (", rows weighted by class (balanced)." if job.class_weight == "balanced" else "."))
    else:
        r2.caption(f"Runs {label(algorithm)} on the {pool.n_rules} rules with Bc = {bc}, Be = {be}, eps = {eps:g}"
                   + (", rows weighted by class (balanced)." if class_weight == "balanced" else "."))

    if running:
        live.stop_button(job, key="stop_run")
        live.watch(job, lambda job: charts.fitness_figure(job.records(), n_rows, live=True) if job.records() else None,
                   chart_key="live_fitness")

# ------------------------------------------------------------------ results
app.collect_finished(state)
with results.container():
    if state.run_error and not running:
        st.error(md_escape(state.run_error), icon=":material/error:")

    explanation = state.explanation
    run_settings = state.run_settings or {}
    if explanation is not None and not running:
        result = explanation.result
        report = explanation.report
        with st.container(border=True):
            st.subheader("Result")
            status_text = f"{label(result.algorithm)} · status: {result.status}"
            if result.message:
                status_text += f" — {result.message}"
            if result.status in ("ok", "optimal"):
                st.success(status_text, icon=":material/check_circle:")
            else:
                st.warning(status_text, icon=":material/warning:")
            bc_run = run_settings.get("complexity_budget", report.complexity_budget)
            be_run = run_settings.get("error_budget", report.error_budget)
            eps_run = run_settings.get("eps", 1.0)
            for warning in downloads.result_warnings(result, bc_run, be_run, n_rows, eps_run):
                st.warning(warning, icon=":material/report:")
            bt_report = pools.best_tree_report(state, bc_run, be_run, eps_run)

            st.markdown("**Selected rules**")
            s0, sb, s1, s2, s3, s4 = st.columns(6)
            tree_over = best is not None and (best.complexity > bc_run or best.errors > be_run)
            s0.metric("Accuracy", f"{100 * report.accuracy:.2f}%",
                      delta=(f"{100 * (report.accuracy - bt_report.accuracy):+.2f} pp vs best tree"
                             if bt_report else None),
                      delta_color="off" if tree_over else "normal",
                      help="Rows that get their true class: the vote of the rules that fire, else the fallback class.")
            sb.metric("Balanced accuracy", f"{100 * report.balanced_accuracy:.2f}%",
                      delta=(f"{100 * (report.balanced_accuracy - bt_report.balanced_accuracy):+.2f} pp vs best tree"
                             if bt_report else None),
                      delta_color="off" if tree_over else "normal", help=downloads.BALANCED_HELP)
            s1.metric("Coverage", f"{100 * result.coverage_score:.2f}%",
                      delta=(f"{100 * (result.coverage_score - bt_report.coverage_score):+.2f} pp vs best tree"
                             if bt_report else None),
                      delta_color="off" if tree_over else "normal",
                      help="Grey: the best tree is over these budgets (more conditions or errors than they allow), "
                           "so it is only a reference." if tree_over else None)
            s2.metric("Complexity / budget", f"{result.complexity} / {bc_run}")
            s3.metric("Errors / budget", f"{downloads.count_text(result.errors)} / {be_run}",
                      help=f"{100 * result.errors / n_rows:.1f}% of the rows"
                      + (" (the weight of the rows the rules get wrong: rows weighted by class)"
                         if run_settings.get("class_weight", "none") != "none" else ""))
            s4.metric("Rules", result.n_rules)
            st.caption(md_escape(downloads.accuracy_text(report)
                                 + f" Found in {result.time_s:.2f} s ({len(result.history)} generations or steps)."))

            if bt_report is not None and best is not None:
                st.markdown(f"**Best tree** (depth {best.tree.max_depth}, {best.tree.criterion}, "
                            f"{best.tree.splitter} splitter) for comparison")
                t0, tb, t1, t2, t3, t4 = st.columns(6)
                t0.metric("Accuracy", f"{100 * bt_report.accuracy:.2f}%")
                tb.metric("Balanced accuracy", f"{100 * bt_report.balanced_accuracy:.2f}%")
                t1.metric("Coverage", f"{100 * bt_report.coverage_score:.2f}%")
                t2.metric("Complexity c*", best.complexity)
                t3.metric("Errors e*", best.errors)
                t4.metric("Rules (leaves)", best.tree.n_leaves)

            holdout = getattr(report, "holdout", None)
            if holdout is not None:
                st.markdown("**Held-out check**: the same rules on rows the pool and the selection never saw")
                st.table(downloads.holdout_frame(report))

            g1, g2 = st.columns([1, 1], gap="large")
            with g1:
                if result.history:
                    st.plotly_chart(charts.fitness_figure(result.history, n_rows), key="final_fitness", width="stretch")
            with g2:
                st.markdown("**Rules**")
                st.code(report.rules_text(), language=None, wrap_lines=True)
                st.page_link(app.PAGE_FILES["Rules"], label="Inspect the rules", icon=":material/rule:")
    elif explanation is None and not running:
        st.info("Set the budgets and press **Run**.", icon=":material/info:")
