"""What every provider's batch API does for ``providers.batch``: submit requests under
custom ids, tell a batch's state, and hand back an ended batch's replies and failures."""

from __future__ import annotations

import io
import json
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from hyoka.providers.errors import ProviderError
from hyoka.providers.types import GenerationRequest, GenerationResponse


class BatchNotFoundError(ProviderError):
    """The API does not know the batch (HTTP 404): deleted, another account's, or another
    server's; its requests are asked again in a new batch."""


@dataclass(frozen=True)
class BatchState:
    """What the API says of one batch: its ``status`` in the API's own word, whether it
    has ``ended`` (its results can be read), and its request counts where given."""

    status: str
    ended: bool
    counts: dict[str, int] = field(default_factory=dict)
    #: why it ended without answering, in the API's words (scrubbed, printable): a failed
    #: batch's errors; empty where it did not say or the batch answered
    why: str = ""
    #: whether it was cancelled (by its owner: its unanswered requests are not asked again
    #: by the run that finds it so, ``providers.batch``)
    cancelled: bool = False


@dataclass(frozen=True)
class BatchResults:
    """An ended batch's outcome: the replies that succeeded, by custom id, why each
    other request did not (``errored``, ``expired``, ``canceled``, an error message), and
    the custom ids more than one result line answered (``repeated``: which to trust is
    unknown, so none is)."""

    replies: dict[str, GenerationResponse]
    failed: dict[str, str]
    repeated: set[str] = field(default_factory=set)
    #: result lines that could not be read (not JSON, no custom id, not a result): each a
    #: fault counted; the requests they answered get no reply and are asked again
    unreadable: int = 0
    #: the requests the API refused for good (HTTP 4xx kinds: too long, invalid), by custom
    #: id, each with the line an online call refused so would fail with (``refusal``):
    #: never asked again, the run fails on them as the online run does
    refused: dict[str, str] = field(default_factory=dict)


def refusal(status: int, message: str) -> str | None:
    """``message`` where a request answered with HTTP ``status`` is refused for good, by
    the classification online calls use (``_hosted.status_error``: 429, 408 and 5xx are
    transient); ``None`` where it is worth asking again."""
    from hyoka.providers._hosted import status_error
    from hyoka.providers.errors import TransientError

    return None if isinstance(status_error(status, message, None), TransientError) else message


class BatchApi(ABC):
    """One provider's batch API: submit requests, read a batch's state and its results."""

    name: str
    #: whether a batch carries the mark ``submit`` gave it, so ``find`` names only hyoka's
    #: own (OpenAI's metadata); else ``find`` names batches of the same size and time,
    #: which their results' custom ids must confirm (``providers.batch``)
    marked: bool = False

    async def read_state(self, batch_id: str) -> BatchState:
        """``state``, or one ``ProviderError`` naming the batch where the server's answer
        is not a batch's state (a proxy's HTML page, fields of the wrong kinds)."""
        try:
            return await self.state(batch_id)
        except (AttributeError, TypeError, ValueError, KeyError):
            raise ProviderError(
                f"{self.name}: batch {batch_id}: the server's answer is not a batch's state "
                "(a proxy's page? fields of the wrong kinds); run again once the server "
                "answers as the API does"
            ) from None

    @abstractmethod
    async def submit(self, items: list[tuple[str, GenerationRequest]], tag: str) -> object:
        """Submit ``(custom_id, request)`` pairs as one batch marked with ``tag`` where the
        API keeps a mark (``find`` looks for it); its id as the server sent it (unchecked:
        ``providers.batch`` checks it)."""

    @abstractmethod
    async def find(self, tag: str, requests: int, since: float) -> list[object]:
        """The ids of the batches that may be the one ``submit`` made with ``tag`` (a run
        killed before it noted the id): marked with ``tag`` where the API keeps marks, else
        those of ``requests`` requests created since ``since`` (seconds since the epoch)."""

    @abstractmethod
    async def state(self, batch_id: str) -> BatchState:
        """The batch's state now."""

    @abstractmethod
    async def results(self, batch_id: str) -> BatchResults:
        """The results of an ended batch."""


def jsonl_bytes(rows: list[dict[str, Any]]) -> bytes:
    """Rows as JSON Lines (UTF-8): a batch's input file."""
    buffer = io.StringIO()
    for row in rows:
        buffer.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")))
        buffer.write("\n")
    return buffer.getvalue().encode("utf-8")
