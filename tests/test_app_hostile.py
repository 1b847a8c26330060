"""The dashboard under a table whose names and labels are Markdown and HTML: every page shows them literally.

Column names, category values and class labels such as ``>50K`` (a block quote),
``# x`` (a heading), ``[a](http://…)`` (a link), ``![i](http://…)`` (an image the
browser would fetch), ``$x$`` (LaTeX) and ``<b>x</b>`` (HTML) go through the Data,
Explain, Rules, Compare and Export pages.  Every element whose text Streamlit
renders as Markdown must hold them only escaped; the tables, the text and the
code blocks must show them as they are.  Also: rows in the table's own values.
"""

from __future__ import annotations

import io
import pathlib

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest
from waits import HANG_S

from explainer.app import rows, sources
from explainer.app import state as app_state
from explainer.app.text import md_escape
from explainer.data import load_dataset, sample_datasets
from explainer.data.tables import read_table
from explainer.selection.solvers import available

ROOT = pathlib.Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
PAGES = ["app.py", "pages/1_Explain.py", "pages/2_Rules.py", "pages/3_Compare.py", "pages/4_Export.py"]

HOSTILE = [">50K", "# x", "[a](http://example.invalid)", "![i](http://example.invalid/i.png)", "$x$", "<b>x</b>"]
TARGET = "<b>x</b>"
#: elements whose text Streamlit shows as it is (not Markdown)
LITERAL = {"text", "code", "dataframe", "arrow_data_frame", "plotly_chart", "json", "exception"}
#: widgets whose option labels are Markdown
MARKDOWN_OPTIONS = {"radio", "button_group"}


def hostile_table(n: int = 160) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    score = rng.normal(size=n)
    kind = rng.choice(["![i](http://example.invalid/i.png)", ">50K", "$x$"], size=n)
    level = np.round(rng.uniform(0, 10, size=n), 1)
    level[rng.random(n) < 0.1] = np.nan
    label = np.where((score > 0) ^ (rng.random(n) < 0.1), ">50K", "# x")
    # "$x$" first: a file starting with "[" is taken for JSON by the reader
    return pd.DataFrame({"$x$": kind, "[a](http://example.invalid)": score,
                         "![i](http://example.invalid/i.png)": level, TARGET: label})


def markdown_texts(at: AppTest) -> list[tuple[str, str]]:
    """(element type, text) of every string Streamlit renders as Markdown on the page."""
    out: list[tuple[str, str]] = []

    def walk(node):
        kind, proto = getattr(node, "type", None), getattr(node, "proto", None)
        if proto is not None and kind not in LITERAL:
            for field in proto.DESCRIPTOR.fields:
                if field.name in ("id", "form_id", "page", "page_script_hash", "icon", "spec", "default", "raw_value",
                                  "value"):  # a widget's value is an option, shown as it is
                    continue
                value = getattr(proto, field.name)
                if isinstance(value, str):
                    out.append((kind, value))
                elif field.name in ("options", "captions") and kind in MARKDOWN_OPTIONS:
                    out.extend((kind, str(v)) for v in value)
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return out


def assert_no_live_markdown(at: AppTest, page: str) -> None:
    texts = markdown_texts(at)
    for table in at.table:  # st.table renders its cells and headers as Markdown
        value = table.value
        texts += [("table", str(v)) for v in [*value.columns, *value.index, *value.astype(str).to_numpy().ravel()]]
    for kind, text in texts:
        for h in HOSTILE:
            assert h not in text.replace(md_escape(h), ""), f"{page}: {kind} renders {h!r} as Markdown: {text!r}"


def literal_texts(at: AppTest) -> str:
    """Everything shown as it is: text, code, and the cells and headers of every table."""
    parts = [e.value for e in at.text] + [e.value for e in at.code]
    for frame in at.dataframe:
        value = frame.value
        parts += [str(c) for c in value.columns]
        parts += [str(v) for v in value.astype(str).to_numpy().ravel()]
    return "\n".join(parts)


@pytest.fixture(scope="module")
def hostile_app():
    """Hostile table loaded on the Data page, pool built and a greedy run finished on the Explain page."""
    names = available()
    algorithm = next((n for n in ("greedy", "rfhc", "qga") if n in names), None)
    if algorithm is None:
        pytest.skip("no selection algorithm is installed")
    at = AppTest.from_file(APP, default_timeout=HANG_S)
    at.run()
    buf = io.StringIO()
    hostile_table().to_csv(buf, index=False)
    source = sources.upload_source("hostile.csv", buf.getvalue().encode())
    at.session_state["w_source_kind"] = "Upload a CSV"
    at.session_state["upload"] = source
    at.session_state[app_state.target_key(source)] = TARGET
    at.run()
    next(b for b in at.button if b.label == "Load data").click().run()
    assert not at.exception
    assert at.session_state["dataset"].target == TARGET
    at.switch_page("pages/1_Explain.py").run()
    at.session_state["w_algorithm"] = algorithm
    at.run()
    next(b for b in at.button if b.label == "Run").click().run()
    job = at.session_state["job"]
    job.join(HANG_S)
    assert job.done and not job.errors[0]
    at.run()
    assert not at.exception and at.session_state["explanation"] is not None
    return at


@pytest.mark.parametrize("page", PAGES)
def test_every_page_shows_hostile_names_literally(hostile_app, page):
    at = hostile_app
    if page == "pages/4_Export.py":
        text = at.session_state["explanation"].report.rules.to_text()
        at.session_state["rules_upload"] = {"name": "# x.txt", "data": text.encode()}
    at.switch_page(page).run()
    assert not at.exception
    assert_no_live_markdown(at, page)
    shown = literal_texts(at)
    if page == "app.py":  # the columns table and the first rows: every name and value as it is
        for h in HOSTILE:
            assert h in shown, h
    if page == "pages/2_Rules.py":
        table = at.dataframe[0].value
        assert set(table["class"]) <= {">50K", "# x"}
        assert {"<b>x</b> (true)", "voted class", "[a](http://example.invalid)", "$x$"} <= set(shown.splitlines())
    if page == "pages/4_Export.py":
        assert at.dataframe[0].value["class"].isin([">50K", "# x"]).all()
        assert "# x.txt" in shown


def test_rows_show_the_tables_own_values():
    # every sample: a row view holds the values as read (gaps as "missing"), and they encode back to the features
    for name, path in sample_datasets().items():
        ds = load_dataset(path)
        raw = read_table(path)
        frame = rows.rows_frame(ds, range(ds.n_rows))
        assert list(frame.columns[:2]) == ["row", f"{ds.target} (true)"]
        assert frame[f"{ds.target} (true)"].tolist() == [str(v) for v in raw[ds.target]]
        for col in ds.encoder.column_values():
            gaps = raw[col.name].isna().to_numpy()
            shown = frame[col.name].to_numpy(dtype=object)
            assert (shown[gaps] == rows.MISSING).all(), (name, col.name)
            if col.numeric:
                assert np.allclose(shown[~gaps].astype(float), raw[col.name][~gaps].astype(float)), (name, col.name)
            else:
                assert shown[~gaps].tolist() == [str(v) for v in raw[col.name][~gaps]], (name, col.name)
        back = ds.encoder.transform(ds.encoder.inverse_transform(ds.X))
        assert np.array_equal(back.to_numpy(), ds.X.to_numpy(), equal_nan=True), name


def test_the_row_editor_builds_only_rows_the_encoder_accepts():
    ds = load_dataset(sample_datasets()["loans"])
    columns = {c.name: c for c in rows.editor_columns(ds)}
    categorical = next(c for c in columns.values() if c.options)
    full = next(c for c in columns.values() if c.values.numeric and not c.values.missing_allowed)
    row = rows.editor_frame(ds, 0)
    encoded, problem = rows.encode_edited(ds, row)
    assert problem == "" and np.array_equal(encoded.to_numpy(), ds.X.iloc[[0]].to_numpy(), equal_nan=True)
    # one-hot features of a categorical column: exactly one is 1 for a value, none for missing
    onehot = [s.name for s in ds.feature_specs if s.column == categorical.name and s.kind == "onehot"]
    for option in categorical.options:
        edited = row.assign(**{categorical.name: option})
        encoded, problem = rows.encode_edited(ds, edited)
        assert problem == ""
        assert encoded[onehot].to_numpy().sum() == (0 if option == rows.MISSING else 1)
    for bad in ("not a value", None):
        if bad is None and categorical.values.missing_allowed:
            continue
        assert rows.encode_edited(ds, row.assign(**{categorical.name: bad}))[0] is None
    encoded, problem = rows.encode_edited(ds, row.assign(**{full.name: np.nan}))
    assert encoded is None and full.name in problem
