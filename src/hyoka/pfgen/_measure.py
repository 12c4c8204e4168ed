"""Measuring many distinct answers, question by question, in forked worker processes that
inherit the benchmark's loaded scorers (``_workers``)."""

from __future__ import annotations

import os
from collections.abc import Callable

from hyoka.pfgen._workers import can_fork, worker_pool
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.scorer import Measurement

#: Below this many distinct answers, starting worker processes costs more than it saves.
PARALLEL_THRESHOLD = 1000

Progress = Callable[[int, int], None]


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
    if workers > 1 and total_answers >= PARALLEL_THRESHOLD and can_fork():
        global _FORK_STATE
        _FORK_STATE = (benchmark, wanted)
        try:
            with worker_pool(workers, fork=True) as pool:
                for done, (question_id, by_answer) in enumerate(
                    pool.map(_measure_question, order), 1
                ):
                    results[question_id] = by_answer
                    if progress is not None:
                        progress(done, len(order))
        finally:
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


def _measure_question(question_id: str) -> tuple[str, dict[str, Measurement]]:
    assert _FORK_STATE is not None, "workers are forked from measure_answers"
    benchmark, wanted = _FORK_STATE
    answers = list(wanted[question_id])
    values = benchmark.scorer(question_id).measure(answers)
    return question_id, dict(zip(answers, values, strict=True))
