#!/usr/bin/env bash
# Debian packages the book's tooling needs beyond Python: chromium (the browser test and the PDF
# edition print through it) and poppler-utils (pdfunite joins the printed pages; pdftotext and
# pdftoppm check the PDF in the tests). Installs only what is missing; needs root (or sudo).
set -euo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v pdfunite >/dev/null 2>&1 || missing+=(poppler-utils)
[ ${#missing[@]} -eq 0 ] && exit 0
need="the browser and PDF tests need the Debian packages: ${missing[*]} (apt-get install -y ${missing[*]})"
command -v apt-get >/dev/null 2>&1 || { echo "$need; this machine has no apt-get" >&2; exit 1; }
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  # sudo -n: never wait for a password (make test must not hang on a prompt)
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; else
    echo "$need; installing them needs root" >&2; exit 1; fi
fi
echo "installing Debian packages: ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
