"""``ModelClient``'s reliability layer: the cache, retries with backoff, the adaptive limit.

A small scripted ``Provider`` stands in for a backend here (and only here): these tests are
about what the client does around any backend. The real HTTP backend is tested against a
real llama.cpp server in ``test_openai_provider.py`` and ``test_provider_faults.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import sqlite3
import threading
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import pytest

from hyoka._aio import gather_or_cancel
from hyoka.errors import HyokaWarning
from hyoka.providers import (
    CacheError,
    Choice,
    GaveUpError,
    GenerationRequest,
    GenerationResponse,
    Message,
    ModelClient,
    Provider,
    ProviderError,
    RateLimitError,
    ResponseCache,
    RetryEvent,
    RetryPolicy,
    SamplingParams,
    TokenLogprob,
    TopLogprob,
    TransientError,
    Usage,
    cache_key,
    load_provider,
)
from hyoka.providers.client import AdaptiveLimiter
from hyoka.store import default_cache_dir

T = TypeVar("T")

FAST = RetryPolicy(base_delay=0.001, max_delay=0.002)


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


def chat(text: str = "日本語で自己紹介してください", **params: Any) -> GenerationRequest:
    return GenerationRequest(
        messages=(Message(role="user", content=text),), params=SamplingParams(**params)
    )


class ScriptedProvider(Provider):
    """Answers ``echo:<content>#<call>``, first raising the scripted errors, one per call."""

    name = "fake"
    supports_logprobs = False

    def __init__(
        self,
        model: str = "m",
        *,
        base_url: str | None = None,
        errors: list[BaseException] | None = None,
        delay: float = 0.0,
    ) -> None:
        super().__init__(model, base_url=base_url)
        self.errors = list(errors or [])
        self.delay = delay
        self.calls = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.closed = False

    async def generate(self, request: GenerationRequest) -> GenerationResponse:
        self.calls += 1
        call = self.calls
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.delay:
                await asyncio.sleep(self.delay)
            if self.errors:
                raise self.errors.pop(0)
        finally:
            self.in_flight -= 1
        content = request.messages[-1].content if request.messages else request.prompt
        return GenerationResponse(
            choices=tuple(
                Choice(text=f"echo:{content}#{call}", finish_reason="stop")
                for _ in range(request.n)
            ),
            usage=Usage(prompt_tokens=3, completion_tokens=2),
            model=self.model,
        )

    async def aclose(self) -> None:
        self.closed = True


# --------------------------------------------------------------------------- cache


def test_cache_miss_then_hit(tmp_path: Path) -> None:
    provider = ScriptedProvider()

    async def go() -> tuple[GenerationResponse, GenerationResponse]:
        async with ModelClient(provider, cache=ResponseCache(tmp_path)) as client:
            first = await client.generate(chat())
            second = await client.generate(chat())
            assert client.stats.cache_hits == 1
            assert client.stats.requests == 1
            assert client.stats.usage == Usage(prompt_tokens=3, completion_tokens=2)
            return first, second

    first, second = run(go())
    assert provider.calls == 1
    assert not first.cached
    assert second.cached
    assert second.choices == first.choices
    assert provider.closed


def test_cache_persists_across_instances(tmp_path: Path) -> None:
    async def once() -> tuple[GenerationResponse, ScriptedProvider]:
        provider = ScriptedProvider()
        with ResponseCache(tmp_path) as cache:
            async with ModelClient(provider, cache=cache) as client:
                return await client.generate(chat(), sample_key="trial-0"), provider

    first, provider_a = run(once())
    second, provider_b = run(once())
    assert provider_a.calls == 1
    assert provider_b.calls == 0
    assert second.cached
    assert second.text == first.text
    assert (tmp_path / "responses.sqlite3").is_file()


def test_cache_dir_defaults_to_hyoka_cache_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "c"))
    assert default_cache_dir() == tmp_path / "c"
    with ResponseCache() as cache:
        assert cache.path == tmp_path / "c" / "responses.sqlite3"


def test_cache_keys_differ_by_what_decides_the_answer() -> None:
    base = ScriptedProvider("m", base_url="http://a/v1").identity()
    request = chat(temperature=1.0)
    key = cache_key(base, request, "0")
    assert key == cache_key(dict(base), chat(temperature=1.0), "0")  # stable
    variants = {
        "sample_key": cache_key(base, request, "1"),
        "params": cache_key(base, chat(temperature=0.5), "0"),
        "seed": cache_key(base, chat(temperature=1.0, seed=1), "0"),
        "text": cache_key(base, chat("別の質問", temperature=1.0), "0"),
        "model": cache_key(ScriptedProvider("m2", base_url="http://a/v1").identity(), request, "0"),
        "base_url": cache_key(
            ScriptedProvider("m", base_url="http://b/v1").identity(), request, "0"
        ),
        "n": cache_key(base, request.model_copy(update={"n": 2}), "0"),
    }
    assert key not in variants.values()
    assert len(set(variants.values())) == len(variants)


def test_sample_keys_give_separate_draws(tmp_path: Path) -> None:
    provider = ScriptedProvider()

    async def go() -> list[GenerationResponse]:
        async with ModelClient(provider, cache=ResponseCache(tmp_path)) as client:
            requests = [chat()] * 3
            keys = ["0", "1", "2"]
            fresh = await gather_or_cancel(
                client.generate(r, sample_key=k) for r, k in zip(requests, keys, strict=True)
            )
            again = await gather_or_cancel(
                client.generate(r, sample_key=k) for r, k in zip(requests, keys, strict=True)
            )
            assert all(r.cached for r in again)
            assert [r.text for r in again] == [r.text for r in fresh]
            return fresh

    fresh = run(go())
    assert provider.calls == 3
    assert len({r.text for r in fresh}) == 3


def test_no_api_key_reaches_the_cache_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sentinel = "sk-SENTINEL-0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", sentinel)
    provider = load_provider("openai/gpt-4o-mini")  # the real backend's identity, no network
    assert sentinel not in repr(provider.identity())

    async def fake_generate(request: GenerationRequest) -> GenerationResponse:
        return GenerationResponse(choices=(Choice(text="こんにちは"),), model="gpt-4o-mini")

    provider.generate = fake_generate  # type: ignore[method-assign]
    cache = ResponseCache(tmp_path)

    async def go() -> None:
        async with ModelClient(provider, cache=cache) as client:
            for i in range(5):
                await client.generate(chat(temperature=1.0), sample_key=str(i))

    run(go())
    assert len(cache) == 5
    cache.close()
    files = list(tmp_path.iterdir())
    assert files
    for path in files:
        assert sentinel.encode() not in path.read_bytes(), path


def test_a_response_holding_a_key_is_not_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sentinel = "SENTINEL-KEY-abcdef0123456789"
    monkeypatch.setenv("SOME_PROVIDER_API_KEY", sentinel)
    with (
        ResponseCache(tmp_path) as cache,
        pytest.warns(HyokaWarning, match="SOME_PROVIDER_API_KEY"),
    ):
        stored = cache.put("k", GenerationResponse(choices=(Choice(text=f"key={sentinel}"),)))
    assert not stored
    for path in tmp_path.iterdir():
        assert sentinel.encode() not in path.read_bytes()


def test_an_identity_holding_a_key_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    sentinel = "SENTINEL-KEY-abcdef0123456789"
    monkeypatch.setenv("OPENAI_API_KEY", sentinel)
    provider = ScriptedProvider(sentinel)  # a backend bug: the key in its identity
    with pytest.raises(ProviderError, match="API key") as info:
        ModelClient(provider)
    assert sentinel not in str(info.value)  # not even as the model's name


def test_corrupt_cache_is_reported_clearly(tmp_path: Path) -> None:
    (tmp_path / "responses.sqlite3").write_bytes(b"this is not a database" * 100)
    with pytest.raises(CacheError, match=r"responses\.sqlite3 is corrupt.*delete it"):
        ResponseCache(tmp_path)
    assert "\n" not in str(CacheError("x"))


def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    def writer(worker: int) -> None:
        with ResponseCache(tmp_path) as cache:  # one connection each, as separate processes
            for i in range(40):
                response = GenerationResponse(choices=(Choice(text=f"{worker}-{i}"),))
                cache.put(f"{worker}-{i}", response)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with ResponseCache(tmp_path) as cache:
        assert len(cache) == 160
        hit = cache.get("3-39")
        assert hit is not None
        assert hit.text == "3-39"


def test_cells_opening_a_brand_new_cache_at_once_each_open_it(tmp_path: Path) -> None:
    """Sweep cells side by side (threads, as on Ray) open one brand-new cache at once, while
    another opener is mid-way through its own first open (the new file's write lock held,
    the file not yet WAL): each waits its turn and opens it. Before, a cell's switch to WAL
    failed at once with "database is locked" whatever ``busy_timeout`` said (SQLite does
    not wait to take the exclusive lock from a read lock: two doing so would deadlock), and
    the cell failed. Each wait is bounded: a lock held past ``busy_timeout`` is said."""
    other = sqlite3.connect(tmp_path / "responses.sqlite3", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # the other opener's first open, its write lock held
    started = time.monotonic()
    with pytest.raises(CacheError, match=r"responses\.sqlite3 cannot be used: database is locked"):
        ResponseCache(tmp_path, busy_timeout=0.05)  # held too long: said, in bounded time
    assert time.monotonic() - started < 5
    together = threading.Barrier(4, timeout=30)
    failed: list[str] = []

    def cell() -> None:
        together.wait()
        try:
            ResponseCache(tmp_path).close()
        except CacheError as exc:
            failed.append(str(exc))

    threads = [threading.Thread(target=cell) for _ in range(4)]
    for thread in threads:
        thread.start()
    threads[0].join(timeout=0.1)  # they meet the held lock (before: each failed at once)
    other.execute("COMMIT")
    other.close()
    for thread in threads:
        thread.join()
    assert failed == []
    with ResponseCache(tmp_path) as cache, cache._connection() as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def _rows_on_disk(cache_dir: Path) -> int:
    with contextlib.closing(sqlite3.connect(cache_dir / "responses.sqlite3")) as conn:
        (count,) = conn.execute("SELECT COUNT(*) FROM responses").fetchone()
    return int(count)


def test_replies_finished_together_are_stored_in_one_transaction(tmp_path: Path) -> None:
    """Twenty calls in flight that finish in one turn of the event loop are stored in one
    transaction (a write-ahead-log commit each made the loop wait for the disk, 1,600 of
    them in a judging run): each is in the file once the loop turns, an identical call
    before that is served from the reply kept, and a new client (a rerun after a kill)
    replays every one without a call."""
    statements: list[str] = []

    async def once(stored: int) -> tuple[ScriptedProvider, list[str]]:
        provider = ScriptedProvider()
        with ResponseCache(tmp_path) as cache:
            assert cache._conn is not None
            cache._conn.set_trace_callback(statements.append)
            async with ModelClient(provider, cache=cache, concurrency=20) as client:
                replies = await gather_or_cancel(client.generate(chat(f"q{i}")) for i in range(20))
                assert _rows_on_disk(tmp_path) == stored  # as another process sees the file
                first = await client.generate(chat("q20"))
                again = await client.generate(chat("q20"))  # the loop has not turned
                assert again.cached and again.text == first.text
                assert _rows_on_disk(tmp_path) == stored
                await asyncio.sleep(0)  # one turn: written
                assert _rows_on_disk(tmp_path) == 21
            return provider, [reply.text for reply in replies]

    provider, texts = run(once(20))
    assert provider.calls == 21
    inserts = [s for s in statements if s.startswith("INSERT")]
    begins = [s for s in statements if s.startswith("BEGIN")]
    assert len(inserts) == 21 and len(begins) == 2
    statements.clear()
    rerun, replayed = run(once(21))
    assert rerun.calls == 0 and replayed == texts


# --------------------------------------------------------------------------- retries


def test_transient_errors_are_retried() -> None:
    provider = ScriptedProvider(errors=[TransientError("503"), TransientError("reset")])
    events: list[RetryEvent] = []

    async def go() -> GenerationResponse:
        async with ModelClient(provider, retry=FAST, on_retry=events.append) as client:
            response = await client.generate(chat())
            assert client.stats.requests == 3
            assert client.stats.retries == 2
            assert client.stats.failures == 0
            return response

    response = run(go())
    assert response.text.endswith("#3")
    assert [e.attempt for e in events] == [1, 2]
    assert all(0 <= e.delay <= 0.002 for e in events)


def test_retry_after_is_honoured() -> None:
    provider = ScriptedProvider(errors=[RateLimitError("429", retry_after=0.3)])
    events: list[RetryEvent] = []

    async def go() -> float:
        async with ModelClient(provider, retry=FAST, on_retry=events.append) as client:
            started = time.monotonic()
            await client.generate(chat())
            assert client.stats.rate_limited == 1
            assert client.stats.retries == 1
            return time.monotonic() - started

    elapsed = run(go())
    assert events[0].delay == pytest.approx(0.3)
    assert elapsed >= 0.3


def test_backoff_is_exponential_with_full_jitter() -> None:
    policy = RetryPolicy(base_delay=0.5, max_delay=30.0)
    rng = random.Random(0)
    for retry in range(1, 10):
        ceiling = min(30.0, 0.5 * 2 ** (retry - 1))
        delays = [policy.delay(retry, rng=rng) for _ in range(200)]
        assert all(0.0 <= d <= ceiling for d in delays)
        assert max(delays) > 0.8 * ceiling  # spread over the whole range, not a constant
        assert min(delays) < 0.2 * ceiling
    assert all(policy.delay(1, retry_after=7.0, rng=rng) == 7.0 for _ in range(20))


def test_gives_up_after_max_attempts() -> None:
    provider = ScriptedProvider(errors=[TransientError("503")] * 10)
    policy = RetryPolicy(max_attempts=3, base_delay=0.001, max_delay=0.001)

    async def go() -> None:
        async with ModelClient(provider, retry=policy) as client:
            with pytest.raises(GaveUpError, match="gave up after 3 attempts") as info:
                await client.generate(chat())
            assert isinstance(info.value.last_error, TransientError)
            assert client.stats.requests == 3
            assert client.stats.retries == 2
            assert client.stats.failures == 1

    run(go())


def test_deadline_bounds_the_waiting() -> None:
    provider = ScriptedProvider(errors=[RateLimitError("429", retry_after=5.0)])
    policy = RetryPolicy(base_delay=0.001, deadline=0.5)

    async def go() -> None:
        async with ModelClient(provider, retry=policy) as client:
            started = time.monotonic()
            with pytest.raises(GaveUpError, match="deadline"):
                await client.generate(chat())
            assert time.monotonic() - started < 0.5
            assert client.stats.requests == 1

    run(go())


def test_attempt_timeout_turns_a_stall_into_a_retry() -> None:
    provider = ScriptedProvider(delay=0.0)
    original = provider.generate

    async def stall_once(request: GenerationRequest) -> GenerationResponse:
        if provider.calls == 0:
            provider.calls += 1
            await asyncio.sleep(10)
        return await original(request)

    provider.generate = stall_once  # type: ignore[method-assign]
    policy = RetryPolicy(base_delay=0.001, attempt_timeout=0.2)

    async def go() -> None:
        async with ModelClient(provider, retry=policy) as client:
            response = await client.generate(chat())
            assert response.text.endswith("#2")
            assert client.stats.retries == 1

    run(go())


def test_the_deadline_holds_during_an_attempt() -> None:
    provider = ScriptedProvider(delay=30.0)  # a call that would outlive the deadline
    policy = RetryPolicy(base_delay=0.001, deadline=0.3)

    async def go() -> float:
        async with ModelClient(provider, retry=policy) as client:
            started = time.monotonic()
            with pytest.raises(GaveUpError, match=r"0\.3 s deadline \(gave up during attempt 1\)"):
                await client.generate(chat())
            assert provider.in_flight == 0  # the abandoned call was cancelled, not left running
            assert client.stats.failures == 1
            assert client.stats.retries == 0
            return time.monotonic() - started

    assert run(go()) < 1.0


def test_an_in_process_backend_finishes_its_queued_work() -> None:
    class LocalModel(ScriptedProvider):
        in_process = True  # a long call here is computation, not a hung connection

    provider = LocalModel(delay=0.4)
    policy = RetryPolicy(base_delay=0.001, deadline=0.2)

    async def go() -> GenerationResponse:
        async with ModelClient(provider, retry=policy) as client:
            return await client.generate(chat())

    assert run(go()).text.endswith("#1")


def test_the_deadline_counts_from_the_first_slot_not_from_the_queue() -> None:
    provider = ScriptedProvider(delay=0.2)
    policy = RetryPolicy(base_delay=0.001, deadline=0.5)

    async def go() -> None:
        # five requests, one at a time: the last waits 0.8 s for its slot, yet has its 0.5 s
        async with ModelClient(provider, concurrency=1, retry=policy) as client:
            answers = await gather_or_cancel(client.generate(chat(str(i))) for i in range(5))
            assert len(answers) == 5
            assert client.stats.failures == 0

    run(go())


def test_an_attempt_timeout_shorter_than_the_deadline_is_retried() -> None:
    provider = ScriptedProvider(delay=30.0)
    policy = RetryPolicy(max_attempts=3, base_delay=0.001, attempt_timeout=0.1, deadline=10.0)

    async def go() -> None:
        async with ModelClient(provider, retry=policy) as client:
            with pytest.raises(GaveUpError, match=r"no answer within 0\.1 s.*after 3 attempts"):
                await client.generate(chat())
            assert client.stats.retries == 2

    run(go())


def test_a_key_in_a_response_is_redacted_in_text_tokens_and_model(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    key = "SENTINEL-0123456789abcdef"
    monkeypatch.setenv("SOME_PROVIDER_API_KEY", key)
    provider = ScriptedProvider()
    original = provider.generate

    async def with_logprobs(request: GenerationRequest) -> GenerationResponse:
        answer = await original(request)
        token = TokenLogprob(
            token=f"={key}", logprob=-0.1, top=(TopLogprob(token=key, logprob=-1),)
        )
        choice = Choice(text=f"{answer.text} {key}", finish_reason="stop", logprobs=(token,))
        return answer.model_copy(update={"choices": (choice,), "model": f"proxy-{key}"})

    provider.generate = with_logprobs  # type: ignore[method-assign]

    async def go() -> GenerationResponse:
        async with ModelClient(provider, cache=ResponseCache(tmp_path)) as client:
            with pytest.warns(HyokaWarning, match="SOME_PROVIDER_API_KEY; it was redacted"):
                response = await client.generate(chat())
            assert client.stats.redacted == 1
            return response

    response = run(go())
    assert key not in response.model_dump_json()
    assert response.text.endswith(" [REDACTED]")
    assert response.model == "proxy-[REDACTED]"
    (token,) = response.choices[0].logprobs or ()
    assert (token.token, token.top[0].token, token.logprob) == ("=[REDACTED]", "[REDACTED]", -0.1)
    for path in tmp_path.iterdir():  # stored, redacted
        assert key.encode() not in path.read_bytes()


@pytest.mark.parametrize("error", [TransientError, ProviderError, RuntimeError])
def test_an_error_quoting_a_key_is_scrubbed(
    error: type[Exception], monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "ghp_SENTINEL0123456789abcdef"  # any prefix, any key-like variable
    monkeypatch.setenv("GITHUB_TOKEN", key)
    provider = ScriptedProvider(errors=[error(f"Illegal header value b'Bearer {key}'")] * 3)
    policy = RetryPolicy(max_attempts=2, base_delay=0.001)

    async def go() -> None:
        async with ModelClient(provider, retry=policy) as client:
            with pytest.raises(Exception) as info:
                await client.generate(chat())
        shown = f"{info.value} {info.value!r} {info.value.__cause__!r}"
        assert key not in shown
        assert "Bearer [REDACTED]" in str(info.value)

    run(go())


def test_non_transient_errors_fail_at_once() -> None:
    provider = ScriptedProvider(errors=[ProviderError("HTTP 400: bad request")])

    async def go() -> None:
        async with ModelClient(provider, retry=FAST) as client:
            with pytest.raises(ProviderError, match="bad request") as info:
                await client.generate(chat())
            assert not isinstance(info.value, TransientError)
            assert client.stats.requests == 1
            assert client.stats.retries == 0
            assert client.stats.failures == 1

    run(go())


def test_unsupported_requests_are_refused_before_any_call(tmp_path: Path) -> None:
    provider = ScriptedProvider()  # no logprobs

    async def go() -> None:
        async with ModelClient(provider, cache=ResponseCache(tmp_path)) as client:
            with pytest.raises(ProviderError, match="no logprobs"):
                await client.generate(chat(logprobs=True))
            assert client.stats.requests == 0

    run(go())
    assert provider.calls == 0


def test_concurrent_requests_keep_order_and_a_failure_cancels_the_rest() -> None:
    provider = ScriptedProvider(delay=0.01)

    async def go() -> None:
        async with ModelClient(provider, concurrency=4) as client:
            answers = await gather_or_cancel(client.generate(chat(str(i))) for i in range(10))
            assert [a.text.split("#")[0] for a in answers] == [f"echo:{i}" for i in range(10)]
            provider.errors = [ProviderError("HTTP 404: no such model")]
            with pytest.raises(ProviderError, match="no such model"):
                await gather_or_cancel(client.generate(chat(str(i))) for i in range(50))
            assert provider.in_flight == 0  # the rest were cancelled, not left running

    run(go())
    assert provider.calls < 60


# --------------------------------------------------------------------------- limiter


def test_limiter_halves_on_rate_limits_and_recovers() -> None:
    limiter = AdaptiveLimiter(8, recover_after=3)
    limiter.on_rate_limit()
    assert limiter.limit == 4
    limiter.on_rate_limit()
    limiter.on_rate_limit()
    limiter.on_rate_limit()
    assert limiter.limit == 1  # never below one
    for expected in (2, 3, 4):
        for _ in range(3):
            limiter.on_success()
        assert limiter.limit == expected
    limiter.on_success()
    limiter.on_success()
    limiter.on_rate_limit()  # a rate limit also breaks the run of successes
    assert limiter.limit == 2
    for _ in range(100):
        limiter.on_success()
    assert limiter.limit == 8  # never above the user's concurrency
    assert limiter.lowest == 1


def test_limiter_holds_new_requests_until_below_the_lowered_limit() -> None:
    async def go() -> None:
        limiter = AdaptiveLimiter(4)
        for _ in range(4):
            await limiter.acquire()
        limiter.on_rate_limit()  # limit 2 with 4 in flight
        waiter = asyncio.ensure_future(limiter.acquire())
        await asyncio.sleep(0)
        limiter.release()  # 3 in flight: still not below 2
        await asyncio.sleep(0)
        assert not waiter.done()
        limiter.release()
        limiter.release()  # 1 in flight: the waiter gets the second slot
        await asyncio.sleep(0)
        assert waiter.done()
        assert limiter.in_flight == 2
        cancelled = asyncio.ensure_future(limiter.acquire())
        await asyncio.sleep(0)
        cancelled.cancel()
        await asyncio.gather(cancelled, return_exceptions=True)
        limiter.release()
        limiter.release()
        assert limiter.in_flight == 0

    run(go())


def test_client_backs_off_on_429_and_grows_back() -> None:
    provider = ScriptedProvider(errors=[RateLimitError("429", retry_after=0.0)] * 3, delay=0.005)

    async def go() -> None:
        client = ModelClient(provider, concurrency=8, retry=FAST, recover_after=2)
        first = await gather_or_cancel(client.generate(chat(str(i))) for i in range(8))
        assert len(first) == 8
        assert client.stats.rate_limited == 3
        assert client.limiter.lowest == 1  # 8 -> 4 -> 2 -> 1
        provider.max_in_flight = 0
        await gather_or_cancel(client.generate(chat(f"b{i}")) for i in range(80))
        assert client.limiter.limit == 8
        assert provider.max_in_flight <= 8
        assert client.stats.retries == 3
        await client.aclose()

    run(go())


def test_a_cache_whose_schema_cannot_be_read_is_one_cache_error(tmp_path: Path) -> None:
    """An error of the sqlite3 module's own (a column name that is not UTF-8) has no SQLite
    error code: the set-up's retry on a busy database read one and failed with an
    AttributeError traceback instead of the cache's one line."""
    path = tmp_path / "responses.sqlite3"
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE responses (key TEXT PRIMARY KEY, response TEXT NOT NULL,"
                     " created REAL NOT NULL, digest TEXT)")  # fmt: skip
        conn.execute("PRAGMA writable_schema=ON")
        broken = (b"CREATE TABLE responses (key TEXT PRIMARY KEY, response TEXT NOT NULL,"
                  b" created REAL NOT NULL, \xffx TEXT)")  # fmt: skip
        conn.execute("UPDATE sqlite_master SET sql = CAST(? AS TEXT) WHERE name = 'responses'",
                     (broken,))  # fmt: skip
        conn.commit()
    path.chmod(0o600)
    with pytest.raises(CacheError, match=r"responses\.sqlite3 cannot be used: Could not decode"):
        ResponseCache(tmp_path)
