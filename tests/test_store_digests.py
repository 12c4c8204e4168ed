"""Digests kept by file status (``hyoka.store.digests``): a settled file is hashed once, and
every way a file can change afterwards, even keeping its size and mtime, is seen."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import pytest

from _shared import SHARED_DATA
from hyoka.errors import DataError
from hyoka.pfgen.benchmark import BENCHMARK_FOLDER, PfgenBenchmark
from hyoka.store import digests
from hyoka.store.digests import HashedFile, kept_digests_file, read_as_hashed, sha1_files

QUESTIONS = SHARED_DATA / BENCHMARK_FOLDER


def _sha1(path: Path) -> str:
    return hashlib.sha1(path.read_bytes()).hexdigest()


@pytest.fixture
def settled_quickly(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files count as settled 50 ms after their last change, so a test need not wait 5 s;
    every test waits 100 ms before hashing a file it has just written."""
    monkeypatch.setattr(digests, "SETTLED_S", 0.05)


def _settle() -> None:
    time.sleep(0.1)


def test_the_question_files_are_hashed_once_then_taken_from_their_status(
    tmp_path: Path,
) -> None:
    paths = sorted(QUESTIONS.glob("Q*.json"))
    kept_in = kept_digests_file(tmp_path, QUESTIONS)
    first = sha1_files(paths, kept_in)
    assert [f.sha1 for f in first] == [_sha1(p) for p in paths]
    assert all(f.content is not None for f in first)  # read to be hashed
    second = sha1_files(paths, kept_in)
    assert [f.sha1 for f in second] == [f.sha1 for f in first]
    assert all(f.content is None for f in second)  # not read at all
    assert read_as_hashed(second[0]) == paths[0].read_bytes()


def test_a_benchmark_loaded_from_kept_digests_is_the_same_benchmark(tmp_path: Path) -> None:
    hashed = PfgenBenchmark.load(SHARED_DATA, tmp_path)
    kept = PfgenBenchmark.load(SHARED_DATA, tmp_path)
    assert kept.metadata_hash == hashed.metadata_hash
    assert kept.pinned
    assert kept.questions == hashed.questions
    assert kept.data_differences() == []


@pytest.mark.usefixtures("settled_quickly")
def test_a_file_rewritten_in_place_with_its_size_and_mtime_kept_is_hashed_again(
    tmp_path: Path,
) -> None:
    path = tmp_path / "data" / "Q01.json"
    path.parent.mkdir()
    path.write_bytes(b'{"a": 1}')
    _settle()
    kept_in = tmp_path / "kept.json"
    (before,) = sha1_files([path], kept_in)
    assert json.loads(kept_in.read_text())["files"]["Q01.json"][-1] == before.sha1
    stat = path.stat()
    with path.open("r+b") as handle:  # same inode, same size
        handle.write(b'{"b": 2}')
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # mtime set back; ctime can't be
    assert path.stat().st_mtime_ns == stat.st_mtime_ns
    assert path.stat().st_size == stat.st_size
    (after,) = sha1_files([path], kept_in)
    assert after.sha1 == _sha1(path) != before.sha1


@pytest.mark.usefixtures("settled_quickly")
def test_a_file_replaced_by_rename_is_hashed_again(tmp_path: Path) -> None:
    path = tmp_path / "Q01.json"
    path.write_bytes(b"first")
    _settle()
    kept_in = tmp_path / "kept.json"
    (before,) = sha1_files([path], kept_in)
    stat = path.stat()
    other = tmp_path / "other"
    other.write_bytes(b"other")
    os.utime(other, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    other.replace(path)
    (after,) = sha1_files([path], kept_in)
    assert after.sha1 == _sha1(path) != before.sha1


def test_a_file_changed_a_moment_ago_is_not_kept(tmp_path: Path) -> None:
    """Within ``SETTLED_S`` of its last change a file may change again in the same clock
    tick, keeping every time the status holds: its digest is not kept."""
    path = tmp_path / "Q01.json"
    path.write_bytes(b"fresh")
    kept_in = tmp_path / "kept.json"
    (hashed,) = sha1_files([path], kept_in)
    assert hashed.sha1 == _sha1(path)
    assert not kept_in.exists()


def test_bytes_read_later_must_still_have_the_digest(tmp_path: Path) -> None:
    path = tmp_path / "Q01.json"
    path.write_bytes(b"new bytes")
    stale = HashedFile(path, hashlib.sha1(b"old bytes").hexdigest(), None)
    with pytest.raises(DataError, match=r"Q01\.json: changed while hyoka was using it"):
        read_as_hashed(stale)
    fresh = HashedFile(path, _sha1(path), None)
    assert read_as_hashed(fresh) == b"new bytes"


@pytest.mark.usefixtures("settled_quickly")
@pytest.mark.parametrize(
    "kept",
    [
        b"not json",
        b"[]",
        b'{"format": 2, "files": {}}',
        b'{"format": 1, "files": []}',
        b'{"format": 1, "files": {"Q01.json": [1, 2, 3]}}',
        b'{"format": 1, "files": {"Q01.json": [-1, 2, 3, 4, 5, "' + b"0" * 40 + b'"]}}',
        b'{"format": 1, "files": {"Q01.json": [1, 2, 3, 4, 5, "XYZ"]}}',
        b'{"format": 1, "files": {"Q01.json": [1, 2, 3, 4, true, "' + b"0" * 40 + b'"]}}',
    ],
    ids=["garbage", "list", "other-format", "files-list", "short", "negative", "digest", "bool"],
)
def test_a_damaged_kept_file_is_ignored_and_replaced(tmp_path: Path, kept: bytes) -> None:
    path = tmp_path / "Q01.json"
    path.write_bytes(b"answer")
    _settle()
    kept_in = tmp_path / "kept.json"
    kept_in.write_bytes(kept)
    (hashed,) = sha1_files([path], kept_in)
    assert hashed.sha1 == _sha1(path)
    assert json.loads(kept_in.read_text())["files"]["Q01.json"][-1] == hashed.sha1


@pytest.mark.usefixtures("settled_quickly")
def test_a_kept_digest_that_lies_is_used_only_while_the_status_matches(tmp_path: Path) -> None:
    """The status is the whole key: an entry naming another status is not this file's."""
    path = tmp_path / "Q01.json"
    path.write_bytes(b"answer")
    _settle()
    kept_in = tmp_path / "kept.json"
    wrong = [0, 0, 6, 0, 0, "0" * 40]
    kept_in.write_text(json.dumps({"format": 1, "files": {"Q01.json": wrong}}))
    (hashed,) = sha1_files([path], kept_in)
    assert hashed.sha1 == _sha1(path)


def test_a_cache_that_cannot_be_written_leaves_hashing_as_it_was(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would be")
    paths = sorted(QUESTIONS.glob("Q0*.json"))
    hashed = sha1_files(paths, kept_digests_file(blocker, QUESTIONS))
    assert [f.sha1 for f in hashed] == [_sha1(p) for p in paths]
    assert blocker.read_text() == "a file where the cache folder would be"


def test_an_unreadable_file_is_one_data_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "Q99.json"
    with pytest.raises(DataError, match=r"Q99\.json: cannot read"):
        sha1_files([missing], tmp_path / "kept.json")
