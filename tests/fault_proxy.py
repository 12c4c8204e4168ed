"""Test helpers for the HTTP backend: a real llama.cpp server, and a proxy that breaks things.

``llama_server()`` starts ``python -m llama_cpp.server`` on the embedded SmolLM2-135M model
(a real OpenAI-compatible server, on a free port) and stops it afterwards.

``FaultProxy`` sits between a client and that server on 127.0.0.1 and, request by request,
follows a programmable schedule: forward the request (``Fault.OK``), or answer 429 with a
``Retry-After`` header, 500, 503, stall past the client's timeout, drop the connection
without an answer, or forward and then garble the JSON body. A ``Canned`` reply sends any
status and body. Once the schedule runs out every request is forwarded. ``injected`` counts
what was served, so a test can check the client's retry accounting against it; ``abandoned``
counts forwarded requests whose client hung up first (a slow server, not an injected fault).

Each connection carries one request (``Connection: close``), which keeps the proxy small.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import json
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter, deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self

from _shared import needs, needs_embedded_model


class Fault(enum.StrEnum):
    OK = "ok"
    RATE_LIMIT = "429"
    SERVER_ERROR = "500"
    UNAVAILABLE = "503"
    STALL = "stall"
    DROP = "drop"
    GARBLED = "garbled"


@dataclass(frozen=True)
class Canned:
    """Any reply at all: a status, a JSON body, extra headers."""

    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        return f"canned-{self.status}"


Step = Fault | Canned

_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
}


def _response(status: int, body: bytes, headers: dict[str, str] | None = None) -> bytes:
    lines = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}"]
    all_headers = {"content-type": "application/json", **(headers or {})}
    all_headers["content-length"] = str(len(body))
    all_headers["connection"] = "close"
    lines += [f"{name}: {value}" for name, value in all_headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def _error_body(message: str, kind: str) -> bytes:
    return json.dumps({"error": {"message": message, "type": kind}}).encode()


def _dechunk(body: bytes) -> bytes:
    out = bytearray()
    while body:
        size_line, _, body = body.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        out += body[:size]
        body = body[size + 2 :]
    return bytes(out)


class FaultProxy:
    """An HTTP proxy on 127.0.0.1 that injects the scheduled faults, then forwards."""

    def __init__(
        self,
        upstream: str,
        schedule: Iterable[Step] = (),
        *,
        retry_after: str = "1",
        stall_seconds: float = 30.0,
    ) -> None:
        host, _, port = upstream.removeprefix("http://").split("/")[0].partition(":")
        self.upstream_host = host
        self.upstream_port = int(port or 80)
        self.schedule: deque[Step] = deque(schedule)
        self.retry_after = retry_after
        self.stall_seconds = stall_seconds
        self.injected: Counter[str] = Counter()
        #: steps whose forwarded request the client stopped waiting for (its own timeout on a
        #: slow server): an "ok" one caused a retry that no fault did
        self.abandoned: Counter[str] = Counter()
        self.log: list[tuple[str, str]] = []
        self.port = 0
        self._server: asyncio.Server | None = None
        self._handlers: set[asyncio.Task[None]] = set()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def faults_injected(self) -> int:
        return sum(count for name, count in self.injected.items() if name != Fault.OK)

    def add(self, *steps: Step) -> None:
        self.schedule.extend(steps)

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._handlers):
            task.cancel()
        await asyncio.gather(*self._handlers, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        try:
            await self._serve_one(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self._handlers.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _serve_one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        request_line, *header_lines = head.decode("latin-1").split("\r\n")
        method, path, _ = request_line.split(" ", 2)
        headers = {}
        for line in header_lines:
            if line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
        body = await reader.readexactly(int(headers.get("content-length", "0")))

        step: Step = self.schedule.popleft() if self.schedule else Fault.OK
        self.injected[str(step)] += 1
        self.log.append((path, str(step)))

        if isinstance(step, Canned):
            payload = json.dumps(step.body).encode()
            writer.write(_response(step.status, payload, step.headers))
        elif step is Fault.RATE_LIMIT:
            message = _error_body("injected rate limit", "rate_limit_exceeded")
            writer.write(_response(429, message, {"retry-after": self.retry_after}))
        elif step in (Fault.SERVER_ERROR, Fault.UNAVAILABLE):
            status = int(step.value)
            writer.write(_response(status, _error_body(f"injected {status}", "server_error")))
        elif step is Fault.STALL:
            # silence until the client gives up (or stall_seconds pass)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(reader.read(1), self.stall_seconds)
            return
        elif step is Fault.DROP:
            writer.transport.abort()
            return
        else:
            forward = asyncio.ensure_future(self._forward(method, path, headers, body))
            hang_up = asyncio.ensure_future(reader.read(1))  # b"" once the client closes
            await asyncio.wait({forward, hang_up}, return_when=asyncio.FIRST_COMPLETED)
            if not forward.done():
                # the client stopped waiting (its timeout) before the server answered
                forward.cancel()
                await asyncio.gather(forward, return_exceptions=True)
                self.abandoned[str(step)] += 1
                self.log.append((path, "abandoned by the client"))
                return
            hang_up.cancel()
            status, upstream_headers, upstream_body = forward.result()
            if step is Fault.GARBLED:
                upstream_body = upstream_body[: len(upstream_body) // 2]
            writer.write(_response(status, upstream_body, upstream_headers))
        await writer.drain()

    async def _forward(
        self, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        reader, writer = await asyncio.open_connection(self.upstream_host, self.upstream_port)
        try:
            skip = {"host", "connection", "content-length", "accept-encoding", "keep-alive"}
            lines = [f"{method} {path} HTTP/1.1", f"host: {self.upstream_host}"]
            lines += [f"{name}: {value}" for name, value in headers.items() if name not in skip]
            lines += [f"content-length: {len(body)}", "connection: close"]
            writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
            await writer.drain()
            raw = await reader.read()
        finally:
            writer.close()
        head, _, payload = raw.partition(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split(" ")[1])
        reply_headers: dict[str, str] = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            reply_headers[name.strip().lower()] = value.strip()
        if reply_headers.pop("transfer-encoding", "").lower() == "chunked":
            payload = _dechunk(payload)
        keep = {"content-type", "x-request-id"}
        return status, {k: v for k, v in reply_headers.items() if k in keep}, payload


# --------------------------------------------------------------------------- llama server


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _warm_up(base: str) -> None:
    """One chat and one raw request, one at a time: the server's first chat request sets
    things up lazily, and several first requests at once take seconds each."""
    bodies = [
        {"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 1},
        {"prompt": "Hi", "max_tokens": 1},
    ]
    for endpoint, body in zip(("chat/completions", "completions"), bodies, strict=True):
        request = urllib.request.Request(
            f"{base}/{endpoint}",
            data=json.dumps({"model": "smollm2", **body}).encode(),
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=60) as reply:
            reply.read()


@contextlib.contextmanager
def llama_server(*, startup_timeout: float = 120.0) -> Iterator[str]:
    """Run ``llama_cpp.server`` on SmolLM2-135M; yields its ``http://127.0.0.1:PORT/v1``.

    Skips the test when the server extra or the model package is not installed.
    """
    for module in ("uvicorn", "fastapi", "sse_starlette", "starlette_context"):
        needs(module)
    model = needs_embedded_model()
    port = _free_port()
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(model),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "2048",
        # one thread: llama.cpp's threads wait for each other by spinning, and two of them
        # on two cores that other work also wants make a few-token answer take many seconds
        "--n_threads",
        "1",
        "--n_threads_batch",
        "1",
        "--logits_all",
        "true",
        "--interrupt_requests",
        "false",
        "--verbose",
        "false",
    ]
    base = f"http://127.0.0.1:{port}/v1"
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + startup_timeout
            while True:
                if process.poll() is not None:
                    log.seek(0)
                    tail = log.read()[-3000:].decode(errors="replace")
                    raise RuntimeError(f"llama_cpp.server exited early:\n{tail}")
                try:
                    with urllib.request.urlopen(f"{base}/models", timeout=2) as reply:
                        if reply.status == 200:
                            break
                except (urllib.error.URLError, ConnectionError, TimeoutError):
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"llama_cpp.server not ready in {startup_timeout:g} s")
                time.sleep(0.2)
            _warm_up(base)
            yield base
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
