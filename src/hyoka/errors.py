"""The errors a user can cause, each carrying a message fit to print as it is.

The command line turns these into one line on stderr and a non-zero exit; anything else is a
bug and keeps its traceback.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

#: how a message names a parameter of the call it is about: in backticks, as Python spells
#: it (`resamples`), never as a flag; the command line shows the flag that gives it there
#: (``cli._common.flagged``)
PARAMETER = re.compile(r"`([a-z_][a-z0-9_]*)`")


class HyokaError(Exception):
    """A problem the user can fix: bad input, missing data, a bad value. A parameter it
    names is written `name` (``PARAMETER``), so a Python caller reads the parameter and a
    command user the flag."""

    exit_code = 1


class DataError(HyokaError):
    """Benchmark data is missing, corrupted or malformed."""


class InputError(HyokaError):
    """A file or folder the user gave cannot be used (malformed, unreadable, unknown)."""


class MissingDataError(DataError):
    """The benchmark data is not in the data directory; the message names the fetch command."""


class HyokaWarning(UserWarning):
    """Something a user should know that does not stop the run (a duplicate line dropped, a
    redacted secret). The command line prints each as one ``warning:`` line; library users
    get an ordinary Python warning they can filter."""


class HyokaNote(HyokaWarning):
    """Something done as asked but not as it reads (a path given twice, read once): the
    numbers are right. The command line prints each as one ``note:`` line."""


def setting_problems(
    what: str, problems: Iterable[Mapping[str, Any]], names: Mapping[str, str] | None = None
) -> str:
    """Pydantic's problems (``ValidationError.errors()``) as one line naming each setting,
    e.g. ``invalid sampling setting: `top_p` 2.0: must be <= 1``; a field is named
    ``names[field]``, else as a parameter (`field`, which a command shows as its flag)."""
    parts = []
    for problem in problems:
        field_name = str(problem["loc"][0]) if problem["loc"] else ""
        name = (names or {}).get(field_name, f"`{field_name}`")
        message = str(problem["msg"]).removeprefix("Value error, ")
        parts.append(f"{name} {problem.get('input')!r}: {message}")
    return f"invalid {what} setting: " + "; ".join(parts)
