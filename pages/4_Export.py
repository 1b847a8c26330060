"""Export page: download the rule set; evaluate a rule file against the current data."""

import streamlit as st

from explainer.app import cards, forms, guards
from explainer.app.state import setup

state = setup("Export")
st.title("Export")
guards.restore_run(state)

with st.container(border=True):
    st.subheader("Download the rule set")
    cards.download_card(state)

with st.container(border=True):
    st.subheader("Evaluate a rule file")
    if state.dataset is None:
        st.info("Load data first; a rule file is evaluated against the current data.", icon=":material/info:")
        st.stop()
    forms.rule_file_form(state, state.dataset)
