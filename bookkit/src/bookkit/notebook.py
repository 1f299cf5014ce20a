#!/usr/bin/env python3
"""Convert a MyST Markdown chapter of the book into a notebook of plain Markdown and code.

Colab and the classic Jupyter front ends do not render MyST: a jupytext conversion shows
admonitions, ``prf:`` boxes, exercise and solution directives and roles such as ``{cite:p}`` as
literal markup. This converter reads the chapter with jupytext (so code cells and their
metadata come through unchanged) and rewrites every Markdown cell:

* admonitions and dropdowns become a bold title and a blockquote;
* theorem, definition, algorithm, ... boxes become ``**Theorem 3 (title).** ...`` with the number
  the rendered book shows (Sphinx numbers each kind of box, exercises and figures book-wide in
  table-of-contents order, because the table of contents is not numbered);
* exercises become ``**Exercise 22**``; solutions become ``**Solution to Exercise 22**``
  sections (public and instructor editions) or disappear with their code cells (student
  edition, see :func:`bookkit.book.strip_solutions`);
* citations become "Author (Year)" / "(Author, Year)" from ``book/references.bib``, and the
  ``{bibliography}`` directive a list of the works cited in the chapter;
* cross-references become their text (section title, "Theorem 3", "Fig. 5", ...) plus a link to
  the page on the book's site (:func:`book_site_url`);
* ``{literalinclude}`` becomes the included code as a fenced block;
* the site's own TeX macros (``\\Lap``, ``\\E`` ...) are written out, since Jupyter does not
  know them;
* figure captions in ``mystnb`` metadata become an italic caption line after the cell;
* cells tagged ``remove-cell`` stay (they are set-up code the rest needs) but are collapsed, as
  are ``hide-input`` / ``remove-input`` sources; ``hide-output`` outputs are collapsed.

The first cell installs ``dpolearn`` at the version of ``pyproject.toml`` from the book site's
own package index when another version or none is installed (:func:`install_source`).

Usage: ``python -m bookkit.notebook book/primer.md --edition student -o primer.ipynb``.
"""
from __future__ import annotations

import argparse
import ast
import copy
import os
import re
import sys
import textwrap
from pathlib import Path
from typing import Optional

from . import myst
from .book import (
    CODE_DIRECTIVES,
    EDITIONS,
    EXPLICIT,
    PRF_NAMES,
    ROLE,
    ROOT,
    BibEntry,
    BookIndex,
    book_index,
    book_site_url,
    parse_blocks,
    release_version,
    repository_settings,
    strip_solutions,
)

INSTALL_TAG = "dpolearn-install"

ADMONITIONS = {"note", "tip", "hint", "important", "warning", "caution", "attention", "danger",
               "error", "seealso", "admonition", "dropdown", "margin", "sidebar", "topic"}


#: Where pip finds dpolearn's dependencies when a notebook installs it from the book's site.
DEFAULT_DEPENDENCY_INDEX = "https://pypi.org/simple"


def package_index_url(config_path: Path = ROOT / "_config.yml") -> str:
    """The book site's own package index (``<site>/simple/``, see ``bookkit.site``).

    The site is :func:`book_site_url`: ``html.baseurl`` of ``_config.yml`` (the deploy workflow
    sets it), else the GitHub Pages address of ``repository.url``.
    """
    return f"{book_site_url(config_path)}simple/"


def install_source(index_url: Optional[str] = None, version: Optional[str] = None,
                   dependency_index: str = DEFAULT_DEPENDENCY_INDEX) -> str:
    """Source of the first cell of every notebook: install ``dpolearn`` ``version`` if another
    version or none is installed.

    The package comes from the site's own index ``index_url`` (default
    :func:`package_index_url`), pinned to the release the notebook was generated from, so that
    a class's numbers do not drift during a term; its dependencies come from
    ``dependency_index``. In a clone after ``pip install -r requirements.txt`` the installed
    version is this release and the cell does nothing.
    """
    index_url = index_url or package_index_url()
    version = version or release_version()
    return (
        f"# Installs dpolearn {version} (the release this notebook belongs to) from the book's\n"
        "# package index when another version or none is installed (Colab, Binder, a fresh\n"
        "# venv); in a clone after `pip install -r requirements.txt` it does nothing.\n"
        "# Quick scale by default: run dpl.experiments.set_scale(\"paper\") "
        "before the experiments for the papers'.\n"
        "from importlib.metadata import PackageNotFoundError, version as _version\n"
        "try:\n"
        "    _installed = _version(\"dpolearn\")\n"
        "except PackageNotFoundError:\n"
        "    _installed = None\n"
        f"if _installed != \"{version}\":\n"
        f"    %pip install --quiet \"dpolearn=={version}\" --index-url {index_url} "
        f"--extra-index-url {dependency_index}\n"
    )


def lite_install_source(version: Optional[str] = None) -> str:
    """Source of the first cell of the browser-only edition's notebooks (JupyterLite).

    ``piplite`` installs dpolearn from the wheel the Lite site serves (its ``pypi/`` index); the
    scale is forced to quick, since a browser tab runs one Python process and the papers'
    experiments take hours of CPU.
    """
    version = version or release_version()
    return (
        "# Browser-only edition (JupyterLite: Python runs in this tab, through Pyodide).\n"
        f"# Installs dpolearn {version} from the wheel this site serves, and forces the quick\n"
        "# scale: the papers' experiments need hours of CPU, a browser tab has one process.\n"
        "import os\n"
        "os.environ[\"DPOLEARN_SCALE\"] = \"quick\"\n"
        "import piplite\n"
        f"await piplite.install(\"dpolearn=={version}\")\n"
    )


def replace_install_cell(nb, source: str) -> bool:
    """Give the install cell (tag ``dpolearn-install``) of ``nb`` the source ``source``; returns
    False when the notebook has none."""
    for cell in nb.cells:
        if cell.cell_type == "code" and INSTALL_TAG in cell.metadata.get("tags", []):
            cell.source = source
            cell.outputs = []
            cell.execution_count = None
            return True
    return False


def _cite(index: BookIndex, name: str, content: str, cited: list) -> str:
    keys = [k.strip() for k in content.split(",") if k.strip()]
    entries = []
    for key in keys:
        if key not in cited:
            cited.append(key)
        entries.append(index.bib.get(key) or BibEntry(key, [], "", key, ""))
    if name in ("cite:t", "cite:ts", "cite:author", "cite:authors"):
        if name.startswith("cite:author"):
            return ", ".join(e.author_text() for e in entries)
        return ", ".join(f"{e.author_text()} ({e.year})" for e in entries)
    if name in ("cite:year", "cite:years"):
        return ", ".join(e.year for e in entries)
    inner = "; ".join(f"{e.author_text()}, {e.year}" for e in entries)
    return inner if name in ("cite:alp", "cite:alps") else f"({inner})"


def _bibliography(index: BookIndex, cited: list) -> list[str]:
    lines = []
    for key in sorted(cited, key=lambda k: (index.bib[k].author_text().lower(), index.bib[k].year)
                      if k in index.bib else (k, "")):
        e = index.bib.get(key)
        if e is None:
            continue
        authors = ", ".join(e.authors[:-1]) + " and " + e.authors[-1] if len(e.authors) > 1 \
            else "".join(e.authors)
        venue = f" {e.venue}." if e.venue else ""
        lines.append(f"- {authors} ({e.year}). *{e.title}*.{venue}")
    return lines


# ============================================================================ rendering

class Converter:
    """Turns the Markdown of one chapter into plain Markdown, for one edition."""

    def __init__(self, index: BookIndex, doc: str, md_path: Path, edition: str,
                 base_url: Optional[str]):
        if edition not in EDITIONS:
            raise ValueError(f"edition must be one of {EDITIONS}, got {edition!r}")
        self.index, self.doc, self.md_path, self.edition = index, doc, md_path, edition
        self.base_url = base_url
        url, self.branch = repository_settings(index.root / "_config.yml")
        self.repository_url = url.rstrip("/").removesuffix(".git")
        self.cited: list = []
        self.exercise_count = 0

    # ------------------------------------------------------------------ roles
    def url(self, doc: str, anchor: str = "") -> Optional[str]:
        """Address of a page (and anchor) on the edition's site, if it has one."""
        if self.base_url is None:
            return None
        return f"{self.base_url}{doc}.html" + (f"#{anchor}" if anchor else "")

    def _link(self, text: str, label: str) -> str:
        target = self.index.targets.get(label)
        url = self.url(target.doc, label) if target else None
        if url is None or (target.kind == "solution" and self.edition == "student"):
            return text
        return f"[{text}]({url})"

    def _ref_text(self, name: str, label: str, explicit: Optional[str]) -> str:
        target = self.index.targets.get(label)
        if target is None:
            return explicit or label
        if explicit:
            return (explicit.replace("{number}", str(target.number or ""))
                    .replace("{name}", target.title))
        # As the book renders them: numbered boxes, exercises and figures by number
        # ("Theorem 6", "Exercise 8", "Fig. 3"), sections by title.
        by_number = name in ("numref", "prf:ref") or target.kind == "exercise"
        if target.number is not None and by_number:
            return target.name()
        return target.title or target.name()

    def role(self, match: re.Match) -> str:
        name, content = match.group("name"), match.group("content")
        explicit_m = EXPLICIT.match(content)
        explicit, label = (explicit_m.group("text"), explicit_m.group("target").strip()) \
            if explicit_m else (None, content.strip())
        if name.startswith("cite"):
            return _cite(self.index, name, content, self.cited)
        if name in ("ref", "numref", "prf:ref"):
            return self._link(self._ref_text(name, label, explicit), label)
        if name == "doc":
            doc = self._resolve_doc(label)
            text = explicit or self.index.doc_titles.get(doc, doc)
            url = self.url(doc)
            return f"[{text}]({url})" if url else text
        if name == "eq":
            return f"({label})"
        if name == "math":
            return f"${content}$"
        if name == "index":                 # {index}`text <entry>` shows text
            return explicit if explicit_m else content
        if name == "abbr":                  # {abbr}`DP (differential privacy)` shows DP
            return re.sub(r"\s*\(.*\)$", "", content)
        if name in ("sub", "sup"):
            return f"<{name}>{content}</{name}>"
        if name in ("kbd", "code", "samp", "file", "command", "program", "guilabel",
                    "menuselection"):
            return f"`{content}`"
        if name == "download":      # the file in the repository (the site's copy: a hashed path)
            path = Path(os.path.normpath(self.md_path.parent / label))   # symlinks kept
            try:
                rel = path.relative_to(os.path.abspath(self.index.root)).as_posix()
            except ValueError:
                return explicit or label
            text = explicit or Path(label).name
            return f"[{text}]({self.repository_url}/blob/{self.branch}/{rel})"
        return explicit or content

    def _resolve_doc(self, target: str) -> str:
        base = (Path(self.doc).parent / target) if not target.startswith("/") else Path(target[1:])
        parts: list = []
        for part in base.as_posix().split("/"):
            if part == "..":
                parts.pop() if parts else None
            elif part not in ("", "."):
                parts.append(part)
        return "/".join(parts).removesuffix(".md")

    def inline(self, line: str) -> str:
        """Replace every role, and expand the book's TeX macros, in one line of Markdown."""
        line = ROLE.sub(self.role, line)
        for name, body in self.index.macros.items():
            line = re.sub(rf"\\{name}(?![A-Za-z])", lambda _, text=body: text, line)
        return line

    # ------------------------------------------------------------------ blocks
    def convert(self, text: str) -> str:
        out: list[str] = []
        for block in parse_blocks(text):
            if isinstance(block, myst.Directive):
                out.extend(self.directive(block))
            elif isinstance(block, myst.CodeCell):       # inside a directive: shown as its code
                out.extend(self.directive(myst.Directive(
                    block.line, block.end, block.source, "code-cell", block.language,
                    block.metadata, block.code.split("\n"))))
            elif isinstance(block, myst.CodeBlock):
                out.extend(block.source.split("\n"))
            elif isinstance(block, myst.Math) and block.form == "directive":
                out.extend(["", "$$", *block.body, "$$", ""])
            elif isinstance(block, (myst.Label, myst.Comment, myst.FrontMatter)):
                continue
            else:
                out.extend(self.inline(line) for line in block.source.split("\n"))
        return _tidy("\n".join(out))

    def directive(self, d: myst.Directive) -> list[str]:
        name = d.name
        body = lambda: self.convert("\n".join(d.body))  # noqa: E731
        if name in ADMONITIONS:
            title = d.arg if name in ("admonition", "dropdown", "topic", "sidebar") and d.arg \
                else ("Details" if name == "dropdown" else name.capitalize())
            titled = name in ("admonition", "dropdown", "topic", "sidebar")
            inner = body() if titled or not d.arg \
                else self.convert(d.arg + "\n\n" + "\n".join(d.body))
            return ["", *_quote(f"**{self.inline(title)}**\n\n{inner}"), ""]
        if name.startswith("prf:"):
            kind = name[4:]
            if kind == "proof":
                return ["", f"*Proof.* {body()} $\\square$", ""]
            target = self.index.targets.get(d.options.get("label", ""))
            number = target.number if target else None
            word = PRF_NAMES.get(kind, kind.capitalize())
            head = f"{word} {number}" if number else word
            if d.arg:
                head += f" ({self.inline(d.arg)})"
            return ["", f"**{head}.**", "", body(), ""]
        if name in ("exercise", "exercise-start"):
            label = d.options.get("label", "")
            target = self.index.targets.get(label)
            head = target.name() if target else "Exercise"
            title = f" ({self.inline(d.arg)})" if d.arg else ""
            anchor = f'<a id="{label}"></a>' if label else ""
            lines = ["", f"{anchor}**{head}**{title}", ""]
            return lines + ([body(), ""] if name == "exercise" else [])
        if name in ("exercise-end", "solution-end"):
            return [""]
        if name in ("solution", "solution-start"):
            if self.edition == "student":          # stripped beforehand; never print one
                return [""]
            target = self.index.targets.get(d.arg.strip())
            of = f" to {target.name()}" if target else ""
            lines = ["", f"**Solution{of}**", ""]
            return lines + ([body(), ""] if name == "solution" else [])
        if name == "literalinclude":
            return ["", *self.literalinclude(d), ""]
        if name in CODE_DIRECTIVES:
            lang = d.arg or d.options.get("language", "")
            return ["", f"```{lang}", *d.body, "```", ""]
        if name == "bibliography":
            return ["", *_bibliography(self.index, self.cited), ""]
        if name in ("index", "tableofcontents", "glossary", "raw"):
            return [""]
        if name in ("figure", "image"):
            caption = self.convert("\n".join(d.body))
            return ["", f"![{caption}]({d.arg})", "", f"*{caption}*" if caption else "", ""]
        if name in ("epigraph", "pull-quote", "highlights", "rubric"):
            return ["", *_quote(body()), ""]
        # Anything else: keep its content readable, without the markup.
        title = f"**{self.inline(d.arg)}**\n\n" if d.arg else ""
        return ["", title + body(), ""]

    def literalinclude(self, d: myst.Directive) -> list[str]:
        path = (self.md_path.parent / d.arg).resolve()
        source = path.read_text(encoding="utf-8")
        if "pyobject" in d.options:
            source = _pyobject(source, d.options["pyobject"], path)
        if "lines" in d.options:
            keep = _line_spec(d.options["lines"], len(source.splitlines()))
            source = "\n".join(l for k, l in enumerate(source.splitlines(), 1) if k in keep)
        if "dedent" in d.options:
            source = textwrap.dedent(source)
        language = d.options.get("language") or ("python" if path.suffix == ".py" else "")
        return [f"```{language}", *source.rstrip("\n").split("\n"), "```"]


def _pyobject(source: str, dotted: str, path: Path) -> str:
    """The source of class/function ``dotted`` (e.g. ``UCB1.select``) in ``source``."""
    tree = ast.parse(source)
    node: ast.AST = tree
    for part in dotted.split("."):
        found = next((n for n in ast.iter_child_nodes(node)
                      if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                      and n.name == part), None)
        if found is None:
            raise ValueError(f"literalinclude: {dotted!r} not found in {path}")
        node = found
    lines = source.splitlines()
    start = min([node.lineno] + [dec.lineno for dec in getattr(node, "decorator_list", [])])
    return "\n".join(lines[start - 1:node.end_lineno])


def _line_spec(spec: str, n: int) -> set:
    keep = set()
    for part in spec.split(","):
        part = part.strip()
        if "-" in part:
            lo, hi = part.split("-")
            keep.update(range(int(lo or 1), int(hi or n) + 1))
        elif part:
            keep.add(int(part))
    return keep


def _quote(text: str) -> list[str]:
    return [f"> {line}" if line.strip() else ">" for line in text.strip("\n").split("\n")]


def _tidy(text: str) -> str:
    """Collapse runs of blank lines (conversion leaves some) and trim the ends."""
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n")


# ============================================================================ notebooks

def _caption_cell(caption: str, number: Optional[int]):
    import nbformat

    text = " ".join(_tidy(caption).split())
    label = f"Fig. {number}. " if number else ""
    return nbformat.v4.new_markdown_cell(f"*{label}{text}*")


def convert_chapter(md_path: Path, edition: str = "public", root: Path = ROOT,
                    index_url: Optional[str] = None, version: Optional[str] = None,
                    site_url: Optional[str] = None):
    """The notebook (an ``nbformat`` node) of chapter ``md_path`` for ``edition``.

    ``root`` is the book's source root (``_toc.yml``, ``_config.yml``, ``book/``);
    cross-references link to ``site_url`` (default: :func:`book_site_url` of its ``_config.yml``);
    the install cell installs from ``index_url`` (default: :func:`package_index_url` of it).
    """
    import jupytext
    import nbformat

    if edition not in EDITIONS:
        raise ValueError(f"edition must be one of {EDITIONS}, got {edition!r}")
    md_path = Path(md_path).resolve()
    index = book_index(root)
    doc = md_path.relative_to(root.resolve()).with_suffix("").as_posix()
    text = md_path.read_text(encoding="utf-8")
    if edition == "student":
        text = strip_solutions(text).text
    source_nb = jupytext.reads(text, fmt="md:myst")
    base = site_url.rstrip("/") + "/" if site_url else \
        book_site_url(root / "_config.yml", edition)
    converter = Converter(index, doc, md_path, edition, base)
    if index_url is None:
        index_url = package_index_url(root / "_config.yml")

    install = nbformat.v4.new_code_cell(install_source(index_url, version))
    install.metadata["tags"] = [INSTALL_TAG]
    cells = [install]
    for cell in source_nb.cells:
        if cell.cell_type == "markdown":
            md = converter.convert(cell.source)
            if md.strip():
                new = nbformat.v4.new_markdown_cell(md)
                cells.append(new)
            continue
        if cell.cell_type != "code":
            continue
        new = nbformat.v4.new_code_cell(cell.source)
        tags = list(cell.metadata.get("tags", []))
        if tags:
            new.metadata["tags"] = tags
        jupyter = {}
        if {"remove-cell", "hide-input", "remove-input", "hide-cell"} & set(tags):
            jupyter["source_hidden"] = True
        if {"hide-output", "hide-cell"} & set(tags):
            jupyter["outputs_hidden"] = True
        if jupyter:
            new.metadata["jupyter"] = jupyter
        cells.append(new)
        fig = (cell.metadata.get("mystnb") or {}).get("figure") or {}
        if fig.get("caption"):
            target = index.targets.get(fig.get("name", ""))
            caption = converter.convert(str(fig["caption"]))
            cells.append(_caption_cell(caption, target.number if target else None))
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python",
                                 "name": "python3"}
    nb.metadata["language_info"] = {"name": "python"}
    nb.metadata["dpolearn"] = {
        "generated_from": doc + ".md", "edition": edition,
        "note": "generated by bookkit.notebook; edit the .md chapter, not this file"}
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i}"
    nb.nbformat, nb.nbformat_minor = 4, 5
    nbformat.validate(nb)
    return nb


def notebook_text(nb) -> str:
    """The notebook as the JSON text that is committed (stable across runs)."""
    import nbformat

    return nbformat.writes(nb, version=4) + "\n"


def copy_outputs(converted, executed) -> bool:
    """Give the code cells of ``converted`` the outputs of the executed chapter notebook.

    Code cells correspond one to one and in order (the install cell excepted); returns False,
    leaving ``converted`` unchanged, when they do not.
    """
    ours = [c for c in converted.cells if c.cell_type == "code"
            and INSTALL_TAG not in c.metadata.get("tags", [])]
    theirs = [c for c in executed.cells if c.cell_type == "code"]
    if len(ours) != len(theirs) or any(a.source != b.source for a, b in zip(ours, theirs)):
        return False
    for a, b in zip(ours, theirs):
        a.outputs = copy.deepcopy(b.get("outputs", []))
        a.execution_count = b.get("execution_count")
    if "widgets" in executed.metadata:
        converted.metadata["widgets"] = copy.deepcopy(executed.metadata["widgets"])
    return True


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chapter", type=Path, help="a MyST chapter, e.g. book/primer.md")
    parser.add_argument("--edition", choices=EDITIONS, default="public")
    parser.add_argument("-o", "--output", type=Path, help="output .ipynb (default: stdout)")
    args = parser.parse_args(argv)
    text = notebook_text(convert_chapter(args.chapter, args.edition))
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
