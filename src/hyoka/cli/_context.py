"""Showing a new run among the public leaderboard's runs, for a sense of scale."""

from __future__ import annotations

from pathlib import Path

import typer

from hyoka.cli._common import console
from hyoka.data.paths import resolve_data_dir
from hyoka.pfgen.leaderboard import collect, rank, render
from hyoka.pfgen.summary import RunSummary

#: Rows shown above and below the new run.
NEIGHBOURS = 3


def show_beside_public(ours: RunSummary, data_dir: Path | None) -> None:
    """Print the nearest public rows around ``ours``, if the data directory has results."""
    public = resolve_data_dir(data_dir) / "pfgen-bench" / "results"
    if not public.is_dir():
        return
    rows = rank([*collect(public), ours])
    start = max(rows.index(ours) - NEIGHBOURS, 0)
    console.print(f"\nBeside the public results in {public}:", highlight=False)
    typer.echo(render(rows[start : start + 2 * NEIGHBOURS + 1], "md", first_rank=start + 1))
