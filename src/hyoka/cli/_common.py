"""What every command shares: the console, options that recur, and error reporting.

A user mistake (``HyokaError``) becomes one line on stderr and exit code 1 (2 for a bad
flag, as typer does); anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, ParamSpec, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import ProgressColumn, Task
from rich.text import Text

from hyoka.errors import HyokaError, InputError
from hyoka.providers.types import Usage

console = Console()
err_console = Console(stderr=True)

P = ParamSpec("P")
R = TypeVar("R")

DataDirOption = Annotated[
    Path | None,
    typer.Option(
        "--data-dir",
        help="Benchmark data directory (default: $HYOKA_DATA_DIR, else the user cache).",
        show_default=False,
    ),
]


def print_error(error: Exception) -> None:
    """One line on stderr, never wrapped (paths stay whole) and never read as markup."""
    err_console.print(f"[bold red]error:[/] {escape(str(error))}", highlight=False, soft_wrap=True)


def reports_errors(command: Callable[P, R]) -> Callable[P, R]:
    """Turn ``HyokaError`` into a one-line message and a non-zero exit."""

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except HyokaError as exc:
            print_error(exc)
            raise typer.Exit(exc.exit_code) from None

    return wrapper


class RateColumn(ProgressColumn):
    """Items per second (or seconds per item when slower than one a second)."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        if not speed:
            return Text("  -/s", style="progress.data.speed")
        shown = f"{speed:.1f}/s" if speed >= 1 else f"{1 / speed:.1f} s/it"
        return Text(shown, style="progress.data.speed")


def cost_usd(usage: Usage, price_in: float, price_out: float) -> float:
    """What the tokens cost at USD ``price_in``/``price_out`` per million prompt/completion
    tokens (the user's prices: hyoka keeps no price table that would go stale)."""
    return (usage.prompt_tokens * price_in + usage.completion_tokens * price_out) / 1e6


def provider_options(pairs: list[str], base_url: str | None = None) -> dict[str, Any]:
    """``--option KEY=VALUE`` flags (values read as JSON where they parse, else as text)
    and ``--base-url``, as keyword options for ``load_provider``."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise InputError(f"--option must be KEY=VALUE, got {pair!r}")
        try:
            options[key] = json.loads(raw)
        except json.JSONDecodeError:
            options[key] = raw
    if base_url:
        options["base_url"] = base_url
    return options
