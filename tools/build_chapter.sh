#!/usr/bin/env bash
# Build the landing page plus ONE chapter at quick scale, warnings as errors, to check a chapter
# while writing it:   tools/build_chapter.sh book/primer.md
# Output: _build/chapter-<name>/_build/html ; tracebacks are printed on failure.
set -euo pipefail
cd "$(dirname "$0")/.."
chapter="${1:?usage: tools/build_chapter.sh book/<chapter>.md}"
name="$(basename "${chapter%.md}")"
out="_build/chapter-$name"
mkdir -p "$out"
toc="$out/_toc.yml"
printf 'format: jb-book\nroot: book/intro\nchapters:\n  - file: %s\n' "${chapter%.md}" > "$toc"
DPOLEARN_SCALE="${DPOLEARN_SCALE:-quick}" DPOLEARN_PROGRESS=0 .venv/bin/jupyter-book build . \
  --toc "$toc" -W -n --keep-going --path-output "$out" \
  || { cat "$out"/_build/html/reports/*.err.log 2>/dev/null; exit 1; }
echo "built: $out/_build/html/${chapter%.md}.html"
