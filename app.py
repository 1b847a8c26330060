"""The explainer dashboard: ``streamlit run app.py``.

This entry point is also the first page, Data; the other pages are the
scripts in ``pages/`` (Streamlit's multipage folder, numbered for their
order).  Every page starts with ``state.setup``; the logic lives in
``explainer.app``.
"""

import streamlit as st

from explainer.app import charts, pools, sources
from explainer.app import state as app
from explainer.app.rows import rows_frame
from explainer.app.session import Session
from explainer.app.text import md_escape
from explainer.data import DataError
from explainer.data.tables import SPREADSHEET_EXTENSIONS

state = app.setup("Data")

st.title("Data")
if state.data_toast:
    del state.data_toast
    st.toast("Data loaded", icon=":material/check_circle:")
st.caption(
    "Pick a bundled sample, one of the paper's data sets or your own CSV. "
    "A column named like class, target or label is the target (else the last column) "
    "unless you choose another one."
)

samples = sources.sample_choices()
papers = sources.paper_choices()
kinds = ["Bundled sample"] + (["Paper data set"] if papers else []) + ["Upload a CSV"]
if state.source_kind not in kinds:
    state.source_kind = kinds[0]


def _remember_upload():
    file = state.data_upload_widget
    if file is not None:
        app.remember_upload(state, file.name, file.getvalue())


left, right = st.columns([2, 3], gap="large")
with left:
    kind = st.radio("Source", kinds, index=kinds.index(state.source_kind), key=Session.source_kind.key,
                    horizontal=True)
    source = None
    if kind == "Bundled sample":
        if samples:
            names = [s.name for s in samples]
            if state.sample not in names:
                state.sample = names[0]
            chosen = st.selectbox("Sample", names, index=names.index(state.sample), key=Session.sample.key)
            source = next(s for s in samples if s.name == chosen)
        else:
            st.warning("No bundled samples were found in sample_data/.")
    elif kind == "Paper data set":
        names = [s.name for s in papers]
        if state.paper not in names:
            state.paper = names[0]
        chosen = st.selectbox("Data set", names, index=names.index(state.paper), key=Session.paper.key,
                              format_func=lambda n: sources.PAPER_DATASETS[n]["title"])
        source = next(s for s in papers if s.name == chosen)
    else:
        # spreadsheets are accepted here only so that the reader can say what to do with them
        st.file_uploader("CSV file (header row, one row per example)",
                         type=["csv", "tsv", "txt", *(e.lstrip(".") for e in SPREADSHEET_EXTENSIONS)],
                         key=Session.data_upload_widget.key, on_change=_remember_upload)
        source = state.upload
        if source is None:
            st.info("Drop a CSV file above. Nothing is executed from the file; it is read as text.")

    table = None
    if source is not None:
        try:
            table = app.read_step(state, source)
            if table is None:  # being read: its status is on the page, which is drawn again when it is done
                st.stop()
        except DataError as exc:
            st.error(md_escape(exc), icon=":material/error:")
            if state.dataset is not None:
                st.caption("The data loaded before stays in use.")
        except Exception as exc:  # never a traceback on the page
            st.error(f"The file could not be read ({type(exc).__name__}).", icon=":material/error:")

    if table is not None:
        columns = [str(c) for c in table.columns]
        tkey = app.target_key(source)
        fid = app.file_id(source)
        suggested, why = sources.suggested_target(table)
        if state.value(tkey) not in columns:
            state.set_value(tkey, source.default_target if source.default_target in columns else suggested)
        st.caption(f"{len(table)} rows × {len(columns)} columns read. {md_escape(why)}")
        target = st.selectbox("Target column (the class)", columns, index=columns.index(state.value(tkey)), key=tkey)

        def kept(key):
            return [c for c in state.value(key, []) if c in columns]

        with st.form(f"load_form_{fid}", border=True):
            with st.expander("Column overrides", expanded=False):
                categorical = st.multiselect("Treat as categorical", columns,
                                             default=kept(Session.column_key("categorical", fid)),
                                             key=Session.column_key("categorical", fid),
                                             help="Numeric columns to one-hot encode (codes, not amounts).")
                exclude = st.multiselect("Exclude", columns, default=kept(Session.column_key("exclude", fid)),
                                         key=Session.column_key("exclude", fid),
                                         help="Columns to leave out entirely.")
                keep = st.multiselect("Keep", columns, default=kept(Session.column_key("keep", fid)),
                                      key=Session.column_key("keep", fid),
                                      help="Columns to use even though they look like identifiers.")
            submitted = st.form_submit_button("Load data", type="primary", icon=":material/upload:", key="load_data")
        others = [c for c in columns if c != target]
        options = {"target": target, "categorical": [c for c in categorical if c in others],
                   "exclude": [c for c in exclude if c in others], "keep": [c for c in keep if c in others]}
        if submitted:
            app.request_load(state, source, **options)
        else:  # what Load data would do, started now: the table, its pool and budgets are under way meanwhile
            pools.encode_ahead(state, source, **options)
        outcome = app.pending_load(state, source)
        if outcome == "reading":  # its status is on the page, which is drawn again when the data is ready
            st.stop()
        if outcome == "loaded":
            pools.prepare(state)  # the Explain page's pool and default budgets, under way from now on
            state.data_toast = True
            st.rerun()  # the sidebar and the URL, drawn before this point, show the new data
        if outcome is None:
            app.load_summary(state, source)
        error = state.data_error
        del state.data_error
        if error:
            st.error(md_escape(error), icon=":material/error:")
            if state.dataset is not None:
                st.caption("The data loaded before stays in use.")

with right:
    dataset = state.dataset
    loaded = state.data_ref or {}
    if table is not None and (dataset is None or loaded.get("ident") != source.ident):
        st.subheader("Preview")
        st.caption(f"{md_escape(source.title)}: the first rows as read and the values of the chosen target. "
                   "Not loaded yet: press **Load data**.")
        st.plotly_chart(charts.preview_figure(table, state.value(tkey)), width="stretch", key="preview_chart")
        st.dataframe(table.head(20), hide_index=True, width="stretch")
        if dataset is not None:
            st.caption(f"In use until then: {md_escape(state.data_label or dataset.name)}")
    elif dataset is None:
        st.info("No data loaded yet. Choose a source on the left and press **Load data**.", icon=":material/info:")
    else:
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
            st.dataframe(rows_frame(dataset, range(min(50, dataset.n_rows))), hide_index=True, width="stretch")
        st.page_link(app.PAGE_FILES["Explain"], label="Next: explain this data", icon=":material/arrow_forward:")
