"""Wide tables: work linear in the columns (counted, not timed), and the column limit's message."""

import numpy as np
import pandas as pd
import pytest

from explainer.cli import main
from explainer.data import load_dataset, read_table
from explainer.data import tables as tables_module
from explainer.data.defaults import default_load_settings
from explainer.data.features import FeatureSpec
from explainer.data.tables import DataError, _clean_column
from explainer.estimator import RuleSetExplainer
from explainer.rules.defaults import default_pool_settings
from explainer.rules.pool import build_pool
from explainer.rules.simplify import column_domain, column_features


def digits_csv(path, n_rows, n_columns, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 10, size=(n_rows, n_columns))
    y = rng.choice(["a", "b"], n_rows)
    lines = [",".join(f"c{j}" for j in range(n_columns)) + ",class"]
    lines += [",".join(map(str, X[i])) + f",{y[i]}" for i in range(n_rows)]
    path.write_text("\n".join(lines) + "\n")
    return X, y


@pytest.fixture
def count_spec_comparisons(monkeypatch):
    """The number of FeatureSpec equality tests made (what a search through a list of specs costs)."""
    calls = [0]
    original = FeatureSpec.__eq__

    def counting(self, other):
        calls[0] += 1
        return original(self, other)

    monkeypatch.setattr(FeatureSpec, "__eq__", counting)
    return calls


@pytest.mark.parametrize("k", [50, 400])
def test_column_domains_compare_no_spec_with_all_the_others(k, count_spec_comparisons):
    rng = np.random.default_rng(k)
    X_cols, specs = [], []
    for j in range(k):
        col = rng.integers(0, 4, 30).astype(float)
        specs.append(FeatureSpec(f"c{j}", f"c{j}", "numeric", None, True))
        X_cols.append(col)
        for v in np.unique(col):
            specs.append(FeatureSpec(f"c{j}={int(v)}", f"c{j}", "onehot", int(v), False))
            X_cols.append((col == v).astype(float))
    X = np.column_stack(X_cols)
    domains = {c: column_domain(X, specs, c, idx) for c, idx in column_features(specs).items()}
    # at most a constant number of comparisons per column (a list.index over all specs made k^2 / 2)
    assert count_spec_comparisons[0] <= 2 * k
    # and the domains are still right: each column's categories, its numeric feature its own
    for j in range(k):
        d = domains[f"c{j}"]
        assert d.numeric.name == f"c{j}"
        assert d.values == [s.value for s in specs if s.column == f"c{j}" and s.kind == "onehot"]


def test_a_2000_column_table_builds_its_pool_with_linear_spec_work(tmp_path, count_spec_comparisons):
    digits_csv(tmp_path / "wide.csv", 20, 2000)
    ds = load_dataset(tmp_path / "wide.csv", **default_load_settings())
    assert ds.n_features > 2000  # each column's threshold and its "= v" features
    count_spec_comparisons[0] = 0
    pool = build_pool(ds.X, ds.y, random_state=0, classes=ds.classes, feature_specs=ds.feature_specs,
                      **default_pool_settings())
    assert pool.n_rules > 0
    assert count_spec_comparisons[0] <= 4 * ds.n_features
    dense = pool.coverage.toarray().astype(bool)
    for i in range(0, pool.n_rules, max(1, pool.n_rules // 20)):
        assert np.array_equal(pool.rules[i].covers(ds.X), dense[:, i])  # each rule means its rows


def test_whole_number_columns_read_in_one_pass_as_the_column_reader_reads_them(tmp_path):
    cells = {
        "ints": ["1", "2", "3", "4"],
        "spaced": [" 1", "2 ", " +3 ", "4"],
        "whole_floats": ["1.0", "2.0", "1e3", "4"],
        "fractions": ["1.5", "2", "3", "4"],
        "gaps": ["1", "?", "3", "NA"],
        "nan_text": ["1", "nan", "3", "4"],
        "text": ["a", "b", "1", "2"],
        "huge": ["1", "2", "9007199254740993", "4"],
        "class": ["x", "y", "x", "y"],
    }
    path = tmp_path / "t.csv"
    path.write_text(",".join(cells) + "\n" + "\n".join(",".join(cells[c][i] for c in cells) for i in range(4)) + "\n")
    df = read_table(path)
    for name, raw in cells.items():
        expected, _ = _clean_column(raw, name, decimal_comma=False)
        pd.testing.assert_series_equal(df[name], expected, check_names=False)


@pytest.fixture
def small_limit(monkeypatch):
    monkeypatch.setattr(tables_module, "MAX_COLUMNS", 5)
    return 5


def test_too_many_columns_are_refused_by_name_in_every_entry(tmp_path, small_limit, capsys):
    X, y = digits_csv(tmp_path / "six.csv", 8, 6)
    with pytest.raises(DataError, match=r"The file 'six.csv' has 7 columns, more than the limit of 5; keep only"):
        read_table(tmp_path / "six.csv")
    # the command line says it in one line
    assert main(["explain", str(tmp_path / "six.csv"), "--quiet"]) != 0
    err = capsys.readouterr().err
    assert "error: The file 'six.csv' has 7 columns, more than the limit of 5" in err
    # a DataFrame given directly (the dashboard's and load_dataset's path) and the estimator
    frame = pd.DataFrame(X, columns=[f"c{j}" for j in range(6)])
    with pytest.raises(DataError, match="The table has 7 columns, more than the limit of 5"):
        load_dataset(frame.assign(cls=y))
    with pytest.raises(DataError, match="X has 6 columns, more than the limit of 5"):
        RuleSetExplainer().fit(X.astype(float), y)
    with pytest.raises(DataError, match="has 6 columns, more than the limit of 5"):
        RuleSetExplainer().fit(frame, y)
    # at the limit everything is read
    digits_csv(tmp_path / "four.csv", 8, small_limit - 1)
    assert read_table(tmp_path / "four.csv").shape == (8, small_limit)
