"""How the two language checks compare with the published "Incorrect language" zeros.

On the 9 published gpt-4o-mini judgment files of pfmt-bench-fin-ja (6,480 judged turns),
for each turn with an answer: did upstream give it a language zero, does our offline
upstream-compatible check (bundled fastText lite model) flag it, does the script check
flag it. Prints agreement counts, the zeros the script check overturns, and examples.

    .venv/bin/python benchmarks/mtbench_langcheck.py [DATA_DIR] [--examples N]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

from hyoka.data.paths import resolve_data_dir
from hyoka.mtbench import Bench
from hyoka.mtbench.langcheck import script_share
from hyoka.mtbench.langstats import Turn, collect


def _show(turn: Turn) -> str:
    head = turn.answer.strip()[:60].replace("\n", "⏎")
    share = script_share(turn.answer)
    where = f"{turn.model} q{turn.question_id} t{turn.turn} ({turn.category}"
    return f"  {where}, ja share {share:.2f}): {head!r}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("data_dir", nargs="?", type=Path, default=None)
    parser.add_argument("--examples", type=int, default=8)
    args = parser.parse_args(argv)
    bench = Bench.load("pfmt-fin", resolve_data_dir(args.data_dir))
    started = time.perf_counter()
    turns = collect(bench)
    seconds = time.perf_counter() - started
    zeros = [t for t in turns if t.published_zero]
    print(f"{len(turns)} answered turns, {len(zeros)} published 'Incorrect language' zeros")
    checks = (("upstream (fastText lite, offline)", "upstream_flags"), ("script", "script_flags"))
    for name, attr in checks:
        table = Counter((t.published_zero, getattr(t, attr)) for t in turns)
        agree = table[True, True] + table[False, False]
        print(
            f"{name}: agrees on {agree}/{len(turns)} turns ({100 * agree / len(turns):.2f}%); "
            f"flags {table[True, True]}/{len(zeros)} published zeros, "
            f"and {table[False, True]} turns upstream judged normally"
        )
    overturned = [t for t in zeros if not t.script_flags]
    new = [t for t in turns if t.script_flags and not t.published_zero]
    print(f"script check overturns {len(overturned)} of the {len(zeros)} published zeros")
    by_kind = Counter(_kind(t.answer) for t in overturned)
    print("  by how the answer starts: " + ", ".join(f"{k} {n}" for k, n in by_kind.most_common()))
    for turn in overturned[: args.examples]:
        print(_show(turn))
    print(f"script check zeros {len(new)} turns upstream judged normally")
    for turn in new[: args.examples]:
        print(_show(turn))
    kept = [t for t in zeros if t.script_flags]
    print(f"published zeros the script check keeps: {len(kept)}")
    for turn in kept[: args.examples]:
        print(_show(turn))
    print(f"({seconds:.1f} s for {2 * len(turns)} checks)", file=sys.stderr)
    return 0


def _kind(answer: str) -> str:
    start = answer.strip()
    if start.startswith(("```", "{", "[")):
        return "code/JSON"
    if start.startswith("|"):
        return "table"
    if start[:1].isascii():
        return "Latin text"
    return "other"


if __name__ == "__main__":
    raise SystemExit(main())
