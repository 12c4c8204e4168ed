"""Commands that take one list of flags, declared once: as the parameters of the function
that reads them.

``pfgen generate`` and ``pfgen run`` take the same twenty flags; written out in each
signature, the two lists could drift apart (a default changed in one). ``takes_flags_of
(read)`` gives a command ``read``'s parameters as its flags (typer reads a command's
signature) and calls the command with what ``read`` makes of them.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def takes_flags_of(read: Callable[..., T]) -> Callable[[Callable[[T], R]], Callable[..., R]]:
    """A decorator: the command it wraps takes ``read``'s parameters as its flags, in
    ``read``'s order and with its defaults, and is called with ``read(**flags)``.

    The flags' annotations are resolved here, where ``read`` is declared (its module's
    names), so typer finds each ``Annotated`` option whichever module the command is in.
    """
    declared = inspect.signature(read)
    hints = typing.get_type_hints(read, include_extras=True)
    flags = [p.replace(annotation=hints[p.name]) for p in declared.parameters.values()]

    def decorate(command: Callable[[T], R]) -> Callable[..., R]:
        @functools.wraps(command)
        def parsed(**given: Any) -> R:
            return command(read(**given))

        returned = inspect.signature(command).return_annotation
        signature = inspect.Signature(flags, return_annotation=returned)
        parsed.__signature__ = signature  # type: ignore[attr-defined]
        parsed.__annotations__ = {**{p.name: p.annotation for p in flags}, "return": returned}
        return parsed

    return decorate
