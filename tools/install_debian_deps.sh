#!/usr/bin/env bash
# Debian packages the book's tooling needs beyond Python: chromium (the browser test and the PDF
# edition print through it) and poppler-utils (pdfunite joins the printed pages; pdftotext and
# pdftoppm check the PDF in the tests). Installs only what is missing; needs root (or sudo).
set -euo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v pdfunite >/dev/null 2>&1 || missing+=(poppler-utils)
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing Debian packages: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
    echo "need root to run: apt-get install -y ${missing[*]}" >&2; exit 1; fi
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
