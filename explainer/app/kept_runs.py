"""Finished runs kept on the server by their pool and settings, and the runs a reload interrupted.

A run's result belongs to its session; kept here too (in :data:`.caching.COMPUTED`, keyed by
the pool key and its :class:`~explainer.selection.settings.RunSettings`), a reload or a copied
link at the same settings shows it again, and every run of the pool, not only the latest, lifts
the frontier (:func:`.budgets.known_selections`).  A run that started but was never collected
leaves a :class:`Started` mark: its page says the run was interrupted instead of showing nothing.
Never imports Streamlit.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass, field

from explainer.app.caching import COMPUTED, approx_bytes
from explainer.pipeline import Explanation
from explainer.selection.settings import RunSettings


@dataclass(frozen=True)
class KeptRun:
    """A finished run: its settings, its explanation and the rows it was computed on."""

    settings: RunSettings
    explanation: Explanation
    dataset: object  # the rows of the run (training rows when some are held out)


@dataclass(frozen=True)
class Started:
    """A run started at these settings whose result no page has collected (yet), and a weak reference to its
    job: a reload while it runs takes the job up (:meth:`job`), and the mark never keeps a job (its pool and
    rows) alive past the session that started it."""

    settings: RunSettings
    job_ref: Callable[[], object | None] = field(default=lambda: None, compare=False, repr=False)

    def job(self):
        """The run's job while something still holds it (its session, or its reader while it runs), else None."""
        return self.job_ref()


def run_key(pool_key: tuple, settings: RunSettings) -> tuple:
    """Where the server's cache keeps the run at ``settings`` on the pool known as ``pool_key``."""
    return ("run", pool_key, settings)


def is_run_key(key) -> bool:
    """Whether a key of the server's cache is a run's (:func:`run_key`)."""
    return isinstance(key, tuple) and key[:1] == ("run",)


def mark_started(pool_key: tuple, settings: RunSettings, job=None) -> None:
    """A run at ``settings`` starts (as ``job``): until it is collected, a reload at its settings takes the job up
    while it is held, else says the run was interrupted."""
    ref = weakref.ref(job) if job is not None else (lambda: None)
    COMPUTED.put(run_key(pool_key, settings), Started(settings, ref), size=0)


def keep_finished(pool_key: tuple, settings: RunSettings, explanation: Explanation, dataset) -> None:
    """Keep a finished run; its size counts the result and the report (pool and rows are kept elsewhere)."""
    size = approx_bytes(explanation.result) + approx_bytes(explanation.report)
    COMPUTED.put(run_key(pool_key, settings), KeptRun(settings, explanation, dataset), size=size)


def forget_run(pool_key: tuple, settings: RunSettings) -> None:
    """A run that failed leaves nothing to show, nor a mark."""
    COMPUTED.discard(run_key(pool_key, settings))


def kept(pool_key: tuple, settings: RunSettings) -> KeptRun | Started | None:
    """What the server holds of the run at ``settings``: its result, the mark of an interrupted run, or None."""
    value = COMPUTED.get(run_key(pool_key, settings))
    return value if isinstance(value, KeptRun | Started) else None


def kept_runs(pool_key: tuple) -> list[KeptRun]:
    """Every finished run the server holds for the pool known as ``pool_key`` (looking is no use of them)."""
    return [value for key, value in COMPUTED.items()
            if isinstance(key, tuple) and key[:2] == ("run", pool_key) and isinstance(value, KeptRun)]


__all__ = ["KeptRun", "Started", "forget_run", "is_run_key", "keep_finished", "kept", "kept_runs", "mark_started",
           "run_key"]
