"""Driving stage 1 over many questions and shards, here or on Ray; and importing answers.

Locally, one provider and one ``ModelClient`` serve every shard at once (the client's
concurrency limit bounds the requests in flight). On Ray, each (question, shard) is one job
that loads its own provider, so GPU nodes with vLLM, or CPU nodes with llama.cpp, each fill
their shards; the results are the same files, because every answer's prompt and seed are
fixed by the settings, whoever makes it.

``import_answers`` puts existing answers (say, pfgen-bench's published reference sets) into
the same shard layout, so that the later stages can rebuild sets from them.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from hyoka.errors import DataError
from hyoka.pfgen import QuestionFile
from hyoka.providers import ModelClient, ResponseCache, load_provider, parse_model_string
from hyoka.refset.executor import Executor, run_jobs
from hyoka.refset.generate import (
    SETTINGS_FILE,
    GenerateConfig,
    ShardReport,
    generate_shard,
    load_snippets,
    question_folder,
    write_stats,
)
from hyoka.refset.shards import append_frame, shard_name
from hyoka.refset.source import BenchmarkSource, SourceQuestion
from hyoka.store import atomic_write_text


def run_generation(
    work: Path,
    config: GenerateConfig,
    source: BenchmarkSource,
    question_ids: Sequence[str] | None = None,
    snippets: Path | None = None,
    executor: Executor = Executor.LOCAL,
    cache_dir: Path | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[dict[str, Any]]:
    """Generate every missing batch; returns one report per (question, shard)."""
    questions = source.select(list(question_ids) if question_ids else None)
    passages = load_snippets(snippets, questions) if snippets else {}
    if snippets:
        config = config.model_copy(update={"snippets_sha1": _sha1(snippets)})
    parse_model_string(config.model)  # a bad --model fails here, before any job starts
    tasks = [(q, shard) for q in questions for shard in range(config.shards)]
    if executor is Executor.RAY:
        items = [
            {
                "work": str(work),
                "config": config.model_dump(mode="json"),
                "source": str(source.folder),
                "qid": q.question_id,
                "shard": shard,
                "snippets": str(snippets) if snippets else None,
            }
            for q, shard in tasks
        ]
        reports: list[dict[str, Any]] = run_jobs(generation_job, items, executor)
    else:
        reports = asyncio.run(
            _generate_local(work, config, source, tasks, passages, cache_dir, progress)
        )
    for q in questions:
        write_stats(question_folder(work, q.question_id, config.set_name))
    return reports


@dataclass(frozen=True)
class GenerationTotals:
    """What a ``run_generation`` call did, over all its (question, shard) reports."""

    answers: int
    batches: int
    failed: int
    damaged_bytes: int
    notes: tuple[str, ...]


def generation_totals(reports: Sequence[dict[str, Any]]) -> GenerationTotals:
    """Sum the per-shard reports of ``run_generation``; notes keep their order."""
    return GenerationTotals(
        answers=sum(int(r["answers"]) for r in reports),
        batches=sum(int(r["batches"]) for r in reports),
        failed=sum(int(r["failed"]) for r in reports),
        damaged_bytes=sum(int(r["damaged_bytes"]) for r in reports),
        notes=tuple(str(note) for r in reports for note in r["notes"]),
    )


def _sha1(path: Path) -> str:
    import hashlib

    return hashlib.sha1(path.read_bytes()).hexdigest()


async def _generate_local(
    work: Path,
    config: GenerateConfig,
    source: BenchmarkSource,
    tasks: list[tuple[SourceQuestion, int]],
    passages: dict[str, list[str]],
    cache_dir: Path | None,
    progress: Callable[[int], None] | None,
) -> list[dict[str, Any]]:
    provider = load_provider(config.model, **config.options)
    cache = ResponseCache(cache_dir) if cache_dir is not None else None
    samples = source.samples
    async with ModelClient(provider, cache=cache, concurrency=config.concurrency) as client:
        reports = await asyncio.gather(
            *(
                generate_shard(
                    config,
                    q,
                    samples,
                    passages.get(q.question_id, []),
                    question_folder(work, q.question_id, config.set_name),
                    shard,
                    client,
                    progress,
                )
                for q, shard in tasks
            )
        )
    if cache is not None:
        cache.close()
    return [asdict(r) for r in reports]


def generation_job(item: dict[str, Any]) -> dict[str, Any]:
    """One (question, shard) on a Ray worker: its own provider, the shared work folder."""
    config = GenerateConfig.model_validate(item["config"])
    source = BenchmarkSource.load(Path(item["source"]))
    (question,) = source.select([item["qid"]])
    snippets = Path(item["snippets"]) if item["snippets"] else None
    passages = load_snippets(snippets, [question]).get(question.question_id, []) if snippets else []
    work = Path(item["work"])

    async def go() -> ShardReport:
        provider = load_provider(config.model, **config.options)
        async with ModelClient(provider, concurrency=config.concurrency) as client:
            return await generate_shard(
                config, question, source.samples, passages,
                question_folder(work, question.question_id, config.set_name), item["shard"], client,
            )  # fmt: skip

    return asdict(asyncio.run(go()))


def import_answers(
    data_folder: Path, work: Path, question_ids: Sequence[str] | None = None
) -> dict[str, dict[str, int]]:
    """Each ``Qxx.json``'s reference sets become one shard per set under 01-generated.

    Returns the answers imported per question and set. Re-importing replaces the shards.
    """
    paths = sorted(data_folder.glob("Q*.json"))
    if question_ids:
        paths = [p for p in paths if p.stem in set(question_ids)]
    if not paths:
        raise DataError(f"{data_folder}: no question files (Qxx.json) to import")
    counts: dict[str, dict[str, int]] = {}
    for path in paths:
        info, answers = QuestionFile.read(path).parse()
        for set_name, texts in answers.items():
            folder = question_folder(work, info.question_id, set_name)
            folder.mkdir(parents=True, exist_ok=True)
            shard = folder / shard_name(0)
            shard.unlink(missing_ok=True)
            records = [{"i": i, "text": t} for i, t in enumerate(texts)]
            append_frame(shard, {"batch": 0, "planned": len(texts), "imported": str(path)}, records)
            settings = {"imported": str(path), "set_name": set_name}
            atomic_write_text(folder / SETTINGS_FILE, json.dumps(settings, sort_keys=True) + "\n")
            write_stats(folder)
            counts.setdefault(info.question_id, {})[set_name] = len(texts)
    return counts
