"""The MyST reader of the book machinery (``bookkit.myst``) reads chapters as the build does.

Three references, none of them the reader itself: myst-parser's own markdown-it tokens (the
parser the build uses, configured as in ``_config.yml``), myst-nb's reader of MyST notebooks
(the code cells the build executes) and myst-parser's docutils renderer (what a page shows:
math blocks, and paragraphs in which ``$$`` stayed text).
"""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from docutils import nodes
from docutils.core import publish_doctree
from markdown_it.renderer import RendererHTML
from myst_nb.core.read import read_myst_markdown_notebook
from myst_parser.config.main import MdParserConfig
from myst_parser.parsers.docutils_ import Parser
from myst_parser.parsers.mdit import create_md_parser

from bookkit import myst
from bookkit.book import toc_files

ROOT = Path(__file__).resolve().parents[1]
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))


DOCS = [doc for doc in toc_files(ROOT / "_toc.yml") if (ROOT / f"{doc}.md").exists()]


def _tokens(text: str) -> list:
    config = MdParserConfig(enable_extensions=set(CONFIG["parse"]["myst_enable_extensions"]))
    return create_md_parser(config, RendererHTML).parse(text)


def _doctree(text: str):
    settings = {"myst_enable_extensions": CONFIG["parse"]["myst_enable_extensions"],
                "report_level": 5, "halt_level": 5}
    return publish_doctree(text, parser=Parser(), settings_overrides=settings)


def _kinds(blocks) -> list[tuple]:
    """(type, first line, name) of blocks, without the Markdown between them."""
    out = []
    for b in blocks:
        if isinstance(b, myst.Markdown):
            continue
        name = getattr(b, "name", None) or getattr(b, "form", None) or getattr(b, "title", "")
        out.append((type(b).__name__, b.line, name))
    return out


def test_the_reader_enables_the_book_extensions():
    assert set(myst.EXTENSIONS) == set(CONFIG["parse"]["myst_enable_extensions"])


# ------------------------------------------------------------------ every chapter

@pytest.mark.parametrize("doc", DOCS)
def test_every_page_of_the_toc_is_read_whole(doc):
    """The top-level blocks cover the page in order, and every block (children included)
    knows its lines: its source is exactly those lines of the page."""
    text = (ROOT / f"{doc}.md").read_text(encoding="utf-8")
    chapter = myst.read(text)
    assert "\n".join(b.source for b in chapter.blocks) == text
    assert [b.line for b in chapter.blocks[1:]] == [b.end + 1 for b in chapter.blocks[:-1]]
    lines = text.split("\n")
    for block in chapter.walk():
        assert block.source == "\n".join(lines[block.line - 1:block.end]), (doc, block.line)
        if isinstance(block, myst.Directive) and block.body:
            assert lines[block.body_line - 1] == block.body[0], (doc, block.line)
            assert all(child.line >= block.body_line and child.end < block.end
                       for child in block.children)


@pytest.mark.parametrize("doc", DOCS)
def test_code_cells_and_front_matter_are_those_myst_nb_reads(doc):
    text = (ROOT / f"{doc}.md").read_text(encoding="utf-8")
    chapter = myst.read(text)
    ours = [b for b in chapter.blocks if isinstance(b, myst.CodeCell)]
    theirs = [c for c in read_myst_markdown_notebook(text).cells if c.cell_type == "code"]
    assert [(c.code, c.metadata) for c in ours] == [(c.source, dict(c.metadata)) for c in theirs]
    if ours:
        assert chapter.front_matter["kernelspec"]["name"] == "python3"
        assert chapter.front_matter["jupytext"]["text_representation"]["format_name"] == "myst"


@pytest.mark.parametrize("doc", DOCS)
def test_no_page_shows_display_math_as_text(doc):
    """``$$`` directly after a line of text stays in the paragraph: the page shows raw TeX."""
    found = myst.raw_display_math((ROOT / f"{doc}.md").read_text(encoding="utf-8"))
    assert not found, f"{doc}.md: put a blank line before the $$:\n" + "\n".join(map(str, found))


def test_the_check_catches_a_doctored_chapter():
    text = (ROOT / "book" / "auditing.md").read_text(encoding="utf-8")
    anchor = "\n\n$$\\Pr[M(D) \\in A]"
    assert anchor in text, "update the doctored case"
    doctored = text.replace(anchor, anchor[1:], 1)
    line = text[:text.index(anchor)].count("\n") + 2      # the $$ line, one line up
    found = myst.raw_display_math(doctored)
    assert [f.line for f in found] == [line]
    assert found[0].text.startswith("$$\\Pr[M(D)")
    assert myst.raw_display_math(text) == []


# ------------------------------------------------------------------ the corners the book uses

CORNERS = '''---
jupytext:
  text_representation: {extension: .md, format_name: myst}
kernelspec: {display_name: Python 3, language: python, name: python3}
---

(ch-corners)=
# Corners

Text with a one-line display right after it
$$ x = 1 $$

A one-line display after a blank line:

$$ y = 2 $$ (eq-y)

$$
z = 3
$$

```{math}
:label: eq-w
w = 4
```

\\begin{align}
a &= b
\\end{align}

% a comment

````{prf:theorem} Nested
:label: thm-nested

```{note}
Inside.

:::{admonition} Deeper
:class: tip
Deepest $$q$$.
:::
```
````

```{code-cell} ipython3
:tags: [hide-input]

print(1)
```

+++

## Exercises

```{exercise-start}
:label: ex-gated
```
Compute it.
```{exercise-end}
```

```{solution-start} ex-gated
:class: dropdown
```
The answer:

```{code-cell} ipython3
---
tags: [remove-output]
mystnb:
  figure:
    name: fig-x
---
print(6 * 7)
```
```{solution-end}
```

```python
# not a heading
```
'''

EXPECTED = [
    ("FrontMatter", 1, ""), ("Label", 7, ""), ("Heading", 8, "Corners"),
    ("Math", 15, "dollar"), ("Math", 17, "dollar"), ("Math", 21, "directive"),
    ("Math", 26, "amsmath"), ("Comment", 30, ""), ("Directive", 32, "prf:theorem"),
    ("CodeCell", 45, ""), ("CellBreak", 51, ""), ("Heading", 53, "Exercises"),
    ("Directive", 55, "exercise-start"), ("Directive", 59, "exercise-end"),
    ("Directive", 62, "solution-start"), ("CodeCell", 67, ""),
    ("Directive", 76, "solution-end"), ("CodeBlock", 79, ""),
]


def test_the_corners_are_read_as_expected():
    chapter = myst.read(CORNERS)
    assert [(kind, line, name if kind in ("Heading", "Math", "Directive") else "")
            for kind, line, name in _kinds(chapter.blocks)] == EXPECTED
    blocks = {b.line: b for b in chapter.blocks}
    assert chapter.front_matter["kernelspec"]["name"] == "python3"
    assert blocks[7].name == "ch-corners"
    assert (blocks[15].label, blocks[15].tex) == ("eq-y", " y = 2 ")
    assert (blocks[17].label, blocks[17].tex) == (None, "z = 3")
    assert (blocks[21].label, blocks[21].tex) == ("eq-w", "w = 4")
    assert blocks[26].environment == "align"
    assert blocks[45].tags == ["hide-input"] and blocks[45].code == "print(1)"
    assert blocks[67].tags == ["remove-output"]
    assert blocks[67].metadata["mystnb"]["figure"]["name"] == "fig-x"
    assert (blocks[62].arg, blocks[62].options) == ("ex-gated", {"class": "dropdown"})
    assert blocks[55].options == {"label": "ex-gated"}
    # nested directives: backticks in backticks, colons inside, each with its own lines
    theorem = blocks[32]
    assert (theorem.arg, theorem.options, theorem.fence, theorem.fence_kind) == \
        ("Nested", {"label": "thm-nested"}, "````", "backticks")
    (note,) = [b for b in theorem.children if isinstance(b, myst.Directive)]
    assert (note.name, note.line, note.end, note.body_line) == ("note", 35, 42, 36)
    (inner,) = [b for b in note.children if isinstance(b, myst.Directive)]
    assert (inner.name, inner.arg, inner.fence_kind, inner.line, inner.end) == \
        ("admonition", "Deeper", "colons", 38, 41)
    assert inner.options == {"class": "tip"} and inner.body == ["Deepest $$q$$."]
    # the one-line $$ after a text line is paragraph text, and so is $$q$$ inside a sentence
    assert [(f.line, f.text) for f in myst.raw_display_math(CORNERS)] == \
        [(11, "$$ x = 1 $$"), (40, "Deepest $$q$$.")]


def test_the_corners_agree_with_myst_parser_tokens():
    """Every top-level block is a top-level token of myst-parser, at the same line, and the
    body of each directive, parsed by myst-parser on its own, gives its children."""
    def expected(text: str, first_line: int) -> list[tuple]:
        out = []
        for token in _tokens(text):
            if token.level != 0 or not token.map or token.type not in (
                    "front_matter", "myst_target", "heading_open", "math_block",
                    "math_block_label", "amsmath", "myst_line_comment", "myst_block_break",
                    "fence", "colon_fence"):
                continue
            out.append((token.type, first_line + token.map[0]))
        return out

    def ours(blocks) -> list[tuple]:
        names = {myst.FrontMatter: "front_matter", myst.Label: "myst_target",
                 myst.Heading: "heading_open", myst.Comment: "myst_line_comment",
                 myst.CellBreak: "myst_block_break"}
        out = []
        for b in blocks:
            if isinstance(b, myst.Markdown):
                continue
            if isinstance(b, myst.Math):
                kind = {"dollar": "math_block_label" if b.label else "math_block",
                        "amsmath": "amsmath", "directive": "fence"}[b.form]
            elif isinstance(b, (myst.Directive, myst.CodeCell, myst.CodeBlock)):
                kind = "colon_fence" if b.fence.startswith(":") else "fence"
            else:
                kind = names[type(b)]
            out.append((kind, b.line))
        return out

    chapter = myst.read(CORNERS)
    assert ours(chapter.blocks) == expected(CORNERS, 1)
    for block in chapter.walk():
        if isinstance(block, myst.Directive) and block.children:
            assert ours(block.children) == expected("\n".join(block.body), block.body_line)


def test_the_corners_code_cells_are_those_myst_nb_reads():
    cells = [c for c in read_myst_markdown_notebook(CORNERS).cells if c.cell_type == "code"]
    ours = [b for b in myst.read(CORNERS).blocks if isinstance(b, myst.CodeCell)]
    assert [(c.source, dict(c.metadata)) for c in cells] == [(b.code, b.metadata) for b in ours]
    assert len(ours) == 2


#: Corners that docutils renders with myst-parser alone (no Sphinx extension directives).
RENDERED = '''# Title

Text line
$$ x = 1 $$

$$ y $$ (eq-y)

````{admonition} Outer
:class: tip

```{note}
Inner $$a$$ text

$$
b
$$
```
````

:::{note}
Colon
:::

```{math}
:name: eq-m
q
```

- an item
  $$ c $$

- another item

  $$ d $$
'''


def test_math_blocks_and_raw_tex_are_what_the_page_shows():
    """myst-parser's docutils renderer is the reference: its math blocks are the reader's
    Math blocks, and its paragraphs holding ``$`` text are the check's findings."""
    tree = _doctree(RENDERED)
    rendered_math = sorted(n.astext().strip() for n in tree.findall(nodes.math_block))
    assert rendered_math == ["b", "d", "q", "y"]
    raw = [p for p in tree.findall(nodes.paragraph)
           if any(isinstance(c, nodes.Text) and "$" in c.astext() for c in p.children)]
    assert len(raw) == 3                          # the text line, the note, the list item

    chapter = myst.read(RENDERED)
    ours = sorted(b.tex.strip() for b in chapter.walk() if isinstance(b, myst.Math))
    assert ours == ["b", "q", "y"]                # "d" is in a list item: Markdown here
    assert [f.line for f in myst.raw_display_math(RENDERED)] == [4, 12, 30]
    assert len(myst.raw_display_math(RENDERED)) == len(raw)


def test_bad_input():
    with pytest.raises(TypeError, match="text must be a str, got bytes"):
        myst.read(b"# Title")
    with pytest.raises(ValueError, match="line 1"):
        myst.read("```{code-cell} ipython3\n---\ntags: [a\n---\nx\n```\n")
    with pytest.raises(ValueError, match="line 3: options of '{note}'"):
        myst.read("Text.\n\n```{note}\n:class: \"tip\n\nx\n```\n")
    # a "# comment" after an option is only a style warning for myst-parser
    note = myst.read("```{note}\n:class: tip # why\n\nx\n```\n").blocks[0]
    assert (note.options, note.body) == ({"class": "tip"}, ["x"])
