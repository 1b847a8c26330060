"""QUBO models of the two inner problems of the nested genetic algorithm, and their samplers.

Section 5.3 of the paper turns two sub-problems of the rule selection into
Quadratic Unconstrained Binary Optimisation problems ``min X'Q X, X binary``:

* **feasible population** (Algorithm 6): solutions of ``A x = beta`` for a
  target ``0 <= beta <= b`` minimise ``||A x - beta||^2 = x'Q_B x + beta'beta``
  with ``Q_B = A'A - 2 diag(beta'A)`` (:func:`feasibility_qubo`);
* **approximate kernel** (Algorithm 7): ``x in {-1, 0, 1}^M`` with ``A x ~ 0``
  is encoded on two bits per variable, ``x = L + E X``, ``E = I_M (x) [1, 2]``,
  ``L = -1``, and ``||A x||^2 = X'Q_B X + L'Q_I L`` with
  ``Q_B = E'Q_I E + 2 diag(L'Q_I E)``, ``Q_I = A'A`` (:func:`kernel_qubo`,
  :func:`decode_kernel`).

The explicit matrices are built exactly as in the paper (used by the tests and
for small models).  At scale, :class:`QUBO` keeps the structure the paper's
matrices have: ``Q = U'U + diag(d)`` with ``U`` only 2 rows high (``A`` has two
rows), so the energy of a whole population ``X`` (P x n) is
``rowsum((X U')^2) + X d + const`` — O(P n), no n x n matrix.  A dense part is
supported too (:meth:`QUBO.from_matrix`).

Samplers share one interface, :class:`QUBOSampler`:
``sample(qubo, n, rng) -> (k x n_vars) bool``, the ``k <= n`` best distinct
solutions found, best first.  :class:`GeneticQUBOSampler` is the paper's
Algorithm 5; :class:`DimodSampler` adapts any object with dimod's
``sample_qubo(Q, num_reads=...)`` method (a D-Wave sampler, a simulated
annealer, ...) without importing dimod.

Deviation from Algorithm 5 (which is written for a maximisation): the energy
is minimised, so the selection probability is proportional to the positive
transform ``max(E) - E + 1`` of the population's energies; the population is
kept free of duplicates, so "the n fittest" are n distinct bit strings.
"""

from __future__ import annotations

import numpy as np

from explainer.selection.solvers.operators import distinct_rows, select_pairs

# ----------------------------------------------------------------------------
# the paper's explicit matrices


def feasibility_qubo(A, beta) -> tuple[np.ndarray, float]:
    """``(Q_B, const)`` with ``x'Q_B x + const == ||A x - beta||^2`` for binary x."""
    A = np.asarray(A)
    beta = np.asarray(beta)
    QB = A.T @ A - 2 * np.diag(beta @ A)
    return QB, beta @ beta


def kernel_encoder(M: int) -> np.ndarray:
    """The M x 2M encoder ``E = I_M (x) [1, 2]``."""
    return np.kron(np.eye(M, dtype=np.int64), np.array([[1, 2]], dtype=np.int64))


def kernel_qubo(A) -> tuple[np.ndarray, float]:
    """``(Q_B, const)`` with ``X'Q_B X + const == ||A (L + E X)||^2``, L = -1, for binary X (length 2M)."""
    A = np.asarray(A)
    M = A.shape[1]
    QI = A.T @ A
    E = kernel_encoder(M)
    L = -np.ones(M, dtype=QI.dtype)
    QB = E.T @ QI @ E + 2 * np.diag(L @ QI @ E)
    return QB, L @ QI @ L


def decode_kernel(X) -> np.ndarray:
    """``x = L + E X``: the pairs of bits ``(b1, b2)`` map to ``-1 + b1 + 2 b2`` (the last axis has length 2M)."""
    X = np.asarray(X).astype(np.int64)
    return -1 + X[..., 0::2] + 2 * X[..., 1::2]


# ----------------------------------------------------------------------------
# a QUBO usable at scale


class QUBO:
    """``E(X) = X'(U'U + diag(d) + D) X + offset`` for binary X.

    ``factor`` U is k x n (k small), ``linear`` d has length n, ``dense`` D is an
    optional n x n matrix.  Since X is binary, ``X'diag(d)X == d'X``.
    """

    def __init__(self, n_vars: int, factor=None, linear=None, dense=None, offset: float = 0.0):
        self.n_vars = int(n_vars)
        self.factor = None if factor is None else np.atleast_2d(np.asarray(factor, dtype=np.float64))
        self.linear = None if linear is None else np.asarray(linear, dtype=np.float64).ravel()
        self.dense = None if dense is None else np.asarray(dense, dtype=np.float64)
        self.offset = float(offset)
        if self.factor is not None and self.factor.shape[1] != self.n_vars:
            raise ValueError("factor needs one column per variable")
        if self.linear is not None and self.linear.shape != (self.n_vars,):
            raise ValueError("linear needs one entry per variable")
        if self.dense is not None and self.dense.shape != (self.n_vars, self.n_vars):
            raise ValueError("dense must be n_vars x n_vars")

    # --------------------------------------------------------------- builders
    @classmethod
    def from_matrix(cls, Q, offset: float = 0.0) -> QUBO:
        Q = np.asarray(Q, dtype=np.float64)
        return cls(Q.shape[0], dense=Q, offset=offset)

    @classmethod
    def feasibility(cls, A, beta) -> QUBO:
        """``||A x - beta||^2`` in low-rank form (same energies as :func:`feasibility_qubo` + const)."""
        A = np.asarray(A, dtype=np.float64)
        beta = np.asarray(beta, dtype=np.float64)
        return cls(A.shape[1], factor=A, linear=-2.0 * (beta @ A), offset=float(beta @ beta))

    @classmethod
    def kernel(cls, A) -> QUBO:
        """``||A (L + E X)||^2`` in low-rank form over 2M variables (same energies as :func:`kernel_qubo` + const)."""
        A = np.asarray(A, dtype=np.float64)
        M = A.shape[1]
        AE = np.repeat(A, 2, axis=1)
        AE[:, 1::2] *= 2.0  # A E: column 2i is A_i, column 2i+1 is 2 A_i
        L = -np.ones(M)
        lin = 2.0 * ((L @ A.T) @ AE)  # 2 L'A'A E
        return cls(2 * M, factor=AE, linear=lin, offset=float((A @ L) @ (A @ L)))

    def subspace(self, idx) -> QUBO:
        """The QUBO restricted to the variables ``idx`` (the others fixed at 0)."""
        idx = np.asarray(idx, dtype=np.int64)
        return QUBO(
            idx.size,
            factor=None if self.factor is None else self.factor[:, idx],
            linear=None if self.linear is None else self.linear[idx],
            dense=None if self.dense is None else self.dense[np.ix_(idx, idx)],
            offset=self.offset,
        )

    # ------------------------------------------------------------- evaluation
    def energy(self, X) -> np.ndarray:
        """Energies of the rows of X (P x n, or one vector of length n)."""
        X = np.asarray(X, dtype=np.float64)
        single = X.ndim == 1
        X = np.atleast_2d(X)
        e = np.full(X.shape[0], self.offset)
        if self.factor is not None:
            Y = X @ self.factor.T
            e += np.einsum("pk,pk->p", Y, Y)
        if self.linear is not None:
            e += X @ self.linear
        if self.dense is not None:
            e += np.einsum("pi,pi->p", X @ self.dense, X)
        return e[0] if single else e

    def to_matrix(self) -> np.ndarray:
        """The n x n matrix Q with ``E(X) = X'Q X + offset`` (small models only)."""
        Q = np.zeros((self.n_vars, self.n_vars))
        if self.factor is not None:
            Q += self.factor.T @ self.factor
        if self.linear is not None:
            Q[np.diag_indices(self.n_vars)] += self.linear
        if self.dense is not None:
            Q += self.dense
        return Q

    def to_dict(self) -> dict[tuple[int, int], float]:
        """Upper-triangular ``{(i, j): q}`` form, as dimod's ``sample_qubo`` takes it."""
        Q = self.to_matrix()
        upper = np.triu(Q, 1) + np.tril(Q, -1).T
        out = {(i, i): float(Q[i, i]) for i in range(self.n_vars) if Q[i, i] != 0}
        ii, jj = np.nonzero(upper)
        out.update({(int(i), int(j)): float(upper[i, j]) for i, j in zip(ii, jj, strict=True)})
        return out

    def __repr__(self) -> str:
        parts = [f"n_vars={self.n_vars}"]
        if self.factor is not None:
            parts.append(f"rank={self.factor.shape[0]}")
        if self.dense is not None:
            parts.append("dense")
        return f"QUBO({', '.join(parts)})"


# ----------------------------------------------------------------------------
# samplers


def best_distinct(X: np.ndarray, energies: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``n`` lowest-energy distinct rows of X (stable: ties keep their order)."""
    X = np.asarray(X, dtype=bool)
    energies = np.asarray(energies, dtype=float)
    if X.shape[0] == 0:
        return X, energies
    first = distinct_rows(X)
    order = first[np.argsort(energies[first], kind="stable")][: max(int(n), 0)]
    return X[order], energies[order]


class QUBOSampler:
    """Interface: ``sample(qubo, n, rng)`` returns up to n best distinct solutions (bool rows, best first)."""

    def sample(self, qubo: QUBO, n: int, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError


class GeneticQUBOSampler(QUBOSampler):
    """Algorithm 5 of the paper: a plain genetic algorithm on bit strings.

    Parameters
    ----------
    n_population : individuals kept each generation (at least ``n`` are kept).
    n_generations : generations.
    mutation_rate : probability of flipping each bit of a child (default ``1/n_vars``).
    density : probability of a 1 in the random initial bit strings.
    """

    def __init__(self, n_population: int = 40, n_generations: int = 30, mutation_rate=None, density: float = 0.5):
        self.n_population = n_population
        self.n_generations = n_generations
        self.mutation_rate = mutation_rate
        self.density = density

    def sample(self, qubo: QUBO, n: int, rng: np.random.Generator) -> np.ndarray:
        nv = qubo.n_vars
        if nv == 0 or n <= 0:
            return np.zeros((min(max(int(n), 0), 1), nv), dtype=bool)
        size = max(int(self.n_population), int(n), 2)
        rate = (1.0 / nv) if self.mutation_rate is None else float(self.mutation_rate)
        pop = rng.random((size, nv)) < self.density
        pop, energy = best_distinct(pop, qubo.energy(pop), size)
        for _ in range(int(self.n_generations)):
            m = pop.shape[0]
            if m < 2:
                # too little diversity to mate: refresh with random strings
                fresh = rng.random((size, nv)) < self.density
                pop = np.vstack([pop, fresh])
                pop, energy = best_distinct(pop, qubo.energy(pop), size)
                continue
            fit = energy.max() - energy + 1.0  # minimisation -> positive fitness
            n_pairs = max(m // 2, 1)
            a, b = select_pairs(fit, n_pairs, rng)
            mask = rng.random((n_pairs, nv)) < 0.5
            c1 = np.where(mask, pop[a], pop[b])
            c2 = np.where(mask, pop[b], pop[a])
            children = np.vstack([c1, c2])
            children ^= rng.random(children.shape) < rate
            allx = np.vstack([pop, children])
            alle = np.concatenate([energy, qubo.energy(children)])
            pop, energy = best_distinct(allx, alle, size)
        return pop[: int(n)]

    def __repr__(self) -> str:
        return (
            f"GeneticQUBOSampler(n_population={self.n_population}, n_generations={self.n_generations}, "
            f"mutation_rate={self.mutation_rate!r}, density={self.density!r})"
        )


class DimodSampler(QUBOSampler):
    """Adapter for any object with dimod's ``sample_qubo(Q, num_reads=...)`` (duck-typed).

    The response may be a dimod ``SampleSet`` (its ``record.sample`` array is
    used) or any iterable of ``{variable: value}`` mappings / sequences.  The
    energies are recomputed with :meth:`QUBO.energy`, so ``offset`` is honoured.
    """

    def __init__(self, sampler, num_reads: int = 100, **sample_kwargs):
        self.sampler = sampler
        self.num_reads = num_reads
        self.sample_kwargs = sample_kwargs

    def sample(self, qubo: QUBO, n: int, rng: np.random.Generator) -> np.ndarray:
        nv = qubo.n_vars
        response = self.sampler.sample_qubo(qubo.to_dict(), num_reads=int(self.num_reads), **self.sample_kwargs)
        rows = []
        record = getattr(response, "record", None)
        variables = getattr(response, "variables", None)
        if record is not None and hasattr(record, "sample"):
            arr = np.asarray(record.sample)
            labels = list(variables) if variables is not None else list(range(arr.shape[1]))
            X = np.zeros((arr.shape[0], nv), dtype=bool)
            for col, lab in enumerate(labels):
                if 0 <= int(lab) < nv:
                    X[:, int(lab)] = arr[:, col] > 0
            rows = list(X)
        else:
            for s in response:
                x = np.zeros(nv, dtype=bool)
                if hasattr(s, "items"):
                    for k, v in s.items():
                        if 0 <= int(k) < nv:
                            x[int(k)] = v > 0
                else:
                    x[:] = np.asarray(s)[:nv] > 0
                rows.append(x)
        if not rows:
            return np.zeros((0, nv), dtype=bool)
        X = np.array(rows, dtype=bool).reshape(-1, nv)
        return best_distinct(X, qubo.energy(X), n)[0]

    def __repr__(self) -> str:
        return f"DimodSampler({self.sampler!r}, num_reads={self.num_reads})"


__all__ = [
    "QUBO",
    "DimodSampler",
    "GeneticQUBOSampler",
    "QUBOSampler",
    "best_distinct",
    "decode_kernel",
    "feasibility_qubo",
    "kernel_encoder",
    "kernel_qubo",
]
