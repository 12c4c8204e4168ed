"""A judge that replays recorded replies: OpenAI chat completions on 127.0.0.1.

Given a request, the server looks up the request's last user message and answers with
the reply recorded for exactly that text, the way the judge answered it once. With the
published judgments of a benchmark as the recording, re-judging the published answers
must give the published scores: any difference is a difference in how the judging
engine builds prompts, decides without a call, or reads ratings, never in the judge.

A recording may hold several replies for one prompt: the n-th request for that prompt
gets the n-th reply (the last one again after that), so a test can script "no rating,
then a rating" to exercise retries. A prompt without a recording is answered
``missing_reply`` (HTTP 200), or HTTP 404 when that is ``None``; a ``gate`` (an event)
holds every reply until it is set (``hold_until``: until that many requests have come, so
a test sees how many a client keeps in flight at once, ``most_in_flight``); every request
is kept (``received``) so a test can assert the temperatures and budgets that were sent.

Where the recording keeps replies but not the prompts they answered (ja-vicuna-qa-benchmark's
pair files), ``find`` maps a prompt to its replies instead: it finds in the prompt's text
what the reply was about (a question and the two answers, in the order shown), knowing
nothing of how the prompt was built around them.

Use as a context manager::

    with ReplayJudge({"prompt": "評価: [[7]]"}) as judge:
        load_provider("openai/gpt-4o-mini", base_url=judge.base_url)
"""

from __future__ import annotations

import json
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import urlsplit

from wire_servers import ServedInThread


@dataclass(frozen=True)
class ReplayedRequest:
    """One chat request as the server saw it."""

    user_prompt: str
    system_prompt: str | None
    model: str
    temperature: float | None
    max_tokens: int | None
    recorded: bool
    body: Mapping[str, Any]
    path: str = ""  # as sent: path and query


class ReplayJudge(ServedInThread):
    daemon_threads = True
    request_queue_size = 256

    def __init__(
        self,
        replies: Mapping[str, str | Sequence[str]],
        *,
        missing_reply: str | None = None,
        gate: threading.Event | None = None,
        find: Callable[[str], Sequence[str] | None] | None = None,
        names_model: bool = True,
        hold_until: int | None = None,
        hold_s: float = 60.0,
    ) -> None:
        self.replies = {
            prompt: (reply,) if isinstance(reply, str) else tuple(reply)
            for prompt, reply in replies.items()
        }
        self.missing_reply = missing_reply
        self.find = find
        #: whether a reply names the model that served it (the one asked for, as a
        #: replaying server knows no other); ``False``: a reply without ``model``
        self.names_model = names_model
        #: When given, every reply waits (at most a minute) until it is set: a test holds a
        #: run mid-way, with its requests in flight, for as long as it needs.
        self.gate = gate
        #: When given, every reply waits until this many requests have come (the gate
        #: opens by itself then), or ``hold_s`` seconds: a client that keeps fewer in
        #: flight shows as ``most_in_flight`` below it (and takes ``hold_s``).
        self.hold_until = hold_until
        self.hold_s = hold_s
        if hold_until is not None and gate is None:
            self.gate = threading.Event()
        #: the most requests the server held at once (received, not yet answered)
        self.most_in_flight = 0
        self._in_flight = 0
        self.received: list[ReplayedRequest] = []
        self._asked: defaultdict[str, int] = defaultdict(int)
        self._lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _Handler)
        self._thread = threading.Thread(target=self.serve_forever, args=(0.01,), daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def reply_to(self, body: Mapping[str, Any], path: str = "") -> str | None:
        """The recorded reply to a chat-completions ``body`` (``None``: nothing recorded);
        ``path`` is the request's path and query, kept with it."""
        messages = body.get("messages") or []
        users = [m.get("content", "") for m in messages if m.get("role") == "user"]
        systems = [m.get("content", "") for m in messages if m.get("role") == "system"]
        prompt = str(users[-1]) if users else ""
        recorded = self.replies.get(prompt)
        if recorded is None and self.find is not None:
            found = self.find(prompt)
            recorded = None if found is None else tuple(found)
        with self._lock:
            asked = self._asked[prompt]
            self._asked[prompt] += 1
            self.received.append(
                ReplayedRequest(
                    user_prompt=prompt,
                    system_prompt=str(systems[0]) if systems else None,
                    model=str(body.get("model", "")),
                    temperature=body.get("temperature"),
                    max_tokens=body.get("max_tokens", body.get("max_completion_tokens")),
                    recorded=recorded is not None,
                    body=body,
                    path=path,
                )
            )
        if recorded is None:
            return self.missing_reply
        return recorded[min(asked, len(recorded) - 1)]


class _Handler(BaseHTTPRequestHandler):
    # keep-alive: thousands of requests over a few pooled connections
    protocol_version = "HTTP/1.1"
    # a reply's head and body are two writes: with Nagle on, the body waits for the
    # client's delayed ACK of the head (40 ms a reply on Linux), on every request
    disable_nagle_algorithm = True
    server: ReplayJudge

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            self._send(400, {"error": {"message": "malformed JSON", "type": "invalid_request"}})
            return
        if not urlsplit(self.path).path.rstrip("/").endswith("/chat/completions"):
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            return
        reply = self.server.reply_to(body, self.path)
        server = self.server
        with server._lock:
            server._in_flight += 1
            server.most_in_flight = max(server.most_in_flight, server._in_flight)
            held = server.hold_until
            if server.gate is not None and held is not None and len(server.received) >= held:
                server.gate.set()
        try:
            if server.gate is not None:
                server.gate.wait(server.hold_s)
            self._reply(body, reply)
        finally:
            with server._lock:
                server._in_flight -= 1

    def _reply(self, body: Mapping[str, Any], reply: str | None) -> None:
        if reply is None:
            error = {"message": "no recorded reply for this prompt", "type": "not_found"}
            self._send(404, {"error": error})
            return
        answer: dict[str, Any] = {
            "id": f"chatcmpl-replay-{len(self.server.received)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "replay"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        }
        if not self.server.names_model:
            del answer["model"]
        self._send(200, answer)

    def _send(self, status: int, payload: Mapping[str, Any]) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        del format, args
