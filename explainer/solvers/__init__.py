"""Selection algorithms behind one interface.

>>> from explainer.solvers import solve
>>> result = solve(problem, "qga", random_state=0)          # doctest: +SKIP

``ALGORITHMS`` maps registry names to ``module:Class``; modules load on first use.
"""

from __future__ import annotations

import importlib

from .base import Monitor, RunOutcome, Solver

ALGORITHMS: dict[str, str] = {
    "forex": "explainer.solvers.forex:ForEx",
    "forex_trimmed": "explainer.solvers.forex:ForExTrimmed",
    "rfhc": "explainer.solvers.rfhc:RFHC",
    "irfre": "explainer.solvers.irfre:IRFRE",
    "irfre_rfhc": "explainer.solvers.irfre:IRFRERFHC",
    "ga": "explainer.solvers.ga:GA",
    "qga": "explainer.solvers.qga:QGA",
    "qga_paper": "explainer.solvers.qga_paper:QGAPaper",
    "greedy": "explainer.solvers.greedy:Greedy",
    "exact": "explainer.solvers.exact:Exact",
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
        raise ValueError(f"unknown algorithm {name!r}; choose one of {', '.join(ALGORITHMS)}") from None
    module_name, cls_name = target.split(":")
    return getattr(importlib.import_module(module_name), cls_name)


def get_solver(name: str, **params) -> Solver:
    return get_solver_class(name)(**params)


def solve(problem, algorithm: str = "qga", *, random_state=None, callback=None, **params):
    """Run ``algorithm`` (a registry name) on ``problem``; extra keywords are its parameters."""
    return get_solver(algorithm, **params).solve(problem, random_state=random_state, callback=callback)


__all__ = ["ALGORITHMS", "LABELS", "Monitor", "RunOutcome", "Solver", "available", "get_solver", "get_solver_class", "solve"]
