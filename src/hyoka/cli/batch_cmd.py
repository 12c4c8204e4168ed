"""``hyoka batch status``: the batches that ``--batch`` runs submitted and have not
finished yet, read from the manifests under a results folder (``providers.batch``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from hyoka.cli._common import BaseUrlOption, JsonOption, echo_json, flagged, reports_errors, say


@reports_errors
def status_command(
    results: Annotated[
        Path,
        typer.Argument(
            help="A results folder (every results file under it) or one results file.",
            metavar="RESULTS",
        ),
    ] = Path("results"),
    offline: Annotated[
        bool,
        typer.Option(
            "--offline", help="Show each batch's state as the last run saw it; ask no API."
        ),
    ] = False,
    base_url: BaseUrlOption = None,
    as_json: JsonOption = False,
) -> None:
    """List the batches in flight (submitted by --batch) and their state.

    Each results file's manifest keeps the ids of its batches until a run of the same
    command reads their results; this asks each batch's API for its state now (the key
    from the environment, as the command that submitted it). Run that command again to
    finish: ended batches are read back, failed or expired requests submitted again.

    Examples:

      hyoka batch status results/mtbench

      hyoka batch status results/mtbench/mt-bench/model_judgment/gpt-4o_single.jsonl --offline
    """
    from dataclasses import replace

    from hyoka.providers import batch_status

    found = [  # a line naming a parameter (`base_url`) shows its flag
        replace(batch, error=flagged(batch.error))
        for batch in batch_status(results, live=not offline, base_url=base_url)
    ]
    if as_json:
        echo_json([batch.to_json() for batch in found])
        if any(batch.error for batch in found):
            raise typer.Exit(1)
        return
    for batch in found:
        say(batch.line())
    if not found:
        say(f"no batches in flight under {results}")
    if any(batch.error for batch in found):  # each said in its line; the others shown
        raise typer.Exit(1)


@reports_errors
def release_command(
    results: Annotated[
        Path, typer.Argument(help="The results file whose batch to release.", metavar="RESULTS")
    ],
    batches: Annotated[
        list[str],
        typer.Argument(
            help="Each batch's id, or a submission's mark (as a run or `batch status` says).",
            metavar="BATCH...",
        ),
    ],
    as_json: JsonOption = False,
) -> None:
    """Drop batches from a results file's note: the next run asks their requests again.

    For a batch the API does not know (deleted, or submitted with another key you no
    longer have) or a lost submission waiting for batches that are not its own: what the
    released batch answers is never read, and its requests are paid for again.

    Example:

      hyoka batch release results/a.jsonl msgbatch_01
    """
    from hyoka.providers import release_batches

    dropped = release_batches(results, batches)
    if as_json:
        echo_json(dropped)
        return
    for entry in dropped:
        say(
            f"{results}: batch {entry['id'] or 'mark ' + str(entry.get('tag'))} released: its "
            f"{entry['requests']} request(s) are asked again by the next run of its command"
        )
