"""Running many tasks: one process, joblib on local cores, or a Dask cluster; a progress line."""

from __future__ import annotations

import sys
import time

from explainer.bench.runner import Task, run_task


class Progress:
    """``bench [#####-----] 12/40 runs  iris/qga#3  1m02s`` on stderr."""

    def __init__(self, total: int, stream=None, width: int = 30, enabled: bool = True):
        self.total = total
        self.done = 0
        self.stream = stream or sys.stderr
        self.width = width
        self.enabled = enabled
        self.t0 = time.perf_counter()
        isatty = getattr(self.stream, "isatty", None)
        self.tty = bool(isatty and isatty())
        self._step = max(1, total // 20)  # without a terminal: a line every 5 %

    def update(self, last: dict | None = None) -> None:
        if last is not None:
            self.done += 1
        if not self.enabled:
            return
        if not self.tty:
            if last is not None and (self.done % self._step == 0 or self.done == self.total):
                el = int(time.perf_counter() - self.t0)
                self.stream.write(f"bench: {self.done}/{self.total} runs  {el // 60}m{el % 60:02d}s\n")
                self.stream.flush()
            return
        frac = self.done / self.total if self.total else 1.0
        filled = int(round(frac * self.width))
        bar = "#" * filled + "-" * (self.width - filled)
        what = f"  {last['dataset']}/{last['algorithm']}#{last['run']}" if last else ""
        el = int(time.perf_counter() - self.t0)
        self.stream.write(f"\rbench [{bar}] {self.done}/{self.total} runs  {el // 60}m{el % 60:02d}s{what}\x1b[K")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.tty:
            self.stream.write("\n")
            self.stream.flush()


def _connect(scheduler):
    """A ``distributed.Client`` for an address (or a Client / LocalCluster passed in)."""
    try:
        from distributed import Client
    except ImportError:
        raise ImportError(
            "--scheduler needs the optional Dask dependency: pip install 'explainer[dask]' "
            "(or pip install distributed)"
        ) from None
    if isinstance(scheduler, Client):
        return scheduler, False
    address = getattr(scheduler, "scheduler_address", scheduler)
    return Client(address), True


def execute(tasks: list[Task], *, jobs: int = 1, scheduler=None, progress: Progress | None = None) -> list[dict]:
    """Run the tasks (joblib on local cores, or Dask); results sorted by (data set, algorithm, run)."""
    progress = progress or Progress(len(tasks), enabled=False)
    progress.update()
    out: list[dict] = []
    if scheduler is not None:
        client, own = _connect(scheduler)
        try:
            from distributed import as_completed

            futures = client.map(run_task, tasks, pure=False)
            for fut in as_completed(futures):
                rec = fut.result()
                out.append(rec)
                progress.update(rec)
        finally:
            if own:
                client.close()
    elif jobs == 1 or len(tasks) <= 1:
        for t in tasks:
            rec = run_task(t)
            out.append(rec)
            progress.update(rec)
    else:
        from joblib import Parallel, delayed

        par = Parallel(n_jobs=jobs, return_as="generator_unordered")
        for rec in par(delayed(run_task)(t) for t in tasks):
            out.append(rec)
            progress.update(rec)
    progress.close()
    out.sort(key=lambda r: (r["dataset"], r["algorithm"], r["run"]))
    return out
