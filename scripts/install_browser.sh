#!/usr/bin/env bash
# Headless Chromium for the report's browser tests (tests/report/test_report_browser.py), a
# Japanese font for it to draw the reports' Japanese with (fonts-noto-cjk: without one,
# kana and kanji are drawn as boxes and the tests say so), and Playwright for Python to
# drive it. Idempotent and quiet: does nothing when all three are there, installs whichever
# is missing (the font even where Chromium is already installed), prints the installer's
# output only when it fails.
# Debian's chromium is used because Playwright's own browser download needs the network
# at test time; the tests point Playwright at /usr/bin/chromium.
set -euo pipefail

VENV="${VENV:-$(cd "$(dirname "$0")/.." && pwd)/.venv}"
LOG="$(mktemp)"
trap 'rm -f "$LOG"' EXIT

quietly() {
    if ! "$@" >"$LOG" 2>&1; then
        cat "$LOG" >&2
        echo "install_browser.sh: failed: $*" >&2
        exit 1
    fi
}

MISSING=()
if ! command -v chromium >/dev/null 2>&1; then MISSING+=(chromium); fi
# a font fontconfig offers for Japanese: none (or no fontconfig at all) means boxes
if ! { command -v fc-list >/dev/null 2>&1 && fc-list :lang=ja family | grep -q .; }; then
    MISSING+=(fonts-noto-cjk)
fi
if [ "${#MISSING[@]}" -gt 0 ]; then
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    quietly $SUDO apt-get update -qq
    quietly $SUDO env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends "${MISSING[@]}"
fi

if ! "$VENV/bin/python" -c "import playwright" >/dev/null 2>&1; then
    quietly "$VENV/bin/python" -m pip install --quiet playwright
fi
