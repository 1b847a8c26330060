"""Data sources by name: a file, a bundled sample or one of the paper's data sets.

:func:`find_source` is the one lookup of a name: the command line
(``explainer explain iris``) and the dashboard (a source named in its address,
``sample:iris``) both call it, and :func:`sample_sources` / :func:`paper_sources`
list what can be found.  :func:`load_source` reads what was found.
"""

from __future__ import annotations

import os
import pathlib
from dataclasses import dataclass
from typing import Any

from explainer.data.datasets import (
    PAPER_DATASETS,
    Dataset,
    load_dataset,
    load_paper_dataset,
    paper_data_dir,
    sample_datasets,
)

#: what a name may stand for, in the order :func:`find_source` tries them
KINDS = ("file", "sample", "paper")

__all__ = [
    "KINDS",
    "NamedSource",
    "find_source",
    "load_source",
    "paper_sources",
    "sample_sources",
    "unknown_source_message",
]


@dataclass(frozen=True)
class NamedSource:
    """What a name stands for: ``kind`` (``file``, ``sample``, ``paper``), its name and file."""

    kind: str
    name: str
    path: pathlib.Path | None  # None: a paper data set whose directory was not found
    target: str | None = None  # the class column a paper data set names

    @property
    def available(self) -> bool:
        """Is the file there?"""
        return self.path is not None and self.path.is_file()


def sample_sources() -> list[NamedSource]:
    """The bundled samples."""
    return [NamedSource("sample", name, path) for name, path in sample_datasets().items()]


def _paper_source(name: str, data_dir: str | os.PathLike | None) -> NamedSource:
    directory = pathlib.Path(data_dir) if data_dir is not None else paper_data_dir()
    spec = PAPER_DATASETS[name]
    path = directory / spec["file"] if directory is not None else None
    return NamedSource("paper", name, path, target=spec["target"])


def paper_sources(data_dir: str | os.PathLike | None = None) -> list[NamedSource]:
    """The paper's data sets whose files are present (in ``data_dir``, default :func:`paper_data_dir`)."""
    found = (_paper_source(name, data_dir) for name in PAPER_DATASETS)
    return [s for s in found if s.available]


def find_source(
    name: str, kinds: tuple[str, ...] = KINDS, data_dir: str | os.PathLike | None = None
) -> NamedSource | None:
    """What ``name`` stands for, trying ``kinds`` in order, or None when it names nothing.

    ``file``: an existing file at that path; ``sample``: a bundled sample; ``paper``: one
    of :data:`PAPER_DATASETS`, found by its name even when its file is absent (then
    ``available`` is False and :func:`load_source` says where it was looked for).  A name
    ``paper:NAME`` or ``sample:NAME`` asks for that kind only (iris and wine are both a
    sample and a paper data set, and the sample comes first).
    """
    name = str(name)
    prefix, colon, rest = name.partition(":")
    if colon and prefix in ("paper", "sample") and prefix in kinds and not pathlib.Path(name).is_file():
        name, kinds = rest, (prefix,)
    for kind in kinds:
        if kind == "file" and pathlib.Path(name).is_file():
            return NamedSource("file", name, pathlib.Path(name))
        if kind == "sample":
            found = next((s for s in sample_sources() if s.name == name), None)
            if found is not None:
                return found
        if kind == "paper" and name in PAPER_DATASETS:
            return _paper_source(name, data_dir)
    return None


def unknown_source_message(name: str) -> str:
    """Why ``name`` names nothing, with the names that would."""
    samples = ", ".join(s.name for s in sample_sources()) or "none"
    return (f"no file {str(name)!r}; bundled samples: {samples}; paper data sets: {', '.join(PAPER_DATASETS)} "
            "(paper:NAME or sample:NAME for a name both hold)")


def load_source(source: NamedSource, target: str | int | None = None, **kwargs: Any) -> Dataset:
    """Read a found source (extra arguments go to :func:`~explainer.data.datasets.load_dataset`).

    A paper data set takes its own target unless ``target`` is given; raises
    :class:`~explainer.data.tables.DataError` with a readable message.
    """
    if source.kind == "paper":
        if target is not None:
            kwargs["target"] = target
        directory = source.path.parent if source.path is not None else None
        return load_paper_dataset(source.name, directory, **kwargs)
    return load_dataset(source.path, target, **kwargs)
