"""Rule pools (built once per data fingerprint and settings, while the server's cache holds them) and the
rows they are built on."""

from __future__ import annotations

import dataclasses
import time
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from explainer.app import steps
from explainer.app.budgets import budgets_need, defaults_key, validated_defaults
from explainer.app.caching import COMPUTED, frame_bytes, room_to_work
from explainer.app.session import Session, Slot
from explainer.app.sources import dataset_key, prepare_source
from explainer.app.split import Split
from explainer.app.state import forget_pool_results
from explainer.data import Dataset
from explainer.pipeline import split_holdout
from explainer.report import RuleSetReport, evaluate_rules
from explainer.rules.defaults import DEFAULT_DEPTH, DEFAULT_MAX_FIT_ROWS, DEFAULT_REPEATS
from explainer.rules.parse import parse_rule
from explainer.rules.pool import RulePool, build_pool, grid_params

#: Trees of a "forest" pool per repeat.
FOREST_TREES = 100


@dataclass(frozen=True)
class PoolSettings:
    max_depth: int = DEFAULT_DEPTH
    source: str = "grid"
    n_repeats: int = DEFAULT_REPEATS
    random_state: int = 0
    holdout: float = 0.0  # share of the rows held out (stratified, seeded by random_state): never in the pool
    phrase_length: bool = True  # rules in their simplest form, budgets in phrases: the default pool's
    grow: bool = True  # rules grown beside the tree paths: the default pool's
    max_fit_rows: int | None = DEFAULT_MAX_FIT_ROWS  # trees learn from a sample of larger tables: the default pool's
    forbidden: tuple[str, ...] = ()
    extra_rules: tuple[str, ...] = ()  # rule texts that join the pool (the Rules page's kept edits)  # columns no rule may name (the trees learn without them)


def _split(fraction: float, seed: int, dataset: Dataset) -> Split:
    if fraction <= 0:
        return Split(dataset)

    y = np.asarray(dataset.y)
    # split row positions, so the training rows keep their row numbers (the frame's index)
    train, test, _, _ = split_holdout(np.arange(len(y))[:, None], y, fraction, random_state=seed)
    train, test = np.sort(train.ravel()), np.sort(test.ravel())
    part = dataclasses.replace(dataset, X=dataset.X.iloc[train], y=y[train], fingerprint="")
    return Split(part, dataset.X.iloc[test].reset_index(drop=True), y[test], float(fraction))


def training_split(dataset: Dataset, settings: PoolSettings) -> Split:
    """The rows the pool is built on and the held-out rows (cached per data, share and seed)."""
    fraction, seed = float(settings.holdout), int(settings.random_state)
    return COMPUTED.get_or_make(("split", dataset.fingerprint, fraction, seed), lambda: _split(fraction, seed, dataset))


#: what a pool's build holds at its peak, per byte of its data set's feature table, so that the cache makes the
#: room first: the process's resident memory, not only what Python allocates (the trees' compiled code
#: allocates its own).  ``python scripts/table_memory.py --resident`` gave 6.7 and 7.7-8.1 times on census-like
#: tables of 364,035 rows (without and with decimal fractions) and 10.4 times on one of 87,719 rows
#: (``--mb 10 --fractions``); rounded up from the largest.  On two tables not among those: 10.4 times at 175,438
#: rows (``--mb 20 --seed 3 --fractions``) and 7.3 times at 263,157 (``--mb 30 --seed 4``).  (The default
#: budgets': :data:`.budgets.BUDGETS_PEAK_PER_BYTE`.)
POOL_PEAK_PER_BYTE = 11


def _build(settings: PoolSettings, dataset: Dataset) -> tuple[RulePool, float]:
    with room_to_work(POOL_PEAK_PER_BYTE * frame_bytes(dataset.X)):
        t0 = time.perf_counter()
        return _build_pool(settings, dataset), time.perf_counter() - t0


def _build_pool(settings: PoolSettings, dataset: Dataset) -> RulePool:
    return build_pool(
        dataset.X,
        dataset.y,
        settings.max_depth,
        random_state=settings.random_state,
        n_repeats=settings.n_repeats,
        source=settings.source,
        n_estimators=FOREST_TREES,
        classes=dataset.classes,
        feature_specs=dataset.feature_specs,
        phrase_length=settings.phrase_length,
        grow=settings.grow,
        max_fit_rows=settings.max_fit_rows,
        forbidden_columns=settings.forbidden,
        extra_rules=[parse_rule(text) for text in settings.extra_rules] or None,
    )


def _build_then_budgets(settings: PoolSettings, dataset: Dataset, budgets_key: tuple) -> tuple[RulePool, float]:
    """The pool, and its default budgets started in a thread of their own: the page asks for them next,
    and they are chosen while it draws the pool.  That thread holds the pool weakly while it waits for its
    turn (:func:`.budgets.validated_defaults`)."""
    built = _build(settings, dataset)
    if COMPUTED.get(budgets_key, None) is None:
        pool, need = weakref.ref(built[0]), budgets_need(built[0])
        steps.start(budgets_key, lambda: validated_defaults(pool, need))
    return built


def _pool_key(dataset: Dataset, settings: PoolSettings) -> tuple:
    return ("pool", dataset.fingerprint, settings)


def n_trees(settings: PoolSettings) -> int:
    """How many trees a pool of ``settings`` trains."""
    if settings.source == "forest":
        return FOREST_TREES * max(1, settings.n_repeats)
    return len(grid_params(settings.max_depth, settings.n_repeats))


def _pool_step(state: Session, split: Split, settings: PoolSettings) -> tuple[RulePool, float] | None:
    """The pool of ``split``'s training rows, or None while a thread builds it (its status drawn here)."""
    data = split.train
    trees = n_trees(settings)
    kind = "random-forest trees" if settings.source == "forest" else "CART trees"
    depth = f"depth {settings.max_depth - 1}" if settings.source == "forest" else f"depth 1 … {settings.max_depth - 1}"
    grown = ", then rules grown one condition at a time beside them" if settings.grow else ""
    limit = settings.max_fit_rows
    rows = (f"a class-stratified sample of {limit:,} of the {data.n_rows:,} rows" if limit and data.n_rows > limit
            else f"{data.n_rows:,} rows")
    budgets_key = defaults_key((state.dataset.fingerprint, settings))
    return steps.ready(
        state, "pool", _pool_key(data, settings), lambda: _build_then_budgets(settings, data, budgets_key),
        title=f"Building the rule pool … ({trees} trees)",
        detail=f"{trees} {kind} of {depth} fitted on {rows}; every root-to-leaf path becomes a candidate rule "
               f"(its rows and errors counted on the whole table){grown}.",
        done=lambda built, seconds: f"Rule pool built in {seconds:.1f} s: {built[0].n_rules:,} rules "
                                    f"from {built[0].n_trees} trees",
    )


#: The pool form's fields, each with its value before the user sets one.
FORM_DEFAULTS: tuple[tuple[Slot[Any], object], ...] = ((Session.pool_depth, DEFAULT_DEPTH), (Session.pool_source, "grid"),
                 (Session.pool_repeats, DEFAULT_REPEATS), (Session.pool_seed, 0), (Session.pool_holdout, 0.0),
                 (Session.pool_forbidden, []))


def rule_columns(dataset: Dataset | None) -> list[str]:
    """The table's columns a rule may name (those of its features), in the table's order."""
    if dataset is None:
        return []
    return list(dict.fromkeys(s.column for s in dataset.feature_specs))


def forbidden_columns(state: Session) -> tuple[str, ...]:
    """The columns the form keeps out of the rules, those of the data in use only; none when that would be
    every column (the form says so)."""
    columns = rule_columns(state.dataset)
    forbidden = set(state.pool_forbidden or ())  # once: each read of the session's state has a cost
    chosen = tuple(c for c in columns if c in forbidden)
    return chosen if len(chosen) < len(columns) else ()


def page_settings(state: Session) -> PoolSettings:
    """The pool settings the Explain page's form shows (its defaults where the user has set none)."""
    for slot, default in FORM_DEFAULTS:
        if not state.has(slot):
            state.put(slot, default)
    return PoolSettings(
        max_depth=int(state.pool_depth),
        source=str(state.pool_source),
        n_repeats=int(state.pool_repeats),
        random_state=int(state.pool_seed),
        holdout=float(state.pool_holdout),
        forbidden=forbidden_columns(state),
        extra_rules=tuple(state.edited_rules or ()),
    )


def start_pool(dataset: Dataset, settings: PoolSettings) -> None:
    """Start the pool of ``dataset`` at ``settings`` in a thread of the server (and, once built, its default
    budgets), unless it is known or under way already; the Explain page then waits only for what is left."""
    data = training_split(dataset, settings).train
    key = _pool_key(data, settings)
    if COMPUTED.get(key, None) is None:
        budgets_key = defaults_key((dataset.fingerprint, settings))
        steps.start(key, lambda: _build_then_budgets(settings, data, budgets_key))


def prepare(state: Session) -> None:
    """The session's data was loaded: its pool at the Explain page's settings is started (if need be), so it
    is under way while the Data page is drawn and the user moves on."""
    dataset = state.dataset
    settings = page_settings(state)
    if dataset is not None and state.pool_key != (dataset.fingerprint, settings):
        start_pool(dataset, settings)


def encode_ahead(state: Session, source, **options) -> None:
    """The Data page shows a table read and the options its Load data would use: encode it with them now,
    then build its pool and default budgets, in a thread of the server, so Load data and the Explain page
    find them done or under way.  Not for the data in use (its pool is the Explain page's business), and
    one table at a time: a guess never piles up work."""
    key = dataset_key(source, **options)
    if (state.data_ref or {}).get("ident") == source.ident or COMPUTED.get(key, None) is not None:
        return
    if any(isinstance(step.key, tuple) and step.key[:1] == ("dataset",) for step in steps.running()):
        return
    settings = page_settings(state)
    current = state.dataset.fingerprint if state.dataset is not None else None

    def make():
        dataset = prepare_source(source, **options)
        # new data starts without held-out rows or forbidden columns (they belong to the data they were chosen for)
        start_pool(dataset, settings if dataset.fingerprint == current
                   else dataclasses.replace(settings, holdout=0.0, forbidden=(), extra_rules=()))
        return dataset

    steps.start(key, make)


def ensure_pool(state: Session, settings: PoolSettings) -> RulePool | None:
    """The pool of the session's data and settings (built on the training rows when some are held out),
    or None while it is being built (the page shows the step; see :mod:`.steps`).

    A new pool drops what was computed from the old one: its results and frontier belong to other rules.
    """
    dataset = state.dataset
    key = (dataset.fingerprint, settings)
    if state.pool_key == key:
        steps.summary(state, "pool", _pool_key(work_data(state), settings))
        return state.pool
    split = training_split(dataset, settings)
    built = _pool_step(state, split, settings)
    if built is None:
        return None
    pool, seconds = built
    if state.pool_key is not None:
        forget_pool_results(state)
    state.pool = pool
    state.pool_key = key
    state.pool_time = seconds
    state.split = split
    return state.pool


def work_data(state: Session) -> Dataset:
    """The rows the pool and the runs use: the training rows, or all of them."""
    split = state.split
    return split.train if split is not None else state.dataset


def _best_tree_report(bc: int | None, be: float | None, eps: float, pool: RulePool,
                      dataset: Dataset) -> RuleSetReport | None:
    best = pool.best_tree()
    if best is None:
        return None
    return evaluate_rules(
        pool.rule_set(best.tree.rule_ids),
        dataset.X,
        dataset.y,
        eps=eps,
        complexity_budget=bc,
        error_budget=be,
        fingerprint=dataset.fingerprint,
    )


def best_tree_report(state: Session, bc: int | None, be: float | None, eps: float) -> RuleSetReport | None:
    """Metrics of the best tree's own rules, for comparison with a selection (a budget of None: no budget;
    a weighted run's Be is a weight, kept as it is)."""
    key = ("best tree", state.pool_key, bc, be, float(eps))
    return COMPUTED.get_or_make(key, lambda: _best_tree_report(bc, be, float(eps), state.pool,
                                                               work_data(state)))

