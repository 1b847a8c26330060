"""Nothing outlives the dashboard server: the fork server and its workers end with it, however it dies,
and a job whose page has gone is stopped after a short grace that a reconnect does not exhaust."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from waits import HANG_S

from explainer.app import jobs
from explainer.app.jobs import RunJob, _Line
from explainer.data import load_dataset, sample_datasets
from explainer.rules.pool import build_pool
from explainer.selection.settings import RunSettings

ROOT = Path(__file__).resolve().parents[1]
LINUX_PROC = os.path.isdir("/proc")


def _ended(pid: int) -> bool:
    """True once ``pid`` computes nothing: gone, or a zombie (reparented ones may never be reaped here)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[-1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def _wait_ended(pids, bound: float = HANG_S) -> float:
    """Seconds until every pid has ended (polled up to ``bound``); the caller asserts they did."""
    start = time.perf_counter()
    while not all(_ended(p) for p in pids) and time.perf_counter() - start < bound:
        time.sleep(0.05)
    return time.perf_counter() - start


def _python(code: str, **kwargs) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    env.pop("EXPLAINER_SERVER_PID", None)  # each server tells its own children
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, text=True, **kwargs)


def _read_line(proc: subprocess.Popen, bound: float = HANG_S) -> str:
    """The process's first line of output (it may have to build a pool and start a fork server first)."""
    import selectors

    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        if not sel.select(bound):
            proc.kill()
            pytest.fail(f"no output within {bound:.0f} s")
    line = proc.stdout.readline()
    assert line, f"the process ended without output (status {proc.wait()})"
    return line


# ---------------------------------------------------------------------- a process ends with another

@pytest.mark.skipif(not LINUX_PROC, reason="reads Linux's /proc")
@pytest.mark.parametrize("pidfd", [True, False], ids=["pidfd", "polling"])
def test_end_with_ends_a_process_when_the_one_it_watches_dies(pidfd):
    watched = _python("import time; print(1, flush=True); time.sleep(600)")
    _read_line(watched)
    watcher = _python(f"""
        import os, time
        from explainer.app import lifeline
        if not {pidfd}:
            del os.pidfd_open  # as on a system without pidfds: the watcher polls
        lifeline.end_with({watched.pid})
        print(1, flush=True)
        time.sleep(600)
    """)
    try:
        _read_line(watcher)
        assert not _ended(watcher.pid)
        watched.kill()
        if not pidfd:
            watched.wait()  # a zombie still answers kill(pid, 0): polling sees only a reaped process go
        took = _wait_ended([watcher.pid])
        assert watcher.wait(HANG_S) == 1, f"the watcher did not end with the watched process ({took:.2f} s)"
    finally:
        watched.kill()
        watcher.kill()
        watched.wait()
        watcher.wait()


# ---------------------------------------------------------------------- a killed server leaves nothing

SERVER = """
    import threading, time
    from multiprocessing import forkserver
    from explainer.app import jobs
    from explainer.data import load_dataset, sample_datasets
    from explainer.rules.pool import build_pool
    from explainer.selection.settings import RunSettings

    ds = load_dataset(sample_datasets()["iris"])
    pool = build_pool(ds.X, ds.y, 5, random_state=0, classes=ds.classes)
    # as the dashboard does: the fork server is started from a thread that ends long before the server
    starter = threading.Thread(target=jobs.start_fork_server)
    starter.start()
    starter.join()
    run = RunSettings(complexity_budget=4, error_budget=5, eps=1.0, algorithm="ga", seed=0,
                      algorithm_params={"n_generations": 10**6})
    job = jobs.RunJob(pool, ds, run).start()
    while not job.records() and not job.done:
        job.wait_for_news(0.5)
    print(forkserver._forkserver._forkserver_pid, job._process.pid, job.done, flush=True)
    time.sleep(600)
"""


@pytest.mark.slow
@pytest.mark.skipif(not LINUX_PROC or jobs.mp_context().get_start_method() != "forkserver",
                    reason="needs Linux's /proc and the fork server")
def test_killing_the_server_mid_run_ends_its_fork_server_and_worker():
    server = _python(SERVER)
    try:
        fork_server, worker, done = _read_line(server).split()
        pids = [int(fork_server), int(worker)]
        assert done == "False" and not any(_ended(p) for p in pids), "the run was not under way"
        server.send_signal(signal.SIGKILL)
        server.wait()
        took = _wait_ended(pids)
        left = [p for p in pids if not _ended(p)]
        assert not left, f"still running {took:.1f} s after the server was killed: {left}"
        print(f"fork server and worker ended {took:.2f} s after the server was killed")
    finally:
        server.kill()
        server.wait()
        for pid in pids if "pids" in locals() else ():
            if not _ended(pid):
                os.kill(pid, signal.SIGKILL)


STARTING = """
    import threading, time
    from multiprocessing import forkserver
    from explainer.app import jobs

    starter = threading.Thread(target=jobs.start_fork_server)
    starter.start()
    starter.join()
    print(forkserver._forkserver._forkserver_pid, flush=True)  # still loading the libraries
    time.sleep(600)
"""


@pytest.mark.slow
@pytest.mark.skipif(not LINUX_PROC or jobs.mp_context().get_start_method() != "forkserver",
                    reason="needs Linux's /proc and the fork server")
def test_killing_the_server_while_its_fork_server_loads_the_libraries_ends_it():
    # the fork server runs the lifeline before its imports, which take seconds
    server = _python(STARTING)
    fork_server = None
    try:
        fork_server = int(_read_line(server))
        server.send_signal(signal.SIGKILL)
        server.wait()
        took = _wait_ended([fork_server])
        assert _ended(fork_server), f"the fork server still runs {took:.1f} s after the server was killed"
        print(f"the loading fork server ended {took:.2f} s after the server was killed")
    finally:
        server.kill()
        server.wait()
        if fork_server is not None and not _ended(fork_server):
            os.kill(fork_server, signal.SIGKILL)


# ---------------------------------------------------------------------- a page that has gone

@pytest.fixture(scope="module")
def iris():
    ds = load_dataset(sample_datasets()["iris"])
    return ds, build_pool(ds.X, ds.y, 5, random_state=0, classes=ds.classes)


def _long_run(ds, pool, **kwargs):
    run = RunSettings(complexity_budget=4, error_budget=5, eps=1.0, algorithm="ga", seed=0,
                      algorithm_params={"n_generations": 10**6})
    return RunJob(pool, ds, run, **kwargs)


class _Page:
    """A page's ``alive()``: connected, then gone from ``gone_at`` until ``back_at`` (never back if None)."""

    def __init__(self):
        self.gone_at = self.back_at = None
        self.last_asked = None

    def __call__(self) -> bool:
        now = self.last_asked = time.perf_counter()
        if self.gone_at is None or now < self.gone_at:
            return True
        return self.back_at is not None and now >= self.back_at

    def asked_after(self, moment: float, bound: float = HANG_S) -> bool:
        deadline = time.perf_counter() + bound
        while time.perf_counter() < deadline:
            if self.last_asked is not None and self.last_asked > moment:
                return True
            time.sleep(jobs.POLL_S)
        return False


def test_the_grace_for_a_gone_page_is_short():
    # a closed page's job is stopped within 2 s: the grace plus a check's delay
    assert jobs.ORPHAN_GRACE_S + 2 * jobs.POLL_S <= 2.0


def test_a_reconnect_shorter_than_the_grace_keeps_the_job(iris):
    ds, pool = iris
    page = _Page()
    # a line with no core: the job waits, asking after its page at every check, and starts no process
    job = _long_run(ds, pool, alive=page, line=_Line(0)).start()
    try:
        now = time.perf_counter()
        page.back_at = now + jobs.ORPHAN_GRACE_S / 3
        page.gone_at = now
        # every "gone" answer falls within a third of the grace, however slowly the checks come
        assert page.asked_after(page.gone_at + 2 * jobs.ORPHAN_GRACE_S)
        assert not job.stopped and not job.done
    finally:
        job.stop()
        job.join(HANG_S)
    assert job.done and job._process is None


def test_a_job_whose_page_closed_is_stopped_with_its_best_so_far(iris):
    ds, pool = iris
    page = _Page()
    job = _long_run(ds, pool, alive=page, line=_Line(1)).start()
    deadline = time.time() + HANG_S
    while not job.records() and time.time() < deadline:
        job.wait_for_news(0.5)
    assert job.records(), job.errors
    page.gone_at = time.perf_counter()
    assert job.wait_for_end(HANG_S)
    assert job.stopped and job.stop_requested_at - page.gone_at >= jobs.ORPHAN_GRACE_S
    assert job.errors == [None] and job.explanations[0].result.status == "stopped"


def test_a_job_whose_page_closed_while_it_waited_never_starts(iris):
    ds, pool = iris
    page = _Page()
    page.gone_at = time.perf_counter()
    job = _long_run(ds, pool, alive=page, line=_Line(0)).start()
    assert job.wait_for_end(HANG_S)
    assert job.stopped and job._process is None and job.explanations == [None]
