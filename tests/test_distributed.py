"""The Dask executor: the same bits as local processes, and a clear error without the extra."""
import csv
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import dpolearn as dpl

distributed = pytest.importorskip("distributed", reason="the [distributed] extra is not installed")
scheduler_plugin = pytest.importorskip("distributed.diagnostics.plugin")

pytestmark = pytest.mark.xdist_group("distributed")


def _cli(*args, cache, extra_env=None, cwd=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DPOLEARN_")}
    env.update(DPOLEARN_CACHE=str(cache), **(extra_env or {}))
    return subprocess.run([sys.executable, "-m", "dpolearn", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=600, check=False)


class _CountDone(scheduler_plugin.SchedulerPlugin):
    """Counts the executor's tasks that finished on a worker."""

    def __init__(self):
        self.done = 0

    def transition(self, key, start, finish, *args, **kwargs):
        if finish == "memory" and str(key).startswith("_run_pickled"):
            self.done += 1


@pytest.fixture(scope="module")
def cluster():
    """Two worker processes on this machine, one thread each, bound to 127.0.0.1.

    The dashboard is off; the scheduler's small HTTP endpoint (health, metrics), which Dask
    starts anyway, is moved from *:8787 to a free port of 127.0.0.1.
    """
    import dask

    with dask.config.set({"distributed.scheduler.dashboard.address": "127.0.0.1:0"}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     host="127.0.0.1", dashboard_address=None) as local:
        local.counter = _CountDone()
        local.scheduler.add_plugin(local.counter, name="dpolearn-test-count")
        yield local


def _tasks_run_on(cluster) -> int:
    """How many tasks of the Dask executor have finished on the cluster's workers."""
    return cluster.counter.done


def test_cli_on_a_dask_cluster_gives_the_bits_of_jobs_1(cluster, tmp_path):
    local = _cli("run", "primer-ucb-ts", "--scale", "quick", "--quiet", "--jobs", "1",
                 "--out", str(tmp_path / "local"), cache=tmp_path / "cache-local")
    assert local.returncode == 0, local.stderr
    before = _tasks_run_on(cluster)
    remote = _cli("run", "primer-ucb-ts", "--scale", "quick", "--quiet", "--executor", "dask",
                  "--scheduler", cluster.scheduler_address, "--out", str(tmp_path / "dask"),
                  cache=tmp_path / "cache-dask")
    assert remote.returncode == 0, remote.stderr
    assert _tasks_run_on(cluster) - before == 2, "both tasks (UCB1, TS) ran on the cluster"
    a, b = (tmp_path / side / "primer-ucb-ts" for side in ("local", "dask"))
    assert (a / "summary.csv").read_bytes() == (b / "summary.csv").read_bytes()
    with open(a / "summary.csv") as fh:
        assert len(list(csv.DictReader(fh))) == 2
    with np.load(a / "data.npz") as da, np.load(b / "data.npz") as db:
        assert sorted(da.files) == sorted(db.files)
        for key in da.files:
            assert np.array_equal(da[key], db[key]), key


def test_set_executor_in_python_gives_the_bits_of_jobs_1(cluster, tmp_path, monkeypatch):
    """Several tasks of different lengths: results come back in task order, whoever finishes
    first."""
    monkeypatch.setenv("DPOLEARN_CACHE", str(tmp_path))
    exp = "wu2025-regret-vs-eps"
    local = dpl.experiments.run(exp, "quick", jobs=1, progress=False, cache=False)
    with distributed.Client(cluster.scheduler_address, set_as_default=False) as client:
        try:
            dpl.experiments.set_executor("dask", scheduler=client)
            assert dpl.experiments.executor() == ("dask", cluster.scheduler_address)
            remote = dpl.experiments.run(exp, "quick", jobs=1, progress=False, cache=False)
        finally:
            dpl.experiments.set_executor("local")
    assert dpl.experiments.executor() == ("local", None)
    rows = dpl.experiments.get(exp).summary
    assert rows(local) == rows(remote)
    for key, value in local.items():
        if hasattr(value, "regret"):
            assert np.array_equal(value.regret, remote[key].regret), key


def test_workers_with_another_dpolearn_are_refused():
    from dpolearn.experiments import _executor

    class StaleClient:
        def run(self, fn):
            return {"tcp://10.0.0.9:4000": ("0.0.1", "0123456789abcdef")}

    with pytest.raises(RuntimeError, match="tcp://10.0.0.9:4000 runs dpolearn 0.0.1"):
        _executor._check_workers(StaleClient(), "tcp://10.0.0.1:8786")


def test_unreachable_scheduler_is_one_line_exit_2(tmp_path):
    out = _cli("run", "primer-ucb-ts", "--executor", "dask", "--scheduler", "tcp://127.0.0.1:9",
               cache=tmp_path)
    assert out.returncode == 2 and out.stdout == ""
    [line] = out.stderr.strip().splitlines()
    assert "cannot reach the Dask scheduler at 'tcp://127.0.0.1:9'" in line


BLOCK_DASK = textwrap.dedent('''
    import sys

    class _NoDask:
        """Pretend the optional dependencies are not installed."""
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("dask", "distributed"):
                raise ImportError(f"No module named {name!r}")
            return None

    sys.meta_path.insert(0, _NoDask())
''')


def test_dask_executor_without_dask_names_the_extra(tmp_path):
    (tmp_path / "sitecustomize.py").write_text(BLOCK_DASK)
    env = {"PYTHONPATH": str(tmp_path)}
    probe = subprocess.run([sys.executable, "-c", "import distributed"], capture_output=True,
                           env=dict(os.environ, **env), check=False)
    assert probe.returncode != 0, "the blocker must hide distributed"
    out = _cli("run", "primer-ucb-ts", "--executor", "dask", "--scheduler", "tcp://127.0.0.1:8786",
               cache=tmp_path / "cache", extra_env=env)
    assert out.returncode == 2 and out.stdout == "", out.stderr
    [line] = out.stderr.strip().splitlines()
    assert 'pip install "dpolearn[distributed]"' in line
    # The local executor needs none of it.
    out = _cli("run", "primer-ucb-ts", "--quiet", cache=tmp_path / "cache", extra_env=env)
    assert out.returncode == 0, out.stderr


def test_executor_opened_from_an_address_is_closed_when_leaving(cluster):
    from dpolearn.experiments import _executor

    try:
        dpl.experiments.set_executor("dask", scheduler=cluster.scheduler_address)
        client = _executor.current_client()
        assert client.status == "running"
        assert dpl.experiments.parallel_map(abs, [-3, 2, -1]) == [3, 2, 1]
    finally:
        dpl.experiments.set_executor("local")
    assert client.status == "closed"
    assert dpl.experiments.executor() == ("local", None)
