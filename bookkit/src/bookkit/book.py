"""The book index: what the converter, the editions and the other tools share.

* the chapters of ``_toc.yml`` in reading order (:func:`toc_files`);
* every label of the book with the number Sphinx gives it (boxes, exercises and figures are
  numbered book-wide in table-of-contents order) and its title (:func:`build_index`,
  :func:`book_index`);
* the bibliography of ``book/references.bib`` (:func:`read_bibliography`);
* the book's settings in ``_config.yml`` and ``pyproject.toml`` (:func:`repository_settings`,
  :func:`book_site_url`, :func:`release_version`, :func:`tex_macros`);
* the editions and the solution stripping of the student edition (:data:`EDITIONS`,
  :func:`strip_solutions`): a chapter without its solutions, in both forms the chapters use,
  a ``{solution}`` directive and the gated ``{solution-start}`` ... ``{solution-end}`` form with
  the code cells between them.

The code of this module was moved here unchanged from the converter (``bookkit.notebook``) and
the editions (``bookkit.editions``), which both use it.
"""
from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Optional

from . import myst


def _repository_root() -> Path:
    """The checkout this file belongs to (``<root>/bookkit/src/bookkit/book.py``, an editable
    install), else the nearest folder with a ``_toc.yml`` from the working directory up."""
    here = Path(__file__).resolve().parents[3]
    if (here / "_toc.yml").exists():
        return here
    cwd = Path.cwd().resolve()
    return next((d for d in (cwd, *cwd.parents) if (d / "_toc.yml").exists()), here)


#: The repository that holds the book (``_toc.yml``, ``_config.yml``, ``book/``).
ROOT = _repository_root()

DEFAULT_REPOSITORY = "https://github.com/dpolearn/dpolearn"
EDITIONS = ("public", "instructor", "student")

#: An inline role ``{name}`content```.
ROLE = re.compile(r"\{(?P<name>[\w:.-]+)\}`(?P<content>[^`]*)`")
#: Explicit title in a role: ``text <target>``.
EXPLICIT = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$", re.S)

CODE_DIRECTIVES = {"code", "code-block", "sourcecode"}
#: Sphinx-proof kinds and how the book names them.
PRF_NAMES = {"theorem": "Theorem", "lemma": "Lemma", "definition": "Definition",
             "algorithm": "Algorithm", "corollary": "Corollary", "proposition": "Proposition",
             "conjecture": "Conjecture", "remark": "Remark", "example": "Example",
             "axiom": "Axiom", "criterion": "Criterion", "observation": "Observation",
             "assumption": "Assumption", "property": "Property", "notation": "Notation"}

# ============================================================================ parsing

def parse_blocks(text: str) -> list:
    """The top-level blocks of Markdown ``text`` (:func:`bookkit.myst.read`): Markdown,
    headings, labels, math, plain code blocks and :class:`~bookkit.myst.Directive` objects,
    nested directives among their parent's ``children``."""
    return myst.read(text).blocks


# ============================================================================ the book index

@dataclass
class Target:
    """Something a cross-reference can point at."""

    doc: str
    kind: str                      # "section", "exercise", "solution", "theorem", "figure", ...
    number: Optional[int] = None
    title: str = ""

    def name(self) -> str:
        """How the book names a numbered target: "Theorem 3", "Exercise 22", "Fig. 5"."""
        if self.kind == "figure":
            return f"Fig. {self.number}"
        word = PRF_NAMES.get(self.kind, self.kind.capitalize())
        return f"{word} {self.number}" if self.number is not None else word


@dataclass
class BookIndex:
    """Numbers, titles and pages of every label in the book, plus its bibliography."""

    root: Path
    docs: list
    targets: dict = field(default_factory=dict)
    doc_titles: dict = field(default_factory=dict)
    bib: dict = field(default_factory=dict)
    macros: dict = field(default_factory=dict)     # TeX macros of the site's MathJax config

    def exercise_numbers(self) -> dict:
        """{label: (book-wide number, chapter title)} of every numbered exercise.

        The one computation of the numbers the book renders (``Exercise 22``), shared by the
        notebooks and the problem sets (``bookkit.assignments``).
        """
        return {label: (target.number, self.doc_titles[target.doc])
                for label, target in self.targets.items()
                if target.kind == "exercise" and target.number is not None}



def _plain(text: str) -> str:
    """Heading text without roles or emphasis markers (for link texts)."""
    text = ROLE.sub(lambda m: EXPLICIT.sub(r"\g<text>", m.group("content")), text)
    return text.replace("**", "").strip()


def _read_cells(md_path: Path):
    import jupytext

    return jupytext.read(md_path, fmt="md:myst").cells


def _index_sections(index: BookIndex, doc: str, blocks: list) -> None:
    """Record the labels ``(name)=`` of ``blocks`` (titled by the heading that follows them)
    and the first level-1 heading of ``doc`` as its title."""
    for k, block in enumerate(blocks):
        if isinstance(block, myst.Directive):
            _index_sections(index, doc, block.children)
        elif isinstance(block, myst.Heading) and block.level == 1 and doc not in index.doc_titles:
            index.doc_titles[doc] = _plain(block.title)
        elif isinstance(block, myst.Label):
            nxt = next((b for b in blocks[k + 1:] if b.source.strip()), None)
            title = _plain(nxt.title) if isinstance(nxt, myst.Heading) else block.name
            index.targets[block.name] = Target(doc, "section", None, title)


def toc_files(toc_path: Path = ROOT / "_toc.yml") -> list[str]:
    """Every ``file:`` entry of ``_toc.yml`` (root first), without suffix, in order."""
    import yaml

    toc = yaml.safe_load(toc_path.read_text(encoding="utf-8"))
    files = [toc["root"]]

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                files.append(node["file"])
            for key in ("parts", "chapters", "sections"):
                for child in node.get(key, []) or []:
                    walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(toc)
    return files


def is_notebook_source(md_path: Path) -> bool:
    """True if ``md_path`` is a MyST notebook (jupytext front matter with a kernelspec)."""
    text = Path(md_path).read_text(encoding="utf-8")
    if not text.startswith("---"):
        return False
    return "kernelspec" in text.split("---", 2)[1]


def build_index(root: Path) -> BookIndex:
    """Scan every document of ``root/_toc.yml`` in order and number what Sphinx numbers."""
    docs = toc_files(root / "_toc.yml")
    index = BookIndex(root=root, docs=docs)
    counters: dict = {}

    def count(kind: str) -> int:
        counters[kind] = counters.get(kind, 0) + 1
        return counters[kind]

    for doc in docs:
        path = root / f"{doc}.md"
        if not path.exists():
            continue
        cells = _read_cells(path)
        for cell in cells:
            if cell.cell_type == "code":
                fig = (cell.metadata.get("mystnb") or {}).get("figure") or {}
                if fig.get("name"):
                    index.targets[fig["name"]] = Target(doc, "figure", count("figure"),
                                                        _plain(str(fig.get("caption", ""))))
                continue
            blocks = parse_blocks(cell.source)
            _index_sections(index, doc, blocks)

            def visit(d: myst.Directive, doc: str = doc):
                label = d.options.get("label")
                nonumber = "nonumber" in d.options
                if d.name in ("exercise", "exercise-start"):
                    number = None if nonumber else count("exercise")
                    if label:
                        index.targets[label] = Target(doc, "exercise", number, d.arg)
                elif d.name.startswith("prf:") and d.name[4:] in PRF_NAMES:
                    kind = d.name[4:]
                    number = None if nonumber else count(kind)
                    if label:
                        index.targets[label] = Target(doc, kind, number, d.arg)
                elif d.name in ("solution", "solution-start") and label:
                    index.targets[label] = Target(doc, "solution", None, d.arg)
                elif d.name == "figure" and label or d.name == "figure" and d.options.get("name"):
                    name = label or d.options["name"]
                    index.targets[name] = Target(doc, "figure", count("figure"), "")

            for block in myst.walk(blocks):
                if isinstance(block, myst.Directive):
                    visit(block)
    index.bib = read_bibliography(root / "book" / "references.bib")
    index.macros = tex_macros(root / "_config.yml")
    return index


def tex_macros(config_path: Path) -> dict:
    """The argument-free TeX macros the site defines for MathJax (``\\Lap`` ...).

    Jupyter and Colab do not know them, so the converter writes them out in the notebooks.
    """
    config = _config(config_path)
    mathjax = ((config.get("sphinx") or {}).get("config") or {}).get("mathjax3_config") or {}
    macros = (mathjax.get("tex") or {}).get("macros") or {}
    return {name: body for name, body in macros.items() if isinstance(body, str)}


@lru_cache(maxsize=4)
def _cached_index(root: str, stamp: tuple) -> BookIndex:
    return build_index(Path(root))


def book_index(root: Path = ROOT) -> BookIndex:
    """:func:`build_index`, cached while no chapter, ``_toc.yml`` or ``_config.yml`` changes."""
    files = [root / "_toc.yml", root / "_config.yml", *sorted((root / "book").glob("*.md")),
             root / "book" / "references.bib"]
    stamp = tuple((str(p), p.stat().st_mtime_ns) for p in files if p.exists())
    return _cached_index(str(root), stamp)


# ============================================================================ settings

def _config(config_path: Path) -> dict:
    import yaml

    return yaml.safe_load(config_path.read_text(encoding="utf-8")) or {}


def repository_settings(config_path: Path = ROOT / "_config.yml") -> tuple[str, str]:
    """``(repository.url, repository.branch)`` from the book's ``_config.yml``."""
    repo = _config(config_path).get("repository") or {}
    return repo.get("url", DEFAULT_REPOSITORY), repo.get("branch", "main")


def book_site_url(config_path: Path = ROOT / "_config.yml",
                  edition: str = "public") -> Optional[str]:
    """Base address of the published book, ending in ``/`` (``None``: no known site).

    ``html.baseurl`` of ``_config.yml`` when it is set. Otherwise, for the public and
    instructor editions, the GitHub Pages address of ``repository.url``
    (``https://github.com/OWNER/REPO`` -> ``https://OWNER.github.io/REPO/``), where
    ``ghp-import`` of ``_build/html`` publishes the book; the student edition has no fallback
    (the public pages show the solutions), so its cross-references are then plain text.
    """
    config = _config(config_path)
    base = (config.get("html") or {}).get("baseurl")
    if base:
        return base.rstrip("/") + "/"
    if edition == "student":
        return None
    url, _ = repository_settings(config_path)
    m = re.match(r"^https?://github\.com/([^/]+)/([^/]+?)(?:\.git)?/?$", url)
    if m:
        return f"https://{m.group(1).lower()}.github.io/{m.group(2)}/"
    return url.rstrip("/") + "/"


def release_version(pyproject: Path = ROOT / "pyproject.toml") -> str:
    """``project.version`` of ``pyproject.toml`` (the release the notebooks belong to)."""
    import tomllib

    return tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"]


# ============================================================================ bibliography

@dataclass
class BibEntry:
    key: str
    authors: list          # last names
    year: str
    title: str
    venue: str

    def author_text(self) -> str:
        names = self.authors
        if not names:
            return self.key
        if len(names) == 1:
            return names[0]
        if len(names) == 2:
            return f"{names[0]} and {names[1]}"
        return f"{names[0]} et al."


def _latex_to_text(text: str) -> str:
    try:
        text = codecs.decode(text, "ulatex")
    except Exception:           # latexcodec missing or an unknown macro: keep the raw text
        pass
    return re.sub(r"[{}]", "", text).replace("\\", "").strip()


def read_bibliography(path: Path) -> dict:
    """``key -> BibEntry`` for every entry of a BibTeX file (via pybtex)."""
    if not path.exists():
        return {}
    from pybtex.database import parse_file

    entries = {}
    for key, entry in parse_file(str(path), bib_format="bibtex").entries.items():
        people = entry.persons.get("author") or entry.persons.get("editor") or []
        last = [_latex_to_text(" ".join(p.prelast_names + p.last_names)) for p in people]
        fields = entry.fields
        venue = fields.get("journal") or fields.get("booktitle") or fields.get("publisher") \
            or fields.get("howpublished") or fields.get("note") or ""
        entries[key] = BibEntry(key, last, _latex_to_text(fields.get("year", "n.d.")),
                                _latex_to_text(fields.get("title", "")), _latex_to_text(venue))
    return entries


# ============================================================================ editions

@dataclass
class Solution:
    """One solution removed from a chapter."""

    exercise: str          # label of the exercise it answers (the directive's argument)
    form: str              # "directive" ({solution}) or "gated" ({solution-start}, -end)
    source: str            # the removed source, prose and code cells
    label: Optional[str] = None   # its own :label:, if it has one


@dataclass
class Stripped:
    """A chapter without its solutions."""

    text: str
    removed: list = field(default_factory=list)


def strip_solutions(text: str) -> Stripped:
    """Remove every solution (both forms, with the code cells of the gated form) from ``text``.

    The solutions are the top-level ``{solution}`` and ``{solution-start}`` directives of the
    chapter as MyST reads it (:func:`bookkit.myst.read`); a gated solution runs up to and
    including the next top-level ``{solution-end}``. References to a removed solution's own
    label become plain text, so the edition still builds under ``-W``.
    """
    lines = text.split("\n")
    blocks = myst.read(text).blocks
    kept: list[str] = []
    removed: list[Solution] = []
    done = 0                              # lines[:done] are kept or removed
    k = 0
    while k < len(blocks):
        block = blocks[k]
        if not (isinstance(block, myst.Directive) and block.name in ("solution", "solution-start")):
            k += 1
            continue
        last = block
        form = "directive"
        if block.name == "solution-start":
            form = "gated"
            # Everything up to and including the {solution-end} directive.
            k = next((j for j in range(k + 1, len(blocks)) if isinstance(blocks[j], myst.Directive)
                      and blocks[j].name == "solution-end"), None)
            if k is None:
                raise ValueError(f"{{solution-start}} {block.arg} at line {block.line} "
                                 "has no {solution-end}")
            last = blocks[k]
        kept += lines[done:block.line - 1]
        removed.append(Solution(block.arg, form, "\n".join(lines[block.line - 1:last.end]),
                                block.options.get("label") or None))
        done = last.end
        # drop the blank lines (and a jupytext cell break) the block leaves behind
        while done < len(lines) and lines[done].strip() == "" and kept and kept[-1].strip() == "":
            done += 1
        k += 1
    kept += lines[done:]
    out = "\n".join(kept)
    for sol in removed:
        if sol.label:
            out = re.sub(r"\{(?:ref|numref)\}`(?:([^`<]*?)\s*<)?" + re.escape(sol.label) + r">?`",
                         lambda mm: mm.group(1) or "the solution", out)
    return Stripped(out, removed)


def solutions_of(text: str) -> list[Solution]:
    """The solutions of a chapter (what :func:`strip_solutions` removes)."""
    return strip_solutions(text).removed
