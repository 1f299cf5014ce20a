"""Every supported Python, every process start method: ``nox`` (or ``make nox``).

Sessions
--------
``tests-3.10`` ... ``tests-3.13``
    The package's non-book tests (``pytest -m "not book"``) on every interpreter from
    ``requires-python`` in pyproject.toml to the newest one we support. Extra arguments go to
    pytest: ``nox -s tests-3.13 -- tests/test_simulate.py``.
``start_methods-3.10``, ``start_methods-3.13``
    The experiments' process pool under the ``fork``, ``spawn`` and ``forkserver`` start methods,
    on the oldest and the newest interpreter: the experiment, cache and command-line tests once
    per method (``DPOLEARN_START_METHOD``), and the test that the three give bit-identical
    ``summary.csv``.

Each session's environment installs the term pin (``requirements.lock``, with hashes) first and
then the test requirements, so the interpreters run the versions a reader gets. Interpreters
are looked up on ``PATH`` (``make nox`` adds pyenv's). The ``uv`` backend is used when it is
installed (much faster), else virtualenv.

The book's machinery (``bookkit``) needs a newer Python than the package (its own
``requires-python``). On an older interpreter the session installs the package without it and
leaves out the tests of the machinery: the test modules that import ``bookkit`` or run its
commands, and the tests listed in :data:`NEEDS_BOOKKIT` (which import it inside the test); the
session's log names them.
"""
from __future__ import annotations

import re
import tempfile
from pathlib import Path

import nox

nox.options.default_venv_backend = "uv|virtualenv"
nox.options.sessions = ["tests", "start_methods"]
nox.options.reuse_existing_virtualenvs = True
# Under _build/, which the book build skips: Jupyter Book reads every page-like file below the
# project folder, and the environments' site-packages hold notebooks and Markdown of their own.
nox.options.envdir = "_build/nox"

NEWEST = "3.13"
PYTHONS = nox.project.python_versions(nox.project.load_toml("pyproject.toml"),
                                      max_version=NEWEST)
START_METHODS = ("fork", "spawn", "forkserver")
EXPERIMENT_TESTS = ["tests/test_engine.py", "tests/test_cache.py", "tests/test_cli.py",
                    "tests/test_simulate.py"]
BOOKKIT_PYTHON = nox.project.python_versions(nox.project.load_toml("bookkit/pyproject.toml"),
                                             max_version=NEWEST)[0]
#: Package tests that need bookkit inside the test (a chapter read with its MyST reader, a
#: machinery module imported in a fresh interpreter).
NEEDS_BOOKKIT = [
    "tests/test_leaderboard.py::test_chapter_draft_fails_the_contract_checks_the_chapter_names",
    "tests/test_leaderboard.py::test_chapter_audit_catches_the_half_noise_variant_and_passes_the_fix",
    *(f"tests/test_architecture.py::test_module_imports_alone_in_a_fresh_interpreter[{m}]"
      for m in ("bookkit.book", "bookkit.notebook", "bookkit.editions", "bookkit.figures")),
]


def _minor(version: str) -> tuple:
    return tuple(int(part) for part in version.split("."))


def _has_bookkit(session: nox.Session) -> bool:
    return _minor(str(session.python)) >= _minor(BOOKKIT_PYTHON)


def _install(session: nox.Session) -> None:
    session.install("-r", "requirements.lock")
    if _has_bookkit(session):
        session.install("-r", "requirements-test.txt")
        return
    # the test requirements without bookkit, local paths made absolute for the copy
    kept = []
    for line in Path("requirements-test.txt").read_text().splitlines():
        option, _, path = line.partition(" ")
        if option in ("-r", "-e"):
            if Path(path).resolve() == Path("bookkit").resolve():
                continue
            line = f"{option} {Path(path).resolve()}"
        kept.append(line)
    # (not session.create_tmp(): it points TMPDIR into the project, where test_packaging's
    # fresh venv would then lie inside the checkout it must not import)
    copy = Path(tempfile.mkdtemp(prefix="dpolearn-nox-")) / "requirements-test-without-bookkit.txt"
    copy.write_text("\n".join(kept) + "\n")
    session.install("-r", str(copy))


def _without_bookkit(session: nox.Session) -> list[str]:
    """pytest options leaving out the machinery's tests when bookkit cannot be installed."""
    if _has_bookkit(session):
        return []
    # an import at module level, or a run of one of its commands (python -m bookkit...)
    uses = re.compile(r'^(import bookkit|from bookkit)|"-m", "bookkit', re.M)
    modules = sorted(str(p) for p in Path("tests").glob("test_*.py") if uses.search(p.read_text()))
    session.log(f"Python {session.python} < {BOOKKIT_PYTHON} (bookkit's requires-python): "
                f"leaving out {modules + NEEDS_BOOKKIT}")
    return [f"--ignore={m}" for m in modules] + [f"--deselect={t}" for t in NEEDS_BOOKKIT]


def _pytest(session: nox.Session, *args: str, env: dict | None = None) -> None:
    # MPLBACKEND unset: the figure tests must pass under whatever backend the machine has
    session.run("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not book",
                *_without_bookkit(session), *args, env={"DPOLEARN_PROGRESS": "0", **(env or {})})


@nox.session(python=PYTHONS)
def tests(session: nox.Session) -> None:
    """Non-book tests on one interpreter."""
    _install(session)
    _pytest(session, *(session.posargs or ["tests", "dpolearn"]))


@nox.session(python=[PYTHONS[0], PYTHONS[-1]])
def start_methods(session: nox.Session) -> None:
    """The experiments' process pool under every start method (oldest and newest Python)."""
    _install(session)
    for method in START_METHODS:
        session.log(f"start method {method}")
        _pytest(session, *EXPERIMENT_TESTS, env={"DPOLEARN_START_METHOD": method})
    _pytest(session, "tests/test_engine.py", "-k", "start_method")
