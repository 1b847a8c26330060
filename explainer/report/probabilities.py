"""Class probabilities of a rule set's vote: what ``predict_proba`` gives, and what the validation scores.

Each rule carries the class distribution of the training rows it covers (their weight, when weighted),
smoothed towards the training class shares by an m-estimate: ``(counts + m * prior) / (n + m)``.  A row
the vote decides gets the mean over the rules that fire on it; a row no rule decides (none fires, or
classes tie) gets the smoothed distribution of the training rows no rule covers.  Where the distributions
favour another class than the vote, the two exchange their probabilities (:func:`agree`), so the largest
probability is always the class the vote gives.

The rules were chosen on those same training rows, so their distributions are optimistic; how far to
shrink them (``m``) is chosen on held-out rows by the default policy (:data:`SMOOTHING_GRID`), and is
:data:`PROBA_SMOOTHING` when no validation ran.

A few rules tell few levels of likelihood apart: every row no rule covers gets one distribution.  The
conditions of the rules say more: a row that meets all but one condition of a rule is not like a row that
meets none.  :class:`ConditionPatterns` groups the training rows by which of the rules' conditions they meet,
and moves each row's probabilities towards the class shares of its group, by an m-estimate whose m (or none:
no such step) is chosen on held-out training rows (:func:`fit_patterns`).  A compact explanation has few
conditions to group by, so the conditions of a small reference tree (the pool's plain CART tree of a depth of
:data:`REFERENCE_DEPTHS`) are tried beside them, and kept where the held-out rows say they help.  The vote, and
so ``predict``, stays as it is; the largest probability is still the voted class (:func:`agree`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explainer.data.labels import fallback_code

#: the m-estimate's m when it is not chosen on held-out rows (budgets given): a rule right on 18 of 20
#: rows gives its class about 0.9
PROBA_SMOOTHING = 2.0
#: the values of m the validation tries (grid points, each scored by held-out Brier score); from barely
#: shrunk to a distribution worth about 32 rows of the class shares
SMOOTHING_GRID = (0.5, 2.0, 8.0, 32.0)


#: the m-estimates the condition patterns try, each scored on held-out training rows (``None``: the vote's
#: probabilities as they are); grid points, not tuned values: from a group worth its rows to one worth 32
PATTERN_GRID = (None, 2.0, 8.0, 32.0)


#: the depths of the pool's plain CART trees whose conditions may group the rows more finely than the rules'
#: conditions do, each grouping tried on the folds beside the rules' own.  Chosen on the corpus's tuning half
#: (docs/benchmarks/README.md, *Probabilities by a reference tree's conditions*): the held-out Brier score no
#: worse than a depth-4 tree's on 23 of 29 tables with these three, 22 with depth 3 alone, 16 without.  On the
#: 13 tables of docs/benchmarks/reference_trees, not among those: 12 of 13 with and without, the Brier score lower
#: on 7 and higher on 2 (by at most 0.002)
REFERENCE_DEPTHS = (2, 3, 4)


@dataclass(frozen=True)
class ConditionPatterns:
    """The class weights of the training rows grouped by which of the rules' ``conditions`` they meet (one
    group a pattern of met conditions), and ``m``, how far a row's probabilities move towards its group's
    shares: ``(counts + m * p) / (n + m)`` for a row of probabilities ``p`` in a group of weight ``n``."""

    conditions: tuple
    groups: dict  # pattern (bytes) -> row of ``counts``
    counts: np.ndarray  # (groups, classes)
    m: float

    def refine(self, proba: np.ndarray, frame) -> np.ndarray:
        """``proba`` of the rows of ``frame`` moved towards their groups' class shares (a row whose pattern no
        training row had keeps its own)."""
        group = _lookup(self.groups, pattern_bytes(self.conditions, frame))
        out = np.array(proba, dtype=float, copy=True)
        seen = group >= 0
        out[seen] = toward_group(out[seen], self.counts[group[seen]], self.m)
        return out


def toward_group(proba: np.ndarray, counts: np.ndarray, m: float) -> np.ndarray:
    """Probabilities ``proba`` moved towards their groups' class ``counts``: ``(counts + m * p) / (n + m)``."""
    return (counts + m * proba) / (counts.sum(axis=1, keepdims=True) + m)


def rule_conditions(rules) -> tuple:
    """The distinct conditions of ``rules``, in the order they first appear."""
    return tuple(dict.fromkeys(c for rule in rules for c in rule.conditions))


def pattern_bytes(conditions: tuple, frame, masks: dict | None = None) -> tuple[np.ndarray, list[bytes]]:
    """(group of each row of ``frame``, the pattern of each group as bytes): the rows grouped by which of
    ``conditions`` they meet.  ``masks``: each condition's rows of ``frame`` already computed, filled as they are
    (groupings that share conditions compute each once)."""
    masks = {} if masks is None else masks
    for c in conditions:
        if c not in masks:
            masks[c] = np.asarray(c.mask(frame), dtype=bool)
    met = np.column_stack([masks[c] for c in conditions]) if conditions else np.zeros((len(frame), 0), dtype=bool)
    packed = np.packbits(met, axis=1)
    unique, inverse = np.unique(packed, axis=0, return_inverse=True)
    return inverse.ravel(), [row.tobytes() for row in unique]


def _lookup(groups: dict, patterns: tuple[np.ndarray, list[bytes]]) -> np.ndarray:
    """The index in ``groups`` of each row's pattern, -1 where no training row had it."""
    inverse, keys = patterns
    return np.array([groups.get(k, -1) for k in keys], dtype=np.int64)[inverse] if keys else inverse


def fit_patterns(conditions: tuple, frame, codes: np.ndarray, n_classes: int, proba: np.ndarray, vote: np.ndarray,
                 splits, weights=None, grid=PATTERN_GRID, finer=()) -> ConditionPatterns | None:
    """The condition patterns of the training rows of ``frame`` (classes ``codes``, the vote's probabilities
    ``proba`` and classes ``vote`` on them), with the m of ``grid`` whose held-out Brier score over ``splits``
    ((training rows, held-out rows) each) is lowest; ``None`` when no step is worth taking (:func:`_taken`).

    ``finer``: further groupings to try after ``conditions``, each a tuple of conditions (the rules' with a
    reference tree's): the grouping and its m are chosen together, the earlier one on a tie.  With no ``splits``,
    the first m of ``grid`` on ``conditions``."""
    if not conditions or not len(codes):
        return None
    codes = np.asarray(codes, dtype=np.int64)
    groupings = [conditions, *(tuple(dict.fromkeys(more)) for more in finer if more)]
    w = _held_weights(splits, weights) if splits else None
    best = None  # (held-out mean, m, conditions, group, keys, the held-out rows' Brier terms)
    none_terms = None  # the held-out rows' Brier terms with no step: the same for every grouping
    masks: dict = {}  # the groupings share the rules' conditions
    for conds in dict.fromkeys(groupings):
        group, keys = pattern_bytes(conds, frame, masks)
        if len(keys) == len(codes):  # every row a pattern of its own: nothing a group could tell
            continue
        if not splits:
            return None if grid[0] is None else _patterns(conds, group, keys, codes, n_classes, weights, grid[0])
        terms = _held_terms_by_m(group, codes, n_classes, proba, vote, splits, weights, grid)
        none_terms = terms.pop(None, none_terms)
        for m, t in terms.items():
            mean = float(np.average(t, weights=w))
            if best is None or mean < best[0]:  # strictly: the earlier grouping and m keep a tie
                best = (mean, m, conds, group, keys, t)
    if best is None:
        return None
    _, m, conds, group, keys, t = best
    if none_terms is not None and not _taken(none_terms - t, w):
        return None
    return _patterns(conds, group, keys, codes, n_classes, weights, m)


def _patterns(conditions, group, keys, codes, n_classes: int, weights, m: float) -> ConditionPatterns:
    counts = _group_counts(group, codes, n_classes, len(keys), weights, np.arange(len(codes)))
    return ConditionPatterns(conditions, {k: i for i, k in enumerate(keys)}, counts, float(m))


def _held_weights(splits, weights):
    return None if weights is None else np.asarray(weights, dtype=float)[np.concatenate([h for _, h in splits])]


def _held_terms_by_m(group, codes, n_classes: int, proba, vote, splits, weights, grid) -> dict:
    """Each m of ``grid`` (``None``: no step): the Brier terms of the held-out rows of ``splits``, each row's
    probabilities moved towards its group's class counts on its fold's training rows."""
    held = np.concatenate([h for _, h in splits])
    n_groups = int(group.max()) + 1
    # each held-out row's group counts on its fold's training rows: counted once, whatever the m
    counts = np.concatenate([_group_counts(group, codes, n_classes, n_groups, weights, tr)[group[h]]
                             for tr, h in splits])
    return {m: _held_terms(codes[held], proba[held], vote[held], counts, m) for m in grid}


def _taken(gain: np.ndarray, w) -> bool:
    """Whether a step whose held-out rows gain ``gain`` (each row's Brier term without it less with it) is
    worth taking: its mean gain beats one standard error of the rows' paired differences (a gain the folds
    cannot tell from noise is no reason for a step)."""
    mean = float(np.average(gain, weights=w))
    se = float(np.sqrt(np.average((gain - mean) ** 2, weights=w) / max(gain.size - 1, 1)))
    return mean > se


def _group_counts(group, codes, n_classes: int, n_groups: int, weights, rows) -> np.ndarray:
    w = None if weights is None else np.asarray(weights, dtype=float)[rows]
    flat = np.bincount(group[rows] * n_classes + codes[rows], weights=w, minlength=n_groups * n_classes)
    return flat.reshape(n_groups, n_classes).astype(float)


def _held_terms(codes, proba, vote, counts, m) -> np.ndarray:
    """The Brier term of each held-out row (classes ``codes``, the vote's ``proba`` and ``vote``) under its
    probabilities moved towards its group's class ``counts`` on the other rows (``m`` None: not moved)."""
    p = proba
    if m is not None:
        p = agree(toward_group(p, counts, m), vote)
    return row_brier(p, codes)


@dataclass(frozen=True)
class VoteProbabilities:
    """The fitted probabilities of a rule set: ``rule_proba`` (one row per rule), ``fallback_proba`` (rows no
    rule decides), the class ``prior`` they are smoothed towards; ``rule_codes`` and ``fallback`` give the
    vote; ``patterns``, when set, refine a row's probabilities by the rules' conditions it meets."""

    rule_codes: np.ndarray
    rule_proba: np.ndarray
    fallback: int
    fallback_proba: np.ndarray
    prior: np.ndarray
    patterns: ConditionPatterns | None = None


def class_counts(codes: np.ndarray, n_classes: int, weights=None) -> np.ndarray:
    """The weight of each class among ``codes`` (rows, when unweighted)."""
    return np.bincount(codes, weights=weights, minlength=n_classes).astype(float)


def smoothed(counts: np.ndarray, prior: np.ndarray, m: float) -> np.ndarray:
    """The m-estimate of class shares: ``counts`` shrunk towards ``prior`` (each row of a 2-D ``counts``)."""
    counts = np.asarray(counts, dtype=float)
    return (counts + m * prior) / (counts.sum(axis=-1, keepdims=True) + m)


def vote_counts(cov, rule_codes: np.ndarray, n_classes: int) -> np.ndarray:
    """(rows, classes): how many of the rules firing on each row give each class; ``cov`` (rows, rules), dense
    or sparse."""
    onehot = np.eye(n_classes)[np.asarray(rule_codes, dtype=np.int64)]
    if onehot.shape[0] == 0:
        return np.zeros((cov.shape[0], n_classes))
    return np.asarray(cov @ onehot, dtype=float)


def voted(counts: np.ndarray, fallback: int) -> tuple[np.ndarray, np.ndarray]:
    """(class code of each row, whether the vote decided it): the class most firing rules give, else (none
    fires, or classes tie) ``fallback``."""
    top = counts.max(axis=1) if counts.shape[1] else np.zeros(counts.shape[0])
    decided = (top > 0) & ((counts == top[:, None]).sum(axis=1) == 1)
    return np.where(decided, counts.argmax(axis=1), fallback), decided


@dataclass(frozen=True)
class ClassWeights:
    """What the probabilities are made of, before smoothing: the class weights of the training rows each rule
    covers (``per_rule``) and of the rows no rule covers (``left``), the class ``prior``, the vote's
    ``rule_codes`` and ``fallback``."""

    rule_codes: np.ndarray
    per_rule: np.ndarray
    fallback: int
    left: np.ndarray
    prior: np.ndarray

    def smoothed(self, m: float) -> VoteProbabilities:
        return VoteProbabilities(self.rule_codes, smoothed(self.per_rule, self.prior, m), self.fallback,
                                 smoothed(self.left, self.prior, m), self.prior)


def count_classes(cov, codes: np.ndarray, rule_codes: np.ndarray, n_classes: int, weights=None,
                  fallback: int | None = None) -> ClassWeights:
    """The class weights of the rules ``cov`` (rows, rules) on training rows of classes ``codes``; ``fallback``:
    the class of rows no rule decides (default: the most frequent, by weight, of the rows no rule covers)."""
    codes = np.asarray(codes, dtype=np.int64)
    total = class_counts(codes, n_classes, weights)
    prior = total / total.sum() if total.sum() > 0 else np.full(n_classes, 1.0 / n_classes)
    onehot = np.eye(n_classes)[codes]
    if weights is not None:
        onehot = onehot * np.asarray(weights, dtype=float)[:, None]
    per_rule = np.asarray(cov.T @ onehot, dtype=float).reshape(-1, n_classes)
    covered = np.asarray(cov.sum(axis=1)).ravel() > 0
    if fallback is None:
        fallback = fallback_code(codes, covered, n_classes, weights)
    left = class_counts(codes[~covered], n_classes, None if weights is None else np.asarray(weights)[~covered])
    return ClassWeights(np.asarray(rule_codes, dtype=np.int64), per_rule, int(fallback), left, prior)


def fit_probabilities(cov, codes: np.ndarray, rule_codes: np.ndarray, n_classes: int, weights=None,
                      m: float = PROBA_SMOOTHING, fallback: int | None = None) -> VoteProbabilities:
    """The probabilities of the rules ``cov`` (rows, rules) on training rows of classes ``codes``, smoothed by
    ``m`` (:func:`count_classes`)."""
    return count_classes(cov, codes, rule_codes, n_classes, weights, fallback).smoothed(m)


def vote_probabilities(fitted: VoteProbabilities, cov, frame=None) -> tuple[np.ndarray, np.ndarray]:
    """(class code of each row, its class probabilities) for the rows of ``cov`` (rows, rules); with ``frame``
    (the same rows, as the rules read them) refined by the fitted condition patterns, if any."""
    code, proba = _Vote(cov, fitted.rule_codes, fitted.prior.size, fitted.fallback).probabilities(fitted)
    if fitted.patterns is not None and frame is not None:
        proba = agree(fitted.patterns.refine(proba, frame), code)
    return code, proba


def brier_by_smoothing(weights: ClassWeights, cov, codes: np.ndarray, row_weights=None,
                       grid=SMOOTHING_GRID) -> np.ndarray:
    """(len(grid), 2): :func:`brier_terms` on the rows of ``cov`` (classes ``codes``) of the probabilities
    smoothed by each m of ``grid``; the vote is counted once."""
    vote = _Vote(cov, weights.rule_codes, weights.prior.size, weights.fallback)
    return np.array([brier_terms(vote.probabilities(weights.smoothed(m))[1], codes, row_weights) for m in grid])


class _Vote:
    """The vote on some rows, counted once: their class codes, which the vote decided, and how many rules fire."""

    def __init__(self, cov, rule_codes, n_classes: int, fallback: int):
        self.cov, self.n_classes = cov, n_classes
        self.code, self.decided = voted(vote_counts(cov, rule_codes, n_classes), fallback)
        self.fired = np.asarray(cov.sum(axis=1), dtype=float).reshape(-1, 1)

    def probabilities(self, fitted: VoteProbabilities) -> tuple[np.ndarray, np.ndarray]:
        k = self.n_classes
        mixed = np.asarray(self.cov @ fitted.rule_proba, dtype=float).reshape(-1, k) / np.maximum(self.fired, 1.0)
        proba = np.where(self.decided[:, None], mixed, fitted.fallback_proba[None, :])
        return self.code, agree(proba, self.code)


def brier_score(proba: np.ndarray, codes: np.ndarray, weights=None) -> float:
    """The multi-class Brier score: the mean over rows (by weight) of the squared distance between the
    probabilities and the row's class as a one-hot vector (0 is perfect, 2 the worst)."""
    return brier_terms(proba, codes, weights)[0]


def row_brier(proba: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Each row's squared distance between its probabilities and its class as a one-hot vector."""
    target = np.eye(proba.shape[1])[np.asarray(codes, dtype=np.int64)]
    return ((proba - target) ** 2).sum(axis=1)


def brier_terms(proba: np.ndarray, codes: np.ndarray, weights=None) -> tuple[float, float]:
    """(:func:`brier_score`, its standard error over the rows: their weighted spread over the root of their
    number)."""
    if not len(codes):
        return 0.0, 0.0
    terms = row_brier(proba, codes)
    mean = float(np.average(terms, weights=weights))
    spread = float(np.sqrt(np.average((terms - mean) ** 2, weights=weights)))
    return mean, spread / np.sqrt(len(terms))


def agree(proba: np.ndarray, code: np.ndarray) -> np.ndarray:
    """``proba`` with the decided class of each row holding its largest probability.  Where the rules'
    distributions favour another class than their vote (or, on rows left to the fallback, the smoothing
    does), the two classes exchange their probabilities; should several classes still share the largest,
    the row's probabilities are averaged with certainty in the decided class."""
    out = proba.copy()
    rows = np.flatnonzero(out.argmax(axis=1) != code)
    if rows.size:
        top = out[rows].argmax(axis=1)
        mine = out[rows, code[rows]].copy()
        out[rows, code[rows]] = out[rows, top]
        out[rows, top] = mine
        left = rows[out[rows].argmax(axis=1) != code[rows]]
        out[left] = 0.5 * out[left]
        out[left, code[left]] += 0.5
    return out


__all__ = ["PATTERN_GRID", "PROBA_SMOOTHING", "REFERENCE_DEPTHS", "SMOOTHING_GRID", "ClassWeights", "ConditionPatterns", "VoteProbabilities",
           "agree", "brier_by_smoothing", "brier_score", "brier_terms", "class_counts", "count_classes",
           "fit_patterns", "fit_probabilities", "pattern_bytes", "rule_conditions", "smoothed", "vote_counts",
           "vote_probabilities", "voted"]
