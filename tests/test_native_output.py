"""The lines a native solver prints are kept off a library user's stdout (explainer.selection.solvers.native_output)."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

#: a program that fits as a library and writes JSON on stdout; HiGHS is made to print as it does now and then
#: (with printf, whatever its options), beside a line of its own from native code and one from a Python thread
_PROGRAM = """
import ctypes, json, sys, threading
import numpy as np
import scipy.optimize
from problems import random_problem
from explainer.selection.solvers import solve

real = scipy.optimize.milp
libc = ctypes.CDLL(None)

def noisy(*args, **kwargs):
    libc.printf(b"HighsMipSolverData::transformNewIntegerFeasibleSolution tmpSolver.run();\\n")
    libc.printf(b"native line kept\\n")
    other = threading.Thread(target=lambda: print("thread line kept", flush=True))
    other.start(); other.join()
    libc.printf(b"HighsDebug::partial")  # no newline: the end of the solve ends it
    return real(*args, **kwargs)

scipy.optimize.milp = noisy
print("before", flush=True)
problem = random_problem(0, N=60, M=25).with_budgets(12, 10)
result = solve(problem, "exact", random_state=0)
print(json.dumps({"coverage": float(result.coverage), "optimal": bool(result.info.get("optimal"))}))
"""


@pytest.mark.skipif(sys.platform == "win32", reason="printf through ctypes needs a C library found by name")
def test_a_fit_as_a_library_keeps_the_solvers_lines_off_stdout_and_everything_else_on_it():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests"), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", _PROGRAM], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Highs" not in out and "Highs" not in done.stderr
    lines = out.splitlines()
    assert lines[0] == "before"
    assert lines.count("native line kept") >= 1 and lines.count("thread line kept") >= 1
    assert lines.count("native line kept") == lines.count("thread line kept")  # one of each per solve
    assert json.loads(lines[-1])["optimal"] is True


def test_the_filter_is_reentrant_and_restores_descriptor_one(capfd):
    from explainer.selection.solvers import native_output

    before = os.fstat(1).st_ino
    with native_output.solver_lines_dropped():
        with native_output.solver_lines_dropped():
            os.write(1, b"HighsX::y dropped\nkept inside\n")
        os.write(1, b"still filtered\n")
    assert os.fstat(1).st_ino == before
    os.write(1, b"after\n")
    out = capfd.readouterr().out
    assert out == "kept inside\nstill filtered\nafter\n"
