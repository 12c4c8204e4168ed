"""Generating pfgen-bench runs: the real embedded model once, the seeded server for resume.

The wiring test runs the real embedded model (SmolLM2 through llama.cpp) with prompts of one
example and answers of at most 24 tokens, so that each answer takes seconds on two cores
(the model reads about 150 prompt tokens a second there, an example about 200 tokens);
everything else (prompts, seeds, files, resume, scoring) is the real path. Kill-and-resume is
a property of the trial files, the response cache and the seeded requests, not of the
model: it is tested on the real ``hyoka pfgen generate`` process, killed with SIGKILL,
talking to the instant seeded OpenAI-compatible server on 127.0.0.1 (``wire_servers``).
"""

from __future__ import annotations

import json
import lzma
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA, needs
from hyoka.cli.main import app
from wire_servers import OpenAIServer

FLAGS = ["-m", "llamacpp/smollm2", "--num-examples", "1", "--max-tokens", "24", "--limit", "2"]


def _env(cache: Path) -> dict[str, str]:
    return {**os.environ, "HYOKA_DATA_DIR": str(SHARED_DATA), "HYOKA_CACHE_DIR": str(cache)}


def _answers(folder: Path) -> dict[str, list[tuple[str, str]]]:
    """Per trial file: its (question, answer) pairs, timestamps left out."""
    return {
        p.name: [
            (r["question"], r["answer"])
            for r in map(json.loads, p.read_text(encoding="utf-8").splitlines())
        ]
        for p in sorted(folder.glob("trial_*.jsonl"))
    }


def _generate_args(results: Path, trials: int, url: str) -> list[str]:
    """``hyoka pfgen generate`` asking the seeded server at ``url`` one request at a time
    (so the server's order of answers is the run's order of requests)."""
    args = ["pfgen", "generate", "-m", "openai/seeded", "--base-url", url]
    args += ["--num-examples", "2", "--max-tokens", "24", "--limit", "2", "--concurrency", "1"]
    return [*args, "--trials", str(trials), "--results-dir", str(results)]


def _generate_here(results: Path, cache: Path, trials: int, url: str) -> str:
    """The same command in this process (its output), with its own response cache."""
    env = _env(cache)
    with pytest.MonkeyPatch.context() as patch:
        for key in ("HYOKA_DATA_DIR", "HYOKA_CACHE_DIR"):
            patch.setenv(key, env[key])
        done = CliRunner().invoke(app, _generate_args(results, trials, url))
    assert done.exit_code == 0, done.output
    return done.stdout


def _run_folder(results: Path) -> Path:
    (config,) = results.rglob("config.json")
    return config.parent


def test_run_writes_the_upstream_layout_and_scores_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The llama.cpp wiring: ``pfgen run`` on the embedded model writes and scores a run."""
    needs("llama_cpp")
    for key, value in _env(tmp_path / "cache").items():
        monkeypatch.setenv(key, value)
    results = tmp_path / "results"
    args = ["pfgen", "run", *FLAGS, "--trials", "2", "--results-dir", str(results)]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    folder = _run_folder(results)
    assert folder.parent == results / "HuggingFaceTB" / "SmolLM2-135M-Instruct"
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    assert config["engine"] == "llama-cpp" and config["mode"] == "chat"
    assert config["stop"] == ["Q:"] and config["num_examples"] == 1
    trials = _answers(folder)
    assert sorted(trials) == ["trial_001.jsonl", "trial_002.jsonl"]
    assert all(len(pairs) == 2 and all(a for _, a in pairs) for pairs in trials.values())
    packed = lzma.decompress((folder / "trials.jsonl.xz").read_bytes()).splitlines()
    assert packed == sorted(packed) and len(packed) == 4
    result = json.loads((folder / "result.json").read_text(encoding="utf-8"))
    assert result["num_trials"] == 2 and list(result["questions"]) == ["Q01", "Q02"]
    assert "HuggingFaceTB/SmolLM2-135M-Instruct" in done.stdout
    # a second run changes nothing and comes entirely from the finished trial files
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 0
    assert "0 trial(s) generated, 2 already done" in again.stdout
    assert _answers(folder) == trials
    # --json: what generation did and the scores, as JSON only on stdout
    shown = CliRunner().invoke(app, [*args, "--json"])
    assert shown.exit_code == 0, shown.output
    run = json.loads(shown.stdout)
    assert (run["generated"]["trials_generated"], run["generated"]["trials_done_before"]) == (0, 2)
    assert run["generated"]["folder"] == str(folder) == run["summary"]["folder"]
    assert run["summary"]["score"] == json.loads((folder / "result.json").read_text())["score"]
    made = CliRunner().invoke(app, ["pfgen", "generate", *args[2:], "--json"])
    assert made.exit_code == 0 and json.loads(made.stdout) == run["generated"]


def test_a_killed_run_resumes_to_the_same_answers(tmp_path: Path) -> None:
    """SIGKILL mid-run, start again: every answer equals an uninterrupted run's.

    The real process is killed while its fourth request waits at the server: trial 1 is
    written, trial 2 has one answer in the response cache and one in flight. The restarted
    run never touches trial 1's file, takes the cached answer from the cache (it asks the
    server only for the three answers it never had), and ends with the answers of a run
    that was never killed.
    """
    cache = tmp_path / "cache"
    results = tmp_path / "results"
    with OpenAIServer() as server:
        server.hold_after(3)
        command = [sys.executable, "-m", "hyoka", *_generate_args(results, 3, server.base_url)]
        first = subprocess.Popen(
            command, env=_env(cache), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        try:
            deadline = time.monotonic() + 60
            while server.held == 0 or not list(results.rglob("trial_*.jsonl")):
                assert first.poll() is None, first.stderr.read() if first.stderr else ""
                assert time.monotonic() < deadline, "the run never reached its fourth request"
                time.sleep(0.05)
            first.send_signal(signal.SIGKILL)
            first.wait(timeout=30)
        finally:
            if first.poll() is None:
                first.kill()
            if first.stderr:
                first.stderr.close()
        (trial_one,) = results.rglob("trial_*.jsonl")
        assert trial_one.name == "trial_001.jsonl"
        written, before = trial_one.stat().st_mtime_ns, trial_one.read_bytes()
        folder = trial_one.parent
        assert not (folder / "trials.jsonl.xz").exists()
        assert [p for p in folder.iterdir() if p.name.endswith(".tmp")] == []
        server.release()
        asked = server.served

        out = _generate_here(results, cache, 3, server.base_url)
        assert "2 trial(s) generated, 1 already done; 3 request(s), 1 from cache" in out
        assert server.served - asked == 3  # trial 2's cached answer was not asked again
        # finished trials are never regenerated: the file is the one the killed run wrote
        assert trial_one.stat().st_mtime_ns == written and trial_one.read_bytes() == before
        resumed = _answers(folder)

        _generate_here(tmp_path / "fresh", tmp_path / "fresh-cache", 3, server.base_url)
    assert resumed == _answers(_run_folder(tmp_path / "fresh"))
    assert sum(len(pairs) for pairs in resumed.values()) == 6
