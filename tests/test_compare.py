"""Tests of the comparison chapter's experiments (dpolearn/experiments/compare.py).

Statistical tolerances are K_SIGMA standard errors of the difference, computed from the runs.
The whole-grid fixture runs at a tiny size (T = 300, 2 runs per cell) so the file stays fast;
it still covers every algorithm, instance group and epsilon.
"""
from __future__ import annotations

import csv
import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import dpolearn as dpl  # noqa: E402
from dpolearn.accounting import ApproxDP, GaussianDP, NotPrivate, PureDP  # noqa: E402
from dpolearn.envs import BernoulliBandit  # noqa: E402
from dpolearn.experiments import compare as cmp  # noqa: E402
from dpolearn.experiments import compare_fullinfo  # noqa: E402
from dpolearn.experiments.registry import SUMMARY_COLUMNS  # noqa: E402
from dpolearn.gdp import pure_dp_to_gdp, tradeoff_eps_delta, tradeoff_gaussian  # noqa: E402

K_SIGMA = 4.5
TINY = {"horizon": 300, "n_runs": 2, "fullinfo_horizon": 2 ** 8, "fullinfo_runs": 4}


@pytest.fixture(scope="module")
def tiny(request):
    """compare-bandits and compare-fullinfo computed at a tiny size, jobs = 1."""
    old = cmp.SIZES["quick"]
    cmp.SIZES["quick"] = TINY
    request.addfinalizer(lambda: cmp.SIZES.__setitem__("quick", old))
    return {"bandits": cmp._bandit_compute("quick", 0, 1, False),
            "fullinfo": compare_fullinfo.fullinfo_compute("quick", 0, 1, False)}


# ------------------------------------------------------------------ coverage of the table
def test_algorithm_set_equals_exported_bandit_policies():
    exported = cmp.exported_bandit_labels()
    assert set(cmp.BANDIT_ALGORITHMS) == exported
    # the exported set is what dpolearn.bandits says, not a list copied here
    assert {"UCB1", "DP-TS-UCB", "M-TS-Gaussian", "Private-UCB"} <= exported


def test_leaderboard_rows_cover_every_exported_policy_on_every_instance(tiny):
    data = tiny["bandits"]
    exported = cmp.exported_bandit_labels()
    for inst in cmp.LEADERBOARD_INSTANCES:
        rows = cmp.leaderboard(data, inst)
        assert {r["algorithm"] for r in rows} == exported
        table = cmp.leaderboard_markdown(data, inst)
        body = table.splitlines()[2:]
        assert len(body) == len(exported)
        assert {line.split("|")[1].strip() for line in body} == exported


def test_every_cell_present_with_its_grid(tiny):
    data = tiny["bandits"]
    for label in cmp.BANDIT_ALGORITHMS:
        grid = cmp.epsilon_grid(label) or (None,)
        for inst in cmp.INSTANCES:
            for e in grid:
                c = cmp.cell(data, label, inst, e)
                assert c["result"].n_runs == TINY["n_runs"]
                assert c["result"].horizon == TINY["horizon"]
                assert c["result"].label == label
    assert len(data["cells"]) == sum(len(cmp.epsilon_grid(a) or (None,)) for a in
                                     cmp.BANDIT_ALGORITHMS) * len(cmp.INSTANCES)


# ------------------------------------------------------------------ the common privacy scale
@pytest.mark.parametrize("label", [a for a, k in cmp.BANDIT_ALGORITHMS.items() if k != "none"])
def test_configured_guarantee_is_the_grid_value(label):
    T = 1000
    grid = cmp.epsilon_grid(label)
    for e in grid or (None,):
        policy = cmp.make_bandit_policy(label, e, T)
        policy.reset(1, 5, np.random.default_rng(0))
        g = policy.guarantee
        kind = cmp.BANDIT_ALGORITHMS[label]
        if label == "Uniform":
            assert g == PureDP(epsilon=0.0)
        elif kind == "pure":
            assert isinstance(g, PureDP) and float(g.epsilon) == pytest.approx(e, rel=1e-12)
        elif kind == "approx":
            assert isinstance(g, ApproxDP)
            assert float(g.epsilon) == pytest.approx(e, rel=1e-6)
            assert float(g.delta) == pytest.approx(math.exp(-10))
        elif label == "M-TS-Gaussian":
            assert isinstance(g, GaussianDP)
            assert float(g.mu) == pytest.approx(float(pure_dp_to_gdp(e)), rel=1e-12)
        else:                                               # DP-TS-UCB at alpha = 1
            assert isinstance(g, GaussianDP) and float(g.mu) == pytest.approx(2.874972, abs=1e-6)


def test_nonprivate_baselines_say_so():
    for label in ("UCB1", "KL-UCB", "TS (Beta)", "TS (Gaussian)"):
        assert cmp.make_bandit_policy(label, None, 100).guarantee == NotPrivate()
        assert cmp.privacy_level(NotPrivate())["epsilon"] == math.inf


def test_dp_ucb_int_grid_stops_at_one():
    assert cmp.epsilon_grid("DP-UCB-INT") == tuple(e for e in cmp.EPSILONS if e <= 1)
    with pytest.raises(ValueError, match="epsilon_target"):
        cmp.make_bandit_policy("DP-UCB-INT", 2.0, 100)


@pytest.mark.parametrize("eps", [0.01, 0.1, 0.5, 1.0, 2.5, 8.0])
def test_gdp_equivalent_epsilon_inverts_pure_dp_to_gdp(eps):
    assert cmp.gdp_equivalent_epsilon(pure_dp_to_gdp(eps)) == pytest.approx(eps, rel=1e-10)


@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 2.5])
def test_pure_dp_implies_matched_gdp_and_a_smaller_mu_is_caught(eps):
    """The matching is a DP inequality between trade-off curves: eps-DP (curve f_{eps,0})
    implies mu-GDP iff f_{eps,0} >= G_mu everywhere. It holds at mu = pure_dp_to_gdp(eps)
    (equality at the kink), and a broken matching with 0.95 mu is violated."""
    x = np.linspace(0, 1, 20001)
    f = tradeoff_eps_delta(x, eps, 0.0)
    mu = float(pure_dp_to_gdp(eps))
    assert np.all(f >= tradeoff_gaussian(x, mu) - 1e-12)
    assert np.min(f - tradeoff_gaussian(x, mu)) == pytest.approx(0.0, abs=1e-4)
    assert np.min(f - tradeoff_gaussian(x, 0.95 * mu)) < -1e-3


def test_dp_ts_ucb_placement_and_delta():
    mu = 2.874972
    e = cmp.gdp_equivalent_epsilon(mu)
    assert 2.4 < e < 2.6
    lv = cmp.privacy_level(GaussianDP(mu=mu))
    assert lv["epsilon"] == pytest.approx(e)
    assert lv["delta"] == pytest.approx(float(dpl.gdp.gdp_delta(e, mu)))
    # an eps-DP algorithm at the same GDP level has delta = 0 at that eps, the GDP one does not
    assert lv["delta"] > 0.01


def test_privacy_level_validation():
    with pytest.raises(TypeError, match="guarantee"):
        cmp.privacy_level(0.5)
    with pytest.raises(ValueError, match="mu"):
        cmp.gdp_equivalent_epsilon(0.0)
    with pytest.raises(ValueError, match="label"):
        cmp.make_bandit_policy("UCB2", 1.0, 100)
    with pytest.raises(ValueError, match="epsilon is required"):
        cmp.make_bandit_policy("DP-SE", None, 100)
    with pytest.raises(ValueError, match="label"):
        cmp.epsilon_grid("nope")
    with pytest.raises(ValueError, match="label"):
        cmp.make_fullinfo_policy("nope", 1.0)


def test_mts_gaussian_matching_formula():
    T = 20_000
    b = cmp.mts_pre_pulls(T)
    assert b == 40
    pol = cmp.make_bandit_policy("M-TS-Gaussian", np.array([0.5, 1.0]), T)
    mu = pure_dp_to_gdp(np.array([0.5, 1.0]))
    np.testing.assert_allclose(pol.c, T / ((b + 1) * mu ** 2))
    np.testing.assert_allclose(np.asarray(pol.guarantee.mu), mu)


@pytest.mark.parametrize("label", [a for a in cmp.FULLINFO_ALGORITHMS if a not in ("FTL", "Hedge")])
def test_fullinfo_policies_are_honestly_eps_dp(label):
    eps = np.array(cmp.EPSILONS)
    pol = cmp.make_fullinfo_policy(label, eps, 256)
    np.testing.assert_allclose(np.asarray(pol.guarantee.epsilon), eps, rtol=1e-12)


def test_fullinfo_presets_get_the_strict_noise_scale():
    """Hu et al.'s Lap(1/eps) is only 2 eps-DP: calibrated to eps it becomes Lap(2/eps)."""
    strict = cmp.make_fullinfo_policy("RNM-FTNL (strict, Lap)", 0.5)
    hu = cmp.make_fullinfo_policy("RNM-FTNL (hu2021 preset)", 0.5)
    assert hu.noise_scale() == pytest.approx(strict.noise_scale()) == pytest.approx(4.0)
    assert hu.first_action == "first" and strict.first_action == "uniform"
    wu_exp = cmp.make_fullinfo_policy("RNM-FTNL (wu2025 preset, Exp)", 0.5)
    assert wu_exp.noise_scale() == pytest.approx(4.0) and wu_exp.resample


# ------------------------------------------------------------------ batching and randomness
def test_arm_permuted_rows_are_permutations_and_uniform():
    means = np.tile(np.array([0.9, 0.5, 0.4, 0.3]), (4000, 1))
    out = cmp.arm_permuted(means, 7)
    np.testing.assert_array_equal(np.sort(out, axis=1), np.sort(means, axis=1))
    np.testing.assert_array_equal(out, cmp.arm_permuted(means, 7))
    # position of the best arm: uniform over 4 positions
    freq = np.bincount(np.argmax(out, axis=1), minlength=4) / len(out)
    sd = math.sqrt(0.25 * 0.75 / len(out))
    assert np.all(np.abs(freq - 0.25) < K_SIGMA * sd)


def test_arm_order_is_common_to_all_algorithms():
    """Every algorithm sees the same permuted instances (same seed for the arm order)."""
    seed_a = cmp.derive_seed("compare-bandits", "arm order", 2, 0)
    seed_b = cmp.derive_seed("compare-bandits", "arm order", 2, 0)
    m = np.tile([0.6, 0.4], (10, 1))
    np.testing.assert_array_equal(cmp.arm_permuted(m, seed_a), cmp.arm_permuted(m, seed_b))


@pytest.mark.parametrize("label", ["AdaP-UCB", "Lazy-DP-TS"])
def test_batched_cell_agrees_with_a_separate_run(label):
    """One cell of the (instance x epsilon) batch has the distribution of a separate
    simulation of that cell: compare final regret means within K_SIGMA standard errors."""
    T, n = 400, 300
    names = cmp._groups()[2]
    grid = cmp.epsilon_grid(label)
    means = np.repeat(np.array([cmp.INSTANCES[x] for x in names]), len(grid) * n, axis=0)
    eps = np.tile(np.repeat(grid, n), len(names))
    res = dpl.simulate(cmp.make_bandit_policy(label, eps, T), BernoulliBandit(means), T,
                       len(means), seed=1, checkpoints=[T], progress=False)
    parts = res.split(len(names) * len(grid))
    i_inst, i_eps = names.index("2 arms, gap 0.4"), grid.index(1.0)
    part = parts[i_inst * len(grid) + i_eps]
    assert part.params["epsilon"] == 1.0
    alone = dpl.simulate(cmp.make_bandit_policy(label, 1.0, T),
                         BernoulliBandit(cmp.INSTANCES["2 arms, gap 0.4"]), T, n, seed=2,
                         checkpoints=[T], progress=False)
    diff = part.final_mean - alone.final_mean
    assert abs(diff) < K_SIGMA * math.hypot(part.final_se, alone.final_se)
    # and the cells really differ with epsilon (the batch is not one configuration)
    assert parts[i_inst * len(grid)].final_mean > part.final_mean


@pytest.mark.parametrize("label", [a for a, k in cmp.BANDIT_ALGORITHMS.items() if k != "none"])
def test_batch_cells_carry_the_scalar_configuration(label, tiny):
    """Each cell of a batch carries the guarantee and epsilon of the same policy configured
    with that cell's scalar epsilon, as a one-run simulation would."""
    T = TINY["horizon"]
    for e in cmp.epsilon_grid(label) or (None,):
        c = cmp.cell(tiny["bandits"], label, "2 arms, gap 0.4", e)
        single = cmp.make_bandit_policy(label, e, T)
        single.reset(1, 2, np.random.default_rng(0))
        assert c["result"].guarantee == single.guarantee
        one = dpl.simulate(cmp.make_bandit_policy(label, e, T),
                           BernoulliBandit(cmp.INSTANCES["2 arms, gap 0.4"]), T, 1, seed=0,
                           checkpoints=cmp._checkpoints(T), progress=False)
        assert one.guarantee == c["result"].guarantee
        np.testing.assert_array_equal(one.checkpoints, c["result"].checkpoints)
        if e is not None:
            assert c["result"].params.get("epsilon", e) == pytest.approx(
                one.params.get("epsilon", e)
            )


def test_results_do_not_depend_on_jobs(tiny):
    old = cmp.SIZES["quick"]
    cmp.SIZES["quick"] = TINY
    try:
        again = cmp._bandit_compute("quick", 0, 2, False)
    finally:
        cmp.SIZES["quick"] = old
    for a, b in zip(tiny["bandits"]["cells"], again["cells"]):
        assert (a["algorithm"], a["instance"], a["epsilon"]) == (
            b["algorithm"],
            b["instance"],
            b["epsilon"],
        )
        np.testing.assert_array_equal(a["result"].regret, b["result"].regret)


# ------------------------------------------------------------------ tables, rows, figures
def test_summary_rows(tiny):
    rows = cmp._bandit_summary(tiny["bandits"])
    assert len(rows) == len(tiny["bandits"]["cells"])
    for row in rows:
        assert list(row)[:len(SUMMARY_COLUMNS)] == SUMMARY_COLUMNS
        kind = cmp.BANDIT_ALGORITHMS[row["algorithm"]]
        if kind == "gdp":
            assert row["epsilon"] == ""
        elif kind in ("pure", "approx") and row["algorithm"] != "Uniform":
            assert row["target_epsilon"] in cmp.EPSILONS
            assert row["comparison_epsilon"] == pytest.approx(row["target_epsilon"], rel=1e-6)
            if kind == "pure":                   # the input epsilon is the target
                assert row["epsilon"] == row["target_epsilon"]
            else:                                # DP-UCB-INT: calibrated input (Cor. 3.2)
                assert 0 < row["epsilon"] < row["target_epsilon"]
    frows = compare_fullinfo.fullinfo_summary(tiny["fullinfo"])
    assert {r["algorithm"] for r in frows} == set(cmp.FULLINFO_ALGORITHMS)


def test_winners_uses_two_standard_errors():
    def res(mean, se, label):
        n = 4
        reg = np.full((n, 1), mean) + se * np.sqrt(n) * np.array(
            [[-1], [1], [-1], [1]]
        ) / math.sqrt(4 / 3)
        return dpl.Result(reg, np.array([10]), np.zeros((n, 2)), label, 10, n, 0)

    data = {
        "epsilons": (1.0,),
        "algorithms": ["A", "B"],
        "leaderboard_instances": ("i",),
        "cells": [
            {"algorithm": "A", "instance": "i", "epsilon": 1.0, "result": res(10, 1, "A")},
            {"algorithm": "B", "instance": "i", "epsilon": 1.0, "result": res(12, 1, "B")},
        ],
    }
    w = cmp.winners(data, labels=["A", "B"])[0]
    assert w["best"] == "A" and w["second"] == "B"
    assert w["z"] == pytest.approx(2 / math.sqrt(2), rel=1e-6)
    assert not w["clear"]


def test_figures_and_outputs(tiny, tmp_path):
    for id_, data in (("compare-bandits", tiny["bandits"]), ("compare-fullinfo", tiny["fullinfo"])):
        fig = dpl.experiments.figure(id_, data)
        assert len(fig.axes) >= 2
        plt.close(fig)
    gap = {
        "cells": [c for c in tiny["bandits"]["cells"] if c["instance"].startswith("2 arms, gap")],
        "gaps": cmp.GAPS,
        "instances": [f"2 arms, gap {g:g}" for g in cmp.GAPS],
        "epsilons": cmp.EPSILONS,
        "algorithms": list(cmp.BANDIT_ALGORITHMS),
        "horizon": TINY["horizon"],
        "n_runs": TINY["n_runs"],
        "panel_epsilons": (0.5, 2.0),
    }
    plt.close(dpl.experiments.figure("compare-gap", gap))
    target = dpl.experiments.write_outputs("compare-fullinfo", tiny["fullinfo"], tmp_path)
    with open(target / "summary.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == len(tiny["fullinfo"]["cells"])


def test_ids_registered_for_the_chapter():
    for id_ in ("compare-bandits", "compare-gap", "compare-ranking"):
        assert id_ in dpl.experiments.ids()
        assert dpl.experiments.get(id_).chapter == "comparison"


def test_chapter_draws_its_tables_from_the_registered_experiments():
    """The chapter's numbers come from the registered experiments (same simulation code), and
    its leaderboard is drawn for every leaderboard instance."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "book" / "comparison.md").read_text()
    for id_ in ("compare-bandits", "compare-gap", "compare-ranking"):
        assert f'dpl.experiments.run("{id_}")' in text
    assert 'for inst in data["leaderboard_instances"]' in text
    assert "cmp.leaderboard_markdown(data, inst)" in text


def test_winners_deterministic_cells():
    """Two cells with standard error 0: equal means are a tie, different means a clear lead."""
    def res(mean, label):
        return dpl.Result(np.full((3, 1), float(mean)), np.array([10]), np.zeros((3, 2)), label,
                          10, 3, 0)

    for other, clear in ((4590.0, False), (4600.0, True)):
        data = {
            "epsilons": (1.0,),
            "algorithms": ["A", "B"],
            "leaderboard_instances": ("i",),
            "cells": [
                {"algorithm": "A", "instance": "i", "epsilon": 1.0, "result": res(4590, "A")},
                {"algorithm": "B", "instance": "i", "epsilon": 1.0, "result": res(other, "B")},
            ],
        }
        w = cmp.winners(data, labels=["A", "B"])[0]
        assert w["clear"] is clear
