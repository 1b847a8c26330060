"""Shared test fixtures."""

from __future__ import annotations

import importlib.util
import os
import pathlib

import pytest
import type_check
from waits import HANG_S

from explainer.data import paper_data_dir
from explainer.selection.solvers.exact import exit_now_if_solving

_EXIT_STATUS = {"status": 0}


@pytest.fixture(scope="session")
def paper_datasets_dir() -> pathlib.Path:
    """Directory holding the paper's 10 data sets: the copy shipped with the package."""
    directory = paper_data_dir()
    assert directory.is_dir(), f"the packaged data sets are missing: {directory}"
    return directory


@pytest.fixture(scope="session", autouse=True)
def pages_wait_for_their_steps():
    """Dashboard pages under ``streamlit.testing`` wait for their long steps inside the run.

    In a browser, a step that lasts (a pool, the default budgets) is shown as a status while a fragment
    polls it; ``AppTest`` runs no fragment on its own, so a page would stay at the status.  The tests of
    the steps themselves (``tests/test_app_steps.py``) set the wait back to zero.  Session-wide, so that
    module-wide fixtures (a page with a finished run) get it too.
    """
    from explainer.app import steps

    saved = steps.INLINE_WAIT_S
    steps.INLINE_WAIT_S = HANG_S
    yield
    steps.INLINE_WAIT_S = saved


@pytest.fixture(scope="session", autouse=True)
def stopped_runs_may_take_their_time():
    """A stopped job's worker returns its best selection however busy the machine is.

    Past ``STOP_GRACE_S`` after a Stop the dashboard gives up on a silent worker; a test that stops a
    run checks what the run returns, so the grace here only bounds a hang.
    """
    from explainer.app import jobs

    saved = jobs.STOP_GRACE_S
    jobs.STOP_GRACE_S = HANG_S
    yield
    jobs.STOP_GRACE_S = saved


def pytest_collection_finish(session):
    # the type check takes a minute on one core: it runs beside the tests when it is among them.  Under
    # pytest-xdist every worker collects every test but only one runs it: the test starts the check itself there
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    selected = any(item.nodeid.endswith(type_check.TEST) for item in session.items)
    if selected and not session.config.option.collectonly and importlib.util.find_spec("mypy") is not None:
        type_check.start()


def pytest_sessionfinish(session, exitstatus):
    _EXIT_STATUS["status"] = int(exitstatus)
    type_check.stop()


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    # a test that stops the exact solver leaves its HiGHS solve finishing in the background: the
    # run then ends at once, with its own status, rather than abort as the C++ runtime would
    exit_now_if_solving(_EXIT_STATUS["status"])
