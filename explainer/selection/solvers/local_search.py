"""The one local-search engine: augmenting moves, greedy fills, repair and dead-rule clean-up.

Every solver that improves a selection move by move uses these functions on a
:class:`~explainer.selection.problem.SelectionState` with a
:class:`~explainer.selection.solvers.moves.MoveScorer` (per-rule gains from per-row
counts):

* :class:`LocalSearch` - QGA's super-mutation: a maximal sequence of
  augmenting moves (f* strictly increases, the budgets hold after every
  step).  Which moves it may use is switchable (structured add/drop/swap,
  1-for-2, lazy adds, sampled kernel vectors), and it counts the improvements
  each kind made (``improvements``), so an ablation can say what earned what;
* :func:`greedy_fill` - repeated best (or best-per-cost) augmenting adds: the
  greedy solver, ForEx++ trimmed, the exact solver's incumbent and the clean-up;
* :func:`lazy_adds` - further best adds without re-scoring every rule;
* :func:`repair` - drop rules until both budgets hold, least f* lost per unit
  of the exceeded budget(s) first;
* :func:`drop_dead_rules` / :func:`clean_up` - no selected rule whose removal
  leaves f* unchanged or higher.

Every "f*" above is the problem's objective (:mod:`explainer.selection.objectives`): f* under
"coverage", rows right minus the conflict penalty under "accuracy", whose moves
:func:`move_scorer` scores with an :class:`~explainer.selection.objectives.AccuracyScorer`.
"""

from __future__ import annotations

from collections.abc import MutableMapping

import numpy as np

from explainer.selection import objectives
from explainer.selection.loops import lazy_greedy_adds, move_gains
from explainer.selection.problem import SelectionProblem, SelectionState
from explainer.selection.solvers.moves import TOL, MoveScorer
from explainer.selection.solvers.operators import row_key

#: the move kinds counted in ``LocalSearch.improvements`` (and QGA's ``info["improvements"]``)
MOVE_KINDS = ("add", "drop", "swap", "one_for_two", "lazy_add", "lazy_swap", "kernel")
#: lazy adds make this many stale bounds exact at a time (doubling while none of them is the best)
_LAZY_BATCH = 8


def budget_scale(budget: float | None) -> float:
    """1 / budget for a positive budget, else 0 (the term does not count; ``None``: no budget)."""
    if budget is None or budget <= 0:
        return 0.0
    return 1.0 / float(budget)


def rule_costs(problem: SelectionProblem) -> np.ndarray:
    """cost_i = L_i / Bc + E_i / Be (a term is dropped when its budget is 0 or unbounded)."""
    bc, be = problem.budgets  # None: no budget
    return problem.lengths * budget_scale(bc) + problem.errors * budget_scale(be)


def usable_rules(problem: SelectionProblem) -> np.ndarray:
    """Rules that cover something and fit both budgets on their own (alongside the pins), and the pins."""
    return problem.fits_alone & (problem.support > 0) | problem.pinned_mask


def move_scorer(problem: SelectionProblem, usable: np.ndarray | None = None):
    """The move scorer of ``problem``'s objective: a :class:`MoveScorer` (f*) or an
    :class:`~explainer.selection.objectives.AccuracyScorer` (``usable``: default :func:`usable_rules`)."""
    usable = usable_rules(problem) if usable is None else usable
    if problem.objective == "accuracy":
        return objectives.AccuracyScorer(problem, usable)
    return MoveScorer(problem, usable)


# ---------------------------------------------------------------------- adds
def lazy_adds(st: SelectionState, scorer: MoveScorer, limit: int) -> int:
    """Further best adds after :meth:`MoveScorer.best_move` chose an add, without re-scoring everything.

    Adding rules never raises the gain of adding another one (coverage is
    submodular, conflicts only grow), so the stale gains are upper bounds: the
    candidate whose exact gain is at least every other stale bound is the best
    add (the classic lazy greedy; ties to the smaller index).  The exact gains
    are computed for a few candidates at a time, highest stale bound first, the
    batch doubling while none of them is the best
    (:func:`explainer.selection.loops.lazy_greedy_adds`).
    """
    if scorer.last_adds is None:
        return 0
    cand, gains, cost = scorer.last_adds
    p = st.problem
    done, *gained = lazy_greedy_adds(
        cand, gains - cost[cand], int(limit), _LAZY_BATCH, st.r, st.total, st.per_class, p.indptr, p.indices,
        p.rule_class, p.lengths, p.errors, *st.slack(), float(p.eps), cost, TOL, p.row_weight,
    )
    st.account(*gained)
    return int(done)


def lazy_swaps(st: SelectionState, scorer: MoveScorer, limit: int) -> int:
    """After :meth:`MoveScorer.best_move` chose a swap, apply its runner-up swaps that still augment.

    Each listed swap (drop a, add b) is re-scored exactly on the current state
    (O(rows of a and b)) and applied when it fits both budgets and raises f*:
    one full scoring of every rule then pays for several swaps.  The stale
    ranking is only an order of trial (swap gains are not monotone), so each
    applied swap is checked, never assumed.
    """
    p = st.problem
    done = 0
    for a, b in scorer.runner_up_swaps():
        if done >= limit:
            break
        if not st.r[a] or st.r[b]:
            continue
        if st.complexity - p.lengths[a] + p.lengths[b] > p.complexity_budget or (
            st.errors - p.errors[a] + p.errors[b] > p.error_limit
        ):
            continue
        g_drop = st.delta_value(a)
        st.flip(a)
        if g_drop + st.delta_value(b) > TOL:
            st.flip(b)
            done += 1
        else:
            st.flip(a)
    return done


def greedy_fill(st: SelectionState, scorer: MoveScorer, *, ratio: bool = False, allowed=None,
                on_step=None) -> int:
    """Add, while one augments and fits, the rule with the largest f* gain (``ratio``: gain per cost).

    ``cost_i = L_i / Bc + E_i / Be`` (:func:`rule_costs`; a rule of cost 0 has
    an infinite ratio).  Ties go to the lowest index.  ``on_step(st)``
    returning True stops early.  Returns the number of rules added.
    """
    p = st.problem
    costs = np.maximum(rule_costs(p), 1e-12)
    ok_rules = scorer.usable if allowed is None else scorer.usable & np.asarray(allowed, dtype=bool)
    added = 0
    while True:
        fits = ok_rules & ~st.r & (p.lengths <= p.complexity_budget - st.complexity) & (
            p.errors <= p.error_limit - st.errors
        )
        if not fits.any():
            break
        gadd = scorer.add_drop_gains(st)[0]
        ok = fits & (gadd > TOL)
        if not ok.any():
            break
        score = np.where(ok, gadd / costs if ratio else gadd, -np.inf)
        st.flip(int(np.argmax(score)))
        added += 1
        if on_step is not None and on_step(st):
            break
    return added


# -------------------------------------------------------------------- drops
def repair(st: SelectionState, scorer: MoveScorer | None = None) -> int:
    """Drop rules until both budgets hold: least f* lost per unit of the exceeded budget(s) first.

    Relief of rule i: ``L_i / Bc`` if complexity is over, plus ``E_i / Be`` if
    errors are over; a zero budget counts any use of it as relief 1.  Returns
    the number of rules dropped.
    """
    p = st.problem
    dropped = 0
    while not st.feasible:
        over_l = st.complexity > p.complexity_budget
        over_e = st.errors > p.error_limit
        S = np.flatnonzero(st.r & ~p.pinned_mask)  # never a pin: the pins alone keep the budgets
        relief = np.zeros(S.size)
        if over_l:
            relief += p.lengths[S] / p.complexity_budget if p.complexity_budget > 0 else (p.lengths[S] > 0)
        if over_e:
            relief += p.errors[S] / p.error_budget if p.error_budget > 0 else (p.errors[S] > 0)
        if scorer is not None:
            loss = -scorer.add_drop_gains(st)[1][S]
        else:
            loss = np.array([-st.delta_value(int(a)) for a in S])
        score = np.where(relief > 0, (loss + 1.0) / np.where(relief > 0, relief, 1.0), np.inf)
        st.flip(int(S[int(np.argmin(score))]))
        dropped += 1
    return dropped


def drop_dead_rules(st: SelectionState) -> int:
    """Drop, one at a time, a selected rule whose removal leaves f* unchanged or higher, until none is left.

    The rule dropped first is the one whose removal gains most; ties go to the
    costlier rule (more conditions and errors freed), then the higher index.
    Returns the number of rules dropped.
    """
    p = st.problem
    dropped = 0
    while True:
        S = np.flatnonzero(st.r & ~p.pinned_mask)
        if S.size == 0:
            return dropped
        gain = np.array([st.delta_value(int(a)) for a in S])
        dead = gain >= -TOL
        if not dead.any():
            return dropped
        cand = S[dead]
        order = np.lexsort((-cand, -(p.lengths[cand] + p.errors[cand]), -gain[dead]))
        st.flip(int(cand[order[0]]))
        dropped += 1


def clean_up(problem: SelectionProblem, selection: np.ndarray, *, fill: bool = True) -> tuple[np.ndarray, dict]:
    """No dead rules: drop them (f* never falls), then spend the freed budget on augmenting adds.

    Repeats until neither step changes anything (adds strictly raise f*, drops
    keep or raise it, so it ends).  A selection over budget is returned as it is.
    """
    selection = np.asarray(selection, dtype=bool)
    info = {"dropped": 0, "added": 0}
    if not problem.is_feasible(selection):
        return selection, info
    st = problem.state(selection)
    scorer = None
    while True:
        info["dropped"] += drop_dead_rules(st)
        if not fill:
            break
        if scorer is None:
            scorer = move_scorer(problem)
        added = greedy_fill(st, scorer)
        info["added"] += added
        if added == 0:
            break
    return st.r.copy(), info


# ------------------------------------------------------------ super-mutation
def flip_gains(st: SelectionState, vid: np.ndarray, rules: np.ndarray, n: int) -> np.ndarray:
    """f* change of ``n`` candidate moves, move ``vid[k]`` flipping rule ``rules[k]`` (each rule once per move).

    Exact (integer counts, or the rows' weights): per (move, covered row) the firing counts are
    updated by the flips, and the change of covered rows and conflicting pairs
    is summed per move.  O(rows covered by the flipped rules x classes), not a
    full evaluation of every mutated selection.
    """
    p = st.problem
    if p.objective == "accuracy":
        return objectives.move_gains(st, vid, rules, n)
    return move_gains(np.asarray(vid, dtype=np.int64), np.asarray(rules, dtype=np.int64), int(n), st.r, st.total,
                      st.per_class, p.indptr, p.indices, p.rule_class, float(p.eps), p.row_weight)


class KernelMoves:
    """The sampled kernel vectors as mutations ``x (+) m = clip(x + m, 0, 1)``, kept sparse.

    Only the nonzeros of the vectors are stored; for a selection, an entry
    flips its rule when it is +1 on an unselected or -1 on a selected rule.
    Budgets and gains are then computed from the flips alone.
    """

    def __init__(self, kernel: np.ndarray):
        self.n = int(kernel.shape[0])
        self.vid, self.rule = np.nonzero(kernel)
        self.up = kernel[self.vid, self.rule] > 0

    def step(self, st: SelectionState) -> bool:
        """Apply the most augmenting feasible mutation (ties: the first vector), if any."""
        if self.n == 0:
            return False
        p = st.problem
        flip = self.up != st.r[self.rule]
        vid, rules = self.vid[flip], self.rule[flip]
        if vid.size == 0:
            return False
        sign = np.where(st.r[rules], -1, 1)
        d_len = np.bincount(vid, weights=sign * p.lengths[rules], minlength=self.n)
        d_err = np.bincount(vid, weights=sign * p.errors[rules], minlength=self.n)
        ok = (np.bincount(vid, minlength=self.n) > 0) & (st.complexity + d_len <= p.complexity_budget) & (
            st.errors + d_err <= p.error_limit
        )
        if p.pinned.size:  # no vector may drop a pin
            ok &= np.bincount(vid, weights=st.r[rules] & p.pinned_mask[rules], minlength=self.n) == 0
        if not ok.any():
            return False
        keep = ok[vid]
        gain = np.where(ok, flip_gains(st, vid[keep], rules[keep], self.n), -np.inf)
        j = int(np.argmax(gain))
        if gain[j] <= TOL:
            return False
        for i in rules[vid == j]:
            st.flip(int(i))
        return True


class LocalSearch:
    """Maximal sequences of augmenting moves (the super-mutation), with switchable move kinds.

    Each step applies, in this order of preference, the first kind that augments:

    1. ``structured``: the most augmenting add or drop, else the most augmenting
       1-for-1 swap (one scoring of every rule from the per-row counts);
       after an add, ``lazy`` further adds chosen by the lazy greedy; after a swap,
       ``lazy_swaps`` applies the runner-up swaps that still augment (:func:`lazy_swaps`);
    2. ``one_for_two``: the best drop-one-add-two move among the
       ``max_ejections`` best swaps (needs ``structured``);
    3. ``kernel``: the most augmenting vector of the sampled approximate kernel.

    With only ``kernel`` on it is the paper's super-mutation.  ``improvements``
    counts the steps each kind made (lazy adds separately from scored adds).
    """

    def __init__(self, problem: SelectionProblem, scorer: MoveScorer | None, kernel: np.ndarray | None = None, *,
                 structured: bool = True, one_for_two: bool = True, lazy: bool = True, lazy_swaps: bool = True,
                 max_ejections: int = 32, max_steps: int = 1000, out_of_time=None):
        self.problem = problem
        self.scorer = scorer
        self.kernel = np.zeros((0, problem.n_rules), dtype=np.int8) if kernel is None else kernel
        self.kernel_moves = KernelMoves(self.kernel)
        self.structured = structured and scorer is not None
        self.one_for_two = one_for_two and self.structured
        self.lazy = lazy
        self.lazy_swaps = lazy_swaps
        self.max_ejections = max_ejections
        self.max_steps = max_steps
        self.out_of_time = out_of_time or (lambda: False)
        self.improvements = dict.fromkeys(MOVE_KINDS, 0)
        #: 1-for-2 moves (the costliest scoring) are tried only from selections at least this good:
        #: QGA sets it to its population's worst fitness, below which a child is dropped anyway
        self.one_for_two_floor = -np.inf

    def _structured_step(self, st, scorer: MoveScorer, limit: int) -> int:
        move = scorer.best_move(st)
        if move is None:
            return 0
        _, a, b = move
        for i in (a, b):
            if i >= 0:
                st.flip(i)
        kind = "swap" if a >= 0 and b >= 0 else "drop" if a >= 0 else "add"
        self.improvements[kind] += 1
        steps = 1
        if kind == "add" and self.lazy:
            n = lazy_adds(st, scorer, limit - 1)
            self.improvements["lazy_add"] += n
            steps += n
        elif kind == "swap" and self.lazy_swaps:
            n = lazy_swaps(st, scorer, limit - 1)
            self.improvements["lazy_swap"] += n
            steps += n
        return steps

    def run(self, st: SelectionState, known: MutableMapping[bytes, tuple[np.ndarray, float]] | None = None,
            *, remember: bool = False) -> int:
        """Apply augmenting moves to ``st`` until none applies (or the step cap / time limit); returns the steps.

        ``known`` maps selections (:func:`~explainer.selection.solvers.operators.row_key`) to where a climb
        from them ended, as (selection, f*) - QGA's memo of its climbs.  Each step is a function of
        the selection it starts from, so a climb that reaches a known selection jumps to its end:
        once QGA's population has converged, many climbs end at a local optimum found before, and
        confirming one (scoring every swap and finding none) is the dearest step of a climb.
        ``remember``: the selection the climb starts from, every one it passes through and its end
        go into ``known`` with that end (unless the step cap or the clock cut the climb short), so
        later climbs that meet the same path jump too: the results are the same, only sooner.
        """
        scorer = self.scorer  # set whenever structured (and so one_for_two) is on
        steps = 0
        path = [row_key(st.r)] if remember else []  # selections that lead to this climb's end
        stopped = False
        while True:
            if steps >= self.max_steps or self.out_of_time():
                stopped = True
                break
            if known is not None and steps:
                key = row_key(st.r)
                end = known.get(key)
                if end is not None:
                    for i in np.flatnonzero(st.r != end[0]):
                        st.flip(int(i))
                    break
                if remember:
                    path.append(key)
            if self.structured and scorer is not None:
                n = self._structured_step(st, scorer, self.max_steps - steps)
                if n:
                    steps += n
                    continue
            if self.one_for_two and scorer is not None and st.value >= self.one_for_two_floor:
                move = scorer.best_one_for_two(st, int(self.max_ejections))
                if move is not None:
                    for i in move[1:]:
                        st.flip(i)
                    self.improvements["one_for_two"] += 1
                    steps += 1
                    continue
            if self.kernel_moves.step(st):
                self.improvements["kernel"] += 1
                steps += 1
                continue
            break
        if remember and known is not None and not stopped:
            end = (st.r.copy(), float(st.value))
            for key in (*path, row_key(end[0])):
                known.setdefault(key, end)
        return steps


__all__ = [
    "MOVE_KINDS",
    "LocalSearch",
    "budget_scale",
    "clean_up",
    "drop_dead_rules",
    "greedy_fill",
    "KernelMoves",
    "flip_gains",
    "lazy_adds",
    "lazy_swaps",
    "move_scorer",
    "repair",
    "rule_costs",
    "usable_rules",
]
