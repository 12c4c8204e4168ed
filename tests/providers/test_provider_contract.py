"""The provider contract: what ``Provider`` promises, checked on every registered backend.

One module, parametrized over ``providers.registry.BACKENDS``: a new backend is held to
every promise by adding its harness here (the first test fails until it is). Each runs
for real: the hosted ones (OpenAI, Anthropic, Gemini) through their SDKs to a local server
speaking their wire format (``tests/wire_servers``), llama.cpp on the embedded SmolLM2
GGUF, transformers on a tiny random Llama built here (where torch is installed, as
``test_hf_provider.py``), the scripted backend on a script file, and vLLM on a GPU only
(``conftest.CI_MAY_SKIP``).

The promises, each for every backend:

* the registry builds it from ``provider/model``; its identity names it and holds no key;
* a reply has text, a finish reason and usage, which the client's totals add up;
* what it declares it cannot do (raw prompts, log probabilities) is refused before any
  call, and what it declares it can do, it does;
* an option it does not take is refused before it is built, naming the option;
* a cancelled call leaves nothing in the cache, and the next call is answered;
* a judge's identity (``JudgeSettings.of``) is read off it, and is the identity a command
  that has only the judge's name builds (``JudgeSettings.for_judge``);
* a hosted backend's 429 and 5xx are retried, a 4xx is final, and no error it raises
  quotes its API key.

Each backend's own wire format (field mapping, error shapes, headers) stays in its own file.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import importlib.util
import json
import threading
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

from _shared import needs, needs_embedded_model
from hyoka.judge import JudgeSettings
from hyoka.providers import (
    BACKENDS,
    EMBEDDED_MODEL,
    GenerationRequest,
    Message,
    ModelClient,
    Provider,
    ProviderError,
    ResponseCache,
    RetryPolicy,
    SamplingParams,
    load_provider,
)
from hyoka.providers.errors import UnknownOptionError
from hyoka.providers.registry import taken_options
from wire_servers import (
    AnthropicServer,
    GeminiServer,
    OpenAIServer,
    Reply,
    anthropic_error,
    gemini_error,
)

T = TypeVar("T")

#: the SDK module each backend imports, for the ones that may be missing here
SDK = {"openai": "openai", "anthropic": "anthropic", "google": "google.genai",
       "llamacpp": "llama_cpp"}  # fmt: skip
#: the variables of the shell that would reach an SDK: none may, in these tests
SHELL = (
    "OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "ANTHROPIC_CUSTOM_HEADERS", "GOOGLE_API_KEY",
    "GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GEMINI_BASE_URL",
    "GOOGLE_GENAI_API_VERSION", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION",
)  # fmt: skip


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


def chat(text: str = "日本の首都はどこですか？", *, n: int = 1, **params: Any) -> GenerationRequest:
    params.setdefault("max_tokens", 4)
    return GenerationRequest(
        messages=(Message(role="user", content=text),), params=SamplingParams(**params), n=n
    )


def _token(token: str, logprob: float) -> dict[str, Any]:
    return {"token": token, "logprob": logprob, "bytes": None}


#: an OpenAI chat completion with log probabilities (the local server sends none unasked)
OPENAI_WITH_LOGPROBS = {
    "id": "chatcmpl-logprobs", "object": "chat.completion", "created": 0, "model": "m",
    "choices": [{
        "index": 0, "finish_reason": "stop",
        "message": {"role": "assistant", "content": "東京"},
        "logprobs": {"content": [
            {**_token("東", -0.1), "top_logprobs": [_token("東", -0.1), _token("大", -2.5)]},
            {**_token("京", -0.2), "top_logprobs": [_token("京", -0.2), _token("阪", -1.9)]},
        ]},
    }],
    "usage": {"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 11},
}  # fmt: skip


# --------------------------------------------------------------------------- harnesses


Server = AnthropicServer | GeminiServer | OpenAIServer
ErrorBody = Callable[[int, str], dict[str, Any]]


@dataclass
class Hosted:
    """A hosted API's local stand-in: its server, the key it checks and its error body."""

    server: Server
    key_variable: str
    key: str
    error: ErrorBody


@dataclass
class Harness:
    """One backend as the contract runs it: its spec, the options it is built with, its
    provider (built once for the module), and, for a hosted API, the server it talks to."""

    name: str
    spec: str
    options: dict[str, Any]
    provider: Provider
    hosted: Hosted | None = None

    def asked(self) -> int:
        """How many calls reached the model (a hosted one: its server)."""
        return len(self.hosted.server.received) if self.hosted else -1


def _openai_error(status: int, message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": f"http_{status}", "param": None, "code": None}}


def _anthropic_error(status: int, message: str) -> dict[str, Any]:
    kinds = {429: "rate_limit_error", 400: "invalid_request_error"}
    return anthropic_error(kinds.get(status, "api_error"), message)


def _gemini_error(status: int, message: str) -> dict[str, Any]:
    kinds = {429: "RESOURCE_EXHAUSTED", 400: "INVALID_ARGUMENT", 503: "UNAVAILABLE"}
    return gemini_error(status, message, kinds.get(status, "INTERNAL"))


#: the hosted APIs: each one's local server, the variable its key is read from, its errors
HOSTED: dict[str, tuple[type[Server], str, ErrorBody]] = {
    "openai": (OpenAIServer, "OPENAI_API_KEY", _openai_error),
    "anthropic": (AnthropicServer, "ANTHROPIC_API_KEY", _anthropic_error),
    "google": (GeminiServer, "GEMINI_API_KEY", _gemini_error),
}
#: the backends whose model computes here, each built its own way below
IN_PROCESS = ("hf", "llamacpp", "scripted", "vllm")


def _gpu_with_vllm() -> bool:
    if importlib.util.find_spec("vllm") is None or importlib.util.find_spec("torch") is None:
        return False
    import torch

    return bool(torch.cuda.is_available())


def _hosted(name: str, env: pytest.MonkeyPatch) -> Iterator[Harness]:
    needs(SDK[name])
    server_class, variable, error = HOSTED[name]
    key = f"{name[:3]}-contract-5ecret-KEY-0123456789"
    with server_class(api_key=key) as server:
        env.setenv(variable, key)
        spec = f"{name}/contract-model"
        options: dict[str, Any] = {"base_url": server.base_url, "timeout": 5}
        provider = load_provider(spec, **options)
        yield Harness(name, spec, options, provider, Hosted(server, variable, key, error))
        run(provider.aclose())


def _in_process(name: str, folder: Path) -> Harness:
    options: dict[str, Any]
    if name == "scripted":
        script = folder / "script.jsonl"
        script.write_text(json.dumps({"reply": "東京です。"}, ensure_ascii=False) + "\n", "utf-8")
        spec, options = f"scripted/{script}", {}
    elif name == "llamacpp":
        needs_embedded_model()
        spec, options = EMBEDDED_MODEL, {"n_ctx": 512, "n_threads": 1}
    elif name == "hf":
        from test_hf_provider import CHAT_TEMPLATE, _save_model  # skips without torch

        spec, options = f"hf/{_save_model(folder / 'tiny', CHAT_TEMPLATE)}", {}
    else:
        if not _gpu_with_vllm():
            pytest.skip("vLLM needs a GPU")
        from test_hf_provider import CHAT_TEMPLATE, _save_model

        spec = f"vllm/{_save_model(folder / 'tiny', CHAT_TEMPLATE, hidden_size=128)}"
        options = {"dtype": "float16", "max_model_len": 256, "gpu_memory_utilization": 0.3,
                   "enforce_eager": True}  # fmt: skip
    return Harness(name, spec, options, load_provider(spec, **options))


@pytest.fixture(scope="module", params=sorted(BACKENDS))
def built(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Harness]:
    """Each registered backend, built once for the module (its server or model loaded once),
    with none of the shell's keys or SDK settings in the environment."""
    name: str = request.param
    with pytest.MonkeyPatch.context() as env:
        for variable in SHELL:
            env.delenv(variable, raising=False)
        if name in HOSTED:
            yield from _hosted(name, env)
        else:
            harness = _in_process(name, tmp_path_factory.mktemp(name))
            yield harness
            run(harness.provider.aclose())


@pytest.fixture
def backend(built: Harness) -> Harness:
    """The module's backend, its server (if any) having forgotten earlier tests."""
    if built.hosted is not None:
        built.hosted.server.reset()
    return built


def client(backend: Harness, **options: Any) -> ModelClient:
    """A client of the module's provider, as a command makes one; never closed here, so
    that the provider outlives it (the module closes it)."""
    options.setdefault("retry", RetryPolicy(max_attempts=1))
    return ModelClient(backend.provider, **options)


# --------------------------------------------------------------------------- the contract


def test_every_registered_backend_is_held_to_the_contract() -> None:
    assert set(HOSTED) | set(IN_PROCESS) == set(BACKENDS)
    assert not set(HOSTED) & set(IN_PROCESS)


def test_the_registry_builds_it_and_its_identity_holds_no_key(backend: Harness) -> None:
    module, class_name, _ = BACKENDS[backend.name]
    provider = backend.provider
    assert type(provider) is getattr(importlib.import_module(module), class_name)
    assert provider.name == backend.name
    assert f"{provider.name}/{provider.model}" == backend.spec
    assert provider.in_process == (backend.name in IN_PROCESS)
    identity = provider.identity()
    assert identity["provider"] == backend.name and identity["model"] == provider.model
    assert identity["base_url"] == backend.options.get("base_url")
    if backend.hosted is not None:
        assert backend.hosted.key_variable in provider.key_envs
        for shown in (json.dumps(identity), repr(provider)):
            assert backend.hosted.key not in shown


def test_a_reply_has_text_finish_reason_and_usage(backend: Harness) -> None:
    """A chat reply (every backend chats), and ``n`` samples of one request."""
    assert backend.provider.supports_chat
    asking = client(backend)
    one, two = (
        run(asking.generate(chat())),
        run(asking.generate(chat(temperature=1.0, n=2, max_tokens=2))),
    )
    for response, n in ((one, 1), (two, 2)):
        assert len(response.choices) == n
        for choice in response.choices:
            assert choice.text.strip()
            assert choice.finish_reason in ("stop", "length")
        assert response.usage.prompt_tokens > 0 and response.usage.completion_tokens > 0
        assert not response.cached
    assert asking.stats.usage == one.usage + two.usage
    assert asking.stats.requests == 2 and asking.stats.failures == 0
    assert backend.asked() != 0


CAPABILITIES = {
    "supports_completion": (
        GenerationRequest(prompt="むかしむかし", params=SamplingParams(max_tokens=4)),
        "raw-prompt",
    ),
    "supports_logprobs": (chat(logprobs=True, top_logprobs=2), "logprobs"),
}


@pytest.mark.parametrize("capability", sorted(CAPABILITIES))
def test_what_it_declares_it_can_and_cannot_do_holds(backend: Harness, capability: str) -> None:
    request, refused = CAPABILITIES[capability]
    asking = client(backend)
    if not getattr(backend.provider, capability):
        with pytest.raises(ProviderError, match=refused):
            run(asking.generate(request))
        assert asking.stats.requests == 0 and backend.asked() in (0, -1)
        return
    if capability == "supports_logprobs" and backend.name == "openai":
        backend.hosted.server.script(Reply(200, OPENAI_WITH_LOGPROBS))  # type: ignore[union-attr]
    response = run(asking.generate(request))
    assert response.choices[0].finish_reason in ("stop", "length")
    assert response.usage.completion_tokens > 0  # (a random model's tokens may print as "")
    if capability == "supports_logprobs":
        tokens = response.choices[0].logprobs
        assert tokens and all(len(token.top) <= 2 and token.logprob <= 0 for token in tokens)


def test_an_option_it_does_not_take_is_refused_before_it_is_built(backend: Harness) -> None:
    backend_class = type(backend.provider)
    if taken_options(backend_class) is None:  # passed on to an engine that checks them
        assert backend.name == "vllm"
        return
    with pytest.raises(UnknownOptionError) as caught:
        load_provider(backend.spec, **backend.options, no_such_option=1)
    assert caught.value.options == ("no_such_option",)
    assert str(caught.value).startswith(f"option no_such_option: {backend.spec} takes no ")
    secret = "sk-given-as-an-option-0123456789"
    with pytest.raises(UnknownOptionError) as caught:
        load_provider(backend.spec, **backend.options, api_key=secret)
    assert secret not in str(caught.value)
    for variable in backend.provider.key_envs:
        assert variable in str(caught.value)
    assert backend.asked() in (0, -1)


@contextlib.contextmanager
def _computing_held(backend: Harness) -> Iterator[tuple[threading.Event, threading.Event]]:
    """An in-process model's computation made to wait for ``release`` once it has begun
    (``begun``), so that a cancel lands while it computes however fast the model is (a
    tiny model's answer had come back before the cancel, failing the test by timing)."""
    begun, release = threading.Event(), threading.Event()
    provider: Any = backend.provider
    owner, name = (
        (provider._worker, "_run_batch")
        if hasattr(provider, "_worker")
        else (provider, "_generate")
    )

    def held(*args: Any) -> Any:
        begun.set()
        assert release.wait(30), "the test never released the model"
        return computing(*args)

    computing = getattr(owner, name)
    setattr(owner, name, held)
    try:
        yield begun, release
    finally:
        release.set()
        setattr(owner, name, computing)


def test_a_cancelled_call_leaves_nothing_and_the_next_is_answered(
    backend: Harness, tmp_path: Path
) -> None:
    """Cancelled while the model works on it (a hosted server holding its reply; an
    in-process model computing, held there until the cancel), or, for a backend that
    answers without waiting (scripted), at the client's first wait."""
    if backend.hosted is not None:  # a reply the server holds until after the test
        backend.hosted.server.script(Reply(503, backend.hosted.error(503, "late"), delay_s=30))
    scripted = backend.name == "scripted"
    holding = (contextlib.nullcontext((threading.Event(), threading.Event()))
               if backend.hosted is not None or scripted else _computing_held(backend))  # fmt: skip

    async def go(begun: threading.Event, release: threading.Event) -> tuple[int, str, int]:
        with ResponseCache(tmp_path) as cache:
            asking = client(backend, cache=cache)
            task = asyncio.create_task(asking.generate(chat()))
            for _ in range(2000):  # a bound, not a wait for a moment
                working = backend.asked() > 0 if backend.hosted else begun.is_set()
                if working or scripted:
                    break
                assert not task.done()
                await asyncio.sleep(0.005)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            release.set()
            left = len(cache)
            answer = await asking.generate(chat())
            return left, answer.text, len(cache)

    with holding as (begun, release):
        left, text, kept = run(go(begun, release))
    assert left == 0
    assert text.strip() and kept == 1
    assert backend.asked() in (2, -1)


def test_a_judge_is_read_off_the_provider(backend: Harness) -> None:
    provider = backend.provider
    settings = JudgeSettings.of(provider)
    assert settings.judge == backend.spec
    assert settings.script == provider.replies_pin
    assert settings.base_url == backend.options.get("base_url")
    assert settings.answered_by(provider) == []
    named = JudgeSettings.for_judge(backend.spec, base_url=backend.options.get("base_url"))
    assert named == settings and named.answered_by(provider) == []
    if backend.name == "scripted":
        assert provider.replies_pin is not None and len(provider.replies_pin) == 16
        assert JudgeSettings.for_judge(backend.spec).answered_by(provider) == []
    else:
        assert provider.replies_pin is None


# --------------------------------------------------------------------------- hosted APIs


@pytest.mark.parametrize("built", sorted(HOSTED), indirect=True)
def test_429_and_5xx_are_retried_and_4xx_is_final(backend: Harness) -> None:
    """Every API alike: 429, 5xx and the other statuses a later try may pass (408 request
    timeout, 409 conflict, 425 too early) are retried; any other 4xx is final."""
    hosted = backend.hosted
    assert hosted is not None
    hosted.server.script(
        Reply(429, hosted.error(429, "slow down"), headers={"retry-after": "0"}),
        Reply(503, hosted.error(503, "overloaded")),
        Reply(500, hosted.error(500, "internal")),
        *(Reply(status, hosted.error(status, "try again")) for status in (408, 409, 425)),
    )
    asking = client(backend, retry=RetryPolicy(max_attempts=7, base_delay=0.0))
    response = run(asking.generate(chat()))
    assert response.text.strip()
    assert (asking.stats.requests, asking.stats.retries, asking.stats.rate_limited) == (7, 6, 1)
    assert backend.asked() == 7
    hosted.server.script(Reply(400, hosted.error(400, "no such parameter")))
    with pytest.raises(ProviderError, match="no such parameter") as caught:
        run(asking.generate(chat()))
    assert type(caught.value) is ProviderError  # not transient: never retried
    assert asking.stats.requests == 8 and asking.stats.failures == 1 and backend.asked() == 8


@pytest.mark.parametrize("built", sorted(HOSTED), indirect=True)
def test_no_error_quotes_the_key(backend: Harness) -> None:
    """A server that echoes the key in an error (its JSON or a proxy's plain text) reaches
    no message: the provider's own errors say [REDACTED], with no chained SDK error."""
    hosted = backend.hosted
    assert hosted is not None
    hosted.server.script(
        Reply(400, hosted.error(400, f"bad key {hosted.key} given")),
        Reply(503, b"proxy error: " + hosted.key.encode(), content_type="text/plain"),
    )
    for _ in range(2):
        with pytest.raises(ProviderError) as caught:
            run(backend.provider.generate(chat()))
        assert hosted.key not in str(caught.value) and hosted.key not in repr(caught.value)
        assert "[REDACTED]" in str(caught.value)
        assert caught.value.__cause__ is None
    assert backend.asked() == 2
