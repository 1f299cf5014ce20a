#!/usr/bin/env python3
"""Fetch the browser assets the book needs offline and store them under ``book/_vendor/``.

By default a Jupyter Book page loads MathJax 3 from jsDelivr and the ipywidgets HTML manager
(plus require.js) from jsDelivr/cdnjs. A reader offline, or our browser test on a machine without
internet, would then see raw ``$x$`` and dead widgets. This script downloads pinned versions from
the npm registry (``npm pack``), keeps only the files a page actually loads, and writes
``book/_vendor/MANIFEST.json`` (versions, file list, sha256). The copies are committed, so a
plain ``jupyter-book build .`` needs no network; ``bookkit.sphinx.book`` points Sphinx at
them. Run it only to upgrade a pin:

    python -m bookkit.vendor            # re-fetch into book/_vendor (needs npm)
    python -m bookkit.vendor --check    # verify book/_vendor against MANIFEST.json
"""
from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from fnmatch import fnmatch
from pathlib import Path

from .book import ROOT

VENDOR = ROOT / "book" / "_vendor"

# name on npm, pinned version, directory under book/_vendor, files kept (globs relative to the
# package root). MathJax 3 because Sphinx 7.4's mathjax extension speaks the v3 config; the
# html-manager 1.x line is the one for ipywidgets 8 (the version myst-nb 1.4 would load).
PACKAGES = [
    {
        "npm": "mathjax", "version": "3.2.2", "dir": "mathjax",
        "keep": ["LICENSE", "es5/tex-mml-chtml.js", "es5/input/tex/extensions/*",
                 "es5/output/chtml/fonts/woff-v2/*", "es5/ui/*", "es5/a11y/*"],
        "strip": "es5/",
    },
    {
        "npm": "@jupyter-widgets/html-manager", "version": "1.0.6", "dir": "html-manager",
        "keep": ["LICENSE", "dist/embed-amd.js", "dist/*.woff2", "dist/*.woff"],
        "strip": "dist/",
    },
    {
        "npm": "requirejs", "version": "2.3.8", "dir": "requirejs",
        "keep": ["LICENSE", "require.js"],
        "strip": "",
    },
]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fetch(dest: Path = VENDOR) -> dict:
    """Download every package with ``npm pack`` and copy the kept files into ``dest``."""
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("npm not found: install Node.js (apt-get install npm) to refresh assets")
    manifest = {"packages": [], "files": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for pkg in PACKAGES:
            spec = f"{pkg['npm']}@{pkg['version']}"
            out = subprocess.run([npm, "pack", spec, "--silent"], cwd=tmp, check=True,
                                 capture_output=True, text=True).stdout.split()[-1]
            target = dest / pkg["dir"]
            if target.exists():
                shutil.rmtree(target)
            with tarfile.open(Path(tmp) / out) as tar:
                for member in tar.getmembers():
                    rel = member.name.split("/", 1)[1]          # drop the leading "package/"
                    if not member.isfile() or not any(fnmatch(rel, g) for g in pkg["keep"]):
                        continue
                    name = rel[len(pkg["strip"]):] if rel.startswith(pkg["strip"]) else rel
                    path = target / name
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_bytes(tar.extractfile(member).read())
            manifest["packages"].append({"npm": pkg["npm"], "version": pkg["version"],
                                         "dir": pkg["dir"]})
    for path in sorted(p for p in dest.rglob("*") if p.is_file() and p.name != "MANIFEST.json"):
        manifest["files"][path.relative_to(dest).as_posix()] = _sha256(path)
    (dest / "MANIFEST.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return manifest


def check(dest: Path = VENDOR) -> list[str]:
    """Problems found comparing ``dest`` with its MANIFEST.json (empty list: all good)."""
    manifest_path = dest / "MANIFEST.json"
    if not manifest_path.exists():
        return [f"{manifest_path} is missing: run python -m bookkit.vendor"]
    manifest = json.loads(manifest_path.read_text())
    problems = []
    for rel, digest in manifest["files"].items():
        path = dest / rel
        if not path.exists():
            problems.append(f"missing vendored file {path}")
        elif _sha256(path) != digest:
            problems.append(f"vendored file {path} differs from MANIFEST.json")
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only verify book/_vendor")
    args = parser.parse_args(argv)
    if args.check:
        problems = check()
        print("\n".join(problems) or "book/_vendor matches MANIFEST.json")
        return 1 if problems else 0
    manifest = fetch()
    print(f"wrote {len(manifest['files'])} files under {VENDOR.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
