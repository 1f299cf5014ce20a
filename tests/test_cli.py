"""The command line and the experiments registry: outputs, and one clear line for bad input."""
import csv
import os
import subprocess
import sys

import numpy as np
import pytest

import dpolearn as dpl
from dpolearn.experiments import SUMMARY_COLUMNS


def _cli(*args, env=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "dpolearn", *args], capture_output=True,
                          text=True, env=env, cwd=cwd, check=False)


def test_list_prints_one_id_per_line():
    out = _cli("list")
    assert out.returncode == 0
    lines = out.stdout.split()
    assert "primer-ucb-ts" in lines and lines == sorted(lines) == dpl.experiments.ids()


def test_run_writes_figures_data_and_summary(tmp_path):
    cache = tmp_path / "cache"
    env = dict(os.environ, DPOLEARN_CACHE=str(cache))
    out = _cli(
        "run", "primer-ucb-ts", "--scale", "quick", "--out", str(tmp_path), "--quiet", env=env
    )
    assert out.returncode == 0, out.stderr
    target = tmp_path / "primer-ucb-ts"
    for name in ("figure.png", "figure.svg", "data.npz", "summary.csv"):
        assert (target / name).stat().st_size > 0
    with open(target / "summary.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0])[:8] == SUMMARY_COLUMNS[:8]
    assert {r["algorithm"] for r in rows} == {"UCB1", "TS (Beta)"}
    assert any(cache.iterdir()), "the result is cached"




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
    assert len(files) == 1 and files[0].name.startswith("primer-ucb-ts-quick-seed0-")
    second = dpl.experiments.run("primer-ucb-ts", "quick")
    assert np.array_equal(first["UCB1"].regret, second["UCB1"].regret)


# --- bad input: one line on stderr, exit status 2, no traceback, nothing computed -------------

def _refused(out, *needles):
    assert out.returncode == 2, (out.returncode, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    assert out.stdout == "", "nothing may run before the input is checked"


@pytest.fixture
def main_in_process(monkeypatch, capsys, tmp_path):
    """``python -m dpolearn ARGS`` in this process (faster); returns a CompletedProcess-like."""
    from dpolearn.__main__ import main

    def call(*args, env=None):
        for name in [k for k in os.environ if k.startswith("DPOLEARN_")]:
            monkeypatch.delenv(name)
        monkeypatch.setenv("DPOLEARN_CACHE", str(tmp_path / "cache"))
        for name, value in (env or {}).items():
            monkeypatch.setenv(name, value)
        capsys.readouterr()
        code = main(list(args))
        out = capsys.readouterr()
        return subprocess.CompletedProcess(args, code, out.out, out.err)
    return call


@pytest.fixture
def env(tmp_path):
    """The environment of a CLI call, with its own (empty) cache directory."""
    values = {k: v for k, v in os.environ.items() if not k.startswith("DPOLEARN_")}
    values["DPOLEARN_CACHE"] = str(tmp_path / "cache")
    return values


@pytest.mark.parametrize(
    "args, needles",
    [
        (["run", "nope"], ["unknown experiment id", "nope"]),
        (["run", "primer-ucb-ts", "nope", "zilch"], ["nope, zilch"]),
        (["run"], ["give experiment ids or --all"]),
        (["run", "primer-ucb-ts", "--all"], ["not both"]),
        (["run", "primer-ucb-ts", "--jobs", "0"], ["--jobs must be >= 1, got 0"]),
        (["run", "primer-ucb-ts", "--seed", "-3"], ["--seed must be >= 0, got -3"]),
        (["run", "primer-ucb-ts", "--seed", "abc"], ["--seed", "'abc'"]),
        (["run", "primer-ucb-ts", "--scale", "huge"], ["--scale", "'huge'"]),
        (["run", "primer-ucb-ts", "--executor", "ray"], ["--executor", "'ray'"]),
        (["run", "primer-ucb-ts", "--executor", "dask"], ["--scheduler ADDRESS"]),
        (
            ["run", "primer-ucb-ts", "--scheduler", "tcp://127.0.0.1:8786"],
            ["only used with --executor dask"],
        ),
        (["frobnicate"], ["frobnicate"]),
        ([], ["command"]),
        (["run", "hu2022-fig2", "--set", "means"], ["--set must be KEY=VALUE", "'means'"]),
        (["run", "hu2022-fig2", "--set", "mean=[0.5, 0.4]"],
         ["mean is not a setting of experiment 'hu2022-fig2'", "means"]),
        (["run", "primer-attack", "--set", "horizon=5"], ["takes no settings", "horizon=5"]),
        (["run", "hu2022-fig2", "--set", "horizon=2.5"], ["horizon must be an integer, got 2.5"]),
        (["run", "hu2022-fig2", "--set", "epsilons=0.5"], ["epsilons must be a sequence"]),
        (["run", "hu2022-fig2", "--set", "horizon=5", "--set", "horizon=6"], ["horizon twice"]),
        (["run", "primer-ucb-ts", "--start-method", "vfork"], ["--start-method", "'vfork'"]),
        (["run", "primer-ucb-ts", "--executor", "dask", "--scheduler", "tcp://127.0.0.1:1",
          "--start-method", "spawn"], ["--start-method is only used with --executor local"]),
    ],
)
def test_bad_arguments_are_one_line_exit_2(main_in_process, tmp_path, args, needles):
    _refused(main_in_process(*args), *needles)
    assert not (tmp_path / "cache").exists(), "refused before any computation"


def test_bad_input_from_a_real_shell_is_one_line_exit_2(env):
    """The same checks end to end, in a child process (no traceback reaches the terminal)."""
    _refused(_cli("run", "nope", env=env), "unknown experiment id", "nope")
    _refused(_cli("run", "primer-ucb-ts", "--seed", "-3", env=env), "--seed must be >= 0, got -3")
    _refused(
        _cli("run", "primer-ucb-ts", env=dict(env, DPOLEARN_SCALE="QUICK")),
        "DPOLEARN_SCALE",
        "'QUICK'",
    )


def test_out_that_is_a_file_is_refused_before_computing(main_in_process, tmp_path):
    target = tmp_path / "a-file"
    target.write_text("x")
    _refused(
        main_in_process("run", "primer-ucb-ts", "--out", str(target)), "--out", str(target), "file"
    )
    assert not (tmp_path / "cache").exists(), "refused before any computation"


def test_empty_out_is_refused_before_computing(main_in_process, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _refused(main_in_process("run", "primer-rnm", "--out", ""), "--out", "''")
    assert list(tmp_path.iterdir()) == [], "nothing written, nothing computed"


def test_unwritable_out_is_refused_before_computing(main_in_process, tmp_path):
    # Running as root defeats file permissions, so use places no one can create a directory in.
    below_a_file = tmp_path / "a-file" / "results"
    (tmp_path / "a-file").write_text("x")
    _refused(
        main_in_process("run", "primer-ucb-ts", "--out", str(below_a_file)),
        "--out",
        str(below_a_file),
    )
    _refused(main_in_process("run", "primer-ucb-ts", "--out", "/proc/dpolearn-results"),
             "--out", "/proc/dpolearn-results", "writable")
    assert not (tmp_path / "cache").exists(), "refused before any computation"


@pytest.mark.parametrize("name, value", [
    ("DPOLEARN_SCALE", "nonsense"), ("DPOLEARN_SCALE", "QUICK"),
    ("DPOLEARN_PROGRESS", "maybe"), ("DPOLEARN_PROGRESS", "2"),
])
def test_bad_environment_is_refused_before_computing(main_in_process, tmp_path, name, value):
    _refused(
        main_in_process("run", "primer-ucb-ts", "--quiet", "--scale", "quick", env={name: value}),
        name,
        repr(value),
    )
    assert not (tmp_path / "cache").exists(), "refused before any computation"


def test_cache_variable_naming_a_file_is_refused(main_in_process, tmp_path):
    (tmp_path / "cache-file").write_text("x")
    _refused(
        main_in_process(
            "run", "primer-ucb-ts", env={"DPOLEARN_CACHE": str(tmp_path / "cache-file")}
        ),
        "DPOLEARN_CACHE",
        "file",
    )


@pytest.mark.parametrize("value, shown", [("0", False), ("off", False), ("No", False),
                                          ("1", True), ("auto", True), ("TRUE", True)])
def test_progress_variable_values(monkeypatch, value, shown):
    monkeypatch.setenv("DPOLEARN_PROGRESS", value)
    assert dpl.experiments.progress_default() is shown


def test_corrupt_cache_entry_is_one_warning_line_and_replaced(env, tmp_path):
    assert _cli("run", "primer-ucb-ts", "--quiet", "--scale", "quick", env=env).returncode == 0
    [entry] = (tmp_path / "cache").iterdir()
    entry.write_bytes(entry.read_bytes()[:100])
    out = _cli("run", "primer-ucb-ts", "--quiet", "--scale", "quick", env=env)
    assert out.returncode == 0 and "Traceback" not in out.stderr
    [line] = out.stderr.strip().splitlines()
    assert line.startswith(f"warning: cache entry {entry} is unusable: ") and "truncated" in line
    out = _cli("run", "primer-ucb-ts", "--quiet", "--scale", "quick", env=env)
    assert out.returncode == 0 and out.stderr == "", "the entry was replaced by a sound one"


# --- the registry's own checks --------------------------------------------------------------

@pytest.mark.parametrize(
    "call, error, needle",
    [
        (lambda: dpl.experiments.run(3), TypeError, "id"),
        (lambda: dpl.experiments.run("nope"), ValueError, "'nope'"),
        (lambda: dpl.experiments.run("primer-ucb-ts", "QUICK"), ValueError, "'QUICK'"),
        (
            lambda: dpl.experiments.run("primer-ucb-ts", seed=-1),
            ValueError,
            "seed must be a non-negative int or a numpy SeedSequence, got -1",
        ),
        (lambda: dpl.experiments.run("primer-ucb-ts", seed=np.int64(-1)), ValueError, "got -1"),
        (lambda: dpl.experiments.run("primer-ucb-ts", seed=1.5), TypeError, "1.5"),
        (lambda: dpl.experiments.run("primer-ucb-ts", seed=None), TypeError, "None"),
        (lambda: dpl.experiments.run("primer-ucb-ts", seed="abc"), TypeError, "'abc'"),
        (lambda: dpl.experiments.run("primer-ucb-ts", seed=True), TypeError, "True"),
        (
            lambda: dpl.experiments.run("primer-ucb-ts", seed=np.random.default_rng(0)),
            TypeError,
            "Generator",
        ),
        (lambda: dpl.experiments.run("primer-ucb-ts", jobs=0), ValueError, "jobs"),
        (lambda: dpl.experiments.run("primer-ucb-ts", progress="no"), TypeError, "progress"),
        (lambda: dpl.experiments.run("primer-ucb-ts", cache="no"), TypeError, "cache"),
        (lambda: dpl.experiments.figure("primer-ucb-ts", [1]), TypeError, "data"),
        (lambda: dpl.experiments.scale("Paper"), ValueError, "'Paper'"),
        (lambda: dpl.experiments.scale(1), TypeError, "1"),
        (lambda: dpl.experiments.set_scale("big"), ValueError, "'big'"),
        (lambda: dpl.experiments.derive_seed(), ValueError, "at least one key"),
        (lambda: dpl.experiments.derive_seed("x", object), TypeError, "keys"),
        (lambda: dpl.experiments.derive_seed("x", [1, 2]), TypeError, "[1, 2]"),
        (lambda: dpl.experiments.parallel_map(3, [1]), TypeError, "fn"),
        (lambda: dpl.experiments.parallel_map(abs, 3), TypeError, "tasks"),
        (lambda: dpl.experiments.parallel_map(abs, [1], jobs=0), ValueError, "jobs"),
        (lambda: dpl.experiments.parallel_map(abs, [1], jobs=2.0), TypeError, "jobs"),
        (lambda: dpl.experiments.set_executor("ray"), ValueError, "'ray'"),
        (lambda: dpl.experiments.set_executor("dask"), ValueError, "scheduler"),
        (lambda: dpl.experiments.set_executor("dask", scheduler=8786), TypeError, "8786"),
        (
            lambda: dpl.experiments.set_executor("local", scheduler="tcp://x:1"),
            ValueError,
            "scheduler",
        ),
        (lambda: dpl.experiments.check_out_dir(3), TypeError, "3"),
    ],
)
def test_registry_refuses_bad_input(tmp_path, monkeypatch, call, error, needle):
    monkeypatch.setenv("DPOLEARN_CACHE", str(tmp_path))
    with pytest.raises(error) as info:
        call()
    assert needle in str(info.value)
    assert not any(tmp_path.iterdir()), "nothing computed"


def test_bad_scale_variable_is_named(monkeypatch):
    monkeypatch.setenv("DPOLEARN_SCALE", "QUICK")
    with pytest.raises(ValueError, match="DPOLEARN_SCALE.*'QUICK'"):
        dpl.experiments.scale()


def test_set_scale_overrides_the_variable_and_can_be_undone(monkeypatch):
    monkeypatch.setenv("DPOLEARN_SCALE", "quick")
    try:
        assert dpl.experiments.set_scale("paper") == "paper" == dpl.experiments.scale()
        monkeypatch.setenv("DPOLEARN_SCALE", "nonsense")          # the override wins
        assert dpl.experiments.scale() == "paper"
        assert dpl.experiments.scale("quick") == "quick"           # an explicit value wins
    finally:
        monkeypatch.setenv("DPOLEARN_SCALE", "quick")
        assert dpl.experiments.set_scale(None) == "quick"
    assert dpl.experiments.scale() == "quick"


def test_set_scale_reaches_run(tmp_path, monkeypatch):
    """run() without a scale uses the one chosen in this process (as a notebook cell would)."""
    monkeypatch.setenv("DPOLEARN_CACHE", str(tmp_path))
    seen = []
    registry = dpl.experiments.registry
    registry.ids()
    registry.register("test-cli-scale", title="scale probe")(
        lambda scale, seed, jobs, progress: seen.append(scale) or {"scale": scale})
    try:
        dpl.experiments.set_scale("paper")
        assert dpl.experiments.run("test-cli-scale")["scale"] == "paper"
        dpl.experiments.set_scale("quick")
        assert dpl.experiments.run("test-cli-scale")["scale"] == "quick"
    finally:
        dpl.experiments.set_scale(None)
        registry._REGISTRY.pop("test-cli-scale", None)
    assert seen == ["paper", "quick"]


def test_derive_seed_reads_seed_sequences_without_advancing_them():
    seq = np.random.SeedSequence(2024)
    first = dpl.experiments.derive_seed("fig", seq)
    seq.spawn(3)                                  # a caller's spawning must not change the result
    second = dpl.experiments.derive_seed("fig", seq)
    assert first.entropy == second.entropy
    assert seq.n_children_spawned == 3
    other = dpl.experiments.derive_seed("fig", np.random.SeedSequence(2025))
    assert other.entropy != first.entropy
    # integers seed as before: the same keys, the same bits
    assert (
        dpl.experiments.derive_seed("fig", 1, 0.5).entropy
        == dpl.experiments.derive_seed("fig", 1, 0.5).entropy
    )


@pytest.mark.parametrize("id, title, error", [
    ("../escape", "t", ValueError), ("", "t", ValueError), ("a b", "t", ValueError),
    (3, "t", TypeError), ("fine-id", None, TypeError),
])
def test_register_refuses_ids_that_are_not_file_names(id, title, error):
    with pytest.raises(error, match="id|title"):
        dpl.experiments.register(id, title=title)
    assert id not in dpl.experiments.registry._REGISTRY


def test_run_with_a_seed_sequence_is_reproducible_and_leaves_it_unchanged(tmp_path, monkeypatch):
    monkeypatch.setenv("DPOLEARN_CACHE", str(tmp_path))
    seq = np.random.SeedSequence(7)
    one = dpl.experiments.run("primer-ucb-ts", "quick", seed=seq, progress=False, cache=False)
    two = dpl.experiments.run("primer-ucb-ts", "quick", seed=seq, progress=False, cache=False)
    other = dpl.experiments.run("primer-ucb-ts", "quick", seed=np.random.SeedSequence(8),
                                progress=False, cache=False)
    assert seq.n_children_spawned == 0, "the caller's SeedSequence is read, never advanced"
    assert np.array_equal(one["UCB1"].regret, two["UCB1"].regret)
    assert not np.array_equal(one["UCB1"].regret, other["UCB1"].regret)


def test_derive_seed_accepts_none_as_a_key():
    """A non-private row (epsilon None) is a legitimate key, distinct from any number."""
    assert (
        dpl.experiments.derive_seed("x", None, 0).entropy
        == dpl.experiments.derive_seed("x", None, 0).entropy
    )
    assert (
        dpl.experiments.derive_seed("x", None, 0).entropy
        != dpl.experiments.derive_seed("x", 0, 0).entropy
    )


def test_compute_must_return_a_dict(tmp_path, monkeypatch):
    monkeypatch.setenv("DPOLEARN_CACHE", str(tmp_path))
    registry = dpl.experiments.registry
    registry.ids()
    registry.register("test-cli-not-a-dict", title="bad")(
        lambda scale, seed, jobs, progress: [1, 2]
    )
    try:
        with pytest.raises(TypeError, match="'test-cli-not-a-dict' returned a list"):
            dpl.experiments.run("test-cli-not-a-dict", "quick")
    finally:
        registry._REGISTRY.pop("test-cli-not-a-dict", None)
    assert not any(tmp_path.iterdir()), "nothing cached"


class _Killed(BaseException):
    """Stands for the signal that kills a run in the middle of writing a file."""


def _write_half_then_die(fh, payload: bytes):
    """Write half of ``payload`` to ``fh`` (an open binary file or a path), then be killed."""
    half = payload[: len(payload) // 2]
    if isinstance(fh, (str, os.PathLike)):
        with open(fh, "wb") as out:
            out.write(half)
    else:
        fh.write(half)
        fh.flush()
    raise _Killed


@pytest.fixture(scope="module")
def ucb_ts_data(tmp_path_factory):
    """The data of primer-ucb-ts at quick scale, computed once for this module's tests."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DPOLEARN_CACHE", str(tmp_path_factory.mktemp("cache")))
        return dpl.experiments.run("primer-ucb-ts", "quick")


@pytest.mark.parametrize("name", ["summary.csv", "data.npz", "figure.png", "figure.svg"])
def test_outputs_are_replaced_whole_or_not_at_all(tmp_path, monkeypatch, ucb_ts_data, name):
    """A run killed while writing an output leaves the previous file as it was (no truncated
    file, no temporary file left behind)."""
    import io
    from pathlib import Path

    import matplotlib.figure

    data = ucb_ts_data
    target = dpl.experiments.write_outputs("primer-ucb-ts", data, tmp_path / "out")
    before = {p.name: p.read_bytes() for p in target.iterdir()}
    assert name in before and len(before["summary.csv"].splitlines()) == 3

    if name == "summary.csv":
        writerows = csv.DictWriter.writerows

        def first_row_then_die(writer, rows):
            writerows(writer, list(rows)[:1])
            raise _Killed
        monkeypatch.setattr(csv.DictWriter, "writerows", first_row_then_die)
    elif name == "data.npz":
        savez = np.savez_compressed

        def savez_then_die(fh, **arrays):
            buffer = io.BytesIO()
            savez(buffer, **arrays)
            _write_half_then_die(fh, buffer.getvalue())
        monkeypatch.setattr(np, "savez_compressed", savez_then_die)
    else:
        savefig = matplotlib.figure.Figure.savefig

        def savefig_then_die(fig, fh, **kwargs):
            fmt = kwargs.pop("format", None) or Path(fh).suffix[1:]
            if fmt != name.split(".")[1]:
                return savefig(fig, fh, format=fmt, **kwargs)
            buffer = io.BytesIO()
            savefig(fig, buffer, format=fmt, **kwargs)
            _write_half_then_die(fh, buffer.getvalue())
        monkeypatch.setattr(matplotlib.figure.Figure, "savefig", savefig_then_die)
    with pytest.raises(_Killed):
        dpl.experiments.write_outputs("primer-ucb-ts", data, tmp_path / "out")
    after = {p.name: p.read_bytes() for p in target.iterdir()}
    assert sorted(after) == sorted(before), "no temporary file is left behind"
    assert after[name] == before[name], f"{name} was left half-written"


def test_set_and_start_method_from_the_command_line(main_in_process, tmp_path, monkeypatch):
    """--set changes an experiment's settings as run(**overrides) does; the summary is that of
    the same call in Python, whatever the start method of the workers."""
    settings = {"means": [0.6, 0.5], "epsilons": [0.5], "horizon": 500, "n_runs": 2,
                "algorithms": ["DP-SE", "Lazy-DP-TS"]}
    args = [f"{key}={value}".replace("'", '"') for key, value in settings.items()]
    try:
        out = main_in_process("run", "hu2022-fig2", "--scale", "quick", "--quiet", "--jobs", "2",
                              "--start-method", "spawn", "--out", str(tmp_path / "cli"),
                              *[a for arg in args for a in ("--set", arg)])
        assert dpl.experiments.start_method() == "spawn"
    finally:
        dpl.experiments.set_executor("local")
    assert out.returncode == 0, out.stderr
    data = dpl.experiments.run("hu2022-fig2", "quick", progress=False, cache=False, **settings)
    here = dpl.experiments.write_outputs("hu2022-fig2", data, tmp_path / "python")
    cli = (tmp_path / "cli" / "hu2022-fig2" / "summary.csv").read_bytes()
    assert cli == (here / "summary.csv").read_bytes()
    with open(here / "summary.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["algorithm"], r["horizon"], r["n_runs"]) for r in rows] == [
        ("Lazy-DP-TS", "500", "2"), ("DP-SE", "500", "2")]
