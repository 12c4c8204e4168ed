"""Scoring whole runs: read trials, score every answer, write ``result.json`` atomically.

A run whose ``result.json`` already records the same input hash and benchmark hash is
skipped (as upstream does), unless forced. Nothing is written until a run is fully scored,
and the write is a rename, so an existing ``result.json`` is never left half-written.
"""

from __future__ import annotations

import json
import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyoka._atomic import atomic_write_text
from hyoka.errors import HyokaError, InputError
from hyoka.pfgen._pysum import Summation, summation_for
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.result import ScoredAnswer, build_result
from hyoka.pfgen.trials import TrialsInput, read_trials

RESULT_FILE = "result.json"
CONFIG_FILE = "config.json"


@dataclass(frozen=True)
class RunOutcome:
    """What happened to one run: its folder, its result, and whether it was rescored."""

    folder: Path
    result: dict[str, Any]
    skipped: bool


def score_run(
    source: Path,
    benchmark: PfgenBenchmark,
    *,
    force: bool = False,
    write: bool = True,
    summation: Summation | None = None,
    progress: Callable[[str], None] | None = None,
) -> RunOutcome:
    trials = read_trials(source)
    result_path = trials.folder / RESULT_FILE
    if not force:
        existing = _up_to_date(result_path, trials.input_hash, benchmark.metadata_hash)
        if existing is not None:
            return RunOutcome(trials.folder, existing, skipped=True)
    grouped = _group_by_question(trials, benchmark)
    if summation is None:
        summation = summation_for(r.get("timestamp") for r in trials.records)
    scorers = benchmark.scorers(grouped)
    by_question: dict[str, list[ScoredAnswer]] = {}
    for question_id, records in grouped.items():
        if progress is not None:
            progress(question_id)
        scores = scorers[question_id].score([r["answer"] for r in records], summation)
        by_question[question_id] = list(zip(records, scores, strict=True))
    result = build_result(
        by_question,
        input_hash=trials.input_hash,
        metadata_hash=benchmark.metadata_hash,
        config=_read_config(trials.folder),
        summation=summation,
    )
    if write:
        atomic_write_text(result_path, json.dumps(result, indent=2, ensure_ascii=False))
    return RunOutcome(trials.folder, result, skipped=False)


def score_runs(
    sources: Sequence[Path],
    benchmark: PfgenBenchmark,
    *,
    force: bool = False,
    summation: Summation | None = None,
    workers: int | None = None,
) -> Iterator[tuple[Path, RunOutcome | HyokaError]]:
    """Score many runs, in parallel processes when there are several, in input order.

    A run that fails (bad input) yields its error and the others still get scored, so one
    broken folder in a tree of hundreds costs one result, not the whole batch.
    """
    workers = min(workers or os.cpu_count() or 1, len(sources))
    if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        for source in sources:
            yield source, _score_or_error(source, benchmark, force, summation)
        return
    # Load every scorer once here; forked workers inherit them instead of reloading.
    benchmark.scorers(benchmark.questions)
    global _FORKED_BENCHMARK
    _FORKED_BENCHMARK = benchmark
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures: list[Future[RunOutcome | HyokaError]] = [
            pool.submit(_score_in_worker, source, force, summation) for source in sources
        ]
        for source, future in zip(sources, futures, strict=True):
            yield source, future.result()


_FORKED_BENCHMARK: PfgenBenchmark | None = None


def _score_in_worker(
    source: Path, force: bool, summation: Summation | None
) -> RunOutcome | HyokaError:
    assert _FORKED_BENCHMARK is not None
    return _score_or_error(source, _FORKED_BENCHMARK, force, summation)


def _score_or_error(
    source: Path, benchmark: PfgenBenchmark, force: bool, summation: Summation | None
) -> RunOutcome | HyokaError:
    try:
        return score_run(source, benchmark, force=force, summation=summation)
    except HyokaError as exc:
        return exc


def _group_by_question(
    trials: TrialsInput, benchmark: PfgenBenchmark
) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = {}
    for number, record in enumerate(trials.records, start=1):
        info = benchmark.by_text.get(record["question"])
        if info is None:
            shown = record["question"][:40]
            raise InputError(f"{trials.source}:{number}: question not in pfgen-bench: {shown!r}")
        grouped.setdefault(info.question_id, []).append(record)
    return grouped


def _up_to_date(result_path: Path, input_hash: str, metadata_hash: str) -> dict[str, Any] | None:
    try:
        existing = json.loads(result_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(existing, dict):
        return None
    if existing.get("input_hash") == input_hash and existing.get("metadata_hash") == metadata_hash:
        return existing
    return None


def _read_config(folder: Path) -> dict[str, Any] | None:
    path = folder / CONFIG_FILE
    if not path.exists():
        return None
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: cannot read generation config: {exc}") from None
    if not isinstance(config, dict):
        raise InputError(f"{path}: expected a JSON object")
    return config
