"""Data sources (bundled samples, the paper's data sets, uploads), read and prepared once per server."""

from __future__ import annotations

import collections
import hashlib
import io
import pathlib
import threading
from dataclasses import dataclass, field

import pandas as pd
import streamlit as st

from explainer.data import (
    PAPER_DATASETS,
    DataError,
    Dataset,
    load_dataset,
    read_table,
)
from explainer.data import sources as data_sources
from explainer.data.defaults import default_load_settings
from explainer.data.sources import NamedSource
from explainer.data.target import suggest_target

#: Uploaded files the server keeps (by digest) so that a reload or a shared link can restore them.
UPLOADS_KEPT = 16


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Source:
    """A data source the Data page can read: a bundled sample, a paper data set or an upload."""

    kind: str  # "sample" | "paper" | "upload"
    name: str
    path: str | None = None
    data: bytes | None = field(default=None, repr=False, compare=False)
    digest: str | None = None
    default_target: str | None = None

    @property
    def ident(self) -> str:
        return f"{self.kind}:{self.name}:{self.digest or self.path}"

    @property
    def ref(self) -> str:
        """How the URL names this source: ``sample:iris``, ``paper:wine``, ``upload:<digest prefix>``."""
        return f"upload:{self.digest[:16]}" if self.kind == "upload" else f"{self.kind}:{self.name}"

    @property
    def title(self) -> str:
        if self.kind == "paper":
            return PAPER_DATASETS.get(self.name, {}).get("title", self.name) + " (paper data set)"
        if self.kind == "sample":
            return f"{self.name} (bundled sample)"
        return f"{self.name} (uploaded)"

    def reader_input(self):
        if self.data is not None:
            buf = io.BytesIO(self.data)
            buf.name = self.name
            return buf
        return self.path


def _source(found: NamedSource) -> Source:
    return Source(found.kind, found.name, str(found.path), default_target=found.target)


def sample_sources() -> list[Source]:
    return [_source(s) for s in data_sources.sample_sources()]


def paper_sources() -> list[Source]:
    return [_source(s) for s in data_sources.paper_sources()]


def upload_source(name: str, data: bytes) -> Source:
    return Source("upload", name, data=data, digest=digest(data))


# --------------------------------------------------------------------------- uploads kept by the server


@st.cache_resource(show_spinner=False)
def _upload_store() -> tuple[collections.OrderedDict, threading.Lock]:
    return collections.OrderedDict(), threading.Lock()


def keep_upload(name: str, data: bytes) -> Source:
    """Remember an uploaded file on the server (the last :data:`UPLOADS_KEPT`), keyed by its digest."""
    source = upload_source(name, data)
    store, lock = _upload_store()
    with lock:
        store[source.digest[:16]] = source
        store.move_to_end(source.digest[:16])
        while len(store) > UPLOADS_KEPT:
            store.popitem(last=False)
    return source


def kept_upload(prefix: str) -> Source | None:
    """The uploaded file whose digest starts with ``prefix``, if the server still holds it."""
    store, lock = _upload_store()
    with lock:
        return store.get(prefix[:16])


def source_from_ref(ref: str) -> Source | None:
    """The source a URL names (see :attr:`Source.ref`), or None when it is unknown or gone."""
    kind, _, name = str(ref).partition(":")
    if kind == "upload":
        return kept_upload(name)
    if kind not in ("sample", "paper"):  # a file path in an address would read the server's files
        return None
    found = data_sources.find_source(name, (kind,))
    return _source(found) if found is not None and found.available else None


# --------------------------------------------------------------------------- reading and preparing


@st.cache_resource(show_spinner=False, max_entries=16)
def _read_table_cached(ident: str, _source: Source) -> pd.DataFrame:
    return read_table(_source.reader_input())


def cached_table(source: Source) -> pd.DataFrame:
    """The raw table of ``source`` (read once per source); raises DataError."""
    return _read_table_cached(source.ident, source)


@st.cache_resource(show_spinner=False, max_entries=16)
def _load_cached(ident: str, target, categorical, exclude, keep, _source: Source) -> Dataset:
    return load_dataset(
        _source.reader_input(),
        target=target,
        categorical=list(categorical),
        exclude=list(exclude),
        keep=list(keep),
        name=pathlib.PurePath(_source.name).stem or _source.name,
        **default_load_settings(),
    )


def suggested_target(table: pd.DataFrame) -> tuple[str, str]:
    """The target the library would choose for ``table`` and why (the last column when it refuses)."""
    try:
        name, reason = suggest_target(table)
    except DataError as exc:
        return str(table.columns[-1]), str(exc)
    return name, f"Suggested target: '{name}' ({reason})."


def load_source(source: Source, target=None, categorical=(), exclude=(), keep=()) -> Dataset:
    """Prepare ``source`` with the column overrides; raises DataError with a readable message."""
    return _load_cached(source.ident, target, tuple(categorical), tuple(exclude), tuple(keep), source)


def load_upload(name: str, data: bytes, **options) -> Dataset:
    """Read an uploaded file given as bytes (what the Data page does with an upload)."""
    return load_source(upload_source(name, data), **options)


def try_load(source: Source, **options) -> tuple[Dataset | None, str]:
    """(dataset, "") or, on bad input, (None, a readable message)."""
    try:
        return load_source(source, **options), ""
    except DataError as exc:
        return None, str(exc)
    except Exception as exc:  # a reader bug must not wipe the session either
        return None, f"The file could not be read ({type(exc).__name__}: {exc})."


def columns_frame(dataset: Dataset) -> pd.DataFrame:
    """How each column is used."""
    rows = []
    for c in dataset.columns:
        rows.append(
            {
                "column": c.name,
                "treated as": c.kind,
                "used": "target" if c.kind == "target" else ("no" if c.excluded else "yes"),
                "missing": int(c.n_missing),
                "distinct": int(c.n_unique),
                "features": ", ".join(c.features),
            }
        )
    return pd.DataFrame(rows)
