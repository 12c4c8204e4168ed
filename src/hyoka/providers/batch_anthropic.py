"""Anthropic's Message Batches: the requests as ``{custom_id, params}`` pairs in one
batch, its ``processing_status`` polled, and its results read as JSON Lines, each
``succeeded`` (a message), ``errored``, ``canceled`` or ``expired``.

A Message Batch carries no mark of its submitter, so a run killed between the create call
and its note finds the batch it made by listing the batches: those created since the note
with as many requests (``find``); the custom ids its results hold confirm it when read."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import anthropic
from anthropic.types import Message as AnthropicMessage
from anthropic.types.messages import MessageBatchIndividualResponse

from hyoka.errors import InputError
from hyoka.providers._http import server_text
from hyoka.providers.anthropic_backend import AnthropicProvider
from hyoka.providers.batch_api import (
    BatchApi,
    BatchNotFoundError,
    BatchResults,
    BatchState,
    refusal,
)
from hyoka.providers.errors import TransientError
from hyoka.providers.types import GenerationRequest, GenerationResponse
from hyoka.store import parse_json

#: how many of the newest batches ``find`` looks through
_LISTED = 1000
#: the HTTP status of each error type an ``errored`` result names (``refusal``); another
#: type is taken as the server's fault (asked again)
_TYPE_STATUS = {"invalid_request_error": 400, "authentication_error": 401,
                "billing_error": 402, "permission_error": 403, "not_found_error": 404,
                "request_too_large": 413, "rate_limit_error": 429, "api_error": 500,
                "timeout_error": 504, "overloaded_error": 529}  # fmt: skip


class AnthropicBatches(BatchApi):
    name = "anthropic"
    #: Anthropic's limits of one Message Batch: 100,000 requests or 256 MB, whichever is
    #: reached first (the Message Batches guide, "batch limitations"; the create
    #: reference's ``requests`` says at most 100,000 items)
    max_requests = 100_000
    max_bytes = 256_000_000
    #: the create call's body holds the rows as ``{"requests":[…]}``, a comma between
    #: each two (``row_size`` counts one a row)
    envelope = len('{"requests":[]}')

    def __init__(self, provider: AnthropicProvider) -> None:
        self.provider = provider
        self._batch_id = ""  # the batch whose results are being read (its refusals name it)

    def row(self, key: str, request: GenerationRequest) -> dict[str, Any]:
        return {"custom_id": key, "params": self.provider.message_params(request)}

    async def submit(self, rows: list[dict[str, Any]], tag: str) -> object:
        requests: Any = rows
        batch = await self._call(self._sdk().messages.batches.create, requests=requests)
        return batch.id

    async def find(self, tag: str, requests: int, since: float) -> list[object]:
        found: list[object] = await self._call(self._find, requests, since)
        return found

    async def _find(self, requests: int, since: float) -> list[object]:
        found: list[object] = []
        seen = 0
        async for batch in self._sdk().messages.batches.list(limit=100):
            seen += 1
            created = batch.created_at
            made = created.timestamp() if isinstance(created, datetime) else None
            counts = batch.request_counts
            total = (
                counts.processing + counts.succeeded + counts.errored + counts.canceled
                + counts.expired
            )  # fmt: skip
            if made is not None and made >= since and total == requests:
                found.append(batch.id)
            if seen >= _LISTED or (made is not None and made < since):
                break  # newest first: older ones were made before the note
        return found

    async def state(self, batch_id: str) -> BatchState:
        batch = await self._call(self._sdk().messages.batches.retrieve, batch_id)
        counts = batch.request_counts
        cancelled = batch.cancel_initiated_at is not None
        status = "canceled" if cancelled and batch.processing_status == "ended" else None
        return BatchState(
            status=server_text(status or str(batch.processing_status), self.provider._redact),
            ended=batch.processing_status == "ended",
            counts={
                "succeeded": counts.succeeded, "errored": counts.errored,
                "expired": counts.expired, "canceled": counts.canceled,
                "processing": counts.processing,
            },
            cancelled=cancelled,
        )  # fmt: skip

    async def results(self, batch_id: str) -> BatchResults:
        replies: dict[str, GenerationResponse] = {}
        failed: dict[str, str] = {}
        repeated: set[str] = set()
        refused: dict[str, str] = {}
        unreadable = 0
        self._batch_id = batch_id
        stream = await self._call(self._sdk().messages.batches.results, batch_id)
        lines = aiter(stream.http_response.aiter_lines())
        while True:  # line by line as it streams: an unreadable line is its own fault
            try:
                line = await anext(lines)
            except StopAsyncIteration:
                break
            except Exception as exc:  # the SDK HTTP client's own errors: the read failed
                said = server_text(str(exc), self.provider._redact)
                raise TransientError(f"{self._where}: batch {batch_id}: {said}") from None
            if line.strip():
                unreadable += not self._read_line(line, replies, failed, repeated, refused)
        return BatchResults(replies, failed, repeated, unreadable, refused)

    def _read_line(
        self,
        line: str,
        replies: dict[str, GenerationResponse],
        failed: dict[str, str],
        repeated: set[str],
        refused: dict[str, str],
    ) -> bool:
        """Read one result line into ``replies`` or ``failed`` (its custom id into
        ``repeated`` too where an earlier line answered it); ``False`` for a line that is
        not a result line (a fault for the request it answered, which gets no reply)."""
        try:
            row = MessageBatchIndividualResponse.model_validate(
                parse_json(line, self._where, strict=False)
            )
        except (InputError, ValueError):
            return False
        result = row.result
        if row.custom_id in replies or row.custom_id in failed or row.custom_id in refused:
            repeated.add(row.custom_id)
        if result.type == "succeeded" and isinstance(result.message, AnthropicMessage):
            choice, usage = self.provider._parse(result.message)
            model = result.message.model or self.provider.model
            replies[row.custom_id] = GenerationResponse(choices=(choice,), usage=usage, model=model)
        elif result.type == "errored":
            kind = str(result.error.error.type)
            said = refusal(
                _TYPE_STATUS.get(kind, 500),
                f"{self._where}: batch {self._batch_id}: HTTP {_TYPE_STATUS.get(kind, 500)} "
                f"{server_text(kind, self.provider._redact)}: "
                f"{server_text(str(result.error.error.message), self.provider._redact)}",
            )
            if said is None:
                failed[row.custom_id] = "errored"
            else:
                refused[row.custom_id] = said
        else:
            failed[row.custom_id] = server_text(result.type, self.provider._redact)
        return True

    @property
    def _where(self) -> str:
        return f"anthropic/{self.provider.model}"

    def _sdk(self) -> anthropic.AsyncAnthropic:
        return self.provider._sdk()

    async def _call(self, method: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return await method(*args, **kwargs)
        except anthropic.NotFoundError as exc:
            raise BatchNotFoundError(str(self.provider._status_error(exc))) from None
        except anthropic.APIStatusError as exc:
            raise self.provider._status_error(exc) from None
        except anthropic.APIConnectionError as exc:
            raise TransientError(f"{self._where}: connection failed ({exc.message})") from None
