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

