"""Continual-release counters: exactness, analytic variance, closed form vs incremental,
privacy accounting (analytic privacy loss on neighbouring streams), restarts, validation."""
import importlib
import math
import pkgutil

import numpy as np
import pytest

from dpolearn.accounting import PureDP
from dpolearn.mechanisms.counters import (
    BinaryCounter,
    CounterNoise,
    HybridCounter,
    LogarithmicCounter,
    hybrid_error_bound,
    lowest_set_bit,
    popcount,
)

N_MC = 6000           # Monte Carlo streams for the statistical tests
K_SIGMA = 4.5         # tolerance in standard errors (many positions are tested)


def _var_tolerance(scales_sq_sum, scales_4_sum, n):
    """Standard error of a sample variance of a sum of independent Laplace terms.

    For Lap(b): variance 2b^2 and fourth cumulant 12 b^4; Var(s^2) ~ (kappa4 + 2 sigma^4)/n.
    """
    sigma2 = 2 * scales_sq_sum
    kappa4 = 12 * scales_4_sum
    return math.sqrt((kappa4 + 2 * sigma2 ** 2) / n)


def test_helpers():
    assert lowest_set_bit([1, 2, 12, 13, 64]).tolist() == [0, 1, 2, 0, 6]
    assert popcount([0, 1, 7, 13, 1024]).tolist() == [0, 1, 3, 3, 1]


def test_every_module_of_the_counters_package_is_re_exported():
    """``dpolearn.mechanisms.counters`` is split into one module per counter; the package
    exports every public name of every public module (the same object), so the import path
    used by the book, the bandits and the audit keeps working for each of them."""
    from dpolearn import mechanisms
    from dpolearn.mechanisms import counters

    names = [m.name for m in pkgutil.iter_modules(counters.__path__)
             if not m.name.startswith("_")]
    assert {"binary", "logarithmic", "hybrid", "budget", "counter_noise"} <= set(names)
    for name in names:
        module = importlib.import_module(f"{counters.__name__}.{name}")
        for attr in module.__all__:
            assert attr in counters.__all__, f"{module.__name__}.{attr} is not re-exported"
            assert getattr(counters, attr) is getattr(module, attr)
    for attr in counters.__all__:
        assert callable(getattr(counters, attr))
    for cls in ("BinaryCounter", "LogarithmicCounter", "HybridCounter", "CounterNoise"):
        assert getattr(mechanisms, cls) is getattr(counters, cls)


@pytest.mark.parametrize("make", [
    lambda: BinaryCounter((4, 3), epsilon=np.inf, levels=7),
    lambda: LogarithmicCounter((4, 3), epsilon=np.inf),
    lambda: HybridCounter((4, 3), epsilon=np.inf),
    lambda: HybridCounter((4, 3), epsilon=np.inf, split="paper", tree_log_base="e"),
])
def test_exact_sums_without_noise(make):
    c = make()
    x = np.random.default_rng(0).random((100, 4, 3))
    for t in range(100):
        out = c.step(x[t])
        n = t + 1
        if isinstance(c, LogarithmicCounter):      # released only at powers of two
            last = 1 << (n.bit_length() - 1)
            np.testing.assert_allclose(out, x[:last].sum(0))
        else:
            np.testing.assert_allclose(out, x[:n].sum(0))


def test_where_advances_only_selected_streams():
    c = HybridCounter((2, 3), epsilon=np.inf)
    rng = np.random.default_rng(1)
    sums = np.zeros((2, 3))
    for _ in range(50):
        mask = rng.random((2, 3)) < 0.5
        x = rng.random((2, 3))
        c.step(x, where=mask)
        sums += np.where(mask, x, 0)
    np.testing.assert_allclose(c.output(), sums)


def test_binary_tree_nodes_of_13():
    """tau = 13 = 1101b uses nodes (3,1) = [1..8], (2,3) = [9..12], (0,13) = [13]."""
    c = BinaryCounter(1, epsilon=np.inf, levels=4)
    for v in range(1, 14):
        c.step(float(v))
    assert c.alpha[0].tolist() == [13.0, 0.0, sum(range(9, 13)), sum(range(1, 9))]
    assert float(c.output()[0]) == sum(range(1, 14))


def _incremental_errors(counter, n_max):
    out = np.empty((n_max,) + counter.shape)
    for t in range(n_max):
        out[t] = counter.step(0.0)
    return out


def test_binary_variance_matches_analytic():
    c = BinaryCounter(N_MC, epsilon=0.5, levels=5, rng=11)
    err = _incremental_errors(c, 31)
    b = 5 / 0.5
    for n in range(1, 32):
        pc = int(popcount(n))
        tol = K_SIGMA * _var_tolerance(pc * b ** 2, pc * b ** 4, N_MC)
        assert abs(err[n - 1].var() - c.variance(n)) < tol, n
        assert c.variance(n) == pytest.approx(2 * b ** 2 * pc)


@pytest.mark.parametrize("split", ["chan", "paper"])
def test_hybrid_variance_matches_analytic(split):
    eps = 1.0
    h = HybridCounter(N_MC, epsilon=eps, split=split, rng=12)
    err = _incremental_errors(h, 70)
    e_half = eps / 2 if split == "chan" else eps
    for n in range(1, 71):
        k = n.bit_length() - 1
        b_l, b_b, pc = 1 / e_half, k / e_half, int(popcount(n - (1 << k)))
        expected = 2 * ((k + 1) * b_l ** 2 + pc * b_b ** 2)
        assert h.variance(n) == pytest.approx(expected)
        tol = K_SIGMA * _var_tolerance((k + 1) * b_l ** 2 + pc * b_b ** 2,
                                       (k + 1) * b_l ** 4 + pc * b_b ** 4, N_MC)
        assert abs(err[n - 1].var() - expected) < tol, n


def test_logarithmic_variance_and_noise_accumulates():
    c = LogarithmicCounter(N_MC, epsilon=2.0, rng=13)
    err = _incremental_errors(c, 40)
    for n in (1, 2, 3, 4, 8, 16, 31, 32):
        k = n.bit_length() - 1
        tol = K_SIGMA * _var_tolerance((k + 1) * 0.25, (k + 1) * 0.0625, N_MC)
        assert abs(err[n - 1].var() - c.variance(n)) < tol
        assert c.variance(n) == pytest.approx(2 * (k + 1) * 0.25)
    # between powers of two the release is repeated (no fresh noise)
    np.testing.assert_array_equal(err[4], err[6])


def _cov_matrix(samples):
    return np.cov(samples, rowvar=False)


@pytest.mark.parametrize("kind", ["binary", "hybrid-chan", "hybrid-paper-e"])
def test_closed_form_and_fast_path_agree_with_incremental(kind):
    """Same distribution: incremental counter, closed form and the bandits' fast path give
    errors with the same means and the same covariance over positions 1..n_max (each is a
    linear map of i.i.d. Laplace noises, so a different node structure would show up as a
    different covariance), with tolerances from the sample size."""
    n_max, eps = 23, 1.0
    if kind == "binary":
        inc = _incremental_errors(BinaryCounter(N_MC, epsilon=eps, levels=5, rng=21), n_max)
        closed = BinaryCounter.noise_process(n_max, levels=5, epsilon=eps, shape=(N_MC,), rng=22)
        fast = CounterNoise(N_MC, 1, kind="binary", epsilon_tree=eps, levels=5, rng=23)
    else:
        split = "chan" if kind == "hybrid-chan" else "paper"
        base = 2 if kind == "hybrid-chan" else "e"
        inc = _incremental_errors(HybridCounter(N_MC, epsilon=eps, split=split,
                                                tree_log_base=base, rng=21), n_max)
        closed = HybridCounter.noise_process(n_max, epsilon=eps, split=split,
                                             tree_log_base=base, shape=(N_MC,), rng=22)
        half = eps / 2 if split == "chan" else eps
        fast = CounterNoise(N_MC, 1, kind="hybrid", epsilon_tree=half, epsilon_log=half,
                            tree_log_base=base, rng=23)
    fast_err = np.empty((n_max, N_MC))
    for t in range(n_max):
        fast.advance(np.arange(N_MC), np.zeros(N_MC, dtype=int))
        fast_err[t] = fast.noise[:, 0]
    samples = {"incremental": inc.reshape(n_max, N_MC).T, "closed": closed, "fast": fast_err.T}
    ref_x = samples["incremental"]
    ref = _cov_matrix(ref_x)
    # SE of an entry of a sample covariance of zero-mean data: sd(X_i X_j) / sqrt(n); the
    # difference of two independent estimates has sqrt(2) times that.
    prod_sd = np.sqrt(np.einsum("ni,nj->ij", ref_x ** 2, ref_x ** 2) / N_MC - ref ** 2)
    se_diff = math.sqrt(2) * prod_sd / math.sqrt(N_MC)
    for name in ("closed", "fast"):
        cov = _cov_matrix(samples[name])
        z = np.abs(cov - ref) / se_diff
        assert z.max() < K_SIGMA, (name, z.max())
        mean_z = np.abs(samples[name].mean(0)) / np.sqrt(np.diag(ref) / N_MC)
        assert mean_z.max() < K_SIGMA, (name, mean_z.max())


def test_restart_with_new_levels_changes_scale_and_empties():
    """The DP-TS use: restart selected streams with L = r + 1 levels."""
    c = BinaryCounter((2, 2), epsilon=1.0, levels=1, rng=0)
    c.step(1.0)
    mask = np.array([[True, False], [False, False]])
    c.restart(where=mask, levels=3)
    assert c.levels.tolist() == [[3, 1], [1, 1]]
    assert c.count.tolist() == [[0, 1], [1, 1]]
    assert c.scale[0, 0] == 3.0 and c.scale[0, 1] == 1.0
    assert c.alpha.shape[-1] == 3
    np.testing.assert_array_equal(c.output()[0, 0], 0.0)
    for _ in range(7):
        c.step(1.0, where=mask)
    with pytest.raises(ValueError, match="levels"):
        c.step(1.0, where=mask)           # 8 > 2**3 - 1 items


def test_guarantees_and_paper_claim():
    assert BinaryCounter(1, epsilon=0.3, levels=4).guarantee == PureDP(0.3)
    assert LogarithmicCounter(1, epsilon=0.3).guarantee == PureDP(0.3)
    assert HybridCounter(1, epsilon=0.3).guarantee == PureDP(0.3)
    paper = HybridCounter(1, epsilon=0.3, split="paper")
    assert paper.guarantee == PureDP(0.6)
    assert paper.paper_claim == PureDP(0.3)
    nat = HybridCounter(1, epsilon=0.3, split="paper", tree_log_base="e")
    assert nat.guarantee.epsilon == pytest.approx(0.3 + 0.3 / math.log(2))


def _hybrid_node_structure(n_max, eps_log, eps_tree, base=2):
    """Every released noisy quantity of the hybrid counter up to n_max: (positions, scale)."""
    nodes = []
    k = 0
    while (1 << k) <= n_max:                       # logarithmic blocks (2^{k-1}, 2^k]
        lo = (1 << (k - 1)) + 1 if k else 1
        nodes.append((range(lo, (1 << k) + 1), 1 / eps_log))
        size = 1 << k                              # tree of epoch k covers 2^k+1 .. 2^{k+1}-1
        scale = (1.0 if base == 2 else math.log(2)) * k / eps_tree
        for j in range(k):
            for m in range(1, (size >> j) + 1):
                first = size + (m - 1) * (1 << j) + 1
                last = size + m * (1 << j)
                if last < 2 * size and last <= n_max:
                    nodes.append((range(first, last + 1), scale))
        k += 1
    return nodes


@pytest.mark.parametrize("split,base", [("chan", 2), ("paper", 2), ("paper", "e")])
def test_hybrid_privacy_loss_on_neighbouring_streams(split, base):
    """Exact worst-case privacy loss: the releases determine all noisy p-sums, whose
    log-density ratio on neighbouring streams (one item changed by 1) is at most
    sum over p-sums containing the item of 1 / scale. It must not exceed ``guarantee``,
    it is attained, and for the paper's split it exceeds the paper's claim."""
    eps, n_max = 0.7, 300
    h = HybridCounter(1, epsilon=eps, split=split, tree_log_base=base)
    nodes = _hybrid_node_structure(n_max, h.epsilon_log[0], h.epsilon_tree[0], base)
    loss = np.zeros(n_max + 1)
    for positions, scale in nodes:
        for p in positions:
            loss[p] += 1 / scale
    worst = loss[1:].max()
    assert worst <= h.guarantee.epsilon + 1e-12
    assert worst == pytest.approx(h.guarantee.epsilon)
    if split == "paper":
        assert worst > h.paper_claim.epsilon * 1.5


def test_half_noise_variant_is_caught():
    """A counter with half the node noise (but claiming the same epsilon) fails the
    statistical noise-scale check that the honest counter passes."""
    class HalfNoise(BinaryCounter):
        def _scale_for(self, levels):
            return super()._scale_for(levels) / 2

    def passes(counter):
        err = _incremental_errors(counter, 15)
        b = 4 / 1.0                                    # claimed scale levels / epsilon
        ok = True
        for n in (1, 3, 7, 15):
            pc = int(popcount(n))
            tol = K_SIGMA * _var_tolerance(pc * b ** 2, pc * b ** 4, N_MC)
            ok &= abs(err[n - 1].var() - 2 * b ** 2 * pc) < tol
        return ok

    assert passes(BinaryCounter(N_MC, epsilon=1.0, levels=4, rng=5))
    assert not passes(HalfNoise(N_MC, epsilon=1.0, levels=4, rng=5))


def test_error_bound_formula_and_coverage():
    eps, t = 1.0, 1000.0
    gamma = t ** -4
    c = math.sqrt(8) * math.log(4 * t ** 4) / eps
    assert hybrid_error_bound(64, gamma, epsilon_log=eps, epsilon_tree=eps) == pytest.approx(c)
    assert hybrid_error_bound(65, gamma, epsilon_log=eps, epsilon_tree=eps) == pytest.approx(
        c * (1 + math.log2(65)))
    h = HybridCounter(2000, epsilon=eps, split="paper", rng=3)
    err = np.abs(_incremental_errors(h, 100))
    bounds = h.error_bound(np.arange(1, 101), gamma)
    assert np.all(err <= bounds[:, None])             # failure probability 1e-12 per position


def test_batched_equals_single_stream_slices():
    """Row 0 of a batch of one stream behaves like a single-stream counter with the same
    seed (n_runs=1 slice)."""
    x = np.random.default_rng(0).random(40)
    one = HybridCounter(1, epsilon=0.5, rng=9)
    single = np.array([one.step(v)[0] for v in x])
    again = HybridCounter((1,), epsilon=np.array([0.5]), rng=9)
    batch = np.array([again.step(v)[0] for v in x])
    np.testing.assert_array_equal(single, batch)


def test_epsilon_array_per_stream():
    c = HybridCounter((3, 2), epsilon=np.array([[1.0], [0.5], [0.25]]), rng=0)
    assert c.guarantee.epsilon.shape == (3, 2)
    np.testing.assert_allclose(c.guarantee.epsilon[:, 0], [1.0, 0.5, 0.25])


@pytest.mark.parametrize("kwargs,exc", [
    (dict(epsilon=0.0, levels=3), ValueError),
    (dict(epsilon=-1.0, levels=3), ValueError),
    (dict(epsilon="1", levels=3), TypeError),
    (dict(epsilon=1.0, levels=-1), ValueError),
    (dict(epsilon=1.0, levels=2.5), TypeError),
])
def test_invalid_binary(kwargs, exc):
    with pytest.raises(exc, match="epsilon|levels"):
        BinaryCounter(2, **kwargs)


def test_invalid_hybrid():
    with pytest.raises(ValueError, match="split"):
        HybridCounter(2, epsilon=1.0, split="half")
    with pytest.raises(ValueError, match="epsilon"):
        HybridCounter(2, epsilon=np.nan)
    with pytest.raises(ValueError, match="shape"):
        HybridCounter((0,), epsilon=1.0)
    with pytest.raises(TypeError, match="where"):
        HybridCounter(2, epsilon=1.0).step(1.0, where=np.array([1, 0]))


def _joint_event_log_ratio(make, n=200_000, c=1.0):
    """Black-box DP check on the incremental hybrid counter: streams (0, 0, 1, 0) and
    (0, 0, 0, 0) differ in item 3, which enters the tree node released at 3 and the
    logarithmic block (2, 4] released at 4. Returns the estimated log of
    P_x(S) / P_x'(S) for S = {y3 - y2 > c, y4 - y2 > c} and its standard error."""
    probs, ses = [], []
    for seed, x3 in ((1, 1.0), (2, 0.0)):
        h = make(n, seed)
        out = [h.step(v) for v in (0.0, 0.0, x3, 0.0)]
        hit = ((out[2] - out[1]) > c) & ((out[3] - out[1]) > c)
        p = hit.mean()
        probs.append(p)
        ses.append(math.sqrt((1 - p) / (n * p)))           # SE of log p (delta method)
    return math.log(probs[0] / probs[1]), math.hypot(*ses)


def test_hybrid_dp_inequality_on_neighbouring_streams_black_box():
    """The event S attains the worst case eps_L + eps_B. The honest split stays within its
    guarantee; the paper's split exceeds the paper's claim (and meets its guarantee 2 eps);
    a half-noise variant of the honest split is caught."""
    eps = 1.0
    chan = HybridCounter(1, epsilon=eps)
    loss, se = _joint_event_log_ratio(lambda n, s: HybridCounter(n, epsilon=eps, rng=s))
    assert loss <= chan.guarantee.epsilon + 4.5 * se
    assert loss > chan.guarantee.epsilon - 4.5 * se          # the bound is attained

    paper = HybridCounter(1, epsilon=eps, split="paper")
    loss_p, se_p = _joint_event_log_ratio(
        lambda n, s: HybridCounter(n, epsilon=eps, split="paper", rng=s))
    assert loss_p <= paper.guarantee.epsilon + 4.5 * se_p
    assert loss_p > paper.paper_claim.epsilon + 4.5 * se_p   # the paper's claim is violated

    # half the noise in both halves, still claiming eps: caught
    loss_h, se_h = _joint_event_log_ratio(
        lambda n, s: HybridCounter(n, epsilon=2 * eps, rng=s))
    assert loss_h > chan.guarantee.epsilon + 4.5 * se_h


# ------------------------------------------------------------------ guarantees from the draws
@pytest.mark.parametrize("base", [2, "e"])
@pytest.mark.parametrize("split", ["chan", "paper"])
@pytest.mark.parametrize("multiplier", [1.0, 0.5])
def test_hybrid_guarantee_equals_the_loss_of_the_scales_drawn(base, split, multiplier):
    """White-box: the first item of epoch k enters one logarithmic block (scale b_L) and k
    tree nodes (scale b_B(k)), so its loss is 1/b_L + k/b_B(k), read from the scales the
    counter actually draws with; the reported guarantee must equal it (dropping the 1/ln 2 of
    the natural-log tree, or ignoring the noise multiplier, would not)."""
    from dpolearn.mechanisms.counters import tree_scale_factor

    eps = 0.8
    h = HybridCounter(1, epsilon=eps, split=split, tree_log_base=base, rng=0,
                      noise_multiplier=multiplier)
    for _ in range(2 ** 5 + 1):                      # into epoch k = 5
        h.step(1.0)
    k = 5
    loss = 1.0 / float(h.log_.noise_scale[0]) + k / float(h.tree_.noise_scale[0])
    assert float(h.guarantee.epsilon) == pytest.approx(loss, rel=1e-12)
    expected = (eps / 2 if split == "chan" else eps) * (1 + 1 / tree_scale_factor(base))
    assert loss == pytest.approx(expected / multiplier, rel=1e-12)
    noise = CounterNoise(1, 1, kind="hybrid", epsilon_log=h.epsilon_log, tree_log_base=base,
                         epsilon_tree=h.epsilon_tree, noise_multiplier=multiplier, rng=0)
    cn_loss = 1.0 / noise.b_log[0] + k / noise.tree_noise_scale(k)[0]
    assert float(noise.guarantee.epsilon) == pytest.approx(cn_loss, rel=1e-12)
    assert cn_loss == pytest.approx(loss, rel=1e-12)


def test_binary_counter_noise_multiplier():
    c = BinaryCounter(1, epsilon=1.0, levels=4, noise_multiplier=0.5, rng=0)
    assert float(c.noise_scale[0]) == 2.0                    # levels / eps * 0.5
    assert c.guarantee == PureDP(2.0)                        # levels nodes of scale 2


def test_empty_binary_counter_refuses_every_item():
    """levels=0 is the documented empty tree (the hybrid counter's first epoch): it holds no
    item, claims no privacy loss and refuses an item with an error naming the levels."""
    from dpolearn.mechanisms import BinaryCounter

    c = BinaryCounter(2, epsilon=1.0, levels=0, rng=0)
    assert c.guarantee.epsilon == 0
    with pytest.raises(ValueError, match="stream longer than 2\\*\\*levels - 1 items; levels = 0"):
        c.step(1.0)
