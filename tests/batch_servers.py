"""Local servers that speak OpenAI's Batch API and Anthropic's Message Batches on the wire,
beside each API's online endpoint, so a test drives the official SDKs through hyoka's
``--batch`` commands and compares what they write with what the online path writes.

Each server answers a request (online, or as one line of a batch) with the same reply,
made from the request's messages, so a batch's records can be compared with the online
calls' records. A batch stays in progress until the test says how it ends
(``finish``: completed, some requests failed; ``expire``: the window passed after the
first N): no sleeps, no clocks. Everything received is kept (``received``) to count
uploads, submissions and online calls.

OpenAI (``/v1``): ``POST /chat/completions``; ``POST /files`` (multipart, ``purpose=batch``)
and ``GET /files/{id}/content``; ``POST /batches`` and ``GET /batches/{id}`` (``validating``
until ended, then ``completed`` or ``expired`` with ``output_file_id`` and
``error_file_id``); a request that asks for ``logprobs`` gets them, online and in a batch
alike (``_logprobs``), and the online bodies are kept (``bodies``).
Anthropic: ``POST /v1/messages``; ``POST /v1/messages/batches``,
``GET /v1/messages/batches/{id}`` (``in_progress`` until ``ended``, then ``results_url``)
and ``GET /v1/messages/batches/{id}/results`` (JSON Lines of ``succeeded``, ``errored``,
``expired`` results).
"""

from __future__ import annotations

import contextlib
import email.parser
import email.policy
import hashlib
import json
import re
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from wire_servers import ServedInThread

CREATED = 1_760_000_000


def reply_text(messages: list[dict[str, Any]], system: str = "") -> str:
    """The reply both paths give to a conversation: a digest of it, a rating and a
    verdict a judge's rules read (``[[N]]``, ``[[A]]``)."""
    material = json.dumps([system, messages], ensure_ascii=False, sort_keys=True)
    digest = hashlib.sha256(material.encode("utf-8")).hexdigest()
    verdict = "ABC"[int(digest[4:6], 16) % 3]
    return f"Answer {digest[:12]}. Rating: [[{1 + int(digest[:4], 16) % 10}]] [[{verdict}]]"


@dataclass
class Batch:
    id: str
    requests: list[dict[str, Any]]  # the input's lines (OpenAI) or requests (Anthropic)
    ended: str | None = None  # None: in progress; "completed", "expired", "cancelled", "failed"
    failed: set[str] = field(default_factory=set)  # custom ids that failed
    done: int | None = None  # expired or cancelled: how many were answered first
    metadata: dict[str, str] | None = None  # what the create call sent (OpenAI)
    created: float = field(default_factory=time.time)
    why: str = ""  # a failed batch's error message (OpenAI's ``errors``)
    input_file: str = ""  # the uploaded file the create call named (OpenAI)
    body_bytes: int = 0  # the create call's body as the server received it (Anthropic)


class _Server(ServedInThread):
    daemon_threads = True

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(("127.0.0.1", 0), handler)
        self.lock = threading.Lock()
        self.received: list[tuple[str, str]] = []
        #: the bodies of the online calls (OpenAI's chat completions), in order
        self.bodies: list[dict[str, Any]] = []
        self.batches: dict[str, Batch] = {}
        self.files: dict[str, bytes] = {}
        #: what the server says a running batch's status is (a misconfigured proxy's text)
        self.status_text = "validating"
        #: the error code of a failed request's error-file line (``None``: an HTTP 500 reply)
        self.error_code: str | None = None
        #: raw result lines added to every ended batch's output file (foreign, repeated ids)
        self.extra_lines: list[dict[str, Any]] = []
        #: text lines put first in every ended batch's results (unreadable ones)
        self.raw_lines: list[str] = []
        #: the id the create call answers with instead of the batch's (a malformed one)
        self.given_id: Any = None
        #: batch ids the server no longer knows (deleted: HTTP 404)
        self.gone: set[str] = set()
        #: the HTTP statuses of the next answers to a batch's state (transient faults)
        self.faults: list[int] = []
        #: the HTTP statuses of the next create calls, answered without making a batch (0:
        #: that call makes its batch, as the API does)
        self.create_faults: list[int] = []
        #: a batch's state answered with this body instead (a proxy's page, wrong kinds)
        self.garbled: bytes | dict[str, Any] | None = None
        #: file ids the server no longer has (an output file deleted: HTTP 404)
        self.gone_files: set[str] = set()
        #: set: the create call's answer waits until ``release`` is set (``created`` is set
        #: once the batch exists), so a test can kill the client between the two
        self.hold: threading.Event | None = None
        self.created = threading.Event()
        self._thread = threading.Thread(target=self.serve_forever, args=(0.01,), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def calls(self, method: str, prefix: str) -> int:
        """How many requests of ``method`` came to a path starting with ``prefix``."""
        return sum(1 for m, path in self.received if m == method and path.startswith(prefix))

    def finish(self, failed: Iterable[str] = ()) -> None:
        """Every batch in progress completes; the requests whose custom ids are in
        ``failed`` fail (a server error)."""
        with self.lock:
            for batch in self.batches.values():
                if batch.ended is None:
                    batch.ended, batch.failed = "completed", set(failed)

    def expire(self, done: int, how: str = "expired") -> None:
        """Every batch in progress expires (or is ``cancelled``) after answering its first
        ``done`` requests."""
        with self.lock:
            for batch in self.batches.values():
                if batch.ended is None:
                    batch.ended, batch.done = how, done

    def fail(self, why: str) -> None:
        """Every batch in progress fails as a whole (OpenAI's input validation): ``why``."""
        with self.lock:
            for batch in self.batches.values():
                if batch.ended is None:
                    batch.ended, batch.why = "failed", why


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet test output
        pass

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def _handle(self, method: str) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        path = self.path.split("?", 1)[0]
        with self.server.lock:
            self.server.received.append((method, path))
            fault = self._fault(method, path)
            status, body, kind = fault or self.answer(method, path, raw)
        hold = self.server.hold
        if hold is not None and method == "POST" and path.endswith("/batches"):
            self.server.created.set()  # the batch exists; its id not yet told
            hold.wait(10)
        data = body if isinstance(body, bytes) else json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # a killed client
            self.wfile.write(data)

    def _fault(self, method: str, path: str) -> tuple[int, Any, str] | None:
        """A 404 for a batch the server no longer knows, or the next transient fault."""
        parts = path.split("/")
        error: dict[str, Any]
        if method == "POST" and parts[-1] == "batches" and self.server.create_faults:
            status = self.server.create_faults.pop(0)
            if status:  # 0: this create call answered as the API does
                error = {"message": "internal error", "type": "api_error"}
                return status, {"type": "error", "error": error}, "application/json"
            return None
        if method == "GET" and len(parts) > 3 and parts[-3] == "files":
            if parts[-2] in self.server.gone_files:
                error = {"message": "No such File object", "type": "invalid_request_error"}
                return 404, {"error": error}, "application/json"
            return None
        if method != "GET" or "batches" not in parts or parts[-1] == "batches":
            return None
        if parts[parts.index("batches") + 1] in self.server.gone:
            error = {"message": "No batch found", "type": "not_found_error"}
            return 404, {"type": "error", "error": error}, "application/json"
        if self.server.faults:
            error = {"message": "try again", "type": "server_error"}
            return self.server.faults.pop(0), {"type": "error", "error": error}, "application/json"
        garbled = self.server.garbled
        if garbled is not None and parts[-1] != "results":
            kind = "text/html" if isinstance(garbled, bytes) else "application/json"
            return 200, garbled, kind
        return None

    def answer(self, method: str, path: str, raw: bytes) -> tuple[int, Any, str]:
        raise NotImplementedError


# --------------------------------------------------------------------------- OpenAI


def _logprobs(text: str, top: int) -> dict[str, Any]:
    """The reply's tokens (words and the spaces between them) with log probabilities made
    from the text, and ``top`` alternatives each (the token, then the three verdict
    letters): what a chat completion asked for ``logprobs`` carries."""
    tokens = re.findall(r"\s+|\S+", text)
    content = []
    for number, token in enumerate(tokens):
        spread = int(hashlib.sha256(f"{number}{token}".encode()).hexdigest()[:4], 16) / 65536
        chosen = -0.2 - spread  # the alternatives' probabilities sum to less than 1
        letters = [letter for letter in "ABC" if letter != token.strip("[]")]
        alternatives = [(token, chosen), *((v, chosen - 3.0 - n) for n, v in enumerate(letters))]
        content.append({
            "token": token, "logprob": chosen, "bytes": list(token.encode("utf-8")),
            "top_logprobs": [{"token": alt, "logprob": value, "bytes": list(alt.encode("utf-8"))}
                             for alt, value in alternatives[:top]],
        })  # fmt: skip
    return {"content": content, "refusal": None}


def _completion(body: dict[str, Any], serial: str) -> dict[str, Any]:
    text = reply_text(body["messages"])
    logprobs = _logprobs(text, body.get("top_logprobs") or 0) if body.get("logprobs") else None
    return {
        "id": f"chatcmpl-{serial}", "object": "chat.completion", "created": CREATED,
        "model": f"{body['model']}-2026-01-01",  # the snapshot that served a moving name
        "choices": [{"index": 0, "finish_reason": "stop", "logprobs": logprobs,
                     "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": len(json.dumps(body["messages"])) // 4,
                  "completion_tokens": len(text) // 4,
                  "total_tokens": len(json.dumps(body["messages"])) // 4 + len(text) // 4},
    }  # fmt: skip


def result_line(custom_id: str, text: str) -> dict[str, Any]:
    """One output-file line answering ``custom_id`` with ``text`` (a line the test adds)."""
    body = _completion({"model": "m", "messages": [{"role": "user", "content": text}]}, "x")
    body["choices"][0]["message"]["content"] = text
    return {"id": "batch_req_x", "custom_id": custom_id, "error": None,
            "response": {"status_code": 200, "request_id": "req_x", "body": body}}  # fmt: skip


def _multipart(headers: Any, raw: bytes) -> dict[str, bytes]:
    head = f"content-type: {headers['content-type']}\r\n\r\n".encode()
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + raw)
    parts: dict[str, bytes] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        assert isinstance(payload, bytes)
        parts[str(name)] = payload
    return parts


class _OpenAIHandler(_Handler):
    def answer(self, method: str, path: str, raw: bytes) -> tuple[int, Any, str]:
        server = self.server
        if method == "POST" and path == "/v1/chat/completions":
            server.bodies.append(json.loads(raw))
            return 200, _completion(json.loads(raw), str(len(server.received))), "application/json"
        if method == "POST" and path == "/v1/files":
            parts = _multipart(self.headers, raw)
            assert parts["purpose"] == b"batch", parts["purpose"]
            file_id = f"file-{len(server.files) + 1}"
            server.files[file_id] = parts["file"]
            return 200, self._file(file_id, "batch"), "application/json"
        if method == "GET" and path.startswith("/v1/files/") and path.endswith("/content"):
            file_id = path.split("/")[3]
            return 200, server.files[file_id], "application/octet-stream"
        if method == "POST" and path == "/v1/batches":
            body = json.loads(raw)
            assert body["endpoint"] == "/v1/chat/completions"
            assert body["completion_window"] == "24h"
            lines = server.files[body["input_file_id"]].decode("utf-8").splitlines()
            requests = [json.loads(line) for line in lines if line.strip()]
            assert all(r["method"] == "POST" and r["url"] == body["endpoint"] for r in requests)
            batch_id = f"batch_{len(server.batches) + 1}"
            server.batches[batch_id] = Batch(
                batch_id, requests, metadata=body.get("metadata"), input_file=body["input_file_id"]
            )
            return (
                200,
                self._batch(server.batches[batch_id], body["input_file_id"]),
                "application/json",
            )
        if method == "GET" and path == "/v1/batches":  # newest first, one page
            data = [self._batch(b, "file-1") for b in reversed(server.batches.values())]
            return 200, {"object": "list", "data": data, "has_more": False}, "application/json"
        if method == "GET" and path.startswith("/v1/batches/"):
            batch = server.batches[path.split("/")[3]]
            return 200, self._batch(batch, "file-1"), "application/json"
        return (
            404,
            {"error": {"message": f"no route {path}", "type": "invalid_request_error"}},
            "application/json",
        )

    def _file(self, file_id: str, purpose: str) -> dict[str, Any]:
        return {
            "id": file_id, "object": "file", "bytes": len(self.server.files[file_id]),
            "created_at": CREATED, "filename": f"{file_id}.jsonl", "purpose": purpose,
            "status": "processed",
        }  # fmt: skip

    def _batch(self, batch: Batch, input_file: str) -> dict[str, Any]:
        total = len(batch.requests)
        output_id = error_id = None
        completed = failed = 0
        if batch.ended is not None:
            output_id, error_id, completed, failed = self._results(batch)
        errors = None
        if batch.why:
            errors = {
                "object": "list",
                "data": [
                    {"code": "invalid_request", "message": batch.why, "line": 1, "param": None}
                ],
            }
        return {
            "id": batch.id if self.server.given_id is None else self.server.given_id,
            "object": "batch", "endpoint": "/v1/chat/completions",
            "input_file_id": input_file, "completion_window": "24h",
            "status": batch.ended or self.server.status_text, "created_at": int(batch.created),
            "output_file_id": output_id, "error_file_id": error_id, "errors": errors,
            "metadata": batch.metadata,
            "request_counts": {"total": total, "completed": completed, "failed": failed},
        }  # fmt: skip

    def _results(self, batch: Batch) -> tuple[str | None, str | None, int, int]:
        out: list[str] = []
        errors: list[str] = []
        if batch.why:  # failed as a whole: no results at all
            return None, None, 0, 0
        for number, request in enumerate(batch.requests):
            key = request["custom_id"]
            if batch.done is not None and number >= batch.done:
                code = "batch_cancelled" if batch.ended == "cancelled" else "batch_expired"
                errors.append(json.dumps({
                    "id": f"batch_req_{number}", "custom_id": key, "response": None,
                    "error": {"code": code, "message": "This request was not run."},
                }))  # fmt: skip
            elif key in batch.failed and self.server.error_code is not None:
                errors.append(json.dumps({
                    "id": f"batch_req_{number}", "custom_id": key, "response": None,
                    "error": {"code": self.server.error_code, "message": "bad request"},
                }))  # fmt: skip
            elif key in batch.failed:
                errors.append(json.dumps({
                    "id": f"batch_req_{number}", "custom_id": key,
                    "response": {"status_code": 500, "request_id": f"req_{number}",
                                 "body": {"error": {"message": "The server had an error",
                                                    "type": "server_error"}}},
                    "error": None,
                }))  # fmt: skip
            else:
                out.append(json.dumps({
                    "id": f"batch_req_{number}", "custom_id": key,
                    "response": {"status_code": 200, "request_id": f"req_{number}",
                                 "body": _completion(request["body"], f"{batch.id}-{number}")},
                    "error": None,
                }))  # fmt: skip
        out.extend(json.dumps(line) for line in self.server.extra_lines)
        out[:0] = self.server.raw_lines
        ids: list[str | None] = []
        for lines in (out, errors):
            if not lines:
                ids.append(None)
                continue
            file_id = f"file-{batch.id}-{'out' if lines is out else 'err'}"
            self.server.files[file_id] = ("\n".join(lines) + "\n").encode("utf-8")
            ids.append(file_id)
        return ids[0], ids[1], len(out), len(errors)


def openai_server() -> _Server:
    return _Server(_OpenAIHandler)


# --------------------------------------------------------------------------- Anthropic


def _message(params: dict[str, Any], serial: str) -> dict[str, Any]:
    text = reply_text(params["messages"], params.get("system", ""))
    return {
        "id": f"msg_{serial}", "type": "message", "role": "assistant", "model": params["model"],
        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": len(json.dumps(params["messages"])) // 4,
                  "output_tokens": len(text) // 4},
    }  # fmt: skip


class _AnthropicHandler(_Handler):
    def answer(self, method: str, path: str, raw: bytes) -> tuple[int, Any, str]:
        server = self.server
        key = self.headers.get("x-api-key") or self.headers.get("authorization") or ""
        assert key.removeprefix("Bearer ") == "sk-ant-test", "the API key is sent"
        if method == "POST" and path == "/v1/messages":
            return 200, _message(json.loads(raw), str(len(server.received))), "application/json"
        if method == "POST" and path == "/v1/messages/batches":
            requests = json.loads(raw)["requests"]
            batch_id = f"msgbatch_{len(server.batches) + 1:02d}"
            server.batches[batch_id] = Batch(batch_id, requests, body_bytes=len(raw))
            return 200, self._batch(server.batches[batch_id]), "application/json"
        if method == "GET" and path == "/v1/messages/batches":  # newest first, one page
            data = [self._batch(b) for b in reversed(server.batches.values())]
            return (
                200,
                {"data": data, "has_more": False, "first_id": None, "last_id": None},
                ("application/json"),
            )
        parts = path.split("/")
        if method == "GET" and len(parts) == 5 and parts[3] == "batches":
            return 200, self._batch(server.batches[parts[4]]), "application/json"
        if method == "GET" and len(parts) == 6 and parts[5] == "results":
            batch = server.batches[parts[4]]
            lines = [*server.raw_lines, *(
                json.dumps({"custom_id": r["custom_id"], "result": self._result(batch, n, r)})
                for n, r in enumerate(batch.requests))]  # fmt: skip
            return 200, ("\n".join(lines) + "\n").encode("utf-8"), "application/binary"
        return (
            404,
            {"type": "error", "error": {"type": "not_found_error", "message": path}},
            "application/json",
        )

    def _result(self, batch: Batch, number: int, request: dict[str, Any]) -> dict[str, Any]:
        if batch.done is not None and number >= batch.done:
            return {"type": "canceled" if batch.ended == "cancelled" else "expired"}
        if request["custom_id"] in batch.failed:
            return {"type": "errored", "error": {"type": "error", "error": {
                "type": "api_error", "message": "Internal server error"}}}  # fmt: skip
        return {"type": "succeeded", "message": _message(request["params"], f"{batch.id}-{number}")}

    def _batch(self, batch: Batch) -> dict[str, Any]:
        total = len(batch.requests)
        counts = {"processing": total, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        if batch.ended is not None:
            kinds = [self._result(batch, n, r)["type"] for n, r in enumerate(batch.requests)]
            counts = {"processing": 0, **{k: kinds.count(k) for k in
                      ("succeeded", "errored", "canceled", "expired")}}  # fmt: skip
        return {
            "id": batch.id, "type": "message_batch",
            "processing_status": "in_progress" if batch.ended is None else "ended",
            "request_counts": counts,
            "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(batch.created)),
            "expires_at": "2026-01-02T00:00:00Z", "archived_at": None,
            "cancel_initiated_at": "2026-01-01T00:30:00Z" if batch.ended == "cancelled" else None,
            "ended_at": None if batch.ended is None else "2026-01-01T01:00:00Z",
            "results_url": None if batch.ended is None
            else f"{self.server.url}/v1/messages/batches/{batch.id}/results",
        }  # fmt: skip


def anthropic_server() -> _Server:
    return _Server(_AnthropicHandler)
