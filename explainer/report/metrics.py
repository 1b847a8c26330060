"""What one evaluation of a rule set on data holds: :class:`RuleSetReport`, its per-rule
:class:`RuleMetrics`, and its exports (text, JSON, CSV with formula cells neutralised).

Per rule: length, support, correct, errors, precision, conflicts with the other
rules of the set.  Totals: complexity, errors, covered rows, conflicting pairs,
coverage f* and coverage score f*/N, with the paper's definitions (the same
numbers :class:`~explainer.selection.problem.SelectionProblem` gives, which the
tests check).  Each row also gets the class voted by the rules that fire on it
(ties and uncovered rows are reported).  Accuracy is reported beside balanced accuracy (the mean
over the classes present in ``y`` of the share of their rows that get their class: uncovered and
tied rows count as ``predict`` gives them, the fallback class).  With row weights
(``sample_weight``) the report still counts rows, and adds the weighted errors and f* the
selection was bound by.  The report is made by :func:`explainer.report.evaluation.evaluate_rules`.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from explainer.data.labels import encode_labels, label_array, label_key, sorted_labels
from explainer.report.coverage import TIE, UNCOVERED, RuleCoverage
from explainer.report.diagnosis import MissingUse, WrongRows, find_wrong_rows
from explainer.rules.model import Rule, RuleSet
from explainer.rules.render import render_label, render_phrases
from explainer.selection.problem import Evaluation, within_error_budget


@dataclass
class RuleMetrics:
    index: int
    rule: Rule = field(repr=False)
    label: object
    length: int
    support: int
    correct: int
    errors: int
    precision: float
    conflicts: int  # (other rule, row) incidences where another rule of the set predicts another class
    #: the rows it fires on through a missing value, and the conditions that take them
    missing: MissingUse = field(default_factory=MissingUse, repr=False)

    @property
    def missing_rows(self) -> int:
        """Rows the rule fires on where a column one of its conditions reads is missing."""
        return self.missing.rows

    @property
    def missing_text(self) -> str:
        """``takes 1,728 rows through a missing stalk-root``, or "" when no missing value lets it fire."""
        return self.missing.text()

    def missing_conditions(self) -> list[dict]:
        """The conditions that hold through a missing value, one phrase per column: text, column, rows."""
        conditions = self.rule.conditions
        return [{"condition": " AND ".join(render_phrases(Rule(tuple(conditions[k] for k in ks), self.label))),
                 "column": column, "rows": n} for column, n, ks in self.missing.columns]

    @property
    def text(self) -> str:
        """The rule's line, written when asked for: a file of tens of thousands of rules is
        evaluated in full, but only the rules a page shows are ever written out."""
        return self.rule.text

    def to_dict(self) -> dict:
        return {
            "index": self.index,
            "text": self.text,
            "label": _plain(self.label),
            "length": self.length,
            "support": self.support,
            "correct": self.correct,
            "errors": self.errors,
            "precision": self.precision,
            "conflicts": self.conflicts,
            "missing_rows": self.missing_rows,
            "missing_conditions": self.missing_conditions(),
        }


#: up to this many rules, a report lists the rules each one conflicts with (a list costs one pass over every
#: rule's rows, so all of them cost rules squared: a large rule file gets counts only)
LISTED_CONFLICTS = 100


@dataclass
class RuleSetReport:
    rules: RuleSet
    per_rule: list[RuleMetrics]
    n_rows: int
    complexity: int
    errors: int
    covered: int
    conflicting_pairs: int
    coverage: float
    eps: float
    predictions: np.ndarray  # voted label per row, or UNCOVERED / TIE
    y: np.ndarray
    firing: RuleCoverage  # which rules fire on which rows
    complexity_budget: int | None = None
    error_budget: float | None = None  # whole rows, or a weight when the rows are weighted
    test_accuracy: float | None = None
    test_rows: int | None = None
    holdout: RuleSetReport | None = None  # the same rules on held-out rows
    fingerprint: str | None = None
    settings: dict = field(default_factory=dict)
    fallback: object = None  # the class of rows no rule covers, or where classes tie (``ELSE CLASS=...``)
    target: str | None = None  # the name of the class column
    sample_weight: np.ndarray | None = None  # the rows' weights in the selection (None: unweighted)
    #: (covered weight, weighted pairs, weighted errors), when weighted
    weighted: tuple[float, float, float] | None = None
    #: the classes the class codes of :attr:`firing` index (those of ``y`` and of the rules, in class order)
    classes: list | None = None
    #: :meth:`conflicts_with`'s lists, made once (the page's table, the CSV and the JSON all read them)
    _conflicts: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def n_rules(self) -> int:
        return len(self.rules)

    @property
    def evaluation(self) -> Evaluation:
        """The totals as a selection's :class:`~explainer.selection.problem.Evaluation` (rows counted, not
        weighed; feasible: within the budgets, or no budgets given)."""
        return Evaluation(
            coverage=self.coverage, covered=self.covered, conflicting_pairs=self.conflicting_pairs,
            complexity=self.complexity, errors=self.errors, feasible=self.within_budgets is not False,
            n_rules=self.n_rules, n_rows=self.n_rows,
        )

    def __repr__(self) -> str:
        held = f", held-out rows={self.holdout.n_rows}" if self.holdout is not None else ""
        return (f"RuleSetReport(rules={self.n_rules}, rows={self.n_rows}, coverage={100 * self.coverage_score:.2f}%, "
                f"complexity={self.complexity}, errors={self.errors}{held})")

    def metrics(self) -> dict:
        """The totals (no per-rule detail): what the held-out check reports beside the training rows."""
        return {
            "n_rows": self.n_rows,
            **self.evaluation.to_dict(),
            "uncovered_rows": self.n_uncovered,
            "tied_rows": self.n_ties,
            "vote_accuracy": self.vote_accuracy,
            "covered_accuracy": self.covered_accuracy,
            "accuracy": self.accuracy,
            "balanced_accuracy": self.balanced_accuracy,
            "fallback_right": self.fallback_right,
        }

    def __getstate__(self) -> dict:
        # the class codes below are kept to be read again in this process, not to travel with the report
        return {k: v for k, v in self.__dict__.items() if k != "_codes"}

    def _label_codes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(class code of each row's label, of its vote, of the class it gets): the codes of :attr:`classes`,
        -1 for no vote or a tie, -3 for a fallback that is no class here.  Made once per report and fallback
        class: a page reads several accuracies at every redraw."""
        memo = self.__dict__.get("_codes")
        key = label_key(self.fallback)
        if memo is None or memo[0] is not self.firing or memo[1] != key:
            classes = self.classes if self.classes is not None else sorted_labels(self.y)
            keys = [label_key(c) for c in classes]
            fallback = keys.index(key) if key in keys else -3
            votes = self.firing.votes()[0]
            voted = np.where(votes >= 0, votes, -1)
            memo = (self.firing, key, self.firing.y, voted, np.where(votes >= 0, votes, fallback))
            self.__dict__["_codes"] = memo
        return memo[2], memo[3], memo[4]

    @property
    def predicted(self) -> np.ndarray:
        """The class each row gets: the vote of the rules that fire, else (uncovered, tied) the fallback."""
        out = self.predictions.copy()
        out[(out == UNCOVERED) | (out == TIE)] = self.fallback
        return out

    @property
    def accuracy(self) -> float:
        """Share of all rows that get the right class (the vote, else the fallback): ``predict``'s accuracy."""
        y, _, predicted = self._label_codes()
        return float(np.mean(predicted == y)) if self.n_rows else 0.0

    @property
    def balanced_accuracy(self) -> float:
        """Mean over the classes present in ``y`` of the share of their rows that get their class (the vote,
        else the fallback, as :attr:`accuracy` counts them): macro recall, scikit-learn's
        ``balanced_accuracy_score`` of :attr:`predicted`."""
        y, _, predicted = self._label_codes()
        return balanced_accuracy_of_codes(y, predicted)

    def _total_weight(self) -> float:
        """The rows' summed weight (each row weighs 1 when unweighted)."""
        return float(self.n_rows if self.sample_weight is None else np.sum(self.sample_weight))

    @property
    def weighted_errors(self) -> float | None:
        """The weight of the rows each rule gets wrong, summed (what the error budget bounds when weighted)."""
        return None if self.weighted is None else self.weighted[2]

    @property
    def weighted_coverage(self) -> float | None:
        """f* with the rows' weights: covered weight - eps x weighted conflicting pairs."""
        return None if self.weighted is None else self.weighted[0] - self.eps * self.weighted[1]

    @property
    def fallback_right(self) -> int:
        """Uncovered and tied rows whose true class is the fallback."""
        left = (self.predictions == UNCOVERED) | (self.predictions == TIE)
        y, _, predicted = self._label_codes()
        return int(np.count_nonzero(y[left] == predicted[left]))

    @property
    def else_text(self) -> str:
        """``ELSE CLASS=<fallback>``: the last line of the rules wherever they are listed."""
        return f"ELSE CLASS={render_label(self.fallback)}"

    def rules_text(self) -> str:
        """The rules, one a line, and the fallback as the last line ``ELSE CLASS=...``."""
        return self.rules.to_text(fallback=self.fallback)

    @property
    def covered_accuracy(self) -> float:
        """Share of the covered rows whose voted class is right (ties count as wrong)."""
        covered = self.predictions != UNCOVERED
        if not covered.any():
            return 0.0
        y, votes, _ = self._label_codes()
        return float(np.mean(votes[covered] == y[covered]))

    @property
    def coverage_score(self) -> float:
        return self.coverage / self.n_rows if self.n_rows else 0.0

    @property
    def n_uncovered(self) -> int:
        return int(np.count_nonzero(self.predictions == UNCOVERED))

    @property
    def n_ties(self) -> int:
        return int(np.count_nonzero(self.predictions == TIE))

    @property
    def vote_accuracy(self) -> float:
        """Share of all rows whose voted class is right (uncovered and ties count as wrong)."""
        y, votes, _ = self._label_codes()
        return float(np.mean(votes == y)) if self.n_rows else 0.0

    @property
    def within_budgets(self) -> bool | None:
        if self.complexity_budget is None and self.error_budget is None:
            return None
        ok_c = self.complexity_budget is None or self.complexity <= self.complexity_budget
        if self.weighted is None:
            ok_e = within_error_budget(self.errors, self.error_budget)
        else:  # the budget bounds a weight
            ok_e = within_error_budget(self.weighted_errors, self.error_budget, self._total_weight())
        return ok_c and ok_e

    def uncovered_rows(self) -> np.ndarray:
        return np.flatnonzero(~self.firing.covered_mask)

    def rows_covered_by(self, i: int) -> np.ndarray:
        """The rows rule ``i`` fires on."""
        return self.firing.rows_of(i)

    def conflicting_rules(self, i: int) -> list[int]:
        """The rules of another class that fire on some row rule ``i`` fires on (built on demand)."""
        return self.firing.conflicting_rules(i)

    def conflicts_with(self, i: int) -> list[int] | None:
        """The numbers (from 1, as the rules are listed) of the rules that conflict with rule ``i``; None when the
        set is too large for the lists (:data:`LISTED_CONFLICTS`)."""
        if self.n_rules > LISTED_CONFLICTS:
            return None
        if i not in self._conflicts:
            self._conflicts[i] = [k + 1 for k in self.conflicting_rules(i)] if self.per_rule[i].conflicts else []
        return list(self._conflicts[i])

    def conflicts_between(self, i: int, k: int) -> np.ndarray:
        """Rows where rules i and k both fire with different classes."""
        if self.firing.rule_class[i] == self.firing.rule_class[k]:
            return np.zeros(0, dtype=int)
        return self.firing.between(i, k)

    def wrong_rows(self) -> WrongRows:
        """The rows that get another class than theirs (the vote, else the fallback: the rows
        :attr:`accuracy` counts wrong), each with its reason and the firing rules of another class."""
        _, _, predicted = self._label_codes()
        return find_wrong_rows(self.firing, predicted)

    def wrong_counts(self) -> dict[str, int]:
        """Wrong rows per reason (:data:`~explainer.report.diagnosis.REASONS`) and their ``total``."""
        counts = self.wrong_rows().counts()
        return {**counts, "total": sum(counts.values())}

    def per_class(self) -> pd.DataFrame:
        """Per true class: rows, rows covered, rows right (the vote, else the fallback, as :attr:`accuracy`
        counts them) and of those the rows the fallback gets right."""
        y, _, predicted = self._label_codes()
        classes = self.classes if self.classes is not None else sorted_labels(self.y)
        covered = self.firing.covered_mask
        right = predicted == y
        left = self.firing.votes()[0] < 0  # uncovered or tied: the fallback's rows
        rows = []
        for code in np.unique(y):
            m = y == code
            rows.append(
                {
                    "class": classes[code],
                    "rows": int(m.sum()),
                    "covered": int((covered & m).sum()),
                    "covered_pct": 100.0 * float((covered & m).sum()) / max(1, int(m.sum())),
                    "right": int((right & m).sum()),
                    "by_fallback": int((right & left & m).sum()),
                }
            )
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        out = {
            "n_rows": self.n_rows,
            **self.evaluation.to_dict(),
            "eps": self.eps,
            "uncovered_rows": self.n_uncovered,
            "tied_rows": self.n_ties,
            "vote_accuracy": self.vote_accuracy,
            "accuracy": self.accuracy,
            "balanced_accuracy": self.balanced_accuracy,
            "fallback_class": _plain(self.fallback),
            "else_text": self.else_text,
            "fallback_right": self.fallback_right,
            "wrong_rows": self.wrong_counts(),
            "target": self.target,
            "complexity_budget": self.complexity_budget,
            "error_budget": self.error_budget,
            "within_budgets": self.within_budgets,
            "rules": [{**m.to_dict(), "conflicts_with": self.conflicts_with(m.index)} for m in self.per_rule],
        }
        if self.weighted is not None:
            out["weighted_errors"] = self.weighted_errors
            out["weighted_coverage"] = self.weighted_coverage
            out["total_weight"] = self._total_weight()
        if self.test_accuracy is not None:
            out["test_accuracy"] = self.test_accuracy
            out["test_rows"] = self.test_rows
        if self.holdout is not None:
            out["training"] = self.metrics()
            out["holdout"] = self.holdout.metrics()
        if self.fingerprint is not None:
            out["data_fingerprint"] = self.fingerprint
        if self.settings:
            out["settings"] = self.settings
        return out

    def to_json(self, **extra) -> str:
        d = self.to_dict()
        d["rules_text"] = self.rules_text()  # with its ELSE line, as the text export
        d.update(extra)
        return json.dumps(d, indent=2, default=_plain)

    def summary_lines(self) -> list[str]:
        """Accuracy and coverage first, each saying what it counts, and the class column."""
        n, covered, pct = self.n_rows, self.n_rows - self.n_uncovered, _percent
        right = int(round(self.accuracy * n))
        voted = int(round(self.vote_accuracy * n))
        fallback = render_label(self.fallback)
        return [
            f"target column:      {self.target if self.target is not None else '(not named)'}",
            f"accuracy:           {pct(right, n)} ({right} of {n} rows get their true class: the vote of the "
            f"rules that fire, else {fallback})",
            f"balanced accuracy:  {100 * self.balanced_accuracy:.2f}% (the mean over the classes of the share "
            f"of their rows right)",
            f"  voted right:      {voted} of {covered - self.n_ties} rows with a majority among the rules",
            f"  uncovered rows:   {self.n_uncovered} (no rule fires; they get {fallback})",
            f"  tied rows:        {self.n_ties} (classes tie among the rules; they get {fallback})",
            f"  by the fallback:  {self.fallback_right} of those {self.n_uncovered + self.n_ties} right",
            f"  wrong rows:       {n - right} (" + ", ".join(f"{k} {r}" for r, k in self.wrong_rows().counts().items())
            + ")",
            f"coverage:           {pct(covered, n)} ({covered} of {n} rows fire at least one rule, right or wrong)",
        ]

    def to_text(self) -> str:
        lines = [self.rules_text().rstrip("\n"), ""]
        cb = f" / {self.complexity_budget}" if self.complexity_budget is not None else ""
        eb = f" / {self.error_budget}" if self.error_budget is not None else ""
        lines += self.summary_lines() + [""]
        lines += [
            f"rules:              {self.n_rules}",
            f"complexity:         {self.complexity}{cb}",
            f"errors:             {self.errors}{'' if self.weighted is not None else eb}",
            f"covered rows:       {self.covered} / {self.n_rows}",
            f"conflicting pairs:  {self.conflicting_pairs}",
            f"coverage f*:        {self.coverage:g} ({100 * self.coverage_score:.2f}%, eps={self.eps:g})",
        ]
        f_w = self.weighted_coverage
        if f_w is not None:
            total = self._total_weight()
            lines += [
                f"weighted errors:    {self.weighted_errors:.4g}{eb} (the weight of the rows the rules get wrong)",
                f"weighted f*:        {f_w:.4g} ({100 * f_w / total if total else 0.0:.2f}% of the weight "
                f"{total:.4g})",
            ]
        if self.holdout is not None:
            lines += ["", self.holdout_text()]
        return "\n".join(lines) + "\n"

    def holdout_text(self) -> str:
        """Training and held-out rows side by side."""
        if self.holdout is None:
            raise ValueError("this report has no held-out rows")
        tr, ho = self.metrics(), self.holdout.metrics()
        rows = [
            ("rows", "n_rows", "{:d}"),
            ("covered rows", "covered", "{:d}"),
            ("coverage f*", "coverage_score", "pct"),
            ("errors", "errors", "{:d}"),
            ("conflicting pairs", "conflicting_pairs", "{:d}"),
            ("accuracy", "accuracy", "pct"),
            ("balanced accuracy", "balanced_accuracy", "pct"),
            ("voted right", "vote_accuracy", "pct"),
            ("right when covered", "covered_accuracy", "pct"),
        ]
        out = [f"{'':20s}{'training':>12s}{'held-out':>12s}"]
        for label, key, fmt in rows:
            cells = [f"{100 * d[key]:.2f}%" if fmt == "pct" else fmt.format(d[key]) for d in (tr, ho)]
            out.append(f"{label + ':':20s}{cells[0]:>12s}{cells[1]:>12s}")
        return "\n".join(out)

    def rules_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            [
                {
                    "rule": m.index + 1,
                    "text": m.text,
                    "class": m.label,
                    "length": m.length,
                    "support": m.support,
                    "correct": m.correct,
                    "errors": m.errors,
                    "precision": round(m.precision, 4),
                    "conflicts": m.conflicts,
                    "conflicts_with": ", ".join(map(str, self.conflicts_with(m.index) or [])),
                    "missing_rows": m.missing_rows,
                    "missing_via": "; ".join(f"{c['condition']} ({c['rows']})" for c in m.missing_conditions()),
                }
                for m in self.per_rule
            ]
        )

    def to_csv(self, quote_text: bool = False) -> str:
        """The rules' metrics, and a last row ``ELSE``: the fallback class and the rows it is given.
        ``quote_text`` quotes every text cell, so a reader that skips ``#`` comment lines (the export's
        header) never cuts a rule at a ``#`` inside it."""
        frame = self.rules_frame()
        left = (self.predictions == UNCOVERED) | (self.predictions == TIE)
        n_left = int(np.count_nonzero(left))
        else_row = {
            "rule": "ELSE", "text": self.else_text, "class": self.fallback,
            "length": 0, "support": n_left, "correct": self.fallback_right, "errors": n_left - self.fallback_right,
            "precision": round(self.fallback_right / n_left, 4) if n_left else 0.0, "conflicts": 0, "conflicts_with": "", "missing_rows": 0, "missing_via": "",
        }
        return frame_to_safe_csv(pd.concat([frame, pd.DataFrame([else_row])], ignore_index=True), quote_text)


def balanced_accuracy(y_true, y_pred) -> float:
    """Mean over the classes present in ``y_true`` of the share of their rows predicted as that class
    (labels as :mod:`explainer.data.labels` reads them: 1 and "1" are two classes; 0.0 without rows)."""
    t = label_array(y_true)
    if not t.size:
        return 0.0
    p = label_array(y_pred)
    classes = sorted_labels(label_array(list(sorted_labels(t)) + list(sorted_labels(p))))
    return balanced_accuracy_of_codes(encode_labels(t, classes)[0], encode_labels(p, classes)[0])


def balanced_accuracy_of_codes(t: np.ndarray, p: np.ndarray) -> float:
    """Mean over the class codes present in ``t`` of the share of their rows whose code in ``p`` is theirs."""
    if not t.size:
        return 0.0
    right = t == p
    labels, codes = np.unique(t, return_inverse=True)
    recalls = np.bincount(codes, weights=right, minlength=len(labels)) / np.bincount(codes, minlength=len(labels))
    return float(np.mean(recalls))


def _percent(k: int, m: int) -> str:
    return f"{100 * k / m:.2f}%" if m else "n/a"


def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "|")


def neutralise_cell(value):
    """Make a text cell inert in spreadsheets (CSV/formula injection)."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def csv_comment_line(text: str) -> str:
    """``# text`` as a CSV comment line that stays inert in a spreadsheet, which splits it at its commas:
    a piece that would start a cell with a formula character gets a ``'`` before that character."""
    pieces = text.split(",")
    for k, piece in enumerate(pieces[1:], start=1):
        body = piece.lstrip(" ")
        if body.startswith(_FORMULA_START):
            pieces[k] = piece[: len(piece) - len(body)] + "'" + body
    return "# " + ",".join(pieces) + "\n"


def frame_to_safe_csv(frame: pd.DataFrame, quote_text: bool = False) -> str:
    """``frame`` as CSV with every text cell inert in a spreadsheet (:func:`neutralise_cell`); ``quote_text``
    quotes every text cell, not only those holding a comma, a quote or a line break."""
    safe = frame.copy()
    safe.columns = [neutralise_cell(str(c)) for c in safe.columns]
    for col in safe.columns:
        if safe[col].dtype == object or pd.api.types.is_string_dtype(safe[col]):
            safe[col] = safe[col].map(neutralise_cell)
    buf = io.StringIO()
    safe.to_csv(buf, index=False, quoting=csv.QUOTE_NONNUMERIC if quote_text else csv.QUOTE_MINIMAL)
    return buf.getvalue()
