"""``qga_paper``: the paper's Quadratic Genetic Algorithm (Algorithms 5-8) as written.

What it does, step by step (Algorithm 8):

1. initial population: the feasible solutions Algorithm 6 samples (sub-space
   QUBOs ``||A x - beta||^2`` solved by the genetic sampler of Algorithm 5)
   plus the RF+HC trials (section 5 and the conclusion), de-duplicated, all
   kept (the paper truncates only after the first generation);
2. mutation set: Algorithm 7 only - the sampled approximate kernel of ``A``,
   decoded to {-1, 0, 1}, zero dropped, closed under negation;
3. per generation, with n the current population size: n/2 pairs of distinct
   individuals drawn with probability proportional to f*; two children per
   pair by crossover (complementary at the first attempt), each repeated
   until it keeps the budgets;
4. super-mutation of every child: while some mutation m of the set gives a
   feasible ``x (+) m = clip(x + m, 0, 1)`` with strictly higher f*, apply the
   one with the highest f* (the paper does not say which augmenting mutation
   to take; the best is the natural hill-climbing choice and is deterministic);
5. children join the population, the ``n_population`` fittest are kept
   (duplicates included, as in the paper: that is what lets min == max fire);
6. stop when min == max fitness, at ``n_generations`` or at 100 % coverage.

No structured move (add / drop / swap / 1-for-2, lazy adds) and no repair is
used anywhere: ``result.info["improvements"]`` counts only ``"kernel"`` steps.
The shared clean-up of :meth:`Solver.solve` only *drops* dead rules here
(``clean_up = "drop"``; it never lowers f*), so the coverage is the
algorithm's own.

Parameters the paper does not give, and what was chosen:

* ``n_population`` = 100 and ``n_generations`` = 100: the paper names
  n_max-population and n_generations without values; 100 / 100 are the usual
  textbook sizes and the values of our other genetic algorithms (the early
  stop usually ends the run long before 100 generations).
* ``crossover_retries`` = 20 and the fallback: the paper repeats the
  crossover "until each child satisfies the constraints", which need not end
  (two parents that fill the budget in different ways rarely have a feasible
  uniform child).  After 20 attempts a child still over budget is replaced by
  a copy of the fitter parent (always feasible); the count is in
  ``info["crossover_fallbacks"]``.  Standard GA uses the same bound.
* Algorithm 6: 6 targets beta (b and 5 random fractions of it in [1/4, 1]),
  2 sub-spaces of 20 rules per target, 10 solutions kept per sub-space
  ("small sub-spaces" in the paper); sub-spaces drawn uniformly among the
  rules that fit the budgets on their own (the paper: "random subsets").
* Algorithm 7: 20 sub-spaces of 10 rules (20 bits each), 10 solutions kept per
  sub-space, no cap on the set: since it is the only source of mutations, it
  gets more sub-spaces than in ``qga``.
* Algorithm 5 (the QUBO sampler): 30 individuals, 20 generations, bit-flip rate 1/n.
* RF+HC: 30 trials (the paper's n_trials for RF+HC runs).
"""

from __future__ import annotations

from explainer.selection.solvers.qga import QGA
from explainer.selection.solvers.qubo import QUBOSampler


class QGAPaper(QGA):
    """The paper's QGA (Algorithms 5-8) without our additions; see the module docstring.

    Parameters
    ----------
    n_population, n_generations, subspace_size, n_targets, n_subspaces, n_samples, n_kernel,
    kernel_subspace_size, n_kernel_subspaces, rfhc_trials, crossover, crossover_retries, sampler,
    max_super_mutation_steps, early_stopping, time_limit, stall : as for
        :class:`~explainer.selection.solvers.qga.QGA` (``n_kernel=None``: no cap).
    """

    name = "qga_paper"
    crossover_fallback = "parent"
    truncate_initial = False
    clean_up = "drop"

    def __init__(
        self,
        n_population: int = 100,
        n_generations: int = 100,
        subspace_size: int = 20,
        n_targets: int = 6,
        n_subspaces: int = 2,
        n_samples: int = 10,
        n_kernel: int | None = None,
        kernel_subspace_size: int = 10,
        n_kernel_subspaces: int = 20,
        rfhc_trials: int = 30,
        crossover: str = "uniform",
        crossover_retries: int = 20,
        sampler: QUBOSampler | None = None,
        max_super_mutation_steps: int = 1000,
        early_stopping: bool = True,
        time_limit: float | None = None,
        stall: int | None = None,
    ):
        super().__init__(
            n_population=n_population, n_generations=n_generations, subspace_size=subspace_size,
            n_targets=n_targets, n_subspaces=n_subspaces, n_samples=n_samples, n_kernel=n_kernel,
            kernel_subspace_size=kernel_subspace_size, n_kernel_subspaces=n_kernel_subspaces,
            rfhc_trials=rfhc_trials, crossover=crossover, crossover_retries=crossover_retries,
            sampler=sampler, max_super_mutation_steps=max_super_mutation_steps, early_stopping=early_stopping,
            time_limit=time_limit, stall=stall, structured_moves=False, one_for_two=False, lazy_adds=False,
            weighted_subspaces=False, merge=False, lazy_swaps=False, greedy_seed=False,
        )

    def get_params(self) -> dict:
        code = type(self).__init__.__code__
        keep = set(code.co_varnames[1 : code.co_argcount])
        return {k: v for k, v in super().get_params().items() if k in keep}


__all__ = ["QGAPaper"]
