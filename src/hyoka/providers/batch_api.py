"""What every provider's batch API does for ``providers.batch``: submit requests under
custom ids, tell a batch's state, and hand back an ended batch's replies and failures;
and how much one batch may hold (``BatchApi.max_requests``, ``max_bytes``), so what one
run defers goes in as many batches as those limits need (``BatchApi.split``)."""

from __future__ import annotations

import io
import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

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
    the classification online calls use (``_hosted.status_error``: 429, 5xx and
    ``TRANSIENT_STATUS`` are transient); ``None`` where it is worth asking again."""
    from hyoka.providers._hosted import status_error
    from hyoka.providers.errors import TransientError

    return None if isinstance(status_error(status, message, None), TransientError) else message


@dataclass(frozen=True)
class BatchRow:
    """One request as a batch's input carries it: its custom id (``key``), the ``row``
    the API is sent for it, and the bytes it takes there (``BatchApi.row_size``)."""

    key: str
    row: dict[str, Any]
    size: int


class BatchApi(ABC):
    """One provider's batch API: submit requests, read a batch's state and its results."""

    name: str
    #: whether a batch carries the mark ``submit`` gave it, so ``find`` names only hyoka's
    #: own (OpenAI's metadata); else ``find`` names batches of the same size and time,
    #: which their results' custom ids must confirm (``providers.batch``)
    marked: bool = False
    #: the most requests one batch may hold, as the API documents it (each API's own)
    max_requests: ClassVar[int]
    #: the most bytes one batch's input may take, as the API documents it (each API's
    #: own; "MB" read as 10**6 bytes, the smaller reading)
    max_bytes: ClassVar[int]
    #: the bytes one batch's input takes beyond its rows' own (``row_size``): the JSON
    #: that holds them where the API takes them as one JSON document
    envelope: ClassVar[int] = 0
    #: the share of ``max_bytes`` a batch is filled to at most (``room``): the documents
    #: do not say how they count a megabyte or what else the server counts, and a batch
    #: refused for its size is refused after its whole upload, so a twentieth is kept
    fill: ClassVar[float] = 0.95

    @classmethod
    def room(cls) -> int:
        """The bytes the rows of one batch may take together (``row_size`` each)."""
        return int(cls.max_bytes * cls.fill) - cls.envelope

    @staticmethod
    def row_size(row: dict[str, Any]) -> int:
        """The bytes ``row`` takes in a batch's input as it is sent: its JSON (UTF-8,
        ``jsonl_bytes``'s encoding, which the Anthropic SDK's body encoder shares) and one
        separator (JSON Lines' newline; a JSON list's comma)."""
        return len(jsonl_bytes([row]))

    def split(self, rows: Sequence[BatchRow]) -> list[list[BatchRow]]:
        """``rows`` in order as the fewest batches that keep it and the API's limits, each
        filled in turn (``max_requests`` rows, ``room`` bytes): the same rows split the
        same way on every run. A row larger than ``room`` alone is the caller's to refuse
        (``providers.batch`` refuses it before it joins a batch); here it goes alone."""
        batches: list[list[BatchRow]] = []
        size, room = 0, self.room()
        for row in rows:
            if not batches or len(batches[-1]) >= self.max_requests or size + row.size > room:
                batches.append([])
                size = 0
            batches[-1].append(row)
            size += row.size
        return batches

    @abstractmethod
    def row(self, key: str, request: GenerationRequest) -> dict[str, Any]:
        """``request`` under the custom id ``key`` as one row of a batch's input, exactly
        as ``submit`` sends it."""

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
    async def submit(self, rows: list[dict[str, Any]], tag: str) -> object:
        """Submit ``rows`` (``row``'s, within the limits: ``split``) as one batch marked
        with ``tag`` where the API keeps a mark (``find`` looks for it); its id as the
        server sent it (unchecked: ``providers.batch`` checks it)."""

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
