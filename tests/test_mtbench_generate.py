"""Answer generation: templates, the injection check, resumable runs on the real SmolLM2,
and MT-bench with FastChat's settings."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA
from hyoka.cli.main import app
from hyoka.errors import HyokaWarning, InputError
from hyoka.mtbench import Bench, load_answers
from hyoka.mtbench.bench import bench_spec
from hyoka.mtbench.dialogue import base_prompt, chat_messages, check_injection, clean_answer
from hyoka.mtbench.generate import (
    GeneratePlan,
    GenerateReport,
    default_repetition_penalty,
    generate_answers,
    parse_temperatures,
)
from hyoka.providers import GenerationRequest, SamplingParams, load_provider
from hyoka.providers.client import ModelClient, ResponseCache
from hyoka.providers.embedded import EMBEDDED_MODEL
from hyoka.providers.types import Message
from replay_judge_server import ReplayJudge

FIN = SHARED_DATA / "pfmt-bench-fin-ja"


@pytest.fixture(scope="module")
def bench() -> Bench:
    return Bench.load("pfmt-fin", SHARED_DATA)


def test_base_template_is_upstreams_japanese_dialogue() -> None:
    assert (
        base_prompt(["Q1"], [])
        == "あなたは優秀なアシスタントです。\n\n### ユーザー: Q1\n\n### アシスタント:"
    )
    assert base_prompt(["Q1", "Q2"], ["A1"]) == (
        "あなたは優秀なアシスタントです。\n\n### ユーザー: Q1\n\n### アシスタント: A1"
        "\n\n### ユーザー: Q2\n\n### アシスタント:"
    )
    roles = [(m.role, m.content) for m in chat_messages(["Q1", "Q2"], ["A1"])]
    system = ("system", "あなたは優秀なアシスタントです。")
    assert roles == [system, ("user", "Q1"), ("assistant", "A1"), ("user", "Q2")]


@pytest.mark.parametrize(
    ("raw", "strict", "lenient", "fired"),
    [
        ("答えです。\n\n### ユーザー: 次の質問", "", "答えです。", True),
        ("答えです。\n\n### アシスタント", "", "答えです。", True),
        ("### ユーザー: いきなり", "", "", True),
        ("## 見出し\n本文です。", "## 見出し\n本文です。", "## 見出し\n本文です。", False),
        ("  本文<|im_end|></s>  ", "本文", "本文", False),
    ],
)  # fmt: skip
def test_injection_check_on_crafted_answers(
    raw: str, strict: str, lenient: str, fired: bool
) -> None:
    assert clean_answer(raw, "strict") == (strict, fired)
    assert clean_answer(raw, "lenient") == (lenient, fired)


def test_temperatures_default_to_upstream_and_reject_unknown_categories(bench: Bench) -> None:
    temps = parse_temperatures(["math=0.3"], bench)
    assert temps["writing"] == 0.7 and temps["coding"] == 0.0 and temps["ESGs"] == 0.7
    assert temps["math"] == 0.3
    with pytest.raises(InputError, match=r"--temperature 'poetry=0\.5'"):
        parse_temperatures(["poetry=0.5"], bench)


def _plan(path: Path, **changes: object) -> GeneratePlan:
    plan = GeneratePlan(
        answer_file=path, model_id="smollm2", template="base", max_tokens=24,
        temperatures=dict.fromkeys(("writing",), 0.0), repetition_penalty=1.1, limit=3,
    )  # fmt: skip
    for key, value in changes.items():
        setattr(plan, key, value)
    return plan


def _run(plan: GeneratePlan, bench: Bench, cache: Path) -> tuple[GenerateReport, ModelClient]:
    client = ModelClient(load_provider(EMBEDDED_MODEL), cache=ResponseCache(cache), concurrency=2)

    async def go() -> GenerateReport:
        async with client:
            return await generate_answers(plan, bench, client)

    return asyncio.run(go()), client


def test_real_smollm2_base_template_injection_and_resume(bench: Bench, tmp_path: Path) -> None:
    strict_file = tmp_path / "strict.jsonl"
    report, _ = _run(_plan(strict_file), bench, tmp_path / "cache")
    assert (report.generated, report.done_before, report.template) == (3, 0, "base")
    answers = load_answers(strict_file, bench)
    assert sorted(answers) == [0, 1, 2]
    # greedy SmolLM2 answers question 2 and then writes the user's next turn itself
    assert answers[2].turns[0] == "" and report.injections >= 1
    record = json.loads(strict_file.read_text(encoding="utf-8").splitlines()[2])
    assert set(record) == {"question_id", "answer_id", "model_id", "choices", "tstamp"}
    assert record["choices"][0]["index"] == 0 and len(record["choices"][0]["turns"]) == 2

    # resumable: nothing left to do; the turn-2 request was first Q + own answer + second Q
    again, client = _run(_plan(strict_file), bench, tmp_path / "cache")
    assert (again.generated, again.done_before) == (0, 3)
    question = bench.questions[0]
    turn2 = GenerationRequest(
        prompt=base_prompt(question.turns, answers[0].turns[:1]),
        params=SamplingParams(temperature=0.0, max_tokens=24, repetition_penalty=1.1),
    )

    async def replay() -> str:
        async with client:
            return (await client.generate(turn2, sample_key="mtbench:0:2")).text

    replayed = asyncio.run(replay())
    assert client.stats.cache_hits == 1 and client.stats.requests == 0
    assert clean_answer(replayed) == (answers[0].turns[1], False)

    # lenient keeps what came before the marker
    lenient_file = tmp_path / "lenient.jsonl"
    _run(_plan(lenient_file, injection="lenient"), bench, tmp_path / "cache")
    lenient = load_answers(lenient_file, bench)
    assert lenient[2].turns[0] == "バスです。"
    assert check_injection(lenient[2].turns[0]) == ("バスです。", False)


def test_auto_template_uses_smollm2_chat_template(bench: Bench, tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    report, _ = _run(_plan(path, template="auto", limit=1, max_tokens=8), bench, tmp_path / "c")
    assert report.template == "chat" and report.generated == 1
    assert len(load_answers(path, bench)[0].turns) == 2


def test_cli_generate_refuses_another_models_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    target = tmp_path / "gpt-4.jsonl"
    shutil.copy(FIN / "model_answer" / "gpt-4.jsonl", target)
    before = target.read_bytes()
    result = CliRunner().invoke(
        app, ["mtbench", "generate", "-m", EMBEDDED_MODEL, "--output", str(target), "--limit", "1"]
    )
    assert result.exit_code == 1 and "gpt-4.jsonl exists and was not written by hyoka" in (
        result.stderr
    )
    assert target.read_bytes() == before  # not even its last line is "repaired"
    args = ["mtbench", "generate", "-m", EMBEDDED_MODEL, "--injection", "loose"]
    bad = CliRunner().invoke(app, args)
    assert bad.exit_code == 2 and "'loose' is not one of" in bad.stderr


def _edit(tmp_path: Path, edit: str) -> Path:
    path = tmp_path / "answers.jsonl"
    lines = (FIN / "model_answer" / "gpt-4.jsonl").read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[6])
    if edit == "duplicate":
        record["question_id"] = json.loads(lines[2])["question_id"]
    elif edit == "one-turn":
        record["choices"][0]["turns"] = record["choices"][0]["turns"][:1]
    elif edit == "other-bench":
        record["question_id"] = 1001
    elif edit == "other-model":
        record["model_id"] = "gpt-4o"
    lines[6] = json.dumps(record, ensure_ascii=False)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ("duplicate", r":7: a second, different record for question_id 2 \(first at line 3\)"),
        ("one-turn", r":7: question_id 6 has 1 turn\(s\), expected 2"),
        ("other-bench", r":7: question_id 1001 is not a pfmt-bench-fin-ja question"),
        ("other-model", r":7: model_id 'gpt-4o' differs from 'gpt-4'"),
    ],
)
def test_bad_answer_files_name_file_and_line(
    bench: Bench, tmp_path: Path, edit: str, message: str
) -> None:
    path = _edit(tmp_path, edit)
    with pytest.raises(InputError, match=f"answers.jsonl{message}"):
        load_answers(path, bench)


def test_a_line_written_twice_is_read_once_with_a_warning(bench: Bench, tmp_path: Path) -> None:
    """The same answer twice (a line appended again) is what every hyoka log accepts: kept
    once, with a warning naming the file; only a different second answer is an error."""
    path = tmp_path / "answers.jsonl"
    lines = (FIN / "model_answer" / "gpt-4.jsonl").read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join([*lines, lines[4]]) + "\n", encoding="utf-8")
    with pytest.warns(HyokaWarning, match=r"answers\.jsonl: 1 identical duplicate line"):
        answers = load_answers(path, bench, complete=True)
    assert len(answers) == len(lines) == 360


def test_judging_needs_every_dialogue(bench: Bench, tmp_path: Path) -> None:
    path = tmp_path / "part.jsonl"
    lines = (FIN / "model_answer" / "gpt-4.jsonl").read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(lines[:80]) + "\n", encoding="utf-8")
    assert len(load_answers(path, bench)) == 80
    with pytest.raises(
        InputError, match=r"answers 80 of the 360 .* \(first missing: question_id 80\)"
    ):
        load_answers(path, bench, complete=True)


# --- MT-bench: FastChat's settings --------------------------------------------------------


@pytest.fixture(scope="module")
def mt() -> Bench:
    return Bench.load("mt-bench", SHARED_DATA)


def test_mt_bench_requests_use_fastchats_settings(mt: Bench, tmp_path: Path) -> None:
    """Every dialogue against a recording server: per-category temperatures, 1024 tokens,
    FastChat's system message, no repetition penalty, turn 2 after the model's own turn 1
    (the messages themselves, turn by turn: ``test_promises_fastchat``)."""
    plan = GeneratePlan(answer_file=tmp_path / "m.jsonl", model_id="m", template="chat")
    assert default_repetition_penalty(mt.spec, "openai") is None
    assert default_repetition_penalty(mt.spec, "llamacpp") is None
    assert default_repetition_penalty(bench_spec("pfmt-fin"), "llamacpp") == 1.1
    with ReplayJudge({}, missing_reply="  An answer. </s>") as server:
        client = ModelClient(load_provider("openai/m", base_url=server.base_url), cache=None)

        async def go() -> GenerateReport:
            async with client:
                return await generate_answers(plan, mt, client)

        report = asyncio.run(go())
    assert (report.generated, report.template) == (80, "chat")
    sent = {(r.body["messages"][1]["content"], len(r.body["messages"])): r for r in server.received}
    assert len(server.received) == 160
    fastchat = {"writing": 0.7, "roleplay": 0.7, "reasoning": 0.0, "math": 0.0, "coding": 0.0,
                "extraction": 0.0, "stem": 0.1, "humanities": 0.1}  # fmt: skip
    for question in mt.questions:
        first = sent[(question.turns[0], 2)].body
        second = sent[(question.turns[0], 4)].body
        system = {"role": "system", "content": "You are a helpful assistant."}
        assert first["messages"] == [system, {"role": "user", "content": question.turns[0]}]
        assert [m["content"] for m in second["messages"]] == [
            system["content"],
            question.turns[0],
            "An answer.",
            question.turns[1],
        ]
        for body in (first, second):
            assert body["temperature"] == fastchat[question.category]
            assert body["max_tokens"] == 1024
            assert "repetition_penalty" not in body and "repeat_penalty" not in body
    answers = load_answers(plan.answer_file, mt, complete=True)
    assert {a.turns for a in answers.values()} == {("An answer.", "An answer.")}


def test_mt_bench_end_to_end_on_smollm2_and_a_fake_judge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``hyoka mtbench generate|judge|leaderboard --bench mt-bench``: answers from the
    embedded model, graded by a local judge that writes two ratings (FastChat reads the
    first), ranked from FastChat-format judgment files."""
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    runner = CliRunner()
    path = tmp_path / "smollm2.jsonl"
    args = ["mtbench", "generate", "--bench", "mt-bench", "-m", EMBEDDED_MODEL, "--limit", "2"]
    args += ["--max-tokens", "16", "--name", "smollm2", "--output", str(path)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "2 dialogue(s) answered" in result.stdout
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [r["question_id"] for r in records] == [81, 82]
    for record in records:
        # FastChat's answer format, field for field
        assert set(record) == {"question_id", "answer_id", "model_id", "choices", "tstamp"}
        assert record["model_id"] == "smollm2" and len(record["answer_id"]) == 22
        assert [c["index"] for c in record["choices"]] == [0]
        turns = record["choices"][0]["turns"]
        assert len(turns) == 2 and all(isinstance(t, str) and t for t in turns)
    mt = Bench.load("mt-bench", SHARED_DATA)
    assert sorted(load_answers(path, mt)) == [81, 82]
    again = runner.invoke(app, args)
    assert again.exit_code == 0 and "0 dialogue(s) answered, 2 already done" in again.stdout

    judged = tmp_path / "judgments"
    reply = "Helpful but short.\n\nRating: [[6]]\n\n(An earlier draft said [[9]].)"
    with ReplayJudge({}, missing_reply=reply) as judge:
        verdict = runner.invoke(
            app,
            ["mtbench", "judge", "--bench", "mt-bench", "-j", "openai/gpt-4", "-a", str(path),
             "--limit", "2", "--base-url", judge.base_url, "--no-cache",
             "--output-dir", str(judged)],
        )  # fmt: skip
    assert verdict.exit_code == 0, verdict.output
    # FastChat: one call per turn, temperature 0, 2048 tokens, its own system prompts
    assert len(judge.received) == 4
    assert {(r.temperature, r.max_tokens) for r in judge.received} == {(0.0, 2048)}
    assert {r.system_prompt for r in judge.received} == {
        mt.prompt("single-v1").system_prompt,
        mt.prompt("single-v1-multi-turn").system_prompt,
    }
    lines = [json.loads(line) for line in (judged / "smollm2.jsonl").read_text().splitlines()]
    assert [(r["question_id"], r["turn"], r["judge"], r["score"]) for r in lines] == [
        (81, 1, ["gpt-4", "single-v1"], 6),
        (81, 2, ["gpt-4", "single-v1-multi-turn"], 6),
        (82, 1, ["gpt-4", "single-v1"], 6),
        (82, 2, ["gpt-4", "single-v1-multi-turn"], 6),
    ]
    assert all(type(r["score"]) is int for r in lines)  # as FastChat writes them

    board = runner.invoke(
        app,
        ["mtbench", "leaderboard", "--bench", "mt-bench", "--judgments", str(judged),
         "--format", "json"],
    )  # fmt: skip
    assert board.exit_code == 0, board.output
    rows = json.loads(board.stdout)
    rows = rows if isinstance(rows, list) else rows["rows"]
    (row,) = [r for r in rows if r["model"] == "smollm2"]
    assert row["overall"] == 6.0 and row["categories"]["writing"] == 6.0
    assert row["categories"]["stem"] is None


def test_mt_bench_base_transcript_is_english() -> None:
    style = bench_spec("mt-bench").dialogue
    assert base_prompt(["Q1", "Q2"], ["A1"], style) == (
        "### User: Q1\n\n### Assistant: A1\n\n### User: Q2\n\n### Assistant:"
    )
    assert chat_messages(["Q1"], [], style) == (
        Message(role="system", content="You are a helpful assistant."),
        Message(role="user", content="Q1"),
    )
    assert clean_answer("Sure.\n### User: more", "lenient", style.role_markers) == ("Sure.", True)
