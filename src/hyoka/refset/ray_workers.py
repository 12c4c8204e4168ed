"""Stage 1 on a Ray cluster: long-lived workers that load the model once and pull batches.

A worker is a Ray actor. It loads its provider when it starts (``preflight``: the weights
of an in-process model, a first connection to a server; vLLM with its
``tensor_parallel_size`` on a GPU node, llama.cpp or transformers on a CPU node, or an
OpenAI-compatible client whose ``base_url`` of ``localhost`` is that node's own server) and
then makes one batch after another, each into its shard with ``ShardWriter``, exactly as
the local path does. The driver here hands out the work and is the only one that decides.

Why actors and a small scheduler of our own rather than Ray Data's ``map_batches`` over an
actor pool: a batch here is not a transformation of rows but an append to a shard file,
and those appends must come one at a time per shard, in batch order, for the files to be
the local files byte for byte. Ray Data schedules blocks freely and, when a worker is lost,
re-runs whole blocks where it likes; here a lost worker costs exactly its batch in flight,
which goes back to the front of its shard's queue and is made by the next free worker with
the same seeds. The driver also bounds every wait (a worker that cannot be placed, a batch
that keeps killing its workers) and reports per-worker rates as it goes.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import socket
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from hyoka.errors import HyokaError
from hyoka.providers import ModelClient, load_provider
from hyoka.refset.executor import connect_ray
from hyoka.refset.generate import (
    GenerateConfig,
    QuestionWork,
    ShardReport,
    ShardWriter,
    load_snippets,
    pending_batches,
    question_folder,
)
from hyoka.refset.source import BenchmarkSource

#: How long the driver waits for at least one worker to be alive before giving up.
WORKER_START_TIMEOUT_S = 600.0
#: How often the driver wakes while batches run, at the latest (sooner for a batch's
#: deadline: ``_Driver._wait_s``).
_TICK_S = 1.0
#: A batch in flight on this many workers that all died is not tried again.
MAX_LOSSES_PER_BATCH = 3
#: A worker still on one batch after this long is taken for hung: it is killed, and the
#: batch goes to another worker (its provider's own retries have deadlines well inside it).
BATCH_TIMEOUT_S = 3600.0


@dataclass(frozen=True)
class WorkerResources:
    """How many workers to start and what each one reserves on its node."""

    workers: int = 1
    cpus: float = 1.0
    gpus: float = 0.0

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise HyokaError("`workers` must be at least 1")
        if self.cpus < 0 or self.gpus < 0:
            raise HyokaError("`cpus` and `gpus` must not be negative")

    def unplaced(self) -> str:
        """Why no worker started within ``WORKER_START_TIMEOUT_S``: what each one asks of
        a node (the refset driver and the sweep's hosted models say it alike)."""
        return (
            f"no Ray worker could start in {WORKER_START_TIMEOUT_S:.0f} s: each needs "
            f"{self.cpus:g} CPU(s) and {self.gpus:g} GPU(s) free on one node (see `ray status`)"
        )


@dataclass(frozen=True)
class WorkerEvent:
    """What the driver reports about its workers as the run goes.

    ``ready``: a worker loaded its model (``loads`` counts the provider loads it made, one
    per worker by design). ``batch``: it appended ``answers`` answers in ``seconds``.
    ``lost``: it died (its node removed, killed, out of memory) with a batch of ``redone``
    answers in flight, which another worker makes again.
    """

    kind: Literal["ready", "batch", "lost"]
    worker: str
    node: str = ""
    pid: int = 0
    loads: int = 0
    answers: int = 0
    seconds: float = 0.0
    redone: int = 0


OnEvent = Callable[[WorkerEvent], None]


def load_report(ray: Any, ref: Any) -> dict[str, Any] | None:
    """What a worker reported when it finished loading (its ``node``, ``pid``, ``loads``,
    ``seconds``, or the ``error`` that stopped it); None when its node went away while it
    loaded, and the caller starts another in its place."""
    try:
        info: dict[str, Any] = ray.get(ref)
    except ray.exceptions.RayError:
        return None
    return info


class WorkerRates:
    """What the workers did, added up from their events as the run goes: each worker's
    answers and busy seconds (so its answers per second), the model loads, the workers lost
    and the answers in flight they took with them (made again by another worker).

    Fed by ``run_generation``'s ``on_event``; ``line`` is the progress line's rates and
    ``summary`` the end-of-run account, so every front end shows the same numbers."""

    def __init__(self) -> None:
        self.answers: dict[str, int] = {}
        self.seconds: dict[str, float] = {}
        self.loads = 0
        self.lost = 0
        self.redone = 0

    def add(self, event: WorkerEvent) -> None:
        """Count one event (``ready``, ``batch`` or ``lost``)."""
        if event.kind == "ready":
            self.loads += event.loads
            self.answers.setdefault(event.worker, 0)
            self.seconds.setdefault(event.worker, 0.0)
        elif event.kind == "batch":
            self.answers[event.worker] = self.answers.get(event.worker, 0) + event.answers
            self.seconds[event.worker] = self.seconds.get(event.worker, 0.0) + event.seconds
        else:
            self.lost += 1
            self.redone += event.redone

    def line(self) -> str:
        """``w0 1.2/s w1 1.1/s``: answers per second of each worker's busy time."""
        return " ".join(
            f"{worker} {self.answers[worker] / seconds:.1f}/s"
            for worker, seconds in self.seconds.items()
            if seconds > 0
        )

    def summary(self) -> str:
        """One line: workers, model loads, losses and the rates."""
        return (
            f"{len(self.answers)} worker(s), {self.loads} model load(s); {self.lost} lost "
            f"with {self.redone} answer(s) in flight made again; {self.line() or 'no batches'}"
        )


class GenerationWorker:
    """The body of one Ray actor: one provider load, then batches until the driver is done.

    Errors a user must read (a model file that does not load, a shard held too long) come
    back as ``{"error": line}`` rather than as a Ray traceback.
    """

    def __init__(
        self,
        name: str,
        config: dict[str, Any],
        source_folder: str,
        snippets: str | None,
        work: str,
    ) -> None:
        self.name = name
        self.error: str | None = None
        self.loads = 0
        started = time.monotonic()
        self.config = GenerateConfig.model_validate(config)
        self.work = Path(work)
        self._works: dict[str, QuestionWork] = {}
        self.loop = asyncio.new_event_loop()
        try:
            for folder, what in ((self.work, "work folder"), (Path(source_folder), "benchmark")):
                if not folder.is_dir():
                    raise HyokaError(
                        f"{folder}: the {what} is not visible to Ray worker {name} on "
                        f"{socket.gethostname()}; every node needs it on a shared file system"
                    )
            self.source = BenchmarkSource.load(Path(source_folder))
            questions = list(self.source.questions)
            self.passages = load_snippets(Path(snippets), questions) if snippets else {}
            provider = load_provider(self.config.model, **self.config.options)
            # weights loaded (or the server reached) now, so that ready means ready
            self.loop.run_until_complete(provider.preflight())
            self.loads += 1
        except Exception as exc:  # reported by ready(): one line, not a lost worker
            self.error = str(exc) if isinstance(exc, HyokaError) else f"{name}: {exc!r}"
            return
        self.writer = ShardWriter(ModelClient(provider, concurrency=self.config.concurrency))
        self.load_seconds = time.monotonic() - started

    def ready(self) -> dict[str, Any]:
        import ray

        if self.error is not None:
            return {"error": self.error}
        return {
            "node": ray.get_runtime_context().get_node_id(),
            "pid": os.getpid(),
            "loads": self.loads,
            "seconds": self.load_seconds,
        }

    def make_batch(self, question_id: str, batch: int) -> dict[str, Any]:
        started = time.monotonic()
        try:
            report = self.loop.run_until_complete(
                self.writer.make_batch(self._work(question_id), batch)
            )
        except HyokaError as exc:
            return {"error": str(exc)}
        return {"report": asdict(report), "seconds": time.monotonic() - started}

    def _work(self, question_id: str) -> QuestionWork:
        if question_id not in self._works:
            (question,) = self.source.select([question_id])
            self._works[question_id] = QuestionWork(
                config=self.config,
                question=question,
                samples=self.source.samples,
                passages=self.passages.get(question_id, []),
                folder=question_folder(self.work, question_id, self.config.set_name),
            )
        return self._works[question_id]


@dataclass
class _Running:
    worker: str
    handle: Any
    key: tuple[str, int]
    batch: int
    planned: int
    started: float


def generate_on_ray(
    works: Sequence[QuestionWork],
    source_folder: Path,
    snippets: Path | None,
    work_root: Path,
    resources: WorkerResources,
    progress: Callable[[int], None] | None = None,
    on_event: OnEvent | None = None,
) -> list[ShardReport]:
    """Make every pending batch of ``works`` on Ray workers; one report per (question, shard)."""
    reports = {
        (w.question.question_id, shard): ShardReport(w.question.question_id, shard)
        for w in works
        for shard in range(w.config.shards)
    }
    queues: dict[tuple[str, int], deque[int]] = {
        (w.question.question_id, shard): deque(batches)
        for w in works
        for shard, batches in pending_batches(w).items()
    }
    if not queues:
        return list(reports.values())
    config = works[0].config
    driver = _Driver(connect_ray(), config, source_folder, snippets, work_root, resources)
    try:
        driver.run(queues, reports, progress, on_event or (lambda event: None))
    finally:
        driver.stop()
    return list(reports.values())


class _Driver:
    """Hands batches to idle workers, one worker per shard at a time, and replaces the lost."""

    def __init__(
        self,
        ray: Any,
        config: GenerateConfig,
        source_folder: Path,
        snippets: Path | None,
        work_root: Path,
        resources: WorkerResources,
    ) -> None:
        self.ray = ray
        self.config = config
        self.resources = resources
        self.actor_class = ray.remote(GenerationWorker).options(
            num_cpus=resources.cpus, num_gpus=resources.gpus, max_restarts=0
        )
        self.args = (
            config.model_dump(mode="json"),
            str(source_folder),
            str(snippets) if snippets else None,
            str(work_root),
        )
        self.started = 0
        self.handles: list[Any] = []
        self.starting: dict[Any, tuple[str, Any]] = {}
        self.idle: list[tuple[str, Any]] = []
        self.running: dict[Any, _Running] = {}
        self.losses: dict[tuple[str, int], int] = {}

    def start_worker(self) -> None:
        name = f"w{self.started}"
        self.started += 1
        handle = self.actor_class.remote(name, *self.args)
        self.handles.append(handle)
        self.starting[handle.ready.remote()] = (name, handle)

    def run(
        self,
        queues: dict[tuple[str, int], deque[int]],
        reports: dict[tuple[str, int], ShardReport],
        progress: Callable[[int], None] | None,
        on_event: OnEvent,
    ) -> None:
        ray = self.ray
        for _ in range(self.resources.workers):
            self.start_worker()
        last_alive = time.monotonic()
        while any(queues.values()) or self.running:
            self._assign(queues)
            waiting = [*self.starting, *self.running]
            if not waiting:
                raise HyokaError(f"every Ray worker was lost ({self.started} started)")
            done, _ = ray.wait(waiting, num_returns=1, timeout=self._wait_s())
            for ref in done:
                if ref in self.starting:
                    self._started(ref, on_event)
                else:
                    self._finished(ref, queues, reports, progress, on_event)
            self._kill_hung()
            if self.idle or self.running:
                last_alive = time.monotonic()
            elif time.monotonic() - last_alive > WORKER_START_TIMEOUT_S:
                raise HyokaError(self.resources.unplaced())

    def _wait_s(self) -> float:
        """How long to wait for a result: until the next tick, or until the first batch in
        flight reaches ``BATCH_TIMEOUT_S`` if sooner, so that a hung worker is killed at its
        bound and not up to a tick after it."""
        now = time.monotonic()
        deadlines = [r.started + BATCH_TIMEOUT_S - now for r in self.running.values()]
        return max(0.0, min([_TICK_S, *deadlines]))

    def _kill_hung(self) -> None:
        """Kill a worker stuck on one batch for ``BATCH_TIMEOUT_S``; its batch's result
        then arrives as a lost worker's, and the batch is made elsewhere."""
        now = time.monotonic()
        for running in self.running.values():
            if now - running.started >= BATCH_TIMEOUT_S:
                self.ray.kill(running.handle, no_restart=True)
                running.started = math.inf  # killed once

    def _assign(self, queues: dict[tuple[str, int], deque[int]]) -> None:
        busy = {running.key for running in self.running.values()}
        for key, queue in queues.items():
            if not self.idle:
                return
            if not queue or key in busy:
                continue
            name, handle = self.idle.pop(0)
            batch = queue.popleft()
            ref = handle.make_batch.remote(key[0], batch)
            planned = len(self.config.batch_range(batch))
            self.running[ref] = _Running(name, handle, key, batch, planned, time.monotonic())
            busy.add(key)

    def _started(self, ref: Any, on_event: OnEvent) -> None:
        name, handle = self.starting.pop(ref)
        info = load_report(self.ray, ref)
        if info is None:
            self._replace()
            return
        if "error" in info:
            raise HyokaError(str(info["error"]))
        self.idle.append((name, handle))
        event = WorkerEvent(
            "ready", name, node=str(info["node"]), pid=int(info["pid"]),
            loads=int(info["loads"]), seconds=float(info["seconds"]),
        )  # fmt: skip
        on_event(event)

    def _finished(
        self,
        ref: Any,
        queues: dict[tuple[str, int], deque[int]],
        reports: dict[tuple[str, int], ShardReport],
        progress: Callable[[int], None] | None,
        on_event: OnEvent,
    ) -> None:
        running = self.running.pop(ref)
        try:
            result = self.ray.get(ref)
        except self.ray.exceptions.RayTaskError as exc:  # a bug in a worker, not a lost one
            raise HyokaError(f"Ray worker {running.worker} failed: {exc.cause!r}") from exc
        except self.ray.exceptions.RayError:
            self._lost(running, queues, on_event)
            return
        if "error" in result:
            raise HyokaError(str(result["error"]))
        report = ShardReport(**result["report"])
        reports[running.key].add(report)
        self.idle.append((running.worker, running.handle))
        if progress is not None:
            progress(running.planned)
        on_event(
            WorkerEvent(
                "batch", running.worker, answers=report.answers, seconds=float(result["seconds"])
            )
        )

    def _lost(
        self,
        running: _Running,
        queues: dict[tuple[str, int], deque[int]],
        on_event: OnEvent,
    ) -> None:
        where = (running.key[0], running.batch)
        self.losses[where] = self.losses.get(where, 0) + 1
        if self.losses[where] >= MAX_LOSSES_PER_BATCH:
            raise HyokaError(
                f"batch {running.batch} of {running.key[0]} was in flight on "
                f"{MAX_LOSSES_PER_BATCH} workers that died; the batch itself may kill them "
                "(out of memory?)"
            )
        queues[running.key].appendleft(running.batch)  # same batch, same seeds, next worker
        on_event(WorkerEvent("lost", running.worker, redone=running.planned))
        self._replace()

    def _replace(self) -> None:
        """Start a worker for a lost one; it is used if the cluster can still place it."""
        if self.started < self.resources.workers * 4:
            self.start_worker()

    def stop(self) -> None:
        for handle in self.handles:
            # an actor that is already gone needs no killing
            with contextlib.suppress(Exception):
                self.ray.kill(handle, no_restart=True)
