"""The package reads as the pipeline: each stage imports only the stages before it.

Stages, in order: data -> rules -> selection -> report -> pipeline -> estimator / bench -> cli
-> app.  ``selection`` reads a rule pool through its matrices only, so it imports neither data
nor rules; ``data`` imports nothing else of the package.  Imports are read from the source
(top-level and inside functions alike), so a hidden upward import fails here too.
"""

import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "explainer"

STAGE = {
    "data": 1,
    "rules": 2,
    "selection": 3,
    "report": 4,
    "pipeline": 5,
    "estimator": 6,
    "bench": 6,
    "cli": 7,
    "app": 8,
}
#: stages that may not import these earlier stages either
ISOLATED = {"selection": {"data", "rules"}}


def _module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_only(tree: ast.AST) -> set[int]:
    """Ids of the import statements under ``if TYPE_CHECKING:`` (never executed)."""
    return {id(node) for block in ast.walk(tree)
            if isinstance(block, ast.If) and ast.unparse(block.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
            for stmt in block.body for node in ast.walk(stmt)}


def _imports(path: pathlib.Path, *, runtime_only: bool = False):
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_only(tree) if runtime_only else set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, ()
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            yield node.lineno, target, tuple(a.name for a in node.names)


def _stage(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "explainer" or len(parts) < 2:
        return None
    return parts[1]


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p != PACKAGE / "__init__.py")


def test_every_module_belongs_to_a_stage():
    assert MODULES
    for path in MODULES:
        assert _stage(_module_name(path)) in STAGE, f"{path} is outside the stage packages"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_only_earlier_stages(path):
    own = _stage(_module_name(path))
    for line, target, names in _imports(path):
        other = _stage(target)
        if target == "explainer" and set(names) != {"__version__"}:
            pytest.fail(f"{path.name}:{line} imports the package facade; import the stage instead")
        if other is None or other == own:
            continue
        assert STAGE[other] <= STAGE[own], f"{path.name}:{line} imports {target}, a later stage"
        assert other not in ISOLATED.get(own, ()), f"{path.name}:{line}: {own} imports {target}"


def test_no_import_circle_between_modules():
    graph = {}
    for path in MODULES:
        name = _module_name(path)
        # a type-only import runs no module, so it makes no circle (it still keeps to the stages above)
        graph[name] = {t for _, t, _ in _imports(path, runtime_only=True) if t.startswith("explainer.") and t != name}
    known = set(graph)

    def resolve(target):
        # "from explainer.rules import X" names the package: its __init__ is the module imported
        return target if target in known else None

    state: dict[str, int] = {}

    def visit(node, trail):
        state[node] = 1
        for nxt in sorted(filter(None, map(resolve, graph[node]))):
            # a package's __init__ importing its own submodules is how it re-exports, not a circle
            if node.startswith(nxt + ".") or nxt.startswith(node + "."):
                continue
            if state.get(nxt) == 1:
                pytest.fail("import circle: " + " -> ".join(trail + [node, nxt]))
            if nxt not in state:
                visit(nxt, trail + [node])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [])


# --------------------------------------------------------------------------- the dashboard's pages

ROOT = PACKAGE.parent
PAGE_SCRIPTS = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]
APP_MODULES = sorted((PACKAGE / "app").glob("*.py"))
MAX_PAGE_LINES = 120
#: keys budgets.py still names where it draws the frontier's container and buttons
NAMED_IN_PLACE: dict[str, set[str]] = {}


def _literal(node: ast.AST) -> str | None:
    """A key written out in the source: a string, or an f-string that starts with text."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
        return ast.unparse(node)
    return None


def _is_session_store(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr in ("session_state", "store")


_MAPPING_METHODS = {"get", "pop", "setdefault", "keys", "items", "values", "update", "clear", "to_dict"}


def literal_session_keys(source: str) -> list[tuple[int, str]]:
    """(line, key) of every session or widget key the source spells as a literal."""
    found = []
    for node in ast.walk(ast.parse(source)):
        key = None
        if isinstance(node, ast.Subscript) and _is_session_store(node.value):
            key = _literal(node.slice)  # st.session_state["x"]
        elif (isinstance(node, ast.Attribute) and _is_session_store(node.value)
              and node.value.attr == "session_state" and node.attr not in _MAPPING_METHODS):
            key = node.attr  # st.session_state.x
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            method, receiver = node.func.attr, node.func.value
            if method in ("value", "set_value") or (method in ("get", "pop", "setdefault")
                                                    and _is_session_store(receiver)):
                key = _literal(node.args[0])  # state.value("x"), st.session_state.get("x")
            elif method == "form":
                key = _literal(node.args[0])  # st.form("x")
        elif isinstance(node, ast.keyword) and node.arg in ("key", "chart_key"):
            key = _literal(node.value)  # a widget's key="x"
        if key is not None:
            found.append((node.lineno, key))
    return sorted(found)


def test_the_key_check_finds_every_spelling():
    source = (
        'st.session_state["a"]\nst.session_state.b\nstate.value("c")\nstate.set_value(f"d_{x}", 1)\n'
        'st.session_state.get("e")\nst.form("f")\nst.button("Go", key="g")\nlive.watch(j, f, chart_key="h")\n'
        # keys that come from Session, and strings that are no session keys
        'state.value(Session.param_key(a, n))\nst.button("Go", key=Session.run.key)\nsettings.get("eps")\n'
        'sorted(x, key=len)\nst.container(key=f"{name}_slider")\n'
    )
    assert [k for _, k in literal_session_keys(source)] == ["a", "b", "c", "f'd_{x}'", "e", "f", "g", "h"]


@pytest.mark.parametrize("path", PAGE_SCRIPTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_page_scripts_only_lay_out(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_PAGE_LINES, f"{path.name} has {lines} lines: move its logic into explainer/app"


@pytest.mark.parametrize("path", PAGE_SCRIPTS + [p for p in APP_MODULES if p.name != "session.py"],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_every_session_key_is_named_in_session(path):
    spelled = literal_session_keys(path.read_text(encoding="utf-8"))
    allowed = NAMED_IN_PLACE.get(path.name, set()) if path.parent.name == "app" else set()
    stray = [(line, key) for line, key in spelled if key not in allowed]
    assert not stray, f"{path.name} spells session keys (declare them in Session): {stray}"


def _slot_type(stmt: ast.stmt) -> ast.AST | None:
    """The value type of a slot declared by ``stmt``: ``x: Slot[T] = Slot(...)`` or ``x = Slot[T](...)``."""
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.annotation, ast.Subscript):
        return stmt.annotation.slice if ast.unparse(stmt.annotation.value) == "Slot" else None
    if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call):
        func = stmt.value.func
        if isinstance(func, ast.Subscript) and ast.unparse(func.value) == "Slot":
            return func.slice
        if ast.unparse(func) == "Slot":
            pytest.fail(f"line {stmt.lineno}: a Slot without a value type")
    return None


def test_every_slot_has_a_real_type():
    from explainer.app.session import Session, Slot

    tree = ast.parse((PACKAGE / "app" / "session.py").read_text(encoding="utf-8"))
    session = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Session")
    types = [(stmt.lineno, t) for stmt in session.body if (t := _slot_type(stmt)) is not None]
    slots = [v for v in vars(Session).values() if isinstance(v, Slot)]
    assert len(types) == len(slots)  # every slot was read here
    untyped = [line for line, t in types
               if any(isinstance(n, ast.Name) and n.id == "Any" for n in ast.walk(t))]
    assert not untyped, f"Slot[Any] at lines {untyped} of session.py: give them their value's type"
    keys = [s.key for s in slots]
    assert len(set(keys)) == len(keys), "two slots share a key"
