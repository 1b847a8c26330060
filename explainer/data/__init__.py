"""Reading and preparing a classification data set (the names most code imports).

This module gathers the public names of the modules that do the work:

- :mod:`explainer.data.tables`: reading delimited text (bytes, decoding, delimiter
  sniffing, missing markers, decimal commas) and :class:`DataError`;
- :mod:`explainer.data.encoder`: :class:`TableEncoder`, fitted on a table and
  applied to new rows (one-hot, missing indicators, identifier exclusion);
- :mod:`explainer.data.precision`: what float32 (the tree learner's number) holds;
- :mod:`explainer.data.target`: the default target column (:func:`suggest_target`);
- :mod:`explainer.data.labels`: what a class label is, the one label coder
  (:func:`~explainer.data.labels.encode_labels`), the majority and the fallback class;
- :mod:`explainer.data.datasets`: :class:`Dataset`, :func:`load_dataset` and the
  registry of the paper's data sets and the bundled samples;
- :mod:`explainer.data.sources`: what a name stands for (a file, a bundled sample, a
  paper data set), the one lookup of the command line and the dashboard.
"""

from __future__ import annotations

from explainer.data.datasets import (
    PAPER_DATASETS,
    Dataset,
    load_dataset,
    load_paper_dataset,
    paper_data_dir,
    sample_datasets,
)
from explainer.data.encoder import KINDS, MAX_CATEGORIES, ColumnInfo, TableEncoder
from explainer.data.precision import FLOAT32_MAX
from explainer.data.tables import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_ROWS,
    MISSING_MARKERS,
    SPREADSHEET_EXTENSIONS,
    DataError,
    normalise_frame,
    read_table,
)
from explainer.data.target import TARGET_NAMES, suggest_target, target_candidates

__all__ = [
    "DataError",
    "ColumnInfo",
    "Dataset",
    "TableEncoder",
    "read_table",
    "normalise_frame",
    "load_dataset",
    "suggest_target",
    "target_candidates",
    "paper_data_dir",
    "PAPER_DATASETS",
    "load_paper_dataset",
    "sample_datasets",
    "MISSING_MARKERS",
    "SPREADSHEET_EXTENSIONS",
    "TARGET_NAMES",
    "KINDS",
    "MAX_CATEGORIES",
    "FLOAT32_MAX",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_ROWS",
]
