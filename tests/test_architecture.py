"""The shape of the code: the library ``dpolearn`` and the book's machinery ``bookkit``.

For both packages: no import cycle, no import of the package's own modules hidden in a function
(to dodge one), no private name imported across modules. For ``dpolearn``: no environment's
private generator used outside ``envs.py``, and nothing imported from ``bookkit`` (the library
stands alone). For ``bookkit``: its modules sit in layers (:data:`BOOKKIT_LAYERS`, bottom to
top) and import only from their own layer or lower ones, and they use ``dpolearn`` through its
public modules only.

The checks read the source with :mod:`ast` (a static import graph), so they see imports inside
functions too; a few modules that used to be in cycles are also imported alone in a fresh
interpreter.
"""
from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "dpolearn"
BOOKKIT = ROOT / "bookkit" / "src" / "bookkit"

#: The layers of bookkit, bottom to top: a module imports only from its own layer and the
#: layers below it. Every module of bookkit must be in one.
BOOKKIT_LAYERS: list[tuple[str, set[str]]] = [
    ("package", {"bookkit"}),
    ("myst", {"bookkit.myst"}),                      # the MyST reader
    ("book", {"bookkit.book"}),                      # the book index: toc, labels, bibliography
    ("notebook", {"bookkit.notebook"}),              # chapter -> plain notebook
    ("editions", {"bookkit.editions"}),
    ("boxes", {"bookkit.boxes"}),
    ("sync", {"bookkit.sync"}),                      # the committed notebook twins
    ("figures", {"bookkit.figures"}),                # page-width model, figure audit
    ("sphinx", {"bookkit.sphinx", "bookkit.sphinx.book", "bookkit.sphinx.figures",
                "bookkit.sphinx.api_refs"}),
    ("api_pages", {"bookkit.api_pages"}),
    ("pdf", {"bookkit.pdf"}),
    ("page_audit", {"bookkit.page_audit"}),          # the reader's audit of the built pages
    ("vendor", {"bookkit.vendor"}),
    ("assignments", {"bookkit.assignments", "bookkit.expected_outputs"}),
    ("grade", {"bookkit.grade"}),                    # grading submissions in a sandbox
    ("site", {"bookkit.site", "bookkit.release"}),    # the public release, make release
]


def _module_name(path: Path, package: Path) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def modules_of(package: Path) -> dict[str, Path]:
    """Dotted module name -> source file, for every module of ``package`` (a directory)."""
    return {_module_name(p, package): p for p in sorted(package.rglob("*.py"))}


MODULES = modules_of(PACKAGE)
BOOKKIT_MODULES = modules_of(BOOKKIT)


def _imports(module: str, path: Path, modules: dict[str, Path] = MODULES):
    """``(target module, line, at top level?, imported names)`` of every import of the
    module's own package (``modules``), or, for a target outside it, of ``dpolearn`` and
    ``bookkit``."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in ("dpolearn", "bookkit"):
                    yield alias.name, node.lineno, node.col_offset == 0, alias.name
            continue
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = module.split(".") if is_package else module.split(".")[:-1]
            base = base[: len(base) - (node.level - 1)]
        elif (node.module or "").split(".")[0] in ("dpolearn", "bookkit"):
            base = []
        else:
            continue
        target = ".".join(base + ([node.module] if node.module else []))
        for alias in node.names:
            sub = f"{target}.{alias.name}"
            yield (sub if sub in modules else target), node.lineno, node.col_offset == 0, alias.name


def import_graph(modules: dict[str, Path] = MODULES) -> dict[str, set[str]]:
    """Module -> modules of the same package it imports anywhere in its source (top level or
    not)."""
    return {m: {t for t, *_ in _imports(m, p, modules) if t in modules and t != m}
            for m, p in modules.items()}


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_cycle_finder_sees_a_cycle():
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_in_the_package():
    assert find_cycles(import_graph()) == []


def _imports_inside_functions(modules: dict[str, Path]) -> list[str]:
    return [f"{modules[m].relative_to(ROOT)}:{line} imports {t}"
            for m, p in modules.items() for t, line, top, _ in _imports(m, p, modules)
            if not top and t in modules]


def test_no_package_import_inside_a_function():
    assert _imports_inside_functions(MODULES) == []


def _private_names_imported(modules: dict[str, Path]) -> list[str]:
    # private modules of a subpackage (``_validation``, ``_cache``, ...) may be imported;
    # private functions, classes and constants may not
    return [f"{modules[m].relative_to(ROOT)}:{line} imports {t}.{name}"
            for m, p in modules.items() for t, line, _, name in _imports(m, p, modules)
            if name.startswith("_") and not name.startswith("__")
            and not t.endswith(f".{name}")]           # t ends with the name: a module


def test_no_private_name_imported_across_modules():
    assert _private_names_imported(MODULES) == []


def test_the_library_imports_nothing_from_the_book_machinery():
    hits = [f"{MODULES[m].relative_to(ROOT)}:{line} imports {t}"
            for m, p in MODULES.items() for t, line, *_ in _imports(m, p)
            if t.split(".")[0] == "bookkit"]
    assert hits == []


# ------------------------------------------------------------------ bookkit
def layer_violations(graph: dict[str, set[str]],
                     layers: list[tuple[str, set[str]]] = BOOKKIT_LAYERS) -> list[str]:
    """Every import of a module from a higher layer, and every module in no layer."""
    rank = {m: (i, name) for i, (name, mods) in enumerate(layers) for m in mods}
    out = [f"{m} is in no layer of BOOKKIT_LAYERS" for m in sorted(graph) if m not in rank]
    for m in sorted(graph):
        for t in sorted(graph[m]):
            if m in rank and t in rank and rank[t][0] > rank[m][0]:
                out.append(f"{m} ({rank[m][1]}) imports {t} ({rank[t][1]}), a higher layer")
    return out


def test_bookkit_layers_are_respected():
    assert layer_violations(import_graph(BOOKKIT_MODULES)) == []


def test_no_import_cycle_in_bookkit():
    assert find_cycles(import_graph(BOOKKIT_MODULES)) == []


def test_no_bookkit_import_inside_a_function():
    assert _imports_inside_functions(BOOKKIT_MODULES) == []


def test_no_private_name_imported_across_bookkit_modules():
    assert _private_names_imported(BOOKKIT_MODULES) == []


def test_bookkit_uses_the_public_modules_of_the_library():
    hits = [f"{BOOKKIT_MODULES[m].relative_to(ROOT)}:{line} imports {t}.{name}"
            for m, p in BOOKKIT_MODULES.items()
            for t, line, _, name in _imports(m, p, BOOKKIT_MODULES)
            if t.split(".")[0] == "dpolearn"
            and any(part.startswith("_") for part in t.split(".") + [name])]
    assert hits == []


def test_layer_check_catches_a_planted_upward_import(tmp_path):
    """A copy of bookkit whose book index imports the converter (one layer up) fails the layer
    rule and the cycle rule; the unchanged copy passes both."""
    copy = tmp_path / "bookkit"
    shutil.copytree(BOOKKIT, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert layer_violations(import_graph(modules_of(copy))) == []
    book = copy / "book.py"
    book.write_text(book.read_text(encoding="utf-8")
                    + "\nfrom .notebook import convert_chapter  # noqa: E402\n", encoding="utf-8")
    graph = import_graph(modules_of(copy))
    assert layer_violations(graph) == [
        "bookkit.book (book) imports bookkit.notebook (notebook), a higher layer"]
    assert any({"bookkit.book", "bookkit.notebook"} <= set(c) for c in find_cycles(graph))
    (copy / "stray.py").write_text("from . import book\n", encoding="utf-8")
    assert "bookkit.stray is in no layer of BOOKKIT_LAYERS" in layer_violations(
        import_graph(modules_of(copy)))


def test_no_environment_private_generator_outside_envs():
    pattern = re.compile(r"\benv\w*\._rng\b")
    hits = [f"{path.relative_to(ROOT)}:{n}"
            for path in MODULES.values() if path.name != "envs.py"
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if pattern.search(line)]
    assert hits == []


@pytest.mark.parametrize("module", [
    "dpolearn.accounting", "dpolearn.gdp", "dpolearn.fullinfo.rnm_ftnl",
    "dpolearn.fullinfo.epoch_sim", "dpolearn.experiments._executor",
    "dpolearn.experiments.registry", "dpolearn.audit", "dpolearn.testing",
    "dpolearn.lower_bounds", "dpolearn.plotting", "dpolearn.leaderboard",
    "bookkit.book", "bookkit.notebook", "bookkit.editions", "bookkit.figures",
])
def test_module_imports_alone_in_a_fresh_interpreter(module):
    proc = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True,
                          text=True, cwd=PACKAGE.parent, timeout=120)
    assert proc.returncode == 0, proc.stderr
