"""dpolearn as a library: the wheel and sdist hold the package only (no book machinery, which
lives in bookkit/), and the wheel works alone.

The build runs without isolation (``python -m build --no-isolation``), so it needs the
build-system requirements of pyproject.toml in the test environment (requirements-test.txt).
"""
import os
import re
import subprocess
import sys
import tarfile
import textwrap
import zipfile
from importlib.metadata import version
from pathlib import Path

import pytest

import dpolearn

try:
    import tomllib
except ModuleNotFoundError:         # Python 3.10, which the package supports
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.xdist_group("packaging")


def test_version_is_the_same_everywhere():
    with open(ROOT / "pyproject.toml", "rb") as fh:
        declared = tomllib.load(fh)["project"]["version"]
    assert dpolearn.__version__ == declared
    # The installed metadata (the editable install here; `make` reinstalls when pyproject changes).
    assert version("dpolearn") == declared


def test_distributed_extra_is_declared():
    with open(ROOT / "pyproject.toml", "rb") as fh:
        extras = tomllib.load(fh)["project"]["optional-dependencies"]
    assert any(req.startswith("distributed") for req in extras["distributed"])


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """``python -m build`` of the checkout: (wheel, sdist)."""
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    [wheel] = out.glob("dpolearn-*.whl")
    [sdist] = out.glob("dpolearn-*.tar.gz")
    return wheel, sdist


FORBIDDEN = ("_build/", ".venv/", "results/", "__pycache__/", ".pyc", "book/", ".git/", ".ipynb",
             "bookkit", "_figure_audit")

#: What marks book machinery in a module's source: an IPython extension (the figure audit of
#: the build's kernels), a Sphinx extension, the build's environment variables, the page-width
#: model of the book's theme, the book's machinery itself.
BOOK_MACHINERY = re.compile(r"load_ipython_extension|def setup\(app|^\s*(?:from|import) sphinx"
                            r"|DPOLEARN_FIGURE_|COLUMN_WIDTH_PX|display_scale|bookkit"
                            r"|_toc\.yml|jupyter.book", re.MULTILINE)


def test_wheel_and_sdist_hold_the_package_only(dist):
    wheel, sdist = dist
    assert wheel.name == f"dpolearn-{dpolearn.__version__}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as zf:
        wheel_names = zf.namelist()
    with tarfile.open(sdist) as tf:
        sdist_names = tf.getnames()
    for names in (wheel_names, sdist_names):
        bad = [n for n in names if any(part in n for part in FORBIDDEN)]
        assert not bad, bad[:10]
    top = {n.split("/")[0] for n in wheel_names}
    assert top == {"dpolearn", f"dpolearn-{dpolearn.__version__}.dist-info"}
    # Every module of the package is in the wheel.
    here = {str(p.relative_to(ROOT)) for p in (ROOT / "dpolearn").rglob("*.py")}
    assert here <= set(wheel_names), sorted(here - set(wheel_names))[:10]


def test_wheel_holds_no_book_machinery(dist):
    wheel, _ = dist
    with zipfile.ZipFile(wheel) as zf:
        sources = {n: zf.read(n).decode("utf-8") for n in zf.namelist() if n.endswith(".py")}
    assert "dpolearn/plotting.py" in sources
    hits = [f"{name}: {m.group(0)!r}" for name, text in sorted(sources.items())
            for m in [BOOK_MACHINERY.search(text)] if m]
    assert hits == []
    # the check sees the machinery where it is
    audit = (ROOT / "bookkit" / "src" / "bookkit" / "figures.py").read_text(encoding="utf-8")
    assert BOOK_MACHINERY.search(audit)


WHEEL_CHECK = textwrap.dedent("""
    import importlib.metadata, os, sys
    import dpolearn as dpl
    print(dpl.__file__)
    assert dpl.__version__ == importlib.metadata.version("dpolearn"), dpl.__version__
    env = dpl.BernoulliBandit([0.9, 0.6])
    result = dpl.simulate(dpl.UCB1(), env, horizon=2_000, n_runs=4, seed=0)
    assert result.regret.shape[0] == 4 and result.final_mean > 0
    private = dpl.simulate(dpl.bandits.LazyDPTS(epsilon=1.0), env, horizon=2_000, n_runs=2, seed=0)
    print(private.guarantee)
    print(dpl.experiments.cache_dir())
""")


def test_wheel_installs_and_runs_in_a_fresh_venv(dist, tmp_path):
    wheel, _ = dist
    venv = tmp_path / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300
    )
    python = venv / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # Install the wheel alone (no network): its dependencies come from this environment, added
    # as a plain path, so the editable checkout's import hook (a .pth file there) stays off.
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                    "--target", site, str(wheel)], check=True, timeout=300)
    (Path(site) / "zz-dependencies.pth").write_text(_site_of("numpy") + "\n")
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "DPOLEARN_CACHE", "XDG_CACHE_HOME")}
    env["HOME"] = str(tmp_path / "home")
    proc = subprocess.run([str(python), "-c", WHEEL_CHECK], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    where, guarantee, cache = proc.stdout.strip().splitlines()
    assert Path(where).resolve().is_relative_to(Path(site).resolve()), where
    assert not Path(where).resolve().is_relative_to(ROOT), "imported the checkout, not the wheel"
    assert "PureDP" in guarantee
    assert Path(cache) == tmp_path / "home" / ".cache" / "dpolearn", "no checkout: a user cache"


def _site_of(module: str) -> str:
    """The site-packages directory this test's numpy (and the other dependencies) live in."""
    mod = __import__(module)
    return str(Path(mod.__file__).resolve().parents[1])
