"""Which rules of a set fire on which rows, in memory linear in rows and rules.

A rule set read from a file can hold tens of thousands of rules, and every
rule can fire on half the rows: a list of rows per rule, or of conflicting
rules per rule, grows with their product squared.  :class:`RuleCoverage` keeps
one bit per (rule, row) and, per row, how many firing rules name each class.
From those counts every total of the paper's problem follows (covered rows,
conflicting pairs, the vote), and so does each rule's number of conflicts: the
rows it covers, each weighed by the firing rules of another class.  Lists (the
rows of one rule, the rules that conflict with one rule) are built on demand,
for the rules a page shows.
"""

from __future__ import annotations

import numpy as np

UNCOVERED = "(uncovered)"
TIE = "(tie)"

#: rules unpacked at a time when a product over all rules is formed (bounds the memory of one block)
BLOCK_ENTRIES = 1 << 21
#: up to this many rules, a product over their rows unpacks each rule's rows (8 x bytes each) rather than
#: building the byte look-up table (256 x 8 x bytes per column of weights): a report of the few rules of a
#: selection on 130,000 rows spent 0.08 of its 0.23 s on those tables
DIRECT_RULES = 64


class RuleCoverage:
    """The firing rules of every row, as bits, and per-row class counts of the firing rules.

    Parameters
    ----------
    masks : iterable of (N,) boolean arrays, one per rule (read once, in order).
    rule_class : (R,) int class code of each rule.
    y : (N,) int class code of each row.
    n_classes : number of class codes (K).
    """

    def __init__(self, masks, rule_class, y, n_classes: int):
        self.rule_class = np.asarray(rule_class, dtype=np.int64).ravel()
        self.y = np.asarray(y, dtype=np.int64).ravel()
        self.n_rows = len(self.y)
        self.n_rules = len(self.rule_class)
        self.n_classes = int(n_classes)
        self.bits = np.zeros((self.n_rules, (self.n_rows + 7) // 8), dtype=np.uint8)
        #: (K, N): how many firing rules of class k fire on row j
        self.class_counts = np.zeros((self.n_classes, self.n_rows), dtype=np.int32)
        #: rows each rule covers, and of those the rows of its own class
        self.support = np.zeros(self.n_rules, dtype=np.int64)
        self.correct = np.zeros(self.n_rules, dtype=np.int64)
        rows_of_class = np.packbits(np.arange(self.n_classes)[:, None] == self.y[None, :], axis=1)  # (K, N / 8)
        step = max(1, BLOCK_ENTRIES // max(self.n_rows, 1))
        block: list[np.ndarray] = []
        done = 0
        for mask in masks:
            block.append(np.asarray(mask, dtype=bool))
            if len(block) == step:
                done = self._add(done, np.stack(block), rows_of_class)
                block = []
        if block:
            done = self._add(done, np.stack(block), rows_of_class)
        if done != self.n_rules:
            raise ValueError(f"{done} coverage masks for {self.n_rules} rules")

    def _add(self, lo: int, block: np.ndarray, rows_of_class: np.ndarray) -> int:
        """Take in the (B, N) masks of rules lo, lo + 1, ...; returns the next rule's position."""
        hi = lo + len(block)
        if hi > self.n_rules:
            raise ValueError(f"more coverage masks than the {self.n_rules} rules")
        classes = self.rule_class[lo:hi]
        bits = self.bits[lo:hi] = np.packbits(block, axis=1)
        self.support[lo:hi] = _POPCOUNT[bits].sum(axis=1, dtype=np.int64)
        self.correct[lo:hi] = _POPCOUNT[bits & rows_of_class[classes]].sum(axis=1, dtype=np.int64)
        for k in np.unique(classes):
            self.class_counts[k] += block[classes == k].sum(axis=0, dtype=np.int32)
        return hi

    # ------------------------------------------------------------------ per row
    @property
    def total(self) -> np.ndarray:
        """(N,) number of rules firing on each row."""
        return self.class_counts.sum(axis=0)

    @property
    def covered_mask(self) -> np.ndarray:
        return self.total > 0

    def conflicting_pairs(self) -> int:
        """Pairs of firing rules of different classes, summed over the rows: (n^2 - sum_k c_k^2) / 2 per row."""
        counts = self.class_counts.astype(np.int64)
        total = counts.sum(axis=0)
        return int((total * total - (counts * counts).sum(axis=0)).sum()) // 2

    def weighted_totals(self, w: np.ndarray) -> tuple[float, float, float]:
        """(covered weight, weighted conflicting pairs, weight of the rows each rule gets wrong, summed)
        for row weights ``w``: the weighted problem's covered rows, pairs and errors."""
        w = np.asarray(w, dtype=float)
        counts = self.class_counts.astype(np.int64)
        total = counts.sum(axis=0)
        pairs = (total * total - (counts * counts).sum(axis=0)) // 2
        errors = 0.0
        for i in range(self.n_rules):  # one rule's bits at a time: memory linear in rows
            rows = np.unpackbits(self.bits[i], count=self.n_rows).astype(bool)
            errors += float(w[rows & (self.y != self.rule_class[i])].sum())
        return float(w[total > 0].sum()), float(pairs @ w), errors

    def conflicts(self) -> np.ndarray:
        """(R,) per rule: the (other rule, row) incidences where a rule of another class fires on its rows."""
        others = self.total[None, :] - self.class_counts  # (K, N): firing rules of another class than k
        out = np.zeros(self.n_rules, dtype=np.int64)
        for k in range(self.n_classes):
            idx = np.flatnonzero(self.rule_class == k)
            if idx.size:
                out[idx] = self._products(idx, others[k][:, None])[:, 0]
        return out

    def votes(self) -> tuple[np.ndarray, np.ndarray]:
        """(winning class code per row, or -1 when no rule fires, or -2 on a tie; number of firing rules)."""
        return vote_codes(self.class_counts), self.total

    # ------------------------------------------------------------------ lists, on demand
    def rows_of(self, i: int) -> np.ndarray:
        """The rows rule ``i`` fires on."""
        return np.flatnonzero(np.unpackbits(self.bits[i], count=self.n_rows))

    def firing(self, rows) -> np.ndarray:
        """(len(rows), R) boolean: which rules fire on each of ``rows``."""
        rows = np.asarray(rows, dtype=np.int64).ravel()
        byte = self.bits[:, rows >> 3]  # (R, len(rows))
        return ((byte >> (7 - (rows & 7))[None, :]) & 1).astype(bool).T

    def shared_rows(self, i: int) -> np.ndarray:
        """(R,) rows rule ``i`` shares with each rule (itself included)."""
        out = np.zeros(self.n_rules, dtype=np.int64)
        step = max(1, BLOCK_ENTRIES // max(self.bits.shape[1], 1))
        for lo in range(0, self.n_rules, step):
            out[lo : lo + step] = _POPCOUNT[self.bits[lo : lo + step] & self.bits[i]].sum(axis=1, dtype=np.int64)
        return out

    def conflicting_rules(self, i: int) -> list[int]:
        """Rules of another class than rule ``i`` that fire on one of its rows."""
        shared = self.shared_rows(i)
        return np.flatnonzero((shared > 0) & (self.rule_class != self.rule_class[i])).tolist()

    def between(self, i: int, k: int) -> np.ndarray:
        """Rows where rules ``i`` and ``k`` both fire."""
        return np.flatnonzero(np.unpackbits(self.bits[i] & self.bits[k], count=self.n_rows))

    def _products(self, idx: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """(len(idx), W): for each rule of ``idx``, the sum of ``weights`` (N, W) over the rows it covers.

        A few rules (:data:`DIRECT_RULES`) unpack their rows.  More are read from the packed bits without
        unpacking them: per byte position p and each
        of its 256 values, the sum of the weights of the 8 rows that byte stands for,
        then one look-up per (rule, byte).  Exact integers; memory bounded by
        :data:`BLOCK_ENTRIES` per block of rules.
        """
        weights = np.asarray(weights, dtype=np.int64)
        if len(idx) <= DIRECT_RULES:
            out = np.zeros((len(idx), weights.shape[1]), dtype=np.int64)
            for j, i in enumerate(idx):
                out[j] = weights[np.unpackbits(self.bits[i], count=self.n_rows).view(bool)].sum(axis=0)
            return out
        n_bytes = self.bits.shape[1]
        padded = np.zeros((n_bytes * 8, weights.shape[1]), dtype=np.int64)
        padded[: self.n_rows] = weights
        out = np.zeros((len(idx), weights.shape[1]), dtype=np.int64)
        step = max(1, BLOCK_ENTRIES // max(n_bytes, 1))
        positions = np.arange(n_bytes)[None, :]
        for w in range(weights.shape[1]):
            table = padded[:, w].reshape(n_bytes, 8) @ _BYTE_BITS  # (bytes, 256)
            for lo in range(0, len(idx), step):
                out[lo : lo + step, w] = table[positions, self.bits[idx[lo : lo + step]]].sum(axis=1)
        return out


#: the number of bits set in each byte value
_POPCOUNT = np.array([bin(v).count("1") for v in range(256)], dtype=np.uint8)
#: (8, 256): bit b (most significant first, as np.packbits writes) of each byte value
_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).T.astype(np.int64)


def vote_codes(class_counts: np.ndarray) -> np.ndarray:
    """The vote of every row from ``class_counts`` (K, N), how many firing rules name each class: the class
    most of them name, -1 where no rule fires, -2 where classes tie (the one vote of the reports)."""
    counts = np.asarray(class_counts)
    top = counts.max(axis=0, initial=0)
    n_top = (counts == top[None, :]).sum(axis=0)
    winner = counts.argmax(axis=0) if counts.shape[0] else np.zeros(counts.shape[1], dtype=np.int64)
    return np.where(top == 0, -1, np.where(n_top > 1, -2, winner))


def vote_labels(codes: np.ndarray, labels: list) -> np.ndarray:
    """Class codes of :meth:`RuleCoverage.votes` as labels (object array; UNCOVERED / TIE)."""
    out = np.full(len(codes), UNCOVERED, dtype=object)
    out[codes == -2] = TIE
    for k, label in enumerate(labels):
        out[codes == k] = label
    return out
