"""Rules page: the selected rules, their conflicts, per-class coverage and uncovered rows."""

import streamlit as st

from explainer.app import charts, exports
from explainer.app import state as app
from explainer.app.text import label

state = app.setup("Rules")
st.title("Rules")
dataset = state.dataset
explanation = state.explanation
if dataset is None or explanation is None:
    st.info("Run an explanation first (Data → Explain → Run).", icon=":material/info:")
    st.page_link(app.PAGE_FILES["Explain"], label="Go to the Explain page", icon=":material/psychology:")
    st.stop()
# the rows the explanation was computed on (the training rows when some are held out)
dataset = state.explanation_data or dataset

report = explanation.report
result = explanation.result
st.caption(
    f"{label(result.algorithm)} · {report.n_rules} rules · complexity {report.complexity} · "
    f"{report.errors} errors · {report.covered} of {report.n_rows} rows covered · "
    f"{report.conflicting_pairs} conflicting pairs"
)

k1, k2, k3, k4, k5 = st.columns(5)
k1.metric("Coverage f*/N", f"{100 * report.coverage_score:.2f}%")
k2.metric("Rows covered", f"{report.covered} / {report.n_rows}")
k3.metric("Uncovered rows", report.n_uncovered)
k4.metric("Voted right", f"{100 * report.vote_accuracy:.1f}%",
          help="Rows whose majority vote over the firing rules is the true class (uncovered and ties count as wrong).")
k5.metric("Rules in conflict", sum(1 for m in report.per_rule if m.conflicts))

table = exports.rules_table(report)
st.subheader("Selected rules")
if table.empty:
    st.warning("The selection is empty: no rule fits the budgets.")
    st.stop()
# a static table: long rule text wraps instead of being cut off
st.table(exports.style_conflicts(exports.rules_display(table)))
st.caption("Rows shaded red belong to rules that conflict with a rule of another class on some rows.")

st.subheader("Misclassified rows")
wrong = exports.misclassified_frame(dataset, report)
if wrong.empty:
    st.success("No selected rule fires on a row of another class.", icon=":material/check_circle:")
else:
    st.caption(f"{len(wrong)} rows on which at least one selected rule fires with another class "
               "(the rules' errors, all in one table; 'wrong rules' are the rule numbers above).")
    st.dataframe(wrong, hide_index=True, width="stretch", height=min(400, 38 + 35 * len(wrong)))

# ------------------------------------------------------------------ one row
st.subheader("Explain a row")
st.caption("Pick a row of the data (the first misclassified one to start with), or change its values: "
           "the rules that fire on it and their vote.")
wrong_rows = exports.misclassified_rows(report)[0]
if state.explain_row is None or not 1 <= int(state.explain_row) <= dataset.n_rows:
    state.explain_row = int(wrong_rows[0]) + 1 if len(wrong_rows) else 1
r1, r2 = st.columns([1, 4], gap="large")
with r1:
    row_no = int(st.number_input("Row", 1, dataset.n_rows, value=int(state.explain_row), step=1,
                                 key="w_explain_row"))
    st.text(f"true class: {dataset.y[row_no - 1]}")
with r2:
    original = dataset.X.iloc[[row_no - 1]].reset_index(drop=True)
    edited = st.data_editor(original, hide_index=True, width="stretch", key=f"row_values_{row_no}",
                            num_rows="fixed")
fired, voted = exports.explain_one_row(report, edited)
changed = not edited.equals(original)
verdict = exports.vote_text(voted, dataset.y[row_no - 1] if not changed else None)
(st.success if voted is not None and str(voted) == str(dataset.y[row_no - 1]) and not changed else st.info)(
    ("With the values changed: " if changed else "") + verdict, icon=":material/how_to_vote:")
if fired:
    st.table(exports.style_conflicts(exports.rules_display(exports.rules_table(report)).iloc[fired]))

# ------------------------------------------------------------------ one rule
st.subheader("Inspect a rule")
n = report.n_rules
if state.rule_pick not in range(n):
    state.rule_pick = 0
pick = st.selectbox(
    "Rule",
    list(range(n)),
    index=state.rule_pick,
    key="w_rule_pick",
    format_func=lambda i: f"{i + 1}. {report.rules[i].text}",
)
metrics = report.per_rule[pick]
covered = report.coverage_matrix[:, pick].nonzero()[0]
c1, c2 = st.columns([3, 2], gap="large")
with c1:
    st.markdown(f"**Rows covered by rule {pick + 1}** ({len(covered)} rows, {metrics.errors} misclassified)")
    rows = exports.rows_frame(dataset, covered, report)
    rows.insert(1, "correct", rows[f"{dataset.target} (true)"] == str(metrics.label))
    st.dataframe(rows, hide_index=True, width="stretch", height=300)
with c2:
    st.markdown("**Conflicts**")
    if not metrics.conflicting_rules:
        st.success("This rule conflicts with no other selected rule.", icon=":material/check_circle:")
    for k in metrics.conflicting_rules:
        conflict_rows = report.conflicts_between(pick, k)
        with st.container(border=True):
            st.text(f"Rule {k + 1}: {report.rules[k].text}")
            st.caption(f"{len(conflict_rows)} shared rows: " + ", ".join(str(r + 1) for r in conflict_rows[:50])
                       + (" …" if len(conflict_rows) > 50 else ""))
            with st.expander("Show these rows"):
                st.dataframe(exports.rows_frame(dataset, conflict_rows, report), hide_index=True, width="stretch")

# ------------------------------------------------------------------ per class and uncovered
st.subheader("Coverage per class")
per_class = report.per_class()
p1, p2 = st.columns([1, 1], gap="large")
with p1:
    st.dataframe(
        per_class,
        hide_index=True,
        width="stretch",
        column_config={
            "covered_pct": st.column_config.ProgressColumn("covered %", format="%.1f%%", min_value=0, max_value=100),
            "voted_right": st.column_config.NumberColumn("voted right"),
        },
    )
with p2:
    st.plotly_chart(charts.per_class_figure(per_class), width="stretch", key="per_class_chart")

st.subheader("Rows no rule covers")
uncovered = report.uncovered_rows()
if len(uncovered) == 0:
    st.success("Every row is covered by at least one rule.", icon=":material/check_circle:")
else:
    st.caption(f"{len(uncovered)} rows ({100 * len(uncovered) / report.n_rows:.1f}%)")
    st.dataframe(exports.rows_frame(dataset, uncovered), hide_index=True, width="stretch", height=300)
