"""The explainer dashboard: ``streamlit run app.py``.

This entry point is also the first page, Data; the other pages are the
scripts in ``pages/`` (Streamlit's multipage folder, numbered for their
order).  Every page starts with ``explainer.app.state.setup``; the logic lives in
``explainer.app``.
"""

import streamlit as st

from explainer.app import cards, forms, guards
from explainer.app.state import setup

state = setup("Data")

st.title("Data")
if state.data_toast:
    del state.data_toast
    st.toast("Data loaded", icon=":material/check_circle:")
st.caption(
    "Pick a bundled sample, one of the paper's data sets or your own CSV. "
    "A column named like class, target or label is the target (else the last column) "
    "unless you choose another one."
)

left, right = st.columns([2, 3], gap="large")
with left:
    source = forms.source_form(state)
    table = guards.table_or_stop(state, source) if source is not None else None
    target = forms.load_form(state, source, table) if table is not None else None

with right:
    cards.data_card(state, source, table, target)
