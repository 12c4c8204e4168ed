"""``hyoka refset ...``: build pfgen-style reference answer sets, stage by stage."""

from __future__ import annotations

import typer

refset_app = typer.Typer(
    help="Build reference answer sets: generate, normalise, filter, select, publish.",
    no_args_is_help=True,
)
