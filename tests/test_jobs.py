"""Jobs in a worker process (explainer.app.jobs): records, Stop, errors, the same result as in-process,
the reader that never loses the last messages, the line for a core, and workers that die with their server."""

from __future__ import annotations

import os
import queue as queue_module
import signal
import time
from multiprocessing import forkserver

import numpy as np
import pytest
from waits import HANG_S

from explainer.app import jobs
from explainer.app.jobs import FrontierJob, RunJob, _Line
from explainer.app.worker import Ended, FrontierFound, PointFound, TaskStarted
from explainer.data import load_dataset, sample_datasets
from explainer.pipeline import explain_pool
from explainer.rules.pool import build_pool
from explainer.selection.frontier import frontier
from explainer.selection.settings import RunSettings
from explainer.selection.solvers import available


@pytest.fixture(scope="module")
def iris():
    ds = load_dataset(sample_datasets()["iris"])
    return ds, build_pool(ds.X, ds.y, 5, random_state=0, classes=ds.classes)


def _long_run(ds, pool, **kwargs):
    return RunJob(pool, ds, _run("ga", 0, algorithm_params={"n_generations": 10**6}), **kwargs)


def _run(algorithm, seed, **more):
    return RunSettings(complexity_budget=4, error_budget=5, eps=1.0, algorithm=algorithm, seed=seed, **more)


def _wait_for_records(job, seconds=HANG_S):
    deadline = time.time() + seconds
    while not job.records() and time.time() < deadline:
        job.wait_for_news(0.5)
    assert job.records(), job.errors


def test_a_job_gives_the_in_process_result_and_every_generation(iris):
    if "qga" not in available():
        pytest.skip("qga is not installed")
    ds, pool = iris
    job = RunJob(pool, ds, _run("qga", 0)).start()
    job.join(HANG_S)
    assert job.done and job.errors == [None]
    here = explain_pool(pool, ds.X, ds.y, complexity_budget=4, error_budget=5, algorithm="qga", random_state=0)
    there = job.explanations[0]
    assert there.pool is pool
    assert there.report.rules.to_text() == here.report.rules.to_text()
    records = job.records(0)
    assert [r.generation for r in records] == [r.generation for r in here.result.history]
    assert records[0].generation == 0


def test_a_job_uses_only_the_rules_it_is_given(iris):
    # what the dashboard asks for at the default budgets when the policy chose the fallback form
    ds, pool = iris
    rules = np.flatnonzero(pool.rule_class != 0)  # iris: 50 rows a class, so the fallback class is the first
    job = RunJob(pool, ds, _run("greedy", 0, form="fallback")).start()
    job.join(HANG_S)
    assert job.done and job.errors == [None]
    there = job.explanations[0]
    assert there.result.selection.shape == (pool.n_rules,) and there.result.selection.any()
    assert set(pool.rule_class[there.result.selection]) <= {1, 2}
    here = explain_pool(pool, ds.X, ds.y, complexity_budget=4, error_budget=5, algorithm="greedy",
                        random_state=0, rules=rules)
    assert there.report.rules.to_text() == here.report.rules.to_text()


def test_stop_keeps_the_best_so_far(iris):
    if "ga" not in available():
        pytest.skip("ga is not installed")
    ds, pool = iris
    job = RunJob(pool, ds, [_run("ga", seed, algorithm_params={"n_generations": 10**6}) for seed in (0, 1)]).start()
    _wait_for_records(job)
    job.stop()
    job.join(HANG_S)
    assert job.done and job.stopped
    result = job.explanations[0].result
    assert result.status == "stopped" and result.n_rules > 0
    assert result.complexity <= 4 and result.errors <= 5
    assert job.explanations[1] is None and job.errors[1] is None  # skipped, not failed
    assert "Run 1 of 2" in job.status_text() and "best coverage f*" in job.status_text()
    assert job.status_text().endswith(" s in all")  # the clock of all the runs, not of run 1


def test_stops_click_hands_the_page_a_finished_run(iris, monkeypatch):
    """Stop's callback waits (briefly: bounded, made generous here) for the run's best selection, so the
    page drawn after the click shows the result, not the run once more."""
    if "ga" not in available():
        pytest.skip("ga is not installed")
    from explainer.app import live

    ds, pool = iris
    job = RunJob(pool, ds, _run("ga", 0, algorithm_params={"n_generations": 10**6})).start()
    _wait_for_records(job)
    monkeypatch.setattr(live, "STOP_WAIT_S", 30.0)
    live._stop(job)
    assert job.done and job.stopped and job.explanations[0].result.status == "stopped"


def test_a_failing_run_is_reported_not_raised(iris):
    ds, pool = iris
    job = RunJob(pool, ds, _run("no_such_algorithm", 0)).start()
    job.join(HANG_S)
    assert job.done and job.explanations == [None]
    assert "could not run" in job.errors[0] and "no_such_algorithm" in job.errors[0]


# ---------------------------------------------------------------------- the reader drains the queue

def send_a_frontier_and_exit(request, queue, stop_event):
    """A worker whose last messages are still in flight when it ends (module level: the fork server imports it)."""
    fr = frontier(request.pool, request.error_budget, request.budget_range, eps=request.eps, exact_time_limit=0,
                  qga_time_limit=0)
    queue.put(TaskStarted(0))
    for p in fr.points:
        queue.put(PointFound(p))
    queue.put(FrontierFound(fr))
    queue.put(Ended())


class QuickFrontierJob(FrontierJob):
    target = staticmethod(send_a_frontier_and_exit)


def test_a_worker_that_exits_right_after_its_last_message_loses_nothing(iris):
    _, pool = iris
    for _ in range(5):
        job = QuickFrontierJob(pool, error_budget=5, budget_range=(1, 12), eps=1.0, line=_Line(1)).start()
        job.join(HANG_S)
        assert job.done and job.errors == [None]
        assert job.frontier is not None and [p.complexity_budget for p in job.frontier] == list(range(1, 13))


class _Queue:
    """A queue whose messages arrive only after one empty poll: the moment the worker has just ended."""

    def __init__(self, messages):
        self.messages = list(messages)
        self.polls = 0

    def get(self, timeout=None):
        self.polls += 1
        if self.polls == 1 or not self.messages:
            raise queue_module.Empty
        return self.messages.pop(0)


class _EndedProcess:
    exitcode = 0

    def is_alive(self):
        return False


def test_the_reader_reads_what_an_ended_worker_left_before_it_gives_up(iris):
    _, pool = iris
    fr = frontier(pool, 5, (1, 4), exact_time_limit=0, qga_time_limit=0)
    job = FrontierJob(pool, error_budget=5, budget_range=(1, 4), eps=1.0)
    job._queue = _Queue([TaskStarted(0), *(PointFound(p) for p in fr.points), FrontierFound(fr), Ended()])
    job._process = _EndedProcess()
    job._drain()
    assert job.errors == [None] and job.frontier is fr and len(job.points) == 4
    # a worker that really ended without its "end" is reported
    job = FrontierJob(pool, error_budget=5, budget_range=(1, 4), eps=1.0)
    job._queue = _Queue([TaskStarted(0), PointFound(fr.points[0])])
    job._process = _EndedProcess()
    job._drain()
    assert "ended unexpectedly" in job.errors[0] and len(job.points) == 1


# ---------------------------------------------------------------------- the line, the page, the server

def test_jobs_beyond_the_cores_wait_in_line_and_say_so(iris):
    ds, pool = iris
    line = _Line(1)
    first = _long_run(ds, pool, line=line).start()
    _wait_for_records(first)
    second = RunJob(pool, ds, _run("greedy", 0), line=line).start()
    time.sleep(2 * jobs.POLL_S)
    assert second.waiting == 0 and not second.done
    assert second.status_text().startswith("Waiting for a free core") and "it is next" in second.status_text()
    first.stop()
    first.join(HANG_S)
    second.join(HANG_S)
    assert first.explanations[0].result.status == "stopped"
    assert second.errors == [None] and second.explanations[0] is not None and second.waiting is None


def test_a_job_stopped_while_waiting_never_starts(iris):
    ds, pool = iris
    line = _Line(1)
    first = _long_run(ds, pool, line=line).start()
    second = _long_run(ds, pool, line=line).start()
    second.stop()
    second.join(HANG_S)
    assert second.done and second._process is None and second.errors == [None]
    first.stop()
    first.join(HANG_S)


def test_a_job_whose_page_is_gone_is_stopped(iris, monkeypatch):
    ds, pool = iris
    monkeypatch.setattr(jobs, "ORPHAN_GRACE_S", 0.0)
    page = {"open": True}
    job = _long_run(ds, pool, alive=lambda: page["open"], line=_Line(1)).start()
    _wait_for_records(job)
    page["open"] = False
    job.join(HANG_S)
    assert job.done and job.stopped and job.explanations[0].result.status == "stopped"


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] in ("Z", "X")  # a zombie computes nothing
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not os.path.isdir("/proc") or jobs.mp_context().get_start_method() != "forkserver",
                    reason="needs Linux's /proc and the fork server")
def test_killing_the_fork_server_ends_its_running_worker(iris):
    ds, pool = iris
    job = _long_run(ds, pool, line=_Line(1)).start()
    _wait_for_records(job)
    worker_pid = job._process.pid
    os.kill(forkserver._forkserver._forkserver_pid, signal.SIGKILL)
    deadline = time.time() + HANG_S
    while not _gone(worker_pid) and time.time() < deadline:
        time.sleep(0.1)
    assert _gone(worker_pid)
    job.join(HANG_S)
    assert job.done and job.errors[0]  # the page says so instead of waiting for ever


def test_the_status_line_names_what_the_run_maximises(iris, monkeypatch):
    """A run of the accuracy objective climbs in rows right: its progress line says so, as its chart's axis does."""
    from explainer.selection.callbacks import GenerationRecord

    ds, pool = iris
    record = GenerationRecord(generation=3, min=50, mean=60, max=75, best=75, diversity=1, population=10,
                              elapsed_s=0.3, max_generations=100)
    for objective, words in (("accuracy", "best rows right 50.00%"), ("coverage", "best coverage f* 50.00%")):
        job = RunJob(pool, ds, _run("greedy", 0, objective=objective))  # not started: nothing waits for a core
        monkeypatch.setattr(job, "records", lambda: [record])
        assert words in job.status_text(), job.status_text()


def test_a_frontier_job_beyond_a_kept_frontier_computes_only_the_budgets_beyond_it(iris):
    _, pool = iris
    kept = frontier(pool, 5, (1, 6), exact_time_limit=0, qga_time_limit=0)
    job = FrontierJob(pool, error_budget=5, budget_range=(7, 12), eps=1.0, seeds=[kept.points[-1].selection],
                      line=_Line(1), before=kept)
    assert job.shown_range == (1, 12) and job.frontier_points() == list(kept.points)  # shown before it starts
    job.start().join(HANG_S)
    assert job.done and job.errors == [None] and job.frontier is not None
    assert [p.complexity_budget for p in job.frontier] == list(range(1, 13))
    assert [p.coverage for p in job.frontier][:6] == [p.coverage for p in kept]  # the kept points, not again
    coverages = [p.coverage for p in job.frontier]
    assert coverages == sorted(coverages)  # from the kept frontier's last selection on: never below it
    assert job.frontier.settings["budget_range"] == [1, 12]
