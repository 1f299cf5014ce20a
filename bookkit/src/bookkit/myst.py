"""Read a MyST Markdown chapter into its blocks, with the parser the book is built with.

:func:`read` parses a chapter with myst-parser's own markdown-it configuration
(:func:`myst_parser.parsers.mdit.create_md_parser`, with the extensions the book enables in
``_config.yml``), so that every tool reads a chapter as the build does: a ``$$`` line that MyST
takes as paragraph text is paragraph text here too, and a fence inside a directive is a child of
that directive. Directive options and bodies are split by myst-parser's
:func:`~myst_parser.parsers.directives.parse_directive_text`, and the body of every directive
whose content is Markdown is read again, recursively, for nested directives.

The top-level blocks of a chapter cover its text exactly, in order: joining their ``source``
with newlines gives the text back. Each block knows its first and last line (1-based, in the
chapter, also for the children of a directive).

=============== ==========================================================================
block           what it is
=============== ==========================================================================
FrontMatter     the jupytext front matter (``---`` YAML ``---``) at the top of a chapter
Heading         an ATX or setext heading
Label           a MyST target ``(name)=``
Comment         a MyST comment line ``% ...``
CellBreak       a MyST block break ``+++``, with its JSON metadata
CodeCell        a ``{code-cell}`` (myst-nb), with its metadata (``tags`` ...) and code
Math            display math: ``$$ ... $$`` (with a ``(label)``), ``{math}`` (with ``:label:``)
                or an amsmath environment (``\\begin{align}`` ...)
Directive       any other ``{name}`` fence (backticks, tildes or colons), with its children
CodeBlock       a fence without a directive (```` ```python ````)
Markdown        the Markdown between the blocks above (blank lines included), with its
                paragraphs, list items and tables as :class:`Prose` parts
=============== ==========================================================================

A fence nested in a list item or a block quote belongs to the Markdown block around it, as a
fence inside a list does for myst-nb's notebook reader; the book writes none.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterator, Optional

import yaml
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from myst_parser.config.main import MdParserConfig
from myst_parser.parsers.directives import parse_directive_text
from myst_parser.parsers.mdit import create_md_parser
from myst_parser.warnings_ import MystWarnings

__all__ = ["EXTENSIONS", "Block", "CellBreak", "Chapter", "CodeBlock", "CodeCell", "Comment",
           "Directive", "FrontMatter", "Heading", "Label", "Markdown", "Math", "Prose",
           "RawMath", "raw_display_math", "read", "walk"]

#: The MyST extensions the book enables (``parse.myst_enable_extensions`` of ``_config.yml``).
EXTENSIONS = ("amsmath", "dollarmath", "colon_fence", "deflist", "html_image", "substitution")

#: Directives whose body is not Markdown: it is kept as lines and not read for children.
LITERAL_BODIES = frozenset({
    "code", "code-block", "sourcecode", "code-cell", "raw-cell", "literalinclude", "math",
    "raw", "csv-table", "bibliography", "toctree", "tableofcontents", "index", "mermaid",
    "glue:math", "eval-rst"})

CODE_CELL = "code-cell"


# ============================================================================ the blocks

@dataclass
class Block:
    """A part of a chapter: its first and last line (1-based) and its exact source."""

    line: int
    end: int
    source: str


@dataclass
class FrontMatter(Block):
    data: dict = field(default_factory=dict)


@dataclass
class Heading(Block):
    level: int = 1
    title: str = ""          # the heading's source text, without the ``#`` marks


@dataclass
class Label(Block):
    name: str = ""


@dataclass
class Comment(Block):
    text: str = ""


@dataclass
class CellBreak(Block):
    metadata: dict = field(default_factory=dict)


@dataclass
class CodeBlock(Block):
    """A fenced block that is no directive: ```` ```python ````, ``~~~``, a plain ``:::``."""

    language: str = ""
    body: list = field(default_factory=list)
    fence: str = "```"


@dataclass
class CodeCell(Block):
    """A ``{code-cell}``: its language, metadata (options, as YAML) and code."""

    language: str = ""
    metadata: dict = field(default_factory=dict)
    code: str = ""
    fence: str = "```"

    @property
    def tags(self) -> list:
        return list(self.metadata.get("tags") or [])


@dataclass
class Math(Block):
    """Display math: ``form`` is "dollar" (``$$``), "directive" (``{math}``) or "amsmath"."""

    form: str = "dollar"
    tex: str = ""
    label: Optional[str] = None
    environment: Optional[str] = None          # amsmath: align, equation, ...
    options: dict = field(default_factory=dict)   # {math}: its options
    body: list = field(default_factory=list)      # {math}: its body lines


@dataclass
class Directive(Block):
    """A ``{name}`` fence: argument (the rest of the opening line), options, body, children.

    ``fence`` is the opening marker (```` ``` ````, ``::::`` ...), ``fence_kind`` "backticks",
    "tildes" or "colons"; ``body_line`` is the chapter line of ``body[0]``. ``children`` are
    the blocks of the body, read like a chapter (empty for a body that is not Markdown).
    """

    name: str = ""
    arg: str = ""
    options: dict = field(default_factory=dict)
    body: list = field(default_factory=list)
    children: list = field(default_factory=list)
    fence: str = "```"
    fence_kind: str = "backticks"
    body_line: int = 0


@dataclass
class Prose:
    """A paragraph, the first paragraph of a list item, a table or an HTML block of Markdown.

    ``text`` is the inline source (lines without their indentation, joined by newlines; a
    table: its source lines); ``depth`` how many list items contain it.
    """

    kind: str                 # "paragraph", "item", "table", "html"
    text: str
    line: int
    end: int
    depth: int = 0
    token: Optional[Token] = field(default=None, repr=False, compare=False)


@dataclass
class Markdown(Block):
    parts: list = field(default_factory=list)


@dataclass
class Chapter:
    """A chapter: its front matter (``{}`` without one) and its top-level blocks."""

    front_matter: dict
    blocks: list

    def walk(self) -> Iterator[Block]:
        return walk(self.blocks)


# ============================================================================ reading

@lru_cache(maxsize=1)
def _parser():
    config = MdParserConfig(enable_extensions=set(EXTENSIONS))
    return create_md_parser(config, RendererHTML)


def _keep(value):
    return "" if value is None else value


class _AnyOptions(dict):
    """Every option is accepted and kept as written (a flag as "")."""

    def __missing__(self, key):
        return _keep


class _AnyDirective:
    """A directive class for :func:`parse_directive_text`: any options, one argument."""

    option_spec = _AnyOptions(label=_keep)
    required_arguments = 0
    optional_arguments = 1
    final_argument_whitespace = True
    has_content = True


def _options_and_body(token: Token, *, as_yaml: bool, line: int) -> tuple[dict, list, int]:
    result = parse_directive_text(_AnyDirective, "", token.content,
                                  validate_options=not as_yaml, line=line)
    # A "# comment" in the options is only a style warning for myst-parser; options it
    # cannot read are lost (a directive) or stop the build (a code cell, myst-nb).
    lost = [w for w in result.warnings if w.type is not MystWarnings.DIRECTIVE_OPTION_COMMENTS]
    if lost:
        raise ValueError(f"line {line}: options of {token.info.strip()!r} could not be read: "
                         f"{lost[0].msg}")
    return result.options, result.body, result.body_offset


#: Top-level tokens that are blocks of their own (everything else is Markdown).
_FENCES = ("fence", "colon_fence")
_MATH = ("math_block", "math_block_label", "amsmath")
_SINGLE = ("front_matter", "myst_target", "myst_line_comment", "myst_block_break", "heading_open")


def _fence_kind(markup: str) -> str:
    return {"`": "backticks", "~": "tildes", ":": "colons"}[markup[0]]


def _block(tokens: list, k: int, lines: list, offset: int) -> Block:
    """The block of the top-level token ``tokens[k]`` (its map is in ``lines``)."""
    token = tokens[k]
    start, stop = token.map
    line, end = offset + start + 1, offset + stop
    source = "\n".join(lines[start:stop])
    kind = token.type
    if kind == "front_matter":
        return FrontMatter(line, end, source, yaml.safe_load(token.content) or {})
    if kind == "myst_target":
        return Label(line, end, source, token.content)
    if kind == "myst_line_comment":
        return Comment(line, end, source, token.content.strip())
    if kind == "myst_block_break":
        meta = json.loads(token.content) if token.content.strip() else {}
        return CellBreak(line, end, source, meta)
    if kind == "heading_open":
        return Heading(line, end, source, int(token.tag[1]), tokens[k + 1].content)
    if kind == "math_block":
        return Math(line, end, source, "dollar", token.content.strip("\n"))
    if kind == "math_block_label":
        return Math(line, end, source, "dollar", token.content.strip("\n"), token.info)
    if kind == "amsmath":
        return Math(line, end, source, "amsmath", token.content,
                    environment=token.meta.get("environment"))
    # a fence: a directive, a code cell, {math}, or a plain code block
    first, *rest = token.info.split(maxsplit=1) or [""]       # as myst-parser splits it
    if not (first.startswith("{") and first.endswith("}")):
        body = token.content.split("\n")[:-1] if token.content else []
        return CodeBlock(line, end, source, token.info.strip(), body, token.markup)
    name, arg = first[1:-1], rest[0].strip() if rest else ""
    options, body, body_offset = _options_and_body(token, as_yaml=name == CODE_CELL, line=line)
    if name == CODE_CELL:
        return CodeCell(line, end, source, arg, options, "\n".join(body), token.markup)
    if name == "math":
        return Math(line, end, source, "directive", "\n".join(body),
                    options.get("label") or options.get("name") or None,
                    options=options, body=body)
    body_line = line + 1 + body_offset
    children = [] if name in LITERAL_BODIES else _read(body, body_line - 1)
    return Directive(line, end, source, name, arg, options, body, children, token.markup,
                     _fence_kind(token.markup), body_line)


def _prose(tokens: list, offset: int, lines: list) -> list[Prose]:
    """The paragraphs, list items, tables and HTML blocks of ``tokens``, at any depth."""
    parts = []
    stack: list[Token] = []
    for k, token in enumerate(tokens):
        if token.nesting == -1:
            stack.pop()
            continue
        depth = sum(t.type == "list_item_open" for t in stack)
        if token.type == "paragraph_open":
            first_in_item = bool(stack) and stack[-1].type == "list_item_open" \
                and tokens[k - 1] is stack[-1]
            inline = tokens[k + 1]
            parts.append(Prose("item" if first_in_item else "paragraph", inline.content,
                               offset + token.map[0] + 1, offset + token.map[1], depth, inline))
        elif token.type == "table_open":
            start, stop = token.map
            parts.append(Prose("table", "".join(l + "\n" for l in lines[start:stop]),
                               offset + start + 1, offset + stop, depth, token))
        elif token.type == "html_block":
            parts.append(Prose("html", token.content, offset + token.map[0] + 1,
                               offset + token.map[1], depth, token))
        if token.nesting == 1:
            stack.append(token)
    return parts


def _is_block(token: Token) -> bool:
    if token.level != 0 or not token.map:
        return False
    return token.type in _SINGLE or token.type in _MATH or token.type in _FENCES


def _read(lines: list[str], offset: int) -> list[Block]:
    """The blocks of ``lines``, whose first line is line ``offset + 1`` of the chapter."""
    tokens = _parser().parse("\n".join(lines) + "\n")
    blocks: list[Block] = []
    pending: list[Token] = []          # tokens of the Markdown being gathered
    done = 0                           # lines[:done] are in blocks

    def markdown(stop: int) -> None:
        nonlocal pending
        if stop > done:
            blocks.append(Markdown(offset + done + 1, offset + stop,
                                   "\n".join(lines[done:stop]), _prose(pending, offset, lines)))
        pending = []

    k = 0
    while k < len(tokens):
        token = tokens[k]
        if _is_block(token) and not (token.type == "front_matter" and offset != 0):
            start, stop = token.map
            markdown(start)
            blocks.append(_block(tokens, k, lines, offset))
            done = stop
            if token.type == "heading_open":          # its inline and closing tokens
                k += 2
        else:
            pending.append(token)
        k += 1
    markdown(len(lines))
    return blocks


def read(text: str) -> Chapter:
    """Read a MyST chapter into its front matter and top-level blocks (see the module doc)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    lines = text.split("\n")
    blocks = _read(lines, 0)
    front = next((b.data for b in blocks[:1] if isinstance(b, FrontMatter)), {})
    return Chapter(front, blocks)


def walk(blocks: list) -> Iterator[Block]:
    """Every block of ``blocks`` and of their directives' children, in document order."""
    for block in blocks:
        yield block
        if isinstance(block, Directive):
            yield from walk(block.children)


# ============================================================================ checks

@dataclass
class RawMath:
    """A paragraph that MyST renders with ``$$`` display math as text (raw TeX on the page)."""

    line: int
    text: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.text}"


def _inline_source(inline: Token) -> str:
    """The paragraph's text as the inline parser saw it, without code spans."""
    out = []
    for child in inline.children or []:
        if child.type == "code_inline":
            continue
        if child.type == "math_inline":
            out.append(f"${child.content}$")
        elif child.type in ("softbreak", "hardbreak"):
            out.append("\n")
        else:
            out.append(child.content)
    return "".join(out)


def raw_display_math(text: str) -> list[RawMath]:
    """Paragraphs of a chapter that hold ``$$`` as text, with the line of each such ``$$``.

    MyST reads ``$$ ... $$`` as display math only when it starts a block: written directly
    after a line of text (no blank line between), it continues the paragraph and the page shows
    the raw TeX between dollar signs.
    """
    found = []
    for block in read(text).walk():
        if not isinstance(block, Markdown):
            continue
        for part in block.parts:
            if part.kind not in ("paragraph", "item") or "$$" not in _inline_source(part.token):
                continue
            for k, row in enumerate(part.text.split("\n")):
                if "$$" in row:
                    found.append(RawMath(part.line + k, row.strip()))
                    break
    return found
