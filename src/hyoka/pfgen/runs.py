"""Scoring whole runs: read trials, score every answer, write ``result.json`` atomically.

Many runs are scored together, question by question: the answers of every run to one
question are de-duplicated (API models at temperature 0 repeat themselves) and measured in
one array pass, and questions are spread over worker processes. The per-run results are then
assembled with each run's own summation era (``_pysum``). A run whose ``result.json``
already records the same input and benchmark hashes is skipped, as upstream does, unless
forced; a write is a rename, so an existing ``result.json`` is never left half-written.
"""

from __future__ import annotations

import json
import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyoka._atomic import atomic_write_text
from hyoka.errors import HyokaError, InputError
from hyoka.pfgen._pysum import Summation, summation_for
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.result import ScoredAnswer, build_result
from hyoka.pfgen.scorer import Measurement
from hyoka.pfgen.trials import TrialsInput, read_trials

RESULT_FILE = "result.json"
CONFIG_FILE = "config.json"
#: Below this many distinct answers, starting worker processes costs more than it saves.
_PARALLEL_THRESHOLD = 1000

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class RunOutcome:
    """What happened to one run: its folder, its result, and whether it was rescored."""

    folder: Path
    result: dict[str, Any]
    skipped: bool


@dataclass
class _PendingRun:
    trials: TrialsInput
    grouped: dict[str, list[dict[str, Any]]]
    summation: Summation


def score_run(
    source: Path,
    benchmark: PfgenBenchmark,
    *,
    force: bool = False,
    write: bool = True,
    summation: Summation | None = None,
    workers: int | None = None,
) -> RunOutcome:
    """Score one run (a trials file or run folder); raises on bad input."""
    ((_, outcome),) = score_runs(
        [source], benchmark, force=force, write=write, summation=summation, workers=workers
    )
    if isinstance(outcome, HyokaError):
        raise outcome
    return outcome


def score_runs(
    sources: Sequence[Path],
    benchmark: PfgenBenchmark,
    *,
    force: bool = False,
    write: bool = True,
    summation: Summation | None = None,
    workers: int | None = None,
    progress: Progress | None = None,
) -> list[tuple[Path, RunOutcome | HyokaError]]:
    """Score many runs; a run with bad input gets its error and the others still get scored.

    ``summation`` forces one float summation for every run; by default each run gets the one
    of its era. ``progress(done, total)`` is called as questions are measured.
    """
    outcomes: dict[int, RunOutcome | HyokaError] = {}
    pending: dict[int, _PendingRun] = {}
    for number, source in enumerate(sources):
        try:
            trials = read_trials(source)
            existing = None if force else _up_to_date(trials, benchmark.metadata_hash)
            if existing is not None:
                outcomes[number] = RunOutcome(trials.folder, existing, skipped=True)
                continue
            grouped = _group_by_question(trials, benchmark)
            era = summation or summation_for(r.get("timestamp") for r in trials.records)
            pending[number] = _PendingRun(trials, grouped, era)
        except HyokaError as exc:
            outcomes[number] = exc

    wanted: dict[str, dict[str, None]] = {}
    for run in pending.values():
        for question_id, records in run.grouped.items():
            wanted.setdefault(question_id, {}).update(dict.fromkeys(r["answer"] for r in records))
    measured = measure_answers(benchmark, wanted, workers, progress)

    for number, run in pending.items():
        try:
            outcomes[number] = _finish(run, benchmark, measured, write)
        except HyokaError as exc:
            outcomes[number] = exc
    return [(source, outcomes[number]) for number, source in enumerate(sources)]


def _finish(
    run: _PendingRun,
    benchmark: PfgenBenchmark,
    measured: dict[str, dict[str, Measurement]],
    write: bool,
) -> RunOutcome:
    by_question: dict[str, list[ScoredAnswer]] = {}
    for question_id, records in run.grouped.items():
        scorer = benchmark.scorer(question_id)
        values = measured[question_id]
        by_question[question_id] = [
            (r, scorer.finish(values[r["answer"]], run.summation)) for r in records
        ]
    result = build_result(
        by_question,
        input_hash=run.trials.input_hash,
        metadata_hash=benchmark.metadata_hash,
        config=_read_config(run.trials.folder),
        summation=run.summation,
    )
    if write:
        path = run.trials.folder / RESULT_FILE
        try:
            atomic_write_text(path, json.dumps(result, indent=2, ensure_ascii=False))
        except OSError as exc:
            raise InputError(f"{path}: cannot write result: {exc.strerror}") from None
    return RunOutcome(run.trials.folder, result, skipped=False)


def measure_answers(
    benchmark: PfgenBenchmark,
    wanted: dict[str, dict[str, None]],
    workers: int | None,
    progress: Progress | None,
) -> dict[str, dict[str, Measurement]]:
    """Measurements of every distinct answer, questions spread over forked workers."""
    benchmark.scorers(wanted)  # load or build in this process; forked workers inherit them
    order = sorted(wanted, key=lambda q: -len(wanted[q]))  # big questions first: balance
    total_answers = sum(len(answers) for answers in wanted.values())
    workers = min(workers or os.cpu_count() or 1, len(order))
    results: dict[str, dict[str, Measurement]] = {}
    if workers > 1 and total_answers >= _PARALLEL_THRESHOLD and _can_fork():
        global _FORK_STATE
        _FORK_STATE = (benchmark, wanted)
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            for done, (question_id, by_answer) in enumerate(pool.map(_measure_question, order), 1):
                results[question_id] = by_answer
                if progress is not None:
                    progress(done, len(order))
        _FORK_STATE = None
        return results
    for done, question_id in enumerate(order, 1):
        answers = list(wanted[question_id])
        measured = benchmark.scorer(question_id).measure(answers)
        results[question_id] = dict(zip(answers, measured, strict=True))
        if progress is not None:
            progress(done, len(order))
    return results


_FORK_STATE: tuple[PfgenBenchmark, dict[str, dict[str, None]]] | None = None


def _can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def _measure_question(question_id: str) -> tuple[str, dict[str, Measurement]]:
    assert _FORK_STATE is not None, "workers are forked from score_runs"
    benchmark, wanted = _FORK_STATE
    answers = list(wanted[question_id])
    values = benchmark.scorer(question_id).measure(answers)
    return question_id, dict(zip(answers, values, strict=True))


def _group_by_question(
    trials: TrialsInput, benchmark: PfgenBenchmark
) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = {}
    for index, record in enumerate(trials.records):
        info = benchmark.by_text.get(record["question"])
        if info is None:
            shown = record["question"][:40]
            raise InputError(f"{trials.where(index)}: question not in pfgen-bench: {shown!r}")
        grouped.setdefault(info.question_id, []).append(record)
    return grouped


def _up_to_date(trials: TrialsInput, metadata_hash: str) -> dict[str, Any] | None:
    try:
        existing = json.loads((trials.folder / RESULT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(existing, dict):
        return None
    same_input = existing.get("input_hash") == trials.input_hash
    if same_input and existing.get("metadata_hash") == metadata_hash:
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
