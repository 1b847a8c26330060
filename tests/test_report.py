"""Metrics report, votes and exports, computed by hand on tiny tables."""

import json

import numpy as np
import pandas as pd

from explainer.report import (
    TIE,
    UNCOVERED,
    evaluate_rules,
    frame_to_safe_csv,
    neutralise_cell,
    vote,
)
from explainer.rules import parse_rules

X = pd.DataFrame({"a": [1, 2, 3, 4, 5, 6], "b": [0, 0, 1, 1, 0, np.nan]}, dtype=float)
y = np.array(["p", "p", "q", "q", "p", "q"])
RULES = parse_rules(
    """IF a <= 3 THEN CLASS=p
IF b > 0.5 THEN CLASS=q
IF a > 4.5 THEN CLASS=q
"""
)


def test_hand_computed_metrics():
    # rule1 covers rows 0,1,2 (row 2 is q: 1 error); rule2 rows 2,3 (b NaN on row 5 -> not covered);
    # rule3 rows 4,5 (row 4 is p: 1 error).  Conflict: row 2 (rule1 p vs rule2 q).
    rep = evaluate_rules(RULES, X, y, eps=1.0, complexity_budget=3, error_budget=1)
    assert [m.support for m in rep.per_rule] == [3, 2, 2]
    assert [m.errors for m in rep.per_rule] == [1, 0, 1]
    assert [m.correct for m in rep.per_rule] == [2, 2, 1]
    assert [m.conflicts for m in rep.per_rule] == [1, 1, 0]
    assert [m.conflicting_rules for m in rep.per_rule] == [[1], [0], []]
    assert rep.per_rule[0].precision == 2 / 3
    assert (rep.complexity, rep.errors, rep.covered, rep.conflicting_pairs) == (3, 2, 6, 1)
    assert rep.coverage == 5 and rep.coverage_score == 5 / 6
    assert rep.within_budgets is False  # 2 errors > 1
    assert rep.conflicts_between(0, 1).tolist() == [2]
    assert rep.uncovered_rows().tolist() == []
    # votes: row 2 is a tie (p vs q)
    assert rep.predictions.tolist() == ["p", "p", TIE, "q", "q", "q"]
    assert rep.n_ties == 1 and rep.vote_accuracy == 4 / 6


def test_eps_scales_the_conflict_penalty():
    assert evaluate_rules(RULES, X, y, eps=0.0).coverage == 6
    assert evaluate_rules(RULES, X, y, eps=2.0).coverage == 4


def test_vote_uncovered_and_majority():
    cov = np.array([[0, 0, 0], [1, 1, 0], [1, 1, 1]], dtype=bool)
    out = vote(cov, ["a", "a", "b"])
    assert out.tolist() == [UNCOVERED, "a", "a"]


def test_held_out_accuracy():
    rep = evaluate_rules(RULES[:1], X, y, X_test=X.iloc[:3], y_test=y[:3])
    assert rep.test_rows == 3 and rep.test_accuracy == 2 / 3


def test_json_and_csv_exports():
    rep = evaluate_rules(RULES, X, y, fingerprint="abc", settings={"algorithm": "qga"})
    d = json.loads(rep.to_json())
    for key in ("n_rows", "n_rules", "complexity", "errors", "covered", "conflicting_pairs", "coverage",
                "coverage_score", "rules", "rules_text", "data_fingerprint", "settings"):
        assert key in d
    assert d["rules"][0]["text"] == "IF a <= 3 THEN CLASS=p"
    assert set(d["rules"][0]) >= {"text", "length", "support", "errors", "conflicts"}
    csv_text = rep.to_csv()
    assert csv_text.splitlines()[0].startswith("rule,text,class,length")


def test_csv_neutralises_formulas():
    assert neutralise_cell("=SUM(A1)") == "'=SUM(A1)"
    assert neutralise_cell("+1") == "'+1"
    assert neutralise_cell("@x") == "'@x"
    assert neutralise_cell("IF a <= 3 THEN CLASS=p") == "IF a <= 3 THEN CLASS=p"
    assert neutralise_cell(-3) == -3
    frame = pd.DataFrame({"class": ["=cmd|' /C calc'!A0", "ok"], "n": [1, -2]})
    text = frame_to_safe_csv(frame)
    assert "'=cmd" in text and ",-2" in text


def test_firing_rules_and_explain_row_by_hand():
    from explainer.report import explain_row, firing_rules

    # rows: 0,1 -> rule 0; 2 -> rules 0 and 1 (p vs q: tie); 3 -> rule 1; 4 -> rule 2; 5 -> rule 2 (b missing)
    assert firing_rules(RULES, X) == [[0], [0], [0, 1], [1], [2], [2]]
    assert explain_row(RULES, {"a": 2.0, "b": 0.0}) == ([0], "p")
    assert explain_row(RULES, X.iloc[[2]]) == ([0, 1], TIE)
    assert explain_row(RULES, pd.Series({"a": 4.0, "b": 0.0})) == ([], UNCOVERED)
    two_q = parse_rules("IF a > 4 THEN CLASS=q\nIF b > 0.5 THEN CLASS=q\nIF a > 0 THEN CLASS=p\n")
    assert explain_row(two_q, {"a": 5.0, "b": 1.0}) == ([0, 1, 2], "q")  # 2 votes to 1


def test_holdout_report_beside_training_rows():
    from explainer.report import holdout_report

    X_test = pd.DataFrame({"a": [1.0, 5.0, 4.0], "b": [1.0, 0.0, 0.0]})
    y_test = np.array(["q", "q", "p"])
    # row 0: rules 0 (p, wrong) and 1 (q, right) -> tie, conflict; row 1: rule 2 (q, right); row 2: uncovered
    ho = holdout_report(RULES, X_test, y_test)
    assert (ho.n_rows, ho.covered, ho.errors, ho.conflicting_pairs, ho.coverage) == (3, 2, 1, 1, 1.0)
    assert ho.vote_accuracy == 1 / 3 and ho.covered_accuracy == 1 / 2
    rep = evaluate_rules(RULES, X, y, X_test=X_test, y_test=y_test)
    d = json.loads(rep.to_json())
    assert d["holdout"]["n_rows"] == 3 and d["holdout"]["errors"] == 1 and d["training"]["n_rows"] == 6
    assert d["test_accuracy"] == 1 / 3
    text = rep.to_text()
    assert "held-out" in text and "training" in text
    assert repr(rep) == "RuleSetReport(rules=3, rows=6, coverage=83.33%, complexity=3, errors=2, held-out rows=3)"


def test_accuracy_counts_the_vote_and_the_fallback_apart():
    """Hand-computed: 6 rows, two rules; one row tied, one uncovered."""
    import pandas as pd

    from explainer.report import evaluate_rules
    from explainer.rules import Condition, Rule, RuleSet, parse_rule_text

    X = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]})
    y = np.array(["a", "a", "b", "b", "b", "a"])
    rules = RuleSet([Rule((Condition("x", "<=", 3.0),), "a"), Rule((Condition("x", ">=", 3.0), Condition("x", "<=", 5.0)), "b")])
    r = evaluate_rules(rules, X, y, target="kind")
    # votes: a, a, tie, b, b, uncovered; fallback = most frequent class ("a" and "b" tie 3-3: "a")
    assert r.fallback == "a" and r.n_ties == 1 and r.n_uncovered == 1
    assert r.vote_accuracy == 4 / 6  # the tie and the uncovered row count as wrong
    assert r.fallback_right == 1  # row 6 is "a"; row 3 is "b"
    assert r.accuracy == 5 / 6
    text = r.to_text()
    assert "IF 3 <= x <= 5 THEN CLASS=b\nELSE CLASS=a\n" in text
    assert "target column:      kind" in text and "accuracy:           83.33% (5 of 6 rows" in text
    assert parse_rule_text(r.rules_text()) == (list(rules), "a")
    d = r.to_dict()
    assert (d["accuracy"], d["fallback_class"], d["else_text"], d["target"]) == (5 / 6, "a", "ELSE CLASS=a", "kind")
    assert r.to_csv().splitlines()[-1] == "ELSE,ELSE CLASS=a,a,0,2,1,1,0.5,0,"
    # a given fallback is used as given: "b" is right on the tied row 3, wrong on row 6
    given = evaluate_rules(rules, X, y, fallback="b")
    assert (given.fallback_right, given.predicted.tolist()) == (1, ["a", "a", "b", "b", "b", "b"])


def test_estimator_report_says_what_predict_does():
    import pandas as pd

    from explainer.estimator import RuleSetExplainer

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"u": rng.normal(size=200), "v": rng.normal(size=200)})
    y = pd.Series(np.where(X["u"] + 0.3 * rng.normal(size=200) > 0.4, "hi", "lo"), name="level")
    est = RuleSetExplainer(max_depth=4, complexity_budget=2, error_budget=5, random_state=0).fit(X, y)
    assert est.report_.fallback == est.default_class_ and est.report_.target == "level"
    assert est.report_.accuracy == est.score(X, y)
