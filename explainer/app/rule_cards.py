"""The Rules page's panels: the selected rules, one row explained, one rule inspected, coverage per class.

Clicking a row of a table points a widget below at it (:func:`follow`); the widget's own value is kept
in the session (:class:`.session.Session`), so it stays where the user left it across pages.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st

from explainer.app import charts, downloads, rows, runs
from explainer.app import state as app_state
from explainer.app.budgets import pins_in_pool, run_settings
from explainer.app.session import Session, Slot
from explainer.app.text import label, md_escape
from explainer.data import Dataset
from explainer.data.labels import label_array, label_key
from explainer.pipeline import Explanation
from explainer.report import RuleSetReport, accuracy_by_group
from explainer.report.diagnosis import REASONS
from explainer.rules.render import counted, render_label
from explainer.selection.result import status_note


def rule_columns() -> dict:
    """Column widths of a rules table, and what the rows via missing values count."""
    columns = {name: st.column_config.Column(width=width) for name, width in downloads.RULE_COLUMN_WIDTHS.items()}
    columns["rows via missing"] = st.column_config.NumberColumn("rows via missing", help=downloads.MISSING_HELP)
    return columns


def summary_card(explanation: Explanation) -> None:
    """One line and one row of metrics of the explanation."""
    report = explanation.report
    result = explanation.result
    note = status_note(result.status)
    if note:
        st.warning(f"This run was {note}.", icon=":material/warning:")
    st.caption(
        f"{label(result.algorithm)} · {counted(report.n_rules, 'rule')} · complexity {report.complexity} · "
        f"{report.errors:,} errors · {report.covered:,} of {report.n_rows:,} rows covered · "
        f"{counted(report.conflicting_pairs, 'conflicting pair')}"
    )
    k0, kb, k1, k3, k4, k5 = st.columns(6)  # six fit their labels; the rows covered are in the line above
    k0.metric("Accuracy", f"{100 * report.accuracy:.1f}%",
              help="Rows that get their true class: the vote of the rules that fire, else the fallback class.")
    kb.metric("Balanced accuracy", f"{100 * report.balanced_accuracy:.1f}%", help=downloads.BALANCED_HELP)
    k1.metric("Coverage f*", f"{100 * report.coverage_score:.2f}%", help=downloads.COVERAGE_HELP)
    k3.metric("Uncovered rows", report.n_uncovered,
              help=f"{report.covered} of {report.n_rows} rows are covered by a rule.")
    k4.metric("Voted right", f"{100 * report.vote_accuracy:.1f}%",
              help="Rows whose majority vote over the firing rules is the true class (uncovered and ties count as wrong).")
    k5.metric("Rules in conflict", sum(1 for m in report.per_rule if m.conflicts))


def follow(state: Session, selection, widget: Slot, clicked_slot: Slot[int], value: Callable) -> None:
    """Point ``widget`` at what was clicked in a table, once per click (the widget stays free after)."""
    picked = list(selection.selection.rows)
    clicked = picked[0] if picked else None
    if clicked is not None and state.get(clicked_slot) != clicked:
        state.put(widget, value(clicked))
    state.put(clicked_slot, clicked)


def misclassified_card(state: Session, dataset: Dataset, report: RuleSetReport) -> None:
    """Every row that gets another class than its own, with its reason; a click explains the row below."""
    wrong = rows.misclassified_frame(dataset, report)
    if wrong.empty:
        st.success("Every row gets its own class (the rules' vote, else the ELSE class).",
                   icon=":material/check_circle:")
        return
    st.caption(wrong_caption(wrong["reason"].tolist(), report))
    clicked_row = st.dataframe(wrong, hide_index=True, width="stretch", height=min(400, 38 + 35 * len(wrong)),
                               on_select="rerun", selection_mode="single-row", key=Session.wrong_rows_table.key)
    follow(state, clicked_row, Session.explain_row, Session.explain_row_clicked, lambda k: int(wrong["row"].iloc[k]))


def wrong_caption(reasons: list[str], report: RuleSetReport) -> str:
    """How many rows are wrong (those accuracy counts wrong) and why, reason by reason."""
    counts = {reason: reasons.count(reason) for reason in REASONS}
    words = {
        "a wrong rule": "only rules of another class fire",
        "outvoted": "rules of their class fire, but are outvoted",
        "tie -> fallback": f"classes tie and the ELSE class {render_label(report.fallback)} is wrong",
        "fallback": f"no rule fires and the ELSE class {render_label(report.fallback)} is wrong",
    }
    parts = "; ".join(f"{counts[r]:,} {r} ({words[r]})" for r in REASONS if counts[r])
    return md_escape(
        f"{len(reasons):,} of {report.n_rows:,} rows get another class than theirs "
        f"({100 * (1 - report.accuracy):.1f} %, what accuracy counts wrong): {parts}. "
        "'wrong rules' are the rule numbers above that fire with another class. Click a row to explain it below."
    )


def row_card(state: Session, dataset: Dataset, report: RuleSetReport, table: pd.DataFrame) -> None:
    """One row of the data (its values editable): the rules that fire on it and their vote."""
    numbers = rows.row_numbers(dataset)
    if (state.explain_row is None or state.explain_row_data != dataset.fingerprint
            or rows.row_position(dataset, state.explain_row) is None):  # other data: its first misclassified row
        wrong_rows = report.wrong_rows().rows
        state.explain_row = int(numbers[wrong_rows[0] if len(wrong_rows) else 0])
        state.explain_row_data = dataset.fingerprint
    r1, r2 = st.columns([1, 4], gap="large")
    with r1:
        row_no = int(st.number_input("Row", int(numbers.min()), int(numbers.max()), value=int(state.explain_row),
                                     step=1, key=Session.explain_row.key))
        position = rows.row_position(dataset, row_no)
        if position is not None:
            st.text(f"true class: {render_label(dataset.y[position])}")
    if position is None:
        r2.info(f"Row {row_no} is held out: the explanation was computed without it.", icon=":material/info:")
        return
    with r2:
        original = rows.editor_frame(dataset, position)
        original = original[rows.rules_first(original.columns, report)]
        config = {}
        for col in rows.editor_columns(dataset):
            if col.options:
                config[col.name] = st.column_config.SelectboxColumn(options=col.options, required=True)
            else:
                config[col.name] = st.column_config.NumberColumn(required=not col.values.missing_allowed)
        edited = st.data_editor(original, hide_index=True, width="stretch", key=Session.row_values_key(row_no, dataset.fingerprint),
                                num_rows="fixed", column_config=config)
    changed = not edited.equals(original)
    encoded, problem = rows.encode_edited(dataset, edited)
    if encoded is None:
        st.error(md_escape(problem), icon=":material/error:")
        return
    fired, voted = rows.explain_one_row(report, encoded)
    truth = dataset.y[position]
    verdict = rows.vote_text(voted, truth if not changed else None)
    right = voted is not None and str(voted) == str(truth) and not changed
    (st.success if right else st.info)(("With the values changed: " if changed else "") + verdict,
                                       icon=":material/how_to_vote:")
    if fired:
        st.dataframe(downloads.rules_view(table.iloc[fired]), hide_index=True, width="stretch",
                     column_config=rule_columns())


def rule_card(state: Session, dataset: Dataset, report: RuleSetReport) -> None:
    """One selected rule: its whole text, the rows it covers and the rules it conflicts with."""
    n = report.n_rules
    if state.rule_pick not in range(n):
        state.rule_pick = 0
    pick = st.selectbox(
        "Rule",
        list(range(n)),
        index=state.rule_pick,
        key=Session.rule_pick.key,
        format_func=lambda i: f"{i + 1}. {report.rules[i].text}",
    )
    st.code(report.rules[pick].text, language=None, wrap_lines=True)  # the whole rule, however long
    pin_buttons(state, report.rules[pick].text)
    metrics = report.per_rule[pick]
    if metrics.missing_rows:
        st.info(missing_detail(pick, metrics), icon=":material/help:")
    covered = report.rows_covered_by(pick)
    c1, c2 = st.columns([3, 2], gap="large")
    with c1:
        st.markdown(f"**Rows covered by rule {pick + 1}** ({counted(len(covered), 'row')}, {metrics.errors:,} "
                    "misclassified)")
        own = label_key(metrics.label)
        correct = [label_key(v) == own for v in label_array(dataset.y)[covered]]
        st.dataframe(rows.rows_frame(dataset, covered, report, {"correct": correct}),
                     hide_index=True, width="stretch", height=300)
    with c2:
        st.markdown("**Conflicts**")
        conflicting = report.conflicting_rules(pick)
        if not conflicting:
            st.success("This rule conflicts with no other selected rule.", icon=":material/check_circle:")
        for k in conflicting:
            conflict_rows = report.conflicts_between(pick, k)
            with st.container(border=True):
                st.text(f"Rule {k + 1}: {report.rules[k].text}")
                st.caption(f"{counted(len(conflict_rows), 'shared row')}: "
                           + ", ".join(str(r) for r in rows.row_numbers(dataset)[conflict_rows[:50]])
                           + (" …" if len(conflict_rows) > 50 else ""))
                with st.expander("Show these rows"):
                    st.dataframe(rows.rows_frame(dataset, conflict_rows, report), hide_index=True, width="stretch")


# ------------------------------------------------------------------ pins and bans
def toggle_rule(state: Session, text: str, slot: Slot[list], other: Slot[list]) -> None:
    """on_click of Pin / Ban: the rule ``text`` joins the list ``slot`` (and leaves ``other``), or leaves it."""
    current: list = state.get(slot) or []
    texts = list(current)
    if text in texts:
        texts.remove(text)
    else:
        texts.append(text)
        state.put(other, [t for t in state.get(other) or [] if t != text])  # a rule is pinned or banned, not both
    state.put(slot, texts)


def pin_buttons(state: Session, text: str) -> None:
    """Pin (every run keeps the rule) and Ban (no run takes it) for the inspected rule; each toggles."""
    pinned, banned = text in (state.pinned_rules or []), text in (state.banned_rules or [])
    b1, b2, _ = st.columns([1, 1, 4])
    b1.button("Unpin" if pinned else "Pin", icon=":material/push_pin:", key=Session.pin_rule.key, width="stretch",
              help="A pinned rule is in every selection; the rest is chosen within what the budgets leave.",
              on_click=toggle_rule, args=(state, text, Session.pinned_rules, Session.banned_rules))
    b2.button("Unban" if banned else "Ban", icon=":material/block:", key=Session.ban_rule.key, width="stretch",
              help="A banned rule is in no selection.",
              on_click=toggle_rule, args=(state, text, Session.banned_rules, Session.pinned_rules))


def pins_panel(state: Session) -> None:
    """The pinned and banned rules, whether the rules shown were chosen under them, Re-run and Clear."""
    pinned, banned = state.pinned_rules or [], state.banned_rules or []
    if not pinned and not banned:
        return
    usable = pins_in_pool(state)
    shown = state.run_settings
    applied = shown is not None and (tuple(shown.pinned), tuple(shown.banned)) == usable
    lines = [f"**{kind}:** " + "; ".join(md_escape(t) + ("" if t in ok else " *(not in this pool)*") for t in texts)
             for kind, texts, ok in (("Pinned", pinned, usable[0]), ("Banned", banned, usable[1])) if texts]
    st.markdown("  \n".join(lines) + ("" if applied else " — *re-run to apply*"))
    c1, c2, _ = st.columns([1, 1, 3])
    c1.button("Re-run", type="primary", icon=":material/play_arrow:", key=Session.rerun_pins.key, width="stretch",
              disabled=applied, on_click=runs.start_run, args=(state, state.pool_key, run_settings(state)))
    c2.button("Clear pins and bans", key=Session.clear_pins.key, width="stretch",
              on_click=lambda: state.forget(Session.pinned_rules, Session.banned_rules))


def follow_rerun(state: Session) -> None:
    """After Re-run: the Explain page, where the run is watched."""
    if state.rerun_pins:
        st.switch_page(app_state.PAGE_FILES["Explain"])


def missing_detail(pick: int, metrics) -> str:
    """Rule 3 takes 1,728 rows through a missing stalk-root: which condition holds on the missing value."""
    held = "; ".join(f"'{c['condition']}' holds on a missing {c['column']} ({c['rows']:,} rows)"
                     for c in metrics.missing_conditions())
    return md_escape(f"Rule {pick + 1} {metrics.missing_text} of its {metrics.support:,}: {held}.")


def per_class_card(report: RuleSetReport) -> None:
    """Coverage per class, as a table and a chart."""
    per_class = report.per_class()
    # the table's six columns need more than half the page at 1,440 pixels (its last one was cut off there)
    p1, p2 = st.columns([3, 2], gap="large")
    with p1:
        st.dataframe(
            per_class,
            hide_index=True,
            width="stretch",
            column_config={
                "covered_pct": st.column_config.ProgressColumn("covered %", format="%.1f%%", min_value=0,
                                                               max_value=100, width="small"),
                "right": st.column_config.NumberColumn(
                    "right", help="Rows that get their class: the rules' vote, else the ELSE class."),
                "by_fallback": st.column_config.NumberColumn(
                    "right by ELSE", help="Of those, the rows no rule covers or where classes tie."),
            },
        )
    with p2:
        st.plotly_chart(charts.per_class_figure(per_class), width="stretch", key=Session.per_class_chart.key)


def group_card(state: Session, dataset: Dataset, report: RuleSetReport) -> None:
    """Accuracy and coverage in each group of a chosen column (e.g. one kept out of the rules), on the rows
    the explanation was computed on and, when some were held out, on those too (cut into the same ranges)."""
    columns = [str(c) for c in rows.original_values(dataset, []).columns]
    if not columns:
        return
    forbidden = list(state.pool.forbidden_columns) if state.pool is not None else []
    if state.group_by not in columns:  # a column kept out of the rules is the one to look at first
        state.group_by = next((c for c in forbidden if c in columns), columns[0])
    column = st.selectbox("Accuracy by group of:", columns, index=columns.index(state.group_by),
                          key=Session.group_by.key,
                          format_func=lambda c: f"{c} (kept out of the rules)" if c in forbidden else c)
    table = accuracy_by_group(report, rows.original_values(dataset, range(dataset.n_rows))[column], column)
    tables = [("Training rows" if report.holdout is not None else None, table)]
    split = state.split
    if report.holdout is not None and split is not None and split.X_test is not None \
            and len(split.X_test) == report.holdout.n_rows:
        held = dataset.encoder.inverse_transform(split.X_test) if dataset.encoder is not None else split.X_test
        tables.append(("Held-out rows", accuracy_by_group(report.holdout, held[column], column, like=table)))
    for title, t in tables:
        if title:
            st.text(title)  # plain text: nothing of the table is read as markdown
        st.dataframe(_group_view(t.frame), hide_index=True, width="stretch", column_config=_GROUP_COLUMNS)
    st.caption("A group is a value of the column (a missing value is a group of its own); a numeric column of many "
               "values is cut into at most 8 ranges of about as many rows. Coverage: the rows some rule fires on; "
               "accuracy: the rows that get their class (the rules' vote, else the ELSE class).")


_GROUP_COLUMNS = {
    "coverage %": st.column_config.ProgressColumn("coverage %", format="%.1f%%", min_value=0, max_value=100),
    "accuracy %": st.column_config.NumberColumn("accuracy %", format="%.1f%%"),
    "balanced accuracy %": st.column_config.NumberColumn("balanced accuracy %", format="%.1f%%"),
}


def _group_view(frame: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({
        "group": frame["group"], "rows": frame["rows"], "covered": frame["covered"],
        "coverage %": 100 * frame["coverage"], "right": frame["right"], "accuracy %": 100 * frame["accuracy"],
        "balanced accuracy %": 100 * frame["balanced_accuracy"],
    })


def uncovered_card(dataset: Dataset, report: RuleSetReport) -> None:
    uncovered = report.uncovered_rows()
    if len(uncovered) == 0:
        st.success("Every row is covered by at least one rule.", icon=":material/check_circle:")
    else:
        st.caption(f"{len(uncovered)} rows ({100 * len(uncovered) / report.n_rows:.1f}%)")
        st.dataframe(rows.rows_frame(dataset, uncovered, report), hide_index=True, width="stretch", height=300)
