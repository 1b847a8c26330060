"""Pool -> problem -> solve -> report in one call (used by the CLI, the estimator and the dashboard)."""

from __future__ import annotations

from dataclasses import dataclass

from .pool import RulePool
from .problem import SelectionProblem
from .report import RuleSetReport, evaluate_rules
from .result import SelectionResult
from .solvers import solve


@dataclass
class Explanation:
    pool: RulePool
    problem: SelectionProblem
    result: SelectionResult
    report: RuleSetReport

    @property
    def rules(self):
        return self.report.rules

    def to_dict(self) -> dict:
        out = self.report.to_dict()
        out.update(
            algorithm=self.result.algorithm,
            status=self.result.status,
            message=self.result.message,
            time_s=self.result.time_s,
            generations=len(self.result.history),
            rules_text=self.report.rules.to_text(),
            pool_rules=self.pool.n_rules,
            pool_trees=self.pool.n_trees,
        )
        if self.result.algorithm == "exact":
            out["optimal"] = bool(self.result.info.get("optimal", False))
            out["bound"] = self.result.info.get("bound")
            out["gap"] = self.result.info.get("gap")
        return out


def resolve_budgets(pool: RulePool, complexity_budget=None, error_budget=None) -> tuple[int, int]:
    """Fill missing budgets from the best tree (Bc = c* - 1, Be = e*)."""
    if complexity_budget is None or error_budget is None:
        best = pool.best_tree()
        if best is None:
            raise ValueError("no budgets given and no tree to suggest them; pass both budgets")
        complexity_budget = best.complexity_budget if complexity_budget is None else complexity_budget
        error_budget = best.error_budget if error_budget is None else error_budget
    return int(complexity_budget), int(error_budget)


def explain_pool(
    pool: RulePool,
    X,
    y,
    *,
    complexity_budget=None,
    error_budget=None,
    eps: float = 1.0,
    algorithm: str = "qga",
    random_state=None,
    callback=None,
    fingerprint: str | None = None,
    algorithm_params: dict | None = None,
) -> Explanation:
    bc, be = resolve_budgets(pool, complexity_budget, error_budget)
    problem = pool.problem(bc, be, eps=eps)
    result = solve(problem, algorithm, random_state=random_state, callback=callback, **(algorithm_params or {}))
    report = evaluate_rules(
        pool.rule_set(result.selection),
        X,
        y,
        eps=eps,
        complexity_budget=bc,
        error_budget=be,
        fingerprint=fingerprint,
        settings={
            "algorithm": algorithm,
            "random_state": random_state,
            "complexity_budget": bc,
            "error_budget": be,
            "eps": eps,
            "pool": pool.settings,
            "algorithm_params": algorithm_params or {},
        },
    )
    return Explanation(pool=pool, problem=problem, result=result, report=report)
