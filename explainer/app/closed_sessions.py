"""What a closed page leaves in the server, released once the page can no longer come back to it.

Streamlit keeps a closed page's session for a reconnection (``server.disconnectedSessionTTL``, 120 s by
default) in a cache that, when that time is up, drops the session without shutting it down: its uploaded
files stay in the server's uploaded-file store for as long as the server lives, its download buttons'
files stay referenced, and its state (the data set, the explanation) stays until that cache is next
written to, which may be never.  Six 41.5 MB uploads from pages opened and closed in turn left the server
about 900 MB above the caches' budgets 150 s after the last page closed (``scripts/upload_memory.py``).

Every page run remembers its session (:func:`remember_session`).  A periodic check
(:func:`release_closed_sessions`) releases what a remembered session holds once it has been inactive for
longer than it could reconnect: its uploaded files and media files, as Streamlit's own shutdown of a
session removes them, and the values of its state.  A page reloaded or reopened later starts a new
session, which finds its work again through the server's caches (the link carries the settings).
"""

from __future__ import annotations

import gc
import json
import os
import threading
import time
import types
from dataclasses import dataclass
from typing import Any, Protocol

import pandas as pd
from streamlit import config, runtime
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from explainer.app import steps
from explainer.app.caching import (
    COMPUTED,
    GUARD,
    MB,
    UPLOADS,
    BoundedStore,
    c_allocator_mb,
    resident_bytes,
)
from explainer.app.kept_runs import is_run_key
from explainer.app.session import Session

#: seconds added to Streamlit's reconnection window before a session counts as gone: the check runs
#: periodically, so a session is released between this margin and the margin plus the check's period late
MARGIN_S = 30.0
#: seconds a page may be closed before the work only it wanted is cancelled (:func:`cancel_unwatched_work`)
UNWATCHED_S = 10.0


class _State(Protocol):
    """A session's state, as Streamlit's ``SafeSessionState`` offers it."""

    @property
    def filtered_state(self) -> dict[str, Any]: ...

    def __delitem__(self, key: str) -> None: ...


class _Uploads(Protocol):
    """The server's uploaded-file store, which keys a session's files by its id."""

    def remove_session_files(self, session_id: str) -> None: ...


@dataclass
class _Seen:
    state: _State  # its values are dropped on release
    uploads: _Uploads
    inactive_since: float | None = None


_SEEN: dict[str, _Seen] = {}
_LOCK = threading.Lock()
_released = 0  # sessions released since the server started
#: the data marks (:func:`data_marks`) of the sessions released once they could no longer reconnect, whose cache
#: entries :func:`release_inactive_sessions` forgets next, if no session works with that data by then
_LEFT: set[str] = set()


def remember_session() -> None:
    """Remember the session of the page now running (nothing outside a Streamlit server)."""
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None or not runtime.exists():
        return
    with _LOCK:
        seen = _SEEN.get(ctx.session_id)
        if seen is None:
            _SEEN[ctx.session_id] = _Seen(ctx.session_state, ctx.uploaded_file_mgr)
        else:
            seen.state, seen.inactive_since = ctx.session_state, None


def reconnect_window_s() -> float:
    """How long Streamlit lets a closed page's session be reconnected to, in seconds."""
    return float(config.get_option("server.disconnectedSessionTTL") or 0)


def _server_parts(is_active, media, tables):
    """(is_active, media, tables), each the running server's where not given; None outside a server."""
    if is_active is None or media is None:
        if not runtime.exists():
            return None
        server = runtime.get_instance()
        is_active = is_active or server.is_active_session
        media = media or server.media_file_mgr
        tables = tables or getattr(server, "dataframe_source_mgr", None)
    return is_active, media, tables


def release_closed_sessions(now: float | None = None, is_active=None, media=None, tables=None) -> list[str]:
    """Release what the remembered sessions that can no longer reconnect hold; their ids.

    A session not active at a check is marked; at a later check, once marked longer than the reconnection
    window plus :data:`MARGIN_S`, its uploaded files and media files are removed and its state's values
    dropped.  ``is_active``, ``media`` (the server's media file store) and ``tables`` (its store of the tables
    ``st.dataframe`` serves in pieces, where the Streamlit version has one) default to the running server's.
    """
    global _released
    now = time.monotonic() if now is None else now
    parts = _server_parts(is_active, media, tables)
    if parts is None:
        return []
    is_active, media, tables = parts
    window = reconnect_window_s() + MARGIN_S
    gone = []
    with _LOCK:
        for session_id, seen in list(_SEEN.items()):
            if is_active(session_id):
                seen.inactive_since = None
            elif seen.inactive_since is None:
                seen.inactive_since = now
            elif now - seen.inactive_since > window:
                gone.append((session_id, _SEEN.pop(session_id)))
        _LEFT.update(*(data_marks(seen.state.filtered_state) for _, seen in gone))
        theirs = set(_LEFT) - _marks_in_use()
    for session_id, seen in gone:
        _release(session_id, seen, media, tables)
    _released += len(gone)
    _cancel_their_work(theirs)
    return [session_id for session_id, _ in gone]


def _marks_in_use() -> set[str]:
    """The data marks of the sessions still remembered (call with ``_LOCK`` held)."""
    return set().union(*(data_marks(seen.state.filtered_state) for seen in _SEEN.values()))


def _cancel_their_work(marks: set[str]) -> int:
    """Cancel the steps computing for data only released sessions had (:func:`.steps.cancel_where`): a pool of a
    364,035-row table takes half a minute and 600 MB to build, for a page that is gone."""
    return steps.cancel_where(lambda key: _mentions(key, marks)) if marks else 0


def cancel_unwatched_work(now: float | None = None, is_active=None) -> int:
    """Cancel the steps computing for data that only closed pages work with (remembered sessions inactive for
    at least :data:`UNWATCHED_S`: a reload's new page has asked for its data by then); how many.  The sessions
    themselves stay, for a reconnection: a page that comes back and asks for such a value starts its step again
    (:func:`.steps.start`).  Why not wait for the release: pages opened and closed in turn, each loading a
    41.5 MB table, left the closed pages' pool builds and default budgets computing beside the new page's, two
    pools in memory outside the caches and the server at 1,619 MB against its limit of 1,340
    (``scripts/upload_memory.py --fractions``)."""
    now = time.monotonic() if now is None else now
    if is_active is None:
        if not runtime.exists():
            return 0
        is_active = runtime.get_instance().is_active_session
    watched: set[str] = set()
    closed: set[str] = set()
    with _LOCK:
        for session_id, seen in _SEEN.items():
            if is_active(session_id):
                seen.inactive_since = None
            elif seen.inactive_since is None:
                seen.inactive_since = now  # noticed now; the release counts its window from here too
            marks = data_marks(seen.state.filtered_state)
            if seen.inactive_since is None or now - seen.inactive_since < UNWATCHED_S:
                watched |= marks
            else:
                closed |= marks
    return _cancel_their_work(closed - watched)


def release_inactive_sessions(store: BoundedStore | None = None, is_active=None, media=None, tables=None) -> int:
    """Release now every remembered session that is not active (its page closed, or between two
    reconnections), and forget from ``store`` (the data cache) every entry computed for data that only
    sessions released (now, or earlier once they could no longer reconnect) had, finished runs apart: the
    server's memory guard
    does so when its caches have nothing left to give (:func:`.caching.keep_within_limit`), rather than let
    closed pages keep the server over its limit until they can no longer reconnect, and their entries until
    they are old.  A page that does reconnect finds its table through the uploads cache and its settings in
    its link, and computes the rest again, as a reload does.  How many sessions and entries it let go.
    """
    global _released
    parts = _server_parts(is_active, media, tables)
    if parts is None:
        return 0
    is_active, media, tables = parts
    with _LOCK:
        gone = [(i, _SEEN.pop(i)) for i in [i for i in _SEEN if not is_active(i)]]
        kept = _marks_in_use()
        theirs = _LEFT.union(*(data_marks(seen.state.filtered_state) for _, seen in gone)) - kept
        _LEFT.clear()
    for session_id, seen in gone:
        _release(session_id, seen, media, tables)
    _released += len(gone)
    _cancel_their_work(theirs)
    # finished runs stay: they are the user's work, which a reload of the page shows again (their data set with
    # them, while they are kept); the rest of their data can be computed again
    forgotten = (store.discard_where(lambda key: not is_run_key(key) and _mentions(key, theirs))
                 if store is not None and theirs else 0)
    return len(gone) + forgotten


def data_marks(values) -> set[str]:
    """The marks of the data a session's state (its values by key) works with: the identities of its table and
    upload and the fingerprints of its data sets, which the data cache's keys carry."""
    state = Session(dict(values))
    marks = {(state.data_ref or {}).get("ident"), getattr(state.upload, "ident", None),
             getattr(state.dataset, "fingerprint", None), getattr(getattr(state.split, "train", None), "fingerprint", None),
             (state.pool_key or (None,))[0]}
    return {m for m in marks if isinstance(m, str) and m}


def _mentions(key, marks: set[str]) -> bool:
    """Whether a cache key (a tuple, maybe nested) holds one of ``marks``."""
    if isinstance(key, str):
        return key in marks
    return isinstance(key, tuple) and any(_mentions(part, marks) for part in key)


def _release(session_id: str, seen: _Seen, media, tables=None) -> None:
    """What Streamlit's shutdown of a session removes (its uploaded files, its media files, the tables its
    ``st.dataframe`` elements serve in pieces), and the values of its state."""
    seen.uploads.remove_session_files(session_id)
    media.clear_session_refs(session_id)
    media.remove_orphaned_files()
    if tables is not None:
        tables.clear_all_for_session(session_id)
    state = seen.state
    for key in list(state.filtered_state):
        try:
            del state[key]
        except (KeyError, AttributeError, ValueError):  # a widget's value Streamlit will not let go of
            pass


def _kinds(keys) -> dict:
    """How many cache entries of each kind (a key's first part, when it is a word) the keys hold."""
    counts: dict = {}
    for key in keys:
        kind = key[0] if isinstance(key, tuple) and key and isinstance(key[0], str) else type(key).__name__
        counts[kind] = counts.get(kind, 0) + 1
    return counts


def held_memory() -> dict:
    """What the server holds, in MB where a size: the caches' estimates, the files Streamlit keeps for uploads,
    the pandas tables alive (their columns' memory, shared columns counted once per table), and the sessions
    remembered and active.  A diagnostic: it walks the garbage collector's objects (a fraction of a second)."""
    rss = resident_bytes()
    out: dict = {"resident_mb": None if rss is None else rss / MB,
                 "limit_mb": None if GUARD.limit_bytes is None else GUARD.limit_bytes / MB,
                 "guard_dropped": GUARD.dropped, "guard_relieved": GUARD.relieved, "guard_room_made": GUARD.room_made,
                 "uploads_cache_mb": UPLOADS.total_bytes / MB, "data_cache_mb": COMPUTED.total_bytes / MB,
                 "data_cache_kinds": _kinds(key for key, _ in COMPUTED.items())}
    try:
        import pyarrow
        out["arrow_mb"] = pyarrow.total_allocated_bytes() / MB  # the pool in use (the system's, on the server)
    except ImportError:
        pass
    if runtime.exists():
        server = runtime.get_instance()
        files = getattr(server.uploaded_file_mgr, "file_storage", {})  # the in-memory store's files by session
        out["streamlit_upload_files_mb"] = sum(len(f.data) for by_id in list(files.values())
                                               for f in list(by_id.values())) / MB
        with _LOCK:
            ids = list(_SEEN)
        out["sessions_remembered"], out["sessions_released"] = len(ids), _released
        out["sessions_active"] = sum(bool(server.is_active_session(i)) for i in ids)
    frames = [o for o in gc.get_objects() if isinstance(o, pd.DataFrame)]
    sizes = [int(f.memory_usage(index=True, deep=False).sum()) for f in frames]
    out["dataframes"] = len(frames)
    out["dataframes_mb"] = sum(sizes) / MB
    allocator = c_allocator_mb()
    if allocator is not None:
        out.update({f"malloc_{k}_mb": v for k, v in allocator.items()})
    big = [i for i, size in enumerate(sizes) if size >= 20 * MB]
    out["large_dataframes_held_by"] = [_chain(frames[i], frames, depth=1) for i in big]
    from explainer.rules.pool import RulePool

    pools = [o for o in gc.get_objects() if isinstance(o, RulePool)]
    out["pools_held_by"] = [_chain(p, pools) for p in pools]
    return out


def _chain(obj, ours: list, depth: int = 2) -> str:
    """What refers to ``obj`` and, ``depth`` steps up, to those (``ours``, the caller's list, and this account's
    own frames apart): type names, a function by its name, a frame by its function, an attribute dictionary by
    its owner's type."""
    if depth == 0:
        return ""
    parts = []
    for ref in gc.get_referrers(obj):
        if ref is ours or isinstance(ref, types.FrameType) and ref.f_code.co_name in ("_chain", "held_memory"):
            continue
        if isinstance(ref, list) and len(ref) >= 100_000:  # gc's own list of every object
            continue
        if isinstance(ref, dict):
            owners = [type(o).__name__ for o in gc.get_referrers(ref) if getattr(o, "__dict__", None) is ref]
            name = f"{owners[0]}.__dict__" if owners else "dict"
        elif isinstance(ref, types.FunctionType):
            name = f"function {ref.__qualname__}"
        elif isinstance(ref, types.FrameType):
            name = f"frame {ref.f_code.co_name}"
        else:
            name = type(ref).__name__
        up = _chain(ref, ours, depth - 1) if not isinstance(ref, types.FrameType) else ""
        parts.append(f"{name}<{up}>" if up else name)
    return ", ".join(sorted(set(parts)))[:600]


#: where :func:`log_held_memory` appends a line (JSON) at each round of the server's housekeeping; unset, nothing
MEMORY_LOG_ENV = "EXPLAINER_MEMORY_LOG"


def log_held_memory() -> None:
    """Append :func:`held_memory` (and the time) as one JSON line to the file :data:`MEMORY_LOG_ENV` names."""
    path = os.environ.get(MEMORY_LOG_ENV)
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"time": time.time(), **held_memory()}) + "\n")


def remembered() -> list[str]:
    """The ids of the sessions remembered and not released yet."""
    with _LOCK:
        return list(_SEEN)


__all__ = ["MARGIN_S", "MEMORY_LOG_ENV", "data_marks", "held_memory", "log_held_memory", "reconnect_window_s",
           "release_closed_sessions", "release_inactive_sessions", "remember_session", "remembered"]
