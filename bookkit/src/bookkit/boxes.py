#!/usr/bin/env python3
"""Write (or check) ``book/boxes.md``: every definition, algorithm, theorem and lemma box of the
book, by chapter in table-of-contents order, each linked with its number and title.

sphinx-proof's own index page lists raw labels and nothing links to it; this page is the
readable replacement, in the sidebar next to the notation page, with a link to the general index.

    .venv/bin/python -m bookkit.boxes            # rewrite book/boxes.md
    .venv/bin/python -m bookkit.boxes --check    # exit 1 when it is stale (tests run this)
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .book import ROOT, toc_files
from .myst import Directive, Heading, Label, read

PAGE = ROOT / "book" / "boxes.md"
KINDS = {"definition": "Definitions", "algorithm": "Algorithms", "theorem": "Theorems",
         "lemma": "Lemmas", "corollary": "Corollaries", "proposition": "Propositions"}


def boxes(md: Path) -> dict[str, list[str]]:
    """Labels of the chapter's boxes, by kind, in order of appearance."""
    return {kind: [label for label, _ in items] for kind, items in titled_boxes(md).items()}


def titled_boxes(md: Path) -> dict[str, list[tuple[str, str]]]:
    """(label, title) of the chapter's boxes, by kind, in order of appearance."""
    found: dict[str, list[tuple[str, str]]] = {}
    for block in read(md.read_text(encoding="utf-8")).walk():
        if not isinstance(block, Directive) or not block.name.startswith("prf:"):
            continue
        kind, label = block.name[4:], block.options.get("label")
        if kind in KINDS and label:
            found.setdefault(kind, []).append((label, block.arg))
    return found


def page_text() -> str:
    lines = ["(boxes)=", "# Definitions, algorithms and theorems", "",
             "Every boxed definition, algorithm and theorem of the book, chapter by chapter; "
             "each entry links the box by its number and gives its title.",
             "Symbols are listed on the {ref}`notation` page, terms in the {ref}`glossary`, and "
             "every index entry (mechanisms, algorithms, theorems, terms) in the "
             "{ref}`general index <genindex>`.", ""]
    for doc in toc_files():
        md = ROOT / f"{doc}.md"
        if not md.exists() or md == PAGE:
            continue
        found = titled_boxes(md)
        if not found:
            continue
        blocks = list(read(md.read_text(encoding="utf-8")).walk())
        label = next((b.name for b in blocks if isinstance(b, Label) and b.name.startswith("ch-")),
                     None)
        title = next(b.title for b in blocks if isinstance(b, Heading) and b.level == 1)
        lines += [f"## {title.strip()}", ""]
        if label:
            lines += [f"Chapter: {{ref}}`{label}`.", ""]
        for kind, heading in KINDS.items():
            if kind in found:
                lines += [f"**{heading}**", ""]
                lines += [f"- {{prf:ref}}`{lab}`" + (f": {title}" if title else "")
                          for lab, title in found[kind]] + [""]
    return "\n".join(lines).rstrip() + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report a stale page, write nothing")
    args = parser.parse_args(argv)
    text = page_text()
    current = PAGE.read_text(encoding="utf-8") if PAGE.exists() else ""
    if args.check:
        if text != current:
            print(f"{PAGE.relative_to(ROOT)} is out of date: run python -m bookkit.boxes")
            return 1
        print(f"{PAGE.relative_to(ROOT)} is current")
        return 0
    if text != current:
        PAGE.write_text(text, encoding="utf-8")
        print(f"wrote {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
