"""``hyoka judge ...``: the generic LLM-as-a-judge protocols and agreement statistics."""

from __future__ import annotations

import typer

judge_app = typer.Typer(
    help="Judge answers with an LLM (single grading, pairwise) and measure agreement.",
    no_args_is_help=True,
)
