"""Shared test fixtures."""

from __future__ import annotations

import os
import pathlib

import pytest

from explainer.data import shared_data_dir


@pytest.fixture(scope="session")
def shared_datasets_dir() -> pathlib.Path:
    """Directory holding the paper's 10 data sets.

    Skips the test when the directory cannot be found, except on CI
    (environment variable ``CI`` == "true") where that is a failure.
    """
    directory = shared_data_dir()
    if directory is None or not directory.is_dir():
        msg = (
            "../shared/datasets not found (set EXPLAINER_DATA_DIR to the directory "
            "holding the paper's data sets)"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(msg)
        pytest.skip(msg)
    return directory
