#!/usr/bin/env bash
# Build the book with ONE chapter executed (quick scale), to check a chapter while writing it:
#     tools/build_chapter.sh book/primer.md
# Output: _build/chapter-<name>/_build/html ; tracebacks are printed on failure.
#
# Every page is read, with the full table of contents, so links from and to other chapters
# resolve; only the named chapter is executed (the others are listed in the execution exclude
# patterns of a generated _config.yml). Exit status 1 on any Sphinx warning in the named
# chapter or the landing page, and on any failing cell (nb_execution_raise_on_error), except
# "undefined label" for figures of other chapters: their figures only exist once those are
# executed. Warnings located in other chapters are printed but not counted.
set -euo pipefail
cd "$(dirname "$0")/.."
chapter="${1:?usage: tools/build_chapter.sh book/<chapter>.md}"
test -f "$chapter" || { echo "no such chapter: $chapter" >&2; exit 2; }
name="$(basename "${chapter%.md}")"
out="_build/chapter-$name"
mkdir -p "$out"
py=.venv/bin/python
config="$out/_config.yml"
"$py" - "$chapter" "$config" <<'EOF'
import sys
from pathlib import Path

import yaml
from bookkit.book import toc_files

chapter, config_path = Path(sys.argv[1]).with_suffix("").as_posix(), Path(sys.argv[2])
config = yaml.safe_load(Path("_config.yml").read_text(encoding="utf-8"))
others = [f"{doc}.md" for doc in toc_files() if doc != chapter]
execute = config.setdefault("execute", {})
execute["exclude_patterns"] = list(execute.get("exclude_patterns") or []) + others
config_path.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")
EOF
log="$out/build.log"
status=0
DPOLEARN_SCALE="${DPOLEARN_SCALE:-quick}" DPOLEARN_PROGRESS=0 .venv/bin/jupyter-book build . \
  --config "$config" -n --keep-going --all --path-output "$out" > "$log" 2>&1 || status=$?
"$py" - "$chapter" "$log" "$status" <<'EOF' || { cat "$out"/_build/html/reports/*.err.log 2>/dev/null; exit 1; }
import re
import sys
from pathlib import Path

from bookkit.book import book_index

chapter, log, status = Path(sys.argv[1]).resolve(), Path(sys.argv[2]), int(sys.argv[3])
ansi = re.compile(r"\x1b\[[0-9;]*m")
lines = [ansi.sub("", line) for line in log.read_text(errors="replace").splitlines()]
warnings = [l for l in lines if ("WARNING" in l or "ERROR" in l) and "IPKernelApp" not in l]
index = book_index()
this_doc = chapter.relative_to(Path.cwd()).with_suffix("").as_posix()
mine = (str(chapter), str(Path("book/intro.md").resolve()))


def counts(line: str) -> bool:
    if not line.startswith(mine):
        return False
    label = re.search(r"undefined label: '([^']+)'", line)
    target = index.targets.get(label.group(1)) if label else None
    return not (target and target.kind == "figure" and target.doc != this_doc)


counted = [l for l in warnings if counts(l)]
for line in warnings:
    print(("" if line in counted else "(other chapter, not counted) ") + line)
if status != 0 and not counted:
    print("\n".join(lines[-40:]))
sys.exit(1 if counted or status != 0 else 0)
EOF
echo "built: $out/_build/html/${chapter%.md}.html"
