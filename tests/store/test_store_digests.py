"""Digests of large inputs (``hyoka.store.digests``): the SHA-1s of the bytes on disk, and
bytes read back later only while they still have them."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from _shared import SHARED_DATA
from hyoka.errors import DataError
from hyoka.pfgen.benchmark import BENCHMARK_FOLDER, PfgenBenchmark
from hyoka.store import HashedFile, read_as_hashed, sha1_files

QUESTIONS = SHARED_DATA / BENCHMARK_FOLDER


def test_the_question_files_sha1s_are_those_of_their_bytes() -> None:
    paths = sorted(QUESTIONS.glob("Q*.json"))
    hashed = sha1_files(paths)
    assert [f.path for f in hashed] == paths
    assert [f.sha1 for f in hashed] == [hashlib.sha1(p.read_bytes()).hexdigest() for p in paths]
    assert sha1_files(paths[:1]) == hashed[:1]
    assert sha1_files([]) == []


def test_bytes_read_later_must_still_have_the_digest(tmp_path: Path) -> None:
    path = tmp_path / "Q01.json"
    path.write_bytes(b"new bytes")
    stale = HashedFile(path, hashlib.sha1(b"old bytes").hexdigest())
    with pytest.raises(DataError, match=r"Q01\.json: changed while hyoka was using it"):
        read_as_hashed(stale)
    assert read_as_hashed(HashedFile(path, hashlib.sha1(b"new bytes").hexdigest())) == (
        b"new bytes"
    )


def test_an_unreadable_file_is_one_data_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "Q99.json"
    with pytest.raises(DataError, match=r"Q99\.json: (cannot read|no such file)"):
        sha1_files([QUESTIONS / "Q01.json", missing])
    with pytest.raises(DataError, match=r"Q99\.json: (cannot read|no such file)"):
        read_as_hashed(HashedFile(missing, "0" * 40))


def test_a_question_file_changed_after_loading_builds_no_index(tmp_path: Path) -> None:
    """The benchmark hashed Q01 when it was loaded; Q01 is then rewritten before its index
    is built (an empty cache): the build stops with one line naming the file, and nothing
    is filed in the cache under the old digest."""
    data = tmp_path / "data"
    folder = data / BENCHMARK_FOLDER
    shutil.copytree(QUESTIONS, folder, ignore=shutil.ignore_patterns("*.jsonl"))
    cache = tmp_path / "cache"
    benchmark = PfgenBenchmark.load(data, cache)
    before = benchmark.metadata_hash
    text = (folder / "Q01.json").read_text(encoding="utf-8")
    (folder / "Q01.json").write_text(text.replace("22回", "23回"), encoding="utf-8")
    with pytest.raises(DataError, match=r"Q01\.json: changed while hyoka was using it"):
        benchmark.scorers(["Q01"])
    assert not list(cache.rglob("*.bin"))
    again = PfgenBenchmark.load(data, cache)
    assert again.metadata_hash != before
    assert again.data_differences() == ["Q01.json changed"]
