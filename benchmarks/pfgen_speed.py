"""Speed figures of the pfgen-bench scorer (issue 2): run it, read the numbers it prints.

    python benchmarks/pfgen_speed.py [--data-dir ../shared/data] [--repeat 3]

1. cold: building the reference indexes of all 50 questions into an empty cache;
2. warm: ``hyoka pfgen score RUN --force`` on one 100-trial run (5,000 answers), as a whole
   process (interpreter start-up and imports included), median of several runs;
3. all: ``hyoka pfgen score`` over every sample result folder, as a whole process.

Inputs are copied to a temporary folder first: the shared data stays read-only.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hyoka.pfgen import PfgenBenchmark

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
WARM_RUN = Path("01-ai/Yi-1.5-9B/2ff65a8")


def _score_process(paths: list[Path], env: dict[str, str]) -> float:
    command = [sys.executable, "-m", "hyoka", "pfgen", "score", "--force", "--json"]
    started = time.perf_counter()
    subprocess.run([*command, *map(str, paths)], env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    results = args.data_dir / "pfgen-bench" / "results"

    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        cache = work / "cache"
        started = time.perf_counter()
        bench = PfgenBenchmark.load(args.data_dir, cache)
        bench.scorers(bench.questions)
        cold = time.perf_counter() - started

        env = {**os.environ, "HYOKA_DATA_DIR": str(args.data_dir), "HYOKA_CACHE_DIR": str(cache)}
        copied = work / "results"
        shutil.copytree(results, copied)
        for path in copied.rglob("*"):
            path.chmod(0o755 if path.is_dir() else 0o644)
        warm = [_score_process([copied / WARM_RUN], env) for _ in range(args.repeat)]
        runs = sorted(copied.rglob("trials.jsonl.xz"))
        every = _score_process([copied], env)

    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print(f"cold: indexes of {len(bench.questions)} questions built in {cold:.1f} s (target <= 20)")
    print(
        f"warm: one 100-trial run ({WARM_RUN}) scored in {statistics.median(warm):.2f} s wall "
        f"(median of {len(warm)}: {', '.join(f'{t:.2f}' for t in warm)}; target <= 3)"
    )
    print(f"all: {len(runs)} result folders scored in {every:.1f} s wall (target <= 60)")


if __name__ == "__main__":
    main()
