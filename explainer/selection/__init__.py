"""Selection: the third stage of the pipeline (data -> rules -> **selection** -> report).

The paper's problem and everything that solves it; it reads a rule pool only through its
matrices, so nothing here imports the data or rules stages.

- :mod:`explainer.selection.problem`: :class:`SelectionProblem` (coverage f*, conflicts, budgets) and
  :class:`Evaluation`, the metrics of one selection;
- :mod:`explainer.selection.settings`: :class:`RunSettings`, what one run is asked to do;
- :mod:`explainer.selection.result`: :class:`SelectionResult`, which holds the Evaluation of its selection;
- :mod:`explainer.selection.callbacks`: the progress protocol every algorithm reports through;
- :mod:`explainer.selection.loops`: the compiled inner loops;
- :mod:`explainer.selection.solvers`: QGA, the paper's baselines and the exact MILP;
- :mod:`explainer.selection.frontier`: the best coverage for every complexity budget.

This package is the public face of the stage: ``from explainer.selection import solve``.
"""

from explainer.selection.callbacks import (
    Callback,
    GenerationRecord,
    ProgressBar,
    Recorder,
    StopFlag,
)
from explainer.selection.problem import Evaluation, SelectionProblem
from explainer.selection.result import SelectionResult
from explainer.selection.settings import RunSettings
from explainer.selection.solvers import (
    ALGORITHMS,
    LABELS,
    available,
    get_solver,
    get_solver_class,
    solve,
)

__all__ = [
    "ALGORITHMS",
    "LABELS",
    "Callback",
    "Evaluation",
    "GenerationRecord",
    "ProgressBar",
    "Recorder",
    "RunSettings",
    "SelectionProblem",
    "SelectionResult",
    "StopFlag",
    "available",
    "get_solver",
    "get_solver_class",
    "solve",
]
