"""Metrics report, votes and exports, computed by hand on tiny tables."""

import json

import numpy as np
import pandas as pd
import pytest

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
    assert [rep.conflicting_rules(i) for i in range(3)] == [[1], [0], []]
    assert rep.per_rule[0].precision == 2 / 3
    assert (rep.complexity, rep.errors, rep.covered, rep.conflicting_pairs) == (3, 2, 6, 1)
    assert rep.coverage == 5 and rep.coverage_score == 5 / 6
    assert rep.within_budgets is False  # 2 errors > 1
    totals = {"n_rules": 3, "complexity": 3, "errors": 2, "covered": 6, "conflicting_pairs": 1, "coverage": 5,
              "coverage_score": 5 / 6}
    assert rep.evaluation.to_dict() == totals and rep.evaluation.feasible is False
    assert totals.items() <= rep.to_dict().items() and totals.items() <= rep.metrics().items()
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


def test_csv_export_header_is_inert_and_skipped_by_a_comment_aware_reader():
    import csv
    import io

    from explainer.report.exports import export_text
    from explainer.report.metrics import csv_comment_line

    # a spreadsheet splits a comment line at its commas: no piece may start a cell with a formula
    line = csv_comment_line("forbidden columns: a,=HYPERLINK(x), +1, b")
    cells = next(csv.reader(io.StringIO(line)))
    assert cells[0] == "# forbidden columns: a" and not any(c.lstrip(" ").startswith(("=", "+")) for c in cells)
    assert line == "# forbidden columns: a,'=HYPERLINK(x), '+1, b\n"
    # a '#' inside a rule or a label is in a quoted cell: a reader skipping '#' comment lines keeps it whole
    yh = np.array(["#1", "#1", "#1", "b", "b", "b"])
    rules = parse_rules("IF a <= 3 THEN CLASS=#1")
    rep = evaluate_rules(rules, X, yh, settings={"pinned": ["IF a <= 3 THEN CLASS=#1"]})
    text = export_text(rep, "csv")
    assert text.startswith("# 1 rule, complexity 1") and "# pinned: IF a <= 3 THEN CLASS=#1\n" in text
    back = pd.read_csv(io.StringIO(text), comment="#", dtype=str, keep_default_na=False)
    assert back["text"].tolist() == [rep.per_rule[0].text, rep.else_text]
    assert back["class"].tolist() == ["#1", str(rep.fallback)] and back["rule"].tolist() == ["1", "ELSE"]


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
    assert r.to_csv().splitlines()[-1] == "ELSE,ELSE CLASS=a,a,0,2,1,1,0.5,0,,0,"
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


def _random_rules(rng, n_rules: int, classes: list[str]):
    text = []
    for _ in range(n_rules):
        conds = [f"{rng.choice(['a', 'b', 'c'])} {rng.choice(['<=', '>'])} {rng.integers(0, 6)}"
                 for _ in range(rng.integers(1, 3))]
        text.append("IF " + " AND ".join(conds) + f" THEN CLASS={rng.choice(classes)}")
    return parse_rules("\n".join(text))


@pytest.mark.parametrize("direct_rules", [64, 0], ids=["rows unpacked", "byte tables"])
def test_per_rule_conflicts_and_totals_against_brute_force(direct_rules, monkeypatch):
    # random rule sets on random tables: every per-rule count and every list against pairwise loops, with the
    # products over a rule's rows read both ways
    from explainer.report import coverage
    from explainer.selection.problem import SelectionProblem

    monkeypatch.setattr(coverage, "DIRECT_RULES", direct_rules)

    rng = np.random.default_rng(7)
    for trial in range(25):
        n = int(rng.integers(1, 40))
        data = pd.DataFrame(rng.integers(0, 6, size=(n, 3)).astype(float), columns=["a", "b", "c"])
        data = data.mask(rng.random((n, 3)) < 0.1)  # missing values: no condition holds on them
        classes = ["p", "q", "r"][: int(rng.integers(2, 4))]
        labels = rng.choice(classes, size=n)
        rules = _random_rules(rng, int(rng.integers(0, 12)), classes)
        rep = evaluate_rules(rules, data, labels, eps=0.5)
        cov = [[bool(r.covers(data.iloc[[j]])[0]) for r in rules] for j in range(n)]
        R = len(rules)
        for i, rule in enumerate(rules):
            rows = [j for j in range(n) if cov[j][i]]
            others = [k for k in range(R) if str(rules[k].label) != str(rule.label)]
            m = rep.per_rule[i]
            assert m.support == len(rows)
            assert m.errors == sum(labels[j] != str(rule.label) for j in rows)
            assert m.conflicts == sum(cov[j][k] for j in rows for k in others)
            assert rep.conflicting_rules(i) == [k for k in others if any(cov[j][k] for j in rows)]
            assert rep.rows_covered_by(i).tolist() == rows
            for k in others:
                assert rep.conflicts_between(i, k).tolist() == [j for j in rows if cov[j][k]]
        pairs = sum(cov[j][i] and cov[j][k] and str(rules[i].label) != str(rules[k].label)
                    for j in range(n) for i in range(R) for k in range(i + 1, R))
        covered = sum(any(row) for row in cov)
        assert (rep.covered, rep.conflicting_pairs) == (covered, pairs), trial
        assert rep.coverage == covered - 0.5 * pairs
        assert rep.uncovered_rows().tolist() == [j for j in range(n) if not any(cov[j])]
        wrong = rep.wrong_rows()
        by_hand = [[k for k in range(R) if cov[j][k] and str(rules[k].label) != labels[j]] for j in range(n)]
        assert wrong.rows.tolist() == [j for j in range(n) if rep.predicted[j] != labels[j]]
        assert wrong.rule_lists() == [by_hand[j] for j in wrong.rows]
        for j in range(n):
            fired = [str(rules[k].label) for k in range(R) if cov[j][k]]
            counts = {c: fired.count(c) for c in set(fired)}
            top = [c for c, v in counts.items() if v == max(counts.values())] if counts else []
            assert rep.predictions[j] == (UNCOVERED if not top else TIE if len(top) > 1 else top[0])
        if R:  # the same totals as the optimisers' problem
            names = sorted(set(classes))
            problem = SelectionProblem(np.array(cov, dtype=bool).reshape(n, R),
                                       [names.index(str(r.label)) for r in rules],
                                       [names.index(v) for v in labels], [r.length for r in rules], eps=0.5)
            ev = problem.evaluate(np.ones(R, dtype=bool))
            assert (ev.covered, ev.conflicting_pairs, ev.errors, ev.complexity) == (
                rep.covered, rep.conflicting_pairs, rep.errors, rep.complexity)


def test_rules_with_value_sets_are_evaluated_on_the_features_they_read():
    # `late_payments in {3, 4}` reads two one-hot features, neither of them the condition's first
    from explainer.data import load_dataset, sample_datasets
    from explainer.data.defaults import default_load_settings
    from explainer.report import evaluate_rules
    from explainer.rules.defaults import default_pool_settings
    from explainer.rules.model import ValueSet
    from explainer.rules.pool import build_pool

    ds = load_dataset(sample_datasets()["loans"], **default_load_settings())
    pool = build_pool(ds.X, ds.y, random_state=0, classes=ds.classes, feature_specs=ds.feature_specs,
                      **default_pool_settings())
    picked = [i for i, r in enumerate(pool.rules) if any(isinstance(c, ValueSet) and len(c.features) > 1
                                                         for c in r.conditions)][:40]
    assert picked
    report = evaluate_rules(pool.rule_set(picked), ds.X, ds.y)
    dense = pool.coverage[:, picked].toarray().astype(bool)
    for k, i in enumerate(picked):
        assert np.array_equal(np.sort(report.rows_covered_by(k)), np.flatnonzero(dense[:, k])), pool.rules[i].text


def test_balanced_accuracy_by_hand():
    # y = p p q q p q.  Votes: p, p, tie, q, q, q; the fallback (majority, ties to the first sorted: p)
    # takes the tied row 2, a q row.  p (rows 0, 1, 4) gets 2 of 3 right, q (rows 2, 3, 5) 2 of 3.
    rep = evaluate_rules(RULES, X, y, eps=1.0)
    assert rep.fallback == "p"
    assert rep.predicted.tolist() == ["p", "p", "p", "q", "q", "q"]
    assert rep.accuracy == 4 / 6
    assert rep.balanced_accuracy == (2 / 3 + 2 / 3) / 2
    # one rule only: rows 3-5 (q, p, q) are uncovered and get the fallback, their most frequent class q (not
    # the overall tie's p), as accuracy counts them
    one = evaluate_rules(RULES[:1], X, y)
    assert one.fallback == "q"
    assert one.predicted.tolist() == ["p", "p", "p", "q", "q", "q"]
    assert one.accuracy == 4 / 6 and one.balanced_accuracy == (2 / 3 + 2 / 3) / 2
    assert one.fallback_right == 2
    # an imbalanced table: 4 p, 1 q; a class absent from y (r) does not count
    yi = np.array(["p", "p", "p", "q", "p", "p"])
    rep_i = evaluate_rules(parse_rules("IF a <= 5 THEN CLASS=p\nIF a > 5 THEN CLASS=r\n"), X, yi)
    # predicted p, p, p, p, p, r: p 4 of 5 right, q 0 of 1
    assert rep_i.accuracy == 4 / 6 and rep_i.balanced_accuracy == (4 / 5 + 0 / 1) / 2
    d = json.loads(rep.to_json())
    assert d["balanced_accuracy"] == rep.balanced_accuracy
    assert "balanced accuracy:  66.67%" in rep.to_text()


def test_weighted_errors_and_coverage_by_hand():
    # weights 1, 2, 3, 4, 5, 6.  Rule 1 errs on row 2 (3), rule 3 on row 4 (5): errors 8.
    # every row covered (21), the conflict on row 2 weighs 3: f* = 21 - 3 = 18
    rep = evaluate_rules(RULES, X, y, eps=1.0, error_budget=8, sample_weight=[1, 2, 3, 4, 5, 6])
    assert rep.weighted_errors == 8 and rep.weighted_coverage == 18
    assert rep.errors == 2  # rows still counted as rows
    assert rep.within_budgets is True  # the budget bounds the weight 8
    d = json.loads(rep.to_json())
    assert d["weighted_errors"] == 8 and d["weighted_coverage"] == 18 and d["total_weight"] == 21


def test_weighted_budget_is_compared_as_the_selection_compares_it():
    # errors weigh 0.1 (row 2) + 0.2 (row 4), a few ulps above 0.3: within a budget of 0.3, not of 0.3 - 1e-6
    w = [1, 1, 0.1, 1, 0.2, 1]
    assert evaluate_rules(RULES, X, y, error_budget=0.3, sample_weight=w).within_budgets is True
    assert evaluate_rules(RULES, X, y, error_budget=0.3 - 1e-6, sample_weight=w).within_budgets is False
    # unweighted: two rows wrong, an exact comparison
    assert evaluate_rules(RULES, X, y, error_budget=2).within_budgets is True
    assert evaluate_rules(RULES, X, y, error_budget=1).within_budgets is False


def test_accuracies_follow_the_fallback_and_survive_pickling():
    """The report keeps its labels as text for the next read; a new fallback class is read afresh, and a
    pickled report (what a worker sends to the page) carries no such text and reads the same."""
    import pickle

    from sklearn.metrics import balanced_accuracy_score

    rep = evaluate_rules(RULES, X, y, eps=1.0)
    assert 0 <= rep.accuracy <= 1  # read once: the texts are kept
    for fallback in ("q", "p"):
        rep.fallback = fallback
        predicted = rep.predicted.astype(str)
        assert rep.accuracy == float(np.mean(predicted == y))
        assert rep.balanced_accuracy == balanced_accuracy_score(y, predicted)
        left = (rep.predictions == UNCOVERED) | (rep.predictions == TIE)
        assert rep.fallback_right == int(np.count_nonzero(y[left] == fallback))
    back = pickle.loads(pickle.dumps(rep))
    assert "_texts" not in back.__dict__
    assert (back.accuracy, back.balanced_accuracy) == (rep.accuracy, rep.balanced_accuracy)


def test_balanced_accuracy_matches_scikit_learn_on_mixed_labels():
    from sklearn.metrics import balanced_accuracy_score

    from explainer.report import balanced_accuracy

    rng = np.random.default_rng(0)
    for labels in (np.array([1, 2, 3]), np.array(["a", "b"]), np.array([">50K", "<=50K", "x y"])):
        t = rng.choice(labels, 200)
        p = rng.choice(labels, 200)
        assert np.isclose(balanced_accuracy(t, p), balanced_accuracy_score(t.astype(str), p.astype(str)))
    assert balanced_accuracy(np.array([]), np.array([])) == 0.0
