"""What a selection algorithm returns."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from explainer.selection.callbacks import GenerationRecord

# status values
OK = "ok"  # heuristic finished normally
STOPPED = "stopped"  # asked to stop; best so far returned
OPTIMAL = "optimal"  # exact solver proved optimality
FEASIBLE = "feasible"  # exact solver: feasible, optimality not proven (see gap)
INFEASIBLE = "infeasible"
OVER_BUDGET = "over_budget"  # the algorithm ignores the budgets (ForEx++ untrimmed)


@dataclass
class SelectionResult:
    algorithm: str
    selection: np.ndarray  # (M,) bool
    coverage: float  # f*
    coverage_score: float  # f*/N
    covered: int
    conflicting_pairs: int
    complexity: int
    errors: int
    feasible: bool
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

    @property
    def n_rules(self) -> int:
        return int(np.count_nonzero(self.selection))

    def summary(self) -> dict:
        out = {
            "algorithm": self.algorithm,
            "status": self.status,
            "message": self.message,
            "n_rules": self.n_rules,
            "coverage": self.coverage,
            "coverage_score": self.coverage_score,
            "covered": self.covered,
            "conflicting_pairs": self.conflicting_pairs,
            "complexity": self.complexity,
            "errors": self.errors,
            "feasible": self.feasible,
            "time_s": self.time_s,
            "generations": len(self.history),
        }
        out.update({k: v for k, v in self.info.items() if np.isscalar(v) or v is None})
        return out
