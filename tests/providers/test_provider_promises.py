"""What the HTTP providers promise under a hostile or broken server, for every backend.

Each case runs against a real HTTP server on 127.0.0.1 (a thread, bounded loops) and goes
through ``connect`` and ``ModelClient`` as a command's requests do:

* a server that sends its headers and then trickles the body, one byte every 2 s, is cut
  off at the ``timeout`` option (connect + headers + body), and a client's ``deadline``
  holds during an attempt, not only between attempts;
* a reply that echoes the API key (a misconfigured proxy) reaches the caller, and the
  cache, with the key replaced by ``[REDACTED]``, and one warning names the variable;
* a key that cannot be sent in a header (a newline, a control or non-ASCII character) is a
  configuration error before any request, naming the variable, never the value; an error
  reply that quotes the key, whatever its prefix, never shows it.
"""

from __future__ import annotations

import asyncio
import json
import socket
import socketserver
import threading
import time
import warnings
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest

from hyoka.errors import HyokaWarning
from hyoka.providers import (
    GaveUpError,
    GenerationRequest,
    GenerationResponse,
    Message,
    ModelClient,
    ProviderError,
    RetryPolicy,
    SamplingParams,
    TransientError,
    connect,
)
from wire_servers import anthropic_message, gemini_candidate, gemini_response

T = TypeVar("T")

#: The ``timeout`` option in the trickle tests, and the byte interval the server keeps.
TIMEOUT_S = 3.0
TRICKLE_EVERY_S = 2.0
#: What a failing call may take beyond its bound: event-loop and thread scheduling on a
#: busy two-core machine, not a second read timeout.
SLACK_S = 1.5
ONE_ATTEMPT = RetryPolicy(max_attempts=1)


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


# --------------------------------------------------------------------------- the server


@dataclass
class Seen:
    """One request as the server read it: header names lower-cased."""

    path: str
    headers: dict[str, str]
    body: bytes


Behaviour = Callable[[socket.socket, Seen], None]


@dataclass
class RawServer:
    """An HTTP/1.1 server that hands each request to ``behaviour`` (one per connection)."""

    behaviour: Behaviour
    seen: list[Seen] = field(default_factory=list)

    def __post_init__(self) -> None:
        outer = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                sock: socket.socket = self.request
                sock.settimeout(10.0)
                try:
                    request = _read_request(sock)
                except (OSError, ValueError):
                    return
                if request is None:  # a bare connect (the openai backend's preflight)
                    return
                outer.seen.append(request)
                try:
                    outer.behaviour(sock, request)
                except OSError:  # the client gave up: what the trickle tests expect
                    return

        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._server.block_on_close = False  # a trickling handler ends on its own
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,))

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> RawServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)


def _read_request(sock: socket.socket) -> Seen | None:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        data += chunk
        if len(data) > 1 << 20:
            raise ValueError("request head too large")
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return Seen(path=lines[0].split(" ")[1], headers=headers, body=body)


def _send(sock: socket.socket, status: int, body: bytes) -> None:
    head = (
        f"HTTP/1.1 {status} X\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    ).encode()
    sock.sendall(head + body)


def trickle(sock: socket.socket, seen: Seen) -> None:
    """Headers at once, then the body one byte every ``TRICKLE_EVERY_S``: at most 15 bytes
    (30 s), then the connection closes, so no test can hang on this server."""
    sock.sendall(
        b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
        b"content-length: 4096\r\nconnection: close\r\n\r\n"
    )
    for byte in b'{"id": "slow...':
        sock.sendall(bytes([byte]))
        time.sleep(TRICKLE_EVERY_S)


# --------------------------------------------------------------------------- the APIs


@dataclass(frozen=True)
class Api:
    """One backend: its provider string, its key variable, and its reply shapes."""

    provider: str
    key_variable: str
    answer: Callable[[str], dict[str, Any]]
    error: Callable[[str], dict[str, Any]]


def _openai_answer(text: str) -> dict[str, Any]:
    """A chat completion whose one logprob token is the echoed line with the key."""
    line = next((line for line in text.splitlines() if "Bearer" in line), text[:40])
    token = {"token": line, "logprob": -0.5, "bytes": None, "top_logprobs": []}
    return {
        "id": "chatcmpl-echo",
        "object": "chat.completion",
        "created": 0,
        "model": "echo",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
                "logprobs": {"content": [{**token, "top_logprobs": [token]}]},
            }
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8},
    }


APIS = [
    Api(
        "openai",
        "OPENAI_API_KEY",
        _openai_answer,
        lambda message: {"error": {"message": message, "type": "invalid_request_error"}},
    ),
    Api(
        "anthropic",
        "ANTHROPIC_API_KEY",
        anthropic_message,
        lambda message: {
            "type": "error",
            "error": {"type": "invalid_request_error", "message": message},
        },
    ),
    Api(
        "google",
        "GEMINI_API_KEY",
        lambda text: gemini_response([gemini_candidate(text)]),
        lambda message: {"error": {"code": 400, "message": message, "status": "INVALID"}},
    ),
]
KEY_VARIABLES = (
    "OPENAI_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GOOGLE_API_KEY",
    "GEMINI_API_KEY",
)


@pytest.fixture(autouse=True)
def no_keys_from_the_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


def _base_url(api: Api, server: RawServer) -> str:
    return f"{server.url}/v1" if api.provider == "openai" else server.url


def _client(api: Api, server: RawServer, **kwargs: Any) -> ModelClient:
    options = kwargs.pop("options", {})
    return connect(
        f"{api.provider}/echo-model",
        base_url=_base_url(api, server),
        options=options,
        no_cache=kwargs.pop("no_cache", True),
        **kwargs,
    )


def question(**params: Any) -> GenerationRequest:
    return GenerationRequest(
        messages=(Message(role="user", content="こんにちは"),),
        params=SamplingParams(**params),
    )


def _ids(api: Api) -> str:
    return api.provider


# --------------------------------------------------------------------------- hangs


@pytest.mark.parametrize("api", APIS, ids=_ids)
def test_a_trickled_body_is_cut_off_at_the_timeout(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(api.key_variable, "test-key-0123456789")
    with RawServer(trickle) as server:

        async def go() -> float:
            client = _client(api, server, options={"timeout": TIMEOUT_S}, retry=ONE_ATTEMPT)
            async with client:
                started = time.monotonic()
                with pytest.raises(GaveUpError, match=r"within 3 s") as info:
                    await client.generate(question())
                assert isinstance(info.value.last_error, TransientError)
                return time.monotonic() - started

        elapsed = run(go())
        assert len(server.seen) == 1
    # a per-read timeout would never fire: a byte comes every 2 s, under the 3 s timeout
    assert TIMEOUT_S - 0.1 <= elapsed < TIMEOUT_S + SLACK_S


@pytest.mark.parametrize("api", APIS, ids=_ids)
def test_the_deadline_holds_during_an_attempt(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(api.key_variable, "test-key-0123456789")
    deadline = 2.0
    with RawServer(trickle) as server:

        async def go() -> float:
            # the backend's own timeout (600 s) is far away: only the deadline can stop it
            client = _client(api, server, retry=RetryPolicy(deadline=deadline))
            async with client:
                started = time.monotonic()
                with pytest.raises(GaveUpError, match=r"2 s deadline.*during attempt 1"):
                    await client.generate(question())
                assert client.stats.failures == 1
                return time.monotonic() - started

        elapsed = run(go())
    assert deadline - 0.1 <= elapsed < deadline + SLACK_S


# --------------------------------------------------------------------------- secrets


def echo_headers(api: Api) -> Behaviour:
    """A misconfigured proxy: it answers with the request's headers in the reply text."""

    def behaviour(sock: socket.socket, seen: Seen) -> None:
        shown = "\n".join(f"{name}: {value}" for name, value in seen.headers.items())
        _send(sock, 200, json.dumps(api.answer(f"You sent:\n{shown}")).encode())

    return behaviour


@pytest.mark.parametrize("api", APIS, ids=_ids)
def test_a_reply_echoing_the_key_is_redacted_everywhere(
    api: Api, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    key = f"{api.provider[:3]}-live-SENTINEL-0123456789abcdef"
    monkeypatch.setenv(api.key_variable, key)
    logprobs = api.provider == "openai"
    with RawServer(echo_headers(api)) as server:

        async def go() -> tuple[list[GenerationResponse], GenerationResponse]:
            client = _client(api, server, no_cache=False, cache_dir=tmp_path)
            async with client:
                fresh = [
                    await client.generate(question(logprobs=logprobs), sample_key=str(i))
                    for i in range(3)
                ]
                again = await client.generate(question(logprobs=logprobs), sample_key="0")
                assert client.stats.redacted == 3
                assert client.stats.requests == 3
            return fresh, again

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fresh, again = run(go())
        assert len(server.seen) == 3
        assert any(key in value for value in server.seen[0].headers.values())  # sent, echoed
    for response in [*fresh, again]:
        dumped = response.model_dump_json()
        assert key not in dumped
        assert response.text.startswith("You sent:")
        assert "[REDACTED]" in response.text
    if logprobs:
        (token,) = fresh[0].choices[0].logprobs or ()
        assert "[REDACTED]" in token.token and key not in token.token
        assert key not in token.top[0].token
    assert again.cached and again.text == fresh[0].text  # cached, redacted
    # one clear line for the whole run, naming the variable and not the value
    told = [w for w in caught if issubclass(w.category, HyokaWarning)]
    assert len(told) == 1
    line = str(told[0].message)
    assert api.key_variable in line and "was redacted" in line
    assert key not in line and "\n" not in line
    assert not [w for w in caught if not issubclass(w.category, HyokaWarning)]
    for path in tmp_path.iterdir():
        assert key.encode() not in path.read_bytes(), path


def test_a_keyless_server_sees_a_placeholder_that_is_no_secret(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A local OpenAI-compatible server needs no key: the placeholder sent in its place is
    not a secret, so a reply that shows it is not rewritten and no warning is given, while
    a real secret elsewhere in the environment is still redacted from the same reply."""
    (api,) = [a for a in APIS if a.provider == "openai"]
    for variable in ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY"):
        monkeypatch.delenv(variable, raising=False)
    token = "tok-0123456789-SENTINEL"
    monkeypatch.setenv("HYOKA_TEST_SERVICE_TOKEN", token)

    def echo_with_token(sock: socket.socket, seen: Seen) -> None:
        shown = "\n".join(f"{name}: {value}" for name, value in seen.headers.items())
        _send(sock, 200, json.dumps(api.answer(f"You sent:\n{shown}\n{token}")).encode())

    with RawServer(echo_with_token) as server:

        async def go() -> tuple[GenerationResponse, int]:
            async with _client(api, server) as client:
                response = await client.generate(question())
                return response, client.stats.redacted

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            response, redacted = run(go())
    assert "authorization: Bearer not-needed" in response.text  # the placeholder, as sent
    assert token not in response.text and "[REDACTED]" in response.text
    assert redacted == 1
    told = [str(w.message) for w in caught if issubclass(w.category, HyokaWarning)]
    assert len(told) == 1 and "HYOKA_TEST_SERVICE_TOKEN" in told[0]
    assert "OPENAI_API_KEY" not in told[0]


def error_quoting_the_key(api: Api) -> Behaviour:
    def behaviour(sock: socket.socket, seen: Seen) -> None:
        value = next(
            seen.headers[name].removeprefix("Bearer ")
            for name in ("authorization", "x-api-key", "x-goog-api-key")
            if name in seen.headers
        )
        _send(sock, 400, json.dumps(api.error(f"the key {value} is not valid here")).encode())

    return behaviour


@pytest.mark.parametrize("api", APIS, ids=_ids)
@pytest.mark.parametrize(
    "key", ["gsk_live_0123456789abcdefXYZ", "AIzaSyA-0123456789abcdef", "sk-proj-0123456789abc"]
)
def test_an_error_quoting_the_key_never_shows_it(
    api: Api, key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(api.key_variable, key)
    with RawServer(error_quoting_the_key(api)) as server:

        async def go() -> ProviderError:
            async with _client(api, server, retry=ONE_ATTEMPT) as client:
                with pytest.raises(ProviderError) as info:
                    await client.generate(question())
            return info.value

        error = run(go())
        assert len(server.seen) == 1
    assert "HTTP 400" in str(error)
    assert "the key [REDACTED] is not valid" in str(error)
    assert key not in str(error) and key not in repr(error)
    assert not isinstance(error, TransientError)


# --------------------------------------------------------------------------- bad keys


@pytest.mark.parametrize("api", APIS, ids=_ids)
@pytest.mark.parametrize(
    ("key", "problem"),
    [
        ("gsk_0123456789abcdef\nX-Injected: 1", "a newline"),
        ("sk-0123456789abcdef\r\nsecond-line", "a newline"),
        ("key-0123456789\x01abcdef", "a control character"),
        ("sk-0123456789abcdéfgh", "a non-ASCII character"),
        ("ｓｋ－ｆｕｌｌｗｉｄｔｈ１２３４５６７８", "a non-ASCII character"),
    ],
    ids=["lf", "crlf", "control", "accent", "fullwidth"],
)
def test_a_key_that_cannot_be_sent_fails_before_any_request(
    api: Api, key: str, problem: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(api.key_variable, key)

    def never(sock: socket.socket, seen: Seen) -> None:
        raise AssertionError("no request may be made")

    with RawServer(never) as server:
        with pytest.raises(ProviderError) as info:
            _client(api, server)
        assert server.seen == []
    message = str(info.value)
    assert message.startswith(f"{api.key_variable} contains {problem}; it cannot be sent")
    assert "\n" not in message
    assert "malformed JSON" not in message  # our configuration, not the server's fault
    for piece in key.replace("\r", "\n").split("\n"):
        assert not piece or piece[:10] not in message
    assert not isinstance(info.value, TransientError)  # never retried
