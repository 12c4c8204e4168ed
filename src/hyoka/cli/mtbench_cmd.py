"""``hyoka mtbench ...``: multi-turn benchmarks judged by an LLM (pfmt-bench-fin-ja)."""

from __future__ import annotations

import typer

mtbench_app = typer.Typer(
    help="Multi-turn benchmarks judged by an LLM: generate answers, judge them, rank models.",
    no_args_is_help=True,
)
