"""How fast ``hyoka report``, ``hyoka pfgen explain`` and Bradley–Terry are (issue 12 figures).

    HYOKA_DATA_DIR=../shared/data .venv/bin/python benchmarks/report_speed.py

1. ``hyoka report`` over the 49 public pfgen runs (leaderboard rows) and the published
   pfmt-bench-fin-ja judgments (both judges): wall and CPU time, site size and file count
   (targets: under 10 s and under 10 MB on the 2-core machine). Run as a real process.
2. ``explain`` of one answer with a warm index (target: under 1 s), in process and as the
   ``hyoka pfgen explain`` command would do it (benchmark loaded, question file read).
3. Bradley–Terry with 1,000 bootstrap rounds over 10 models × 360 questions × 2 turns,
   every pair of models (32,400 battles; target under 5 s).
4. Only with ``--stability``: ``hyoka report --stability`` over the 49 public runs (every
   answer measured again for the reference-set stability page; no target, it is opt-in).
"""

from __future__ import annotations

import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

DATA = Path(
    os.environ.get("HYOKA_DATA_DIR", Path(__file__).resolve().parents[2] / "shared" / "data")
)


def report_figures() -> None:
    judgments = DATA / "pfmt-bench-fin-ja" / "model_judgment"
    script = (
        "import sys; from pathlib import Path; "
        "from hyoka.report import ReportOptions, build_report; "
        "build_report([Path(sys.argv[1])], Path(sys.argv[2]), "
        "ReportOptions(data_dir=Path(sys.argv[3])))"
    )
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "report"
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-c", script, str(judgments), str(out), str(DATA)], check=True
        )
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        files = [p for p in out.rglob("*") if p.is_file()]
        size = sum(p.stat().st_size for p in files)
    load = os.getloadavg()[0]
    print(
        f"report: 49 public pfgen runs + {sum(1 for _ in judgments.rglob('*.jsonl'))} pfmt "
        f"judgment files: wall {wall:.1f} s, CPU {cpu:.1f} s (load average {load:.1f} on "
        f"{os.cpu_count()} cores), {len(files)} files, {size / 1e6:.1f} MB"
    )


def explain_figures() -> None:
    from hyoka.pfgen.benchmark import PfgenBenchmark
    from hyoka.pfgen.explanation import explain

    answer = "時計の長針と短針は1日に22回重なります。長針が1時間に1周するためで、火星も関係します。"
    benchmark = PfgenBenchmark.load(DATA)
    explain(benchmark, "Q07", answer)  # warms the index cache and this process
    times = []
    for _ in range(5):
        started = time.perf_counter()
        fresh = PfgenBenchmark.load(DATA)  # as the command does: load, read the question file
        explain(fresh, "Q07", answer)
        times.append(time.perf_counter() - started)
    print(
        f"explain: one answer with a warm index (load + explain): median {sorted(times)[2]:.3f} s"
    )


def bradley_terry_figures() -> None:
    from hyoka.stats.bradley_terry import Battles, bradley_terry

    rng = np.random.default_rng(0)
    strength = rng.normal(0.0, 0.5, 10)
    outcomes = []
    for i in range(10):
        for j in range(i + 1, 10):
            p = 1 / (1 + math.exp(strength[j] - strength[i]))
            for draw in rng.random(720).tolist():
                outcomes.append(
                    (
                        f"m{i}",
                        f"m{j}",
                        1.0 if draw < 0.9 * p else 0.5 if draw < 0.9 * p + 0.1 else 0.0,
                    )
                )
    battles = Battles.of(outcomes)
    started = time.perf_counter()
    ratings = bradley_terry(battles, rounds=1000, seed=0)
    elapsed = time.perf_counter() - started
    widest = max(r.high - r.low for r in ratings.ratings)
    print(
        f"bradley-terry: {len(battles)} battles, 10 models, 1000 bootstrap rounds: "
        f"{elapsed:.2f} s (widest 95% interval {widest:.1f} Elo)"
    )


def stability_figures() -> None:
    script = (
        "import sys; from pathlib import Path; "
        "from hyoka.report import ReportOptions, build_report; "
        "build_report([], Path(sys.argv[1]), ReportOptions(data_dir=Path(sys.argv[2]), "
        "stability=True))"
    )
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "report"
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", script, str(out), str(DATA)], check=True)
        wall = time.perf_counter() - started
        page = out / "pfgen" / "stability.html"
        size = page.stat().st_size
    load = os.getloadavg()[0]
    print(
        f"report --stability: 49 public pfgen runs: wall {wall:.1f} s (load average "
        f"{load:.1f} on {os.cpu_count()} cores), stability page {size / 1e3:.0f} kB"
    )


if __name__ == "__main__":
    report_figures()
    explain_figures()
    bradley_terry_figures()
    if "--stability" in sys.argv[1:]:
        stability_figures()
