"""Each paper experiment at a setting of its own: one small override per experiment runs, has
its own cache entry (never the one of the default call) and draws a legible figure; a bad
override is refused, naming it, before anything runs."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

import dpolearn as dpl
from bookkit import figures as figure_audit
from dpolearn.experiments import _cache


def _entries(directory, id):
    return sorted(p.name for p in directory.iterdir() if p.name.startswith(f"{id}-quick-"))


def run_and_draw(tmp_path, monkeypatch, id, **overrides):
    """``run(id, "quick", **overrides)`` in an empty cache: the data, after checking that its
    entry is not the default call's and that the figure draws and passes the legibility check
    every book figure passes."""
    monkeypatch.setenv("DPOLEARN_CACHE", str(tmp_path))
    data = dpl.experiments.run(id, "quick", progress=False, **overrides)
    default = _cache.entry_path(tmp_path, _cache.entry_key(id, "quick", "0", _cache.source_hash()))
    entries = _entries(tmp_path, id)
    assert len(entries) == 1 and entries[0] != default.name, (entries, default.name)
    fig = dpl.experiments.figure(id, data)
    assert fig.axes and any(ax.has_data() for ax in fig.axes)
    assert figure_audit.legibility_problems(fig) == [], id
    plt.close(fig)
    return data


BAD = [
    ("tossou2016-int-schedules", {"algorithms": ["UCB1"]}, ValueError,
     "algorithms is not a setting of experiment 'tossou2016-int-schedules'"),
    ("tossou2016-int-schedules", {"means": [0.5, 1.2]}, ValueError, "means must lie in"),
    ("tossou2016-counter-error", {"epsilon": 0}, ValueError, "epsilon must be a finite number > 0"),
    ("tossou2016-counter-error", {"stream_length": 1.5}, TypeError, "stream_length must be"),
    ("tossou2016-counter-error", {"counters": ["ternary"]}, ValueError, "counters must hold"),
    ("hu2021-fullinfo", {"algorithms": ["FTRL"]}, ValueError, "algorithms must hold labels"),
    ("hu2021-fullinfo", {"epsilons": [0.5, -1]}, ValueError, "epsilons must hold finite"),
    ("hu2021-doubling-gap", {"Ks": [3, 64]}, ValueError, "Ks[1] must be <= 30"),
    ("hu2021-doubling-gap", {"Ks": 5}, TypeError, "Ks must be a sequence"),
    ("hu2021-lazy-schedule", {"epsilon": "1"}, TypeError, "epsilon must be a number > 0"),
    ("hu2021-lazy-schedule", {"horizon": 1}, ValueError, "horizon must be >= 2"),
    ("wu2025-regret-vs-K", {"log2K_mc": [1, 17]}, ValueError, "log2K_mc[1] must be <= 16"),
    ("wu2025-regret-vs-K", {"algorithms": ["Naive FTNL (Laplace K/ε)"]}, ValueError,
     "algorithms must hold labels among"),
    ("wu2025-regret-vs-eps", {"K": 1}, ValueError, "K must be >= 2"),
    ("wu2025-regret-vs-eps", {"epsilons": [0.1, 0.1]}, ValueError, "must not repeat"),
    ("wu2025-privacy", {"epsilon": float("inf")}, ValueError, "epsilon must be a finite"),
    ("wu2025-resampling", {"ns": [0]}, ValueError, "ns[0] must be >= 1"),
    ("wu2025-table1", {"horizon": 10}, ValueError, "takes no settings"),
    ("hu2025-fig3", {"alphas": [0.5, 1.5]}, ValueError, "alphas[1] must be a number in [0, 1]"),
    ("hu2025-fig3", {"horizons": [100, 100]}, ValueError, "horizons must not repeat"),
    ("hu2025-fig4", {"alphas": [True]}, TypeError, "alphas[0] must be a number"),
    ("hu2025-fig5", {"b_grid": [0, 1]}, ValueError, "b_grid is not a setting of experiment"),
    ("hu2025-fig6", {"b_grid": [-1]}, ValueError, "b_grid[0] must be >= 0"),
    ("hu2025-fig7", {"algorithms": ["DP-TS-UCB"]}, ValueError, "algorithms must hold labels"),
    ("hu2025-fig7", {"means": [0.5]}, ValueError, "means must describe K >= 2 arms"),
    ("hu2025-table-eps-delta", {"horizon": 10.0}, TypeError, "horizon must be an integer"),
]


@pytest.mark.parametrize("id, overrides, error, needle", BAD)
def test_a_bad_override_is_named_before_anything_runs(tmp_path, monkeypatch, id, overrides,
                                                      error, needle):
    monkeypatch.setenv("DPOLEARN_CACHE", str(tmp_path))
    with pytest.raises(error) as info:
        dpl.experiments.run(id, "quick", progress=False, **overrides)
    assert needle in str(info.value)
    assert not any(tmp_path.iterdir()), "nothing was computed"


# ------------------------------------------------------------------ tossou2016
def test_int_schedules_on_one_instance_at_one_epsilon(tmp_path, monkeypatch):
    data = run_and_draw(tmp_path, monkeypatch, "tossou2016-int-schedules", means=[0.7, 0.3],
                        epsilons=[0.5], horizon=300, n_runs=2)
    assert data["shape"] == (1, 1) and (data["horizon"], data["n_runs"]) == (300, 2)
    panel, = data["panels"]
    assert panel["target_epsilon"] == 0.5 and list(panel["means"]) == [0.7, 0.3]
    assert [(name, sch) for name, sch, _ in panel["results"]] == [
        ("UCB1", "fixed"), ("DP-UCB-INT", "fixed"), ("DP-UCB-INT", "lemmaB1_y"),
        ("DP-UCB-INT", "lemmaB1_x")]
    # pseudo-regret is at most T times the gap
    assert all(res.final_mean <= 0.4 * 300 + 1e-9 for _, _, res in panel["results"])


def test_counter_error_at_another_epsilon_scales_the_analytic_sd(tmp_path, monkeypatch):
    data = run_and_draw(tmp_path, monkeypatch, "tossou2016-counter-error", stream_length=64,
                        n_streams=20, epsilon=0.5, counters=["hybrid (paper)", "binary"])
    assert list(data["counters"]) == ["binary", "hybrid (paper)"]
    assert data["epsilon"] == 0.5 and data["n"][-1] == 64 and data["n_streams"] == 20
    # the binary counter's noise is pure Laplace of scale levels/epsilon: halving epsilon
    # doubles its analytic sd exactly
    base = dpl.experiments.tossou2016._counter_sd("binary", 64, 1.0)
    assert np.allclose(data["counters"]["binary"]["sd"], 2 * base)


# ------------------------------------------------------------------ hu2021 (the lazy schedule)
def test_lazy_schedule_on_two_arms(tmp_path, monkeypatch):
    data = run_and_draw(tmp_path, monkeypatch, "hu2021-lazy-schedule", means=[0.8, 0.2],
                        epsilon=0.5, horizon=200)
    assert data["epsilon"] == 0.5 and data["horizon"] == 200 and data["mu_tilde"].shape == (200, 2)
    assert data["n_pulls"].sum() == 200
    # each arm's batches double: a batch closes when the arm's pull count reaches 2^(r+1) - 1
    for t, arm, r in data["closes"]:
        assert np.sum(data["arms"][:t] == arm) == 2 ** (r + 1) - 1


# ------------------------------------------------------------------ hu2021_fullinfo
def test_fullinfo_on_another_instance(tmp_path, monkeypatch):
    data = run_and_draw(tmp_path, monkeypatch, "hu2021-fullinfo", means=[0.3, 0.7],
                        epsilons=[0.5], horizon=64, n_runs=2,
                        algorithms=["Naive FTNL", "FTL"])
    assert set(data["results"]) == {("FTL", None), ("Naive FTNL", 0.5)}
    assert data["means"] == (0.3, 0.7) and (data["horizon"], data["n_runs"]) == (64, 2)
    rows = dpl.experiments.get("hu2021-fullinfo").summary(data)
    assert {r["panel"] for r in rows} == {"rewards 0.3, 0.7 (K=2)"}
    # pseudo-regret is at most T times the gap
    assert all(0 <= res.final_mean <= 0.4 * 64 + 1e-9 for res in data["results"].values())


def test_doubling_gap_at_a_few_sizes(tmp_path, monkeypatch):
    data = run_and_draw(tmp_path, monkeypatch, "hu2021-doubling-gap", Ks=[5, 3],
                        algorithms=["Gumbel 2/ε"])
    assert data["Ks"] == (3, 5) and set(data["eps_R"]) == {("Gumbel 2/ε", 3), ("Gumbel 2/ε", 5)}
    assert all(v > 0 for v in data["eps_R"].values())


# ------------------------------------------------------------------ wu2025
def test_regret_vs_K_at_small_sizes(tmp_path, monkeypatch):
    data = run_and_draw(tmp_path, monkeypatch, "wu2025-regret-vs-K", log2K_tl=[2, 1],
                        log2K_lin=[1, 3], log2K_mc=[1, 2], n_runs=3, epsilon=0.5,
                        algorithms=["Gumbel 2/ε", "Laplace 2/ε"])
    assert data["algorithms"] == ("Laplace 2/ε", "Gumbel 2/ε") and data["eps_mc"] == 0.5
    assert set(data["exact"]) == {(f, n, K) for n in data["algorithms"]
                                  for f, Ks in (("TL", (2, 4)), ("LIN", (2, 8))) for K in Ks}
    assert set(data["mc"]) == {(n, K) for n in data["algorithms"] for K in (2, 4)}
    rows = dpl.experiments.get("wu2025-regret-vs-K").summary(data)
    assert all(r["epsilon"] == 0.5 and r["n_runs"] == 3 for r in rows) and len(rows) == 4


def test_regret_vs_eps_at_few_epsilons(tmp_path, monkeypatch):
    data = run_and_draw(tmp_path, monkeypatch, "wu2025-regret-vs-eps", epsilons=[0.1, 1.0, 10.0],
                        K=4, n_runs=2, algorithms=["Exp 2/ε"])
    assert list(data["results"]) == ["Exp 2/ε"] and data["K"] == 4
    assert [r.params["epsilon"] for r in data["results"]["Exp 2/ε"]] == [0.1, 1.0, 10.0]


def test_privacy_at_another_epsilon(tmp_path, monkeypatch):
    data = run_and_draw(tmp_path, monkeypatch, "wu2025-privacy", epsilon=0.5,
                        table_epsilons=[0.25], algorithms=["Laplace 2/ε", "Exp 1/ε (paper)"])
    assert list(data["curves"]) == ["Laplace 2/ε", "Exp 1/ε (paper)"]
    assert data["table_eps"] == (0.25,) and data["epsilon"] == 0.5
    # Laplace noise of scale 2/ε on both scores keeps the privacy loss within ε
    assert np.max(data["curves"]["Laplace 2/ε"]) <= 0.5 + 1e-9
    assert data["table"]["Laplace 2/ε"][0] <= 0.25 + 1e-9


def test_resampling_at_few_epsilons(tmp_path, monkeypatch):
    data = run_and_draw(tmp_path, monkeypatch, "wu2025-resampling", epsilons=[0.5, 5.0],
                        ns=[3])
    assert data["ns"] == (3,) and list(data["eps"]) == [0.5, 5.0]
    assert data["curves"][("corrected", 3, True)].shape == (2,)



# ------------------------------------------------------------------ hu2025
SMALL = {"means": [0.7, 0.3], "n_runs": 2}


def test_hu2025_fig3_at_two_horizons_and_alphas(tmp_path, monkeypatch):
    data = run_and_draw(tmp_path, monkeypatch, "hu2025-fig3", horizons=[200, 100],
                        alphas=[1, 0], **SMALL)
    assert list(data["T_grid"]) == [100, 200] and list(data["alphas"]) == [0.0, 1.0]
    assert data["final_mean"].shape == (2, 2) and data["means"] == (0.7, 0.3)
    assert [r.params["alpha"] for r in data["results"][200]] == [0.0, 1.0]


def test_hu2025_fig4_reads_figure_3_at_its_horizon(tmp_path, monkeypatch):
    data = run_and_draw(tmp_path, monkeypatch, "hu2025-fig4", horizon=200, alphas=[0.5, 1.0],
                        **SMALL)
    assert data["T"] == 200 and len(data["dpts"]) == len(data["mtsg"]) == 2
    # the DP-TS-UCB runs at T are those of Figure 3 on any grid ending at T (same seeds)
    fig3 = dpl.experiments.run("hu2025-fig3", "quick", progress=False, horizons=[50, 200],
                               alphas=[0.5, 1.0], **SMALL)
    for mine, theirs in zip(data["dpts"], fig3["results"][200]):
        assert np.array_equal(mine.regret, theirs.regret)


def test_hu2025_fig6_at_two_pre_pull_counts(tmp_path, monkeypatch):
    data = run_and_draw(tmp_path, monkeypatch, "hu2025-fig6", horizon=200, b_grid=[5, 0],
                        **SMALL)
    assert list(data["b"]) == [0, 5]
    assert [r.params["b"] for r in data["results"][1.0]] == [0, 5]


def test_hu2025_fig7_and_its_figure_5_at_a_small_setting(tmp_path, monkeypatch):
    data = run_and_draw(tmp_path, monkeypatch, "hu2025-fig7", horizon=200, epsilon=1.0,
                        algorithms=["DP-SE"], **SMALL)
    assert data["T"] == 200 and data["eps"] == 1.0 and data["means"] == (0.7, 0.3)
    base, = data["baselines"]
    assert base.label == "DP-SE" and base.horizon == 200
    assert {r["panel"] for r in dpl.experiments.get("hu2025-fig7").summary(data)} == {
        "alpha=0", "alpha=1", "eps=1"}
    assert _entries(tmp_path, "hu2025-fig5") and _entries(tmp_path, "hu2025-fig6")


def test_hu2025_table_at_another_horizon(tmp_path, monkeypatch):
    data = run_and_draw(tmp_path, monkeypatch, "hu2025-table-eps-delta", horizon=10**4,
                        alphas=[0.0, 0.5])
    assert data["T"] == 10**4 and [row["alpha"] for row in data["rows"]] == [0.0, 0.5]
    assert list(data["log_delta"]) == [0.0, 0.5]
