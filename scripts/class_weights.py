"""Does every sizeable class get a rule?  The default explanation unweighted and with class_weight="balanced".

    python scripts/class_weights.py [--names iris wine ...] [--share 0.05]

For each paper data set and bundled sample, runs the command line's default explanation
(``explainer explain NAME --json``: default pool, default budgets, QGA, seed 0) without weights
and with ``--class-weight balanced``, and prints: the classes holding at least ``--share`` of
the rows, which of them get at least one rule in each explanation, and the accuracy and
balanced accuracy on the training rows (every row here: nothing is held out).  Ends with the
data sets where a class at or above the share gets no rule with balanced weights (none, when
the check holds).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from explainer.cli import main as cli_main  # noqa: E402
from explainer.data import PAPER_DATASETS, paper_data_dir  # noqa: E402
from explainer.data.defaults import default_load_settings  # noqa: E402
from explainer.data.sources import find_source, load_source  # noqa: E402

SAMPLES = ("iris", "wine", "loans")


def sources() -> dict[str, list[str]]:
    """Label -> the command line's data arguments: the paper's files (the names iris and wine are the
    bundled samples on the command line), then the samples."""
    out = {f"paper:{name}": [str(paper_data_dir() / spec["file"]), "--target", spec["target"]]
           for name, spec in PAPER_DATASETS.items()}
    out.update({f"sample:{name}": [name] for name in SAMPLES})
    return out


def explain(data: list[str], class_weight: str) -> dict:
    """The CLI's default explanation of ``data`` as its JSON."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = cli_main(["explain", *data, "--json", "--quiet", "--class-weight", class_weight])
    if rc != 0:
        raise SystemExit(f"explainer explain {' '.join(data)} failed with status {rc}")
    return json.loads(out.getvalue())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--names", nargs="*", default=list(sources()), help="labels as printed (paper:zoo, sample:iris)")
    ap.add_argument("--share", type=float, default=0.05, help="classes with at least this share of the rows")
    args = ap.parse_args(argv)
    missing = []
    print(f"{'data set':29s} {'rows':>5s} {'classes':>7s} {'with a rule':>11s} {'with a rule':>11s} "
          f"{'accuracy':>9s} {'balanced':>9s} {'accuracy':>9s} {'balanced':>9s}  classes >= {args.share:.0%} "
          "without a rule (none | balanced)")
    print(f"{'':29s} {'':5s} {'>= ' + format(args.share, '.0%'):>7s} {'none':>11s} {'balanced':>11s} "
          f"{'none':>9s} {'none':>9s} {'balanced':>9s} {'balanced':>9s}")
    t0 = time.perf_counter()
    known = sources()
    for name in args.names:
        data = known[name]
        ds = load_source(find_source(data[0]), data[2] if len(data) > 1 else None, **default_load_settings())
        labels, counts = np.unique(np.asarray(ds.y).astype(str), return_counts=True)
        big = [str(lab) for lab, c in zip(labels, counts, strict=True) if c >= args.share * len(ds.y)]
        runs = {cw: explain(data, cw) for cw in ("none", "balanced")}
        ruled = {cw: {str(r["label"]) for r in d["rules"]} for cw, d in runs.items()}
        cells = [f"{sum(c in ruled[cw] for c in big)}" for cw in ("none", "balanced")]
        lacking = {cw: [c for c in big if c not in ruled[cw]] for cw in ("none", "balanced")}
        note = " | ".join(", ".join(lacking[cw]) or "-" for cw in ("none", "balanced"))
        n, b = runs["none"], runs["balanced"]
        print(f"{name:29s} {len(ds.y):5d} {len(big):7d} {cells[0]:>11s} {cells[1]:>11s} "
              f"{100 * n['accuracy']:8.2f}% {100 * n['balanced_accuracy']:8.2f}% "
              f"{100 * b['accuracy']:8.2f}% {100 * b['balanced_accuracy']:8.2f}%  {note}", flush=True)
        if lacking["balanced"]:
            missing.append((name, lacking["balanced"]))
    print(f"\n{len(args.names)} data sets in {time.perf_counter() - t0:.0f} s")
    if missing:
        print("classes at or above the share with no rule, balanced: "
              + "; ".join(f"{name}: {', '.join(c)}" for name, c in missing))
    else:
        print(f"with class_weight=balanced every class with >= {args.share:.0%} of the rows gets a rule")
    return 1 if missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
