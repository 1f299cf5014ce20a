"""The page of boxes (definitions, algorithms, theorems) is generated and current."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bookkit import boxes as boxes_page
from bookkit.book import toc_files

ROOT = Path(__file__).resolve().parents[1]


def test_page_is_current():
    proc = subprocess.run([sys.executable, "-m", "bookkit.boxes", "--check"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_page_lists_every_labelled_box_and_is_in_the_toc():
    text = boxes_page.page_text()
    for md in sorted((ROOT / "book").glob("*.md")):
        for labels in boxes_page.boxes(md).values():
            for label in labels:
                assert f"{{prf:ref}}`{label}`" in text, f"{md.name}: {label} missing"
    assert "book/boxes" in toc_files()


def test_box_parser_finds_a_theorem_and_skips_an_unlabelled_one(tmp_path):
    md = tmp_path / "x.md"
    md.write_text("```{prf:theorem} A\n:label: thm-a\n\nbody\n```\n\n"
                  "```{prf:theorem} B\n\nno label\n```\n")
    assert boxes_page.boxes(md) == {"theorem": ["thm-a"]}
