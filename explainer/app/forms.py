"""The dashboard's inputs: the forms and widget groups of the pages, each returning what the user chose.

Every widget is bound to a session value (``key=Session.x.key``), and is given the remembered value as
its default: the browser re-creates a widget from its default (see :func:`.session.persist_widgets`).
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import streamlit as st

from explainer.app import budgets, cards, downloads, pools, sources
from explainer.app import state as app_state
from explainer.app.budgets import changed_parameters
from explainer.app.session import Session
from explainer.app.sources import Source
from explainer.app.text import (
    algorithm_parameters,
    label,
    md_escape,
    missing_algorithms,
    parameter_help,
)
from explainer.data import Dataset
from explainer.data.tables import SPREADSHEET_EXTENSIONS
from explainer.data.target import explicit_target_warning
from explainer.pipeline.validation import DEFAULT_SIZE, SIZES
from explainer.rules.pool import RulePool
from explainer.selection.settings import RunSettings

# ------------------------------------------------------------------ Data page


def _remember_upload(state: Session):
    file = state.data_upload_widget
    if file is not None:
        app_state.remember_upload(state, file.name, file.getvalue())


def source_form(state: Session) -> Source | None:
    """Where the data comes from: a bundled sample, a paper data set or an upload (None: nothing chosen yet)."""
    samples = sources.sample_choices()
    papers = sources.paper_choices()
    kinds = ["Bundled sample"] + (["Paper data set"] if papers else []) + ["Upload a CSV"]
    if state.source_kind not in kinds:
        state.source_kind = kinds[0]
    kind = st.radio("Source", kinds, index=kinds.index(state.source_kind), key=Session.source_kind.key,
                    horizontal=True)
    if kind == "Bundled sample":
        if not samples:
            st.warning("No bundled samples were found in sample_data/.")
            return None
        names = [s.name for s in samples]
        if state.sample not in names:
            state.sample = names[0]
        chosen = st.selectbox("Sample", names, index=names.index(state.sample), key=Session.sample.key)
        return next(s for s in samples if s.name == chosen)
    if kind == "Paper data set":
        names = [s.name for s in papers]
        if state.paper not in names:
            state.paper = names[0]
        chosen = st.selectbox("Data set", names, index=names.index(state.paper), key=Session.paper.key,
                              format_func=lambda n: sources.PAPER_DATASETS[n]["title"])
        return next(s for s in papers if s.name == chosen)
    # spreadsheets are accepted here only so that the reader can say what to do with them
    st.file_uploader("CSV file (header row, one row per example)",
                     type=["csv", "tsv", "txt", *(e.lstrip(".") for e in SPREADSHEET_EXTENSIONS)],
                     key=Session.data_upload_widget.key, on_change=_remember_upload, args=(state,))
    source = state.upload
    if source is None:
        st.info("Drop a CSV file above. Nothing is executed from the file; it is read as text.")
    return source


def load_form(state: Session, source: Source, table: pd.DataFrame) -> str:
    """The target and the column overrides of ``source``, and Load data; returns the chosen target.

    Until Load data is pressed, what it would load is under way already (:func:`.pools.encode_ahead`).
    """
    columns = [str(c) for c in table.columns]
    tkey = app_state.target_key(source)
    fid = app_state.file_id(source)
    suggested, why = sources.suggested_target(table)
    if state.value(tkey) not in columns:
        state.set_value(tkey, source.default_target if source.default_target in columns else suggested)
    st.caption(f"{len(table)} rows × {len(columns)} columns read. {md_escape(why)}")
    target = st.selectbox("Target column (the class)", columns, index=columns.index(state.value(tkey)), key=tkey)
    warning = explicit_target_warning(table, target)  # said before Load data, not only after it
    if warning:
        st.warning(md_escape(warning), icon=":material/warning:")

    def kept(key):
        return [c for c in state.value(key, []) if c in columns]

    with st.form(Session.load_form_key(fid), border=True):
        with st.expander("Column overrides", expanded=False):
            categorical = st.multiselect("Treat as categorical", columns,
                                         default=kept(Session.column_key("categorical", fid)),
                                         key=Session.column_key("categorical", fid),
                                         help="Numeric columns to one-hot encode (codes, not amounts).")
            exclude = st.multiselect("Exclude", columns, default=kept(Session.column_key("exclude", fid)),
                                     key=Session.column_key("exclude", fid),
                                     help="Columns to leave out entirely.")
            keep = st.multiselect("Keep", columns, default=kept(Session.column_key("keep", fid)),
                                  key=Session.column_key("keep", fid),
                                  help="Columns to use even though they look like identifiers.")
        submitted = st.form_submit_button("Load data", type="primary", icon=":material/upload:",
                                          key=Session.load_data.key)
    others = [c for c in columns if c != target]
    options = {"target": target, "categorical": [c for c in categorical if c in others],
               "exclude": [c for c in exclude if c in others], "keep": [c for c in keep if c in others]}
    _load(state, source, options, submitted)
    return target


def _load(state: Session, source: Source, options: dict, submitted: bool) -> None:
    if submitted:
        app_state.request_load(state, source, **options)
    else:  # what Load data would do, started now: the table, its pool and budgets are under way meanwhile
        pools.encode_ahead(state, source, **options)
    outcome = app_state.pending_load(state, source)
    if outcome == "reading":  # its status is on the page, which is drawn again when the data is ready
        st.stop()
    if outcome == "loaded":
        pools.prepare(state)  # the Explain page's pool and default budgets, under way from now on
        state.data_toast = True
        st.rerun()  # the sidebar and the URL, drawn before this point, show the new data
    if outcome is None:
        app_state.load_summary(state, source)
    error = state.data_error
    del state.data_error
    if error:
        st.error(md_escape(error), icon=":material/error:")
        if state.dataset is not None:
            st.caption("The data loaded before stays in use.")


# ------------------------------------------------------------------ Explain page


def pool_form(state: Session) -> None:
    """The rule pool's settings; Build pool submits them."""
    with st.form(Session.pool_form.key, border=False):
        c1, c2, c3, c4, c6, c5 = st.columns([3, 2, 2, 2, 2, 2], vertical_alignment="bottom")
        c1.slider("Max depth D", 2, 10, value=state.pool_depth, key=Session.pool_depth.key,
                  help="Trees of depth 1 … D−1.")
        c2.radio("Trees", ["grid", "forest"], index=["grid", "forest"].index(state.pool_source),
                 key=Session.pool_source.key, horizontal=True,
                 format_func={"grid": "CART grid", "forest": "random forest"}.get)
        c3.number_input("Repeats", 1, 10, value=state.pool_repeats, step=1, key=Session.pool_repeats.key,
                        help="How often the grid is trained.")
        c4.number_input("Pool seed", 0, 2**31 - 1, value=state.pool_seed, step=1, key=Session.pool_seed.key)
        shares = sorted({0.0, 0.2, 0.3, float(state.pool_holdout)})
        c6.selectbox("Held-out rows", shares, index=shares.index(float(state.pool_holdout)),
                     key=Session.pool_holdout.key,
                     format_func=lambda f: "none" if f == 0 else f"{100 * f:g} %",
                     help="Rows kept out of the pool and the selection (stratified, seeded by the pool seed); "
                          "the result then shows coverage and accuracy on them beside the training rows.")
        c5.form_submit_button("Build pool", icon=":material/construction:", width="stretch")
        _forbid_select(state)


def _forbid_select(state: Session) -> None:
    """The columns kept out of the rules (a sensitive attribute, a leak of the class): the trees learn
    without them; they stay in the table, the rows shown and the accuracy by group."""
    columns = pools.rule_columns(state.dataset)
    state.pool_forbidden = [c for c in state.pool_forbidden or [] if c in columns]  # another table's names go
    chosen = st.multiselect("Columns kept out of the rules", columns, default=state.pool_forbidden,
                            key=Session.pool_forbidden.key,
                            help="No rule may name these columns: the pool's trees are fitted without them. They "
                                 "stay in the table, in the rows shown and in the accuracy by group (Rules page).")
    if columns and len(chosen) == len(columns):
        st.warning("Every column is kept out: no rule could be made, so the pool keeps none out until one is "
                   "allowed again.", icon=":material/warning:")


def budget_form(state: Session, pool: RulePool, defaults: tuple[int, int], *, bc_max: int, be_max: int,
                n_rows: int) -> tuple[int, int]:
    """The explanation size, the budgets Bc and Be, with the best tree's and the defaults beside them; returns
    (Bc, Be)."""
    size_control(state)
    best = pool.best_tree()
    bc_slider = budgets.slider_top(pool, state.bc, bc_max)
    bc = budgets.budget_input(state, "bc", "Complexity budget Bc (total conditions)", "Bc", 1, bc_max,
                              slider_high=bc_slider)
    st.caption((f"Best tree: c\\* = {best.complexity}. " if best else "")
               + (f"The slider reaches {bc_slider}; type up to {bc_max} (every rule of the pool)."
                  if bc_slider < bc_max else f"Up to {bc_max} (every rule of the pool)."))
    be = budgets.budget_input(state, "be", "Error budget Be (misclassified rows)", "Be", 0, be_max)
    st.caption((f"Best tree: e\\* = {best.errors}. " if best else "")
               + f"Now {be} rows = {100 * be / n_rows:.1f}% of {n_rows}.")
    default_bc, default_be = defaults
    st.caption(md_escape(
        f"Defaults for this pool: Bc = {default_bc}, Be = {default_be}, "
        f"{budgets.default_form_text(state, pool)}, {budgets.default_objective_text(state)}. The engine's own: "
        "explanations of every size up to twice the best tree's conditions, each built on part of the rows and "
        f"scored on the rows it did not see; {budgets.SIZE_WORDS[budgets.page_size(state)]}. At these budgets a "
        "run keeps that form and objective."))
    return bc, be


def size_control(state: Session) -> str:
    """The analyst's taste for brevity: which explanation the default budgets are (re)chosen for; returns it.

    A change chooses the defaults again; the budgets follow unless they were set by hand
    (:func:`.budgets.init_budgets`).
    """
    if state.size not in SIZES:
        state.size = DEFAULT_SIZE
    chosen = st.segmented_control(
        "Explanation size", list(SIZES), default=state.size, required=True, key=Session.size.key,
        help="Which explanation the default budgets give, among candidates scored on rows they did not see: "
             "**compact**, the smallest whose held-out accuracy and Brier score (how well its probabilities "
             "read) are within one standard error of the best; **balanced**, within half a standard error; "
             "**accurate**, the smallest with the best of both (on accuracy alone when no candidate has "
             "both). The budgets move to the new defaults unless you have set them yourself.")
    return chosen or DEFAULT_SIZE


def algorithm_form(state: Session, choices: list[str]) -> tuple[str, float, int, str]:
    """The algorithm, eps, seed, class weight and the algorithm's parameters; returns the first four."""
    a1, a2, a3, a4 = st.columns([3, 1, 1, 1])
    algorithm = a1.selectbox("Algorithm", choices, index=choices.index(state.algorithm), key=Session.algorithm.key,
                             format_func=label)
    eps = a2.number_input("eps (conflict penalty)", 0.0, 10.0, value=float(state.eps), step=0.1,
                          key=Session.eps.key, format="%.2f")
    seed = a3.number_input("Seed", 0, 2**31 - 1, value=int(state.seed), step=1, key=Session.seed.key)
    class_weight = a4.selectbox("Class weight", app_state.CLASS_WEIGHT_CHOICES,
                                index=app_state.CLASS_WEIGHT_CHOICES.index(state.class_weight), key=Session.class_weight.key,
                                help="balanced: each row counts rows / (classes × rows of its class), so every class "
                                     "weighs the same in the coverage; Be then bounds the weight of the rows the "
                                     "rules get wrong.")
    _parameter_form(state, algorithm)
    missing = missing_algorithms()
    if missing:
        st.caption("Not installed here: " + ", ".join(label(n) for n in missing))
    return algorithm, eps, seed, class_weight


def _parameter_form(state: Session, algorithm: str) -> None:
    defaults = algorithm_parameters(algorithm)
    if not defaults:
        return
    helps = parameter_help(algorithm)
    with st.expander(f"{label(algorithm)} parameters"):
        cols = st.columns(4)
        for i, (name, default) in enumerate(defaults.items()):
            key = Session.param_key(algorithm, name)
            value = state.value(key, default)
            state.set_value(key, value)
            col = cols[i % 4]
            text = helps.get(name)
            if isinstance(default, bool):
                col.checkbox(name, value=bool(value), key=key, help=text)
            elif isinstance(default, int):
                shown = f"{name} (0 = auto)" if default == 0 and name.startswith("n_") else name
                col.number_input(shown, min_value=0, value=int(value), step=1, key=key, help=text)
            else:
                col.number_input(name, min_value=0.0, value=float(value), key=key, help=text)
        params = changed_parameters(state, algorithm)
        if params:
            st.caption("Changed from the defaults: " + ", ".join(f"{k} = {v}" for k, v in params.items()))


# ------------------------------------------------------------------ Compare page

#: algorithms that find the same selection whatever the seed: run once
DETERMINISTIC = {"forex", "forex_trimmed", "greedy", "exact"}


def parse_seeds(text: str) -> tuple[list[int], bool]:
    """The distinct seeds of a comma-separated list (at most 10; [0] if none), and whether a part was no number."""
    seeds: list[int] = []
    bad_seeds = False
    for part in text.replace(";", ",").split(","):
        part = part.strip()
        if not part:
            continue
        try:
            seeds.append(int(part))
        except ValueError:
            bad_seeds = True
    return list(dict.fromkeys(seeds))[:10] or [0], bad_seeds


def compare_form(state: Session, choices: list[str], running: bool) -> tuple[list[RunSettings], bool]:
    """The algorithms and seeds to compare; returns the runs they make and whether Run all was pressed."""
    if state.cmp_algorithms is None:
        state.cmp_algorithms = [n for n in ("qga", "ga", "rfhc", "greedy", "exact") if n in choices] or choices[:2]
    else:
        state.cmp_algorithms = [n for n in state.cmp_algorithms if n in choices]
    if state.cmp_seeds is None:
        state.cmp_seeds = "0"
    algorithms = st.pills("Algorithms", choices, selection_mode="multi", default=state.cmp_algorithms,
                          key=Session.cmp_algorithms.key, format_func=label)
    c2, c3 = st.columns([5, 1], vertical_alignment="bottom")
    seeds_text = c2.text_input("Seeds (comma-separated)", value=state.cmp_seeds, key=Session.cmp_seeds.key,
                               help="Each randomised algorithm runs once per seed; deterministic ones once.")
    seeds, bad_seeds = parse_seeds(seeds_text)
    if bad_seeds:
        st.error("Seeds must be whole numbers separated by commas, e.g. 0, 1, 2.", icon=":material/error:")
    # each algorithm with its own defaults
    tasks = [replace(budgets.run_settings(state, a), algorithm_params={}, seed=s)
             for a in algorithms for s in (seeds[:1] if a in DETERMINISTIC else seeds)]
    start = c3.button("Run all", type="primary", icon=":material/play_arrow:", key=Session.run_all.key,
                      disabled=running or not tasks or bad_seeds, width="stretch")
    if "exact" in algorithms:
        limit = algorithm_parameters("exact").get("time_limit")
        if limit:
            st.caption(f"The exact solver runs with its own time limit of {limit:g} s, as from the command line.")
    return tasks, start


# ------------------------------------------------------------------ Export page


def _remember_rules_upload(state: Session):
    file = state.rules_upload_widget
    if file is not None:
        state.rules_upload = {"name": file.name, "data": file.getvalue()}


def rule_file_form(state: Session, dataset: Dataset) -> None:
    """Upload a rule file; its totals on the current data (the Explain page's budgets and eps) are shown."""
    rows, holdout, rows_text = downloads.evaluation_rows(dataset, state.split)
    # the table's own names and values: escaped, as every user string on a page (not in a code span, which
    # nothing escapes a backtick in)
    example = md_escape(downloads.example_rule_line(dataset))
    st.caption(
        f"One rule per line, e.g. {example}, or a RIPPER rule list "
        "(wittgenstein's `ruleset_`, e.g. `[[x=<0.8]]`). The budgets and eps of the "
        f"Explain page are used for the totals, on {rows_text}."
    )
    st.file_uploader("Rule file (.txt)", type=["txt", "rules"], key=Session.rules_upload_widget.key,
                     on_change=_remember_rules_upload, args=(state,))
    upload = state.rules_upload
    if not upload:
        return
    try:
        text = downloads.decode_text(upload["data"])
        ripper_class = None
        if downloads.is_ripper_text(text):
            ripper_class = st.selectbox("A RIPPER rule list: the class its rules predict", dataset.classes,
                                        key=Session.ripper_class.key, format_func=str)
        report = downloads.evaluate_rule_text(
            text,
            rows,
            complexity_budget=state.bc,
            error_budget=state.be,
            eps=float(state.eps),
            holdout=holdout,
            ripper_class=ripper_class,
        )
    except ValueError as exc:
        st.error("The rule file cannot be used: " + md_escape(str(exc)), icon=":material/error:")
    except Exception as exc:  # never a traceback on the page
        st.error(f"The rule file cannot be used ({type(exc).__name__}).", icon=":material/error:")
    else:
        cards.evaluation_card(upload["name"], report, rows_text)
