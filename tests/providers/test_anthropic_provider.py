"""The anthropic backend against a local server speaking the Messages API on the wire.

Each test runs the real ``anthropic`` SDK through ``AnthropicProvider`` to
``tests/wire_servers.AnthropicServer`` and checks what went out (the JSON body, the
headers) and what came back (text, finish reason, usage, errors).
"""

from __future__ import annotations

import asyncio
import gc
import time
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

from _shared import needs
from hyoka.providers.errors import ProviderError, RateLimitError, TransientError
from hyoka.providers.types import (
    GenerationRequest,
    GenerationResponse,
    Message,
    Role,
    SamplingParams,
)
from wire_servers import AnthropicServer, Reply, anthropic_error, anthropic_message, closed_port_url

needs("anthropic")
from hyoka.providers.anthropic_backend import DEFAULT_MAX_TOKENS, AnthropicProvider  # noqa: E402

API_KEY = "sk-ant-test-5ecret-KEY-0123456789"
MODEL = "claude-test-1"


def chat(*turns: tuple[Role, str], n: int = 1, **params: Any) -> GenerationRequest:
    return GenerationRequest(
        messages=tuple(Message(role=role, content=text) for role, text in turns),
        params=SamplingParams(**params),
        n=n,
    )


def generate(provider: AnthropicProvider, request: GenerationRequest) -> GenerationResponse:
    return asyncio.run(provider.generate(request))


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No settings of the developer's shell reach the SDK."""
    for name in ("ANTHROPIC_CUSTOM_HEADERS", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def running_server() -> Iterator[AnthropicServer]:
    with AnthropicServer(api_key=API_KEY) as running:
        yield running


@pytest.fixture
def server(running_server: AnthropicServer) -> AnthropicServer:
    running_server.reset()
    return running_server


@pytest.fixture(scope="module")
def shared_provider(running_server: AnthropicServer) -> Iterator[AnthropicProvider]:
    """One provider for the module, so the CA store is loaded once, not per test."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("ANTHROPIC_API_KEY", API_KEY)
        made = AnthropicProvider(MODEL, base_url=running_server.base_url, timeout=5)
    yield made
    asyncio.run(made.aclose())


@pytest.fixture
def provider(shared_provider: AnthropicProvider, server: AnthropicServer) -> AnthropicProvider:
    return shared_provider


# --- the request on the wire ---------------------------------------------------------------


def test_request_body_maps_every_supported_field(
    provider: AnthropicProvider, server: AnthropicServer
) -> None:
    request = chat(
        ("system", "あなたは日本語の先生です。"),
        ("user", "「猫」の読みは？"),
        ("assistant", "「ねこ」です。"),
        ("user", "では「犬」は？"),
        temperature=0.3,
        top_p=0.9,
        top_k=40,
        max_tokens=256,
        stop=("\n\n", "。"),
    )
    generate(provider, request)

    [received] = server.received
    assert received.method == "POST"
    assert received.path == "/v1/messages"
    assert "anthropic-version" in received.headers
    assert received.body == {
        "model": MODEL,
        "max_tokens": 256,
        "system": "あなたは日本語の先生です。",
        "messages": [
            {"role": "user", "content": "「猫」の読みは？"},
            {"role": "assistant", "content": "「ねこ」です。"},
            {"role": "user", "content": "では「犬」は？"},
        ],
        "stop_sequences": ["\n\n", "。"],
        "temperature": 0.3,
        "top_p": 0.9,
        "top_k": 40,
    }


def test_unset_fields_are_left_out_and_max_tokens_has_a_default(
    provider: AnthropicProvider, server: AnthropicServer
) -> None:
    generate(provider, chat(("user", "こんにちは")))

    assert server.received[0].body == {
        "model": MODEL,
        "max_tokens": DEFAULT_MAX_TOKENS,
        "messages": [{"role": "user", "content": "こんにちは"}],
    }
    assert DEFAULT_MAX_TOKENS == 1024


def test_a_large_max_tokens_is_sent_as_asked(
    provider: AnthropicProvider, server: AnthropicServer
) -> None:
    # the SDK refuses such a call unless streaming, when left to its default timeout
    generate(provider, chat(("user", "長い物語を"), max_tokens=64_000))

    assert server.received[0].body["max_tokens"] == 64_000


def test_all_system_messages_go_to_the_system_parameter(
    provider: AnthropicProvider, server: AnthropicServer
) -> None:
    generate(
        provider,
        chat(("system", "丁寧に。"), ("user", "質問"), ("system", "短く。"), ("user", "続き")),
    )

    body = server.received[0].body
    assert body["system"] == "丁寧に。\n\n短く。"
    assert [m["role"] for m in body["messages"]] == ["user", "user"]


def test_seed_is_ignored_not_sent(provider: AnthropicProvider, server: AnthropicServer) -> None:
    generate(provider, chat(("user", "x"), seed=1234, temperature=0.0))

    assert "seed" not in server.received[0].body
    assert server.received[0].body["temperature"] == 0.0


# --- the response ----------------------------------------------------------------------------


def test_response_text_finish_reason_usage_and_model(
    provider: AnthropicProvider, server: AnthropicServer
) -> None:
    server.script(
        Reply(
            200,
            anthropic_message(
                "吾輩は猫である。",
                model="claude-test-1-20260101",
                stop_reason="max_tokens",
                input_tokens=21,
                output_tokens=8,
            ),
        )
    )

    response = generate(provider, chat(("user", "書き出しは？")))

    assert response.text == "吾輩は猫である。"
    assert response.choices[0].finish_reason == "length"
    assert response.choices[0].logprobs is None
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (21, 8)
    assert response.model == "claude-test-1-20260101"


def test_text_blocks_are_joined_and_other_blocks_skipped(
    provider: AnthropicProvider, server: AnthropicServer
) -> None:
    body = anthropic_message("前半")
    body["content"] = [
        {"type": "thinking", "thinking": "考え中", "signature": "sig"},
        {"type": "text", "text": "前半、"},
        {"type": "text", "text": "後半。"},
    ]
    server.script(Reply(200, body))

    assert generate(provider, chat(("user", "x"))).text == "前半、後半。"


@pytest.mark.parametrize(
    ("stop_reason", "finish_reason"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("refusal", "content_filter"),
        ("pause_turn", "pause_turn"),
    ],
)
def test_stop_reasons_are_normalised(
    provider: AnthropicProvider, server: AnthropicServer, stop_reason: str, finish_reason: str
) -> None:
    server.script(Reply(200, anthropic_message("x", stop_reason=stop_reason)))

    assert generate(provider, chat(("user", "x"))).choices[0].finish_reason == finish_reason


def test_n_samples_are_sequential_calls_with_summed_usage(
    provider: AnthropicProvider, server: AnthropicServer
) -> None:
    response = generate(provider, chat(("user", "俳句を"), n=3, temperature=1.0))

    assert len(server.received) == 3
    assert all(r.body == server.received[0].body for r in server.received)
    assert "n" not in server.received[0].body
    texts = [c.text for c in response.choices]
    assert texts == ["応答1: 俳句を", "応答2: 俳句を", "応答3: 俳句を"]
    assert response.usage.prompt_tokens == 11 + 12 + 13
    assert response.usage.completion_tokens == sum(len(t) for t in texts)


def test_one_provider_serves_several_event_loops(
    provider: AnthropicProvider, server: AnthropicServer
) -> None:
    # the first loop leaves a pooled connection that the second must not touch
    server.keep_alive = True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        first = asyncio.run(provider.generate(chat(("user", "一"))))
        second = asyncio.run(provider.generate(chat(("user", "二"))))
        asyncio.run(provider.aclose())
        gc.collect()  # the first loop's connection is dropped unclosed here, by design

    assert (first.text, second.text) == ("応答1: 一", "応答2: 二")


def test_aclose_releases_the_client_and_a_later_call_makes_a_new_one(
    provider: AnthropicProvider,
) -> None:
    async def use_close_use() -> tuple[str, str]:
        first = (await provider.generate(chat(("user", "x")))).text
        await provider.aclose()
        return first, (await provider.generate(chat(("user", "y")))).text

    assert asyncio.run(use_close_use()) == ("応答1: x", "応答2: y")


# --- errors ----------------------------------------------------------------------------------


def test_429_is_a_rate_limit_with_the_retry_after_hint(
    provider: AnthropicProvider, server: AnthropicServer
) -> None:
    server.script(
        Reply(
            429,
            anthropic_error("rate_limit_error", "Number of request tokens has exceeded your limit"),
            headers={"retry-after": "7"},
        )
    )

    with pytest.raises(RateLimitError) as caught:
        generate(provider, chat(("user", "x")))

    assert caught.value.retry_after == 7.0
    assert "HTTP 429" in str(caught.value)
    assert "Number of request tokens has exceeded your limit" in str(caught.value)
    assert len(server.received) == 1  # the SDK itself does not retry


def test_retry_after_ms_is_read_in_milliseconds(
    provider: AnthropicProvider, server: AnthropicServer
) -> None:
    server.script(
        Reply(
            429,
            anthropic_error("rate_limit_error", "slow down"),
            headers={"retry-after-ms": "1500", "retry-after": "2"},
        )
    )

    with pytest.raises(RateLimitError) as caught:
        generate(provider, chat(("user", "x")))

    assert caught.value.retry_after == 1.5


@pytest.mark.parametrize(
    ("status", "error_type", "text"),
    [
        (529, "overloaded_error", "Overloaded"),
        (500, "api_error", "Internal server error"),
        (503, "api_error", "Service unavailable"),
        (408, "timeout_error", "Request timed out"),
    ],
)
def test_server_side_failures_are_transient(
    provider: AnthropicProvider, server: AnthropicServer, status: int, error_type: str, text: str
) -> None:
    server.script(Reply(status, anthropic_error(error_type, text)))

    with pytest.raises(TransientError) as caught:
        generate(provider, chat(("user", "x")))

    assert not isinstance(caught.value, RateLimitError)
    assert f"HTTP {status} {error_type}: {text}" in str(caught.value)
    assert len(server.received) == 1


@pytest.mark.parametrize(
    ("status", "error_type", "text"),
    [
        (400, "invalid_request_error", "temperature: range: 0..1"),
        (404, "not_found_error", "model: claude-nope"),
        (413, "request_too_large", "Request exceeds the maximum allowed number of bytes."),
    ],
)
def test_client_errors_fail_for_good_with_the_api_message(
    provider: AnthropicProvider, server: AnthropicServer, status: int, error_type: str, text: str
) -> None:
    server.script(Reply(status, anthropic_error(error_type, text)))

    with pytest.raises(ProviderError) as caught:
        generate(provider, chat(("user", "x")))

    assert not isinstance(caught.value, TransientError)
    assert str(caught.value) == f"anthropic/{MODEL}: HTTP {status} {error_type}: {text}"


def test_the_servers_own_validation_error_comes_through(
    provider: AnthropicProvider, server: AnthropicServer
) -> None:
    server.script(Reply(400, anthropic_error("invalid_request_error", "max_tokens: too large")))

    with pytest.raises(ProviderError, match=r"HTTP 400 invalid_request_error: max_tokens"):
        generate(provider, chat(("user", "x"), max_tokens=10**6))


def test_a_wrong_key_is_a_permanent_authentication_error(
    server: AnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-wrong-key-999")
    provider = AnthropicProvider(MODEL, base_url=server.base_url)

    with pytest.raises(ProviderError) as caught:
        generate(provider, chat(("user", "x")))

    assert not isinstance(caught.value, TransientError)
    assert "HTTP 401 authentication_error" in str(caught.value)
    assert "sk-ant-wrong-key-999" not in str(caught.value)


def test_a_timeout_is_transient(server: AnthropicServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    provider = AnthropicProvider(MODEL, base_url=server.base_url, timeout=1.0)
    server.script(Reply(200, anthropic_message("late"), delay_s=6.0))

    started = time.monotonic()
    with pytest.raises(TransientError, match="timeout"):
        generate(provider, chat(("user", "x")))

    # the reply is held 6 s: a client that gave up well before it did not wait for it
    # (wide margins, so a loaded machine cannot send the request after the timeout)
    assert time.monotonic() - started < 5.0
    assert len(server.received) == 1


def test_a_refused_connection_is_transient(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    provider = AnthropicProvider(MODEL, base_url=closed_port_url(), timeout=5)

    with pytest.raises(TransientError, match="connection failed"):
        generate(provider, chat(("user", "x")))


@pytest.mark.parametrize(
    "reply",
    [
        Reply(200, b"<html>upstream gone</html>"),
        Reply(200, b"upstream gone", content_type="text/plain"),
        Reply(200, {"unexpected": True}),
        Reply(200, {"type": "message", "content": "not a list", "usage": None}),
    ],
    ids=["bad-json", "not-json", "wrong-object", "wrong-fields"],
)
def test_a_garbled_body_is_transient(
    provider: AnthropicProvider, server: AnthropicServer, reply: Reply
) -> None:
    server.script(reply)

    with pytest.raises(TransientError):
        generate(provider, chat(("user", "x")))


# --- the API key -----------------------------------------------------------------------------


def test_the_key_travels_only_in_the_auth_header(
    provider: AnthropicProvider, server: AnthropicServer
) -> None:
    generate(provider, chat(("user", "x"), temperature=0.5))

    [received] = server.received
    carrying = {name: value for name, value in received.headers.items() if API_KEY in value}
    # the SDK sends the key as x-api-key or as a bearer token, depending on its version
    assert carrying in ({"x-api-key": API_KEY}, {"authorization": f"Bearer {API_KEY}"})
    assert API_KEY.encode() not in received.raw
    assert API_KEY not in received.path
    assert not received.query


def test_a_missing_key_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ProviderError, match="ANTHROPIC_API_KEY"):
        AnthropicProvider(MODEL)

    monkeypatch.setenv("ANTHROPIC_API_KEY", "   ")
    with pytest.raises(ProviderError, match="ANTHROPIC_API_KEY"):
        AnthropicProvider(MODEL)


def test_options_other_than_base_url_and_timeout_are_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    with pytest.raises(ProviderError, match="api_key") as caught:
        AnthropicProvider(MODEL, api_key="sk-ant-in-an-option")
    assert "sk-ant-in-an-option" not in str(caught.value)


@pytest.mark.parametrize("timeout", [0, -1, "soon", None])
def test_a_bad_timeout_is_refused(monkeypatch: pytest.MonkeyPatch, timeout: object) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    with pytest.raises(ProviderError, match="timeout"):
        AnthropicProvider(MODEL, timeout=timeout)


# --- refused before any call ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("request_", "reason"),
    [
        (GenerationRequest(prompt="むかしむかし"), "raw-prompt"),
        (chat(("user", "x"), logprobs=True), "logprobs"),
        (chat(("user", "x"), logprobs=True, top_logprobs=5), "logprobs"),
        (chat(("system", "only a system prompt")), "user or assistant"),
        (chat(("user", "x"), repetition_penalty=1.1), "repetition_penalty"),
    ],
    ids=["raw-prompt", "logprobs", "top-logprobs", "system-only", "repetition-penalty"],
)
def test_unsupported_requests_are_refused_before_any_call(
    provider: AnthropicProvider, server: AnthropicServer, request_: GenerationRequest, reason: str
) -> None:
    with pytest.raises(ProviderError, match=reason):
        provider.check_request(request_)
    with pytest.raises(ProviderError, match=reason):
        generate(provider, request_)
    assert server.received == []
