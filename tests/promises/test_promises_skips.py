"""A missing optional package is one named skip locally and a failure in CI.

The package is really missing for the run: pytest runs in a subprocess whose
``sitecustomize`` makes importing it fail as an uninstalled package does (the shared
environment has every extra, and nothing may be uninstalled from it). The file run is a
real test file that gates on the package with ``_shared.needs``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from _shared import INSTALL

ROOT = Path(__file__).resolve().parents[2]
#: a quick file whose statsmodels cross-checks gate on the package at module level
GATED_FILE = "tests/stats/test_stats_kappa.py"
HIDDEN = "statsmodels"

HIDE = """
import os
import sys
from importlib.abc import MetaPathFinder

HIDDEN = os.environ["HYOKA_TEST_HIDE"]


class Hide(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == HIDDEN or name.startswith(HIDDEN + "."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, Hide())
"""


def _pytest_without(package: str, folder: Path, *, ci: bool) -> subprocess.CompletedProcess[str]:
    (folder / "sitecustomize.py").write_text(HIDE, encoding="utf-8")
    env = {key: value for key, value in os.environ.items() if key != "CI"}
    env["PYTHONPATH"] = os.pathsep.join([str(folder), str(ROOT / "src")])
    env["HYOKA_TEST_HIDE"] = package
    if ci:
        env["CI"] = "true"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", GATED_FILE],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_a_missing_package_is_one_named_skip_locally(tmp_path: Path) -> None:
    done = _pytest_without(HIDDEN, tmp_path, ci=False)
    # the whole file skips at collection: nothing ran, nothing failed
    assert done.returncode == pytest.ExitCode.NO_TESTS_COLLECTED, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1].startswith("1 skipped in ")
    summary = [line for line in done.stdout.splitlines() if line.startswith("missing here: ")]
    assert summary == [f"missing here: {HIDDEN}: pip install '{INSTALL[HIDDEN]}' (1 skips)"]


def test_a_missing_package_fails_the_run_in_ci(tmp_path: Path) -> None:
    done = _pytest_without(HIDDEN, tmp_path, ci=True)
    # the file's skip at collection is a collection error: the run stops, failed
    assert done.returncode == pytest.ExitCode.INTERRUPTED, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1].startswith("1 error in ")
    reason = f"(Skipped: needs {HIDDEN}: pip install '{INSTALL[HIDDEN]}')"
    assert f"{GATED_FILE} skipped in CI {reason}; a skip fails CI unless it is in " in done.stdout
    assert "missing here" not in done.stdout
