#!/usr/bin/env bash
# Installs hyoka with its development tools into .venv and runs the whole test suite,
# the slow parity checks included. Usage: bash scripts/test.sh [extra pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
# llama-cpp-python compiles llama.cpp; without -march=native, so that no AMX kernel is built: on
# AMX CPUs (Sapphire Rapids and later) those give other tokens than every other CPU for the same
# prompt, and the tests pin SmolLM2's real answers. Only a fresh build honours it (pip reuses a
# wheel it built before).
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF}"
# the CPU build of torch first (see pyproject's hf extra), so transformers' tests run
.venv/bin/python -m pip install --quiet torch==2.13.0
.venv/bin/python -m pip install --quiet -e '.[dev,hf]'
# the compiled pfgen kernel is optional for users (numpy runs without it) but not for the
# tests: they compare it with numpy, so a failed build must fail here, not skip them
.venv/bin/python -c 'import hyoka.pfgen._ngram_kernel'
# Debian's chromium and Japanese fonts for the report's browser tests
bash scripts/install_browser.sh
export PATH="$PWD/.venv/bin:$PATH"
# bytecode is cached for the run (a machine that sets PYTHONDONTWRITEBYTECODE would make each
# test process rewrite every test module and each `hyoka` subprocess compile hyoka again:
# about 10 CPU-seconds a worker and 0.3 s a subprocess)
unset PYTHONDONTWRITEBYTECODE
# mypy --strict runs beside the tests at a lower priority (the tests come first), its cache
# kept in .mypy_cache; its verdict is printed after theirs and fails the run like a failed test
mypy_log=$(mktemp)
nice -n 10 .venv/bin/python -m mypy >"$mypy_log" 2>&1 &
mypy_pid=$!
status=0
# one test process per core (pytest-xdist): every test keeps to its own folders and ports;
# a module whose tests share one costly fixture (the two-node Ray cluster) is kept on one
# process by its xdist_group mark (through tests/xdist_groups.py while pytest 9.2 and
# xdist 3.8 disagree on where a test's id is kept)
.venv/bin/python -m pytest -m "slow or not slow" -n auto --dist loadgroup "$@" || status=$?
if wait "$mypy_pid"; then
    echo "mypy --strict: $(tail -n 1 "$mypy_log")"
else
    cat "$mypy_log"
    echo "mypy --strict: FAILED"
    status=1
fi
rm -f "$mypy_log"
exit "$status"
