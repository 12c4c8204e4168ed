"""``OpenAIProvider`` against a real OpenAI-compatible server: llama.cpp on SmolLM2-135M.

The server is ``llama_cpp.server`` in a subprocess, one for the whole session (conftest.py's
``llama_base_url``). Requests go through ``load_provider("openai/smollm2", base_url=...)`` and
``ModelClient`` as a user's would. Generations are a few tokens each, to stay quick on two CPU
cores.
"""

from __future__ import annotations

import asyncio
import math
import socket
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import pytest

from _shared import needs
from hyoka.providers import (
    Choice,
    GenerationRequest,
    GenerationResponse,
    Message,
    ModelClient,
    ProviderError,
    ResponseCache,
    RetryPolicy,
    SamplingParams,
    TransientError,
    load_provider,
)

needs("openai")
from hyoka.providers.openai_backend import OpenAIProvider  # noqa: E402

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


@pytest.fixture
def server(llama_base_url: str) -> str:
    """The session's llama.cpp server (conftest.py)."""
    return llama_base_url


def chat(text: str, **params: Any) -> GenerationRequest:
    return GenerationRequest(
        messages=(Message(role="user", content=text),), params=SamplingParams(**params)
    )


def prompt(text: str, **params: Any) -> GenerationRequest:
    return GenerationRequest(prompt=text, params=SamplingParams(**params))


async def ask(base_url: str, *requests: GenerationRequest, **client: Any) -> list[Any]:
    provider = load_provider("openai/smollm2", base_url=base_url)
    assert isinstance(provider, OpenAIProvider)
    async with ModelClient(provider, retry=RetryPolicy(max_attempts=2), **client) as c:
        return [await c.generate(request) for request in requests]


def test_chat(server: str) -> None:
    (response,) = run(ask(server, chat("What is the capital of France?", max_tokens=12)))
    assert isinstance(response, GenerationResponse)
    assert response.text.strip()
    assert response.choices[0].finish_reason in {"stop", "length"}
    assert response.usage.prompt_tokens > 5
    assert 0 < response.usage.completion_tokens <= 12
    assert response.choices[0].logprobs is None
    assert not response.cached


def test_raw_completion(server: str) -> None:
    (response,) = run(ask(server, prompt("The capital of France is", max_tokens=4, temperature=0)))
    assert "Paris" in response.text
    assert response.usage.completion_tokens <= 4


def test_stop_strings_are_honoured(server: str) -> None:
    counting = prompt("1, 2, 3, 4, 5,", max_tokens=16, temperature=0, stop=(" 8",))
    talking = chat("Say hello to me.", max_tokens=16, temperature=0, stop=(" ",))
    raw, answer = run(ask(server, counting, talking))
    assert raw.text.startswith(" 6, 7,")
    assert "8" not in raw.text
    assert raw.choices[0].finish_reason == "stop"
    assert answer.text
    assert " " not in answer.text
    assert answer.choices[0].finish_reason == "stop"


def test_same_seed_same_text_at_temperature_one(server: str) -> None:
    # llama.cpp reuses its KV cache between requests, and a seeded draw there depends on
    # whether the prompt was evaluated afresh: put both draws after the same other request.
    other = prompt("Zebras live in", max_tokens=1)
    seeded = chat("Write a short poem about the sea.", max_tokens=16, temperature=1.0, seed=1234)
    _, first, _, second = run(ask(server, other, seeded, other, seeded))
    assert first.text
    assert first.text == second.text


# llama.cpp's server applies repeat_penalty=1.1 unless told otherwise (sent via extra_body)
GREEDY_TOP20: dict[str, Any] = {
    "temperature": 0.0,
    "repetition_penalty": 1.0,
    "logprobs": True,
    "top_logprobs": 20,
}


def _check_top_logprobs(choice: Choice, k: int) -> None:
    assert choice.logprobs is not None
    assert choice.logprobs  # one entry per generated token
    full = 0
    for token in choice.logprobs:
        assert token.logprob <= 0.0
        assert 1 <= len(token.top) <= k
        values = [alt.logprob for alt in token.top]
        assert all(v <= 0.0 and math.isfinite(v) for v in values)
        assert values == sorted(values, reverse=True)
        # greedy decoding without a repetition penalty: the chosen token is the likeliest
        assert token.top[0].token == token.token
        assert token.top[0].logprob == pytest.approx(token.logprob, abs=1e-4)
        # the probabilities of the alternatives cannot sum past one
        assert sum(math.exp(v) for v in values) <= 1.0 + 1e-3
        full += len(token.top) == k
    # llama.cpp keys alternatives by their text, so tokens that decode alike collapse
    # into one: most positions still show all k
    assert full >= len(choice.logprobs) / 2


def test_chat_top20_logprobs(server: str) -> None:
    request = chat("Name a primary color.", max_tokens=6, **GREEDY_TOP20)
    (response,) = run(ask(server, request))
    _check_top_logprobs(response.choices[0], 20)


def test_completion_top20_logprobs(server: str) -> None:
    request = prompt("The capital of France is", max_tokens=8, **GREEDY_TOP20)
    (response,) = run(ask(server, request))
    choice = response.choices[0]
    _check_top_logprobs(choice, 20)
    assert choice.logprobs is not None
    assert "".join(t.token for t in choice.logprobs) == choice.text


def test_server_refusal_is_a_provider_error_not_retried(server: str) -> None:
    too_long = prompt("word " * 3000, max_tokens=4)

    async def go() -> None:
        provider = load_provider("openai/smollm2", base_url=server)
        async with ModelClient(provider) as client:
            with pytest.raises(ProviderError, match=r"HTTP 400.*context") as info:
                await client.generate(too_long)
            assert not isinstance(info.value, TransientError)
            assert client.stats.requests == 1
            assert client.stats.retries == 0

    run(go())


def test_cache_with_a_real_server_holds_no_key(
    server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sentinel = "sk-SENTINEL-fedcba9876543210"
    monkeypatch.setenv("OPENAI_API_KEY", sentinel)  # sent to the server, which ignores it
    request = chat("Say hi.", max_tokens=4, temperature=0)
    first, second = run(ask(server, request, request, cache=ResponseCache(tmp_path)))
    assert not first.cached
    assert second.cached
    assert second.text == first.text
    for path in tmp_path.iterdir():
        assert sentinel.encode() not in path.read_bytes(), path


def test_a_refused_base_url_fails_at_once() -> None:
    async def go() -> None:
        provider = load_provider("openai/smollm2", base_url="http://127.0.0.1:9/v1")
        policy = RetryPolicy(max_attempts=3, base_delay=0.01)
        async with ModelClient(provider, retry=policy) as client:
            with pytest.raises(ProviderError, match=r"cannot connect to http://127.0.0.1:9/v1"):
                await client.generate(chat("hi", max_tokens=1))
            assert (client.stats.requests, client.stats.retries) == (0, 0)

    run(go())


def test_a_server_gone_after_the_start_is_retried() -> None:
    """Refusals after the preflight passed are transient: the server may be restarting."""

    async def go() -> None:
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        provider = load_provider(
            "openai/smollm2", base_url=f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
        )
        policy = RetryPolicy(max_attempts=2, base_delay=0.01)
        async with ModelClient(provider, retry=policy) as client:
            await client.check_reachable()
            listener.close()
            with pytest.raises(ProviderError, match=r"connection failed.*gave up after 2"):
                await client.generate(chat("hi", max_tokens=1))
            assert client.stats.retries == 1

    run(go())


# --------------------------------------------------------------------------- no server


def test_missing_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ProviderError, match="OPENAI_API_KEY"):
        load_provider("openai/gpt-4o-mini")
    monkeypatch.delenv("AZURE_OPENAI_API_KEY", raising=False)
    with pytest.raises(ProviderError, match="AZURE_OPENAI_API_KEY"):
        load_provider(
            "openai/my-deployment",
            azure_endpoint="https://example.openai.azure.com",
            api_version="2024-10-21",
        )


def test_request_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env-0123456789")
    official = load_provider("openai/gpt-4o-mini")
    local = load_provider("openai/m", base_url="http://127.0.0.1:1/v1")
    assert isinstance(official, OpenAIProvider)
    assert isinstance(local, OpenAIProvider)
    request = chat(
        "hi", max_tokens=5, top_k=40, repetition_penalty=1.1, logprobs=True, top_logprobs=3
    )
    args = official._chat_args(request)
    assert args["max_completion_tokens"] == 5
    assert "max_tokens" not in args
    assert args["extra_body"] == {"top_k": 40, "repetition_penalty": 1.1, "repeat_penalty": 1.1}
    assert args["logprobs"] is True
    assert args["top_logprobs"] == 3
    assert local._chat_args(request)["max_tokens"] == 5
    plain = local._chat_args(chat("hi"))
    assert set(plain) == {"model", "messages"}  # unset parameters are the server's defaults
    raw = local._completion_args(prompt("x", logprobs=True, top_logprobs=5, stop=("\n",)))
    assert raw["logprobs"] == 5
    assert raw["stop"] == ["\n"]


@pytest.mark.parametrize("kind", ["chat", "completion"])
def test_the_body_posted_is_the_one_the_sdks_create_sends(kind: str) -> None:
    """hyoka posts its body through the SDK's client without ``create``'s parameter
    transform (0.3 ms of CPU a call): with every sampling parameter set, the server gets
    the same JSON as ``create`` would send it, with the same path and key."""
    import openai

    from wire_servers import OpenAIServer

    params: dict[str, Any] = {
        "temperature": 0.7, "top_p": 0.9, "top_k": 40, "max_tokens": 16, "stop": ("\n\n",),
        "seed": 7, "repetition_penalty": 1.1, "logprobs": True, "top_logprobs": 2,
        "frequency_penalty": 0.5,
    }  # fmt: skip
    if kind == "chat":
        request = GenerationRequest(
            messages=(Message(role="system", content="判定せよ。"),
                      Message(role="user", content="東京は？ \"引用\"\n")),
            params=SamplingParams(**params), n=2,
        )  # fmt: skip
    else:
        request = GenerationRequest(prompt="日本の首都は", params=SamplingParams(**params))
    key = "sk-body-test-0123456789"
    with OpenAIServer(api_key=key) as server, pytest.MonkeyPatch.context() as env:
        env.setenv("OPENAI_API_KEY", key)
        provider = load_provider("openai/body-model", base_url=server.base_url)
        assert isinstance(provider, OpenAIProvider)

        async def both() -> None:
            await provider.generate(request)
            sdk = openai.AsyncOpenAI(api_key=key, base_url=server.base_url, max_retries=0)
            if kind == "chat":
                await sdk.chat.completions.create(**provider._chat_args(request))
            else:
                await sdk.completions.create(**provider._completion_args(request))
            await sdk.close()
            await provider.aclose()

        run(both())
        ours, sdks = server.received
    assert (
        ours.path == sdks.path == ("/v1/chat/completions" if kind == "chat" else "/v1/completions")
    )
    assert ours.body == sdks.body
    assert ours.headers["authorization"] == sdks.headers["authorization"] == f"Bearer {key}"
