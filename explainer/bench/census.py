"""A census-like table of any size, for timing and load tests of the dashboard.

Like the UCI adult census table in shape: 6 numeric columns with skew and ties, 8
categorical columns of 2 to 40 values, a few missing values, about 24 % of the rows in
the minority class (``income`` ">50K").  Random, seeded; no real person's data.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def census_like(n_rows: int, seed: int = 0) -> pd.DataFrame:
    """6 numeric and 8 categorical columns, some values missing, about 24 % of the rows in the minority class."""
    rng = np.random.default_rng(seed)
    frame = {
        "age": np.clip(rng.gamma(4.0, 9.5, n_rows) + 17, 17, 90).round(),
        "fnlwgt": rng.lognormal(12, 0.5, n_rows).round(-2),
        "education_num": rng.choice(np.arange(1, 17), n_rows),
        "capital_gain": np.where(rng.random(n_rows) < 0.92, 0, rng.lognormal(8, 1.2, n_rows).round()),
        "capital_loss": np.where(rng.random(n_rows) < 0.95, 0, rng.lognormal(7.4, 0.3, n_rows).round()),
        "hours_per_week": np.clip(rng.normal(40, 12, n_rows).round(), 1, 99),
    }
    sizes = {"workclass": 8, "education": 16, "marital_status": 7, "occupation": 14, "relationship": 6,
             "race": 5, "sex": 2, "native_country": 40}
    for name, k in sizes.items():
        weights = rng.dirichlet(np.full(k, 0.6))
        frame[name] = np.array([f"{name}_{i}" for i in range(k)], dtype=object)[rng.choice(k, n_rows, p=weights)]
    df = pd.DataFrame(frame)
    score = (0.04 * (df["age"] - 38) + 0.35 * (df["education_num"] - 10) + 0.0004 * df["capital_gain"]
             + 0.05 * (df["hours_per_week"] - 40) + 1.2 * (df["marital_status"] == "marital_status_0")
             + 0.6 * (df["sex"] == "sex_0") + rng.normal(0, 1.4, n_rows))
    df["income"] = np.where(score > np.quantile(score, 0.76), ">50K", "<=50K")
    for name in ("workclass", "occupation", "native_country"):
        df.loc[rng.random(n_rows) < 0.03, name] = None
    return df


__all__ = ["census_like"]
