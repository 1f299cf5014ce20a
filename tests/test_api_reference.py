"""The API reference of the book documents every name of every __all__ of the package.

Two checks: the generated pages (book/api/*.rst, index.md) are what bookkit.api_pages
writes today and the table of contents lists them all (fast, no build); and the object
inventory of the built book (objects.inv of the quick build) holds, for every public module M
and every name n in M.__all__, a documented object that *is* M.n (under M or under the
subpackage that re-exports it).
"""
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import dpolearn

ROOT = Path(__file__).resolve().parents[1]
API = ROOT / "book" / "api"


def public_modules():
    """Every public module of dpolearn that defines __all__ (private modules excluded)."""
    out = [dpolearn]
    for info in pkgutil.walk_packages(dpolearn.__path__, "dpolearn."):
        if any(part.startswith("_") for part in info.name.split(".")[1:]):
            continue
        mod = importlib.import_module(info.name)
        if getattr(mod, "__all__", None):
            out.append(mod)
    return out


def test_generated_pages_are_current():
    proc = subprocess.run([sys.executable, "-m", "bookkit.api_pages", "--check"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_table_of_contents_lists_every_api_page():
    toc = (ROOT / "_toc.yml").read_text()
    for page in sorted(API.glob("*.rst")) + [API / "index.md"]:
        assert f"file: book/api/{page.stem}\n" in toc, f"{page.name} missing from _toc.yml"


def test_every_subpackage_has_a_page_with_automodule():
    for mod in public_modules():
        parts = mod.__name__.split(".")
        if len(parts) == 1:
            continue
        page = API / f"{parts[1]}.rst"
        assert page.exists(), f"no API page for {mod.__name__}"
        assert f".. automodule:: {mod.__name__}\n" in page.read_text(), mod.__name__


def _inventory(html: Path):
    from sphinx.util.inventory import InventoryFile

    with open(html / "objects.inv", "rb") as fh:
        inv = InventoryFile.load(fh, "", lambda base, uri: uri)
    return {name for kind, entries in inv.items() if kind.startswith("py:") for name in entries}


def _resolve(name: str):
    holder, _, attr = name.rpartition(".")
    try:
        return getattr(importlib.import_module(holder), attr)
    except (ImportError, AttributeError):
        try:
            return getattr(_resolve(holder), attr)
        except (ImportError, AttributeError, ValueError):
            return None


def missing_names(documented):
    """(module, name) pairs of an __all__ with no documented object bound to the same value."""
    by_last = {}
    for full in documented:
        by_last.setdefault(full.rsplit(".", 1)[-1], []).append(full)
    missing = []
    for mod in public_modules():
        for name in mod.__all__:
            if f"{mod.__name__}.{name}" in documented:
                continue
            obj = getattr(mod, name)
            if any(_resolve(full) is obj for full in by_last.get(name, [])):
                continue
            missing.append(f"{mod.__name__}.{name}")
    return missing


@pytest.mark.book
@pytest.mark.xdist_group("book")
def test_built_reference_documents_every_public_name(quick_book):
    documented = _inventory(quick_book.html)
    assert "dpolearn.testing.check_policy" in documented
    missing = missing_names(documented)
    assert not missing, f"not in the API reference: {missing}"


@pytest.mark.book
@pytest.mark.xdist_group("book")
def test_the_check_sees_a_name_left_out(quick_book):
    """The completeness check fails when one name is missing from the inventory."""
    documented = _inventory(quick_book.html)
    dropped = {n for n in documented if n.endswith(".check_policy")}
    assert "dpolearn.testing.check_policy" in missing_names(documented - dropped)
