"""Rules page: the selected rules, their conflicts, per-class coverage and uncovered rows."""

import streamlit as st

from explainer.app import downloads, guards, rule_cards, rule_edit
from explainer.app.session import Session
from explainer.app.state import setup

state = setup("Rules")
st.title("Rules")
rule_cards.follow_rerun(state)
guards.need_explanation(state)
explanation = state.explanation
# the rows the explanation was computed on (the training rows when some are held out)
dataset = state.explanation_data or state.dataset
report = explanation.report
rule_cards.summary_card(explanation)

table = downloads.rules_table(report)
st.subheader("Selected rules")
if table.empty:
    st.warning("The selection is empty: no rule fits the budgets.")
    st.stop()
picked = st.dataframe(downloads.rules_view(table), hide_index=True, width="stretch",
                      column_config=rule_cards.rule_columns(), on_select="rerun", selection_mode="single-row",
                      key=Session.rules_table.key)
st.text(f"{report.else_text}   (rows no rule covers, or where classes tie)")
st.caption("Rows shaded red belong to rules that conflict with a rule of another class on some rows. "
           "Click a rule to inspect it below, and pin or ban it there.")
rule_cards.pins_panel(state)
rule_cards.follow(state, picked, Session.rule_pick, Session.rule_pick_clicked, int)

st.subheader("Misclassified rows")
rule_cards.misclassified_card(state, dataset, report)

# ------------------------------------------------------------------ one row
st.subheader("Explain a row")
st.caption("Pick a row of the data by its number (the first misclassified one to start with), or change its "
           "values: the rules that fire on it and their vote.")
rule_cards.row_card(state, dataset, report, table)

# ------------------------------------------------------------------ one rule
st.subheader("Inspect a rule")
rule_cards.rule_card(state, dataset, report)
rule_edit.edit_card(state, dataset, report)

# ------------------------------------------------------------------ per class and uncovered
st.subheader("Coverage per class")
rule_cards.per_class_card(report)

st.subheader("Accuracy by group")
rule_cards.group_card(state, dataset, report)

st.subheader("Rows no rule covers")
rule_cards.uncovered_card(dataset, report)
