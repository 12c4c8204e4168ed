"""Command groups that import a command's module only when that command is run.

``hyoka --help`` must list every group and command with its one-line help, yet importing
the command modules would pull in numpy, pydantic and most of hyoka (about a second).
So the command tree is a table of names, one-line helps and ``"module:function"`` targets
(``CommandSpec``, ``GroupSpec``); ``LazyGroup`` shows the table in help screens and imports
a target only when its command is invoked or its own ``--help`` is asked for.

A command module then holds plain functions (typed parameters, docstring) that typer turns
into a command on load, exactly as ``app.command(name)(function)`` would.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from difflib import get_close_matches
from typing import Any

import typer
import typer.main
from typer import _click
from typer.core import MarkupMode, TyperCommand, TyperGroup


@dataclass(frozen=True)
class CommandSpec:
    """A command: where its function lives and the one line its parent's help shows.

    ``help`` must be the first paragraph of the function's docstring (a test holds them
    together), so the list reads the same as the command's own ``--help``.
    """

    target: str  # "hyoka.cli.data_cmd:fetch_command"
    help: str

    def load(self, name: str, markup_mode: MarkupMode) -> _click.Command:
        """Import the target and build its command (a ``typer.Typer`` becomes a group)."""
        module_name, _, attribute = self.target.partition(":")
        found = getattr(importlib.import_module(module_name), attribute)
        if isinstance(found, typer.Typer):
            command = typer.main.get_command(found)
            command.name = name
            return command
        single = typer.Typer(rich_markup_mode=markup_mode, add_completion=False)
        single.command(name)(found)
        return typer.main.get_command(single)


@dataclass(frozen=True)
class GroupSpec:
    """A command group: its help and its commands (or groups), in the order shown."""

    help: str
    commands: Mapping[str, CommandSpec | GroupSpec] = field(default_factory=dict)

    def build(self, name: str, markup_mode: MarkupMode) -> LazyGroup:
        """The group itself, importing nothing: its commands load when they are used."""
        return LazyGroup(
            name=name,
            help=self.help,
            entries=self.commands,
            no_args_is_help=True,
            rich_markup_mode=markup_mode,
        )


class LazyGroup(TyperGroup):
    """A typer group whose ``entries`` load on use; a help screen only reads their help.

    The root group gets its entries from a subclass's class attribute (typer builds the root
    with ``cls=`` and no extra arguments); nested groups get them from ``GroupSpec.build``.
    """

    entries: Mapping[str, CommandSpec | GroupSpec] = {}

    def __init__(
        self, *, entries: Mapping[str, CommandSpec | GroupSpec] | None = None, **attrs: Any
    ) -> None:
        super().__init__(**attrs)
        if entries is not None:
            self.entries = entries
        self._listing = False

    def list_commands(self, ctx: _click.Context) -> list[str]:
        eager = list(self.commands)
        return eager + [name for name in self.entries if name not in self.commands]

    def get_command(self, ctx: _click.Context, cmd_name: str) -> _click.Command | None:
        loaded = self.commands.get(cmd_name)
        if loaded is not None:
            return loaded
        entry = self.entries.get(cmd_name)
        if entry is None:
            return None
        if isinstance(entry, GroupSpec):
            command: _click.Command = entry.build(cmd_name, self.rich_markup_mode)
        elif self._listing:
            # a help screen needs only the name and the line: no import, nothing cached
            return TyperCommand(name=cmd_name, help=entry.help, short_help=entry.help)
        else:
            command = entry.load(cmd_name, self.rich_markup_mode)
        self.commands[cmd_name] = command
        return command

    def format_help(self, ctx: _click.Context, formatter: _click.HelpFormatter) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False

    def resolve_command(
        self, ctx: _click.Context, args: list[str]
    ) -> tuple[str | None, _click.Command | None, list[str]]:
        """As typer's, but "did you mean" also knows the commands not loaded yet."""
        try:
            return self._click_resolve_command(ctx, args)
        except _click.exceptions.UsageError as error:
            if self.suggest_commands and args:
                matches = get_close_matches(args[0], self.list_commands(ctx))
                if matches:
                    suggestions = ", ".join(repr(match) for match in matches)
                    error.message = f"{error.message.rstrip('.')}. Did you mean {suggestions}?"
            raise
