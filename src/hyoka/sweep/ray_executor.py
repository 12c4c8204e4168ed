"""A sweep whose local models run on a Ray cluster (``hyoka sweep PLAN --executor ray``).

The cells still run here, through the same entry points as with the ``LocalExecutor``, but
several at once (``RayExecutor.cells``, threads of this process sharing the workers, so a
sweep of many small cells keeps every worker busy); each result is handed back on the
calling thread, which alone writes the manifest. Every file of the run is written by this
process alone, and every request passes this process's response cache, so a sweep stopped
and run again resumes its files and pays for nothing twice. What moves is the model: a
model computed locally (``llamacpp/``, ``hf/``, ``vllm/``: ``models.computed_here``) is
loaded once by each of the executor's Ray workers (actors; llama.cpp on a CPU node, vLLM
with ``gpus`` per worker on a GPU node, as the plan's model string says), and the requests
of every cell (its questions, its trials) go to the worker with the fewest in flight.
Models on servers are asked from here as they would be without Ray (several servers of one
model: ``pooled``).

A worker lost with its node costs only the requests it had in flight: each is sent again
to another worker (the same request, seed included, so the same reply), and a worker is
started in its place where the cluster can still place one. The cluster is ``RAY_ADDRESS``
or one started here (``refset.executor.connect_ray``); the worker's resources and the
events it reports are the reference-set builder's (``refset.ray_workers``).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hyoka.errors import HyokaError
from hyoka.providers import GenerationRequest, GenerationResponse, Provider, ProviderError
from hyoka.refset import (
    MAX_LOSSES_PER_BATCH,
    WORKER_START_TIMEOUT_S,
    OnEvent,
    WorkerEvent,
    WorkerResources,
    load_report,
)
from hyoka.sweep.runner import LocalExecutor
from hyoka.sweep.spec import Cell

if TYPE_CHECKING:
    from hyoka.sweep.cells import CellResult


class ModelWorker:
    """The body of one Ray actor: the model loaded once (``ready``), then requests. An
    async actor, so a backend that batches (vLLM) has every request it was sent at once;
    llama.cpp takes them one at a time on its own thread. A failure a user must read comes
    back as ``{"error": line}``, not a Ray traceback."""

    def __init__(self, name: str, spec: str, options: dict[str, Any]) -> None:
        self.name = name
        self.spec = spec
        self.options = options
        self.provider: Provider | None = None

    async def ready(self) -> dict[str, Any]:
        import ray

        from hyoka.providers import load_provider

        try:
            provider = load_provider(self.spec, **self.options)
            await provider.preflight()  # the weights loaded now: ready means ready
        except Exception as exc:
            error = str(exc) if isinstance(exc, HyokaError) else f"{self.name}: {exc!r}"
            return {"error": error}
        self.provider = provider
        node = ray.get_runtime_context().get_node_id()
        return {"node": node, "pid": os.getpid(), "loads": 1}

    async def generate(self, request: str) -> dict[str, Any]:
        if self.provider is None:
            return {"error": f"{self.name}: the model is not loaded"}
        try:
            reply = await self.provider.generate(GenerationRequest.model_validate_json(request))
        except HyokaError as exc:
            return {"error": str(exc)}
        return {"reply": reply.model_dump_json()}


@dataclass
class _Worker:
    name: str
    handle: Any
    node: str = ""
    in_flight: int = 0


class RayModel(Provider):
    """One local model on Ray workers, as a provider: its identity and checks are the
    backend's own (built here, never loaded here), so the replies are cached, and read
    back, exactly as a model loaded here would be. Cells running side by side each send
    requests from their own thread and event loop: the workers' bookkeeping is taken under
    one lock."""

    name = "ray"
    in_process = True  # a request waits its turn on a worker: work, not a hung server

    def __init__(
        self,
        ray: Any,
        spec: str,
        options: Mapping[str, Any],
        resources: WorkerResources,
        on_event: OnEvent,
    ) -> None:
        from hyoka.providers import load_provider

        self.local = load_provider(spec, **options)  # identity and checks; never loaded
        super().__init__(self.local.model, base_url=self.local.base_url)
        self.ray = ray
        self.spec = spec
        self.resources = resources
        self.on_event = on_event
        self.actor_class = ray.remote(ModelWorker).options(
            num_cpus=resources.cpus, num_gpus=resources.gpus, max_restarts=0
        )
        self.options = dict(options)
        self.started = 0
        self.handles: list[Any] = []
        self.starting: dict[Any, _Worker] = {}
        self.ready: list[_Worker] = []
        #: the line of a worker whose model did not load: every later cell's too
        self.error: str | None = None
        self.lock = threading.RLock()

    def identity(self) -> dict[str, Any]:
        return self.local.identity()

    @property
    def replies_pin(self) -> str | None:
        return self.local.replies_pin

    def check_request(self, request: GenerationRequest) -> None:
        self.local.check_request(request)

    def in_flight(self) -> dict[str, int]:
        """Each ready worker's requests in flight, by name (for progress, and for tests)."""
        return {worker.name: worker.in_flight for worker in self.ready}

    def _start_worker(self) -> None:
        name = f"w{self.started}"
        self.started += 1
        handle = self.actor_class.remote(name, self.spec, self.options)
        self.handles.append(handle)
        self.starting[handle.ready.remote()] = _Worker(name, handle)

    async def preflight(self) -> None:
        """Start the workers (once for the sweep) and wait for one to have the model."""
        with self.lock:
            if self.started == 0:
                for _ in range(self.resources.workers):
                    self._start_worker()
        await self._wait_for_ready()

    async def _wait_for_ready(self) -> None:
        """Take in the workers that finished loading; wait while none is ready."""
        waited = 0.0
        while True:
            if self.error is not None:
                raise ProviderError(self.error)
            starting = list(self.starting)
            if starting:
                done, _ = await asyncio.to_thread(
                    self.ray.wait, starting, num_returns=len(starting), timeout=0
                )
                with self.lock:
                    for ref in done:
                        # several requests wait at once: one of them may have taken it in
                        if ref in self.starting:
                            self._started(ref)
            with self.lock:
                if self.ready:
                    return
                starting = list(self.starting)
            if not starting:
                raise ProviderError(f"{self.spec}: every Ray worker was lost")
            if waited > WORKER_START_TIMEOUT_S:
                raise ProviderError(f"{self.spec}: {self.resources.unplaced()}")
            await asyncio.to_thread(self.ray.wait, starting, num_returns=1, timeout=1.0)
            waited += 1.0

    def _started(self, ref: Any) -> None:
        worker = self.starting.pop(ref)
        info = load_report(self.ray, ref)
        if info is None:
            self._replace()
            return
        if "error" in info:
            self.error = str(info["error"])
            raise ProviderError(self.error)
        worker.node = str(info["node"])
        self.ready.append(worker)
        self.on_event(
            WorkerEvent(
                "ready", worker.name, node=worker.node, pid=int(info["pid"]),
                loads=int(info["loads"]),
            )
        )  # fmt: skip

    def _replace(self) -> None:
        """Start a worker for a lost one; it is used if the cluster can still place it."""
        if self.started < self.resources.workers * 4:
            self._start_worker()

    async def generate(self, request: GenerationRequest) -> GenerationResponse:
        body = request.model_dump_json()
        losses = 0
        while True:
            await self.preflight()  # the workers started once; one of them ready
            with self.lock:
                if not self.ready:  # lost since: wait for another
                    continue
                worker = min(self.ready, key=lambda w: w.in_flight)  # first of the least busy
                worker.in_flight += 1
            started = time.monotonic()
            try:
                result = await worker.handle.generate.remote(body)
            except self.ray.exceptions.RayTaskError as exc:  # a bug in a worker, not a loss
                raise ProviderError(f"Ray worker {worker.name} failed: {exc.cause!r}") from exc
            except self.ray.exceptions.RayError:
                losses += 1
                self._lost(worker, losses)
                continue
            finally:
                with self.lock:
                    worker.in_flight -= 1
            if "error" in result:
                raise ProviderError(str(result["error"]))
            reply = GenerationResponse.model_validate_json(result["reply"])
            seconds = time.monotonic() - started
            self.on_event(
                WorkerEvent("batch", worker.name, answers=len(reply.choices), seconds=seconds)
            )
            return reply

    def _lost(self, worker: _Worker, losses: int) -> None:
        if losses >= MAX_LOSSES_PER_BATCH:
            raise ProviderError(
                f"{self.spec}: a request was in flight on {MAX_LOSSES_PER_BATCH} Ray workers "
                "that died; the request itself may kill them (out of memory?)"
            )
        with self.lock:
            if worker in self.ready:  # the first of its requests to hear of the loss
                self.ready.remove(worker)
                self._replace()
        self.on_event(WorkerEvent("lost", worker.name, node=worker.node, redone=1))

    async def aclose(self) -> None:
        for handle in self.handles:
            with contextlib.suppress(Exception):  # an actor already gone needs no killing
                self.ray.kill(handle, no_restart=True)
        with self.lock:
            self.handles, self.ready, self.starting = [], [], {}
            self.started = 0  # asked again (another sweep): workers started afresh


class RayExecutor(LocalExecutor):
    """The cells here, ``cells`` at a time (by default one a worker, so that a sweep of
    small cells keeps them all busy); each local model on Ray workers that load it once
    (``ModelHost``): ``workers`` of them a model, each reserving ``cpus`` and ``gpus`` on
    its node. Each cell runs on a thread of its own and fails alone (``run_cell``); every
    result comes back to the caller's thread, the sweep's one writer."""

    def __init__(
        self,
        resources: WorkerResources | None = None,
        on_event: OnEvent | None = None,
        cells: int | None = None,
    ) -> None:
        self.resources = resources or WorkerResources()
        self.on_event: OnEvent = on_event or (lambda event: None)
        self.cells = cells or self.resources.workers
        self.models: list[RayModel] = []
        self.lock = threading.Lock()

    def run(
        self,
        cells: Sequence[Cell],
        work: Callable[[Cell], CellResult],
        done: Callable[[CellResult], None],
    ) -> None:
        """Run ``cells`` at most ``self.cells`` at once, handing each result to ``done`` here
        as it comes. Each cell runs in a copy of this thread's context (the sweep's lent
        models). Ctrl-C here, or an error that is not a cell's (a bug), cancels the running
        cells at once (``stopping``: their entry points clean up as on Ctrl-C) and the
        cells not yet started; every cell that ended with its result before is handed to
        ``done``, then the interrupt (or the bug) is raised."""
        if self.cells <= 1 or len(cells) <= 1:
            super().run(cells, work, done)
            return
        from hyoka.sweep.stopping import cell_loops

        with cell_loops() as loops:

            def one(cell: Cell) -> CellResult:
                with loops.cell():
                    return work(cell)

            pool = ThreadPoolExecutor(self.cells, thread_name_prefix="hyoka-cell")
            running: set[Future[CellResult]] = set()
            try:
                running = {pool.submit(contextvars.copy_context().run, one, c) for c in cells}
                while running:
                    finished, running = wait(running, return_when=FIRST_COMPLETED)
                    for future in finished:  # every result first, then a bug raised
                        if future.exception() is None:
                            done(future.result())
                    for future in finished:
                        future.result()
            except BaseException:
                loops.stop()
                pool.shutdown(wait=True, cancel_futures=True)
                for future in running:  # ended with a result before the stop took them
                    if not future.cancelled() and future.exception() is None:
                        done(future.result())
                raise
            finally:
                pool.shutdown(wait=True, cancel_futures=True)

    def reach(self) -> None:
        """Connect to the cluster now, once for the sweep (``connect_ray``: at most its
        bound, then one line), so a ``RAY_ADDRESS`` where none answers stops the sweep
        before its first cell, not each cell after the wait."""
        from hyoka.refset import connect_ray

        connect_ray()

    def hosted(self, spec: str, options: Mapping[str, Any]) -> Provider:
        """``spec`` on this executor's workers: one set of them per model and settings,
        however often it is asked for."""
        from hyoka.refset import connect_ray

        with self.lock:
            for model in self.models:
                if model.spec == spec and model.options == dict(options):
                    return model
            model = RayModel(connect_ray(), spec, options, self.resources, self.on_event)
            self.models.append(model)
            return model
