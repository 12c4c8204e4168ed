"""Generating pfgen-bench runs with the real embedded model (SmolLM2 through llama.cpp).

Prompts use 2 examples and answers at most 24 tokens so that each answer takes seconds on
two cores; everything else (prompts, seeds, files, resume, scoring) is the real path.
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

from _shared import SHARED_DATA

pytest.importorskip("llama_cpp", reason="the embedded model needs llama-cpp-python")

from hyoka.cli.main import app

FLAGS = ["-m", "llamacpp/smollm2", "--num-examples", "2", "--max-tokens", "24", "--limit", "2"]


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


def _generate(results: Path, cache: Path, trials: int) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "hyoka", "pfgen", "generate", *FLAGS]
    command += ["--trials", str(trials), "--results-dir", str(results)]
    return subprocess.Popen(
        command, env=_env(cache), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )


def _run_folder(results: Path) -> Path:
    (config,) = results.rglob("config.json")
    return config.parent


def test_run_writes_the_upstream_layout_and_scores_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
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
    assert config["stop"] == ["Q:"] and config["num_examples"] == 2
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


def test_a_killed_run_resumes_to_the_same_answers(tmp_path: Path) -> None:
    """SIGKILL mid-run, start again: every answer equals an uninterrupted run's."""
    cache = tmp_path / "cache"
    results = tmp_path / "results"
    first = _generate(results, cache, trials=3)
    deadline = time.monotonic() + 240
    trial_one = None
    while time.monotonic() < deadline and first.poll() is None:
        found = list(results.rglob("trial_001.jsonl"))
        if found:
            trial_one = found[0]
            break
        time.sleep(0.2)
    assert trial_one is not None, "the first trial never finished"
    time.sleep(1.5)  # let the next trial get some answers into the cache, mid-trial
    first.send_signal(signal.SIGKILL)
    first.wait()
    written = trial_one.stat().st_mtime_ns
    folder = trial_one.parent
    assert not (folder / "trials.jsonl.xz").exists()
    assert [p for p in folder.iterdir() if p.name.endswith(".tmp")] == []

    second = _generate(results, cache, trials=3)
    assert second.wait(timeout=300) == 0, second.stderr.read().decode() if second.stderr else ""
    assert trial_one.stat().st_mtime_ns == written  # finished trials are never regenerated
    resumed = _answers(folder)

    fresh = _generate(tmp_path / "fresh", tmp_path / "fresh-cache", trials=3)
    assert fresh.wait(timeout=300) == 0
    assert resumed == _answers(_run_folder(tmp_path / "fresh"))
    assert sum(len(pairs) for pairs in resumed.values()) == 6
