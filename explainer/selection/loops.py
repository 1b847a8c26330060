"""Compiled loops of the hot paths: a selection's per-row counts and the scores of the local moves.

A climb flips a rule in a few microseconds' worth of arithmetic on the rows
it covers, and scores every 1-for-1 swap at each add/drop optimum.  In NumPy
each of those is a handful of calls on small arrays (a flip) or a dozen
whole-matrix passes over |S| x |candidate columns| pairs, each allocating its
temporary (a swap scoring), and the call overhead was most of a run.  The
loops here visit each row or pair once.  Every quantity is an integer count
(held in float64 where the scorer's sums are), so the numbers are exactly
those of the vectorised formulas they replaced.

Row weights: every loop that sums over rows takes ``w``, the problem's row weights or ``None``.
numba compiles a version per argument type and prunes the ``w is None`` branch of
:func:`_weight`, so the unweighted loops are the integer loops they were; weighted, a row adds
its weight where it added 1.

Compiled by numba on first use and cached beside this file.
"""

from __future__ import annotations

import numpy as np
from numba import njit


# ------------------------------------------------------------ selection counts
@njit(cache=True, nogil=True)
def _weight(w, row):
    """What row ``row`` counts: 1 unweighted (``w`` None: an integer), else its weight."""
    if w is None:
        return 1
    return w[row]


@njit(cache=True, nogil=True)
def _zero(w):
    """The zero a row sum starts from: an integer unweighted, a float weighted."""
    if w is None:
        return 0
    return 0.0


@njit(cache=True, nogil=True)
def rule_delta(i, selected, indptr, indices, k, total, per_class, w=None):
    """(change in covered rows, change in conflicting pairs) if rule i (of class k) were flipped
    (weighted by the rows' weights ``w`` unless ``None``)."""
    dc = _zero(w)
    dp = _zero(w)
    for p in range(indptr[i], indptr[i + 1]):
        row = indices[p]
        n = total[row]
        other = n - per_class[row, k]  # rules of another class firing on the row
        wr = _weight(w, row)
        if selected:
            dc -= wr * (n == 1)
            dp -= wr * other
        else:
            dc += wr * (n == 0)
            dp += wr * other
    return dc, dp


@njit(cache=True, nogil=True)
def flip_rule(i, selected, indptr, indices, k, total, per_class, w=None):
    """Flip rule i (of class k) in the per-row counts, in place; returns :func:`rule_delta` before the flip."""
    dc, dp = rule_delta(i, selected, indptr, indices, k, total, per_class, w)
    sign = -1 if selected else 1
    for p in range(indptr[i], indptr[i + 1]):
        row = indices[p]
        total[row] += sign
        per_class[row, k] += sign
    return dc, dp


@njit(cache=True, nogil=True)
def first_fit_adds(order, r, indptr, indices, rule_class, lengths, errors, slack_l, slack_e, eps, total, per_class,
                   w=None):
    """Add, in ``order``, each unselected rule that fits the slack of both budgets and raises f*.

    Updates ``r`` and the counts in place; returns (rules checked, covered rows, conflicting pairs,
    complexity, errors) gained.
    """
    checks = 0
    covered = _zero(w)
    pairs = _zero(w)
    used_l = 0
    used_e = errors[:0].sum()
    for i in order:
        if r[i] or lengths[i] > slack_l - used_l or errors[i] > slack_e - used_e:
            continue
        checks += 1
        k = rule_class[i]
        dc, dp = rule_delta(i, False, indptr, indices, k, total, per_class, w)
        if dc - eps * dp > 0:
            flip_rule(i, False, indptr, indices, k, total, per_class, w)
            r[i] = True
            covered += dc
            pairs += dp
            used_l += lengths[i]
            used_e += errors[i]
    return checks, covered, pairs, used_l, used_e


@njit(cache=True, nogil=True)
def move_gains(vid, rules, n, r, total, per_class, indptr, indices, rule_class, eps, w=None, y=None, fallback=-1):
    """f* change of ``n`` moves, move ``vid[t]`` flipping rule ``rules[t]`` (each rule once per move).

    Per move, the firing counts of the rows its rules cover are updated in a
    scratch copy and the change of covered rows and conflicting pairs summed
    over those rows: O(rows covered by the flipped rules x classes).  With the rows' classes ``y``
    (the accuracy objective, :mod:`explainer.selection.objectives`), rows right take the place of rows
    covered, an uncovered row right when its class is ``fallback``.
    """
    N, K = per_class.shape
    d_cov = np.zeros(n, np.int64) + _zero(w)  # int64 unweighted, float64 weighted
    d_pairs = np.zeros(n, np.int64) + _zero(w)
    dt = np.zeros(N, np.int64)
    dpc = np.zeros((N, K), np.int64)
    seen = np.zeros(N, np.bool_)
    touched = np.empty(N, np.int64)
    order = np.argsort(vid, kind="mergesort")
    t = 0
    while t < order.size:
        v = vid[order[t]]
        m = 0
        while t < order.size and vid[order[t]] == v:
            i = rules[order[t]]
            sign = -1 if r[i] else 1
            c = rule_class[i]
            for p in range(indptr[i], indptr[i + 1]):
                row = indices[p]
                if not seen[row]:
                    seen[row] = True
                    touched[m] = row
                    m += 1
                dt[row] += sign
                dpc[row, c] += sign
            t += 1
        for q in range(m):
            row = touched[q]
            t_old = total[row]
            t_new = t_old + dt[row]
            wr = _weight(w, row)
            if y is None:
                d_cov[v] += wr * ((t_new > 0) - (t_old > 0))
            else:
                yr = y[row]
                own_old = per_class[row, yr]
                own_new = own_old + dpc[row, yr]
                d_cov[v] += wr * (np.int64(_right(t_new, own_new, yr, fallback))
                                  - np.int64(_right(t_old, own_old, yr, fallback)))
            sq_old = 0
            sq_new = 0
            for c in range(K):
                old = per_class[row, c]
                new = old + dpc[row, c]
                sq_old += old * old
                sq_new += new * new
                dpc[row, c] = 0
            d_pairs[v] += wr * (((t_new * t_new - sq_new) - (t_old * t_old - sq_old)) // 2)
            dt[row] = 0
            seen[row] = False
    out = np.empty(n)
    for v in range(n):
        out[v] = float(d_cov[v]) - eps * float(d_pairs[v])
    return out


@njit(cache=True, nogil=True)
def lazy_greedy_adds(cand, key, limit, batch0, r, total, per_class, indptr, indices, rule_class, lengths, errors,
                     slack_l, slack_e, eps, cost, tol, w=None):
    """Up to ``limit`` best adds among ``cand`` by the lazy greedy, applied in place (see
    :func:`explainer.selection.solvers.local_search.lazy_adds`).

    ``key``: stale upper bounds of gain - cost per candidate.  The candidate whose exact key is at
    least every other stale bound is the best add (ties to the lower position); exact keys are
    computed ``batch`` at a time, highest stale bound first, the batch doubling while none of them
    is the best.  Returns (adds, covered rows, conflicting pairs, complexity, errors) gained.
    """
    n = cand.size
    key = key.copy()
    alive = np.ones(n, np.bool_)
    fresh = np.zeros(n, np.bool_)
    stale = np.empty(n, np.int64)
    done, batch = 0, batch0
    covered, pairs, used_l = _zero(w), _zero(w), 0
    used_e = errors[:0].sum()
    while done < limit:
        # budgets only shrink while adding: a candidate that does not fit now never will
        best, kb, top, kt, n_stale = -1, -np.inf, -1, -np.inf, 0
        for t in range(n):
            if not alive[t]:
                continue
            i = cand[t]
            if lengths[i] > slack_l - used_l or errors[i] > slack_e - used_e:
                alive[t] = False
            elif fresh[t]:
                if key[t] > kb:
                    best, kb = t, key[t]
            else:
                stale[n_stale] = t
                n_stale += 1
                if key[t] > kt:
                    top, kt = t, key[t]
        if best < 0 and top < 0:
            break
        if best >= 0 and (top < 0 or kb > kt + 1e-12 or (kb >= kt - 1e-12 and best < top)):
            i = cand[best]
            dc, dp = flip_rule(i, False, indptr, indices, rule_class[i], total, per_class, w)
            r[i] = True
            covered += dc
            pairs += dp
            used_l += lengths[i]
            used_e += errors[i]
            alive[best] = False
            fresh[:] = False
            done += 1
            batch = batch0
            continue
        if top < 0:
            break
        # make the next few highest stale bounds exact
        pick = stale[:n_stale]
        if n_stale > batch:  # the batch largest (ties: the lower positions), in O(n_stale)
            vals = key[pick]
            thr = np.partition(vals, n_stale - batch)[n_stale - batch]
            top_b = np.empty(batch, np.int64)
            m = 0
            for q in range(n_stale):
                if vals[q] > thr:
                    top_b[m] = pick[q]
                    m += 1
            for q in range(n_stale):
                if m < batch and vals[q] == thr:
                    top_b[m] = pick[q]
                    m += 1
            pick = top_b[:m]
        rules = cand[pick]
        g = move_gains(np.arange(pick.size), rules, pick.size, r, total, per_class, indptr, indices, rule_class, eps, w)
        for q in range(pick.size):
            t = pick[q]
            key[t] = g[q] - cost[rules[q]]
            fresh[t] = True
            if not g[q] > tol:
                alive[t] = False
        batch *= 2
    return done, covered, pairs, used_l, used_e


# ------------------------------------------------------------ accuracy objective
@njit(cache=True, nogil=True, inline="always")
def _right(n, own, y_row, fallback):
    """Is a row with ``n`` rules firing, ``own`` of them of its class ``y_row``, right (see
    :mod:`explainer.selection.objectives`): covered with every firing rule of its class, or uncovered
    with its class the fallback."""
    if n == 0:
        return y_row == fallback
    return own == n


@njit(cache=True, nogil=True)
def accuracy_delta(i, selected, indptr, indices, k, total, per_class, y, fallback, w=None):
    """(change in rows right, change in conflicting pairs) if rule i (of class k) were flipped, weighted
    by ``w`` unless ``None``."""
    dr = _zero(w)
    dp = _zero(w)
    sign = -1 if selected else 1
    for p in range(indptr[i], indptr[i + 1]):
        row = indices[p]
        n = total[row]
        yr = y[row]
        own = per_class[row, yr]
        other = n - per_class[row, k]
        wr = _weight(w, row)
        n_new = n + sign
        own_new = own + sign * (k == yr)
        dr += wr * (np.int64(_right(n_new, own_new, yr, fallback)) - np.int64(_right(n, own, yr, fallback)))
        if selected:
            dp -= wr * other
        else:
            dp += wr * other
    return dr, dp


@njit(cache=True, nogil=True)
def accuracy_sums(r, total, per_class, indptr, indices, rule_class, y, fallback, w=None):
    """(M,) change in rows right and (M,) change in conflicting pairs if each rule alone were flipped, as floats
    (a flip's gain is the first less eps times the second): O(nnz)."""
    M = r.size
    right = np.empty(M)
    pairs = np.empty(M)
    for i in range(M):
        dr, dp = accuracy_delta(i, r[i], indptr, indices, rule_class[i], total, per_class, y, fallback, w)
        right[i] = float(dr)
        pairs[i] = float(dp)
    return right, pairs


@njit(cache=True, nogil=True)
def accuracy_sums_after_flip(a, r, total, per_class, indptr, indices, row_ptr, row_rules, rule_class, y, fallback,
                             right, pairs, w=None):
    """:func:`accuracy_sums` of the state with rule ``a`` flipped, from those of the state (``right``, ``pairs``),
    without flipping it: only the rules sharing a row with ``a`` change, and only through those rows
    (``row_ptr``, ``row_rules``: the rules of each row, CSR), O(the nonzeros of a's rows).  Unweighted, the
    sums are whole numbers, so the result is exactly what the state flipped would give."""
    out_r = right.copy()
    out_p = pairs.copy()
    ka = rule_class[a]
    sa = -1 if r[a] else 1
    for p in range(indptr[a], indptr[a + 1]):
        row = indices[p]
        n = total[row]
        yr = y[row]
        own = per_class[row, yr]
        wr = _weight(w, row)
        n2 = n + sa
        own2 = own + sa * (ka == yr)
        now = np.int64(_right(n, own, yr, fallback))
        then = np.int64(_right(n2, own2, yr, fallback))
        for q in range(row_ptr[row], row_ptr[row + 1]):
            i = row_rules[q]
            if i == a:
                continue
            ki = rule_class[i]
            s = -1 if r[i] else 1
            mine = s * (ki == yr)
            before = np.int64(_right(n + s, own + mine, yr, fallback)) - now
            after = np.int64(_right(n2 + s, own2 + mine, yr, fallback)) - then
            out_r[i] += wr * (after - before)
            # the pairs rule i makes or breaks on this row: the other classes' rules firing there
            d = sa - sa * (ki == ka)
            out_p[i] += wr * (-d if r[i] else d)
    out_r[a] = -right[a]
    out_p[a] = -pairs[a]
    return out_r, out_p


# ------------------------------------------------------------ move scores
@njit(cache=True, nogil=True)
def best_add_drop(gadd, gdrop, r, usable, L, E, slack_l, slack_e, cost, tol):
    """The best add and the best drop by gain -/+ the tiny cost (ties: the lower index), gains above ``tol``.

    Returns (add rule or -1, its score, drop rule or -1, its score, the other augmenting adds that fit,
    whether any usable rule is unselected).
    """
    b_best, s_add, a_best, s_drop = -1, -np.inf, -1, -np.inf
    adds = np.empty(r.size, np.int64)
    n_adds = 0
    free = False
    for i in range(r.size):
        if r[i]:
            if gdrop[i] > tol and gdrop[i] + cost[i] > s_drop:
                a_best, s_drop = i, gdrop[i] + cost[i]
        elif usable[i]:
            free = True
            if L[i] <= slack_l and E[i] <= slack_e and gadd[i] > tol:
                adds[n_adds] = i
                n_adds += 1
                if gadd[i] - cost[i] > s_add:
                    b_best, s_add = i, gadd[i] - cost[i]
    others = np.empty(max(n_adds - 1, 0), np.int64)
    n = 0
    for t in range(n_adds):
        if adds[t] != b_best:
            others[n] = adds[t]
            n += 1
    return b_best, s_add, a_best, s_drop, others, free


# Pair tests on scalars: the per-column values are gathered once per scoring into contiguous
# arrays, so the inner loops read them in order instead of gathering them pair by pair.
@njit(cache=True, nogil=True, inline="always")
def _fits(lb, eb, room_l, room_e):
    """Does the swap (drop a, add b) keep both budgets?  ``room`` = slack + the dropped rule's share."""
    return (lb <= room_l) & (eb <= room_e)


@njit(cache=True, nogil=True, inline="always")
def _conf(ka, kb, d2, eps):
    """Conflict term of the swap (drop a, add b): eps |rows(a) & rows(b)| when their classes differ."""
    return eps * d2 if ka != kb else 0.0


@njit(cache=True, nogil=True, inline="always")
def _bound(ga, gb, d2, xa, xb, conf):
    """Upper bound of the swap gain: ``D1[a, b] <= min(D2[a, b], X1[a], X1[b])``."""
    return ga + gb + min(d2, min(xa, xb)) + conf


@njit(cache=True, nogil=True, inline="always")
def _dropped(a, gmat, slot, L, E, slack_l, slack_e, gdrop, X1, k):
    """What the pair tests need of the dropped rule a: its overlap row, the room it leaves in both
    budgets, its drop gain, X1 and class."""
    return gmat[slot[a]], slack_l + L[a], slack_e + E[a], gdrop[a], X1[a], k[a]


@njit(cache=True, nogil=True)
def _columns(cols, L, E, gadd, X1, k):
    """The per-rule values of the candidate columns, contiguous."""
    nc = cols.size
    Lc, Ec, gc, xc, kc = np.empty(nc), np.empty(nc), np.empty(nc), np.empty(nc), np.empty(nc, np.int64)
    for j in range(nc):
        b = cols[j]
        Lc[j], Ec[j], gc[j], xc[j], kc[j] = L[b], E[b], gadd[b], X1[b], k[b]
    return Lc, Ec, gc, xc, kc


@njit(cache=True, nogil=True)
def owners(S, total, indptr, indices):
    """Per row: the position in S of the one selected rule covering it, -1 when covered 0 or 2+ times."""
    owner = np.full(total.size, -1, np.int64)
    for i in range(S.size):
        a = S[i]
        for p in range(indptr[a], indptr[a + 1]):
            row = indices[p]
            if total[row] == 1:
                owner[row] = i
    return owner


@njit(cache=True, nogil=True)
def pair_bounds(S, cols, gmat, slot, L, E, slack_l, slack_e, gdrop, gadd, X1, k, eps):
    """|S| x |cols| matrices (fits both budgets, bound, conflict term) of every swap (S[i], cols[j])."""
    nS, nc = S.size, cols.size
    Lc, Ec, gc, xc, kc = _columns(cols, L, E, gadd, X1, k)
    ok = np.zeros((nS, nc), np.bool_)
    bound = np.empty((nS, nc))
    conf = np.empty((nS, nc))
    for i in range(nS):
        row, room_l, room_e, ga, xa, ka = _dropped(S[i], gmat, slot, L, E, slack_l, slack_e, gdrop, X1, k)
        for j in range(nc):
            d2 = row[cols[j]]
            ok[i, j] = _fits(Lc[j], Ec[j], room_l, room_e)
            conf[i, j] = _conf(ka, kc[j], d2, eps)
            bound[i, j] = _bound(ga, gc[j], d2, xa, xc[j], conf[i, j])
    return ok, bound, conf


@njit(cache=True, nogil=True)
def swap_scores(S, cols, gmat, slot, L, E, slack_l, slack_e, gdrop, gadd, X1, k, eps, owner, cost, indptr, indices,
                tol, w=None):
    """Exact gains and scores of the swaps whose bound can augment.

    Returns (live, G, score): ``live`` the positions in ``cols`` with at least
    one such pair, ``G[i, j]`` the gain of the swap (S[i], cols[live[j]]) and
    ``score`` = G - (cost[b] - cost[a]) where the pair fits, can augment and
    ``G > tol``, else -inf.  ``G = gdrop[a] + gadd[b] + D1[a, b] + conflict``,
    D1 counted over the rows of b whose ``owner`` is a.
    """
    nS, nc = S.size, cols.size
    Lc, Ec, gc, xc, kc = _columns(cols, L, E, gadd, X1, k)
    # row by row of the overlap matrix (its rows lie far apart), and without branches on the
    # pair tests: they go either way at random, and mispredicted branches cost more than the tests
    is_live = np.zeros(nc, np.bool_)
    for i in range(nS):
        row, room_l, room_e, ga, xa, ka = _dropped(S[i], gmat, slot, L, E, slack_l, slack_e, gdrop, X1, k)
        for j in range(nc):
            d2 = row[cols[j]]
            bd = _bound(ga, gc[j], d2, xa, xc[j], _conf(ka, kc[j], d2, eps))
            is_live[j] |= _fits(Lc[j], Ec[j], room_l, room_e) & (bd > 0.0)
    live = np.flatnonzero(is_live)
    n_live = live.size
    D1 = np.zeros((nS, n_live))
    for jj in range(n_live):
        b = cols[live[jj]]
        for p in range(indptr[b], indptr[b + 1]):
            o = owner[indices[p]]
            if o >= 0:
                D1[o, jj] += _weight(w, indices[p])
    G = np.empty((nS, n_live))
    score = np.empty((nS, n_live))
    for i in range(nS):
        row, room_l, room_e, ga, xa, ka = _dropped(S[i], gmat, slot, L, E, slack_l, slack_e, gdrop, X1, k)
        ca = cost[S[i]]
        for jj in range(n_live):
            j = live[jj]
            b = cols[j]
            d2 = row[b]
            conf = _conf(ka, kc[j], d2, eps)
            g = ga + gc[j] + D1[i, jj] + conf
            G[i, jj] = g
            ok = (g > tol) & _fits(Lc[j], Ec[j], room_l, room_e) & (_bound(ga, gc[j], d2, xa, xc[j], conf) > 0.0)
            score[i, jj] = g - (cost[b] - ca) if ok else -np.inf
    return live, G, score


@njit(cache=True, nogil=True)
def best_entries(score, n):
    """Flat positions of the ``n`` largest finite entries of ``score``, largest first (ties: lower position)."""
    flat = score.ravel()
    top = np.empty(n, np.int64)
    m = 0
    for q in range(flat.size):
        v = flat[q]
        if not np.isfinite(v) or (m == n and v <= flat[top[m - 1]]):
            continue
        # insertion into the sorted head: after every entry at least as large (they have lower positions)
        t = min(m, n - 1)
        while t > 0 and flat[top[t - 1]] < v:
            top[t] = top[t - 1]
            t -= 1
        top[t] = q
        m = min(m + 1, n)
    return top[:m]


@njit(cache=True, nogil=True)
def follow_flips(Xt, Xo, flipped, added, gmat, slot, k):
    """``C'n`` and ``C'c_own`` after flipping the rules ``flipped`` (``added``: now selected), from their
    overlap rows: ``C'n = sum_{i in S} G_i``, ``C'c_own`` the same over the rules of the column's class."""
    Xt, Xo = Xt.copy(), Xo.copy()
    for f in range(flipped.size):
        a = flipped[f]
        ra = slot[a]
        ka = k[a]
        sign = 1.0 if added[f] else -1.0
        for b in range(Xt.size):
            g = gmat[ra, b]
            if g != 0.0:
                Xt[b] += sign * g
                if k[b] == ka:
                    Xo[b] += sign * g
    return Xt, Xo


@njit(cache=True, nogil=True)
def crossing_rows(t_old, t_new):
    """The rows whose count crossed 0, 1 or 2 between ``t_old`` and ``t_new``."""
    rows = np.empty(t_new.size, np.int64)
    n = 0
    for j in range(t_new.size):
        if (t_new[j] == 0) != (t_old[j] == 0) or (t_new[j] == 1) != (t_old[j] == 1):
            rows[n] = j
            n += 1
    return rows[:n]


@njit(cache=True, nogil=True)
def follow_crossings(X0, X1, rows, t_old, t_new, r_ptr, r_idx, w=None):
    """``C'z0`` and ``C'z1`` for the counts ``t_new`` from those for ``t_old``, over the crossing ``rows``
    (``C' diag(w) z`` weighted)."""
    X0, X1 = X0.copy(), X1.copy()
    for j in rows:
        wj = _weight(w, j)
        d0 = wj * ((1.0 if t_new[j] == 0 else 0.0) - (1.0 if t_old[j] == 0 else 0.0))
        d1 = wj * ((1.0 if t_new[j] == 1 else 0.0) - (1.0 if t_old[j] == 1 else 0.0))
        for p in range(r_ptr[j], r_ptr[j + 1]):
            b = r_idx[p]
            X0[b] += d0
            X1[b] += d1
    return X0, X1


__all__ = ["accuracy_delta", "accuracy_sums", "accuracy_sums_after_flip", "best_add_drop", "best_entries", "first_fit_adds", "lazy_greedy_adds", "flip_rule", "move_gains", "rule_delta", "crossing_rows", "follow_crossings", "follow_flips", "owners", "pair_bounds", "swap_scores"]
