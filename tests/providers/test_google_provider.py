"""The google backend against a local server speaking the Gemini API on the wire.

Each test runs the real ``google-genai`` SDK through ``GoogleProvider`` to
``tests/wire_servers.GeminiServer`` and checks what went out (path, JSON body, headers)
and what came back (text, finish reason, logprobs, usage, errors).
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
    TokenLogprob,
    TopLogprob,
)
from wire_servers import (
    GeminiServer,
    Reply,
    closed_port_url,
    gemini_candidate,
    gemini_error,
    gemini_response,
)

needs("google.genai")
from hyoka.providers.google_backend import GoogleProvider  # noqa: E402

API_KEY = "AIzaTest-5ecret-KEY-0123456789"
MODEL = "gemini-test-flash"
GENERATE_PATH = f"/v1beta/models/{MODEL}:generateContent"
RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo"


def chat(*turns: tuple[Role, str], n: int = 1, **params: Any) -> GenerationRequest:
    return GenerationRequest(
        messages=tuple(Message(role=role, content=text) for role, text in turns),
        params=SamplingParams(**params),
        n=n,
    )


def generate(provider: GoogleProvider, request: GenerationRequest) -> GenerationResponse:
    return asyncio.run(provider.generate(request))


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No settings of the developer's shell reach the SDK."""
    for name in (
        "GOOGLE_API_KEY",
        "GEMINI_API_KEY",
        "GOOGLE_GENAI_USE_VERTEXAI",
        "GOOGLE_GENAI_USE_ENTERPRISE",
        "GOOGLE_GEMINI_BASE_URL",
        "GOOGLE_GENAI_API_VERSION",
        "GOOGLE_CLOUD_PROJECT",
        "GOOGLE_CLOUD_LOCATION",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def running_server() -> Iterator[GeminiServer]:
    with GeminiServer(api_key=API_KEY) as running:
        yield running


@pytest.fixture
def server(running_server: GeminiServer) -> GeminiServer:
    running_server.reset()
    return running_server


@pytest.fixture(scope="module")
def shared_provider(running_server: GeminiServer) -> Iterator[GoogleProvider]:
    """One provider for the module, so the SDK client (and CA store) is made once."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("GEMINI_API_KEY", API_KEY)
        made = GoogleProvider(MODEL, base_url=running_server.base_url, timeout=5)
    yield made
    asyncio.run(made.aclose())


@pytest.fixture
def provider(shared_provider: GoogleProvider, server: GeminiServer) -> GoogleProvider:
    return shared_provider


# --- the request on the wire ---------------------------------------------------------------


def test_request_body_maps_every_supported_field(
    provider: GoogleProvider, server: GeminiServer
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
        seed=1234,
    )
    generate(provider, request)

    [received] = server.received
    assert received.method == "POST"
    assert received.path == GENERATE_PATH
    body = received.body
    assert body["contents"] == [
        {"role": "user", "parts": [{"text": "「猫」の読みは？"}]},
        {"role": "model", "parts": [{"text": "「ねこ」です。"}]},
        {"role": "user", "parts": [{"text": "では「犬」は？"}]},
    ]
    assert body["systemInstruction"]["parts"] == [{"text": "あなたは日本語の先生です。"}]
    assert body["generationConfig"] == {
        "temperature": 0.3,
        "topP": 0.9,
        "topK": 40,
        "maxOutputTokens": 256,
        "stopSequences": ["\n\n", "。"],
        "seed": 1234,
    }
    assert set(body) == {"contents", "systemInstruction", "generationConfig"}


def test_unset_fields_are_left_out(provider: GoogleProvider, server: GeminiServer) -> None:
    generate(provider, chat(("user", "こんにちは")))

    body = server.received[0].body
    assert body["contents"] == [{"role": "user", "parts": [{"text": "こんにちは"}]}]
    assert "systemInstruction" not in body
    assert not body.get("generationConfig")


def test_all_system_messages_go_to_the_system_instruction(
    provider: GoogleProvider, server: GeminiServer
) -> None:
    generate(
        provider,
        chat(("system", "丁寧に。"), ("user", "質問"), ("system", "短く。"), ("user", "続き")),
    )

    body = server.received[0].body
    assert body["systemInstruction"]["parts"] == [{"text": "丁寧に。\n\n短く。"}]
    assert [c["role"] for c in body["contents"]] == ["user", "user"]


def test_api_version_is_an_option(server: GeminiServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", API_KEY)
    provider = GoogleProvider(MODEL, base_url=server.base_url, api_version="v1")

    generate(provider, chat(("user", "x")))

    assert server.received[0].path == f"/v1/models/{MODEL}:generateContent"


# --- the response ----------------------------------------------------------------------------


def test_response_text_finish_reason_usage_and_model(
    provider: GoogleProvider, server: GeminiServer
) -> None:
    server.script(
        Reply(
            200,
            gemini_response(
                [gemini_candidate("吾輩は猫である。", finish_reason="MAX_TOKENS")],
                prompt_tokens=21,
                candidates_tokens=8,
                model_version="gemini-test-flash-002",
            ),
        )
    )

    response = generate(provider, chat(("user", "書き出しは？")))

    assert response.text == "吾輩は猫である。"
    assert response.choices[0].finish_reason == "length"
    assert response.choices[0].logprobs is None
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (21, 8)
    assert response.model == "gemini-test-flash-002"


def test_thought_parts_are_dropped_and_thinking_tokens_counted(
    provider: GoogleProvider, server: GeminiServer
) -> None:
    candidate = gemini_candidate("unused")
    candidate["content"]["parts"] = [
        {"text": "まず考える…", "thought": True},
        {"text": "答えは"},
        {"text": "「いぬ」です。"},
    ]
    server.script(Reply(200, gemini_response([candidate], candidates_tokens=9, thoughts_tokens=30)))

    response = generate(provider, chat(("user", "x")))

    assert response.text == "答えは「いぬ」です。"
    assert response.usage.completion_tokens == 39


@pytest.mark.parametrize(
    ("gemini_reason", "finish_reason"),
    [
        ("STOP", "stop"),
        ("MAX_TOKENS", "length"),
        ("SAFETY", "content_filter"),
        ("RECITATION", "content_filter"),
        ("PROHIBITED_CONTENT", "content_filter"),
        ("OTHER", "other"),
    ],
)
def test_finish_reasons_are_normalised(
    provider: GoogleProvider, server: GeminiServer, gemini_reason: str, finish_reason: str
) -> None:
    server.script(Reply(200, gemini_response([gemini_candidate("x", finish_reason=gemini_reason)])))

    assert generate(provider, chat(("user", "x"))).choices[0].finish_reason == finish_reason


def test_n_samples_are_candidates_of_one_call(
    provider: GoogleProvider, server: GeminiServer
) -> None:
    response = generate(provider, chat(("user", "俳句を"), n=3, temperature=1.0))

    [received] = server.received
    assert received.body["generationConfig"] == {"candidateCount": 3, "temperature": 1.0}
    assert [c.text for c in response.choices] == ["応答1-0", "応答1-1", "応答1-2"]
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (11, 12)


def test_candidates_are_ordered_by_index(provider: GoogleProvider, server: GeminiServer) -> None:
    # proto3 JSON leaves out a zero index; the others may come in any order
    server.script(
        Reply(
            200,
            gemini_response(
                [
                    gemini_candidate("二", index=2),
                    gemini_candidate("零", index=None),
                    gemini_candidate("一", index=1),
                ]
            ),
        )
    )

    response = generate(provider, chat(("user", "x"), n=3))

    assert [c.text for c in response.choices] == ["零", "一", "二"]


def test_logprobs_are_requested_and_parsed(provider: GoogleProvider, server: GeminiServer) -> None:
    response = generate(provider, chat(("user", "x"), logprobs=True, top_logprobs=2))

    config = server.received[0].body["generationConfig"]
    assert config == {"responseLogprobs": True, "logprobs": 2}
    logprobs = response.choices[0].logprobs
    assert logprobs is not None
    assert "".join(t.token for t in logprobs) == response.text == "応答1-0"
    assert logprobs[0] == TokenLogprob(
        token="応",
        logprob=-0.25,
        top=(TopLogprob(token="応", logprob=-0.25), TopLogprob(token="x", logprob=-3.0)),
    )
    assert [t.logprob for t in logprobs] == [-0.25, -0.5, -0.75, -1.0, -1.25]


def test_logprobs_without_alternatives(provider: GoogleProvider, server: GeminiServer) -> None:
    response = generate(provider, chat(("user", "x"), logprobs=True))

    assert server.received[0].body["generationConfig"] == {"responseLogprobs": True}
    logprobs = response.choices[0].logprobs
    assert logprobs is not None and len(logprobs) == len(response.text)
    assert all(t.top == () for t in logprobs)


def test_an_omitted_log_probability_is_zero(provider: GoogleProvider, server: GeminiServer) -> None:
    candidate = gemini_candidate("はい", logprobs=[("は", -0.5, []), ("い", 0.0, [])])
    del candidate["logprobsResult"]["chosenCandidates"][1]["logProbability"]
    server.script(Reply(200, gemini_response([candidate])))

    logprobs = generate(provider, chat(("user", "x"), logprobs=True)).choices[0].logprobs

    assert logprobs is not None
    assert [(t.token, t.logprob) for t in logprobs] == [("は", -0.5), ("い", 0.0)]


def test_a_blocked_prompt_gives_empty_filtered_choices(
    provider: GoogleProvider, server: GeminiServer
) -> None:
    server.script(
        Reply(
            200,
            {
                "promptFeedback": {"blockReason": "SAFETY"},
                "usageMetadata": {"promptTokenCount": 7, "totalTokenCount": 7},
            },
        )
    )

    response = generate(provider, chat(("user", "x"), n=2))

    assert [(c.text, c.finish_reason) for c in response.choices] == [
        ("", "content_filter"),
        ("", "content_filter"),
    ]
    assert response.usage.prompt_tokens == 7


def test_one_provider_serves_several_event_loops(
    provider: GoogleProvider, server: GeminiServer
) -> None:
    # the first loop leaves a pooled connection that the second must not touch
    server.keep_alive = True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        first = asyncio.run(provider.generate(chat(("user", "一"))))
        second = asyncio.run(provider.generate(chat(("user", "二"))))
        asyncio.run(provider.aclose())
        gc.collect()  # the first loop's connection is dropped unclosed here, by design

    assert (first.text, second.text) == ("応答1-0", "応答2-0")


def test_aclose_releases_the_client_and_a_later_call_makes_a_new_one(
    provider: GoogleProvider,
) -> None:
    async def use_close_use() -> tuple[str, str]:
        first = (await provider.generate(chat(("user", "x")))).text
        await provider.aclose()
        return first, (await provider.generate(chat(("user", "y")))).text

    assert asyncio.run(use_close_use()) == ("応答1-0", "応答2-0")


# --- errors ----------------------------------------------------------------------------------


def test_429_is_a_rate_limit_with_the_retry_delay_from_the_body(
    provider: GoogleProvider, server: GeminiServer
) -> None:
    server.script(
        Reply(
            429,
            gemini_error(
                429,
                "You exceeded your current quota.",
                "RESOURCE_EXHAUSTED",
                details=[{"@type": RETRY_INFO, "retryDelay": "37s"}],
            ),
        )
    )

    with pytest.raises(RateLimitError) as caught:
        generate(provider, chat(("user", "x")))

    assert caught.value.retry_after == 37.0
    assert "HTTP 429 RESOURCE_EXHAUSTED: You exceeded your current quota." in str(caught.value)
    assert len(server.received) == 1  # the SDK itself does not retry


def test_429_retry_after_header(provider: GoogleProvider, server: GeminiServer) -> None:
    server.script(
        Reply(
            429,
            gemini_error(429, "Resource has been exhausted", "RESOURCE_EXHAUSTED"),
            headers={"Retry-After": "3"},
        )
    )

    with pytest.raises(RateLimitError) as caught:
        generate(provider, chat(("user", "x")))

    assert caught.value.retry_after == 3.0


@pytest.mark.parametrize(
    ("code", "status", "text"),
    [
        (500, "INTERNAL", "An internal error has occurred."),
        (503, "UNAVAILABLE", "The model is overloaded. Please try again later."),
        (504, "DEADLINE_EXCEEDED", "Deadline expired before operation could complete."),
    ],
)
def test_server_side_failures_are_transient(
    provider: GoogleProvider, server: GeminiServer, code: int, status: str, text: str
) -> None:
    server.script(Reply(code, gemini_error(code, text, status)))

    with pytest.raises(TransientError) as caught:
        generate(provider, chat(("user", "x")))

    assert not isinstance(caught.value, RateLimitError)
    assert f"HTTP {code} {status}: {text}" in str(caught.value)
    assert len(server.received) == 1


@pytest.mark.parametrize(
    ("code", "status", "text"),
    [
        (400, "INVALID_ARGUMENT", "Logprobs is not supported for the current model."),
        (404, "NOT_FOUND", f"models/{MODEL} is not found for API version v1beta"),
        (403, "PERMISSION_DENIED", "The caller does not have permission"),
    ],
)
def test_client_errors_fail_for_good_with_the_api_message(
    provider: GoogleProvider, server: GeminiServer, code: int, status: str, text: str
) -> None:
    server.script(Reply(code, gemini_error(code, text, status)))

    with pytest.raises(ProviderError) as caught:
        generate(provider, chat(("user", "x")))

    assert not isinstance(caught.value, TransientError)
    assert str(caught.value) == f"google/{MODEL}: HTTP {code} {status}: {text}"


def test_a_wrong_key_is_a_permanent_error(
    server: GeminiServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "AIzaWrong-999")
    provider = GoogleProvider(MODEL, base_url=server.base_url)

    with pytest.raises(ProviderError) as caught:
        generate(provider, chat(("user", "x")))

    assert not isinstance(caught.value, TransientError)
    assert "API key not valid" in str(caught.value)
    assert "AIzaWrong-999" not in str(caught.value)


def test_a_timeout_is_transient(server: GeminiServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", API_KEY)
    provider = GoogleProvider(MODEL, base_url=server.base_url, timeout=1.0)
    server.script(Reply(200, gemini_response([gemini_candidate("late")]), delay_s=6.0))

    started = time.monotonic()
    with pytest.raises(TransientError, match="timeout"):
        generate(provider, chat(("user", "x")))

    # the reply is held 6 s: a client that gave up well before it did not wait for it
    # (wide margins, so a loaded machine cannot send the request after the timeout)
    assert time.monotonic() - started < 5.0
    assert len(server.received) == 1


def test_a_refused_connection_is_transient(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", API_KEY)
    provider = GoogleProvider(MODEL, base_url=closed_port_url(), timeout=5)

    started = time.monotonic()
    with pytest.raises(TransientError, match="connection failed"):
        generate(provider, chat(("user", "x")))

    assert time.monotonic() - started < 1.0  # no hidden reconnect-and-sleep in the SDK


@pytest.mark.parametrize(
    "reply",
    [
        Reply(200, b"<html>upstream gone</html>"),
        Reply(200, {}),
        Reply(200, {"candidates": "not a list"}),
    ],
    ids=["not-json", "empty-object", "wrong-fields"],
)
def test_a_garbled_body_is_transient(
    provider: GoogleProvider, server: GeminiServer, reply: Reply
) -> None:
    server.script(reply)

    with pytest.raises(TransientError):
        generate(provider, chat(("user", "x")))


# --- the API key -----------------------------------------------------------------------------


def test_the_key_travels_only_in_the_auth_header(
    provider: GoogleProvider, server: GeminiServer
) -> None:
    generate(provider, chat(("user", "x"), temperature=0.5))

    [received] = server.received
    carrying = {name: value for name, value in received.headers.items() if API_KEY in value}
    assert carrying == {"x-goog-api-key": API_KEY}
    assert API_KEY.encode() not in received.raw
    assert API_KEY not in received.path
    assert "key" not in received.query


def test_a_missing_key_names_both_variables() -> None:
    with pytest.raises(ProviderError, match="GOOGLE_API_KEY or GEMINI_API_KEY"):
        GoogleProvider(MODEL)


def test_google_api_key_is_read_first_like_the_sdk(
    server: GeminiServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOOGLE_API_KEY", API_KEY)
    monkeypatch.setenv("GEMINI_API_KEY", "AIzaOther-key")
    provider = GoogleProvider(MODEL, base_url=server.base_url)

    generate(provider, chat(("user", "x")))

    assert server.received[0].headers["x-goog-api-key"] == API_KEY


def test_the_vertex_switch_in_the_environment_is_ignored(
    server: GeminiServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", API_KEY)
    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
    monkeypatch.setenv("GOOGLE_GENAI_API_VERSION", "v1alpha")
    provider = GoogleProvider(MODEL, base_url=server.base_url)

    generate(provider, chat(("user", "x")))

    assert server.received[0].path == GENERATE_PATH


def test_options_other_than_base_url_api_version_and_timeout_are_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", API_KEY)
    with pytest.raises(ProviderError, match="api_key") as caught:
        GoogleProvider(MODEL, api_key="AIza-in-an-option")
    assert "AIza-in-an-option" not in str(caught.value)


@pytest.mark.parametrize("timeout", [0, -1, "soon", None])
def test_a_bad_timeout_is_refused(monkeypatch: pytest.MonkeyPatch, timeout: object) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", API_KEY)
    with pytest.raises(ProviderError, match="timeout"):
        GoogleProvider(MODEL, timeout=timeout)


# --- refused before any call ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("request_", "reason"),
    [
        (GenerationRequest(prompt="むかしむかし"), "raw-prompt"),
        (chat(("system", "only a system instruction")), "user or assistant"),
        (chat(("user", "x"), repetition_penalty=1.1), "repetition_penalty"),
    ],
    ids=["raw-prompt", "system-only", "repetition-penalty"],
)
def test_unsupported_requests_are_refused_before_any_call(
    provider: GoogleProvider, server: GeminiServer, request_: GenerationRequest, reason: str
) -> None:
    with pytest.raises(ProviderError, match=reason):
        provider.check_request(request_)
    with pytest.raises(ProviderError, match=reason):
        generate(provider, request_)
    assert server.received == []
