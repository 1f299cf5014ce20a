"""Every chapter ends with exercises that have solutions, and every chapter links the notation page.

The book's rule (CONTRIBUTING, "Conventions that matter"): a chapter closes with a section whose
heading starts with "Exercises", holding at least one exercise, and every exercise there has a
full solution, in either of the two forms that ``bookkit.editions`` strips for the student
edition: a ``{solution}`` directive, or the gated ``{solution-start}`` ... ``{solution-end}`` pair
with code cells between them. After the exercises only the references may follow. Every chapter
also links the book's ``notation`` page, so a reader who lands on any chapter finds the symbols.

**Which pages are chapters.** Every page of ``_toc.yml`` is one, except:

* the front matter, ``book/intro``: the landing page describes the book and teaches nothing of
  its own to practise;
* ``book/assignments``: the page *is* exercise material (the Otter-Grader problem sets, whose
  solutions and tests live in ``assignments/`` and are checked by ``tests/test_assignments.py``);
* ``book/figures``: a download page for the figures of the other chapters;
* the API reference, ``book/api/*``, generated from the docstrings;
* the appendix pages ``book/notation``, ``book/boxes`` (generated list of boxes),
  ``book/glossary`` and ``book/readings``: reference material, read while working through the
  chapters, not chapters to be worked through.

``book/open_problems`` *is* held to the rule: its "Exercises and research prompts" come with
solutions (how to start, what to expect) like every other chapter's. A new page in the table of
contents is a chapter unless it is added to ``NOT_CHAPTERS`` with its reason, so a chapter made by
splitting another one is checked from the moment it is listed.

**Kinds of exercise.** A chapter has at least three exercises, at least one of them worked with
pen and paper and at least one coding exercise. Each exercise says its kind in the parenthesis
that opens its text: "(Pen and paper.)", "(Coding.)", or a combination such as "(Pen and paper,
then coding.)" or "(Pen and paper, then a check in code.)", which counts as both; "(Research.)"
and "(Research project.)" mark open-ended prompts, which count as neither. A coding exercise
counts as one only when its solution shows code (a code cell between ``{solution-start}`` and
``{solution-end}``), so the reader can run the answer.

The checks read the chapter with the book's MyST reader (so a ``# comment`` in a code cell is
not a heading); the tests at the end feed them doctored chapter texts that each must reject.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from bookkit.book import toc_files
from bookkit.myst import CodeCell, Directive, Heading, Markdown, Math, read

ROOT = Path(__file__).resolve().parents[1]

#: Pages of ``_toc.yml`` that are not chapters, each with the reason (see the module docstring).
NOT_CHAPTERS: dict[str, str] = {
    "book/intro": "front matter: the landing page",
    "book/assignments": "the problem sets themselves, with their own solutions and tests",
    "book/figures": "download page of the other chapters' figures",
    "book/notation": "appendix: the symbols",
    "book/boxes": "appendix: generated list of definitions, algorithms and theorems",
    "book/glossary": "appendix: the terms",
    "book/readings": "appendix: readings of the papers and errata",
}
#: Prefix of the generated API reference pages (not chapters).
API_PREFIX = "book/api/"

TOC = toc_files(ROOT / "_toc.yml")
CHAPTERS = [doc for doc in TOC if doc not in NOT_CHAPTERS and not doc.startswith(API_PREFIX)]


# ------------------------------------------------------------------ reading a chapter

@dataclass
class Item:
    """A heading or a directive at the top level of a chapter (outside every fence)."""

    kind: str          # "heading" or "directive"
    line: int          # 1-based line number
    name: str          # heading title, or directive name ("exercise", "solution-start", ...)
    level: int = 0     # heading level
    arg: str = ""      # the directive's argument (a solution's exercise label)
    label: str = ""    # the directive's :label: option


def top_level_items(text: str) -> list[Item]:
    """Headings and directives of ``text`` that are not inside any directive or code block.

    The chapter is read as MyST reads it (:func:`bookkit.myst.read`): a ``# comment`` in a code
    cell is code, and an admonition inside a solution is part of the solution.
    """
    items: list[Item] = []
    for block in read(text).blocks:
        if isinstance(block, Heading):
            items.append(Item("heading", block.line, block.title, level=block.level))
        elif isinstance(block, Directive):
            items.append(Item("directive", block.line, block.name, arg=block.arg,
                              label=block.options.get("label") or ""))
        elif isinstance(block, CodeCell):
            items.append(Item("directive", block.line, "code-cell", arg=block.language))
        elif isinstance(block, Math) and block.form == "directive":
            items.append(Item("directive", block.line, "math", label=block.label or ""))
    return items


def exercise_problems(text: str) -> list[str]:
    """What is wrong with the exercises of a chapter (empty when nothing is).

    Rules: one level-2 section whose heading starts with "Exercises"; at least one exercise
    (``{exercise}`` or ``{exercise-start}``) in it, each with a ``:label:``; each exercise
    answered by a solution that follows it in the section (``{solution} <label>``, or
    ``{solution-start} <label>`` closed by a ``{solution-end}`` before the next exercise or
    solution); no solution for a label the section does not define; after the section, only a
    "References" section.
    """
    items = top_level_items(text)
    starts = [k for k, it in enumerate(items)
              if it.kind == "heading" and it.level == 2 and it.name.startswith("Exercises")]
    if not starts:
        return ["no 'Exercises' section (a level-2 heading starting with 'Exercises')"]
    if len(starts) > 1:
        return [f"{len(starts)} 'Exercises' sections (lines "
                + ", ".join(str(items[k].line) for k in starts) + "); a chapter has one"]
    start = starts[0]
    end = next((k for k in range(start + 1, len(items))
                if items[k].kind == "heading" and items[k].level <= 2), len(items))
    problems = [f"line {it.line}: section '{it.name}' after the exercises "
                "(only 'References' may follow)"
                for it in items[end:]
                if it.kind == "heading" and it.level <= 2 and it.name != "References"]
    section = [it for it in items[start + 1:end] if it.kind == "directive"]
    exercises: dict[str, Item] = {}
    answered: set[str] = set()
    open_gate: Item | None = None
    for it in section:
        if it.name in ("exercise", "exercise-start", "solution", "solution-start") and open_gate:
            problems.append(f"line {open_gate.line}: {{solution-start}} {open_gate.arg} has no "
                            "{solution-end} before the next exercise or solution")
            open_gate = None
        if it.name in ("exercise", "exercise-start"):
            if not it.label:
                problems.append(f"line {it.line}: exercise without a :label: (a solution names it)")
            elif it.label in exercises:
                problems.append(f"line {it.line}: exercise label {it.label!r} used twice")
            else:
                exercises[it.label] = it
        elif it.name in ("solution", "solution-start"):
            if it.arg not in exercises:
                problems.append(f"line {it.line}: solution for {it.arg!r}, which is not an "
                                "exercise above it in the section")
            answered.add(it.arg)
            if it.name == "solution-start":
                open_gate = it
        elif it.name == "solution-end":
            if open_gate is None:
                problems.append(f"line {it.line}: {{solution-end}} without a {{solution-start}}")
            open_gate = None
    if open_gate:
        problems.append(f"line {open_gate.line}: {{solution-start}} {open_gate.arg} has no "
                        "{solution-end}")
    if not exercises and not any("exercise without" in p for p in problems):
        problems.append(f"line {items[start].line}: the Exercises section has no exercise")
    problems += [f"line {ex.line}: exercise {label!r} has no solution"
                 for label, ex in exercises.items() if label not in answered]
    return problems


#: The opening parenthesis of an exercise that names its kind, e.g. "(Pen and paper, then coding.)".
KIND_TAG = re.compile(r"^\((?P<tag>(?:Pen and paper|Coding|Code|Research)\b[^)]*)\)")
#: Fewest exercises a chapter has.
MIN_EXERCISES = 3


@dataclass
class Exercise:
    """An exercise of the Exercises section: label, kind tag, whether its solution has code."""

    label: str
    line: int
    tag: str | None          # the text of the opening parenthesis, None when it has none
    solution_code: bool      # a code cell between the solution's start and end

    @property
    def pen_and_paper(self) -> bool:
        return self.tag is not None and "pen and paper" in self.tag.lower()

    @property
    def coding(self) -> bool:
        return self.tag is not None and bool(re.search(r"\bcod(e|ing)\b", self.tag, re.I)) \
            and self.solution_code


def exercises(text: str) -> list[Exercise]:
    """The exercises of the chapter's Exercises section, in order."""
    blocks = read(text).blocks
    found: list[Exercise] = []
    in_section = False
    waiting: Exercise | None = None        # an {exercise-start} whose text comes next
    solving: Exercise | None = None        # inside a gated solution
    by_label: dict[str, Exercise] = {}

    def tagged(first_line: str) -> str | None:
        match = KIND_TAG.match(first_line.strip())
        return match.group("tag") if match else None

    for block in blocks:
        if isinstance(block, Heading) and block.level <= 2:
            in_section = block.level == 2 and block.title.startswith("Exercises")
            continue
        if not in_section:
            continue
        if isinstance(block, Directive) and block.name == "exercise":
            body = [line for line in block.body if line.strip() and not line.startswith(":")]
            ex = Exercise(block.options.get("label") or "", block.line,
                          tagged(body[0]) if body else None, False)
            found.append(ex)
            by_label[ex.label] = ex
        elif isinstance(block, Directive) and block.name == "exercise-start":
            waiting = Exercise(block.options.get("label") or "", block.line, None, False)
            found.append(waiting)
            by_label[waiting.label] = waiting
        elif isinstance(block, Markdown) and waiting is not None:
            waiting.tag = tagged(block.source.strip().splitlines()[0])
            waiting = None
        elif isinstance(block, Directive) and block.name == "solution-start":
            solving = by_label.get(block.arg)
        elif isinstance(block, Directive) and block.name == "solution-end":
            solving = None
        elif isinstance(block, CodeCell) and solving is not None:
            solving.solution_code = True
    return found


def exercise_kind_problems(text: str) -> list[str]:
    """What is wrong with the number and kinds of a chapter's exercises (empty when nothing is)."""
    found = exercises(text)
    problems = [f"line {ex.line}: exercise {ex.label!r} does not open with its kind, e.g. "
                "'(Pen and paper.)' or '(Coding.)'" for ex in found if ex.tag is None]
    if len(found) < MIN_EXERCISES:
        problems.append(f"{len(found)} exercises; a chapter has at least {MIN_EXERCISES}")
    if not any(ex.pen_and_paper for ex in found):
        problems.append("no pen-and-paper exercise")
    if not any(ex.coding for ex in found):
        problems.append("no coding exercise (an exercise tagged as coding whose solution has "
                        "a code cell)")
    return problems


_NOTATION_LINK = re.compile(r"\{ref\}`(?:[^`<]*<)?notation>?`"
                            r"|\{doc\}`(?:[^`<]*<)?(?:\.\./|/)?(?:book/)?notation>?`")


def links_notation(text: str) -> bool:
    """Whether ``text`` links the notation page (``{ref}`` to its label or ``{doc}`` to it)."""
    return bool(_NOTATION_LINK.search(text))


def _chapter(doc: str) -> str:
    return (ROOT / f"{doc}.md").read_text(encoding="utf-8")


# ------------------------------------------------------------------ the book's chapters

def test_the_exclusions_name_pages_of_the_table_of_contents():
    """An excluded page that left the table of contents must leave the list too."""
    assert set(NOT_CHAPTERS) <= set(TOC), sorted(set(NOT_CHAPTERS) - set(TOC))
    assert any(doc.startswith(API_PREFIX) for doc in TOC)
    assert len(CHAPTERS) >= 15, CHAPTERS


@pytest.mark.parametrize("doc", CHAPTERS)
def test_chapter_ends_with_exercises_that_have_solutions(doc):
    problems = exercise_problems(_chapter(doc))
    assert not problems, f"{doc}.md:\n" + "\n".join(problems)


@pytest.mark.parametrize("doc", CHAPTERS)
def test_chapter_has_three_exercises_with_pen_and_paper_and_coding(doc):
    problems = exercise_kind_problems(_chapter(doc))
    assert not problems, f"{doc}.md:\n" + "\n".join(problems)


@pytest.mark.parametrize("doc", CHAPTERS)
def test_chapter_links_the_notation_page(doc):
    assert links_notation(_chapter(doc)), \
        f"{doc}.md does not link the notation page ({{ref}}`notation`)"


def test_exercise_labels_are_unique_in_the_book():
    seen: dict[str, str] = {}
    clashes = []
    for doc in CHAPTERS:
        for it in top_level_items(_chapter(doc)):
            if it.kind == "directive" and it.name in ("exercise", "exercise-start") and it.label:
                if it.label in seen:
                    clashes.append(f"{it.label}: {seen[it.label]} and {doc}")
                seen[it.label] = doc
    assert not clashes, clashes


# ------------------------------------------------------------------ the checks, on doctored text

GOOD = '''---
jupytext:
  text_representation: {extension: .md, format_name: myst}
kernelspec: {display_name: Python 3, language: python, name: python3}
---

# A chapter

Symbols follow the {ref}`notation` page.

```{code-cell} ipython3
# Exercises in a comment are not a heading
x = 1
```

```{admonition} Summary
:class: important
- done
```

## Exercises

```{exercise}
:label: ex-syn-prose

(Pen and paper.) Prove it.
```

```{solution} ex-syn-prose
:class: dropdown

Because.
```

````{exercise-start}
:label: ex-syn-code
````
(Coding.) Compute it.
```{exercise-end}
```

```{solution-start} ex-syn-code
:class: dropdown
```
The answer:

```{code-cell} ipython3
## not a heading either
print(6 * 7)
```
```{solution-end}
```

```{exercise}
:label: ex-syn-open

(Research.) Extend it.
```

```{solution} ex-syn-open
:class: dropdown

One way to start.
```

## References

```{bibliography}
:filter: docname in docnames
```
'''


def test_a_well_formed_chapter_passes():
    assert exercise_problems(GOOD) == []
    assert links_notation(GOOD)
    items = top_level_items(GOOD)
    headings = [it.name for it in items if it.kind == "heading"]
    assert headings == ["A chapter", "Exercises", "References"]
    assert [(it.name, it.label or it.arg) for it in items
            if it.name.startswith(("exercise", "solution"))] == [
        ("exercise", "ex-syn-prose"), ("solution", "ex-syn-prose"),
        ("exercise-start", "ex-syn-code"), ("exercise-end", ""),
        ("solution-start", "ex-syn-code"), ("solution-end", ""),
        ("exercise", "ex-syn-open"), ("solution", "ex-syn-open")]
    assert exercise_kind_problems(GOOD) == []
    assert [(ex.label, ex.pen_and_paper, ex.coding) for ex in exercises(GOOD)] == [
        ("ex-syn-prose", True, False), ("ex-syn-code", False, True), ("ex-syn-open", False, False)]


def _doctor(old: str, new: str) -> str:
    assert old in GOOD, old
    return GOOD.replace(old, new, 1)


def _one_problem(text: str, words: str) -> None:
    problems = exercise_problems(text)
    assert problems and any(words in p for p in problems), problems


def test_a_chapter_without_an_exercises_section_fails():
    _one_problem(_doctor("## Exercises\n", "## Practice\n"), "no 'Exercises' section")


def test_an_exercises_heading_inside_a_code_cell_does_not_count():
    text = _doctor("## Exercises\n", "")
    text = text.replace("# Exercises in a comment", "## Exercises")
    _one_problem(text, "no 'Exercises' section")


def test_an_exercises_section_without_exercises_fails():
    start, end = GOOD.index("```{exercise}"), GOOD.index("## References")
    _one_problem(GOOD[:start] + "Nothing yet.\n\n" + GOOD[end:], "has no exercise")


def test_an_exercise_without_a_solution_fails():
    start = GOOD.index("```{solution} ex-syn-prose")
    end = GOOD.index("````{exercise-start}")
    _one_problem(GOOD[:start] + GOOD[end:], "'ex-syn-prose' has no solution")


def test_a_solution_naming_another_exercise_fails():
    text = _doctor("```{solution} ex-syn-prose", "```{solution} ex-syn-typo")
    _one_problem(text, "solution for 'ex-syn-typo'")
    _one_problem(text, "'ex-syn-prose' has no solution")


def test_a_solution_before_its_exercise_fails():
    text = _doctor("```{solution} ex-syn-prose\n:class: dropdown\n\nBecause.\n```\n\n", "")
    text = text.replace("## Exercises\n",
                        "## Exercises\n\n```{solution} ex-syn-prose\nBecause.\n```\n")
    _one_problem(text, "not an exercise above it")


def test_a_gated_solution_without_its_end_fails():
    text = _doctor("```{solution-end}\n```\n", "")
    _one_problem(text, "has no {solution-end}")


def test_an_exercise_without_a_label_fails():
    _one_problem(_doctor(":label: ex-syn-prose\n", ""), "without a :label:")


def test_an_exercise_outside_the_exercises_section_does_not_count():
    """Exercises scattered in the text do not make up for a missing Exercises section."""
    start, end = GOOD.index("```{exercise}"), GOOD.index("## References")
    moved = GOOD[start:end]
    text = GOOD[:start] + "Nothing yet.\n\n" + GOOD[end:]
    text = text.replace("# A chapter\n", "# A chapter\n\n" + moved)
    _one_problem(text, "has no exercise")


def test_a_section_after_the_exercises_fails():
    _one_problem(_doctor("## References\n", "## More theory\n\nText.\n\n## References\n"),
                 "section 'More theory' after the exercises")


def test_notation_link_forms():
    assert links_notation("see {ref}`the notation page <notation>`")
    assert links_notation("see {doc}`notation`") and links_notation("see {doc}`../notation`")
    assert not links_notation(_doctor("{ref}`notation`", "notation"))
    assert not links_notation("see {ref}`notation-decisions`")


def _kind_problem(text: str, words: str) -> None:
    problems = exercise_kind_problems(text)
    assert problems and any(words in p for p in problems), problems


def test_an_exercise_without_its_kind_fails():
    _kind_problem(_doctor("(Research.) Extend it.", "Extend it."),
                  "'ex-syn-open' does not open with its kind")


def test_a_chapter_with_two_exercises_fails():
    start, end = GOOD.index("```{exercise}\n:label: ex-syn-open"), GOOD.index("## References")
    _kind_problem(GOOD[:start] + GOOD[end:], "2 exercises; a chapter has at least 3")


def test_a_chapter_without_a_pen_and_paper_exercise_fails():
    _kind_problem(_doctor("(Pen and paper.) Prove it.", "(Research.) Prove it."),
                  "no pen-and-paper exercise")


def test_a_coding_exercise_needs_code_in_its_solution():
    """A coding tag alone does not count: the solution must show the code."""
    start = GOOD.index("```{code-cell} ipython3\n## not a heading")
    end = GOOD.index("```{solution-end}")
    _kind_problem(GOOD[:start] + "Run it.\n\n" + GOOD[end:], "no coding exercise")
    _kind_problem(_doctor("(Coding.) Compute it.", "(Pen and paper.) Compute it."),
                  "no coding exercise")


def test_a_combined_tag_counts_as_both_kinds():
    text = _doctor("(Pen and paper.) Prove it.", "(Research.) Prove it.")
    text = text.replace("(Coding.) Compute it.",
                        "(Pen and paper, then a check in code.) Compute it.")
    assert exercise_kind_problems(text) == []
