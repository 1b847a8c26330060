"""Shared test fixtures."""

from __future__ import annotations

import pathlib

import pytest

from explainer.data import paper_data_dir


@pytest.fixture(scope="session")
def paper_datasets_dir() -> pathlib.Path:
    """Directory holding the paper's 10 data sets: the copy shipped with the package."""
    directory = paper_data_dir()
    assert directory.is_dir(), f"the packaged data sets are missing: {directory}"
    return directory
