# Two commands do all the set-up on a fresh machine with Python 3.11:
#   make book   create .venv if missing, install requirements, build the book at paper scale
#   make test   same set-up, run the whole test suite (includes a quick-scale book build)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
JOBS ?= 2

.PHONY: book test venv quick-book figures bench clean notebooks pdf

$(STAMP): requirements.txt requirements-test.txt pyproject.toml bookkit/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements-test.txt
	touch $(STAMP)

venv: $(STAMP)

## Build the whole book at paper scale into _build/html.
book: $(STAMP)
	DPOLEARN_SCALE=paper DPOLEARN_PROGRESS=0 $(BIN)/python -m dpolearn run --all --scale paper --jobs $(JOBS) --quiet
	# --all: re-execute every chapter even when its .md is unchanged, since a package change
	# (new cached results) must reach the pages; chapters read the cache, so this is quick.
	DPOLEARN_SCALE=paper DPOLEARN_PROGRESS=0 $(BIN)/jupyter-book build . --all -W -n --keep-going \
		|| { cat _build/html/reports/*.err.log 2>/dev/null; exit 1; }
	@test -f _build/html/index.html && echo "book: _build/html/index.html"
	@# every displayed figure was audited in its kernel (a failing one is a warning above)
	@$(BIN)/python -c "import json; a = json.load(open('_build/html/_static/figure-audit.json')); \
		print(f\"figure audit: {a['figures_audited']} figures, {a['figures_failing']} failing\")"

## Build the book at quick scale into _build/quick/_build/html (what CI checks).
quick-book: $(STAMP)
	DPOLEARN_SCALE=quick DPOLEARN_PROGRESS=0 $(BIN)/jupyter-book build . --all -W -n --keep-going \
		--path-output _build/quick

## Regenerate book/*.ipynb, the committed Colab/Binder twins of the chapters in _toc.yml
## (commit them with `git add -f book/*.ipynb`; tests/test_notebooks.py checks they are in sync).
notebooks: $(STAMP)
	$(BIN)/python -m bookkit.sync

## The Debian packages of the browser and PDF tests (chromium, poppler-utils), installed when
## missing (root or passwordless sudo); otherwise make test stops at once naming them.
.PHONY: debian-deps
debian-deps:
	tools/install_debian_deps.sh

## Lint (ruff, rules in pyproject.toml), then run every test (unit, statistical, privacy, and the
## quick-scale book build).
test: debian-deps $(STAMP)
	$(BIN)/ruff check dpolearn bookkit tests tools benchmarks
	$(BIN)/python -m pytest -n $(JOBS) --dist loadgroup

## Regenerate every figure and table at paper scale under results/.
figures: $(STAMP)
	$(BIN)/python -m dpolearn run --all --scale paper --jobs $(JOBS) --out results

bench: $(STAMP)
	$(BIN)/python benchmarks/bench.py

clean:
	rm -rf _build

## The PDF edition, printed from the HTML build by headless Chromium (python -m bookkit.pdf):
##   make pdf                    the whole book at quick scale -> _build/pdf/dpolearn.pdf
##   make pdf CHAPTER=primer     one chapter                 -> _build/pdf/primer.pdf
##   make pdf PDF_SCALE=paper    the whole book from the paper-scale build (make book)
CHAPTER ?=
PDF_SCALE ?= quick
pdf: $(STAMP)
	tools/install_debian_deps.sh
	@if [ -n "$(CHAPTER)" ]; then \
	  test -f book/$(CHAPTER).md || { echo "pdf: no chapter book/$(CHAPTER).md" >&2; exit 2; }; \
	  tools/build_chapter.sh book/$(CHAPTER).md && \
	  $(BIN)/python -m bookkit.pdf --html _build/chapter-$(CHAPTER)/_build/html --chapter $(CHAPTER); \
	elif [ "$(PDF_SCALE)" = paper ]; then \
	  $(MAKE) book && $(BIN)/python -m bookkit.pdf --html _build/html; \
	else \
	  $(MAKE) quick-book && $(BIN)/python -m bookkit.pdf --html _build/quick/_build/html; \
	fi

## Privacy mutation campaign: every mutant of tools/mutants_catalogue.py applied to a temporary
## copy of the repository must make the (non-book) test suite fail. MUTANTS_ARGS e.g. "--only ID".
.PHONY: mutants
mutants: $(STAMP)
	$(BIN)/python tools/mutants.py $(MUTANTS_ARGS)

## Autograded problem sets (Otter-Grader): per set, the student notebook, the autograder zip
## (hidden tests) and the solution notebook under _build/assignments/<set>/, plus
## _build/assignments/EXPECTED.md for instructors. Grade one submission without Docker:
##   .venv/bin/otter run -a _build/assignments/set1/set1-autograder.zip -o <dir> <submission>.ipynb
.PHONY: assignments
assignments: $(STAMP)
	$(BIN)/python -m bookkit.assignments --out _build/assignments \
	  $(if $(TERM_KEY),--term-key "$(TERM_KEY)") $(if $(ROSTER),--roster "$(ROSTER)")

## A term: make assignments ROSTER=roster.csv TERM_KEY=<secret> writes one notebook per student
## (_build/assignments/students/<student>/<set>.ipynb). Grade a folder of <student>.ipynb files
## of one set, each in its own sandboxed process (no Docker), into <dir>-graded/grades.csv and
## <dir>-graded/feedback/<student>.md:
##   make grade SUBMISSIONS=dir SET=set1 ROSTER=roster.csv TERM_KEY=<secret>
.PHONY: grade
grade: $(STAMP)
	@test -n "$(SUBMISSIONS)" -a -n "$(SET)" || { echo "usage: make grade SUBMISSIONS=dir SET=set1 [ROSTER=... TERM_KEY=...]"; exit 2; }
	$(BIN)/python -m bookkit.grade "$(SUBMISSIONS)" --set $(SET) \
	  $(if $(TERM_KEY),--term-key "$(TERM_KEY)") $(if $(ROSTER),--roster "$(ROSTER)")

## Editions (python -m bookkit.editions). The student edition: the book with every solution removed
## (prose, code and outputs), HTML in _build/student/_build/html and plain-Markdown student
## notebooks in _build/student/notebooks (quick scale; DPOLEARN_SCALE=paper for the papers').
## The instructor kit: one solution notebook per chapter in _build/instructor-kit.
.PHONY: student-book instructor-kit
student-book: $(STAMP)
	DPOLEARN_SCALE=$${DPOLEARN_SCALE:-quick} DPOLEARN_PROGRESS=0 $(BIN)/python -m bookkit.editions student

instructor-kit: $(STAMP)
	$(BIN)/python -m bookkit.editions instructor

## API reference pages (book/api/*.rst and index.md), one per subpackage, regenerated from the
## package's __all__ lists; tests/test_api_reference.py fails when they are stale.
.PHONY: api-pages
api-pages: $(STAMP)
	$(BIN)/python -m bookkit.api_pages
