"""The rule text format: readable forms, the paper's raw forms, quoting, limits and a linear scanner."""

import math
import re

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from explainer.data.features import FeatureSpec
from explainer.rules import (
    MAX_LINE_CHARS,
    MAX_TEXT_CHARS,
    Condition,
    Rule,
    RuleSet,
    RuleSyntaxError,
    parse_rule,
    parse_rules,
    resolve_features,
    rules_for_data,
)
from explainer.rules import parse as ruleparse
from explainer.rules import render as rulerender
from explainer.rules import scan as rulescan

AGE = FeatureSpec("Age", "Age", "numeric", integer=True)
WEIGHT = FeatureSpec("weight", "weight", "numeric")
MARGIN = {v: FeatureSpec(f"Margin={v}", "Margin", "onehot", v) for v in (1, 5)}
MARGIN_MISSING = FeatureSpec("Margin is missing", "Margin", "missing")
COLOUR_RED = FeatureSpec("colour=red", "colour", "onehot", "red")
SPECS = [AGE, WEIGHT, *MARGIN.values(), MARGIN_MISSING, COLOUR_RED]


def cond(spec, op, threshold):
    return Condition(spec.name, op, threshold, spec)


def test_readable_conditions():
    assert cond(MARGIN[5], ">", 0.5).text == "Margin = 5"
    assert cond(MARGIN[5], "<=", 0.5).text == "Margin != 5"
    assert cond(COLOUR_RED, ">", 0.5).text == "colour = red"
    assert cond(MARGIN_MISSING, ">", 0.5).text == "Margin is missing"
    assert cond(MARGIN_MISSING, "<=", 0.5).text == "Margin is not missing"
    assert cond(AGE, "<=", 32.7).text == "Age <= 32"
    assert cond(AGE, ">", 32.7).text == "Age > 32"
    assert cond(AGE, "<", 32.2).text == "Age < 33"
    assert cond(AGE, ">=", 32.2).text == "Age >= 33"
    assert cond(WEIGHT, "<=", 32.7).text == "weight <= 32.7"
    # NaN fails every comparison: "<= inf" is exactly "present"
    assert cond(WEIGHT, "<=", math.inf).text == "weight is not missing"
    # no spec: the plain numeric form, as in the paper
    assert Condition("Margin", "<=", 3.5).text == "Margin <= 3.5"


def test_whole_number_thresholds_select_the_same_whole_numbers():
    values = np.arange(-60, 61, dtype=float)
    for t in np.linspace(-50.5, 50.5, 203):
        for op in ("<=", ">", "<", ">="):
            shown = float(cond(AGE, op, t).text.split(" ")[-1])
            assert shown == int(shown)
            assert np.array_equal(Condition("Age", op, t).holds(values), Condition("Age", op, shown).holds(values))


def test_interval_prints_as_one_phrase_but_counts_two_conditions():
    assert Rule((cond(AGE, "<=", 54.5), cond(AGE, ">", 32.5)), 0).text == "IF 32 < Age <= 54 THEN CLASS=0"
    rule = Rule((cond(AGE, "<=", 54.0), cond(MARGIN[1], ">", 0.5), cond(AGE, ">", 32.0)), "benign")
    assert rule.text == "IF 32 < Age <= 54 AND Margin = 1 THEN CLASS=benign"
    assert rule.length == 3 and RuleSet([rule]).complexity == 3
    parsed = resolve_features(parse_rules(rule.text), SPECS)[0]
    assert parsed.length == 3 and parsed.key() == rule.key()


def test_paper_raw_forms_and_new_forms_bind_to_the_same_features():
    def bound(text):
        return [(c.feature, c.op, c.threshold) for c in resolve_features(parse_rules(text), SPECS)[0].conditions]

    one_hot = [("Margin=5", ">", 0.5)]
    for text in ("IF Margin_5 > 0.5 THEN CLASS=1", "IF Margin=5 > 0.5 THEN CLASS=1", "IF Margin = 5 THEN CLASS=1",
                 "IF margin = 5.0 THEN CLASS=1", 'IF "Margin" = "5" THEN CLASS=1', "IF Margin=5 THEN CLASS=1"):
        assert bound(text) == one_hot, text
    assert bound("IF Margin != 5 THEN CLASS=1") == [("Margin=5", "<=", 0.5)]
    assert bound("IF Margin_5 <= 0.5 THEN CLASS=1") == [("Margin=5", "<=", 0.5)]
    for text in ("IF margin_? > 0.5 THEN CLASS=1", "IF Margin is missing THEN CLASS=1", "IF Margin IS MISSING THEN CLASS=1"):
        assert bound(text) == [("Margin is missing", ">", 0.5)], text
    assert bound("IF Margin is not missing THEN CLASS=1") == [("Margin is missing", "<=", 0.5)]
    assert bound("IF 32 < Age <= 54 THEN CLASS=1") == [("Age", ">", 32.0), ("Age", "<=", 54.0)]
    assert bound("IF 54 >= age > 32 THEN CLASS=1") == [("Age", "<=", 54.0), ("Age", ">", 32.0)]
    assert bound("IF 32 < Age THEN CLASS=1") == [("Age", ">", 32.0)]
    # an equality on a numeric feature is the value set {40}: one condition, false on a gap
    (age,) = resolve_features(parse_rules("IF Age = 40 THEN CLASS=1"), SPECS)[0].conditions
    assert (age.numeric, age.values, age.negated, age.text) == ("Age", (40.0,), False, "Age = 40")
    (age,) = resolve_features(parse_rules("IF Age != 40 THEN CLASS=1"), SPECS)[0].conditions
    assert (age.values, age.negated, age.text) == ((40.0,), True, "Age != 40")
    ages = np.array([[40.0], [41.0], [np.nan]])
    assert age.mask(ages, {"Age": 0}).tolist() == [False, True, True]
    # without a missing indicator, "is not missing" is "<= inf" on the feature itself
    assert bound("IF weight is not missing THEN CLASS=1") == [("weight", "<=", math.inf)]
    with pytest.raises(KeyError, match="Margin = 7"):
        bound("IF Margin = 7 THEN CLASS=1")
    with pytest.raises(KeyError, match="no missing values in 'weight'"):
        bound("IF weight is missing THEN CLASS=1")


def test_pool_rules_re_bind_to_themselves():
    rules = [Rule((cond(MARGIN[5], ">", 0.5), cond(MARGIN_MISSING, "<=", 0.5), cond(AGE, ">", 40.0)), 1)]
    bound = rules_for_data(rules, SPECS, [0, 1])
    assert list(bound) == rules and bound[0].conditions[0].spec == MARGIN[5]


def test_str_of_a_rule_set_is_its_rules():
    rs = RuleSet([Rule((cond(AGE, ">", 40.0),), "a"), Rule((), "b")])
    assert str(rs) == "IF Age > 40 THEN CLASS=a\nIF TRUE THEN CLASS=b"
    assert rs.to_text() == str(rs) + "\n"
    assert repr(rs) == "RuleSet(2 rules, complexity 1)"
    assert parse_rules(rs.to_text()) == list(rs.rules)


HOSTILE_NAMES = ["tail AND", "a\tAND\tb", "a\xa0AND\xa0b", "before then after", "x THEN y", "TRUE", "5", "-inf", "nan",
                 "", " padded ", "two  spaces", 'say "hi"', "back\\slash", "a<b", "x is missing", "Margin=5", "!",
                 "line\nbreak", "\x85", "\u2028", "\x0c", "IF", "#"]
HOSTILE_LABELS = ["\n", "\r", "\x0c", "\x85", "\u2028", "a\nIF x > -100 THEN CLASS=b", "", " ", '"quoted"', "w THEN CLASS=q",
                  "x AND y", "\\", "CLASS=z"]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_hostile_names_round_trip(name):
    rule = Rule((Condition(name, "<=", 2.5), Condition("ok", ">", 1.0)), "k")
    line = rule.text
    assert len(line.splitlines()) == 1
    assert parse_rules(line + "\n") == [rule]
    spec = FeatureSpec(f"{name}=v", name, "onehot", "v AND")
    onehot = Rule((Condition(spec.name, ">", 0.5, spec),), "k")
    back = parse_rule(onehot.text).conditions[0].spec
    assert (back.column, back.value) == (name, "v AND")


@pytest.mark.parametrize("label", HOSTILE_LABELS)
def test_hostile_labels_round_trip_and_never_add_a_rule(label):
    text = RuleSet([Rule((Condition("x", ">", 1.0),), label)]).to_text()
    assert len(text.splitlines()) == 1
    rules = parse_rules(text)
    assert len(rules) == 1 and rules[0].label == label


_threshold = st.floats(allow_nan=False, allow_infinity=False, width=64)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    names=st.lists(st.text(max_size=12), min_size=1, max_size=4),
    values=st.lists(st.text(max_size=8), min_size=1, max_size=4),
    label=st.text(max_size=12),
    ops=st.lists(st.sampled_from(["<=", ">", "<", ">="]), min_size=1, max_size=4),
    thresholds=st.lists(_threshold, min_size=1, max_size=4),
)
def test_any_name_value_and_label_survive_the_text(names, values, label, ops, thresholds):
    conds = [Condition(n, op, t) for n, op, t in zip(names, ops, thresholds, strict=False)]
    for column, value in zip(names, values, strict=False):
        spec = FeatureSpec(f"{column}={value}", column, "onehot", value)
        conds.append(Condition(spec.name, ">", 0.5, spec))
        miss = FeatureSpec(f"{column} is missing", column, "missing")
        conds.append(Condition(miss.name, "<=", 0.5, miss))
    rule = Rule(tuple(conds), label)
    text = RuleSet([rule]).to_text()
    assert len(text.splitlines()) == 1
    (back,) = parse_rules(text)
    assert back.label == label
    assert back.key() == rule.key()
    readings = sorted((c.spec.kind, c.spec.column, str(c.spec.value)) for c in rule.conditions if c.spec)
    assert sorted((c.spec.kind, c.spec.column, str(c.spec.value)) for c in back.conditions if c.spec) == readings


def test_scanner_uses_only_single_character_class_patterns():
    # A pattern that is one character class under one quantifier, matched at a
    # position, cannot backtrack: the scan is linear whatever the input.
    single = re.compile(r"(\\s|\[[^\]]+\])\+")
    for pattern in rulescan.SCANNER_PATTERNS:
        assert single.fullmatch(pattern.pattern), pattern.pattern
    for module in (rulescan, ruleparse, rulerender):
        compiled = [v for v in vars(module).values() if isinstance(v, re.Pattern)]
        assert all(any(p is q for q in rulescan.SCANNER_PATTERNS) for p in compiled)
        source = open(module.__file__, encoding="utf-8").read()
        assert not re.search(r"\bre\.(match|search|fullmatch|split|sub|findall|finditer)\(", source)
        assert module is rulescan or "re.compile" not in source


def test_long_lines_are_read_or_refused_whole():
    # a run of white space (quadratic for the old regular expressions)
    rule = parse_rule("IF sepal_length" + " " * (MAX_LINE_CHARS - 40) + "<= 5 THEN CLASS=x")
    assert rule.conditions == (Condition("sepal_length", "<=", 5.0),)
    many = " AND ".join(["a <= 1"] * ((MAX_LINE_CHARS - 40) // 11))
    assert parse_rule(f"IF {many} THEN CLASS=x").length == (MAX_LINE_CHARS - 40) // 11
    escaped = parse_rule('IF "' + "\\n" * ((MAX_LINE_CHARS - 40) // 2) + '" <= 1 THEN CLASS=x')
    assert escaped.conditions[0].feature == "\n" * ((MAX_LINE_CHARS - 40) // 2)
    with pytest.raises(RuleSyntaxError, match="never closed"):
        parse_rule('IF "' + '\\"' * ((MAX_LINE_CHARS - 40) // 2) + " <= 1 THEN CLASS=x")
    with pytest.raises(RuleSyntaxError, match=f"line 2 has 900021 characters; the limit is {MAX_LINE_CHARS}"):
        parse_rules("IF a <= 1 THEN CLASS=x\nIF a" + " " * 900_000 + "<= 5 THEN CLASS=x")
    with pytest.raises(RuleSyntaxError, match=f"the rule has 1000021 characters; the limit is {MAX_LINE_CHARS}"):
        parse_rule("IF a" + " " * 1_000_000 + "<= 5 THEN CLASS=x")
    with pytest.raises(RuleSyntaxError, match=f"the limit is {MAX_TEXT_CHARS}"):
        parse_rules("IF a <= 1 THEN CLASS=x\n" * (MAX_TEXT_CHARS // 20))
    # wrapped lines cannot add up past the limit either
    with pytest.raises(RuleSyntaxError, match="line 1: the rule has over"):
        parse_rules("IF a <= 1\n" + "AND a <= 1\n" * (MAX_LINE_CHARS // 10) + "THEN CLASS=x")


@pytest.mark.parametrize(
    "line, message",
    [
        ("WHEN a < 1 THEN x", "expected 'IF"),
        ("IF a <= 1 CLASS=x", "no THEN"),
        ("IF a <= THEN CLASS=x", "a name or number is missing"),
        ("IF a <= 1 AND AND b > 2 THEN CLASS=x", "empty condition"),
        ("IF a <= b THEN CLASS=x", "a feature on one side and a number"),
        ("IF 1 < a < 2 < 3 THEN CLASS=x", "too many comparisons"),
        ('IF "a <= 1 THEN CLASS=x', "never closed"),
        ('IF "a\\q" <= 1 THEN CLASS=x', "unknown escape"),
        ('IF "a\\x4" <= 1 THEN CLASS=x', "hex digits"),
        ('IF a "b" <= 1 THEN CLASS=x', "quoted name must stand alone"),
        ("IF a ! 1 THEN CLASS=x", "unexpected '!'"),
        ('IF a <= 1 THEN CLASS="x" y', "text after the quoted class"),
        ("IF a <= 1 THEN CLASS=", "no class"),
    ],
)
def test_syntax_errors_say_what_is_wrong(line, message):
    with pytest.raises(RuleSyntaxError, match=re.escape(message)):
        parse_rules(line)


@pytest.mark.parametrize("label", [">50K", "<=50K", "=a", "!x", '"q', "True", "False"])  # a boolean pair alike
def test_labels_that_would_read_as_an_operator_are_quoted(label):
    text = RuleSet([Rule((Condition("x", ">", 1.0),), label)]).to_text()
    assert text.rstrip("\n").endswith(f"THEN CLASS={rulescan.quote(label)}")
    assert parse_rules(text)[0].label == label


def test_shortest_threshold_between_neighbours():
    from explainer.rules.numbers import shorten_threshold

    # float32 noise next to a data value: the shortest decimal that moves no row
    assert shorten_threshold(3.7999999523162842, np.array([3.6, 3.8, 4.0])) == 3.7
    assert shorten_threshold(1.6499999761581421, np.array([1.6, 1.64, 1.65])) == 1.64
    # a best split's midpoint prints as the exact decimal midpoint
    assert shorten_threshold(2.450000047683716, np.array([1.9, 3.0])) == 2.45
    assert shorten_threshold(1.6449999809265137, np.array([1.64, 1.65])) == 1.645
    # the midpoint of full-precision measurements is long: the shortest decimal between them instead
    lo, hi = 0.28455109700176023 - 0.0013748, 0.3017925610983125
    assert shorten_threshold((lo + hi) / 2, np.array([lo, hi])) == 0.3


BUYING = {v: FeatureSpec(f"buying={v}", "buying", "onehot", v) for v in ("low", "med", "high", "vhigh")}


def test_conditions_on_one_column_read_as_one_phrase_and_back():
    b = BUYING
    rule = Rule((cond(b["low"], "<=", 0.5), cond(AGE, ">", 32.0), cond(b["high"], "<=", 0.5), cond(AGE, "<=", 54.0)), "x")
    assert rule.text == "IF buying not in {low, high} AND 32 < Age <= 54 THEN CLASS=x"
    assert (rule.length, rule.n_phrases) == (4, 2)
    back = resolve_features(parse_rules(rule.text), [*SPECS, *b.values()])[0]
    assert back.key() == rule.key() and back.length == 4
    # "in {...}" on a categorical column: one condition that reads the values' one-hot features
    (vs,) = resolve_features(parse_rules("IF buying in {low, med} THEN CLASS=x"), list(b.values()))[0].conditions
    assert vs.features == ("buying=low", "buying=med") and vs.text == "buying in {low, med}"
    onehots = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]], dtype=float)
    index = {s.name: i for i, s in enumerate(b.values())}
    assert vs.mask(onehots, index).tolist() == [True, True, False, False]  # false on a gap
    assert RuleSet([Rule((vs,), "x")]).to_text() == "IF buying in {low, med} THEN CLASS=x\n"
    # one value in braces is "= v"
    (eq,) = resolve_features(parse_rules("IF buying in {low} THEN CLASS=x"), list(b.values()))[0].conditions
    assert eq == cond(b["low"], ">", 0.5)


def test_set_values_that_hold_set_punctuation_are_quoted():
    spec = FeatureSpec("a, b=x,y", "a, b", "onehot", "x,y")
    other = FeatureSpec("a, b={z}", "a, b", "onehot", "{z}")
    rule = Rule((cond(spec, "<=", 0.5), cond(other, "<=", 0.5)), "k")
    assert rule.text == 'IF "a, b" not in {"x,y", "{z}"} THEN CLASS=k'
    assert resolve_features(parse_rules(rule.text), [spec, other])[0].key() == rule.key()


@pytest.mark.parametrize("line, message", [
    ("IF c in {a, b THEN CLASS=x", "expected a set"),
    ("IF c in a, b} THEN CLASS=x", "expected a set"),
    ("IF c {a} THEN CLASS=x", "expected a set"),
    ("IF c in {a, <} THEN CLASS=x", "unexpected '<'"),
])
def test_set_syntax_errors(line, message):
    with pytest.raises(RuleSyntaxError, match=re.escape(message)):
        parse_rules(line)


# ---------------------------------------------------------------- one quoting rule

def test_what_is_not_a_plain_word_or_number_is_quoted():
    ab = FeatureSpec("a | b", "a | b", "numeric")
    rule = Rule((cond(ab, ">", 4.185), cond(ab, "<=", 14.19)), "**bold**")
    assert rule.text == 'IF 4.185 < "a | b" <= 14.19 THEN CLASS="**bold**"'
    assert Rule((cond(AGE, ">", 32.0),), ">50K").text == 'IF Age > 32 THEN CLASS=">50K"'
    spaced = FeatureSpec("petal length", "petal length", "numeric")
    assert Rule((cond(spaced, "<=", 2.45),), "Iris-setosa").text == 'IF "petal length" <= 2.45 THEN CLASS=Iris-setosa'
    assert Rule((cond(COLOUR_RED, ">", 0.5),), 7).text == "IF colour = red THEN CLASS=7"
    # the older unquoted forms still read
    back = parse_rules("IF 4.185 < a | b <= 14.19 THEN CLASS=**bold**")[0]
    assert [c.feature for c in back.conditions] == ["a | b", "a | b"] and back.label == "**bold**"


_name = st.one_of(
    st.text(min_size=1, max_size=12),
    st.sampled_from(["a b", 'say "hi"', "a | b", "x<y", "p=q", "**bold**", "naïve ü", "1st", "3", "AND", "then x",
                     " lead", "tail ", "a\\b", "{x}", "x, y", ">50K", "is missing", "not", "in", "é", "_"]),
)


@settings(max_examples=300, deadline=None)
@given(column=_name, other=_name, value=_name, label=_name, threshold=st.floats(-1e6, 1e6, allow_nan=False))
def test_render_then_parse_gives_back_names_values_and_labels(column, other, value, label, threshold):
    assume(other != column)
    numeric = FeatureSpec(column, column, "numeric")
    onehot = FeatureSpec(f"{other}={value}", other, "onehot", value)
    rule = Rule((cond(numeric, "<=", threshold), cond(onehot, ">", 0.5)), label)
    line = rule.text
    assert "\n" not in line and "\r" not in line
    back = parse_rules(line)[0]
    assert back.label == label
    numeric_back, onehot_back = back.conditions
    assert (numeric_back.feature, numeric_back.op, numeric_back.threshold) == (column, "<=", threshold)
    assert (onehot_back.spec.column, onehot_back.spec.value) == (other, value)
    # a plain word or number stays as it is, anything else is quoted
    plain = rulerender.is_plain_word(label) or rulerender.is_plain_number(label)
    assert line.endswith(f"CLASS={label}") if plain else line.endswith('"')


def test_the_comparison_signs_read_as_their_ascii_operators():
    """A page's Markdown shows ``<=`` as ``≤``, and an analyst's document may hold any of these: a rule copied so
    reads as written in ASCII, and a name holding one is quoted when written, so it reads back as a name."""
    from explainer.rules import parse_rules
    from explainer.rules.render import render_name

    assert parse_rules("IF a ≤ 2 AND b ≥ 1 AND c ≠ x AND 1 < d ≤ 3 THEN CLASS=y") == parse_rules(
        "IF a <= 2 AND b >= 1 AND c != x AND 1 < d <= 3 THEN CLASS=y")
    assert parse_rules("IF a≤2 THEN CLASS=y") == parse_rules("IF a <= 2 THEN CLASS=y")
    for name in ("a≤b", "x ≥ y", "p≠q"):
        assert render_name(name).startswith('"')
        (rule,) = parse_rules(f"IF {render_name(name)} > 2 THEN CLASS=y")
        assert rule.conditions[0].feature == name
