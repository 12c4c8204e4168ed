"""The run store's promises: paths stay inside the root, writes are whole and respectful,
a file that is not ours is never touched, and a log is continued only by its own run."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import stat
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from pydantic import BaseModel

from hyoka.errors import HyokaWarning, InputError
from hyoka.store import (
    JsonlLog,
    Manifest,
    WriteError,
    atomic_write_bytes,
    atomic_write_text,
    manifest_path,
    map_readonly,
    parse_object,
    path_under,
    read_jsonl,
    safe_name,
)


class Row(BaseModel):
    id: str
    value: int
    tstamp: float = 0.0


def _manifest(judge: str = "openai/a") -> Manifest:
    return Manifest(kind="judgments/test", identity={"judge": {"model": judge}, "temperature": 0})


# paths


@pytest.mark.parametrize(
    "name", ["../../../../victim/important", "../..", "/etc/passwd", "a/../../b", "x\x00y", "C:\\z"]
)
def test_names_from_data_stay_inside_the_root(tmp_path: Path, name: str) -> None:
    path = path_under(tmp_path, name)
    assert path.parent == tmp_path
    assert ".." not in path.name.split("/")


def test_a_name_of_only_dots_or_separators_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="--judge-name"):
        path_under(tmp_path, "..", what="--judge-name")


def test_long_names_are_cut_and_stay_distinct() -> None:
    a, b = safe_name("m" * 400 + "a"), safe_name("m" * 400 + "b")
    assert a != b
    assert len(a.encode()) <= 160
    assert safe_name("meta-llama/Llama-3") == "meta-llama_Llama-3"


# atomic writes


def test_a_new_file_follows_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        atomic_write_text(tmp_path / "r.json", "{}")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "r.json").stat().st_mode) == 0o640


def test_a_replaced_file_keeps_its_mode_and_a_symlink_stays_a_link(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("old")
    real.chmod(0o664)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    atomic_write_text(link, "new")
    assert link.is_symlink()
    assert real.read_text() == "new"
    assert stat.S_IMODE(real.stat().st_mode) == 0o664
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_a_read_only_file_is_refused(tmp_path: Path) -> None:
    """Even for root, who could write it: read-only is how people protect results."""
    target = tmp_path / "result.json"
    target.write_text("keep")
    target.chmod(0o444)
    with pytest.raises(InputError, match="read-only"):
        atomic_write_text(target, "new")
    assert target.read_text() == "keep"


def test_a_write_killed_midway_leaves_the_old_file_and_its_temp_is_cleaned(
    tmp_path: Path,
) -> None:
    target = tmp_path / "result.json"
    target.write_text("old")
    script = (
        "import os, sys, time\n"
        "from pathlib import Path\n"
        "os.fsync = lambda fd: (print('writing', flush=True), time.sleep(60))\n"
        "from hyoka.store import atomic_write_text\n"
        f"atomic_write_text(Path({str(target)!r}), 'new' * 1000)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "writing"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        proc.kill()
    temps = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert len(temps) == 1, "the killed writer left its temp file"
    assert target.read_text() == "old"
    atomic_write_text(target, "newer")
    assert target.read_text() == "newer"
    assert [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_text_with_a_lone_surrogate_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot be written"):
        atomic_write_text(tmp_path / "x.json", "a\ud800b")
    assert not (tmp_path / "x.json").exists()


# JSON lines that json.loads lets through but break later


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ('{"score": NaN}', "NaN"),
        ('{"score": -Infinity}', "Infinity"),
        ('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
        ('{"answer": "\\ud800"}', "lone surrogate"),
        ("[1, 2]", "expected a JSON object"),
    ],
)
def test_bad_json_lines_name_where_and_why(line: str, why: str) -> None:
    with pytest.raises(InputError, match=why) as caught:
        parse_object(line, "f.jsonl:7")
    assert str(caught.value).startswith("f.jsonl:7: ")


def test_a_proper_surrogate_pair_is_text() -> None:
    assert parse_object('{"a": "\\ud83d\\ude00"}', "x") == {"a": "😀"}


# logs


def test_a_file_that_is_not_ours_is_left_byte_identical(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_bytes(b"line one\nline two without newline")
    before = notes.read_bytes()
    with pytest.raises(InputError, match="not written by hyoka"):
        JsonlLog.open(notes, _manifest(), Row, key=lambda r: r.id)
    assert notes.read_bytes() == before
    assert not manifest_path(notes).exists()


def test_a_log_of_another_judge_is_not_continued(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    with JsonlLog.open(path, _manifest("openai/a"), Row, key=lambda r: r.id) as log:
        log.append(Row(id="q1", value=3))
    before = path.read_bytes()
    with pytest.raises(InputError, match=r"judge\.model: \"openai/a\" vs \"openai/b\""):
        JsonlLog.open(path, _manifest("openai/b"), Row, key=lambda r: r.id)
    assert path.read_bytes() == before


def test_our_log_is_continued_and_its_torn_tail_repaired(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    with JsonlLog.open(path, _manifest(), Row, key=lambda r: r.id) as log:
        log.append(Row(id="q1", value=3))
    with path.open("a") as handle:
        handle.write('{"id": "q2", "val')  # a crash mid-write
    with JsonlLog.open(path, _manifest(), Row, key=lambda r: r.id) as again:
        assert list(again.records) == ["q1"]
        again.append(Row(id="q2", value=5))
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["q1", "q2"]


def test_lines_appended_together_share_a_flush_and_a_failed_flush_stops_the_log(
    tmp_path: Path,
) -> None:
    """``append_async`` from many tasks: every line whole in the file, one flush for the
    lines written before it ran (issue 33: a flush per line held the event loop). A flush
    that cannot be made (here: the file gone before it ran) fails its line with one
    ``WriteError`` naming the file, and the log appends nothing after it."""
    path = tmp_path / "j.jsonl"

    async def together(log: JsonlLog[Row]) -> None:
        await asyncio.gather(*(log.append_async(Row(id=f"q{i}", value=i)) for i in range(50)))

    async def flush_fails(log: JsonlLog[Row]) -> None:
        pending = asyncio.ensure_future(log.append_async(Row(id="late", value=0)))
        await asyncio.sleep(0)  # the line is written; its flush is the next step
        path.unlink()
        with pytest.raises(WriteError, match=f"{path}: cannot write"):
            await pending
        with pytest.raises(WriteError):
            await log.append_async(Row(id="later", value=0))
        assert not path.exists()  # nothing written after the failure

    with JsonlLog.open(path, _manifest(), Row, key=lambda r: r.id) as log:
        asyncio.run(together(log))
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        assert [r["id"] for r in rows] == [f"q{i}" for i in range(50)]
        assert log._syncs.flushes == 1
        asyncio.run(flush_fails(log))


def test_identical_duplicates_are_dropped_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    line = json.dumps({"id": "q1", "value": 3, "tstamp": 1.0}) + "\n"
    other = json.dumps({"id": "q1", "value": 3, "tstamp": 2.0}) + "\n"
    path.write_text(line + line + other)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rows = read_jsonl(path, Row, key=lambda r: r.id)
    assert [r.value for r in rows] == [3]
    assert [str(w.message) for w in caught if w.category is HyokaWarning] == [
        f"{path}: 2 identical duplicate line(s) dropped"
    ]


def test_conflicting_duplicates_name_both_lines(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    path.write_text(
        json.dumps({"id": "q0", "value": 1})
        + "\n"
        + json.dumps({"id": "q1", "value": 3})
        + "\n"
        + json.dumps({"id": "q1", "value": 9})
        + "\n"
    )
    with pytest.raises(InputError, match=r"j\.jsonl:3: .*q1 \(first at line 2\)"):
        read_jsonl(path, Row, key=lambda r: r.id)


def test_appends_keep_the_umask_mode(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        with JsonlLog.open(tmp_path / "j.jsonl", _manifest(), Row, key=lambda r: r.id) as log:
            log.append(Row(id="q1", value=1))
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "j.jsonl").stat().st_mode) == 0o644


def test_a_suffix_survives_a_name_cut_for_length(tmp_path: Path) -> None:
    path = path_under(tmp_path, "m" * 400, what="model id", suffix=".jsonl")
    assert path.parent == tmp_path and path.name.endswith(".jsonl")
    assert len(path.name.encode()) <= 160 + len(".jsonl")


def test_a_mapped_file_is_read_only_and_outlives_an_atomic_replace(tmp_path: Path) -> None:
    """The index cache maps its blobs: nothing writes through a mapping, and a blob replaced
    by a concurrent build leaves a reader's mapping on the bytes it mapped."""
    path = tmp_path / "blob.bin"
    atomic_write_bytes(path, b"old bytes")
    mapped = map_readonly(path)
    with pytest.raises(TypeError):
        mapped[0] = 0
    atomic_write_bytes(path, b"new bytes, longer")
    assert mapped[:] == b"old bytes"
    assert map_readonly(path)[:] == b"new bytes, longer"
    (tmp_path / "empty.bin").write_bytes(b"")
    with pytest.raises(ValueError):
        map_readonly(tmp_path / "empty.bin")
