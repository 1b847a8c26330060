"""Selection algorithms behind one interface.

>>> from explainer.selection.solvers import solve
>>> result = solve(problem, "qga", random_state=0)          # doctest: +SKIP

``ALGORITHMS`` maps registry names to ``module:Class``; modules load on first use.
"""

from explainer.selection.solvers.base import Monitor, RunOutcome, Solver
from explainer.selection.solvers.registry import (
    ALGORITHMS,
    LABELS,
    available,
    get_solver,
    get_solver_class,
    objective_for,
    solve,
    solve_run,
)

__all__ = ["ALGORITHMS", "LABELS", "Monitor", "RunOutcome", "Solver", "available", "get_solver", "get_solver_class", "objective_for",
           "solve", "solve_run"]
