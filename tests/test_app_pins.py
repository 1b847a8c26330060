"""The Rules page's Pin and Ban: kept in the session and the URL, applied by Re-run, honoured by the run."""

from __future__ import annotations

from test_app import button, load_iris, new_app, wait_job

from explainer.app.runs import pins_phrase
from explainer.app.session import Session
from explainer.selection.problem import SelectionProblem


def markdown_text(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_pin_ban_rerun_on_the_rules_page():
    at = load_iris(new_app())
    at.switch_page("pages/1_Explain.py").run()
    at.session_state["w_algorithm"] = "greedy"
    at.session_state["w_bc"] = 4
    at.run()
    button(at, "Run").click().run()
    wait_job(at, "job")
    at.switch_page("pages/2_Rules.py").run()
    assert not at.exception
    rules = [r.text for r in at.session_state["explanation"].report.rules]
    assert len(rules) >= 2
    pool = at.session_state["pool"]
    errors = SelectionProblem.from_pool(pool).errors
    # a rule of the pool the run left out, short and without errors: it fits beside the run's budgets
    other = next(r.text for r, e in zip(pool.rules, errors, strict=True)
                 if r.text not in rules and r.length == 1 and e == 0)

    at.session_state[Session.rule_pick.key] = 1
    at.run()
    button(at, "Ban").click().run()  # the second selected rule
    assert at.session_state[Session.banned_rules.key] == [rules[1]]
    at.session_state[Session.pinned_rules.key] = [other]  # as a link could bring it
    at.run()
    assert "re-run to apply" in markdown_text(at)
    params = {k: at.query_params[k] for k in at.query_params}
    assert rules[1] in str(params["ban"]) and other in str(params["pin"])

    button(at, "Re-run").click().run()
    wait_job(at, "job")
    at.switch_page("pages/2_Rules.py").run()
    assert not at.exception
    settings = at.session_state["run_settings"]
    assert settings.pinned == (other,) and settings.banned == (rules[1],)
    chosen = [r.text for r in at.session_state["explanation"].report.rules]
    assert other in chosen and rules[1] not in chosen
    assert "re-run to apply" not in markdown_text(at)

    button(at, "Clear pins and bans").click().run()
    assert Session.pinned_rules.key not in at.session_state and Session.banned_rules.key not in at.session_state
    assert "pin" not in at.query_params and "ban" not in at.query_params


def test_pin_toggles_and_a_rule_is_never_pinned_and_banned():
    at = load_iris(new_app())
    at.switch_page("pages/1_Explain.py").run()
    at.session_state["w_algorithm"] = "greedy"
    at.run()
    button(at, "Run").click().run()
    wait_job(at, "job")
    at.switch_page("pages/2_Rules.py").run()
    first = at.session_state["explanation"].report.rules[0].text
    button(at, "Pin").click().run()
    assert at.session_state[Session.pinned_rules.key] == [first]
    button(at, "Ban").click().run()
    assert at.session_state[Session.banned_rules.key] == [first] and at.session_state[Session.pinned_rules.key] == []
    button(at, "Unban").click().run()
    assert at.session_state[Session.banned_rules.key] == []


def test_pins_phrase():
    assert pins_phrase((), ()) == ""
    assert pins_phrase(("a", "b"), ("c",)) == " With 2 pinned rules and 1 banned (Rules page)."
    assert pins_phrase((), ("c",)) == " With 1 banned rule (Rules page)."


def test_pins_over_the_page_budget_are_a_message_saying_which_budget():
    at = load_iris(new_app())
    at.switch_page("pages/1_Explain.py").run()
    at.session_state["w_algorithm"] = "greedy"
    at.session_state["w_bc"] = 1
    # complexity 3 (an interval counts 2) against Bc = 1
    at.session_state[Session.pinned_rules.key] = [
        "IF 2.45 < petal_length <= 4.95 AND petal_width <= 1.65 THEN CLASS=versicolor"]
    at.run()
    button(at, "Run").click().run()
    wait_job(at, "job")
    at.run()
    assert not at.exception
    errors = [e.value for e in at.error]
    assert any("could not run" in e and "complexity budget" in e and "over by 2" in e for e in errors), errors
    assert not any("ValueError" in e for e in errors)
