"""Overhead of the provider layer: requests per second through OpenAIProvider + ModelClient.

    python benchmarks/provider_overhead.py [--requests 500] [--concurrency 1 8 64]

A tiny HTTP server in a second process answers every request at once with a fixed, valid
``chat.completions`` body, so the figures are what the client side costs: the openai SDK,
the backend's mapping, the retry loop and the concurrency limiter (cache off). The bare SDK
at the same concurrency is measured too, for comparison. Then the same requests twice with
the response cache on: the second pass is all hits (hit rate and hits per second).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import openai

from hyoka._aio import gather_or_cancel
from hyoka.providers import (
    GenerationRequest,
    Message,
    ModelClient,
    ResponseCache,
    SamplingParams,
    load_provider,
)

ANSWER = json.dumps(
    {
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "created": 0,
        "model": "bench",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "東京は日本の首都です。"},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": {"prompt_tokens": 12, "completion_tokens": 8, "total_tokens": 20},
    },
    ensure_ascii=False,
).encode()


# --------------------------------------------------------------------------- the server


async def _answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    head = (
        b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
        b"content-length: " + str(len(ANSWER)).encode() + b"\r\n"
    )
    try:
        while True:  # keep-alive: many requests per connection
            try:
                request = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, ConnectionError):
                return
            length = 0
            close = False
            for line in request.split(b"\r\n"):
                name, _, value = line.partition(b":")
                name = name.strip().lower()
                if name == b"content-length":
                    length = int(value)
                elif name == b"connection" and value.strip().lower() == b"close":
                    close = True
            await reader.readexactly(length)
            writer.write(head + (b"connection: close\r\n\r\n" if close else b"\r\n") + ANSWER)
            await writer.drain()
            if close:
                return
    finally:
        writer.close()


async def _serve() -> None:
    server = await asyncio.start_server(_answer, "127.0.0.1", 0, backlog=1024)
    port = server.sockets[0].getsockname()[1]
    print(f"PORT {port}", flush=True)
    async with server:
        await server.serve_forever()


# --------------------------------------------------------------------------- the client


def _requests(count: int, tag: str) -> list[GenerationRequest]:
    return [
        GenerationRequest(
            messages=(Message(role="user", content=f"{tag} 質問 {i}: 日本の首都は?"),),
            params=SamplingParams(max_tokens=16, temperature=0.0),
        )
        for i in range(count)
    ]


async def _through_client(
    base_url: str, concurrency: int, count: int, cache: ResponseCache | None = None
) -> tuple[float, ModelClient]:
    provider = load_provider("openai/bench", base_url=base_url)
    client = ModelClient(provider, concurrency=concurrency, cache=cache)
    async with client:
        await gather_or_cancel(client.generate(r) for r in _requests(min(count, 50), "warm-up"))
        requests = _requests(count, "timed")
        started = time.perf_counter()
        await gather_or_cancel(client.generate(r) for r in requests)
        if cache is not None:  # second pass: every request should now be a hit
            started = time.perf_counter()
            await gather_or_cancel(client.generate(r) for r in requests)
        elapsed = time.perf_counter() - started
    return count / elapsed, client


async def _bare_sdk(base_url: str, concurrency: int, count: int) -> float:
    sdk = openai.AsyncOpenAI(api_key="not-needed", base_url=base_url, max_retries=0)
    limit = asyncio.Semaphore(concurrency)

    async def one(i: int) -> None:
        async with limit:
            await sdk.chat.completions.create(
                model="bench",
                messages=[{"role": "user", "content": f"質問 {i}: 日本の首都は?"}],
                max_tokens=16,
                temperature=0.0,
            )

    await asyncio.gather(*(one(i) for i in range(min(count, 50))))
    started = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(count)))
    elapsed = time.perf_counter() - started
    await sdk.close()
    return count / elapsed


async def _measure(base_url: str, levels: list[int], count: int) -> None:
    print(f"{count} chat requests per figure, instant local server, cache off")
    print(f"{'concurrency':>11}  {'ModelClient req/s':>17}  {'bare SDK req/s':>14}  {'ratio':>5}")
    for concurrency in levels:
        rate, client = await _through_client(base_url, concurrency, count)
        bare = await _bare_sdk(base_url, concurrency, count)
        assert client.stats.failures == 0
        assert client.stats.retries == 0
        print(f"{concurrency:>11}  {rate:>17.0f}  {bare:>14.0f}  {rate / bare:>5.2f}")
    with tempfile.TemporaryDirectory() as folder:
        cache = ResponseCache(Path(folder))
        try:
            rate, client = await _through_client(base_url, 64, count, cache)
        finally:
            cache.close()
    warm_up = min(count, 50)
    first_sent = client.stats.requests - warm_up
    hits = client.stats.cache_hits
    print(
        f"cache on: first pass {first_sent} sent to the server; the same {count} again: "
        f"{hits}/{count} cache hits ({hits / count:.0%}), {rate:.0f} hits/s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 64])
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(_serve())
        return
    with instant_server() as base_url:
        asyncio.run(_measure(base_url, args.concurrency, args.requests))


@contextlib.contextmanager
def instant_server() -> Iterator[str]:
    """The answer-at-once server in a second process, for as long as the block runs; its
    base URL. ``refset_ray.py`` times its scheduling against it too."""
    with served_by([sys.executable, __file__, "--serve"]) as url:
        yield url


@contextlib.contextmanager
def served_by(command: list[str]) -> Iterator[str]:
    """A benchmark's server run by ``command`` (which prints ``PORT n`` once it listens) in
    a second process while the block runs; its base URL (``judge_throughput.py``'s too)."""
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        if not line.startswith("PORT "):
            raise SystemExit(f"the benchmark server did not start: {line!r}")
        yield f"http://127.0.0.1:{int(line.split()[1])}/v1"
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
