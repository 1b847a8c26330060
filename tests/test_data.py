"""Tests for explainer.data: reading tables and preparing data sets."""

from __future__ import annotations

import hashlib
import io
import json
import pathlib
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import explainer
from explainer.data import (
    PAPER_DATASETS,
    ColumnInfo,
    DataError,
    Dataset,
    load_dataset,
    load_paper_dataset,
    paper_data_dir,
    read_table,
    sample_datasets,
)
from explainer.data.labels import encode_labels
from explainer.data.sources import find_source, load_source, paper_sources, unknown_source_message

BAD = pathlib.Path(__file__).parent / "bad_inputs"


def csv_bytes(text: str) -> bytes:
    return text.encode("utf-8")


def info(ds: Dataset, column: str) -> ColumnInfo:
    return next(c for c in ds.columns if c.name == column)


# --------------------------------------------------------------------------- read_table


def test_read_table_numeric_and_text_columns():
    df = read_table(csv_bytes("a,b,c\n1,2.5,x\n3,4,y\n"))
    assert list(df.columns) == ["a", "b", "c"]
    assert df["a"].dtype == np.int64
    assert df["b"].dtype == np.float64
    assert list(df["c"]) == ["x", "y"]


def test_read_table_keeps_one_string_object_per_distinct_text_value():
    # (values of two letters: CPython keeps one object for each single character anyway)
    df = read_table(csv_bytes("a,b,c\n1, xx ,uu\n2,yy,?\n3,xx,1\n4,,uu\n5,yy,uu\n"))
    b = df["b"].tolist()
    assert b[:3] == ["xx", "yy", "xx"] and np.isnan(b[3]) and b[4] == "yy"
    assert b[0] is b[2] and b[1] is b[4]  # equal cells share their string
    assert all(type(v) is str for v in b if v == v)
    c = df["c"].tolist()
    assert c[0] == "uu" and np.isnan(c[1]) and c[2] == "1" and c[0] is c[3] is c[4]
    assert df["b"].dtype == object and df["c"].dtype == object


def test_read_table_sharing_leaves_mixed_objects_as_they_are():
    from explainer.data.tables import _shared_strings

    mixed = pd.Series([1, True, "1", 1.0, "1"], dtype=object, name="m")
    out = _shared_strings(mixed)
    assert out is mixed  # 1 == True == 1.0: no factorising across types
    text = pd.Series(["pq", np.nan, "".join(["p", "q"])], dtype=object, name="t", index=[5, 6, 7])
    shared = _shared_strings(text)
    assert shared.index.tolist() == [5, 6, 7] and shared.name == "t" and shared[5] is shared[7]
    assert text[5] is not text[7] and shared[5] == "pq" and np.isnan(shared[6])


@pytest.mark.parametrize(
    "marker", ["?", "", "  ", "NA", "N/A", "NaN", "nan", "null", "NULL", "None"]
)
def test_missing_markers(marker):
    df = read_table(csv_bytes(f"a,b,c\n1,{marker},x\n3,4,y\n"))
    assert np.isnan(df["b"][0])
    assert df["b"][1] == 4
    assert df["b"].dtype == np.float64


def test_missing_markers_in_text_column():
    df = read_table(csv_bytes("a,b\n1,?\n2,x\n3,\n4,null\n"))
    assert df["b"].isna().tolist() == [True, False, True, True]


def test_numbers_with_thousands_separators_are_numbers():
    """A spreadsheet's "1,234" (quoted in the CSV) is the number 1234, not a text column taken for an identifier;
    a column that only looks so in part stays text."""
    df = read_table(csv_bytes('age,income,code,class\n30,"1,000",7,a\n41,"12,345.5",8,b\n52,800,"1,2",a\n'
                              '23,"-2,234",9,b\n'))
    assert df["income"].tolist() == [1000.0, 12345.5, 800.0, -2234.0] and df["income"].dtype == np.float64
    assert df["code"].dtype == object and df["code"].tolist() == ["7", "8", "1,2", "9"]
    assert df.attrs["notes"] == ["Read numbers written with thousands separators (1,234 = 1234) in 1 column: 'income'."]
    # a file delimited otherwise writes decimal commas: "0,125" and "1,500" are 0.125 and 1.5 there
    df = read_table(csv_bytes("x;y;class\n0,125;1,500;a\n2,25;3;b\n"))
    assert df["x"].tolist() == [0.125, 2.25] and df["y"].tolist() == [1.5, 3.0]


def test_whitespace_is_stripped_so_padded_numbers_are_numbers():
    df = read_table(csv_bytes("Recency,Frequency,class\n2 ,50,1\n 0, 13 , 0\n"))
    assert df["Recency"].tolist() == [2, 0]
    assert df["Recency"].dtype == np.int64
    assert df["class"].tolist() == [1, 0]


def test_header_names_are_stripped_but_otherwise_verbatim():
    df = read_table(csv_bytes(" Sample code number , OD280/OD315 of wines ,class\n1,2,3\n4,5,6\n"))
    assert list(df.columns) == ["Sample code number", "OD280/OD315 of wines", "class"]


@pytest.mark.parametrize(
    "text",
    [
        "a;b;class\n1,5;2;x\n3,5;4;y\n",
        "a\tb\tclass\n1.5\t2\tx\n3.5\t4\ty\n",
        "a|b|class\n1.5|2|x\n3.5|4|y\n",
        "a b class\n1.5   2 x\n 3.5 4\ty\n",
        "a,b,class\n1.5,2,x\n3.5,4,y\n",
    ],
    ids=["semicolon", "tab", "pipe", "whitespace", "comma"],
)
def test_delimiter_sniffing(text):
    df = read_table(csv_bytes(text))
    assert list(df.columns) == ["a", "b", "class"]
    assert len(df) == 2
    assert list(df["class"]) == ["x", "y"]
    if "," not in text.splitlines()[1] or "|" in text or "\t" in text:
        assert df["a"].tolist() == [1.5, 3.5]


def test_semicolon_with_decimal_commas_reads_numbers_and_says_so():
    df = read_table(csv_bytes("a;b;class\n1,5;2;x\n3,5;4;y\n"))
    assert df["a"].tolist() == [1.5, 3.5]
    assert df["b"].tolist() == [2, 4]
    assert df.attrs["notes"] == ["Read numbers written with decimal commas (1,5 = 1.5) in 1 column: 'a'."]


@pytest.mark.parametrize("text", [
    "a;b;class\n1,5;2;x\n3,5;4;y\n2,5;NA;x\n",  # decimal commas, a missing marker
    "age,job,class\n31, clerk ,yes\n45,?,no\n28,nurse,yes\n",  # padded text, '?' for missing
])
def test_a_table_read_once_loads_as_its_file_does(text):
    """The dashboard encodes the table its preview read rather than parsing the file again: the same
    data set, notes included."""
    from_file = load_dataset(csv_bytes(text), target="class")
    from_table = load_dataset(read_table(csv_bytes(text)), target="class")
    assert from_table.fingerprint == from_file.fingerprint
    assert from_table.X.equals(from_file.X) and list(from_table.y) == list(from_file.y)
    assert from_table.notes == from_file.notes
    assert [c.name for c in from_table.columns] == [c.name for c in from_file.columns]


def test_quoted_fields_with_delimiters_and_newlines():
    df = read_table(csv_bytes('name,note,class\n"Smith, J","two\nlines",a\nLee,plain,b\n'))
    assert df["name"].tolist() == ["Smith, J", "Lee"]
    assert df["note"][0] == "two\nlines"


def test_bom_crlf_and_blank_lines():
    raw = "\ufeffa,b,class\r\n1,2,x\r\n\r\n3,4,y\r\n".encode()
    df = read_table(raw)
    assert list(df.columns) == ["a", "b", "class"]
    assert len(df) == 2


def test_sources_path_bytes_and_file_likes(tmp_path):
    text = "a,b,class\n1,2,x\n3,4,y\n"
    p = tmp_path / "t.csv"
    p.write_text(text)
    expected = read_table(p)
    pd.testing.assert_frame_equal(read_table(str(p)), expected)
    pd.testing.assert_frame_equal(read_table(text.encode()), expected)
    pd.testing.assert_frame_equal(read_table(io.BytesIO(text.encode())), expected)
    pd.testing.assert_frame_equal(read_table(io.StringIO(text)), expected)

    class Uploaded(io.BytesIO):  # like Streamlit's UploadedFile
        name = "upload.csv"

    up = Uploaded(text.encode())
    pd.testing.assert_frame_equal(read_table(up), expected)
    assert load_dataset(Uploaded(text.encode())).name == "upload"


def test_trailing_delimiter_empty_column_is_dropped():
    df = read_table(csv_bytes("a,b,class,\n1,2,x,\n3,4,y,\n"))
    assert list(df.columns) == ["a", "b", "class"]


def test_html_and_script_in_cells_are_plain_data():
    text = (
        "comment,score,class\n"
        '"<script>alert(1)</script>",1,a\n'
        "<b>bold</b>,2,b\n"
        "\"=cmd|' /C calc'!A0\",3,a\n"
        "{{7*7}},4,b\n"
        "__import__('os'),5,a\n"
    )
    ds = load_dataset(csv_bytes(text), exclude=[])
    df = read_table(csv_bytes(text))
    assert df["comment"][0] == "<script>alert(1)</script>"
    assert df["comment"][3] == "{{7*7}}"
    assert "comment=<script>alert(1)</script>" in ds.feature_names
    assert ds.n_rows == 5


# --------------------------------------------------------------------------- load_dataset


def test_numeric_stays_numeric_and_target_default_is_last():
    ds = load_dataset(csv_bytes("a,b,label\n1,2.5,x\n3,4.5,y\n5,6.5,x\n"))
    assert ds.target == "label"
    assert ds.feature_names == ["a", "b"]
    assert ds.X.dtypes.tolist() == [np.float64, np.float64]
    assert ds.X["b"].tolist() == [2.5, 4.5, 6.5]
    assert info(ds, "a").kind == "numeric"
    assert info(ds, "label").kind == "target"
    assert ds.n_rows == 3 and ds.n_features == 2


def test_one_hot_names_and_values_sorted():
    ds = load_dataset(csv_bytes("colour,n,class\nred,1,a\nblue,2,b\ngreen,3,a\nred,4,b\n?,5,a\n"))
    assert ds.feature_names == [
        "colour=blue",
        "colour=green",
        "colour=red",
        "colour is missing",
        "n",
    ]
    assert ds.X["colour=red"].tolist() == [1, 0, 0, 1, 0]
    assert ds.X["colour=blue"].tolist() == [0, 1, 0, 0, 0]
    # a missing cell is 0 in every one-hot feature of its column
    assert ds.X.loc[4, ["colour=blue", "colour=green", "colour=red"]].tolist() == [0, 0, 0]
    assert ds.X["colour is missing"].tolist() == [0, 0, 0, 0, 1]
    c = info(ds, "colour")
    assert c.kind == "categorical" and c.n_missing == 1 and c.n_unique == 3
    assert c.features == ["colour=blue", "colour=green", "colour=red", "colour is missing"]
    assert set(np.unique(ds.X.to_numpy())) >= {0.0, 1.0}


def test_categorical_override_for_integer_codes():
    text = "Margin,Age,Severity\n" + "".join(
        f"{m},{40 + i},{i % 2}\n" for i, m in enumerate([1, 5, 10, 5, 1, 2, 10, 2])
    )
    ds = load_dataset(csv_bytes(text), categorical=["Margin"])
    assert [f for f in ds.feature_names if f.startswith("Margin")] == [
        "Margin=1",
        "Margin=2",
        "Margin=5",
        "Margin=10",
    ]
    assert ds.X["Margin=5"].tolist() == [0, 1, 0, 1, 0, 0, 0, 0]
    assert info(ds, "Margin").kind == "categorical"
    plain = load_dataset(csv_bytes(text))
    assert "Margin" in plain.feature_names


def test_numeric_missing_stays_nan_and_rows_are_kept():
    ds = load_dataset(csv_bytes("a,b,class\n1,?,x\n,2,y\n3,4,x\n5,6,y\n"))
    assert ds.n_rows == 4
    assert np.isnan(ds.X["b"][0]) and np.isnan(ds.X["a"][1])
    assert ds.feature_names == ["a", "a is missing", "b", "b is missing"]
    assert ds.X["a is missing"].tolist() == [0, 1, 0, 0]
    assert ds.n_rows_with_missing == 2


@pytest.mark.parametrize("setting", ["auto", True])
def test_missing_indicators_on(setting):
    ds = load_dataset(csv_bytes("a,b,class\n1,?,x\n2,2,y\n3,5,x\n"), missing_indicators=setting)
    assert ds.feature_names == ["a", "b", "b is missing"]


def test_missing_indicators_off():
    ds = load_dataset(csv_bytes("a,b,class\n1,?,x\n2,2,y\n3,5,x\n"), missing_indicators=False)
    assert ds.feature_names == ["a", "b"]
    assert ds.n_rows_with_missing == 1


def test_missing_target_rows_dropped_and_counted():
    ds = load_dataset(csv_bytes("a,b,class\n1,2,x\n3,4,?\n5,6,\n7,8,y\n9,10,NA\n"))
    assert ds.n_rows_read == 5
    assert ds.n_dropped_missing_target == 3
    assert ds.n_rows == 2
    assert ds.y.tolist() == ["x", "y"]
    assert info(ds, "class").n_missing == 0


def test_string_labels_stay_strings():
    ds = load_dataset(csv_bytes("a,class\n1,yes\n2,no\n3,yes\n"))
    assert ds.y.tolist() == ["yes", "no", "yes"]
    assert all(isinstance(v, str) for v in ds.y)
    assert ds.classes == ["no", "yes"]
    assert ds.y_codes().tolist() == [1, 0, 1]


def test_integer_labels_stay_integers_and_first_column_target():
    ds = load_dataset(csv_bytes("class,a,b\n1,0.5,2\n3,0.7,1\n2,0.1,5\n3,0.2,2\n"), target="class")
    assert ds.y.dtype.kind == "i"
    assert ds.y.tolist() == [1, 3, 2, 3]
    assert ds.classes == [1, 2, 3]
    assert ds.y_codes().tolist() == [0, 2, 1, 2]
    assert ds.feature_names == ["a", "b"]


def test_target_by_position():
    text = "class,a,b\n1,0.5,2\n3,0.7,1\n"
    assert load_dataset(csv_bytes(text), target=0).target == "class"
    assert load_dataset(csv_bytes(text), target=-1).target == "b"


def test_unknown_target_names_available_columns():
    with pytest.raises(DataError, match="'nope' was not found.*'a', 'b', 'class'"):
        load_dataset(csv_bytes("a,b,class\n1,2,x\n3,4,y\n"), target="nope")
    with pytest.raises(DataError, match="out of range"):
        load_dataset(csv_bytes("a,b,class\n1,2,x\n3,4,y\n"), target=7)


def test_mixed_labels_from_dataframe_sorted_by_str():
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "t": [10, "b", 2, "b"]})
    ds = load_dataset(df)
    assert ds.classes == [10, 2, "b"]
    assert ds.y.tolist() == [10, "b", 2, "b"]
    assert ds.y_codes().tolist() == [0, 2, 1, 2]
    json.dumps(ds.summary())


def test_labels_of_different_types_stay_apart():
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0, 5.0], "t": [1, "1", 1, True, "1"]})
    ds = load_dataset(df)
    assert len(ds.classes) == 3
    codes = ds.y_codes()
    assert codes[0] == codes[2] and codes[1] == codes[4]
    assert len(set(codes.tolist())) == 3


def test_encode_labels_by_hand():
    """The one label coder (data set, pool and report call it): sorted classes, codes by type and value."""
    codes, classes = encode_labels(np.array(["b", "a", "c", "a"]))
    assert classes == ["a", "b", "c"] and codes.tolist() == [1, 0, 2, 0]
    codes, classes = encode_labels(np.array([3, 1, 3, 2]))
    assert classes == [1, 2, 3] and codes.tolist() == [2, 0, 2, 1]
    assert all(type(c) is int for c in classes)  # numpy scalars read as Python values
    codes, _ = encode_labels(np.array([2.0, 1.0]), classes=[np.float64(1.0), np.float64(2.0)])
    assert codes.tolist() == [1, 0]
    mixed = np.array([1, "1", True, 1], dtype=object)
    codes, classes = encode_labels(mixed)
    assert len(classes) == 3 and codes[0] == codes[3] and len(set(codes.tolist())) == 3
    codes, classes = encode_labels(np.array([], dtype=object))
    assert classes == [] and codes.tolist() == []
    with pytest.raises(ValueError, match="label 'd' is not one of the classes"):
        encode_labels(np.array(["a", "d"]), classes=["a", "b"])
    with pytest.raises(ValueError, match="label '1' is not one of the classes"):
        encode_labels(np.array(["1"], dtype=object), classes=[1])  # the text "1" is not the number 1


def test_large_table_reads(tmp_path):
    rng = np.random.default_rng(1)
    n = 20_000
    values = rng.random((n, 3))
    lines = ["a,b,c,class"] + [
        f"{r[0]:.4f},{r[1]:.4f},{r[2]:.4f},{'xy'[i % 2]}" for i, r in enumerate(values)
    ]
    ds = load_dataset("\n".join(lines).encode())
    assert ds.X.shape == (n, 3)
    np.testing.assert_allclose(ds.X.to_numpy(), np.round(values, 4))


def _id_table(ids, n_classes=2):
    return "id,x,class\n" + "".join(
        f"{v},{(i * 7) % 5},{'abc'[i % n_classes]}\n" for i, v in enumerate(ids)
    )


def test_identifier_detection_strings_and_integers():
    names = [f"animal{i}" for i in range(19)] + ["animal3"]  # one duplicate
    ds = load_dataset(csv_bytes(_id_table(names)))
    assert info(ds, "id").kind == "identifier"
    assert info(ds, "id").features == []
    assert "id" not in " ".join(ds.feature_names)
    ints = load_dataset(csv_bytes(_id_table([100 + 3 * i for i in range(12)])))
    assert info(ints, "id").kind == "identifier"


def test_identifier_with_missing_cells_is_still_identifier():
    ids = [str(i) for i in range(15)] + [""] * 10
    ds = load_dataset(csv_bytes(_id_table(ids)))
    assert info(ds, "id").kind == "identifier"
    assert "id is missing" not in ds.feature_names


def test_not_identifier_floats_few_rows_or_repeats():
    floats = load_dataset(csv_bytes(_id_table([0.5 + i for i in range(20)])))
    assert info(floats, "id").kind == "numeric"
    # under 10 rows, distinct values alone do not make an identifier; a name like "id" does
    few = load_dataset(csv_bytes(_id_table([f"n{i}" for i in range(9)]).replace("id,", "tag,", 1)))
    assert info(few, "tag").kind == "categorical"
    few_id = load_dataset(csv_bytes(_id_table([f"n{i}" for i in range(9)])))
    assert info(few_id, "id").kind == "identifier"
    repeats = load_dataset(csv_bytes(_id_table([i % 10 for i in range(30)])))
    assert info(repeats, "id").kind == "numeric"


def test_keep_overrides_identifier_detection():
    ds = load_dataset(csv_bytes(_id_table([100 + 3 * i for i in range(12)])), keep=["id"])
    assert info(ds, "id").kind == "numeric"
    assert "id" in ds.feature_names


def test_exclude_drops_column():
    ds = load_dataset(csv_bytes("a,b,class\n1,2,x\n3,4,y\n"), exclude=["b"])
    assert ds.feature_names == ["a"]
    b = info(ds, "b")
    assert b.features == [] and b.excluded and b.kind == "numeric"
    with pytest.raises(DataError, match="not found"):
        load_dataset(csv_bytes("a,b,class\n1,2,x\n3,4,y\n"), exclude=["zzz"])
    with pytest.raises(DataError, match="cannot also be excluded"):
        load_dataset(csv_bytes("a,b,class\n1,2,x\n3,4,y\n"), exclude=["class"])


def test_constant_columns_dropped():
    ds = load_dataset(csv_bytes("a,k,e,class\n1,7,,x\n2,7,?,y\n3,?,,x\n"))
    assert ds.feature_names == ["a"]
    assert info(ds, "k").kind == "constant"
    assert info(ds, "e").kind == "all missing"
    assert ds.n_rows_with_missing == 0


def test_feature_names_sanitised_and_unique():
    df = pd.DataFrame(
        {
            "size AND shape": [1.0, 2.0, 3.0],
            "multi\nline": ["p", "q", "p"],
            "c": ["x", "y", "x"],
        }
    )
    ds = load_dataset(df, target="c")
    assert ds.feature_names == ["size and shape", "multi line=p", "multi line=q"]
    assert info(ds, "size AND shape").name == "size AND shape"
    for f in ds.feature_names:
        assert " AND " not in f and "\n" not in f
    clash = pd.DataFrame({"a=1": [0.0, 1.0, 2.0], "a": [1, 2, 1], "c": ["x", "y", "x"]})
    ds2 = load_dataset(clash, target="c", categorical=["a"])
    assert len(set(ds2.feature_names)) == len(ds2.feature_names)
    assert ds2.feature_names == ["a=1", "a=1 (2)", "a=2"]
    assert info(ds2, "a").features == ["a=1 (2)", "a=2"]


def test_dataframe_source_is_normalised():
    df = pd.DataFrame(
        {
            "num_as_text": ["1", " 2 ", "?", "4"],
            "cat": ["u", None, "v", "u"],
            "flag": [True, False, True, False],
            "t": pd.array(["a", "b", "a", "b"], dtype="string"),
        }
    )
    ds = load_dataset(df)
    assert info(ds, "num_as_text").kind == "numeric"
    assert ds.X["num_as_text"].tolist()[:2] == [1.0, 2.0]
    assert np.isnan(ds.X["num_as_text"][2])
    assert ds.X["flag"].tolist() == [1.0, 0.0, 1.0, 0.0]
    assert ds.X["cat=u"].tolist() == [1, 0, 0, 1]
    assert ds.y.tolist() == ["a", "b", "a", "b"] and isinstance(ds.y[0], str)
    with pytest.raises(DataError, match="duplicated"):
        load_dataset(pd.DataFrame([[1, 2, 3]], columns=["a", "a", "c"]))


def test_fingerprint_depends_on_content_only(tmp_path):
    text = "a,b,class\n1,?,x\n3,4,y\n5,6,x\n"
    p = tmp_path / "one.csv"
    p.write_text(text)
    a = load_dataset(p)
    b = load_dataset(csv_bytes(text.replace(",", ";")), name="other")
    assert a.fingerprint == b.fingerprint
    assert len(a.fingerprint) == 64
    c = load_dataset(csv_bytes(text.replace("3,4", "3,5")))
    d = load_dataset(csv_bytes(text.replace("y", "z")))
    e = load_dataset(csv_bytes(text.replace("a,b", "a,bb")))
    assert len({a.fingerprint, c.fingerprint, d.fingerprint, e.fingerprint}) == 4


def test_summary_is_json_serialisable():
    ds = load_dataset(
        csv_bytes(
            "id,colour,n,class\n"
            + "".join(
                f"r{i},{'rg'[i % 2]},{'?' if i == 3 else i % 4},{1 + i % 3}\n" for i in range(12)
            )
        )
    )
    s = json.loads(json.dumps(ds.summary()))
    assert s["rows"] == 12 and s["features"] == ds.n_features
    assert s["classes"] == [
        {"label": 1, "count": 4},
        {"label": 2, "count": 4},
        {"label": 3, "count": 4},
    ]
    assert s["dropped_missing_target"] == 0
    assert s["rows_with_missing"] == 1
    assert s["column_kinds"] == {
        "id": "identifier",
        "colour": "categorical",
        "n": "numeric",
        "class": "target",
    }


def test_y_and_X_aligned_after_dropping():
    ds = load_dataset(csv_bytes("a,class\n1,x\n2,?\n3,y\n4,x\n"))
    assert ds.X["a"].tolist() == [1, 3, 4]
    assert ds.y.tolist() == ["x", "y", "x"]
    assert list(ds.X.index) == [0, 1, 2]


# --------------------------------------------------------------------------- bad inputs

# The corpus of bad and awkward files, and its test, is in tests/test_corpus.py.


def test_data_error_is_value_error():
    assert issubclass(DataError, ValueError)


def test_read_table_errors_do_not_need_target():
    with pytest.raises(DataError, match="no data rows"):
        read_table(BAD / "header_only.csv")
    with pytest.raises(DataError, match="does not exist"):
        read_table(BAD / "missing-file.csv")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300))
def test_random_bytes_never_crash(data):
    try:
        ds = load_dataset(data)
    except DataError:
        return
    assert ds.n_rows > 0 and ds.n_features > 0 and len(ds.classes) >= 2


_cell = st.sampled_from(["1", "2.5", "x", "y", "?", "", " 3 ", '"a,b"', "NA", "-1e3", "z z"])


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(
    st.integers(2, 5).flatmap(
        lambda w: st.lists(st.lists(_cell, min_size=w, max_size=w), min_size=1, max_size=12)
    ),
    st.sampled_from([",", ";", "\t", "|"]),
)
def test_random_tables_load_or_raise_data_error(rows, sep):
    header = sep.join(f"c{i}" for i in range(len(rows[0])))
    body = "\n".join(sep.join(r) for r in rows)
    try:
        ds = load_dataset(f"{header}\n{body}\n".encode())
    except DataError:
        return
    assert ds.X.shape == (len(ds.y), ds.n_features)
    _check_encoded_types(ds)
    assert len(set(ds.feature_names)) == ds.n_features


def _check_encoded_types(ds) -> None:
    """Numeric features as float64; one-hot features and missing indicators, 0 or 1, as uint8."""
    expected = [np.uint8 if s.kind in ("onehot", "missing") else np.float64 for s in ds.feature_specs]
    assert list(ds.X.dtypes) == expected
    binary = ds.X[[s.name for s in ds.feature_specs if s.kind != "numeric"]].to_numpy()
    assert set(np.unique(binary).tolist()) <= {0, 1}


# --------------------------------------------------------------------------- bundled samples


def test_sample_datasets_load():
    samples = sample_datasets()
    assert set(samples) >= {"iris", "wine", "loans"}
    iris = load_dataset(samples["iris"])
    assert iris.n_rows == 150 and iris.n_features == 4
    assert iris.classes == ["setosa", "versicolor", "virginica"]
    assert list(iris.X.columns) == ["sepal_length", "sepal_width", "petal_length", "petal_width"]
    wine = load_dataset(samples["wine"])
    assert wine.n_rows == 178 and wine.n_features == 13 and wine.target == "class"
    assert len(wine.classes) == 3
    loans = load_dataset(samples["loans"], categorical=["region"])
    assert 300 <= loans.n_rows <= 500
    assert info(loans, "applicant_id").kind == "identifier"
    assert info(loans, "region").kind == "categorical"
    assert {c.kind for c in loans.columns} >= {"numeric", "categorical", "identifier", "target"}
    assert len(loans.classes) == 3 and all(isinstance(c, str) for c in loans.classes)
    assert loans.n_rows_with_missing > 0
    assert any(f.endswith(" is missing") for f in loans.feature_names)


def test_find_source_tries_a_file_then_a_sample_then_a_paper_data_set(tmp_path, monkeypatch):
    """The one lookup of a name (command line and dashboard), against a directory made here."""
    papers = tmp_path / "papers"
    papers.mkdir()
    (papers / PAPER_DATASETS["wine"]["file"]).write_text("")
    iris = find_source("iris")
    assert (iris.kind, iris.path) == ("sample", sample_datasets()["iris"]) and iris.available
    wine = find_source("wine", ("paper",), papers)
    assert (wine.kind, wine.path, wine.target) == ("paper", papers / "wine.csv", "class") and wine.available
    zoo = find_source("zoo", data_dir=papers)  # known by name, its file absent
    assert zoo.kind == "paper" and not zoo.available
    assert [s.name for s in paper_sources(papers)] == ["wine"]
    assert find_source("iris", ("paper",)).kind == "paper"  # a name both stand for: the kinds asked, in order
    local = tmp_path / "iris"
    local.write_text("a,class\n1,x\n2,y\n")
    monkeypatch.chdir(tmp_path)
    assert find_source("iris").kind == "file"  # a file of that name comes first
    assert find_source("iris", ("sample", "paper")).kind == "sample"
    assert find_source("no_such_thing") is None
    message = unknown_source_message("no_such_thing")
    assert "'no_such_thing'" in message and "iris" in message and "tic_tac_toe" in message
    with pytest.raises(DataError, match="'zoo.csv' is missing"):
        load_source(zoo)
    assert load_source(find_source("iris", ("sample",))).n_rows == 150


def test_loans_sample_is_learnable():
    from sklearn.model_selection import cross_val_score
    from sklearn.tree import DecisionTreeClassifier

    ds = load_dataset(sample_datasets()["loans"], categorical=["region"])
    score = cross_val_score(
        DecisionTreeClassifier(max_depth=4, random_state=0), ds.X.fillna(-1), ds.y_codes(), cv=5
    ).mean()
    assert score > 0.7


# --------------------------------------------------------------------------- paper data sets

# name -> (rows, features, class counts, identifier columns)
PAPER_EXPECTED = {
    "iris": (150, 4, {"Iris-setosa": 50, "Iris-versicolor": 50, "Iris-virginica": 50}, []),
    "wine": (178, 13, {1: 59, 2: 71, 3: 48}, []),
    "zoo": (101, 16, {1: 41, 2: 20, 3: 5, 4: 13, 5: 4, 6: 8, 7: 10}, ["animal name"]),
    "breast_cancer_wisconsin": (699, 10, {2: 458, 4: 241}, ["Sample code number"]),
    "banknote": (1372, 4, {0: 762, 1: 610}, []),
    "hayes_roth": (160, 4, {1: 65, 2: 64, 3: 31}, ["name"]),
    "mammographic_masses": (961, 10, {0: 516, 1: 445}, []),
    "blood_transfusion": (748, 4, {0: 570, 1: 178}, []),
    "ecoli": (
        336,
        7,
        {"cp": 143, "im": 77, "pp": 52, "imU": 35, "om": 20, "omL": 5, "imL": 2, "imS": 2},
        ["Sequence Name"],
    ),
    "tic_tac_toe": (958, 27, {"positive": 626, "negative": 332}, []),
}


def test_paper_dataset_table():
    assert set(PAPER_DATASETS) == set(PAPER_EXPECTED)
    assert PAPER_DATASETS["wine"]["target"] == "class"
    assert PAPER_DATASETS["mammographic_masses"]["target"] == "Severity"
    for spec in PAPER_DATASETS.values():
        assert set(spec) >= {"file", "target", "title"}


@pytest.mark.parametrize("name", sorted(PAPER_EXPECTED))
def test_paper_datasets(paper_datasets_dir, name):
    rows, n_features, counts, identifiers = PAPER_EXPECTED[name]
    ds = load_paper_dataset(name, paper_datasets_dir)
    assert ds.name == name
    assert ds.n_rows == rows == ds.n_rows_read
    assert ds.n_dropped_missing_target == 0
    assert ds.n_features == n_features
    assert ds.class_counts() == counts
    assert sorted(c.name for c in ds.columns if c.kind == "identifier") == identifiers
    _check_encoded_types(ds)
    assert ds.X.shape == (rows, n_features)
    json.dumps(ds.summary())


def test_paper_dataset_details(paper_datasets_dir):
    wine = load_paper_dataset("wine", paper_datasets_dir)
    assert wine.y.dtype.kind == "i" and wine.classes == [1, 2, 3]
    assert info(wine, "Proline").kind == "numeric"
    assert info(wine, "Magnesium").kind == "numeric"
    assert "OD280/OD315 of diluted wines" in wine.feature_names

    bc = load_paper_dataset("breast_cancer_wisconsin", paper_datasets_dir)
    assert info(bc, "Bare Nuclei").n_missing == 16
    assert bc.n_rows_with_missing == 16
    assert "Bare Nuclei is missing" in bc.feature_names
    assert info(bc, "Sample code number").n_unique == 645

    mm = load_paper_dataset("mammographic_masses", paper_datasets_dir)
    assert sum(c.n_missing for c in mm.columns) == 162
    assert mm.n_rows_with_missing == 131
    assert info(mm, "Age").kind == "numeric"
    mm_cat = load_paper_dataset(
        "mammographic_masses", paper_datasets_dir, categorical=["Margin", "Shape"]
    )
    assert "Margin=5" in mm_cat.feature_names

    hr = load_paper_dataset("hayes_roth", paper_datasets_dir)
    assert info(hr, "name").n_missing == 28
    assert hr.n_rows_with_missing == 0

    blood = load_paper_dataset("blood_transfusion", paper_datasets_dir)
    assert all(
        info(blood, c).kind == "numeric" for c in ["Recency", "Frequency", "Monetary", "Time"]
    )
    assert blood.X["Recency"].iloc[0] == 2

    ttt = load_paper_dataset("tic_tac_toe", paper_datasets_dir)
    assert "top-left-square=x" in ttt.feature_names
    assert all(c.kind in ("categorical", "target") for c in ttt.columns)

    for name in ("iris", "banknote", "blood_transfusion", "tic_tac_toe", "wine"):
        ds = load_paper_dataset(name, paper_datasets_dir)
        assert not [c.name for c in ds.columns if c.kind == "identifier"], name


def test_paper_fingerprint_stable(paper_datasets_dir):
    a = load_paper_dataset("iris", paper_datasets_dir)
    b = load_dataset(paper_datasets_dir / "iris.csv", target="class")
    assert a.fingerprint == b.fingerprint


def test_load_paper_dataset_errors(tmp_path):
    with pytest.raises(DataError, match="Unknown paper data set"):
        load_paper_dataset("nope", tmp_path)
    with pytest.raises(DataError, match="directory was not found"):
        load_paper_dataset("iris", tmp_path / "absent")
    with pytest.raises(DataError, match="'iris.csv' is missing"):
        load_paper_dataset("iris", tmp_path)


def test_paper_data_ship_with_the_package_as_their_readme_lists_them():
    # the folder sits inside the package (so an installed copy has it) and every CSV is the
    # file its README describes, byte for byte (sha256 in the README's table)
    directory = paper_data_dir()
    assert directory == pathlib.Path(explainer.__file__).resolve().parent / "data" / "paper"
    readme = (directory / "README.md").read_text(encoding="utf-8")
    assert "CC BY 4.0" in readme and "UCI Machine Learning Repository" in readme
    listed = dict(re.findall(r"^\| `(\w+\.csv)` \|.*\| ([0-9a-f]{64}) \|$", readme, flags=re.M))
    assert sorted(listed) == sorted(spec["file"] for spec in PAPER_DATASETS.values())
    for file, sha in listed.items():
        assert hashlib.sha256((directory / file).read_bytes()).hexdigest() == sha, file


def test_feature_specs_say_what_each_encoded_feature_means():
    frame = pd.DataFrame(
        {
            "age": [30, 41, None, 52],
            "colour": ["red", "blue", "red", None],
            "weight": [1.5, 2.0, 3.25, 4.0],
            "y": ["a", "b", "a", "b"],
        }
    )
    ds = load_dataset(frame, target="y")
    specs = {s.name: s for s in ds.feature_specs}
    assert [s.name for s in ds.feature_specs] == ds.feature_names
    assert specs["age"].kind == "numeric" and specs["age"].integer
    assert specs["age is missing"].kind == "missing" and specs["age is missing"].column == "age"
    assert specs["colour=red"].kind == "onehot" and specs["colour=red"].value == "red"
    assert specs["colour=blue"].column == "colour"
    assert specs["weight"].kind == "numeric" and not specs["weight"].integer


# --------------------------------------------------------------------------- the fitted encoder

from explainer.data import TableEncoder, suggest_target, target_candidates  # noqa: E402


def _table():
    return pd.DataFrame(
        {
            "colour": ["red", "blue", None, "red", "green", "blue"],
            "code": [1, 5, 5, 2, 3, 1],
            "weight": [1.5, np.nan, 2.0, 3.25, 0.5, 1.0],
            "flag": [True, False, True, True, False, False],
        }
    )


def test_encoder_learns_kinds_and_encodes_by_hand():
    enc = TableEncoder(categorical=["code"]).fit(_table())
    assert enc.feature_names_ == [
        "colour=blue", "colour=green", "colour=red", "colour is missing",
        "code=1", "code=2", "code=3", "code=5",
        "weight", "weight is missing",
        "flag",
    ]
    assert [c.kind for c in enc.columns_] == ["categorical", "categorical", "numeric", "numeric"]
    assert list(enc.get_feature_names_out()) == enc.feature_names_
    new = pd.DataFrame(
        {"colour": ["purple", "red", None], "code": [5, 4, 1], "weight": [np.nan, 7.0, 1.0], "flag": [False, True, None]}
    )
    out = enc.transform(new)
    expected = np.array(
        [
            # unseen colour and code: 0 in every one-hot of the column; missing -> indicator
            [0, 0, 0, 0, 0, 0, 0, 1, np.nan, 1, 0],
            [0, 0, 1, 0, 0, 0, 0, 0, 7.0, 0, 1],
            [0, 0, 0, 1, 1, 0, 0, 0, 1.0, 0, np.nan],
        ]
    )
    np.testing.assert_array_equal(out.to_numpy(), expected)
    assert list(out.columns) == enc.feature_names_


def test_encoder_transform_of_the_fitted_table_is_fit_transform_and_rows_encode_alone():
    frame = _table()
    enc = TableEncoder()
    full = enc.fit_transform(frame)
    pd.testing.assert_frame_equal(enc.transform(frame), full)
    for i in range(len(frame)):
        row = enc.transform(frame.iloc[[i]])
        np.testing.assert_array_equal(row.to_numpy()[0], full.to_numpy()[i])


def test_encoder_of_a_table_is_its_columns_encoded_one_at_a_time():
    # numbers of several dtypes among text columns: the encoder reads the numbers a dtype block at a time,
    # and must give what each column gives on its own, in the table's order
    rng = np.random.default_rng(3)
    n = 40
    frame = pd.DataFrame({
        "i64": rng.integers(0, 4, n),
        "text": rng.choice(["p", "q", "r"], n).astype(object),
        "f64": np.where(rng.random(n) < 0.2, np.nan, rng.normal(size=n).round(2)),
        "i8": rng.integers(-2, 2, n).astype(np.int8),
        "f32": rng.random(n).astype(np.float32),
        "i64b": rng.integers(0, 3, n),
        "flag": rng.random(n) < 0.5,
    })
    for options in ({}, {"ordinal_as_categorical": True}):
        enc = TableEncoder(detect_identifiers=False, **options)
        whole = enc.fit_transform(frame)
        alone = [TableEncoder(detect_identifiers=False, **options).fit_transform(frame[[c]]) for c in frame.columns]
        pd.testing.assert_frame_equal(whole.astype(float), pd.concat(alone, axis=1).astype(float))
        shuffled = frame.sample(frac=1.0, random_state=0).reset_index(drop=True)
        expected = pd.concat([TableEncoder(detect_identifiers=False, **options).fit(frame[[c]]).transform(shuffled[[c]])
                              for c in frame.columns], axis=1)
        pd.testing.assert_frame_equal(enc.transform(shuffled).astype(float), expected.astype(float))


def test_encoder_refuses_tables_it_was_not_fitted_on():
    enc = TableEncoder().fit(_table())
    with pytest.raises(DataError, match="The column 'weight' the encoder was fitted on is missing"):
        enc.transform(_table().drop(columns=["weight"]))
    bad = _table().assign(weight=["heavy"] * 6)
    with pytest.raises(DataError, match="Column 'weight' holds text \\('heavy'\\) but held numbers"):
        enc.transform(bad)
    with pytest.raises(DataError, match="not fitted"):
        TableEncoder().transform(_table())
    too_big = _table().assign(weight=[1.0, 2.0, 1e39, 0.0, 1.0, 2.0])
    with pytest.raises(DataError, match="Column 'weight' holds 1e\\+39, beyond .* float32"):
        enc.transform(too_big)


def test_encoder_missing_indicators_follow_the_fitted_table():
    frame = _table()
    off = TableEncoder(missing_indicators=False).fit(frame)
    assert not any(f.endswith(" is missing") for f in off.feature_names_)
    complete = frame.dropna()
    enc = TableEncoder().fit(complete)
    assert not any(f.endswith(" is missing") for f in enc.feature_names_)
    # a gap in new rows of a column that had none: NaN (numeric), 0 (one-hot); no new feature
    out = enc.transform(frame)
    assert list(out.columns) == enc.feature_names_
    assert np.isnan(out["weight"][1])


def test_ordinal_columns_offer_numeric_and_one_hot_features_when_asked():
    frame = pd.DataFrame({"birads": [1, 2, 3, 4, 5, 5, 4, 3], "binary": [0, 1] * 4, "x": np.linspace(0, 1, 8)})
    assert TableEncoder().fit(frame).feature_names_ == ["birads", "binary", "x"]
    enc = TableEncoder(ordinal_as_categorical=True).fit(frame)
    specs = {s.name: s for s in enc.feature_specs_}
    assert enc.feature_names_ == ["birads", "birads=1", "birads=2", "birads=3", "birads=4", "birads=5", "binary", "x"]
    assert specs["birads"].kind == "numeric" and specs["birads"].integer
    assert specs["birads=5"].kind == "onehot" and specs["birads=5"].value == 5 and specs["birads=5"].column == "birads"
    assert enc.transform(frame)["birads=5"].tolist() == [0, 0, 0, 0, 1, 1, 0, 0]
    assert TableEncoder(ordinal_as_categorical=4).fit(frame).feature_names_ == ["birads", "binary", "x"]


def test_dataset_from_a_read_table_is_the_dataset_of_its_file():
    from explainer.data.datasets import dataset_from_table

    for name, path in sample_datasets().items():
        direct = load_dataset(path, categorical=[], missing_indicators="auto")
        table = read_table(path)
        again = dataset_from_table(table, name=path.stem)
        pd.testing.assert_frame_equal(again.X, direct.X)
        assert list(again.y) == list(direct.y) and again.columns == direct.columns, name
        assert (again.name, again.notes, again.warnings) == (direct.name, direct.notes, direct.warnings)
    with pytest.raises(DataError, match="missing_indicators must be"):
        dataset_from_table(read_table(sample_datasets()["iris"]), missing_indicators="sometimes")


def test_dataset_keeps_its_encoder_for_held_out_rows():
    text = "id,colour,n,class\n" + "".join(
        f"r{i},{'rgb'[i % 3]},{'?' if i == 3 else i % 4},{1 + i % 2}\n" for i in range(12)
    )
    ds = load_dataset(csv_bytes(text))
    frame = read_table(csv_bytes(text))
    np.testing.assert_array_equal(ds.encode(frame).to_numpy(), ds.X.to_numpy())  # target and id ignored
    held_out = pd.DataFrame({"colour": ["g", "q"], "n": [2, None]})
    np.testing.assert_array_equal(
        ds.encode(held_out).to_numpy(), [[0, 1, 0, 2, 0], [0, 0, 0, np.nan, 1]]
    )
    assert ds.encoder.feature_specs_ == ds.feature_specs


# --------------------------------------------------------------------------- the default target


@pytest.mark.parametrize(
    "columns, expected",
    [
        (["a", "b", "c"], ("c", "it is the last column")),
        (["CLASS", "a", "b"], ("CLASS", "its name says it is the class")),
        (["a", "Outcome", "b"], ("Outcome", "its name says it is the class")),
        (["y", "a", "class"], ("class", "its name says it is the class")),
        (["Class Name", "a", "b"], ("Class Name", "its name says it is the class")),
    ],
)
def test_suggest_target(columns, expected):
    frame = pd.DataFrame({c: [i % 2 for i in range(12)] for c in columns})
    assert suggest_target(frame) == expected


def test_suggest_target_refuses_an_identifier_and_names_candidates():
    frame = pd.DataFrame({"grade": list("ab") * 6, "size": list("sml") * 4, "n": range(12)})
    assert target_candidates(frame) == ["size", "grade"]
    with pytest.raises(DataError, match=r"the last column 'n', cannot be the class: it has 12 distinct values in "
                                        r"12 rows, one per row, like an identifier; choose the target column "
                                        r"\(candidates: 'size', 'grade'\)\."):
        suggest_target(frame)
    small = pd.DataFrame({"a": [1, 2, 1], "b": ["x", "y", "z"]})
    assert suggest_target(small) == ("b", "it is the last column")  # three rows prove nothing
    with pytest.raises(DataError, match="'label', cannot be the class"):
        suggest_target(pd.DataFrame({"label": [f"t{i}" for i in range(12)], "a": [0, 1] * 6}))
    with pytest.raises(DataError, match="no column looks like a class"):
        suggest_target(pd.DataFrame({"a": np.linspace(0, 1, 12), "b": np.arange(12)}))


def test_a_chosen_target_of_fewer_than_two_classes_or_an_identifier_is_warned_of_before_the_load():
    from explainer.data.target import explicit_target_warning

    frame = pd.DataFrame({"grade": list("ab") * 6, "same": ["yes"] * 12, "gap": [None] * 12, "n": range(12)})
    assert explicit_target_warning(frame, "grade") is None
    assert explicit_target_warning(frame, "same") == ("The target 'same' has one value only: at least two classes are "
                                                      "needed to explain. Better candidates: 'grade'.")
    assert explicit_target_warning(frame, "gap").startswith("The target 'gap' has no value:")
    assert "looks like an identifier" in explicit_target_warning(frame, "n")
    with pytest.raises(DataError, match="only one class"):  # what the load says, now said before it
        load_dataset(frame.drop(columns=["gap"]), "same")


def test_delimiter_sniffing_reads_records_not_lines():
    text = 'name with spaces,other name,class\n"a\nb",1,x\nc,2,y\n"d\n\ne",3,x\n'
    df = read_table(csv_bytes(text))
    assert list(df.columns) == ["name with spaces", "other name", "class"]
    assert df["name with spaces"].tolist() == ["a\nb", "c", "d\n\ne"]


def test_decimal_commas_with_thousands_and_only_outside_comma_files():
    df = read_table(csv_bytes("a\tb\tclass\n1.234,5\t-0,25\tx\n2,0\t1e3\ty\n"))
    assert df["a"].tolist() == [1234.5, 2.0] and df["b"].tolist() == [-0.25, 1000.0]
    mixed = read_table(csv_bytes("a;class\n1.5;x\n2,5;y\n"))  # two conventions: left as text
    assert mixed["a"].tolist() == ["1.5", "2,5"] and mixed.attrs["notes"] == []
    quoted = read_table(csv_bytes('a,class\n"1,5",x\n"2,5",y\n'))  # comma files keep commas as text
    assert quoted["a"].tolist() == ["1,5", "2,5"]


_mixed_cell = st.one_of(st.none(), st.sampled_from(["a", "b", " c ", "?"]), st.integers(-3, 3))


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(_mixed_cell, st.floats(-1e6, 1e6) | st.none(), st.booleans()), min_size=2, max_size=15))
def test_encoder_invariants_on_random_tables(rows):
    frame = pd.DataFrame(rows, columns=["cat", "num", "flag"])
    frame["cat"] = frame["cat"].astype(object)
    enc = TableEncoder(detect_identifiers=False)
    try:
        full = enc.fit_transform(frame)
    except DataError:
        return  # e.g. every column constant
    assert [s.name for s in enc.feature_specs_] == list(full.columns)
    pd.testing.assert_frame_equal(enc.transform(frame), full)
    for i in (0, len(frame) - 1):
        np.testing.assert_array_equal(enc.transform(frame.iloc[[i]]).to_numpy()[0], full.to_numpy()[i])
    for column in ("cat", "num", "flag"):
        onehots = [s.name for s in enc.feature_specs_ if s.column == column and s.kind == "onehot"]
        if onehots:
            # exactly one category per present cell, none for a missing one
            present = (~full[f"{column} is missing"].astype(bool)) if f"{column} is missing" in full else True
            np.testing.assert_array_equal(full[onehots].sum(axis=1).to_numpy(), np.where(present, 1.0, 0.0))


def test_float32_view_ranks_only_columns_float32_cannot_resolve():
    from explainer.data.precision import Float32View

    base = 1e15
    X = np.array([[base + 0.375, 0.5], [base, 1.5], [np.nan, 2.5], [base + 0.125, 0.5], [base + 0.375, 9.0]])
    assert len(np.unique(X[[0, 1, 3], 0].astype(np.float32))) == 1  # float32 sees one value
    view = Float32View(X)
    assert list(view.ranked) == [0]
    np.testing.assert_array_equal(view.matrix[:, 0], [2, 0, np.nan, 1, 2])
    np.testing.assert_array_equal(view.matrix[:, 1], X[:, 1])
    for t in (-0.5, 0.5, 1.5, 2.5):
        thr = view.original_threshold(0, t)
        with np.errstate(invalid="ignore"):
            assert ((X[:, 0] <= thr) == (view.matrix[:, 0] <= t)).all()
            assert ((X[:, 0] > thr) == (view.matrix[:, 0] > t)).all()
    assert view.original_threshold(1, 1.25) == 1.25
    assert not Float32View(X[:, [1]]).ranked
    # the copy is in the learner's float32 (half the table's size): the other columns as float32 reads them
    tenths = np.column_stack([X[:, 0], [0.1, 0.2, 0.3, 0.4, 0.5]])
    view = Float32View(tenths)
    assert view.matrix.dtype == np.float32 and list(view.ranked) == [0]
    np.testing.assert_array_equal(view.matrix[:, 1], tenths[:, 1].astype(np.float32))
    unranked = tenths[:, [1]]
    assert Float32View(unranked).matrix is unranked  # nothing ranked: the table itself, no copy


@pytest.mark.parametrize("cells", [1 << 20, 7])  # every column sorted at once, and a few at a time
def test_low_resolution_columns_agree_with_the_pair_test_column_by_column(monkeypatch, cells):
    from explainer.data import precision

    monkeypatch.setattr(precision, "_SORT_CELLS", cells)
    rng = np.random.default_rng(3)
    for _ in range(40):
        n, m = int(rng.integers(1, 9)), int(rng.integers(1, 12))
        base = rng.choice([0.0, 1.0, 1e8, 1e15, -1e15], size=m)
        # small offsets: distinct in float64, often one value in float32; repeats, gaps, constant columns
        X = base + rng.choice([0.0, 0.125, 0.25, 1.0, 3.0], size=(n, m)) * rng.choice([1.0, 1e-9, 1e6], size=m)
        X[rng.random((n, m)) < 0.2] = np.nan
        expected = [j for j in range(m) if precision.low_resolution_pair(X[~np.isnan(X[:, j]), j]) is not None]
        assert precision.low_resolution_columns(X).tolist() == expected


def test_a_header_cell_in_brackets_is_a_table_and_a_json_document_is_refused():
    df = read_table(b"[id],value,class\n1,2.5,a\n2,3.5,b\n")
    assert list(df.columns) == ["[id]", "value", "class"]
    assert df["value"].tolist() == [2.5, 3.5]
    df = read_table(b"{x},y\n1,2\n")
    assert list(df.columns) == ["{x}", "y"]
    for text in (b'[{"a": 1}, {"a": 2}]', b'  {"a": [1, 2]}\n'):
        with pytest.raises(DataError, match="looks like JSON"):
            read_table(text)


def test_a_frame_given_directly_reads_its_cells_by_the_table_rules():
    from explainer.data.tables import normalise_frame

    frame = pd.DataFrame({
        "t": [" a ", None, np.nan, "?", "b", pd.NA],
        "n": [" 1 ", "2", None, "3.5", "?", " 4"],
        "b": [True, None, False, True, np.nan, False],
        "m": [1, "a ", None, 2.5, " ? ", "b"],
        "c": pd.Categorical(["x", None, "y", "x", "y", "x"]),
    })
    out = normalise_frame(frame)
    assert [str(out[c].dtype) for c in out] == ["object", "float64", "float64", "object", "object"]
    assert out["t"].tolist()[0::4] == ["a", "b"] and out["t"].isna().tolist() == [False, True, True, True, False, True]
    np.testing.assert_array_equal(out["n"].to_numpy(), [1.0, 2.0, np.nan, 3.5, np.nan, 4.0])
    np.testing.assert_array_equal(out["b"].to_numpy(), [1.0, np.nan, 0.0, 1.0, np.nan, 0.0])
    assert [v for v in out["m"] if not pd.isna(v)] == [1, "a", 2.5, "b"] and out["m"].isna().sum() == 2
    assert out["c"].tolist()[0] == "x" and out["c"].isna().tolist() == [False, True, False, False, False, False]


def test_number_columns_of_a_frame_are_whole_or_float_by_hand():
    from explainer.data.tables import normalise_frame

    frame = pd.DataFrame({
        "int": [3, -1, 0],
        "small": np.array([1, 2, 3], dtype=np.uint8),
        "whole floats": [1.0, 2.0, 5.0],
        "gap": [1.0, np.nan, 2.0],
        "halves": np.array([0.5, 1.0, 2.0], dtype=np.float32),
        "nullable": pd.array([1, None, 3], dtype="Int64"),
        "nullable whole": pd.array([1, 2, 3], dtype="Int64"),
        "huge": [2.0**60, 1.0, 2.0],
    }, index=[10, 11, 12])
    out = normalise_frame(frame)
    assert out.index.tolist() == [0, 1, 2]
    assert out.dtypes.astype(str).tolist() == ["int64", "int64", "int64", "float64", "float64", "float64", "int64",
                                               "float64"]
    assert out["int"].tolist() == [3, -1, 0] and out["halves"].tolist() == [0.5, 1.0, 2.0]
    assert np.isnan(out["nullable"][1]) and out["nullable"][2] == 3.0 and out["huge"][0] == 2.0**60
    with pytest.raises(DataError, match="Column 'bad' contains infinite values"):
        normalise_frame(pd.DataFrame({"bad": [1.0, np.inf]}))


def test_read_table_types_each_column_the_same_with_or_without_a_text_column():
    # whole-number columns are read a block at a time; a text column elsewhere sends them one by one
    numbers = "w,gap,v,frac,huge,class\n1,2,5,0.5,9007199254740993,x\n-3,,6,2,1,y\n7,4,8,3,2,x\n"
    with_text = numbers.replace(",class\n", ",class,t\n").replace(",x\n", ",x,a\n").replace(",y\n", ",y,b\n")
    for text in (numbers, with_text):
        df = read_table(csv_bytes(text))
        assert [str(df[c].dtype) for c in ["w", "gap", "v", "frac", "huge"]] == ["int64", "float64", "int64", "float64",
                                                                                "float64"]
        assert df["w"].tolist() == [1, -3, 7] and df["v"].tolist() == [5, 6, 8] and df["frac"].tolist() == [0.5, 2.0, 3.0]
        assert df["huge"].tolist()[1:] == [1.0, 2.0] and df["gap"].isna().tolist() == [False, True, False]
        assert df.index.tolist() == [0, 1, 2]
        with pytest.raises(DataError, match="Column 'w' contains infinite values"):
            read_table(csv_bytes(text.replace("\n7,", "\ninf,")))


def test_exact_integer_columns_is_exact_integers_of_each_column():
    from explainer.data.precision import exact_integer_columns, exact_integers

    rng = np.random.default_rng(0)
    for _ in range(50):
        values = rng.integers(-5, 5, (6, 4)).astype(float)
        values[rng.random((6, 4)) < 0.1] += 0.5
        values[rng.random((6, 4)) < 0.05] = rng.choice([np.nan, np.inf, 2.0**53, -(2.0**60)])
        assert exact_integer_columns(values).tolist() == [exact_integers(values[:, j]) for j in range(4)]
    assert exact_integers(np.array([1.0, 2.0])) and not exact_integers(np.array([1.0, np.nan]))
    assert not exact_integers(np.array([2.0**53])) and exact_integers(np.array([2.0**53 - 1]))


def test_number_facts_of_a_block_are_each_columns_own():
    # the encoder reads a block of number columns at once; each column's facts must be what numpy says of it alone
    from explainer.data.encoder import _number_facts
    from explainer.data.precision import low_resolution_pair

    rng = np.random.default_rng(5)
    for trial in range(60):
        k, n = int(rng.integers(1, 6)), int(rng.integers(0, 12))
        if trial % 3 == 0:
            block = rng.integers(-3, 3, (k, n)) * (2**25 if trial % 2 else 1) + rng.integers(0, 2, (k, n))
        else:
            block = rng.choice([0.5, 1.0, -0.0, 0.0, 3.0, np.nan, 1e15, 1e15 + 0.125, 4e38], (k, n))
        for row, facts in zip(block, _number_facts(block), strict=True):
            present = row[~np.isnan(row.astype(float))]
            np.testing.assert_array_equal(facts.distinct, np.unique(present))
            assert facts.distinct.dtype == row.dtype and facts.n_missing == n - present.size
            assert facts.whole == bool(np.all(present == np.round(present)))
            assert facts.max_abs == (float(np.abs(present).max()) if present.size else 0.0)
            with np.errstate(over="ignore"):  # 4e38 is beyond float32: the encoder refuses it before asking
                assert facts.low == (low_resolution_pair(present.astype(float)) is not None)


def test_the_reader_splits_lines_as_a_text_stream_with_universal_newlines_does():
    """The reader feeds the CSV parser one line at a time instead of a StringIO of the whole text (which holds it
    again at four bytes a character); the lines are the same, whatever the line breaks and other characters."""
    import io
    import random

    from explainer.data.tables import _lines

    rng = random.Random(0)
    alphabet = ["a", "b", ",", '"', "\r", "\n", "\r\n", " ", "\x0c", "\x0b", "\u2028", "\x85", "\x1c", "é"]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        assert list(_lines(text)) == list(io.StringIO(text, newline="")), repr(text)


def test_equal_cells_of_a_column_are_read_as_one_string():
    from explainer.data.tables import _read_columns

    read = _read_columns("a,b\nx,1\nx,1\ny,1\n", ",", 10)
    assert read.header == ["a", "b"] and read.n_rows == 3 and read.misfit is None
    assert read.columns == [["x", "x", "y"], ["1", "1", "1"]]
    assert read.columns[0][0] is read.columns[0][1] and read.columns[1][0] is read.columns[1][2]
    short = _read_columns("a,b\nx,1\n\nz\ny,1,2\n", ",", 10)
    assert short.misfit == (4, 1) and short.n_rows == 3  # the first record of another width, by its line


def test_a_category_ending_in_a_nul_character_is_its_own_value():
    """numpy reads a str as its own text type, which drops trailing NUL characters: compared so, a cell "\\x00"
    would match the value "" and never itself, and its one-hot feature would be 0 on every row."""
    frame = pd.DataFrame({"kind": ["\x00", "a", "\x00", "a\x00", "a", "\x00"], "y": ["p", "q", "p", "q", "q", "p"]})
    ds = load_dataset(frame, target="y")
    assert ds.X["kind=\x00"].tolist() == [1, 0, 1, 0, 0, 1]
    assert ds.X["kind=a\x00"].tolist() == [0, 0, 0, 1, 0, 0]
    assert ds.X["kind=a"].tolist() == [0, 1, 0, 0, 1, 0]
