"""Start the dashboard as a server process on a free local port (for the browser tests and the timing scripts,
which put this directory on their path).

Imports no Streamlit itself: the server runs in its own process, bound to 127.0.0.1.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def health(url: str) -> tuple[int, bytes] | None:
    """Status and body of the server's health endpoint, or None when it does not answer."""
    try:
        with urllib.request.urlopen(url + "/_stcore/health", timeout=1) as r:
            return r.status, r.read()
    except OSError:
        return None


def start_dashboard(*, timeout: float = 60.0, stdout=subprocess.PIPE) -> tuple[subprocess.Popen, str]:
    """``streamlit run app.py`` on a free port; returns the process and its URL once healthy.

    Raises ``RuntimeError`` (with the end of the server's output when it was captured) when
    the server exits or does not answer within ``timeout`` seconds.
    """
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1", "--server.fileWatcherType", "none",
         "--browser.gatherUsageStats", "false"],
        cwd=ROOT, stdout=stdout, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + timeout
    while time.time() < deadline:
        if health(url) is not None:
            return proc, url
        if proc.poll() is not None:
            out = proc.stdout.read().decode(errors="replace")[-2000:] if proc.stdout else ""
            raise RuntimeError("streamlit exited: " + out)
        time.sleep(0.2)
    stop_dashboard(proc)
    raise RuntimeError(f"streamlit did not start within {timeout:.0f} s")


def stop_dashboard(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
