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
"""
from __future__ import annotations

import nox

nox.options.default_venv_backend = "uv|virtualenv"
nox.options.sessions = ["tests", "start_methods"]
nox.options.reuse_existing_virtualenvs = True

NEWEST = "3.13"
PYTHONS = nox.project.python_versions(nox.project.load_toml("pyproject.toml"),
                                      max_version=NEWEST)
START_METHODS = ("fork", "spawn", "forkserver")
EXPERIMENT_TESTS = ["tests/test_engine.py", "tests/test_cache.py", "tests/test_cli.py",
                    "tests/test_simulate.py"]


def _install(session: nox.Session) -> None:
    session.install("-r", "requirements.lock")
    session.install("-r", "requirements-test.txt")


def _pytest(session: nox.Session, *args: str, env: dict | None = None) -> None:
    # MPLBACKEND unset: the figure tests must pass under whatever backend the machine has
    session.run("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not book",
                *args, env={"DPOLEARN_PROGRESS": "0", **(env or {})})


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
