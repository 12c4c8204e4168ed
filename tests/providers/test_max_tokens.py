"""A reply never holds more than ``--max-tokens`` tokens, whichever backend or command.

With the embedded SmolLM2 (llama.cpp) each reply is tokenised again with the model's own
tokenizer: llama-cpp-python on its own ran one or two tokens past the budget to finish a
character cut in the middle (most Japanese characters take several byte tokens here). For
the OpenAI path a real local server records every request, and each command must send
the user's ``--max-tokens`` (a rating rule's or a benchmark's budget only when none is
given). The transformers path runs on a tiny random model built here.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from _shared import PFGEN_RESULTS, SHARED_DATA, needs
from hyoka.cli.main import app
from hyoka.providers import (
    GenerationRequest,
    Message,
    Provider,
    SamplingParams,
    load_provider,
    smollm2_path,
)
from replay_judge_server import ReplayJudge

llama_cpp = needs("llama_cpp")

#: Japanese and English questions; small budgets end most replies inside a character
QUESTIONS = (
    "日本の首都について詳しく説明してください。",
    "富士山の高さは？",
    "1から100まで数えてください。",
    "こんにちは",
    "Write a long story about a cat.",
)
BUDGETS = (3, 7)


@pytest.fixture(scope="module")
def embedded() -> Iterator[Provider]:
    provider = load_provider("llamacpp/smollm2", n_ctx=2048, n_threads=1)
    yield provider
    asyncio.run(provider.aclose())


@pytest.fixture(scope="module")
def vocab() -> Any:
    """SmolLM2's tokenizer alone (no weights), to count the tokens of a reply's text."""
    return llama_cpp.Llama(model_path=str(smollm2_path()), vocab_only=True, verbose=False)


def _count(vocab: Any, text: str) -> int:
    return len(vocab.tokenize(text.encode("utf-8"), add_bos=False, special=False))


def test_embedded_replies_stay_within_max_tokens(embedded: Provider, vocab: Any) -> None:
    cut_in_a_character = 0
    for question in QUESTIONS:
        for budget in BUDGETS:
            for temperature in (0.0, 1.0):
                params = SamplingParams(max_tokens=budget, temperature=temperature, seed=1)
                request = GenerationRequest(
                    messages=(Message(role="user", content=question),), params=params
                )
                response = asyncio.run(embedded.generate(request))
                (choice,) = response.choices
                generated = response.usage.completion_tokens
                written = _count(vocab, choice.text)
                assert generated <= budget, (question, budget, choice.text)
                assert written <= budget, (question, budget, choice.text)
                if choice.finish_reason == "length":
                    assert generated == budget  # the whole budget was used
                    cut_in_a_character += written < generated
    # the case llama-cpp-python ran past: a reply ending inside a character
    assert cut_in_a_character > 0


def test_embedded_samples_each_stay_within_max_tokens(embedded: Provider, vocab: Any) -> None:
    request = GenerationRequest(
        messages=(Message(role="user", content=QUESTIONS[0]),),
        params=SamplingParams(temperature=1.0, max_tokens=5, seed=3),
        n=3,
    )
    response = asyncio.run(embedded.generate(request))
    assert len(response.choices) == 3
    assert response.usage.completion_tokens <= 3 * 5
    assert all(_count(vocab, choice.text) <= 5 for choice in response.choices)


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def test_pfgen_generate_with_the_embedded_model(
    tmp_path: Path, hyoka_env: None, vocab: Any
) -> None:
    result = _invoke(
        "pfgen", "generate", "-m", "llamacpp/smollm2", "-o", "n_ctx=2048", "-o", "n_threads=1",
        "--num-examples", "0", "--max-tokens", "6", "--limit", "3", "--trials", "1",
        "--results-dir", str(tmp_path),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    (trial,) = tmp_path.rglob("trial_001.jsonl")
    answers = [json.loads(line)["answer"] for line in trial.read_text("utf-8").splitlines()]
    assert len(answers) == 3
    assert all(0 < _count(vocab, answer) <= 6 for answer in answers), answers


# --- the OpenAI path: every command sends the user's budget --------------------------------


def _budgets(server: ReplayJudge) -> list[int | None]:
    return [request.max_tokens for request in server.received]


def _answers(path: Path) -> Path:
    rows = [
        {"id": "q1", "question": "日本の首都は？", "reference": "東京です。", "model": "m"},
        {"id": "q2", "question": "富士山の高さは？", "reference": "3776メートル。", "model": "m"},
    ]
    lines = [json.dumps({**row, "answer": "わかりません。"}, ensure_ascii=False) for row in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_judge_commands_send_the_users_max_tokens(tmp_path: Path, hyoka_env: None) -> None:
    answers = _answers(tmp_path / "a.jsonl")
    other = _answers(tmp_path / "b.jsonl")
    with ReplayJudge({}, missing_reply="Rating: [[7]] [[A]]") as server:
        url = ["-j", "openai/judge", "--base-url", server.base_url, "--no-cache"]
        single = _invoke("judge", "single", str(answers), *url, "--max-tokens", "77",
                         "--output", str(tmp_path / "single.jsonl"))  # fmt: skip
        assert single.exit_code == 0, single.output
        assert _budgets(server) == [77, 77]
        server.received.clear()
        pairs = _invoke("judge", "pairwise", str(answers), str(other), *url, "--method", "bs2",
                        "--max-tokens", "5", "--criteria", "auto", "--criteria-max-tokens", "9",
                        "--output", str(tmp_path / "pairs.jsonl"))  # fmt: skip
        assert pairs.exit_code == 0, pairs.output
        # the criteria, once per question, with their own budget; then both orders per pair
        assert _budgets(server) == [9, 9, 5, 5, 5, 5]


def test_pfgen_judge_sends_the_users_max_tokens(tmp_path: Path, hyoka_env: None) -> None:
    published = "CohereForAI/c4ai-command-r-plus/0171fdc"
    run = tmp_path / "results" / published
    shutil.copytree(PFGEN_RESULTS / published, run)
    with ReplayJudge({}, missing_reply="Rating: [[7]]") as server:
        result = _invoke("pfgen", "judge", str(run), "-j", "openai/judge", "--base-url",
                         server.base_url, "--no-cache", "--per-question", "1", "--limit", "2",
                         "--max-tokens", "33")  # fmt: skip
        assert result.exit_code == 0, result.output
        assert _budgets(server) == [33, 33]


def test_mtbench_commands_send_the_users_max_tokens(tmp_path: Path, hyoka_env: None) -> None:
    published = SHARED_DATA / "pfmt-bench-fin-ja" / "model_answer"
    with ReplayJudge({}, missing_reply="評価: [[7]] [[A]]") as server:
        url = ["--base-url", server.base_url, "--no-cache", "--limit", "1"]
        # pfmt's rating rules ask for 2048 tokens only when the user gives no budget
        judge = ["mtbench", "judge", "-j", "openai/judge", *url, "--lang-check", "script",
                 "--max-tokens", "99", "--output-dir", str(tmp_path / "judged")]  # fmt: skip
        single = _invoke(*judge, "-a", str(published / "gpt-4.jsonl"))
        assert single.exit_code == 0, single.output
        assert _budgets(server) == [99, 99]
        server.received.clear()
        both = ["-a", str(published / "gpt-4.jsonl"), "-a", str(published / "gpt-4o.jsonl")]
        pairs = _invoke(*judge, "--mode", "pairwise", "--method", "bs2", *both)
        assert pairs.exit_code == 0, pairs.output
        assert _budgets(server) == [99] * 4  # two turns, both orders
        server.received.clear()
        out = ["--results-dir", str(tmp_path / "answers")]
        generated = _invoke("mtbench", "generate", "-m", "openai/model", *url,
                            "--max-tokens", "55", *out)  # fmt: skip
        assert generated.exit_code == 0, generated.output
        assert _budgets(server) == [55, 55]


def test_pfgen_generate_sends_the_users_max_tokens(tmp_path: Path, hyoka_env: None) -> None:
    with ReplayJudge({}, missing_reply="東京です。") as server:
        result = _invoke("pfgen", "generate", "-m", "openai/model", "--base-url",
                         server.base_url, "--no-cache", "--limit", "2", "--trials", "1",
                         "--max-tokens", "21", "--results-dir", str(tmp_path))  # fmt: skip
        assert result.exit_code == 0, result.output
        assert _budgets(server) == [21, 21]


# --- transformers: a cut inside a character leaves no replacement character ----------------


def test_hf_replies_cut_by_max_tokens_end_in_whole_characters(tmp_path: Path) -> None:
    needs("torch")
    needs("transformers")
    from test_hf_provider import CHAT_TEMPLATE, _save_model

    provider = load_provider(f"hf/{_save_model(tmp_path, CHAT_TEMPLATE)}")
    cut = 0
    for seed in range(12):
        for budget in (1, 2, 3):
            request = GenerationRequest(
                prompt="吾輩は",
                params=SamplingParams(temperature=1.0, max_tokens=budget, seed=seed),
            )
            response = asyncio.run(provider.generate(request))
            (choice,) = response.choices
            assert response.usage.completion_tokens <= budget
            if choice.finish_reason == "length":
                cut += 1
                assert not choice.text.endswith("\ufffd"), (seed, budget, choice.text)
    assert cut > 0
