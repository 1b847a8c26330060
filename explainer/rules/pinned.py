"""Pinned and banned rules named by their text, found in (or added to) a rule pool.

A rule's text (:attr:`~explainer.rules.model.Rule.text`, ``IF ... THEN CLASS=...``) is its identity across
processes and pool rebuilds: the analyst's pins and bans are kept as texts and resolved against the pool of
each run.  A text is read with :func:`~explainer.rules.parse.parse_rule` and bound to the pool's features and
classes, so any spelling the parser reads names the same rule as the pool's own rendering.  A pinned rule
the pool does not hold joins it, its rows counted on the pool's rows; a banned rule the pool does not hold
bans nothing.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from explainer.data.labels import encode_labels, label_array
from explainer.rules.binding import rules_for_data
from explainer.rules.model import Rule
from explainer.rules.parse import parse_rule
from explainer.rules.pool import RulePool, _as_frame, coverage_sparse, feature_matrix


def bind_rule_text(text: str, features, classes, what: str = "rule") -> Rule:
    """The rule ``text`` names, bound to a table's ``features`` (specs or names) and ``classes``; ValueError saying
    what is wrong."""
    try:
        return rules_for_data([parse_rule(str(text))], features, classes)[0]
    except (KeyError, ValueError) as exc:
        # a KeyError (an unknown feature) holds its message as its argument
        message = str(exc.args[0] if isinstance(exc, KeyError) and exc.args else exc)
        raise ValueError(message if str(text).strip() in message else f"{what} {str(text)!r}: {message}") from None


def check_rule_texts(pinned, banned, features, classes) -> None:
    """ValueError unless every pinned and banned text reads as a rule of a table with ``features`` (specs or
    names) and ``classes``."""
    for what, texts in (("pinned rule", pinned), ("banned rule", banned)):
        for text in texts or ():
            bind_rule_text(text, features, classes, what)


def canonical_texts(texts, pool: RulePool) -> list[str]:
    """Each rule text as the pool writes that rule (:attr:`~explainer.rules.model.Rule.text` of the bound rule)."""
    return [bind_rule_text(t, pool.feature_specs, pool.classes).text for t in texts]


def add_rules(pool: RulePool, rules: list[Rule], X) -> RulePool:
    """``pool`` with ``rules`` appended (bound rules), their rows counted on ``X``, the pool's rows."""
    if not rules:
        return pool
    frame = _as_frame(X, pool.feature_names)
    if frame.shape[0] != pool.n_rows:
        raise ValueError(f"the rows to add rules on ({frame.shape[0]}) are not the pool's ({pool.n_rows})")
    Xv = feature_matrix(frame[pool.feature_names])  # float32 where it holds the table, as the pool's own build
    index = {name: i for i, name in enumerate(pool.feature_names)}
    cov = coverage_sparse(rules, Xv, index)
    codes = encode_labels(label_array([r.label for r in rules]), pool.classes)[0]
    return replace(
        pool,
        rules=[*pool.rules, *rules],
        rule_class=np.concatenate([pool.rule_class, np.asarray(codes, dtype=np.int64)]),
        coverage=sp.hstack([pool.coverage, cov], format="csc"),
        n_candidate_rules=pool.n_candidate_rules + len(rules),
    )


def resolve_rules(pool: RulePool, X, pinned=(), banned=()) -> tuple[RulePool, np.ndarray, np.ndarray]:
    """(pool, pinned indices, banned indices) of the rule texts ``pinned`` and ``banned``.

    The pool is ``pool`` itself unless a pinned rule is not in it; then it is a copy with those rules
    appended (:func:`add_rules`, their rows counted on ``X``).  A banned rule not in the pool is left out.
    """
    if not pinned and not banned:
        empty = np.zeros(0, dtype=np.int64)
        return pool, empty, empty
    pins = [bind_rule_text(t, pool.feature_specs, pool.classes, "pinned rule") for t in pinned]
    bans = [bind_rule_text(t, pool.feature_specs, pool.classes, "banned rule") for t in banned]
    where = {rule.text: i for i, rule in enumerate(pool.rules)}
    new: dict[str, Rule] = {}
    for rule in pins:
        if rule.text not in where and rule.text not in new:
            new[rule.text] = rule
    if new:
        pool = add_rules(pool, list(new.values()), X)
        where.update({text: pool.n_rules - len(new) + k for k, text in enumerate(new)})
    pinned_idx = np.unique(np.array([where[r.text] for r in pins], dtype=np.int64))
    banned_idx = np.unique(np.array([where[r.text] for r in bans if r.text in where], dtype=np.int64))
    return pool, pinned_idx, banned_idx


__all__ = ["add_rules", "bind_rule_text", "canonical_texts", "check_rule_texts", "resolve_rules"]
