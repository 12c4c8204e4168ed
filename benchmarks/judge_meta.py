"""How long the judge leaderboard takes (issue 20: under 30 s on the 2-core machine).

    python benchmarks/judge_meta.py [--data-dir ../shared/data] [--resamples 2000] [--repeat 2]

Times ``hyoka judge meta``'s library call over the published judgments, offline: the
Shaberi table (484,580 grades, xz), pfmt-bench-fin-ja's two judges, Stability's JMT-bench
GPT-4 grades and Japanese Vicuna QA's pairwise verdicts; first each stage (inflate and
parse the table, the other readers, the statistics), then the whole call as the command
makes it. Wall and CPU seconds both: on a shared machine the wall time also counts other
processes, so the load average is printed.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from hyoka.metaeval.judge_meta import JudgeMetaSettings, judge_meta, measure_judges
from hyoka.metaeval.judge_scores import (
    merge_tables,
    published_sources,
    read_pair_tables,
    read_score_table,
    read_single_folders,
)

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
T = TypeVar("T")


def timed(label: str, work: Callable[[], T]) -> T:
    wall, cpu = time.perf_counter(), time.process_time()
    result = work()
    print(
        f"{label}: {time.perf_counter() - wall:.2f} s wall, {time.process_time() - cpu:.2f} s CPU"
    )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, "
          f"load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    sources = published_sources(args.data_dir)
    settings = JudgeMetaSettings(resamples=args.resamples)
    table = timed("read the Shaberi table", lambda: read_score_table(sources.scores[0]))
    single = timed(
        "read pfmt's two judges and Stability's JMT-bench file",
        lambda: read_single_folders(list(sources.single)),
    )
    pairs = timed("read Vicuna-ja's verdicts", lambda: read_pair_tables(list(sources.pairwise)))
    merged = merge_tables([table, single])
    meta = timed(
        f"statistics ({args.resamples} resamples)", lambda: measure_judges(merged, pairs, settings)
    )
    print(f"{len(meta.rows)} rows (judges and templates), {len(meta.faults)} faults named, "
          f"{len(meta.notes)} notes")  # fmt: skip
    for attempt in range(1, args.repeat + 1):
        timed(f"whole judge table, run {attempt}", lambda: judge_meta(sources, settings))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"load average after: {os.getloadavg()[0]:.1f}; peak memory {peak:.0f} MB")


if __name__ == "__main__":
    main()
