"""Batch APIs (``--batch``): OpenAI's Batch API and Anthropic's Message Batches, at about
half the price of the same calls made one by one, answered within a day.

A run is deterministic and resumable, so the same command run again asks for the same
requests. ``BatchClient`` is a ``ModelClient`` that does not call the model: a request
whose reply is in the response cache, or among the replies the file's batches answered
(``replies_path``), is answered from it; any other is put in this run's batch and the run
goes on without it (``Deferred``: the item is left undone, nothing is written for it).
``batch_round`` wraps one run of one file:

* before the run, every batch the file's manifest notes (``BATCHES_NOTE``: the batch
  ids, never the replies) is asked for its state (transient errors retried under the
  client's ``RetryPolicy``); one that has ended has its results downloaded and each reply
  that succeeded kept in the file's batch replies (``replies_path``, beside the manifest,
  written before the note drops the batch) and in the response cache under the very key
  an online call would have stored it (the key is the request's ``custom_id``), so the
  run then writes the same records the online path writes, and a rerun with another cache
  (or none left) never pays for them twice. Requests that failed or expired, whose result
  line could not be read, or whose batch the API no longer knows (HTTP 404) are asked
  again: the run puts them in its new batch, and says why in one line per batch. A batch
  its owner cancelled is not undone: its unanswered requests wait one run (the line says
  so; the next run submits them). A batch still running keeps its requests in flight:
  they are not submitted twice;
* after the run, the requests it deferred and no batch holds are submitted, in the
  order they were asked, as as many batches as the API's limits of one batch need
  (``BatchApi.max_requests``, ``max_bytes``: ``BatchApi.split``, each batch filled in
  turn); a request larger than one batch may hold is refused when it is asked, in one
  line naming it, and never sent (``BatchApi.room``). Each batch's submission is noted
  first (``submitting``, with a mark and the time, beside the batches this run submitted
  before it), then its create call made, then its id noted, so a process killed between
  a create call and its note finds on the next run the batch it made
  (``BatchApi.find``: OpenAI by the mark in its metadata, Anthropic by time and size)
  and pays nothing twice; a create call that fails leaves the batches made before it
  noted and the rest asked again by the next run. An id the server sends that is not
  one (empty, not text, path characters) is refused in one line, the submission kept
  noted as pending, never put into a URL.

Each noted batch keeps the server it went to (``base_url``, as shown: no credentials); a
run pointed at another server refuses to collect it. The manifest's ``made_by`` note says
which ways of asking made the file's records (``online``, ``batch:openai``), and the
signature's ``batch`` field says it (``signed_batch``): ``openai``, or ``openai+online``
where both did.

A request that needs an earlier reply (a dialogue's second turn, a re-ask) is asked in
the run after that reply arrived: each run of the command moves every item one call on.
The cache holds the replies between runs, so ``--batch`` needs it (not ``--no-cache``).
"""

from __future__ import annotations

import asyncio
import calendar
import contextlib
import contextvars
import hashlib
import json
import re
import time
import uuid
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from hyoka.errors import HyokaWarning, InputError
from hyoka.providers._http import server_text
from hyoka.providers.base import Provider
from hyoka.providers.batch_api import BatchApi, BatchNotFoundError, BatchResults, BatchRow
from hyoka.providers.batch_progress import BatchProgress
from hyoka.providers.client import (
    ModelClient,
    ResponseCache,
    _note_served,
    cache_key,
)
from hyoka.providers.errors import ProviderError
from hyoka.providers.types import GenerationRequest, GenerationResponse
from hyoka.signature import Signature
from hyoka.store import (
    IN_FLIGHT_NOTE,
    JsonlLog,
    manifest_path,
    read_objects,
    read_regular,
    write_jsonl,
)

#: the manifest note that holds a file's batches in flight (the store keeps it)
BATCHES_NOTE = IN_FLIGHT_NOTE
#: the manifest note of the ways of asking that made the file's records (``signed_batch``)
MADE_BY_NOTE = "made_by"
#: the manifest note of the ids of the batches whose results the file's runs have read
READ_NOTE = "batches_read"
#: how many of those ids the note keeps (the newest)
_READ_KEPT = 1000
#: the suffix of the file beside a log that keeps the replies its batches answered
REPLIES_SUFFIX = ".batch-replies"
#: a noted batch's status between the note and the create call's answer
SUBMITTING = "submitting"
#: what a batch id may be (OpenAI's ``batch_…``, Anthropic's ``msgbatch_…``)
_BATCH_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}")
#: how long before its note a batch found by ``BatchApi.find`` may have been made (clocks)
_SKEW = 3600.0
#: the providers that have a batch API, by provider name
BATCH_PROVIDERS = ("anthropic", "openai")

_T = TypeVar("_T")


class Deferred(Exception):  # noqa: N818 - not an error: the reply comes on a later run
    """The request was put in a batch (or is in one already): its item is left undone in
    this run, and its reply comes on a later run of the same command."""


def batch_api(provider: Provider) -> BatchApi:
    """The batch API of ``provider``; one line naming the providers that have one else.
    Only the provider's own SDK is imported (the other's costs a second at start)."""
    if provider.name == "openai":
        from hyoka.providers.openai_backend import OpenAIProvider

        if isinstance(provider, OpenAIProvider) and not provider.azure:
            from hyoka.providers.batch_openai import OpenAIBatches

            return OpenAIBatches(provider)
    if provider.name == "anthropic":
        from hyoka.providers.anthropic_backend import AnthropicProvider

        if isinstance(provider, AnthropicProvider):
            from hyoka.providers.batch_anthropic import AnthropicBatches

            return AnthropicBatches(provider)
    raise ProviderError(
        f"`batch`: {provider.name}/{provider.model} has no batch API "
        f"(batch APIs: {', '.join(BATCH_PROVIDERS)}); run without it"
    )


def replies_path(path: Path) -> Path:
    """The file beside the log ``path`` that keeps the replies its batches answered (JSON
    Lines of ``{"key", "reply"}``): paid for, so kept where the run owns them, not only in
    a cache the user may change or clear."""
    return path.with_name(path.name + REPLIES_SUFFIX)


def read_replies(path: Path) -> dict[str, GenerationResponse]:
    """The replies kept beside the log ``path`` (none where no batch answered yet); a
    damaged or edited line is one ``InputError`` naming the file and line."""
    found: dict[str, GenerationResponse] = {}
    for where, row in _kept_rows(path):
        if "reply" not in row:  # a refusal (``read_refusals``)
            continue
        try:
            found[row["key"]] = GenerationResponse.model_validate(row["reply"])
        except ValueError:
            raise InputError(f"{where}: not a kept batch reply") from None
    return found


def read_refusals(path: Path) -> dict[str, str]:
    """The requests the API refused for good (``BatchResults.refused``), kept beside the
    log ``path`` with the replies, by key: each the line the run fails with, as an online
    call refused so fails; a damaged or edited line is one ``InputError``."""
    found: dict[str, str] = {}
    for where, row in _kept_rows(path):
        if "reply" in row:
            continue
        if not isinstance(row.get("refused"), str):
            raise InputError(f"{where}: not a kept batch reply")
        found[row["key"]] = row["refused"]
    return found


def _digest(row: Mapping[str, Any]) -> str:
    """The SHA-256 of a kept row's ``key`` and ``reply`` or ``refused`` (canonical JSON):
    written beside them, checked before a row is trusted (a cache verified first)."""
    body = {name: row[name] for name in ("key", "reply", "refused") if name in row}
    text = json.dumps(body, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _kept_rows(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(file:line, row)`` of each row of the replies kept beside the log ``path``, its
    key text and its digest checked: an edited or damaged row is one ``InputError``
    naming the file and line (remove the line to ask its request again)."""
    kept = replies_path(path)
    data = _kept_bytes(kept)
    if data is None:
        return
    for number, row in read_objects(kept, data):
        where = f"{kept}:{number}"
        if not isinstance(row.get("key"), str):
            raise InputError(f"{where}: not a kept batch reply")
        if row.get("sha256") != _digest(row):
            raise InputError(
                f"{where}: edited or damaged (its sha256 does not match what it holds); "
                "remove the line to ask its request again"
            )
        yield where, row


def _kept_bytes(kept: Path) -> bytes | None:
    """The bytes of the replies file ``kept`` (``None`` where there is none yet): hyoka's
    own file, so a link there is refused in one line, never read or written through."""
    if kept.is_symlink():
        raise InputError(
            f"{kept}: a link; the batch replies are hyoka's own file, never read or written "
            "through a link (replace it with the file it points to, or remove it)"
        )
    if not kept.exists():
        return None
    return read_regular(kept, what="a batch replies file", follow_links=False)


def _write_kept(
    path: Path, kept: Mapping[str, GenerationResponse], refused: Mapping[str, str]
) -> None:
    """The replies and refusals the file's batches answered, beside the log ``path``."""
    _kept_bytes(replies_path(path))  # a link put there since it was read: refused
    rows: list[dict[str, Any]] = [
        *({"key": k, "reply": r.model_dump(mode="json")} for k, r in kept.items()),
        *({"key": k, "refused": said} for k, said in refused.items()),
    ]
    write_jsonl(replies_path(path), ({**row, "sha256": _digest(row)} for row in rows))


async def gather_deferring(awaitables: Iterable[Awaitable[_T]]) -> list[_T]:
    """Results in order. Requests that do not depend on each other (a dialogue's trials,
    a pairwise turn's two orders) all join this run's batch before their item is given up:
    a ``Deferred`` lets its siblings run on and is raised after them all. Any other error
    cancels the rest (their finished work stays in the cache) and is raised as it is, as
    ``_aio.gather_or_cancel`` does online."""
    tasks = [asyncio.ensure_future(awaitable) for awaitable in awaitables]
    pending: set[asyncio.Future[_T]] = set(tasks)
    try:
        while pending:
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_EXCEPTION)
            for task in done:
                error = None if task.cancelled() else task.exception()
                if task.cancelled() or (error is not None and not isinstance(error, Deferred)):
                    task.result()  # raises it (a cancellation too)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    for task in tasks:
        if isinstance(task.exception(), Deferred):
            task.result()
    return [task.result() for task in tasks]


@dataclass
class _Round:
    """The requests one run of one file deferred, by cache key."""

    #: each as its batch will send it (``BatchApi.row``), in the order asked
    wanted: dict[str, BatchRow] = field(default_factory=dict)
    in_flight: set[str] = field(default_factory=set)
    #: keys asked for that a running batch holds
    waiting: set[str] = field(default_factory=set)
    #: the replies the file's batches answered (``replies_path``)
    kept: dict[str, GenerationResponse] = field(default_factory=dict)
    #: the requests the API refused for good, each with its line (``read_refusals``)
    refused: dict[str, str] = field(default_factory=dict)


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
        current = _ROUND.get()
        hit = self.cache.get(key)
        if hit is None and current is not None:
            hit = current.kept.get(key)
        if hit is not None:  # as ``ModelClient.generate`` answers from the cache
            self.stats.cache_hits += 1
            _note_served(hit)
            return hit.model_copy(update={"cached": True})
        if current is None:
            raise ProviderError(f"`batch`: {self._spec} was asked outside a batch round")
        if key in current.refused:  # as an online call the API refuses fails
            raise ProviderError(current.refused[key])
        if key in current.in_flight:
            current.waiting.add(key)
        elif key not in current.wanted:
            current.wanted[key] = self._row(key, request, sample_key)
        raise Deferred(key)  # its siblings join too: ``gather_deferring``

    def _row(self, key: str, request: GenerationRequest, sample_key: str) -> BatchRow:
        """``request`` as its batch will send it, measured; one line naming it where it is
        larger than one batch may hold (the API would refuse the whole batch after its
        upload): never sent, it fails as an online call the API refuses does."""
        row = self.api.row(key, request)
        size = self.api.row_size(row)
        room = self.api.room()
        if size > room:
            named = f" ({sample_key})" if sample_key else ""
            raise ProviderError(
                f"`batch`: {self._spec}: request {key}{named} is {size} bytes as a batch "
                f"sends it, more than one batch may hold ({room} bytes: {self.api.name}'s "
                f"limit of {self.api.max_bytes} bytes a batch, less a margin); not sent"
            )
        return BatchRow(key, row, size)

    async def _asked(self, call: Callable[..., Awaitable[_T]], *args: Any) -> _T:
        """``call(*args)``, a read of a batch's state (never a create), retried on a
        transient error as an online request is (``ModelClient._retried``: this client's
        ``RetryPolicy``)."""

        async def once(deadline: Any) -> _T:
            deadline.start()
            return await call(*args)

        return await self._retried(once)

    def _checked_id(self, raw: object, entry: Mapping[str, Any]) -> str:
        """``raw``, a batch id the server sent, where it is one (it is printed, noted and
        put into URLs: plain text only); one line otherwise, the submission left noted."""
        if isinstance(raw, str) and _BATCH_ID.fullmatch(raw):
            return raw
        shown = (
            repr(server_text(raw, self._secrets.scrub))
            if isinstance(raw, str)
            else f"not text: {type(raw).__name__}"
        )
        raise ProviderError(
            f"`batch`: {self._spec}: the server's batch id is not one ({shown}); the "
            f"submission of {entry['requests']} request(s) at {entry['submitted']} stays noted "
            f"as {SUBMITTING} (mark {entry.get('tag', '')}), so its requests are not submitted "
            "again; `hyoka batch status` shows it"
        )

    def _check_server(self, entry: Mapping[str, Any], where: Path) -> None:
        """A batch noted for another server is not asked for (its id means nothing here)."""
        if "base_url" not in entry:  # noted before servers were: as the command says
            return
        here = self.provider.shown_url
        if entry["base_url"] != here:
            raise ProviderError(
                f"`batch`: {where}: batch {entry['id'] or entry.get('tag', '')} was submitted to "
                f"{entry['base_url'] or 'the API'}, not {here or 'the API'}: run with the "
                "base_url it was submitted to to collect it"
            )

    async def _recover(
        self, entry: dict[str, Any], known: set[str]
    ) -> dict[str, Any] | list[str] | None:
        """A submission noted as ``submitting`` (a run killed after the note, or a create
        call that failed): the batch its create call made (found by its mark where the
        API keeps one; else among the batches of its size made since, none this file
        ``known``, by the custom ids of an ended one's results); ``None`` where none was
        made; the candidates still running where none is confirmed yet (they may be it)."""
        since = _when(entry["submitted"]) - _SKEW
        found = await self._asked(self.api.find, entry.get("tag", ""), entry["requests"], since)
        fresh = [raw for raw in found if not (isinstance(raw, str) and raw in known)]
        if not self.api.marked:
            return await self._confirm(entry, fresh)
        if not fresh:
            self.progress.notices.append(
                f"the submission of {entry['requests']} request(s) at {entry['submitted']} "
                "made no batch (the run stopped first): asked again"
            )
            return None
        if len(fresh) > 1:
            shown = ", ".join(server_text(str(raw), self._secrets.scrub) for raw in fresh)
            raise ProviderError(
                f"`batch`: {self._spec}: the submission of {entry['requests']} request(s) at "
                f"{entry['submitted']} may be any of the batches {shown}: hyoka cannot tell "
                "which is its own; its note is kept"
            )
        batch_id = self._checked_id(fresh[0], entry)
        self.progress.notices.append(
            f"batch {batch_id}: found by its mark (the run that submitted it stopped before "
            "noting it); not submitted again"
        )
        return {**entry, "id": batch_id, "status": "submitted"}

    async def _confirm(
        self, entry: dict[str, Any], candidates: list[object]
    ) -> dict[str, Any] | list[str] | None:
        """``_recover`` for an API whose batches carry no mark (Anthropic): a candidate is
        the submission's batch only where its results answer exactly the submission's
        custom ids (a cache key each: any batch that answers them answers these requests);
        one still running cannot tell yet, so the submission waits for it."""
        wanted = {str(key) for key in entry.get("custom_ids", ())}
        running: list[str] = []
        for raw in candidates:
            if not (isinstance(raw, str) and _BATCH_ID.fullmatch(raw)):
                continue  # not an id hyoka could ask for: not one it noted either
            try:
                state = await self._asked(self.api.read_state, raw)
                if not state.ended:
                    running.append(raw)
                    continue
                results = await self._asked(self.api.results, raw)
            except BatchNotFoundError:
                continue
            answered = set(results.replies) | set(results.failed) | results.repeated
            if answered == wanted:
                self.progress.notices.append(
                    f"batch {raw}: found by its requests' custom ids (the run that submitted "
                    "it stopped before noting it); not submitted again"
                )
                return {**entry, "id": raw, "status": "submitted"}
        if running:
            return running
        self.progress.notices.append(
            f"the submission of {entry['requests']} request(s) at {entry['submitted']} "
            "made no batch (the run stopped first, or the create call failed): asked again"
        )
        return None

    async def collect(
        self,
        noted: list[dict[str, Any]],
        path: Path | None = None,
        *,
        read: list[str] | None = None,
    ) -> tuple[list[dict[str, Any]], set[str]]:
        """Ask each noted batch for its state; read every ended one's replies into the
        replies file beside the log ``path`` and the cache (its id added to ``read``, the
        batches this file has read: never taken for a lost submission's). The batches
        still running or held, and the keys of requests not to submit now (theirs, and a
        cancelled batch's)."""
        running: list[dict[str, Any]] = []
        in_flight: set[str] = set()
        read = [] if read is None else read
        where = Path("?") if path is None else manifest_path(path)
        shown = "the results file" if path is None else str(path)
        kept = {} if path is None else read_replies(path)
        refused = {} if path is None else read_refusals(path)
        known = {str(entry["id"]) for entry in noted if entry["id"]} | set(read)
        for entry in noted:
            if entry.get("api") != self.api.name:
                running.append(entry)  # another API's (another judge's?): kept as it is
                continue
            self._check_server(entry, where)
            asked = [str(key) for key in entry.get("custom_ids", ())]
            if entry["status"] == SUBMITTING:
                recovered = await self._recover(entry, known)
                if recovered is None:
                    continue
                if isinstance(recovered, list):  # candidates still running: wait for them
                    running.append(entry)
                    in_flight.update(asked)
                    mark = entry.get("tag", "")
                    self.progress.held.append(f"mark {mark}")
                    self.progress.notices.append(
                        f"the submission of {entry['requests']} request(s) at "
                        f"{entry['submitted']} (mark {mark}) may be batch(es) "
                        f"{', '.join(recovered)} (made since, of its size, still running): "
                        "kept noted and not asked again until they end and their custom ids "
                        f"tell; `hyoka batch release {shown} {mark}` asks them again now"
                    )
                    continue
                entry = recovered
                known.add(str(entry["id"]))
            batch_id = str(entry["id"])
            try:
                state = await self._asked(self.api.read_state, batch_id)
            except BatchNotFoundError as exc:  # another account's? paid for: not dropped
                said = server_text(str(exc), self._secrets.scrub)
                running.append(entry)
                in_flight.update(asked)
                self.progress.held.append(batch_id)
                self.progress.notices.append(
                    f"batch {batch_id}: the API does not know it ({said}); kept noted, its "
                    f"{len(asked)} request(s) not asked again (submitted with another key, "
                    "organization or project?): run with the account that submitted it, or "
                    f"`hyoka batch release {shown} {batch_id}` to ask them again"
                )
                continue
            if not state.ended:
                running.append({**entry, "status": state.status})
                in_flight.update(asked)
                self.progress.running.append(batch_id)
                continue
            try:
                results = await self._asked(self.api.results, batch_id)
            except BatchNotFoundError as exc:  # its results file deleted or expired
                said = server_text(str(exc), self._secrets.scrub)
                self.progress.notices.append(
                    f"batch {batch_id} ended {state.status} but its results are gone "
                    f"({said}); its {len(asked)} request(s) asked again"
                )
                read.append(batch_id)
                continue
            read.append(batch_id)
            fresh = self._read(set(asked), results, kept)
            refusals = {k: v for k, v in results.refused.items() if k in asked and k not in fresh}
            refused.update(refusals)
            self.progress.refused += len(refusals)
            if (fresh or refusals) and path is not None:  # where the run owns them, first
                _write_kept(path, kept, refused)
            lost = [key for key in asked if key not in fresh and key not in kept]
            lost = [key for key in lost if key not in refused]
            if state.cancelled and lost:  # its owner's choice: not undone without a word
                in_flight.update(lost)
                self.progress.notices.append(
                    f"batch {batch_id} was cancelled ({state.status}): its {len(lost)} "
                    "unanswered request(s) are not asked again by this run; run the same "
                    "command again to submit them in a new batch"
                )
                continue
            self._count_lost(lost, results)
            if state.why or (lost and state.status == "failed"):
                self.progress.notices.append(
                    f"batch {batch_id} ended {state.status}"
                    f"{': ' + state.why if state.why else ''}; its {len(lost)} "
                    "unanswered request(s) asked again in a new batch"
                )
        return running, in_flight

    def _read(
        self, asked: set[str], results: BatchResults, kept: dict[str, GenerationResponse]
    ) -> set[str]:
        """Take an ended batch's ``results`` into ``kept`` and the cache: only the requests
        it was noted with (``asked``), each answered once: a line for another id (not ours
        to store) or a second line for one (which is the reply?) is a fault, counted and
        never stored; a repeated one is asked again. The keys taken."""
        answered = set(results.replies) | set(results.failed) | set(results.refused)
        answered |= results.repeated
        self.progress.foreign += len(answered - asked)
        self.progress.unreadable += results.unreadable
        assert self.cache is not None
        taken: set[str] = set()
        for key, response in results.replies.items():
            if key not in asked or key in results.repeated:
                continue
            clean = self._redacted(response)
            kept[key] = clean
            self.cache.put(key, clean)
            self.stats.usage = self.stats.usage + clean.usage
            self.progress.collected += 1
            taken.add(key)
        return taken

    def _count_lost(self, lost: list[str], results: BatchResults) -> None:
        """Count the requests an ended batch did not answer, each with why."""
        self.progress.failed += len(lost)
        why = dict.fromkeys(results.repeated, "answered twice")
        self.progress.reasons.update(
            why.get(key)
            or results.failed.get(key)
            or ("unreadable result" if results.unreadable else "no result")
            for key in lost
        )

    async def submit(
        self,
        wanted: Iterable[BatchRow],
        keep: Callable[[list[dict[str, Any]]], None] | None = None,
    ) -> list[dict[str, Any]]:
        """Submit ``wanted`` in order as the batches the API's limits need
        (``BatchApi.split``); their manifest entries (none: nothing to ask). Before each
        create call ``keep`` notes the batches submitted so far and this one's submission
        (``submitting``, with its mark), so a process killed before its id is noted finds
        the batch (``collect``); after the last, all of them with their ids."""
        entries: list[dict[str, Any]] = []
        for rows in self.api.split(list(wanted)):
            entry: dict[str, Any] = {
                "api": self.api.name,
                "model": self._spec,
                "id": "",
                "status": SUBMITTING,
                "submitted": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "requests": len(rows),
                "custom_ids": [row.key for row in rows],
                "tag": uuid.uuid4().hex,
                "base_url": self.provider.shown_url,
            }
            if keep is not None:
                keep([*entries, entry])
            raw = await self.api.submit([row.row for row in rows], entry["tag"])
            batch_id = self._checked_id(raw, entry)
            self.progress.submitted.append(batch_id)
            entries.append({**entry, "id": batch_id, "status": "submitted"})
        if entries and keep is not None:
            keep(entries)
        return entries


def _when(stamp: str) -> float:
    """Seconds since the epoch of a noted ``submitted`` time (0 where unreadable)."""
    try:
        return float(calendar.timegm(time.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ")))
    except ValueError:
        return 0.0


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
        pending = entry["status"] == SUBMITTING
        if not (pending and entry["id"] == "") and not _BATCH_ID.fullmatch(entry["id"]):
            raise InputError(f'{at}: "id" is not a batch id')
        if pending and not isinstance(entry.get("tag"), str):
            raise InputError(f'{at}: "tag" is not text')
        if not isinstance(entry.get("base_url", ""), (str, type(None))):
            raise InputError(f'{at}: "base_url" is not text')
        count = entry.get("requests")
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise InputError(f'{at}: "requests" is not a count of requests')
        keys = entry.get("custom_ids")
        if not isinstance(keys, list) or not all(isinstance(key, str) for key in keys):
            raise InputError(f'{at}: "custom_ids" is not a list of custom ids')
        found.append(dict(entry))
    return found


def noted_read(notes: Mapping[str, Any]) -> list[str]:
    """The ids of the batches whose results the file's runs have read (``READ_NOTE``;
    none where the note is missing or not a list of ids)."""
    noted = notes.get(READ_NOTE)
    if not isinstance(noted, list):
        return []
    return [str(one) for one in noted if isinstance(one, str) and _BATCH_ID.fullmatch(one)]


def batch_ids_noted(notes: Mapping[str, Any], where: Path) -> set[str]:
    """The ids of the batches a manifest's notes hold in flight or have read: those a run
    of its file collects, or has collected (``noted_batches``' errors for a damaged note)."""
    noted = {entry["id"] for entry in noted_batches(notes, where) if entry["id"]}
    return noted | set(noted_read(notes))


def _made_by(log: JsonlLog[Any]) -> list[str]:
    """The ways of asking that made ``log``'s records: its ``made_by`` note, else (a file
    written before the note) what its signature says, for a file that holds records."""
    noted = log.written.notes.get(MADE_BY_NOTE)
    if isinstance(noted, list) and all(isinstance(way, str) for way in noted):
        return list(noted)
    if not log.records:
        return []
    fields = (log.written.signature or {}).get("fields")
    said = fields.get("batch") if isinstance(fields, dict) else None
    return [f"batch:{said}"] if isinstance(said, str) and said else ["online"]


def signed_batch(log: JsonlLog[Any], client: ModelClient | None = None) -> str | None:
    """The signature's ``batch`` field for ``log``: the batch APIs that made its records
    (``openai``), ``+online`` where online calls made some too, ``None`` where only
    online calls did; a file with no records yet says the ``client``'s way."""
    ways = _made_by(log)
    if not ways and isinstance(client, BatchClient):
        ways = [f"batch:{client.api.name}"]
    apis = sorted(way.removeprefix("batch:") for way in ways if way.startswith("batch:"))
    if not apis:
        return None
    return "+".join(apis) + ("+online" if "online" in ways else "")


def signed_as(signature: Signature, batch: str | None) -> Signature:
    """``signature`` with its ``batch`` field set to ``batch`` (``signed_batch``), or
    without one where ``batch`` is ``None``."""
    if batch is not None:
        return signature.with_field("batch", batch)
    return signature.without_field("batch")


@contextlib.asynccontextmanager
async def batch_round(client: ModelClient, log: JsonlLog[Any]) -> AsyncIterator[None]:
    """One run of one file in batch mode (nothing for an online client but its note of
    what made the records): ended batches collected before, the deferred requests
    submitted after (``log.note`` writes the manifest's note, through the store)."""
    noted = noted_batches(log.written.notes, manifest_path(log.path))
    ways = _made_by(log)
    before = set(log.records)
    if not isinstance(client, BatchClient):
        if noted:  # an online run asks (and pays) again for what those batches hold
            ids = ", ".join(entry["id"] or entry["status"] for entry in noted)
            warnings.warn(
                f"{log.path}: batch(es) {ids} in flight are noted for this file; this run "
                "without --batch asks their requests again online (run with --batch to "
                "collect them)",
                HyokaWarning,
                stacklevel=2,
            )
        _seed_kept(client, log.path)
        yield
        _note_made_by(log, ways, before, "online")
        return
    note = log.note
    await client.check_reachable()
    read = noted_read(log.written.notes)
    before_read = list(read)
    running, in_flight = await client.collect(noted, log.path, read=read)
    if read != before_read:  # before the note drops them: never taken for a lost one
        note(READ_NOTE, read[-_READ_KEPT:])
    if running != noted:
        note(BATCHES_NOTE, running)
    current = _Round(
        in_flight=in_flight, kept=read_replies(log.path), refused=read_refusals(log.path)
    )
    token = _ROUND.set(current)
    try:
        yield
    finally:
        _ROUND.reset(token)
    _note_made_by(log, ways, before, f"batch:{client.api.name}")
    client.progress.deferred += len(current.wanted) + len(current.waiting)
    await client.submit(
        current.wanted.values(), lambda entries: note(BATCHES_NOTE, [*running, *entries])
    )


def _seed_kept(client: ModelClient, path: Path) -> None:
    """An online run answers from the replies the file's batches answered (paid for: kept
    beside it, ``replies_path``) as from its cache: each is put in the client's cache under
    the key it was collected with (the key an online call stores it under), so a run
    finished online with another cache never pays for them twice. Without a cache
    (``--no-cache``) a warning says they are asked again."""
    kept = read_replies(path)
    if not kept:
        return
    if client.cache is None:
        warnings.warn(
            f"{replies_path(path)}: {len(kept)} reply(ies) its batches answered are asked "
            "again online (--no-cache: no cache to answer them from)",
            HyokaWarning,
            stacklevel=3,
        )
        return
    for key, reply in kept.items():
        if client.cache.get(key) is None:
            client.cache.put(key, reply)


def _note_made_by(log: JsonlLog[Any], ways: list[str], before: set[Any], way: str) -> None:
    """Add ``way`` to the file's ``made_by`` note where this run wrote records (a file
    only online calls made keeps no note, as before there was one)."""
    if not set(log.records) - before:
        return
    made = sorted({*ways, way})
    noted = log.written.notes.get(MADE_BY_NOTE)
    if (made != ["online"] or noted is not None) and made != noted:
        log.note(MADE_BY_NOTE, made)
