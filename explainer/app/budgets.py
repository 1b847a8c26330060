"""The budgets Bc and Be: their widgets, range and defaults, and the trade-off frontier that guides them.

The budgets live in ``state["w_bc"]`` and ``state["w_be"]`` (plain values, kept across pages and
in the URL).  Each is shown as a slider with a number field beside it; both widgets carry the
value in their key, so they are created afresh whenever it changes and neither can send back a
value the browser remembered from before (a frontier click, a link or a new pool's defaults would
otherwise be undone by the other widget).
"""

from __future__ import annotations

import streamlit as st

from ..pipeline import resolve_budgets
from ..pool import RulePool
from .text import algorithm_parameters


def budget_limits(pool: RulePool, n_rows: int) -> tuple[int, int]:
    """Largest useful Bc and Be: the whole pool's complexity (every rule selected) and every row."""
    return max(1, int(pool.lengths.sum())), max(0, int(n_rows))


def set_budgets(state, bc: int | None = None, be: int | None = None) -> None:
    if bc is not None:
        state["w_bc"] = int(bc)
    if be is not None:
        state["w_be"] = int(be)


@st.cache_resource(show_spinner=False, max_entries=32)
def _defaults(pool_key, _pool: RulePool) -> tuple[int, int]:
    try:
        return resolve_budgets(_pool)
    except ValueError:  # no reference tree: something small
        return 10, max(1, _pool.n_rows // 20)


def default_budgets(state, pool: RulePool) -> tuple[int, int]:
    """The engine's own default budgets for this pool (:func:`explainer.pipeline.resolve_budgets`), cached."""
    return _defaults(state.get("pool_key"), pool)


def init_budgets(state, pool: RulePool) -> None:
    """Default budgets once per pool, unless a link brought its own; then clamp them to the pool's range."""
    if state.get("budget_for") != state.get("pool_key"):
        state["budget_for"] = state.get("pool_key")
        if not (state.pop("_budgets_from_url", False) and "w_bc" in state and "w_be" in state):
            set_budgets(state, *default_budgets(state, pool))
    bc_max, be_max = budget_limits(pool, pool.n_rows)
    state["w_bc"] = min(max(int(state["w_bc"]), 1), bc_max)
    state["w_be"] = min(max(int(state["w_be"]), 0), be_max)


def _take(state, name: str, widget_key: str) -> None:
    state[f"w_{name}"] = int(state[widget_key])


def budget_input(state, name: str, label: str, short: str, low: int, high: int, help: str | None = None) -> int:
    """Budget ``name`` ("bc" or "be") as a slider with a number field beside it; returns its value.

    The slider sits in a container keyed ``<name>_slider``, the field in one keyed ``<name>_number``.
    """
    value = int(state[f"w_{name}"])
    s, n = st.columns([4, 1], vertical_alignment="bottom")
    with s.container(key=f"{name}_slider"):
        key = f"{name}_slider_{value}"
        st.slider(label, low, high, value=value, key=key, on_change=_take, args=(state, name, key), help=help)
    with n.container(key=f"{name}_number"):
        key = f"{name}_number_{value}"
        st.number_input(short, low, high, value=value, step=1, key=key, on_change=_take, args=(state, name, key))
    return value


def changed_parameters(state, algorithm: str) -> dict:
    """The algorithm's parameters whose widgets (``w_param_<algorithm>_<name>``) differ from the defaults."""
    out = {}
    for name, default in algorithm_parameters(algorithm).items():
        value = state.get(f"w_param_{algorithm}_{name}", default)
        if value != default:
            out[name] = value
    return out
