"""The command line and the experiments registry."""
import csv
import subprocess
import sys

import numpy as np

import dpolearn as dpl
from dpolearn.experiments import SUMMARY_COLUMNS


def _cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "dpolearn", *args], capture_output=True,
                          text=True, env=env)


def test_list_prints_one_id_per_line():
    out = _cli("list")
    assert out.returncode == 0
    lines = out.stdout.split()
    assert "primer-ucb-ts" in lines and lines == sorted(lines) == dpl.experiments.ids()


def test_run_writes_figures_data_and_summary(tmp_path):
    cache = tmp_path / "cache"
    import os

    env = dict(os.environ, DPOLEARN_CACHE=str(cache))
    out = _cli("run", "primer-ucb-ts", "--scale", "quick", "--out", str(tmp_path), "--quiet", env=env)
    assert out.returncode == 0, out.stderr
    target = tmp_path / "primer-ucb-ts"
    for name in ("figure.png", "figure.svg", "data.npz", "summary.csv"):
        assert (target / name).stat().st_size > 0
    with open(target / "summary.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0])[:8] == SUMMARY_COLUMNS[:8]
    assert {r["algorithm"] for r in rows} == {"UCB1", "TS (Beta)"}
    assert any(cache.iterdir()), "the result is cached"


def test_unknown_id_and_bad_jobs_are_refused():
    assert _cli("run", "nope").returncode == 2
    assert "--jobs must be >= 1" in _cli("run", "primer-ucb-ts", "--jobs", "0").stderr


def test_results_do_not_depend_on_jobs(tmp_path, monkeypatch):
    monkeypatch.setenv("DPOLEARN_CACHE", str(tmp_path))
    one = dpl.experiments.run("primer-ucb-ts", "quick", jobs=1, cache=False)
    two = dpl.experiments.run("primer-ucb-ts", "quick", jobs=2, cache=False)
    for key in ("UCB1", "TS (Beta)"):
        assert np.array_equal(one[key].regret, two[key].regret)


def test_cache_is_reused(tmp_path, monkeypatch):
    monkeypatch.setenv("DPOLEARN_CACHE", str(tmp_path))
    first = dpl.experiments.run("primer-ucb-ts", "quick")
    files = list(tmp_path.iterdir())
    assert len(files) == 1 and dpl.experiments.source_hash() in files[0].name
    second = dpl.experiments.run("primer-ucb-ts", "quick")
    assert np.array_equal(first["UCB1"].regret, second["UCB1"].regret)
