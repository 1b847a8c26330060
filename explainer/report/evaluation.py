"""A rule set evaluated on data: :func:`evaluate_rules` (the :class:`~explainer.report.metrics.RuleSetReport`
of its rules on a table), the vote of rules that fire on a row, held-out rows, one row explained.

Memory and time are linear in rows times rules (:class:`~explainer.report.coverage.RuleCoverage`):
the rules that conflict with one rule, or the rows it covers, are listed on demand.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from explainer.data.features import FeatureSpec
from explainer.data.labels import (
    distinct,
    encode_distinct,
    encode_labels,
    fallback_code,
    label_array,
    match_label,
    sorted_labels,
)
from explainer.report.coverage import RuleCoverage, vote_labels
from explainer.report.diagnosis import missing_use
from explainer.report.metrics import RuleMetrics, RuleSetReport, balanced_accuracy_of_codes
from explainer.report.probabilities import vote_counts, voted
from explainer.rules.model import RuleSet, ValueSet, rule_masks


def vote(coverage_matrix: np.ndarray, labels: list) -> np.ndarray:
    """Majority vote of the rules that fire on each row (object array; UNCOVERED / TIE)."""
    cov = np.asarray(coverage_matrix, dtype=bool)
    codes, first = _class_codes(labels, [])  # no rows: the rules' own classes
    firing = RuleCoverage(cov.T, codes, np.zeros(cov.shape[0], dtype=np.int64), len(first))
    return vote_labels(firing.votes()[0], first)


def _class_codes(labels: list, y_classes: list) -> tuple[np.ndarray, list]:
    """(class code of each rule, the classes): the classes are ``y_classes`` (the labels of the rows, in class
    order) and those of the rules, in class order (:func:`~explainer.data.labels.sorted_labels`); a rule's label
    that only names a class of the rows by its text (a rule read back from a file) is that class
    (:func:`~explainer.data.labels.match_label`)."""
    rule_codes, seen = distinct(label_array(labels))
    own = []
    for lab in seen:  # each distinct label once: a rule file can hold tens of thousands of rules
        try:
            own.append(match_label(lab, y_classes))
        except ValueError:
            own.append(lab)
    classes = sorted_labels(label_array(list(y_classes) + own))
    codes, _ = encode_labels(label_array(own), classes)
    return (codes[rule_codes] if rule_codes.size else rule_codes).astype(np.int64), classes


def _row_and_rule_codes(y: np.ndarray, labels: list) -> tuple[np.ndarray, np.ndarray, list]:
    """(class code of each row, of each rule, the classes), the rows' labels read once (each reading took
    0.02 s of a report at 130,000 rows)."""
    row_codes, seen = distinct(y)
    rule_class, classes = _class_codes(labels, sorted_labels(label_array(seen)))
    return encode_distinct(row_codes, seen, classes), rule_class, classes


def evaluate_rules(
    rules,
    X: pd.DataFrame,
    y,
    *,
    eps: float = 1.0,
    complexity_budget: int | None = None,
    error_budget: float | None = None,
    X_test: pd.DataFrame | None = None,
    y_test=None,
    fingerprint: str | None = None,
    settings: dict | None = None,
    fallback=None,
    target: str | None = None,
    sample_weight=None,
    feature_specs: list[FeatureSpec] | None = None,
) -> RuleSetReport:
    """Full metrics report of ``rules`` on ``(X, y)``; class labels mean what :mod:`explainer.data.labels` says.

    ``fallback`` is the class of rows no rule covers or where classes tie (default: the most
    frequent class, by weight, of the rows no rule covers, as the estimator's,
    :func:`~explainer.data.labels.fallback_class`); ``target`` names the class column;
    ``sample_weight`` (one per row of ``y``, or ``None``) adds the weighted errors and f*;
    ``feature_specs`` (``Dataset.feature_specs``) tell which cells were missing, for the rows each rule
    takes through a missing value (without them: the NaN cells of numeric features).  One pass
    over the rules, each evaluated on every row once: time and memory grow with rows times rules
    (one bit each), never with pairs of rules.
    """
    rule_set = rules if isinstance(rules, RuleSet) else RuleSet(list(rules))
    y = label_array(y)
    y_codes, rule_class, class_labels = _row_and_rule_codes(y, [r.label for r in rule_set])
    firing = RuleCoverage(_masks(rule_set, X), rule_class, y_codes, len(class_labels))
    conflicts = firing.conflicts()
    lengths = np.array([r.length for r in rule_set], dtype=np.int64)  # the one count: rule_complexity
    missing = missing_use(rule_set, X, firing, feature_specs)

    per_rule = []
    for i, rule in enumerate(rule_set):
        support, correct = int(firing.support[i]), int(firing.correct[i])
        per_rule.append(
            RuleMetrics(
                index=i,
                rule=rule,
                label=rule.label,
                length=int(lengths[i]),
                support=support,
                correct=correct,
                errors=support - correct,
                precision=correct / support if support else 0.0,
                conflicts=int(conflicts[i]),
                missing=missing[i],
            )
        )

    covered = int(np.count_nonzero(firing.covered_mask))
    pairs = firing.conflicting_pairs()
    report = RuleSetReport(
        rules=rule_set,
        per_rule=per_rule,
        n_rows=len(y),
        complexity=int(lengths.sum()),
        errors=int((firing.support - firing.correct).sum()),
        covered=covered,
        conflicting_pairs=pairs,
        coverage=float(covered - eps * pairs),
        eps=eps,
        predictions=vote_labels(firing.votes()[0], class_labels),
        y=y,
        firing=firing,
        complexity_budget=complexity_budget,
        error_budget=error_budget,
        fingerprint=fingerprint,
        settings=dict(settings or {}),
        fallback=fallback,
        target=target,
        classes=class_labels,
    )
    if sample_weight is not None:
        report.sample_weight = np.asarray(sample_weight, dtype=float).ravel()
        if report.sample_weight.shape != (len(y),):
            raise ValueError(f"sample_weight needs one weight per row ({len(y)})")
        report.weighted = firing.weighted_totals(report.sample_weight)
    if fallback is None:
        # fallback_class's choice, from the codes read above (its own reading of the labels took 0.02 s at
        # 130,000 rows)
        report.fallback = class_labels[fallback_code(y_codes, firing.covered_mask, len(class_labels),
                                                     report.sample_weight)] if y_codes.size else None
    if X_test is not None and y_test is not None:
        report.holdout = holdout_report(rule_set, X_test, y_test, eps=eps, fallback=report.fallback,
                                        feature_specs=feature_specs)
        report.test_accuracy = report.holdout.vote_accuracy
        report.test_rows = report.holdout.n_rows
    return report


def selection_scores(coverage, rule_class, y_codes, n_classes: int, sample_weight=None) -> tuple[float, float, int]:
    """(accuracy, balanced accuracy, the fallback's class code) of rules given by their ``coverage`` (rows,
    rules; dense or sparse; class codes ``rule_class``) on rows of class codes ``y_codes``, counted as
    :func:`evaluate_rules`' report counts them: the vote of the rules that fire, else (none fires, or classes
    tie) the most frequent class, by ``sample_weight``, of the rows no rule covers.  A selection's figures
    without its report (a run's best selection so far, on the rows of its pool)."""
    y = np.asarray(y_codes, dtype=np.int64).ravel()
    counts = vote_counts(coverage, rule_class, n_classes)
    fallback = fallback_code(y, counts.any(axis=1), n_classes, sample_weight)
    predicted, _ = voted(counts, fallback)
    accuracy = float(np.mean(predicted == y)) if y.size else 0.0
    return accuracy, balanced_accuracy_of_codes(y, predicted), fallback


def _reads(cond) -> tuple[str, ...]:
    """The encoded features a condition reads: its one feature, or a value set's features."""
    if isinstance(cond, ValueSet):
        return (cond.numeric,) if cond.numeric is not None else cond.features
    return (cond.feature,)


def _masks(rule_set: RuleSet, X: pd.DataFrame):
    """Each rule's rows, read from the columns the rules name (taken from ``X`` once, not once per rule)."""
    names = list(dict.fromkeys(f for rule in rule_set for c in rule.conditions for f in _reads(c)))
    for name in names:
        if name not in X.columns:
            raise KeyError(f"the data has no feature {name!r}")
    columns = np.empty((len(X), len(names)), dtype=np.float64, order="F")
    for j, name in enumerate(names):
        columns[:, j] = X[name].to_numpy(dtype=np.float64)
    index = {name: j for j, name in enumerate(names)}
    return rule_masks(rule_set.rules, columns, index)


def holdout_report(rules, X_test: pd.DataFrame, y_test, *, eps: float = 1.0, fallback=None,
                   feature_specs: list[FeatureSpec] | None = None) -> RuleSetReport:
    """The rules' metrics on held-out rows (rows the pool and the selection never saw).

    The rules are evaluated by their text (:meth:`Rule.covers`), so ``X_test``
    only needs the columns the rules name.
    """
    return evaluate_rules(rules, X_test, y_test, eps=eps, fallback=fallback, feature_specs=feature_specs)


def firing_rules(rules, X: pd.DataFrame) -> list[list[int]]:
    """For each row of ``X``, the indices (into ``rules``) of the rules that fire on it."""
    rule_set = rules if isinstance(rules, RuleSet) else RuleSet(list(rules))
    cov = rule_set.coverage_matrix(X)
    return [np.flatnonzero(row).tolist() for row in cov]


def explain_row(rules, row) -> tuple[list[int], object]:
    """(indices of the rules that fire on one row, their majority vote).

    ``row`` is a mapping or Series from feature name to value, or a one-row
    DataFrame.  The vote is a class label, or ``UNCOVERED`` when no rule fires,
    or ``TIE`` when classes tie for the most firing rules.
    """
    frame = row if isinstance(row, pd.DataFrame) else pd.DataFrame([dict(row)])
    if len(frame) != 1:
        raise ValueError(f"explain_row takes one row, got {len(frame)}")
    rule_set = rules if isinstance(rules, RuleSet) else RuleSet(list(rules))
    cov = rule_set.coverage_matrix(frame)
    return np.flatnonzero(cov[0]).tolist(), vote(cov, [r.label for r in rule_set])[0]
