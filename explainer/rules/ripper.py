"""A peer's rules read into the evaluator: wittgenstein's RIPPER rule list (``ruleset_``).

wittgenstein prints a rule set for one class as ``[[a=x^b=1.5-2.0] V [c=<0.5]]``:
rules joined by ``V``, conditions by ``^``, each ``feature=value``.  A value is a
category (or a number the feature takes), or a bin of a numeric feature:
``<r``, ``>l`` or ``l-r``.  A bin holds its right end and not its left (pandas
intervals): ``<r`` is ``x <= r``, ``>l`` is ``x > l`` and ``l-r`` is
``l < x <= r``; read so, the rules cover exactly the rows wittgenstein's
``predict`` gives the class (``tests/test_ripper.py``).  The rules read here are unbound;
:func:`explainer.rules.binding.rules_for_data` ties them to a data set, after
which a peer's rule set is evaluated exactly as ours.  Its string drops the spaces
of feature names; binding matches names ignoring spaces, case and underscores.
"""

from __future__ import annotations

from explainer.data.features import FeatureSpec
from explainer.rules.model import Condition, Rule
from explainer.rules.scan import RuleSyntaxError, parse_number


def _split_range(value: str) -> tuple[float, float] | None:
    """``1.5-2.0`` or ``-3.2--1.0`` as its two ends (a dash after a digit or point ends the first)."""
    for i in range(1, len(value)):
        if value[i] == "-" and (value[i - 1].isdigit() or value[i - 1] == ".") and value[i - 2 : i - 1].lower() != "e":
            lo, hi = parse_number(value[:i]), parse_number(value[i + 1 :])
            if lo is not None and hi is not None:
                return lo, hi
    return None


def _condition(text: str) -> list[Condition]:
    feature, sep, value = text.partition("=")
    feature, value = feature.strip(), value.strip()
    if not sep or not feature or not value:
        raise RuleSyntaxError(f"a RIPPER condition reads 'feature=value', got {text!r}")
    bound = parse_number(value[1:])
    if value[0] in "<>" and bound is not None:
        return [Condition(feature, "<=" if value[0] == "<" else ">", bound)]
    bounds = _split_range(value)
    if bounds is not None:
        return [Condition(feature, ">", bounds[0]), Condition(feature, "<=", bounds[1])]
    spec = FeatureSpec(f"{feature}={value}", feature, "onehot", value)
    return [Condition(spec.name, ">", 0.5, spec)]


def parse_ripper(text: str, label) -> list[Rule]:
    """The rules of a wittgenstein ``ruleset_`` string, each predicting ``label`` (RIPPER learns
    one class against the rest: its positive class)."""
    body = text.strip()
    if not (body.startswith("[") and body.endswith("]")):
        raise RuleSyntaxError("a RIPPER rule set reads '[[a=x^b=<1.5] V [c=y]]'")
    body = body[1:-1].strip()
    if not body:
        return []
    rules = []
    for part in body.split(" V "):
        part = part.strip()
        if not (part.startswith("[") and part.endswith("]")):
            raise RuleSyntaxError(f"a RIPPER rule reads '[a=x^b=y]', got {part!r}")
        inner = part[1:-1].strip()
        conds: list[Condition] = []
        if inner and inner != "True":
            for piece in inner.split("^"):
                conds.extend(_condition(piece))
        rules.append(Rule(tuple(conds), label))
    return rules
