"""The reader's audit of every page (``bookkit.page_audit``): in a real browser, over HTTP.

* Hand-written pages, served the same way as the book, test the audit itself: a clean page
  passes, and each doctored page (a one-line ``$$`` left raw after text, a MathJax error, an
  image without alt or with its file name as alt, a 300-character printed line, a wide table
  outside a scrolling box) fails it with the right kind of problem. No book build needed.
* The command exits 0 on a clean page and 1 on a doctored one, and writes its JSON report.
* The quick build: every page passes (mark ``book``, in the xdist group "book").

The browser is the session fixture ``browser`` of ``conftest.py`` (headless Chromium at a
1280 px window); without Chromium these tests are skipped with a message saying they did not
run, except in CI, where that is a failure.
"""
from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bookkit import page_audit
from bookkit.page_audit import alt_text_problem, raw_tex_snippets

ROOT = Path(__file__).resolve().parents[1]
MATHJAX = ROOT / "book" / "_vendor" / "mathjax"

# A 2 x 2 grey PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAAAAABX3VL4AAAADklEQVR4nGNoaGhgYGAAAAoAAV3LhPoAAAAASUVORK5CYII=")

# Sphinx's MathJax 3 set-up: only elements of class "math" are typeset, text of the document
# is not (so a formula the parser left as text stays raw, as on the book's pages).
PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<script>window.MathJax = {{options: {{processHtmlClass: "math", ignoreHtmlClass: "document"}}}};
</script>
<script defer src="mathjax/tex-mml-chtml.js"></script>
<style>body {{ margin: 0; }} article {{ width: 640px; margin: 0 auto; padding: 0 20px; }}
table {{ border-collapse: collapse; }} td {{ padding: 0 8px; }}</style>
</head><body><main><article class="bd-article document"><h1>{title}</h1>
<p>A paragraph of text that a reader reads.</p>
{body}
</article></main></body></html>
"""
GOOD_ALT = "Line plot of regret against round t for UCB1; the final regret is 120."
TABLE = ("<table><tbody><tr>" + "".join(f"<td>column {i} value</td>" for i in range(30))
         + "</tr></tbody></table>")
PAGES = {
    "good": """
<p>The regret grows like
<span class="math notranslate nohighlight">\\(\\sqrt{T \\ln T}\\)</span>.</p>
<div class="math notranslate nohighlight">\\[\\frac{\\varepsilon}{2} + \\delta\\]</div>
<figure><img src="figure.png" width="200" alt="{alt}"></figure>
<div class="cell_output"><div class="output stream"><pre>UCB1 regret: 120.3</pre></div></div>
<div style="overflow-x: auto" tabindex="0" role="region" aria-label="a wide table">{table}</div>
""".replace("{alt}", GOOD_ALT).replace("{table}", TABLE),
    "raw_math": "<p>The noise scale is\n$$\\frac{\\Delta}{\\varepsilon}$$</p>",
    "mathjax_error": '<p>A formula: <span class="math">\\(\\frac{a}\\)</span>.</p>',
    "no_alt": '<figure><img src="figure.png" width="200"></figure>',
    "path_alt": ('<figure><img src="figure.png" width="200" '
                 'alt="../_images/775d3c1f0e9a4b2c8d7e6f5a4b3c2d1e.png"></figure>'),
    "long_line": ('<div class="cell_output"><div class="output stream"><pre>'
                  + "regret " * 43 + "</pre></div></div>"),
    "wide_table": TABLE,
}


@pytest.fixture(scope="module")
def doctored_site(tmp_path_factory):
    """The hand-written pages with the book's MathJax, as a folder to serve."""
    site = tmp_path_factory.mktemp("doctored-pages")
    (site / "mathjax").symlink_to(MATHJAX, target_is_directory=True)
    (site / "figure.png").write_bytes(PNG)
    for name, body in PAGES.items():
        (site / f"{name}.html").write_text(PAGE.format(title=name.replace("_", " "), body=body),
                                           encoding="utf-8")
    return site


@pytest.fixture(scope="module")
def doctored(browser, doctored_site):
    """Audit results of every hand-written page, by name."""
    with page_audit.serve(doctored_site) as root:
        results = page_audit.audit_site(browser, root, [f"{n}.html" for n in PAGES])
    return {r.page.removesuffix(".html"): r for r in results}


# ------------------------------------------------------------------ without a browser
def test_alt_text_rules():
    assert alt_text_problem(GOOD_ALT, "figure.png") is None
    assert alt_text_problem(None) == "no alt attribute"
    assert alt_text_problem("  ") == "empty alt text"
    for alt in ("../_images/775d3c1f0e9a4b2c8d7e6f5a4b3c2d1e.png", "figure.png",
                "775d3c1f0e9a4b2c8d7e6f5a4b3c2d1e", "_static/figures/regret", "figures/regret"):
        assert "file name" in alt_text_problem(alt, "figure.png"), alt
    assert "too short" in alt_text_problem("a plot", "figure.png")
    # a slash in a formula is no path
    assert alt_text_problem("Line plot of success rate 1 - exp(-epsilon/2) against epsilon") is None
    assert alt_text_problem("Colab logo", "logo.png", figure=False) is None     # an icon
    with pytest.raises(TypeError, match="alt must be a str or None, got int"):
        alt_text_problem(3)


def test_raw_tex_is_found_in_text():
    assert raw_tex_snippets("plain words and a $5 bill") == []
    found = raw_tex_snippets("so the bound is\n$$\\frac{1}{\\varepsilon}$$ and more")
    assert len(found) == 3 and "$$\\frac{1}" in found[0]        # $$, \frac, closing $$
    assert raw_tex_snippets("\\begin{align} x \\end{align}")
    with pytest.raises(TypeError, match="text must be a str, got bytes"):
        raw_tex_snippets(b"$$")


def test_serve_rejects_a_missing_folder(tmp_path):
    with pytest.raises(ValueError, match="directory must be an existing folder, got .*nope"):
        with page_audit.serve(tmp_path / "nope"):
            pass


# ------------------------------------------------------------------ the audit on doctored pages
def test_clean_page_passes(doctored):
    good = doctored["good"]
    assert good.problems == [], good.problems
    assert good.typeset_math == 2 and good.images == 1
    assert good.column_px == 640


def test_one_line_display_math_after_text_fails(doctored):
    result = doctored["raw_math"]
    assert any("raw TeX in the text" in p and "$$" in p for p in result.math), result.problems
    assert not result.overflow and not result.bad_images


def test_mathjax_error_fails(doctored):
    assert any(p.startswith("MathJax error") for p in doctored["mathjax_error"].math), \
        doctored["mathjax_error"].problems


def test_image_without_alt_fails(doctored):
    result = doctored["no_alt"]
    assert [img["problem"] for img in result.bad_images] == ["no alt attribute"]
    # axe-core sees it too, as a critical violation
    assert result.blocking_axe.get("image-alt", {}).get("impact") == "critical", result.axe


def test_image_with_its_file_name_as_alt_fails(doctored):
    result = doctored["path_alt"]
    assert len(result.bad_images) == 1 and "file name" in result.bad_images[0]["problem"]


def test_300_character_printed_line_fails(doctored):
    result = doctored["long_line"]
    assert len("regret " * 43) >= 300
    kinds = {o["what"] for o in result.overflow}
    assert "printed line wider than its box" in kinds, result.problems
    line = next(o for o in result.overflow if o["what"] == "printed line wider than its box")
    assert line["width"] > line["box"] == 640


def test_wide_table_outside_a_scroll_box_fails(doctored):
    result = doctored["wide_table"]
    assert any(o["what"] == "wider than the content column" and o["element"] == "table"
               for o in result.overflow), result.problems
    # the same table inside a scrolling box of its own passes (the good page)
    assert not doctored["good"].overflow


def test_every_doctored_page_fails_and_only_the_clean_one_passes(doctored):
    assert {name for name, r in doctored.items() if not r.problems} == {"good"}


def test_command_writes_its_report_and_exits_non_zero_on_failure(doctored_site, tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT), str(ROOT / "bookkit" / "src"), os.environ.get("PYTHONPATH", "")]))
    chromium = page_audit.CHROMIUM
    if not Path(chromium).exists():
        pytest.skip(f"page audit command NOT RUN: no {chromium}")

    def run(*pages):
        out = tmp_path / f"{len(pages)}.json"
        proc = subprocess.run([sys.executable, "-m", "bookkit.page_audit", "--html",
                               str(doctored_site), "--json", str(out), "--pages", *pages],
                              capture_output=True, text=True, env=env, timeout=300)
        return proc, json.loads(out.read_text(encoding="utf-8")) if out.exists() else None

    proc, report = run("good.html")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert report["totals"]["pages"] == 1 and report["totals"]["pages_failing"] == 0
    proc, report = run("good.html", "raw_math.html", "no_alt.html")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    totals = report["totals"]
    assert totals["pages_failing"] == 2 and totals["math_failures"] >= 1
    assert totals["images_without_good_alt"] == 1
    assert totals["axe_blocking_pages_by_rule"] == {"image-alt": 1}
    assert [p["ok"] for p in report["pages"]] == [True, False, False]


# ------------------------------------------------------------------ the site at quick scale
@pytest.mark.book
@pytest.mark.xdist_group("book")
def test_every_page_of_the_site_passes_the_readers_audit(site_audit):
    """Every page of the table of contents and the index pages (the fixture's one pass of the
    browser over the site made from the quick build, served on 127.0.0.1; report in
    _build/page-audit-quick.json)."""
    results = list(site_audit.values())
    assert len(results) >= 40
    bad = "\n".join(f"{r.page}:\n  - " + "\n  - ".join(r.problems) for r in results
                    if r.problems)
    assert not bad, "what a reader would meet:\n" + bad
