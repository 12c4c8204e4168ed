"""What every provider's batch API does for ``providers.batch``: submit requests under
custom ids, tell a batch's state, and hand back an ended batch's replies and failures."""

from __future__ import annotations

import io
import json
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from hyoka.providers.types import GenerationRequest, GenerationResponse


@dataclass(frozen=True)
class BatchState:
    """What the API says of one batch: its ``status`` in the API's own word, whether it
    has ``ended`` (its results can be read), and its request counts where given."""

    status: str
    ended: bool
    counts: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class BatchResults:
    """An ended batch's outcome: the replies that succeeded, by custom id, why each
    other request did not (``errored``, ``expired``, ``canceled``, an error message), and
    the custom ids more than one result line answered (``repeated``: which to trust is
    unknown, so none is)."""

    replies: dict[str, GenerationResponse]
    failed: dict[str, str]
    repeated: set[str] = field(default_factory=set)


class BatchApi(ABC):
    """One provider's batch API: submit requests, read a batch's state and its results."""

    name: str

    @abstractmethod
    async def submit(self, items: list[tuple[str, GenerationRequest]]) -> str:
        """Submit ``(custom_id, request)`` pairs as one batch; its id."""

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
