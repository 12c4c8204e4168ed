"""``hyoka pfgen leaderboard``: rank every scored run under a results folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from hyoka.cli._common import OutputOption, echo, reports_errors
from hyoka.pfgen import LeaderboardFormat  # an enum the flag needs; loads nothing heavy


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
            help="Markdown table, CSV, JSON, or upstream: the pfgen-bench README's own table "
            "(on a pfgen-bench checkout, its rows from result/ and data/, byte for byte).",
            case_sensitive=False,
        ),
    ] = LeaderboardFormat.MD,
    output: OutputOption = None,
) -> None:
    """Rank the scored pfgen-bench runs under RESULTS_DIR, best score first.

    Score is shown ± its standard error (std/sqrt(trials)), length ± its standard deviation.
    Under the table, the signature and the benchmark data most runs share (and whether that
    is the pinned release); a run made differently (another float summation, other
    benchmark data, upstream runs by their metadata_hash ...) is marked †N, with a footnote
    naming what differs.

    A result.json that is not a pfgen-bench result is skipped with a warning on stderr.

    Examples:

      hyoka pfgen leaderboard

      hyoka pfgen leaderboard results/ --format csv --output leaderboard.csv

      hyoka pfgen leaderboard ~/pfgen-bench/result -f json

      hyoka pfgen leaderboard ~/pfgen-bench -f upstream
    """
    from rich.markup import escape

    from hyoka.cli._common import err_console, print_warning
    from hyoka.pfgen import (
        collect_leaderboard,
        collect_upstream_leaderboard,
        render_leaderboard,
    )
    from hyoka.store import atomic_write_text

    warnings: list[str] = []
    links_from = None
    try:
        if fmt is LeaderboardFormat.UPSTREAM:
            rows, links_from = collect_upstream_leaderboard(results_dir, warnings=warnings)
        else:
            rows = collect_leaderboard(results_dir, warnings=warnings)
    finally:  # the skipped files explain an error about having no usable result, too
        for message in warnings:
            print_warning(message)
    text = render_leaderboard(rows, fmt.value, links_from=links_from)
    if output is None:
        echo(
            text,
            nl=False,
            json_text=fmt is LeaderboardFormat.JSON,
            csv_text=fmt is LeaderboardFormat.CSV,
        )
        return
    atomic_write_text(output, text)  # a failure is the store's one-line WriteError
    err_console.print(
        f"Wrote {len(rows)} runs to {escape(str(output))}", highlight=False, soft_wrap=True
    )
