"""The warnings a cell raised, heard per cell even where cells run side by side.

``warnings.catch_warnings`` swaps module-wide state: two cells on two threads each entering
it would take each other's warnings, and the later to leave would restore the earlier's
recorder for good. Here the module-wide part is entered once, by the first cell to run, and
left by the last; in between each warning goes to the list of the cell whose context raised
it (a ``ContextVar``: ``asyncio.to_thread`` and the cell's tasks carry it), or, raised on a
thread that carries no cell's context, to the only cell running, as before.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TextIO

from hyoka.errors import HyokaWarning

_HEARD: ContextVar[list[warnings.WarningMessage] | None] = ContextVar(
    "hyoka_heard_warnings", default=None
)
_LOCK = threading.Lock()
#: the lists of the cells running now, and the module-wide state the first of them saved
_ACTIVE: list[list[warnings.WarningMessage]] = []
_ENTERED: list[warnings.catch_warnings[None]] = []
_SHOWN: list[Callable[..., None]] = []


def _show(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    heard = _HEARD.get()
    if heard is None:
        with _LOCK:
            heard = _ACTIVE[0] if len(_ACTIVE) == 1 else None
    if heard is not None:
        heard.append(warnings.WarningMessage(message, category, filename, lineno, file, line))
    else:  # no cell's, and not one alone: said as it would be without a sweep
        _SHOWN[0](message, category, filename, lineno, file, line)


@contextmanager
def heard_warnings() -> Iterator[list[warnings.WarningMessage]]:
    """Every warning raised in this context while it is open (``HyokaWarning`` each time it
    is raised, never once only), in a list of its own."""
    heard: list[warnings.WarningMessage] = []
    token = _HEARD.set(heard)
    with _LOCK:
        if not _ACTIVE:
            saved: warnings.catch_warnings[None] = warnings.catch_warnings()
            saved.__enter__()
            _ENTERED.append(saved)
            _SHOWN[:] = [warnings.showwarning]
            warnings.showwarning = _show
            warnings.simplefilter("always", HyokaWarning)
        _ACTIVE.append(heard)
    try:
        yield heard
    finally:
        _HEARD.reset(token)
        with _LOCK:
            del _ACTIVE[next(i for i, found in enumerate(_ACTIVE) if found is heard)]
            if not _ACTIVE:
                _ENTERED.pop().__exit__(None, None, None)
