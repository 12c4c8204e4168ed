"""Checks of a library call's arguments, made where the call enters the library.

The command line refuses these values while it parses (a choice, a ``min``); a Python
caller meets the same refusal here, as one ``InputError`` naming the parameter
(``errors.PARAMETER``), instead of a result for a value the command would not take or a
bare ``AttributeError`` deep inside.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from os import PathLike
from pathlib import Path
from typing import Any

from hyoka.errors import InputError


def one_of(name: str, value: object, choices: Iterable[str]) -> None:
    """``value`` is one of ``choices``."""
    shown = tuple(choices)
    if value not in shown:
        raise InputError(f"`{name}` must be one of {', '.join(shown)}, got {value!r}")


def at_least_one(name: str, value: int | None) -> None:
    """``value`` (a count such as ``limit``; ``None``: no bound) is 1 or more."""
    if value is not None and (type(value) is not int or value < 1):
        raise InputError(f"`{name}` must be at least 1, got {value!r}")


#: The fewest bootstrap draws of a percentile interval: of one draw its 2.5th and 97.5th
#: percentiles are that draw, an interval of zero width that need not hold the estimate
#: (and every pair of models then looks told apart); two draws give distinct bounds.
MIN_RESAMPLES = 2


def resamples(value: int, confidence: float = 0.95) -> None:
    """``value`` bootstrap draws are enough for a ``confidence`` percentile interval."""
    if type(value) is not int or value < MIN_RESAMPLES:
        raise InputError(
            f"`resamples` must be at least {MIN_RESAMPLES} for a {confidence:.0%} interval,"
            f" got {value!r}"
        )


def paths(name: str, value: Sequence[Path] | None, *, empty: bool = True) -> None:
    """``value`` is a sequence of ``Path``s (``None``: not given), not one path or name;
    not ``empty`` where no path is no request (the command line takes one or more)."""
    one: tuple[type[Any], ...] = (str, bytes, PathLike)
    if value is not None and (
        isinstance(value, one) or not all(isinstance(p, Path) for p in value)
    ):
        raise InputError(f"`{name}` must be a sequence of paths (pathlib.Path), got {value!r}")
    if value is not None and not empty and len(value) == 0:
        raise InputError(f"`{name}` must hold at least one path, got {value!r}")


def path(name: str, value: Path) -> None:
    """``value`` is one ``Path``, not a name (``str``) the call would fail on deep inside."""
    if not isinstance(value, Path):
        raise InputError(f"`{name}` must be a path (pathlib.Path), got {value!r}")
