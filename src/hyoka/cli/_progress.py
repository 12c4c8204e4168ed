"""The progress bar every long command shows on stderr, in one style.

Kept apart from ``_common`` because it needs rich at import time (a ``ProgressColumn``
subclass), and ``_common`` must stay cheap enough for ``hyoka --help``.
"""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from hyoka.printable import printable


class DescriptionColumn(ProgressColumn):
    """A task's description as written and printable: descriptions name models and files,
    whose ``[`` is no markup and whose escape sequences must not reach the terminal."""

    def render(self, task: Task) -> Text:
        return Text(printable(task.description))


class RateColumn(ProgressColumn):
    """Items per second (or seconds per item when slower than one a second)."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        if not speed:
            return Text("  -/s", style="progress.data.speed")
        shown = f"{speed:.1f}/s" if speed >= 1 else f"{1 / speed:.1f} s/it"
        return Text(shown, style="progress.data.speed")


def progress_bar(
    console: Console, *, rate: bool = False, remaining: bool = False, transient: bool = False
) -> Progress:
    """Description, bar, done/total, then items per second (``rate``), time elapsed and time
    left (``remaining``); ``transient`` bars vanish when done, for commands whose table
    follows at once."""
    columns: list[ProgressColumn] = [
        DescriptionColumn(),
        BarColumn(),
        MofNCompleteColumn(),
    ]
    if rate:
        columns.append(RateColumn())
    columns.append(TimeElapsedColumn())
    if remaining:
        columns.append(TimeRemainingColumn())
    return Progress(*columns, console=console, transient=transient)
