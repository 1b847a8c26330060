"""Tables and downloads: what the pages show as data frames and what Export hands out."""

from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd

from explainer.app.text import label
from explainer.data import Dataset
from explainer.pipeline import Explanation
from explainer.report import RuleSetReport, evaluate_rules
from explainer.report.exports import EXPORT_FORMATS, export_text
from explainer.rules import parse_rules, rules_for_data
from explainer.rules.model import Condition, Rule
from explainer.rules.render import counted, render_label, render_rule
from explainer.rules.ripper import parse_ripper
from explainer.selection.problem import within_error_budget


def export_payloads(explanation: Explanation, dataset: Dataset | None = None) -> dict[str, tuple[str, str, str]]:
    """kind -> (file name, MIME type, content) of the exports: the rules as text (with their
    ``ELSE`` line), the report as JSON, the rules as CSV, a SQL ``CASE WHEN`` expression and a
    Python function that give the rule set's vote and fallback."""
    report = explanation.report
    stem = _safe_stem(dataset.name if dataset is not None else "rules")
    extra = {
        "algorithm": explanation.result.algorithm,
        "status": explanation.result.status,
        "time_s": explanation.result.time_s,
    }
    if dataset is not None:
        extra["data_name"] = dataset.name
    out = {"json": (f"{stem}_rules.json", "application/json", report.to_json(**extra))}
    for kind in ("text", "csv", "sql", "python"):
        suffix, mime = EXPORT_FORMATS[kind]
        out[kind] = (f"{stem}_rules{suffix}", mime, export_text(report, kind, explanation.result.status))
    return {kind: out[kind] for kind in ("text", "json", "csv", "sql", "python")}


COVERAGE_HELP = ("The paper's coverage f*, as a share of the rows: the rows some rule fires on, right or wrong, less "
                 "eps for each pair of rules of different classes that fire on one row.")
ERRORS_HELP = ("The paper's error count, which the budget Be bounds: for each rule, the rows it covers whose class "
               "is not the rule's, added up over the rules, so a row two rules get wrong counts twice. It is not "
               "the number of rows the explanation gets wrong: those are listed, each with its reason, under "
               "Misclassified rows on the Rules page.")
BALANCED_HELP = ("The mean over the classes of the share of their rows that get their class (the vote, else the "
                 "fallback): a class of few rows counts as much as a large one.")


def accuracy_text(report: RuleSetReport) -> str:
    """One line under the result: what the accuracy counts, the class column and the fallback."""
    n = report.n_rows
    voted = int(round(report.vote_accuracy * n))
    left = report.n_uncovered + report.n_ties
    target = f"Class column '{report.target}': " if report.target is not None else ""
    return (f"{target}{voted:,} of {n:,} rows are voted right by the rules that fire; {report.n_uncovered:,} "
            f"uncovered and {report.n_ties:,} tied rows get the fallback class ({report.else_text}), "
            f"{report.fallback_right:,} of those {left:,} rightly. Coverage f* counts the {report.covered:,} rows a "
            f"rule fires on, right or wrong" + (f", less eps = {report.eps:g} for each pair of rules of different "
                                                f"classes that fire on one row "
                                                f"({counted(report.conflicting_pairs, 'such pair')})"
                                                if report.conflicting_pairs else "") + ".")


def count_text(x) -> str:
    """A count as the pages show it: a whole number as it is, a weight (weighted rows) with 4 significant digits."""
    return f"{x:d}" if isinstance(x, (int, np.integer)) else f"{x:.4g}"


def _safe_stem(name: str) -> str:
    stem = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in str(name))[:60]
    return stem or "rules"


def is_ripper_text(text: str) -> bool:
    """Whether a rule file is a wittgenstein RIPPER rule list (``[[a=x^b=<1.5] V [c=y]]``)."""
    return text.lstrip().startswith("[")


def example_rule_line(dataset: Dataset) -> str:
    """A rule line in this table's own names and values (its first usable column and first class), for the
    rule file form's help: an example an analyst can copy and edit, which the reader takes."""
    label = dataset.classes[0] if dataset.classes else "a"
    for spec in dataset.feature_specs:
        if spec.kind == "numeric":
            values = pd.to_numeric(dataset.X[spec.name], errors="coerce").dropna()
            if values.empty:
                continue
            middle = float(values.median())
            condition = Condition(spec.name, "<=", round(middle) if spec.integer else middle, spec)
        elif spec.kind == "onehot":
            condition = Condition(spec.name, ">", 0.5, spec)  # written "column = value"
        else:
            continue
        return render_rule(Rule((condition,), label))
    return f"IF x <= 1 THEN CLASS={render_label(label)}"


def evaluate_rule_text(text: str, dataset: Dataset, *, complexity_budget=None, error_budget=None,
                       eps: float = 1.0, holdout: tuple | None = None, ripper_class=None) -> RuleSetReport:
    """Evaluate a rule file against the data; raises ValueError with a readable message.

    ``dataset`` holds the rows the totals count (the training rows when some are held out);
    ``holdout`` = (X_test, y_test) adds the same metrics on the held-out rows.  A RIPPER rule
    list (:func:`is_ripper_text`) predicts ``ripper_class``, its positive class; the rows its
    rules leave get the other class of a two-class table (else the most frequent one).
    """
    if not text.strip():
        raise ValueError("The rule file is empty.")
    fallback = None
    if is_ripper_text(text):
        if ripper_class is None:
            raise ValueError("This is a RIPPER rule list: choose the class its rules predict.")
        parsed = parse_ripper(text, ripper_class)
        others = [c for c in dataset.classes if str(c) != str(ripper_class)]
        fallback = others[0] if len(others) == 1 else None
    else:
        parsed = parse_rules(text)
    if not parsed:
        raise ValueError("The file holds no rules (expected lines like 'IF x <= 1 THEN CLASS=a').")
    try:
        rules = rules_for_data(parsed, dataset.feature_specs, dataset.classes)
    except KeyError as exc:  # an unknown feature: say which, as for any other bad file
        raise ValueError(exc.args[0]) from None
    return evaluate_rules(
        rules,
        dataset.X,
        dataset.y,
        eps=eps,
        complexity_budget=complexity_budget,
        error_budget=error_budget,
        fallback=fallback,
        feature_specs=dataset.feature_specs,
        X_test=holdout[0] if holdout is not None else None,
        y_test=holdout[1] if holdout is not None else None,
        fingerprint=dataset.fingerprint,
    )


def evaluation_rows(dataset: Dataset, split) -> tuple[Dataset, tuple | None, str]:
    """The rows an uploaded rule file is evaluated on, as the Explain page's result was: (rows the totals
    count, held-out rows or None, what they are in words)."""
    if split is None or split.X_test is None:
        return dataset, None, f"all {dataset.n_rows} rows of the data"
    return split.train, (split.X_test, split.y_test), (
        f"the {split.train.n_rows} training rows (as the Explain page's result), and beside them the "
        f"{len(split.y_test)} held-out rows ({100 * split.fraction:g} %)")


def decode_text(data: bytes) -> str:
    for enc in ("utf-8-sig", "utf-16"):
        try:
            text = data.decode(enc)
        except UnicodeDecodeError:
            continue
        if "\x00" not in text:
            return text
    raise ValueError("The rule file is not UTF-8 text.")


RULE_COLUMNS = ["rule", "IF-THEN", "class", "length", "support", "correct", "errors", "precision",
                "conflicts", "conflicts with", "rows via missing", "in conflict"]

#: what the "rows via missing" column counts
MISSING_HELP = ("Rows the rule takes through a missing value: a condition such as 'x != a' or 'x not in {a, b}' "
                "holds on a row where x is missing. Inspect the rule below to see which condition.")


def rules_table(report: RuleSetReport) -> pd.DataFrame:
    frame = report.rules_frame()
    if frame.empty:
        return pd.DataFrame(columns=RULE_COLUMNS)
    frame = frame.rename(columns={"text": "IF-THEN", "missing_rows": "rows via missing",
                                  "conflicts_with": "conflicts with"})
    frame["class"] = frame["class"].map(str)
    frame["in conflict"] = frame["conflicts"] > 0
    return frame[RULE_COLUMNS]


#: up to this many rules, a rules table is shaded (a pandas Styler costs the page per cell)
STYLED_RULES = 1000


def rules_view(table: pd.DataFrame):
    """The rules table as st.dataframe shows it: the rules in conflict shaded red (a Styler; values stay
    plain text, never Markdown), or the plain table when it is too long to shade."""
    if len(table) > STYLED_RULES:
        return table

    def highlight(row):
        colour = "background-color: rgba(228, 87, 86, 0.18)" if row.get("in conflict") else ""
        return [colour] * len(row)

    return table.style.apply(highlight, axis=1).format({"precision": "{:.3f}"})


#: how st.dataframe shows the columns of :func:`rules_table`
RULE_COLUMN_WIDTHS: dict[str, Literal["small", "medium", "large"]] = {"rule": "small", "IF-THEN": "large", "class": "small", "conflicts with": "small"}


def run_name(task) -> str:
    """A Compare run as the page names it: ``QGA (seed 2)``."""
    return label(task.algorithm) + ("" if task.seed is None else f" (seed {task.seed})")


def skipped_runs(job) -> list[str]:
    """The names of a Compare job's runs that never ran (a stop skips the runs after the running one)."""
    return [run_name(t) for t, ex, err in zip(job.tasks, job.explanations, job.errors, strict=True)
            if ex is None and not err]


def comparison_frame(job, n_rows: int) -> pd.DataFrame:
    """One row per run of a Compare job that ran (or failed), with each run's gap to a proven optimum when there
    is one; the runs a stop skipped are not in it (:func:`skipped_runs`)."""
    rows = []
    exact_cov = None
    for task, ex in zip(job.tasks, job.explanations, strict=True):
        if ex is not None and task.algorithm == "exact" and ex.result.status == "optimal":
            exact_cov = max(exact_cov or 0.0, ex.result.coverage)
    for task, ex, err in zip(job.tasks, job.explanations, job.errors, strict=True):
        name = run_name(task)
        if ex is None:
            if err:  # a run that was skipped (after a stop) is listed apart: it has no figures to show
                rows.append({"run": name, "status": "failed", "message": err})
            continue
        r = ex.result
        row = {
            "run": name,
            "algorithm": task.algorithm,
            "seed": task.seed,
            "accuracy %": round(100 * ex.report.accuracy, 2),
            "balanced accuracy %": round(100 * ex.report.balanced_accuracy, 2),
            "coverage %": round(100 * r.coverage_score, 2),
            "f*": round(r.coverage, 2),
            "rules": r.n_rules,
            "complexity": r.complexity,
            "errors": r.errors,
            "time (s)": round(r.time_s, 3),
            "generations": len(r.history),
            "status": r.status,
            "message": r.message,
        }
        if exact_cov is not None:
            gap = {
                "gap to optimum (pp)": round(100 * (exact_cov - r.coverage) / n_rows, 2),
                "gap to optimum (% of f*)": round(100 * (exact_cov - r.coverage) / exact_cov, 2) if exact_cov else 0.0,
            }
            keys = list(row)
            at = keys.index("f*") + 1
            row = {k: row[k] for k in keys[:at]} | gap | {k: row[k] for k in keys[at:]}
        rows.append(row)
    return pd.DataFrame(rows)


def result_warnings(result, complexity_budget: int | None, error_budget: float | None, n_rows: int,
                    eps: float) -> list[str]:
    """Plain words for a result an analyst could misread: over the budgets (None: no budget), or a negative f*."""
    out = []
    errors_fit = within_error_budget(result.errors, error_budget, result.total_weight)
    complexity_fits = complexity_budget is None or result.complexity <= complexity_budget
    if not complexity_fits or not errors_fit:
        over = []
        if not complexity_fits:
            over.append(f"{result.complexity} conditions against a budget of {complexity_budget}")
        if not errors_fit:
            over.append(f"{count_text(result.errors)} errors against a budget of {error_budget}")
        who = "ForEx++ ignores the budgets by design: it" if result.algorithm == "forex" else "This selection"
        out.append(f"{who} uses " + " and ".join(over) + ". The rules are shown, but they do not meet the "
                   "budgets; ForEx++ (trimmed) cuts them down to the budgets.")
    if result.coverage < 0:
        out.append(
            f"f* is negative ({result.coverage:.2f}): the rules cover {result.covered} of {n_rows} rows, but "
            f"each of the {result.conflicting_pairs} conflicts (a pair of rules of different classes firing "
            f"on the same row) costs eps = {eps:g}, and together they outweigh the rows covered. A lower eps, "
            "or fewer overlapping rules, gives a positive score."
        )
    return out


def holdout_frame(report) -> pd.DataFrame:
    """Training and held-out rows side by side: rows, covered, coverage, errors, accuracy."""
    rows = [("rows", "n_rows", "{:d}"), ("covered rows", "covered", "{:d}"), ("coverage f*", "coverage_score", "%"),
            ("errors", "errors", "{:d}"), ("accuracy", "accuracy", "%"),
            ("balanced accuracy", "balanced_accuracy", "%"), ("voted right", "vote_accuracy", "%"),
            ("right when covered", "covered_accuracy", "%")]
    columns = {"training rows": report.metrics(), "held-out rows": report.holdout.metrics()}
    return pd.DataFrame(
        {name: [f"{100 * m[key]:.2f} %" if fmt == "%" else fmt.format(int(m[key])) for _, key, fmt in rows]
         for name, m in columns.items()},
        index=[label for label, _, _ in rows],
    )
