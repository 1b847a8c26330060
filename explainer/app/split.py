"""The rows a pool is built on and the rows held out from it: the session's split (a value, no Streamlit)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from explainer.data import Dataset


@dataclass
class Split:
    """The rows the pool and the selection use, and the rows held out from them (if any)."""

    train: Dataset
    X_test: pd.DataFrame | None = None
    y_test: np.ndarray | None = None
    fraction: float = 0.0
