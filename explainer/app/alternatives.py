"""The Explain page's "Other explanations nearly as good": up to K other rule sets within some points of the
last run's objective at its budgets, side by side, the rules every one of them shares (the stable core) apart.

Found on request (a button), in a thread of the server (:mod:`.steps`), cached by the pool, the run's settings,
its selection, K and the distance (:func:`explainer.pipeline.alternatives.explain_alternatives`: exact after an
exact run, QGA's distinct individuals after a qga run).  Rules are shown as text, never as markdown.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from explainer.app import steps
from explainer.app.session import Session
from explainer.pipeline.alternatives import explain_alternatives
from explainer.rules.render import counted
from explainer.selection.alternatives import METHODS

#: the most alternatives the page offers to find
K_MAX = 6
#: alternatives per row of columns (the best's column comes first)
PER_ROW = 3


def alternatives_panel(state: Session, pool) -> None:
    """The expander below the last result: K, the distance, the button, then the rule sets side by side."""
    explanation, run, data = state.explanation, state.run_settings, state.explanation_data
    if explanation is None or run is None or data is None:
        return
    with st.expander("Other explanations nearly as good", icon=":material/alt_route:"):
        if run.algorithm not in METHODS:
            st.caption("Alternatives are found after a run of the Exact (MILP) algorithm (the next best rule sets, "
                       "exactly) or of QGA (the best distinct rule sets it met). Run one of them to see them.")
            return
        c1, c2, c3 = st.columns([1, 1, 1], vertical_alignment="bottom")
        k = int(c1.number_input("How many (K)", min_value=1, max_value=K_MAX, step=1,
                                value=int(state.alt_k or 3), key=Session.alt_k.key))
        within = float(c2.number_input("Within (points of the rows)", min_value=0.0, max_value=100.0, step=0.5,
                                       value=float(state.alt_within if state.alt_within is not None else 1.0),
                                       key=Session.alt_within.key,
                                       help="How far below the run's objective (as a share of the rows, "
                                            "the way coverage is shown) another rule set may be."))
        selection = np.asarray(explanation.result.selection, dtype=bool)
        key = ("alternatives", state.pool_key, run, np.packbits(selection).tobytes(), k, within)
        if c3.button("Find them", icon=":material/search:", key=Session.find_alternatives.key, width="stretch"):
            state.alternatives_asked = key
        if state.alternatives_asked != key:
            how = "exact" if METHODS[run.algorithm] == "exact" else "heuristic"
            st.caption(f"Up to K rule sets, each differing by at least one rule, within the points of the rows "
                       f"of this run's objective at its budgets ({how}).")
            return
        X, y = data.X, data.y
        found = steps.ready(
            state, "alternatives", key,
            lambda: explain_alternatives(pool, X, y, run, selection, k, within),
            title="Finding other explanations", detail=f"Up to {k} within {within:g} points",
            done=lambda value, seconds: f"{len(value['alternatives'])} other explanations found in {seconds:.1f} s")
        if found is not None:
            show_alternatives(found)


def show_alternatives(found: dict) -> None:
    """The stable core once, then the best and every alternative side by side: accuracy, coverage and the
    rules that vary."""
    alts = found["alternatives"]
    note = "" if found["complete"] or not found["message"] else f" ({found['message']})"
    st.caption(f"Found by the {found['method']} search{note}: {len(alts)} within {found['within']:g} points.")
    if not alts:
        st.info("No other rule set within that distance: the run's rules are the only explanation this close.",
                icon=":material/info:")
        return
    core = found["stable_core"]
    st.markdown(f"**Stable core**: in every one ({counted(len(core), 'rule')})")
    st.code("".join(t + "\n" for t in core) or "(no rule is in every one)", language=None, wrap_lines=True)
    core_set = set(core)
    cards = [("This run", found["best"])] + [(f"Alternative {n}", alt) for n, alt in enumerate(alts, 1)]
    for start in range(0, len(cards), PER_ROW):
        columns = st.columns(PER_ROW)
        for column, (title, card) in zip(columns, cards[start : start + PER_ROW], strict=False):
            with column:
                st.markdown(f"**{title}**")
                m1, m2 = st.columns(2)
                m1.metric("Accuracy", f"{100 * card['accuracy']:.2f}%")
                m2.metric("Coverage", f"{100 * card['coverage']:.2f}%",
                          delta=f"{-card['points_below_best']:+.2f} pp" if title != "This run" else None,
                          delta_color="off")
                varying = [t for t in card["rules"] if t not in core_set]
                st.code("".join(t + "\n" for t in varying) or "(the stable core only)", language=None,
                        wrap_lines=True)
