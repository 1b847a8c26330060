"""Shared logic of the Streamlit dashboard (``app.py`` and ``app_pages/``).

Everything here goes through the public ``explainer`` API: data intake, the rule
pool, :func:`~explainer.pipeline.explain_pool`, reports and exports.  The pages
keep their state in ``st.session_state`` under the keys listed in :data:`KEYS`;
long computations are cached (:func:`cached_pool`, :func:`cached_table`) and
selection runs happen in a background thread (:class:`Job`) that the pages poll.

No user-supplied string (column name, class label, rule text) is ever rendered
as HTML: tables, metrics and plotly charts escape their content.
"""

from __future__ import annotations

import hashlib
import io
import pathlib
import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots

from .callbacks import Callback, Recorder, StopFlag
from .data import (
    PAPER_DATASETS,
    DataError,
    Dataset,
    load_dataset,
    read_table,
    sample_datasets,
    shared_data_dir,
)
from .figures import PLOT_COLORS, fitness_figure, thin  # noqa: F401 - the pages draw through this module
from .pipeline import Explanation, explain_pool
from .pool import RulePool, build_pool
from .report import RuleSetReport, evaluate_rules, rules_for_data
from .rules import parse_rules
from .solvers import ALGORITHMS, LABELS, available, get_solver_class

# --------------------------------------------------------------------------- state

#: Session-state keys (widget keys start with ``w_`` and are kept across pages by app.py).
KEYS = {
    "dataset": "dataset",  # Dataset now loaded
    "data_label": "data_label",  # where it came from, for display
    "upload": "upload",  # {"name", "data", "digest"} of the last uploaded data file
    "pool": "pool",  # RulePool for the dataset and pool settings
    "pool_key": "pool_key",
    "pool_time": "pool_time",
    "budget_for": "budget_for",  # pool_key the budget widgets were initialised for
    "job": "job",  # Job of the Explain page (running or finished)
    "explanation": "explanation",  # last finished Explanation (Explain page)
    "run_settings": "run_settings",
    "compare_job": "compare_job",
    "rules_upload": "rules_upload",  # {"name", "data"} of an uploaded rule file (Export page)
}

#: Session keys that hold computed state; cleared when another data set is loaded.
DATA_BOUND = ("pool", "pool_key", "pool_time", "budget_for", "explanation", "run_settings")

PALETTE = ["#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#eeca3b", "#b279a2", "#ff9da6", "#9d755d"]


def persist_widget_state(state=None) -> None:
    """Keep widget values alive across page switches.

    Streamlit forgets the value of a widget that is not drawn in a run.  At the
    start of every run the values of the ``w_`` widgets are copied aside, and
    any that Streamlit dropped are put back, so a page finds its settings as
    it left them.  Pages also pass the remembered value as the widget's default
    (``value=`` / ``index=``): the browser re-creates a widget from its default,
    and without it a number field would come back at its minimum.
    """
    state = st.session_state if state is None else state
    kept = state.setdefault("_kept_widgets", {})
    for key in list(state.keys()):
        if isinstance(key, str) and key.startswith("w_"):
            kept[key] = state[key]
    for key, value in kept.items():
        if key not in state:
            state[key] = value


@st.cache_resource(show_spinner=False)
def warm_up() -> threading.Thread:
    """Import the algorithm modules in the background once per server, before the Explain page needs them."""
    thread = threading.Thread(target=available, name="explainer-warm-up", daemon=True)
    thread.start()
    return thread


def algorithm_choices() -> list[str]:
    """Registered algorithms that import, QGA first."""
    names = available()
    return sorted(names, key=lambda n: (n != "qga", list(ALGORITHMS).index(n)))


def label(name: str) -> str:
    return LABELS.get(name, name)


def missing_algorithms() -> list[str]:
    have = set(available())
    return [n for n in ALGORITHMS if n not in have]


def algorithm_parameters(name: str) -> dict[str, Any]:
    """The simple (int, float, bool) parameters of an algorithm and their defaults.

    A parameter whose default is ``"auto"`` (sized from the instance) appears as 0,
    which the page labels "0 = auto" and never passes on unless changed.
    """
    import inspect

    try:
        signature = inspect.signature(get_solver_class(name).__init__)
    except (ImportError, ValueError, TypeError):
        return {}
    out = {}
    for param in signature.parameters.values():
        if param.name == "self" or param.default is inspect.Parameter.empty:
            continue
        if isinstance(param.default, bool | int | float) and not isinstance(param.default, complex):
            out[param.name] = param.default
        elif param.default == "auto":
            out[param.name] = 0
    return out


def default_algorithm(choices: list[str]) -> str | None:
    for name in ("qga", "rfhc", "greedy"):
        if name in choices:
            return name
    return choices[0] if choices else None


# --------------------------------------------------------------------------- data


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Source:
    """A data source the Data page can read: a bundled sample, a paper data set or an upload."""

    kind: str  # "sample" | "paper" | "upload"
    name: str
    path: str | None = None
    data: bytes | None = field(default=None, repr=False, compare=False)
    digest: str | None = None
    default_target: str | None = None

    @property
    def ident(self) -> str:
        return f"{self.kind}:{self.name}:{self.digest or self.path}"

    @property
    def title(self) -> str:
        if self.kind == "paper":
            return PAPER_DATASETS.get(self.name, {}).get("title", self.name) + " (paper data set)"
        if self.kind == "sample":
            return f"{self.name} (bundled sample)"
        return f"{self.name} (uploaded)"

    def reader_input(self):
        if self.data is not None:
            buf = io.BytesIO(self.data)
            buf.name = self.name
            return buf
        return self.path


def sample_sources() -> list[Source]:
    return [Source("sample", name, str(path)) for name, path in sample_datasets().items()]


def paper_sources() -> list[Source]:
    directory = shared_data_dir()
    if directory is None or not directory.is_dir():
        return []
    out = []
    for name, spec in PAPER_DATASETS.items():
        path = directory / spec["file"]
        if path.is_file():
            out.append(Source("paper", name, str(path), default_target=spec["target"]))
    return out


def upload_source(name: str, data: bytes) -> Source:
    return Source("upload", name, data=data, digest=digest(data))


@st.cache_resource(show_spinner=False, max_entries=16)
def _read_table_cached(ident: str, _source: Source) -> pd.DataFrame:
    return read_table(_source.reader_input())


def cached_table(source: Source) -> pd.DataFrame:
    """The raw table of ``source`` (read once per source); raises DataError."""
    return _read_table_cached(source.ident, source)


@st.cache_resource(show_spinner=False, max_entries=16)
def _load_cached(ident: str, target, categorical, exclude, keep, _source: Source) -> Dataset:
    return load_dataset(
        _source.reader_input(),
        target=target,
        categorical=list(categorical),
        exclude=list(exclude),
        keep=list(keep),
        name=pathlib.PurePath(_source.name).stem or _source.name,
    )


def load_source(source: Source, target=None, categorical=(), exclude=(), keep=()) -> Dataset:
    """Prepare ``source`` with the column overrides; raises DataError with a readable message."""
    return _load_cached(
        source.ident, target, tuple(categorical), tuple(exclude), tuple(keep), source
    )


def load_upload(name: str, data: bytes, **options) -> Dataset:
    """Read an uploaded file given as bytes (what the Data page does with an upload)."""
    return load_source(upload_source(name, data), **options)


def set_dataset(state, dataset: Dataset, label_text: str) -> None:
    """Make ``dataset`` the current data; results computed on earlier data are dropped."""
    old = state.get(KEYS["dataset"])
    state[KEYS["dataset"]] = dataset
    state[KEYS["data_label"]] = label_text
    if old is None or old.fingerprint != dataset.fingerprint:
        for key in DATA_BOUND:
            state.pop(key, None)
        for key in (KEYS["job"], KEYS["compare_job"]):
            job = state.pop(key, None)
            if job is not None:
                job.stop()


def try_load(state, source: Source, **options) -> tuple[bool, str]:
    """Load ``source`` into ``state``; on bad input return (False, message) and keep the old data."""
    try:
        dataset = load_source(source, **options)
    except DataError as exc:
        return False, str(exc)
    except Exception as exc:  # a reader bug must not wipe the session either
        return False, f"The file could not be read ({type(exc).__name__}: {exc})."
    set_dataset(state, dataset, source.title)
    return True, ""


def load_default_sample(state, name: str = "iris") -> bool:
    """On a session's first run, load a bundled sample so the dashboard opens on real data."""
    if state.get("_default_sample_tried") or state.get(KEYS["dataset"]) is not None:
        return False
    state["_default_sample_tried"] = True
    samples = {s.name: s for s in sample_sources()}
    source = samples.get(name) or next(iter(samples.values()), None)
    return source is not None and try_load(state, source)[0]


def columns_frame(dataset: Dataset) -> pd.DataFrame:
    rows = []
    for c in dataset.columns:
        rows.append(
            {
                "column": c.name,
                "treated as": c.kind,
                "used": "target" if c.kind == "target" else ("no" if c.excluded else "yes"),
                "missing": int(c.n_missing),
                "distinct": int(c.n_unique),
                "features": ", ".join(c.features),
            }
        )
    return pd.DataFrame(rows)


_MD_SPECIAL = "\\`*_{}[]<>()#+-.!|~$:"


def md_escape(value) -> str:
    """A user string made inert for st.markdown / st.error (no links, images or emphasis)."""
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in str(value))


def plot_text(value) -> str:
    """A user string made inert for plotly, whose labels accept a little HTML."""
    return str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _count_bars(labels, values, *, title: str, xaxis_title: str, color: str, height: int, text=None) -> go.Figure:
    """Rows per category as bars (labels already made inert with :func:`plot_text`)."""
    fig = go.Figure(
        go.Bar(
            x=labels,
            y=values,
            text=text,
            textposition="auto" if text is not None else None,
            marker_color=color,
            hovertemplate="%{x}: %{y} rows<extra></extra>",
        )
    )
    fig.update_layout(
        title=title, xaxis_title=xaxis_title, yaxis_title="rows", height=height,
        margin=dict(l=10, r=10, t=50, b=10),
    )
    fig.update_xaxes(type="category")
    return fig


def class_distribution_figure(dataset: Dataset) -> go.Figure:
    counts = dataset.class_counts()
    values = list(counts.values())
    total = max(1, sum(values))
    return _count_bars(
        [plot_text(c) for c in counts], values,
        title=f"Class distribution of '{plot_text(dataset.target)}'", xaxis_title="class",
        color="#4c78a8", height=320, text=[f"{v} ({100 * v / total:.1f}%)" for v in values],
    )


def preview_figure(table: pd.DataFrame, target: str) -> go.Figure:
    """Class counts of ``target`` in a raw table (before loading), at most 30 bars."""
    counts = table[target].astype("string").fillna("(missing)").value_counts().head(30)
    return _count_bars(
        [plot_text(v) for v in counts.index], counts.to_numpy(),
        title=f"Values of '{plot_text(target)}'", xaxis_title="value", color="#9aa5b1", height=280,
    )


# --------------------------------------------------------------------------- pool


@dataclass(frozen=True)
class PoolSettings:
    max_depth: int = 5
    source: str = "grid"
    n_repeats: int = 1
    random_state: int = 0


@st.cache_resource(show_spinner=False, max_entries=32)
def _pool_cached(fingerprint: str, settings: PoolSettings, _dataset: Dataset) -> tuple[RulePool, float]:
    t0 = time.perf_counter()
    pool = build_pool(
        _dataset.X,
        _dataset.y,
        settings.max_depth,
        random_state=settings.random_state,
        n_repeats=settings.n_repeats,
        source=settings.source,
        classes=_dataset.classes,
        feature_specs=_dataset.feature_specs,
    )
    return pool, time.perf_counter() - t0


def cached_pool(dataset: Dataset, settings: PoolSettings) -> tuple[RulePool, float]:
    """The rule pool of ``dataset`` (built once per data fingerprint and settings)."""
    return _pool_cached(dataset.fingerprint, settings, dataset)


def ensure_pool(state, settings: PoolSettings) -> RulePool:
    dataset = state[KEYS["dataset"]]
    key = (dataset.fingerprint, settings)
    if state.get(KEYS["pool_key"]) != key:
        pool, seconds = cached_pool(dataset, settings)
        state[KEYS["pool"]] = pool
        state[KEYS["pool_key"]] = key
        state[KEYS["pool_time"]] = seconds
    return state[KEYS["pool"]]


@st.cache_resource(show_spinner=False, max_entries=64)
def _best_tree_report(
    pool_key, bc: int, be: int, eps: float, _pool: RulePool, _dataset: Dataset
) -> RuleSetReport | None:
    best = _pool.best_tree()
    if best is None:
        return None
    return evaluate_rules(
        _pool.rule_set(best.tree.rule_ids),
        _dataset.X,
        _dataset.y,
        eps=eps,
        complexity_budget=bc,
        error_budget=be,
        fingerprint=_dataset.fingerprint,
    )


def best_tree_report(state, bc: int, be: int, eps: float) -> RuleSetReport | None:
    """Metrics of the best tree's own rules, for comparison with a selection."""
    return _best_tree_report(
        state[KEYS["pool_key"]], int(bc), int(be), float(eps), state[KEYS["pool"]], state[KEYS["dataset"]]
    )


# --------------------------------------------------------------------------- background runs


@dataclass
class Task:
    algorithm: str
    seed: int | None


class _Notify(Callback):
    def __init__(self, event: threading.Event):
        self.event = event

    def on_generation(self, record):
        self.event.set()


class Job:
    """One or more selection runs on the same pool and budgets, in a background thread.

    The thread never touches Streamlit; pages read :meth:`records` (thread-safe
    snapshots of the running task's generations) and, once :attr:`done`, the
    finished :attr:`explanations`.  :meth:`stop` ends the current run cleanly
    (the algorithm returns its best selection so far) and skips the rest.
    """

    def __init__(self, pool: RulePool, dataset: Dataset, tasks: list[Task], *, complexity_budget: int,
                 error_budget: int, eps: float, algorithm_params: dict | None = None):
        self.pool = pool
        self.X = dataset.X
        self.y = dataset.y
        self.fingerprint = dataset.fingerprint
        self.n_rows = dataset.n_rows
        self.tasks = list(tasks)
        self.complexity_budget = int(complexity_budget)
        self.error_budget = int(error_budget)
        self.eps = float(eps)
        self.algorithm_params = dict(algorithm_params or {})
        self.flag = StopFlag()
        self.recorders = [Recorder() for _ in self.tasks]
        self._news = threading.Event()  # set at the first generation and at the end
        self.explanations: list[Explanation | None] = [None] * len(self.tasks)
        self.errors: list[str | None] = [None] * len(self.tasks)
        self.current = 0
        self.started_at = time.perf_counter()
        self.finished_at: float | None = None
        self.collected = False
        self.settings = {
            "algorithms": [t.algorithm for t in self.tasks],
            "seeds": [t.seed for t in self.tasks],
            "complexity_budget": self.complexity_budget,
            "error_budget": self.error_budget,
            "eps": self.eps,
        }
        self._thread = threading.Thread(target=self._run, name="explainer-job", daemon=True)

    def start(self) -> Job:
        self.started_at = time.perf_counter()
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            for i, task in enumerate(self.tasks):
                if self.flag.is_set:
                    break
                self.current = i
                try:
                    self.explanations[i] = explain_pool(
                        self.pool,
                        self.X,
                        self.y,
                        complexity_budget=self.complexity_budget,
                        error_budget=self.error_budget,
                        eps=self.eps,
                        algorithm=task.algorithm,
                        random_state=task.seed,
                        callback=[self.flag, self.recorders[i], _Notify(self._news)],
                        fingerprint=self.fingerprint,
                        algorithm_params=self.algorithm_params.get(task.algorithm),
                    )
                except Exception as exc:  # reported on the page, never raised into Streamlit
                    self.errors[i] = f"{label(task.algorithm)} failed: {type(exc).__name__}: {exc}"
                    traceback.print_exc()
        finally:
            self.finished_at = time.perf_counter()
            self._news.set()

    def wait_for_news(self, timeout: float) -> bool:
        """Block up to ``timeout`` seconds for the first generation or the end; True when either came."""
        return self._news.wait(timeout)

    def stop(self) -> None:
        self.flag.set()

    def join(self, timeout: float | None = None) -> None:
        if self._thread.is_alive():
            self._thread.join(timeout)

    @property
    def done(self) -> bool:
        return self.finished_at is not None

    @property
    def stopped(self) -> bool:
        return self.flag.is_set

    @property
    def elapsed(self) -> float:
        end = self.finished_at if self.finished_at is not None else time.perf_counter()
        return end - self.started_at

    def records(self, i: int | None = None):
        return self.recorders[self.current if i is None else i].snapshot()

    def progress(self) -> float:
        """Fraction done: tasks finished plus the running task's generations."""
        n = len(self.tasks)
        if self.done:
            return 1.0
        recs = self.records()
        frac = 0.0
        if recs and recs[-1].max_generations:
            frac = min(1.0, recs[-1].generation / recs[-1].max_generations)
        return min(1.0, (self.current + frac) / n)


def start_job(state, key: str, tasks: list[Task], *, complexity_budget, error_budget, eps,
              algorithm_params: dict | None = None) -> Job:
    old = state.get(key)
    if old is not None and not old.done:
        old.stop()
    job = Job(
        state[KEYS["pool"]],
        state[KEYS["dataset"]],
        tasks,
        complexity_budget=complexity_budget,
        error_budget=error_budget,
        eps=eps,
        algorithm_params=algorithm_params,
    )
    state[key] = job
    job.start()
    # a short wait lets a quick run (or the first generation) show in this very script run
    job.wait_for_news(0.5)
    return job


def collect_finished(state) -> None:
    """Move the finished Explain-page run into ``state`` (once); a failed run keeps the last result."""
    job = state.get(KEYS["job"])
    if job is None or not job.done or job.collected:
        return
    job.collected = True
    explanation = job.explanations[0]
    if explanation is not None:
        state[KEYS["explanation"]] = explanation
        state[KEYS["run_settings"]] = dict(job.settings, algorithm=job.tasks[0].algorithm, seed=job.tasks[0].seed)


# --------------------------------------------------------------------------- charts


def curves_figure(curves: list[tuple[str, list]], n_rows: int) -> go.Figure:
    """Best feasible coverage per generation of several runs, overlaid."""
    scale = 100.0 / n_rows if n_rows else 1.0
    fig = go.Figure()
    for i, (name, records) in enumerate(curves):
        if not records:
            continue
        records = thin(records)
        fig.add_trace(
            go.Scatter(
                x=[r.generation for r in records],
                y=[r.max * scale for r in records],
                mode="lines+markers" if len(records) < 40 else "lines",
                line=dict(color=PALETTE[i % len(PALETTE)], width=2),
                name=plot_text(name),
                hovertemplate="generation %{x}: %{y:.2f}%<extra>" + plot_text(name) + "</extra>",
            )
        )
    fig.update_layout(
        title="Max fitness per generation",
        xaxis_title="generation (or step)",
        yaxis_title="fitness (% of rows)",
        height=380,
        margin=dict(l=10, r=10, t=50, b=10),
    )
    return fig


def comparison_bars(frame: pd.DataFrame) -> go.Figure:
    """Coverage, complexity, errors and time of each run, side by side (one colour per run)."""
    metrics = ["coverage %", "complexity", "errors", "time (s)"]
    fig = make_subplots(rows=1, cols=len(metrics), subplot_titles=metrics)
    for i, row in enumerate(frame.to_dict("records")):
        name = plot_text(row["run"])
        for col, column in enumerate(metrics, start=1):
            fig.add_trace(
                go.Bar(
                    x=[name],
                    y=[row[column]],
                    name=name,
                    legendgroup=name,
                    showlegend=col == 1,
                    marker_color=PALETTE[i % len(PALETTE)],
                    hovertemplate="%{y}<extra>%{x}</extra>",
                ),
                row=1,
                col=col,
            )
    fig.update_xaxes(showticklabels=False)
    fig.update_layout(height=360, margin=dict(l=10, r=10, t=40, b=10), barmode="group",
                      legend=dict(orientation="h", y=-0.08))
    return fig


# --------------------------------------------------------------------------- reports


def comparison_frame(job: Job, n_rows: int) -> pd.DataFrame:
    rows = []
    exact_cov = None
    for task, ex in zip(job.tasks, job.explanations, strict=True):
        if ex is not None and task.algorithm == "exact" and ex.result.status == "optimal":
            exact_cov = max(exact_cov or 0.0, ex.result.coverage)
    for task, ex, err in zip(job.tasks, job.explanations, job.errors, strict=True):
        name = label(task.algorithm) + ("" if task.seed is None else f" (seed {task.seed})")
        if ex is None:
            rows.append({"run": name, "status": "failed" if err else "not run", "message": err or ""})
            continue
        r = ex.result
        row = {
            "run": name,
            "algorithm": task.algorithm,
            "seed": task.seed,
            "coverage %": round(100 * r.coverage_score, 2),
            "f*": round(r.coverage, 2),
            "rules": r.n_rules,
            "complexity": r.complexity,
            "errors": r.errors,
            "time (s)": round(r.time_s, 3),
            "generations": len(r.history),
            "status": r.status,
            "message": r.message,
        }
        if exact_cov is not None:
            gap = {
                "gap to optimum (pp)": round(100 * (exact_cov - r.coverage) / n_rows, 2),
                "gap to optimum (% of f*)": round(100 * (exact_cov - r.coverage) / exact_cov, 2) if exact_cov else 0.0,
            }
            keys = list(row)
            at = keys.index("f*") + 1
            row = {k: row[k] for k in keys[:at]} | gap | {k: row[k] for k in keys[at:]}
        rows.append(row)
    return pd.DataFrame(rows)


def export_payloads(explanation: Explanation, dataset: Dataset | None = None) -> dict[str, tuple[str, str, str]]:
    """kind -> (file name, MIME type, content) of the three exports."""
    report = explanation.report
    stem = _safe_stem(dataset.name if dataset is not None else "rules")
    extra = {
        "algorithm": explanation.result.algorithm,
        "status": explanation.result.status,
        "time_s": explanation.result.time_s,
    }
    if dataset is not None:
        extra["data_name"] = dataset.name
    return {
        "text": (f"{stem}_rules.txt", "text/plain", report.rules.to_text()),
        "json": (f"{stem}_rules.json", "application/json", report.to_json(**extra)),
        "csv": (f"{stem}_rules.csv", "text/csv", report.to_csv()),
    }


def _safe_stem(name: str) -> str:
    stem = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in str(name))[:60]
    return stem or "rules"


def evaluate_rule_text(text: str, dataset: Dataset, *, complexity_budget=None, error_budget=None,
                       eps: float = 1.0) -> RuleSetReport:
    """Evaluate a rule file against the data; raises ValueError with a readable message."""
    if not text.strip():
        raise ValueError("The rule file is empty.")
    parsed = parse_rules(text)
    if not parsed:
        raise ValueError("The file holds no rules (expected lines like 'IF x <= 1 THEN CLASS=a').")
    try:
        rules = rules_for_data(parsed, dataset.feature_specs, dataset.classes)
    except KeyError as exc:  # an unknown feature: say which, as for any other bad file
        raise ValueError(exc.args[0]) from None
    return evaluate_rules(
        rules,
        dataset.X,
        dataset.y,
        eps=eps,
        complexity_budget=complexity_budget,
        error_budget=error_budget,
        fingerprint=dataset.fingerprint,
    )


def decode_text(data: bytes) -> str:
    for enc in ("utf-8-sig", "utf-16"):
        try:
            text = data.decode(enc)
        except UnicodeDecodeError:
            continue
        if "\x00" not in text:
            return text
    raise ValueError("The rule file is not UTF-8 text.")


def rules_table(report: RuleSetReport) -> pd.DataFrame:
    frame = report.rules_frame()
    if frame.empty:
        return pd.DataFrame(
            columns=["rule", "IF-THEN", "class", "length", "support", "errors", "precision", "conflicts",
                     "conflicts with"]
        )
    frame = frame.rename(columns={"text": "IF-THEN", "conflicts_with": "conflicts with"})
    frame["class"] = frame["class"].map(str)
    frame["in conflict"] = frame["conflicts"] > 0
    return frame[["rule", "IF-THEN", "class", "length", "support", "correct", "errors", "precision",
                  "conflicts", "conflicts with", "in conflict"]]


def style_conflicts(frame: pd.DataFrame):
    """Highlight the rules involved in a conflict (a pandas Styler; values stay plain text)."""

    def highlight(row):
        colour = "background-color: rgba(228, 87, 86, 0.18)" if row.get("in conflict") else ""
        return [colour] * len(row)

    return frame.style.apply(highlight, axis=1).format({"precision": "{:.3f}"})


def rows_frame(dataset: Dataset, rows, report: RuleSetReport | None = None) -> pd.DataFrame:
    rows = np.asarray(rows, dtype=int)
    frame = dataset.X.iloc[rows].copy()
    frame.insert(0, "row", rows + 1)
    frame[f"{dataset.target} (true)"] = [str(v) for v in np.asarray(dataset.y)[rows]]
    if report is not None:
        frame["voted class"] = [str(v) for v in report.predictions[rows]]
    return frame.reset_index(drop=True)
