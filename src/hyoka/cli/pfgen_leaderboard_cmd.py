"""``hyoka pfgen leaderboard``: rank every scored run under a results folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from hyoka.cli._common import JsonOption, OutputOption, echo, reports_errors
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
    as_json: JsonOption = False,
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

    from hyoka.cli._common import err_console
    from hyoka.pfgen import leaderboard
    from hyoka.store import write_output

    board = leaderboard(results_dir, LeaderboardFormat.JSON if as_json else fmt)
    if output is None:
        shown = board.fmt
        echo(board.text, nl=False, json_text=shown == "json", csv_text=shown == "csv")
        return
    write_output(output, board.text)  # refused or failed: the store's one line
    err_console.print(
        f"Wrote {len(board.rows)} runs to {escape(str(output))}", highlight=False, soft_wrap=True
    )
