"""The registry of selection algorithms: names, labels, lazy loading of their classes and the check of
their parameters (:func:`check_params`, shared by the estimator and the command line)."""

from __future__ import annotations

import difflib
import importlib
import inspect
import math

from explainer.selection.pins import check_result
from explainer.selection.solvers.base import Solver

ALGORITHMS: dict[str, str] = {
    "forex": "explainer.selection.solvers.forex:ForEx",
    "forex_trimmed": "explainer.selection.solvers.forex:ForExTrimmed",
    "rfhc": "explainer.selection.solvers.rfhc:RFHC",
    "irfre": "explainer.selection.solvers.irfre:IRFRE",
    "irfre_rfhc": "explainer.selection.solvers.irfre:IRFRERFHC",
    "ga": "explainer.selection.solvers.ga:GA",
    "qga": "explainer.selection.solvers.qga:QGA",
    "qga_paper": "explainer.selection.solvers.qga_paper:QGAPaper",
    "greedy": "explainer.selection.solvers.greedy:Greedy",
    "exact": "explainer.selection.solvers.exact:Exact",
}

LABELS: dict[str, str] = {
    "forex": "ForEx++",
    "forex_trimmed": "ForEx++ (trimmed to budgets)",
    "rfhc": "RF+HC",
    "irfre": "IRFRE",
    "irfre_rfhc": "IRFRE RF+HC",
    "ga": "Standard GA",
    "qga": "QGA (nested GA)",
    "qga_paper": "QGA as in the paper (Algorithms 5-8)",
    "greedy": "Greedy (budgeted max coverage)",
    "exact": "Exact (MILP, HiGHS)",
}


def available() -> list[str]:
    """Registered names whose module can be imported."""
    names = []
    for name in ALGORITHMS:
        try:
            get_solver_class(name)
        except ImportError:
            continue
        names.append(name)
    return names


def get_solver_class(name: str) -> type[Solver]:
    try:
        target = ALGORITHMS[name]
    except KeyError:
        close = difflib.get_close_matches(str(name), ALGORITHMS, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ValueError(f"unknown algorithm {name!r}{hint}; choose one of {', '.join(ALGORITHMS)}") from None
    module_name, cls_name = target.split(":")
    return getattr(importlib.import_module(module_name), cls_name)


def objective_for(name: str, objective: str) -> str:
    """``objective`` when the algorithm ``name`` optimises it, else the paper's ``"coverage"``: what a run of an
    algorithm uses when the objective was a default's choice, not the caller's (ForEx++, IRFRE optimise f* only)."""
    try:
        objectives = get_solver_class(name).objectives
    except (ImportError, ValueError):
        return objective  # the run itself says what is wrong with the name
    return objective if objective in objectives else "coverage"


def parameter_names(name: str) -> list[str] | None:
    """The parameters the algorithm ``name`` takes (``None`` when it takes any keyword)."""
    signature = inspect.signature(get_solver_class(name).__init__)
    if any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values()):
        return None
    return [n for n, p in signature.parameters.items() if n != "self" and p.kind is not p.VAR_POSITIONAL]


#: the numeric parameters the algorithms share, by name: (least value, a whole number, the least excluded,
#: None allowed); a value outside was accepted and failed deep in a run (``n_population=0``), or ran
#: nonsense (``stall=-5``, ``time_limit=-1``)
PARAM_RANGES: dict[str, tuple[float, bool, bool, bool]] = {
    "n_population": (2, True, False, False),
    "n_generations": (1, True, False, False),
    "stall": (1, True, False, True),
    "time_limit": (0, False, True, True),
    "n_trials": (1, True, False, False),
    "rfhc_trials": (0, True, False, False),
    "subspace_size": (1, True, False, False),
    "n_targets": (1, True, False, False),
    "n_subspaces": (1, True, False, False),
    "n_samples": (1, True, False, False),
    "n_kernel": (0, True, False, True),
    "kernel_subspace_size": (1, True, False, False),
    "n_kernel_subspaces": (1, True, False, False),
    "crossover_retries": (0, True, False, False),
    "max_retries": (0, True, False, False),
    "max_super_mutation_steps": (0, True, False, False),
    "max_ejections": (0, True, False, False),
    "merge_max_rules": (2, True, False, False),
    "merge_node_limit": (1, True, False, False),
    "node_limit": (1, True, False, True),
    "k": (0, False, True, False),
    "mip_rel_gap": (0, False, False, False),
    "workers": (1, True, False, False),
    "max_memory_mb": (0, False, True, False),
}


def _check_ranges(name: str, params: dict) -> None:
    """ValueError naming the first parameter of :data:`PARAM_RANGES` out of its range (``"auto"`` passes: the
    algorithm that takes it says so itself)."""
    for key, value in params.items():
        if key not in PARAM_RANGES or (value is None and PARAM_RANGES[key][3]) or value == "auto":
            continue
        least, whole, strict, _ = PARAM_RANGES[key]
        number = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        if not number or (whole and value != int(value)) or value < least or (strict and value == least):
            kind = "a whole number" if whole else "a finite number"
            raise ValueError(f"the {name} algorithm's {key} must be {kind} {'>' if strict else '>='} {least:g}, "
                             f"got {value!r}")


def check_params(name: str, params: dict) -> None:
    """Raise ValueError unless ``name`` is registered and ``params`` are parameters it takes, in their ranges
    (:data:`PARAM_RANGES`).

    The solver is built (not run) with them, so the checks of its own ``__init__`` apply too.
    """
    takes = parameter_names(name)
    unknown = sorted(set(params) - set(takes)) if takes is not None else []
    if takes is not None and unknown:
        raise ValueError(
            f"the {name} algorithm has no parameter {unknown[0]!r} (its parameters: {', '.join(takes) or 'none'})"
        )
    _check_ranges(name, params)
    try:
        get_solver(name, **params)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"the {name} algorithm refuses its parameters: {exc}") from None


def get_solver(name: str, **params) -> Solver:
    return get_solver_class(name)(**params)


def solve(problem, algorithm: str = "qga", *, random_state=None, callback=None, **params):
    """Run ``algorithm`` (a registry name) on ``problem``; extra keywords are its parameters.

    The result holds every pinned rule of ``problem`` and none of its banned ones, or AssertionError.
    """
    result = get_solver(algorithm, **params).solve(problem, random_state=random_state, callback=callback)
    check_result(algorithm, result.selection, problem.pinned, problem.banned)  # never repaired silently
    return result



def solve_run(problem, settings, *, callback=None):
    """Run the algorithm a :class:`~explainer.selection.settings.RunSettings` names on ``problem``, with its
    parameters, time limit and seed (the problem carries the budgets and eps)."""
    return solve(problem, settings.algorithm, random_state=settings.seed, callback=callback,
                 **settings.solver_params())
