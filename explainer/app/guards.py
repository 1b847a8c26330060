"""What a page needs before it can be drawn: each guard either returns it or ends the page's run.

A guard that ends the run says why on the page (and where to go first) before :func:`st.stop`.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from explainer.app import budgets, kept_runs, pools
from explainer.app import state as app_state
from explainer.app.session import Session
from explainer.app.sources import Source
from explainer.app.text import md_escape
from explainer.data import DataError
from explainer.rules.pool import RulePool

_ICONS = {name: icon for _, name, icon in app_state.PAGES}


def _stop_unless(ready: bool, message: str, page: str, link: str) -> None:
    if not ready:
        st.info(message, icon=":material/info:")
        st.page_link(app_state.PAGE_FILES[page], label=link, icon=_ICONS[page])
        st.stop()


def need_data(state: Session) -> None:
    """The Explain page's: a data set is loaded."""
    _stop_unless(state.dataset is not None, "Load a data set first.", "Data", "Go to the Data page")


def need_explanation(state: Session) -> None:
    """The Rules page's: an explanation has been computed (or, after a reload or from a link, the server holds
    the finished run at the link's settings: :func:`restore_run`)."""
    restore_run(state)
    _stop_unless(state.dataset is not None and state.explanation is not None,
                 "Run an explanation first (Data → Explain → Run).", "Explain", "Go to the Explain page")


def need_pool(state: Session) -> None:
    """The Compare page's: data, its rule pool and the budgets (built or fetched here after a reload, as the
    Explain page would)."""
    if state.dataset is not None and (state.pool is None or state.budget_for != state.pool_key):
        pool_and_budgets(state)
    _stop_unless(state.dataset is not None and state.pool is not None,
                 "Load data and build the rule pool on the Explain page first.", "Explain", "Go to the Explain page")


def pool_and_budgets(state: Session) -> RulePool:
    """The pool of the page's settings and its budgets, as the Explain page sets them (the defaults, or the
    link's); ends the page's run while either is computed (its status shown, the page drawn again when done)."""
    pool = pool_or_stop(state, pools.page_settings(state))
    defaults = budgets.page_defaults(state, pool)
    if defaults is None:
        st.stop()
    budgets.init_budgets(state, pool, defaults)
    return pool


def restore_run(state: Session) -> None:
    """A reload or a copied link opened on a page other than Explain: when the server holds a finished run of
    the data and the link's settings, its pool, budgets and result are taken up as the Explain page would."""
    dataset = state.dataset
    if dataset is None or state.explanation is not None or (state.job is not None and not state.job.done):
        return
    key = (dataset.fingerprint, pools.page_settings(state))
    if state.pool_key != key and not kept_runs.kept_runs(key):
        return
    pool_and_budgets(state)
    if app_state.restore_kept_run(state, budgets.run_settings(state)) in ("restored", "adopted"):
        st.rerun()  # drawn again from the top: the sidebar, drawn before, shows the explanation too


def table_or_stop(state: Session, source: Source) -> pd.DataFrame | None:
    """The raw table of ``source``; ends the page's run while it is read, None (the reason shown) if it cannot be."""
    try:
        table = app_state.read_step(state, source)
        if table is None:  # being read: its status is on the page, which is drawn again when it is done
            st.stop()
        return table
    except DataError as exc:
        st.error(md_escape(exc), icon=":material/error:")
        if state.dataset is not None:
            st.caption("The data loaded before stays in use.")
    except Exception as exc:  # never a traceback on the page
        st.error(f"The file could not be read ({type(exc).__name__}).", icon=":material/error:")
    return None


def pool_or_stop(state: Session, settings: pools.PoolSettings) -> RulePool:
    """The rule pool of ``settings``; ends the page's run while it is built, or when none can be had."""
    try:
        pool = pools.ensure_pool(state, settings)
        if pool is None:  # being built: its status is on the page, which is drawn again when it is done
            st.stop()
    except Exception as exc:  # keep the earlier pool and results
        st.error("The rule pool could not be built: " + md_escape(exc), icon=":material/error:")
        pool = state.pool
        if pool is None:
            st.stop()
        st.caption("The pool built before stays in use.")
    return pool
