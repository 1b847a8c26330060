"""One semantics for missing values, and thresholds without float noise.

The engine's coverage is checked against an evaluator of the *printed* rule
text written here with pandas on the original table (not on the encoded
matrix): a comparison, ``=`` and ``in`` are false on a missing value, ``!=``
and ``not in`` are true on it.
"""

import math
import re

import numpy as np
import pandas as pd
import pytest
from lanes import quick_first

from explainer.data import PAPER_DATASETS, load_dataset, load_paper_dataset, sample_datasets
from explainer.data.defaults import default_load_settings
from explainer.data.tables import read_table
from explainer.rules import RuleSet, build_pool, default_pool_settings, parse_rules, rules_for_data

_NUM = r"-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?"
_PHRASES = [
    (re.compile(rf"^({_NUM}) (<|<=) (\S+) (<|<=) ({_NUM})$"), "interval"),
    (re.compile(r"^(\S+) is not missing$"), "present"),
    (re.compile(r"^(\S+) is missing$"), "missing"),
    (re.compile(r"^(\S+) not in \{(.*)\}$"), "not in"),
    (re.compile(r"^(\S+) in \{(.*)\}$"), "in"),
    (re.compile(r"^(\S+) (!=|=) (\S+)$"), "equal"),
    (re.compile(rf"^(\S+) (<=|<|>=|>) ({_NUM})$"), "compare"),
]
_CMP = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal}


def _is(column: pd.Series, value: str) -> np.ndarray:
    """Cells equal to a written value (false on missing cells)."""
    present = column.notna().to_numpy()
    if pd.api.types.is_numeric_dtype(column):
        return present & (column.to_numpy(dtype=float) == float(value))
    return present & (column.astype(str).to_numpy() == value)


def _phrase_mask(phrase: str, table: pd.DataFrame) -> np.ndarray:
    for pattern, kind in _PHRASES:
        m = pattern.match(phrase)
        if m is None:
            continue
        if kind == "interval":
            lo, op1, name, op2, hi = m.groups()
            v = table[name].to_numpy(dtype=float)
            with np.errstate(invalid="ignore"):
                return _CMP[op1](float(lo), v) & _CMP[op2](v, float(hi))
        column = table[m.group(1)]
        missing = column.isna().to_numpy()
        if kind == "present":
            return ~missing
        if kind == "missing":
            return missing
        if kind in ("in", "not in"):
            hit = np.zeros(len(table), dtype=bool)
            for value in m.group(2).split(", "):
                hit |= _is(column, value)
            return hit if kind == "in" else ~hit  # "not in" holds on a missing cell
        if kind == "equal":
            hit = _is(column, m.group(3))
            return hit if m.group(2) == "=" else ~hit  # "!=" holds on a missing cell
        v = column.to_numpy(dtype=float)
        with np.errstate(invalid="ignore"):
            return _CMP[m.group(2)](v, float(m.group(3)))  # NaN fails every comparison
    raise AssertionError(f"the test's evaluator cannot read {phrase!r}")


def text_coverage(line: str, table: pd.DataFrame) -> np.ndarray:
    """Rows where the printed rule ``IF a AND b THEN CLASS=c`` holds, read with pandas."""
    body = line[len("IF ") : line.index(" THEN CLASS=")]
    mask = np.ones(len(table), dtype=bool)
    for phrase in body.split(" AND "):
        mask &= _phrase_mask(phrase, table)
    return mask


def gappy_table(seed: int, n: int = 400) -> pd.DataFrame:
    """Categorical, numeric and code columns with gaps, and a class that depends on them and on the gaps."""
    rng = np.random.default_rng(seed)
    colour = rng.choice(np.array(["red", "green", "blue", "white"], dtype=object), size=n)
    colour[rng.random(n) < 0.2] = None
    size = np.round(rng.normal(5, 2, size=n), 2)
    size[rng.random(n) < 0.15] = np.nan
    grade = rng.integers(1, 6, size=n).astype(float)
    grade[rng.random(n) < 0.1] = np.nan
    flag = rng.integers(0, 2, size=n)
    score = (
        (colour == "red").astype(float) * 2
        - pd.isna(colour).astype(float) * 1.5
        + np.nan_to_num(size - 5, nan=-2) / 2
        + np.nan_to_num(grade, nan=6) / 3
        + flag
        + rng.normal(0, 0.7, size=n)
    )
    label = np.where(score > 2.5, "high", np.where(score > 0.8, "mid", "low"))
    return pd.DataFrame({"colour": colour, "size": size, "grade": grade, "flag": flag, "label": label})


def _pool(ds, **settings):
    return build_pool(ds.X, ds.y, random_state=0, classes=ds.classes, feature_specs=ds.feature_specs, **settings)


@pytest.mark.parametrize("seed", quick_first([0, 1, 2], 1))
@pytest.mark.parametrize("paper", [False, True])
def test_engine_coverage_is_the_printed_text_on_a_table_with_gaps(seed, paper):
    table = gappy_table(seed)
    ds = load_dataset(table, target="label", **default_load_settings())
    settings = default_pool_settings(max_depth=6)
    if paper:
        settings = {"max_depth": 6}
    pool = _pool(ds, **settings)
    dense = pool.coverage.toarray().astype(bool)
    assert any("missing" in r.text or "!=" in r.text or "not in" in r.text for r in pool.rules)
    for i, rule in enumerate(pool.rules):
        assert np.array_equal(text_coverage(rule.text, table), dense[:, i]), rule.text
    # the text read back by the parser selects the same rows too
    back = rules_for_data(parse_rules(RuleSet(pool.rules).to_text()), ds.feature_specs, ds.classes)
    for i, rule in enumerate(back):
        assert np.array_equal(rule.covers(ds.X), dense[:, i]), rule.text


def test_not_equal_holds_on_a_missing_value():
    table = pd.DataFrame({"c": ["a", "b", None, "a", "b", None], "y": ["p", "q", "q", "p", "q", "p"]})
    ds = load_dataset(table, target="y")
    (rule,) = rules_for_data(parse_rules("IF c != a THEN CLASS=q"), ds.feature_specs, ds.classes)
    assert rule.covers(ds.X).tolist() == [False, True, True, False, True, True]
    (rule,) = rules_for_data(parse_rules("IF c = b THEN CLASS=q"), ds.feature_specs, ds.classes)
    assert rule.covers(ds.X).tolist() == [False, True, False, False, True, False]


def test_engine_coverage_is_the_printed_text_on_the_loans_sample():
    path = sample_datasets()["loans"]
    ds = load_dataset(path, **default_load_settings())
    table = read_table(path)
    assert table.isna().any().any()
    pool = _pool(ds, **default_pool_settings(max_depth=5))
    dense = pool.coverage.toarray().astype(bool)
    for i, rule in enumerate(pool.rules):
        assert np.array_equal(text_coverage(rule.text, table), dense[:, i]), rule.text


def _decimals(x: float) -> int:
    text = repr(float(x))
    if "e" in text:
        mantissa, exponent = text.split("e")
        return max(0, len(mantissa.split(".")[1].rstrip("0")) if "." in mantissa else 0) - int(exponent)
    return len(text.split(".")[1].rstrip("0")) if "." in text else 0


_COMPARISON = re.compile(rf"(?:^| )(?:({_NUM}) (?:<|<=) )?(\S+) (?:<|<=|>|>=) ({_NUM})(?= AND | THEN|$)")


def _threshold_data():
    out = []
    for name in sorted(PAPER_DATASETS):
        out.append(("paper", name))
    for name in sorted(sample_datasets()):
        out.append(("sample", name))
    return out


@pytest.mark.parametrize("where, name", _threshold_data())
def test_thresholds_have_no_float_noise(where, name, paper_datasets_dir):
    """Every threshold of every pool rule has at most one decimal more than the column's data."""
    if where == "paper":
        ds = load_paper_dataset(name, paper_datasets_dir)
        pool = _pool(ds, max_depth=6)
    else:
        ds = load_dataset(sample_datasets()[name], **default_load_settings())
        pool = _pool(ds, **default_pool_settings())
    precision = {}
    for spec in ds.feature_specs:
        if spec.kind == "numeric":
            v = ds.X[spec.name].dropna().to_numpy()
            precision[spec.column] = max((_decimals(x) for x in np.unique(v)), default=0)
    checked = 0
    for rule in pool.rules:
        for cond in rule.conditions:
            spec = cond.spec
            if spec is None or spec.kind != "numeric" or not math.isfinite(cond.threshold):
                continue
            checked += 1
            assert _decimals(cond.threshold) <= precision[spec.column] + 1, (rule.text, cond.threshold)
        for m in re.finditer(r"[-\d.e]+", rule.text.split(" THEN ")[0]):
            digits = m.group(0).replace("-", "").replace(".", "").lstrip("0")
            assert len(digits) <= 12, rule.text
    assert checked > 0 or not precision
