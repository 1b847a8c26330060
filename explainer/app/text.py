"""Labels and escaping: how names and user strings appear on the page."""

from __future__ import annotations

import inspect
from typing import Any

from explainer.selection.solvers import ALGORITHMS, LABELS, available, get_solver_class

_MD_SPECIAL = "\\`*_{}[]<>()#+-.!|~$:"


def md_escape(value) -> str:
    """A user string made inert for st.markdown / st.error (no links, images or emphasis)."""
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in str(value))


def plot_text(value) -> str:
    """A user string made inert for plotly, whose labels accept a little HTML."""
    return str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def label(name: str) -> str:
    """The display name of an algorithm."""
    return LABELS.get(name, name)


def algorithm_choices() -> list[str]:
    """Registered algorithms that import, QGA first."""
    names = available()
    return sorted(names, key=lambda n: (n != "qga", list(ALGORITHMS).index(n)))


def missing_algorithms() -> list[str]:
    have = set(available())
    return [n for n in ALGORITHMS if n not in have]


def default_algorithm(choices: list[str]) -> str | None:
    for name in ("qga", "rfhc", "greedy"):
        if name in choices:
            return name
    return choices[0] if choices else None


def algorithm_parameters(name: str) -> dict[str, Any]:
    """The simple (int, float, bool) parameters of an algorithm and their defaults.

    A parameter whose default is ``"auto"`` (sized from the instance) appears as 0,
    which the page labels "0 = auto" and never passes on unless changed.
    """
    try:
        signature = inspect.signature(get_solver_class(name).__init__)
    except (ImportError, ValueError, TypeError):
        return {}
    out = {}
    for param in signature.parameters.values():
        if param.name == "self" or param.default is inspect.Parameter.empty:
            continue
        if isinstance(param.default, bool | int | float):
            out[param.name] = param.default
        elif param.default == "auto":
            out[param.name] = 0
    return out
