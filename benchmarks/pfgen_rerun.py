"""What a re-run of a finished pfgen-bench run costs: whole ``hyoka pfgen run`` processes.

    python benchmarks/pfgen_rerun.py [--trials 10] [--limit 50]

The model is an OpenAI-compatible server that answers at once (provider_overhead.py's), so
the first run's time is hyoka's own cost: prompts, the provider layer, the run files and
scoring. Then, with the same response cache:

* the same command into a fresh results folder: every answer comes from the cache, the run
  files are written and scored again, the server sees no request;
* the same command into the finished folder: nothing to generate, nothing to rescore.

Each figure is the wall time of the whole process (interpreter start and imports included).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SERVER = HERE / "provider_overhead.py"


def _hyoka(args: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "hyoka", *args], env=env, capture_output=True, text=True
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"hyoka {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return elapsed


def _measure(base_url: str, trials: int, limit: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        env = {**os.environ, "HYOKA_CACHE_DIR": str(work / "cache"), "COLUMNS": "120"}
        env.setdefault("HYOKA_DATA_DIR", str(HERE.parents[1] / "shared" / "data"))
        common = ["pfgen", "run", "-m", "openai/bench", "--base-url", base_url]
        common += ["--trials", str(trials), "--limit", str(limit), "--concurrency", "16"]
        answers = trials * limit
        # the n-gram indexes are cached too: build them before the timed runs
        _hyoka([*common, "--results-dir", str(work / "warm-up"), "--trials", "1"], env)
        first = _hyoka([*common, "--results-dir", str(work / "first")], env)
        cached = _hyoka([*common, "--results-dir", str(work / "again")], env)
        finished = _hyoka([*common, "--results-dir", str(work / "first")], env)
    print(f"{limit} questions x {trials} trials = {answers} answers, instant local server")
    print(f"first run (server answers, write, score):      {first:6.2f} s")
    print(f"same run, fresh folder, all from the cache:     {cached:6.2f} s")
    print(f"same run, finished folder (nothing to do):      {finished:6.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--limit", type=int, default=50)
    args = parser.parse_args()
    server = subprocess.Popen(
        [sys.executable, str(SERVER), "--serve"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        if not line.startswith("PORT "):
            raise SystemExit(f"the benchmark server did not start: {line!r}")
        _measure(f"http://127.0.0.1:{int(line.split()[1])}/v1", args.trials, args.limit)
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
