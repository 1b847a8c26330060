"""Class labels (explainer.data.labels): their meaning, the majority and the fallback class, and labels of any
type through the estimator and the command line."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest
from lanes import quick_first

from explainer.cli import main
from explainer.data import PAPER_DATASETS, load_paper_dataset, sample_datasets
from explainer.data.labels import (
    class_array,
    class_counts,
    encode_labels,
    fallback_class,
    majority_class,
    match_label,
)
from explainer.estimator import RuleSetExplainer
from explainer.report import evaluate_rules
from explainer.rules import parse_rules
from explainer.rules.render import render_label


def _fallback_by_hand(y, covered, w, classes):
    """Plain Python: the class of most weight among uncovered rows; ties: most weight overall, then order."""
    left = [(lab, wt) for lab, c, wt in zip(y, covered, w, strict=True) if not c]

    def weight(rows, k):
        return sum(wt for lab, wt in rows if lab == k)

    rows = list(zip(y, w, strict=True))
    if not left:
        return min(classes, key=lambda k: (-weight(rows, k), classes.index(k)))
    return min(classes, key=lambda k: (-weight(left, k), -weight(rows, k), classes.index(k)))


def test_fallback_class_matches_brute_force_on_every_small_case():
    classes = ["a", "b", "c"]
    rng = np.random.default_rng(0)
    for y in itertools.product(classes, repeat=4):
        for covered in itertools.product([False, True], repeat=4):
            w = rng.integers(0, 3, size=4).astype(float)
            expected = _fallback_by_hand(list(y), covered, list(w), classes)
            assert fallback_class(np.array(y), covered, w, classes) == expected
            assert fallback_class(np.array(y), covered, None, classes) == _fallback_by_hand(
                list(y), covered, [1.0] * 4, classes)


def test_counts_majority_and_ties_by_hand():
    y = np.array(["b", "a", "b", "c", "a"])
    counts, classes = class_counts(y)
    assert classes == ["a", "b", "c"] and counts.tolist() == [2, 2, 1]
    assert majority_class(y) == "a"  # a and b tie: the first in class order
    assert majority_class(y, sample_weight=[1, 1, 1, 5, 1]) == "c"
    assert class_counts(y, sample_weight=[0.5, 1, 1, 2, 1])[0].tolist() == [2.0, 1.5, 2.0]
    assert majority_class(np.array([], dtype=object)) is None
    # the uncovered rows b, c, a tie at one row each: the overall majority among them (a and b, then order) is a
    assert fallback_class(y, [True, False, False, False, True]) == "a"
    assert fallback_class(y, [True, True, True, True, True]) == "a"  # nothing uncovered: the overall majority
    assert fallback_class(y, [False, True, False, True, True]) == "b"


def test_a_label_matches_a_class_of_the_same_type_and_value():
    classes = [1, True, "1", 1.5]
    assert encode_labels([np.int64(1), True, "1", np.float64(1.5), 1], classes)[0].tolist() == [0, 1, 2, 3, 0]
    with pytest.raises(ValueError, match="not one of the classes"):
        encode_labels([1.0], classes)  # 1.0 is not the class 1
    # text read back from a rule file names the class with that text, if only one has it
    assert match_label("1.5", classes) == 1.5 and match_label("True", classes) is True
    assert match_label(1, classes) == 1 and type(match_label("1", classes)) is str
    with pytest.raises(ValueError, match="not one of the classes"):
        match_label("nope", classes)
    assert class_array([0.5, 1.5]).dtype.kind == "f" and class_array([1, "a"]).dtype == object


def _nursery_shape():
    """40 rows, classes not_recom / priority / spec_prior; health = 1 holds every not_recom row and only them
    (the nursery table's ``health = not_recom``), not_recom is the most frequent class (16 rows)."""
    health = np.array([1] * 16 + [0] * 24)
    x = np.array([0] * 16 + [0] * 10 + [1] * 14)
    y = np.array(["not_recom"] * 16 + ["priority"] * 9 + ["spec_prior"] + ["spec_prior"] * 13 + ["priority"])
    return pd.DataFrame({"health": health, "x": x}), y


def test_a_rule_that_covers_a_class_whole_leaves_the_fallback_to_another_class():
    X, y = _nursery_shape()
    rules = parse_rules("IF health > 0.5 THEN CLASS=not_recom\nIF x > 0.5 THEN CLASS=spec_prior\n")
    report = evaluate_rules(rules, X, y)
    # uncovered: rows 16..25, 9 priority and 1 spec_prior; the overall majority not_recom is on none of them
    assert report.n_uncovered == 10 and report.fallback == "priority" and report.fallback_right == 9
    assert report.accuracy == (16 + 13 + 9) / 40
    weighted = evaluate_rules(rules, X, y, sample_weight=np.where(y == "spec_prior", 10.0, 1.0))
    assert weighted.fallback == "spec_prior"  # by weight: 1 row of 10 beats 9 rows of 1

    est = RuleSetExplainer(max_depth=3, complexity_budget=2, error_budget=1, algorithm="exact", random_state=0)
    est.fit(X, y)
    uncovered = ~est.rules_.coverage_matrix(X).any(axis=1)
    assert uncovered.any() and est.default_class_ != "not_recom"
    labels, counts = np.unique(y[uncovered], return_counts=True)
    assert est.default_class_ == labels[np.argmax(counts)] == est.report_.fallback
    assert np.array_equal(est.predict(X)[uncovered], np.full(uncovered.sum(), est.default_class_))
    assert est.classes_[np.argmax(est.predict_proba(X), axis=1)].tolist() == est.predict(X).tolist()


def _check_one_decision(est, X):
    proba = est.predict_proba(X)
    assert np.allclose(proba.sum(axis=1), 1.0)
    assert np.array_equal(est.classes_[np.argmax(proba, axis=1)], est.predict(X))


@pytest.mark.parametrize("name", quick_first(sorted(PAPER_DATASETS)))
def test_predict_is_the_argmax_of_predict_proba_on_the_paper_data_sets(name):
    from sklearn.model_selection import train_test_split

    ds = load_paper_dataset(name)
    X_tr, X_te, y_tr, _ = train_test_split(ds.X, ds.y, test_size=0.3, random_state=0)
    # an error budget lets rules of different classes overlap: votes, ties and the fallback all occur
    est = RuleSetExplainer(max_depth=4, complexity_budget=8, error_budget=10, algorithm="greedy", random_state=0)
    est.fit(X_tr, y_tr)
    _check_one_decision(est, X_tr)
    _check_one_decision(est, X_te)


@pytest.mark.parametrize("name", quick_first(sorted(sample_datasets())))
def test_predict_is_the_argmax_of_predict_proba_on_the_samples(name):
    from explainer.data import load_dataset

    ds = load_dataset(sample_datasets()[name])
    est = RuleSetExplainer(max_depth=3, complexity_budget=5, error_budget=5, algorithm="greedy", random_state=0,
                           class_weight="balanced")
    rows = np.arange(ds.n_rows) % 3 != 0
    est.fit(ds.X[rows], ds.y[rows])
    _check_one_decision(est, ds.X)


LABELS = {
    "float": [0.5, 1.5],
    "integer": [3, 7],
    "boolean": [False, True],
    "text": ["no", "yes"],
}


def _table(kind):
    """60 rows: the class is the second label exactly where x > 5 (x = 0..59 mod 12)."""
    x = np.arange(60) % 12
    lo, hi = LABELS[kind]
    labels = [hi if v > 5 else lo for v in x]
    return pd.DataFrame({"x": x, "noise": (np.arange(60) * 7) % 5}), labels


@pytest.mark.parametrize("kind", list(LABELS))
def test_labels_of_any_type_through_the_estimator(kind):
    X, labels = _table(kind)
    for y in (np.array(labels), pd.Series(labels, name="class")):
        est = RuleSetExplainer(max_depth=3, complexity_budget=2, error_budget=0, algorithm="greedy",
                               random_state=0).fit(X, y)
        assert est.classes_.tolist() == sorted(LABELS[kind]) and type(est.classes_.tolist()[0]) is type(labels[0])
        assert est.predict(X).tolist() == labels and est.score(X, y) == 1.0
        _check_one_decision(est, X)
    arr = RuleSetExplainer(max_depth=3, complexity_budget=2, error_budget=0, algorithm="greedy",
                           random_state=0).fit(X.to_numpy(), np.array(labels))
    assert arr.predict(X.to_numpy()).tolist() == labels


def test_a_continuous_target_is_still_refused():
    X = np.arange(40, dtype=float).reshape(-1, 1)
    with pytest.raises(ValueError, match="Unknown label type"):
        RuleSetExplainer(algorithm="greedy").fit(X, np.linspace(0.1, 9.9, 40))


@pytest.mark.parametrize("kind", list(LABELS))
def test_labels_of_any_type_through_the_command_line(kind, tmp_path, capsys):
    X, labels = _table(kind)
    path = tmp_path / f"{kind}.csv"
    X.assign(label=labels).to_csv(path, index=False)
    rc = main(["explain", str(path), "--depth", "3", "--complexity", "2", "--errors", "0",
               "--algorithm", "greedy", "--seed", "0", "--json", "--quiet"])
    assert rc == 0
    d = json.loads(capsys.readouterr().out)
    assert d["accuracy"] == 1.0
    texts = {render_label(str(lo_hi)) for lo_hi in LABELS[kind]}  # as the rules write them ("False" quoted)
    assert d["rules_text"].rstrip().splitlines()[-1].split("CLASS=")[1] in texts
