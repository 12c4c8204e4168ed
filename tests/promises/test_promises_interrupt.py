"""Ctrl-C says what was kept and how to go on (issue 17, #14).

A real ``hyoka judge single`` process, judging against a judge on 127.0.0.1 that answers
four calls and holds the rest, is sent SIGINT mid-run: it exits 130 with one ``interrupted:``
line naming how many judgments its file keeps, and the same command run again judges only
the rest. The signal is sent once both held calls have reached the judge, which holds
them until the run has exited, so the run cannot end before the signal comes nor a reply
race it into the file, however slowly either process runs (a run that could finish
meanwhile would exit 0: a timing-luck failure, not a lost Ctrl-C).
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from _shared import hears_ctrl_c
from hyoka.data.fetch import BASE_URL_ENV
from replay_judge_server import ReplayJudge
from test_promises_waits import TrickleServer

ITEMS = 40


ANSWERED = 4

#: the calls in flight (``--concurrency 2``) held when the signal comes: lost, asked again
HELD = 2


class HeldJudge(ReplayJudge):
    """Rates every answer 7; the calls after the first ``ANSWERED`` wait for ``released``
    (at most a minute): a run is held mid-way until the test has interrupted it and it
    has exited."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.released = threading.Event()
        self._count = itertools.count()

    def reply_to(self, body: Mapping[str, Any], path: str = "") -> str | None:
        reply = super().reply_to(body, path)  # received: counted before it waits
        if next(self._count) >= ANSWERED:  # one number per call, whichever thread asks
            self.released.wait(60)
        return reply


def _lines(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


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
    judge = HeldJudge({}, missing_reply="よい回答です。\nRating: [[7]]")
    with judge:
        command = [
            sys.executable, "-m", "hyoka", "judge", "single", str(answers),
            "-j", "openai/slow-judge", "--base-url", judge.base_url, "-t", "single-ref",
            "--concurrency", "2", "--output", str(output),
        ]  # fmt: skip
        run = subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            preexec_fn=hears_ctrl_c,
        )  # fmt: skip
        # interrupted once the answered four are written and both workers wait on the judge
        # (--concurrency 2), whichever came first: a signal sent with only one held call
        # asked would lose one call, not two (timing luck, not a Ctrl-C that lost work)
        deadline = time.monotonic() + 60
        while len(_lines(output)) < ANSWERED or len(judge.received) < ANSWERED + HELD:
            assert run.poll() is None, run.communicate()
            assert time.monotonic() < deadline, (
                f"in 60 s: {len(_lines(output))} judgments written, "
                f"{len(judge.received)} calls asked"
            )
            time.sleep(0.01)
        run.send_signal(signal.SIGINT)
        try:  # held until the run has gone: no reply can race the signal into the file
            _, stderr_bytes = run.communicate(timeout=30)
        finally:
            judge.released.set()  # the held calls answer a client that has gone
        stderr = stderr_bytes.decode()
        kept = _lines(output)
        assert run.returncode == 130, stderr
        assert "Traceback" not in stderr
        said = [line for line in stderr.splitlines() if line.startswith("interrupted:")]
        assert said == [
            f"interrupted: {len(kept)} judgments kept in {output}; run the same command "
            "again to continue"
        ]
        assert len(kept) == ANSWERED
        assert len(judge.received) == ANSWERED + HELD  # nothing asked after the Ctrl-C
        again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
        assert again.returncode == 0, again.stderr
    ids = [line["id"] for line in _lines(output)]
    assert sorted(ids) == [r["id"] for r in rows]  # every item once, the kept ones not redone
    # the two calls held in flight were lost, nothing else was asked twice
    assert len(judge.received) == ITEMS + HELD


def test_ctrl_c_of_a_download_says_nothing_was_half_written(tmp_path: Path) -> None:
    """``data fetch`` keeps no log: interrupted mid-file, it removes its partial download
    and says so in one line, exit 130."""
    env = {**os.environ, "HYOKA_DATA_DIR": str(tmp_path / "data")}
    with TrickleServer("body") as server:
        env[BASE_URL_ENV] = server.url
        run = subprocess.Popen(
            [sys.executable, "-m", "hyoka", "data", "fetch", "pfgen"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=hears_ctrl_c,
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


#: ``hyoka`` as the console script runs it, Ctrl-C arriving as the command's own code loads
#: (``argv[1]``, imported only once typer has chosen the command): a real SIGINT, sent by
#: the process to itself at that moment, every time
CTRL_C_AS_THE_COMMAND_LOADS = """
import importlib.abc, os, signal, sys

_, loading, *arguments = sys.argv

class CtrlC(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == loading:
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, CtrlC())
from hyoka.cli.main import run
sys.argv = ["hyoka", *arguments]
run()
"""


def test_ctrl_c_before_the_command_starts_says_so_too(tmp_path: Path) -> None:
    """Ctrl-C in the half second a command's code takes to load (before it runs) also gets
    the one line and 130: it exited 130 saying nothing (typer's own handling)."""
    env = {
        **os.environ,
        "HYOKA_DATA_DIR": str(tmp_path / "data"),
        BASE_URL_ENV: "http://127.0.0.1:9",
    }
    run = subprocess.run(
        [sys.executable, "-c", CTRL_C_AS_THE_COMMAND_LOADS, "hyoka.cli.data_cmd",
         "data", "fetch", "pfgen"],
        env=env, capture_output=True, text=True, timeout=60, preexec_fn=hears_ctrl_c,
    )  # fmt: skip
    assert (run.returncode, run.stderr) == (
        130,
        "interrupted: nothing was half-written; run the same command again to continue\n",
    )
    assert not (tmp_path / "data").exists()
