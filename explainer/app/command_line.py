"""The Explain page's "same in the command line" box: the ``explainer explain`` line of the page's settings.

The line names the data as the command line finds it (a bundled sample or paper data set by its name, an
upload by its file name), the load options, the pool's settings and the run's, so that running it gives the
explanation the page gives.  Budgets are written out unless they are the default policy's own choice, which the
command line then makes again (with ``--size`` when it is not the default), so the line also keeps the
policy's form and objective.
"""

from __future__ import annotations

import shlex

from explainer.app.pools import PoolSettings
from explainer.data.sources import find_source
from explainer.pipeline import PolicyChoice
from explainer.pipeline.validation import DEFAULT_SIZE
from explainer.rules.defaults import DEFAULT_DEPTH, DEFAULT_REPEATS
from explainer.selection.settings import RunSettings

#: load options written as repeated flags
_LIST_FLAGS = (("categorical", "--categorical"), ("exclude", "--exclude"), ("keep", "--keep"))


def data_argument(ref: dict) -> str:
    """How the command line names the data of ``ref`` (:attr:`Session.data_ref`): a sample or paper data set by
    its name, when that name finds it, else its file (an upload: its file name, to be found where it was saved)."""
    kind, _, name = str(ref.get("ref") or "").partition(":")
    if kind in ("sample", "paper"):
        found = find_source(name)
        if found is not None and found.kind == kind:
            return name
        found = find_source(name, kinds=(kind,))
        if found is not None and found.path is not None:  # a paper data set a sample's name hides: its file
            return str(found.path)
    return str(ref.get("file") or name or "DATA.csv")


def command_argv(ref: dict, pool: PoolSettings, run: RunSettings, *, size: str = DEFAULT_SIZE,
                 policy: PolicyChoice | None = None, alternatives: tuple[int, float] | None = None,
                 group_by: str | None = None) -> list[str]:
    """``explainer explain`` arguments reproducing the run ``run`` on the pool ``pool`` of the data ``ref``.

    ``policy``: the default policy's choice for this pool; when the run is that choice (its budgets, form and
    objective), the budgets are left to the command line's own policy (with ``size``), else written out with
    the form and objective they run with.  ``alternatives``: (K, PTS) of the other explanations asked for;
    ``group_by``: the column of the accuracy by group.
    """
    argv = ["explainer", "explain", data_argument(ref)]
    if ref.get("target"):
        argv += ["--target", str(ref["target"])]
    for key, flag in _LIST_FLAGS:
        for col in ref.get(key) or []:
            argv += [flag, str(col)]
    if pool.max_depth != DEFAULT_DEPTH:
        argv += ["--depth", str(pool.max_depth)]
    if pool.random_state != 0:
        argv += ["--pool-seed", str(pool.random_state)]
    if pool.n_repeats != DEFAULT_REPEATS:
        argv += ["--repeats", str(pool.n_repeats)]
    if pool.source != "grid":
        argv += ["--source", pool.source]
    for col in pool.forbidden:
        argv += ["--forbid", str(col)]
    if pool.holdout > 0:
        argv += ["--holdout", f"{pool.holdout:g}", "--holdout-seed", str(pool.random_state)]
    argv += _run_args(run, size, policy)
    if alternatives is not None:
        argv += ["--alternatives", str(int(alternatives[0])), "--within", f"{float(alternatives[1]):g}"]
    if group_by:
        argv += ["--group-by", str(group_by)]
    return argv


def _is_policy_choice(run: RunSettings, policy: PolicyChoice | None) -> bool:
    # with pins, the command line's own policy grows its budgets by what they take, while the page's run keeps
    # the budgets it shows: those are written out
    return (policy is not None and policy.chosen and run.class_weight is None and not run.pinned
            and (run.complexity_budget, run.error_budget) == policy.budgets
            and run.form == policy.form and run.objective == policy.objective)


def _run_args(run: RunSettings, size: str, policy: PolicyChoice | None) -> list[str]:
    argv: list[str] = []
    if _is_policy_choice(run, policy):
        if size != DEFAULT_SIZE:
            argv += ["--size", size]
    else:
        if run.complexity_budget is not None:
            argv += ["--complexity", str(run.complexity_budget)]
        if run.error_budget is not None:
            argv += ["--errors", f"{run.error_budget:g}"]
        if run.form != "all":
            argv += ["--form", run.form]
        if run.objective != "coverage":
            argv += ["--objective", run.objective]
    for text in run.pinned:
        argv += ["--pin", text]
    for text in run.banned:
        argv += ["--ban", text]
    if run.eps != 1.0:
        argv += ["--eps", f"{run.eps:g}"]
    if run.class_weight is not None:
        argv += ["--class-weight", str(run.class_weight)]
    argv += ["--algorithm", run.algorithm, "--seed", str(run.seed)]
    params = dict(run.algorithm_params or {})
    if "n_generations" in params:
        argv += ["--generations", str(params.pop("n_generations"))]
    if run.time_limit is not None:
        argv += ["--time-limit", f"{run.time_limit:g}"]
    for name, value in sorted(params.items()):
        argv += ["--param", f"{name}={value}"]
    return argv


def command_text(argv: list[str]) -> str:
    """The arguments as one shell line (each quoted as the shell needs)."""
    return shlex.join(argv)


__all__ = ["command_argv", "command_text", "data_argument"]
