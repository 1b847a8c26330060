"""Runs in a worker process (explainer.app.jobs): records, Stop, errors, the same result as in-process."""

from __future__ import annotations

import time

import pytest

from explainer.app.jobs import Job, Task
from explainer.data import load_dataset, sample_datasets
from explainer.pipeline import explain_pool
from explainer.rules.pool import build_pool
from explainer.selection.solvers import available


@pytest.fixture(scope="module")
def iris():
    ds = load_dataset(sample_datasets()["iris"])
    return ds, build_pool(ds.X, ds.y, 5, random_state=0, classes=ds.classes)


def test_a_job_gives_the_in_process_result_and_every_generation(iris):
    if "qga" not in available():
        pytest.skip("qga is not installed")
    ds, pool = iris
    job = Job(pool, ds, [Task("qga", 0)], complexity_budget=4, error_budget=5, eps=1.0).start()
    job.join(60)
    assert job.done and job.errors == [None]
    here = explain_pool(pool, ds.X, ds.y, complexity_budget=4, error_budget=5, algorithm="qga", random_state=0)
    there = job.explanations[0]
    assert there.pool is pool
    assert there.report.rules.to_text() == here.report.rules.to_text()
    records = job.records(0)
    assert [r.generation for r in records] == [r.generation for r in here.result.history]
    assert records[0].generation == 0


def test_stop_keeps_the_best_so_far(iris):
    if "ga" not in available():
        pytest.skip("ga is not installed")
    ds, pool = iris
    job = Job(pool, ds, [Task("ga", 0), Task("ga", 1)], complexity_budget=4, error_budget=5, eps=1.0,
              algorithm_params={"ga": {"n_generations": 10**6}}).start()
    deadline = time.time() + 60
    while not job.records() and time.time() < deadline:
        job.wait_for_news(0.5)
    job.stop()
    job.join(30)
    assert job.done and job.stopped
    result = job.explanations[0].result
    assert result.status == "stopped" and result.n_rules > 0
    assert result.complexity <= 4 and result.errors <= 5
    assert job.explanations[1] is None and job.errors[1] is None  # skipped, not failed
    assert "Run 1 of 2" in job.status_text()


def test_a_failing_run_is_reported_not_raised(iris):
    ds, pool = iris
    job = Job(pool, ds, [Task("no_such_algorithm", 0)], complexity_budget=4, error_budget=5, eps=1.0).start()
    job.join(60)
    assert job.done and job.explanations == [None]
    assert "failed" in job.errors[0]
