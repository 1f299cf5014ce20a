#!/usr/bin/env python3
"""Make a release: bump the version everywhere, build the site and the instructor bundle, tag.

    python -m bookkit.release 0.3.0              # make release VERSION=0.3.0
    python -m bookkit.release 0.3.0 --no-build   # the version bump, commit and tag only

Steps, in a clean checkout:

1. the version goes into every place that states it (:data:`VERSION_FILES`: ``pyproject.toml``,
   ``dpolearn/_version.py``, ``bookkit/pyproject.toml``, ``CITATION.cff`` with its
   ``date-released``, the book's footer in ``_config.yml``, ``LICENSE-text``, the README), the
   ``## Unreleased`` heading of ``CHANGELOG.md`` becomes ``## <version> (<date>)`` under a new,
   empty ``## Unreleased``, and the install cell of every committed notebook
   (``book/*.ipynb``) pins the new version;
2. unless ``--no-build``: ``make site`` (the public release, ``_build/site/``) and the
   instructor bundle, a separate artefact that never goes on the public site:
   ``_build/release/dpolearn-<version>-instructor.zip`` (the student edition's HTML and
   notebooks, the solution notebooks, the problem sets' student notebooks, autograder zips and
   solutions);
3. a commit "Release <version>" and the annotated tag ``v<version>``. Pushing the tag makes the
   deploy workflow publish the site.
"""
from __future__ import annotations

import argparse
import datetime as dt
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional

import nbformat

from .book import ROOT, release_version
from .notebook import install_source, notebook_text, package_index_url, replace_install_cell

VERSION = re.compile(r"^\d+\.\d+\.\d+(?:(?:a|b|rc)\d+)?$")

#: File -> the pattern of the version in it (group 1 is the version).
VERSION_FILES = {
    "pyproject.toml": r'(?m)^version = "([^"]+)"',
    "bookkit/pyproject.toml": r'(?m)^version = "([^"]+)"',
    "dpolearn/_version.py": r'(?m)^__version__ = "([^"]+)"',
    "CITATION.cff": r"(?m)^version: (\S+)",
    "_config.yml": r"(?m)^\s+version (\d+\.\d+\.\d+\S*) \(CITATION\.cff",
    "LICENSE-text": r"executable, the dpolearn authors, version (\d+\.\d+\.\d+\S*?)\"",
    "README.md": r"`dpolearn\.__version__` is the release \((\d+\.\d+\.\d+\S*?)\)",
}
RELEASE_DATE = r'(?m)^date-released: "([^"]+)"'
UNRELEASED = "## Unreleased"
BUNDLE = ROOT / "_build" / "release"


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                          check=True).stdout


def check_version(version: str, current: str) -> None:
    if not isinstance(version, str) or not VERSION.match(version):
        raise ValueError(f"version must look like 1.2.3 (or 1.2.3rc1), got {version!r}")
    if version == current:
        raise ValueError(f"version {version!r} is already the current version")


def _replace_group(text: str, pattern: str, new: str, where: str) -> str:
    match = re.search(pattern, text)
    if match is None:
        raise RuntimeError(f"release: no version found in {where} (pattern {pattern!r})")
    return text[:match.start(1)] + new + text[match.end(1):]


def bump(root: Path, version: str, date: str) -> list[str]:
    """Write ``version`` (released on ``date``) everywhere; returns the files changed."""
    changed = []
    for name, pattern in VERSION_FILES.items():
        path = root / name
        text = path.read_text(encoding="utf-8")
        new = _replace_group(text, pattern, version, name)
        if name == "CITATION.cff":
            new = _replace_group(new, RELEASE_DATE, date, name)
        path.write_text(new, encoding="utf-8")
        changed.append(name)
    changelog = root / "CHANGELOG.md"
    text = changelog.read_text(encoding="utf-8")
    if UNRELEASED not in text:
        raise RuntimeError(f"release: CHANGELOG.md has no {UNRELEASED!r} heading")
    changelog.write_text(text.replace(UNRELEASED, f"{UNRELEASED}\n\n## {version} ({date})", 1),
                         encoding="utf-8")
    changed.append("CHANGELOG.md")
    source = install_source(package_index_url(root / "_config.yml"), version)
    for path in sorted((root / "book").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        if replace_install_cell(nb, source):
            path.write_text(notebook_text(nb), encoding="utf-8")
            changed.append(path.relative_to(root).as_posix())
    return changed


def instructor_bundle(root: Path, version: str, make: str = "make") -> Path:
    """Build the student edition, the solution notebooks and the problem sets, and zip them
    into ``_build/release/dpolearn-<version>-instructor.zip``."""
    for target in ("student-book", "instructor-kit", "assignments"):
        subprocess.run([make, target], cwd=root, check=True)
    staging = root / "_build" / "release" / f"dpolearn-{version}-instructor"
    if staging.exists():
        shutil.rmtree(staging)
    parts = {"student-edition/html": root / "_build" / "student" / "_build" / "html",
             "student-edition/notebooks": root / "_build" / "student" / "notebooks",
             "solutions": root / "_build" / "instructor-kit",
             "assignments": root / "_build" / "assignments"}
    for name, src in parts.items():
        if not src.exists():
            raise RuntimeError(f"release: {src} was not built")
        shutil.copytree(src, staging / name)
    return Path(shutil.make_archive(str(staging), "zip", staging.parent, staging.name))


def release(version: str, root: Path = ROOT, build: bool = True, date: Optional[str] = None,
            make: str = "make") -> str:
    """The steps of the module docstring; returns the tag."""
    current = release_version(root / "pyproject.toml")
    check_version(version, current)
    date = date or dt.date.today().isoformat()
    tag = f"v{version}"
    if _git(root, "status", "--porcelain", "--untracked-files=no").strip():
        raise RuntimeError("release: the checkout has uncommitted changes; commit them first")
    if _git(root, "tag", "--list", tag).strip():
        raise RuntimeError(f"release: tag {tag} exists already")
    changed = bump(root, version, date)
    if build:
        subprocess.run([make, "site"], cwd=root, check=True)
        bundle = instructor_bundle(root, version, make)
        print(f"release: site in {root / '_build' / 'site'}, instructor bundle {bundle}")
    _git(root, "add", "--", *changed)
    _git(root, "commit", "--quiet", "-m", f"Release {version}")
    _git(root, "tag", "--annotate", tag, "-m", f"dpolearn {version}")
    print(f"release: {current} -> {version}, tagged {tag} (push it: git push origin main {tag})")
    return tag


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("version", help="the new version, e.g. 0.3.0")
    parser.add_argument("--no-build", action="store_true",
                        help="bump, commit and tag only (no site, no instructor bundle)")
    parser.add_argument("--date", help="release date (default today), YYYY-MM-DD")
    args = parser.parse_args(argv)
    try:
        release(args.version, build=not args.no_build, date=args.date)
    except (ValueError, RuntimeError) as exc:
        print(exc, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
