"""What the dashboard's server process holds once the sessions that loaded large tables have ended.

    python scripts/memory_held.py [--rows 150000] [--uploads 3]

In one process, like the server: for each upload a new session (Streamlit's AppTest) uploads a
census-like table (:func:`explainer.bench.census.census_like`), loads it and opens the Explain page
(the pool and default budgets are built), then the session is dropped, its jobs stopped as the server
stops a closed page's, and freed memory handed back (:func:`explainer.app.caching.return_freed_memory`).  Prints the resident memory against the caches'
estimate of what they hold, then what the C allocator (glibc's ``mallinfo2``) and Python's small-object
allocator hold: memory in use there is live, not fragments.
"""

from __future__ import annotations

import argparse
import gc
import io
import pathlib
import sys
import time

import psutil

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the AppTest helpers of the app's tests

from test_app import button, new_app  # noqa: E402

from explainer.app import jobs, sources, steps  # noqa: E402
from explainer.app.caching import (  # noqa: E402
    COMPUTED,
    UPLOADS,
    approx_bytes,
    c_allocator_mb,
    return_freed_memory,
)
from explainer.bench.census import census_like  # noqa: E402

MB = 2**20


def rss_mb() -> float:
    return psutil.Process().memory_info().rss / MB


def c_allocator() -> str:
    """What glibc's allocator holds: large blocks (each a live array or table column) and its heaps."""
    info = c_allocator_mb()
    if info is None:
        return "C allocator: not glibc, not read"
    return (f"C allocator: {info['large_blocks']:.0f} MB in large blocks (live), {info['heap_in_use']:.0f} MB in use "
            f"and {info['heap_free']:.0f} MB free in its heaps; Python's small objects: "
            f"{sys.getallocatedblocks():,} blocks")


def load_in_a_session(name: str, data: bytes) -> None:
    at = new_app()
    at.switch_page("app.py").run()
    at.session_state["w_source_kind"] = "Upload a CSV"
    at.session_state["upload"] = sources.upload_source(name, data)
    for _ in range(20):  # the table is read in a step of the server: the page asks again until it is
        at.run()
        steps.wait_all(600)
        if any(b.label == "Load data" for b in at.button):
            break
    button(at, "Load data").click().run()
    for _ in range(6):
        at.switch_page("pages/1_Explain.py").run()
        steps.wait_all(600)


def end_the_sessions_jobs() -> None:
    """What the server does once a closed page's session is gone: its jobs (the frontier the Explain page
    started) are stopped as orphans.  An AppTest session never goes away, so they are stopped here."""
    for job in [*jobs.LINE.running, *jobs.LINE.waiting]:
        job.stop()
    deadline = time.monotonic() + 120
    while (jobs.LINE.running or jobs.LINE.waiting) and time.monotonic() < deadline:
        time.sleep(0.2)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=150_000)
    parser.add_argument("--uploads", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"at start: {rss_mb():.0f} MB")
    for i in range(args.uploads):
        buf = io.StringIO()
        census_like(args.rows, seed=i).to_csv(buf, index=False)
        load_in_a_session(f"census_{i}.csv", buf.getvalue().encode())
        end_the_sessions_jobs()
        gc.collect()
        return_freed_memory()
        print(f"after session {i + 1} ended: {rss_mb():.0f} MB; the caches estimate they hold "
              f"{(COMPUTED.total_bytes + UPLOADS.total_bytes) / MB:.0f} MB in {len(COMPUTED) + len(UPLOADS)} entries")
        print("  " + c_allocator())
    for key, value in COMPUTED.items():
        print(f"  {key[0]}: {approx_bytes(value) / MB:.0f} MB")
    sys._debugmallocstats()  # Python's small objects, on stderr: "bytes in allocated blocks" is live
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
