"""explainer/ passes the type checker set up in pyproject.toml ([tool.mypy]), with no blanket ignores."""

from __future__ import annotations

import importlib.util
import pathlib
import re
import tomllib

import pytest
import type_check

ROOT = pathlib.Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
MYPY = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["mypy"]
#: a "# type: ignore" that names no error code silences every error of its line
BARE_IGNORE = re.compile(r"#\s*type:\s*ignore(?!\[)")


@pytest.mark.slow  # a minute or more without its cache (a fresh clone), seconds with it
@pytest.mark.skipif(importlib.util.find_spec("mypy") is None,
                    reason="mypy is not installed: it comes with the dev extra (pip install -e '.[dev]')")
def test_explainer_passes_mypy():
    # started as the session began (tests/conftest.py), on the core the tests leave free
    status, report = type_check.result()
    if status != 0:
        pytest.fail(f"mypy found errors in explainer/:\n{report}", pytrace=False)


def test_the_type_check_is_strict_and_ignores_only_untyped_third_party_packages():
    assert MYPY["files"] == ["explainer"]
    assert MYPY["check_untyped_defs"] is True and MYPY["warn_unused_ignores"] is True
    assert "ignore_errors" not in MYPY and "ignore_missing_imports" not in MYPY
    for override in MYPY.get("overrides", []):
        assert set(override) == {"module", "ignore_missing_imports"}, override
        modules = [override["module"]] if isinstance(override["module"], str) else override["module"]
        assert not [m for m in modules if m.split(".")[0] == "explainer"], modules


def test_every_type_ignore_names_its_error_code():
    bare = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "explainer").rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if BARE_IGNORE.search(line)
    ]
    assert not bare, f"a '# type: ignore' without an error code: {bare}"
