"""Tests of the experiments' engine (dpolearn/experiments/engine.py) and policy catalogue
(dpolearn/experiments/catalogue.py)."""
from __future__ import annotations

import math
import pathlib
import re
import sys
import warnings

import numpy as np
import pytest

import dpolearn as dpl
from dpolearn.accounting import PureDP
from dpolearn.bandits import AnytimeLazyUCB
from dpolearn.envs import BernoulliBandit
from dpolearn.experiments import catalogue, engine, hu2022
from dpolearn.gdp import pure_dp_to_gdp
from dpolearn.policy import Policy


# ------------------------------------------------------------------ checkpoints
@pytest.mark.parametrize("horizon, log, linear", [(1000, 40, 0), (5000, 60, 100), (10, 0, 5),
                                                  (20_000, 150, 400)])
def test_checkpoints_are_the_union_of_both_grids(horizon, log, linear):
    ck = engine.checkpoints(horizon, log=log, linear=linear)
    want = set()
    if log:
        want |= set(dpl.make_checkpoints(horizon, "log", log).tolist())
    if linear:
        want |= set(dpl.make_checkpoints(horizon, "linear", linear).tolist())
    assert ck.tolist() == sorted(want)
    assert ck[-1] == horizon and ck.dtype.kind == "i"


@pytest.mark.parametrize("kwargs, needle", [({"log": -1}, "log.*-1"),
                                            ({"linear": 2.5}, "linear.*2.5"),
                                            ({"log": True}, "log.*True"), ({}, "log=0")])
def test_checkpoints_refuse_bad_counts(kwargs, needle):
    with pytest.raises(ValueError, match=needle):
        engine.checkpoints(100, **kwargs)


# ------------------------------------------------------------------ sweep
def test_columns_repeat_each_cell_n_runs_times():
    cols = engine.columns([{"eps": 0.5, "means": (0.9, 0.1)}, {"eps": 2.0, "means": (0.6, 0.4)}], 3)
    assert cols["eps"].tolist() == [0.5] * 3 + [2.0] * 3
    assert cols["means"].shape == (6, 2) and cols["means"][3].tolist() == [0.6, 0.4]
    with pytest.raises(ValueError, match="keys"):
        engine.columns([{"eps": 1.0}, {"epsilon": 1.0}], 2)


def test_sweep_is_one_batch_cut_per_cell_with_the_cells_parameters():
    """The sweep equals simulating the batch by hand and cutting it: same bits per cell, and
    each cell carries its own epsilon (params and guarantee)."""
    eps, n, T = (0.25, 4.0), 5, 300
    cells = [{"epsilon": e} for e in eps]
    parts = engine.sweep(lambda cols: AnytimeLazyUCB(epsilon=cols["epsilon"]),
                         BernoulliBandit([0.7, 0.4]), T, cells, n, seed=11, checkpoints=[T])
    by_hand = dpl.simulate(AnytimeLazyUCB(epsilon=np.repeat(eps, n)), BernoulliBandit([0.7, 0.4]),
                           T, 2 * n, seed=11, checkpoints=[T], progress=False)
    assert len(parts) == 2
    for g, (e, part) in enumerate(zip(eps, parts)):
        assert part.n_runs == n
        np.testing.assert_array_equal(part.regret, by_hand.regret[g * n:(g + 1) * n])
        assert part.params["epsilon"] == e
        assert part.guarantee == PureDP(epsilon=e)
    assert parts[0].final_mean > parts[1].final_mean       # the cells really differ


def test_sweep_env_from_columns_params_label_and_guarantee_options():
    cells = [{"means": (0.9, 0.1), "epsilon": 1.0}, {"means": (0.2, 0.8), "epsilon": 1.0}]
    seen = {}

    def env(cols):
        seen["means"] = cols["means"]
        return BernoulliBandit(cols["means"])

    parts = engine.sweep(lambda cols: AnytimeLazyUCB(epsilon=cols["epsilon"]), env, 50, cells, 2,
                         seed=0, checkpoints=[50], params=[{"setting": 1}, {"setting": 2}],
                         label="mine", guarantee=lambda cell: PureDP(epsilon=7.0))
    assert seen["means"].shape == (4, 2)
    assert [p.params["setting"] for p in parts] == [1, 2]
    assert all(p.params["epsilon"] == 1.0 for p in parts)           # the policy's own kept
    assert all(p.label == "mine" and p.guarantee == PureDP(epsilon=7.0) for p in parts)
    replaced = engine.sweep(lambda cols: AnytimeLazyUCB(epsilon=1.0), BernoulliBandit([0.6, 0.5]),
                            20, [{}], 2, seed=0, checkpoints=[20], params=[{"horizon": 20}],
                            replace_params=True)
    assert replaced[0].params == {"horizon": 20}


def test_sweep_refuses_bad_grids():
    make = lambda cols: AnytimeLazyUCB(epsilon=1.0)             # noqa: E731
    with pytest.raises(ValueError, match="cells"):
        engine.sweep(make, BernoulliBandit([0.6, 0.5]), 10, [], 2, seed=0, checkpoints=[10])
    with pytest.raises(ValueError, match="params.*2.*got 1"):
        engine.sweep(make, BernoulliBandit([0.6, 0.5]), 10, [{}, {}], 2, seed=0, checkpoints=[10],
                     params=[{}])


def _square(x):
    return x * x


def test_map_tasks_returns_task_order_whatever_the_schedule():
    tasks = [3, 1, 4, 1, 5]
    assert engine.map_tasks(_square, tasks) == [9, 1, 16, 1, 25]
    assert engine.map_tasks(_square, tasks, cost=lambda t: t) == [9, 1, 16, 1, 25]
    assert engine.map_tasks(_square, tasks, jobs=2, cost=lambda t: -t) == [9, 1, 16, 1, 25]


# ------------------------------------------------------------------ catalogue
def _build(preset, label, epsilon=0.5, horizon=1000):
    options = {}
    if preset == "hu2025" and label == "DP-TS-UCB":
        options = {"alpha": 0.5}
    if preset == "hu2025" and label == "M-TS-Gaussian":
        options = {"b": 10, "c": 2.0}
    if preset == "hu2025":
        epsilon = None
    return catalogue.make_policy(label, epsilon, horizon, preset=preset, **options)


@pytest.mark.parametrize("preset, label", [(p, lab) for p in catalogue.PRESETS
                                           for lab in catalogue.labels(p)])
def test_every_label_of_every_preset_builds(preset, label):
    policy = _build(preset, label)
    assert isinstance(policy, Policy)
    kind = catalogue.privacy_kind(policy.label)
    assert kind in ("none", "pure", "approx", "gdp")
    if kind == "none":
        assert type(policy.guarantee).__name__ == "NotPrivate"


def test_private_labels_require_epsilon_and_unknown_names_are_refused():
    with pytest.raises(ValueError, match="epsilon is required for DP-SE, got None"):
        catalogue.make_policy("DP-SE", None, 100, preset="hu2021")
    with pytest.raises(ValueError, match="label.*'DP-XYZ'"):
        catalogue.make_policy("DP-XYZ", 1.0, 100)
    with pytest.raises(ValueError, match="preset.*'nope'"):
        catalogue.make_policy("UCB1", preset="nope")


def test_tossou2016_preset_is_figure_2():
    """Tossou and Dimitrakakis (2016), Figure 2: the paper's budget split, DP-UCB-INT
    calibrated by Corollary 3.2 to (eps, e^-10) with v = 1.1."""
    for label in ("DP-UCB-BOUND", "DP-UCB"):
        assert _build("tossou2016", label).params()["split"] == "paper"
        assert _build("common", label).params()["split"] == "chan"
    int_ = _build("tossou2016", "DP-UCB-INT")
    assert int_.params()["v"] == 1.1
    assert int_.guarantee.epsilon == pytest.approx(0.5)
    assert int_.guarantee.delta == pytest.approx(math.exp(-10))
    assert catalogue.DP_UCB_INT_DELTA == math.exp(-10) and catalogue.TOSSOU2016_V == 1.1


def test_hu2021_and_hu2022_presets_differ_only_in_the_log_base_of_lazy_dp_ts():
    """Hu et al. (2021) use natural logarithms, Hu and Hegde (2022) write log base 2; DP-SE in
    its max form with beta = 1/T in both, AdaP-KLUCB with alpha = 3.1."""
    assert _build("hu2021", "Lazy-DP-TS").params()["log"] == "ln"
    assert _build("hu2022", "Lazy-DP-TS").params()["log"] == "log2"
    for preset in ("hu2021", "hu2022"):
        se = _build(preset, "DP-SE", horizon=1000).params()
        assert se["r_e_form"] == "max" and se["beta"] == pytest.approx(1 / 1000)
    assert _build("hu2022", "DP-SE (sum)").params()["r_e_form"] == "sum"
    assert _build("hu2021", "AdaP-KLUCB").params()["alpha"] == 3.1


def test_hu2025_preset_baselines_run_at_epsilon_one_half():
    """Hu et al. (2025), Appendix E.2: the (eps, 0)-DP baselines at eps = 0.5."""
    for label in ("Anytime-Lazy-UCB", "Lazy-DP-TS", "DP-SE"):
        assert _build("hu2025", label).guarantee == PureDP(epsilon=0.5)
    assert _build("hu2025", "DP-TS-UCB").params()["alpha"] == 0.5
    assert _build("hu2025", "M-TS-Gaussian").params()["b"] == 10


def test_common_preset_is_honest_at_the_grid_epsilon():
    """The comparison's common scale: pure algorithms are eps-DP, DP-UCB-INT (eps, e^-10)-DP,
    M-TS-Gaussian mu(eps)-GDP with b = T/500, DP-TS-UCB at alpha = 1."""
    T, e = 10_000, 0.5
    for label, kind in catalogue.PRIVACY.items():
        if label not in catalogue.labels("common") or kind != "pure" or label == "Uniform":
            continue
        assert _build("common", label, e, T).guarantee == PureDP(epsilon=e), label
    assert _build("common", "Private-UCB", e, T).params()["variant"] == "MT_noK"
    mts = _build("common", "M-TS-Gaussian", e, T)
    assert mts.params()["b"] == T // 500
    assert mts.guarantee.mu == pytest.approx(float(pure_dp_to_gdp(e)))
    assert _build("common", "DP-TS-UCB", None, T).params()["alpha"] == 1.0


def test_wu2025_preset_noise_scales():
    """Wu and Wang (2025), Table 2: Exp(1/eps) is only 2 eps-DP; the strict families are eps-DP;
    Hu et al.'s reading starts from action 0."""
    assert _build("wu2025", "Exp 1/ε (paper)").guarantee == PureDP(epsilon=1.0)
    assert _build("wu2025", "Laplace 2/ε").guarantee == PureDP(epsilon=0.5)
    assert _build("wu2025", "Laplace 1/ε (Hu et al.)").params()["first_action"] == "first"
    assert catalogue.make_policy("Gumbel 2/ε", 0.5, preset="wu2025",
                                 resample=False).params()["resample"] is False


def test_experts_style_convention():
    """One rule in every experts figure: strict 2/eps solid, papers' 1/eps dashed, naive dotted;
    colours stay those of plotting.style_of."""
    from dpolearn.plotting import style_of

    assert catalogue.experts_style("RNM-FTNL (strict, Lap)")["linestyle"] == "-"
    assert catalogue.experts_style("RNM-FTNL (hu2021 preset)")["linestyle"] == "--"
    assert catalogue.experts_style("RNM-FTNL (wu2025 preset, Exp)")["linestyle"] == "--"
    assert catalogue.experts_style("Naive FTNL")["linestyle"] == ":"
    for label in ("RNM-FTNL (strict, Lap)", "RNM-FTNL (hu2021 preset)", "Naive FTNL", "Hedge"):
        assert catalogue.experts_style(label)["color"] == style_of(label)["color"]
    assert catalogue.experts_style("Hedge") == style_of("Hedge")


# ------------------------------------------------------------------ registry and chapters
BOOK = pathlib.Path(__file__).resolve().parents[1] / "book"


def _pages_running(experiment_id: str, pages: dict) -> list:
    call = re.compile(r'experiments\.(?:run|figure)\(\s*"' + re.escape(experiment_id) + '"')
    return sorted(name for name, text in pages.items() if call.search(text))


def test_every_experiment_names_a_chapter_that_shows_it():
    """The Figures page links each experiment to its chapter: that page must exist and, when
    some page runs the experiment, be one of them (a split chapter must carry its experiments)."""
    pages = {p.stem: p.read_text() for p in BOOK.glob("*.md")}
    wrong = []
    for id_ in dpl.experiments.ids():
        chapter = dpl.experiments.get(id_).chapter
        running = _pages_running(id_, pages)
        shown_there = chapter in pages and id_ in pages[chapter]
        if not shown_there or (running and chapter not in running):
            wrong.append(f"{id_}: chapter {chapter!r}, run on {running}")
    assert not wrong, wrong


def test_chapter_check_notices_an_experiment_on_the_wrong_page():
    pages = {"a": 'dpl.experiments.run("x-fig")', "b": "text about x-fig"}
    assert _pages_running("x-fig", pages) == ["a"]


# ------------------------------------------------------------------ executor: start methods
@pytest.fixture
def local_executor():
    """The local executor with its default start method again after the test."""
    yield dpl.experiments.set_executor
    dpl.experiments.set_executor("local")


@pytest.mark.slow
def test_start_methods_give_bit_identical_summaries(tmp_path, monkeypatch, local_executor):
    """One experiment with several tasks, under every start method: the same summary.csv bytes
    (and the same as jobs=1), and no "multi-threaded fork" warning outside fork itself."""
    monkeypatch.setenv("DPOLEARN_CACHE", str(tmp_path / "cache"))
    serial = dpl.experiments.run("primer-ucb-ts", "quick", jobs=1, progress=False, cache=False)
    expected = (dpl.experiments.write_outputs("primer-ucb-ts", serial, tmp_path / "serial")
                / "summary.csv").read_bytes()
    for method in dpl.experiments.START_METHODS:
        local_executor("local", start_method=method)
        assert dpl.experiments.start_method() == method
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            data = dpl.experiments.run("primer-ucb-ts", "quick", jobs=2, progress=False,
                                       cache=False)
        if method != "fork":
            assert not [w for w in seen if "fork()" in str(w.message)], method
        out = dpl.experiments.write_outputs("primer-ucb-ts", data, tmp_path / method)
        assert (out / "summary.csv").read_bytes() == expected, method


def test_the_start_method_comes_from_the_argument_the_variable_or_the_platform(
        monkeypatch, local_executor):
    monkeypatch.delenv("DPOLEARN_START_METHOD", raising=False)
    monkeypatch.setattr("sys.platform", "linux")
    assert dpl.experiments.start_method() == "forkserver"
    monkeypatch.setattr("sys.platform", "darwin")
    assert dpl.experiments.start_method() == "spawn"
    monkeypatch.setenv("DPOLEARN_START_METHOD", "fork")
    assert dpl.experiments.start_method() == "fork"
    local_executor("local", start_method="spawn")
    assert dpl.experiments.start_method() == "spawn"
    local_executor("local")
    assert dpl.experiments.start_method() == "fork"
    monkeypatch.setenv("DPOLEARN_START_METHOD", "vfork")
    with pytest.raises(ValueError, match="DPOLEARN_START_METHOD.*'vfork'"):
        dpl.experiments.start_method()


@pytest.mark.parametrize("kwargs, error, needle", [
    ({"name": "local", "start_method": "vfork"}, ValueError, "start_method.*'vfork'"),
    ({"name": "local", "start_method": 1}, ValueError, "start_method.*1"),
    ({"name": "dask", "scheduler": "tcp://127.0.0.1:1", "start_method": "spawn"}, ValueError,
     "start_method.*'spawn'"),
])
def test_set_executor_refuses_bad_start_methods(kwargs, error, needle, local_executor):
    with pytest.raises(error, match=needle):
        local_executor(**kwargs)
    assert dpl.experiments.executor() == ("local", None)


def test_worker_functions_that_workers_cannot_import_are_refused_before_any_work(
        monkeypatch, local_executor):
    calls = []

    def local_function(x):
        calls.append(x)
        return x

    local_executor("local", start_method="spawn")
    with pytest.raises(ValueError, match="fn must be a function defined at the top level"):
        dpl.experiments.parallel_map(local_function, [1, 2], jobs=2)
    # a function of a notebook (a __main__ without a file) under spawn
    notebook = type(sys)("__main__")
    monkeypatch.setitem(sys.modules, "__main__", notebook)
    monkeypatch.setattr(_square, "__module__", "__main__")
    with pytest.raises(ValueError, match="'spawn'"):
        dpl.experiments.parallel_map(_square, [1, 2], jobs=2)
    assert calls == []


def test_in_the_browser_tasks_run_serially_with_one_warning(monkeypatch):
    """Pyodide (sys.platform == "emscripten") has no processes: jobs > 1 runs in the kernel."""
    from dpolearn.experiments import _executor

    def no_pool(*args, **kwargs):
        raise AssertionError("no process pool may start in the browser")

    monkeypatch.setattr("sys.platform", "emscripten")
    monkeypatch.setattr(_executor, "ProcessPoolExecutor", no_pool)
    monkeypatch.setitem(_executor._warned, "serial", False)
    with pytest.warns(dpl.experiments.SerialExecutionWarning, match="jobs=2.*browser"):
        assert dpl.experiments.parallel_map(_square, [1, 2, 3], jobs=2) == [1, 4, 9]
    with warnings.catch_warnings():
        warnings.simplefilter("error")                       # said once, not at every call
        assert engine.map_tasks(_square, [4, 5], jobs=2, cost=lambda t: t) == [16, 25]


def test_the_dask_scheduler_is_checked_before_distributed_is_imported(monkeypatch,
                                                                        local_executor):
    """Without the optional dependency, a bad argument is still named; a good one asks for it."""
    monkeypatch.setitem(sys.modules, "distributed", None)        # import distributed fails
    with pytest.raises(TypeError, match="scheduler.*8786"):
        local_executor("dask", scheduler=8786)
    with pytest.raises(ValueError, match="scheduler.*' '"):
        local_executor("dask", scheduler=" ")
    with pytest.raises(ImportError, match=re.escape('pip install "dpolearn[distributed]"')):
        local_executor("dask", scheduler="tcp://127.0.0.1:1")
    assert dpl.experiments.executor() == ("local", None)


# ------------------------------------------------------------------ experiments at any setting
def test_a_paper_figure_at_another_instance_and_epsilon(tmp_path, monkeypatch):
    """hu2022-fig2 redrawn on a two-armed instance at eps = 0.5: its own cache entries, its own
    numbers (the pseudo-regret of every curve is at most T times the instance's gap of 0.1,
    where the paper's instance, with gaps up to 0.5, costs DP-SE several times that), and
    a figure drawn from it."""
    import matplotlib.pyplot as plt

    monkeypatch.setenv("DPOLEARN_CACHE", str(tmp_path))
    kw = {"means": [0.6, 0.5], "epsilons": [0.5], "horizon": 2000, "n_runs": 3}
    data = dpl.experiments.run("hu2022-fig2", "quick", progress=False, **kw)
    assert data["means"] == (0.6, 0.5) and data["epsilons"] == (0.5,)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert [n.split("-quick")[0] for n in names] == ["hu2022-fig2", "hu2022-table"]
    rows = dpl.experiments.get("hu2022-fig2").summary(data)
    assert {r["algorithm"] for r in rows} == {"Lazy-DP-TS", "Anytime-Lazy-UCB", "DP-SE",
                                              "DP-SE (sum)"}
    assert all(r["epsilon"] == 0.5 and r["horizon"] == 2000 and r["n_runs"] == 3 for r in rows)
    assert all(r["final_regret_mean"] <= 0.1 * 2000 + 1e-9 for r in rows)
    paper = dpl.experiments.run("hu2022-table", "quick", progress=False, epsilons=[0.5],
                                horizon=2000, n_runs=3, algorithms=["DP-SE"])
    assert paper["results"][("DP-SE", 0.5)].final_mean > 2 * 0.1 * 2000
    fig = dpl.experiments.figure("hu2022-fig2", data)
    assert len(fig.axes[0].get_lines()) >= 5
    plt.close(fig)
    again = dpl.experiments.run("hu2022-fig2", "quick", progress=False,
                                **dict(kw, means=(0.6, 0.5)))
    assert np.array_equal(again["results"][("DP-SE", 0.5)].regret,
                          data["results"][("DP-SE", 0.5)].regret)
    assert len(list(tmp_path.iterdir())) == 3, "the same settings read the same entries"


def test_the_algorithms_setting_chooses_the_curves():
    settings = dpl.experiments.settings("hu2022-fig3", "paper",
                                        algorithms=["DP-SE", "Lazy-DP-TS"])
    assert settings == {"means": hu2022.MEANS, "epsilons": (0.5,), "horizon": 100_000,
                        "n_runs": 50, "algorithms": ("Lazy-DP-TS", "DP-SE")}
    with pytest.raises(ValueError, match="algorithms must not repeat a label"):
        dpl.experiments.settings("hu2022-fig3", algorithms=["DP-SE", "DP-SE"])
    with pytest.raises(TypeError, match="algorithms must hold labels"):
        dpl.experiments.settings("hu2022-fig3", algorithms=[1])


def test_every_declared_setting_is_valid_documented_and_named_in_its_module():
    """Each experiment's settings: the defaults pass their own checks unchanged (so a call
    without overrides and one repeating the defaults share a cache entry), and the module's
    docstring, which the API reference shows, describes every one."""
    import importlib

    with_settings = [dpl.experiments.get(i) for i in dpl.experiments.ids()
                     if dpl.experiments.get(i).settings]
    assert {"hu2022-fig2", "hu2022-table", "hu2021-fig1", "tossou2016-fig2"} <= {
        e.id for e in with_settings}
    for exp in with_settings:
        module = importlib.import_module(exp.compute.__module__)
        for setting in exp.settings:
            assert f"``{setting.name}``" in module.__doc__, (exp.id, setting.name)
            for scale in dpl.experiments.SCALES:
                default = setting.default_for(scale)
                if default is not None:
                    assert setting.check(setting.name, default) == default, (exp.id, setting)
            assert dpl.experiments.settings(exp.id, "quick") == {
                s.name: s.default_for("quick") for s in exp.settings}
