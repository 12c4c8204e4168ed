"""The code style rules are tests too: ruff (lint and format) must pass.

``mypy --strict`` is the other rule; ``scripts/test.sh`` runs it beside the tests on the
second core (about two minutes, with its cache kept) and fails the run when it fails.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is a dev dependency")
def test_ruff_lint_is_clean() -> None:
    done = _run("ruff", "check", "src", "tests", "benchmarks")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is a dev dependency")
def test_ruff_format_is_clean() -> None:
    done = _run("ruff", "format", "--check", "src", "tests", "benchmarks")
    assert done.returncode == 0, done.stdout + done.stderr
