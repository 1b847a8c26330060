"""The type check of explainer/ (``tests/test_types.py``), started in the background as the session begins.

mypy takes a minute or more on a fresh clone (no cache) and uses one core; the tests use the other
meanwhile, and the test reads the result when its turn comes.  Run alone, the test starts it itself.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
#: the test that reads the result (its node id ends so)
TEST = "test_types.py::test_explainer_passes_mypy"
#: a bound on a hang only: the check takes a minute or two on a busy machine
TIMEOUT_S = 1200

_running: dict[str, tuple[subprocess.Popen, object]] = {}


def _command() -> list[str]:
    # the cache beside the project (ignored by git), so that a run after the first reads it
    return [sys.executable, "-m", "mypy", "--config-file", str(PYPROJECT), "--cache-dir", str(ROOT / ".mypy_cache"),
            "--no-color-output"]


def start() -> None:
    """Start mypy now, unless it runs already."""
    if "mypy" not in _running:
        out = tempfile.TemporaryFile(mode="w+")  # not a pipe: a long report must not stall it
        _running["mypy"] = (subprocess.Popen(_command(), cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                                             text=True), out)


def result() -> tuple[int, str]:
    """mypy's exit status and report (started now if it was not yet)."""
    start()
    process, out = _running.pop("mypy")
    try:
        status = process.wait(TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise
    out.seek(0)
    report = out.read()
    out.close()
    return status, report


def stop() -> None:
    """End a check whose test did not read it (the session stopped early)."""
    if "mypy" in _running:
        process, out = _running.pop("mypy")
        process.kill()
        process.wait()
        out.close()
