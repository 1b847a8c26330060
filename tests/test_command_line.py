"""The Explain page's "same in the command line" box: its line, run by the command line, gives the page's rules."""

from __future__ import annotations

import io
import json
import shlex
from contextlib import redirect_stdout

import pytest
from streamlit.testing.v1 import AppTest
from test_app import APP, button, new_app, wait_job
from waits import HANG_S

from explainer.app import state as app_state
from explainer.app.command_line import command_argv, command_text, data_argument
from explainer.app.pools import PoolSettings
from explainer.app.session import Session
from explainer.cli import main
from explainer.pipeline import PolicyChoice
from explainer.selection.settings import RunSettings


def _cli_rules(argv: list[str]) -> str:
    assert argv[:2] == ["explainer", "explain"]
    out = io.StringIO()
    with redirect_stdout(out):
        assert main([*argv[1:], "--json", "--quiet"]) == 0
    return json.loads(out.getvalue())["rules_text"]


def test_explicit_budgets_form_objective_and_parameters_are_written_out():
    ref = {"ref": "sample:loans", "target": "approved", "exclude": ["id"], "categorical": [], "keep": []}
    run = RunSettings(complexity_budget=7, error_budget=12, algorithm="qga", algorithm_params={"stall": 2},
                      eps=0.5, form="fallback", objective="accuracy", seed=3, class_weight="balanced",
                      pinned=("IF income > 50 THEN CLASS=yes",), banned=("IF age <= 30 THEN CLASS=no",))
    argv = command_argv(ref, PoolSettings(max_depth=5, holdout=0.25, random_state=4, forbidden=("age",)), run,
                        alternatives=(3, 0.5), group_by="age")
    text = command_text(argv)
    assert shlex.split(text) == argv
    for pair in (["--target", "approved"], ["--exclude", "id"], ["--depth", "5"], ["--pool-seed", "4"], ["--forbid", "age"],
                 ["--holdout", "0.25"], ["--holdout-seed", "4"], ["--complexity", "7"], ["--errors", "12"],
                 ["--form", "fallback"], ["--objective", "accuracy"], ["--eps", "0.5"],
                 ["--class-weight", "balanced"], ["--algorithm", "qga"], ["--seed", "3"], ["--param", "stall=2"],
                 ["--alternatives", "3"], ["--within", "0.5"], ["--pin", "IF income > 50 THEN CLASS=yes"],
                 ["--ban", "IF age <= 30 THEN CLASS=no"], ["--group-by", "age"]):
        i = argv.index(pair[0])
        assert argv[i:i + 2] == pair


def test_the_policy_choice_is_left_to_the_command_line_policy():
    policy = PolicyChoice(9, 30, form="fallback", objective="coverage", chosen=True)
    run = policy.run_settings(algorithm="qga", seed=0)
    argv = command_argv({"ref": "sample:loans"}, PoolSettings(), run, size="compact", policy=policy)
    assert "--complexity" not in argv and "--errors" not in argv and "--form" not in argv
    assert argv[argv.index("--size"):][:2] == ["--size", "compact"]
    # with a pin the page's budgets are written: the command line would make room for it on top of its own
    pinned = policy.run_settings(algorithm="qga", seed=0, pinned=("IF income > 50 THEN CLASS=yes",))
    argv = command_argv({"ref": "sample:loans"}, PoolSettings(), pinned, size="compact", policy=policy)
    assert argv[argv.index("--complexity"):][:6] == ["--complexity", "9", "--errors", "30", "--form", "fallback"]
    moved = RunSettings(complexity_budget=10, error_budget=30, algorithm="qga")
    argv = command_argv({"ref": "sample:loans"}, PoolSettings(), moved, policy=policy)
    assert argv[argv.index("--complexity"):][:4] == ["--complexity", "10", "--errors", "30"]


def test_data_is_named_as_the_command_line_finds_it():
    assert data_argument({"ref": "sample:loans"}) == "loans"
    assert data_argument({"ref": "upload:0123456789abcdef", "file": "my data.csv"}) == "my data.csv"
    # the paper's iris is hidden by the bundled sample of the same name: its file is named instead
    paper = data_argument({"ref": "paper:iris"})
    assert paper.endswith("iris.csv") and paper != "iris"


@pytest.mark.slow
@pytest.mark.parametrize("budgets", [None, (4, 8)], ids=["default budgets", "budgets set"])
def test_the_page_line_reproduces_the_page_rules(budgets):
    at = new_app()
    at.switch_page("app.py").run()
    at.session_state["w_source_kind"] = "Bundled sample"
    at.session_state["w_sample"] = "loans"
    at.run()
    button(at, "Load data").click().run()
    at.switch_page("pages/1_Explain.py").run()
    assert not at.exception
    at.session_state["w_algorithm"] = "qga"
    at.session_state["w_seed"] = 1
    if budgets is not None:
        at.session_state["w_bc"], at.session_state["w_be"] = budgets
    at.run()
    button(at, "Run").click().run()
    wait_job(at, "job")
    line = next(c.value for c in at.code if c.value.startswith("explainer explain"))
    argv = shlex.split(line)
    assert ("--complexity" in argv) == (budgets is not None)
    page_rules = at.session_state["explanation"].report.rules_text()
    assert _cli_rules(argv) == page_rules


def test_the_analysts_choices_round_trip_through_the_url():
    """Forbidden columns, pins, bans, kept edits, the alternatives asked for and the group-by column: written
    to the URL and read back by a new session (a reload, a copied link)."""
    pin, ban, edit = "IF income > 50 THEN CLASS=yes", "IF age <= 30 THEN CLASS=no", "IF income > 40 THEN CLASS=yes"
    chosen = Session({"w_pool_forbidden": ["age"], "pinned_rules": [pin, edit], "banned_rules": [ban],
                      "edited_rules": [edit], "w_alt_k": 4, "w_alt_within": 0.5, "w_group_by": "age"})
    params = app_state.url_params(chosen)
    assert params["forbid"] == ["age"] and params["pin"] == [pin, edit] and params["ban"] == [ban]
    assert params["rule"] == [edit] and params["alts"] == "4" and params["within"] == "0.5"
    assert params["group"] == "age"
    at = AppTest.from_file(APP, default_timeout=HANG_S)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception
    back = Session(at.session_state)
    assert (back.pinned_rules, back.banned_rules, back.edited_rules) == ([pin, edit], [ban], [edit])
    assert (back.alt_k, back.alt_within, back.group_by, back.pool_forbidden) == (4, 0.5, "age", ["age"])
