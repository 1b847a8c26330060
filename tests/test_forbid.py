"""Columns kept out of the rules: the pool is built without them, the table keeps them."""

from collections import Counter

import numpy as np
import pytest

from explainer.bench.census import census_like
from explainer.data import load_dataset, sample_datasets
from explainer.data.encoder import TableEncoder
from explainer.rules import Rule, RuleSet, parse_rules
from explainer.rules.forbid import rule_columns
from explainer.rules.pool import build_pool


@pytest.fixture(scope="module")
def census():
    """A census-like table (held back from every other test), encoded as the estimator encodes it."""
    df = census_like(1500, seed=7)
    y = df.pop("income").to_numpy()
    enc = TableEncoder(detect_identifiers=False)
    X = enc.fit_transform(df)
    return df, X, y, enc.feature_specs_


def _columns(rules) -> Counter:
    return Counter(c for r in rules for c in rule_columns(r))


def _used_columns(pool) -> Counter:
    """The columns the pool's rules read, counted by the features they test (not by the rule text)."""
    by_feature = {s.name: s.column for s in pool.feature_specs}
    out = Counter()
    for rule in pool.rules:
        for cond in rule.conditions:
            features = (cond.features or (cond.numeric,)) if hasattr(cond, "features") else (cond.feature,)
            out.update({by_feature[f] for f in features if f is not None})
    return out


@pytest.mark.parametrize("source", ["grid", "forest"])
def test_forbidden_column_in_no_pool_rule(census, source):
    _, X, y, specs = census
    kw = dict(feature_specs=specs, source=source, n_estimators=15, grow=True, phrase_length=True, random_state=3)
    free = build_pool(X, y, 4, **kw)
    # the column the unforbidden pool leans on most, and the sensitive one
    top = _used_columns(free).most_common(1)[0][0]
    assert top != "sex" and (_used_columns(free)["sex"] > 0 or source == "forest")  # the grid splits on it
    pool = build_pool(X, y, 4, forbidden_columns=[top, "sex"], **kw)
    used = _used_columns(pool)
    assert used[top] == 0 and used["sex"] == 0 and sum(used.values()) > 0
    assert _columns(pool.rules)[top] == 0 and _columns(pool.rules)["sex"] == 0
    assert pool.forbidden_columns == (top, "sex")
    # the reference tree is one of the pool's own trees: none of its rules reads them either
    best = pool.best_tree()
    assert not _columns(pool.rule_set(best.tree.rule_ids))[top]


def test_trees_learn_without_the_column_not_filtered_after(census):
    """Every tree of the forbidden pool equals a tree fitted on the table without the column's features."""
    _, X, y, specs = census
    keep = [s for s in specs if s.column != "marital_status"]
    dropped = build_pool(X[[s.name for s in keep]], y, 4, feature_specs=keep, random_state=5)
    pool = build_pool(X, y, 4, feature_specs=specs, forbidden_columns=["marital_status"], random_state=5)
    assert [r.text for r in pool.rules] == [r.text for r in dropped.rules]
    assert [(t.complexity, t.errors) for t in pool.trees] == [(t.complexity, t.errors) for t in dropped.trees]


def test_forbidden_names_are_checked(census):
    _, X, y, specs = census
    with pytest.raises(ValueError, match="'salary' is not a column"):
        build_pool(X, y, 3, feature_specs=specs, forbidden_columns=["salary"])
    with pytest.raises(ValueError, match="every column"):
        build_pool(X, y, 3, feature_specs=specs, forbidden_columns=sorted({s.column for s in specs}))
    # one name as a string is that name
    assert build_pool(X, y, 3, feature_specs=specs, forbidden_columns="sex").forbidden_columns == ("sex",)
    assert build_pool(X, y, 3, feature_specs=specs).forbidden_columns == ()


def test_extra_rules_naming_a_forbidden_column_are_left_out(census):
    _, X, y, specs = census
    extra = parse_rules('IF sex = sex_0 AND age > 40 THEN CLASS=">50K"\nIF age > 60 THEN CLASS="<=50K"\n')
    pool = build_pool(X, y, 3, feature_specs=specs, extra_rules=extra, forbidden_columns=["sex"])
    plain = build_pool(X, y, 3, feature_specs=specs, forbidden_columns=["sex"])
    assert pool.n_candidate_rules == plain.n_candidate_rules + 1  # the rule on age only
    assert 'IF age > 60 THEN CLASS="<=50K"' in [r.text for r in pool.rules]
    assert not _columns(pool.rules)["sex"]
    assert pool.settings["n_extra_rules_forbidden"] == 1


def test_forbidden_on_a_bundled_sample():
    ds = load_dataset(sample_datasets()["loans"], target="decision")
    free = build_pool(ds.X, ds.y, 4, feature_specs=ds.feature_specs, classes=ds.classes, grow=True)
    top = _used_columns(free).most_common(1)[0][0]
    pool = build_pool(ds.X, ds.y, 4, feature_specs=ds.feature_specs, classes=ds.classes, grow=True,
                      forbidden_columns=[top])
    assert _used_columns(pool)[top] == 0 and pool.n_rules > 0
    assert top in ds.X.columns or any(s.column == top for s in ds.feature_specs)  # still in the table
