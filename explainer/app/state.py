"""Session state, the URL's query parameters, and the setup every page runs first.

Every page script starts with :func:`setup`: page config, the one-time
restore of the settings from the URL (a reload or a shared link), widget
values kept across pages, the default sample, the sidebar (navigation,
current data, run status) and, at the end of the run, the URL brought up to
date with the settings.
"""

from __future__ import annotations

import threading

import streamlit as st

from explainer.app import jobs
from explainer.app.sources import (
    Source,
    digest,
    keep_upload,
    sample_sources,
    source_from_ref,
    try_load,
)
from explainer.app.text import label, md_escape
from explainer.selection.solvers import available

#: Session-state keys (widget keys start with ``w_`` and are kept across pages).
KEYS = {
    "dataset": "dataset",  # Dataset now loaded
    "data_label": "data_label",  # where it came from, for display
    "data_ref": "data_ref",  # {"ref", "ident", "file", "target", "categorical", "exclude", "keep"}
    "upload": "upload",  # Source of the last uploaded data file
    "pool": "pool",  # RulePool for the dataset and pool settings
    "pool_key": "pool_key",
    "pool_time": "pool_time",
    "budget_for": "budget_for",  # pool_key the budget widgets were initialised for
    "job": "job",  # Job of the Explain page (running or finished)
    "explanation": "explanation",  # last finished Explanation (Explain page)
    "run_settings": "run_settings",
    "compare_job": "compare_job",
    "frontier": "frontier",  # {"key", "range", "job", "result"} of the frontier beside the budgets
    "rules_upload": "rules_upload",  # {"name", "data"} of an uploaded rule file (Export page)
    "notice": "url_notice",  # what a link asked for that could not be restored
}

#: Session keys that hold computed state; cleared when another data set is loaded.
DATA_BOUND = ("pool", "pool_key", "pool_time", "budget_for", "explanation", "run_settings", "explanation_data",
              "split", "frontier")

#: The pages, in navigation order: (script, label, icon).
PAGES = [
    ("app.py", "Data", ":material/table_chart:"),
    ("pages/1_Explain.py", "Explain", ":material/psychology:"),
    ("pages/2_Rules.py", "Rules", ":material/rule:"),
    ("pages/3_Compare.py", "Compare", ":material/compare_arrows:"),
    ("pages/4_Export.py", "Export", ":material/download:"),
]
PAGE_FILES = {name: path for path, name, _ in PAGES}

SOURCE_KINDS = {"sample": "Bundled sample", "paper": "Paper data set", "upload": "Upload a CSV"}

#: URL parameter -> (session key, type, what a valid value is) of the settings kept in the URL.
URL_SETTINGS = {
    "depth": ("w_pool_depth", int, lambda v: 2 <= v <= 10),
    "trees": ("w_pool_source", str, lambda v: v in ("grid", "forest")),
    "repeats": ("w_pool_repeats", int, lambda v: 1 <= v <= 10),
    "pool_seed": ("w_pool_seed", int, lambda v: 0 <= v < 2**31),
    "holdout": ("w_pool_holdout", float, lambda v: 0 <= v <= 0.5),
    "bc": ("w_bc", int, lambda v: v >= 1),
    "be": ("w_be", int, lambda v: v >= 0),
    "eps": ("w_eps", float, lambda v: 0 <= v <= 10),
    "alg": ("w_algorithm", str, lambda v: bool(v)),  # an unknown name falls back to the default on Explain
    "seed": ("w_seed", int, lambda v: 0 <= v < 2**31),
}
LIST_PARAMS = ("categorical", "exclude", "keep")


def target_key(source: Source) -> str:
    """Widget key of the Data page's target choice for ``source``."""
    return f"w_target_{digest(source.ident.encode())[:12]}"


# --------------------------------------------------------------------------- data in the session


def set_dataset(state, dataset, source: Source, options: dict | None = None) -> None:
    """Make ``dataset`` the current data; results computed on earlier data are dropped."""
    old = state.get(KEYS["dataset"])
    state[KEYS["dataset"]] = dataset
    state[KEYS["data_label"]] = source.title
    options = dict(options or {})
    state[KEYS["data_ref"]] = {
        "ref": source.ref,
        "ident": source.ident,
        "file": source.name if source.kind == "upload" else None,
        "target": options.get("target") or dataset.target,
        **{k: list(options.get(k) or []) for k in LIST_PARAMS},
    }
    if old is None or old.fingerprint != dataset.fingerprint:
        frontier = state.get("frontier")
        if frontier is not None and frontier.get("job") is not None:
            frontier["job"].stop()
        for key in DATA_BOUND:
            state.pop(key, None)
        for key in (KEYS["job"], KEYS["compare_job"]):
            job = state.pop(key, None)
            if job is not None:
                job.stop()


def load_into(state, source: Source, **options) -> tuple[bool, str]:
    """Load ``source`` into ``state``; on bad input return (False, message) and keep the old data."""
    dataset, message = try_load(source, **options)
    if dataset is None:
        return False, message
    set_dataset(state, dataset, source, options)
    return True, ""


def load_default_sample(state, name: str = "iris") -> bool:
    """On a session's first run, load a bundled sample so the dashboard opens on real data."""
    if state.get("_default_sample_tried") or state.get(KEYS["dataset"]) is not None:
        return False
    state["_default_sample_tried"] = True
    samples = {s.name: s for s in sample_sources()}
    source = samples.get(name) or next(iter(samples.values()), None)
    return source is not None and load_into(state, source)[0]


def remember_upload(state, name: str, data: bytes) -> Source:
    """An uploaded data file: kept on the server by digest (for reloads) and as the session's upload."""
    source = keep_upload(name, data)
    state[KEYS["upload"]] = source
    return source


def collect_finished(state) -> None:
    """Move the finished Explain-page run into ``state`` (once); a failed run keeps the last result."""
    job = state.get(KEYS["job"])
    if job is None or not job.done or job.collected:
        return
    job.collected = True
    explanation = job.explanations[0]
    if explanation is not None:
        state[KEYS["explanation"]] = explanation
        state["explanation_data"] = job.dataset  # the rows it was computed on (training rows when some are held out)
        state[KEYS["run_settings"]] = dict(job.settings, algorithm=job.tasks[0].algorithm, seed=job.tasks[0].seed)


def persist_widget_state(state) -> None:
    """Keep widget values alive across page switches.

    Streamlit forgets the value of a widget that is not drawn in a run.  At the
    start of every run the values of the ``w_`` widgets are copied aside, and
    any that Streamlit dropped are put back, so a page finds its settings as
    it left them.  Pages also pass the remembered value as the widget's default
    (``value=`` / ``index=``): the browser re-creates a widget from its default,
    and without it a number field would come back at its minimum.
    """
    kept = state.setdefault("_kept_widgets", {})
    for key in list(state.keys()):
        if isinstance(key, str) and key.startswith("w_"):
            kept[key] = state[key]
    for key, value in kept.items():
        if key not in state:
            state[key] = value


# --------------------------------------------------------------------------- the URL


def url_params(state) -> dict:
    """The settings as query parameters (what a reload or a copied link restores)."""
    out: dict = {}
    ref = state.get(KEYS["data_ref"])
    if ref:
        out["data"] = ref["ref"]
        if ref.get("file"):
            out["file"] = ref["file"]
        if ref.get("target"):
            out["target"] = str(ref["target"])
        for k in LIST_PARAMS:
            if ref.get(k):
                out[k] = [str(v) for v in ref[k]]
    for param, (key, kind, _) in URL_SETTINGS.items():
        if key in state:
            value = state[key]
            out[param] = f"{value:g}" if kind is float else str(value)
    return out


def sync_url(state) -> None:
    """Bring the URL's query parameters up to date (only when something changed)."""
    want = {k: (v if isinstance(v, list) else [v]) for k, v in url_params(state).items()}
    qp = st.query_params
    have = {k: qp.get_all(k) for k in qp.keys()}
    if have != want:
        qp.from_dict({k: (v if len(v) > 1 else v[0]) for k, v in want.items()})


def _note(state, message: str) -> None:
    state.setdefault(KEYS["notice"], []).append(message)


def restore_from_url(state) -> None:
    """Once per session: take the settings from the URL (a reload or a shared link)."""
    if state.get("_url_restored"):
        return
    state["_url_restored"] = True
    qp = st.query_params
    if not qp:
        return
    ignored = []
    for param, (key, kind, valid) in URL_SETTINGS.items():
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
        state[key] = value
    if ignored:
        _note(state, "The link's " + ", ".join(ignored) + " could not be used; the defaults stand.")
    if "bc" in qp or "be" in qp:
        state["_budgets_from_url"] = True
    ref = qp.get("data")
    if not ref:
        return
    source = source_from_ref(ref)
    if source is None:
        if ref.startswith("upload:"):
            name = qp.get("file") or "the uploaded file"
            _note(state, f"The link refers to an uploaded file ({name}) that this server no longer holds: "
                         "please upload it again.")
            state["w_source_kind"] = SOURCE_KINDS["upload"]
        else:
            _note(state, f"The link refers to a data set this server does not have ({ref}).")
        return
    options = {"target": qp.get("target") or source.default_target}
    for k in LIST_PARAMS:
        options[k] = qp.get_all(k)
    ok, message = load_into(state, source, **options)
    if not ok:  # the page opens on the default sample instead, and says why
        _note(state, "The data set of the link could not be loaded: " + message)
        return
    state["w_source_kind"] = SOURCE_KINDS[source.kind]
    if source.kind == "sample":
        state["w_sample"] = source.name
    elif source.kind == "paper":
        state["w_paper"] = source.name
    else:
        state[KEYS["upload"]] = source
    fid = target_key(source)[len("w_target_"):]
    state[target_key(source)] = state[KEYS["dataset"]].target
    for k, widget in (("categorical", "w_categorical_"), ("exclude", "w_exclude_"), ("keep", "w_keep_")):
        state[widget + fid] = list(options[k])


# --------------------------------------------------------------------------- page setup


@st.cache_resource(show_spinner=False)
def warm_up() -> threading.Thread:
    """Once per server, in the background: import the algorithms and start the worker processes' server."""

    def work():
        available()
        jobs.warm_up()

    thread = threading.Thread(target=work, name="explainer-warm-up", daemon=True)
    thread.start()
    return thread


def setup(page: str):
    """What every page runs first; returns the session state."""
    st.set_page_config(
        page_title=f"{page} · Rule explainer",
        page_icon=":material/account_tree:",
        layout="wide",
        initial_sidebar_state="expanded",
    )
    state = st.session_state
    warm_up()
    restore_from_url(state)
    persist_widget_state(state)
    load_default_sample(state)
    collect_finished(state)
    sync_url(state)
    sidebar(state, page)
    notice(state)
    return state


def sidebar(state, page: str) -> None:
    with st.sidebar:
        for path, name, icon in PAGES:
            st.page_link(path, label=name, icon=icon)
        st.divider()
        dataset = state.get(KEYS["dataset"])
        st.caption("Current data")
        if dataset is None:
            st.markdown("*nothing loaded yet*")
        else:
            st.text(state.get(KEYS["data_label"], dataset.name))
            st.caption(f"{dataset.n_rows} rows · {dataset.n_features} features · {len(dataset.classes)} classes")
        explanation = state.get(KEYS["explanation"])
        if explanation is not None:
            st.caption("Last explanation")
            r = explanation.result
            st.text(f"{label(r.algorithm)}: {r.n_rules} rules · {100 * r.coverage_score:.1f}% coverage")
        running = [(name, state.get(key)) for name, key in (("Explain", KEYS["job"]), ("Compare", KEYS["compare_job"]))]
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


def notice(state) -> None:
    """Show (once) what a link asked for that could not be restored."""
    for message in state.pop(KEYS["notice"], None) or []:
        st.warning(md_escape(message), icon=":material/link_off:")


def start_job(state, key: str, tasks: list, *, complexity_budget, error_budget, eps,
              algorithm_params: dict | None = None) -> jobs.Job:
    """Start a run of ``tasks`` on the session's pool and data, replacing (and stopping) the job at ``key``."""
    old = state.get(key)
    if old is not None and not old.done:
        old.stop()
    split = state.get("split")
    holdout = (split.X_test, split.y_test) if split is not None and split.X_test is not None else None
    data = split.train if split is not None else state[KEYS["dataset"]]
    job = jobs.Job(state[KEYS["pool"]], data, tasks, complexity_budget=complexity_budget,
                   error_budget=error_budget, eps=eps, algorithm_params=algorithm_params, holdout=holdout)
    state[key] = job
    return job.start()
