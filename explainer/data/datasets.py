"""Data sets: :class:`Dataset`, :func:`load_dataset`, and where data sets live.

A data set is a table with a header row: one column is the target (the class
label), the others are candidate features.  :func:`load_dataset` reads it
(:mod:`explainer.data.tables`), chooses the target (:func:`~explainer.data.target.suggest_target`
unless given), fits a :class:`~explainer.data.encoder.TableEncoder` on the feature
columns and keeps it, so held-out and new rows are encoded the same way.

The registry: the paper's ten data sets (shipped with the package in
``explainer/data/paper/``, with the paper's results table) and the CSV samples
bundled with the project.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from explainer.data.encoder import ColumnInfo, TableEncoder, as_list, resolve_column
from explainer.data.features import FeatureSpec, numeric_specs
from explainer.data.labels import (
    distinct,
    encode_labels,
    json_label,
    label_key,
    labels_of,
    sorted_labels,
)
from explainer.data.precision import Float32View
from explainer.data.tables import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_ROWS,
    DataError,
    normalise_frame,
    read_table,
)
from explainer.data.target import explicit_target_warning, suggest_target

__all__ = [
    "Dataset",
    "dataset_from_table",
    "load_dataset",
    "paper_data_dir",
    "PAPER_DATASETS",
    "load_paper_dataset",
    "sample_datasets",
]

_PROJECT_ROOT = pathlib.Path(__file__).resolve().parents[2]

#: The paper's ten data sets and its results table, shipped inside the package (CC BY 4.0;
#: the credit to their creators and the UCI repository is in that folder's README.md).
PAPER_DATA_DIR = pathlib.Path(__file__).resolve().parent / "paper"


@dataclass
class Dataset:
    """A prepared classification data set."""

    X: pd.DataFrame
    y: np.ndarray
    target: str
    classes: list
    columns: list[ColumnInfo]
    name: str
    n_rows_read: int
    n_dropped_missing_target: int
    n_rows_with_missing: int
    fingerprint: str = ""
    #: what each column of ``X`` stands for (source column, numeric / one-hot / missing indicator)
    feature_specs: list[FeatureSpec] = field(default_factory=list)
    #: the encoder fitted on this table's feature columns (None for a Dataset built by hand)
    encoder: TableEncoder | None = None
    #: what the loader decided for the reader (e.g. decimal commas read as numbers)
    notes: list[str] = field(default_factory=list)
    #: what is probably wrong or lost (an identifier-like target, values float32 cannot tell apart)
    warnings: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.fingerprint:
            self.fingerprint = _fingerprint(self.X, self.y)
        if not self.feature_specs:
            self.feature_specs = numeric_specs(self.X.columns)

    @property
    def feature_names(self) -> list[str]:
        return [str(c) for c in self.X.columns]

    @property
    def n_rows(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    def y_codes(self) -> np.ndarray:
        """Integer codes of ``y``: the position of each label in :attr:`classes`."""
        return encode_labels(self.y, self.classes)[0]

    def class_counts(self) -> dict:
        codes = self.y_codes()
        counts = np.bincount(codes, minlength=len(self.classes))
        return {c: int(n) for c, n in zip(self.classes, counts, strict=True)}

    def encode(self, frame) -> pd.DataFrame:
        """Encode other rows of the same table (held-out or new) exactly as ``X`` was encoded.

        ``frame`` is a DataFrame with the feature columns (the target column, if
        present, is ignored).  A category never seen when loading is 0 in every
        one-hot feature of its column.
        """
        if self.encoder is None:
            raise DataError("This data set has no fitted encoder; load it with load_dataset().")
        if isinstance(frame, pd.DataFrame) and self.target in frame.columns:
            frame = frame.drop(columns=[self.target])
        return self.encoder.transform(frame)

    @property
    def low_resolution_features(self) -> list[str]:
        """Numeric features holding distinct values that float32 (the tree learner) cannot tell apart."""
        return [self.feature_names[j] for j in sorted(self._float32_view().ranked)]

    def training_matrix(self) -> np.ndarray:
        """``X`` as float64 values the tree learner (float32) keeps apart.

        Every feature in :attr:`low_resolution_features` is replaced by the rank
        of its value among the feature's distinct values (0, 1, 2, ...; NaN stays
        NaN), which float32 holds exactly; every other feature is unchanged (see
        :class:`~explainer.data.precision.Float32View`).  A tree threshold learned on a
        ranked feature becomes a threshold on the original values with
        :meth:`original_threshold`, selecting exactly the same rows, so rules are
        still written and evaluated on ``X``.
        """
        return self._float32_view().matrix

    def original_threshold(self, feature: str, threshold: float) -> float:
        """A threshold learned on :meth:`training_matrix` as a threshold on ``X`` (same rows)."""
        return self._float32_view().original_threshold(self.feature_names.index(feature), threshold)

    def _float32_view(self) -> Float32View:
        view = getattr(self, "_view", None)
        if view is None:
            view = self._view = Float32View(self.X)
        return view

    def summary(self) -> dict:
        """A JSON-serialisable description of the data set."""
        counts = self.class_counts()
        return {
            "name": self.name,
            "target": self.target,
            "rows": self.n_rows,
            "rows_read": int(self.n_rows_read),
            "features": self.n_features,
            "feature_names": self.feature_names,
            "classes": [{"label": json_label(c), "count": counts[c]} for c in self.classes],
            "n_classes": len(self.classes),
            "dropped_missing_target": int(self.n_dropped_missing_target),
            "rows_with_missing": int(self.n_rows_with_missing),
            "missing_cells": int(sum(c.n_missing for c in self.columns if c.features)),
            "columns": [c.to_dict() for c in self.columns],
            "column_kinds": {c.name: c.kind for c in self.columns},
            "fingerprint": self.fingerprint,
            "notes": list(self.notes),
            "warnings": list(self.warnings),
        }


def _fingerprint(X: pd.DataFrame, y: np.ndarray) -> str:
    h = hashlib.sha256()
    h.update(json.dumps([str(c) for c in X.columns], ensure_ascii=False).encode("utf-8"))
    values = np.ascontiguousarray(X.to_numpy(dtype=np.float64, copy=True))
    missing = np.isnan(values)
    values[missing] = 0.0
    values = values + 0.0  # turn -0.0 into 0.0
    h.update(str(values.shape).encode())
    h.update(values.astype("<f8").tobytes())
    h.update(np.packbits(missing).tobytes())
    codes, seen = distinct(np.asarray(y))
    h.update(json.dumps([label_key(v) for v in seen], ensure_ascii=False).encode("utf-8"))
    h.update(codes.astype("<i8").tobytes())
    return h.hexdigest()


def load_dataset(
    source: Any,
    target: str | int | None = None,
    *,
    categorical: Iterable[str | int] = (),
    exclude: Iterable[str | int] = (),
    keep: Iterable[str | int] = (),
    missing_indicators: bool | str = "auto",
    ordinal_as_categorical: bool | int = False,
    name: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_rows: int = DEFAULT_MAX_ROWS,
) -> Dataset:
    """Read ``source`` and prepare it for rule learning.

    ``source`` is anything :func:`~explainer.data.tables.read_table` accepts, or a
    DataFrame.  ``target`` names the class column (name or position); by default
    :func:`~explainer.data.target.suggest_target` chooses it (a column named like
    ``class`` wins, else the last column; a column with about one value per row
    is refused).  A target given explicitly that looks like an identifier is
    kept but flagged in :attr:`Dataset.warnings`.  The other arguments go to the
    :class:`~explainer.data.encoder.TableEncoder`: ``categorical`` lists numeric
    columns to one-hot encode, ``exclude`` columns to drop, ``keep`` columns to
    keep even when they look like identifiers, ``missing_indicators``
    ("auto"/True or False) controls the 0/1 ``"<column> is missing"`` features,
    ``ordinal_as_categorical`` lets low-cardinality integer columns offer
    ``= v`` features beside the numeric one.
    """
    _check_missing_indicators(missing_indicators)  # before reading: a bad setting costs no parse
    declared: set[str] = set()
    if isinstance(source, pd.DataFrame):
        declared = {
            str(c).strip() for c, dt in source.dtypes.items() if isinstance(dt, pd.CategoricalDtype)
        }
        df = normalise_frame(source)
        default_name = "data"
    else:
        df = read_table(source, max_bytes=max_bytes, max_rows=max_rows)
        if isinstance(source, str | os.PathLike):
            default_name = pathlib.Path(source).stem
        else:
            src_name = getattr(source, "name", None)
            default_name = (
                pathlib.Path(src_name).stem if isinstance(src_name, str) and src_name else "data"
            )
    return dataset_from_table(
        df,
        target,
        declared=declared,
        categorical=categorical,
        exclude=exclude,
        keep=keep,
        missing_indicators=missing_indicators,
        ordinal_as_categorical=ordinal_as_categorical,
        name=name if name is not None else default_name,
        max_rows=max_rows,
    )


def _check_missing_indicators(value) -> None:
    if value not in ("auto", True, False):
        raise DataError("missing_indicators must be 'auto', True or False.")


def dataset_from_table(
    df: pd.DataFrame,
    target: str | int | None = None,
    *,
    declared: AbstractSet[str] = frozenset(),
    categorical: Iterable[str | int] = (),
    exclude: Iterable[str | int] = (),
    keep: Iterable[str | int] = (),
    missing_indicators: bool | str = "auto",
    ordinal_as_categorical: bool | int = False,
    name: str = "data",
    max_rows: int = DEFAULT_MAX_ROWS,
) -> Dataset:
    """:func:`load_dataset` on a table already under :func:`read_table`'s cell rules (what
    :func:`read_table` and :func:`normalise_frame` return; applying them again would cost a pass over
    every column).  ``declared`` names the columns that were pandas ``category`` columns."""
    _check_missing_indicators(missing_indicators)
    notes = list(df.attrs.get("notes", []))
    warnings: list[str] = []
    if df.shape[1] < 2:
        raise DataError("The table needs at least two columns: one feature and the target.")
    if len(df) > max_rows:
        raise DataError(f"The data has more than {max_rows:,} rows, the limit.")
    n_rows_read = int(len(df))
    if n_rows_read == 0:
        raise DataError("The table has no data rows.")

    if target is None:
        target_name, _reason = suggest_target(df)
    else:
        target_name = resolve_column(df, target, "target column")
        warning = explicit_target_warning(df, target_name)
        if warning:
            warnings.append(warning)
    cat_cols = {resolve_column(df, c, "categorical column") for c in as_list(categorical)}
    excl_cols = {resolve_column(df, c, "excluded column") for c in as_list(exclude)}
    keep_cols = {resolve_column(df, c, "kept column") for c in as_list(keep)}
    if target_name in excl_cols:
        raise DataError(f"The target column '{target_name}' cannot also be excluded.")

    target_missing = df[target_name].isna().to_numpy()
    n_dropped = int(target_missing.sum())
    if n_dropped == n_rows_read:
        raise DataError(f"The target column '{target_name}' has no values, so no rows are left.")
    df = df.loc[~target_missing].reset_index(drop=True)

    y = labels_of(df[target_name])
    classes = sorted_labels(y)
    if len(classes) < 2:
        raise DataError(
            f"The target column '{target_name}' has only one class ({classes[0]!r}); "
            "at least two classes are needed."
        )

    features = df.drop(columns=[target_name])
    encoder = TableEncoder(
        categorical=sorted(cat_cols - {target_name}),
        exclude=sorted(excl_cols),
        keep=sorted(keep_cols - {target_name}),
        missing_indicators=missing_indicators,
        ordinal_as_categorical=ordinal_as_categorical,
    )
    encoder._fit(features, set(declared) - {target_name})
    X = encoder._transform(features)
    warnings.extend(encoder.warnings_)

    target_info = ColumnInfo(
        target_name, "target", 0, [], int(df[target_name].nunique())
    )
    position = [str(c) for c in df.columns].index(target_name)
    infos = list(encoder.columns_)
    infos.insert(position, target_info)
    used = [c.name for c in encoder.columns_ if c.features]
    n_with_missing = int(features[used].isna().any(axis=1).sum()) if used else 0
    return Dataset(
        X=X,
        y=y,
        target=target_name,
        classes=classes,
        columns=infos,
        name=name,
        n_rows_read=n_rows_read,
        n_dropped_missing_target=n_dropped,
        n_rows_with_missing=n_with_missing,
        feature_specs=list(encoder.feature_specs_),
        encoder=encoder,
        notes=notes,
        warnings=warnings,
    )


# --------------------------------------------------------------------------- registry

#: The paper's ten data sets (files in :data:`PAPER_DATA_DIR`).
PAPER_DATASETS: dict[str, dict] = {
    "iris": {"file": "iris.csv", "target": "class", "title": "Iris"},
    "wine": {"file": "wine.csv", "target": "class", "title": "Wine"},
    "zoo": {"file": "zoo.csv", "target": "type", "title": "Zoo"},
    "breast_cancer_wisconsin": {
        "file": "breast_cancer_wisconsin.csv",
        "target": "Class",
        "title": "Breast cancer (Wisconsin)",
    },
    "banknote": {"file": "banknote.csv", "target": "class", "title": "Banknote authentication"},
    "hayes_roth": {"file": "hayes_roth.csv", "target": "class", "title": "Hayes-Roth"},
    "mammographic_masses": {
        "file": "mammographic_masses.csv",
        "target": "Severity",
        "title": "Mammographic masses",
    },
    "blood_transfusion": {
        "file": "blood_transfusion.csv",
        "target": "class",
        "title": "Blood transfusion",
    },
    "ecoli": {"file": "ecoli.csv", "target": "class", "title": "E. coli"},
    "tic_tac_toe": {"file": "tic_tac_toe.csv", "target": "class", "title": "Tic-tac-toe"},
}


def paper_data_dir() -> pathlib.Path:
    """Directory of the paper's data sets: the copy shipped with the package."""
    return PAPER_DATA_DIR



def load_paper_dataset(
    name: str, data_dir: str | os.PathLike | None = None, **kwargs: Any
) -> Dataset:
    """Load one of :data:`PAPER_DATASETS` by name (extra arguments go to :func:`load_dataset`)."""
    if name not in PAPER_DATASETS:
        known = ", ".join(sorted(PAPER_DATASETS))
        raise DataError(f"Unknown paper data set '{name}'; known data sets: {known}.")
    spec = PAPER_DATASETS[name]
    directory = pathlib.Path(data_dir) if data_dir is not None else paper_data_dir()
    if not directory.is_dir():
        raise DataError(
            f"The paper's data set directory was not found ({directory}); leave the data "
            "directory out to use the copy shipped with the package."
        )
    path = directory / spec["file"]
    if not path.is_file():
        raise DataError(f"The data set file '{spec['file']}' is missing from {directory}.")
    kwargs.setdefault("target", spec["target"])
    kwargs.setdefault("name", name)
    return load_dataset(path, **kwargs)


def sample_datasets() -> dict[str, pathlib.Path]:
    """The CSV files bundled in ``<project root>/sample_data/``: name -> path."""
    directory = _PROJECT_ROOT / "sample_data"
    if not directory.is_dir():
        return {}
    return {p.stem: p for p in sorted(directory.glob("*.csv"))}
