"""Stop reaches every long step of a run: the climbs, the population merges, the exact solver's MILP.

Each test sets the stop flag at a chosen moment from inside the run (a hook wrapped around
the step in question), on a problem where the run would otherwise go on for a long time, and
checks that the run ends right there with a feasible selection and status "stopped".  What is
asserted is where the run ended (how many further climbs or solves it made), never how long
it took: the latency is measured by ``scripts/stop_latency.py``.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from explainer.selection.callbacks import StopFlag
from explainer.selection.problem import SelectionProblem
from explainer.selection.solvers import exact as exact_module
from explainer.selection.solvers import get_solver
from explainer.selection.solvers.local_search import LocalSearch
from explainer.selection.solvers.merge import PopulationMerge


@pytest.fixture(scope="module")
def large():
    """Large enough, and budgets tight enough (never 100 %), that a million generations would run for hours."""
    rng = np.random.default_rng(0)
    N, M, K = 4000, 400, 3
    y = rng.integers(0, K, N)
    covers = rng.random((N, M)) < 0.03
    rule_class = rng.integers(0, K, M)
    for i in range(M):  # rules mostly right
        rows = np.flatnonzero(covers[:, i])
        y[rows[rng.random(rows.size) < 0.8]] = rule_class[i]
    return SelectionProblem(covers, rule_class, y, rng.integers(1, 5, M), 40, 200, n_classes=K)


def _check_stopped(problem, result):
    assert result.status == "stopped", (result.status, result.message)
    assert problem.is_feasible(result.selection) and result.feasible
    ev = problem.evaluate(result.selection)
    assert ev.coverage == pytest.approx(result.coverage)


def test_a_stop_inside_a_climb_ends_the_generation_there(large, monkeypatch):
    flag = StopFlag()
    climbs = []
    run = LocalSearch.run

    def climb(self, st, *args, **kwargs):
        climbs.append(len(climbs))
        if len(climbs) == 3:  # pressed during the third climb of generation 1
            flag.set()
        return run(self, st, *args, **kwargs)

    monkeypatch.setattr(LocalSearch, "run", climb)
    solver = get_solver("qga", n_generations=10**6, early_stopping=False)
    result = solver.solve(large, random_state=0, callback=flag)
    _check_stopped(large, result)
    # the climb that saw the flag stopped at its next step, and no further child was climbed
    assert len(climbs) == 3 and result.info["children"] == 3
    assert result.info["generations"] == 1 and result.info["merge_calls"] == 0


def test_a_stop_during_a_population_merge_ends_the_run(large, monkeypatch):
    flag = StopFlag()
    calls = []
    merge = PopulationMerge.__call__

    def merging(self, *args, **kwargs):
        calls.append(1)
        flag.set()  # pressed while the merge's MILP is being solved
        return merge(self, *args, **kwargs)

    monkeypatch.setattr(PopulationMerge, "__call__", merging)
    # a population that converges at once, so that generation 1 is "stuck" and merges
    solver = get_solver("qga", n_generations=10**6, early_stopping=False, n_population=4)
    result = solver.solve(large, random_state=1, callback=flag)
    _check_stopped(large, result)
    assert len(calls) == 1  # the run ended after the merge that saw the flag


def test_a_stop_reaches_the_exact_solvers_milp(large, monkeypatch):
    flag = StopFlag()
    solves = []
    real = exact_module._solve_highs

    def slow_solve(*args, **kwargs):
        solves.append(1)
        flag.set()  # pressed while HiGHS works; the solve itself then takes longer than the poll
        time.sleep(1.0)
        return real(*args, **kwargs)

    monkeypatch.setattr(exact_module, "_solve_highs", slow_solve)
    solver = get_solver("exact", warm_start="greedy", time_limit=600)
    result = solver.solve(large, random_state=0, callback=flag)
    _check_stopped(large, result)
    assert len(solves) == 1 and "stopped on request" in result.message
    # the warm start is kept: the greedy incumbent
    greedy = large.evaluate(exact_module.greedy_incumbent(large)).coverage
    assert result.coverage >= greedy - 1e-9


def test_a_stop_during_the_exact_solvers_warm_start_skips_the_model(large, monkeypatch):
    flag = StopFlag()
    solves = []
    monkeypatch.setattr(exact_module, "_solve_highs", lambda *a, **k: solves.append(1))
    run = LocalSearch.run

    def climb(self, st, *args, **kwargs):
        flag.set()  # pressed while the warm start (a QGA run) climbs its first child
        return run(self, st, *args, **kwargs)

    monkeypatch.setattr(LocalSearch, "run", climb)
    solver = get_solver("exact", warm_start="qga", time_limit=600)
    result = solver.solve(large, random_state=0, callback=flag)
    _check_stopped(large, result)
    assert solves == []  # no model was built or solved after the stop


@pytest.mark.parametrize("algorithm, params", [("ga", {"n_generations": 10**6}), ("rfhc", {"n_trials": 10**6})])
def test_other_solvers_stop_with_a_feasible_selection(large, algorithm, params):
    class StopAtGeneration(StopFlag):
        def on_generation(self, record):
            if record.generation >= 2:
                self.set()
            return super().on_generation(record)

    result = get_solver(algorithm, **params).solve(large, random_state=0, callback=StopAtGeneration())
    _check_stopped(large, result)
    assert np.asarray(result.selection).any() and result.history[-1].generation == 2


def test_a_program_ends_with_its_own_status_while_a_given_up_solve_finishes():
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent("""
        import threading
        from explainer.selection.solvers import exact
        exact.exit_now_if_solving(5)  # nothing in the background: returns
        print("still here", flush=False)
        hold = threading.Event()
        thread = threading.Thread(target=hold.wait, daemon=True)
        thread.start()
        exact._GIVEN_UP.append(thread)
        assert exact.solves_in_background()
        exact.exit_now_if_solving(3)
        print("not reached")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 3
    assert done.stdout == "still here\n"  # flushed before the end


def test_a_stop_cuts_the_evaluation_of_a_population_to_its_first_blocks(large, monkeypatch):
    monkeypatch.setattr(SelectionProblem, "EVAL_BLOCK_ENTRIES", large.n_rows * large.n_classes * 4)  # 4 a block
    rng = np.random.default_rng(1)
    R = rng.random((20, large.n_rules)) < 0.02
    whole = large.evaluate_population(R)
    asked = []

    def stop():
        asked.append(1)
        return len(asked) >= 2  # after the second block

    part = large.evaluate_population(R, stop=stop)
    assert len(part["coverage"]) == 8
    for key, values in part.items():
        assert np.array_equal(values, whole[key][:8]), key
    assert np.array_equal(large.fitness(R, stop=lambda: False), whole["coverage"])


def test_a_stop_before_qga_starts_ends_it_after_one_block_of_its_first_population(large, monkeypatch):
    """Stopped from the start: the initial population is evaluated one block far, the best of it kept
    (feasible), and the freed budget not filled (the answer comes at once)."""
    monkeypatch.setattr(SelectionProblem, "EVAL_BLOCK_ENTRIES", large.n_rows * large.n_classes * 4)
    qga = get_solver("qga", n_generations=10**6)
    flag = StopFlag()
    flag.set()
    stopped = qga.solve(large, random_state=0, callback=flag)
    _check_stopped(large, stopped)
    assert stopped.info["initial_population"] == 4
    assert stopped.info["generations"] == 0
    assert stopped.info["cleanup"]["added"] == 0
