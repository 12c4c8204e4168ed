"""The response cache replays only what it stored under a key (issue 29): a stored reply
moved to another key or edited in the database is a miss, asked again and counted in one
``warning:`` line; something other than a file at the database's names (a FIFO, a socket, a
folder) never stops a run: it is removed where hyoka may remove it, else the responses are
kept in memory, with one line naming it.

Each test runs ``mtbench generate`` with a scripted model whose n-th request gets the n-th
reply of its script, so a reply served from the cache shows where it came from.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _shared import data_with_sources, put_other_than_a_file
from hyoka.cli.main import app

REPLIES = ["first", "second", "third", "fourth"]


def _generate(tmp_path: Path, output: str) -> Any:
    """``mtbench generate`` of two questions (four turns) with the cache in ``cache``."""
    script = tmp_path / "model.jsonl"
    script.write_text(json.dumps({"reply": REPLIES}) + "\n", encoding="utf-8")
    return CliRunner().invoke(app, [
        "mtbench", "generate", "--bench", "mt-bench", "-m", f"scripted/{script}", "--limit", "2",
        "--output", str(tmp_path / output), "--data-dir", str(data_with_sources()),
    ])  # fmt: skip


def _turns(path: Path) -> list[list[str]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["choices"][0]["turns"] for line in lines]


def _cache_warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("warning:") and "cache" in line]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(folder))
    return folder


def test_a_reply_moved_to_another_key_or_edited_is_asked_again(tmp_path: Path, cache: Path) -> None:
    """The stored replies rotated among their keys, one of them edited as well: the rerun
    asks every one again (the same answers as the first run, none from the cache) and one
    line counts them; the next rerun is served from the rows now stored, silently."""
    made = _generate(tmp_path, "first.jsonl")
    assert made.exit_code == 0, made.output
    assert _turns(tmp_path / "first.jsonl") == [REPLIES[:2], REPLIES[2:]]
    database = cache / "responses.sqlite3"
    with sqlite3.connect(database) as db:
        rows = db.execute("SELECT key, response FROM responses ORDER BY created").fetchall()
        assert len(rows) == 4
        for (key, _), (_, value) in zip(rows, rows[1:] + rows[:1], strict=True):
            db.execute("UPDATE responses SET response = ? WHERE key = ?", (value, key))
        edited = rows[0][1].replace('"first"', '"forged"')
        db.execute("UPDATE responses SET response = ? WHERE key = ?", (edited, rows[0][0]))
    db.close()
    again = _generate(tmp_path, "again.jsonl")
    assert again.exit_code == 0, again.output
    assert _turns(tmp_path / "again.jsonl") == [REPLIES[:2], REPLIES[2:]]
    assert "4 request(s), 0 from cache" in again.stdout
    assert _cache_warnings(again.stderr) == [
        f"warning: {database}: 4 stored replies were not the ones stored under their key "
        "(moved or edited since); they were asked again"
    ]
    third = _generate(tmp_path, "third.jsonl")
    assert "0 request(s), 4 from cache" in third.stdout
    assert _turns(tmp_path / "third.jsonl") == [REPLIES[:2], REPLIES[2:]]
    assert _cache_warnings(third.stderr) == []


KINDS = {"fifo": "a FIFO", "socket": "a socket", "folder": "a folder"}
LOGS = "responses.sqlite3-wal, responses.sqlite3-shm, responses.sqlite3-journal"


@pytest.mark.parametrize("kind", ["fifo", "socket", "folder"])
def test_something_else_than_a_file_at_the_database_never_stops_a_run(
    tmp_path: Path, cache: Path, kind: str
) -> None:
    """A FIFO or a socket at ``responses.sqlite3`` (and a write-ahead log beside it) is
    removed and a database made, one line saying so; a folder there is not removed: the
    responses are kept in memory, one line naming it. Before, the run stopped (``error:
    ... is not a regular file; not used``)."""
    cache.mkdir()
    database = cache / "responses.sqlite3"
    (cache / "responses.sqlite3-wal").write_bytes(b"")
    put_other_than_a_file(database, kind)
    made = _generate(tmp_path, "answers.jsonl")
    assert made.exit_code == 0, made.output
    assert _turns(tmp_path / "answers.jsonl") == [REPLIES[:2], REPLIES[2:]]
    if kind == "folder":
        assert _cache_warnings(made.stderr) == [
            f"warning: {database}: not a regular file (a folder), and hyoka does not remove "
            "it: the cache works from memory (remove it to cache again)"
        ]
        assert database.is_dir()
        return
    assert _cache_warnings(made.stderr) == [
        f"warning: {database}: not a regular file ({KINDS[kind]}): removed (with {LOGS}), "
        "and a new one made"
    ]
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT count(*) FROM responses").fetchone()[0] == 4
    db.close()


@pytest.mark.parametrize(
    ("log", "kind"),
    [("-shm", "fifo"), ("-shm", "folder"), ("-wal", "socket"), ("-journal", "fifo")],
)
def test_something_else_than_a_file_at_a_log_never_stops_a_run(
    tmp_path: Path, cache: Path, log: str, kind: str
) -> None:
    """A FIFO or a socket at a name SQLite keeps beside the database (``-wal``, ``-shm``,
    ``-journal``) held nothing: it alone is removed, one line naming it, and the stored
    replies are served; a folder there is not removed: the responses are kept in memory,
    one line naming it. Before, a FIFO at ``-shm`` stopped the run with SQLite's ``disk
    I/O error``, naming neither the file nor the problem."""
    first = _generate(tmp_path, "first.jsonl")
    assert first.exit_code == 0, first.output
    path = cache / f"responses.sqlite3{log}"
    put_other_than_a_file(path, kind)
    again = _generate(tmp_path, "again.jsonl")
    assert again.exit_code == 0, again.output
    assert _turns(tmp_path / "again.jsonl") == [REPLIES[:2], REPLIES[2:]]
    if kind == "folder":
        assert _cache_warnings(again.stderr) == [
            f"warning: {path}: not a regular file (a folder), and hyoka does not remove it: "
            "the cache works from memory (remove it to cache again)"
        ]
        assert "4 request(s), 0 from cache" in again.stdout
        return
    assert _cache_warnings(again.stderr) == [
        f"warning: {path}: not a regular file ({KINDS[kind]}): removed"
    ]
    assert "0 request(s), 4 from cache" in again.stdout
