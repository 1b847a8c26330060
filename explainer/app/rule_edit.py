"""The Rules page's rule editor: change a threshold or a value set of the picked rule, or drop a phrase,
and see at once the edited rule's support, errors and precision and the set's accuracy beside what they
were; "Keep this edit" records the edited rule's text to be pinned in the next run.

One row of widgets per phrase of the rule text (:func:`~explainer.rules.editing.rule_parts`): number fields
for numeric bounds (clear one to leave that bound out), the column's values for a value set, and a "drop"
box.  The edited rule is the one its text reads back as (:func:`~explainer.rules.editing.settle`), and
its numbers come from :class:`~explainer.report.edits.RuleEdits`, made once per explanation and kept in
the session.  The editor is a fragment: an edit reruns the editor only, not the page.  A rule may lose
every condition (``IF TRUE THEN ...``, covering every row), as the rule model allows.
"""

from __future__ import annotations

import hashlib
import math

import numpy as np
import streamlit as st

from explainer.app.session import Session
from explainer.app.text import md_escape
from explainer.data import Dataset
from explainer.report import RuleSetReport
from explainer.report.edits import EditMetrics, RuleEdits
from explainer.rules.editing import RulePart, replace_parts, rule_parts, settle
from explainer.rules.model import Rule
from explainer.rules.render import value_text

#: a value set on a numeric column offers the column's values when it has at most this many
MAX_VALUE_OPTIONS = 200

KEPT = "Kept: it joins the pool and is pinned in the next run (press Run on the Explain page)."


def edit_card(state: Session, dataset: Dataset, report: RuleSetReport) -> None:
    """The editor of the rule picked above (``state.rule_pick``)."""
    st.markdown("**Edit this rule**")
    st.caption("Change a bound or a set of values, or drop a condition: the edited rule's numbers and the "
               "set's accuracy follow at once (the ELSE class stays as it is). Clear a bound to leave it out.")
    _editor(state, dataset, report)


def rule_edits(state: Session, report: RuleSetReport, dataset: Dataset) -> RuleEdits:
    """The explanation's :class:`RuleEdits`, made once per report and rows and kept in the session."""
    edits = state.rule_edits
    if edits is None or edits.report is not report or edits.X is not dataset.X:
        edits = state.rule_edits = RuleEdits(report, dataset.X)
    return edits


def keep_edit(state: Session, rule: Rule) -> list[str]:
    """Add the rule's text to the pool's rules (the pool is built again with it) and to the texts pinned in the
    next run (once; a ban of it is lifted); returns the pinned texts."""
    state.edited_rules = list(dict.fromkeys([*(state.edited_rules or []), rule.text]))
    kept = list(state.pinned_rules or [])
    if rule.text not in kept:
        kept.append(rule.text)
    state.pinned_rules = kept
    state.banned_rules = [t for t in state.banned_rules or [] if t != rule.text]
    return kept


@st.fragment
def _editor(state: Session, dataset: Dataset, report: RuleSetReport) -> None:
    if report.n_rules == 0 or state.rule_pick not in range(report.n_rules):
        return
    index = int(state.rule_pick)
    try:
        edits = rule_edits(state, report, dataset)
        # the rule as its text reads back: the thresholds the fields start from are the printed ones
        original = settle(report.rules[index], dataset.feature_specs, dataset.classes)
    except (KeyError, ValueError) as exc:
        st.info(md_escape(f"This rule cannot be edited here: {exc}"), icon=":material/info:")
        return
    parts = rule_parts(original)
    tag = hashlib.blake2b(original.text.encode("utf-8"), digest_size=6).hexdigest()
    left, right = st.columns([3, 2], gap="large")
    with left:
        replacements = {}
        for k, part in enumerate(parts):
            new = _part_row(dataset, part, f"{tag}_{k}")
            if new is not None:
                replacements[k] = new
    try:
        edited = settle(replace_parts(original, parts, replacements), dataset.feature_specs, dataset.classes)
    except (KeyError, ValueError) as exc:
        st.error(md_escape(exc), icon=":material/error:")
        return
    metrics = edits.evaluate(index, edited)
    with right:
        _metrics(metrics, report)
    st.text(f"Edited: {edited.text}")  # plain text: names and values are the user's
    unchanged = edited == original
    if st.button("Keep this edit", key=Session.rule_edit_key(tag, "keep"), disabled=unchanged,
                 help="Adds the edited rule to the pool and pins it in the next run."):
        keep_edit(state, edited)
        st.success(KEPT, icon=":material/push_pin:")


def _part_row(dataset: Dataset, part: RulePart, key: str) -> tuple | None:
    """One phrase: its text, its widgets and a drop box; the conditions that replace it (None: unchanged)."""
    c1, c2, c3 = st.columns([2, 3, 1], vertical_alignment="center")
    c1.text(part.text)
    drop = c3.checkbox("drop", key=Session.rule_edit_key(key, "drop"), help="Drop this condition.")
    with c2:
        if part.kind == "bounds":
            new = _bounds(part, key)
        elif part.kind == "values" and (options := _value_options(dataset, part)) is not None:
            new = _values(part, options, key)
        else:
            st.caption("kept as it is, or dropped")
            new = None
    return () if drop else new


def _bounds(part: RulePart, key: str) -> tuple | None:
    """A number field per bound; a cleared field leaves its bound out."""
    fields: dict[str, float | None] = {}
    bounds = {name: cond for name, cond in (("lower", part.lower), ("upper", part.upper)) if cond is not None}
    for name, cond in bounds.items():
        integer = cond.spec is not None and cond.spec.integer
        fields[name] = st.number_input(
            md_escape(f"{part.column} {cond.op}"), value=float(cond.threshold), step=1.0 if integer else None,
            format="%.0f" if integer else _format(cond.threshold), key=Session.rule_edit_key(key, name))
    if all(value is not None and value == bounds[name].threshold for name, value in fields.items()):
        return None
    return part.with_bounds(fields.get("lower"), fields.get("upper"))


def _format(threshold: float) -> str:
    """Enough decimals to show the threshold as its text prints it (2.45, 0.125), at least two."""
    text = repr(float(threshold))
    decimals = len(text.split(".", 1)[1]) if "." in text and "e" not in text else 2
    return f"%.{min(max(decimals, 2), 8)}f"


def _value_options(dataset: Dataset, part: RulePart) -> list | None:
    """The values a value set can name: the column's categories, or a numeric column's distinct values
    (None when it has too many to list)."""
    if not part.numeric:
        options = [s.value for s in dataset.feature_specs if s.kind == "onehot" and s.column == part.column]
    else:
        feature = next((s.name for s in dataset.feature_specs if s.kind == "numeric" and s.column == part.column),
                       None)
        if feature is None:
            return None
        column = dataset.X[feature].to_numpy(dtype=float)
        distinct = np.unique(column[~np.isnan(column)])
        if len(distinct) > MAX_VALUE_OPTIONS:
            return None
        options = [float(v) for v in distinct]
    return options + [v for v in part.values if v not in options]


def _values(part: RulePart, options: list, key: str) -> tuple | None:
    chosen = st.multiselect(md_escape(f"{part.column} {'not in' if part.negated else 'in'}"), options,
                            default=list(part.values), format_func=value_text,
                            key=Session.rule_edit_key(key, "values"))
    if set(map(value_text, chosen)) == set(map(value_text, part.values)):
        return None
    try:
        return part.with_values(chosen)
    except ValueError:
        st.warning("Pick at least one value, or drop the condition.", icon=":material/warning:")
        return None


def _metrics(m: EditMetrics, report: RuleSetReport) -> None:
    """The edited numbers beside those of the rule as selected."""
    was = report.per_rule[m.index]
    st.markdown("**The edited rule**")
    k1, k2, k3 = st.columns(3)
    k1.metric("Support", f"{m.support:,}", _delta(m.support - was.support), help=f"was {was.support:,}")
    k2.metric("Errors", f"{m.errors:,}", _delta(m.errors - was.errors), delta_color="inverse",
              help=f"was {was.errors:,}")
    k3.metric("Precision", f"{100 * m.precision:.1f}%", _points(m.precision, was.precision),
              help=f"was {100 * was.precision:.1f}%")
    st.markdown("**The rule set with it**")
    k4, k5 = st.columns(2)
    k4.metric("Accuracy", f"{100 * m.accuracy:.1f}%", _points(m.accuracy, report.accuracy),
              help=f"was {100 * report.accuracy:.1f}%")
    k5.metric("Balanced accuracy", f"{100 * m.balanced_accuracy:.1f}%",
              _points(m.balanced_accuracy, report.balanced_accuracy),
              help=f"was {100 * report.balanced_accuracy:.1f}%")
    st.caption(f"was: support {was.support:,}, errors {was.errors:,}, precision {100 * was.precision:.1f}%, "
               f"accuracy {100 * report.accuracy:.1f}%, balanced accuracy {100 * report.balanced_accuracy:.1f}%; "
               f"{m.changed:,} rows get another class with the edit.")


def _delta(d: int) -> str | None:
    return f"{d:+,}" if d else None


def _points(new: float, old: float) -> str | None:
    d = 100 * (new - old)
    return f"{d:+.1f} pp" if not math.isclose(d, 0.0, abs_tol=0.05) else None
