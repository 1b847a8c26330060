"""A rule file at the parser's size limit, evaluated as the Export page does: time and peak memory.

    python scripts/hostile_rules.py [--rows 10000] [--out hostile_rules.txt]

Writes a rule text of as many one-condition rules as fit in
:data:`~explainer.rules.parse.MAX_TEXT_CHARS` characters, classes alternating
and each rule firing on about half the rows (so almost every pair of rules
conflicts), and a table of ``--rows`` rows for them.  Then reads, binds and
evaluates the rules (:func:`explainer.app.downloads.evaluate_rule_text`, what the
Export page runs on an upload) in a fresh process and prints the wall time and
the process's peak resident memory, before and after.
"""

from __future__ import annotations

import argparse
import pathlib
import resource
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from explainer.rules.parse import MAX_TEXT_CHARS  # noqa: E402


def hostile_text(n_values: int = 100) -> str:
    """One-condition rules, alternating classes, thresholds spread over the column's range, up to the limit."""
    lines, size, i = [], 0, 0
    while True:
        line = f"IF x <= {i % n_values} THEN CLASS={'ab'[i % 2]}\n"
        if size + len(line) > MAX_TEXT_CHARS:
            return "".join(lines)
        lines.append(line)
        size += len(line)
        i += 1


def hostile_table(n_rows: int, n_values: int = 100) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({"x": rng.integers(0, 2 * n_values, n_rows), "class": rng.choice(["a", "b"], n_rows)})


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # kilobytes on Linux


def measure(rules_path: str, table_path: str) -> None:
    """In this (fresh) process: load the table, then evaluate the rule file; print the figures."""
    from explainer.app.downloads import decode_text, evaluate_rule_text
    from explainer.data import load_dataset

    dataset = load_dataset(table_path, target="class")
    data = pathlib.Path(rules_path).read_bytes()
    before = peak_mb()
    t0 = time.perf_counter()
    report = evaluate_rule_text(decode_text(data), dataset, complexity_budget=48, error_budget=2000)
    seconds = time.perf_counter() - t0
    print(f"rule text:        {len(data):,} characters, {report.n_rules:,} rules, {dataset.n_rows:,} rows")
    print(f"evaluated in:     {seconds:.2f} s")
    print(f"peak memory:      {before:.0f} MB before, {peak_mb():.0f} MB after (whole process)")
    print(f"totals:           covered {report.covered:,}, conflicting pairs {report.conflicting_pairs:,}, "
          f"errors {report.errors:,}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--out", help="also keep the rule file here")
    parser.add_argument("--measure", nargs=2, metavar=("RULES", "TABLE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure:
        measure(*args.measure)
        return 0
    text = hostile_text()
    with tempfile.TemporaryDirectory() as tmp:
        rules_path = pathlib.Path(args.out or pathlib.Path(tmp) / "hostile_rules.txt")
        rules_path.write_text(text, encoding="utf-8")
        table_path = pathlib.Path(tmp) / "table.csv"
        hostile_table(args.rows).to_csv(table_path, index=False)
        # a fresh process, so that the peak memory is this evaluation's and not the generator's
        return subprocess.call([sys.executable, __file__, "--measure", str(rules_path), str(table_path)], cwd=ROOT)


if __name__ == "__main__":
    raise SystemExit(main())
