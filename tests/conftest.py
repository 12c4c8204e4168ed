"""Shared fixtures: where the real benchmark data is, and one index cache per session.

Tests read the third-party data from ``../shared/data`` (never a copy in the repository).
Building the n-gram indexes takes seconds, so one cache folder is shared by the session.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from _shared import SHARED_DATA
from hyoka.pfgen.benchmark import PfgenBenchmark


@pytest.fixture(scope="session")
def index_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("index-cache")


@pytest.fixture(scope="session")
def benchmark(index_cache_dir: Path) -> PfgenBenchmark:
    return PfgenBenchmark.load(SHARED_DATA, index_cache_dir)


@pytest.fixture
def hyoka_env(monkeypatch: pytest.MonkeyPatch, index_cache_dir: Path) -> Iterator[None]:
    """Point the command line at the shared data and the session's index cache."""
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(index_cache_dir))
    yield
