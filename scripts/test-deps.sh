#!/usr/bin/env bash
# What the test suite needs beyond pip packages, installed where this machine allows it:
# Debian's Chromium and the CJK fonts for the browser tests (never `playwright install`: it
# downloads a browser of its own), and a C compiler for the solver's C search. Run by
# `make test` and by `.ci/run`. Without root or apt it installs nothing and says what the
# suite will skip.
set -euo pipefail

missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium fonts-noto-cjk)
command -v cc >/dev/null 2>&1 || missing+=(gcc)
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "test-deps: installing ${missing[*]} (Debian packages)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    exit 0
fi

cat >&2 <<MSG
************************************************************************************
test-deps: cannot install ${missing[*]} here (needs root and apt-get).
Without chromium every browser test (tests/e2e) is SKIPPED; without a C compiler the
solver's C search is not built and its tests are skipped. Install them with:
    sudo apt-get install chromium fonts-noto-cjk gcc
************************************************************************************
MSG
