"""A run's best selection so far: told to the callback as it improves (over the pool's rules, whatever the
form), counted as the result's report counts it, and shown by a dashboard job while it runs."""

from __future__ import annotations

import numpy as np
import pytest
from waits import HANG_S

from explainer.app.jobs import RunJob
from explainer.data import load_dataset, sample_datasets
from explainer.pipeline import explain_pool, row_weights
from explainer.pipeline.policy import form_rules
from explainer.report import evaluate_rules, selection_scores
from explainer.rules.pool import build_pool
from explainer.selection.callbacks import Callback
from explainer.selection.problem import SelectionProblem
from explainer.selection.settings import RunSettings


@pytest.fixture(scope="module")
def loans():
    ds = load_dataset(sample_datasets()["loans"])
    return ds, build_pool(ds.X, ds.y, 5, random_state=0, classes=ds.classes)


class _Best(Callback):
    def __init__(self):
        self.best: list[tuple[np.ndarray, float]] = []
        self.generations_before_first = None
        self.generations = 0

    def on_generation(self, record):
        self.generations += 1

    def on_best(self, selection, value):
        if not self.best:
            self.generations_before_first = self.generations
        self.best.append((np.asarray(selection, dtype=bool).copy(), float(value)))


@pytest.mark.parametrize("form", ["all", "fallback"])
def test_each_better_selection_is_told_over_the_pools_rules(loans, form):
    ds, pool = loans
    settings = RunSettings(complexity_budget=12, error_budget=20, eps=1.0, algorithm="qga", seed=0, form=form)
    seen = _Best()
    explanation = explain_pool(pool, ds.X, ds.y, settings, callback=seen)
    assert seen.best, "no selection was told"
    assert seen.generations_before_first == 0  # QGA's greedy seed comes before its first population
    values = [v for _, v in seen.best]
    assert values == sorted(values) and len(set(values)) == len(values)  # each strictly better
    allowed = form_rules(pool, form)
    problem = SelectionProblem.from_pool(pool, 12, 20)
    for selection, value in seen.best:
        assert selection.shape == (pool.n_rules,)
        ev = problem.evaluate(selection)
        assert ev.feasible and ev.coverage == pytest.approx(value)
        if allowed is not None:
            assert np.isin(np.flatnonzero(selection), allowed).all()
    # the result is at least the last selection told (its clean-up may still improve it)
    assert explanation.result.evaluation.coverage >= values[-1] - 1e-9


@pytest.mark.parametrize("class_weight", [None, "balanced"])
def test_selection_scores_are_the_reports(loans, class_weight):
    ds, pool = loans
    rng = np.random.default_rng(0)
    weights = row_weights(pool.y, pool.classes, class_weight)
    for size in (0, 1, 3, 8):
        idx = np.sort(rng.choice(pool.n_rules, size, replace=False))
        accuracy, balanced, fallback = selection_scores(pool.coverage[:, idx], pool.rule_class[idx], pool.y,
                                                        len(pool.classes), weights)
        report = evaluate_rules(pool.rule_set(np.isin(np.arange(pool.n_rules), idx)), ds.X, ds.y,
                                sample_weight=weights)
        assert accuracy == pytest.approx(report.accuracy)
        assert balanced == pytest.approx(report.balanced_accuracy)
        assert pool.classes[fallback] == report.fallback


def test_a_running_job_holds_its_best_selection(loans):
    ds, pool = loans
    settings = RunSettings(complexity_budget=12, error_budget=20, eps=1.0, algorithm="qga", seed=0, form="fallback")
    job = RunJob(pool, ds, settings).start()
    job.join(HANG_S)
    assert job.done and job.errors == [None]
    rules = job.best_so_far()
    assert rules is not None and all(0 <= i < pool.n_rules for i in rules)
    problem = SelectionProblem.from_pool(pool, 12, 20)
    told = np.isin(np.arange(pool.n_rules), rules)
    assert problem.evaluate(told).feasible
    assert job.explanations[0].result.evaluation.coverage >= problem.evaluate(told).coverage - 1e-9
