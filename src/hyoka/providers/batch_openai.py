"""OpenAI's Batch API: the requests as a JSON Lines file uploaded with ``purpose=batch``,
one batch of it on ``/v1/chat/completions`` within 24 hours, and the results read from
its output file (replies) and error file (requests that failed or expired). Each batch
carries hyoka's mark in its ``metadata`` (``hyoka_tag``), so a run killed between the
create call and its note finds the batch it made by listing the batches."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from hyoka.errors import InputError
from hyoka.providers._http import server_text
from hyoka.providers.batch_api import (
    BatchApi,
    BatchNotFoundError,
    BatchResults,
    BatchState,
    jsonl_bytes,
    refusal,
)
from hyoka.providers.openai_backend import OpenAIProvider, _chat_choice, _usage
from hyoka.providers.types import GenerationRequest, GenerationResponse
from hyoka.store import parse_json

if TYPE_CHECKING:
    import openai

ENDPOINT: Final = "/v1/chat/completions"
#: the states after which a batch changes no more
ENDED = frozenset({"completed", "expired", "cancelled", "failed"})
#: the metadata key that marks a batch as one hyoka submitted (``find``)
TAG_KEY: Final = "hyoka_tag"
#: how many of the newest batches ``find`` looks through for a mark
_LISTED = 1000
#: the ``_why`` of a line whose reply hyoka could not read: asked again, never a refusal
_READ_FAULTS: Final = (
    "no reply",
    "the reply is not a chat completion",
    "the reply holds no choices",
)
#: the HTTP status an error-file line's code stands for where it gives none (``refusal``):
#: a batch's expiry or cancellation is asked again; another code is the API's refusal
_CODE_STATUS: Final = {"batch_expired": 503, "batch_cancelled": 503, "server_error": 500,
                       "rate_limit_exceeded": 429, "timeout": 408}  # fmt: skip


class OpenAIBatches(BatchApi):
    name = "openai"
    marked = True
    #: OpenAI's limits of one batch: an input file of at most 50,000 requests and 200 MB
    #: (the Batch API's create reference on ``input_file_id``, which the openai SDK's
    #: ``batches.create`` docstring repeats; older documents said 100 MB)
    max_requests = 50_000
    max_bytes = 200_000_000

    def __init__(self, provider: OpenAIProvider) -> None:
        self.provider = provider

    @property
    def _sdk(self) -> openai.AsyncOpenAI:
        return self.provider._client

    def row(self, key: str, request: GenerationRequest) -> dict[str, Any]:
        return {
            "custom_id": key,
            "method": "POST",
            "url": ENDPOINT,
            "body": self.provider.request_body(request),
        }

    async def submit(self, rows: list[dict[str, Any]], tag: str) -> object:
        return await self._call(self._create, rows, tag)

    async def _create(self, rows: list[dict[str, Any]], tag: str) -> object:
        uploaded = await self._sdk.files.create(
            file=(f"hyoka-batch-{tag}.jsonl", jsonl_bytes(rows), "application/jsonl"),
            purpose="batch",
        )
        batch = await self._sdk.batches.create(
            input_file_id=uploaded.id, endpoint=ENDPOINT, completion_window="24h",
            metadata={TAG_KEY: tag},
        )  # fmt: skip
        return batch.id

    async def find(self, tag: str, requests: int, since: float) -> list[object]:
        found: list[object] = await self._call(self._find, tag, since)
        return found

    async def _find(self, tag: str, since: float) -> list[object]:
        found: list[object] = []
        seen = 0
        async for batch in self._sdk.batches.list(limit=100):
            seen += 1
            metadata = batch.metadata if isinstance(batch.metadata, dict) else {}
            if metadata.get(TAG_KEY) == tag:
                found.append(batch.id)
            if seen >= _LISTED or (isinstance(batch.created_at, int) and batch.created_at < since):
                break  # newest first: older ones were made before the note
        return found

    async def state(self, batch_id: str) -> BatchState:
        batch = await self._call(self._sdk.batches.retrieve, batch_id)
        counts = batch.request_counts
        errors = getattr(getattr(batch, "errors", None), "data", None) or []
        said = "; ".join(
            " ".join(str(part) for part in (getattr(e, "code", None), getattr(e, "message", None))
                     if part)
            for e in errors
        )  # fmt: skip
        return BatchState(
            status=server_text(str(batch.status), self.provider._scrub),
            ended=batch.status in ENDED,
            counts={}
            if counts is None
            else {"completed": counts.completed, "failed": counts.failed, "total": counts.total},
            why=server_text(said, self.provider._scrub) if said else "",
            cancelled=batch.status == "cancelled",
        )

    async def results(self, batch_id: str) -> BatchResults:
        batch = await self._call(self._sdk.batches.retrieve, batch_id)
        replies: dict[str, GenerationResponse] = {}
        failed: dict[str, str] = {}
        repeated: set[str] = set()
        unreadable = 0
        for file_id in (batch.output_file_id, batch.error_file_id):
            if not file_id:
                continue
            content = await self._call(self._sdk.files.content, file_id)
            for number, line in enumerate(content.text.splitlines(), 1):
                if line.strip():
                    where = f"{batch_id} file {file_id}:{number}"
                    unreadable += not self._read_line(where, line, replies, failed, repeated)
        refused = {}
        for key, why in failed.items():
            said = self._refusal(batch_id, why)
            if said is not None:
                refused[key] = said
        for key in refused:
            del failed[key]
        return BatchResults(replies, failed, repeated, unreadable, refused)

    def _refusal(self, batch_id: str, why: str) -> str | None:
        """The line an online call would fail with where ``why`` (``_why``: an error code,
        or ``HTTP <status>``) is the API's refusal for good; ``None`` else."""
        status = _CODE_STATUS.get(why, 400)
        if why.startswith("HTTP ") and why[5:].isdigit():
            status = int(why[5:])
        elif why in _READ_FAULTS:
            return None
        return refusal(status, f"{self._spec}: batch {batch_id}: HTTP {status}: {why}")

    def _read_line(
        self,
        where: str,
        line: str,
        replies: dict[str, GenerationResponse],
        failed: dict[str, str],
        repeated: set[str],
    ) -> bool:
        """Read one result line into ``replies`` or ``failed`` (its custom id into
        ``repeated`` too where an earlier line answered it); ``False`` for a line that is
        not a result line (a fault for the request it answered, which gets no reply)."""
        from openai.types.chat import ChatCompletion

        try:
            row = parse_json(line, where)
            key = row["custom_id"]
        except (InputError, KeyError, TypeError):
            return False
        if not isinstance(key, str):
            return False
        if key in replies or key in failed:
            repeated.add(key)
        response = row.get("response") or {}
        body = response.get("body") if isinstance(response, dict) else None
        if row.get("error") or not isinstance(body, dict) or response.get("status_code") != 200:
            failed[key] = _why(row.get("error"), response, self.provider._scrub)
            return True
        try:
            raw = ChatCompletion.model_validate(body)
            choices = tuple(_chat_choice(choice) for choice in raw.choices)
            reply = GenerationResponse(
                choices=choices,
                usage=_usage(raw.usage),
                model=str(raw.model or self.provider.model),
            )
        except (ValueError, TypeError, AttributeError):
            failed[key] = "the reply is not a chat completion"
            return True
        if choices:
            replies[key] = reply
        else:
            failed[key] = "the reply holds no choices"
        return True

    @property
    def _spec(self) -> str:
        return f"openai/{self.provider.model}"

    async def _call(self, method: Any, *args: Any) -> Any:
        import openai

        try:
            return await method(*args)
        except openai.NotFoundError as exc:
            raise BatchNotFoundError(str(self.provider._map_error(exc))) from None
        except openai.APIError as exc:
            raise self.provider._map_error(exc) from None


def _why(error: Any, response: Any, scrub: Callable[[str], str]) -> str:
    """Why a batch's request got no reply, in a word or two: the error's code
    (``batch_expired``; its secrets ``scrub``bed, as an online error's), else the reply's
    HTTP status."""
    if isinstance(error, dict) and error.get("code"):
        return server_text(str(error["code"]), scrub)
    status = response.get("status_code") if isinstance(response, dict) else None
    return f"HTTP {status}" if isinstance(status, int) else "no reply"
