"""Speed figures of the analysis commands (issues 4 and 5): run it, read what it prints.

    python benchmarks/stats_speed.py [--data-dir ../shared/data] [--resamples 2000]

1. stability: ``refset_stability`` over every published pfgen run (warm index cache), next
   to a plain ensemble rescoring of the same runs (``score_runs``, no writes) for scale;
2. agreement: the full ``hyoka judge agreement --single`` report on pfmt-bench-fin-ja's two
   judges (25,896 compared pairs, 12 categories, question-level bootstrap);
3. bootstrap: Pearson and Spearman with 10,000 resamples over 49 models.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from hyoka.metaeval import read_single_grades
from hyoka.metaeval.single_folders import read_categories
from hyoka.pfgen import find_runs, refset_stability
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.runs import score_runs
from hyoka.stats import agreement_report, correlate, preferences

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--resamples", type=int, default=2000)
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}")

    with tempfile.TemporaryDirectory() as scratch:
        bench = PfgenBenchmark.load(args.data_dir, Path(scratch))
        bench.scorers(bench.questions)  # warm the index cache first
        runs = find_runs(args.data_dir / "pfgen-bench" / "results")
        started = time.perf_counter()
        score_runs(runs, bench, force=True, write=False)
        ensemble = time.perf_counter() - started
        started = time.perf_counter()
        report = refset_stability(runs, bench, resamples=args.resamples)
        stability = time.perf_counter() - started
    print(f"ensemble rescoring of {len(runs)} runs: {ensemble:.1f} s")
    print(
        f"stability (ensemble + {len(report.sets)} single sets, {len(report.correlations)} "
        f"correlations): {stability:.1f} s"
    )

    pfmt = args.data_dir / "pfmt-bench-fin-ja"
    started = time.perf_counter()
    table = preferences(
        read_single_grades(pfmt / "model_judgment" / "gpt-4o_single"),
        read_single_grades(pfmt / "model_judgment" / "gpt-4o-mini_single"),
        read_categories(pfmt / "question.jsonl"),
    ).table
    loaded = time.perf_counter() - started
    started = time.perf_counter()
    agreement_report(table, resamples=args.resamples)
    computed = time.perf_counter() - started
    print(
        f"agreement: {table.size} pairs read in {loaded:.2f} s, report with "
        f"{args.resamples} resamples in {computed:.2f} s"
    )

    rng = np.random.default_rng(0)
    x = rng.normal(size=49)
    y = x + rng.normal(scale=0.3, size=49)
    started = time.perf_counter()
    correlate(x.tolist(), y.tolist(), resamples=10_000)
    print(f"correlate: 49 pairs, 10,000 resamples: {time.perf_counter() - started:.2f} s")


if __name__ == "__main__":
    main()
