"""The standard genetic algorithm with budget constraints (Algorithm 4 of the paper).

* Initial population: random feasible bit strings (see
  :func:`~explainer.selection.solvers.operators.random_feasible_population`).
* Each generation draws n/2 pairs of distinct individuals with probability
  proportional to the fitness f*.  f* can be negative when eps > 0, so the
  weights are f* - min(0, min f*) (all equal weights when they sum to 0).
* Two children per pair by crossover (``"uniform"``, ``"one_point"`` or
  ``"two_point"``).  The paper repeats a crossover until the child satisfies the
  budgets; here at most ``max_retries`` times, after which the child is a copy
  of the fitter parent (always feasible).
* Bit-flip mutation (each bit with probability ``mutation_rate``, default 1/M),
  likewise repeated until feasible, at most ``max_retries`` times, after which
  the child stays unmutated.
* Children join the population, which is truncated to the ``n_population``
  fittest (elitist; ties keep the older individual).
* ``early_stop``: stop when the minimum and maximum fitness are equal.
"""

from __future__ import annotations

import numpy as np

from explainer.selection.problem import SelectionProblem
from explainer.selection.solvers.base import Monitor, RunOutcome, Solver
from explainer.selection.solvers.operators import (
    crossover_children,
    crossover_masks,
    random_feasible_population,
    retry_until_feasible,
    select_pairs,
)


class GA(Solver):
    """Standard genetic algorithm: fitness-proportional mating, crossover, mutation, elitism.

    Parameters
    ----------
    n_population : individuals kept after each generation.
    n_generations : maximum number of generations.
    crossover : "uniform", "one_point" or "two_point".
    mutation_rate : chance of flipping each rule in a child (None: one rule on average).
    max_retries : attempts per pair to obtain children within the budgets.
    early_stop : stop when every individual has the same fitness.
    time_limit : seconds (None: no limit); the run then ends with the best selection so far.
    """

    name = "ga"
    objectives = ("coverage", "accuracy")  # through problem.fitness

    def __init__(
        self,
        n_population: int = 100,
        n_generations: int = 100,
        crossover: str = "uniform",
        mutation_rate: float | None = None,
        max_retries: int = 20,
        early_stop: bool = False,
        time_limit: float | None = None,
        stall: int | None = None,
    ):
        self.n_population = n_population
        self.n_generations = n_generations
        self.crossover = crossover
        self.mutation_rate = mutation_rate
        self.max_retries = max_retries
        self.early_stop = early_stop
        self.time_limit = time_limit
        self.stall = stall

    def _run(self, problem: SelectionProblem, rng: np.random.Generator, monitor: Monitor) -> RunOutcome:
        M = problem.n_rules
        crossover_masks(self.crossover, 0, M, rng)  # validates the name, draws nothing
        rate = self.mutation_rate if self.mutation_rate is not None else 1.0 / max(M, 1)
        pop = random_feasible_population(problem, int(self.n_population), rng)
        fit = problem.fitness(pop)
        monitor.evaluations += len(pop)
        fallbacks = {"crossover": 0, "mutation": 0}
        for _ in range(int(self.n_generations)):
            n = len(pop)
            n_pairs = max(1, n // 2)
            a, b = select_pairs(fit - min(0.0, float(fit.min())), n_pairs, rng)
            children, ok, first, second = crossover_children(problem, self.crossover, pop, a, b, rng, self.max_retries)
            better = np.where((fit[first] >= fit[second])[:, None], pop[first], pop[second])
            children[~ok] = better[~ok]
            fallbacks["crossover"] += int((~ok).sum())

            base = children.copy()

            def mutate(rows, base=base):
                return base[rows] ^ ((rng.random((len(rows), M)) < rate) & ~problem.pinned_mask)

            children, ok = retry_until_feasible(problem, mutate, mutate(np.arange(len(base))), self.max_retries)
            children[~ok] = base[~ok]
            fallbacks["mutation"] += int((~ok).sum())

            child_fit = problem.fitness(children)
            monitor.evaluations += len(children)
            pop = np.vstack([pop, children])
            fit = np.concatenate([fit, child_fit])
            keep = np.argsort(-fit, kind="stable")[: int(self.n_population)]
            pop, fit = pop[keep], fit[keep]
            if monitor.generation(fit, pop):
                break
            if self.early_stop and fit.min() == fit.max():
                break
        best = int(np.argmax(fit))
        return RunOutcome(pop[best].copy(), info={"fallbacks": fallbacks, "final_population": len(pop)})
