"""The paper's side of the benchmark: its Table 3 and settings, its encodings, per-run seeds."""

from __future__ import annotations

import csv
import pathlib
import zlib

import numpy as np

from explainer.data import paper_data_dir

_PROJECT_ROOT = pathlib.Path(__file__).resolve().parents[2]

#: The paper's Table 3 with its Table 2 settings, shipped beside its data sets.
PAPER_TABLE = paper_data_dir() / "table3_results.csv"

# the paper's algorithm names in its table -> our registry names
PAPER_ALGORITHMS = {"RF+HC": "rfhc", "IRFRE": "irfre", "IRFRE RF+HC": "irfre_rfhc", "QGA": "qga"}

#: Our algorithms compared with one of the paper's columns: the paper's QGA as written is
#: ``qga_paper``; ``qga`` (ours, with local search) is compared with the same column.
PAPER_COLUMN = {**{v: v for v in PAPER_ALGORITHMS.values()}, "qga_paper": "qga"}

#: Short names in the tables: the paper's, then ours.
TABLE_LABELS = {**{v: k for k, v in PAPER_ALGORITHMS.items()}, "qga": "QGA (ours)",
                "qga_paper": "QGA (as written)", "greedy": "Greedy", "exact": "Exact (MILP)",
                "ga": "Standard GA", "forex": "ForEx++", "forex_trimmed": "ForEx++ trimmed"}

#: Algorithms of a full benchmark (the paper's four, its QGA as written, greedy and the exact optimum).
DEFAULT_ALGORITHMS = ("rfhc", "irfre", "irfre_rfhc", "qga_paper", "qga", "greedy", "exact")

#: Algorithms that give the same answer whatever the seed: run once per data set.
DETERMINISTIC = frozenset({"exact", "greedy"})

#: The paper's preprocessing, as :func:`~explainer.data.load_dataset` keyword arguments.
#: The paper one-hot encoded every column that held a ``?`` (its rules read
#: ``margin_?``, ``age_42``, ``bare nuclei_10``); the missing indicators
#: (``X is missing``) play the part of its ``X_?`` columns.  Its Hayes-Roth rules
#: use the ``name`` column, which our loader would drop as an identifier.
PAPER_ENCODING: dict[str, dict] = {
    "mammographic_masses": {
        "categorical": ["BI-RADS", "Age", "Shape", "Margin", "Density"],
        "missing_indicators": "auto",
    },
    "breast_cancer_wisconsin": {"categorical": ["Bare Nuclei"], "missing_indicators": "auto"},
    "hayes_roth": {"keep": ["name"]},
}

ENCODINGS = ("paper", "plain")


def paper_table(path=None) -> list[dict]:
    """Rows of the paper's Table 3 (with Table 2's settings), numbers as numbers.

    ``path`` defaults to :data:`PAPER_TABLE`, the copy shipped with the package.
    """
    if path is None:
        path = PAPER_TABLE
    rows = []
    with open(path, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            for key, value in row.items():
                if key in ("dataset", "algorithm"):
                    continue
                row[key] = float(value) if "." in value else int(value)
            row["algorithm_key"] = PAPER_ALGORITHMS.get(row["algorithm"], row["algorithm"])
            rows.append(row)
    return rows


def paper_settings(path=None) -> dict[str, dict]:
    """Per data set: depth, trees, rules (M), complexity_budget, errors_budget from the paper."""
    out: dict[str, dict] = {}
    for row in paper_table(path):
        out.setdefault(
            row["dataset"],
            {k: row[k] for k in ("instances", "attributes", "classes", "depth", "trees", "rules",
                                 "complexity_budget", "errors_budget")},
        )
    return out


def run_seed(base_seed: int, dataset: str, run: int) -> int:
    """The seed of run ``run`` on ``dataset``: stable across machines, Python versions and subsets."""
    ss = np.random.SeedSequence([int(base_seed), zlib.crc32(dataset.encode("utf-8")), int(run)])
    return int(ss.generate_state(1, dtype=np.uint64)[0])


def encoding_kwargs(dataset: str, encoding: str = "paper") -> dict:
    """``load_dataset`` keyword arguments of ``dataset`` under ``encoding`` ("paper" or "plain")."""
    if encoding not in ENCODINGS:
        raise ValueError(f"encoding must be one of {', '.join(ENCODINGS)}, got {encoding!r}")
    if encoding == "plain":
        return {}
    return {k: list(v) if isinstance(v, list) else v for k, v in PAPER_ENCODING.get(dataset, {}).items()}


def scale_budgets(settings: dict[str, dict], factor: float) -> dict[str, dict]:
    """The paper's settings with both budgets multiplied by ``factor`` (rounded down; Bc >= 1)."""
    out = {}
    for name, s in settings.items():
        s = dict(s)
        s["complexity_budget"] = max(1, int(s["complexity_budget"] * factor))
        s["errors_budget"] = max(0, int(s["errors_budget"] * factor))
        out[name] = s
    return out
