"""IRFRE adapted to the budgeted maximum coverage problem (Algorithm 3 of the paper).

A multi-objective genetic algorithm over three objectives: maximise the
coverage f*, minimise the complexity L(r) and the errors E(r).

* Initial population: random feasible bit strings (rejection sampling with a
  low density, see :func:`~explainer.selection.solvers.operators.random_feasible_population`;
  ``init_density`` fixes the density).  If no random string is feasible the
  population is the empty selection alone.  :class:`IRFRERFHC` adds every RF+HC
  trial result to it.
* Fitness: the Pareto rank from non-dominated sorting (front 1 = non-dominated).
* Mating: n/2 pairs of distinct individuals, drawn with probability ∝ 1 / rank.
* Each pair gives two children by uniform crossover (complementary masks)
  followed by bit-flip mutation (rate ``mutation_rate``, default 1/M); only the
  feasible children are kept.
* Parents and children are merged, repeated chromosomes removed, and the
  ``n_population`` fittest kept: by rank, ties by higher coverage.
* Returned: the individual with the highest coverage in the final population.
  (It is never lost: a highest-coverage individual that is not dominated by
  another highest-coverage one is in front 1 and wins ties on coverage.)
"""

from __future__ import annotations

import numpy as np

from explainer.selection.problem import SelectionProblem
from explainer.selection.solvers.base import Monitor, RunOutcome, Solver
from explainer.selection.solvers.operators import (
    crossover_masks,
    distinct_rows,
    pareto_ranks,
    random_feasible_population,
    select_pairs,
    unique_rows,
)
from explainer.selection.solvers.rfhc import RFHC


def _ranks(m: dict) -> np.ndarray:
    return pareto_ranks(np.column_stack([-m["coverage"], m["complexity"], m["errors"]]))


class IRFRE(Solver):
    """Adapted IRFRE: rank-based multi-objective GA, feasible children only.

    Parameters
    ----------
    n_population : individuals kept after each generation.
    n_generations : maximum number of generations.
    mutation_rate : chance of flipping each rule in a child (None: one rule on average).
    init_density : share of the rules on in a random initial individual (None: sized to the budgets).
    time_limit : seconds (None: no limit); the run then ends with the best selection so far.
    stall : stop after this many generations in a row without a better selection (None: never).
    """

    name = "irfre"

    def __init__(self, n_population: int = 100, n_generations: int = 100, mutation_rate: float | None = None,
                 init_density: float | None = None, time_limit: float | None = None, stall: int | None = None):
        self.n_population = n_population
        self.n_generations = n_generations
        self.mutation_rate = mutation_rate
        self.init_density = init_density
        self.time_limit = time_limit
        self.stall = stall

    def _initial_population(self, problem: SelectionProblem, rng: np.random.Generator) -> np.ndarray:
        return random_feasible_population(problem, int(self.n_population), rng, self.init_density)

    def _run(self, problem: SelectionProblem, rng: np.random.Generator, monitor: Monitor) -> RunOutcome:
        M = problem.n_rules
        rate = self.mutation_rate if self.mutation_rate is not None else 1.0 / max(M, 1)
        pop = unique_rows(self._initial_population(problem, rng))
        m = problem.evaluate_population(pop)
        monitor.evaluations += len(pop)
        initial_size = len(pop)
        rank = _ranks(m)
        for _ in range(int(self.n_generations)):
            n_pairs = max(1, len(pop) // 2)
            a, b = select_pairs(1.0 / rank, n_pairs, rng)
            mask = crossover_masks("uniform", n_pairs, M, rng)
            children = np.vstack([np.where(mask, pop[a], pop[b]), np.where(mask, pop[b], pop[a])])
            children ^= (rng.random(children.shape) < rate) & ~problem.pinned_mask
            children = children[problem.feasible_mask(children)]
            merged = np.vstack([pop, children])
            distinct = distinct_rows(merged)
            new = distinct[distinct >= len(pop)]  # the parents are distinct already
            cm = problem.evaluate_population(merged[new])
            monitor.evaluations += len(new)
            pop = merged[distinct]
            m = {k: np.concatenate([v, cm[k]]) for k, v in m.items()}
            rank = _ranks(m)
            keep = np.lexsort((-m["coverage"], rank))[: int(self.n_population)]
            # the kept set holds whole fronts (plus part of the last one), so ranks carry over
            pop, rank = pop[keep], rank[keep]
            m = {k: v[keep] for k, v in m.items()}
            if monitor.generation(m["coverage"], pop):
                break
        best = int(np.argmax(m["coverage"]))
        return RunOutcome(pop[best].copy(), info={"initial_population": initial_size})


class IRFRERFHC(IRFRE):
    """IRFRE whose initial population also holds the ``n_trials`` RF+HC trial results.

    Parameters
    ----------
    n_trials : RF+HC trials whose selections join the initial population (the others: as IRFRE's).
    """

    name = "irfre_rfhc"

    def __init__(self, n_population: int = 100, n_generations: int = 100, mutation_rate: float | None = None,
                 init_density: float | None = None, n_trials: int = 30, time_limit: float | None = None,
                 stall: int | None = None):
        super().__init__(n_population, n_generations, mutation_rate, init_density, time_limit, stall)
        self.n_trials = n_trials

    def _initial_population(self, problem: SelectionProblem, rng: np.random.Generator) -> np.ndarray:
        seeds = RFHC(n_trials=self.n_trials).trials(problem, rng)
        random_part = super()._initial_population(problem, rng)
        return np.vstack([np.array(seeds, dtype=bool).reshape(-1, problem.n_rules), random_part])
