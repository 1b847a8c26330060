"""The paper's own printed explanations (appendix A), evaluated on the packaged data with eps = 1.

The paper's feature names are mapped to the CSV headers here; every figure
below was printed in the paper and must come out exactly.
"""

import numpy as np
import pandas as pd
import pytest

from explainer.report import evaluate_rules
from explainer.rules import parse_rules, rules_for_data

IRIS = """
IF petal length <= 2.45 THEN CLASS=Iris-setosa
IF petal width > 0.8 AND petal length <= 4.75 THEN CLASS=Iris-versicolor
IF petal width > 1.75 THEN CLASS=Iris-virginica
"""

WINE = """
IF hue > 0.785 AND color intensity > 3.46 AND flavanoids > 2.11 THEN CLASS=1
IF color intensity > 3.82 AND flavanoids <= 1.58 AND alcalinity > 17.15 THEN CLASS=3
IF color intensity <= 3.82 AND OD280/OD135 <= 3.73 THEN CLASS=2
"""

ZOO = """
IF milk <= 0.5 AND feathers > 0.5 THEN CLASS=2
IF milk > 0.5 THEN CLASS=1
IF hair > 0.5 AND milk <= 0.5 THEN CLASS=6
IF milk <= 0.032 AND fins <= 0.764 AND breathes > 0.205 AND toothed > 0.563 THEN CLASS=5
IF breathes <= 0.371 AND backbone <= 0.101 THEN CLASS=7
IF toothed > 0.5 AND hair <= 0.5 AND breathes <= 0.5 THEN CLASS=4
IF milk <= 0.5 AND feathers <= 0.5 AND toothed <= 0.5 AND breathes > 0.5 THEN CLASS=6
"""

BANKNOTE = """
IF skewness > 5.21 AND variance > -3.368 THEN CLASS=0
IF skewness > 5.161 AND variance > -3.368 THEN CLASS=0
IF skewness <= 5.161 AND variance > 0.32 AND curtosis <= -1.44 THEN CLASS=1
IF skewness <= 5.161 AND variance > 0.32 AND curtosis > -1.44 THEN CLASS=0
IF curtosis > 2.448 AND variance <= 0.323 AND skewness <= 0.667 THEN CLASS=1
IF curtosis > 2.448 AND variance <= 0.323 AND skewness > 0.667 THEN CLASS=0
IF curtosis > 2.448 AND variance > 0.323 THEN CLASS=0
IF variance <= -4.417 THEN CLASS=1
IF variance <= 0.32 AND skewness <= 5.865 AND curtosis <= 6.219 THEN CLASS=1
IF variance > 6.079 THEN CLASS=0
"""

# paper name -> CSV header (only where they differ beyond case/spaces/underscores)
RENAME = {
    "alcalinity": "Alcalinity of ash",
    "OD280/OD135": "OD280/OD315 of diluted wines",
}

CASES = {
    # name: (rules, target, dropped columns, rules, complexity, errors, covered, pairs, f*)
    "iris": (IRIS, "class", [], 3, 4, 2, 141, 0, 141),
    "wine": (WINE, "class", [], 3, 8, 8, 173, 2, 171),
    "zoo": (ZOO, "type", ["animal name"], 7, 18, 8, 101, None, 101),
    "banknote": (BANKNOTE, "class", [], 10, 23, 33, 1369, 2, 1367),
}


def _rename(text):
    for old, new in RENAME.items():
        text = text.replace(old + " ", new + " ")
    return text


@pytest.mark.parametrize("name", sorted(CASES))
def test_paper_explanations_reproduce_exactly(name, paper_datasets_dir):
    text, target, drop, n_rules, complexity, errors, covered, pairs, fstar = CASES[name]
    df = pd.read_csv(paper_datasets_dir / f"{name}.csv", na_values=["?"], keep_default_na=False)
    y = df[target].to_numpy()
    X = df.drop(columns=[target, *drop]).astype(float)
    rules = rules_for_data(parse_rules(_rename(text)), list(X.columns), sorted(set(y.tolist())))
    report = evaluate_rules(rules, X, y, eps=1.0)
    assert report.n_rules == n_rules
    assert report.complexity == complexity
    assert report.errors == errors
    assert report.covered == covered
    if pairs is not None:
        assert report.conflicting_pairs == pairs
    assert report.coverage == fstar
    assert report.coverage_score == pytest.approx(fstar / len(y))


def test_wine_pins_eps_one(paper_datasets_dir):
    """With eps = 0 Wine would read 97.19%; the paper's 96.07% needs eps = 1."""
    df = pd.read_csv(paper_datasets_dir / "wine.csv")
    y = df["class"].to_numpy()
    X = df.drop(columns="class").astype(float)
    rules = rules_for_data(parse_rules(_rename(WINE)), list(X.columns), sorted(set(y.tolist())))
    assert round(100 * evaluate_rules(rules, X, y, eps=0.0).coverage_score, 2) == 97.19
    assert round(100 * evaluate_rules(rules, X, y, eps=1.0).coverage_score, 2) == 96.07


def test_votes_on_iris_explanation(paper_datasets_dir):
    df = pd.read_csv(paper_datasets_dir / "iris.csv")
    y = df["class"].to_numpy()
    X = df.drop(columns="class")
    rules = rules_for_data(parse_rules(IRIS), list(X.columns), sorted(set(y.tolist())))
    report = evaluate_rules(rules, X, y)
    assert report.n_uncovered == 150 - 141
    # a row fired on only by a wrong rule is voted wrong; 2 errors, no conflicts -> 139 right
    assert int(np.sum(report.predictions.astype(str) == y.astype(str))) == 139
