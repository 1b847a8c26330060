"""The paper's QUBO matrices, the low-rank QUBO and the samplers."""

import itertools

import numpy as np
import pytest
from lanes import seeds

from explainer.selection.solvers.qubo import (
    QUBO,
    DimodSampler,
    GeneticQUBOSampler,
    QUBOSampler,
    decode_kernel,
    feasibility_qubo,
    kernel_encoder,
    kernel_qubo,
)


def random_A(rng, M):
    return np.vstack([rng.integers(1, 8, M), rng.integers(0, 10, M)]).astype(np.int64)


@pytest.mark.parametrize("seed", seeds(20))
def test_feasibility_qubo_is_squared_residual(seed):
    rng = np.random.default_rng(seed)
    M = int(rng.integers(1, 15))
    A = random_A(rng, M)
    beta = np.array([rng.integers(0, 30), rng.integers(0, 40)])
    QB, const = feasibility_qubo(A, beta)
    assert QB.dtype.kind == "i" and QB.shape == (M, M)
    X = rng.random((50, M)) < 0.5
    for x in X.astype(np.int64):
        assert x @ QB @ x + const == np.sum((A @ x - beta) ** 2)
    low = QUBO.feasibility(A, beta)
    dense = QUBO.from_matrix(QB, const)
    expect = np.sum((X.astype(np.int64) @ A.T - beta) ** 2, axis=1)
    np.testing.assert_array_equal(low.energy(X), expect)
    np.testing.assert_array_equal(dense.energy(X), expect)
    np.testing.assert_array_equal(low.to_matrix(), QB)


@pytest.mark.parametrize("seed", seeds(20))
def test_kernel_qubo_is_squared_norm_of_decoded(seed):
    rng = np.random.default_rng(seed)
    M = int(rng.integers(1, 12))
    A = random_A(rng, M)
    QB, const = kernel_qubo(A)
    assert QB.shape == (2 * M, 2 * M)
    E = kernel_encoder(M)
    assert E.shape == (M, 2 * M) and E[0, :2].tolist() == [1, 2]
    X = rng.random((60, 2 * M)) < 0.5
    for Xi in X.astype(np.int64):
        x = decode_kernel(Xi)
        np.testing.assert_array_equal(x, -1 + E @ Xi)
        assert Xi @ QB @ Xi + const == np.sum((A @ x) ** 2)
    low = QUBO.kernel(A)
    expect = np.sum((decode_kernel(X) @ A.T) ** 2, axis=1)
    np.testing.assert_array_equal(low.energy(X), expect)
    np.testing.assert_array_equal(QUBO.from_matrix(QB, const).energy(X), expect)


def test_kernel_encoding_maps_bit_pairs():
    assert decode_kernel(np.array([0, 0, 1, 0, 0, 1, 1, 1])).tolist() == [-1, 0, 1, 2]


def test_subspace_and_dict_forms():
    rng = np.random.default_rng(3)
    A = random_A(rng, 9)
    q = QUBO.feasibility(A, [10, 12])
    idx = np.array([1, 4, 7])
    sub = q.subspace(idx)
    X = rng.random((20, 3)) < 0.5
    full = np.zeros((20, 9), dtype=bool)
    full[:, idx] = X
    np.testing.assert_allclose(sub.energy(X), q.energy(full))
    Q = q.to_matrix()
    d = q.to_dict()
    for x in X:
        xf = np.zeros(9)
        xf[idx] = x
        e = sum(v * xf[i] * xf[j] for (i, j), v in d.items())
        assert e == pytest.approx(xf @ Q @ xf)


def brute_force_min(q: QUBO) -> float:
    X = np.array(list(itertools.product([0, 1], repeat=q.n_vars)), dtype=bool)
    return float(q.energy(X).min())


def test_genetic_sampler_finds_minimum_of_small_qubos():
    hits = 0
    trials = 20
    for seed in range(trials):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(4, 13))
        Q = rng.integers(-10, 10, (n, n))
        q = QUBO.from_matrix((Q + Q.T) / 2)
        out = GeneticQUBOSampler(n_population=40, n_generations=40).sample(q, 5, rng)
        assert out.dtype == bool and out.shape[1] == n and 1 <= out.shape[0] <= 5
        assert len({r.tobytes() for r in out}) == out.shape[0]  # distinct
        e = q.energy(out)
        assert np.all(np.diff(e) >= 0)  # best first
        hits += e[0] == brute_force_min(q)
    assert hits >= 0.8 * trials


def test_genetic_sampler_is_deterministic_and_solves_feasibility():
    A = np.array([[1, 2, 3, 4, 5, 6], [0, 1, 1, 2, 2, 3]])
    q = QUBO.feasibility(A, [7, 3])
    s = GeneticQUBOSampler()
    a = s.sample(q, 4, np.random.default_rng(5))
    b = s.sample(q, 4, np.random.default_rng(5))
    np.testing.assert_array_equal(a, b)
    assert q.energy(a[0]) == 0  # A x = beta has exact solutions, e.g. rules 2,5 or 3,4


class FakeSampleSet:
    def __init__(self, samples):
        self.samples = samples

    def __iter__(self):
        return iter(self.samples)


class FakeDimod:
    """Brute force, answering like dimod's sample_qubo (an iterable of {var: value})."""

    def __init__(self):
        self.calls = 0

    def sample_qubo(self, Q, num_reads=10):
        self.calls += 1
        n = 1 + max(max(k) for k in Q)
        out = []
        for bits in itertools.product([0, 1], repeat=n):
            e = sum(v * bits[i] * bits[j] for (i, j), v in Q.items())
            out.append((e, dict(enumerate(bits))))
        out.sort(key=lambda t: t[0])
        return FakeSampleSet([s for _, s in out[:num_reads]])


def test_dimod_adapter_uses_the_wrapped_sampler():
    rng = np.random.default_rng(0)
    Q = rng.integers(-5, 5, (6, 6))
    q = QUBO.from_matrix(Q)
    fake = FakeDimod()
    sampler = DimodSampler(fake, num_reads=8)
    assert isinstance(sampler, QUBOSampler)
    out = sampler.sample(q, 3, rng)
    assert fake.calls == 1
    assert out.shape == (3, 6)
    assert q.energy(out[0]) == brute_force_min(q)
