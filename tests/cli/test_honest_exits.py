"""Honest exits: a judge run with no grade or verdict exits 1 after its totals, and a retry
that can only repeat the same reply is not made.

The judge is a real local HTTP server (``ReplayJudge``) that answers every call with a reply
holding no ``[[rating]]``; the answers are the published pfmt-bench-fin-ja ones.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path

from typer.testing import CliRunner, Result

from _shared import SHARED_DATA
from hyoka.cli.main import app
from hyoka.judge import (
    FASTCHAT,
    PFMT_UPSTREAM,
    JudgeReport,
    JudgeSettings,
    RatingRules,
    run_judging,
)
from hyoka.judge.rating import HYOKA, RatingOutcome, rate
from hyoka.mtbench import Bench
from hyoka.mtbench.judge import BenchJudging, plan_turns
from hyoka.mtbench.records import AnswerChoice, AnswerRecord
from hyoka.providers import Message, ModelClient, SamplingParams, load_provider
from replay_judge_server import ReplayJudge

ANSWERS = SHARED_DATA / "pfmt-bench-fin-ja" / "model_answer" / "claude-2.1.jsonl"


def _judge(base_url: str, out: Path) -> list[str]:
    args = [
        "mtbench", "judge", "-j", "openai/gpt-4o-mini", "-a", str(ANSWERS), "--limit", "1",
        "--base-url", base_url, "--no-cache", "--lang-check", "script",
        "--output-dir", str(out), "--data-dir", str(SHARED_DATA),
    ]  # fmt: skip
    result = CliRunner().invoke(app, args)
    return [str(result.exit_code), result.stdout, result.stderr]


def test_mtbench_judge_with_no_rating_at_all_exits_1(tmp_path: Path, hyoka_env: None) -> None:
    with ReplayJudge({}, missing_reply="A fine answer, I think.") as judge:
        code, stdout, stderr = _judge(judge.base_url, tmp_path / "none")
    assert code == "1", stdout + stderr
    assert "2 turn(s) judged" in stdout and "2 without a rating" in stdout  # totals first
    (line,) = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert line.startswith(
        "error: no grade: openai/gpt-4o-mini wrote no rating in any reply (graded 0, failures 2)"
    )
    with ReplayJudge({}, missing_reply="Rating: [[7]]") as judge:
        code, stdout, stderr = _judge(judge.base_url, tmp_path / "rated")
    assert code == "0" and "error:" not in stderr, stdout + stderr


# --- pairwise: no verdict on any pair is exit 1; nothing left to do is exit 0 ------------


def _pair_files(folder: Path) -> tuple[Path, Path]:
    rows = [("q1", "日本の首都は？", "東京です。", "大阪です。"),
            ("q2", "富士山の高さは？", "3776メートル。", "1000メートル。")]  # fmt: skip
    x, y = folder / "x.jsonl", folder / "y.jsonl"
    for path, model, column in ((x, "mx", 2), (y, "my", 3)):
        lines = [
            json.dumps({"id": row[0], "question": row[1], "answer": row[column], "model": model,
                        "reference": row[2]})
            for row in rows
        ]  # fmt: skip
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return x, y


def _judge_pairs(base_url: str, x: Path, y: Path, out: Path, *more: str) -> Result:
    args = ["judge", "pairwise", str(x), str(y), "-j", "openai/judge", "--base-url", base_url,
            "--no-cache", "--output", str(out), *more]  # fmt: skip
    return CliRunner().invoke(app, args)


def test_judge_pairwise_with_no_verdict_at_all_exits_1(tmp_path: Path) -> None:
    x, y = _pair_files(tmp_path)
    out = tmp_path / "pairs.jsonl"
    with ReplayJudge({}, missing_reply="Both answers have merits.") as judge:
        result = _judge_pairs(judge.base_url, x, y, out, "--method", "bs2")
        assert len(judge.received) == 4  # two pairs, both orders
        assert result.exit_code == 1, result.output
        # the totals first, then one line
        assert "2 pair(s) judged, 0 already done; 4 judge call(s)" in result.stdout
        assert "signature: hyoka:" in result.stdout
        (line,) = [line for line in result.stderr.splitlines() if line.startswith("error:")]
        assert line == (
            "error: no verdict: openai/judge gave no verdict on any of the 2 pair(s) judged now "
            f"(4 of 4 replies without a verdict letter); its replies are kept in {out}"
        )
        assert len(out.read_text(encoding="utf-8").splitlines()) == 2  # both kept, as judged
        # nothing left to do: the file's pairs are all judged, so there is nothing to fail
        again = _judge_pairs(judge.base_url, x, y, out, "--method", "bs2")
        assert again.exit_code == 0, again.output
        assert "0 pair(s) judged, 2 already done" in again.stdout
        assert len(judge.received) == 4


def test_judge_pairwise_json_without_log_probabilities_exits_1(tmp_path: Path) -> None:
    """``--method prob`` from a server that sends letters but no log probabilities: every
    pair lacks its one verdict; the JSON is written whole, then the error line."""
    x, y = _pair_files(tmp_path)
    out = tmp_path / "prob.jsonl"
    with ReplayJudge({}, missing_reply="[[A]]") as judge:
        result = _judge_pairs(judge.base_url, x, y, out, "--method", "prob", "--json")
    assert result.exit_code == 1, result.output
    shown = json.loads(result.stdout)
    assert (shown["judged"], shown["methods"]["prob"]["invalid"]) == (2, 2)
    assert sorted(shown["no_logprobs"]) == ["q1", "q2"]
    (line,) = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert "(0 of 4 replies without a verdict letter, 2 pair(s) without log probabilities)" in line


def test_judge_pairwise_with_one_verdict_exits_0(tmp_path: Path) -> None:
    x, y = _pair_files(tmp_path)
    with ReplayJudge({}, missing_reply="[[C]]") as judge:
        result = _judge_pairs(judge.base_url, x, y, tmp_path / "ties.jsonl", "--method", "bs2")
    assert result.exit_code == 0 and "error:" not in result.stderr, result.output
    assert "2 pair(s) judged" in result.stdout


def _mtbench_pairs(base_url: str, out: Path) -> Result:
    other = ANSWERS.with_name("gpt-4.jsonl")
    args = [
        "mtbench", "judge", "--mode", "pairwise", "--method", "bs2", "-j", "openai/gpt-4o",
        "-a", str(ANSWERS), "-a", str(other), "--limit", "1", "--base-url", base_url,
        "--no-cache", "--lang-check", "script", "--output-dir", str(out),
        "--data-dir", str(SHARED_DATA),
    ]  # fmt: skip
    return CliRunner().invoke(app, args)


def test_mtbench_pairwise_with_no_verdict_at_all_exits_1(tmp_path: Path, hyoka_env: None) -> None:
    with ReplayJudge({}, missing_reply="Hard to say.") as judge:
        result = _mtbench_pairs(judge.base_url, tmp_path / "pairs")
        assert result.exit_code == 1, result.output
        assert "2 turn(s) judged, 0 already done" in result.stdout  # totals first
        assert "4 judge call(s)" in result.stdout and "4 without a verdict" in result.stdout
        (line,) = [line for line in result.stderr.splitlines() if line.startswith("error:")]
        assert line.startswith(
            "error: no verdict: openai/gpt-4o gave no verdict on any of the 2 turn(s) judged "
            "now (4 of 4 replies without a verdict letter); its replies are kept in "
        )
        again = _mtbench_pairs(judge.base_url, tmp_path / "pairs")
        assert again.exit_code == 0, again.output
        assert "0 turn(s) judged, 2 already done" in again.stdout
        assert len(judge.received) == 4


# --- retries at temperature 0 that can only repeat the reply are not made ------------------


def test_a_retry_is_made_only_when_its_request_can_get_another_reply() -> None:
    greedy = SamplingParams(temperature=0.0, max_tokens=64, seed=1)
    sampled = SamplingParams(temperature=0.7, max_tokens=64, seed=1)
    unseeded = SamplingParams(temperature=0.7, max_tokens=64)
    # greedy decoding ignores the seed: a new one gives the same reply
    assert not greedy.retry_can_change_reply(greedy.model_copy(update={"seed": 2}))
    assert not greedy.retry_can_change_reply(greedy)
    # a step in temperature changes the request (pfmt's and hyoka's rating retries)
    assert greedy.retry_can_change_reply(greedy.model_copy(update={"temperature": 0.001}))
    # sampling: a new seed, or none, samples again; the same seed repeats the sample
    assert sampled.retry_can_change_reply(sampled.model_copy(update={"seed": 2}))
    assert unseeded.retry_can_change_reply(unseeded)
    assert not sampled.retry_can_change_reply(sampled)
    # the backend's default temperature may sample
    assert SamplingParams().retry_can_change_reply(SamplingParams())


def _rate(judge: ReplayJudge, rules: RatingRules, params: SamplingParams) -> RatingOutcome:
    async def go() -> RatingOutcome:
        provider = load_provider("openai/judge", base_url=judge.base_url)
        async with ModelClient(provider, cache=None) as client:
            messages = (Message(role="user", content="Grade this answer."),)
            return await rate(client, messages, params, rules=rules, max_attempts=3)

    return asyncio.run(go())


def test_rating_retries_that_repeat_the_request_are_not_made() -> None:
    with ReplayJudge({}, missing_reply="A fine answer.") as judge:
        # fastchat's rules fix temperature 0 with no step: one call, a failure
        outcome = _rate(judge, FASTCHAT, SamplingParams(temperature=0.0))
        assert len(judge.received) == 1
        assert (outcome.score, outcome.attempts, outcome.retries_not_made) == (None, 1, 2)
        assert outcome.replies == ("A fine answer.",)
        # hyoka's rules raise the temperature on each retry: all three calls are made
        outcome = _rate(judge, HYOKA, SamplingParams(temperature=0.0))
        assert [r.temperature for r in judge.received[1:]] == [0.0, 0.001, 0.002]
        assert (outcome.attempts, outcome.retries_not_made) == (3, 0)
        # pfmt's upstream rules too (0.001 a step), as upstream asks
        outcome = _rate(judge, PFMT_UPSTREAM, SamplingParams())
        assert [r.temperature for r in judge.received[4:]] == [0.0, 0.001, 0.002]
        # no step, but sampling: each retry is a new sample
        sampling = replace(FASTCHAT, base_temperature=None)
        outcome = _rate(judge, sampling, SamplingParams(temperature=0.7))
        assert [r.temperature for r in judge.received[7:]] == [0.7, 0.7, 0.7]
        assert (outcome.attempts, outcome.retries_not_made) == (3, 0)


def test_mtbench_turns_with_fastchat_rules_ask_once_and_record_the_failure(
    tmp_path: Path,
) -> None:
    bench = Bench.load("mt-bench", SHARED_DATA)
    first = bench.questions[0].question_id
    turns = ("Aloha from Hawaii: a week of hula and volcanoes.", "Aloha, again.")
    answers = {first: AnswerRecord(question_id=first, model_id="m",
                                   choices=(AnswerChoice(index=0, turns=turns),))}  # fmt: skip
    how = BenchJudging("gpt-4", limit=1)
    output = tmp_path / "m.jsonl"
    assert bench.spec.rating_rules is FASTCHAT
    with ReplayJudge({}, missing_reply="The answer is helpful.") as judge:
        provider = load_provider("openai/gpt-4", base_url=judge.base_url)
        settings = JudgeSettings.of(provider, max_tokens=64)
        plan = plan_turns(bench, answers, "m", settings, output, how, max_attempts=3)

        async def go() -> JudgeReport:
            async with ModelClient(provider, cache=None) as client:
                return await run_judging(client, plan)

        report = asyncio.run(go())
        assert len(judge.received) == 2  # one call per turn, not three
    assert (report.judged, report.judge_calls, report.unrated) == (2, 2, 2)
    lines = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    assert [(line["turn"], line["score"]) for line in lines] == [(1, -1), (2, -1)]


def _pfgen(base_url: str, results: Path, temperature: str) -> Result:
    args = ["pfgen", "generate", "-m", "openai/empty", "--base-url", base_url, "--trials", "1",
            "--limit", "1", "--num-examples", "0", "--temperature", temperature,
            "--no-cache", "--results-dir", str(results)]  # fmt: skip
    return CliRunner().invoke(app, args)


def test_pfgen_generate_fails_an_empty_answer_at_once_at_temperature_0(
    tmp_path: Path, hyoka_env: None
) -> None:
    with ReplayJudge({}, missing_reply="") as server:
        greedy = _pfgen(server.base_url, tmp_path / "greedy", "0")
        assert greedy.exit_code == 1, greedy.output
        assert len(server.received) == 1  # not ten identical calls
        assert [r.temperature for r in server.received] == [0.0]
        (line,) = [line for line in greedy.stderr.splitlines() if line.startswith("error:")]
        assert "in trial 1: the reply was empty and was not asked again" in line
        assert "at temperature 0 (greedy decoding) the same request repeats" in line
        sampled = _pfgen(server.base_url, tmp_path / "sampled", "1")
        assert sampled.exit_code == 1, sampled.output
        # sampling: a retry can differ, so all ten tries are made; a hosted model gets no
        # seed, as upstream's run-openai.py sends none
        retries = server.received[1:]
        assert len(retries) == 10 and all("seed" not in r.body for r in retries)
        assert "after 10 tries" in sampled.stderr
