"""Tests of the primer chapter's experiments (dpolearn/experiments/primer.py).

Statistical tolerances are k standard errors with the standard error computed from the
sample size of the experiment (k = 4.5 where many comparisons are made at once, so a
correct implementation fails with probability well below 1e-3 per test).
"""
from __future__ import annotations

import csv
import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from scipy import stats  # noqa: E402

import dpolearn as dpl  # noqa: E402
from dpolearn import lower_bounds  # noqa: E402
from dpolearn.experiments import primer  # noqa: E402
from dpolearn.mechanisms import ReportNoisyMax  # noqa: E402

K_SIGMA = 4.5
IDS = ("primer-ucb-ts", "primer-laplace-loss", "primer-rnm", "primer-attack")


@pytest.fixture(scope="module")
def data():
    """Each primer experiment once, at quick scale, seed 0, bypassing the disk cache."""
    return {id_: dpl.experiments.run(id_, "quick", seed=0, cache=False, progress=False)
            for id_ in IDS}


# ------------------------------------------------------------------ registry and outputs

#: The two primer chapters: bandits and what privacy protects / mechanisms and composition.
CHAPTER = {"primer-ucb-ts": "primer", "primer-attack": "primer",
           "primer-laplace-loss": "dp_primer", "primer-rnm": "dp_primer"}


def test_primer_ids_are_registered_for_their_primer_chapter():
    for id_ in IDS:
        assert id_ in dpl.experiments.ids()
        assert dpl.experiments.get(id_).chapter == CHAPTER[id_]


def test_write_outputs_gives_figures_and_summary_csv(data, tmp_path):
    for id_ in IDS:
        target = dpl.experiments.write_outputs(id_, data[id_], tmp_path)
        assert (target / "figure.png").stat().st_size > 0
        assert (target / "figure.svg").stat().st_size > 0
    plt.close("all")
    with open(tmp_path / "primer-ucb-ts" / "summary.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0][:8] == ["experiment", "panel", "algorithm", "epsilon", "horizon", "n_runs",
                           "final_regret_mean", "final_regret_se"]
    assert [r[2] for r in rows[1:]] == ["UCB1", "TS (Beta)"]


# ------------------------------------------------------------------ primer-ucb-ts

def test_ucb_ts_shapes(data):
    d = data["primer-ucb-ts"]
    horizon, n_runs = primer._UCB_TS_SIZES["quick"]
    for label in ("UCB1", "TS (Beta)"):
        res = d[label]
        assert res.label == label
        assert res.regret.shape == (n_runs, res.checkpoints.size)
        assert res.checkpoints[-1] == horizon
        assert res.pulls.shape == (n_runs, 2)
        assert np.all(res.pulls.sum(axis=1) == horizon)
    assert d["ucb1_bound"].shape == d["UCB1"].checkpoints.shape
    np.testing.assert_array_equal(d["means"], [0.9, 0.6])


def test_ucb_ts_summary_rows(data):
    d = data["primer-ucb-ts"]
    rows = dpl.experiments.get("primer-ucb-ts").summary(d)
    assert len(rows) == 2
    for row, label in zip(rows, ("UCB1", "TS (Beta)")):
        assert list(row)[:8] == dpl.experiments.SUMMARY_COLUMNS[:8]
        assert row["experiment"] == "primer-ucb-ts"
        assert row["algorithm"] == label
        assert row["epsilon"] == ""                       # non-private baselines
        assert row["horizon"] == primer._UCB_TS_SIZES["quick"][0]
        assert row["n_runs"] == primer._UCB_TS_SIZES["quick"][1]
        assert row["final_regret_mean"] == pytest.approx(d[label].regret[:, -1].mean())
        assert row["final_regret_se"] == pytest.approx(
            d[label].regret[:, -1].std(ddof=1) / math.sqrt(d[label].n_runs))
        assert row["ucb1_bound_at_horizon"] == pytest.approx(d["ucb1_bound"][-1])


def test_ucb1_bound_formula_by_hand():
    # Auer et al. (2002), Theorem 1, gaps (0, 0.3), t = 100.
    expected = 8 * math.log(100) / 0.3 + (1 + math.pi ** 2 / 3) * 0.3
    assert primer.ucb1_bound([0.9, 0.6], [100])[0] == pytest.approx(expected, rel=1e-12)
    # Three arms: both suboptimal arms contribute.
    expected3 = (8 * math.log(50) * (1 / 0.2 + 1 / 0.5)
                 + (1 + math.pi ** 2 / 3) * (0.2 + 0.5))
    assert primer.ucb1_bound([0.3, 0.5, 0.0], [50])[0] == pytest.approx(expected3, rel=1e-12)


def test_lai_robbins_and_heuristic_rates_by_hand():
    kl = 0.6 * math.log(0.6 / 0.9) + 0.4 * math.log(0.4 / 0.1)
    assert lower_bounds.lai_robbins_constant([0.9, 0.6]) == pytest.approx(0.3 / kl, rel=1e-12)
    assert primer.ucb1_heuristic_rate([0.9, 0.6]) == pytest.approx(2 / 0.3, rel=1e-12)


def _check_bound_above_ucb1(d):
    ucb = d["UCB1"]
    upper = ucb.mean() + K_SIGMA * ucb.se()
    assert np.all(d["ucb1_bound"] >= upper), "the measured UCB1 regret crosses the UCB1 bound"
    # The bound is not vacuous here: it is within a factor 20 of the measured regret at T.
    assert d["ucb1_bound"][-1] < 20 * ucb.final_mean


def _check_log_growth_and_ts_below_ucb1(d):
    ucb, ts = d["UCB1"], d["TS (Beta)"]
    t = ucb.checkpoints
    horizon = t[-1]
    i_tenth = int(np.argmin(np.abs(t - horizon / 10)))
    # One more decade of rounds: logarithmic growth multiplies regret by about
    # ln T / ln(T/10) (1.33 at T = 10^4); linear growth would multiply it by 10.
    ratio = ucb.final_mean / ucb.mean()[i_tenth]
    assert 1.0 < ratio < 2.0
    # regret / ln T stays below the heuristic long-run UCB1 rate 2/Delta.
    assert ucb.final_mean / math.log(horizon) < d["ucb1_heuristic_rate"]
    # Thompson Sampling below UCB1 at the horizon, by more than K_SIGMA standard errors.
    gap_se = math.hypot(ucb.final_se, ts.final_se)
    assert ts.final_mean + K_SIGMA * gap_se < ucb.final_mean


def test_ucb1_bound_is_above_measured_ucb1_regret(data):
    _check_bound_above_ucb1(data["primer-ucb-ts"])


def test_regret_grows_logarithmically_and_ts_beats_ucb1(data):
    _check_log_growth_and_ts_below_ucb1(data["primer-ucb-ts"])


@pytest.mark.slow
def test_paper_scale_claim_of_issue_2():
    """UCB1 and Beta-TS on (0.9, 0.6), T = 10^5, 20 runs: logarithmic growth checked against
    the UCB1 bound, and TS below UCB1 (about 10 s on one core)."""
    d = dpl.experiments.run("primer-ucb-ts", "paper", seed=0, cache=False, progress=False)
    assert d["UCB1"].horizon == 100_000 and d["UCB1"].n_runs == 20
    _check_bound_above_ucb1(d)
    _check_log_growth_and_ts_below_ucb1(d)


def test_ucb_ts_same_seed_same_bits_different_seed_differs(data):
    again = dpl.experiments.run("primer-ucb-ts", "quick", seed=0, cache=False, progress=False)
    other = dpl.experiments.run("primer-ucb-ts", "quick", seed=1, cache=False, progress=False)
    for label in ("UCB1", "TS (Beta)"):
        np.testing.assert_array_equal(again[label].regret, data["primer-ucb-ts"][label].regret)
        assert not np.array_equal(other[label].regret, again[label].regret)


def test_ucb_ts_does_not_depend_on_jobs(data):
    two = dpl.experiments.run("primer-ucb-ts", "quick", seed=0, jobs=2, cache=False,
                              progress=False)
    for label in ("UCB1", "TS (Beta)"):
        np.testing.assert_array_equal(two[label].regret, data["primer-ucb-ts"][label].regret)


# ------------------------------------------------------------------ primer-laplace-loss

def test_bin_privacy_loss_formula_for_laplace():
    law = stats.laplace(scale=0.5)               # epsilon = 2, sensitivity 1
    edges = np.array([-3.0, -1.0, 0.0, 0.5, 1.0, 2.0, 4.0])
    loss = primer.bin_privacy_loss(law, edges)
    # Bins left of 0: every point is nearer to 0 than to 1 by exactly 1, loss = +eps;
    # bins right of 1: -eps; the bin [0, 0.5] by its CDF differences.
    np.testing.assert_allclose(loss[:2], 2.0, rtol=1e-12)
    np.testing.assert_allclose(loss[-2:], -2.0, rtol=1e-12)
    p = law.cdf(0.5) - law.cdf(0.0)
    q = law.cdf(-0.5) - law.cdf(-1.0)
    assert loss[2] == pytest.approx(math.log(p / q), rel=1e-12)


def test_laplace_loss_shapes(data):
    d = data["primer-laplace-loss"]
    n_bins = d["edges"].size - 1
    assert [m["name"] for m in d["mechanisms"]] == [
        "Laplace, b = 1/eps", "broken Laplace, b = 1/(2 eps)", "Gaussian, sigma = 1/eps"]
    for mech in d["mechanisms"]:
        for key in ("empirical", "se", "exact"):
            assert mech[key].shape == (n_bins,)
    assert d["n"] == primer._LOSS_SIZES["quick"]


def test_monte_carlo_loss_agrees_with_exact_bin_loss(data):
    for mech in data["primer-laplace-loss"]["mechanisms"]:
        ok = np.isfinite(mech["empirical"])
        assert ok.sum() >= 20, mech["name"]
        z = (mech["empirical"][ok] - mech["exact"][ok]) / mech["se"][ok]
        assert np.max(np.abs(z)) < K_SIGMA, (mech["name"], np.max(np.abs(z)))


def test_laplace_passes_and_half_noise_laplace_is_caught(data):
    d = data["primer-laplace-loss"]
    eps = d["epsilon"]
    correct, broken, gauss = d["mechanisms"]
    # Exact check of the DP inequality on every bin: |loss| <= eps for the real mechanism ...
    assert np.max(np.abs(correct["exact"])) <= eps + 1e-9
    assert correct["guarantee"] == dpl.PureDP(epsilon=eps)
    # ... and the Monte Carlo estimates do not reject it ...
    ok = np.isfinite(correct["empirical"])
    assert np.all(np.abs(correct["empirical"][ok]) - K_SIGMA * correct["se"][ok] <= eps)
    # ... while the half-noise variant is rejected, exactly and by Monte Carlo.
    assert np.max(np.abs(broken["exact"])) == pytest.approx(2 * eps, rel=1e-9)
    ok = np.isfinite(broken["empirical"])
    assert np.any(np.abs(broken["empirical"][ok]) - K_SIGMA * broken["se"][ok] > eps)
    # The Gaussian mechanism is not pure DP: its loss is unbounded (linear in y).
    assert np.max(np.abs(gauss["exact"])) > 2 * eps


def test_laplace_loss_is_deterministic():
    a = dpl.experiments.run("primer-laplace-loss", "quick", seed=3, cache=False)
    b = dpl.experiments.run("primer-laplace-loss", "quick", seed=3, cache=False)
    c = dpl.experiments.run("primer-laplace-loss", "quick", seed=4, cache=False)
    for ma, mb, mc in zip(a["mechanisms"], b["mechanisms"], c["mechanisms"]):
        np.testing.assert_array_equal(ma["empirical"], mb["empirical"])
        assert not np.array_equal(np.nan_to_num(ma["empirical"]), np.nan_to_num(mc["empirical"]))


# ------------------------------------------------------------------ primer-rnm

def test_rnm_shapes(data):
    d = data["primer-rnm"]
    assert set(d["families"]) == {"laplace", "exponential", "gumbel"}
    for fam in d["families"].values():
        assert fam["exact"].shape == fam["mc"].shape == (3,)
        assert fam["two_sided"].shape == fam["monotone"].shape == d["gaps"].shape
        assert fam["exact"].sum() == pytest.approx(1.0, abs=1e-9)


def test_rnm_monte_carlo_matches_exact_probabilities(data):
    d = data["primer-rnm"]
    n = d["n"]
    for noise, fam in d["families"].items():
        se = np.sqrt(fam["exact"] * (1 - fam["exact"]) / n)
        assert np.all(np.abs(fam["mc"] - fam["exact"]) < K_SIGMA * se), noise


def test_rnm_gumbel_two_sided_loss_formula():
    # Gumbel noise is the exponential mechanism: P(arm 0) = 1 / (1 + exp(s_1 - s_0)) at b = 1.
    # Scores (0, d) -> (1, d - 1): arm 0's log-probability moves by
    # ln(1 + e^d) - ln(1 + e^(d-2)), arm 1's by ln(1 + e^(2-d)) - ln(1 + e^(-d)).
    unit = ReportNoisyMax(scale=1.0, noise="gumbel")
    for d in (0.0, 2.5, 8.0):
        expected = max(math.log1p(math.exp(d)) - math.log1p(math.exp(d - 2.0)),
                       math.log1p(math.exp(2.0 - d)) - math.log1p(math.exp(-d)))
        got = unit.max_privacy_loss([0.0, d], [1.0, d - 1.0])
        assert got == pytest.approx(expected, rel=1e-9)


def test_rnm_monotone_costs_eps_two_sided_costs_up_to_2eps(data):
    d = data["primer-rnm"]
    for noise, fam in d["families"].items():
        # Scale b = 1: monotone changes stay within eps = 1 (Dwork and Roth, Claim 3.9) ...
        assert np.all(fam["monotone"] <= 1.0 + 1e-6), noise
        # ... two-sided changes never exceed 2 / b = 2 ...
        assert np.all(fam["two_sided"] <= 2.0 + 1e-6), noise
        # ... and do exceed the monotone eps, approaching 2 at large gaps: the factor 2 is real.
        assert fam["two_sided"][-1] > 1.7, noise


def test_rnm_family_is_deterministic(monkeypatch):
    monkeypatch.setattr(primer, "_RNM_GAPS", np.array([0.0, 1.0]))
    seed = dpl.experiments.derive_seed("primer-rnm", "laplace", 0)
    a = primer._rnm_family(("laplace", 2_000, seed))
    b = primer._rnm_family(
        ("laplace", 2_000, dpl.experiments.derive_seed("primer-rnm", "laplace", 0))
    )
    np.testing.assert_array_equal(a["mc"], b["mc"])
    np.testing.assert_array_equal(a["two_sided"], b["two_sided"])


# ------------------------------------------------------------------ primer-attack

def test_exact_running_mean_leaks_the_reward(data):
    assert data["primer-attack"]["exact_success"] == 1.0


def test_attack_one_release_matches_exact_rate_and_dp_cap(data):
    d = data["primer-attack"]
    n, eps = d["n"], d["epsilons"]
    exact = 1 - 0.5 * np.exp(-eps / 2)         # threshold test on r + Lap(1/eps)
    se = np.sqrt(exact * (1 - exact) / n)
    assert np.all(np.abs(d["one_release"] - exact) < K_SIGMA * se)
    cap = np.exp(eps) / (1 + np.exp(eps))
    assert np.all(d["one_release"] <= cap + K_SIGMA * se)


def test_attack_repeated_releases_compose(data):
    d = data["primer-attack"]
    n, k = d["n"], d["releases"]
    rate = d["repeated"]
    se = np.sqrt(0.25 / n)
    cap = 1 / (1 + np.exp(-k * d["eps_repeat"]))
    assert np.all(rate <= cap + K_SIGMA * se)
    # More releases, more leakage: the last rate is far above the single-release one.
    assert rate[-1] - rate[0] > 10 * se


def test_attack_half_noise_release_is_caught():
    # A curator that adds Lap(1/(2 eps)) noise but claims eps: the attacker beats the eps cap.
    rng = np.random.default_rng(11)
    eps, n = 1.0, 20_000
    rate = primer.attack_success(2 * eps, 1, n, rng)[0]
    cap = np.exp(eps) / (1 + np.exp(eps))
    assert rate - K_SIGMA * math.sqrt(0.25 / n) > cap
    # The honest curator is not caught by the same test.
    honest = primer.attack_success(eps, 1, n, np.random.default_rng(12))[0]
    assert honest - K_SIGMA * math.sqrt(0.25 / n) <= cap


def test_attack_success_chunking_does_not_change_statistics():
    # Many releases force several chunks; the rate must still match the one-release exact
    # rate pattern in expectation (k = 1) and be reproducible from the seed.
    a = primer.attack_success([0.5, 1.0], 3, 5_000, np.random.default_rng(5))
    b = primer.attack_success([0.5, 1.0], 3, 5_000, np.random.default_rng(5))
    np.testing.assert_array_equal(a, b)
    assert a.shape == (2,)
    assert np.all((a > 0.5) & (a < 1.0))
