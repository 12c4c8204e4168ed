"""Where benchmark data lives: ``--data-dir``, else ``HYOKA_DATA_DIR``, else the user cache.

One rule for every command, so a user who fetched data once never has to say where again.
A data directory that is a file is said to be one (not reported as 52 corrupt files), and
the hint to fetch missing data names the ``--data-dir`` the user gave, so it can be pasted.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from hyoka.errors import InputError, MissingDataError
from hyoka.store import user_cache_root

DATA_DIR_ENV = "HYOKA_DATA_DIR"


def resolve_data_dir(explicit: Path | str | None = None) -> Path:
    """The data directory; ``InputError`` naming the flag or variable if it is not a folder."""
    if explicit is not None:
        return _folder(Path(explicit).expanduser(), "`data_dir`")
    from_env = os.environ.get(DATA_DIR_ENV)
    if from_env:
        return _folder(Path(from_env).expanduser(), f"${DATA_DIR_ENV}")
    return user_cache_root() / "data"


def _folder(path: Path, where: str) -> Path:
    if path.exists() and not path.is_dir():
        raise InputError(f"{where} {path}: not a folder")
    return path


def fetch_hint(name: str, explicit: Path | str | None = None, *, file: str | None = None) -> str:
    """How to download benchmark ``name`` into the data directory the user chose; for a
    ``file`` (relative to the data directory) of an optional group, with that group's flag."""
    from hyoka.data.manifest import GROUP_FLAGS, group_of

    group = group_of(name, file) if file is not None else None
    flag = f" {GROUP_FLAGS[group]}" if group is not None and group in GROUP_FLAGS else ""
    flag += f" --data-dir {shlex.quote(str(explicit))}" if explicit is not None else ""
    return f"run `hyoka data fetch {name}{flag}` to download it"


def data_file(
    relative: Path | str,
    name: str,
    what: str,
    explicit: Path | str | None = None,
    *,
    flag: str | None = None,
) -> Path:
    """The file ``relative`` in the data directory, or ``MissingDataError`` naming ``what``
    it should hold, where it was looked for and how to fetch benchmark ``name`` there (and
    ``flag``, where the command can be told another file): one message wherever a
    benchmark's file is missing."""
    path = resolve_data_dir(explicit) / relative
    if not path.is_file():
        other = f", or name the file with {flag}" if flag is not None else ""
        raise MissingDataError(f"{what} not found: {path}: {fetch_hint(name, explicit)}{other}")
    return path
