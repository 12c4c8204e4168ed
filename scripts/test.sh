#!/usr/bin/env bash
# Installs hyoka with its development tools into .venv and runs the whole test suite,
# the slow parity checks included. Usage: bash scripts/test.sh [extra pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[dev]'
export PATH="$PWD/.venv/bin:$PATH"
exec .venv/bin/python -m pytest -m "slow or not slow" "$@"
