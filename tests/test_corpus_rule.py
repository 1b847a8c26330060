"""The held-out corpus (docs/benchmarks/corpus.csv) obeys its written rule and its recorded split.

Reads only the csv and the project's own data, so it needs none of the bench extra's packages.
"""

from __future__ import annotations

import pathlib

import numpy as np
import pandas as pd
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "docs" / "benchmarks" / "corpus.csv"
SEED = 2026  # the seed docs/benchmarks/corpus.md states

# the paper's data sets and the bundled samples, and the names the same data go by elsewhere
FORBIDDEN = ("iris", "wine", "zoo", "breast", "biopsy", "wisconsin", "banknote", "tic", "ecoli",
             "hayes", "mammo", "transfusion", "blood", "loans")


@pytest.fixture(scope="module")
def corpus():
    return pd.read_csv(CORPUS, keep_default_na=False)


def test_at_least_thirty_distinct_tables(corpus):
    assert len(corpus) >= 30
    assert corpus["key"].is_unique
    assert (corpus["key"] == corpus["package"] + "/" + corpus["item"]).all()


def test_every_table_meets_the_numeric_rule(corpus):
    assert corpus["rows"].between(150, 50_000).all()
    assert corpus["classes"].between(2, 10).all()
    assert (corpus["min_class_share"] >= 0.03).all()
    # a smallest-class share above 1 / classes is impossible
    assert (corpus["min_class_share"] <= 1 / corpus["classes"] + 1e-9).all()


def test_no_paper_or_sample_data(corpus):
    for key in corpus["key"]:
        assert not any(word in key.lower() for word in FORBIDDEN), key


def test_no_table_has_the_shape_of_a_paper_or_sample_data_set(corpus):
    # the same data under another name would have the same rows and class counts
    files = list((ROOT / "explainer" / "data" / "paper").glob("*.csv"))
    files += list((ROOT / "sample_data").glob("*.csv"))
    shapes = set()
    for path in files:
        if path.name == "table3_results.csv":
            continue
        frame = pd.read_csv(path)
        for col in frame.columns:
            counts = frame[col].value_counts()
            if 2 <= len(counts) <= 10:
                shapes.add((len(frame), len(counts), round(counts.min() / len(frame), 4)))
    mine = set(zip(corpus["rows"], corpus["classes"], corpus["min_class_share"].round(4), strict=True))
    assert not mine & shapes


def test_halves_are_the_recorded_seeded_draw(corpus):
    keys = sorted(corpus["key"])
    order = np.random.default_rng(SEED).permutation(len(keys))
    tuning = {keys[i] for i in order[: len(keys) // 2]}
    recorded = dict(zip(corpus["key"], corpus["half"], strict=True))
    assert {k for k, h in recorded.items() if h == "tuning"} == tuning
    assert {k for k, h in recorded.items() if h == "report"} == set(keys) - tuning


def test_halves_are_disjoint_and_cover_the_list(corpus):
    assert set(corpus["half"]) == {"tuning", "report"}
    tuning = set(corpus.loc[corpus["half"] == "tuning", "key"])
    report = set(corpus.loc[corpus["half"] == "report", "key"])
    assert not tuning & report
    assert tuning | report == set(corpus["key"])
    assert abs(len(tuning) - len(report)) <= 1
