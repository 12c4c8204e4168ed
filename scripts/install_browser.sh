#!/usr/bin/env bash
# Headless Chromium for the report's browser tests (tests/test_report_browser.py) and
# Playwright for Python to drive it. Idempotent and quiet: does nothing when both are there,
# prints the installer's output only when it fails.
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

if ! command -v chromium >/dev/null 2>&1; then
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    quietly $SUDO apt-get update -qq
    quietly $SUDO env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends chromium fonts-noto-cjk
fi

if ! "$VENV/bin/python" -c "import playwright" >/dev/null 2>&1; then
    quietly "$VENV/bin/python" -m pip install --quiet playwright
fi
