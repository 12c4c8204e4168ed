"""Ctrl-C says what was kept and how to go on (issue 17, #14).

A real ``hyoka judge single`` process, judging against a slow judge on 127.0.0.1, is sent
SIGINT mid-run: it exits 130 with one ``interrupted:`` line naming how many judgments its
file keeps, and the same command run again judges only the rest.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hyoka.data.fetch import BASE_URL_ENV
from replay_judge_server import ReplayJudge
from test_promises_waits import TrickleServer

ITEMS = 40


class SlowJudge(ReplayJudge):
    """Rates every answer 7, after a pause: a run takes seconds, time to interrupt it."""

    def reply_to(self, body: Mapping[str, Any], path: str = "") -> str | None:
        time.sleep(0.2)
        return super().reply_to(body, path)


def _lines(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _hears_ctrl_c() -> None:
    """In the child before it runs: Ctrl-C delivered as a terminal would, even where the
    suite was started with SIGINT ignored (a script's background job inherits that, and
    a Python started so never turns Ctrl-C into KeyboardInterrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_says_what_was_kept_and_the_same_command_continues(tmp_path: Path) -> None:
    answers = tmp_path / "answers.jsonl"
    rows = [
        {"id": f"q{i:02d}", "question": f"問{i}", "answer": f"答{i}", "reference": f"正解{i}"}
        for i in range(ITEMS)
    ]
    answers.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    output = tmp_path / "j.jsonl"
    env = {
        **os.environ,
        "OPENAI_API_KEY": "test-key",
        "HYOKA_CACHE_DIR": str(tmp_path / "cache"),
        "COLUMNS": "200",
    }
    with SlowJudge({}, missing_reply="よい回答です。\nRating: [[7]]") as judge:
        command = [
            sys.executable, "-m", "hyoka", "judge", "single", str(answers),
            "-j", "openai/slow-judge", "--base-url", judge.base_url, "-t", "single-ref",
            "--concurrency", "2", "--output", str(output),
        ]  # fmt: skip
        run = subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            preexec_fn=_hears_ctrl_c,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while len(_lines(output)) < 4:
            assert run.poll() is None, run.communicate()
            assert time.monotonic() < deadline, "no judgment written in 60 s"
            time.sleep(0.05)
        run.send_signal(signal.SIGINT)
        _, stderr_bytes = run.communicate(timeout=30)
        stderr = stderr_bytes.decode()
        kept = _lines(output)
        assert run.returncode == 130, stderr
        assert "Traceback" not in stderr
        said = [line for line in stderr.splitlines() if line.startswith("interrupted:")]
        assert said == [
            f"interrupted: {len(kept)} judgments kept in {output}; run the same command "
            "again to continue"
        ]
        assert 4 <= len(kept) < ITEMS
        again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
        assert again.returncode == 0, again.stderr
    ids = [line["id"] for line in _lines(output)]
    assert sorted(ids) == [r["id"] for r in rows]  # every item once, the kept ones not redone
    asked_again = len(judge.received) - len(kept)
    assert asked_again <= ITEMS - len(kept) + 2  # at most the calls in flight were lost


def test_ctrl_c_of_a_download_says_nothing_was_half_written(tmp_path: Path) -> None:
    """``data fetch`` keeps no log: interrupted mid-file, it removes its partial download
    and says so in one line, exit 130."""
    env = {**os.environ, "HYOKA_DATA_DIR": str(tmp_path / "data")}
    with TrickleServer("body") as server:
        env[BASE_URL_ENV] = server.url
        run = subprocess.Popen(
            [sys.executable, "-m", "hyoka", "data", "fetch", "pfgen"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_hears_ctrl_c,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while server.requests < 1 or not list((tmp_path / "data").rglob("*.tmp")):
            assert run.poll() is None, run.communicate()
            assert time.monotonic() < deadline, "the download never started"
            time.sleep(0.05)
        run.send_signal(signal.SIGINT)
        _, stderr = run.communicate(timeout=30)
    assert run.returncode == 130, stderr
    assert stderr.decode() == (
        "interrupted: nothing was half-written; run the same command again to continue\n"
    )
    assert [p for p in (tmp_path / "data").rglob("*") if p.is_file()] == []
