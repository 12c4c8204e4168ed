"""Local HTTP servers that speak the Anthropic Messages API, the Gemini API and the OpenAI
chat/completions API on the wire.

The hosted services cannot be reached from the tests, so each server answers on
127.0.0.1 (a free port) in the documented JSON shapes, checks the API key the way the
service does, and records every request it receives (path, headers, JSON body), so a
test can assert exactly what a provider sent. Replies can be scripted per request
(errors, odd bodies, slow answers; sent once the key has passed); without a script the
request is checked like the service checks it and a valid answer is built from it.

Use as a context manager (``reset()`` between tests lets one server serve a module)::

    with AnthropicServer(api_key="sk-test") as server:
        server.script(Reply(429, anthropic_error("rate_limit_error", "slow down"),
                            headers={"retry-after": "7"}))
        ...  # point the provider at server.base_url
        server.received[0].body["messages"]
"""

from __future__ import annotations

import hashlib
import json
import re
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, ClassVar, Literal, Self
from urllib.parse import parse_qs, urlsplit


@dataclass(frozen=True)
class Received:
    """One request as the server saw it; header names are lower-cased."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any
    raw: bytes


@dataclass(frozen=True)
class Reply:
    """A scripted answer: a dict or list body is sent as JSON, bytes as they are."""

    status: int = 200
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    content_type: str = "application/json"


#: what a handler answers to drop the connection unanswered (a server that died)
DROPPED = Reply(status=0)


def _free_port() -> int:
    """A port that nothing listens on (bound, then released at once)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def closed_port_url() -> str:
    """A base URL whose connections are refused: for connection-error tests."""
    return f"http://127.0.0.1:{_free_port()}"


class ServedInThread(ThreadingHTTPServer):
    """A local HTTP server served on its own thread for the length of a ``with`` block, then
    shut, closed and its thread joined: the one way every wire server of the tests runs."""

    _thread: threading.Thread

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.shutdown()
        self.server_close()
        self._thread.join(timeout=5)


class _WireServer(ServedInThread):
    daemon_threads = True
    block_on_close = False
    handler: ClassVar[type[_Handler]]

    def __init__(self, api_key: str, *, port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), self.handler)
        self.api_key = api_key
        self.received: list[Received] = []
        self.served = 0
        #: off: every answer closes its connection, so no client keeps one pooled past its
        #: event loop; on: connections stay open, as the real services keep them
        self.keep_alive = False
        self._replies: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self.serve_forever, args=(0.01,), daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    def script(self, *replies: Reply) -> None:
        """Answer the next requests with these replies, in order, then by default again."""
        with self._lock:
            self._replies.extend(replies)

    def reset(self) -> None:
        """Forget what was received and scripted: a clean server for the next test."""
        with self._lock:
            self.received.clear()
            self._replies.clear()
            self.served = 0
            self.keep_alive = False

    def record(self, received: Received) -> tuple[Reply | None, int]:
        with self._lock:
            self.received.append(received)
            self.served += 1
            return (self._replies.popleft() if self._replies else None), self.served


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _WireServer

    def log_message(self, format: str, *args: Any) -> None:  # quiet test output
        pass

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def _handle(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = None
        url = urlsplit(self.path)
        received = Received(
            method=self.command,
            path=url.path,
            query=parse_qs(url.query),
            headers={name.lower(): value for name, value in self.headers.items()},
            body=body,
            raw=raw,
        )
        scripted, serial = self.server.record(received)
        reply = self.answer(received, serial, scripted)
        self._send(reply)

    def answer(self, received: Received, serial: int, scripted: Reply | None) -> Reply:
        raise NotImplementedError

    def _send(self, reply: Reply) -> None:
        if reply is DROPPED:  # no answer: the connection is closed as the handler ends
            self.close_connection = True
            return
        if reply.delay_s:
            time.sleep(reply.delay_s)
        if isinstance(reply.body, bytes):
            payload = reply.body
        elif reply.body is None:
            payload = b""
        else:
            payload = json.dumps(reply.body, ensure_ascii=False).encode("utf-8")
        try:
            self.send_response(reply.status)
            self.send_header("content-type", reply.content_type)
            self.send_header("content-length", str(len(payload)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            if not self.server.keep_alive:
                self.send_header("connection", "close")
                self.close_connection = True
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout tests)
            self.close_connection = True


# --- Anthropic Messages API ---------------------------------------------------------------


def anthropic_message(
    text: str,
    *,
    model: str = "claude-test",
    stop_reason: str | None = "end_turn",
    stop_sequence: str | None = None,
    input_tokens: int = 10,
    output_tokens: int = 5,
    serial: int = 1,
) -> dict[str, Any]:
    """A ``POST /v1/messages`` success body in the documented shape."""
    return {
        "id": f"msg_test{serial:04d}",
        "type": "message",
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "model": model,
        "stop_reason": stop_reason,
        "stop_sequence": stop_sequence,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
    }


def anthropic_error(error_type: str, message: str) -> dict[str, Any]:
    """An Anthropic error body: ``{"type": "error", "error": {"type", "message"}}``."""
    return {"type": "error", "error": {"type": error_type, "message": message}}


class _AnthropicHandler(_Handler):
    def answer(self, received: Received, serial: int, scripted: Reply | None) -> Reply:
        if received.method != "POST" or received.path != "/v1/messages":
            return Reply(404, anthropic_error("not_found_error", "Not found"))
        key = self.server.api_key
        headers = received.headers
        if headers.get("x-api-key") != key and headers.get("authorization") != f"Bearer {key}":
            return Reply(401, anthropic_error("authentication_error", "invalid x-api-key"))
        if "anthropic-version" not in headers:
            return Reply(
                400,
                anthropic_error("invalid_request_error", "anthropic-version: header is required"),
            )
        if scripted is not None:
            return scripted
        problem = self._invalid(received.body)
        if problem:
            return Reply(400, anthropic_error("invalid_request_error", problem))
        body = received.body
        last_user = next(
            (m["content"] for m in reversed(body["messages"]) if m.get("role") == "user"), ""
        )
        text = f"応答{serial}: {last_user}" if isinstance(last_user, str) else f"応答{serial}"
        return Reply(
            200,
            anthropic_message(
                text,
                model=body["model"],
                input_tokens=10 + serial,
                output_tokens=len(text),
                serial=serial,
            ),
            headers={"request-id": f"req_test{serial:04d}"},
        )

    @staticmethod
    def _invalid(body: Any) -> str | None:
        if not isinstance(body, dict):
            return "request body must be a JSON object"
        for name in ("model", "max_tokens", "messages"):
            if name not in body:
                return f"{name}: Field required"
        if not isinstance(body["max_tokens"], int) or body["max_tokens"] < 1:
            return "max_tokens: must be a positive integer"
        messages = body["messages"]
        if not isinstance(messages, list) or not messages:
            return "messages: at least one message is required"
        for i, message in enumerate(messages):
            if message.get("role") not in ("user", "assistant"):
                return f"messages.{i}.role: Input should be 'user' or 'assistant'"
        return None


class AnthropicServer(_WireServer):
    """``POST /v1/messages``; accepts the key as ``x-api-key`` or ``Authorization: Bearer``."""

    handler = _AnthropicHandler

    def __enter__(self) -> AnthropicServer:
        super().__enter__()
        return self


# --- Gemini API -----------------------------------------------------------------------------

_GENERATE = re.compile(r"^/(v1|v1beta)/models/([^/:]+):generateContent$")


def gemini_candidate(
    text: str,
    *,
    index: int | None = 0,
    finish_reason: str = "STOP",
    logprobs: list[tuple[str, float, list[tuple[str, float]]]] | None = None,
) -> dict[str, Any]:
    """One candidate; ``logprobs`` is (token, logprob, [(alternative, logprob)]) per token."""
    candidate: dict[str, Any] = {
        "content": {"parts": [{"text": text}], "role": "model"},
        "finishReason": finish_reason,
    }
    if index is not None:
        candidate["index"] = index
    if logprobs is not None:
        candidate["logprobsResult"] = {
            "chosenCandidates": [{"token": tok, "logProbability": lp} for tok, lp, _ in logprobs],
            "topCandidates": [
                {"candidates": [{"token": t, "logProbability": p} for t, p in top]}
                for _, _, top in logprobs
            ],
        }
    return candidate


def gemini_response(
    candidates: list[dict[str, Any]],
    *,
    prompt_tokens: int = 10,
    candidates_tokens: int = 5,
    thoughts_tokens: int | None = None,
    model_version: str = "gemini-test-001",
) -> dict[str, Any]:
    """A ``generateContent`` success body in the documented shape."""
    usage: dict[str, Any] = {
        "promptTokenCount": prompt_tokens,
        "candidatesTokenCount": candidates_tokens,
        "totalTokenCount": prompt_tokens + candidates_tokens + (thoughts_tokens or 0),
    }
    if thoughts_tokens is not None:
        usage["thoughtsTokenCount"] = thoughts_tokens
    return {
        "candidates": candidates,
        "usageMetadata": usage,
        "modelVersion": model_version,
        "responseId": "resp-test",
    }


def gemini_error(
    code: int, message: str, status: str, details: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """A Google API error body: ``{"error": {"code", "message", "status"}}``."""
    error: dict[str, Any] = {"code": code, "message": message, "status": status}
    if details is not None:
        error["details"] = details
    return {"error": error}


class _GeminiHandler(_Handler):
    def answer(self, received: Received, serial: int, scripted: Reply | None) -> Reply:
        match = _GENERATE.match(received.path)
        if received.method != "POST" or match is None:
            return Reply(404, gemini_error(404, "Requested entity was not found.", "NOT_FOUND"))
        given = received.headers.get("x-goog-api-key") or next(
            iter(received.query.get("key", [])), None
        )
        if given is None:
            return Reply(
                403,
                gemini_error(
                    403,
                    "Method doesn't allow unregistered callers. Please use an API key.",
                    "PERMISSION_DENIED",
                ),
            )
        if given != self.server.api_key:
            return Reply(
                400,
                gemini_error(
                    400, "API key not valid. Please pass a valid API key.", "INVALID_ARGUMENT"
                ),
            )
        if scripted is not None:
            return scripted
        body = received.body
        if not isinstance(body, dict) or not body.get("contents"):
            return Reply(
                400,
                gemini_error(
                    400,
                    "* GenerateContentRequest.contents: contents is not specified",
                    "INVALID_ARGUMENT",
                ),
            )
        config = body.get("generationConfig") or {}
        count = int(config.get("candidateCount", 1))
        top_k = config.get("logprobs")
        candidates = []
        for index in range(count):
            text = f"応答{serial}-{index}"
            logprobs = None
            if config.get("responseLogprobs"):
                logprobs = [
                    (
                        char,
                        -0.25 * (j + 1),
                        [(char, -0.25 * (j + 1)), ("x", -3.0)][: int(top_k or 0)],
                    )
                    for j, char in enumerate(text)
                ]
            candidates.append(gemini_candidate(text, index=index, logprobs=logprobs))
        return Reply(
            200,
            gemini_response(candidates, prompt_tokens=10 + serial, candidates_tokens=4 * count),
        )


class GeminiServer(_WireServer):
    """``POST /{v1,v1beta}/models/{model}:generateContent``; key in ``x-goog-api-key``."""

    handler = _GeminiHandler

    def __enter__(self) -> GeminiServer:
        super().__enter__()
        return self


# --- OpenAI-compatible chat/completions, with seeded replies --------------------------------

#: Words of the seeded replies: each is at least five characters, so a character 5-gram
#: spans at most two of them and common 5-grams recur across a few hundred replies.
SEEDED_WORDS = (
    "日本の伝統文化は", "長い歴史の中で", "人々の暮らしに", "深く根付いており、",
    "季節ごとの行事が", "今も大切にされています。", "地域によって異なる", "独自の習慣があり、",
    "多くの観光客が", "その魅力に惹かれます。", "現代の生活でも", "受け継がれています。",
)  # fmt: skip


def seeded_reply(text: str, seed: int | None, index: int, max_tokens: int | None) -> str:
    """The reply of the seeded server: a function of the prompt, the seed and the choice.

    Each word counts as one token, so ``max_tokens`` bounds the words. About one reply in
    three carries a number drawn from the hash (a "hallucinated" figure: its 5-grams occur
    once), the rest only the shared words: a pool of replies holds both common and one-off
    5-grams, as a real model's does.
    """
    digest = hashlib.sha256(f"{seed}\x00{index}\x00{text}".encode()).digest()
    words = [SEEDED_WORDS[b % len(SEEDED_WORDS)] for b in digest[1 : 4 + digest[0] % 6]]
    if digest[10] % 3 == 0:
        words.insert(1, f"西暦{int.from_bytes(digest[11:14], 'big') % 9000 + 1000}年に")
    return "".join(words[: max_tokens or len(words)])


class _OpenAIHandler(_Handler):
    """``POST /v1/chat/completions`` and ``/v1/completions``: a valid answer built at once
    from the request (``seeded_reply`` of the last user message or the prompt, the request's
    ``seed`` and the choice's index), the same reply to the same request every time."""

    server: OpenAIServer

    def answer(self, received: Received, serial: int, scripted: Reply | None) -> Reply:
        if received.method == "GET" and received.path == "/v1/models" and self.server.lists:
            data = [{"id": name, "object": "model", "created": 0, "owned_by": "me"}
                    for name in self.server.lists]  # fmt: skip
            return Reply(200, {"object": "list", "data": data})
        chat = received.path == "/v1/chat/completions"
        if received.method != "POST" or received.path not in (
            "/v1/chat/completions",
            "/v1/completions",
        ):
            return Reply(404, _openai_error(f"no route {received.path}", "not_found"))
        key = self.server.api_key
        if key and received.headers.get("authorization") != f"Bearer {key}":
            return Reply(401, _openai_error("Incorrect API key provided", "invalid_api_key"))
        self.server.hold()
        if self.server.dies(serial):
            return DROPPED
        if scripted is not None:
            return scripted
        body = received.body
        if not isinstance(body, dict) or "model" not in body:
            return Reply(400, _openai_error("model: Field required", "invalid_request_error"))
        if chat:
            users = [m.get("content", "") for m in body.get("messages") or []
                     if m.get("role") == "user"]  # fmt: skip
            text = str(users[-1]) if users else ""
        else:
            text = str(body.get("prompt", ""))
        seed, max_tokens = body.get("seed"), body.get("max_tokens")
        fixed = self.server.replies.get(text, self.server.reply_to_all)
        replies = [
            fixed if fixed is not None else seeded_reply(text, seed, i, max_tokens)
            for i in range(int(body.get("n", 1)))
        ]
        think = self.server.thinking
        if think is not None and self.server.thinking_apart is False:
            replies = [f"<think>{think}</think>\n\n{reply}" for reply in replies]
        message: dict[str, str] = {}
        if think is not None and self.server.thinking_apart:
            message[self.server.thinking_apart] = think  # as vLLM's reasoning parser
        choices = [
            {
                "index": i,
                "message": {"role": "assistant", "content": reply, **message},
                "finish_reason": "stop",
            }
            if chat
            else {"index": i, "text": reply, "finish_reason": "stop", "logprobs": None}
            for i, reply in enumerate(replies)
        ]
        usage = {"prompt_tokens": len(text), "completion_tokens": sum(map(len, replies))}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        return Reply(
            200,
            {
                "id": f"cmpl-seeded-{serial}",
                "object": "chat.completion" if chat else "text_completion",
                "created": 1700000000,
                "model": self.server.serves(serial) if self.server.serves else body["model"],
                "choices": choices,
                "usage": usage,
            },
        )


def _openai_error(message: str, kind: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


class OpenAIServer(_WireServer):
    """An instant OpenAI-compatible server with seeded replies (``seeded_reply``).

    ``api_key=""`` accepts any key (as a local llama.cpp or vLLM server does). ``replies``
    maps a request's text (its last user message, or its raw prompt) to a fixed reply, for
    the one request a test needs to say something in particular.
    ``hold_after(n)`` answers the first ``n`` requests and holds every later one until
    ``release()`` (at most a minute): a test can kill a client at a known point, with its
    next request in flight; ``held`` counts the requests waiting.
    ``thinking``: a reasoning model's thinking before every reply, inline
    (``<think>...</think>`` and a blank line before the content, ``thinking_apart`` False)
    or apart, in the chat message's field named by ``thinking_apart``
    (``reasoning_content``, as vLLM's, SGLang's and llama.cpp server's reasoning parsers
    send it, or ``reasoning``). ``serves``, when set,
    names the model each answer says served it (by the request's number from 1), as
    OpenAI answers ``gpt-4o`` with ``gpt-4o-2024-08-06``; unset, the model asked for.
    ``reply_to_all``, when set, answers every request ``replies`` does not name.
    ``lists``, when set, are the model ids ``GET /v1/models`` answers (unset: 404); such a
    request is not counted in ``served`` and takes no scripted reply.
    ``die_after(n)`` answers the first ``n`` requests; the next stops the server (its
    socket closed: connections are refused) and every request then in flight is dropped
    unanswered, as a server killed mid-run.
    """

    handler = _OpenAIHandler

    def __init__(self, api_key: str = "", *, port: int = 0) -> None:
        super().__init__(api_key, port=port)  # a port: a server restarted where one died
        self.serves: Callable[[int], str] | None = None
        self.reply_to_all: str | None = None
        self.replies: dict[str, str] = {}
        self.thinking: str | None = None
        self.thinking_apart: str | Literal[False] = False
        self.lists: list[str] | None = None
        self.held = 0
        self._hold_after: int | None = None
        self._die_after: int | None = None
        self._released = threading.Event()

    def record(self, received: Received) -> tuple[Reply | None, int]:
        if received.method == "GET" and received.path == "/v1/models":
            with self._lock:
                self.received.append(received)
                return None, self.served
        return super().record(received)

    def die_after(self, answered: int) -> None:
        self._die_after = answered

    def dies(self, serial: int) -> bool:
        """Whether request ``serial`` finds the server dead: it stops serving, at once."""
        if self._die_after is None or serial <= self._die_after:
            return False
        self.shutdown()  # from a handler's thread: the serving loop ends, this one goes on
        self.server_close()
        return True

    def hold_after(self, answered: int) -> None:
        self._hold_after = answered
        self._released.clear()

    def release(self) -> None:
        self._released.set()

    def hold(self) -> None:
        """Called by the handler for each request: wait here if it is past the limit."""
        with self._lock:
            limit = self._hold_after
            waits = limit is not None and self.served > limit
            if waits:
                self.held += 1
        if waits:
            self._released.wait(60)
            with self._lock:
                self.held -= 1

    def reset(self) -> None:
        super().reset()
        self.serves = None
        self.reply_to_all = None
        self.replies.clear()
        self.thinking, self.thinking_apart = None, False
        self.lists = None
        self._hold_after = None
        self._die_after = None
        self._released.clear()

    @property
    def base_url(self) -> str:
        return super().base_url + "/v1"

    def __enter__(self) -> OpenAIServer:
        super().__enter__()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()  # no handler thread is left waiting
        super().__exit__(exc_type, exc, tb)
