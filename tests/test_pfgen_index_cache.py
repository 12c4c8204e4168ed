"""The pfgen index cache is checked, not trusted, and its folder is untrusted (issue 29, 1 and 9).

Each test works on a cache of its own holding one question (Q01, the quickest to build: a
quarter of a second) scored from a data folder that holds only that question, with the
100 answers a published run gave to it. A cache entry whose bytes rotted (same size) is
found and rebuilt by ``pfgen score`` and ``pfgen verify`` alike; an entry whose numbers are
impossible (written with its digests, so only the numbers can tell) stops the command with
one line, never a score outside its range; a link anywhere in the cache folder is never
written through.
"""

from __future__ import annotations

import json
import lzma
import os
import shutil
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from _shared import PFGEN_RESULTS, SHARED_DATA
from hyoka.cli.main import app
from hyoka.pfgen import engine
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.index_cache import IndexCache
from hyoka.pfgen.ngram_index import NgramIndex
from hyoka.pfgen.ngram_trie import DF_COLUMNS_START, QuestionTrie
from hyoka.pfgen.scorer import with_trie

QUESTION = "Q01"
RUN = "01-ai/Yi-1.5-9B/2ff65a8"
FIELDS = ("score", "score_std", "length", "length_std", "num_trials", "scores")


@pytest.fixture(scope="module")
def one_question(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """A data folder holding only Q01, and the published run's records of its answers."""
    data = tmp_path_factory.mktemp("q01-data")
    folder = data / "pfgen-bench" / "data"
    folder.mkdir(parents=True)
    source = SHARED_DATA / "pfgen-bench" / "data" / f"{QUESTION}.json"
    (folder / source.name).write_bytes(source.read_bytes())
    question = json.loads(source.read_text(encoding="utf-8"))["question"]
    with lzma.open(PFGEN_RESULTS / RUN / "trials.jsonl.xz", "rt", encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    return data, [r for r in records if r["question"] == question]


@pytest.fixture(scope="module")
def scored_once(
    one_question: tuple[Path, list[dict[str, Any]]], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """A folder holding the run (its Q01 answers, scored) and the cache that scoring built."""
    data, records = one_question
    folder = tmp_path_factory.mktemp("scored-once")
    run = folder / "run"
    run.mkdir()
    (run / "config.json").write_bytes((PFGEN_RESULTS / RUN / "config.json").read_bytes())
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    (run / "trials.jsonl").write_text(lines, encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HYOKA_DATA_DIR", str(data))
        patch.setenv("HYOKA_CACHE_DIR", str(folder / "cache"))
        _score(run)
    return folder


@pytest.fixture
def setup(
    one_question: tuple[Path, list[dict[str, Any]]],
    scored_once: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[Path, Path]:
    """(the run folder, the cache folder) of this test: copies of ``scored_once``'s."""
    run, cache = tmp_path / "run", tmp_path / "cache"
    shutil.copytree(scored_once / "run", run)
    shutil.copytree(scored_once / "cache", cache)
    monkeypatch.setenv("HYOKA_DATA_DIR", str(one_question[0]))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(cache))
    return run, cache


def _score(run: Path, *flags: str) -> Any:
    result = CliRunner().invoke(app, ["pfgen", "score", "--force", *flags, str(run)])
    assert result.exit_code == 0, result.output
    return result


def _result(run: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((run / "result.json").read_text(encoding="utf-8"))
    return {key: data[key] for key in FIELDS}


def _entry(cache: Path) -> tuple[Path, Path, dict[str, Any]]:
    """The one entry's metadata and blob files, and its metadata."""
    (meta_path,) = IndexCache(cache).root.glob("*.json")
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    return meta_path, meta_path.with_suffix(".bin"), meta


def _rot_trie(cache: Path) -> bytes:
    """Flip bit 24 of the document frequency, in set 0, of the most frequent first
    character in the blob on disk (same size); the blob's bytes before."""
    _, blob_path, meta = _entry(cache)
    before = blob_path.read_bytes()
    _, offset, rows, stride = meta["trie"][:4]
    table = np.frombuffer(before, np.uint32, rows * stride, offset).reshape(rows, stride)
    first, last = int(table[0, 1]), int(table[1, 1])  # the root's children
    row = first + int(np.argmax(table[first:last, DF_COLUMNS_START]))
    at = offset + 4 * (row * stride + DF_COLUMNS_START)
    with blob_path.open("r+b") as handle:
        handle.seek(at + 3)
        handle.write(bytes([before[at + 3] ^ 0x01]))
    assert blob_path.stat().st_size == len(before) and blob_path.read_bytes() != before
    return before


def _rot_arrays(cache: Path) -> bytes:
    """Flip bit 24 of every document frequency of 1-grams of set 0 (the numpy engine's
    arrays) in the blob on disk; the blob's bytes before."""
    _, blob_path, meta = _entry(cache)
    before = blob_path.read_bytes()
    (df_1,) = [a for a in meta["sets"][0]["arrays"] if a[0] == "df_1"]
    _, _, offset, count = df_1
    damaged = bytearray(before)
    for k in range(count):
        damaged[offset + 4 * k + 3] ^= 0x01
    blob_path.write_bytes(bytes(damaged))
    return before


@pytest.mark.parametrize(("engine", "rot"), [("kernel", _rot_trie), ("numpy", _rot_arrays)])
def test_a_rotted_entry_is_found_and_rebuilt_by_score(
    setup: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, engine: str, rot: Any
) -> None:
    """The bytes each engine walks, rotted in place: scoring again finds the entry damaged,
    rebuilds it (the same bytes as before the rot) and writes the same result."""
    run, cache = setup
    monkeypatch.setenv("HYOKA_PFGEN_ENGINE", engine)
    clean = _result(run)
    assert 0 <= clean["score"] <= 1
    before = rot(cache)
    _score(run)
    assert _result(run) == clean
    assert _entry(cache)[1].read_bytes() == before


def test_verify_never_trusts_a_rotted_cache(setup: tuple[Path, Path]) -> None:
    """A rotted entry never reaches result.json, so ``verify`` with the same cache cannot
    call a wrong result reproduced; and ``verify`` itself rebuilds a rotted entry."""
    run, cache = setup
    clean = _result(run)
    _rot_trie(cache)
    _score(run)
    assert _result(run) == clean  # the rot never scored
    before = _rot_trie(cache)
    verdict = CliRunner().invoke(app, ["pfgen", "verify", str(run)])
    assert verdict.exit_code == 0, verdict.output
    assert "reproduced exactly" in verdict.stdout
    assert _entry(cache)[1].read_bytes() == before


def _store_impossible(cache: Path, data: Path, factor: int) -> None:
    """Q01's entry written again, with its digests, from sets whose every document
    frequency is ``factor`` times what it is: only the numbers can tell."""
    bench = PfgenBenchmark.load(data, cache)
    scorer = bench.scorer(QUESTION)
    sets = []
    for s in scorer.sets:
        index = NgramIndex(
            tuple(s.index.keys),
            tuple(np.asarray(d) * factor for d in s.index.df),
            s.index.num_answers,
        )
        sets.append(replace(s, index=index, trie=None))
    nodes = QuestionTrie.build([s.index for s in sets]).nodes
    trie = QuestionTrie(nodes, tuple(s.index.num_answers for s in sets))
    sha1 = _entry(cache)[0].stem
    IndexCache(cache).store(sha1, scorer.info, with_trie(sets, trie))


@pytest.mark.parametrize("engine", ["kernel", "numpy"])
def test_a_score_outside_its_range_is_an_error(
    setup: tuple[Path, Path],
    one_question: tuple[Path, list[dict[str, Any]]],
    monkeypatch: pytest.MonkeyPatch,
    engine: str,
) -> None:
    """An entry whose numbers are impossible (every count of answers 1000 times the set's
    size, checksums and all) stops the command with one line naming the question and the
    entry; no result is written, and none outside [0, 1] ever is."""
    run, cache = setup
    monkeypatch.setenv("HYOKA_PFGEN_ENGINE", engine)
    (run / "result.json").unlink()
    _store_impossible(cache, one_question[0], 1000)
    result = CliRunner().invoke(app, ["pfgen", "score", "--force", str(run)])
    assert result.exit_code == 1, result.output
    (line,) = [line for line in result.stderr.splitlines() if not line.startswith("warning:")]
    assert line.startswith(f"error: question {QUESTION} (reference index {_entry(cache)[1]}): ")
    assert line.endswith("the index is damaged; nothing was scored with it"), line
    assert not (run / "result.json").exists()


def test_a_link_in_the_cache_is_never_written_through(setup: tuple[Path, Path]) -> None:
    """An entry's files replaced by links to someone's files: scoring rebuilds the entry
    as files of its own, and the files the links pointed to are unchanged."""
    run, cache = setup
    clean = _result(run)
    meta_path, blob_path, _ = _entry(cache)
    victims = {meta_path: run.parent / "notes.json", blob_path: run.parent / "thesis.bin"}
    for link, victim in victims.items():
        victim.write_text(f"{victim.name}: keep me\n")
        link.unlink()
        link.symlink_to(victim)
    _score(run)
    assert _result(run) == clean
    for link, victim in victims.items():
        assert victim.read_text() == f"{victim.name}: keep me\n"
        assert not link.is_symlink() and link.stat().st_size > 20


@pytest.mark.skipif(os.geteuid() != 0, reason="making another user's link needs root")
def test_someone_elses_link_for_the_index_folder_is_not_followed(
    setup: tuple[Path, Path],
) -> None:
    """The index folder replaced by another user's link to a folder of theirs: hyoka
    writes its entries into a folder of its own, and nothing lands in theirs."""
    run, cache = setup
    clean = _result(run)
    root = IndexCache(cache).root
    theirs = run.parent / "theirs"
    theirs.mkdir()
    (theirs / "keep.txt").write_text("keep")
    for entry in root.iterdir():
        entry.unlink()
    root.rmdir()
    root.symlink_to(theirs, target_is_directory=True)
    os.lchown(root, 65534, 65534)
    _score(run)
    assert _result(run) == clean
    assert sorted(p.name for p in theirs.iterdir()) == ["keep.txt"]
    assert not root.is_symlink() and len(list(root.glob("*.bin"))) == 1


def test_the_users_own_link_for_the_index_folder_is_followed(setup: tuple[Path, Path]) -> None:
    """A link the user made (as the tests keep their indexes between sessions): the
    entries in the folder it points to are used as they are, not rebuilt."""
    run, cache = setup
    root = IndexCache(cache).root
    mine = run.parent / "mine"
    root.rename(mine)
    root.symlink_to(mine, target_is_directory=True)
    kept = {p.name: p.stat().st_mtime_ns for p in mine.iterdir()}
    _score(run)
    assert root.is_symlink()
    assert {p.name: p.stat().st_mtime_ns for p in mine.iterdir()} == kept


def _crc32c(data: bytes) -> int:
    """CRC-32C bit by bit, from its definition (reflected polynomial 0x82F63B78)."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


@pytest.mark.parametrize("size", [0, 1, 9, 23, 24, 25, 47, 48, 100, 1001])
def test_the_check_is_three_crc32c_of_three_lanes(size: int) -> None:
    """The kernel's ``checksum``, with the instruction and without, is the CRC-32C of each
    of three lanes (``_checksum.c``): CRC-32C's own check value, and random bytes."""
    kernel = engine.kernel_module()
    assert kernel is not None
    assert kernel.checksum(b"123456789")[8:] == (0xE3069283).to_bytes(4, "little")
    data = np.random.default_rng(size).integers(0, 256, size, dtype=np.uint8).tobytes()
    lane = size // 24 * 8
    parts = (data[:lane], data[lane : 2 * lane], data[2 * lane :])
    expected = b"".join(_crc32c(part).to_bytes(4, "little") for part in parts)
    assert kernel.checksum(data) == kernel.checksum(data, portable=True) == expected


def test_a_link_in_the_response_cache_is_never_written_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``responses.sqlite3`` and its write-ahead log linked to someone's files (another
    user's response cache among them): a generation with the cache writes neither."""
    cache = tmp_path / "cache"
    cache.mkdir()
    theirs = tmp_path / "theirs.sqlite3"
    with sqlite3.connect(theirs) as db:
        db.execute("CREATE TABLE kept (x)")
    db.close()
    log = tmp_path / "notes.txt"
    log.write_text("keep me\n" * 100)
    snapshot = {p: p.read_bytes() for p in (theirs, log)}
    (cache / "responses.sqlite3").symlink_to(theirs)
    (cache / "responses.sqlite3-wal").symlink_to(log)
    script = tmp_path / "model.jsonl"
    script.write_text('{"reply": "答え"}\n', encoding="utf-8")
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(cache))
    made = CliRunner().invoke(app, [
        "mtbench", "generate", "--bench", "mt-bench", "-m", f"scripted/{script}", "--limit", "1",
        "--output", str(tmp_path / "answers.jsonl"), "--data-dir", str(SHARED_DATA),
    ])  # fmt: skip
    assert made.exit_code == 0, made.output
    assert {p: p.read_bytes() for p in snapshot} == snapshot
    assert sorted(p.name for p in tmp_path.glob("[tn][ho]*")) == ["notes.txt", "theirs.sqlite3"]
    assert not (cache / "responses.sqlite3").is_symlink()
    with sqlite3.connect(cache / "responses.sqlite3") as db:
        assert db.execute("SELECT count(*) FROM responses").fetchone()[0] >= 1
    db.close()
