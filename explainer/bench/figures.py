"""Figure 4: the fitness evolution of a run, as HTML (and PNG where kaleido can draw)."""

from __future__ import annotations

import pathlib

from explainer.bench.paper import TABLE_LABELS
from explainer.data import PAPER_DATASETS
from explainer.report.figures import fitness_figure

_PNG_OK: bool | None = None


def png_failed() -> bool:
    """True when a PNG export was tried in this process and kaleido could not draw it."""
    return _PNG_OK is False


def _write_png(fig, path) -> bool:
    """Write a PNG with kaleido when it can (it needs a Chrome browser); False otherwise."""
    global _PNG_OK
    if _PNG_OK is False:
        return False
    try:
        fig.write_image(str(path))
    except Exception:  # noqa: BLE001 - kaleido missing, no browser, ...: HTML only
        _PNG_OK = False
        return False
    _PNG_OK = True
    return True


def write_figures(records: list[dict], out_dir, png: bool = True) -> list[pathlib.Path]:
    """One HTML (and PNG when possible) per run that kept its history: figures/<data set>_<algorithm>.*"""

    fig_dir = pathlib.Path(out_dir) / "figures"
    written = []
    for r in records:
        hist = r.get("history")
        if not hist:
            continue
        fig_dir.mkdir(parents=True, exist_ok=True)
        title = (f"{PAPER_DATASETS.get(r['dataset'], {}).get('title', r['dataset'])}: "
                 f"{TABLE_LABELS.get(r['algorithm'], r['algorithm'])}, run {r['run']}")
        fig = fitness_figure(hist, r["n_rows"], title=title, width=800, height=400)
        stem = fig_dir / f"{r['dataset']}_{r['algorithm']}"
        fig.write_html(str(stem.with_suffix(".html")), include_plotlyjs="cdn", full_html=True)
        written.append(stem.with_suffix(".html"))
        if png and _write_png(fig, stem.with_suffix(".png")):
            written.append(stem.with_suffix(".png"))
    return written
