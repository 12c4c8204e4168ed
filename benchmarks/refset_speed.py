"""Speed and memory of the two heavy reference-set stages (issue 5): run it, read the numbers.

    python benchmarks/refset_speed.py [--data-dir ../shared/data] [--answers 1000000]
                                      [--length 30000] [--size 1000] [--questions Q05 ...]

The pool is synthetic but built from real text: the published reference answers
(pfgen-bench, every set of the chosen questions, by default all 50) are split into
sentences, and each synthetic answer joins random sentences until it reaches about 100
characters; one answer in 50 gets a random digit or kana swapped in (the kind of one-off
error the rare filter exists for). Drawing on all questions' sentences gives far more
distinct n-grams than the answers to one question have, so the figures are on the
pessimistic side.

1. the 5-gram singleton filter over ``--answers`` answers (target: 1,000,000 in <= 60 s
   on 2 cores);
2. the hill climb choosing ``--size`` of the ``--length`` answers closest to 100
   characters (target: 30,000 -> 1,000 in <= 5 min), building the 1–10-gram matrix
   included.

Each measurement runs in a fresh forked process, whose peak resident memory is printed
beside the memory of the pool itself.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import resource
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
NOISE = "0123456789あいうえおかきくけこ"


def synthetic_pool(data_dir: Path, questions: list[str], count: int, seed: int = 0) -> list[str]:
    sentences_set: set[str] = set()
    for question in questions:
        path = data_dir / "pfgen-bench" / "data" / f"{question}.json"
        sets = json.loads(path.read_text(encoding="utf-8"))["answers"]
        sentences_set |= {
            s + "。" for texts in sets.values() for t in texts for s in t.split("。") if s
        }
    sentences = sorted(sentences_set)
    rng = random.Random(seed)
    pool: list[str] = []
    for _ in range(count):
        text = ""
        while len(text) < 90:
            text += rng.choice(sentences)
        if rng.random() < 0.02:
            at = rng.randrange(len(text))
            text = text[:at] + rng.choice(NOISE) + text[at + 1 :]
        pool.append(text)
    return pool


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _in_child(function: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    context = multiprocessing.get_context("fork")
    queue: multiprocessing.Queue[dict[str, Any]] = context.Queue()

    def run() -> None:
        result = function()
        result["peak_mib"] = _peak_mib()
        queue.put(result)

    process = context.Process(target=run)
    process.start()
    result = queue.get()
    process.join()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    parser.add_argument(
        "--questions",
        nargs="*",
        default=[f"Q{i:02d}" for i in range(1, 51)],
        help="questions whose sentences make the pool (default: all 50, the most diverse)",
    )
    parser.add_argument("--answers", type=int, default=1_000_000)
    parser.add_argument("--length", type=int, default=30_000)
    parser.add_argument("--size", type=int, default=1_000)
    args = parser.parse_args()

    from hyoka.refset.rare import rare_ngram_filter
    from hyoka.refset.representative import hill_climb, presence_matrix

    started = time.perf_counter()
    pool = synthetic_pool(args.data_dir, args.questions, args.answers)
    mean_len = sum(map(len, pool)) / len(pool)
    print(
        f"synthetic pool: {len(pool):,} answers, mean {mean_len:.1f} characters, built in "
        f"{time.perf_counter() - started:.1f} s; process now at {_peak_mib():.0f} MiB"
    )

    def rare() -> dict[str, Any]:
        t = time.perf_counter()
        result = rare_ngram_filter(pool, None, 5)
        return {
            "seconds": time.perf_counter() - t,
            "kept": int(result.keep.sum()),
            "distinct": result.distinct,
            "singletons": result.singletons,
            "exact": result.exact,
        }

    r = _in_child(rare)
    print(
        f"5-gram singleton filter: {r['seconds']:.1f} s for {len(pool):,} answers "
        f"({r['distinct']:,} distinct 5-grams, {r['singletons']:,} singletons, exact keys: "
        f"{r['exact']}); kept {r['kept']:,}; peak memory {r['peak_mib']:.0f} MiB"
    )

    ranked = sorted(set(pool), key=lambda t: (abs(len(t) - 100), len(t), t))[: args.length]

    def climb() -> dict[str, Any]:
        t = time.perf_counter()
        matrix = presence_matrix(ranked, 10)
        built = time.perf_counter() - t
        result = hill_climb(matrix, args.size, seed=0)
        return {
            "matrix_seconds": built,
            "features": matrix.num_features,
            "nnz": len(matrix.indices),
            "seconds": time.perf_counter() - t,
            "before": result.error_before,
            "after": result.error_after,
            "swaps": result.swaps,
            "evaluations": result.evaluations,
            "rounds": result.rounds,
        }

    c = _in_child(climb)
    print(
        f"hill climb {len(ranked):,} -> {args.size:,}: {c['seconds']:.1f} s in all "
        f"(1-10-gram matrix {c['matrix_seconds']:.1f} s: {c['features']:,} features, "
        f"{c['nnz']:,} entries); MSE {c['before']:.3e} -> {c['after']:.3e} "
        f"({c['before'] / c['after']:.2f}x lower) in {c['swaps']:,} swaps, "
        f"{c['evaluations']:,} swaps evaluated, {c['rounds']} rounds; "
        f"peak memory {c['peak_mib']:.0f} MiB"
    )


if __name__ == "__main__":
    main()
