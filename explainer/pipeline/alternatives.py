"""The other explanations nearly as good as a run's, as the reports publish them (the command line's JSON and
text, the estimator's ``alternatives_``, the Explain page).

:func:`explain_alternatives` rebuilds the run's problem from its pool and settings (the same budgets, weights,
objective and form), asks :func:`explainer.selection.alternatives.alternatives` for up to ``k`` selections
within ``within`` percentage points of the best's objective, and describes each by its rules (text), objective,
coverage, accuracy, complexity and errors and the rules it adds to or drops from the best.  Only the exact
(MILP) and qga algorithms have a way to find them (no-good cuts; the archive of distinct individuals).
"""

from __future__ import annotations

import numpy as np

from explainer.pipeline.explain import row_weights
from explainer.pipeline.policy import form_rules
from explainer.pipeline.reading import left_out_class, widen_selection
from explainer.report import evaluate_rules
from explainer.rules.pool import RulePool
from explainer.rules.render import counted
from explainer.selection.alternatives import METHODS, alternatives
from explainer.selection.problem import SelectionProblem
from explainer.selection.settings import RunSettings

#: seconds the search for alternatives may take when the run's settings give no time limit
DEFAULT_TIME_LIMIT = 60.0


def check_method(algorithm: str) -> str:
    """The way the alternatives of a run of ``algorithm`` are found; ValueError for an algorithm that has none."""
    try:
        return METHODS[algorithm]
    except KeyError:
        raise ValueError(f"alternatives need the exact (MILP) or the qga algorithm, not {algorithm}") from None


def explain_alternatives(pool: RulePool, X, y, settings: RunSettings, best_selection, k: int, within: float = 1.0, *,
                         sample_weight=None, rules=None, time_limit: float | None = None) -> dict:
    """Up to ``k`` other selections of the run ``settings`` describes, within ``within`` points of the best's.

    ``best_selection``: the run's selection over the pool's rules; ``X, y``: the rows the run explained (the
    accuracy is the rules' there, the fallback class included); ``sample_weight`` as given to the run;
    ``rules``: the pool indices the run could use (default: those of the settings' form).  ``time_limit``:
    seconds for the search (default: the run's own, else ``DEFAULT_TIME_LIMIT``).

    Returns ``{"method", "k", "within", "complete", "message", "best", "alternatives", "stable_core"}``: each
    alternative (and the best) a dict of ``rules`` (texts), ``objective``, ``coverage`` (f* as a share of the
    rows), ``accuracy``, ``complexity``, ``errors``, ``points_below_best`` and, for the alternatives, the rules
    ``added`` to and ``dropped`` from the best and ``differs_from_best`` (both, in the pool's order);
    ``stable_core``: the rule texts in the best and in every alternative.
    """
    method = check_method(settings.algorithm)
    weights = row_weights(pool.y, pool.classes, settings.class_weight, sample_weight)
    fallback = left_out_class(pool) if settings.objective == "accuracy" else None
    problem = SelectionProblem.from_pool(pool, settings.complexity_budget, settings.error_budget, eps=settings.eps,
                                         sample_weight=weights, objective=settings.objective, fallback=fallback)
    allowed = form_rules(pool, settings.form) if rules is None else np.asarray(rules, dtype=np.int64).ravel()
    solved = problem if allowed is None else problem.restrict(allowed)
    best = np.zeros(pool.n_rules, dtype=bool)
    best[np.flatnonzero(np.asarray(best_selection, dtype=bool))] = True
    params = settings.solver_params()
    run_limit = params.pop("time_limit", None)
    limit = time_limit if time_limit is not None else run_limit
    found = alternatives(
        solved, best if allowed is None else best[allowed], k, within, method,
        time_limit=DEFAULT_TIME_LIMIT if limit is None else limit, random_state=settings.seed,
        solver_params=params if method == "heuristic" else None,
        backend=str(params.get("backend", "highs")) if method == "exact" else "highs",
    )

    def full(indices) -> np.ndarray:
        mask = np.zeros(solved.n_rules, dtype=bool)
        mask[indices] = True
        return mask if allowed is None else widen_selection(mask, allowed, pool.n_rules)

    def described(selection: np.ndarray) -> dict:
        return _described(pool, problem, X, y, settings.eps, selection, found.best_objective)

    core = full(found.stable_core()) if found.items else best
    chosen = [full(alt.rules) for alt in found]
    return {
        "method": found.method,
        "k": int(k),
        "within": float(within),
        "complete": found.complete,
        "message": found.message,
        "best": described(best),
        "alternatives": [{**described(sel), **_differences(pool, best, sel)} for sel in chosen],
        "stable_core": _texts(pool, core),
    }


def _texts(pool: RulePool, selection: np.ndarray) -> list[str]:
    return [pool.rules[i].text for i in np.flatnonzero(selection)]


def _described(pool: RulePool, problem: SelectionProblem, X, y, eps: float, selection: np.ndarray,
               best_objective: float) -> dict:
    """One rule set as the reports give it: its rules (text) and metrics, and how far below the best it is."""
    ev = problem.evaluate(selection)
    value = float(ev.value if ev.value is not None else ev.coverage)
    report = evaluate_rules(pool.rule_set(selection), X, y, eps=eps)
    total = float(problem.total_weight)
    return {"rules": _texts(pool, selection), "objective": value, "coverage": ev.coverage_score,
            "accuracy": report.accuracy, "complexity": ev.complexity, "errors": ev.errors, "n_rules": ev.n_rules,
            "points_below_best": 100.0 * (best_objective - value) / total if total else 0.0}


def _differences(pool: RulePool, best: np.ndarray, selection: np.ndarray) -> dict:
    """The rules ``selection`` adds to the best, drops from it, and both."""
    return {"added": _texts(pool, selection & ~best), "dropped": _texts(pool, best & ~selection),
            "differs_from_best": _texts(pool, selection ^ best)}


def alternatives_text(found: dict) -> str:
    """The command line's short section on the alternatives (after the rules)."""
    alts = found["alternatives"]
    lines = [f"alternatives:       {len(alts)} within {found['within']:g} points of the best ({found['method']}"
             + ("" if found["complete"] or not found["message"] else f"; {found['message']}") + ")"]
    if not alts:
        return lines[0] + "\n"
    lines.append(f"  stable core ({counted(len(found['stable_core']), 'rule')} in every one):")
    lines += [f"    {text}" for text in found["stable_core"]]
    for n, alt in enumerate(alts, 1):
        lines.append(f"  #{n}: coverage {100 * alt['coverage']:.2f}%, accuracy {100 * alt['accuracy']:.2f}%, "
                     f"complexity {alt['complexity']}, errors {alt['errors']:g} "
                     f"({alt['points_below_best']:.2f} points below the best)")
        lines += [f"    + {text}" for text in alt["added"]]
        lines += [f"    - {text}" for text in alt["dropped"]]
    return "\n".join(lines) + "\n"
