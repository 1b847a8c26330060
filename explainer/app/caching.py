"""The server's caches, bounded in bytes, their idle entries expiring.

Streamlit's caches bound the number of entries and their age, not their size:
sixteen large uploads, their tables, data sets and pools would all stay.  A
:class:`BoundedStore` keeps what it is given while the sum of the sizes stays
within a byte budget (least recently used out first), forgets an entry nobody
asked for during ``idle_seconds``, and never keeps a single entry larger than
its budget (that value is computed for the caller and not kept).  One store per
server process holds uploaded files, one holds what is computed from them.
Sizes are estimated by :func:`approx_bytes` from the arrays and tables a value
holds.
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import ctypes.util
import functools
import gc
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.sparse as sp

from explainer.rules.pool import check_build_stop

MB = 1 << 20
_LOG = logging.getLogger(__name__)


def _budget(name: str, default_mb: int) -> int:
    """A byte budget: ``default_mb`` MB unless the environment variable ``name`` gives another number of MB."""
    try:
        return int(float(os.environ.get(name, default_mb)) * MB)
    except ValueError:
        return default_mb * MB


class BoundedStore:
    """Values by key, within ``max_bytes`` in all, least recently used out first, idle ones expiring."""

    def __init__(self, max_bytes: int, idle_seconds: float, clock: Callable[[], float] = time.monotonic):
        self.max_bytes = int(max_bytes)
        self.idle_seconds = float(idle_seconds)
        self._clock = clock
        self._entries: collections.OrderedDict[Hashable, tuple[object, int, float]] = collections.OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def total_bytes(self) -> int:
        return self._bytes

    def get(self, key: Hashable, default=None):
        with self._lock:
            self._expire()
            entry = self._entries.get(key)
            if entry is None:
                return default
            value, size, _ = entry
            self._entries[key] = (value, size, self._clock())
            self._entries.move_to_end(key)
            return value

    def put(self, key: Hashable, value, size: int | None = None):
        """Keep ``value`` (of ``size`` bytes, estimated when not given) if it fits; returns it either way.
        Where the server's memory guard is on, the process is then brought back within its limit
        (:func:`keep_within_limit`)."""
        size = approx_bytes(value) if size is None else int(size)
        with self._lock:
            self._drop(key)
            if size <= self.max_bytes:
                self._entries[key] = (value, size, self._clock())
                self._bytes += size
                while self._bytes > self.max_bytes:
                    self._drop(next(iter(self._entries)))
            self._expire()
        if GUARD.limit_bytes is not None:
            keep_within_limit()
        return value

    def drop_oldest(self, idle_s: float = 0.0) -> bool:
        """Forget the least recently used entry unused for at least ``idle_s`` seconds; False when none is."""
        with self._lock:
            now = self._clock()
            for key, (_, _, used) in self._entries.items():
                if now - used >= idle_s:
                    self._drop(key)
                    return True
        return False

    def get_or_make(self, key: Hashable, make: Callable[[], object]):
        """The value kept for ``key``, or ``make()`` kept for next time (two sessions asking at once may both make
        it; the store keeps one)."""
        sentinel = object()
        value = self.get(key, sentinel)
        if value is sentinel:
            value = self.put(key, make())
        return value

    def discard(self, key: Hashable) -> None:
        """Forget ``key`` (nothing happens when it is not kept)."""
        with self._lock:
            self._drop(key)

    def discard_where(self, test: Callable[[Hashable], bool]) -> int:
        """Forget every key ``test`` accepts, however recently used; how many."""
        with self._lock:
            keys = [key for key in self._entries if test(key)]
            for key in keys:
                self._drop(key)
        return len(keys)

    def items(self) -> list[tuple[Hashable, object]]:
        """The kept (key, value) pairs, least recently used first; looking through them is no use of any."""
        with self._lock:
            self._expire()
            return [(key, value) for key, (value, _, _) in self._entries.items()]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    def _drop(self, key: Hashable) -> None:
        entry = self._entries.pop(key, None)
        if entry is not None:
            self._bytes -= entry[1]

    def _expire(self) -> None:
        now = self._clock()
        stale = [k for k, (_, _, used) in self._entries.items() if now - used > self.idle_seconds]
        for key in stale:
            self._drop(key)


def frame_bytes(frame: pd.DataFrame) -> int:
    """``frame.memory_usage(index=True, deep=True).sum()``, with the columns of a fixed-size numpy type counted from
    their type (pandas measures a table column by column, which took seconds on a table of 100,000 encoded
    features each time a cache kept one), and each object of the object columns counted once: a table read
    from a file holds one string for all the equal cells of a column, which pandas counts once a cell
    (221 MB for a table of 364,035 rows that holds 42 MB by this count)."""
    dtypes = frame.dtypes.tolist()
    kinds = [d.kind if isinstance(d, np.dtype) else "" for d in dtypes]  # "": a pandas extension type
    total = len(frame) * sum(d.itemsize for d, k in zip(dtypes, kinds, strict=True) if k and k in "biufcmM")
    objects = [i for i, k in enumerate(kinds) if k == "O"]
    if objects:
        total += _object_bytes(frame.iloc[:, objects].to_numpy(dtype=object).ravel())
    others = [i for i, k in enumerate(kinds) if not k or k not in "biufcmMO"]
    if others:
        total += int(frame.iloc[:, others].memory_usage(index=False, deep=True).sum())
    return int(total + frame.index.memory_usage(deep=True))


def _object_bytes(values: np.ndarray) -> int:
    """The memory of an array of objects: a pointer each, and each distinct object (by identity) once."""
    if not values.size:
        return 0
    ids = np.fromiter(map(id, values), dtype=np.uint64, count=values.size)
    codes, distinct = pd.factorize(ids)  # by hashing: sorting 2.9 million identities took 0.25 s
    one = np.empty(len(distinct), dtype=np.int64)
    one[codes] = np.arange(values.size)  # a position of each distinct object (the last written stays)
    return int(values.size * values.itemsize + sum(map(sys.getsizeof, values[one])))


def approx_bytes(value, _depth: int = 0) -> int:
    """The memory a value holds, counted from its arrays, tables and bytes (small objects count little)."""
    if _depth > 4:
        return 0
    if isinstance(value, bytes | bytearray | memoryview):
        return len(value)
    if isinstance(value, str):
        return len(value)
    if isinstance(value, pd.DataFrame):
        return frame_bytes(value)
    if isinstance(value, pd.Series):
        return int(value.memory_usage(index=True, deep=True))
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return int(pd.Series(value.ravel()).memory_usage(index=False, deep=True))
        return int(value.nbytes)
    if sp.issparse(value):
        return int(sum(getattr(value, name).nbytes for name in ("data", "indices", "indptr") if hasattr(value, name)))
    if isinstance(value, dict):
        return sum(approx_bytes(v, _depth + 1) for v in value.values())
    if isinstance(value, list | tuple):
        if len(value) > 64:  # many small objects (rules, trees): a sample stands for the rest
            sample = value[:: max(1, len(value) // 64)]
            return int(sum(approx_bytes(v, _depth + 1) for v in sample) * len(value) / len(sample))
        return sum(approx_bytes(v, _depth + 1) for v in value)
    if hasattr(value, "__dict__") and not isinstance(value, type):
        # every attribute, not only declared fields: a data set keeps a float32 view of its matrix once used
        return sum(approx_bytes(v, _depth + 1) for v in vars(value).values()) + sys.getsizeof(value)
    return sys.getsizeof(value)


#: seconds between two rounds of the server's housekeeping (:func:`start_housekeeping`)
RETURN_EVERY_S = 30.0


@functools.cache
def _libc():
    """The C library (its functions read as attributes), or None where it cannot be loaded."""
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None


def _malloc_trim():
    """glibc's ``malloc_trim``, or None on another C library."""
    return getattr(_libc(), "malloc_trim", None)


#: glibc's ``mallopt`` parameter for the size from which a block is mapped on its own
_M_MMAP_THRESHOLD = -3
#: blocks of at least this many bytes are mapped on their own, so that freeing one gives its memory back to
#: the system whole.  glibc's default threshold moves up (to 32 MB) each time such a block is freed, after
#: which a large table's columns and arrays come from the heaps and leave them fragmented: six 41.5 MB
#: uploads left 831 MB free in the heaps that ``malloc_trim`` could not return, the server 2,247 MB against the
#: caches' 977 MB (``scripts/upload_memory.py``)
MMAP_THRESHOLD = 1 << 20


def map_large_blocks_apart(threshold: int = MMAP_THRESHOLD) -> bool:
    """Fix glibc's threshold for blocks mapped on their own at ``threshold`` bytes; False where it cannot (not
    glibc).  Applies to the calling process and the processes it forks afterwards."""
    mallopt = getattr(_libc(), "mallopt", None)
    return mallopt is not None and bool(mallopt(_M_MMAP_THRESHOLD, int(threshold)))


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                     "fsmblks", "uordblks", "fordblks", "keepcost")]


def c_allocator_mb() -> dict | None:
    """What glibc's allocator holds, in MB (None on another C library): ``large_blocks`` (each mapped on its
    own: a live array or column), ``heap_in_use`` (live smaller blocks) and ``heap_free`` (freed, kept in its
    heaps: what :func:`return_freed_memory` can hand back only where whole pages are free)."""
    mallinfo2 = getattr(_libc(), "mallinfo2", None)
    if mallinfo2 is None:
        return None
    mallinfo2.restype = _MallInfo2
    info = mallinfo2()
    return {"large_blocks": info.hblkhd / MB, "heap_in_use": info.uordblks / MB, "heap_free": info.fordblks / MB}


def return_freed_memory() -> bool:
    """Hand the memory the C allocator keeps after large tables are freed back to the system; False where it
    cannot (not glibc).  A closed session's data set, freed, otherwise stays in the allocator's free lists and
    the server's resident memory never comes down (``scripts/upload_memory.py`` measures it)."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


def resident_bytes() -> int | None:
    """This process's resident memory (None where ``/proc`` cannot tell it)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def arrow_through_system_allocator() -> bool:
    """Make Arrow (through which Streamlit sends every table to the page) allocate with the C library's
    allocator rather than its own (mimalloc here), which keeps freed memory outside glibc's account, out of
    :func:`return_freed_memory`'s reach; False where pyarrow cannot be loaded."""
    try:
        import pyarrow
    except ImportError:
        return False
    pyarrow.set_memory_pool(pyarrow.system_memory_pool())
    return True


@dataclass
class MemoryGuard:
    """The server's limit on its own resident memory, or None (no guard: the CLI, the tests' processes)."""

    limit_bytes: int | None = None
    #: an entry used this recently is never dropped by the guard: what a page is working with.  With a few
    #: seconds, the first of six 41.5 MB uploads took 119 s to load: what the page had just prepared was
    #: dropped before it was read, and prepared again
    grace_s: float = 120.0
    dropped: int = 0  # entries the guard has dropped since it was set
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: what frees memory held outside the caches when they have nothing left to give (the server's: the closed
    #: pages' sessions released at once, :func:`.closed_sessions.release_inactive_sessions`); given the data
    #: cache, returns how many things it let go (sessions, and the cache entries only they used)
    relieve: Callable[[BoundedStore], int] | None = None
    relieved: int = 0  # what the guard's relief let go since it was set
    room_made: int = 0  # computations before which :func:`make_room` had to let something go


#: the dashboard server's (see :func:`guard_memory`)
GUARD = MemoryGuard()


def guard_memory(base_bytes: int | None = None, relieve: Callable[[BoundedStore], int] | None = None) -> int | None:
    """Hold the server's resident memory within ``base_bytes`` (its own at the call when None: the interpreter
    and its libraries) plus the caches' budgets; the limit in bytes, or None where the resident memory
    cannot be read.  The caches' budgets bound their own estimates; what those miss (the sessions' data sets,
    the allocator's free memory, objects the estimates undercount) is made room for by the caches, which
    give up their least recently used entries while the process is over the limit, and then by ``relieve``
    (see :attr:`MemoryGuard.relieve`)."""
    base = resident_bytes() if base_bytes is None else int(base_bytes)
    if base is None:
        return None
    GUARD.limit_bytes = base + UPLOADS.max_bytes + COMPUTED.max_bytes
    GUARD.relieve = relieve
    return GUARD.limit_bytes


def keep_within_limit(rss: Callable[[], int | None] = resident_bytes, store: BoundedStore | None = None,
                      need_bytes: int = 0) -> int:
    """While this process's resident memory is over :data:`GUARD`'s limit, drop the data cache's least recently
    used entries (anything computed can be computed again) and return what they freed to the system; how many
    entries were dropped.  The uploads stay: they are the user's files, within their own budget.  An entry a
    session still holds frees nothing, so the cache may empty while the sessions' own data keeps the process
    over: the excess is then the sessions', which the cache no longer adds to.  ``need_bytes``: what a
    computation about to start will hold at its peak (:func:`make_room`), counted as if already held."""
    limit = GUARD.limit_bytes
    if limit is None or not GUARD.lock.acquire(blocking=False):  # one guard at a time; the other finds it done
        return 0
    store = COMPUTED if store is None else store
    dropped = 0
    relieve = GUARD.relieve
    try:
        now = rss()
        if now is not None and now + need_bytes > limit:
            # first what is free already: the allocator keeps what finished work freed (a pool build's
            # temporaries) until it is trimmed, and the resident memory counts it
            gc.collect()
            return_freed_memory()
        while (now := rss()) is not None and now + need_bytes > limit:
            if store.drop_oldest(GUARD.grace_s):
                dropped += 1
            elif relieve is not None:
                # nothing left the grace lets go of: what closed pages hold goes now, not once they can no
                # longer reconnect, and with it the entries only they used (a page that reconnects finds its
                # work through the uploads and computes it again, as a reload does)
                released, relieve = relieve(store), None
                GUARD.relieved += released
                if not released:
                    break
            else:
                break
            gc.collect()  # what of the entry refers to itself goes now, not at the next full collection
            return_freed_memory()
        GUARD.dropped += dropped
    finally:
        GUARD.lock.release()
    return dropped


def make_room(need_bytes: int, rss: Callable[[], int | None] = resident_bytes, store: BoundedStore | None = None) -> int:
    """Before a computation that will hold about ``need_bytes`` at its peak (a rule pool's build, the default
    budgets' validation), let the data cache give way until the process has that room within its limit: the
    guard otherwise acts only when an entry is kept, after the peak (a load of a 41.5 MB table with decimal
    fractions went 25 MB over the limit so, ``scripts/upload_memory.py --fractions``); how many entries went."""
    before = (GUARD.dropped, GUARD.relieved)
    dropped = keep_within_limit(rss, store, need_bytes=max(0, int(need_bytes)))
    if (GUARD.dropped, GUARD.relieved) != before:
        GUARD.room_made += 1
    return dropped


#: one computation that makes room at a time (:func:`room_to_work`)
_ROOM_WORK = threading.Lock()
#: seconds between two looks, while a computation waits for :func:`room_to_work`, at whether it is still wanted
ROOM_POLL_S = 0.2


@contextlib.contextmanager
def room_to_work(need_bytes: int, rss: Callable[[], int | None] = resident_bytes, store: BoundedStore | None = None):
    """Run a computation that holds about ``need_bytes`` at its peak (a rule pool's build, the default budgets'
    validation) as the only one of its kind in the server: wait for the one under way to end, then
    :func:`make_room`.

    Why: each made room for its own peak alone, so two at once went over the limit together.  Six 41.8 MB
    uploads from pages opened and closed in turn (``scripts/upload_memory.py --sessions --fractions``), where a
    closed page's build goes on for the 10 s before it is cancelled beside the next page's, peaked at
    1,788-2,009 MB against a budget of 1,342 MB between the measures, while every measure after a load was
    within; one at a time (and with their room measured as resident memory), 1,322-1,872 MB: less, and still
    over (what the rest is: ``docs/dashboard.md``, *Between the measures*).  On two cores a second build would
    only have shared the CPU with the first.  A computation
    waiting here ends with :class:`~explainer.rules.pool.BuildCancelled` once no page wants it
    (:data:`~explainer.rules.pool.BUILD_STOP`); it holds the lock only while it computes, so a cancelled one
    frees it at its next check.
    """
    while not _ROOM_WORK.acquire(timeout=ROOM_POLL_S):
        check_build_stop()
    try:
        make_room(need_bytes, rss, store)
        yield
    finally:
        _ROOM_WORK.release()


#: seconds between two of the server's own full garbage collections (:func:`collect_garbage`)
COLLECT_EVERY_S = 5.0


def collect_garbage() -> None:
    """A full collection of the garbage collector, a housekeeping task of its own (every
    :data:`COLLECT_EVERY_S` seconds): Streamlit's own collection after every script run is turned off
    (``runner.postScriptGC`` in ``.streamlit/config.toml``, where the reason is), and what the interpreter's
    own collections leave (objects that refer to each other and have lived long) goes here, before the memory
    is handed back to the system."""
    gc.collect()


def start_housekeeping(*tasks: Callable[[], object], every_s: float = RETURN_EVERY_S,
                       stop: threading.Event | None = None) -> threading.Thread:
    """A daemon thread that, every ``every_s`` seconds until ``stop`` is set (the server's: never), runs
    ``tasks`` (each guarded: one that fails is logged and the others still run) and then
    :func:`return_freed_memory`, so that what the tasks freed goes back to the system at once."""
    stop = stop or threading.Event()

    def loop():
        while not stop.wait(every_s):
            for task in tasks:
                try:
                    task()
                except Exception:  # housekeeping must never end the server's thread
                    _LOG.exception("housekeeping task %s failed", getattr(task, "__name__", task))
            return_freed_memory()

    thread = threading.Thread(target=loop, name="explainer-housekeeping", daemon=True)
    thread.start()
    return thread


#: uploaded files (so that a reload or a shared link can restore them)
UPLOADS = BoundedStore(_budget("EXPLAINER_UPLOAD_CACHE_MB", 256), idle_seconds=3600)
#: what is computed from data: tables as read, prepared data sets, splits, rule pools, reports
COMPUTED = BoundedStore(_budget("EXPLAINER_DATA_CACHE_MB", 768), idle_seconds=1800)
