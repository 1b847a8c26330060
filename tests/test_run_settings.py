"""One run object from the Explain page to the solver: RunSettings (checked when built, handed on unchanged),
None budgets (unbounded at the solver, reported as None), the policy's one PolicyChoice, and the worker's
replies (frozen dataclasses that cross a process queue)."""

from __future__ import annotations

import pickle
import queue as queue_module
import threading
from collections import Counter

import numpy as np
import pytest

import explainer.pipeline.explain as explain_module
from explainer.app import budgets, worker
from explainer.app.caching import COMPUTED
from explainer.app.jobs import RunJob, mp_context
from explainer.app.session import Session
from explainer.data import load_dataset, sample_datasets
from explainer.pipeline import PolicyChoice, explain_pool, form_rules, resolve_defaults
from explainer.pipeline.policy import NO_TREE_COMPLEXITY
from explainer.rules.pool import build_pool
from explainer.selection.callbacks import GenerationRecord
from explainer.selection.frontier import frontier
from explainer.selection.problem import UNBOUNDED, SelectionProblem
from explainer.selection.settings import RunSettings
from explainer.selection.solvers import solve


@pytest.fixture(scope="module")
def iris():
    ds = load_dataset(sample_datasets()["iris"])
    return ds, build_pool(ds.X, ds.y, 4, random_state=0, classes=ds.classes)


# ---------------------------------------------------------------------- the value itself

@pytest.mark.parametrize(
    "fields, message",
    [
        ({"complexity_budget": -1}, "complexity_budget"),
        ({"complexity_budget": 2.5}, "complexity_budget"),
        ({"complexity_budget": True}, "complexity_budget"),
        ({"error_budget": -0.5}, "error_budget"),
        ({"error_budget": float("inf")}, "error_budget"),
        ({"eps": -1.0}, "eps"),
        ({"form": "majority"}, "form"),
        ({"class_weight": "none"}, "class_weight"),
        ({"class_weight": {"a": -1.0}}, "class_weight"),
        ({"seed": -3}, "seed"),
        ({"time_limit": -1.0}, "time_limit"),
        ({"time_limit": 5.0, "algorithm_params": {"time_limit": 5.0}}, "time limit once"),
        ({"algorithm": ""}, "algorithm"),
        ({"algorithm_params": [("n_generations", 3)]}, "algorithm_params"),
    ],
)
def test_bad_values_are_refused_when_the_settings_are_built(fields, message):
    with pytest.raises(ValueError, match=message):
        RunSettings(**fields)


def test_settings_are_read_only_hashable_and_pickle_to_an_equal_value():
    params = {"n_generations": 7}
    run = RunSettings(3, 2.5, algorithm="ga", algorithm_params=params, class_weight={"a": 2.0}, seed=1,
                      time_limit=4.0)
    params["n_generations"] = 8  # the caller's dict is copied, not shared
    assert run.algorithm_params == {"n_generations": 7}
    with pytest.raises(TypeError):
        run.algorithm_params["n_generations"] = 9
    with pytest.raises(AttributeError):
        run.complexity_budget = 4
    again = pickle.loads(pickle.dumps(run))
    assert again == run and hash(again) == hash(run)
    assert run.solver_params() == {"n_generations": 7, "time_limit": 4.0}
    assert RunSettings().solver_params() == {}  # no limit set: the algorithm's own parameters decide


# ---------------------------------------------------------------------- from the page to the solver

class _Capture:
    """Stands in for the solver entry: records what it is given, then solves as the real entry would."""

    def __init__(self):
        self.calls = []

    def __call__(self, problem, settings, *, callback=None):
        self.calls.append((problem, settings))
        return solve(problem, settings.algorithm, random_state=settings.seed, callback=callback,
                     **settings.solver_params())


def _page_state(pool_key, **values) -> Session:
    state = Session({})
    state.pool_key = pool_key
    for slot, value in values.items():
        setattr(state, slot, value)
    return state


def test_the_pages_run_reaches_the_solver_unchanged(iris, monkeypatch):
    ds, pool = iris
    pool_key = ("iris test", "runobj")
    fallback = Counter(pool.y.tolist()).most_common(1)[0][0]
    choice = PolicyChoice(4, 5, form="fallback", fallback=fallback, chosen=True)
    COMPUTED.put(budgets.defaults_key(pool_key), choice)
    state = _page_state(pool_key, bc=4, be=5, algorithm="greedy", eps=0.5, seed=3, class_weight="none")
    run = budgets.run_settings(state)
    assert run == RunSettings(4, 5, algorithm="greedy", eps=0.5, form="fallback", class_weight=None, seed=3)

    job = RunJob(pool, ds, run)  # not started: its request goes to the worker's code in this process
    capture = _Capture()
    monkeypatch.setattr(explain_module, "solve_run", capture)
    replies = queue_module.Queue()
    worker.run_selection(job._request, replies, threading.Event())
    (problem, received), = capture.calls
    assert received == run
    # the fallback form: only the rules of the classes other than the most frequent one
    assert problem.n_rules == int(np.count_nonzero(pool.rule_class != fallback)) < pool.n_rules
    kinds = []
    while not replies.empty():
        kinds.append(type(replies.get()))
    assert kinds[0] is worker.TaskStarted and kinds[-1] is worker.Explained

    # away from the default budgets (or with weighted rows) every rule may be used
    assert budgets.run_settings(_page_state(pool_key, bc=5, be=5, algorithm="greedy", class_weight="none")).form == "all"
    weighted = budgets.run_settings(_page_state(pool_key, bc=4, be=5, algorithm="greedy", class_weight="balanced"))
    assert weighted.form == "all" and weighted.class_weight == "balanced"


def test_none_budgets_are_unbounded_at_the_solver_and_reported_as_none(iris, monkeypatch):
    ds, pool = iris
    capture = _Capture()
    monkeypatch.setattr(explain_module, "solve_run", capture)
    exp = explain_pool(pool, ds.X, ds.y, RunSettings(algorithm="greedy"))
    (problem, _), = capture.calls
    assert problem.complexity_budget == UNBOUNDED and problem.error_budget == UNBOUNDED
    assert problem.fits_alone.all()  # no rule is too long or too wrong for no budget
    assert exp.result.complexity_budget is None and exp.result.error_budget is None
    assert exp.report.complexity_budget is None and exp.report.error_budget is None
    assert exp.report.settings["complexity_budget"] is None
    # the solvers' own results say the same
    direct = solve(SelectionProblem.from_pool(pool, None, 3), "greedy")
    assert direct.complexity_budget is None and direct.error_budget == 3


def test_explain_pool_refuses_keywords_beside_the_settings(iris):
    ds, pool = iris
    with pytest.raises(TypeError, match="complexity_budget"):
        explain_pool(pool, ds.X, ds.y, RunSettings(3, 0), complexity_budget=4)


# ---------------------------------------------------------------------- the policy's one object

def test_the_policy_returns_one_choice_and_says_what_to_use_without_a_tree(iris, monkeypatch):
    _, pool = iris
    given = resolve_defaults(pool, 6, 2)
    assert (given.budgets, given.form, given.rules, given.chosen) == ((6, 2), "all", None, False)
    assert given.run_settings(algorithm="greedy", seed=1) == RunSettings(6, 2, algorithm="greedy", seed=1)
    majority = Counter(pool.y.tolist()).most_common(1)[0][0]
    assert given.fallback == majority
    expected = [i for i in range(pool.n_rules) if pool.rule_class[i] != majority]
    assert form_rules(pool, "fallback").tolist() == expected and form_rules(pool, "all") is None
    assert PolicyChoice(6, 2, form="fallback").form_at(6, 2) == "fallback"
    assert PolicyChoice(6, 2, form="fallback").form_at(7, 2) == "all"

    monkeypatch.setattr(pool, "best_tree", lambda: None)
    with pytest.raises(ValueError, match="no tree"):
        resolve_defaults(pool)
    guess = budgets.choose_defaults(pool)  # the dashboard asks the policy, which answers for this case too
    assert guess.budgets == (NO_TREE_COMPLEXITY, max(1, pool.n_rows // 20)) and guess.form == "all"
    assert resolve_defaults(pool, 3, refuse_without_tree=False).budgets == (3, max(1, pool.n_rows // 20))


# ---------------------------------------------------------------------- the replies

def test_every_reply_crosses_a_process_queue_intact(iris):
    ds, pool = iris
    fr = frontier(pool, 5, (1, 3), exact_time_limit=0, qga_time_limit=0)
    exp = explain_pool(pool, ds.X, ds.y, RunSettings(4, 5, algorithm="greedy"))
    exp.pool = exp.problem = None  # as the worker sends it
    record = GenerationRecord(generation=0, min=1.0, mean=2.0, max=3.0, best=3.0, diversity=1, population=2,
                              elapsed_s=0.1, max_generations=5)
    sent = [worker.TaskStarted(1), worker.Records(1, (record,)), worker.Failed(2, "greedy failed: boom"),
            worker.PointFound(fr.points[0]), worker.FrontierFound(fr), worker.Explained(0, exp), worker.Ended()]
    q = mp_context().Queue()
    for reply in sent:
        q.put(reply)
    got = [q.get(timeout=30) for _ in sent]
    assert [type(g) for g in got] == [type(s) for s in sent]
    assert got[:3] == sent[:3] and got[-1] == sent[-1]
    assert got[3].point.complexity_budget == fr.points[0].complexity_budget
    assert [p.coverage for p in got[4].frontier] == [p.coverage for p in fr]
    assert got[5].explanation.report.rules.to_text() == exp.report.rules.to_text()
    with pytest.raises(AttributeError):
        got[0].task = 2  # frozen


def test_a_run_that_cannot_run_says_so_on_the_page_and_where_in_the_log(iris, monkeypatch, capsys):
    ds, pool = iris
    job = RunJob(pool, ds, RunSettings(4, 5, algorithm="greedy"))  # not started: run here

    def broken(*args, **kwargs):
        raise ValueError("an impossible request")

    monkeypatch.setattr(worker, "explain_pool", broken)
    replies = queue_module.Queue()
    worker.run_selection(job._request, replies, threading.Event())
    failed = []
    while not replies.empty():
        message = replies.get()
        if isinstance(message, worker.Failed):
            failed.append(message)
    assert len(failed) == 1 and "could not run: an impossible request" in failed[0].message
    assert "Traceback" not in failed[0].message
    log = capsys.readouterr().err
    assert "an impossible request" in log and "test_run_settings.py" in log and "in broken" in log
