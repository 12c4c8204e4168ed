"""Memory of ``hyoka pfgen verify`` over a tree: N runs, then 2N runs, side by side.

    python benchmarks/pfgen_verify_memory.py [--runs 49] [--workers 2]

The tree holds the published sample runs (``../shared/data/pfgen-bench/results``), each
file linked, not copied; the 2N tree holds every run twice. Verify streams: each run is
rescored in a worker and reported as it finishes, so the peak should stay level when the
number of runs doubles (memory bounded by the workers, not by the runs). Printed per tree:
the peak of the whole process tree's memory (sum of each process's PSS, so pages forked
workers share are counted once), the wall time and when the first verdict line arrived.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = HERE.parents[1] / "shared" / "data"
RESULTS = SHARED / "pfgen-bench" / "results"
SAMPLE_S = 0.05


def _link_tree(runs: list[Path], target: Path, copies: int) -> None:
    for copy in range(copies):
        for run in runs:
            folder = target / f"copy-{copy}" / run.relative_to(RESULTS)
            folder.mkdir(parents=True)
            for file in run.iterdir():
                (folder / file.name).symlink_to(file)


def _descendants(pid: int) -> list[int]:
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        parents.setdefault(ppid, []).append(int(entry.name))
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        found.append(current)
        queue.extend(parents.get(current, []))
    return found


def _pss_kib(pid: int) -> int:
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return 0
    for line in text.splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1])
    return 0


def _verify(tree: Path, workers: int) -> tuple[float, float, float, int]:
    """Peak PSS (MiB), wall time, seconds to the first verdict, verdict lines."""
    env = {**os.environ, "HYOKA_DATA_DIR": str(SHARED), "COLUMNS": "200"}
    command = [sys.executable, "-m", "hyoka", "pfgen", "verify", str(tree)]
    started = time.perf_counter()
    process = subprocess.Popen(
        [*command, "--workers", str(workers)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, sum(_pss_kib(pid) for pid in _descendants(process.pid)))
            time.sleep(SAMPLE_S)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    first = float("nan")
    lines = 0
    assert process.stdout is not None
    for line in process.stdout:
        if "reproduced" in line:
            lines += 1
            if lines == 1:
                first = time.perf_counter() - started
    process.wait()
    done.set()
    sampler.join()
    return peak / 1024, time.perf_counter() - started, first, lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=49, help="N (at most the 49 samples)")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    runs = sorted(p.parent for p in RESULTS.rglob("result.json"))[: args.runs]
    print(f"hyoka pfgen verify, --workers {args.workers}")
    print(f"{'runs':>6} {'peak memory (PSS)':>18} {'wall':>8} {'first verdict':>14}")
    with tempfile.TemporaryDirectory() as folder:
        for copies in (1, 2):
            tree = Path(folder) / f"x{copies}"
            _link_tree(runs, tree, copies)
            peak, wall, first, lines = _verify(tree, args.workers)
            print(f"{lines:>6} {peak:>14.0f} MiB {wall:>7.1f}s {first:>13.1f}s", flush=True)


if __name__ == "__main__":
    main()
