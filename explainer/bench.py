"""Benchmark support: the paper's Table 3 settings and results."""

from __future__ import annotations

import csv
import os
import pathlib

_PROJECT_ROOT = pathlib.Path(__file__).resolve().parent.parent

# the paper's algorithm names in its table -> our registry names
PAPER_ALGORITHMS = {"RF+HC": "rfhc", "IRFRE": "irfre", "IRFRE RF+HC": "irfre_rfhc", "QGA": "qga"}


def paper_dir() -> pathlib.Path | None:
    env = os.environ.get("EXPLAINER_PAPER_DIR")
    if env:
        return pathlib.Path(env).expanduser()
    candidate = _PROJECT_ROOT.parent / "shared" / "paper"
    return candidate if candidate.is_dir() else None


def paper_table(path=None) -> list[dict]:
    """Rows of the paper's Table 3 (with Table 2's settings), numbers as numbers."""
    if path is None:
        d = paper_dir()
        if d is None:
            raise OSError("the paper's results table was not found (set EXPLAINER_PAPER_DIR)")
        path = d / "table3_results.csv"
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
