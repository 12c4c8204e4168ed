"""The compiled n-gram kernel against the numpy engine on the same answers (issue 21).

    python benchmarks/pfgen_kernel.py [RESULTS_DIR ...] [--data-dir ../shared/data]

Reads every run under the given folders (default: the shared sample of public runs), takes
each run's distinct answers as scoring does, groups them by question and times only the
Fluency + Truthfulness work of each engine on them: the kernel's one walk of each question's
combined trie, and numpy's ``fluency_values`` + ``truthfulness_values`` per reference set.
Times are CPU seconds of this process (``time.process_time``), so a busy machine slows them
less than wall time; the load average is printed beside them. Every value of the two engines
is compared with ``==`` and the count of differing values printed (it must be 0).

``compare_engines`` is the function other benchmarks call (``pfgen_speed.py``).
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hyoka.pfgen import PfgenBenchmark
from hyoka.pfgen.engine import kernel_values
from hyoka.pfgen.ngram_metrics import fluency_values, truthfulness_values
from hyoka.store import pfgen_runs

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@dataclass(frozen=True)
class EngineTimes:
    """CPU seconds of each engine over the same answers, and whether they agreed."""

    answers: int
    kernel_cpu_s: float
    numpy_cpu_s: float
    values: int
    differing: int

    def lines(self) -> list[str]:
        per = 1e6 / max(self.answers, 1)
        return [
            f"{self.answers:,} answers, {self.values:,} values compared, "
            f"{self.differing} differing",
            f"{'engine':<8}{'CPU-s':>10}{'us/answer':>12}",
            f"{'kernel':<8}{self.kernel_cpu_s:>10.2f}{self.kernel_cpu_s * per:>12.1f}",
            f"{'numpy':<8}{self.numpy_cpu_s:>10.2f}{self.numpy_cpu_s * per:>12.1f}",
            f"numpy / kernel: {self.numpy_cpu_s / max(self.kernel_cpu_s, 1e-9):.1f}x",
        ]


def answers_by_question(benchmark: PfgenBenchmark, roots: Sequence[Path]) -> dict[str, list[str]]:
    """Each run's distinct answers, grouped by question over all runs under ``roots``."""
    grouped: dict[str, list[str]] = {}
    for root in roots:
        for source in pfgen_runs.find_runs(root):
            trials = pfgen_runs.read_trials(source)
            for qid, records in benchmark.group_by_question(trials).items():
                grouped.setdefault(qid, []).extend(dict.fromkeys(r["answer"] for r in records))
    return grouped


def compare_engines(benchmark: PfgenBenchmark, answers: Mapping[str, list[str]]) -> EngineTimes:
    """Both engines on every question's answers; only the n-gram work is timed."""
    scorers = benchmark.scorers(answers)
    kernel_s = numpy_s = 0.0
    values = differing = 0
    for qid, texts in answers.items():
        sets = scorers[qid].sets
        links = [s.trie for s in sets if s.trie is not None]
        if len(links) != len(sets) or len({id(link.trie) for link in links}) != 1:
            raise SystemExit(f"{qid}: scorer loaded without its trie")
        trie = links[0].trie
        specs = [(link.column, s.baseline) for link, s in zip(links, sets, strict=True)]
        started = time.process_time()
        fluency_rows, truth_rows = kernel_values(trie, specs, texts)
        kernel_s += time.process_time() - started
        fluency, truth = np.array(fluency_rows), np.array(truth_rows)
        started = time.process_time()
        want_fluency = np.array([fluency_values(s.index, texts, s.baseline) for s in sets])
        want_truth = np.array([truthfulness_values(s.index, texts) for s in sets])
        numpy_s += time.process_time() - started
        values += 2 * fluency.size
        differing += int(np.count_nonzero(fluency != want_fluency))
        differing += int(np.count_nonzero(truth != want_truth))
    total = sum(len(t) for t in answers.values())
    return EngineTimes(total, kernel_s, numpy_s, values, differing)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", type=Path, nargs="*", help="folders of runs")
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    roots = args.roots or [args.data_dir / "pfgen-bench" / "results"]
    benchmark = PfgenBenchmark.load(args.data_dir)
    benchmark.scorers(benchmark.questions)  # built or loaded before any timing
    grouped = answers_by_question(benchmark, roots)
    runs = sum(len(pfgen_runs.find_runs(root)) for root in roots)
    print(f"{runs} runs under {', '.join(map(str, roots))}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    times = compare_engines(benchmark, grouped)
    print("\n".join(times.lines()))
    print(f"load average after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
