"""The whole HTTP path under faults: ModelClient -> OpenAIProvider -> FaultProxy -> llama.cpp.

The proxy injects rate limits, server errors, stalls, dropped connections and garbled
bodies on a fixed schedule; every request must still end with a real answer, and the
client's retry accounting must match what was injected, one retry per fault.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Coroutine
from typing import Any, TypeVar

import pytest

from _shared import needs
from fault_proxy import Canned, Fault, FaultProxy
from hyoka._aio import gather_or_cancel
from hyoka.providers import (
    GaveUpError,
    GenerationRequest,
    Message,
    ModelClient,
    ProviderError,
    RateLimitError,
    RetryEvent,
    RetryPolicy,
    SamplingParams,
    TransientError,
    load_provider,
)

needs("openai")

T = TypeVar("T")

#: The client's HTTP timeout, and what each injected stall costs: a stalled reply never
#: comes, so it is caught as surely after 2 s as after 5; a four-token answer from the local
#: server takes well under a tenth of that on a busy two-core machine, and one that does not
#: is a retry the test counts (``abandoned``), not a failure.
TIMEOUT = 2.0
POLICY = RetryPolicy(max_attempts=6, base_delay=0.05, max_delay=0.2)


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


@pytest.fixture
def server(llama_base_url: str) -> str:
    """The session's llama.cpp server (conftest.py)."""
    return llama_base_url


def question(i: int) -> GenerationRequest:
    return GenerationRequest(
        messages=(Message(role="user", content=f"What is {i} plus {i}?"),),
        params=SamplingParams(max_tokens=4, temperature=0),
    )


def client_for(proxy: FaultProxy, **kwargs: Any) -> ModelClient:
    provider = load_provider("openai/smollm2", base_url=proxy.url, timeout=TIMEOUT)
    return ModelClient(provider, **{"retry": POLICY, **kwargs})


def test_mixed_faults_all_end_in_answers(server: str) -> None:
    schedule = [
        Fault.RATE_LIMIT,
        Fault.OK,
        Fault.SERVER_ERROR,
        Fault.UNAVAILABLE,
        Fault.STALL,
        Fault.DROP,
        Fault.GARBLED,
        Fault.OK,
        Fault.RATE_LIMIT,
        Fault.GARBLED,
        Fault.SERVER_ERROR,
        Fault.DROP,
        Fault.UNAVAILABLE,
    ]
    expected = Counter(str(step) for step in schedule if step is not Fault.OK)
    events: list[RetryEvent] = []
    abandoned: Counter[str] = Counter()

    async def go() -> None:
        async with FaultProxy(server, schedule, retry_after="1") as proxy:
            client = client_for(proxy, concurrency=2, on_retry=events.append)
            async with client:
                answers = await gather_or_cancel(client.generate(question(i)) for i in range(14))
            assert len(answers) == 14
            assert all(answer.text.strip() for answer in answers)
            assert all(not answer.cached for answer in answers)
            stats = client.stats
            injected = proxy.faults_injected
            assert injected == sum(expected.values()) == 11
            assert {k: v for k, v in proxy.injected.items() if k != "ok"} == expected
            # one retry per injected fault; a machine too busy to answer a forwarded request
            # within TIMEOUT adds a retry the proxy saw as well (normally none)
            abandoned.update(proxy.abandoned)
            slow = abandoned["ok"]
            assert stats.retries == injected + slow
            assert stats.requests == 14 + injected + slow
            assert stats.rate_limited == expected["429"] == 2
            assert stats.failures == 0
            assert stats.usage.completion_tokens > 0
            assert client.limiter.lowest == 1  # the 429s lowered the concurrency

    run(go())
    by_kind = Counter(_kind(event.error) for event in events)
    assert by_kind == Counter(
        {
            "429": 2,
            "500": 2,
            "503": 2,
            "timeout": 1 + abandoned.total(),
            "drop": 2,
            "garbled": 2 - abandoned["garbled"],  # a garbled answer the client stopped awaiting
        }
    )
    for event in events:
        if isinstance(event.error, RateLimitError):
            assert event.delay >= 1.0  # Retry-After: 1


def _kind(error: TransientError) -> str:
    message = str(error)
    if isinstance(error, RateLimitError):
        assert "HTTP 429: injected rate limit" in message
        return "429"
    for status in ("500", "503"):
        if f"HTTP {status}: injected {status}" in message:
            return status
    if f"no answer within {TIMEOUT:g} s" in message:
        return "timeout"
    if "connection failed" in message:
        return "drop"
    if "malformed JSON" in message:
        return "garbled"
    raise AssertionError(f"unexpected retry cause: {message}")


def test_a_fault_that_persists_gives_up(server: str) -> None:
    async def go() -> None:
        async with FaultProxy(server, [Fault.UNAVAILABLE] * 3) as proxy:
            policy = RetryPolicy(max_attempts=3, base_delay=0.01, max_delay=0.02)
            async with client_for(proxy, retry=policy) as client:
                with pytest.raises(GaveUpError, match=r"HTTP 503.*gave up after 3 attempts"):
                    await client.generate(question(1))
                assert client.stats.requests == 3
                assert client.stats.failures == 1
                # the next request finds the server well again
                answer = await client.generate(question(2))
                assert answer.text.strip()

    run(go())


def test_client_errors_are_not_retried_and_hide_the_key(
    server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    sentinel = "sk-proj-SENTINEL0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", sentinel)
    refusal = Canned(
        401,
        {"error": {"message": f"Incorrect API key provided: {sentinel}.", "type": "auth"}},
    )

    async def go() -> None:
        async with FaultProxy(server, [refusal]) as proxy, client_for(proxy) as client:
            with pytest.raises(ProviderError) as info:
                await client.generate(question(3))
            assert client.stats.requests == 1
            assert client.stats.retries == 0
        error = info.value
        assert not isinstance(error, TransientError)
        assert "HTTP 401: Incorrect API key provided: [REDACTED]" in str(error)
        assert "SENTINEL" not in str(error)

    run(go())
