"""Data sources (bundled samples, the paper's data sets, uploads), read and prepared once per server."""

from __future__ import annotations

import hashlib
import io
import pathlib
from dataclasses import dataclass, field

import pandas as pd

from explainer.app.caching import COMPUTED, UPLOADS
from explainer.data import (
    PAPER_DATASETS,
    DataError,
    Dataset,
    read_table,
)
from explainer.data import sources as data_sources
from explainer.data.datasets import dataset_from_table
from explainer.data.defaults import default_load_settings
from explainer.data.sources import NamedSource
from explainer.data.target import suggest_target


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
        if self.kind == "upload" and self.digest is not None:
            return f"upload:{self.digest[:16]}"
        return f"{self.kind}:{self.name}"

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


def sample_choices() -> list[Source]:
    """The bundled samples, as the Data page offers them."""
    return [_source(s) for s in data_sources.sample_sources()]


def paper_choices() -> list[Source]:
    """The paper's data sets whose files are present, as the Data page offers them."""
    return [_source(s) for s in data_sources.paper_sources()]


def upload_source(name: str, data: bytes) -> Source:
    return Source("upload", name, data=data, digest=digest(data))


# --------------------------------------------------------------------------- uploads kept by the server


def keep_upload(name: str, data: bytes) -> Source:
    """Remember an uploaded file on the server (within :data:`.caching.UPLOADS`' bytes), keyed by its digest."""
    key = digest(data)
    return UPLOADS.put(key[:16], Source("upload", name, data=data, digest=key), len(data))


def kept_upload(prefix: str) -> Source | None:
    """The uploaded file whose digest starts with ``prefix``, if the server still holds it."""
    return UPLOADS.get(prefix[:16])


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


def table_key(source: Source) -> tuple:
    """Where the server's cache keeps the raw table of ``source``."""
    return ("table", source.ident)


def read_source(source: Source) -> pd.DataFrame:
    """The raw table of ``source``, read now; raises DataError."""
    return read_table(source.reader_input())


def cached_table(source: Source) -> pd.DataFrame:
    """The raw table of ``source`` (read once while the server's cache holds it); raises DataError."""
    return COMPUTED.get_or_make(table_key(source), lambda: read_source(source))


def _load(source: Source, target, categorical, exclude, keep) -> Dataset:
    # the table as the Data page read it for its preview: parsing the file again would cost as much
    # as encoding it (0.5 of 0.85 s at 32,561 rows, 2.2 of 4.0 s at 130,000), and read_table's cell rules
    # hold already (applying them again took 1.3-2.2 s on 10,000 columns)
    return dataset_from_table(
        cached_table(source),
        target,
        categorical=list(categorical),
        exclude=list(exclude),
        keep=list(keep),
        name=pathlib.PurePath(source.name).stem or source.name,
        **default_load_settings(),
    )


def suggested_target(table: pd.DataFrame) -> tuple[str, str]:
    """The target the library would choose for ``table`` and why (the last column when it refuses)."""
    try:
        name, reason = suggest_target(table)
    except DataError as exc:
        return str(table.columns[-1]), str(exc)
    return name, f"Suggested target: '{name}' ({reason})."


def dataset_key(source: Source, target=None, categorical=(), exclude=(), keep=()) -> tuple:
    """Where the server's cache keeps ``source`` prepared with these column overrides."""
    return ("dataset", source.ident, target, tuple(categorical), tuple(exclude), tuple(keep))


def prepare_source(source: Source, target=None, categorical=(), exclude=(), keep=()) -> Dataset:
    """``source`` read and encoded now, with the column overrides; raises DataError."""
    return _load(source, target, tuple(categorical), tuple(exclude), tuple(keep))


def load_choice(source: Source, target=None, categorical=(), exclude=(), keep=()) -> Dataset:
    """Prepare ``source`` with the column overrides (once while the server's cache holds it); raises DataError
    with a readable message."""
    options = (target, tuple(categorical), tuple(exclude), tuple(keep))
    return COMPUTED.get_or_make(dataset_key(source, *options), lambda: prepare_source(source, *options))


def load_upload(name: str, data: bytes, **options) -> Dataset:
    """Read an uploaded file given as bytes (what the Data page does with an upload)."""
    return load_choice(upload_source(name, data), **options)


def try_load(source: Source, **options) -> tuple[Dataset | None, str]:
    """(dataset, "") or, on bad input, (None, a readable message)."""
    try:
        return load_choice(source, **options), ""
    except Exception as exc:
        return None, failure_message(exc)


def failure_message(exc: Exception) -> str:
    """What the page says when reading or preparing data failed."""
    if isinstance(exc, DataError):
        return str(exc)
    # a reader bug must not wipe the session either
    return f"The file could not be read ({type(exc).__name__}: {exc})."


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
