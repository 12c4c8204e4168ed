"""Maintainer check: FastChat's own ``show_result.py`` reads hyoka's judgment files.

    python benchmarks/fastchat_show_result.py MIRROR JUDGMENTS [--rev jp-stable]
        [--mode single|pairwise-baseline|pairwise-all] [--baseline MODEL]

MIRROR is a git clone of a FastChat fork (Stability-AI/FastChat for Japanese MT-bench,
lm-sys/FastChat for MT-bench); ``show_result.py`` is taken from ``--rev`` with ``git show``
into a temporary folder and run there on JUDGMENTS (a ``_single.jsonl`` or ``_pair.jsonl``
hyoka wrote with ``--layout upstream``), with this Python (it needs pandas). The project
carries none of upstream's code: the script is read from the clone each time. It prints
upstream's output as it is and exits with its status, so a type or field hyoka writes
differently from FastChat shows up as upstream's own error.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

SHOW_RESULT = "fastchat/llm_judge/show_result.py"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mirror", type=Path, help="a git clone of a FastChat fork")
    parser.add_argument("judgments", type=Path, help="a judgment file hyoka wrote")
    parser.add_argument("--rev", default="jp-stable", help="the revision to read (jp-stable)")
    parser.add_argument("--mode", default="single", help="show_result.py's --mode (single)")
    parser.add_argument("--baseline", help="show_result.py's --baseline-model")
    parser.add_argument("--bench-name", help="show_result.py's --bench-name (mt_bench)")
    parser.add_argument("--script", default=SHOW_RESULT, help=f"its path ({SHOW_RESULT})")
    args = parser.parse_args()
    shown = subprocess.run(
        ["git", "-C", str(args.mirror), "show", f"{args.rev}:{args.script}"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if shown.returncode != 0:
        print(f"error: {args.mirror}: {shown.stderr.strip()}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as work:
        script = Path(work) / "show_result.py"
        script.write_text(shown.stdout, encoding="utf-8")
        command = [sys.executable, str(script), "--mode", args.mode]
        command += ["--input-file", str(args.judgments.resolve())]
        if args.baseline:
            command += ["--baseline-model", args.baseline]
        if args.bench_name:
            command += ["--bench-name", args.bench_name]
        print(f"{args.rev}:{args.script} on {args.judgments}", flush=True)
        return subprocess.run(command, cwd=work, timeout=300, check=False).returncode


if __name__ == "__main__":
    raise SystemExit(main())
