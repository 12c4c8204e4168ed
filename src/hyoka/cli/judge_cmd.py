"""``hyoka judge ...``: the generic LLM-as-a-judge protocols and agreement statistics."""

from __future__ import annotations

import typer

from hyoka.cli.judge_agreement_cmd import agreement_command
from hyoka.cli.judge_pairwise_cmd import pairwise_command
from hyoka.cli.judge_single_cmd import single_command

judge_app = typer.Typer(
    help="Judge answers with an LLM (single grading, pairwise) and measure agreement.",
    no_args_is_help=True,
)
judge_app.command("single")(single_command)
judge_app.command("pairwise")(pairwise_command)
judge_app.command("agreement")(agreement_command)
