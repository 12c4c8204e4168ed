"""Exact parity with the public leaderboard: rescoring reproduces upstream result.json files.

This file checks a fixed subset that covers all three prompt modes, API and open models,
and both float summations. All 49 sample folders are checked once, by
``test_pfgen_verify.py::test_all_49_published_runs_verify_with_the_listed_summation``:
``pfgen verify`` compares every field, its JSON type and the key order, which is more than
``_assert_same`` here, so a second rescoring of all 49 here would prove nothing new (it
was a sixth of the suite's CPU). Each folder holds its published result.json, so its
summation is chosen by evidence.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _shared import PFGEN_RESULTS
from hyoka.cli.main import app
from hyoka.pfgen import Summation
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.runs import RunOutcome, score_run

ALL_RUNS = sorted(p.parent for p in PFGEN_RESULTS.rglob("trials.jsonl.xz"))
SUBSET = [
    "01-ai/Yi-1.5-9B/2ff65a8",  # completion, sequential sums
    "Qwen/Qwen2.5-32B-Instruct/01f44c1",  # chat, compensated sums
    "openai/chatgpt-o1/9a61e92",  # API model, one trial
    "MiniMaxAI/MiniMax-Text-01/74d4af0",  # differs between the two summations
    "sbintuitions/sarashina2-8x70b/0a74f0a",  # long answers, samples differ by summation
    "llm-jp/llm-jp-13b-instruct-full-jaster-v1.0/c55d748",  # short answers, sequential
]
TOP_FIELDS = ("score", "score_std", "length", "length_std", "num_trials", "scores")
QUESTION_FIELDS = ("question", "score", "score_std", "length", "length_std", "scores", "samples")


def _assert_same(ours: dict[str, Any], upstream: dict[str, Any], where: str) -> None:
    for field in (*TOP_FIELDS, "input_hash", "metadata_hash"):
        assert ours[field] == upstream[field], f"{where}: {field}"
    assert list(ours["questions"]) == list(upstream["questions"]), where
    for qid, expected in upstream["questions"].items():
        for field in QUESTION_FIELDS:
            assert ours["questions"][qid][field] == expected[field], f"{where}: {qid}.{field}"


def _check(folder: Path, rescored: Callable[[Path], RunOutcome]) -> None:
    """``score_run(folder, force=True, write=False)`` (the session's ``rescored``, shared with
    the other files that rescore a published run) reproduces upstream's result.json."""
    upstream = json.loads((folder / "result.json").read_text(encoding="utf-8"))
    outcome = rescored(folder)
    _assert_same(outcome.result, upstream, str(folder.relative_to(PFGEN_RESULTS)))


def test_the_sample_has_49_runs() -> None:
    assert len(ALL_RUNS) == 49


@pytest.mark.parametrize("folder", SUBSET)
def test_rescoring_reproduces_upstream(folder: str, rescored: Callable[[Path], RunOutcome]) -> None:
    _check(PFGEN_RESULTS / folder, rescored)


def test_the_other_summation_does_not_reproduce_a_compensated_run(
    benchmark: PfgenBenchmark,
) -> None:
    """Choosing the summation matters: it is needed, not a coincidence of the sample."""
    folder = PFGEN_RESULTS / "MiniMaxAI/MiniMax-Text-01/74d4af0"
    upstream = json.loads((folder / "result.json").read_text(encoding="utf-8"))
    wrong = score_run(folder, benchmark, force=True, write=False, summation=Summation.SEQUENTIAL)
    assert wrong.result["questions"] != upstream["questions"]


def test_result_is_written_atomically_and_then_skipped(
    tmp_path: Path, benchmark: PfgenBenchmark
) -> None:
    source = PFGEN_RESULTS / "openai/chatgpt-o1/9a61e92"
    run = tmp_path / "run"
    shutil.copytree(source, run)
    (run / "result.json").unlink()
    first = score_run(run, benchmark)
    assert not first.skipped
    written = json.loads((run / "result.json").read_text(encoding="utf-8"))
    _assert_same(written, json.loads((source / "result.json").read_text("utf-8")), "o1")
    assert [p.name for p in run.iterdir() if p.name.startswith(".")] == []
    assert score_run(run, benchmark).skipped
    assert not score_run(run, benchmark, force=True).skipped


def test_upstream_result_is_recognised_as_up_to_date(benchmark: PfgenBenchmark) -> None:
    folder = PFGEN_RESULTS / "openai/chatgpt-o1/9a61e92"
    assert score_run(folder, benchmark).skipped  # reads, never writes, the shared folder


@pytest.mark.usefixtures("hyoka_env")
def test_cli_scores_trial_files_and_prints_the_table(tmp_path: Path) -> None:
    """A folder of trial_NNN.jsonl files scores the same as upstream's trials.jsonl.xz."""
    import lzma

    source = PFGEN_RESULTS / "openai/chatgpt-o1-pro/8e09b44"
    run = tmp_path / "openai" / "chatgpt-o1-pro" / "8e09b44"
    run.mkdir(parents=True)
    shutil.copy(source / "config.json", run / "config.json")
    lines = lzma.decompress((source / "trials.jsonl.xz").read_bytes()).decode().splitlines()
    half = len(lines) // 2
    (run / "trial_001.jsonl").write_text("\n".join(lines[half:]) + "\n", encoding="utf-8")
    (run / "trial_002.jsonl").write_text("\n".join(lines[:half]) + "\n", encoding="utf-8")

    result = CliRunner().invoke(app, ["pfgen", "score", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.stdout)
    upstream = json.loads((source / "result.json").read_text(encoding="utf-8"))
    assert row["score"] == upstream["score"]
    assert row["model"] == "openai/chatgpt-o1-pro"
    ours = json.loads((run / "result.json").read_text(encoding="utf-8"))
    for field in TOP_FIELDS:
        assert ours[field] == upstream[field]

    table = CliRunner().invoke(app, ["pfgen", "score", str(run)])
    assert table.exit_code == 0
    assert "up to date" in table.stdout
