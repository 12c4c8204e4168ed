"""The suite's runner keeps an ``xdist_group`` on one worker (``scripts/test.sh``'s
``-n auto --dist loadgroup``): two grouped tests in a folder of their own, run by pytest on
two workers, must run on one, in order. Under pytest 9.2 xdist's own suffix was lost and
they were spread (the two-node Ray module then started its cluster twice)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent

PROBE = """
import os
import pytest

pytestmark = pytest.mark.xdist_group("probe")


def _note(name: str) -> None:
    with open("ran.txt", "a", encoding="utf-8") as handle:
        handle.write(f"{name} {os.environ['PYTEST_XDIST_WORKER']}\\n")


def test_first() -> None:
    _note("first")


def test_second() -> None:
    _note("second")
"""


def test_an_xdist_group_runs_on_one_worker(tmp_path: Path) -> None:
    (tmp_path / "test_probe.py").write_text(PROBE, encoding="utf-8")
    # the suite's plugin (tests/conftest.py names it), from a folder that has no conftest
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]),
    }
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "loadgroup",
         "-p", "xdist_groups", "-p", "no:cacheprovider", "-c", os.devnull,
         "--rootdir", str(tmp_path), "test_probe.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    lines = (tmp_path / "ran.txt").read_text(encoding="utf-8").split()
    names, workers = lines[0::2], lines[1::2]
    assert names == ["first", "second"] and len(set(workers)) == 1, lines
