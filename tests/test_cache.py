"""The experiment cache: bad entries are reported, recomputed and replaced; writes are atomic."""
import hashlib
import json
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import time
import warnings

import numpy as np
import pytest
import scipy

from dpolearn.experiments import CacheWarning, _cache, registry

CALLS = {}


def _tiny(scale, seed, jobs, progress):
    CALLS["tiny"] = CALLS.get("tiny", 0) + 1
    return {"calls": CALLS["tiny"], "value": np.arange(3) + (0 if isinstance(seed, int) else 7)}


def _outer(scale, seed, jobs, progress):
    CALLS["outer"] = CALLS.get("outer", 0) + 1
    inner = registry.run("test-cache-tiny", scale, seed=seed, jobs=jobs, progress=progress)
    again = registry.run("test-cache-tiny", scale, seed=seed, jobs=jobs, progress=progress)
    return {"calls": CALLS["outer"], "inner_calls": inner["calls"], "again_calls": again["calls"]}


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    """Two registered test experiments (``outer`` reads ``tiny`` through ``run``) and a private
    cache."""
    monkeypatch.setenv("DPOLEARN_CACHE", str(tmp_path))
    registry.ids()                                   # load the real experiments first
    registry.register("test-cache-tiny", title="tiny")(_tiny)
    registry.register("test-cache-outer", title="outer")(_outer)
    CALLS.clear()
    yield tmp_path
    for name in ("test-cache-tiny", "test-cache-outer"):
        registry._REGISTRY.pop(name, None)


def _entry(tmp_path, id="test-cache-tiny", seed="0"):
    key = _cache.entry_key(id, "quick", seed, registry.source_hash())
    return _cache.entry_path(tmp_path, key), key


def _run_tiny(**kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheWarning)    # a sound entry raises no warning
        return registry.run("test-cache-tiny", "quick", **kw)


def test_entry_is_reused_and_sound(tiny):
    first = _run_tiny()
    second = _run_tiny()
    assert CALLS["tiny"] == 1 and second["calls"] == 1
    assert np.array_equal(first["value"], second["value"])
    path, key = _entry(tiny)
    assert [p.name for p in tiny.iterdir()] == [path.name]
    blob = path.read_bytes()
    assert blob.startswith(_cache.MAGIC) and _cache._decode(blob, key)[1] is None


def test_key_includes_library_versions(tiny, monkeypatch):
    _, key = _entry(tiny)
    assert key["numpy"] == np.__version__ and key["scipy"] == scipy.__version__
    assert key["schema"] == _cache.SCHEMA and key["source"] == registry.source_hash()
    _run_tiny()
    monkeypatch.setattr(np, "__version__", np.__version__ + ".other")
    _run_tiny()
    assert CALLS["tiny"] == 2, "another numpy version must not reuse the entry"
    monkeypatch.setattr(scipy, "__version__", scipy.__version__ + ".other")
    _run_tiny()
    assert CALLS["tiny"] == 3, "another scipy version must not reuse the entry"


def _foreign_entry(path, key):
    """A sound entry of another key, copied under this entry's name."""
    other = dict(key, seed="1")
    return _cache.encode(other, {"calls": -1})


def _old_schema_entry(key):
    """A well-formed entry in an earlier schema (its header says schema 1)."""
    payload = pickle.dumps({"calls": -1})
    header = {"schema": 1, "key": key, "size": len(payload),
              "sha256": hashlib.sha256(payload).hexdigest()}
    return _cache.MAGIC + json.dumps(header).encode() + b"\n" + payload


@pytest.mark.parametrize("damage, reason", [
    (lambda blob, path, key: b"", "empty"),
    (lambda blob, path, key: blob[: len(blob) // 2], "truncated"),
    (lambda blob, path, key: blob[: len(_cache.MAGIC) + 5], "header is truncated"),
    (lambda blob, path, key: b"\x80\x04garbage" * 40, "not a dpolearn cache entry"),
    (lambda blob, path, key: blob[:-3] + bytes(b ^ 0xFF for b in blob[-3:]), "checksum"),
    (lambda blob, path, key: pickle.dumps({"calls": -1}), "not a dpolearn cache entry"),
    (lambda blob, path, key: pickle.dumps([1, 2, 3]), "not a dpolearn cache entry"),
    (lambda blob, path, key: _foreign_entry(path, key), "another key"),
    (lambda blob, path, key: _cache.encode(key, [("calls", -1)]), "not a dict"),
    (lambda blob, path, key: _old_schema_entry(key), "schema 1"),
], ids=["empty", "truncated", "header-cut", "garbage", "bit-flip", "foreign-pickle",
        "pickle-of-list", "other-key", "not-a-dict", "old-schema"])
def test_bad_entry_is_reported_recomputed_and_replaced(tiny, damage, reason):
    _run_tiny()
    path, key = _entry(tiny)
    path.write_bytes(damage(path.read_bytes(), path, key))
    with pytest.warns(CacheWarning) as caught:
        data = registry.run("test-cache-tiny", "quick")
    message = str(caught[0].message)
    assert str(path) in message and reason in message and "recomputing" in message
    assert CALLS["tiny"] == 2 and data["calls"] == 2, "the bad entry must be recomputed"
    assert _cache._decode(path.read_bytes(), key)[0]["calls"] == 2, "and replaced by a sound one"
    assert _run_tiny()["calls"] == 2


def test_unreadable_entry_is_reported(tiny):
    _run_tiny()
    path, _ = _entry(tiny)
    path.unlink()
    path.mkdir()                                     # reading a directory fails with OSError
    with pytest.warns(CacheWarning) as caught:
        data = registry.run("test-cache-tiny", "quick")
    assert data["calls"] == 2
    messages = [str(w.message) for w in caught]
    assert "cannot be read" in messages[0] and str(path) in messages[0]
    assert "could not write" in messages[1], "a directory in the way cannot be replaced: say so"


def test_no_cache_recomputes_nested_runs_once_and_rewrites_entries(tiny):
    first = _run_tiny()
    outer = registry.run("test-cache-outer", "quick")
    assert outer["inner_calls"] == 1 == first["calls"], "nested run reads the cache by default"
    refreshed = registry.run("test-cache-outer", "quick", cache=False)
    assert CALLS == {"tiny": 2, "outer": 2}
    assert refreshed["inner_calls"] == 2, "--no-cache must reach the nested experiment"
    assert refreshed["again_calls"] == 2, "a nested entry is recomputed once per session"
    # Both entries were rewritten with the recomputed data.
    assert _run_tiny()["calls"] == 2
    assert registry.run("test-cache-outer", "quick")["calls"] == 2
    assert CALLS == {"tiny": 2, "outer": 2}


def test_no_cache_replaces_a_bad_entry_without_reading_it(tiny):
    _run_tiny()
    path, key = _entry(tiny)
    path.write_bytes(b"garbage")
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheWarning)
        assert registry.run("test-cache-tiny", "quick", cache=False)["calls"] == 2
    assert _cache._decode(path.read_bytes(), key)[0]["calls"] == 2


def test_seed_sequence_seed_is_keyed_by_content_and_not_advanced(tiny):
    seq = np.random.SeedSequence(12345)
    a = _run_tiny(seed=seq)
    b = _run_tiny(seed=np.random.SeedSequence(12345))
    assert CALLS["tiny"] == 1 and a["value"][0] == b["value"][0] == 7
    assert seq.n_children_spawned == 0
    _run_tiny(seed=np.random.SeedSequence(12346))
    assert CALLS["tiny"] == 2


def _seeded(scale, seed, jobs, progress):
    CALLS["seeded"] = CALLS.get("seeded", 0) + 1
    return {"value": np.random.default_rng(seed).random(4)}


def test_sibling_seed_sequences_have_their_own_entries_and_results(tiny):
    """Siblings spawned from one SeedSequence share its entropy and differ only in their spawn
    keys; each is its own seed, so each has its own cache entry and its own results."""
    registry.register("test-cache-seeded", title="seeded")(_seeded)
    try:
        first, second = np.random.SeedSequence(2024).spawn(2)
        assert first.entropy == second.entropy and first.spawn_key != second.spawn_key
        a = registry.run("test-cache-seeded", "quick", seed=first)
        b = registry.run("test-cache-seeded", "quick", seed=second)
        assert CALLS["seeded"] == 2, "the second sibling was served the first one's entry"
        assert not np.array_equal(a["value"], b["value"])
        assert np.array_equal(b["value"], np.random.default_rng(second).random(4))
        entries = [p for p in tiny.iterdir() if p.name.startswith("test-cache-seeded-")]
        assert len(entries) == 2
        again = registry.run("test-cache-seeded", "quick", seed=np.random.SeedSequence(
            2024, spawn_key=(1,)))
        assert CALLS["seeded"] == 2 and np.array_equal(again["value"], b["value"])
    finally:
        registry._REGISTRY.pop("test-cache-seeded", None)


def test_unwritable_cache_still_runs_and_says_so(tiny, monkeypatch):
    blocker = tiny / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("DPOLEARN_CACHE", str(blocker / "cache"))
    with pytest.warns(CacheWarning, match="could not write cache entry"):
        data = registry.run("test-cache-tiny", "quick")
    assert data["calls"] == 1


WRITER = """
    import sys, numpy as np
    from pathlib import Path
    from dpolearn.experiments import _cache
    path, tag, rounds = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    key = _cache.entry_key("test-cache-tiny", "quick", "0", "concurrency")
    for i in range(rounds):
        payload = np.full(20_000, tag * 1000 + i)
        _cache.store(path, key, {"writer": tag, "round": i, "payload": payload})
"""


def test_concurrent_writers_never_expose_a_bad_entry(tmp_path):
    path = tmp_path / "entry.pkl"
    key = _cache.entry_key("test-cache-tiny", "quick", "0", "concurrency")
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(WRITER), str(path), str(tag), "150"]
        )
        for tag in (1, 2)
    ]
    seen = 0
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheWarning)       # any bad read fails the test
        while any(w.poll() is None for w in writers):
            data = _cache.load(path, key)
            if data is not None:
                seen += 1
                assert np.all(data["payload"] == data["writer"] * 1000 + data["round"])
        assert [w.returncode for w in writers] == [0, 0]
        final = _cache.load(path, key)
    assert final is not None and final["round"] == 149
    assert seen > 0, "the reader should have overlapped the writers"
    assert [p.name for p in tmp_path.iterdir()] == ["entry.pkl"], "no temporary file left behind"


KILLED_AT_FSYNC = """
    import os, signal, sys
    from pathlib import Path
    from dpolearn.experiments import _cache
    path = Path(sys.argv[1])
    key = _cache.entry_key("test-cache-tiny", "quick", "0", "interrupt")
    os.fsync = lambda fd: os.kill(os.getpid(), signal.SIGKILL)   # die with the new entry half done
    _cache.store(path, key, {"calls": 2})
"""


@pytest.mark.parametrize("existing", [True, False], ids=["over-old-entry", "fresh-key"])
def test_write_killed_midway_leaves_old_entry_or_none(tmp_path, existing):
    path = tmp_path / "entry.pkl"
    key = _cache.entry_key("test-cache-tiny", "quick", "0", "interrupt")
    if existing:
        _cache.store(path, key, {"calls": 1})
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(KILLED_AT_FSYNC), str(path)], check=False
    )
    assert proc.returncode == -signal.SIGKILL
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheWarning)
        data = _cache.load(path, key)
    assert data == ({"calls": 1} if existing else None)


def test_writer_killed_at_any_moment_leaves_a_sound_entry(tmp_path):
    path = tmp_path / "entry.pkl"
    key = _cache.entry_key("test-cache-tiny", "quick", "0", "concurrency")
    for delay in (0.05, 0.2, 0.5):
        proc = subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(WRITER), str(path), "3", "100000"]
        )
        time.sleep(delay + 1.0)                  # about 1 s to import numpy and dpolearn
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        with warnings.catch_warnings():
            warnings.simplefilter("error", CacheWarning)
            data = _cache.load(path, key)
        assert data is None or np.all(data["payload"] == 3000 + data["round"])


def test_no_cache_reaches_a_book_experiment_nested_run(tmp_path, monkeypatch):
    """hu2021-fig1 reads hu2021-regret through ``run``: --no-cache must recompute both."""
    monkeypatch.setenv("DPOLEARN_CACHE", str(tmp_path))
    inner = registry.get("hu2021-regret")
    data = registry.run("hu2021-regret", "quick", progress=False)
    calls = []

    def counted(**kw):
        calls.append(kw["seed"])
        return data

    monkeypatch.setitem(
        registry._REGISTRY,
        "hu2021-regret",
        registry.Experiment(inner.id, inner.title, counted, inner.plot, inner.summary),
    )
    registry.run("hu2021-fig1", "quick", progress=False)
    assert calls == [], "by default the nested run reads the cache"
    registry.run("hu2021-fig1", "quick", progress=False, cache=False)
    assert calls == [0], "with cache=False the nested experiment is recomputed"


# ------------------------------------------------------------------ settings (overrides)
def _tunable(scale, seed, jobs, progress, means=(0.9, 0.6), horizon=None):
    CALLS["tunable"] = CALLS.get("tunable", 0) + 1
    horizon = horizon or {"quick": 10, "paper": 100}[scale]
    return {"calls": CALLS["tunable"], "means": means, "horizon": horizon}


@pytest.fixture
def tunable(tiny):
    """A registered test experiment with two settings, ``means`` and ``horizon``."""
    from dpolearn.experiments import _settings

    registry.register("test-cache-tunable", title="tunable", settings=(
        _settings.Setting("means", _settings.means, (0.9, 0.6), "arm means"),
        _settings.Setting("horizon", _settings.horizon, {"quick": 10, "paper": 100}, "rounds"),
    ))(_tunable)
    yield tiny
    registry._REGISTRY.pop("test-cache-tunable", None)


def test_without_overrides_the_key_is_the_one_experiments_always_had():
    """No new field in the key of a call without overrides: existing caches stay valid."""
    key = _cache.entry_key("hu2022-fig2", "quick", "0", "abc")
    assert key == {"schema": _cache.SCHEMA, "experiment": "hu2022-fig2", "scale": "quick",
                   "seed": "0", "source": "abc", "numpy": np.__version__,
                   "scipy": scipy.__version__}
    assert _cache.entry_key("hu2022-fig2", "quick", "0", "abc", {}) == key
    assert _cache.entry_key("hu2022-fig2", "quick", "0", "abc", {"horizon": 5}) != key


def test_each_override_has_its_own_entry_and_equal_spellings_share_one(tunable):
    run = registry.run
    base = run("test-cache-tunable", "quick")
    assert (base["means"], base["horizon"]) == ((0.9, 0.6), 10)
    assert run("test-cache-tunable", "quick", means=(0.9, 0.6), horizon=10)["calls"] == 1, \
        "overrides equal to the defaults read the entry of the call without them"
    other = run("test-cache-tunable", "quick", means=[0.7, 0.5, 0.2])
    assert other["calls"] == 2 and other["means"] == (0.7, 0.5, 0.2)
    assert run("test-cache-tunable", "quick", means=np.array([0.7, 0.5, 0.2]))["calls"] == 2
    third = run("test-cache-tunable", "quick", means=[0.7, 0.5, 0.2], horizon=20)
    assert third["calls"] == 3 and third["horizon"] == 20
    assert run("test-cache-tunable", "quick", horizon=20, means=(0.7, 0.5, 0.2))["calls"] == 3
    assert run("test-cache-tunable", "paper", horizon=10)["calls"] == 4, \
        "10 is the quick default, not the paper one"
    assert len(list(tunable.iterdir())) == 4
    assert run("test-cache-tunable", "quick")["calls"] == 1


@pytest.mark.parametrize("overrides, error, needle", [
    ({"mean": [0.5, 0.4]}, ValueError, "mean is not a setting of experiment 'test-cache-tunable'"),
    ({"means": [0.5]}, ValueError, "means must describe K >= 2 arms"),
    ({"means": [0.5, 1.5]}, ValueError, "means must lie in [0.0, 1.0], got 1.5"),
    ({"means": "0.5,0.4"}, TypeError, "means must be a sequence"),
    ({"means": 0.5}, TypeError, "means must be a sequence"),
    ({"horizon": 2.5}, TypeError, "horizon must be an integer, got 2.5"),
    ({"horizon": 1}, ValueError, "horizon must be >= 2, got 1"),
])
def test_bad_overrides_are_named_before_anything_runs(tunable, overrides, error, needle):
    with pytest.raises(error) as info:
        registry.run("test-cache-tunable", "quick", **overrides)
    assert needle in str(info.value)
    with pytest.raises(error):
        registry.settings("test-cache-tunable", "quick", **overrides)
    assert "tunable" not in CALLS and not any(tunable.iterdir())


def test_an_experiment_without_settings_refuses_every_override(tiny):
    with pytest.raises(ValueError, match="takes no settings.*horizon=5"):
        registry.run("test-cache-tiny", "quick", horizon=5)
    assert not CALLS


def test_settings_report_defaults_and_overrides(tunable):
    assert registry.settings("test-cache-tunable", "paper") == {"means": (0.9, 0.6),
                                                                "horizon": 100}
    assert registry.settings("test-cache-tunable", "quick", means=[0.5, 0.25]) == {
        "means": (0.5, 0.25), "horizon": 10}


def test_settings_may_not_shadow_the_arguments_of_run():
    from dpolearn.experiments import _settings

    with pytest.raises(ValueError, match="seed"):
        registry.register("test-cache-shadow", title="x", settings=(
            _settings.Setting("seed", _settings.horizon, 1, "no"),))(_tiny)
    with pytest.raises(TypeError, match="Setting records"):
        registry.register("test-cache-shadow", title="x", settings=("horizon",))(_tiny)
    assert "test-cache-shadow" not in registry._REGISTRY
