"""Japanese Vicuna QA as a benchmark definition: one-turn questions, its own prompts and
rules, single grading end to end (judge, leaderboard, verify) with a scripted judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA
from hyoka.cli.main import app
from hyoka.judge import parse_verdict
from hyoka.mtbench import Bench, definition, load_answers
from hyoka.mtbench.pairwise import pair_user_prompt
from replay_judge_server import ReplayJudge

ANSWERS = SHARED_DATA / "ja-vicuna-qa" / "model_answer"


def test_the_definition_loads_80_one_turn_questions_and_four_prompts() -> None:
    bench = Bench.load("ja-vicuna-qa", SHARED_DATA)
    assert len(bench.questions) == 80 and {len(q.turns) for q in bench.questions} == {1}
    assert set(bench.prompts) == {"pair", "pair-math", "single", "single-math"}
    assert sorted(bench.references) == list(range(61, 71))
    coding = bench.by_id[61]
    assert coding.category == "coding"
    assert bench.spec.judge_prompt_name(coding.category, 1, pairwise=True) == "pair-math"
    assert bench.spec.judge_prompt_name("fermi", 1) == "single"


def test_fastchat_token_order_decides_not_the_last_verdict() -> None:
    """Upstream tests ``[[A]]`` in the reply, then ``[[B]]``, then ``[[C]]``: the first
    *token* of that order present wins wherever it stands, where hyoka's own rule reads the
    last ``[[X]]``; only the ASCII spellings count."""
    assert definition("ja-vicuna-qa").pair_verdict == "fastchat-tokens"
    reply = "[[B]]ではなく[[C]]"
    assert parse_verdict(reply, "fastchat-tokens") == "B"
    assert parse_verdict(reply, "verdict-after-reasons") == "C"
    assert parse_verdict("[[C]]とも言えますが[[A]]", "fastchat-tokens") == "A"
    assert parse_verdict("［［A］］", "fastchat-tokens") is None
    assert parse_verdict("［［A］］", "verdict-after-reasons") == "A"
    assert parse_verdict("引き分け", "fastchat-tokens") is None


def test_pair_math_prompts_carry_the_reference() -> None:
    """pair-math (coding and math) shows upstream's GPT-4 reference, then A's and B's answers."""
    bench = Bench.load("ja-vicuna-qa", SHARED_DATA)
    one = load_answers(ANSWERS / "cyberagent--calm2-7b-chat" / "results.jsonl", bench)[70]
    two = load_answers(ANSWERS / "openai--text-davinci-003" / "results.jsonl", bench)[70]
    prompt = pair_user_prompt(bench, bench.by_id[70], one, two, 1)
    reference = bench.references[70].turns[0]
    assert prompt.index(reference) < prompt.index(one.turns[0]) < prompt.rindex(two.turns[0])


def test_single_grading_end_to_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every question graded once with the single/single-math prompts, one complete
    leaderboard row of one table, and the file verifies by the benchmark's rules."""
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "out"
    with ReplayJudge({}, missing_reply="簡潔で正確です。[[rating: 7]]") as judge:
        args = ["mtbench", "judge", "--bench", "ja-vicuna-qa", "-j", "openai/gpt-4"]
        args += ["--base-url", judge.base_url, "--output-dir", str(out)]
        args += ["-a", str(ANSWERS / "cyberagent--calm2-7b-chat" / "results.jsonl")]
        result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "rating:ja-vicuna-qa" in result.output
    names = {r.system_prompt for r in judge.received}
    assert len(judge.received) == 80 and len(names) == 1
    lines = [
        json.loads(x) for x in (out / "cyberagent--calm2-7b-chat.jsonl").read_text().splitlines()
    ]
    assert {tuple(line["judge"]) for line in lines} == {
        ("gpt-4", "single"),
        ("gpt-4", "single-math"),
    }
    assert {(line["score"], line["turn"]) for line in lines} == {(7, 1)}
    board = CliRunner().invoke(app, ["mtbench", "leaderboard", "--bench", "ja-vicuna-qa",
                                     "--judgments", str(out)])  # fmt: skip
    assert board.exit_code == 0, board.output
    assert "incomplete" not in board.output and "Turn 2" not in board.output
    assert "| cyberagent--calm2-7b-chat | 7.00 |" in board.output
    verified = CliRunner().invoke(
        app, ["mtbench", "verify", str(out / "cyberagent--calm2-7b-chat.jsonl")]
    )
    assert (
        verified.exit_code == 0 and "reproduced exactly (80 lines; ja-vicuna-qa" in verified.output
    )
