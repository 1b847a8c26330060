"""Data page: choose a data set, the target column and column overrides."""

import streamlit as st

from explainer import dashboard as db
from explainer.data import DataError

state = st.session_state

st.title("Data")
if state.pop("data_toast", False):
    st.toast("Data loaded", icon=":material/check_circle:")
st.caption(
    "Pick a bundled sample, one of the paper's data sets or your own CSV. "
    "The last column is the target unless you choose another one."
)

samples = db.sample_sources()
papers = db.paper_sources()
kinds = ["Bundled sample"] + (["Paper data set"] if papers else []) + ["Upload a CSV"]
if state.get("w_source_kind") not in kinds:
    state["w_source_kind"] = kinds[0]


def _remember_upload():
    file = state.get("data_upload_widget")
    if file is not None:
        state[db.KEYS["upload"]] = {"name": file.name, "data": file.getvalue()}


left, right = st.columns([2, 3], gap="large")
with left:
    kind = st.radio("Source", kinds, index=kinds.index(state["w_source_kind"]), key="w_source_kind", horizontal=True)
    source = None
    if kind == "Bundled sample":
        if samples:
            names = [s.name for s in samples]
            if state.get("w_sample") not in names:
                state["w_sample"] = names[0]
            chosen = st.selectbox("Sample", names, index=names.index(state["w_sample"]), key="w_sample")
            source = next(s for s in samples if s.name == chosen)
        else:
            st.warning("No bundled samples were found in sample_data/.")
    elif kind == "Paper data set":
        names = [s.name for s in papers]
        if state.get("w_paper") not in names:
            state["w_paper"] = names[0]
        chosen = st.selectbox(
            "Data set",
            names,
            index=names.index(state["w_paper"]),
            key="w_paper",
            format_func=lambda n: db.PAPER_DATASETS[n]["title"],
        )
        source = next(s for s in papers if s.name == chosen)
    else:
        st.file_uploader(
            "CSV file (header row, one row per example)",
            type=["csv", "tsv", "txt"],
            key="data_upload_widget",
            on_change=_remember_upload,
        )
        upload = state.get(db.KEYS["upload"])
        if upload:
            source = db.upload_source(upload["name"], upload["data"])
        else:
            st.info("Drop a CSV file above. Nothing is executed from the file; it is read as text.")

    table = None
    if source is not None:
        try:
            table = db.cached_table(source)
        except DataError as exc:
            st.error(db.md_escape(exc), icon=":material/error:")
            if state.get(db.KEYS["dataset"]) is not None:
                st.caption("The data loaded before stays in use.")
        except Exception as exc:  # never a traceback on the page
            st.error(f"The file could not be read ({type(exc).__name__}).", icon=":material/error:")

    if table is not None:
        columns = [str(c) for c in table.columns]
        sid = source.ident
        default_target = source.default_target if source.default_target in columns else columns[-1]
        fid = db.digest(sid.encode())[:12]
        if state.get(f"w_target_{fid}") not in columns:
            state[f"w_target_{fid}"] = default_target
        def kept(key):
            return [c for c in state.get(key, []) if c in columns]

        with st.form(f"load_form_{fid}", border=True):
            st.caption(f"{len(table)} rows × {len(columns)} columns read")
            target = st.selectbox(
                "Target column (the class)",
                columns,
                index=columns.index(state[f"w_target_{fid}"]),
                key=f"w_target_{fid}",
            )
            others = [c for c in columns if c != target]
            with st.expander("Column overrides", expanded=False):
                categorical = st.multiselect(
                    "Treat as categorical", columns, default=kept(f"w_categorical_{fid}"), key=f"w_categorical_{fid}", help="Numeric columns to one-hot encode (codes, not amounts)."
                )
                exclude = st.multiselect("Exclude", columns, default=kept(f"w_exclude_{fid}"), key=f"w_exclude_{fid}", help="Columns to leave out entirely.")
                keep = st.multiselect(
                    "Keep", columns, default=kept(f"w_keep_{fid}"), key=f"w_keep_{fid}", help="Columns to use even though they look like identifiers."
                )
            submitted = st.form_submit_button("Load data", type="primary", icon=":material/upload:")
        if submitted:
            ok, message = db.try_load(
                state,
                source,
                target=target,
                categorical=[c for c in categorical if c in others],
                exclude=[c for c in exclude if c in others],
                keep=[c for c in keep if c in others],
            )
            if ok:
                state["data_toast"] = True
                st.rerun()  # the sidebar, drawn before this page, shows the new data
            else:
                state["data_error"] = message
        error = state.pop("data_error", None)
        if error:
            st.error(db.md_escape(error), icon=":material/error:")
            if state.get(db.KEYS["dataset"]) is not None:
                st.caption("The data loaded before stays in use.")

with right:
    dataset = state.get(db.KEYS["dataset"])
    if dataset is None:
        st.info("No data loaded yet. Choose a source on the left and press **Load data**.", icon=":material/info:")
        if table is not None:
            st.subheader("Preview")
            st.caption("The first rows as read, and the classes of the default target column.")
            st.plotly_chart(db.preview_figure(table, state.get(f"w_target_{fid}", default_target)), width="stretch", key="preview_chart")
            st.dataframe(table.head(20), hide_index=True, width="stretch")
    else:
        st.subheader("Loaded data")
        st.text(state.get(db.KEYS["data_label"], dataset.name))
        c1, c2, c3, c4 = st.columns(4)
        c1.metric("Rows", dataset.n_rows)
        c2.metric("Features", dataset.n_features)
        c3.metric("Classes", len(dataset.classes))
        c4.metric(
            "Incomplete rows",
            dataset.n_rows_with_missing,
            help="Rows with at least one missing feature value (kept; 'is missing' indicator features are added).",
        )
        if dataset.n_dropped_missing_target:
            st.warning(f"{dataset.n_dropped_missing_target} rows without a target value were dropped.")
        st.plotly_chart(db.class_distribution_figure(dataset), width="stretch")
        st.markdown("**Columns** — how each column is used")
        st.dataframe(db.columns_frame(dataset), hide_index=True, width="stretch")
        with st.expander("Feature matrix (first 50 rows)"):
            st.dataframe(db.rows_frame(dataset, range(min(50, dataset.n_rows))), hide_index=True, width="stretch")
        st.page_link("app_pages/explain.py", label="Next: explain this data", icon=":material/arrow_forward:")
