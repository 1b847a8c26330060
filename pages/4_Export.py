"""Export page: download the rule set; evaluate a rule file against the current data."""

import streamlit as st

from explainer.app import downloads
from explainer.app import state as app
from explainer.app.text import label, md_escape

state = app.setup("Export")
st.title("Export")
dataset = state.dataset
explanation = state.explanation

with st.container(border=True):
    st.subheader("Download the rule set")
    if explanation is None or dataset is None:
        st.info("Run an explanation first (Explain page); its rules can then be downloaded here.",
                icon=":material/info:")
    else:
        payloads = downloads.export_payloads(explanation, dataset)
        st.caption(
            f"{label(explanation.result.algorithm)} · {explanation.report.n_rules} rules · "
            f"data fingerprint {(explanation.report.fingerprint or dataset.fingerprint)[:16]}…"
        )
        d1, d2, d3, d4, d5 = st.columns(5)
        for col, kind, title, icon, what in (
            (d1, "text", "Rules as text", ":material/description:", "the IF-THEN lines and the ELSE class"),
            (d2, "json", "Report as JSON", ":material/data_object:", "metrics, settings and data fingerprint"),
            (d3, "csv", "Rules as CSV", ":material/table_view:", "one row per rule, safe for spreadsheets"),
            (d4, "sql", "Rules as SQL", ":material/database:", "a CASE WHEN expression over the table's columns"),
            (d5, "python", "Rules as Python", ":material/code:", "a predict(row) function, no imports"),
        ):
            name, mime, content = payloads[kind]
            col.download_button(title, data=content, file_name=name, mime=mime, icon=icon,
                                key=f"download_{kind}", width="stretch", on_click="ignore")
            col.caption(what)
        tabs = st.tabs(["Text", "JSON", "CSV", "SQL", "Python"])
        tabs[0].code(payloads["text"][2] or "(no rules)", language=None)
        tabs[1].code(payloads["json"][2], language="json")
        tabs[2].code(payloads["csv"][2], language=None)
        tabs[3].code(payloads["sql"][2], language="sql")
        tabs[4].code(payloads["python"][2], language="python")


def _remember_rules_upload():
    file = state.rules_upload_widget
    if file is not None:
        state.rules_upload = {"name": file.name, "data": file.getvalue()}


with st.container(border=True):
    st.subheader("Evaluate a rule file")
    if dataset is None:
        st.info("Load data first; a rule file is evaluated against the current data.", icon=":material/info:")
        st.stop()
    rows, holdout, rows_text = downloads.evaluation_rows(dataset, state.split)
    st.caption(
        "One rule per line, e.g. `IF petal_width <= 0.8 THEN CLASS=setosa`, or a RIPPER rule list "
        "(wittgenstein's `ruleset_`, e.g. `[[petal_width=<0.8]]`). The budgets and eps of the "
        f"Explain page are used for the totals, on {rows_text}."
    )
    st.file_uploader("Rule file (.txt)", type=["txt", "rules"], key="rules_upload_widget",
                     on_change=_remember_rules_upload)
    upload = state.rules_upload
    if upload:
        try:
            text = downloads.decode_text(upload["data"])
            ripper_class = None
            if downloads.is_ripper_text(text):
                ripper_class = st.selectbox("A RIPPER rule list: the class its rules predict", dataset.classes,
                                            key="ripper_class", format_func=str)
            report = downloads.evaluate_rule_text(
                text,
                rows,
                complexity_budget=state.bc,
                error_budget=state.be,
                eps=float(state.eps),
                holdout=holdout,
                ripper_class=ripper_class,
            )
        except ValueError as exc:
            st.error("The rule file cannot be used: " + md_escape(str(exc)), icon=":material/error:")
        except Exception as exc:  # never a traceback on the page
            st.error(f"The rule file cannot be used ({type(exc).__name__}).", icon=":material/error:")
        else:
            st.text(f"{upload['name']}: {report.n_rules} rules, evaluated on {rows_text}.")
            e1, e2, e3, e4, e5 = st.columns(5)
            e1.metric("Coverage", f"{100 * report.coverage_score:.2f}%")
            e2.metric("Complexity", report.complexity if report.complexity_budget is None
                      else f"{report.complexity} / {report.complexity_budget}")
            e3.metric("Errors", report.errors if report.error_budget is None
                      else f"{report.errors} / {report.error_budget}")
            e4.metric("Rows covered", f"{report.covered} / {report.n_rows}")
            e5.metric("Within budgets", {True: "yes", False: "no", None: "—"}[report.within_budgets])
            if report.holdout is not None:
                st.caption("The same rules on the training rows and on the held-out rows:")
                st.dataframe(downloads.holdout_frame(report))
            rule_columns = {name: st.column_config.Column(width=width)
                            for name, width in downloads.RULE_COLUMN_WIDTHS.items()}
            st.dataframe(downloads.rules_view(downloads.rules_table(report)), hide_index=True, width="stretch",
                         column_config=rule_columns)
