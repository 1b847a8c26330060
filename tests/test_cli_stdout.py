"""The command line's stdout is the program's output: no solver or library line, for every algorithm.

Native code that prints writes to file descriptor 1 behind Python's back.  Every algorithm and class
weight is run in this process under ``capfd``, which captures descriptor 1 itself, with ``sys.stdout``
a file on descriptor 1 as in a real process: what the command keeps off its output is kept off the
capture the same way.  Real processes, as a shell pipeline sees them, prove the whole path once: an
``explain`` with the solver that prints from C++ (HiGHS), and a command that prints with ``printf``.
"""

import io
import json
import os
import pathlib
import subprocess
import sys

import pandas as pd
import pytest

import explainer
from explainer import cli
from explainer.report.exports import EXPORT_FORMATS
from explainer.selection.solvers.registry import ALGORITHMS, parameter_names

ROOT = pathlib.Path(explainer.__file__).resolve().parent.parent
#: the quick lane runs these cases; every other one is marked slow
QUICK = (("greedy", "none"), ("exact", "balanced"))


def _run(*args: str, code: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    command = [sys.executable, "-c", code, *args] if code else [sys.executable, "-m", "explainer.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)


@pytest.fixture
def run_here(capfd):
    """Run the command in this process as a real process runs it: ``sys.stdout`` writes to descriptor 1,
    which ``capfd`` holds; returns the exit status, stdout and stderr (of both Python and native code)."""

    def run(*args: str) -> tuple[int, str, str]:
        capfd.readouterr()
        saved = sys.stdout
        with open(1, "w", encoding="utf-8", closefd=False) as fd1:
            sys.stdout = fd1
            try:
                status = cli.main(list(args))
            finally:
                sys.stdout = saved
        out, err = capfd.readouterr()
        return status, out, err

    return run


def _explain_args(algorithm: str, weight: str) -> list[str]:
    # a small packaged table and a short run: what is tested is where the output goes
    args = ["explain", "iris", "--depth", "3", "--algorithm", algorithm, "--class-weight", weight, "--quiet",
            "--time-limit", "2"]
    if "n_generations" in (parameter_names(algorithm) or ()):
        args += ["--generations", "3"]
    return args


def _cases():
    formats = list(EXPORT_FORMATS)
    k = 0
    for algorithm in ALGORITHMS:
        for weight in ("none", "balanced"):
            kind = formats[k % len(formats)]  # every export kind, in turn, over the cases
            k += 1
            marks = () if (algorithm, weight) in QUICK else (pytest.mark.slow,)
            yield pytest.param(algorithm, weight, kind, marks=marks, id=f"{algorithm}-{weight}-{kind}")


def _check_json(algorithm: str, out: str) -> None:
    d = json.loads(out)  # the whole of stdout is the JSON document
    assert d["algorithm"] == algorithm and d["n_rows"] == 150


def _check_export(kind: str, out: str) -> None:
    assert "Highs" not in out, out[:500]
    if kind == "json":
        json.loads(out)
    elif kind == "text":
        # the rules export: comments, rules and the ELSE line
        assert out.startswith("#") or out.startswith("IF "), out[:500]
    elif kind == "csv":
        # the CSV: comment lines, then the column names and a row a rule, the ELSE row last
        frame = pd.read_csv(io.StringIO(out), comment="#", dtype=str)
        assert frame.columns[0] == "rule" and frame["rule"].iloc[-1] == "ELSE", out[:500]
    elif kind == "sql":
        lines = [line for line in out.splitlines() if not line.startswith("--")]
        assert lines[0] == "CASE" and lines[-1] == "END", out[:500]
    else:
        compile(out, "<export>", "exec")


@pytest.mark.parametrize(("algorithm", "weight", "kind"), list(_cases()))
def test_json_and_an_export_are_all_of_stdout(run_here, algorithm, weight, kind):
    status, out, err = run_here(*_explain_args(algorithm, weight), "--json")
    assert status == 0, err
    _check_json(algorithm, out)
    status, out, err = run_here(*_explain_args(algorithm, weight), "--format", kind)
    assert status == 0, err
    _check_export(kind, out)


def test_a_real_process_prints_only_its_output_with_the_solver_that_prints_natively():
    # the end-to-end proof of the cases above: the command as its own process, stdout a pipe
    done = _run(*_explain_args("exact", "balanced"), "--json")
    assert done.returncode == 0, done.stderr
    _check_json("exact", done.stdout)


#: a command that prints from native code first (as HiGHS does with printf), then runs as usual
_NATIVE_PRINT = (
    "import ctypes, sys\n"
    "import explainer.cli as cli\n"
    "listing = cli.cmd_datasets\n"
    "def noisy(args):\n"
    "    ctypes.CDLL(None).printf(b'HighsMipSolverData::transformNewIntegerFeasibleSolution tmpSolver.run();\\n')\n"
    "    return listing(args)\n"
    "cli.cmd_datasets = noisy\n"
    "sys.argv[0] = 'explainer'\n"
    "cli.run()\n"
)


@pytest.mark.skipif(sys.platform == "win32", reason="printf through ctypes needs a C library found by name")
def test_native_printing_never_reaches_stdout_and_shows_on_stderr_with_verbose():
    quiet = _run("datasets", code=_NATIVE_PRINT)
    assert quiet.returncode == 0, quiet.stderr
    assert "bundled samples:" in quiet.stdout
    assert "HighsMipSolverData" not in quiet.stdout + quiet.stderr
    loud = _run("datasets", "--verbose", code=_NATIVE_PRINT)
    assert loud.returncode == 0, loud.stderr
    assert "HighsMipSolverData" not in loud.stdout and "bundled samples:" in loud.stdout
    assert "HighsMipSolverData::transformNewIntegerFeasibleSolution" in loud.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="printf through ctypes needs a C library found by name")
def test_in_this_process_native_printing_is_caught_and_kept_off_stdout(run_here, capfd, monkeypatch):
    """What the cases above rely on: ``run_here`` sees what native code writes to descriptor 1."""
    import ctypes

    listing = cli.cmd_datasets

    def noisy(args):
        ctypes.CDLL(None).printf(b"HighsMipSolverData::native line\n")
        return listing(args)

    # the capture sees such a line when nothing keeps it off descriptor 1
    ctypes.CDLL(None).printf(b"HighsMipSolverData::unredirected\n")
    ctypes.CDLL(None).fflush(None)
    assert "HighsMipSolverData::unredirected" in capfd.readouterr().out
    monkeypatch.setattr(cli, "cmd_datasets", noisy)
    status, out, err = run_here("datasets")
    assert status == 0 and "bundled samples:" in out
    assert "HighsMipSolverData" not in out + err
    status, out, err = run_here("datasets", "--verbose")
    assert status == 0 and "bundled samples:" in out and "HighsMipSolverData" not in out
    assert "HighsMipSolverData::native line" in err
