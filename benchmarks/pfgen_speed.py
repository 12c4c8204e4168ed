"""Speed figures of the pfgen-bench scorer (issues 2 and 21): run it, read what it prints.

    python benchmarks/pfgen_speed.py [--upstream PATH] [--runs DIR] [--data-dir DIR]
                                     [--repeat 3] [--src DIR] [--copies 1]
                                     [--engines kernel,numpy]

Printed side by side, in one run, every figure as wall seconds and CPU seconds (user +
system of the whole process tree, which other work on a busy machine disturbs less):

1. the machine: cores, Python, the load average at the start (and at the end, last line);
2. cold: building the reference indexes of all questions into an empty cache (a process);
3. one run: ``hyoka pfgen score --force`` on one 100-trial run (5,000 answers) as a whole
   process, warm (the index cache built in 2, the files in the OS cache), median of
   ``--repeat``; beside it upstream's ``pfgen_eval.py --force`` on the same run, once (it
   keeps no cache: every run builds its scorers), and the ratio. ``--upstream`` is a
   checkout of pfgen-bench (its ``pfgen_eval.py`` globs ``data/Q*.json`` from the working
   folder): it is copied to a temporary folder with the run's files, and run with this
   interpreter (it needs only the standard library). Without ``--upstream`` that line says so;
4. all runs under ``--runs`` (default: the shared sample results; any folder of runs):
   ``hyoka pfgen score --force`` over the folder as one process, warm cache: wall, CPU,
   answers a second, and the peak memory of the process tree (the sum of the proportional
   set sizes of the process and its workers, sampled every 0.1 s; forked workers share
   pages, which PSS counts once) beside the largest peak resident set of one of them;
   ``--copies N`` scores N copies of the folder side by side (``copy-1/`` ... ``copy-N/``), a
   stand-in for a leaderboard larger than the runs at hand, made of real runs (e.g. the 49
   samples 11 times: 539 runs, 2.29 M answers, against the public leaderboard's 527 runs
   and 2.46 M answers);
5. the same for each n-gram engine of ``--engines`` (``HYOKA_PFGEN_ENGINE=kernel`` and
   ``=numpy`` unless told otherwise; ``--engines ""`` for none), each line saying which
   engine ran, as a probe in a process with that setting reports it (before the compiled
   kernel exists, both run numpy, and say so);
6. ``hyoka --help``: median wall and CPU of ``--repeat`` processes after a warm-up.

Inputs are copied to a temporary folder first: the shared data stays read-only. ``--src``
measures another copy of the source (e.g. ``git archive main src | tar -x -C /tmp/before``
then ``--src /tmp/before/src``) for before/after figures on the same machine.
"""

from __future__ import annotations

import argparse
import lzma
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data"
ONE_RUN = Path("01-ai/Yi-1.5-9B/2ff65a8")
HYOKA = [sys.executable, "-m", "hyoka"]
ENGINE_ENV = "HYOKA_PFGEN_ENGINE"
ENGINES = ("kernel", "numpy")
#: Reports the engine a scoring process runs with under this environment: the engine
#: module's answer where it exists, else numpy (the only engine there is).
_ENGINE_PROBE = """
try:
    from hyoka.pfgen.engine import use_kernel
except ImportError:
    print("numpy (no kernel in this source)")
else:
    import os
    import warnings
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        try:
            if use_kernel():
                print("kernel")
            elif os.environ.get("HYOKA_PFGEN_ENGINE") == "numpy":
                print("numpy (forced)")
            else:
                print("numpy (the kernel does not load)")
        except Exception as exc:
            print(f"none: {exc}")
"""
_BUILD_INDEXES = "from hyoka.pfgen import PfgenBenchmark as B; b = B.load(); b.scorers(b.questions)"


@dataclass(frozen=True)
class Timing:
    wall: float
    cpu: float
    peak_tree_mb: float
    peak_process_mb: float
    output: str


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _memory_kb(root: int) -> tuple[int, int]:
    """The summed proportional set size of ``root`` and its descendants, and the largest
    peak resident set of any of them (kB), from /proc."""
    tree, frontier = [root], [root]
    while frontier:
        pid = frontier.pop()
        try:
            tasks = list(Path(f"/proc/{pid}/task").iterdir())
        except OSError:
            continue
        for task in tasks:
            try:
                children = (task / "children").read_text().split()
            except OSError:
                continue
            tree.extend(int(c) for c in children)
            frontier.extend(int(c) for c in children)
    pss = largest = 0
    for pid in tree:
        try:
            pss += _field_kb(f"/proc/{pid}/smaps_rollup", "Pss:")
            largest = max(largest, _field_kb(f"/proc/{pid}/status", "VmHWM:"))
        except (OSError, ValueError):
            continue
    return pss, largest


def _field_kb(path: str, name: str) -> int:
    for line in Path(path).read_text().splitlines():
        if line.startswith(name):
            return int(line.split()[1])
    return 0


def run(command: Sequence[str], env: dict[str, str], cwd: Path | None = None) -> Timing:
    """Run ``command`` to the end; its wall and CPU time and peak memory."""
    peak = [0, 0]
    cpu_before, started = _children_cpu(), time.perf_counter()
    process = subprocess.Popen(
        list(command), env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.1):
            pss, largest = _memory_kb(process.pid)
            peak[:] = max(peak[0], pss), max(peak[1], largest)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stdout, stderr = process.communicate()
    wall = time.perf_counter() - started
    done.set()
    sampler.join()
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({process.returncode}):\n{stderr[-2000:]}")
    return Timing(wall, _children_cpu() - cpu_before, peak[0] / 1024, peak[1] / 1024, stdout)


def median(timings: list[Timing]) -> tuple[float, float]:
    return statistics.median(t.wall for t in timings), statistics.median(t.cpu for t in timings)


def count_answers(folder: Path) -> int:
    total = 0
    for path in sorted(folder.rglob("trials.jsonl.xz")):
        with lzma.open(path, "rb") as handle:
            total += sum(1 for line in handle if line.strip())
    for path in sorted(folder.rglob("trials.jsonl")):
        total += sum(1 for line in path.read_bytes().splitlines() if line.strip())
    return total


def writable_copy(source: Path, target: Path) -> Path:
    shutil.copytree(source, target)
    for path in [target, *target.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return target


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def upstream_line(
    upstream: Path | None, run_folder: Path, work: Path, ours: tuple[float, float]
) -> str:
    """Upstream's ``pfgen_eval.py --force`` on the run, in a copy of its checkout."""
    if upstream is None:
        return "upstream: not measured (give --upstream PATH, a pfgen-bench checkout)"
    checkout = work / "upstream"
    checkout.mkdir()
    shutil.copy2(upstream / "pfgen_eval.py", checkout / "pfgen_eval.py")
    shutil.copytree(upstream / "data", checkout / "data")
    target = writable_copy(run_folder, checkout / "result" / ONE_RUN)
    (target / "result.json").unlink(missing_ok=True)
    trials = (target / "trials.jsonl.xz").relative_to(checkout)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HYOKA_")}
    timing = run([sys.executable, "pfgen_eval.py", "--force", str(trials)], env, cwd=checkout)
    return (
        f"upstream: pfgen_eval.py --force on the same run: {timing.wall:.1f} s wall, "
        f"{timing.cpu:.1f} CPU-s (once; it keeps no cache): hyoka is {timing.wall / ours[0]:.0f}x "
        f"faster in wall time, {timing.cpu / ours[1]:.0f}x in CPU time; target >= 200x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--runs", type=Path, help="A folder of runs (default: the samples).")
    parser.add_argument("--upstream", type=Path, help="A pfgen-bench checkout to compare.")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--src", type=Path, help="Measure this source folder's hyoka instead.")
    parser.add_argument("--copies", type=int, default=1, help="Score this many copies of --runs.")
    parser.add_argument(
        "--engines", default=",".join(ENGINES), help="Comma-separated engines to time (or '')."
    )
    args = parser.parse_args()
    engines = [e for e in args.engines.split(",") if e]
    if args.copies < 1 or any(e not in ENGINES for e in engines):
        parser.error(f"--copies is at least 1; --engines names some of {', '.join(ENGINES)}")
    data_dir = args.data_dir.resolve()
    runs = (args.runs or data_dir / "pfgen-bench" / "results").resolve()
    start_load = load()
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}; load {start_load}")

    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        env = {**os.environ, "HYOKA_DATA_DIR": str(data_dir), "HYOKA_CACHE_DIR": str(work)}
        if args.src is not None:
            env["PYTHONPATH"] = str(args.src.resolve())
        env.pop(ENGINE_ENV, None)
        cold = run([sys.executable, "-c", _BUILD_INDEXES], env)
        print(f"cold: indexes of every question built in {cold.wall:.1f} s ({cold.cpu:.1f} CPU-s)")

        copied = writable_copy(runs, work / "runs")
        one = copied / ONE_RUN
        everything = copied
        if args.copies > 1:
            everything = work / "copies"
            for k in range(1, args.copies + 1):
                writable_copy(runs, everything / f"copy-{k}")
        if one.is_dir():
            score_one = [*HYOKA, "pfgen", "score", "--force", "--json", str(one)]
            warm = [run(score_one, env) for _ in range(args.repeat)]
            wall, cpu = median(warm)
            shown = ", ".join(f"{t.wall:.2f}" for t in warm)
            print(
                f"one run: {ONE_RUN} (5,000 answers) scored in {wall:.2f} s wall, {cpu:.2f} "
                f"CPU-s, whole process, warm (median of {len(warm)}: {shown}); target < 0.7 s"
            )
            print(upstream_line(args.upstream, runs / ONE_RUN, work, (wall, cpu)))
        else:
            print(f"one run: {ONE_RUN} is not under {runs}; not measured")

        answers = count_answers(everything)
        folders = len({p.parent for p in everything.rglob("trials.jsonl*")})
        score_all = [*HYOKA, "pfgen", "score", "--force", "--json", str(everything)]
        every = run(score_all, env)
        print(
            f"all: {folders} runs, {answers:,} answers, scored in {every.wall:.1f} s wall, "
            f"{every.cpu:.1f} CPU-s, warm cache: {answers / every.wall:,.0f} answers/s; peak "
            f"memory {every.peak_tree_mb:.0f} MB (PSS of the process tree), largest process "
            f"{every.peak_process_mb:.0f} MB; target <= 60 s for 527 runs"
        )
        for engine in engines:
            forced = {**env, ENGINE_ENV: engine}
            probe = run([sys.executable, "-c", _ENGINE_PROBE], forced).output.strip()
            if probe.startswith("none"):
                print(f"engine {ENGINE_ENV}={engine}: cannot run ({probe})")
                continue
            timing = run(score_all, forced)
            print(
                f"engine {ENGINE_ENV}={engine} (ran: {probe}): all runs in {timing.wall:.1f} s "
                f"wall, {timing.cpu:.1f} CPU-s, {answers / timing.wall:,.0f} answers/s"
            )

    help_runs = [run([*HYOKA, "--help"], env) for _ in range(args.repeat + 1)][1:]
    wall, cpu = median(help_runs)
    print(f"hyoka --help: {wall:.3f} s wall, {cpu:.3f} CPU-s (median of {len(help_runs)})")
    print(f"load average: {start_load} at the start, {load()} at the end (1, 5, 15 min)")


if __name__ == "__main__":
    main()
