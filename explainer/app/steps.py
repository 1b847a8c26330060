"""Long steps of a page (reading a table, encoding it, building a rule pool, choosing default budgets),
computed beside the page and shown as a Streamlit status while they last.

A step computed inside the page's script run holds that run: everything the page drew below it the
time before stays on screen, greyed, with the numbers of the old data or pool, until the run ends.
So a step that has not ended within :data:`INLINE_WAIT_S` (shorter than the browser's half second
before it greys anything) goes on in a thread of the server, and its value lands in the server's
cache (:data:`.caching.COMPUTED`) like any computed value; the page draws the step as an expanded
``st.status`` (its name, what it does, the seconds so far), ends its run there, so nothing old
remains below, and a fragment looks at the step every :data:`POLL_S` (each look waiting on the step's
end a little first) and draws the whole page again the moment it has ended.  There the status is one
collapsed line, "... in x s", for as long as the page shows that step's value.

One thread computes a key however many pages wait for it (a rerun, another tab, another session).
Never computes anything itself: the caller's ``make`` does.
"""

from __future__ import annotations

import threading
import time
import traceback
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import streamlit as st

from explainer.app.caching import COMPUTED, approx_bytes
from explainer.app.session import Session
from explainer.rules.pool import BUILD_STOP, BuildCancelled

#: A step that ends within this many seconds is waited for inside the page's run (no status, nothing greyed).
INLINE_WAIT_S = 0.4
#: Seconds between two looks of the page at a step being computed (the status's clock moves as often).
POLL_S = 0.5
#: How long each look waits for the step to end before drawing its status again (less than POLL_S).
WATCH_WAIT_S = 0.4
#: A finished step nobody has taken its value from is dropped after this many seconds (its value is
#: in the cache unless it was larger than the cache's budget).
UNCLAIMED_S = 300.0

#: The icon of a step's collapsed "done" line (a completed ``st.status``'s own).
DONE_ICON = ":material/check:"

_MISSING = object()

#: what a step's ``make`` makes
_T = TypeVar("_T")


class Step:
    """One computation in a thread of the server: :meth:`result` or ``error`` once :attr:`done`."""

    def __init__(self, key: Hashable, make: Callable[[], object]):
        self.key = key
        self._make: Callable[[], object] | None = make
        self._value: object = None
        self._in_cache = False
        self._held = False  # the value is kept here, too large for the cache
        self.error: BaseException | None = None
        #: set when no page wants the value any more (:func:`cancel_where`): a pool build, also the default
        #: budgets' own, then ends at its next tree (:data:`~explainer.rules.pool.BUILD_STOP`)
        self.cancelled = threading.Event()
        self.started_at = time.perf_counter()
        self.finished_at: float | None = None
        self._ended = threading.Event()
        self._thread = threading.Thread(target=self._work, name="explainer-step", daemon=True)

    def start(self) -> Step:
        self._thread.start()
        return self

    def _work(self) -> None:
        BUILD_STOP.set(self.cancelled.is_set)  # this thread's own context: what it builds asks the step
        try:
            if self._make is None:
                raise RuntimeError("a step computes once")
            value = COMPUTED.get_or_make(self.key, self._make)
            # kept where every page looks first, and only there: a step nobody claims (work started
            # ahead for a page never opened) then holds nothing beyond the cache's byte budget.  A value
            # over that budget stays with the step, to be handed over once; one the cache has let go of
            # already (the memory guard forgets what only closed pages used) is not kept here either,
            # or a step nobody claims would hold it past the guard (a 364,035-row pool, for minutes)
            self._in_cache = COMPUTED.get(self.key, _MISSING) is value
            self._held = not self._in_cache and approx_bytes(value) > COMPUTED.max_bytes
            self._value = value if self._held else None
        except BaseException as exc:  # raised again in the page that asked, with the page's own message
            # without the locals of its frames (a data set, a pool): the error may wait minutes for a page
            traceback.clear_frames(exc.__traceback__)
            self.error = exc
        finally:
            self._make = None  # nor what it was made from (a data set, a pool), through its closure
            self.finished_at = time.perf_counter()
            self._ended.set()

    def result(self):
        """The value computed (from the cache, where it is kept), or ``_MISSING`` if the cache has dropped it."""
        if self._in_cache:
            return COMPUTED.get(self.key, _MISSING)
        return self._value if self._held else _MISSING

    @property
    def done(self) -> bool:
        return self._ended.is_set()

    @property
    def seconds(self) -> float:
        end = self.finished_at if self.finished_at is not None else time.perf_counter()
        return end - self.started_at

    def wait(self, timeout: float | None) -> bool:
        """Block up to ``timeout`` s for the step to end; True if it has."""
        return self._ended.wait(timeout)


_lock = threading.Lock()
_steps: dict[Hashable, Step] = {}


def start(key: Hashable, make: Callable[[], object]) -> Step:
    """The step computing ``key``: the one some page started already, or a new one.

    Called by a page that will ask for ``key`` soon (a loaded table's pool, a pool's default budgets),
    so the work is under way while the page is drawn and the user moves on; :func:`ready` then finds it.
    """
    with _lock:
        now = time.perf_counter()
        for old in [k for k, s in _steps.items()
                    if s.done and s.finished_at is not None and now - s.finished_at > UNCLAIMED_S]:
            del _steps[old]
        step = _steps.get(key)
        if step is None or _unwanted(step):  # it ended unwanted, and this page wants it now
            step = _steps[key] = Step(key, make).start()
        return step


def _unwanted(step: Step) -> bool:
    """The step was cancelled (its page closed), or ended as if it had been (what it worked on was let go while
    it waited its turn): a page that wants its value starts it again."""
    return step.cancelled.is_set() or isinstance(step.error, BuildCancelled)


def cancel_where(test: Callable[[Hashable], bool]) -> int:
    """Cancel the running steps whose key passes ``test`` (the work of pages that have closed); how many.  A
    cancelled step ends at its next check (a pool build's next tree) with
    :class:`~explainer.rules.pool.BuildCancelled`, and is forgotten: a page that asks for its key later starts
    it again."""
    with _lock:
        picked = [s for s in _steps.values() if not s.done and test(s.key)]
        for step in picked:
            step.cancelled.set()
    return len(picked)


def _claim(step: Step) -> None:
    with _lock:
        if _steps.get(step.key) is step:
            del _steps[step.key]


def running() -> list[Step]:
    """The steps being computed now."""
    with _lock:
        return [s for s in _steps.values() if not s.done]


def wait_all(timeout: float | None = None) -> bool:
    """Block until no step is computed, the ones they start included (at most ``timeout`` s each); True if so."""
    while True:
        now = running()
        if not now:
            return True
        if not all(step.wait(timeout) for step in now):
            return False


def ready(state: Session, name: str, key: Hashable, make: Callable[[], _T], *, title: str, detail: str = "",
          done: Callable[[_T, float], str]) -> _T | None:
    """The value of ``key``: from the server's cache, computed now, or None while a thread computes it.

    ``name`` is the page's step ("pool", "budgets", ...); ``title`` says what is being done (the status
    adds the seconds so far), ``detail`` how, and ``done(value, seconds)`` the collapsed line after.  While
    it is computed the status is drawn here and the caller ends its run (``st.stop()``); the page is drawn
    again when the step has ended.  The step's error is raised here, in the page that asked.
    """
    with _lock:
        step = _steps.get(key)
    if step is not None and _unwanted(step):  # work for a page that closed: this one starts it again
        step = None
    if step is None:  # nothing computing it, or already handed over: the cache may hold it
        value = COMPUTED.get(key, _MISSING)
        if value is not _MISSING:
            summary(state, name, key)
            return value
        step = start(key, make)
    if not step.wait(INLINE_WAIT_S):
        _forget(state, name)
        _watch(state, name, step, title, detail, done, {})
        return None
    _claim(step)
    if isinstance(step.error, BuildCancelled):  # ended unwanted as this page asked for it: again, for this page
        return ready(state, name, key, make, title=title, detail=detail, done=done)
    if step.error is not None:
        _forget(state, name)
        raise step.error
    value = step.result()
    if value is _MISSING:  # dropped from the cache since it was computed (it was never asked for): again
        return ready(state, name, key, make, title=title, detail=detail, done=done)
    if step.seconds > INLINE_WAIT_S:  # long enough to be seen: say what it took, from now on in one line
        _record(state, name, step, detail, done, value)
    summary(state, name, key)
    return value


def summary(state: Session, name: str, key: Hashable) -> None:
    """The collapsed "done" line of step ``name``, if this session waited for it at ``key``."""
    entry = (state.steps_done or {}).get(name)
    if entry is None or entry[0] != key:
        return
    # drawn as a completed status looks (an expander with its check mark): ``st.status`` itself waits
    # 50 ms in every page run that draws it, so that an update right after it is not lost
    with st.expander(entry[1], expanded=False, icon=DONE_ICON):
        if entry[2]:
            st.caption(entry[2])


def _record(state: Session, name: str, step: Step, detail: str, done: Callable[[Any, float], str],
            value) -> None:
    state.steps_done = {**(state.steps_done or {}), name: (step.key, done(value, step.seconds), detail)}


def _forget(state: Session, name: str) -> None:
    if name in (state.steps_done or {}):
        state.steps_done = {k: v for k, v in state.steps_done.items() if k != name}


@st.fragment(run_every=POLL_S)
def _watch(state: Session, name: str, step: Step, title: str, detail: str,
           done: Callable[[Any, float], str], seen: dict) -> None:
    """The step's status, expanded, its clock moving; the whole page is drawn again once it has ended.

    Each rerun of this fragment first waits up to :data:`WATCH_WAIT_S` on the step's own event, so the
    page is redrawn the moment the step ends rather than at the next look.  Not its first call: that one
    is part of the page's run, which must end at once so nothing old stays greyed below the status
    (``seen``, the same dict in every rerun of the fragment, tells the two apart).
    """
    if seen:
        step.wait(WATCH_WAIT_S)
    seen["drawn"] = True
    if step.done:
        value = step.result() if step.error is None else _MISSING
        if value is not _MISSING:
            _record(state, name, step, detail, done, value)
        st.rerun()
    # not a ``with`` block: leaving it would mark the status complete
    status = st.status(f"{title} · {step.seconds:.0f} s", state="running", expanded=True)
    if detail:
        status.caption(detail)
