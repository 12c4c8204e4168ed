"""The llama.cpp backend on the real embedded model, SmolLM2-135M-Instruct (a GGUF on PyPI).

One provider is loaded for the module; every request asks for a few tokens only, so the
file runs in seconds on a CPU.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import llama_cpp
import pytest

from _shared import needs, needs_embedded_model
from hyoka.providers import (
    GenerationRequest,
    Message,
    ProviderError,
    SamplingParams,
    load_provider,
)
from hyoka.providers.embedded import EMBEDDED_MODEL
from hyoka.providers.llamacpp_backend import LlamaCppProvider

needs("llama_cpp")

T = TypeVar("T")


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


@pytest.fixture(scope="module")
def provider() -> LlamaCppProvider:
    needs_embedded_model()
    loaded = load_provider(EMBEDDED_MODEL, n_ctx=2048)
    assert isinstance(loaded, LlamaCppProvider)
    return loaded


def _prompt(text: str, **params: Any) -> GenerationRequest:
    return GenerationRequest(prompt=text, params=SamplingParams(**params))


def _chat(text: str, **params: Any) -> GenerationRequest:
    return GenerationRequest(
        messages=(Message(role="user", content=text),), params=SamplingParams(**params)
    )


def test_chat_and_raw_completion_give_text(provider: LlamaCppProvider) -> None:
    chat = run(provider.generate(_chat("What is the capital of France?", max_tokens=12)))
    assert chat.text.strip()
    assert chat.usage.prompt_tokens > 10  # the chat template's system prompt and markers
    assert 0 < chat.usage.completion_tokens <= 12
    assert chat.choices[0].finish_reason in {"stop", "length"}
    assert chat.model == "smollm2"

    raw = run(provider.generate(_prompt("The capital of France is", temperature=0, max_tokens=8)))
    assert raw.text.strip()
    assert raw.usage.prompt_tokens == 5
    assert raw.usage.completion_tokens == 8
    assert raw.choices[0].finish_reason == "length"


def test_stop_strings_are_honoured(provider: LlamaCppProvider) -> None:
    prompt = "Here is a list of fruits: apple, banana,"
    free = run(provider.generate(_prompt(prompt, temperature=0, max_tokens=24))).text
    words = free.split()
    assert len(words) >= 3, free
    stop = words[2]
    stopped = run(provider.generate(_prompt(prompt, temperature=0, max_tokens=24, stop=(stop,))))
    assert stopped.text == free[: free.index(stop)]
    assert stopped.choices[0].finish_reason == "stop"


def test_seeds_reproduce_and_differ(provider: LlamaCppProvider) -> None:
    def sample(seed: int) -> str:
        request = _chat("Write one sentence about cats.", temperature=1.0, max_tokens=16, seed=seed)
        return run(provider.generate(request)).text

    assert sample(11) == sample(11)
    assert len({sample(seed) for seed in (1, 2, 3)}) > 1

    # n samples: seed, seed + 1, ... so they differ and come back the same
    request = GenerationRequest(
        prompt="Once upon a time",
        n=3,
        params=SamplingParams(temperature=1.0, max_tokens=10, seed=5),
    )
    first = run(provider.generate(request))
    assert len(first.choices) == 3
    assert len({choice.text for choice in first.choices}) > 1
    assert first.choices == run(provider.generate(request)).choices
    greedy = GenerationRequest(
        prompt="Once", n=2, params=SamplingParams(temperature=0, max_tokens=4)
    )
    twice = run(provider.generate(greedy))
    assert len(twice.choices) == 2
    assert twice.choices[0] == twice.choices[1]
    assert first.usage.completion_tokens == sum(
        run(
            provider.generate(_prompt("Once upon a time", temperature=1.0, max_tokens=10, seed=s))
        ).usage.completion_tokens
        for s in (5, 6, 7)
    )


@pytest.mark.parametrize("chat", [False, True], ids=["completion", "chat"])
def test_top_20_logprobs(provider: LlamaCppProvider, chat: bool) -> None:
    make = _chat if chat else _prompt
    request = make("日本の首都は", temperature=0, max_tokens=6, logprobs=True, top_logprobs=20)
    response = run(provider.generate(request))
    logprobs = response.choices[0].logprobs
    assert logprobs is not None
    assert len(logprobs) == response.usage.completion_tokens
    for entry in logprobs:
        assert entry.logprob <= 0
        assert len(entry.top) == 20
        values = [top.logprob for top in entry.top]
        assert all(value <= 0 for value in values)
        assert values == sorted(values, reverse=True)
        # greedy: the chosen token is the most likely one; alternatives are distinct
        assert entry.token == entry.top[0].token
        assert entry.logprob == pytest.approx(values[0])
        assert len({top.token for top in entry.top}) == 20
    # the alternatives of a token sum to at most probability one
    assert sum(2.718281828**top.logprob for top in logprobs[0].top) <= 1.0 + 1e-6

    no_logprobs = run(provider.generate(make("日本の首都は", temperature=0, max_tokens=6)))
    assert no_logprobs.choices[0].logprobs is None
    assert no_logprobs.text == response.text


def test_concurrent_requests_are_serialised(
    provider: LlamaCppProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm = provider._load()
    original = llm.create_completion
    active: list[int] = [0]
    most: list[int] = [0]

    def create_completion(*args: Any, **kwargs: Any) -> Any:
        active[0] += 1
        most[0] = max(most[0], active[0])
        try:
            time.sleep(0.05)  # widen the window in which an overlap would show
            return original(*args, **kwargs)
        finally:
            active[0] -= 1

    monkeypatch.setattr(llm, "create_completion", create_completion)
    prompts = ["One", "Two", "Three", "Four"]

    async def together() -> list[str]:
        responses = await asyncio.gather(
            *(provider.generate(_prompt(text, temperature=0, max_tokens=6)) for text in prompts)
        )
        return [response.text for response in responses]

    texts = run(together())
    assert most[0] == 1
    alone = [
        run(provider.generate(_prompt(text, temperature=0, max_tokens=6))).text for text in prompts
    ]
    assert texts == alone


def test_bad_paths_are_provider_errors(tmp_path: Path) -> None:
    missing = tmp_path / "missing.gguf"
    with pytest.raises(ProviderError, match=r"missing\.gguf.*does not exist"):
        load_provider(f"llamacpp/{missing}")
    not_gguf = tmp_path / "weights.bin"
    not_gguf.write_bytes(b"PK\x03\x04 not a gguf file")
    with pytest.raises(ProviderError, match=r"weights\.bin.*not a GGUF"):
        load_provider(f"llamacpp/{not_gguf}")
    with pytest.raises(ProviderError, match="is a folder"):
        load_provider(f"llamacpp/{tmp_path}")
    with pytest.raises(ProviderError, match="in this process"):
        load_provider(EMBEDDED_MODEL, base_url="http://localhost:8080")


def test_gguf_without_chat_template_cannot_chat(
    provider: LlamaCppProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    # as if the file had no template (llama-cpp-python would fall back to Llama 2's format)
    provider._load()
    monkeypatch.setattr(provider, "_formatter", None)
    with pytest.raises(ProviderError, match="cannot do chat"):
        run(provider.generate(_chat("hi", max_tokens=1)))
    assert run(provider.generate(_prompt("hi", max_tokens=1))).usage.completion_tokens == 1


def test_chat_prompt_matches_create_chat_completion(provider: LlamaCppProvider) -> None:
    messages = [
        {"role": "system", "content": "あなたは親切なアシスタントです。"},
        {"role": "user", "content": "日本の首都はどこですか?"},
    ]
    request = GenerationRequest(
        messages=tuple(Message.model_validate(message) for message in messages),
        params=SamplingParams(temperature=0, max_tokens=8),
    )
    ours = run(provider.generate(request))
    llm = provider._load()
    chat_messages: Any = messages
    theirs: Any = llm.create_chat_completion(chat_messages, temperature=0, max_tokens=8)
    assert ours.usage.prompt_tokens == theirs["usage"]["prompt_tokens"]


def test_seeded_text_does_not_depend_on_earlier_requests(provider: LlamaCppProvider) -> None:
    # A prompt of about 620 tokens: a fresh start evaluates 512 + about 110 tokens. With
    # llama-cpp-python's own prefix reuse, the same request again evaluates only its last
    # token, alone, and its logprobs move by about 0.1 (the text too, now and then).
    llm = provider._load()
    shot = "Q: Name a fruit.\nA: apple\n"
    few_shot = shot * (620 // len(llm.tokenize(shot.encode(), add_bos=False)))
    params = SamplingParams(temperature=1.0, max_tokens=6, seed=3, logprobs=True)
    first = GenerationRequest(prompt=few_shot + "Q: Name a colour.\nA:", params=params)
    other = GenerationRequest(prompt=few_shot + "Q: Name an animal.\nA:", params=params)
    assert len(llm.tokenize(few_shot.encode())) > llm.n_batch + 64
    choices = []
    for request in (first, first, other, first):
        choices.append(run(provider.generate(request)).choices[0])
        assert llm.n_tokens > llm.n_batch  # the state is kept between requests
    assert choices[0] == choices[1] == choices[3]


def test_a_prompt_asked_again_is_not_evaluated_again_and_replies_the_same(
    provider: LlamaCppProvider,
) -> None:
    """Every seed or sample of a prompt shorter than a batch evaluated it again in full;
    its evaluated state is now kept and resumed, and the reply is bit for bit that of a
    fresh start whatever came before: the same seeded request (a) in a new provider, (b)
    after the same prompt with another seed, (c) after a different prompt."""
    params = SamplingParams(temperature=1.0, max_tokens=6, seed=7, logprobs=True, top_logprobs=3)
    asked = _chat("Name three rivers of Japan.", **params.model_dump())
    other_seed = _chat("Name three rivers of Japan.", **{**params.model_dump(), "seed": 8})
    other_prompt = _chat("Name three mountains of Japan.", **params.model_dump())
    llm = provider._load()

    def prompt_tokens_evaluated(request: GenerationRequest) -> tuple[int, Any]:
        before = llama_cpp.llama_perf_context(llm.ctx).n_p_eval
        choice = run(provider.generate(request)).choices[0]
        return llama_cpp.llama_perf_context(llm.ctx).n_p_eval - before, choice

    fresh = load_provider(EMBEDDED_MODEL, n_ctx=2048)
    expected = run(fresh.generate(asked)).choices[0]  # (a)
    run(fresh.aclose())
    assert expected.logprobs is not None and len(expected.logprobs) == 6
    evaluated, _ = prompt_tokens_evaluated(other_seed)
    assert evaluated > 20  # the chat template's system prompt, the question, the markers
    assert prompt_tokens_evaluated(asked) == (0, expected)  # (b): resumed, and the same
    assert prompt_tokens_evaluated(other_prompt)[0] > 20
    assert prompt_tokens_evaluated(asked) == (0, expected)  # (c)


def test_broken_gguf_fails_at_load(tmp_path: Path) -> None:
    # the magic bytes pass the path check; llama.cpp then refuses the file
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + b"\x00" * 64)
    provider = load_provider(f"llamacpp/{broken}")
    with pytest.raises(ProviderError, match=r"could not load.*broken\.gguf"):
        run(provider.generate(_prompt("hi", max_tokens=1)))


def test_llama_cpp_threads_sleep_when_idle_unless_the_user_says() -> None:
    """llama.cpp's OpenMP threads spin between tokens by default, burning the cores its own
    sampling needs (on a busy 2-core machine, 20 tokens took 36.6 s instead of 1.6 s):
    loading the backend makes them sleep, where the user set no OMP_WAIT_POLICY."""
    import os
    import subprocess
    import sys

    code = "import os, hyoka.providers.llamacpp_backend; print(os.environ['OMP_WAIT_POLICY'])"
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    shown = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert shown.stdout.strip() == "PASSIVE", shown.stderr
