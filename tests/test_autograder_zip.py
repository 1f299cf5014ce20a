"""The autograder zip carries what grading needs: a fresh virtual environment made only from the
zip's ``requirements.txt`` and the package wheel inside it grades the solution to full marks
and the blank notebook to zero (what Gradescope's image and ``otter grade`` install). In the same
environment a renamed student notebook, run from a folder that does not hold it (as Colab runs
a notebook), runs every cell and every ``grader.check``.

Slow: one set build and a fresh install of about a hundred pinned packages.
"""
from __future__ import annotations

import json
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import nbformat
import pytest

from bookkit.assignments import pinned_requirements, question_configs

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("assignments")]


def test_requirements_are_pinned_and_cover_the_grader():
    pins = pinned_requirements()
    names = {p.split("==")[0] for p in pins}
    assert all("==" in p for p in pins)
    assert {"numpy", "scipy", "otter-grader", "nbformat", "ipykernel"} <= names
    assert "dpolearn" not in names                 # the wheel ships instead


def _grade(python_bin: Path, zip_path: Path, notebook: Path, out: Path) -> dict:
    out.mkdir(parents=True)
    proc = subprocess.run([str(python_bin.with_name("otter")), "run", "--no-logo", "-a",
                           str(zip_path), "-o", str(out), str(notebook)],
                          capture_output=True, text=True, timeout=900, cwd=out,
                          env={"PATH": f"{python_bin.parent}:/usr/bin:/bin", "HOME": str(out)})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    results = json.loads((out / "results.json").read_text())
    return {t["name"]: t["score"] for t in results["tests"] if "score" in t}


def test_zip_grades_in_a_fresh_environment_built_from_its_own_requirements(tmp_path):
    out = tmp_path / "assignments"
    proc = subprocess.run([sys.executable, "-m", "bookkit.assignments", "--out", str(out),
                           "set1"], cwd=ROOT, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    zip_path = out / "set1" / "set1-autograder.zip"
    unpacked = tmp_path / "zip"
    with zipfile.ZipFile(zip_path) as zf:
        zf.extractall(unpacked)
        assert "requirements.txt" in zf.namelist()
        wheels = [n for n in zf.namelist() if n.startswith("dpolearn-") and n.endswith(".whl")]
    assert len(wheels) == 1
    environment = (unpacked / "environment.yml").read_text()
    assert f"python={sys.version_info.major}.{sys.version_info.minor}" in environment
    assert wheels[0] in environment and "requirements.txt" in environment
    env_dir = tmp_path / "fresh"
    python_bin = env_dir / "bin" / "python"
    requirements = ["-r", str(unpacked / "requirements.txt"), str(unpacked / wheels[0])]
    uv = Path(sys.executable).with_name("uv")
    if uv.exists():          # the same pinned set as pip would install, in a fraction of the time
        venv.create(env_dir, with_pip=False, clear=True)    # no system site-packages
        command = [str(uv), "pip", "install", "--quiet", "--python", str(python_bin), *requirements]
    else:
        venv.create(env_dir, with_pip=True, clear=True)
        command = [str(python_bin), "-m", "pip", "install", "--quiet", *requirements]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    auto = {c["name"]: c["points"] for c in question_configs("set1") if not c["manual"]}
    solution = _grade(python_bin, zip_path, out / "set1" / "instructor" / "set1-solution.ipynb",
                      tmp_path / "graded-solution")
    assert solution == {q: float(p) for q, p in auto.items()}
    blank = tmp_path / "blank" / "renamed set1 (1).ipynb"
    blank.parent.mkdir()
    blank.write_text((out / "set1" / "set1.ipynb").read_text())
    assert _grade(python_bin, zip_path, blank, tmp_path / "graded-blank") == {
        q: 0.0 for q in auto}
    elsewhere = tmp_path / "colab"
    elsewhere.mkdir()
    script = ("import sys, nbformat, nbclient\n"
              "nb = nbformat.read(sys.argv[1], as_version=4)\n"
              "nbclient.NotebookClient(nb, timeout=600, allow_errors=True, kernel_name='python3',"
              " resources={'metadata': {'path': sys.argv[2]}}).execute()\n"
              "nbformat.write(nb, sys.argv[3])\n")
    executed = tmp_path / "executed.ipynb"
    proc = subprocess.run([str(python_bin), "-c", script, str(blank), str(elsewhere),
                           str(executed)], capture_output=True, text=True, timeout=900,
                          env={"PATH": f"{python_bin.parent}:/usr/bin:/bin",
                               "HOME": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    checks = [c for c in nbformat.read(executed, as_version=4).cells
              if c.cell_type == "code" and "grader.check(" in c.source]
    assert {c.source for c in checks} == {f'grader.check("{q}")' for q in auto}
    for cell in checks:
        errors = [o for o in cell.outputs if o.output_type == "error"]
        assert not errors and cell.outputs, (cell.source, errors[:1])
        assert "results" in str(cell.outputs), (cell.source, cell.outputs)
