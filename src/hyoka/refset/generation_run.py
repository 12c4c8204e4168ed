"""Driving stage 1 over many questions and shards, here or on Ray; and importing answers.

Locally, one provider and one ``ModelClient`` serve every shard at once (the client's
concurrency limit bounds the requests in flight). On Ray, long-lived workers each load the
model once and pull batches (``ray_workers``). The files are the same either way, because
every answer's prompt and seed are fixed by the settings, whoever makes it, and each shard
is written by one writer at a time, in batch order.

``import_answers`` puts existing answers (say, pfgen-bench's published reference sets) into
the same shard layout, so that the later stages can rebuild sets from them.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from hyoka.errors import DataError, InputError
from hyoka.pfgen import QuestionFile
from hyoka.providers import ModelClient, ResponseCache, load_provider, parse_model_string
from hyoka.refset.build_stages import benchmark_source
from hyoka.refset.config import PlanSection
from hyoka.refset.executor import Executor
from hyoka.refset.generate import (
    SETTINGS_FILE,
    GenerateConfig,
    QuestionWork,
    ShardReport,
    ShardWriter,
    generate_shard,
    load_snippets,
    pending_batches,
    prepare,
    question_folder,
    write_stats,
)
from hyoka.refset.ray_workers import OnEvent, WorkerEvent, WorkerRates, WorkerResources
from hyoka.refset.shards import append_frame, shard_name, shard_paths
from hyoka.refset.source import BenchmarkSource
from hyoka.store import default_cache_dir, read_json, sha1_files, write_json


def run_generation(
    work: Path,
    config: GenerateConfig,
    source: BenchmarkSource,
    question_ids: Sequence[str] | None = None,
    snippets: Path | None = None,
    executor: Executor = Executor.LOCAL,
    cache_dir: Path | None = None,
    progress: Callable[[int], None] | None = None,
    *,
    workers: int = 1,
    cpus_per_worker: float = 1.0,
    gpus_per_worker: float = 0.0,
    on_event: OnEvent | None = None,
) -> list[dict[str, Any]]:
    """Generate every missing batch; returns one report per (question, shard).

    ``workers`` and the resources each reserves apply on Ray; ``on_event`` hears when a
    worker has loaded its model, finished a batch, or was lost.
    """
    resources = WorkerResources(workers, cpus_per_worker, gpus_per_worker)
    questions = source.select(list(question_ids) if question_ids else None)
    passages = load_snippets(snippets, questions) if snippets else {}
    if snippets:
        config = config.model_copy(update={"snippets_sha1": _sha1(snippets)})
    parse_model_string(config.model)  # a bad --model fails here, before any job starts
    works = [
        QuestionWork(
            config=config,
            question=q,
            samples=source.samples,
            passages=passages.get(q.question_id, []),
            folder=question_folder(work, q.question_id, config.set_name),
        )
        for q in questions
    ]
    for item in works:
        prepare(item.folder, config)
    if executor is Executor.RAY:
        from hyoka.refset.ray_workers import generate_on_ray

        shard_reports = generate_on_ray(
            works, source.folder, snippets, work, resources,
            progress, on_event,
        )  # fmt: skip
    else:
        shard_reports = asyncio.run(_generate_local(works, config, cache_dir, progress, on_event))
    for item in works:
        write_stats(item.folder)
    return [asdict(report) for report in shard_reports]


@dataclass(frozen=True)
class GenerationTotals:
    """What a ``run_generation`` call did, over all its (question, shard) reports."""

    answers: int
    batches: int
    failed: int
    damaged_bytes: int
    empty_retries: int
    prompt_tokens: int
    completion_tokens: int
    notes: tuple[str, ...]


def generation_totals(reports: Sequence[dict[str, Any]]) -> GenerationTotals:
    """Sum the per-shard reports of ``run_generation``; notes keep their order."""
    return GenerationTotals(
        answers=sum(int(r["answers"]) for r in reports),
        batches=sum(int(r["batches"]) for r in reports),
        failed=sum(int(r["failed"]) for r in reports),
        damaged_bytes=sum(int(r["damaged_bytes"]) for r in reports),
        empty_retries=sum(int(r["empty_retries"]) for r in reports),
        prompt_tokens=sum(int(r["prompt_tokens"]) for r in reports),
        completion_tokens=sum(int(r["completion_tokens"]) for r in reports),
        notes=tuple(str(note) for r in reports for note in r["notes"]),
    )


def _sha1(path: Path) -> str:
    return sha1_files([path])[0].sha1


async def _generate_local(
    works: Sequence[QuestionWork],
    config: GenerateConfig,
    cache_dir: Path | None,
    progress: Callable[[int], None] | None,
    on_event: OnEvent | None,
) -> list[ShardReport]:
    """One provider and one client serve every shard at once (the client's concurrency
    bounds the requests in flight)."""
    provider = load_provider(config.model, **config.options)
    if on_event is not None:
        on_event(WorkerEvent("ready", "local", pid=os.getpid(), loads=1))
    cache = ResponseCache(cache_dir) if cache_dir is not None else None
    async with ModelClient(provider, cache=cache, concurrency=config.concurrency) as client:
        writer = ShardWriter(client)
        pending = [pending_batches(item) for item in works]  # each question read once
        reports = await asyncio.gather(
            *(
                generate_shard(item, shard, todo.get(shard, []), writer, progress)
                for item, todo in zip(works, pending, strict=True)
                for shard in range(config.shards)
            )
        )
    if cache is not None:
        cache.close()
    return list(reports)


def import_answers(
    data_folder: Path, work: Path, question_ids: Sequence[str] | None = None
) -> dict[str, dict[str, int]]:
    """Each ``Qxx.json``'s reference sets become one shard per set under 01-generated.

    Returns the answers imported per question and set. Re-importing replaces the shards of
    an imported set; a set that was generated is never replaced by an import. Every file is
    read and its question id and set names checked (``plain_name``) before anything is
    written, so a name like ``../../x`` stops the import with one line, having done nothing.
    """
    paths = sorted(data_folder.glob("Q*.json"))
    if question_ids:
        paths = [p for p in paths if p.stem in set(question_ids)]
    if not paths:
        raise DataError(f"{data_folder}: no question files (Qxx.json) to import")
    planned: list[tuple[Path, Path, str, str, list[str]]] = []
    for path in paths:
        info, answers = QuestionFile.read(path).parse()
        for set_name, texts in answers.items():
            try:
                folder = question_folder(work, info.question_id, set_name)
            except InputError as exc:
                raise DataError(f"{path}: {exc}") from None
            _check_importable(folder)
            planned.append((path, folder, info.question_id, set_name, texts))
    counts: dict[str, dict[str, int]] = {}
    for path, folder, question_id, set_name, texts in planned:
        folder.mkdir(parents=True, exist_ok=True)
        shard = folder / shard_name(0)
        shard.unlink(missing_ok=True)
        records = [{"i": i, "text": t} for i, t in enumerate(texts)]
        append_frame(shard, {"batch": 0, "planned": len(texts), "imported": str(path)}, records)
        settings = {"imported": str(path), "set_name": set_name}
        write_json(folder / SETTINGS_FILE, settings, indent=None, sort_keys=True)
        write_stats(folder)
        counts.setdefault(question_id, {})[set_name] = len(texts)
    return counts


def _check_importable(folder: Path) -> None:
    """A set folder an import may fill: new, or one an earlier import wrote (its settings
    say ``imported``); the shards of a generated set are the user's answers, not ours."""
    settings = folder / SETTINGS_FILE
    if not settings.exists():
        if shard_paths(folder):
            raise DataError(f"{folder}: holds shards without {SETTINGS_FILE}; not replaced")
        return
    try:
        written = read_json(settings)
    except InputError:
        written = None
    imported = isinstance(written, dict) and "imported" in written
    if not imported:
        raise DataError(
            f"{folder}: holds generated answers of this set; an import does not replace them "
            "(import into another work folder)"
        )


class GenerationWatcher:
    """What a front end hears as stage 1 runs; by default nothing."""

    def started(self, total: int) -> None:
        """``total`` answers are to be made (or found made) in all."""

    def advanced(self, answers: int) -> None:
        """``answers`` more are made."""

    def heard(self, rates: WorkerRates) -> None:
        """A worker's event, added to ``rates`` (each worker's answers per second, model
        loads, workers lost)."""


@dataclass(frozen=True)
class GeneratedSets:
    """What a stage 1 run did (``totals``) and, on Ray, what its workers did (``rates``)."""

    totals: GenerationTotals
    rates: WorkerRates | None = None

    def to_json(self) -> dict[str, Any]:
        """The totals (answers, batches, empty after retries, damaged bytes dropped,
        tokens, notes) and, on Ray, the workers' account."""
        found: dict[str, Any] = asdict(self.totals)
        found["notes"] = list(self.totals.notes)
        if self.rates is not None:
            found["workers"] = self.rates.summary()
        return found


def generate_sets(
    work: Path,
    config: GenerateConfig,
    *,
    benchmark: Path | None = None,
    questions: Sequence[str] | None = None,
    snippets: Path | None = None,
    plan: PlanSection | None = None,
    cache: bool = False,
    data_dir: Path | None = None,
    watcher: GenerationWatcher | None = None,
) -> GeneratedSets:
    """Stage 1 as ``hyoka refset generate`` runs it: every missing batch of the questions
    (all, or ``questions``) of ``benchmark`` (default: pfgen-bench's in ``data_dir``)
    generated into ``work``, here or on Ray with the workers of ``plan``; ``cache``: the
    response cache of this machine (not on Ray)."""
    plan = plan or PlanSection()
    watcher = watcher or GenerationWatcher()
    if cache and plan.executor is Executor.RAY:
        raise InputError("`cache`: the response cache is a file on this machine; not on Ray")
    source = benchmark_source(benchmark, data_dir)
    chosen = source.select(list(questions) if questions else None)
    cache_dir = default_cache_dir() if cache else None
    rates = WorkerRates()
    watcher.started(len(chosen) * config.answers)

    def heard(event: WorkerEvent) -> None:
        rates.add(event)
        watcher.heard(rates)

    reports = run_generation(
        work, config, source, list(questions) if questions else None, snippets, plan.executor,
        cache_dir, watcher.advanced, workers=plan.workers,
        cpus_per_worker=plan.cpus_per_worker, gpus_per_worker=plan.gpus_per_worker,
        on_event=heard,
    )  # fmt: skip
    totals = generation_totals(reports)
    return GeneratedSets(totals, rates if plan.executor is Executor.RAY else None)
