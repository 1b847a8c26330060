"""Keeping a native solver's stray lines off the program's standard output.

HiGHS prints a few lines with C's ``printf`` whatever its output options say (for example
``HighsMipSolverData::transformNewIntegerFeasibleSolution tmpSolver.run();`` during a population merge).
They land on file descriptor 1 of the process: in a program that writes JSON or CSV there, from a fit
called as a library, they corrupt its output.  While a solve runs, :func:`solver_lines_dropped` points
descriptor 1 at a pipe whose reader passes every line on to where descriptor 1 pointed before, except
those a native solver printed (:data:`SOLVER_LINE`).  Output of other threads meanwhile goes through
unchanged, in order.  Where there is no descriptor 1 or no pipe (an embedded interpreter, another OS),
nothing is changed.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import sys
import threading

#: the lines HiGHS prints itself, outside its logging (``Highs...::method ...``)
SOLVER_LINE = re.compile(rb"^Highs\w*::")

#: where the solver's lines go instead (a file descriptor, e.g. 2 for a command run with ``--verbose``); None
#: drops them
solver_lines_to: int | None = None

_lock = threading.Lock()
_depth = 0
_saved_fd: int | None = None
_reader: threading.Thread | None = None


def flush_native_stdout() -> None:
    """Write out what C's ``stdout`` holds in its buffer (native code's ``printf``), where it was printed."""
    try:
        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError, TypeError):  # no C library to ask (some platforms): nothing buffered there
        pass


def _flush_python_stdout() -> None:
    with contextlib.suppress(AttributeError, OSError, ValueError):
        sys.stdout.flush()


def _pass_on(read_fd: int, out_fd: int, aside: int | None) -> None:
    """Copy lines from ``read_fd`` to ``out_fd`` until the pipe closes; the solver's to ``aside`` (None: nowhere)."""
    pending = b""
    with open(read_fd, "rb", buffering=0) as pipe:
        while True:
            chunk = pipe.read(65536)
            if not chunk:
                break
            *lines, pending = (pending + chunk).split(b"\n")
            _route(lines, out_fd, aside)
    if pending:
        _route([pending], out_fd, aside, newline=b"")
    os.close(out_fd)


def _route(lines: list[bytes], out_fd: int, aside: int | None, newline: bytes = b"\n") -> None:
    kept = b"".join(line + newline for line in lines if not SOLVER_LINE.match(line))
    if kept:
        _write_all(out_fd, kept)
    solver = b"".join(line + newline for line in lines if SOLVER_LINE.match(line))
    if solver and aside is not None:
        _write_all(aside, solver)


def _write_all(fd: int, data: bytes) -> None:
    with contextlib.suppress(OSError):  # the reader of our output went away: what it would have read is lost
        while data:
            data = data[os.write(fd, data):]


def _begin() -> None:
    global _saved_fd, _reader
    flush_native_stdout()
    _flush_python_stdout()
    read_fd, write_fd = os.pipe()
    _saved_fd = os.dup(1)
    out_fd = os.dup(_saved_fd)  # the reader's own: it closes it when the pipe has closed
    os.dup2(write_fd, 1)
    os.close(write_fd)
    _reader = threading.Thread(target=_pass_on, args=(read_fd, out_fd, solver_lines_to), name="explainer-stdout", daemon=True)
    _reader.start()


def _end() -> None:
    global _saved_fd, _reader
    flush_native_stdout()  # what the solver buffered goes through the filter, not later to the real stdout
    _flush_python_stdout()
    assert _saved_fd is not None and _reader is not None
    os.dup2(_saved_fd, 1)  # the pipe's last writer here closes: the reader sees its end
    os.close(_saved_fd)
    # a process forked meanwhile may hold the pipe open: then the reader stays, passing its lines on
    _reader.join(timeout=1.0)
    _saved_fd, _reader = None, None


def _usable() -> bool:
    try:
        os.fstat(1)
    except OSError:  # no descriptor 1 at all
        return False
    return hasattr(os, "pipe") and os.name == "posix"


@contextlib.contextmanager
def solver_lines_dropped():
    """Within the block, the lines a native solver prints on descriptor 1 are dropped and the rest passed on.

    Re-entrant and shared by threads: the first block to begin redirects, the last to end restores."""
    global _depth
    with _lock:
        active = _depth > 0 or _usable()
        if active:
            if _depth == 0:
                _begin()
            _depth += 1
    try:
        yield
    finally:
        if active:
            with _lock:
                _depth -= 1
                if _depth == 0:
                    _end()
