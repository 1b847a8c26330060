"""The registry of selection algorithms: names, labels and lazy loading of their classes."""

from __future__ import annotations

import difflib
import importlib

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


def get_solver(name: str, **params) -> Solver:
    return get_solver_class(name)(**params)


def solve(problem, algorithm: str = "qga", *, random_state=None, callback=None, **params):
    """Run ``algorithm`` (a registry name) on ``problem``; extra keywords are its parameters."""
    return get_solver(algorithm, **params).solve(problem, random_state=random_state, callback=callback)

