"""Stage 1 on Ray (issue 13): answers per second with 1 and 2 workers, model loads, and the
scheduling overhead per batch and per shard against the local path. Run it, read the numbers.

    python benchmarks/refset_ray.py [--answers 24] [--instant-answers 400] [--threads 1]

1. The embedded SmolLM2 (llama.cpp, ``--threads`` threads a worker), zero-shot
   completions of at most 16 tokens, 2 questions: in this process, then on a local Ray
   (started here with 2 CPUs) with 1 and with 2 workers of one CPU each. Rates are answers
   over the time after the workers were ready (model loads and Ray's start are printed
   apart); loads are what the workers reported.
2. A provider that answers at once (a local OpenAI-compatible server in a second process,
   the one of ``provider_overhead.py``), so the time is all scheduling: 2 questions x
   ``--instant-answers`` in batches of 10 over 4 shards, locally and on Ray with 2 workers.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from hyoka.pfgen import Mode
from hyoka.refset import BenchmarkSource, Executor, GenerateConfig, WorkerEvent, run_generation
from provider_overhead import instant_server

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "pfgen-bench" / "data"
QUESTIONS = ["Q01", "Q13"]


def _run(config: GenerateConfig, executor: Executor, workers: int) -> dict[str, float]:
    """Wall time, time from the first worker ready to the end, loads, answers, batches."""
    events: list[tuple[float, WorkerEvent]] = []
    with tempfile.TemporaryDirectory() as work:
        started = time.perf_counter()
        run_generation(
            Path(work), config, BenchmarkSource.load(DATA), QUESTIONS, executor=executor,
            workers=workers, on_event=lambda e: events.append((time.perf_counter(), e)),
        )  # fmt: skip
        wall = time.perf_counter() - started
    ready = [t for t, e in events if e.kind == "ready"]
    batches = [e for _, e in events if e.kind == "batch"]
    return {
        "wall": wall,
        "startup": (max(ready) - started) if ready else 0.0,
        "loads": sum(e.loads for _, e in events if e.kind == "ready"),
        "answers": config.answers * len(QUESTIONS),
        "batches": len(batches) if batches else config.batches() * len(QUESTIONS),
    }


def model_rates(answers: int, threads: int) -> None:
    config = GenerateConfig(
        model="llamacpp/smollm2", set_name="bench", mode=Mode.COMPLETION, num_examples=0,
        max_tokens=16, answers=answers, batch_size=4, shards=2, options={"n_threads": threads},
    )  # fmt: skip
    print(f"SmolLM2, {len(QUESTIONS)} x {answers} answers, {threads} thread(s) a worker")
    print(f"{'where':<16} {'answers/s':>10} {'loads':>6} {'startup s':>10} {'wall s':>8}")
    for label, executor, workers in (
        ("local", Executor.LOCAL, 1),
        ("ray, 1 worker", Executor.RAY, 1),
        ("ray, 2 workers", Executor.RAY, 2),
    ):
        figures = _run(config, executor, workers)
        rate = figures["answers"] / (figures["wall"] - figures["startup"])
        print(
            f"{label:<16} {rate:>10.2f} {figures['loads']:>6.0f} "
            f"{figures['startup']:>10.1f} {figures['wall']:>8.1f}"
        )


def scheduling_overhead(answers: int) -> None:
    with instant_server() as base_url:
        config = GenerateConfig(
            model="openai/bench", set_name="bench", num_examples=0, max_tokens=16,
            answers=answers, batch_size=10, shards=4, options={"base_url": base_url},
        )  # fmt: skip
        shards = config.shards * len(QUESTIONS)
        print(f"\ninstant server, {len(QUESTIONS)} x {answers} answers, batches of 10, 4 shards")
        print(f"{'where':<16} {'ms/batch':>9} {'ms/shard':>9} {'startup s':>10} {'wall s':>8}")
        for label, executor, workers in (
            ("local", Executor.LOCAL, 1),
            ("ray, 2 workers", Executor.RAY, 2),
        ):
            figures = _run(config, executor, workers)
            busy = figures["wall"] - figures["startup"]
            print(
                f"{label:<16} {1000 * busy / figures['batches']:>9.1f} "
                f"{1000 * busy / shards:>9.1f} {figures['startup']:>10.1f} {figures['wall']:>8.1f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--answers", type=int, default=24, help="model answers per question")
    parser.add_argument("--instant-answers", type=int, default=400)
    parser.add_argument("--threads", type=int, default=1, help="llama.cpp threads a worker")
    args = parser.parse_args()
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        model_rates(args.answers, args.threads)
        scheduling_overhead(args.instant_answers)
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
