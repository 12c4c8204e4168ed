"""The pfgen index cache is checked, not trusted, and its folder is untrusted (issue 29).

Each test works on a cache of its own holding one question (Q01, the quickest to build: a
quarter of a second) scored from a data folder that holds only that question, with the
100 answers a published run gave to it (two questions, Q01 and Q02, where entries are
swapped). A cache entry whose bytes rotted (same size), whose numbers are impossible
(written with its digests, so only the numbers can tell) or that is filed under another
question's name is found and rebuilt by ``pfgen score`` and ``pfgen verify`` alike, never a
score outside its range; an entry someone else could have written (another user's, one
writable by others, or any in a folder writable by others) is not trusted, however
consistent its checks; a link anywhere in the cache folder is never written through.
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

from _shared import PFGEN_RESULTS, SHARED_DATA, data_with_sources, put_other_than_a_file
from hyoka.cli.main import app
from hyoka.pfgen import engine
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.index_cache import IndexCache, _with_check
from hyoka.pfgen.ngram_index import NgramIndex
from hyoka.pfgen.ngram_trie import DF_COLUMNS_START, QuestionTrie
from hyoka.pfgen.scorer import with_trie
from hyoka.store import json_text

QUESTION = "Q01"
RUN = "01-ai/Yi-1.5-9B/2ff65a8"
FIELDS = ("score", "score_std", "length", "length_std", "num_trials", "scores")


def _data_of(questions: tuple[str, ...], data: Path) -> list[dict[str, Any]]:
    """``data`` made a data folder holding only ``questions``; the published run's records
    of their answers."""
    folder = data / "pfgen-bench" / "data"
    folder.mkdir(parents=True)
    texts = set()
    for question in questions:
        source = SHARED_DATA / "pfgen-bench" / "data" / f"{question}.json"
        (folder / source.name).write_bytes(source.read_bytes())
        texts.add(json.loads(source.read_text(encoding="utf-8"))["question"])
    with lzma.open(PFGEN_RESULTS / RUN / "trials.jsonl.xz", "rt", encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    return [r for r in records if r["question"] in texts]


@pytest.fixture(scope="module")
def one_question(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """A data folder holding only Q01, and the published run's records of its answers."""
    data = tmp_path_factory.mktemp("q01-data")
    return data, _data_of((QUESTION,), data)


def _scored_run(data: Path, records: list[dict[str, Any]], folder: Path) -> Path:
    """``folder`` holding a run of ``records`` scored with ``data`` and the cache that
    scoring built."""
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


@pytest.fixture(scope="module")
def scored_once(
    one_question: tuple[Path, list[dict[str, Any]]], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """A folder holding the run (its Q01 answers, scored) and the cache that scoring built."""
    return _scored_run(*one_question, tmp_path_factory.mktemp("scored-once"))


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


def _resign(cache: Path, change: Any) -> None:
    """The entry's metadata changed by ``change`` and written with its check made again, as
    whoever can write the cache folder could: only the numbers (or the owner) can tell."""
    meta_path, _, meta = _entry(cache)
    del meta["check"]
    change(meta)
    meta_path.write_bytes(_with_check(json_text(meta).encode("utf-8")))


def _set_sizes_to_one(meta: dict[str, Any]) -> None:
    for stored in meta["sets"]:
        stored["num_answers"] = 1


@pytest.mark.parametrize("engine", ["kernel", "numpy"])
@pytest.mark.parametrize("impossible", ["counts x1000", "sets of one answer"])
def test_an_entry_with_impossible_numbers_is_rebuilt(
    setup: tuple[Path, Path],
    one_question: tuple[Path, list[dict[str, Any]]],
    monkeypatch: pytest.MonkeyPatch,
    engine: str,
    impossible: str,
) -> None:
    """An entry whose numbers are impossible, checksums and all (every count of answers
    1000 times what it is; or its metadata re-signed to say each set has one answer, so
    every count exceeds its set's size) is damaged as a rotted one is: ``pfgen score``
    removes it, rebuilds it and writes the result the clean entry gave; the next run uses
    the rebuilt entry. Before, the command stopped with 'the index is damaged' on every run
    and nothing removed the entry."""
    run, cache = setup
    monkeypatch.setenv("HYOKA_PFGEN_ENGINE", engine)
    clean, before = _result(run), _entry(cache)[1].read_bytes()
    (run / "result.json").unlink()
    if impossible == "counts x1000":
        _store_impossible(cache, one_question[0], 1000)
    else:
        _resign(cache, _set_sizes_to_one)
    assert _entry(cache)[1].read_bytes() != before or impossible != "counts x1000"
    _score(run)
    assert _result(run) == clean
    assert _entry(cache)[1].read_bytes() == before
    assert _entry(cache)[2]["sets"][0]["num_answers"] > 1


@pytest.fixture(scope="module")
def two_questions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding a run of Q01's and Q02's answers, scored, the cache that scoring
    built (two entries), and the data folder (``data``)."""
    folder = tmp_path_factory.mktemp("two-questions")
    records = _data_of((QUESTION, "Q02"), folder / "data")
    return _scored_run(folder / "data", records, folder)


@pytest.mark.parametrize("command", ["verify", "score"])
def test_entries_swapped_are_rebuilt_not_blamed_on_the_data(
    two_questions: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """Q01's entry (metadata and blob) and Q02's exchanged, each consistent in itself: each
    is filed under the other's name, so each is removed and rebuilt, and the run verifies
    (or scores) as before. Before, every run stopped with 'Q01.json: question_id 'Q02' !=
    file name', blaming the shared data, and nothing was rebuilt."""
    run, cache = tmp_path / "run", tmp_path / "cache"
    shutil.copytree(two_questions / "run", run)
    shutil.copytree(two_questions / "cache", cache)
    monkeypatch.setenv("HYOKA_DATA_DIR", str(two_questions / "data"))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(cache))
    clean = _result(run)
    root = IndexCache(cache).root
    named = {
        json.loads(p.read_text(encoding="utf-8"))["question"]["question_id"]: p.stem
        for p in root.glob("*.json")
    }
    kept = {p.name: p.read_bytes() for p in root.iterdir()}
    for suffix in (".json", ".bin"):
        first, second = root / (named[QUESTION] + suffix), root / (named["Q02"] + suffix)
        first.rename(root / "swap")
        second.rename(first)
        (root / "swap").rename(second)
    if command == "verify":
        verdict = CliRunner().invoke(app, ["pfgen", "verify", str(run)])
        assert verdict.exit_code == 0, verdict.output
        assert "reproduced exactly" in verdict.stdout
    else:
        _score(run)
        assert _result(run) == clean
    assert {p.name: p.read_bytes() for p in root.iterdir()} == kept


def _forge_baselines(meta: dict[str, Any]) -> None:
    """Every set's Fluency baseline doubled: a number inside every range, which only who
    wrote it can tell from the real one."""
    for stored in meta["sets"]:
        stored["baseline"] *= 2


def test_the_users_own_edit_is_trusted_as_written(setup: tuple[Path, Path]) -> None:
    """What neither the checks nor the ownership rule catch (``index_cache``'s docstring):
    an entry the user re-signed themselves, a file of theirs no one else can write, scores
    as it says; so the forgery the next tests make does change a score where it is trusted."""
    run, cache = setup
    clean = _result(run)
    _resign(cache, _forge_baselines)
    _score(run)
    assert _result(run)["score"] < clean["score"]


def _chown_to_nobody(path: Path) -> None:
    os.chown(path, 65534, 65534)


def _group_writable(path: Path) -> None:
    path.chmod(0o664)


def _world_writable(path: Path) -> None:
    path.chmod(0o646)


@pytest.mark.parametrize(
    "distrust",
    [
        pytest.param(
            _chown_to_nobody,
            marks=pytest.mark.skipif(os.geteuid() != 0, reason="another user's file needs root"),
        ),
        _group_writable,
        _world_writable,
    ],
)
@pytest.mark.parametrize("part", ["json", "bin"])
def test_an_entry_someone_else_could_have_written_is_not_trusted(
    setup: tuple[Path, Path], distrust: Any, part: str
) -> None:
    """A forged entry consistent in itself (its checks made again) that someone else could
    have written (a file of theirs, or one writable by group or others) counts as absent:
    scoring rebuilds it in place, as a file of the user's that no one else can write, and
    the result is the clean one. Before, it was trusted and scored silently otherwise."""
    run, cache = setup
    clean = _result(run)
    meta_path, blob_path, _ = _entry(cache)
    before = meta_path.read_bytes()
    _resign(cache, _forge_baselines)
    distrust(meta_path if part == "json" else blob_path)
    _score(run)
    assert _result(run) == clean
    assert meta_path.read_bytes() == before
    for path in (meta_path, blob_path):
        info = path.stat()
        assert info.st_uid == os.geteuid() and info.st_mode & 0o022 == 0, oct(info.st_mode)


@pytest.mark.parametrize("kind", ["fifo", "socket", "folder"])
@pytest.mark.parametrize("part", ["json", "bin"])
def test_something_else_than_a_file_at_an_entry_is_replaced_or_said(
    setup: tuple[Path, Path], kind: str, part: str
) -> None:
    """A FIFO or a socket in place of an entry's file (never opened, let alone waited on) is
    replaced by the entry rebuilt, so the next run uses it; a folder there is not removed,
    and one line says the entry is kept in memory. Before, a FIFO or a socket stayed, and
    every run rebuilt the entry without a word."""
    run, cache = setup
    clean = _result(run)
    meta_path, blob_path, _ = _entry(cache)
    target = meta_path if part == "json" else blob_path
    put_other_than_a_file(target, kind)
    result = _score(run)
    assert _result(run) == clean
    warned = [line for line in result.stderr.splitlines() if str(cache) in line]
    if kind == "folder":
        assert warned == [
            f"warning: {target}: not a regular file (a folder), and hyoka does not replace "
            "it: what it would hold is kept in memory (remove it to cache again)"
        ]
        assert (target / "keep.txt").read_text() == "keep"
        return
    assert warned == []
    assert target.is_file()
    kept = {p.name: p.stat().st_mtime_ns for p in (meta_path, blob_path)}
    _score(run)
    assert {p.name: p.stat().st_mtime_ns for p in (meta_path, blob_path)} == kept


def test_a_baseline_no_build_makes_is_no_entry(setup: tuple[Path, Path]) -> None:
    """A baseline of 1e308 (every Fluency 0, inside its range) in the user's own entry,
    re-signed: no build makes a baseline above what any answer can reach, so the entry is
    rebuilt and the result is the clean one."""
    run, cache = setup
    clean = _result(run)

    def huge(meta: dict[str, Any]) -> None:
        meta["sets"][0]["baseline"] = 1e308

    _resign(cache, huge)
    _score(run)
    assert _result(run) == clean


@pytest.mark.parametrize("mode", [0o777, 0o775, 0o1777])
def test_a_folder_writable_by_others_is_not_used(setup: tuple[Path, Path], mode: int) -> None:
    """The index folder writable by others (not sticky): anyone could have put any entry
    there, so none is used and none written (one warning line says why and what to do); the
    result is the clean one. A sticky folder (as /tmp), where no one can replace another's
    file, is trusted: its entries are used as they are."""
    run, cache = setup
    clean = _result(run)
    root = IndexCache(cache).root
    _resign(cache, _forge_baselines)
    kept = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in root.iterdir()}
    root.chmod(mode)
    result = _score(run)
    assert {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in root.iterdir()} == kept
    warned = [line for line in result.stderr.splitlines() if "cache" in line]
    if mode & 0o1000:
        assert not warned and _result(run)["score"] < clean["score"]  # the user's own entry
        return
    assert _result(run) == clean
    assert warned == [
        f"warning: {root}: writable by others than its owner (mode {mode:04o}, not sticky), "
        "so hyoka neither uses nor writes cache files there (the cache works from memory): "
        f"`chmod go-w {root}` (or make it sticky) to cache again"
    ]


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
        "--output", str(tmp_path / "answers.jsonl"), "--data-dir", str(data_with_sources()),
    ])  # fmt: skip
    assert made.exit_code == 0, made.output
    assert {p: p.read_bytes() for p in snapshot} == snapshot
    assert sorted(p.name for p in tmp_path.glob("[tn][ho]*")) == ["notes.txt", "theirs.sqlite3"]
    assert not (cache / "responses.sqlite3").is_symlink()
    with sqlite3.connect(cache / "responses.sqlite3") as db:
        assert db.execute("SELECT count(*) FROM responses").fetchone()[0] >= 1
    db.close()


def _cache_warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("warning:") and "cache" in line]


def _generate_one(tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """``mtbench generate`` of one scripted answer with the response cache in ``cache``."""
    script = tmp_path / "model.jsonl"
    script.write_text('{"reply": "答え"}\n', encoding="utf-8")
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(cache))
    made = CliRunner().invoke(app, [
        "mtbench", "generate", "--bench", "mt-bench", "-m", f"scripted/{script}", "--limit", "1",
        "--output", str(tmp_path / "answers.jsonl"), "--data-dir", str(data_with_sources()),
    ])  # fmt: skip
    assert made.exit_code == 0, made.output
    return made


@pytest.mark.skipif(os.geteuid() != 0, reason="another user's file needs root")
def test_someone_elses_response_cache_is_not_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``responses.sqlite3`` owned by another user (whose responses it holds) in the user's
    cache folder: not trusted, so it is removed and a new one made, one warning line saying
    so; the generation caches its response in the new one, the user's own."""
    cache = tmp_path / "cache"
    cache.mkdir()
    database = cache / "responses.sqlite3"
    with sqlite3.connect(database) as db:
        db.execute("CREATE TABLE responses (key TEXT PRIMARY KEY, response TEXT, created REAL)")
        db.execute("INSERT INTO responses VALUES ('k', '{}', 0)")
    db.close()
    os.chown(database, 65534, 65534)
    made = _generate_one(tmp_path, cache, monkeypatch)
    assert _cache_warnings(made.stderr) == [
        f"warning: {database}: owned by another user (uid 65534), so it was not trusted: "
        "removed (with responses.sqlite3-wal, responses.sqlite3-shm, "
        "responses.sqlite3-journal), and a new one made"
    ]
    assert database.stat().st_uid == os.geteuid()
    with sqlite3.connect(database) as db:
        keys = [key for (key,) in db.execute("SELECT key FROM responses")]
        assert keys and "k" not in keys
    db.close()


def test_a_response_cache_folder_writable_by_others_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache folder writable by everyone (not sticky): SQLite opens its files by path
    there, where anyone could swap them, so no database is made or used there; responses
    are cached in memory and one warning line says why."""
    cache = tmp_path / "cache"
    cache.mkdir()
    cache.chmod(0o777)
    made = _generate_one(tmp_path, cache, monkeypatch)
    assert _cache_warnings(made.stderr) == [
        f"warning: {cache}: writable by others than its owner (mode 0777, not sticky), so "
        "hyoka neither uses nor writes cache files there (the cache works from memory): "
        f"`chmod go-w {cache}` (or make it sticky) to cache again"
    ]
    assert list(cache.iterdir()) == []
