"""Judging reads each file once: the engine hands back what it read and wrote.

A ``hyoka mtbench judge`` run opens its judgment file and the file's manifest once each
(the log is read whole under its writer lock, the manifest checked from that one read)
and reports from the records the engine holds, never by reading the file again; the
benchmark's files (questions, judge prompts, reference answers) are read once per
command, however many answer files are judged, and their hashes come from that read.
Counted with the interpreter's ``open`` audit event, which every ``open()``,
``Path.open``/``read_bytes`` and ``os.open`` raises.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from _shared import SHARED_DATA
from hyoka.cli.main import app

FIN = SHARED_DATA / "pfmt-bench-fin-ja"
ANSWERS = [FIN / "model_answer" / f"{model}.jsonl" for model in ("gpt-4", "claude-2.1")]

#: the opens being counted, by path; ``None`` while no command is being counted
_opened: Counter[str] | None = None


def _count_opens(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" and _opened is not None and isinstance(args[0], str | bytes | os.PathLike):
        _opened[str(Path(os.fsdecode(args[0])).resolve())] += 1


sys.addaudithook(_count_opens)  # an audit hook cannot be removed: it counts only when asked


def _opens_of_a_second_run(args: list[str]) -> tuple[Counter[str], Result]:
    """Run ``hyoka args`` twice; the files the second run opened (resolved path -> times)."""
    global _opened
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.output
    _opened = Counter()
    try:
        again = CliRunner().invoke(app, args)
    finally:
        opened, _opened = _opened, None
    assert again.exit_code == 0, again.output
    return opened, again


def _judge(tmp_path: Path, reply: str, answers: list[Path], *extra: str) -> Counter[str]:
    """Run ``hyoka mtbench judge`` twice (the second with nothing left to do, a scripted
    judge replying ``reply``); the opens of the second run, by resolved path."""
    script = tmp_path / "script.jsonl"
    script.write_text(json.dumps({"reply": reply}) + "\n", "utf-8")
    args = ["mtbench", "judge", "--bench", "pfmt-fin", "-j", f"scripted/{script}"]
    args += ["--judge-name", "scripted", "--no-cache", "--lang-check", "script", "--limit", "2"]
    args += ["--output-dir", str(tmp_path / "out"), *extra]
    for path in answers:
        args += ["-a", str(path)]
    opened, again = _opens_of_a_second_run(args)
    assert "0 turn(s) judged" in again.output
    return opened


def _bench_files_read_once(opened: Counter[str]) -> None:
    for name in ("question.jsonl", "judge_prompts.jsonl", "reference_answer/gpt-4o+human.jsonl"):
        assert opened[str((FIN / name).resolve())] == 1, name


@pytest.fixture(autouse=True)
def _env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))


@pytest.mark.parametrize("answers", [ANSWERS[:1], ANSWERS], ids=["one-file", "two-files"])
def test_single_grading_with_nothing_left_to_do_reads_each_file_once(
    tmp_path: Path, answers: list[Path]
) -> None:
    opened = _judge(tmp_path, "評価: [[7]]", answers)
    for answers_file in answers:
        judgments = (tmp_path / "out" / answers_file.name).resolve()
        manifest = judgments.with_name(judgments.name + ".manifest.json")
        lock = judgments.with_name(f".{judgments.name}.hyoka-lock")
        assert (opened[str(judgments)], opened[str(manifest)], opened[str(lock)]) == (1, 1, 1)
        assert opened[str(answers_file.resolve())] == 1
    _bench_files_read_once(opened)


def test_pairwise_with_nothing_left_to_do_reports_from_the_records_read(
    tmp_path: Path,
) -> None:
    opened = _judge(tmp_path, "[[A]]", ANSWERS, "--mode", "pairwise", "--method", "bs2")
    judgments = (tmp_path / "out" / "scripted_pair.jsonl").resolve()
    manifest = judgments.with_name(judgments.name + ".manifest.json")
    lock = judgments.with_name(f".{judgments.name}.hyoka-lock")
    assert (opened[str(judgments)], opened[str(manifest)], opened[str(lock)]) == (1, 1, 1)
    _bench_files_read_once(opened)


def test_two_runs_of_one_command_never_share_a_judgment_file(tmp_path: Path) -> None:
    """Every log is held from the check to the end, so two answer files that would write
    one judgment file (one model given twice) stop the command before any call."""
    script = tmp_path / "script.jsonl"
    script.write_text(json.dumps({"reply": "評価: [[7]]"}) + "\n", "utf-8")
    args = ["mtbench", "judge", "--bench", "pfmt-fin", "-j", f"scripted/{script}", "--limit", "1"]
    args += ["--lang-check", "script", "--no-cache", "--output-dir", str(tmp_path / "out")]
    args += ["-a", str(ANSWERS[0]), "-a", str(ANSWERS[0])]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1
    judgments = tmp_path / "out" / ANSWERS[0].name
    assert f"error: {judgments}: two runs of this command would write it" in result.output
    assert "Traceback" not in result.output
    assert not judgments.exists()  # no judgment made


def test_judge_pairwise_with_nothing_left_to_do_opens_its_judgment_file_once(
    tmp_path: Path,
) -> None:
    """``hyoka judge pairwise`` checks its file before any criteria cost a call and judges
    into the same open log: one open of the file, its manifest and its lock."""
    script = tmp_path / "script.jsonl"
    script.write_text(json.dumps({"reply": "[[A]]"}) + "\n", "utf-8")
    files = []
    for model, answer in (("x", "東京です。"), ("y", "大阪です。")):
        path = tmp_path / f"{model}.jsonl"
        line = {"id": "q1", "question": "日本の首都は?", "answer": answer, "model": model}
        line["reference"] = "東京です。"
        path.write_text(json.dumps(line, ensure_ascii=False) + "\n", "utf-8")
        files.append(str(path))
    judgments = (tmp_path / "pairs.jsonl").resolve()
    args = ["judge", "pairwise", *files, "-j", f"scripted/{script}", "--method", "bs2"]
    args += ["--no-cache", "--output", str(judgments)]
    opened, again = _opens_of_a_second_run(args)
    assert "0 pair(s) judged, 1 already done" in again.output
    manifest = judgments.with_name(judgments.name + ".manifest.json")
    lock = judgments.with_name(f".{judgments.name}.hyoka-lock")
    assert (opened[str(judgments)], opened[str(manifest)], opened[str(lock)]) == (1, 1, 1)
