"""Stop reaches every long step of a run: the climbs, the population merges, the exact solver's MILP.

Each test sets the stop flag at a chosen moment from inside the run (a hook wrapped around
the step in question), on a problem where the run would otherwise go on for a long time, and
checks that the run ends right there with a feasible selection and status "stopped".  What is
asserted is where the run ended (how many further climbs or solves it made), never how long
it took: the latency is measured by ``scripts/stop_latency.py``.
"""

from __future__ import annotations

import pathlib
import threading
import time
from functools import partial

import numpy as np
import pytest
from waits import HANG_S

from explainer.selection.callbacks import Recorder, StopFlag
from explainer.selection.problem import SelectionProblem
from explainer.selection.settings import RunSettings
from explainer.selection.solvers import exact as exact_module
from explainer.selection.solvers import get_solver
from explainer.selection.solvers import qga as qga_module
from explainer.selection.solvers.greedy import SEED_ROWS, row_sample, seed_selection
from explainer.selection.solvers.local_search import LocalSearch, clean_up
from explainer.selection.solvers.merge import PopulationMerge
from explainer.selection.solvers.rfhc import RFHC

ROOT = pathlib.Path(__file__).resolve().parent.parent


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

    released = threading.Event()

    def slow_solve(*args, **kwargs):
        solves.append(1)
        flag.set()  # pressed while HiGHS works; the solve itself lasts until the solver has given it up
        if released.wait(HANG_S):
            return None  # given up: what it returns is discarded, so no solve is left running in the background
        return real(*args, **kwargs)

    monkeypatch.setattr(exact_module, "_solve_highs", slow_solve)
    solver = get_solver("exact", warm_start="greedy", time_limit=600)
    try:
        result = solver.solve(large, random_state=0, callback=flag)
    finally:
        released.set()
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


def test_a_stop_while_qga_builds_its_first_population_ends_it_after_one_block_of_it(large, monkeypatch):
    """Stopped while the last part of the initial population is made (without the greedy seed): the population
    is evaluated one block far, the best of it kept (feasible), and the freed budget not filled (the answer
    comes at once)."""
    monkeypatch.setattr(SelectionProblem, "EVAL_BLOCK_ENTRIES", large.n_rows * large.n_classes * 4)
    qga = get_solver("qga", n_generations=10**6, greedy_seed=False)
    flag = StopFlag()
    trials = RFHC.trials
    monkeypatch.setattr(RFHC, "trials", lambda *a: flag.set() or trials(*a))
    stopped = qga.solve(large, random_state=0, callback=flag)
    _check_stopped(large, stopped)
    assert stopped.info["initial_population"] == 4
    assert stopped.info["generations"] == 0
    assert stopped.info["cleanup"]["added"] == 0


def _seed(problem, random_state=0, **kwargs):
    """What QGA's greedy seed is for ``problem`` (drawn as QGA draws it), its dead rules dropped as a stopped
    run's clean-up drops them."""
    return clean_up(problem, seed_selection(problem, np.random.default_rng(random_state), **kwargs), fill=False)[0]


@pytest.mark.parametrize("max_rows", [SEED_ROWS, 500])
def test_a_stop_before_qga_starts_returns_the_greedy_seed(large, monkeypatch, max_rows):
    monkeypatch.setattr(qga_module, "seed_selection", partial(seed_selection, max_rows=max_rows))
    flag = StopFlag()
    flag.set()
    rfhc_trials = []
    monkeypatch.setattr(RFHC, "trials", lambda *a: rfhc_trials.append(1) or [])
    stopped = get_solver("qga", n_generations=10**6).solve(large, random_state=0, callback=flag)
    _check_stopped(large, stopped)
    assert np.array_equal(stopped.selection, _seed(large, max_rows=max_rows))
    assert stopped.selection.any() and stopped.info["initial_population"] == 0 and rfhc_trials == []


def test_the_greedy_seed_is_in_the_first_population_and_the_answer_of_a_stop_while_it_is_built(large, monkeypatch):
    flag = StopFlag()
    trials = RFHC.trials

    def pressed_during_the_trials(self, problem, rng):
        flag.set()
        return trials(self, problem, rng)

    monkeypatch.setattr(RFHC, "trials", pressed_during_the_trials)
    recorder = Recorder()
    stopped = get_solver("qga", n_generations=10**6, qubo_population=False).solve(
        large, random_state=0, callback=[recorder, flag])
    _check_stopped(large, stopped)
    seed = large.evaluate(_seed(large)).value
    assert stopped.info["generations"] == 0 and stopped.info["initial_population"] >= 2
    assert recorder.records[0].best >= seed - 1e-9 and stopped.coverage >= seed - 1e-9
    # without a stop, the seed is one of the initial individuals: the empty selection and the seed only here
    alone = get_solver("qga", n_generations=1, qubo_population=False, rfhc_seeds=False).solve(
        large, random_state=0, callback=(recorder := Recorder()))
    assert alone.info["initial_population"] == 2
    assert recorder.records[0].max == pytest.approx(large.evaluate(seed_selection(large, np.random.default_rng(0))).value)


def test_a_row_sample_counts_gains_on_its_rows_and_spends_the_whole_tables_budgets(large):
    rows = np.random.default_rng(3).choice(large.n_rows, 700, replace=False)
    sub = row_sample(large, rows)
    kept = np.sort(rows)
    direct = SelectionProblem(large.coverage_dense[kept], large.rule_class, large.y[kept], large.lengths,
                              *large.budgets, n_classes=large.n_classes)
    assert np.array_equal(sub.coverage_dense, direct.coverage_dense)
    assert np.array_equal(sub.errors, large.errors) and np.array_equal(sub.fits_alone, large.fits_alone)
    r = np.random.default_rng(4).random((30, large.n_rules)) < 0.01
    assert np.array_equal(sub.fitness(r), direct.fitness(r))
    assert np.array_equal(sub.feasible_mask(r), large.feasible_mask(r))


@pytest.fixture(scope="module")
def census():
    from explainer.bench.census import census_like

    return _table(census_like(2000, seed=5), "income", depth=5)


@pytest.fixture(scope="module")
def loans():
    from explainer.data.datasets import sample_datasets

    return _table(str(sample_datasets()["loans"]), "decision", depth=4)


def _table(frame, target, depth):
    from explainer.data import load_dataset
    from explainer.rules.pool import build_pool

    dataset = load_dataset(frame, target)
    pool = build_pool(dataset.X, dataset.y, depth, random_state=0, classes=dataset.classes,
                      feature_specs=dataset.feature_specs)
    return dataset, pool


@pytest.mark.parametrize("table", ["census", "loans"])
def test_stopped_at_once_the_run_keeps_rules_of_several_classes_that_beat_the_majority_class(table, request):
    """The report's accuracy of the greedy seed, a stopped run's answer, is above the majority-class rate, and
    its rules are not all of the majority class (the budgets allow others: a tenth of the rows in errors)."""
    from explainer.pipeline import explain_pool

    dataset, pool = request.getfixturevalue(table)
    settings = RunSettings(complexity_budget=48, error_budget=dataset.n_rows // 10, seed=0)
    flag = StopFlag()
    flag.set()
    explanation = explain_pool(pool, dataset.X, dataset.y, settings, callback=flag)
    result = explanation.result
    problem = SelectionProblem.from_pool(pool, 48, dataset.n_rows // 10)
    assert result.status == "stopped" and result.feasible
    assert np.array_equal(result.selection, _seed(problem))
    majority_code = int(np.argmax(np.bincount(pool.y)))
    majority_rate = np.bincount(pool.y).max() / pool.y.size
    assert (pool.rule_class[result.selection] != majority_code).any()
    assert explanation.report.to_dict()["accuracy"] > majority_rate


def test_the_stop_button_is_drawn_in_the_page_run_that_starts_the_job(monkeypatch):
    """Run's on_click starts the job before the page is drawn again, and that drawing shows Stop.

    The job is kept waiting for a core (a line of no capacity) so that it cannot end before the page is drawn,
    and the live watch is left out: Stop must not wait for anything the worker does, the watch included.
    """
    from streamlit.testing.v1 import AppTest

    from explainer.app import jobs, live
    from explainer.app.session import Session

    monkeypatch.setattr(jobs, "LINE", jobs._Line(0))
    watched = []
    monkeypatch.setattr(live, "watch", lambda job, *a, **k: watched.append(job))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=HANG_S)
    at.run()
    at.session_state["w_source_kind"] = "Bundled sample"
    at.session_state["w_sample"] = "iris"
    at.run()
    next(b for b in at.button if b.label == "Load data").click().run()
    at.switch_page("pages/1_Explain.py").run()
    assert not at.exception
    assert not [b for b in at.button if b.key == Session.stop_run.key]
    at.button(key=Session.run.key).click().run()
    assert not at.exception
    job = at.session_state["job"]
    assert not job.done and watched == [job]
    stop = at.button(key=Session.stop_run.key)
    assert stop.label == "Stop" and not stop.disabled
    stop.click().run()  # the callback stops the job; waiting for a core, it ends at once
    job.join(HANG_S)
    assert job.done and job.explanations == [None]
    at.run()
    assert not [b for b in at.button if b.key == Session.stop_run.key]


def wait_for_stop_in_silence(request, queue, stop_event):
    """A worker still taking its request in (module level: the fork server imports it): it says nothing,
    and ends only some time after the stop."""
    from explainer.app.worker import Ended

    stop_event.wait(120)
    time.sleep(1.0)
    queue.put(Ended())


def test_a_job_stopped_before_its_worker_said_anything_ends_at_once():
    """Nothing was computed, so nothing is waited for: the page sees the job ended when Stop returns."""
    from explainer.app.jobs import RunJob
    from explainer.data import load_dataset, sample_datasets
    from explainer.rules.pool import build_pool

    class SilentJob(RunJob):
        target = staticmethod(wait_for_stop_in_silence)

    dataset = load_dataset(sample_datasets()["iris"])
    pool = build_pool(dataset.X, dataset.y, 3, random_state=0, classes=dataset.classes)
    job = SilentJob(pool, dataset, RunSettings(complexity_budget=4, error_budget=5)).start()
    assert not job.wait_for_end(0.5)
    job.stop()
    assert job.done and job.explanations == [None] and job.errors == [None]
    ended = job.finished_at
    job.join(HANG_S)
    assert job.finished_at == ended  # the worker's own end, a second later, does not move it


def test_the_first_population_is_evaluated_a_few_individuals_at_a_time_and_cut_by_a_stop(large, monkeypatch):
    """Between chunks of EVAL_ROWS_PER_CHECK (individual x row) pairs the stop is looked at: what was evaluated is
    what the whole evaluation gives for those individuals."""
    from explainer.selection.solvers.qga import initial_fitness

    monkeypatch.setattr(qga_module, "EVAL_ROWS_PER_CHECK", 3 * large.n_rows)  # 3 individuals a chunk
    R = np.random.default_rng(2).random((10, large.n_rules)) < 0.02
    whole = large.fitness(R)
    assert np.array_equal(initial_fitness(large, R, lambda: False), whole)
    looks = []
    part = initial_fitness(large, R, lambda: looks.append(1) or len(looks) >= 2)
    assert np.array_equal(part, whole[:6])  # stopped when asked before the third chunk
