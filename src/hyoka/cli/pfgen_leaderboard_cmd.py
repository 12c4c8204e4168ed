"""``hyoka pfgen leaderboard``: rank every scored run under a results folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from hyoka._atomic import atomic_write_text
from hyoka.cli._common import err_console, reports_errors
from hyoka.errors import InputError
from hyoka.pfgen.leaderboard import LeaderboardFormat, collect, render


@reports_errors
def leaderboard_command(
    results_dir: Annotated[
        Path,
        typer.Argument(
            help="Folder searched (recursively) for the result.json of scored runs.",
            metavar="RESULTS_DIR",
        ),
    ] = Path("results"),
    fmt: Annotated[
        LeaderboardFormat,
        typer.Option(
            "--format",
            "-f",
            help="Markdown table (as in the pfgen-bench README), CSV, or JSON.",
            case_sensitive=False,
        ),
    ] = LeaderboardFormat.MD,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="Write the leaderboard to this file instead of standard output.",
            show_default=False,
            dir_okay=False,
        ),
    ] = None,
) -> None:
    """Rank the scored pfgen-bench runs under RESULTS_DIR, best score first.

    Score is shown ± its standard error (std/sqrt(trials)), length ± its standard deviation.

    A result.json that is not a pfgen-bench result is skipped with a warning on stderr.

    Examples:

      hyoka pfgen leaderboard

      hyoka pfgen leaderboard results/ --format csv -o leaderboard.csv

      hyoka pfgen leaderboard ~/pfgen-bench/result -f json
    """
    warnings: list[str] = []
    try:
        rows = collect(results_dir, warnings=warnings)
    finally:  # the skipped files explain an error about having no usable result, too
        for message in warnings:
            err_console.print(
                f"[bold yellow]warning:[/] {escape(message)}", highlight=False, soft_wrap=True
            )
    text = render(rows, fmt)
    if output is None:
        typer.echo(text, nl=False)
        return
    try:
        atomic_write_text(output, text)
    except OSError as exc:
        raise InputError(f"{output}: cannot write: {exc.strerror or exc}") from None
    err_console.print(
        f"Wrote {len(rows)} runs to {escape(str(output))}", highlight=False, soft_wrap=True
    )
