"""Batching for in-process engines (vLLM, a transformers model): one worker thread.

Such engines are not thread-safe, and they are fastest on many requests at once. The
client sends one ``generate`` per request; each queues its request here, and the single
worker thread takes everything queued when it is free as its next batch. So requests in
flight together are batched together, with no batching API for callers to use.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from hyoka.providers.base import Provider
from hyoka.providers.types import GenerationRequest, GenerationResponse

#: what a batch gives back for each request: its response, or the error for it alone
Outcome = GenerationResponse | Exception


@dataclass
class _Job:
    request: GenerationRequest
    future: asyncio.Future[GenerationResponse]
    loop: asyncio.AbstractEventLoop

    def settle(self, outcome: Outcome) -> None:
        def apply() -> None:
            if self.future.done():  # cancelled: the caller stopped waiting
                return
            if isinstance(outcome, Exception):
                self.future.set_exception(outcome)
            else:
                self.future.set_result(outcome)

        # RuntimeError: that event loop is closed, nobody is waiting any more
        with contextlib.suppress(RuntimeError):
            self.loop.call_soon_threadsafe(apply)


class BatchingWorker:
    """Runs ``run_batch`` on one worker thread over whatever requests are waiting.

    ``run_batch`` returns one outcome per request: a response, or the error for that
    request alone; an exception it raises fails the whole batch. ``max_batch`` caps the
    requests handed over in one call.
    """

    def __init__(
        self,
        run_batch: Callable[[list[GenerationRequest]], list[Outcome]],
        *,
        name: str,
        max_batch: int = 256,
    ) -> None:
        self._run_batch = run_batch
        self._name = name
        self._max_batch = max_batch
        self._pending: deque[_Job] = deque()
        self._lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None

    async def submit(self, request: GenerationRequest) -> GenerationResponse:
        """The response to ``request``, computed in a batch with its concurrent peers."""
        loop = asyncio.get_running_loop()
        job = _Job(request, loop.create_future(), loop)
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=self._name)
            executor = self._executor
            self._pending.append(job)
        try:
            # one turn of the loop first: requests started together (asyncio.gather) are
            # then all queued before the worker looks, and so make one batch
            await asyncio.sleep(0)
            await loop.run_in_executor(executor, self._drain)
            return await job.future
        except asyncio.CancelledError:
            job.future.cancel()  # the worker skips it if it is still queued
            raise

    def _drain(self) -> None:
        while True:
            with self._lock:
                jobs: list[_Job] = []
                while self._pending and len(jobs) < self._max_batch:
                    job = self._pending.popleft()
                    if not job.future.cancelled():
                        jobs.append(job)
            if not jobs:
                return
            try:
                outcomes = self._run_batch([job.request for job in jobs])
            except Exception as exc:
                outcomes = [exc] * len(jobs)
            for job, outcome in zip(jobs, outcomes, strict=True):
                job.settle(outcome)

    async def aclose(self) -> None:
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            await asyncio.get_running_loop().run_in_executor(None, executor.shutdown)


class BatchedProvider(Provider):
    """An in-process provider whose requests its ``BatchingWorker`` answers in batches:
    ``generate`` checks a request and queues it; ``aclose`` stops the worker, then drops
    the engine (``_unload``)."""

    _worker: BatchingWorker

    async def generate(self, request: GenerationRequest) -> GenerationResponse:
        self.check_request(request)
        return await self._worker.submit(request)

    async def aclose(self) -> None:
        await self._worker.aclose()
        self._unload()

    def _unload(self) -> None:
        """Let go of the loaded engine (its memory is freed once nothing holds it)."""
