"""Sphinx extension: resolve the short cross-references of dpolearn's docstrings.

The docstrings refer to neighbours by short names (``:func:`dpse_epoch_length```,
``:meth:`reset```, ``:class:`PrivacyAssumptionWarning```), which Python's own resolution finds
only when the object is documented under the module the docstring is rendered in. The API
reference documents each public name once, under the shortest path that exports it, so a
class defined in ``dpolearn.bandits.dpse`` is rendered under ``dpolearn.bandits``.

For a Python reference that Sphinx could not resolve, this handler looks for documented objects
whose full name ends with the target (``dpolearn.`` stripped): first among the methods of the
class in context and its base classes, then in the docstring's own subpackage, then anywhere.
An ``:attr:`` reference inside a class to an instance attribute that holds a constructor
parameter (``:attr:`noise_factor``` in ``RNMFTNL``) links to the class, whose Parameters
section documents it. It resolves a reference only when exactly one documented object matches;
otherwise the reference stays broken and the build (``-n -W``) fails, as it should.
"""
from __future__ import annotations

import importlib
import inspect

from sphinx.util.nodes import make_refnode


def _documented(domain, names):
    """{(docname, node_id): name} of the documented objects among ``names``."""
    out = {}
    for name in names:
        obj = domain.objects.get(name)
        if obj is not None:
            out.setdefault((obj.docname, obj.node_id), name)
    return out


def _class_candidates(domain, module: str, cls: str, target: str):
    """Full names ``<base>.<target>`` for the class in context and its bases."""
    if not module or not cls:
        return {}
    try:
        obj = importlib.import_module(module)
        for part in cls.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        return {}
    if not inspect.isclass(obj):
        return {}
    names = []
    for base in obj.__mro__:
        names.append(f"{base.__module__}.{base.__qualname__}.{target}")
        names.append(f"{module}.{base.__qualname__}.{target}")
    return _documented(domain, names)


def _constructor_parameter(domain, module: str, cls: str, target: str, reftype: str):
    """An ``:attr:`` reference, inside a class, to an instance attribute that stores a
    constructor parameter (documented under the class's Parameters): link to the class."""
    if reftype != "attr" or "." in target or not module or not cls:
        return {}
    try:
        obj = importlib.import_module(module)
        for part in cls.split("."):
            obj = getattr(obj, part)
        params = inspect.signature(obj.__init__).parameters
    except (ImportError, AttributeError, TypeError, ValueError):
        return {}
    if target not in params:
        return {}
    return _documented(domain, [f"{module}.{cls}", f"{obj.__module__}.{obj.__qualname__}"])


def _same_object(domain, target: str):
    """Documented names bound to the very object ``target`` names (a constant documented
    under the package that re-exports it, e.g. a list or a dict)."""
    if not target.startswith("dpolearn."):
        return {}
    parts = target.split(".")
    try:
        obj = importlib.import_module(parts[0])
        for part in parts[1:]:
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        return {}
    if isinstance(obj, (int, float, str, bool, type(None))):
        return {}                        # identity of small constants means nothing
    names = []
    for name in domain.objects:
        if name.startswith("dpolearn.") and name.rsplit(".", 1)[-1] == parts[-1]:
            holder, _, attr = name.rpartition(".")
            try:
                mod = importlib.import_module(holder)
            except ImportError:
                continue
            if getattr(mod, attr, None) is obj:
                names.append(name)
    return _documented(domain, names)


def resolve_short_reference(app, env, node, contnode):
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "")
    if target.startswith("dpolearn."):
        target = target[len("dpolearn."):]
    if not target:
        return None
    domain = env.get_domain("py")
    module = node.get("py:module") or ""
    found = _class_candidates(domain, module, node.get("py:class") or "", target)
    if len(found) != 1:
        suffix = "." + target
        everywhere = _documented(domain, [n for n in domain.objects
                                          if n.endswith(suffix) and n.startswith("dpolearn.")])
        package = ".".join(module.split(".")[:2])
        near = {k: v for k, v in everywhere.items() if v.startswith(package + ".")}
        found = near if len(near) == 1 else everywhere
    if len(found) != 1:
        found = _same_object(domain, node.get("reftarget", ""))
    if len(found) != 1:
        found = _constructor_parameter(domain, module, node.get("py:class") or "", target,
                                       node.get("reftype", ""))
    if len(found) != 1:
        return None
    (docname, node_id), name = next(iter(found.items()))
    return make_refnode(app.builder, node["refdoc"], docname, node_id, contnode, name)


def _ignore_as_tuples(app, config):
    """``nitpick_ignore`` from _config.yml arrives as lists; Sphinx compares tuples."""
    config.nitpick_ignore = [tuple(entry) for entry in config.nitpick_ignore]


def setup(app):
    app.connect("config-inited", _ignore_as_tuples)
    app.connect("missing-reference", resolve_short_reference)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
