"""The dashboard's result cards: what the Data, Explain, Compare and Export pages show of data, pools and runs.

The Rules page's own panels are in :mod:`.rule_cards`; the inputs are in :mod:`.forms`.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from explainer.app import budgets, charts, downloads, pools, sources
from explainer.app import state as app_state
from explainer.app.alternatives import alternatives_panel
from explainer.app.jobs import RunJob
from explainer.app.rows import rows_frame
from explainer.app.session import Session
from explainer.app.sources import Source
from explainer.app.text import label, md_escape
from explainer.data import Dataset
from explainer.pipeline.validation import SIZES, eligible_points
from explainer.report import RuleSetReport
from explainer.rules.model import COMPLEXITY_COUNTS
from explainer.rules.pool import RulePool
from explainer.rules.render import counted

#: the Data page's previews show at most this many of a table's columns (a grid of 10,000 columns took the
#: page seconds to send and the browser longer to draw, and no one reads it); the table is read whole
PREVIEW_COLUMNS = 100

# ------------------------------------------------------------------ Data page


def data_card(state: Session, source: Source | None, table: pd.DataFrame | None, target: str | None) -> None:
    """The Data page's right column: the table read but not loaded yet, else the data in use."""
    dataset = state.dataset
    loaded = state.data_ref or {}
    # a table read comes with its source and the target chosen for it: a preview until that pair is loaded
    if table is not None and source is not None and target is not None and (
            dataset is None or loaded.get("ident") != source.ident or loaded.get("target") != target):
        st.subheader("Preview")
        st.caption(f"{md_escape(source.title)}: the first rows as read and the values of the chosen target. "
                   "Not loaded yet: press **Load data**.")
        st.plotly_chart(charts.preview_figure(table, target), width="stretch", key=Session.preview_chart.key)
        st.dataframe(preview_columns(table.head(20), keep=(target,)), hide_index=True, width="stretch")
        _columns_note(table.shape[1])
        if dataset is not None:
            st.caption(f"In use until then: {md_escape(state.data_label or dataset.name)}")
    elif dataset is None:
        st.info("No data loaded yet. Choose a source on the left and press **Load data**.", icon=":material/info:")
    else:
        loaded_data_card(state, dataset)


def loaded_data_card(state: Session, dataset: Dataset) -> None:
    st.subheader("Loaded data")
    st.text(state.data_label or dataset.name)
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("Rows", dataset.n_rows)
    c2.metric("Features", dataset.n_features)
    c3.metric("Classes", len(dataset.classes))
    c4.metric("Incomplete rows", dataset.n_rows_with_missing,
              help="Rows with at least one missing feature value (kept; 'is missing' indicator features are added).")
    if dataset.n_dropped_missing_target:
        st.warning(f"{dataset.n_dropped_missing_target} rows without a target value were dropped.")
    for note in dataset.notes:
        st.info(md_escape(note), icon=":material/info:")
    for warning in dataset.warnings:
        st.warning(md_escape(warning), icon=":material/warning:")
    st.plotly_chart(charts.class_distribution_figure(dataset), width="stretch")
    st.markdown("**Columns** — how each column is used")
    st.dataframe(sources.columns_frame(dataset), hide_index=True, width="stretch")
    with st.expander("The first 50 rows, as loaded"):
        used = pools.rule_columns(dataset)
        # the columns shown only: decoding 10,000 of them for 50 rows took about a second, on every draw
        rows = rows_frame(dataset, range(min(50, dataset.n_rows)), columns=used[:PREVIEW_COLUMNS])
        st.dataframe(rows, hide_index=True, width="stretch")
        _columns_note(len(used))
    st.page_link(app_state.PAGE_FILES["Explain"], label="Next: explain this data", icon=":material/arrow_forward:")


def preview_columns(frame: pd.DataFrame, keep=()) -> pd.DataFrame:
    """``frame`` with at most :data:`PREVIEW_COLUMNS` of its columns, the first ones and those named in
    ``keep``."""
    if frame.shape[1] <= PREVIEW_COLUMNS:
        return frame
    rest, keep = list(range(frame.shape[1])), set(keep)
    kept = [i for i in rest if frame.columns[i] in keep]
    shown = [i for i in rest if i not in kept][: PREVIEW_COLUMNS - len(kept)]
    return frame.iloc[:, sorted(shown + kept)]


def _columns_note(n_columns: int) -> None:
    if n_columns > PREVIEW_COLUMNS:
        st.caption(f"{PREVIEW_COLUMNS} of the table's {n_columns:,} columns shown here; every column is read.")


# ------------------------------------------------------------------ Explain page


def pool_card(state: Session, pool: RulePool) -> None:
    """The rule pool's size, its best tree and how long it took."""
    best = pool.best_tree()
    split = state.split
    if split is not None and split.X_test is not None and split.y_test is not None:
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


def frontier_card(state: Session, pool: RulePool, *, bc: int, be: int, bc_max: int, n_rows: int) -> None:
    """The frontier beside the budgets, marked with the budgets, the best tree and the last result."""
    best = pool.best_tree()
    eps_now = float(state.eps)
    tree = pools.best_tree_report(state, bc, be, eps_now)
    last = state.explanation
    now = state.run_settings
    marks = {
        "bc": bc,
        "be": be,
        "best_tree": (best.complexity, tree.coverage, best.errors) if best is not None and tree is not None else None,
        # only a run of the frontier's own problem is a point beside it (a run of the fallback form covers the
        # rows of the classes it explains, far below a frontier of every rule)
        "result": (last.result.complexity, last.result.coverage)
        if last is not None and now is not None and now.error_budget == be and budgets.comparable(now, eps_now)
        else None,
    }
    coverage, accuracy = st.tabs(["Coverage frontier", "Held-out accuracy"])
    with coverage:
        entry = budgets.ensure_frontier(state, pool, bc=bc, be=be, eps=eps_now, bc_max=bc_max)
        budgets.frontier_panel(state, entry, n_rows=n_rows, marks=marks)
    with accuracy:
        accuracy_frontier_card(state, pool, bc=bc, be=be)


def accuracy_frontier_card(state: Session, pool: RulePool, *, bc: int, be: int) -> None:
    """The default policy's validation curve: held-out accuracy against conditions, the default marked; a click
    takes a candidate's budgets, form and objective."""
    choice = budgets.page_choice(state)
    points = list(choice.frontier) if choice is not None else []
    if not points:
        st.caption("No held-out accuracy to show: " + (
            "the pool has no reference tree to size the candidates, so the defaults are a fixed guess."
            if pool.best_tree() is None else "the defaults were not chosen on held-out rows."))
        return
    size = budgets.page_size(state)
    eligible = eligible_points(points)
    fig = charts.accuracy_frontier_figure(points, n_se=SIZES[size], best_candidates=eligible or None)
    st.plotly_chart(fig, key=Session.accuracy_chart.key, selection_mode="points", width="stretch",
                    on_select=lambda: budgets.choose_accuracy_point(Session()))
    text = charts.accuracy_caption(points) or ("No candidate kept a rule: the defaults are the knee of the "
                                               "coverage frontier at the best tree's errors.")
    pick = state.accuracy_pick
    now = (f" Bc = {bc}, Be = {be} is the candidate clicked: a run uses its form ({pick[2]}) and objective "
           f"({pick[3]}).") if pick is not None and tuple(pick[:2]) == (bc, be) else ""
    floor = " (on or above the dotted line)" if SIZES[size] else ""
    st.caption(md_escape(f"{text} Size {size}: {budgets.SIZE_WORDS[size]}{floor}.{now} "
                         "Click a point to use its budgets, form and objective."))


def results_card(state: Session, pool: RulePool, n_rows: int, running: bool) -> None:
    """The last run's result (or its error, or what to do first); nothing while a run goes on."""
    if state.run_error and not running:
        st.error(md_escape(state.run_error), icon=":material/error:")
    if state.run_note and not running:
        st.info(state.run_note, icon=":material/info:")  # the page's own words, never user text
    kept = None if running or state.run_error else app_state.restore_kept_run(state, budgets.run_settings(state))
    if kept in ("restored", "adopted"):  # a reload or a link at a run's settings: every card shows it again
        st.rerun()
    explanation = state.explanation
    if explanation is not None and not running:
        with st.container(border=True):
            _result(state, pool, n_rows)
    elif explanation is None and not running:
        if kept == "interrupted":
            st.info(app_state.INTERRUPTED, icon=":material/history:")
        else:
            st.info("Set the budgets and press **Run**.", icon=":material/info:")


def _result(state: Session, pool: RulePool, n_rows: int) -> None:
    explanation = state.explanation
    run = state.run_settings
    result = explanation.result
    report = explanation.report
    best = pool.best_tree()
    st.subheader("Result")
    status_text = f"{label(result.algorithm)} · status: {result.status}"
    if result.message:
        status_text += f" — {result.message}"
    if result.status in ("ok", "optimal"):
        st.success(status_text, icon=":material/check_circle:")
    else:
        st.warning(status_text, icon=":material/warning:")
    bc_run = run.complexity_budget if run is not None else report.complexity_budget
    be_run = run.error_budget if run is not None else report.error_budget
    eps_run = run.eps if run is not None else 1.0
    if state.has(Session.bc) and (state.bc, state.be) != (bc_run, be_run):  # the budgets above moved since
        st.info(f"This result is the run at Bc = {bc_run}, Be = {downloads.count_text(be_run)}; the budgets above "
                f"are now Bc = {state.bc}, Be = {state.be}: press **Run** for them.", icon=":material/info:")
    for warning in downloads.result_warnings(result, bc_run, be_run, n_rows, eps_run):
        st.warning(warning, icon=":material/report:")
    bt_report = pools.best_tree_report(state, bc_run, be_run, eps_run)

    st.markdown("**Selected rules**")
    tree_over = best is not None and ((bc_run is not None and best.complexity > bc_run)
                                      or (be_run is not None and best.errors > be_run))
    _selected_metrics(explanation, bt_report, tree_over, bc_run, be_run,
                      weighted=run is not None and run.class_weight is not None)

    if bt_report is not None and best is not None:
        st.markdown(f"**Best tree** (depth {best.tree.max_depth}, {best.tree.criterion}, "
                    f"{best.tree.splitter} splitter) for comparison")
        t0, tb, t1, t2, t3, t4 = st.columns(6)
        t0.metric("Accuracy", f"{100 * bt_report.accuracy:.2f}%")
        tb.metric("Balanced accuracy", f"{100 * bt_report.balanced_accuracy:.2f}%")
        t1.metric("Coverage f*", f"{100 * bt_report.coverage_score:.2f}%", help=downloads.COVERAGE_HELP)
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
            objective = run.objective if run is not None else "coverage"
            st.plotly_chart(charts.fitness_figure(result.history, n_rows, objective=objective,
                                                  final=result.evaluation.value),
                            key=Session.final_fitness.key,
                            width="stretch")
        else:  # e.g. stopped before its first generation: an empty column reads as a chart still to come
            st.markdown("**Fitness per generation**")
            st.caption("No generation or step was recorded before the run ended, so there is no curve; the rules "
                       "beside are its selection.")
    with g2:
        st.markdown("**Rules**")
        st.code(report.rules_text(), language=None, wrap_lines=True)
        st.page_link(app_state.PAGE_FILES["Rules"], label="Inspect the rules", icon=":material/rule:")
    alternatives_panel(state, pool)


def budget_metric(column, name: str, value, budget, *, help: str) -> None:
    """A total and, under it in grey, its budget: the value alone stays short enough for a narrow column (a
    value such as ``2943 / 2948`` was cut to ``2943 / …`` at 1,440 pixels)."""
    under = "no budget" if budget is None else f"budget {downloads.count_text(budget)}"
    column.metric(name, value, delta=under, delta_color="off", delta_arrow="off", help=help)


def _selected_metrics(explanation, bt_report: RuleSetReport | None, tree_over: bool, bc_run: int | None,
                      be_run: float | None, *, weighted: bool) -> None:
    result = explanation.result
    report = explanation.report
    s0, sb, s1, s2, s3, s4 = st.columns(6)

    def share(column, name: str, value: float, of_tree: float | None, help: str | None) -> None:
        """A share in percent and, under it, the points it is above or below the best tree's (grey, without an
        arrow, when the tree is over the budgets or the two are equal to the two decimals shown)."""
        if of_tree is None:
            column.metric(name, f"{100 * value:.2f}%", help=help)
            return
        points = round(100 * (value - of_tree), 2)
        column.metric(name, f"{100 * value:.2f}%", delta=f"{points:+.2f} pp vs tree" if points else "as the tree",
                      delta_color="off" if tree_over or not points else "normal",
                      delta_arrow="auto" if points else "off", help=help)

    tree = bt_report  # the best tree's report, None when there is none
    share(s0, "Accuracy", report.accuracy, None if tree is None else tree.accuracy,
          "Rows that get their true class: the vote of the rules that fire, else the fallback class.")
    share(sb, "Balanced accuracy", report.balanced_accuracy, None if tree is None else tree.balanced_accuracy,
          downloads.BALANCED_HELP)
    # rules for the classes other than the fallback class cover only their rows: their f* is no match for a
    # tree's, which covers every row; the accuracy beside it is what compares
    one_side = (report.settings or {}).get("form") == "fallback"
    share(s1, "Coverage f*", result.coverage_score, None if tree is None or one_side else tree.coverage_score,
          downloads.COVERAGE_HELP + (" Grey: the best tree is over these budgets (more conditions or errors than "
                                     "they allow), so it is only a reference." if tree_over and not one_side else "")
          + (f" These rules are for the classes other than the fallback class ({report.else_text}), which takes "
             "every other row, so their coverage is not compared with the tree's: the accuracy is."
             if one_side else ""))
    budget_metric(s2, "Complexity", result.complexity, bc_run,
                  help=md_escape(f"The selected rules' {COMPLEXITY_COUNTS}."))
    budget_metric(s3, "Errors", downloads.count_text(result.errors), be_run, help=downloads.ERRORS_HELP
                  + (" Rows are weighted by class here: the weights of those rows." if weighted else ""))
    s4.metric("Rules", result.n_rules)
    st.caption(md_escape(downloads.accuracy_text(report)
                         + f" Found in {result.time_s:.2f} s ({len(result.history)} "
                         f"{'generation or step' if len(result.history) == 1 else 'generations or steps'})."))


# ------------------------------------------------------------------ Compare page


def compare_card(job: RunJob | None, running: bool) -> None:
    """The Compare page's results once its runs have ended (or what to do first)."""
    if job is not None and job.done:
        for err in job.errors:
            if err:
                st.error(md_escape(err), icon=":material/error:")
        skipped = downloads.skipped_runs(job)
        if job.stopped:
            st.warning("Stopped: the running algorithm kept its best selection so far"
                       + (f"; skipped: {', '.join(skipped)}." if skipped else "."), icon=":material/warning:")
        frame = downloads.comparison_frame(job, job.n_rows)
        done = frame[frame["status"].isin(["ok", "stopped", "optimal", "feasible", "over_budget"])] \
            if "status" in frame else frame
        st.subheader("Results")
        st.caption(f"Bc = {job.complexity_budget}, Be = {job.error_budget}, eps = {job.eps:g}, "
                   f"class weight: {job.class_weight or 'none'}")
        show = [c for c in frame.columns if c not in ("algorithm", "seed")]
        st.dataframe(frame[show], hide_index=True, width="stretch", height="content",  # every run in sight
                     column_config={"run": st.column_config.TextColumn(width="large"),
                                    "status": st.column_config.TextColumn(width="medium"),
                                    "message": st.column_config.TextColumn(width="large")})
        if "gap to optimum (pp)" in frame:
            st.caption("Gap to optimum: how much less coverage than the exact solver's proven optimum "
                       "(pp: percentage points of the rows).")
        elif any(t.algorithm == "exact" and ex is not None for t, ex in zip(job.tasks, job.explanations, strict=True)):
            st.caption("The exact solver did not prove optimality, so no gap is shown.")
        if not done.empty:
            st.plotly_chart(charts.comparison_dots(done), width="stretch", key=Session.cmp_dots.key)
            st.caption("Each panel spans the values themselves (not from 0), so small differences show.")
        curves = [(label(t.algorithm) + f" (seed {t.seed})", t.algorithm, ex.result.history,
                   ex.result.evaluation.value)
                  for t, ex in zip(job.tasks, job.explanations, strict=True) if ex is not None]
        st.plotly_chart(charts.curves_figure(curves, job.n_rows), width="stretch", key=Session.cmp_curves.key)
    elif not running:
        st.info("Choose algorithms and seeds, then press **Run all**.", icon=":material/info:")


def live_curves(job: RunJob):
    """The Compare page's live chart: one curve per run so far."""
    curves = [(label(t.algorithm) + f" (seed {t.seed})", t.algorithm, job.records(i), None)
              for i, t in enumerate(job.tasks[: job.current + 1])]
    return charts.curves_figure(curves, job.n_rows)


# ------------------------------------------------------------------ Export page

#: the Export page's downloads: (format, button, icon, what it holds)
DOWNLOADS = (
    ("text", "Rules as text", ":material/description:", "the IF-THEN lines and the ELSE class"),
    ("json", "Report as JSON", ":material/data_object:", "metrics, settings and data fingerprint"),
    ("csv", "Rules as CSV", ":material/table_view:",
     "one row per rule, the totals and settings on # lines above (pandas: read_csv(..., comment='#')); safe for "
     "spreadsheets"),
    ("sql", "Rules as SQL", ":material/database:", "a CASE WHEN expression over the table's columns"),
    ("python", "Rules as Python", ":material/code:", "a predict(row) function, no imports"),
)


def download_card(state: Session) -> None:
    """The rule set in every export format, each a download and a tab."""
    dataset = state.dataset
    explanation = state.explanation
    if explanation is None or dataset is None:
        st.info("Run an explanation first (Explain page); its rules can then be downloaded here.",
                icon=":material/info:")
        return
    payloads = downloads.export_payloads(explanation, dataset)
    st.caption(
        f"{label(explanation.result.algorithm)} · {counted(explanation.report.n_rules, 'rule')} · "
        f"data fingerprint {(explanation.report.fingerprint or dataset.fingerprint)[:16]}…"
    )
    for col, (kind, title, icon, what) in zip(st.columns(5), DOWNLOADS, strict=True):
        name, mime, content = payloads[kind]
        col.download_button(title, data=content, file_name=name, mime=mime, icon=icon,
                            key=Session.download_key(kind), width="stretch", on_click="ignore")
        col.caption(what)
    tabs = st.tabs(["Text", "JSON", "CSV", "SQL", "Python"])
    tabs[0].code(payloads["text"][2] or "(no rules)", language=None, wrap_lines=True)  # its header lines are long
    tabs[1].code(payloads["json"][2], language="json")
    tabs[2].code(payloads["csv"][2], language=None)
    tabs[3].code(payloads["sql"][2], language="sql")
    tabs[4].code(payloads["python"][2], language="python")


def evaluation_card(file_name: str, report: RuleSetReport, rows_text: str) -> None:
    """An uploaded rule file's totals on the current data, and its rules."""
    st.text(f"{file_name}: {counted(report.n_rules, 'rule')}, evaluated on {rows_text}.")
    e1, e2, e3, e4, e5 = st.columns(5)
    e1.metric("Coverage f*", f"{100 * report.coverage_score:.2f}%", help=downloads.COVERAGE_HELP)
    budget_metric(e2, "Complexity", report.complexity, report.complexity_budget,
                  help=md_escape(f"The rules' {COMPLEXITY_COUNTS}."))
    budget_metric(e3, "Errors", report.errors, report.error_budget, help=downloads.ERRORS_HELP)
    e4.metric("Rows covered", report.covered, delta=f"of {report.n_rows}", delta_color="off", delta_arrow="off")
    e5.metric("Within budgets", {True: "yes", False: "no", None: "—"}[report.within_budgets])
    if report.holdout is not None:
        st.caption("The same rules on the training rows and on the held-out rows:")
        st.dataframe(downloads.holdout_frame(report))
    rule_columns = {name: st.column_config.Column(width=width)
                    for name, width in downloads.RULE_COLUMN_WIDTHS.items()}
    st.dataframe(downloads.rules_view(downloads.rules_table(report)), hide_index=True, width="stretch",
                 column_config=rule_columns)
