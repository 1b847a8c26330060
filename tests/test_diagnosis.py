"""Every wrong row with its reason, and the rows each rule takes through a missing value, by hand."""

import json

import numpy as np
import pandas as pd
import pytest

from explainer.data import load_dataset, sample_datasets
from explainer.report import evaluate_rules
from explainer.report.diagnosis import REASONS
from explainer.rules import parse_rules, rules_for_data
from explainer.rules.pool import build_pool

# a = 1 2 3 4 5 9 10;  R0 fires on a <= 2, R1 on 2..4, R2 on 4, R3 on 4..5
X = pd.DataFrame({"a": [1, 2, 3, 4, 5, 9, 10]}, dtype=float)
Y = np.array(["p", "q", "p", "p", "q", "q", "p"])
RULES = parse_rules(
    """IF a <= 2 THEN CLASS=p
IF 1.5 < a <= 4 THEN CLASS=q
IF 3.5 < a <= 4 THEN CLASS=q
IF 3.5 < a <= 5 THEN CLASS=p
"""
)


def test_every_reason_by_hand():
    # row 0: R0 (p), right.  row 1: R0 p vs R1 q tie -> ELSE p, a q row.  row 2: only R1 (q) on a p row.
    # row 3: R1, R2 (q) outvote R3 (p) on a p row.  row 4: only R3 (p) on a q row.
    # row 5: no rule, ELSE p on a q row.  row 6: no rule, ELSE p right.
    rep = evaluate_rules(RULES, X, Y, fallback="p")
    wrong = rep.wrong_rows()
    assert wrong.rows.tolist() == [1, 2, 3, 4, 5]
    assert wrong.reasons.tolist() == ["tie -> fallback", "a wrong rule", "outvoted", "a wrong rule", "fallback"]
    assert wrong.rule_lists() == [[0], [1], [1, 2], [3], []]
    assert wrong.counts() == {"a wrong rule": 2, "outvoted": 1, "tie -> fallback": 1, "fallback": 1}
    assert len(wrong) == 5 == round(rep.n_rows * (1 - rep.accuracy))
    assert rep.to_dict()["wrong_rows"] == {**wrong.counts(), "total": 5}
    assert "  wrong rows:       5 (2 a wrong rule, 1 outvoted, 1 tie -> fallback, 1 fallback)" in rep.summary_lines()
    # per class: p (rows 0, 2, 3, 6) gets rows 0 and 6 right, row 6 by the fallback; q (rows 1, 4, 5) none
    per_class = rep.per_class().set_index("class")
    assert per_class.loc["p", ["rows", "covered", "right", "by_fallback"]].tolist() == [4, 3, 2, 1]
    assert per_class.loc["q", ["rows", "covered", "right", "by_fallback"]].tolist() == [3, 2, 0, 0]


def test_a_fallback_that_is_right_makes_no_wrong_row():
    # with ELSE q, the tied q row 1 and the uncovered q row 5 are right; the uncovered p row 6 is wrong
    wrong = evaluate_rules(RULES, X, Y, fallback="q").wrong_rows()
    assert wrong.rows.tolist() == [2, 3, 4, 6]
    assert wrong.reasons.tolist() == ["a wrong rule", "outvoted", "a wrong rule", "fallback"]


@pytest.mark.parametrize("name", sorted(sample_datasets()))
def test_wrong_rows_are_the_rows_accuracy_counts_wrong(name):
    ds = load_dataset(sample_datasets()[name])
    pool = build_pool(ds.X, ds.y, max_depth=3, random_state=0, classes=ds.classes, feature_specs=ds.feature_specs)
    rep = evaluate_rules(pool.rule_set(list(range(0, pool.n_rules, 3))[:40]), ds.X, ds.y,
                         feature_specs=ds.feature_specs)
    wrong = rep.wrong_rows()
    y = np.asarray(ds.y).astype(str)
    assert len(wrong) == rep.n_rows - rep.accuracy * rep.n_rows
    assert wrong.rows.tolist() == np.flatnonzero(rep.predicted.astype(str) != y).tolist()
    assert sum(wrong.counts().values()) == len(wrong)
    assert rep.per_class()["right"].sum() == rep.n_rows - len(wrong)
    assert rep.per_class()["by_fallback"].sum() == rep.fallback_right
    votes = rep.predictions[wrong.rows].astype(str)
    fired = rep.firing.firing(wrong.rows)
    for j, (row, reason) in enumerate(zip(wrong.rows, wrong.reasons, strict=True)):
        own = [k for k in np.flatnonzero(fired[j]) if str(rep.rules[k].label) == y[row]]
        expected = ("fallback" if votes[j] == "(uncovered)" else "tie -> fallback" if votes[j] == "(tie)"
                    else "outvoted" if own else "a wrong rule")
        assert reason == expected and reason in REASONS


# colour and shape have gaps (rows 2, 3, 5 and 1, 3, 5); size is missing on row 3
TABLE = pd.DataFrame({
    "colour": ["red", "blue", None, None, "red", None, "green", "blue"],
    "shape": ["round", None, "square", None, "round", None, "round", "square"],
    "size": [1.5, 2.5, 3.5, np.nan, 5.5, 6.5, 7.5, 8.5],
    "kind": ["a", "b", "a", "b", "a", "b", "a", "b"],
})
MISSING_RULES = """IF colour not in {red, blue} THEN CLASS=a
IF colour != red AND size > 2.5 THEN CLASS=b
IF colour is missing THEN CLASS=a
IF size <= 4 THEN CLASS=b
IF colour = red THEN CLASS=a
IF colour != red AND shape != round THEN CLASS=b
"""


@pytest.mark.parametrize("indicators", ["auto", False])
def test_rows_through_a_missing_value_by_hand(indicators):
    ds = load_dataset(TABLE, target="kind", missing_indicators=indicators)
    if indicators is False:  # a category's gap is then read from its one-hot features, all 0
        assert not any(s.kind == "missing" for s in ds.feature_specs)
        rules = rules_for_data(parse_rules(MISSING_RULES.replace("IF colour is missing THEN CLASS=a\n", "")),
                               ds.feature_specs, ds.classes)
    else:
        rules = rules_for_data(parse_rules(MISSING_RULES), ds.feature_specs, ds.classes)
    rep = evaluate_rules(rules, ds.X, ds.y, feature_specs=ds.feature_specs)
    by_text = {m.text: m for m in rep.per_rule}
    # not in {red, blue}: rows 2, 3, 5 (missing) and 6 (green)
    first = by_text["IF colour not in {red, blue} THEN CLASS=a"]
    assert (first.support, first.missing_rows) == (4, 3)
    assert first.missing_text == "takes 3 rows through a missing colour"
    assert first.missing_conditions() == [{"condition": "colour not in {red, blue}", "column": "colour", "rows": 3}]
    # colour != red and size > 2.5: rows 2, 5, 6, 7 (size is missing on row 3); colour missing on 2 and 5
    assert by_text["IF colour != red AND size > 2.5 THEN CLASS=b"].missing_rows == 2
    # a comparison and = are false on a missing value; `is missing` says so in its text
    for text in ("IF size <= 4 THEN CLASS=b", "IF colour = red THEN CLASS=a", "IF colour is missing THEN CLASS=a"):
        if text in by_text:
            assert (by_text[text].missing_rows, by_text[text].missing_text) == (0, "")
    # rows 1, 2, 3, 5, 7: colour missing on 2, 3, 5; shape on 1, 3, 5; either on 1, 2, 3, 5
    both = by_text["IF colour != red AND shape != round THEN CLASS=b"]
    assert (both.support, both.missing_rows) == (5, 4)
    assert both.missing_conditions() == [{"condition": "colour != red", "column": "colour", "rows": 3},
                                      {"condition": "shape != round", "column": "shape", "rows": 3}]
    assert both.missing_text == "takes 4 rows through a missing value: colour (3), shape (3)"
    # the same numbers in every export
    rules_json = json.loads(rep.to_json())["rules"]
    assert [r["missing_rows"] for r in rules_json] == [m.missing_rows for m in rep.per_rule]
    csv = pd.read_csv(pd.io.common.StringIO(rep.to_csv()))
    assert csv["missing_rows"].tolist()[:-1] == [m.missing_rows for m in rep.per_rule]
    assert csv["missing_rows"].iloc[-1] == 0  # the ELSE line


def test_without_feature_specs_only_numeric_gaps_are_known():
    # a rule set on a hand-built numeric table: NaN fails every comparison, so no rule fires through it
    data = pd.DataFrame({"a": [1.0, np.nan, 3.0], "b": [0.0, 1.0, np.nan]})
    rep = evaluate_rules(parse_rules("IF a <= 2 THEN CLASS=x\nIF b > 0.5 THEN CLASS=y"), data, ["x", "y", "x"])
    assert [m.missing_rows for m in rep.per_rule] == [0, 0]
