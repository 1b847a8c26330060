"""What a fresh clone or an installed copy relies on: the paper's data as package data, safe defaults."""

from __future__ import annotations

import fnmatch
import pathlib
import tomllib

from explainer.cli import main
from explainer.data import PAPER_DATASETS, paper_data_dir

ROOT = pathlib.Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_file_of_the_paper_folder_is_package_data():
    # a file the globs miss would be absent from an installed (non-editable) copy
    patterns = PYPROJECT["tool"]["setuptools"]["package-data"]["explainer.data"]
    package = ROOT / "explainer" / "data"
    files = sorted(p.relative_to(package).as_posix() for p in paper_data_dir().iterdir() if p.is_file())
    assert {spec["file"] for spec in PAPER_DATASETS.values()} | {"table3_results.csv", "README.md"} <= {
        pathlib.PurePath(f).name for f in files
    }
    missed = [f for f in files if not any(fnmatch.fnmatch(f, pattern) for pattern in patterns)]
    assert not missed, f"not declared as package data: {missed}"


def test_licence_is_an_spdx_string():
    # a table is deprecated by setuptools and fills the install's output with warnings
    assert PYPROJECT["project"]["license"] == "MIT"


def test_dashboard_listens_on_this_machine_by_default():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["server"]["address"] == "localhost"


def test_dashboard_leaves_collections_to_its_housekeeping():
    # Streamlit's collection after every script run held the interpreter each time a fragment polled
    import gc
    import weakref

    from explainer.app.caching import collect_garbage

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["runner"]["postScriptGC"] is False

    class Node:
        pass

    was_enabled = gc.isenabled()
    gc.disable()  # only the task may free the cycle
    try:
        a, b = Node(), Node()
        a.other, b.other = b, a
        gone = weakref.ref(a)
        del a, b
        assert gone() is not None
        collect_garbage()
        assert gone() is None
    finally:
        if was_enabled:
            gc.enable()


def test_datasets_command_finds_the_packaged_copy_and_honours_another_directory(tmp_path, capsys):
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    assert str(paper_data_dir()) in out and "(missing)" not in out
    assert all(name in out for name in PAPER_DATASETS)
    (tmp_path / "iris.csv").write_bytes((paper_data_dir() / "iris.csv").read_bytes())
    assert main(["datasets", "--data-dir", str(tmp_path)]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if "target" in line]
    assert [line.split()[0] for line in lines if "(missing)" not in line] == ["iris"]
    assert main(["datasets", "--data-dir", str(tmp_path / "absent")]) == 0
    assert "directory not found" in capsys.readouterr().out
