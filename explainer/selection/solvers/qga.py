"""QGA: the nested ("Quadratic") genetic algorithm of section 5 of the paper, with our additions.

The structure is the paper's Algorithm 8 (``qga_paper`` runs it as written,
see :mod:`explainer.selection.solvers.qga_paper`):

* a feasible initial population: Algorithm 6 (QUBOs ``||A x - beta||^2`` for
  targets ``0 <= beta <= b`` - ``b`` itself and random fractions of it - on
  random sub-spaces of ``subspace_size`` rules, solved by the pluggable
  ``sampler``, default the genetic QUBO sampler of Algorithm 5, padded with
  zeros, the feasible solutions kept) plus the RF+HC trials (section 5);
* a mutation set: Algorithm 7 (the two-bit encoded QUBO ``||A (L + E X)||^2``
  on random sub-spaces, decoded to {-1, 0, 1}, zero dropped, closed under
  negation, de-duplicated);
* per generation: n/2 fitness-proportional pairs, two children per pair by
  crossover (retried until feasible), a super-mutation of every child
  (maximal sequence of augmenting mutations), elitist truncation to
  ``n_population``; early stopping when min == max fitness, at
  ``n_generations`` or at 100 % coverage.

Our additions, each switchable for an ablation (constructor flags; ``result.info["improvements"]``
counts what each move kind made):

* ``structured_moves``: the super-mutation first tries the sparse moves
  ``+e_b`` (add), ``-e_a`` (drop), ``e_b - e_a`` (1-for-1 swap), all scored at
  once from per-row counts (:class:`~explainer.selection.solvers.moves.MoveScorer`),
  best improvement, ties to the cheaper move;
* ``lazy_adds``: after an add, further adds by the lazy greedy;
* ``lazy_swaps``: after a swap, the runner-up swaps of the same scoring that
  still augment, each re-scored exactly (one scoring then pays for several swaps:
  tic-tac-toe at half budgets took 1.59 s median with them, 2.22 s without, in
  ``python scripts/ablation.py``);
* ``merge``: when a generation did not raise the best fitness, the problem
  restricted to the rules of the fittest individuals (at most
  ``merge_max_rules``) is solved by the MILP (:class:`~explainer.selection.solvers.merge.PopulationMerge`,
  ``merge_node_limit`` branch-and-bound nodes) and its result, super-mutated,
  joins the population.  It is what brings the runs that stall one rule set away
  from the optimum to it (at half the paper's budgets, 3 runs each: without it
  0.41, 0.52 and 0.10 points below the optimum on blood transfusion, mammographic
  masses and tic-tac-toe; with it, at the optimum in all 10 runs of each);
* ``one_for_two``: drop one rule, add two, when no add/drop/swap augments.  "auto"
  (the default) turns it on only for populations under ``ONE_FOR_TWO_BELOW``
  individuals: with 100 and the merge it no longer changed the mean coverage on
  the paper's data sets and made tic-tac-toe at half budgets take 2.66 s instead of 1.59 s
  (median, ``python scripts/ablation.py``),
  while with few individuals (the "auto" population of a large instance, or a
  small ``n_population``) the local search does more of the work (the 100,000 x
  20,000 synthetic problem, population 6: 99.967 % with it, 99.939 % without,
  below greedy's 99.952 %: ``explainer bench --synthetic`` with ``--param qga.one_for_two=false``);
* ``weighted_subspaces``: sub-spaces drawn with probability proportional to the
  RF+HC rule score (else uniformly); rules over a budget on their own are never drawn;
* ``rfhc_seeds`` / ``qubo_population`` / ``kernel_mutations``: the RF+HC
  trials, Algorithm 6 and Algorithm 7 themselves;
* ``greedy_seed``: before anything else, the ratio greedy on a row sample
  (:func:`~explainer.selection.solvers.greedy.seed_selection`, a fraction of a second at any size)
  becomes the best selection so far and joins the initial population.  A Stop at any moment of the
  run then keeps at least that: stopped in its first seconds, a run used to keep the best of the few
  individuals evaluated so far (at 130,000 census-like rows 69.7-82.1 % f*, once 2 rules both of the
  majority class; with the seed 82.9-84.6 %, rules of both classes: ``docs/benchmarks/stop.md``).

``stall=3`` (the paper has no such rule) ends a run after three generations
without a better selection, merge included: the runs that reach the optimum
reach it within a few generations, and the population then takes many more
to converge (min == max fitness) without changing the result.

Other deviations: the initial population is cut to the ``n_population``
fittest distinct individuals; a crossover that still breaks a budget after
``crossover_retries`` attempts is repaired (drop the rule losing the least f*
per unit of the exceeded budgets); super-mutation results are memoised for every
selection a climb starts from or passes through, so a child that meets one jumps to its end;
the sampled kernel is capped at ``n_kernel`` vectors (whole +-pairs).

Objective: every fitness, climb and merge uses the problem's objective (f* by default; under
"accuracy" the moves are scored by :class:`~explainer.selection.objectives.AccuracyScorer`, which has
no lazy adds, runner-up swaps or 1-for-2 moves).

Scale: ``n_population="auto"`` keeps 100 individuals up to ``AUTO_NNZ``
nonzeros and above it ``100 (AUTO_NNZ / nnz) ** AUTO_POWER``, at least
``AUTO_MIN`` (it depends only on the instance, so the same seed gives the same
result).  Why 1.2 and 6 (they were 1 and 10): the generations a population needs
to converge grow with its size, so a generation of fewer individuals is not
the whole saving; on the synthetic 100,000 x 20,000 problem (21.8 M nonzeros)
6 individuals reached the coverage of 10 (99.965 % at seed 0, and at least
as much at seeds 1 and 2) in under half the time, and 4 lost 0.03 points.
Instances up to 2 M nonzeros (every paper data set) keep 100.  ``time_limit`` ends the run
with the best selection so far (status "stopped"); it is checked between
super-mutation steps, so a child stopped half-way is still feasible.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from explainer.selection.objectives import OBJECTIVES
from explainer.selection.problem import SelectionProblem
from explainer.selection.solvers.archive import Archive
from explainer.selection.solvers.base import Monitor, RunOutcome, Solver
from explainer.selection.solvers.greedy import seed_selection
from explainer.selection.solvers.local_search import (
    MOVE_KINDS,
    LocalSearch,
    move_scorer,
    repair,
    usable_rules,
)
from explainer.selection.solvers.merge import PopulationMerge
from explainer.selection.solvers.moves import TOL, MoveScorer
from explainer.selection.solvers.operators import (
    crossover_children,
    crossover_masks,
    distinct_rows,
    fitness_weights,
    row_key,
    select_pairs,
    weighted_subset,
)
from explainer.selection.solvers.qubo import QUBO, GeneticQUBOSampler, QUBOSampler, decode_kernel
from explainer.selection.solvers.rfhc import RFHC, rule_scores, sampling_weights

#: one_for_two="auto" turns the 1-for-2 moves on for populations smaller than this
ONE_FOR_TWO_BELOW = 100
#: above this many nonzeros in the coverage matrix, the "auto" population shrinks ...
AUTO_NNZ = 2_000_000
#: ... as (AUTO_NNZ / nnz) ** AUTO_POWER (see the module docstring) ...
AUTO_POWER = 1.2
#: ... down to this many individuals
AUTO_MIN = 6
#: the initial population is evaluated this many (individual x row) pairs at a time, a stop request looked at
#: between them (4 individuals at 130,000 rows, 16 at 32,561; a small table's population at once)
EVAL_ROWS_PER_CHECK = 1 << 19


def initial_fitness(problem: SelectionProblem, pop: np.ndarray, stop: Callable[[], bool]) -> np.ndarray:
    """The fitness of ``pop``'s first individuals: all of them, or, once ``stop()`` is true, those evaluated so far.

    A few individuals at a time (``EVAL_ROWS_PER_CHECK`` rows in all, and the problem's own blocks inside), so a
    Stop waits for little: at 130,000 rows one individual took about 20 ms, and a block of 16 about 0.3 s.
    """
    step = max(1, EVAL_ROWS_PER_CHECK // max(problem.n_rows, 1))
    parts: list[np.ndarray] = []
    for i in range(0, pop.shape[0], step):
        if parts and stop():
            break
        chunk = pop[i : i + step]
        parts.append(problem.fitness(chunk, stop=stop))
        if parts[-1].shape[0] < chunk.shape[0]:
            break
    return np.concatenate(parts) if parts else np.zeros(0)


class QGA(Solver):
    """Nested genetic algorithm with QUBO-sampled initial population and mutation set, plus local search.

    Parameters
    ----------
    n_population : individuals kept after each generation, or "auto" (0 on the page): 100, fewer on a coverage
        matrix of more than 2 million nonzeros, at least 6 (``AUTO_NNZ``, ``AUTO_MIN``).
    n_generations : maximum number of generations of the outer loop.
    subspace_size : Algorithm 6: rules in each sub-space whose QUBO is sampled for the initial population.
    n_targets : Algorithm 6: targets beta of the number of rules (b and random fractions of it).
    n_subspaces : Algorithm 6: sub-spaces drawn for each target.
    n_samples : Algorithm 6: solutions kept from each sub-space's sampling.
    n_kernel : Algorithm 7: most kernel vectors kept for the mutations (after closure under negation).
    kernel_subspace_size : Algorithm 7: rules in each sub-space the kernel is sampled on (2 bits each).
    n_kernel_subspaces : Algorithm 7: sub-spaces sampled for the kernel.
    rfhc_trials : RF+HC trials whose selections join the initial population.
    crossover : "uniform", "one_point" or "two_point".
    crossover_retries : attempts per pair to obtain children within the budgets before one is repaired.
    sampler : a :class:`~explainer.selection.solvers.qubo.QUBOSampler` (default ``GeneticQUBOSampler(30, 20)``).
    max_super_mutation_steps : most improving moves applied to one child.
    max_ejections : best (drop a, add b) pairs tried as drop one, add two moves.
    early_stopping : stop when every individual has the same fitness (min == max).
    time_limit : seconds (None: no limit); the run then ends with the best selection so far.
    stall : stop after this many generations in a row without a better selection (None: never).
    rfhc_seeds : the RF+HC trials' selections join the initial population (off: only for an ablation).
    qubo_population : the initial population is sampled from sub-space QUBOs, Algorithm 6 (off: only for an
        ablation).
    kernel_mutations : children are mutated by the sampled kernel vectors, Algorithm 7 (off: only for an ablation).
    structured_moves : the local search tries every add, drop and swap of one rule, each scored at once.
    one_for_two : the local search also drops one rule and adds two when nothing else improves; "auto" (0 on
        the page): on for populations under 100 individuals (``ONE_FOR_TWO_BELOW``).
    lazy_adds : after an add, further adds by the lazy greedy.
    lazy_swaps : after a swap, the runner-up swaps of the same scoring, each checked again.
    weighted_subspaces : sub-spaces drawn by the rules' RF+HC scores (off: uniformly).
    merge : when a generation finds nothing better, the fittest individuals' rules are solved together exactly.
    greedy_seed : a greedy selection on a sample of the rows starts the run, so a Stop at any moment keeps it.
    merge_max_rules : most rules in the merged problem.
    merge_node_limit : branch-and-bound nodes of each merge's MILP solve.
    """

    name = "qga"
    objectives = OBJECTIVES
    #: what happens to a crossover child still over budget after the retries
    crossover_fallback = "repair"
    #: cut the initial population to ``n_population`` before the first generation
    truncate_initial = True

    def __init__(
        self,
        n_population: int | str = "auto",
        n_generations: int = 100,
        subspace_size: int = 20,
        n_targets: int = 6,
        n_subspaces: int = 2,
        n_samples: int = 10,
        n_kernel: int | None = 64,
        kernel_subspace_size: int = 10,
        n_kernel_subspaces: int = 6,
        rfhc_trials: int = 30,
        crossover: str = "uniform",
        crossover_retries: int = 10,
        sampler: QUBOSampler | None = None,
        max_super_mutation_steps: int = 1000,
        max_ejections: int = 32,
        early_stopping: bool = True,
        time_limit: float | None = None,
        stall: int | None = 3,
        rfhc_seeds: bool = True,
        qubo_population: bool = True,
        kernel_mutations: bool = True,
        structured_moves: bool = True,
        one_for_two: bool | str = "auto",
        lazy_adds: bool = True,
        weighted_subspaces: bool = True,
        lazy_swaps: bool = True,
        merge: bool = True,
        merge_max_rules: int = 100,
        merge_node_limit: int = 200,
        greedy_seed: bool = True,
    ):
        self.n_population = n_population
        self.n_generations = n_generations
        self.subspace_size = subspace_size
        self.n_targets = n_targets
        self.n_subspaces = n_subspaces
        self.n_samples = n_samples
        self.n_kernel = n_kernel
        self.kernel_subspace_size = kernel_subspace_size
        self.n_kernel_subspaces = n_kernel_subspaces
        self.rfhc_trials = rfhc_trials
        self.crossover = crossover
        self.crossover_retries = crossover_retries
        self.sampler = sampler
        self.max_super_mutation_steps = max_super_mutation_steps
        self.max_ejections = max_ejections
        self.early_stopping = early_stopping
        self.time_limit = time_limit
        self.stall = stall
        self.rfhc_seeds = rfhc_seeds
        self.qubo_population = qubo_population
        self.kernel_mutations = kernel_mutations
        self.structured_moves = structured_moves
        self.one_for_two = one_for_two
        self.lazy_adds = lazy_adds
        self.weighted_subspaces = weighted_subspaces
        self.lazy_swaps = lazy_swaps
        self.merge = merge
        self.merge_max_rules = merge_max_rules
        self.merge_node_limit = merge_node_limit
        self.greedy_seed = greedy_seed

    _archive: Archive | None = None
    _archive_size = 0

    def keep_archive(self, size: int) -> None:
        """Remember the ``size`` fittest distinct feasible individuals of each run in :attr:`archive_` (0: off,
        the default; the alternatives of :mod:`explainer.selection.alternatives` read it)."""
        self._archive_size = int(size)

    @property
    def archive_(self) -> Archive | None:
        """The fittest distinct feasible individuals of the last run, when :meth:`keep_archive` asked for them."""
        return self._archive

    def _archived(self, problem: SelectionProblem, pop: np.ndarray, fit: np.ndarray, *, first: bool = False) -> None:
        if self._archive_size:
            if first or self._archive is None:
                self._archive = Archive(problem, self._archive_size)
            self._archive.add(pop, fit)

    def population_size(self, problem: SelectionProblem) -> int:
        """``n_population``, with "auto" resolved for ``problem``."""
        if self.n_population != "auto":
            return int(self.n_population)
        nnz = int(problem.indices.size)
        if nnz <= AUTO_NNZ:
            return 100
        return max(AUTO_MIN, int(round(100 * (AUTO_NNZ / nnz) ** AUTO_POWER)))

    def _sampler(self):
        return self.sampler if self.sampler is not None else GeneticQUBOSampler(n_population=30, n_generations=20)

    def _weights(self, problem: SelectionProblem) -> np.ndarray:
        if self.weighted_subspaces:
            return sampling_weights(rule_scores(problem))
        return np.ones(problem.n_rules)

    # ------------------------------------------------------------ inner GA 1
    def feasible_samples(self, problem: SelectionProblem, rng: np.random.Generator, sampler, weights, usable):
        """Algorithm 6: feasible solutions of the sub-space QUBOs ``||A x - beta||^2`` (bool rows, may repeat)."""
        M = problem.n_rules
        A = problem.A.astype(np.float64)
        idx_usable = np.flatnonzero(usable)
        found = []
        if idx_usable.size:
            b_eff = np.minimum(problem.b, A[:, usable].sum(axis=1)).astype(np.float64)  # unbounded -> all rules
            targets = [b_eff] + [np.floor(b_eff * rng.uniform(0.25, 1.0, 2)) for _ in range(int(self.n_targets) - 1)]
            m = min(int(self.subspace_size), idx_usable.size)
            for beta in targets:
                q = QUBO.feasibility(A[:, idx_usable], beta)
                for _ in range(int(self.n_subspaces)):
                    sub = weighted_subset(weights[idx_usable], m, rng)
                    X = sampler.sample(q.subspace(sub), int(self.n_samples), rng)
                    if len(X) == 0:
                        continue
                    R = np.zeros((len(X), M), dtype=bool)
                    R[:, idx_usable[sub]] = np.asarray(X, dtype=bool)
                    R |= problem.pinned_mask
                    found.extend(R[problem.feasible_mask(R)])
        return np.array(found, dtype=bool).reshape(-1, M)

    def initial_population(self, problem: SelectionProblem, rng: np.random.Generator, sampler, weights, usable,
                           *, seed: np.ndarray | None = None, stop: Callable[[], bool] | None = None) -> np.ndarray:
        """``seed`` (if any), the empty selection, Algorithm 6's samples and the RF+HC trials: distinct feasible rows.

        ``stop()`` true between the parts ends the population with the parts made so far.
        """
        stop = stop or (lambda: False)
        parts = [problem.pinned_mask[None, :].copy()]  # the empty selection, or the pins alone
        if seed is not None:  # first: the first individual evaluated
            parts.insert(0, np.asarray(seed, dtype=bool)[None, :])
        if self.qubo_population and not stop():
            parts.append(self.feasible_samples(problem, rng, sampler, weights, usable))
        if self.rfhc_seeds and self.rfhc_trials:
            # one trial at a time, so that a stop ends them there (the generator is drawn on exactly as by
            # one call for every trial): 30 trials took about 0.3 s at 130,000 rows
            trial = RFHC(n_trials=1)
            for _ in range(int(self.rfhc_trials)):
                if stop():
                    break
                parts.append(np.array(trial.trials(problem, rng), dtype=bool).reshape(-1, problem.n_rules))
        R = np.vstack(parts)
        return R[distinct_rows(R)]

    # ------------------------------------------------------------ inner GA 2
    def approximate_kernel(self, problem: SelectionProblem, rng: np.random.Generator, sampler, weights, usable):
        """Algorithm 7 on random sub-spaces: distinct nonzero vectors in {-1,0,1}^M, closed under negation.

        Stored as consecutive (x, -x) pairs, so the cap ``n_kernel`` (rounded
        down to whole pairs) keeps the closure.
        """
        M = problem.n_rules
        idx_usable = np.flatnonzero(usable)
        cap = 2 * (int(self.n_kernel) // 2) if self.n_kernel is not None else np.inf
        if idx_usable.size < 2 or cap <= 0 or not self.kernel_mutations:
            return np.zeros((0, M), dtype=np.int8)
        A = problem.A.astype(np.float64)[:, idx_usable]
        m = min(int(self.kernel_subspace_size), idx_usable.size)
        out: dict[bytes, np.ndarray] = {}
        for _ in range(int(self.n_kernel_subspaces)):
            sub = weighted_subset(weights[idx_usable], m, rng)
            X = sampler.sample(QUBO.kernel(A[:, sub]), int(self.n_samples), rng)
            if len(X) == 0:
                continue
            x = decode_kernel(X)
            for row in x[(np.abs(x) <= 1).all(axis=1) & (x != 0).any(axis=1)]:
                full = np.zeros(M, dtype=np.int8)
                full[idx_usable[sub]] = row
                if full.tobytes() not in out and len(out) + 2 <= cap:
                    out[full.tobytes()] = full
                    out[(-full).tobytes()] = -full
        return np.array(list(out.values()), dtype=np.int8).reshape(-1, M)

    # -------------------------------------------------------------- outer GA
    def uses_one_for_two(self, n_pop: int) -> bool:
        """``one_for_two`` with "auto" resolved for a population of ``n_pop``."""
        if self.one_for_two == "auto":
            return n_pop < ONE_FOR_TWO_BELOW
        return bool(self.one_for_two)

    def _local_search(self, problem, scorer, kernel, monitor, n_pop: int) -> LocalSearch:
        return LocalSearch(
            problem, scorer, kernel, structured=self.structured_moves, one_for_two=self.uses_one_for_two(n_pop),
            lazy=self.lazy_adds, lazy_swaps=self.lazy_swaps, max_ejections=self.max_ejections,
            max_steps=int(self.max_super_mutation_steps), out_of_time=monitor.interrupted,
        )

    def _fallback(self, problem, children, ok, pop, fit, first, second, scorer) -> int:
        """Fix, in place, the children whose crossover kept breaking a budget; returns how many."""
        for i in np.flatnonzero(~ok):
            if self.crossover_fallback == "parent":  # a copy of the fitter parent: always feasible
                children[i] = pop[first[i]] if fit[first[i]] >= fit[second[i]] else pop[second[i]]
            else:
                st = problem.state(children[i])
                repair(st, scorer)
                children[i] = st.r
        return int((~ok).sum())

    def _merged(self, problem, merger, search, pop, fit, n_pop, monitor):
        """The population with the merge of its fittest individuals (super-mutated) in it, when that is fitter.

        Returns (population, fitness, 1 if the merge raised the best else 0, super-mutation steps).
        """
        merged = merger(problem, pop, fit, monitor.termination.remaining(), stop=monitor.interrupted)
        if merged is None:
            return pop, fit, 0, 0
        st = problem.state(merged)
        steps = search.run(st)
        if st.value <= float(fit[0]) + TOL:
            return pop, fit, 0, steps
        pop = np.vstack([st.r[None, :], pop])[:n_pop]
        fit = np.concatenate([[float(st.value)], fit])[:n_pop]
        return pop, fit, 1, steps

    def _run(self, problem: SelectionProblem, rng: np.random.Generator, monitor: Monitor) -> RunOutcome:
        N = problem.total_weight  # f* of full coverage
        n_pop = self.population_size(problem)
        crossover_masks(self.crossover, 0, problem.n_rules, rng)  # validates the name, draws nothing
        sampler = self._sampler()
        usable = usable_rules(problem)
        weights = self._weights(problem)
        seed = None
        if self.greedy_seed:
            seed = seed_selection(problem, rng)
            monitor.offer(seed, float(problem.state(seed).value))
            if monitor.stop_asked():  # stopped already: the seed is the answer, nothing else is computed
                return RunOutcome(seed, info={"generations": 0, "initial_population": 0, "population": n_pop,
                                              "stop_reason": monitor.stop_reason})
        pop = self.initial_population(problem, rng, sampler, weights, usable, seed=seed, stop=monitor.stop_asked)
        fit = initial_fitness(problem, pop, monitor.stop_asked)
        pop = pop[: fit.shape[0]]
        n_initial = pop.shape[0]
        order = np.argsort(-fit, kind="stable")
        if self.truncate_initial:
            order = order[:n_pop]
        pop, fit = pop[order], fit[order]
        self._archived(problem, pop, fit, first=True)
        t_init = monitor.elapsed()
        info = {"generations": 0, "initial_population": n_initial, "population": n_pop}
        if monitor.generation(fit, pop, initial=True):
            info["stop_reason"] = monitor.stop_reason
            best = monitor.best_selection if monitor.best_coverage > float(fit[0]) else pop[0]
            return RunOutcome(best.copy(), info=info)
        kernel = self.approximate_kernel(problem, rng, sampler, weights, usable)
        t_kernel = monitor.elapsed() - t_init
        needs_scorer = self.structured_moves or self.crossover_fallback == "repair"
        scorer = move_scorer(problem, usable) if needs_scorer else None
        search = self._local_search(problem, scorer, kernel, monitor, n_pop)
        memo: dict[bytes, tuple[np.ndarray, float]] = {}  # selection -> (end of its climb, fitness)
        merger = (
            PopulationMerge(self.merge_max_rules, node_limit=self.merge_node_limit) if self.merge else None
        )
        merges = 0
        steps = children_total = climbed = fallbacks = generations = 0
        message = ""
        for _ in range(int(self.n_generations)):
            generations += 1
            children: list[np.ndarray] = []
            child_fit: list[float] = []
            best_before = float(fit[0])
            if pop.shape[0] >= n_pop:
                search.one_for_two_floor = float(fit[-1])
            if pop.shape[0] >= 2:
                a_idx, b_idx = select_pairs(fitness_weights(fit), max(pop.shape[0] // 2, 1), rng)
                crossed, ok, first, second = crossover_children(
                    problem, self.crossover, pop, a_idx, b_idx, rng, self.crossover_retries
                )
                fallbacks += self._fallback(problem, crossed, ok, pop, fit, first, second, scorer)
                for c in crossed:
                    hit = memo.get(row_key(c))
                    if hit is None:  # climb it; the climb files its start, its path and its end in the memo
                        st = problem.state(c)
                        steps += search.run(st, memo, remember=True)
                        climbed += 1
                        hit = (st.r.copy(), float(st.value))
                    children.append(hit[0])
                    child_fit.append(hit[1])
                    children_total += 1
                    if hit[1] >= N - TOL or monitor.interrupted():
                        break  # 100 % coverage cannot be beaten; out of time or stopped: report and stop
            if children:
                pop = np.vstack([pop, np.array(children)])
                fit = np.concatenate([fit, np.array(child_fit)])
            order = np.argsort(-fit, kind="stable")[:n_pop]
            pop, fit = pop[order], fit[order]
            # merge only when the generation did not raise the best: a MILP costs more than a generation
            # that still climbs, and the merge is what gets a stalled population out of its basin
            stuck = float(fit[0]) <= best_before + TOL
            if merger is not None and stuck and not monitor.interrupted():
                pop, fit, better, merge_steps = self._merged(problem, merger, search, pop, fit, n_pop, monitor)
                merges += better
                steps += merge_steps
            monitor.evaluations += len(children)
            self._archived(problem, pop, fit)
            if monitor.generation(fit, pop):
                break
            if self.early_stopping and fit[-1] == fit[0]:
                message = "converged: min == max fitness"
                break
        best = pop[0].copy()
        if monitor.best_coverage > float(fit[0]):
            best = monitor.best_selection.copy()
        info.update(
            generations=generations,
            kernel_size=int(kernel.shape[0]),
            children=children_total,
            distinct_children=climbed,  # children whose selection no earlier climb had met
            super_mutation_steps=steps,
            crossover_fallbacks=fallbacks,
            improvements={**{k: int(search.improvements[k]) for k in MOVE_KINDS}, "merge": merges},
            **(merger if merger is not None else PopulationMerge()).info(),
            time_initial_s=t_init,
            time_kernel_s=t_kernel,
            stop_reason=message or monitor.stop_reason or "n_generations",
        )
        return RunOutcome(best, message=message, info=info)


__all__ = ["AUTO_MIN", "AUTO_NNZ", "AUTO_POWER", "EVAL_ROWS_PER_CHECK", "ONE_FOR_TWO_BELOW", "QGA", "MoveScorer",
           "initial_fitness"]
