"""Measuring many distinct answers, question by question: on threads in this process with
the compiled kernel, in forked worker processes (``_workers``) with the numpy engine.

The kernel walks its answers without the GIL, so threads share the scorers this process
has loaded and send nothing through a pipe. Measured on this project's 2-core machine
(``hyoka pfgen score``'s own answers, warm index cache): one 100-trial run (5,000 answers)
0.12 s on 2 threads against 0.22 s on 2 forked workers (0.17 s in one thread); 8 runs
(32,000) 0.45 s against 0.74 s; all 49 shared runs (200,000) 3.3 s against 7.1 s, the
workers' time going to pickling every measurement back. Threads won at every size, so the
kernel has no threshold: only a single question, or ``workers=1``, stays on this thread.
The numpy engine holds the GIL for much of its work and keeps its forked workers above
``PARALLEL_THRESHOLD`` answers.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

from hyoka.pfgen._workers import can_fork, worker_pool
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.engine import use_kernel
from hyoka.pfgen.scorer import Measurement

#: Below this many distinct answers, starting worker processes costs more than it saves
#: (the numpy engine; the kernel's threads cost next to nothing to start).
PARALLEL_THRESHOLD = 1000

Progress = Callable[[int, int], None]
Measured = tuple[str, dict[str, Measurement]]


def measure_answers(
    benchmark: PfgenBenchmark,
    wanted: dict[str, dict[str, None]],
    workers: int | None,
    progress: Progress | None,
) -> dict[str, dict[str, Measurement]]:
    """Measurements of every distinct answer, questions spread over threads (the kernel)
    or forked workers (numpy) when there are several ``workers``."""
    benchmark.scorers(wanted)  # load or build in this process; threads and workers share them
    order = sorted(wanted, key=lambda q: -len(wanted[q]))  # big questions first: balance
    total_answers = sum(len(answers) for answers in wanted.values())
    workers = min(workers or os.cpu_count() or 1, len(order))
    results: dict[str, dict[str, Measurement]] = {}

    def collect(measured: Iterable[Measured]) -> dict[str, dict[str, Measurement]]:
        for done, (question_id, by_answer) in enumerate(measured, 1):
            results[question_id] = by_answer
            if progress is not None:
                progress(done, len(order))
        return results

    if workers > 1 and use_kernel():
        with ThreadPoolExecutor(workers, thread_name_prefix="hyoka-measure") as threads:
            return collect(threads.map(lambda q: _measure_in(benchmark, wanted, q), order))
    if workers > 1 and total_answers >= PARALLEL_THRESHOLD and can_fork():
        global _FORK_STATE
        _FORK_STATE = (benchmark, wanted)
        try:
            with worker_pool(workers, fork=True) as pool:
                return collect(pool.map(_measure_question, order))
        finally:
            _FORK_STATE = None
    return collect(_measure_in(benchmark, wanted, q) for q in order)


def _measure_in(
    benchmark: PfgenBenchmark, wanted: dict[str, dict[str, None]], question_id: str
) -> Measured:
    answers = list(wanted[question_id])
    values = benchmark.scorer(question_id).measure(answers)
    return question_id, dict(zip(answers, values, strict=True))


_FORK_STATE: tuple[PfgenBenchmark, dict[str, dict[str, None]]] | None = None


def _measure_question(question_id: str) -> Measured:
    assert _FORK_STATE is not None, "workers are forked from measure_answers"
    benchmark, wanted = _FORK_STATE
    return _measure_in(benchmark, wanted, question_id)
