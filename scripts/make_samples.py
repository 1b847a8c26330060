"""Write the small example tables bundled in ``sample_data/``.

Run from the project root::

    python scripts/make_samples.py

The output is deterministic: ``iris.csv`` and ``wine.csv`` come from the copies
bundled with scikit-learn, ``loans.csv`` is generated from a fixed seed.
"""

from __future__ import annotations

import pathlib

import numpy as np
import pandas as pd
from sklearn.datasets import load_iris, load_wine

OUT = pathlib.Path(__file__).resolve().parent.parent / "sample_data"

WINE_NAMES = {
    "alcohol": "alcohol",
    "malic_acid": "malic_acid",
    "ash": "ash",
    "alcalinity_of_ash": "ash_alcalinity",
    "magnesium": "magnesium",
    "total_phenols": "total_phenols",
    "flavanoids": "flavanoids",
    "nonflavanoid_phenols": "nonflavanoid_phenols",
    "proanthocyanins": "proanthocyanins",
    "color_intensity": "color_intensity",
    "hue": "hue",
    "od280/od315_of_diluted_wines": "od280_od315",
    "proline": "proline",
}


def make_iris() -> pd.DataFrame:
    bunch = load_iris()
    df = pd.DataFrame(
        bunch.data, columns=["sepal_length", "sepal_width", "petal_length", "petal_width"]
    )
    df["class"] = [str(bunch.target_names[t]) for t in bunch.target]
    return df


def make_wine() -> pd.DataFrame:
    bunch = load_wine()
    df = pd.DataFrame(bunch.data, columns=[WINE_NAMES[c] for c in bunch.feature_names])
    df["class"] = [str(bunch.target_names[t]) for t in bunch.target]
    return df


def make_loans(n: int = 400, seed: int = 20240601) -> pd.DataFrame:
    """A small loan-decision table generated from a few hidden rules plus noise.

    Hidden rules, applied in order:
      1. credit_score < 580                         -> reject
      2. late_payments >= 3                         -> reject
      3. employment == unemployed and amount > 10000 -> reject
      4. income < 30000 and amount > 20000          -> review
      5. region == 4 and credit_score < 680         -> review
      6. otherwise                                  -> approve
    About 5% of the labels are then replaced by a random class.
    """
    rng = np.random.default_rng(seed)
    employment = rng.choice(
        ["salaried", "self-employed", "unemployed", "retired"], size=n, p=[0.55, 0.2, 0.1, 0.15]
    )
    home = rng.choice(["rent", "mortgage", "own"], size=n, p=[0.45, 0.35, 0.2])
    region = rng.integers(1, 6, size=n)  # integer-coded category 1..5
    age = rng.integers(19, 76, size=n)
    base_income = np.where(employment == "unemployed", 9000, 42000)
    base_income = np.where(employment == "retired", 26000, base_income)
    income = np.round(base_income * rng.lognormal(0.0, 0.45, size=n), -2)
    amount = np.round(rng.uniform(1000, 40000, size=n), -2)
    credit = np.clip(np.round(rng.normal(670, 75, size=n)), 300, 850).astype(int)
    late = rng.poisson(0.9, size=n)

    decision = np.full(n, "approve", dtype=object)
    review = ((income < 30000) & (amount > 20000)) | ((region == 4) & (credit < 680))
    reject = (credit < 580) | (late >= 3) | ((employment == "unemployed") & (amount > 10000))
    decision[review] = "review"
    decision[reject] = "reject"
    noisy = rng.random(n) < 0.05
    decision[noisy] = rng.choice(["approve", "review", "reject"], size=int(noisy.sum()))

    ids = rng.choice(np.arange(10000, 100000), size=n, replace=False)
    df = pd.DataFrame(
        {
            "applicant_id": [f"A{i}" for i in ids],
            "age": age.astype(object),
            "income": income.astype(int).astype(object),
            "loan_amount": amount.astype(int).astype(object),
            "employment": employment.astype(object),
            "home": home.astype(object),
            "region": region.astype(object),
            "credit_score": credit.astype(object),
            "late_payments": late.astype(object),
            "decision": decision,
        }
    )
    # Missing cells, written either as "?" or left empty.
    for col, frac, marker in [
        ("income", 0.04, "?"),
        ("credit_score", 0.03, ""),
        ("employment", 0.02, "?"),
        ("home", 0.02, ""),
    ]:
        rows = rng.random(n) < frac
        df.loc[rows, col] = marker
    return df


def main() -> None:
    OUT.mkdir(exist_ok=True)
    make_iris().to_csv(OUT / "iris.csv", index=False, float_format="%.10g", lineterminator="\n")
    make_wine().to_csv(OUT / "wine.csv", index=False, float_format="%.10g", lineterminator="\n")
    make_loans().to_csv(OUT / "loans.csv", index=False, lineterminator="\n")
    for p in sorted(OUT.glob("*.csv")):
        print(p.relative_to(OUT.parent))


if __name__ == "__main__":
    main()
