"""The dashboard's session state, typed: every value a page keeps between runs, named once.

Streamlit keeps a session's values in ``st.session_state``, a dict by string keys.
:class:`Session` reads and writes it through typed attributes (``state.dataset``,
``state.bc``), so no module spells a key twice.  The keys stay plain strings: widgets
are bound to them (``key=Session.bc.key``), and the tests and links set them by name.
Widget values start with ``w_`` (:func:`persist_widgets` keeps them across pages).

Streamlit 1.67 can bind a widget to a query parameter itself (``bind="query-params"``), but the
parameter is then named after the widget's key, leaves the URL whenever the value equals the
widget's default, and can no longer be written through ``st.query_params``.  The budgets are
two widgets each, keyed by their value (see :mod:`.budgets`), and the data reference is no
widget at all, so the URL is still written from this state (:mod:`.state`): one mechanism for
every setting, and the links made so far keep working.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, MutableMapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar, overload

import streamlit as st
from streamlit import runtime
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from explainer.pipeline.validation import DEFAULT_SIZE

if TYPE_CHECKING:  # the value types only: importing them here would make a circle (they import this module)
    from streamlit.elements.arrow import DataframeState
    from streamlit.elements.plotly_chart import PlotlyState
    from streamlit.runtime.uploaded_file_manager import UploadedFile

    from explainer.app.jobs import FrontierJob, RunJob
    from explainer.app.sources import Source
    from explainer.app.split import Split
    from explainer.data import Dataset
    from explainer.pipeline import Explanation
    from explainer.report.edits import RuleEdits
    from explainer.rules.pool import RulePool
    from explainer.selection.frontier import Frontier
    from explainer.selection.settings import RunSettings

T = TypeVar("T")


class Slot(Generic[T]):
    """One session value: ``Session.x`` is the slot (its ``key``), ``state.x`` the value (or ``default``)."""

    def __init__(self, key: str, default: T | None = None):
        self.key = key
        self.default = default

    @overload
    def __get__(self, obj: None, owner: type) -> Slot[T]: ...

    @overload
    def __get__(self, obj: Session, owner: type) -> T: ...

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        return obj.store.get(self.key, self.default)

    def __set__(self, obj: Session, value: T | None) -> None:
        obj.store[self.key] = value

    def __delete__(self, obj: Session) -> None:
        obj.store.pop(self.key, None)


@dataclass
class FrontierEntry:
    """The frontier beside the budgets: for which (pool key, Be, eps, range), its job, its result."""

    key: tuple
    range: tuple[int, int]
    job: FrontierJob | None  # while it is computed (None when it came from the server's store)
    result: Frontier | None  # the finished frontier


class Session:
    """Typed access to ``st.session_state`` (or to any dict, e.g. in a test)."""

    # ---------------------------------------------------------------- the data
    dataset: Slot[Dataset] = Slot("dataset")  # the Dataset now loaded
    data_label = Slot[str]("data_label")  # where it came from, for display
    data_ref = Slot[dict]("data_ref")  # {"ref", "ident", "file", "target", "categorical", "exclude", "keep"}
    upload: Slot[Source] = Slot("upload")  # Source of the last uploaded data file
    data_toast = Slot[bool]("data_toast", False)  # say "Data loaded" once after a load
    data_error = Slot[str]("data_error")  # why the last load failed, shown once

    # ---------------------------------------------------------------- the pool (belongs to the data)
    pool: Slot[RulePool] = Slot("pool")  # RulePool of the data and the pool settings
    pool_key = Slot[tuple]("pool_key")  # (data fingerprint, PoolSettings) the pool was built for
    pool_time = Slot[float]("pool_time", 0.0)
    split: Slot[Split] = Slot("split")  # Split: training rows and held-out rows
    budget_for = Slot[tuple]("budget_for")  # pool_key the budgets were set for
    budget_defaults = Slot[tuple]("budget_defaults")  # (size, (Bc, Be)): the defaults the budgets last had
    steps_done = Slot[dict]("steps_done")  # step name -> (cache key, "done in x s" line, detail) of long steps
    loading = Slot[dict]("loading")  # {"source", "options"} of the data being read for Load data

    # ---------------------------------------------------------------- runs (belong to the pool)
    job: Slot[RunJob] = Slot("job")  # the Explain page's run (running or finished)
    explanation: Slot[Explanation] = Slot("explanation")  # the last finished Explanation
    explanation_data: Slot[Dataset] = Slot("explanation_data")  # the rows it was computed on
    run_settings: Slot[RunSettings] = Slot("run_settings")  # what it was computed with
    run_error = Slot[str]("run_error")  # why the last run failed (cleared by the next one)
    run_note = Slot[str]("run_note")  # what became of the last run when its result is not the one shown
    # (explanation, explanation_data, run_settings) the running run replaced: shown again if it is stopped
    # before it began
    replaced_result = Slot[tuple]("replaced_result")
    alternatives_asked = Slot[tuple]("alternatives_asked")  # the key of the alternatives last asked for
    compare_job: Slot[RunJob] = Slot("compare_job")  # the Compare page's runs
    frontier = Slot[FrontierEntry]("frontier")
    frontier_chosen = Slot[bool]("_frontier_chosen", False)  # a frontier point was clicked
    # (Bc, Be, form, objective) of the accuracy frontier's point last clicked: a run at its budgets uses them
    accuracy_pick = Slot[tuple]("accuracy_pick")
    rules_upload = Slot[dict]("rules_upload")  # {"name", "data"} of an uploaded rule file (Export page)
    # the analyst's pinned and banned rules (Rules page), by their text: a text names the same rule in any pool
    pinned_rules = Slot[list]("pinned_rules")
    banned_rules = Slot[list]("banned_rules")
    edited_rules = Slot[list]("edited_rules")  # kept edits of rules (their texts): they join the pool
    rule_edits: Slot[RuleEdits] = Slot("rule_edits")  # the Rules page's editor of the explanation's rules

    # ---------------------------------------------------------------- the URL and the first run
    notices = Slot[list]("url_notice")  # what a link asked for that could not be restored
    url_restored = Slot[bool]("_url_restored", False)
    budgets_from_url = Slot[bool]("_budgets_from_url", False)
    default_sample_tried = Slot[bool]("_default_sample_tried", False)
    kept_widgets = Slot[dict]("_kept_widgets")

    # ---------------------------------------------------------------- widgets (kept across pages)
    source_kind = Slot[str]("w_source_kind")
    sample = Slot[str]("w_sample")
    paper = Slot[str]("w_paper")
    pool_depth = Slot[int]("w_pool_depth")
    pool_source = Slot[str]("w_pool_source")
    pool_repeats = Slot[int]("w_pool_repeats")
    pool_seed = Slot[int]("w_pool_seed")
    pool_holdout = Slot[float]("w_pool_holdout")
    size = Slot[str]("w_size", DEFAULT_SIZE)  # the default explanation's size (validation.SIZES)
    pool_forbidden = Slot[list]("w_pool_forbidden")  # columns kept out of the rules (they stay in the table)
    group_by = Slot[str]("w_group_by")  # the column of the Rules page's accuracy by group
    bc = Slot[int]("w_bc")
    be = Slot[int]("w_be")
    eps = Slot[float]("w_eps", 1.0)
    algorithm = Slot[str]("w_algorithm")
    seed = Slot[int]("w_seed", 0)
    class_weight = Slot[str]("w_class_weight", "none")  # "none" or "balanced": how the runs weigh the rows
    cmp_algorithms = Slot[list]("w_cmp_algorithms")
    cmp_seeds = Slot[str]("w_cmp_seeds")
    alt_k = Slot[int]("w_alt_k")  # the Explain page's "Other explanations nearly as good": how many
    alt_within = Slot[float]("w_alt_within")  # ... and within how many points of the rows
    explain_row = Slot[int]("w_explain_row")
    explain_row_data = Slot[str]("_explain_row_data")  # the fingerprint of the data explain_row numbers a row of
    rule_pick = Slot[int]("w_rule_pick")
    # the table rows last clicked (Rules page): a click points its widget at the row once, then leaves it free
    explain_row_clicked = Slot[int]("_w_explain_row_clicked")
    rule_pick_clicked = Slot[int]("_w_rule_pick_clicked")
    # file uploaders and the frontier chart (their values are read in callbacks)
    data_upload_widget: Slot[UploadedFile | None] = Slot("data_upload_widget")
    rules_upload_widget: Slot[UploadedFile | None] = Slot("rules_upload_widget")
    frontier_chart: Slot[PlotlyState] = Slot("frontier_chart")
    accuracy_chart: Slot[PlotlyState] = Slot("accuracy_chart")

    # ---------------------------------------------------------------- widgets of one page run
    load_data = Slot[bool]("load_data")  # the Data page's Load data button
    run = Slot[bool]("run")  # the Explain page's Run button
    stop_run = Slot[bool]("stop_run")
    find_alternatives = Slot[bool]("find_alternatives")  # the Explain page's "Find them" (other explanations)
    run_all = Slot[bool]("run_all")  # the Compare page's Run all button
    stop_compare = Slot[bool]("stop_compare")
    restart_frontier = Slot[bool]("restart_frontier")  # the Explain page's "Compute the frontier again"
    stop_frontier = Slot[bool]("stop_frontier")
    dismiss_notices = Slot[bool]("dismiss_notices")  # the link notices' Dismiss button
    frontier_done = Slot[bool]("frontier_done")  # the container of a finished frontier (its key marks it for tests)
    rules_table: Slot[DataframeState] = Slot("rules_table")  # the selected rules (a click picks a rule)
    wrong_rows_table: Slot[DataframeState] = Slot("wrong_rows_table")  # misclassified rows (a click picks a row)
    ripper_class: Slot[Hashable] = Slot("ripper_class")  # the class a RIPPER rule list predicts (Export page)
    pin_rule = Slot[bool]("pin_rule")  # the Rules page's Pin / Unpin button of the inspected rule
    ban_rule = Slot[bool]("ban_rule")  # its Ban button
    clear_pins = Slot[bool]("clear_pins")  # forget every pin and ban
    rerun_pins = Slot[bool]("rerun_pins")  # run again with the pins and bans (then the Explain page)
    # elements that hold no value, keyed so that Streamlit keeps them in place between runs
    pool_form = Slot[None]("pool_form")
    preview_chart = Slot[None]("preview_chart")
    live_fitness = Slot[None]("live_fitness")  # the live chart's container (its charts are keyed from it)
    final_fitness = Slot[None]("final_fitness")
    per_class_chart = Slot[None]("per_class_chart")
    live_curves = Slot[None]("live_curves")
    cmp_dots = Slot[None]("cmp_dots")
    cmp_curves = Slot[None]("cmp_curves")

    def __init__(self, store: MutableMapping | None = None):
        self.store = st.session_state if store is None else store

    # ---------------------------------------------------------------- keys made from names
    @staticmethod
    def param_key(algorithm: str, name: str) -> str:
        """Widget key of an algorithm parameter."""
        return f"w_param_{algorithm}_{name}"

    @staticmethod
    def column_key(kind: str, file_id: str) -> str:
        """Widget key of a Data page column choice: ``kind`` is target, categorical, exclude or keep."""
        return f"w_{kind}_{file_id}"

    @staticmethod
    def load_form_key(file_id: str) -> str:
        """Key of the Data page's load form of one file (its column choices)."""
        return f"load_form_{file_id}"

    @staticmethod
    def row_values_key(row: int, fingerprint: str) -> str:
        """Widget key of the Rules page's editor of one row's values (of the data of ``fingerprint``: the edits
        of another table's row of that number are not this row's)."""
        return f"row_values_{fingerprint[:16]}_{row}"

    @staticmethod
    def rule_edit_key(part: str, what: str) -> str:
        """Widget key of one field of the Rules page's rule editor (``part`` names the rule and its phrase)."""
        return f"rule_edit_{part}_{what}"

    @staticmethod
    def download_key(kind: str) -> str:
        """Widget key of the Export page's download button of one format."""
        return f"download_{kind}"

    def has(self, slot: Slot) -> bool:
        return slot.key in self.store

    def get(self, slot: Slot[T]) -> T:
        """The value of a slot chosen at run time (e.g. which page's job)."""
        return slot.__get__(self, Session)

    def put(self, slot: Slot[T], value: T | None) -> None:
        slot.__set__(self, value)

    def value(self, key: str, default=None):
        """A value by a key made from names (:meth:`param_key`, :meth:`column_key`)."""
        return self.store.get(key, default)

    def set_value(self, key: str, value) -> None:
        self.store[key] = value

    def forget(self, *slots: Slot) -> None:
        """Drop these values (and, for widgets, the copies kept across pages)."""
        kept = self.kept_widgets or {}
        for slot in slots:
            self.store.pop(slot.key, None)
            kept.pop(slot.key, None)

    def alive(self) -> Callable[[], bool] | None:
        """Whether this session's page is still connected, as a function a job can ask later.

        None outside a Streamlit server (e.g. in AppTest), where a session cannot go away.
        """
        ctx = get_script_run_ctx(suppress_warning=True)
        if ctx is None or not runtime.exists():
            return None
        server, session_id = runtime.get_instance(), ctx.session_id
        return lambda: bool(server.is_active_session(session_id))


#: Values computed from the data; dropped when another data set is loaded (with the pool's and the runs').
DATA_BOUND = (Session.pool, Session.pool_key, Session.pool_time, Session.split, Session.budget_for,
              Session.budget_defaults, Session.pool_holdout, Session.pool_forbidden, Session.group_by,
              Session.pinned_rules, Session.banned_rules, Session.edited_rules)
#: Values computed from the pool (besides the last run's result); dropped when the pool changes.
POOL_BOUND = (Session.frontier, Session.frontier_chosen, Session.accuracy_pick)


def persist_widgets(state: Session) -> None:
    """Keep widget values alive across page switches.

    Streamlit forgets the value of a widget that is not drawn in a run.  At the
    start of every run the values of the ``w_`` widgets are copied aside, and
    any that Streamlit dropped are put back, so a page finds its settings as
    it left them.  Pages also pass the remembered value as the widget's default
    (``value=`` / ``index=``): the browser re-creates a widget from its default,
    and without it a number field would come back at its minimum.
    """
    if state.kept_widgets is None:
        state.kept_widgets = {}
    kept = state.kept_widgets
    store = state.store
    for key in list(store.keys()):
        if isinstance(key, str) and key.startswith("w_"):
            kept[key] = store[key]
    for key, value in kept.items():
        if key not in store:
            store[key] = value
