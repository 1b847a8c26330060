"""The budgets Bc and Be: their widgets, range and defaults, and the trade-off frontier that guides them.

The budgets live in ``state.bc`` and ``state.be`` (plain values, kept across pages and
in the URL).  Each is shown as a slider with a number field beside it; both widgets carry the
value in their key, so they are created afresh whenever it changes and neither can send back a
value the browser remembered from before (a frontier click, a link or a new pool's defaults would
otherwise be undone by the other widget).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from explainer.app import kept_runs, steps
from explainer.app.caching import COMPUTED, frame_bytes, room_to_work
from explainer.app.charts import frontier_figure
from explainer.app.jobs import FrontierJob
from explainer.app.session import FrontierEntry, Session
from explainer.app.text import algorithm_choices, algorithm_parameters, default_algorithm, md_escape
from explainer.pipeline import PolicyChoice, resolve_defaults
from explainer.pipeline.validation import DEFAULT_SIZE, SIZES
from explainer.rules.pool import BuildCancelled, RulePool
from explainer.rules.render import counted, render_label
from explainer.selection.frontier import Frontier, lifted
from explainer.selection.result import ReadsEvaluation, SelectionResult
from explainer.selection.settings import RunSettings
from explainer.selection.solvers import objective_for


def budget_limits(pool: RulePool, n_rows: int) -> tuple[int, int]:
    """Largest useful Bc and Be: the whole pool's complexity (every rule selected) and every row."""
    return max(1, int(pool.lengths.sum())), max(0, int(n_rows))


def set_budgets(state: Session, bc: int | None = None, be: int | None = None) -> None:
    if bc is not None:
        state.bc = bc
    if be is not None:
        state.be = be


def choose_defaults(pool: RulePool, size: str | None = None, curve=()) -> PolicyChoice:
    """The engine's choice for this pool: budgets, form of explanation, fallback class and the rules the form
    allows (:func:`explainer.pipeline.resolve_defaults`; without a reference tree, what the policy uses then).
    ``size``: the knob (``None``: the default); ``curve``: the validation curve chosen from at another size."""
    return resolve_defaults(pool, refuse_without_tree=False, size=size, curve=tuple(curve) or None)


#: what the default budgets' validation holds at its peak beyond its pool, per byte of the pool's feature table,
#: so that the cache makes that room first: the process's resident memory (``python scripts/table_memory.py
#: --resident`` gave 6.9 and 8.7-9.0 times on census-like tables of 364,035 rows, without and with decimal
#: fractions, and 10.0 times on one of 87,719 rows, ``--mb 10 --fractions``); rounded up from the largest.  On two
#: tables not among those: 8.2 times at 175,438 rows (``--mb 20 --seed 3 --fractions``) and 8.0 times at 263,157
#: (``--mb 30 --seed 4``)
BUDGETS_PEAK_PER_BYTE = 11


def budgets_need(pool: RulePool) -> int:
    """The bytes the default budgets' validation of ``pool`` holds at its peak (:data:`BUDGETS_PEAK_PER_BYTE`)."""
    table = pool.training_table
    return BUDGETS_PEAK_PER_BYTE * frame_bytes(table) if isinstance(table, pd.DataFrame) else 0


def validated_defaults(get_pool, need_bytes: int, size: str | None = None) -> PolicyChoice:
    """:func:`choose_defaults` (at ``size``) of the pool ``get_pool()`` gives, as the server's one computation that
    makes room (:func:`~explainer.app.caching.room_to_work`).  ``get_pool`` is asked once the room is there: given
    a weak reference, a step that waits does not keep a pool the cache lets go of meanwhile, and ends as if
    cancelled (a page that asks for the budgets then starts them again, with its pool)."""
    with room_to_work(need_bytes):
        pool = get_pool()
        if pool is None:
            raise BuildCancelled("the rule pool was let go before its default budgets were chosen")
        return choose_defaults(pool, size)


def defaults_key(pool_key: tuple, size: str = DEFAULT_SIZE) -> tuple:
    """Where the default budgets at ``size`` of the pool known to the session as ``pool_key`` are kept."""
    return ("default budgets", pool_key, size)


def page_size(state: Session) -> str:
    """The explanation size the session asks for (:data:`explainer.pipeline.SIZES`)."""
    return state.size if state.size in SIZES else DEFAULT_SIZE


def _key(state: Session) -> tuple:
    return defaults_key(state.pool_key, page_size(state))


#: the knob in words: which explanation the policy takes (what the Explain page and its steps say)
SIZE_WORDS = {
    "compact": "the smallest whose held-out accuracy and Brier score are within one standard error of the best",
    "balanced": "the smallest whose held-out accuracy and Brier score are within half a standard error of the best",
    "accurate": "the smallest with the best held-out accuracy and Brier score (on accuracy alone when no candidate "
                "has both)",
}


def _choose_at(pool: RulePool, pool_key: tuple, size: str) -> PolicyChoice:
    """The policy's choice at ``size``.  The validation curve does not depend on the size, only the pick
    does: a size other than the default re-picks on the default's curve (its step started if need be, or
    waited for while under way), so that switching the size costs the pick alone."""
    def validated(at: str | None = None) -> PolicyChoice:
        return validated_defaults(lambda: pool, budgets_need(pool), at)

    if size == DEFAULT_SIZE:
        return validated()
    base = steps.start(defaults_key(pool_key), validated)
    base.wait(None)
    known = base.result() if base.error is None else None
    curve = known.frontier if isinstance(known, PolicyChoice) else ()
    if not curve:  # the default's step ended without its curve (its page closed): the whole validation, in turn
        return validated(size)
    return choose_defaults(pool, size, curve)


def page_defaults(state: Session, pool: RulePool) -> tuple[int, int] | None:
    """The engine's own default budgets for this pool at the session's size
    (:func:`explainer.pipeline.resolve_defaults`), cached; None while a thread chooses them (the page shows
    the step; see :mod:`.steps`)."""
    best = pool.best_tree()
    size, pool_key = page_size(state), state.pool_key
    chosen = steps.ready(
        state, "budgets", _key(state), lambda: _choose_at(pool, pool_key, size),
        title="Choosing default budgets …",
        detail=(f"Explanations of every size up to twice the best tree's {best.complexity} conditions, with rules "
                "for every class or only for the classes other than the most frequent one, each built on part of "
                f"the rows and scored on the rows it did not see; {SIZE_WORDS[size]} (the command line's and the "
                f"estimator's defaults too, at size {size}).")
        if best is not None else "",
        done=lambda chosen, seconds: f"Default budgets chosen in {seconds:.1f} s: Bc = {chosen.complexity_budget}, "
                                     f"Be = {chosen.error_budget:,}",
    )
    return None if chosen is None else chosen.budgets


def _choice(state: Session) -> PolicyChoice | None:
    """The policy's choice for the session's pool, while the server keeps it (None: not chosen, or dropped)."""
    return COMPUTED.get(_key(state), None)


def page_choice(state: Session) -> PolicyChoice | None:
    """The policy's choice for the session's pool at its size (budgets, form, objective, validation curve), while
    the server keeps it."""
    return _choice(state)


def choose_accuracy_point(state: Session) -> None:
    """on_select of the accuracy frontier: the clicked candidate's Bc and Be become the budgets, and a run at
    them uses its form and objective; the default's are the policy's own budgets (a large table's Be may be
    raised to what the selection on every row needs)."""
    for point in _selected_points(state.accuracy_chart):
        data = point.get("customdata") if isinstance(point, dict) else None
        if data is None or len(data) < 5:
            continue
        choice = _choice(state)
        if int(data[4]) and choice is not None:
            set_budgets(state, *choice.budgets)
            del state.accuracy_pick
            return
        bc, be = int(data[0]), int(round(float(data[1])))
        set_budgets(state, bc, be)
        state.accuracy_pick = (bc, be, str(data[2]), str(data[3]))
        return


def default_form_text(state: Session, pool: RulePool) -> str:
    """The form of explanation the default policy chose for this pool, in words (plain text, not Markdown)."""
    chosen = _choice(state)
    if chosen is None or chosen.form == "all":
        return "rules for every class"
    return (f"rules for the classes other than {render_label(pool.classes[chosen.fallback])}, which takes every row "
            "they leave (ELSE)")


#: what a run maximises, in words, by its objective
OBJECTIVE_TEXT = {"accuracy": "maximising the rows it gets right (the accuracy objective)",
                  "coverage": "maximising the rows covered (the paper's coverage f*)"}


def default_objective_text(state: Session) -> str:
    """What the default explanation maximises, in words (plain text)."""
    chosen = _choice(state)
    return OBJECTIVE_TEXT["accuracy" if chosen is not None and chosen.objective == "accuracy" else "coverage"]


def run_form_text(state: Session, run: RunSettings) -> str:
    """The form and objective of ``run`` in words (plain text): what the Compare page's runs share with the
    Explain page's."""
    form = "rules for every class" if run.form == "all" or state.pool is None else default_form_text(state, state.pool)
    return f"{form}, {OBJECTIVE_TEXT[run.objective]}"


def _picked(state: Session, bc: int, be: int) -> tuple | None:
    """The accuracy frontier's point last clicked, while the budgets are its own: (Bc, Be, form, objective)."""
    pick = state.accuracy_pick
    return pick if pick is not None and tuple(pick[:2]) == (bc, be) else None


def run_form(state: Session, bc: int, be: int, class_weight) -> tuple[str, str]:
    """(form, objective) of a run at budgets (bc, be): the clicked accuracy point's at its budgets, the default
    policy's at its default budgets, else every rule (``"all"``) and the paper's coverage, as ``explain`` does
    without budgets and with them.  The policy weighs unweighted rows, so a run whose rows are weighted
    (``class_weight``) uses every rule and the coverage objective."""
    if class_weight is not None:
        return "all", "coverage"
    pick = _picked(state, bc, be)
    if pick is not None:
        return pick[2], pick[3]
    chosen = _choice(state)
    if chosen is None:
        return "all", "coverage"
    return chosen.form_at(bc, be), chosen.objective_at(bc, be)


def chosen_algorithm(state: Session) -> str:
    """The algorithm the Explain page's widget holds, the default one when it holds none of those that load (the
    widget is drawn only once the pool and budgets are ready, and the Compare page reads it before that)."""
    choices = algorithm_choices()
    if state.algorithm not in choices:
        state.algorithm = default_algorithm(choices) or "qga"  # none loads: the run says so
    return state.algorithm


def run_settings(state: Session, algorithm: str | None = None) -> RunSettings:
    """The run the Explain page's widgets describe: budgets, algorithm and its changed parameters, eps, seed,
    class weight (the widget's ``"none"`` is ``None``), at the default budgets the policy's form and objective
    (the paper's coverage for an algorithm that optimises nothing else), and the pinned and banned rules of the
    Rules page that the pool holds (:func:`pins_in_pool`).  ``algorithm``: that run with another algorithm (the
    Compare page's), else the Explain page's."""
    class_weight = None if state.class_weight == "none" else state.class_weight
    algorithm = algorithm or chosen_algorithm(state)
    pinned, banned = pins_in_pool(state)
    form, objective = run_form(state, state.bc, state.be, class_weight)
    objective = objective_for(algorithm, objective)  # ForEx++ and IRFRE optimise the paper's coverage only
    return RunSettings(
        complexity_budget=state.bc, error_budget=state.be, algorithm=algorithm,
        algorithm_params=changed_parameters(state, algorithm), eps=state.eps,
        form=form, class_weight=class_weight, seed=state.seed, objective=objective, pinned=pinned, banned=banned,
    )


def pins_in_pool(state: Session) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The pinned and banned rule texts that name rules of the session's pool (the others wait for a pool that
    holds them: the page's pool and its runs' selections then keep the same rules)."""
    pinned, banned = state.pinned_rules or [], state.banned_rules or []
    if not (pinned or banned) or state.pool is None:
        return (), ()
    texts = {rule.text for rule in state.pool.rules}
    return tuple(t for t in pinned if t in texts), tuple(t for t in banned if t in texts)


def init_budgets(state: Session, pool: RulePool, defaults: tuple[int, int]) -> None:
    """Default budgets once per pool, unless a link brought its own, and again when the size changes, unless
    they were set by hand (they are not the defaults of the size before); then clamp them to the pool's range."""
    size = page_size(state)
    before = state.budget_defaults
    if state.budget_for != state.pool_key:
        state.budget_for = state.pool_key
        from_url = state.budgets_from_url
        del state.budgets_from_url
        if not (from_url and state.has(Session.bc) and state.has(Session.be)):
            set_budgets(state, *defaults)
    elif before is not None and before[0] != size and (state.bc, state.be) == tuple(before[1]):
        set_budgets(state, *defaults)
    state.budget_defaults = (size, tuple(defaults))
    bc_max, be_max = budget_limits(pool, pool.n_rows)
    state.bc = min(max(state.bc, 1), bc_max)
    state.be = min(max(state.be, 0), be_max)


def _take(state: Session, name: str, widget_key: str) -> None:
    state.put(BUDGETS[name], state.value(widget_key))


#: The budget values by the short names their widgets are keyed with.
BUDGETS = {"bc": Session.bc, "be": Session.be}


def slider_top(pool: RulePool, value: int, high: int) -> int:
    """Where the Bc slider ends: the frontier's range (twice the best tree's c*), or further to reach ``value``.

    The number field beside it still goes to ``high``; a slider over every rule of a large pool would
    leave the useful budgets in its first few pixels.
    """
    return min(high, max(frontier_range(pool, value, high)[1], value))


def budget_input(state: Session, name: str, label: str, short: str, low: int, high: int, help: str | None = None,
                 slider_high: int | None = None) -> int:
    """Budget ``name`` ("bc" or "be") as a slider with a number field beside it; returns its value.

    The field ranges over ``low .. high``, the slider over ``low .. slider_high`` (default ``high``).
    The slider sits in a container keyed ``<name>_slider``, the field in one keyed ``<name>_number``.
    """
    value = int(state.get(BUDGETS[name]))
    s, n = st.columns([4, 1], vertical_alignment="bottom")
    with s.container(key=f"{name}_slider"):
        key = f"{name}_slider_{value}"
        top = max(value, slider_high if slider_high is not None else high, low + 1)
        st.slider(label, low, top, value=value, key=key, on_change=_take, args=(state, name, key), help=help)
    with n.container(key=f"{name}_number"):
        key = f"{name}_number_{value}"
        st.number_input(short, low, high, value=value, step=1, key=key, on_change=_take, args=(state, name, key))
    return value


def changed_parameters(state: Session, algorithm: str) -> dict:
    """The algorithm's parameters whose widgets (:meth:`Session.param_key`) differ from the defaults."""
    out = {}
    for name, default in algorithm_parameters(algorithm).items():
        value = state.value(Session.param_key(algorithm, name), default)
        if value != default:
            out[name] = value
    return out


# --------------------------------------------------------------------------- the trade-off frontier

#: Seconds between redraws of a frontier being computed.
FRONTIER_REFRESH_S = 1.0
#: The known runs' selections a new frontier starts from, the best first (each is tried at every point).
MAX_SEEDS = 8


def frontier_key(key: tuple) -> tuple:
    """Where the server's cache (:data:`.caching.COMPUTED`) keeps the whole frontier of a (pool key, Be, eps,
    range): a reload, another tab or a Be chosen again reuses it."""
    return ("frontier", *key)


def _keep_finished(entry: FrontierEntry) -> None:
    """Take the frontier ``entry``'s job has finished into the entry and, when whole, into the server's cache."""
    if entry.result is None and entry.job is not None and entry.job.done and entry.job.frontier is not None:
        entry.result = entry.job.frontier
        if not entry.result.stopped:  # only a whole frontier is worth keeping for others
            COMPUTED.put(frontier_key(entry.key), entry.result)


def frontier_range(pool: RulePool, bc: int, bc_max: int) -> tuple[int, int]:
    """Bc from 1 to twice the reference tree's complexity, and a little beyond the current Bc."""
    best = pool.best_tree()
    base = 2 * best.complexity if best is not None else 20
    return 1, max(2, min(bc_max, max(base, bc + max(2, bc // 5))))


def comparable(settings: RunSettings, eps: float) -> bool:
    """Is a run with ``settings`` a selection of the frontier's problem: every rule, unweighted rows, this eps?"""
    return settings.eps == float(eps) and settings.form == "all" and settings.class_weight is None


def known_runs(state: Session, be: int, eps: float) -> list[SelectionResult]:
    """The results of the runs on this pool (kept on the server, and the session's last one) that the frontier
    at (Be, eps) may use: every rule, unweighted rows, this eps, within Be."""
    runs = [(kept.settings, kept.explanation.result) for kept in kept_runs.kept_runs(state.pool_key)]
    if state.explanation is not None and state.run_settings is not None:
        runs.append((state.run_settings, state.explanation.result))
    out: list[SelectionResult] = []
    for settings, result in runs:
        if comparable(settings, eps) and result.errors <= be and all(r is not result for r in out):
            out.append(result)
    return out


def known_selections(state: Session, be: int, eps: float) -> list[ReadsEvaluation]:
    """Selections already known on this pool with this eps that keep Be: every finished run's (Explain and
    Compare pages, kept by the server), and the points of the frontiers this server computed at a smaller or
    equal Be.  A frontier is never drawn below them."""
    known: list[ReadsEvaluation] = list(known_runs(state, be, eps))
    for key, result in COMPUTED.items():
        if isinstance(key, tuple) and key[:1] == ("frontier",) and isinstance(result, Frontier):
            _, pool_key, other_be, other_eps, _ = key
            if pool_key == state.pool_key and other_eps == float(eps) and other_be <= be:
                known.extend(result.points)
    return known


def _kept_frontier(base_key: tuple, bc: int) -> tuple[tuple, Frontier] | None:
    """A whole frontier the server keeps for (pool key, Be, eps) whose range reaches ``bc``: the widest."""
    found = [(key[1:], value) for key, value in COMPUTED.items()
             if isinstance(key, tuple) and key[:1] == ("frontier",) and tuple(key[1:4]) == base_key
             and isinstance(value, Frontier) and key[4][1] >= bc]
    if not found:
        return None
    key, _ = max(found, key=lambda kv: kv[0][3][1])
    value = COMPUTED.get(frontier_key(key))  # a use: it stays
    return (key, value) if isinstance(value, Frontier) else None


def ensure_frontier(state: Session, pool: RulePool, *, bc: int, be: int, eps: float, bc_max: int) -> FrontierEntry:
    """The frontier at Be for this pool: finished (from the server's cache) or being computed in a worker.

    A new Be, eps or pool stops the old computation; a Bc beyond the computed range starts a longer
    one, which computes only the budgets beyond a shorter frontier kept for the same pool, Be and eps (from
    its last selection on).  The sweep starts from the known runs' selections where they fit (the best :data:`MAX_SEEDS`).
    """
    entry = state.frontier
    base_key = (state.pool_key, int(be), float(eps))
    if entry is not None:
        _keep_finished(entry)  # also when it finished since the last redraw and Be changes now
        if entry.key[:3] == base_key and bc <= entry.range[1]:
            return entry
        if entry.job is not None and not entry.job.done:
            entry.job.stop()
    kept = _kept_frontier(base_key, bc)
    if kept is not None:  # computed before (this session, another one, or before a reload): not again
        key, done = kept
        entry = FrontierEntry(key=key, range=key[3], job=None, result=done)
        state.frontier = entry
        return entry
    rng = frontier_range(pool, bc, bc_max)
    key = (*base_key, rng)
    known = sorted(known_runs(state, be, eps), key=lambda r: -float(r.coverage))
    seeds = [r.selection for r in known[:MAX_SEEDS]]
    # a shorter frontier kept for the same pool, Be and eps: its budgets are not computed again, only those
    # beyond it, from its last selection on
    shorter = _kept_frontier(base_key, 0)
    before, todo = None, rng
    if shorter is not None:
        (*_, (low, high)), found = shorter
        if low == rng[0] and high < rng[1] and len(found):
            before, todo = found, (high + 1, rng[1])
            seeds.append(found.points[-1].selection)
    job = FrontierJob(pool, error_budget=be, budget_range=todo, eps=eps, seeds=seeds, alive=state.alive(),
                      before=before)
    job.start()
    entry = FrontierEntry(key=key, range=rng, job=job, result=None)
    state.frontier = entry
    return entry


def _selected_points(event) -> list:
    """The points a chart's selection event holds (a dict, or the state object Streamlit hands over)."""
    points = event.get("selection", {}).get("points", []) if isinstance(event, dict) else \
        getattr(getattr(event, "selection", None), "points", [])
    return list(points or [])


def choose_point(state: Session) -> None:
    """on_select of the frontier chart: the chosen point's Bc becomes the complexity budget."""
    for point in _selected_points(state.frontier_chart):
        x = point.get("x") if isinstance(point, dict) else None
        if x is not None:
            set_budgets(state, bc=int(round(float(x))))
            state.frontier_chosen = True
            return


def _frontier_chart(entry: FrontierEntry, points, n_rows: int, marks: dict) -> None:
    fig = frontier_figure(points, n_rows, complexity_budget=marks.get("bc"), error_budget=marks.get("be"),
                          best_tree=marks.get("best_tree"), result=marks.get("result"), x_max=entry.range[1])
    st.plotly_chart(fig, key=Session.frontier_chart.key, on_select=lambda: choose_point(Session()),
                    selection_mode="points", width="stretch")


def _frontier_caption(points, n_rows: int, bc: int | None) -> None:
    here = next((p for p in points if p.complexity_budget == bc), None)
    if here is not None:
        proof = "proven optimal" if here.proven_optimal else f"best found; at most {100 * here.bound / n_rows:.2f}%"
        st.caption(f"At Bc = {bc}: {100 * here.coverage_score:.2f}% of the rows with {counted(here.n_rules, 'rule')} "
                   f"({proof}). Click a point to use its Bc.")
    elif points:
        st.caption("Click a point to use its Bc.")


def shown_points(state: Session, entry: FrontierEntry, points, n_rows: int) -> list:
    """The frontier's points raised to the selections already known at their budgets (see :func:`known_selections`)."""
    be, eps = entry.key[1], entry.key[2]
    known = known_selections(state, be, eps)
    if not known or not points:
        return list(points)
    return lifted(Frontier(points=list(points), axis="complexity", fixed_budget=be, n_rows=n_rows, eps=eps),
                  known).points


def _compute_again(state: Session) -> None:
    del state.frontier


def _form_note(state: Session) -> str:
    """Why the last run sits below the curve when it used only some classes' rules (the policy's fallback form)
    or maximised the rows it gets right (the accuracy objective) rather than coverage."""
    run = state.explanation
    if run is None:
        return ""
    classes = run.report.settings.get("rule_classes")
    if classes:
        return (f"The last run used rules for {', '.join(map(render_label, classes))} only (the default form: every "
                f"other row gets {render_label(run.report.fallback)}), so it covers fewer rows than the curve, which "
                "chooses among every rule; compare them by accuracy.")
    if run.report.settings.get("objective") == "accuracy":
        return ("The last run maximised the rows it gets right (the accuracy objective), not the rows it covers, so "
                "it may cover fewer rows than the curve, which maximises coverage; compare them by accuracy (the "
                "Held-out accuracy tab).")
    return ""


def frontier_panel(state: Session, entry: FrontierEntry, *, n_rows: int, marks: dict) -> None:
    """The frontier beside the budgets: growing while it is computed, then fixed; a click sets Bc."""
    bc = marks.get("bc")
    job = entry.job
    note = _form_note(state)
    if note:
        st.caption(md_escape(note))
    if entry.result is not None:
        points = shown_points(state, entry, entry.result.points, n_rows)
        _frontier_chart(entry, points, n_rows, marks)
        with st.container(key=Session.frontier_done.key):
            _frontier_caption(points, n_rows, bc)
        if entry.result.stopped:
            st.caption(f"Stopped at Bc = {points[-1].complexity_budget if points else '—'} of {entry.range[1]}.")
            st.button("Compute the frontier again", key=Session.restart_frontier.key, icon=":material/refresh:",
                      on_click=_compute_again, args=(state,))
        return
    if job is None:  # an entry holds a frontier or the job computing it: never neither
        return
    if job.done:  # ended without a frontier (stopped, or failed)
        st.caption(job.errors[0] or "The frontier was stopped.")
        st.button("Compute the frontier again", key=Session.restart_frontier.key, icon=":material/refresh:",
                  on_click=_compute_again, args=(state,))
        return

    @st.fragment(run_every=FRONTIER_REFRESH_S)
    def growing():
        chosen = state.frontier_chosen
        del state.frontier_chosen
        if chosen or job.done:
            st.rerun()  # a point was chosen, or the frontier is complete: draw the page again
        points = shown_points(state, entry, job.frontier_points(), n_rows)
        st.progress(job.progress(), text=job.status_text())
        if points:
            _frontier_chart(entry, points, n_rows, marks)
            _frontier_caption(points, n_rows, bc)

    growing()
    st.button("Stop the frontier", key=Session.stop_frontier.key, on_click=job.stop, icon=":material/stop:")
