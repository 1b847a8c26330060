"""Editing one rule of an explanation: its parts, the rule read back from its text, and the numbers of
the edited rule and of the set with it in place (against masks on the table's own values and against a
full evaluation of the edited rule set)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from explainer.bench.census import census_like
from explainer.data import load_dataset
from explainer.report import evaluate_rules
from explainer.report.edits import RuleEdits
from explainer.rules.binding import rules_for_data
from explainer.rules.editing import replace_parts, rule_parts, settle
from explainer.rules.model import Rule
from explainer.rules.parse import parse_rule, parse_rules

RULES = """IF 40 < age <= 60 AND marital_status = marital_status_0 THEN CLASS=">50K"
IF education_num > 12 AND workclass in {workclass_0, workclass_1} THEN CLASS=">50K"
IF capital_gain > 5000 THEN CLASS=">50K"
IF age <= 30 THEN CLASS="<=50K"
IF marital_status not in {marital_status_0, marital_status_1} AND occupation is missing THEN CLASS="<=50K"
IF education_num in {13, 14} AND hours_per_week >= 45 THEN CLASS=">50K"
"""


@pytest.fixture(scope="module")
def census():
    """(the table as read, its data set, the report of RULES on it)."""
    frame = census_like(3000, seed=1)
    ds = load_dataset(frame, "income")
    assert len(ds.X) == len(frame)  # no row dropped: row j of X is row j of the table
    rules = rules_for_data(parse_rules(RULES), ds.feature_specs, ds.classes)
    report = evaluate_rules(rules, ds.X, ds.y, feature_specs=ds.feature_specs)
    return frame, ds, report


def edited(ds, report, i: int, changes) -> Rule:
    """Rule ``i`` with ``changes`` (part -> function of the part giving its new conditions), read back."""
    rule = report.rules[i]
    parts = rule_parts(rule)
    return settle(replace_parts(rule, parts, {k: f(parts[k]) for k, f in changes.items()}), ds.feature_specs,
                  ds.classes)


# ------------------------------------------------------------------ the parts of a rule


def test_parts_are_the_phrases_of_the_rule_text(census):
    _, _, report = census
    kinds = [[(p.kind, p.text) for p in rule_parts(r)] for r in report.rules]
    assert kinds == [
        [("bounds", "40 < age <= 60"), ("values", "marital_status = marital_status_0")],
        [("bounds", "education_num > 12"), ("values", "workclass in {workclass_0, workclass_1}")],
        [("bounds", "capital_gain > 5000")],
        [("bounds", "age <= 30")],
        [("values", "marital_status not in {marital_status_0, marital_status_1}"),
         ("fixed", "occupation is missing")],
        [("values", "education_num in {13, 14}"), ("bounds", "hours_per_week >= 45")],
    ]
    for rule in report.rules:  # the parts hold every condition once: unchanged, they give the rule back
        assert replace_parts(rule, rule_parts(rule), {}).key() == rule.key()
    excluded = rule_parts(report.rules[4])[0]
    assert excluded.negated and excluded.values == ("marital_status_0", "marital_status_1")
    assert rule_parts(report.rules[5])[0].numeric


def test_part_edits_and_their_limits(census):
    _, _, report = census
    interval, category = rule_parts(report.rules[0])
    assert interval.lower.threshold == 40 and interval.upper.threshold == 60
    assert [c.threshold for c in interval.with_bounds(35, None)] == [35]  # None leaves a bound out
    assert interval.with_bounds(None, None) == ()
    with pytest.raises(ValueError, match="at least one value"):
        category.with_values([])  # "in {}" holds on no row: no rule text says it
    assert rule_parts(report.rules[4])[0].with_values([]) == ()  # "not in {}" excludes nothing
    with pytest.raises(ValueError, match="finite"):
        interval.with_bounds(float("nan"), 60)
    with pytest.raises(ValueError):
        category.with_bounds(1, 2)


def test_a_rule_left_without_conditions_covers_every_row(census):
    _, ds, report = census
    rule = edited(ds, report, 2, {0: lambda p: ()})
    assert rule.conditions == () and rule.text == 'IF TRUE THEN CLASS=">50K"'
    assert RuleEdits(report, ds.X).evaluate(2, rule).support == report.n_rows


def test_whole_number_thresholds_read_as_their_text(census):
    """32.5 on a whole-number column prints as 32 and is kept as 32: the rule is what its text says."""
    _, ds, report = census
    rule = edited(ds, report, 3, {0: lambda p: p.with_bounds(None, 32.5)})
    assert rule.text == 'IF age <= 32 THEN CLASS="<=50K"' and rule.conditions[0].threshold == 32


# ------------------------------------------------------------------ the numbers


def test_unchanged_rules_give_the_reports_numbers(census):
    _, ds, report = census
    edits = RuleEdits(report, ds.X)
    for i, rule in enumerate(report.rules):
        m = edits.evaluate(i, settle(rule, ds.feature_specs, ds.classes))
        own = report.per_rule[i]
        assert (m.support, m.errors, m.precision) == (own.support, own.errors, own.precision)
        assert (m.accuracy, m.balanced_accuracy, m.changed) == (report.accuracy, report.balanced_accuracy, 0)


def _cases(frame: pd.DataFrame):
    """(rule index, changes, the edited rule's rows on the table's own values)."""
    age, marital, work = frame["age"], frame["marital_status"], frame["workclass"]
    edu, hours, occupation = frame["education_num"], frame["hours_per_week"], frame["occupation"]
    return [
        (0, {0: lambda p: p.with_bounds(35, 65), 1: lambda p: p.with_values(["marital_status_0", "marital_status_2"])},
         (age > 35) & (age <= 65) & marital.isin(["marital_status_0", "marital_status_2"])),
        (0, {1: lambda p: ()}, (age > 40) & (age <= 60)),
        (1, {1: lambda p: p.with_values(["workclass_2"])}, (edu > 12) & (work == "workclass_2")),
        (1, {0: lambda p: p.with_bounds(8, None)}, (edu > 8) & work.isin(["workclass_0", "workclass_1"])),
        (2, {0: lambda p: p.with_bounds(1000, None)}, frame["capital_gain"] > 1000),
        (3, {0: lambda p: p.with_bounds(None, 45)}, age <= 45),
        # "not in" holds on every other value; "occupation is missing" is kept
        (4, {0: lambda p: p.with_values(["marital_status_3"])},
         (marital != "marital_status_3") & occupation.isna()),
        (4, {1: lambda p: ()}, ~marital.isin(["marital_status_0", "marital_status_1"])),
        (5, {0: lambda p: p.with_values([9, 10, 13]), 1: lambda p: p.with_bounds(30, None)},
         edu.isin([9, 10, 13]) & (hours >= 30)),
    ]


@pytest.mark.parametrize("case", range(9))
def test_edited_numbers_against_masks_and_a_full_evaluation(census, case):
    frame, ds, report = census
    i, changes, truth = _cases(frame)[case]
    rule = edited(ds, report, i, changes)
    m = RuleEdits(report, ds.X).evaluate(i, rule)
    rows = truth.to_numpy(dtype=bool)
    right = rows & (frame["income"].to_numpy() == rule.label)
    assert (m.support, m.correct, m.errors) == (rows.sum(), right.sum(), rows.sum() - right.sum())
    assert m.precision == pytest.approx(right.sum() / rows.sum())
    # the whole set with the edited rule in place, evaluated from scratch with the same ELSE class
    rules = list(report.rules)
    rules[i] = rule
    full = evaluate_rules(rules, ds.X, ds.y, fallback=report.fallback)
    assert (m.accuracy, m.balanced_accuracy) == (full.accuracy, full.balanced_accuracy)
    assert m.changed == int(np.count_nonzero(full.predicted != report.predicted))
    assert (m.support, m.errors) == (full.per_rule[i].support, full.per_rule[i].errors)


def test_a_new_class_moves_the_rules_votes(census):
    """The edited rule's class may differ from rule i's: its rows vote for the new class."""
    _, ds, report = census
    rule = Rule(report.rules[3].conditions, ">50K")
    m = RuleEdits(report, ds.X).evaluate(3, rule)
    rules = list(report.rules)
    rules[3] = rule
    full = evaluate_rules(rules, ds.X, ds.y, fallback=report.fallback)
    assert (m.accuracy, m.balanced_accuracy, m.errors) == (full.accuracy, full.balanced_accuracy,
                                                           full.per_rule[3].errors)


def test_dropping_a_part_never_decreases_support(census):
    _, ds, report = census
    edits = RuleEdits(report, ds.X)
    for i, rule in enumerate(report.rules):
        for k in range(len(rule_parts(rule))):
            assert edits.evaluate(i, edited(ds, report, i, {k: lambda p: ()})).support >= report.per_rule[i].support


def test_an_edit_evaluates_only_the_edited_rule(census, monkeypatch):
    """Precomputed once per report: an edit reads the edited rule's columns once and never the other rules."""
    _, ds, report = census
    edits = RuleEdits(report, ds.X)
    calls = []
    real = Rule.covers
    monkeypatch.setattr(Rule, "covers", lambda self, *a, **k: calls.append(self) or real(self, *a, **k))
    rule = edited(ds, report, 0, {0: lambda p: p.with_bounds(30, 70)})
    for _ in range(3):
        edits.evaluate(0, rule)
    assert calls == [rule] * 3
    assert edits.columns_read == 2 and edits.evaluated == 3  # age and marital_status = marital_status_0, once
    with pytest.raises(IndexError):
        edits.evaluate(report.n_rules, rule)
    with pytest.raises(ValueError, match="rows"):
        RuleEdits(report, ds.X.iloc[:10])


def test_a_kept_text_reads_back_as_the_edited_rule(census):
    _, ds, report = census
    for i, changes, _ in _cases(census[0]):
        rule = edited(ds, report, i, changes)
        assert rules_for_data([parse_rule(rule.text)], ds.feature_specs, ds.classes)[0] == rule


def test_edits_at_census_size_evaluate_one_rule_each(monkeypatch):
    """32,561 rows (the census table's size): 20 edits of one rule are 20 evaluations of that rule alone, on
    the two columns it reads (read once); nothing of the report is computed again."""
    ds = load_dataset(census_like(32_561), "income")
    rules = rules_for_data(parse_rules(RULES), ds.feature_specs, ds.classes)
    report = evaluate_rules(rules, ds.X, ds.y, feature_specs=ds.feature_specs)
    edits = RuleEdits(report, ds.X)
    counts = report.firing.class_counts.copy()
    calls = []
    real = Rule.covers
    monkeypatch.setattr(Rule, "covers", lambda self, *a, **k: calls.append(self) or real(self, *a, **k))
    for k in range(20):
        edits.evaluate(0, edited(ds, report, 0, {0: lambda p, k=k: p.with_bounds(30 + k, 65)}))
    assert len(calls) == 20 and edits.columns_read == 2 and edits.evaluated == 20
    assert np.array_equal(report.firing.class_counts, counts)  # the report's counts are read, never changed
