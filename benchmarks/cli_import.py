"""Start-up cost of the ``hyoka`` command (issue 10 §6): run it, read the numbers it prints.

    python benchmarks/cli_import.py [--repeat 10] [--src DIR]

``--src`` measures another copy of the source instead of the installed one, e.g. the last
commit's: ``git archive HEAD src | tar -x -C /tmp/before`` then ``--src /tmp/before/src``.

1. ``hyoka --help`` as a whole process (interpreter start-up, imports, rendering);
2. the floor: a bare ``import numpy, pydantic, rich, typer`` in a fresh interpreter;
3. a command's own help: ``pfgen --help``, ``judge single --help``, ``mtbench judge --help``;
4. how many ``hyoka`` modules ``hyoka --help`` leaves in ``sys.modules``, of how many the
   package has.

Each figure is the median of ``--repeat`` runs after one warm-up run (the warm-up fills the
bytecode cache and the OS file cache, so the figures measure imports, not the disk): wall
time, and the CPU time (user + system) the process used, which other work on a busy machine
disturbs less. Compare ``hyoka --help`` with the bare import on the same machine and run.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

#: Every command is run through the interpreter this script runs under: ``python -m hyoka``
#: is what the ``hyoka`` console script does, without depending on PATH.
HYOKA = [sys.executable, "-m", "hyoka"]

HELP_COMMANDS: dict[str, list[str]] = {
    "hyoka --help": [*HYOKA, "--help"],
    "bare import numpy, pydantic, rich, typer": [
        sys.executable,
        "-c",
        "import numpy, pydantic, rich, typer",
    ],
    "hyoka pfgen --help": [*HYOKA, "pfgen", "--help"],
    "hyoka judge single --help": [*HYOKA, "judge", "single", "--help"],
    "hyoka mtbench judge --help": [*HYOKA, "mtbench", "judge", "--help"],
}

#: Runs ``hyoka --help`` inside one interpreter and prints the hyoka modules it loaded, after
#: a first line with how many modules the package has.
_COUNT_MODULES = """
import contextlib, io, pathlib, sys
import hyoka
from hyoka.cli.main import app
with contextlib.redirect_stdout(io.StringIO()):
    try:
        app(["--help"], prog_name="hyoka")
    except SystemExit:
        pass
root = pathlib.Path(hyoka.__file__).parent
print(sum(1 for p in root.rglob("*.py") if "__pycache__" not in p.parts))
print("\\n".join(sorted(m for m in sys.modules if m == "hyoka" or m.startswith("hyoka."))))
"""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str], repeat: int, env: dict[str, str]) -> tuple[float, float]:
    """Median wall and CPU time of ``command`` in seconds, after one unmeasured warm-up."""
    subprocess.run(command, check=True, capture_output=True, env=env)
    walls, cpus = [], []
    for _ in range(repeat):
        cpu_before, started = _children_cpu(), time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, env=env)
        walls.append(time.perf_counter() - started)
        cpus.append(_children_cpu() - cpu_before)
    return statistics.median(walls), statistics.median(cpus)


def modules_loaded_by_help(env: dict[str, str]) -> tuple[list[str], int]:
    """The ``hyoka`` modules in ``sys.modules`` after ``hyoka --help``, and how many
    modules the package has (``__init__`` counting as its package)."""
    done = subprocess.run(
        [sys.executable, "-c", _COUNT_MODULES], check=True, capture_output=True, text=True, env=env
    )
    total, *loaded = done.stdout.splitlines()
    return loaded, int(total)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10, help="Measured runs per command.")
    parser.add_argument("--src", type=Path, help="Measure this source folder's hyoka instead.")
    args = parser.parse_args()
    env = dict(os.environ)
    if args.src is not None:
        env["PYTHONPATH"] = str(args.src.resolve())
    print(f"python {sys.version.split()[0]}; median of {args.repeat} runs after one warm-up")
    print(f"{'':45s} {'wall':>7s} {'cpu':>7s}")
    for label, command in HELP_COMMANDS.items():
        wall, cpu = timed(command, args.repeat, env)
        print(f"{label:45s} {wall:6.3f}s {cpu:6.3f}s")
    loaded, total = modules_loaded_by_help(env)
    print(f"hyoka modules imported by `hyoka --help`: {len(loaded)} of {total}")
    print("  " + " ".join(loaded))


if __name__ == "__main__":
    main()
