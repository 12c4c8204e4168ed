"""Running many calls at once, stopping them all when one fails for good."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable
from typing import TypeVar

_T = TypeVar("_T")


async def gather_or_cancel(awaitables: Iterable[Awaitable[_T]]) -> list[_T]:
    """Results in order; the first error cancels the rest (their finished work stays
    in the response cache and output files) and is raised as it is."""
    tasks = [asyncio.ensure_future(awaitable) for awaitable in awaitables]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
