"""Session life: the data in the session, the URL's query parameters, jobs, and the setup every page runs first.

Every page script starts with :func:`setup`: page config, the one-time
restore of the settings from the URL (a reload or a shared link), widget
values kept across pages, the default sample, the sidebar (navigation,
current data, run status) and, at the end of the run, the URL brought up to
date with the settings.  The values themselves are read and written through
:class:`.session.Session`.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import streamlit as st

from explainer.app import jobs, kept_runs, steps
from explainer.app.alternatives import K_MAX
from explainer.app.caching import (
    COLLECT_EVERY_S,
    arrow_through_system_allocator,
    collect_garbage,
    guard_memory,
    keep_within_limit,
    map_large_blocks_apart,
    start_housekeeping,
)
from explainer.app.closed_sessions import (
    cancel_unwatched_work,
    log_held_memory,
    release_closed_sessions,
    release_inactive_sessions,
    remember_session,
)
from explainer.app.session import DATA_BOUND, POOL_BOUND, Session, Slot, persist_widgets
from explainer.app.sources import (
    Source,
    dataset_key,
    digest,
    failure_message,
    keep_upload,
    prepare_source,
    read_source,
    sample_choices,
    source_from_ref,
    table_key,
    try_load,
)
from explainer.app.text import label, md_escape
from explainer.pipeline.validation import SIZES
from explainer.report.figures import fitness_figure
from explainer.rules.render import counted
from explainer.selection.result import status_note
from explainer.selection.solvers import available

#: The pages, in navigation order: (script, label, icon).  Drawn with ``st.page_link`` rather than
#: ``st.navigation``: the latter makes the entry script a router, so the Data page would leave
#: ``app.py`` for a file of its own, while the design keeps ``app.py`` as the Data page and
#: ``pages/`` as Streamlit's multipage folder (one thin script per page).
PAGES = [
    ("app.py", "Data", ":material/table_chart:"),
    ("pages/1_Explain.py", "Explain", ":material/psychology:"),
    ("pages/2_Rules.py", "Rules", ":material/rule:"),
    ("pages/3_Compare.py", "Compare", ":material/compare_arrows:"),
    ("pages/4_Export.py", "Export", ":material/download:"),
]
PAGE_FILES = {name: path for path, name, _ in PAGES}

SOURCE_KINDS = {"sample": "Bundled sample", "paper": "Paper data set", "upload": "Upload a CSV"}

#: the class weights a run may use (the Explain page's choice; "none": every row counts 1)
CLASS_WEIGHT_CHOICES = ("none", "balanced")

#: URL parameter -> (session value, type, what a valid value is) of the settings kept in the URL.
URL_SETTINGS: dict[str, tuple[Slot[Any], Callable[[str], Any], Callable[[Any], bool]]] = {
    "depth": (Session.pool_depth, int, lambda v: 2 <= v <= 10),
    "trees": (Session.pool_source, str, lambda v: v in ("grid", "forest")),
    "repeats": (Session.pool_repeats, int, lambda v: 1 <= v <= 10),
    "pool_seed": (Session.pool_seed, int, lambda v: 0 <= v < 2**31),
    "holdout": (Session.pool_holdout, float, lambda v: 0 <= v <= 0.5),
    "size": (Session.size, str, lambda v: v in SIZES),
    "bc": (Session.bc, int, lambda v: v >= 1),
    "be": (Session.be, int, lambda v: v >= 0),
    "eps": (Session.eps, float, lambda v: 0 <= v <= 10),
    "alg": (Session.algorithm, str, lambda v: bool(v)),  # an unknown name falls back to the default on Explain
    "seed": (Session.seed, int, lambda v: 0 <= v < 2**31),
    "cw": (Session.class_weight, str, lambda v: v in CLASS_WEIGHT_CHOICES),
    "alts": (Session.alt_k, int, lambda v: 1 <= v <= K_MAX),  # the other explanations nearly as good: how many
    "within": (Session.alt_within, float, lambda v: 0 <= v <= 100),  # ... within how many points
    "group": (Session.group_by, str, lambda v: bool(v)),  # the Rules page's accuracy by group (a column)
}
LIST_PARAMS = ("categorical", "exclude", "keep")
#: URL parameter of the columns kept out of the rules (one value per column, as the lists above)
FORBID_PARAM = "forbid"
#: URL parameter -> the rule texts it repeats (the Rules page's pins and bans, and its kept edits of rules)
RULE_PARAMS = {"pin": Session.pinned_rules, "ban": Session.banned_rules, "rule": Session.edited_rules}


def file_id(source: Source) -> str:
    """What the Data page's column widgets of ``source`` are keyed by (see :meth:`Session.column_key`)."""
    return digest(source.ident.encode())[:12]


def target_key(source: Source) -> str:
    """Widget key of the Data page's target choice for ``source``."""
    return Session.column_key("target", file_id(source))


# --------------------------------------------------------------------------- data in the session


def _stop(job) -> None:
    if job is not None and not job.done:
        job.stop()


def forget_results(state: Session) -> None:
    """Drop the last run's result and error (they belong to another pool, or a run has replaced them)."""
    state.forget(Session.explanation, Session.explanation_data, Session.run_settings, Session.run_error,
                 Session.run_note, Session.rule_edits, Session.replaced_result)


def replace_results(state: Session) -> None:
    """A new run starts: the result shown goes, put aside until the run ends (see :func:`collect_finished`)."""
    replaced = (state.explanation, state.explanation_data, state.run_settings) \
        if state.explanation is not None else None
    forget_results(state)
    if replaced is not None:
        state.replaced_result = replaced


def forget_pool_results(state: Session) -> None:
    """Drop what was computed from the pool (the runs' results, the frontier), stopping what still runs."""
    if state.frontier is not None:
        _stop(state.frontier.job)
    _stop(state.job)
    forget_results(state)
    state.forget(*POOL_BOUND, Session.job)


def set_dataset(state: Session, dataset, source: Source, options: dict | None = None) -> None:
    """Make ``dataset`` the current data; what was computed on earlier data is dropped (held-out share too)."""
    old = state.dataset
    state.dataset = dataset
    state.data_label = source.title
    options = dict(options or {})
    state.data_ref = {
        "ref": source.ref,
        "ident": source.ident,
        "file": source.name if source.kind == "upload" else None,
        "target": options.get("target") or dataset.target,
        **{k: list(options.get(k) or []) for k in LIST_PARAMS},
    }
    if old is not None and old.fingerprint != dataset.fingerprint:
        forget_pool_results(state)
        _stop(state.compare_job)
        state.forget(*DATA_BOUND, Session.compare_job)


def load_into(state: Session, source: Source, **options) -> tuple[bool, str]:
    """Load ``source`` into ``state``; on bad input return (False, message) and keep the old data."""
    dataset, message = try_load(source, **options)
    if dataset is None:
        return False, message
    set_dataset(state, dataset, source, options)
    return True, ""


def _size(source: Source) -> str:
    size = len(source.data) if source.data is not None else None
    return f" ({size / 1e6:.1f} MB)" if size else ""  # the uploader's unit


def read_step(state: Session, source: Source):
    """The raw table of ``source`` (the Data page's preview), or None while a thread reads it (its status drawn
    here); raises DataError."""
    return steps.ready(
        state, "read", table_key(source), lambda: read_source(source),
        title=f"Reading the table{_size(source)} …",
        detail=f"{md_escape(source.title)}: its rows and columns as text, before any column is encoded.",
        done=lambda table, seconds: f"Table read in {seconds:.1f} s{_size(source)}",
    )


def request_load(state: Session, source: Source, **options) -> None:
    """Load data was pressed: ``source`` is read and encoded with ``options`` (see :func:`pending_load`)."""
    state.loading = {"source": source, "options": options}
    del state.data_error


def pending_load(state: Session, source: Source) -> str | None:
    """Carry on with the load :func:`request_load` asked for.

    Returns None (no load of ``source`` pending), ``"reading"`` (its status is drawn here: the page ends
    its run and is drawn again when the data is ready), ``"loaded"`` (the data is in the session) or
    ``"failed"`` (``state.data_error`` says why; the data loaded before stays).
    """
    pending = state.loading
    if pending is None or pending["source"].ident != source.ident:
        del state.loading  # another source is shown now: its own Load data starts afresh
        return None
    options = pending["options"]
    try:
        dataset = steps.ready(
            state, "load", dataset_key(source, **options),
            lambda: prepare_source(source, **options),
            title="Encoding the table …",
            detail="Every column checked and encoded: one-hot categories, 'is missing' indicators, "
                   "identifier-like columns left out, the target's classes.",
            done=lambda dataset, seconds: f"Table encoded in {seconds:.1f} s: {dataset.n_rows:,} rows, "
                                          f"{dataset.n_features} features",
        )
    except Exception as exc:
        del state.loading
        state.data_error = failure_message(exc)
        return "failed"
    if dataset is None:
        return "reading"
    del state.loading
    set_dataset(state, dataset, source, options)
    return "loaded"


def load_summary(state: Session, source: Source) -> None:
    """The collapsed line of the last load, while the data in use came from it (see :mod:`.steps`)."""
    ref = state.data_ref or {}
    if ref.get("ident") == source.ident:
        options = {"target": ref.get("target"), **{k: ref.get(k) or [] for k in LIST_PARAMS}}
        steps.summary(state, "load", dataset_key(source, **options))


def load_default_sample(state: Session, name: str = "iris") -> bool:
    """On a session's first run, load a bundled sample so the dashboard opens on real data."""
    if state.default_sample_tried or state.dataset is not None:
        return False
    state.default_sample_tried = True
    samples = {s.name: s for s in sample_choices()}
    source = samples.get(name) or next(iter(samples.values()), None)
    return source is not None and load_into(state, source)[0]


def remember_upload(state: Session, name: str, data: bytes) -> Source:
    """An uploaded data file: kept on the server by digest (for reloads) and as the session's upload."""
    source = keep_upload(name, data)
    state.upload = source
    return source


def collect_finished(state: Session) -> None:
    """Move the finished Explain-page run into ``state`` (once), and keep every finished run on the server.

    A failed run leaves no result on the page (the one before belonged to other settings), only its error.
    Kept on the server by pool and settings (:mod:`.kept_runs`), a run is shown again after a reload and
    lifts the frontier; so are the Compare page's runs.
    """
    _keep_compared(state)
    job = state.job
    if job is None or not job.done or job.collected:
        return
    job.collected = True
    explanation = job.explanations[0]
    replaced = state.replaced_result
    del state.replaced_result
    if explanation is not None:
        state.explanation = explanation
        state.explanation_data = job.dataset  # the rows it was computed on (training rows when some are held out)
        state.run_settings = job.settings
        del state.run_error
        kept_runs.keep_finished(state.pool_key, job.settings, explanation, job.dataset)
        return
    forget_results(state)
    kept_runs.forget_run(state.pool_key, job.settings)
    if job.errors[0] is None and replaced is not None:  # stopped before it began: the result before it stays
        state.explanation, state.explanation_data, state.run_settings = replaced
        state.run_note = STOPPED_BEFORE_BEGIN
    else:
        state.run_error = job.errors[0] or "The run was stopped before it began: nothing was computed."


def _keep_compared(state: Session) -> None:
    """The Compare page's finished runs, kept on the server (once) like the Explain page's."""
    job = state.compare_job
    if job is None or not job.done or job.collected:
        return
    job.collected = True
    for settings, explanation in zip(job.runs, job.explanations, strict=True):
        if explanation is not None:
            kept_runs.keep_finished(state.pool_key, settings, explanation, job.dataset)


#: What the Explain page says where a run stopped before it began left the result before it in place.
STOPPED_BEFORE_BEGIN = ("The run was stopped before it began: nothing was computed, so the result below is still "
                        "the one before it, at its own budgets.")

#: What the Explain page says where a run at its settings was started but its result never came back.
INTERRUPTED = "The run at these settings was interrupted by a reload; press **Run** to start it again."


def restore_kept_run(state: Session, settings) -> str | None:
    """Without a result in the session, the server's run at ``settings`` (a reload, a copied link):
    ``"restored"`` (its result is now the session's), ``"adopted"`` (it was still running, or ended without
    a page to collect it: its job is now the session's, watched or collected as if started here),
    ``"interrupted"`` (it started, and nothing of it is left) or None."""
    if state.explanation is not None or (state.job is not None and not state.job.done) or state.pool_key is None:
        return None
    found = kept_runs.kept(state.pool_key, settings)
    if isinstance(found, kept_runs.KeptRun):
        state.explanation = found.explanation
        state.explanation_data = found.dataset
        state.run_settings = found.settings
        del state.run_error
        return "restored"
    if not isinstance(found, kept_runs.Started):
        return None
    job = found.job()
    if job is None or job.collected or (job.done and job.explanations[0] is None):  # nothing of it to show
        return "interrupted"
    if job is state.job:  # this session's own (its collection comes first): nothing to take up
        return None
    job.adopt(state.alive())
    state.job = job
    del state.run_error
    return "adopted"


# --------------------------------------------------------------------------- the URL


def url_params(state: Session) -> dict:
    """The settings as query parameters (what a reload or a copied link restores)."""
    out: dict = {}
    ref = state.data_ref
    if ref:
        out["data"] = ref["ref"]
        if ref.get("file"):
            out["file"] = ref["file"]
        if ref.get("target"):
            out["target"] = str(ref["target"])
        for k in LIST_PARAMS:
            if ref.get(k):
                out[k] = [str(v) for v in ref[k]]
    for param, (slot, kind, _) in URL_SETTINGS.items():
        if state.has(slot):
            value = state.get(slot)
            out[param] = f"{value:g}" if kind is float else str(value)
    if state.pool_forbidden:
        out[FORBID_PARAM] = [str(c) for c in state.pool_forbidden]
    for param, slot in RULE_PARAMS.items():
        texts: list = state.get(slot) or []
        if texts:
            out[param] = list(texts)
    return out


def sync_url(state: Session) -> None:
    """Bring the URL's query parameters up to date (only when something changed)."""
    want = {k: (v if isinstance(v, list) else [v]) for k, v in url_params(state).items()}
    qp = st.query_params
    have = {k: qp.get_all(k) for k in qp.keys()}
    if have != want:
        qp.from_dict({k: (v if len(v) > 1 else v[0]) for k, v in want.items()})


def _note(state: Session, message: str) -> None:
    state.notices = [*(state.notices or []), message]


def restore_from_url(state: Session) -> None:
    """Once per session: take the settings from the URL (a reload or a shared link)."""
    if state.url_restored:
        return
    state.url_restored = True
    qp = st.query_params
    if not qp:
        return
    ignored = []
    for param, (slot, kind, valid) in URL_SETTINGS.items():
        raw = qp.get(param)
        if raw is None:
            continue
        try:
            value = kind(raw)
        except ValueError:
            value = None
        if value is None or not valid(value):
            ignored.append(f"{param}={raw}")
            continue
        state.put(slot, value)
    if ignored:
        _note(state, "The link's " + ", ".join(ignored) + " could not be used; the defaults stand.")
    for param, slot in RULE_PARAMS.items():  # rule texts: read against the pool of each run
        if qp.get_all(param):
            state.put(slot, list(dict.fromkeys(qp.get_all(param))))
    if "bc" in qp or "be" in qp:
        state.budgets_from_url = True
    if FORBID_PARAM in qp:  # names the data's columns: a name it lacks is left out when the pool is built
        state.pool_forbidden = list(dict.fromkeys(qp.get_all(FORBID_PARAM)))
    ref = qp.get("data")
    if not ref:
        return
    source = source_from_ref(ref)
    if source is None:
        if ref.startswith("upload:"):
            name = qp.get("file") or "the uploaded file"
            _note(state, f"The link refers to an uploaded file ({name}) that this server no longer holds: "
                         "please upload it again.")
            state.source_kind = SOURCE_KINDS["upload"]
        else:
            _note(state, f"The link refers to a data set this server does not have ({ref}).")
        return
    options: dict[str, Any] = {"target": qp.get("target") or source.default_target}
    for k in LIST_PARAMS:
        options[k] = qp.get_all(k)
    ok, message = load_into(state, source, **options)
    if not ok:  # the page opens on the default sample instead, and says why
        _note(state, "The data set of the link could not be loaded: " + message)
        return
    state.source_kind = SOURCE_KINDS[source.kind]
    if source.kind == "sample":
        state.sample = source.name
    elif source.kind == "paper":
        state.paper = source.name
    else:
        state.upload = source
    fid = file_id(source)
    state.set_value(target_key(source), state.dataset.target)
    for k in LIST_PARAMS:
        state.set_value(Session.column_key(k, fid), list(options[k]))


# --------------------------------------------------------------------------- page setup


@st.cache_resource(show_spinner=False)
def warm_up_server() -> threading.Thread:
    """Once per server, in the background: import the algorithms and start the worker processes' server."""

    def work():
        available()
        jobs.start_fork_server()
        map_large_blocks_apart()  # this process only: the workers come from the fork server, a new interpreter
        arrow_through_system_allocator()
        fitness_figure([{"generation": 0, "min": 0, "mean": 0, "max": 0}], 1)  # plotly's lazily loaded classes
        # The libraries' objects, some 200,000, live as long as the server: frozen, a full collection no
        # longer walks them (0.12-0.29 s each, several a second while a run is watched, measured at 32,561
        # rows: a Stop's page then waited for them).  Objects freed later are freed as before.
        gc.freeze()
        # the interpreter and its libraries, all loaded now, plus the caches' budgets; closed pages give way too
        guard_memory(relieve=release_inactive_sessions)
        start_housekeeping(release_closed_sessions, keep_within_limit, log_held_memory)
        # a collection every few seconds, not after every script run (several a second while a page waits)
        # and the work of pages just closed cancelled as often, not once they are released
        start_housekeeping(collect_garbage, cancel_unwatched_work, every_s=COLLECT_EVERY_S)

    thread = threading.Thread(target=work, name="explainer-warm-up", daemon=True)
    thread.start()
    return thread


def setup(page: str) -> Session:
    """What every page runs first; returns the session state."""
    st.set_page_config(
        page_title=f"{page} · Rule explainer",
        page_icon=str(Path(__file__).with_name("static") / "favicon.svg"),  # a data URL: no request leaves the machine
        layout="wide",
        initial_sidebar_state="expanded",
    )
    state = Session()
    warm_up_server()
    remember_session()
    restore_from_url(state)
    persist_widgets(state)
    load_default_sample(state)
    collect_finished(state)
    sync_url(state)
    sidebar(state, page)
    notice(state)
    return state


def sidebar(state: Session, page: str) -> None:
    with st.sidebar:
        for path, name, icon in PAGES:
            st.page_link(path, label=name, icon=icon)
        st.divider()
        dataset = state.dataset
        st.caption("Current data")
        if dataset is None:
            st.markdown("*nothing loaded yet*")
        else:
            st.text(state.data_label or dataset.name)
            st.caption(f"{dataset.n_rows:,} rows · {dataset.n_features:,} features · "
                       f"{counted(len(dataset.classes), 'class')}")
        explanation = state.explanation
        # one slot, drawn empty while there is no explanation (a run going on): the last one's lines
        # would otherwise stay there, greyed, until the run ends
        last = st.empty()
        if explanation is not None:
            r = explanation.result
            with last.container():
                st.caption("Last explanation")
                report = explanation.report
                st.text(f"{label(r.algorithm)}: {counted(r.n_rules, 'rule')} · {100 * report.accuracy:.1f}% accuracy · "
                        f"{100 * report.balanced_accuracy:.1f}% balanced · {100 * r.coverage_score:.1f}% coverage f*"
                        + (f" · {r.status}" if status_note(r.status) else ""))
        running = [("Explain", state.job), ("Compare", state.compare_job)]
        # the page that runs a job watches it itself (see .live); the sidebar reports the others
        running = [(name, job) for name, job in running if job is not None and not job.done and name != page]
        if running:
            run_status(running)


@st.fragment(run_every=1.0)
def run_status(running) -> None:
    """The sidebar's run status; once every run has ended, a full rerun shows the results everywhere."""
    if all(job.done for _, job in running):
        st.rerun()
    for name, job in running:
        st.caption(f":material/autorenew: {md_escape(job.status_text())} ({name} page)")


def notice(state: Session) -> None:
    """Show what a link asked for that could not be restored, on every page until the analyst dismisses it
    (shown once, it was gone as soon as a finished step drew the page again)."""
    if not state.notices:
        return
    for message in state.notices:
        st.warning(md_escape(message), icon=":material/link_off:")
    st.button("Dismiss", key=Session.dismiss_notices.key, on_click=lambda: state.forget(Session.notices))


def start_job(state: Session, slot, runs) -> jobs.RunJob:
    """Start ``runs`` (:class:`~explainer.selection.settings.RunSettings`, one or a list) on the session's pool
    and data, replacing (and stopping) the job in ``slot``."""
    _stop(state.get(slot))
    split = state.split
    holdout = (split.X_test, split.y_test) if split is not None and split.X_test is not None else None
    data = split.train if split is not None else state.dataset
    job = jobs.RunJob(state.pool, data, runs, holdout=holdout, alive=state.alive())
    state.put(slot, job)
    if slot is Session.job:  # until collected, a reload at these settings takes the job up (or says it was lost)
        kept_runs.mark_started(state.pool_key, job.settings, job)
    job.start()
    return job
