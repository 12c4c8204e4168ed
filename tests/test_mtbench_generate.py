"""Answer generation: templates, the injection check, resumable runs on the real SmolLM2."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA
from hyoka.cli.main import app
from hyoka.errors import InputError
from hyoka.mtbench import Bench, load_answers
from hyoka.mtbench.dialogue import base_prompt, chat_messages, check_injection, clean_answer
from hyoka.mtbench.generate import (
    GeneratePlan,
    GenerateReport,
    generate_answers,
    parse_temperatures,
)
from hyoka.providers import GenerationRequest, SamplingParams, load_provider
from hyoka.providers.client import ModelClient, ResponseCache
from hyoka.providers.embedded import EMBEDDED_MODEL

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
    result = CliRunner().invoke(
        app, ["mtbench", "generate", "-m", EMBEDDED_MODEL, "--output", str(target), "--limit", "1"]
    )
    assert result.exit_code == 1 and "holds answers of 'gpt-4'" in result.stderr
    args = ["mtbench", "generate", "-m", EMBEDDED_MODEL, "--injection", "loose"]
    bad = CliRunner().invoke(app, args)
    assert bad.exit_code == 1 and "--injection must be strict or lenient" in bad.stderr


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
        ("duplicate", r":7: question_id 2 answered twice \(first at line 3\)"),
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


def test_judging_needs_every_dialogue(bench: Bench, tmp_path: Path) -> None:
    path = tmp_path / "part.jsonl"
    lines = (FIN / "model_answer" / "gpt-4.jsonl").read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(lines[:80]) + "\n", encoding="utf-8")
    assert len(load_answers(path, bench)) == 80
    with pytest.raises(
        InputError, match=r"answers 80 of the 360 .* \(first missing: question_id 80\)"
    ):
        load_answers(path, bench, complete=True)
