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
from hyoka.providers.batch import batch_api, noted_batches
from hyoka.providers.registry import load_provider
from hyoka.redact import KnownSecrets
from hyoka.store import MANIFEST_SUFFIX, read_manifest


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

    def to_json(self) -> dict[str, Any]:
        return {
            "file": str(self.file), "api": self.api, "model": self.model, "id": self.id,
            "requests": self.requests, "submitted": self.submitted, "state": self.state,
            "live": self.live,
        }  # fmt: skip

    def line(self) -> str:
        seen = "" if self.live else " (as the last run saw it)"
        return (
            f"{self.file}: {self.model} batch {self.id}, {self.requests} request(s) submitted "
            f"{self.submitted}: {self.state}{seen}"
        )


def batch_status(root: Path, *, live: bool = True, base_url: str | None = None) -> list[NotedBatch]:
    """Every batch noted under ``root`` (a results folder, or one results file), by file;
    ``live``: each asked for its state (``base_url``: the server the command used); a
    ``root`` that is not there is an error naming it, not "no batches"."""
    if not root.exists():
        raise InputError(f"{root}: no such file or folder")
    sides = (
        [root.with_name(root.name + MANIFEST_SUFFIX)]
        if root.is_file()
        else sorted(root.rglob(f"*{MANIFEST_SUFFIX}"))
    )
    found: list[NotedBatch] = []
    # a manifest written before its text was scrubbed, or with another key set then
    scrub = KnownSecrets.from_environment().scrub
    for side in sides:
        log = side.with_name(side.name.removesuffix(MANIFEST_SUFFIX))
        manifest = read_manifest(log)
        if manifest is None:
            continue
        for entry in noted_batches(manifest.notes, side):
            found.append(NotedBatch(
                file=log, api=str(entry.get("api", "")), model=str(entry.get("model", "")),
                id=server_text(str(entry.get("id", "")), scrub),
                requests=entry["requests"],
                submitted=str(entry.get("submitted", "")),
                state=server_text(str(entry.get("status", "")), scrub), live=False,
            ))  # fmt: skip
    if live and found:
        return asyncio.run(_ask(found, base_url))
    return found


async def _ask(found: list[NotedBatch], base_url: str | None) -> list[NotedBatch]:
    asked: list[NotedBatch] = []
    for batch in found:
        settings = {} if base_url is None else {"base_url": base_url}
        provider = load_provider(batch.model, flag="the noted model", **settings)
        try:
            state = await batch_api(provider).state(batch.id)
        finally:
            await provider.aclose()
        counts = ", ".join(f"{name} {count}" for name, count in state.counts.items())
        shown = server_text(state.status, str) + (f" ({counts})" if counts else "")
        asked.append(NotedBatch(**{**batch.__dict__, "state": shown, "live": True}))
    return asked
