"""Compiled counts over the coverage matrix that the move scorer gathers: one pass over the nonzeros.

Each count here used to be a sparse product (an indicator matrix times the
coverage, or the coverage times a few 0/1 columns) or a ``np.bincount`` over
index arrays built per call.  On a large table (tens of thousands of rows,
millions of nonzeros) the products' float conversions, temporaries and
output allocations cost several times the pass itself; the loops here visit
each nonzero once and add integers.  Every entry is an integer count, so the
numbers are exactly those of the products they replace.  Weighted (``w``: the rows'
weights), a row adds its weight where it added 1 (:func:`explainer.selection.loops._weight`).

Compiled by numba on first use and cached beside this file.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from explainer.selection.loops import _weight


@njit(cache=True, nogil=True)
def rules_per_row_set(row_sets, rows, n_sets, r_ptr, r_idx, n_rules, w=None):
    """n_sets x M: entry (s, b) = #i with ``row_sets[i] == s`` whose row ``rows[i]`` rule b covers.

    ``r_ptr``/``r_idx``: the coverage as CSR (the rules of row j are ``r_idx[r_ptr[j]:r_ptr[j+1]]``).
    """
    out = np.zeros((n_sets, n_rules))
    for i in range(rows.size):
        j = rows[i]
        s = row_sets[i]
        wj = _weight(w, j)
        for p in range(r_ptr[j], r_ptr[j + 1]):
            out[s, r_idx[p]] += wj
    return out


@njit(cache=True, nogil=True)
def owners_per_column(owner, cols, n_sets, indptr, indices, w=None):
    """n_sets x |cols|: entry (s, j) = #rows of rule ``cols[j]`` whose ``owner`` is s (-1: none)."""
    out = np.zeros((n_sets, cols.size))
    for j in range(cols.size):
        b = cols[j]
        for p in range(indptr[b], indptr[b + 1]):
            o = owner[indices[p]]
            if o >= 0:
                out[o, j] += _weight(w, indices[p])
    return out


@njit(cache=True, nogil=True)
def zero_one_sums(total, r_ptr, r_idx, n_rules, w=None):
    """Per rule b: (#rows of b covered 0 times, #rows of b covered once).

    Row by row over the coverage as CSR (``r_ptr``/``r_idx``), skipping the rows covered twice or
    more: half the time of the rule-by-rule pass, whose reads of ``total`` jump across the rows.
    """
    X0 = np.zeros(n_rules)
    X1 = np.zeros(n_rules)
    for j in range(total.size):
        t = total[j]
        if t == 0:
            wj = _weight(w, j)
            for p in range(r_ptr[j], r_ptr[j + 1]):
                X0[r_idx[p]] += wj
        elif t == 1:
            wj = _weight(w, j)
            for p in range(r_ptr[j], r_ptr[j + 1]):
                X1[r_idx[p]] += wj
    return X0, X1


@njit(cache=True, nogil=True)
def count_sums(total, per_class, rule_class, r_ptr, r_idx, n_rules, w=None):
    """Per rule b: (rows covered 0 times, covered once, rules firing, rules of b's class firing),
    summed over b's rows: the sums ``C' [z0 z1 n c_own]`` of the move scorer.  Row by row over
    the coverage as CSR, like :func:`zero_one_sums`."""
    X0 = np.zeros(n_rules)
    X1 = np.zeros(n_rules)
    Xt = np.zeros(n_rules)
    Xo = np.zeros(n_rules)
    for j in range(total.size):
        t = total[j]
        wj = _weight(w, j)
        for p in range(r_ptr[j], r_ptr[j + 1]):
            b = r_idx[p]
            if t == 0:
                X0[b] += wj
            elif t == 1:
                X1[b] += wj
            Xt[b] += t * wj
            Xo[b] += per_class[j, rule_class[b]] * wj
    return X0, X1, Xt, Xo


__all__ = ["count_sums", "owners_per_column", "rules_per_row_set", "zero_one_sums"]


@njit(cache=True, nogil=True)
def rule_errors(indptr, indices, y, rule_class, w=None):
    """Per rule (a column of the coverage as CSC): (the rows it covers whose class is not its own, all
    the rows it covers), each row counting its weight (1 unweighted).  One pass in the nonzeros' order,
    so the float sums are those of ``np.bincount`` over the same entries."""
    n_rules = indptr.size - 1
    wrong = np.zeros(n_rules)
    rows = np.zeros(n_rules)
    for i in range(n_rules):
        c = rule_class[i]
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            wj = _weight(w, j)
            rows[i] += wj
            if y[j] != c:
                wrong[i] += wj
    return wrong, rows
