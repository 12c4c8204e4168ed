"""Anthropic's Message Batches: the requests as ``{custom_id, params}`` pairs in one
batch, its ``processing_status`` polled, and its results read as JSON Lines, each
``succeeded`` (a message), ``errored``, ``canceled`` or ``expired``."""

from __future__ import annotations

from typing import Any

import anthropic
from anthropic.types import Message as AnthropicMessage

from hyoka.providers._http import server_text
from hyoka.providers.anthropic_backend import AnthropicProvider
from hyoka.providers.batch_api import BatchApi, BatchResults, BatchState
from hyoka.providers.errors import TransientError
from hyoka.providers.types import GenerationRequest, GenerationResponse


class AnthropicBatches(BatchApi):
    name = "anthropic"

    def __init__(self, provider: AnthropicProvider) -> None:
        self.provider = provider

    async def submit(self, items: list[tuple[str, GenerationRequest]]) -> str:
        requests: Any = [
            {"custom_id": key, "params": self.provider.message_params(request)}
            for key, request in items
        ]
        batch = await self._call(self._sdk().messages.batches.create, requests=requests)
        return str(batch.id)

    async def state(self, batch_id: str) -> BatchState:
        batch = await self._call(self._sdk().messages.batches.retrieve, batch_id)
        counts = batch.request_counts
        return BatchState(
            status=server_text(str(batch.processing_status), self.provider._redact),
            ended=batch.processing_status == "ended",
            counts={
                "succeeded": counts.succeeded, "errored": counts.errored,
                "expired": counts.expired, "canceled": counts.canceled,
                "processing": counts.processing,
            },
        )  # fmt: skip

    async def results(self, batch_id: str) -> BatchResults:
        replies: dict[str, GenerationResponse] = {}
        failed: dict[str, str] = {}
        repeated: set[str] = set()
        stream = await self._call(self._sdk().messages.batches.results, batch_id)
        try:
            async for row in stream:
                result = row.result
                if row.custom_id in replies or row.custom_id in failed:
                    repeated.add(row.custom_id)
                if result.type == "succeeded" and isinstance(result.message, AnthropicMessage):
                    choice, usage = self.provider._parse(result.message)
                    model = result.message.model or self.provider.model
                    replies[row.custom_id] = GenerationResponse(
                        choices=(choice,), usage=usage, model=model
                    )
                else:
                    failed[row.custom_id] = server_text(result.type, self.provider._redact)
        except anthropic.APIError as exc:
            said = server_text(exc.message, self.provider._redact)
            raise TransientError(f"{self._where}: batch {batch_id}: {said}") from None
        except ValueError:
            raise TransientError(
                f"{self._where}: batch {batch_id}'s results are not JSON Lines"
            ) from None
        return BatchResults(replies, failed, repeated)

    @property
    def _where(self) -> str:
        return f"anthropic/{self.provider.model}"

    def _sdk(self) -> anthropic.AsyncAnthropic:
        return self.provider._sdk()

    async def _call(self, method: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return await method(*args, **kwargs)
        except anthropic.APIStatusError as exc:
            raise self.provider._status_error(exc) from None
        except anthropic.APIConnectionError as exc:
            raise TransientError(f"{self._where}: connection failed ({exc.message})") from None
