"""``hyoka batch status``: the batches in flight that the manifests under a results
folder note (``providers.batch``), each with its state as its API tells it now, or as the
last run saw it."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyoka.errors import InputError
from hyoka.providers._http import server_text
from hyoka.providers.batch import BATCHES_NOTE, SUBMITTING, batch_api, noted_batches
from hyoka.providers.batch_api import BatchNotFoundError
from hyoka.providers.errors import ProviderError
from hyoka.providers.registry import load_provider
from hyoka.redact import KnownSecrets
from hyoka.store import MANIFEST_SUFFIX, atomic_write_text, manifest_path, read_manifest


@dataclass(frozen=True)
class NotedBatch:
    """One batch a results file's manifest notes: the file it answers for, its API,
    model, id, request count and submission time, and its state (``live``: as the API
    said now; else as the last run of the command saw it)."""

    file: Path
    api: str
    model: str
    id: str
    requests: int
    submitted: str
    state: str
    live: bool
    #: why its state could not be asked (the API does not know it, another server's)
    error: str = ""
    #: the server it was submitted to (as shown: no credentials), where noted
    base_url: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "file": str(self.file), "api": self.api, "model": self.model, "id": self.id,
            "requests": self.requests, "submitted": self.submitted, "state": self.state,
            "live": self.live, "error": self.error or None,
        }  # fmt: skip

    def line(self) -> str:
        seen = "" if self.live else " (as the last run saw it)"
        if self.error:
            return f"{self.file}: {self.model} batch {self.id}: {self.error}"
        return (
            f"{self.file}: {self.model} batch {self.id}, {self.requests} request(s) submitted "
            f"{self.submitted}: {self.state}{seen}"
        )


def batch_status(root: Path, *, live: bool = True, base_url: str | None = None) -> list[NotedBatch]:
    """Every batch noted under ``root`` (a results folder, or one results file), by file;
    ``live``: each asked for its state (``base_url``: the server the command used); a
    ``root`` that is not there is an error naming it, not "no batches"."""
    if not root.exists() and not manifest_path(root).is_file():
        raise InputError(f"{root}: no such file or folder")
    sides = (  # a file whose batches are all in flight has only its manifest yet
        [manifest_path(root)]
        if root.is_file() or not root.exists()
        else sorted(root.rglob(f"*{MANIFEST_SUFFIX}"))
    )
    if root.is_file() and root.name.endswith(MANIFEST_SUFFIX):
        results = root.name.removesuffix(MANIFEST_SUFFIX)
        raise InputError(f"{root}: a manifest, not a results file (its results file: {results})")
    if root.is_file() and not sides[0].is_file():
        raise InputError(
            f"{root}: not a results file hyoka wrote (no manifest {sides[0].name} beside it)"
        )
    if not sides:
        raise InputError(f"{root}: holds no results file hyoka wrote (no *{MANIFEST_SUFFIX})")
    found: list[NotedBatch] = []
    # a manifest written before its text was scrubbed, or with another key set then
    scrub = KnownSecrets.from_environment().scrub
    for side in sides:
        log = side.with_name(side.name.removesuffix(MANIFEST_SUFFIX))
        manifest = read_manifest(log)
        if manifest is None:
            continue
        for entry in noted_batches(manifest.notes, side):
            url = entry.get("base_url")
            found.append(NotedBatch(
                file=log, api=str(entry.get("api", "")), model=str(entry.get("model", "")),
                id=server_text(str(entry.get("id") or f"(mark {entry.get('tag')})"), scrub),
                requests=entry["requests"],
                submitted=str(entry.get("submitted", "")),
                state=server_text(str(entry.get("status", "")), scrub), live=False,
                base_url=None if url is None else server_text(str(url), scrub),
            ))  # fmt: skip
    if live and found:
        return asyncio.run(_ask(found, base_url))
    return found


async def _ask(found: list[NotedBatch], base_url: str | None) -> list[NotedBatch]:
    """Each batch's state as its API says now; one that cannot be asked (the API does not
    know it, it went to another server, it was never noted with an id) says why in its
    own line, and the others are still asked."""
    asked: list[NotedBatch] = []
    for batch in found:
        url = base_url if base_url is not None else batch.base_url  # the noted server
        settings = {} if not url else {"base_url": url}
        try:
            provider = load_provider(batch.model, flag="the noted model", **settings)
        except (ProviderError, InputError) as exc:  # no key for its API; an edited model
            said = server_text(str(exc), str)
            error = f"{manifest_path(batch.file)}: its model cannot be asked ({said})"
            asked.append(NotedBatch(**{**batch.__dict__, "error": error, "live": True}))
            continue
        try:
            state = await _state(batch, provider)
        except ProviderError as exc:
            said = server_text(str(exc), str)
            asked.append(NotedBatch(**{**batch.__dict__, "error": said, "live": True}))
            continue
        finally:
            await provider.aclose()
        asked.append(NotedBatch(**{**batch.__dict__, "state": state, "live": True}))
    return asked


async def _state(batch: NotedBatch, provider: Any) -> str:
    """``batch``'s state as its API says it (counts after), or the ``ProviderError`` that
    says why it cannot be asked."""
    if batch.state == SUBMITTING:
        raise ProviderError(
            f"{SUBMITTING}: no id noted yet (the run that submitted it stopped first; the "
            "next run of its command finds it)"
        )
    if batch.base_url is not None and batch.base_url != provider.shown_url:
        raise ProviderError(
            f"submitted to {batch.base_url}, not {provider.shown_url or 'the API'}: "
            f"ask with `base_url` {batch.base_url}"
        )
    try:
        state = await batch_api(provider).read_state(batch.id)
    except BatchNotFoundError as exc:
        raise ProviderError(f"the API does not know it ({exc})") from None
    except ProviderError as exc:  # its line names the batch already
        raise ProviderError(str(exc).removeprefix(f"{batch.api}: batch {batch.id}: ")) from None
    counts = ", ".join(f"{name} {count}" for name, count in state.counts.items())
    return server_text(state.status, str) + (f" ({counts})" if counts else "")


def release_batches(results: Path, batches: list[str]) -> list[dict[str, Any]]:
    """Drop the batches ``batches`` (ids, or a pending submission's mark) from the note of
    the results file ``results`` (its manifest replaced atomically, all else as it was):
    the next run asks their requests again. The entries dropped; a name the note does not
    hold is one ``InputError`` naming the manifest, nothing dropped."""
    side = manifest_path(results)
    manifest = read_manifest(results) if side.is_file() else None
    if manifest is None:
        raise InputError(f"{results}: not a results file hyoka wrote (no manifest {side.name})")
    noted = noted_batches(manifest.notes, side)
    names = {name: [e for e in noted if name in (e["id"], e.get("tag"))] for name in batches}
    missing = [name for name, entries in names.items() if not entries]
    if missing:
        held = ", ".join(e["id"] or f"mark {e.get('tag')}" for e in noted) or "none"
        raise InputError(f"{side}: notes no batch {', '.join(missing)} (its batches: {held})")
    dropped = [e for e in noted if any(e in entries for entries in names.values())]
    kept = [e for e in noted if e not in dropped]
    notes = {**manifest.notes, BATCHES_NOTE: kept}
    atomic_write_text(side, manifest.model_copy(update={"notes": notes}).text())
    return dropped
