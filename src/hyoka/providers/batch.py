"""Batch APIs (``--batch``): OpenAI's Batch API and Anthropic's Message Batches, at about
half the price of the same calls made one by one, answered within a day.

A run is deterministic and resumable, so the same command run again asks for the same
requests. ``BatchClient`` is a ``ModelClient`` that does not call the model: a request
whose reply is in the response cache is answered from it as always; any other is put in
this run's batch and the run goes on without it (``Deferred``: the item is left undone,
nothing is written for it). ``batch_round`` wraps one run of one file:

* before the run, every batch the file's manifest notes (``BATCHES_NOTE``: the batch
  ids, never the replies) is asked for its state; one that has ended has its results
  downloaded and each reply that succeeded stored in the response cache under the very
  key an online call would have stored it (the key is the request's ``custom_id``), so
  the run then writes the same records the online path writes, from the cache;
  requests that failed, expired or were cancelled are left out, and so asked again: the
  run puts them in its new batch. A batch still running keeps its requests in flight:
  they are not submitted twice;
* after the run, the requests it deferred and no batch holds are submitted as one batch
  and its id noted in the manifest before anything else, so a process killed after that
  finishes the batch on the next run without paying twice.

A request that needs an earlier reply (a dialogue's second turn, a re-ask) is asked in
the run after that reply arrived: each run of the command moves every item one call on.
The cache holds the replies between runs, so ``--batch`` needs it (not ``--no-cache``).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import re
import time
import warnings
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hyoka.errors import HyokaWarning, InputError
from hyoka.providers._http import server_text
from hyoka.providers.base import Provider
from hyoka.providers.batch_api import BatchApi
from hyoka.providers.batch_progress import BatchProgress
from hyoka.providers.client import ModelClient, ResponseCache, _note_served, cache_key
from hyoka.providers.errors import ProviderError
from hyoka.providers.types import GenerationRequest, GenerationResponse
from hyoka.store import IN_FLIGHT_NOTE, JsonlLog, manifest_path

#: the manifest note that holds a file's batches in flight (the store keeps it)
BATCHES_NOTE = IN_FLIGHT_NOTE
#: what a batch id may be (OpenAI's ``batch_…``, Anthropic's ``msgbatch_…``)
_BATCH_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}")
#: the providers that have a batch API, by provider name
BATCH_PROVIDERS = ("anthropic", "openai")


class Deferred(Exception):  # noqa: N818 - not an error: the reply comes on a later run
    """The request was put in a batch (or is in one already): its item is left undone in
    this run, and its reply comes on a later run of the same command."""


def batch_api(provider: Provider) -> BatchApi:
    """The batch API of ``provider``; one line naming the providers that have one else."""
    from hyoka.providers.anthropic_backend import AnthropicProvider
    from hyoka.providers.openai_backend import OpenAIProvider

    if isinstance(provider, OpenAIProvider) and not provider.azure:
        from hyoka.providers.batch_openai import OpenAIBatches

        return OpenAIBatches(provider)
    if isinstance(provider, AnthropicProvider):
        from hyoka.providers.batch_anthropic import AnthropicBatches

        return AnthropicBatches(provider)
    raise ProviderError(
        f"`batch`: {provider.name}/{provider.model} has no batch API "
        f"(batch APIs: {', '.join(BATCH_PROVIDERS)}); run without it"
    )


@dataclass
class _Round:
    """The requests one run of one file deferred, by cache key."""

    wanted: dict[str, GenerationRequest] = field(default_factory=dict)
    in_flight: set[str] = field(default_factory=set)
    #: keys asked for that a running batch holds
    waiting: set[str] = field(default_factory=set)


_ROUND: contextvars.ContextVar[_Round | None] = contextvars.ContextVar(
    "hyoka_batch_round", default=None
)


class BatchClient(ModelClient):
    """A client that answers from the cache and defers everything else to a batch."""

    def __init__(self, provider: Provider, *, cache: ResponseCache, **kwargs: Any) -> None:
        super().__init__(provider, cache=cache, **kwargs)
        self.api = batch_api(provider)
        self.stats.batch = BatchProgress()

    @property
    def progress(self) -> BatchProgress:
        """What this client's batch rounds did (``stats.batch``)."""
        assert self.stats.batch is not None  # made with one
        return self.stats.batch

    async def generate(
        self, request: GenerationRequest, *, sample_key: str = ""
    ) -> GenerationResponse:
        """The cached reply; otherwise the request joins this run's batch (``Deferred``)."""
        self.provider.check_request(request)
        if request.n != 1:
            raise ProviderError(f"`batch`: {self._spec} batches one reply per request (n=1)")
        if not request.is_chat:
            raise ProviderError(f"`batch`: {self._spec} batches chat requests only")
        key = cache_key(self._identity, request, sample_key)
        assert self.cache is not None  # made with one
        hit = self.cache.get(key)
        if hit is not None:  # as ``ModelClient.generate`` answers from the cache
            self.stats.cache_hits += 1
            _note_served(hit)
            return hit.model_copy(update={"cached": True})
        current = _ROUND.get()
        if current is None:
            raise ProviderError(f"`batch`: {self._spec} was asked outside a batch round")
        if key in current.in_flight:
            current.waiting.add(key)
        else:
            current.wanted.setdefault(key, request)
        # let the sibling requests of one item (pairwise's two orders) join too before
        # this one's item is given up
        for _ in range(2):
            await asyncio.sleep(0)
        raise Deferred(key)

    async def collect(self, noted: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], set[str]]:
        """Ask each noted batch for its state; read every ended one's replies into the
        cache. The batches still running, and their requests' keys."""
        running: list[dict[str, Any]] = []
        in_flight: set[str] = set()
        for entry in noted:
            batch_id = str(entry.get("id", ""))
            if entry.get("api") != self.api.name or not batch_id:
                running.append(entry)  # another API's (another judge's?): kept as it is
                continue
            state = await self.api.state(batch_id)
            if not state.ended:
                running.append({**entry, "status": state.status})
                in_flight.update(str(key) for key in entry.get("custom_ids", ()))
                self.progress.running.append(batch_id)
                continue
            results = await self.api.results(batch_id)
            # only the requests this batch was noted with, each answered once: a line for
            # another id (not ours to store) or a second line for one (which is the
            # reply?) is a fault, counted and never stored; a repeated one is asked again
            asked = {str(key) for key in entry.get("custom_ids", ())}
            answered = set(results.replies) | set(results.failed) | results.repeated
            self.progress.foreign += len(answered - asked)
            assert self.cache is not None
            for key, response in results.replies.items():
                if key not in asked or key in results.repeated:
                    continue
                clean = self._redacted(response)
                self.cache.put(key, clean)
                self.stats.usage = self.stats.usage + clean.usage
                self.progress.collected += 1
            lost = asked - (set(results.replies) - results.repeated)
            self.progress.failed += len(lost)
            why = dict.fromkeys(results.repeated, "answered twice")
            self.progress.reasons.update(
                why.get(key) or results.failed.get(key, "no result") for key in lost
            )
        return running, in_flight

    async def submit(self, wanted: Mapping[str, GenerationRequest]) -> dict[str, Any] | None:
        """Submit ``wanted`` as one batch; its manifest entry (``None``: nothing to ask)."""
        if not wanted:
            return None
        batch_id = await self.api.submit(list(wanted.items()))
        if not _BATCH_ID.fullmatch(batch_id):  # it is printed and kept: plain text only
            raise ProviderError(
                f"`batch`: {self._spec}: the server's batch id is not one "
                f"({server_text(batch_id, str)!r}); nothing was noted"
            )
        self.progress.submitted.append(batch_id)
        return {
            "api": self.api.name,
            "model": self._spec,
            "id": batch_id,
            "status": "submitted",
            "submitted": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "requests": len(wanted),
            "custom_ids": list(wanted),
        }


def noted_batches(notes: Mapping[str, Any], where: Path) -> list[dict[str, Any]]:
    """The batches a manifest's notes hold (none where it holds none), each checked as
    ``submit`` wrote it: a note edited or damaged is one ``InputError`` naming the
    manifest ``where`` and the field, before any API is asked."""
    noted = notes.get(BATCHES_NOTE)
    if noted is None:
        return []
    if not isinstance(noted, list):
        raise InputError(f'{where}: the note "{BATCHES_NOTE}" is not a list of batches')
    found: list[dict[str, Any]] = []
    for number, entry in enumerate(noted, 1):
        at = f'{where}: the note "{BATCHES_NOTE}", batch {number}'
        if not isinstance(entry, dict):
            raise InputError(f"{at}, is not an object")
        for name in ("api", "model", "id", "status", "submitted"):
            if not isinstance(entry.get(name), str):
                raise InputError(f'{at}: "{name}" is not text')
        if not _BATCH_ID.fullmatch(entry["id"]):
            raise InputError(f'{at}: "id" is not a batch id')
        count = entry.get("requests")
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise InputError(f'{at}: "requests" is not a count of requests')
        keys = entry.get("custom_ids")
        if not isinstance(keys, list) or not all(isinstance(key, str) for key in keys):
            raise InputError(f'{at}: "custom_ids" is not a list of custom ids')
        found.append(dict(entry))
    return found


@contextlib.asynccontextmanager
async def batch_round(client: ModelClient, log: JsonlLog[Any]) -> AsyncIterator[None]:
    """One run of one file in batch mode (nothing for an online client): ended batches
    collected before, the deferred requests submitted after (``log.note`` writes the
    manifest's note, through the store)."""
    noted = noted_batches(log.written.notes, manifest_path(log.path))
    if not isinstance(client, BatchClient):
        if noted:  # an online run asks (and pays) again for what those batches hold
            ids = ", ".join(entry["id"] for entry in noted)
            warnings.warn(
                f"{log.path}: batch(es) {ids} in flight are noted for this file; this run "
                "without --batch asks their requests again online (run with --batch to "
                "collect them)",
                HyokaWarning,
                stacklevel=2,
            )
        yield
        return
    note = log.note
    await client.check_reachable()
    running, in_flight = await client.collect(noted)
    if running != noted:
        note(BATCHES_NOTE, running)
    current = _Round(in_flight=in_flight)
    token = _ROUND.set(current)
    try:
        yield
    finally:
        _ROUND.reset(token)
    client.progress.deferred += len(current.wanted) + len(current.waiting)
    entry = await client.submit(current.wanted)
    if entry is not None:
        note(BATCHES_NOTE, [*running, entry])
