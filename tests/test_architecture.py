"""The package's shape: no import cycle, no import hidden in a function to dodge one, no private
name imported across modules, no environment's private generator used outside ``envs.py``.

The checks read the source with :mod:`ast` (a static import graph), so they see imports inside
functions too; a few modules that used to be in cycles are also imported alone in a fresh
interpreter.
"""
from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "dpolearn"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imports(module: str, path: Path):
    """``(target module, line, at top level?, imported names)`` of every package import."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = module.split(".") if is_package else module.split(".")[:-1]
            base = base[: len(base) - (node.level - 1)]
        elif (node.module or "").split(".")[0] == "dpolearn":
            base = []
        else:
            continue
        target = ".".join(base + ([node.module] if node.module else []))
        for alias in node.names:
            sub = f"{target}.{alias.name}"
            yield (sub if sub in MODULES else target), node.lineno, node.col_offset == 0, alias.name


def import_graph() -> dict[str, set[str]]:
    """Module -> package modules it imports anywhere in its source (top level or not)."""
    return {m: {t for t, *_ in _imports(m, p) if t in MODULES and t != m}
            for m, p in MODULES.items()}


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


def test_no_package_import_inside_a_function():
    inner = [f"{MODULES[m].relative_to(PACKAGE.parent)}:{line} imports {t}"
             for m, p in MODULES.items() for t, line, top, _ in _imports(m, p)
             if not top and t in MODULES]
    assert inner == []


def test_no_private_name_imported_across_modules():
    # private modules of a subpackage (``_validation``, ``_cache``, ...) may be imported;
    # private functions, classes and constants may not
    leaks = [f"{MODULES[m].relative_to(PACKAGE.parent)}:{line} imports {t}.{name}"
             for m, p in MODULES.items() for t, line, _, name in _imports(m, p)
             if name.startswith("_") and not name.startswith("__")
             and not t.endswith(f".{name}")]           # t ends with the name: a module
    assert leaks == []


def test_no_environment_private_generator_outside_envs():
    pattern = re.compile(r"\benv\w*\._rng\b")
    hits = [f"{path.relative_to(PACKAGE.parent)}:{n}"
            for path in MODULES.values() if path.name != "envs.py"
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if pattern.search(line)]
    assert hits == []


@pytest.mark.parametrize("module", [
    "dpolearn.accounting", "dpolearn.gdp", "dpolearn.fullinfo.rnm_ftnl",
    "dpolearn.fullinfo.epoch_sim", "dpolearn.experiments._executor",
    "dpolearn.experiments.registry", "dpolearn.audit", "dpolearn.testing",
    "dpolearn.lower_bounds", "dpolearn.plotting", "dpolearn.leaderboard",
])
def test_module_imports_alone_in_a_fresh_interpreter(module):
    proc = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True,
                          text=True, cwd=PACKAGE.parent, timeout=120)
    assert proc.returncode == 0, proc.stderr
