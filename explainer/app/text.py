"""Labels and escaping: how names and user strings appear on the page."""

from __future__ import annotations

import inspect
import re
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


def parameter_help(name: str) -> dict[str, str]:
    """Each parameter's entry in the ``Parameters`` sections of an algorithm's docstrings (its class's, then its
    bases' for what it inherits; an entry naming several parameters is each one's help), for the page's tooltips;
    {} when the algorithm does not load."""
    try:
        cls = get_solver_class(name)
    except (ImportError, ValueError):
        return {}
    out: dict[str, str] = {}
    for klass in cls.__mro__:
        for k, v in _docstring_parameters(klass.__doc__ or "").items():
            if not v.startswith("as for "):  # "as for QGA": its base's entry says it
                out.setdefault(k, _plain_doc(v))
    return out


def _plain_doc(text: str) -> str:
    """A docstring's words without the markup and the pointers into the code written for its readers."""
    text = re.sub(r":\w+:`~?(?:[\w.]*\.)?(\w+)`", r"\1", text)
    text = re.sub(r" \(``[A-Z][A-Z0-9_]*``(?:, ``[A-Z][A-Z0-9_]*``)*\)", "", text)  # the code's constants' names
    for pointer in (" (see the module docstring)", "; see the module docstring", ": see the module docstring"):
        text = text.replace(pointer, "")
    return text.replace("``", "")


def _docstring_parameters(doc: str) -> dict[str, str]:
    """name -> text of a numpydoc ``Parameters`` section (``a, b : text``, the text going on over indented lines,
    the names over lines that end with a comma)."""
    doc = inspect.cleandoc(doc)
    if "Parameters\n----------\n" not in doc:
        return {}
    lines = doc.split("Parameters\n----------\n", 1)[1].split("\n\n", 1)[0].splitlines()
    out: dict[str, str] = {}
    names: list[str] = []
    pending = ""
    for line in lines:
        if line[:1].isspace() and names and not pending:  # the entry goes on
            for n in names:
                out[n] += " " + line.strip()
            continue
        head, sep, text = (pending + " " + line.strip()).partition(" : ")
        if not sep:
            pending, names = (head, []) if head.rstrip().endswith(",") else ("", [])
            continue
        pending = ""
        names = [n.strip() for n in head.split(",") if n.strip()]
        for n in names:
            out[n] = text.strip()
    return out
