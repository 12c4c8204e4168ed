"""Rebuild pfgen-bench's reference sets from the published ones and re-rank the sample runs.

    python benchmarks/refset_rebuild.py [--data-dir ../shared/data] [--n 5] [--length 400]
                                        [--size 200] [--questions Q01 Q02 ...]

The union of each question's published reference sets (P, S, T, R: 1,000 answers each) is
taken as the "generated" pool and run through stages 2–7 (normalise, rules, rare n-gram
filter, length, representativeness, publish), set by set. The 49 sample runs in
``pfgen-bench/results`` are then scored against the rebuilt sets, and the Pearson and
Spearman correlations with their published scores are printed, with each stage's counts.

The pool here is tiny next to the papers' millions of answers, so the rare-n-gram filter
removes most of it (with ~1,000 answers per set, most 5-grams are rare); ``--allow-fewer``
keeps the smaller sets whole. Everything runs in a temporary folder; the shared data stays
read-only.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from hyoka.pfgen import find_runs
from hyoka.pfgen.benchmark import BENCHMARK_FOLDER, PfgenBenchmark
from hyoka.pfgen.runs import score_runs
from hyoka.refset import BenchmarkSource, import_answers, publish, run_stage
from hyoka.refset.pipeline import stage_params, summary_of

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def _rank(values: list[float]) -> list[float]:
    order = np.argsort(values, kind="stable")
    ranks = np.empty(len(values))
    ranks[order] = np.arange(len(values))
    return ranks.tolist()


def rebuild(
    data_dir: Path, root: Path, n: int, length: int, size: int, questions: list[str] | None
) -> tuple[Path, dict[str, list[int]]]:
    source_folder = data_dir / BENCHMARK_FOLDER
    work, out = root / "work", root / "out"
    import_answers(source_folder, work, questions)
    settings: dict[str, dict[str, Any]] = {
        "normalise": {"rules": None},
        "filter-rules": {"rules": None},
        "filter-rare": {"n": n},
        "select-length": {"size": length, "target": 100, "allow_fewer": True},
        "select-representative": {"size": size, "max_n": 10, "seed": 0, "allow_fewer": True},
    }
    kept: dict[str, list[int]] = {}
    for name, params in settings.items():
        started = time.perf_counter()
        reports = run_stage(work, name, stage_params(name, **params), questions)
        after = [int(summary_of(r)["after"]) for r in reports]
        kept[name] = after
        print(
            f"{name:22s} {time.perf_counter() - started:6.1f} s  answers kept per question: "
            f"min {min(after)}, median {statistics.median(after):.0f}, max {max(after)}"
        )
    publish(work, BenchmarkSource.load(source_folder), out, questions)
    return out, kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--n", type=int, default=5, help="rare-filter n-gram length")
    parser.add_argument("--length", type=int, default=400, help="N kept per set by length")
    parser.add_argument("--size", type=int, default=200, help="M kept per set by the climb")
    parser.add_argument("--questions", nargs="*", default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        out, _ = rebuild(args.data_dir, root, args.n, args.length, args.size, args.questions)
        if args.questions:
            raise SystemExit("scoring whole runs needs all 50 questions")
        started = time.perf_counter()
        rebuilt = PfgenBenchmark.load(out, root / "cache")
        runs = find_runs(args.data_dir / "pfgen-bench" / "results")
        outcomes = score_runs(runs, rebuilt, force=True, write=False)
        ours, published = [], []
        for source, outcome in outcomes:
            if isinstance(outcome, Exception):
                raise outcome
            ours.append(float(outcome.result["score"]))
            result = json.loads((source.parent / "result.json").read_text(encoding="utf-8"))
            published.append(float(result["score"]))
        print(
            f"scored {len(runs)} runs against the rebuilt sets in "
            f"{time.perf_counter() - started:.1f} s"
        )
        pearson = float(np.corrcoef(ours, published)[0, 1])
        spearman = float(np.corrcoef(_rank(ours), _rank(published))[0, 1])
        print(f"Pearson r = {pearson:.4f}, Spearman rho = {spearman:.4f} over {len(runs)} runs")
        print(
            f"mean score: rebuilt {statistics.fmean(ours):.4f}, "
            f"published {statistics.fmean(published):.4f}"
        )


if __name__ == "__main__":
    main()
