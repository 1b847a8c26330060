"""Pools, encodings, exact solutions and frontiers equal to fingerprints stored before a rewrite.

The digests were computed on the code these functions were split from (the analyst's pools after the
one complexity count and the label module landed); a rewrite that keeps behaviour keeps every digest
(same rules, same rows, same trees, same seeds, same choices).
"""

import hashlib
import json

import numpy as np
import pytest
from lanes import quick_first
from problems import random_problem

from explainer.data import load_paper_dataset
from explainer.rules import parse_rules
from explainer.rules.pool import build_pool
from explainer.selection.frontier import frontier
from explainer.selection.solvers import solve


def digest(obj) -> str:
    return hashlib.sha256(json.dumps(obj, default=str, sort_keys=True).encode()).hexdigest()[:16]


def pool_digest(pool) -> str:
    cov = pool.coverage.tocsc()
    return digest([
        [r.text for r in pool.rules], pool.rule_class.tolist(), cov.indptr.tolist(), cov.indices.tolist(),
        [t.to_dict() for t in pool.trees], pool.n_candidate_rules, pool.settings,
    ])


def dataset_digest(ds) -> str:
    return digest([ds.fingerprint, [(s.name, s.column, s.kind, s.value, s.integer) for s in ds.feature_specs],
                   [c.to_dict() for c in ds.columns], ds.warnings])


POOLS = {
    # name: (dataset digest, number of rules, pool digest)
    "tic_tac_toe": ("80796b452a1d3b2d", 149, "e4d940b16118c256"),
    "mammographic_masses": ("e059b26415e91a06", 141, "9136c3dbd31f5fd2"),
    "zoo": ("9dbe8788fce4539b", 73, "965d9c47f585fc16"),
    "hayes_roth": ("d1aa1a6ad3c86444", 72, "e8ed8925a0651ce5"),
}


@pytest.mark.parametrize("name", quick_first(list(POOLS), 2))
def test_encoding_and_analyst_pool_unchanged(name):
    ds = load_paper_dataset(name, ordinal_as_categorical=True)
    pool = build_pool(ds.X, ds.y, 4, random_state=3, grow=True, phrase_length=True, feature_specs=ds.feature_specs)
    assert (dataset_digest(ds), pool.n_rules, pool_digest(pool)) == POOLS[name]


def test_sampled_repeated_pool_unchanged():
    ds = load_paper_dataset("breast_cancer_wisconsin")
    pool = build_pool(ds.X, ds.y, 4, random_state=1, n_repeats=2, max_fit_rows=200, feature_specs=ds.feature_specs)
    assert (dataset_digest(ds), pool.n_rules, pool_digest(pool)) == ("5b381cc654f83af9", 232, "9f75c596ade7c350")


def test_forest_pool_with_extra_rules_unchanged():
    ds = load_paper_dataset("iris")
    extra = parse_rules("IF sepal_width > 3.95 AND sepal_length > 5.05 THEN CLASS=Iris-virginica")
    pool = build_pool(ds.X, ds.y, 4, random_state=5, source="forest", n_estimators=10, extra_rules=extra)
    assert (pool.n_rules, pool_digest(pool)) == (35, "92f5fcb57b596499")


EXACT = {0: "089e27b0714e871c", 1: "f9871c87bd11b8e7", 2: "2823f0d12860c7b2", 3: "7160d84c1ab47a37"}


@pytest.mark.parametrize("seed", quick_first(list(EXACT), 2))
def test_exact_solutions_unchanged(seed):
    problem = random_problem(seed)
    out = []
    for lazy in (True, False):
        for warm in ("greedy", None):
            res = solve(problem, "exact", random_state=seed, lazy_conflicts=lazy, warm_start=warm, time_limit=60)
            info = {k: v for k, v in res.info.items() if "time" not in k}
            out.append([np.flatnonzero(res.selection).tolist(), res.status, res.message, info])
    assert digest(out) == EXACT[seed]


FRONTIERS = {0: "f69cf8a23b5a5196", 1: "c7c8190ed9301f41", 2: "dec859a2db1db3d7"}


@pytest.mark.parametrize("seed", quick_first(list(FRONTIERS), 1))
def test_frontiers_unchanged(seed):
    base = random_problem(100 + seed, N=30, M=14)
    out = []
    for axis, budget, budget_range in (("complexity", int(base.errors.sum() // 4), (1, 15)), ("errors", 10, (0, 12))):
        fr = frontier(base, budget, budget_range, axis=axis, random_state=seed, qga_params={"n_generations": 2},
                      exact_time_limit=30.0, backward=seed % 2 == 1)
        out.append([[p.complexity_budget, p.error_budget, p.rule_indices, round(p.bound, 9), p.proven_optimal,
                     p.algorithm] for p in fr])
    assert digest(out) == FRONTIERS[seed]
