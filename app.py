"""The explainer dashboard: ``streamlit run app.py``.

A thin router over the pages listed explicitly below (scripts in ``app_pages/``);
all logic lives in the ``explainer`` package (``explainer.dashboard`` for the
dashboard's own helpers).

The folder is deliberately not called ``pages/``: next to the main script that
name switches Streamlit into its legacy multipage mode for the first run of a
process (and for every run under ``streamlit.testing``), which would run a page
without this router and its shared state handling.
"""

import streamlit as st

from explainer.dashboard import collect_finished, load_default_sample, persist_widget_state, warm_up

st.set_page_config(
    page_title="Rule explainer",
    page_icon=":material/account_tree:",
    layout="wide",
    initial_sidebar_state="expanded",
)

warm_up()
persist_widget_state()
load_default_sample(st.session_state)
collect_finished(st.session_state)

PAGES = [
    st.Page("app_pages/data.py", title="Data", icon=":material/table_chart:", url_path="data", default=True),
    st.Page("app_pages/explain.py", title="Explain", icon=":material/psychology:", url_path="explain"),
    st.Page("app_pages/rules.py", title="Rules", icon=":material/rule:", url_path="rules"),
    st.Page("app_pages/compare.py", title="Compare", icon=":material/compare_arrows:", url_path="compare"),
    st.Page("app_pages/export.py", title="Export", icon=":material/download:", url_path="export"),
]

page = st.navigation(PAGES, position="sidebar")

with st.sidebar:
    dataset = st.session_state.get("dataset")
    st.caption("Current data")
    if dataset is None:
        st.markdown("*nothing loaded yet*")
    else:
        st.text(st.session_state.get("data_label", dataset.name))
        st.caption(f"{dataset.n_rows} rows · {dataset.n_features} features · {len(dataset.classes)} classes")
    explanation = st.session_state.get("explanation")
    if explanation is not None:
        st.caption("Last explanation")
        r = explanation.result
        st.text(f"{r.n_rules} rules · {100 * r.coverage_score:.1f}% coverage")
    job = st.session_state.get("job")
    if job is not None and not job.done:
        st.caption(":material/autorenew: a run is in progress (Explain page)")

page.run()
