"""What a selection algorithm returns, and the metric attributes it shares with a frontier point.

A result holds the :class:`~explainer.selection.problem.Evaluation` of its selection;
:class:`ReadsEvaluation` gives its fields as attributes (``result.coverage``,
``result.errors``, ...), so the numbers are stored once and read the same way on a
:class:`SelectionResult` and a :class:`~explainer.selection.frontier.FrontierPoint`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from explainer.selection.callbacks import GenerationRecord
from explainer.selection.problem import Evaluation

# status values
OK = "ok"  # heuristic finished normally
STOPPED = "stopped"  # asked to stop; best so far returned
OPTIMAL = "optimal"  # exact solver proved optimality
FEASIBLE = "feasible"  # exact solver: feasible, optimality not proven (see gap)
OVER_BUDGET = "over_budget"  # the algorithm ignores the budgets (ForEx++ untrimmed)

#: what a status other than a finished one means, in the words every output uses beside the rules
STATUS_NOTES = {
    STOPPED: "stopped before its end: the best selection found until the stop",
    FEASIBLE: "the exact solver's best selection, not proven optimal",
    OVER_BUDGET: "over its budgets: the algorithm does not keep them",
}


def status_note(status: str | None) -> str | None:
    """How a result of ``status`` is to be read, or None for a run that ended as it should (ok, optimal)."""
    return STATUS_NOTES.get(status) if status else None


class ReadsEvaluation:
    """The metrics of ``self.evaluation`` (an :class:`Evaluation`) as read-only attributes."""

    evaluation: Evaluation

    @property
    def coverage(self) -> float:
        """f*."""
        return self.evaluation.coverage

    @property
    def coverage_score(self) -> float:
        """f* / N."""
        return self.evaluation.coverage_score

    @property
    def covered(self) -> float:  # an int unless the rows are weighted
        return self.evaluation.covered

    @property
    def conflicting_pairs(self) -> float:  # an int unless the rows are weighted
        return self.evaluation.conflicting_pairs

    @property
    def complexity(self) -> int:
        return self.evaluation.complexity

    @property
    def errors(self) -> float:  # an int unless the rows are weighted
        return self.evaluation.errors

    @property
    def feasible(self) -> bool:
        return self.evaluation.feasible

    @property
    def n_rules(self) -> int:
        return self.evaluation.n_rules

    @property
    def total_weight(self) -> float | None:
        """The rows' total weight (None: unweighted)."""
        return self.evaluation.total_weight


@dataclass
class SelectionResult(ReadsEvaluation):
    algorithm: str
    selection: np.ndarray  # (M,) bool
    evaluation: Evaluation  # of ``selection`` on the problem solved
    status: str
    message: str
    time_s: float
    history: list[GenerationRecord] = field(default_factory=list)
    info: dict = field(default_factory=dict)  # e.g. bound, gap, optimal, evaluations
    complexity_budget: int | None = None  # Bc of the problem solved (None: unbounded or unknown)
    error_budget: int | None = None  # Be

    def __repr__(self) -> str:
        def of(used, budget):
            return f"{used}/{budget}" if budget is not None else f"{used}"

        return (
            f"SelectionResult({self.algorithm}: {self.n_rules} rules, coverage {100 * self.coverage_score:.2f}%, "
            f"complexity {of(self.complexity, self.complexity_budget)}, errors {of(self.errors, self.error_budget)}, "
            f"{self.status})"
        )

    @property
    def rule_indices(self) -> np.ndarray:
        return np.flatnonzero(self.selection)

    def run_dict(self) -> dict:
        """How the selection was found: algorithm, status, message, seconds and generations."""
        return {
            "algorithm": self.algorithm,
            "status": self.status,
            "message": self.message,
            "time_s": self.time_s,
            "generations": len(self.history),
        }

    def summary(self) -> dict:
        """The run, the selection's metrics (:meth:`Evaluation.to_dict`) and the scalar ``info``."""
        out = self.run_dict() | self.evaluation.to_dict() | {"feasible": self.feasible}
        out.update({k: v for k, v in self.info.items() if np.isscalar(v) or v is None})
        return out
