# Two commands do all the set-up on a fresh machine with Python 3.11:
#   make book   create .venv if missing, install requirements, build the book at paper scale
#   make test   same set-up, run the whole test suite (includes a quick-scale book build)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# make venv LOCK=1: install the term pin (requirements.lock, exact versions with hashes) first
LOCK ?=
STAMP := $(VENV)/.installed$(if $(LOCK),-locked)
JOBS ?= 2

.PHONY: book test venv quick-book figures bench clean notebooks pdf

$(STAMP): requirements.txt requirements-test.txt pyproject.toml bookkit/pyproject.toml $(if $(LOCK),requirements.lock)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(if $(LOCK),$(BIN)/python -m pip install --quiet --require-hashes -r requirements.lock)
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
	$(BIN)/python -m bookkit.page_audit --html _build/html --json _build/page-audit.json

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
	$(BIN)/python -m pytest -n $(JOBS) --dist loadgroup --durations=30

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
## notebooks in _build/student/notebooks. It executes nothing: it shows the outputs of the public
## build's executed notebooks (STUDENT_FROM, default make book's; runs make book first when they
## are missing; after make quick-book: STUDENT_FROM=_build/quick/_build/jupyter_execute).
## The instructor kit: one solution notebook per chapter in _build/instructor-kit.
.PHONY: student-book instructor-kit
STUDENT_FROM ?= _build/jupyter_execute
student-book: $(STAMP)
	@test -d $(STUDENT_FROM) || $(MAKE) book
	DPOLEARN_PROGRESS=0 $(BIN)/python -m bookkit.editions student --executed $(STUDENT_FROM)

instructor-kit: $(STAMP)
	$(BIN)/python -m bookkit.editions instructor

## API reference pages (book/api/*.rst and index.md), one per subpackage, regenerated from the
## package's __all__ lists; tests/test_api_reference.py fails when they are stale.
.PHONY: api-pages
api-pages: $(STAMP)
	$(BIN)/python -m bookkit.api_pages

## The term pin. requirements.lock: every package of the book's environment (requirements.txt)
## at an exact version with hashes, one universal file for Python 3.10-3.13 (uv pip compile;
## needs the package index). Binder installs it (binder/); `make venv LOCK=1` installs it before
## the test requirements; tests/test_lock.py checks it is in sync with requirements.txt.
.PHONY: lock
lock: $(STAMP)
	$(BIN)/uv pip compile requirements.txt --universal --python-version 3.10 --generate-hashes \
		--no-emit-package dpolearn --custom-compile-command "make lock" -o requirements.lock

## Every supported Python (noxfile.py): the non-book tests on 3.10 ... 3.13 and the experiments'
## process pool under the fork, spawn and forkserver start methods. Interpreters come from PATH,
## plus pyenv's when installed. One session: make nox NOX_ARGS="-s tests-3.13".
NOX_ARGS ?=
.PHONY: nox
nox: $(STAMP)
	PATH="$$PATH$$(for d in $$HOME/.pyenv/versions/3.*/bin; do test -d "$$d" && printf ':%s' "$$d"; done)" \
		$(BIN)/nox $(NOX_ARGS)

## The public release in one folder, deployable by copying it to any static host
## (python -m bookkit.site): the book, its package index (simple/: this version's wheel and
## sdist), the notebooks installing from it, the browser-only edition (lite/), the PDFs (pdf/)
## and the figure files, in _build/site/. SITE_SCALE=quick (CI, tests) builds the quick book.
## SITE_URL: the site's address (default html.baseurl of _config.yml, else the repository's
## GitHub Pages address); SITE_ARGS: more options, e.g. --no-pdf. SITE_HTML=<a built book's
## HTML> assembles the site from that build instead of building the book (e.g. after make test:
## make site SITE_SCALE=quick SITE_HTML=_build/quick/_build/html).
SITE_SCALE ?= paper
SITE_URL ?=
SITE_ARGS ?=
SITE_HTML ?=
SITE_BUILD_HTML = $(if $(filter paper,$(SITE_SCALE)),_build/html,_build/quick/_build/html)
.PHONY: site release
site: $(STAMP)
ifeq ($(SITE_HTML),)
	@if [ "$(SITE_SCALE)" = paper ]; then $(MAKE) book; else $(MAKE) quick-book; fi
endif
	$(BIN)/python -m bookkit.site --scale $(SITE_SCALE) --html $(or $(SITE_HTML),$(SITE_BUILD_HTML)) \
		$(if $(SITE_URL),--base-url $(SITE_URL)) $(SITE_ARGS)

## make release VERSION=x.y.z: bump the version everywhere, build the site (make site) and the
## instructor bundle (_build/release/, never on the public site), commit and tag vx.y.z
## (python -m bookkit.release; RELEASE_ARGS=--no-build for the bump and tag only).
VERSION ?=
RELEASE_ARGS ?=
release: $(STAMP)
	@test -n "$(VERSION)" || { echo "release: give the version, e.g. make release VERSION=0.3.0" >&2; exit 2; }
	$(BIN)/python -m bookkit.release $(VERSION) $(RELEASE_ARGS)
